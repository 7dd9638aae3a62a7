//! Loops and state pruning: bounded loops walked iteration by iteration,
//! pruning at converging paths (and what defeats it), may_goto loops, and
//! the BPF_F_TEST_STATE_FREQ flag's extra checkpoints.

use bpf_selftest::prelude::*;

// A bounded loop of 10: each iteration is a new state (r1 differs), so
// the verifier walks all of them.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(45)]
#[msg("2: (0f) r0 += r1                      ; R0=45 R1=9")]
#[msg("4: R1=10")]
#[msg("processed 33 insns")]
pub fn bounded_loop_walked() {
    bpf_asm!(
        "r0 = 0;"
        "r1 = 0;"
    "1:"
        "r0 += r1;"
        "r1 += 1;"
        "if r1 < 10 goto 1b;"
        "exit;"
    )
}

// Two paths that leave the same state meet, but in a program this small
// no checkpoint was taken there (checkpoints need a few insns and jumps
// since the last one): both paths are walked to the exit.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("from 2 to 5: R10=fp0")]
#[msg("8: (95) exit")]
#[msg("processed 12 insns")]
pub fn no_checkpoint_no_prune() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "if r1 > 10 goto 1f;"
        "r2 = 1;"
        "goto 2f;"
    "1:"
        "r2 = 1;"
    "2:"
        "r0 = 0;"
        "r0 += 0;"
        "exit;"
    )
}

// The same with BPF_F_TEST_STATE_FREQ (a checkpoint at every prune
// point): the second path is pruned where they meet.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[flag(BPF_F_TEST_STATE_FREQ)]
#[retval(0)]
#[msg("from 2 to 5: R10=fp0")]
#[msg("6: safe")]
#[msg("processed 10 insns")]
pub fn prune_equal_states() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "if r1 > 10 goto 1f;"
        "r2 = 1;"
        "goto 2f;"
    "1:"
        "r2 = 1;"
    "2:"
        "r0 = 0;"
        "r0 += 0;"
        "exit;"
    )
}

// Two paths differing only in a register nobody reads later: pruned too
// (liveness).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[flag(BPF_F_TEST_STATE_FREQ)]
#[retval(0)]
#[msg("from 1 to 4: R10=fp0")]
#[msg("4: (b7) r2 = 2")]
#[msg("5: safe")]
pub fn prune_dead_reg_differs() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "if r1 > 10 goto 1f;"
        "r2 = 1;"
        "goto 2f;"
    "1:"
        "r2 = 2;"
    "2:"
        "r0 = 0;"
        "r0 += 0;"
        "exit;"
    )
}

// The differing register is used as a stack offset afterwards: it is
// precise, so the second path is verified again.
#[sec("socket")]
#[success]
#[log_level(2)]
#[flag(BPF_F_TEST_STATE_FREQ)]
#[retval(0)]
#[not_msg("safe")]
#[msg("mark_precise: frame0: regs=r2 stack= before 6: (b7) r2 = 2")]
#[msg("10: R2=2 R3=fp-6")]
pub fn no_prune_precise_reg_differs() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "*(u64 *)(r10 - 8) = r0;"
        "if r1 > 10 goto 1f;"
        "r2 = 1;"
        "goto 2f;"
    "1:"
        "r2 = 2;"
    "2:"
        "r3 = r10;"
        "r3 += -8;"
        "r3 += r2;"
        "r0 = *(u8 *)(r3 + 0);"
        "exit;"
    )
}

// A loop on an unknown count (skb->len, 50 at run time) would be walked
// until the 1M-insn limit (each round's r0 is a new constant); bounded by
// may_goto the verifier stops at convergence and the program at the
// budget or the count.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(50)]
#[msg("2: (e5) may_goto pc+3")]
#[msg("from 5 to 2: safe")]
pub fn may_goto_unknown_count() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
    "1:"
        "may_goto 2f;"
        "r0 += 1;"
        "r1 -= 1;"
        "if r1 != 0 goto 1b;"
    "2:"
        "exit;"
    )
}

// BPF_F_TEST_STATE_FREQ: a checkpoint at every jump, more states.
#[sec("socket")]
#[success]
#[log_level(4)]
#[flag(BPF_F_TEST_STATE_FREQ)]
#[retval(45)]
#[msg(
    "processed 33 insns (limit 1000000) max_states_per_insn 4 total_states 20 peak_states 20 mark_read 0"
)]
pub fn state_freq_flag() {
    bpf_asm!(
        "r0 = 0;"
        "r1 = 0;"
    "1:"
        "r0 += r1;"
        "r1 += 1;"
        "if r1 < 10 goto 1b;"
        "exit;"
    )
}

// The same loop without the flag, for comparison.
#[sec("socket")]
#[success]
#[log_level(4)]
#[retval(45)]
#[msg(
    "processed 33 insns (limit 1000000) max_states_per_insn 1 total_states 2 peak_states 2 mark_read 0"
)]
pub fn state_freq_default() {
    bpf_asm!(
        "r0 = 0;"
        "r1 = 0;"
    "1:"
        "r0 += r1;"
        "r1 += 1;"
        "if r1 < 10 goto 1b;"
        "exit;"
    )
}

// A loop counting down from a bounded unknown ([0, 7]): the verifier
// walks the possible trip counts.
#[sec("socket")]
#[success]
#[log_level(4)]
#[retval(2)]
#[msg("processed 40 insns (limit 1000000) max_states_per_insn 1 total_states 2 peak_states 2")]
pub fn loop_bounded_unknown_start() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r1 &= 7;"
        "r0 = 0;"
    "1:"
        "if r1 == 0 goto 2f;"
        "r1 -= 1;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

// A nested bounded loop: 4 x 5 iterations.
#[sec("socket")]
#[success]
#[log_level(4)]
#[retval(20)]
#[msg("processed 75 insns (limit 1000000) max_states_per_insn 1 total_states 4 peak_states 4")]
pub fn nested_bounded_loops() {
    bpf_asm!(
        "r0 = 0;"
        "r1 = 0;"
    "1:"
        "r2 = 0;"
    "2:"
        "r0 += 1;"
        "r2 += 1;"
        "if r2 < 5 goto 2b;"
        "r1 += 1;"
        "if r1 < 4 goto 1b;"
        "exit;"
    )
}
