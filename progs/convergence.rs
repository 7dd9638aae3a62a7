//! Loops the verifier must see the end of: back-edges that revisit an
//! identical state ("infinite loop detected"), loops bounded by
//! constants walked to the end, loops on unknown bounds that never
//! converge, and may_goto loops that converge, with the budget's effect
//! at run time.

use bpf_selftest::prelude::*;

// A jump to itself with an exit after it: check_cfg refuses the
// unreachable exit before any walk.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("unreachable insn 2")]
#[msg("Verification failed: Program Structure: Unreachable instruction")]
pub fn self_loop_unreachable_exit() {
    bpf_asm!(
        "r0 = 0;"
    "1:"
        "goto 1b;"
        "exit;"
    )
}

// A loop whose exit test cannot change: r0 is never touched in the body.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("infinite loop detected at insn 2")]
#[msg("cur state: R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=10,var_off=(0x0; 0xf)) R10=fp0")]
#[msg("old state: R0=Pscalar(smin=smin32=0,smax=umax=smax32=umax32=10,var_off=(0x0; 0xf)) R10=fp0")]
pub fn loop_exit_test_never_changes() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = 0;"
    "1:"
        "r1 = 0;"
        "if r0 > 10 goto 2f;"
        "goto 1b;"
    "2:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A countdown from 6 by 2: walked three times, the result is known.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(3)]
#[log_level(2)]
#[msg("3: (17) r1 -= 2                       ; R1=0")]
pub fn countdown_by_two() {
    bpf_asm!(
        "r1 = 6;"
        "r0 = 0;"
    "1:"
        "r0 += 1;"
        "r1 -= 2;"
        "if r1 != 0 goto 1b;"
        "exit;"
    )
}

// A JMP32 countdown of a 32-bit counter that wraps: w1 = 3 by -1 to 0.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(3)]
#[log_level(2)]
#[msg("3: (14) w1 -= 1                       ; R1=0")]
pub fn jmp32_countdown() {
    bpf_asm!(
        "w1 = 3;"
        "w0 = 0;"
    "1:"
        "w0 += 1;"
        "w1 -= 1;"
        "if w1 != 0 goto 1b;"
        "exit;"
    )
}

// A loop up to skb->len (unknown to the verifier) with may_goto: it
// converges, and at run time counts to 50.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(50)]
#[log_level(2)]
#[msg("from 2 to 3: R0=scalar() R1=scalar() R10=fp0")]
pub fn may_goto_up_to_len() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
    "1:"
        "may_goto 2f;"
        "if r0 >= r1 goto 2f;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

// A may_goto loop with no other exit: the budget ends it.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("from 1 to 2: R0=scalar() R10=fp0")]
pub fn may_goto_budget_ends_loop() {
    bpf_asm!(
        "r0 = 0;"
    "1:"
        "may_goto 2f;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

// Two may_goto loops one after the other share the budget.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("from 5 to 6: R1=scalar() R10=fp0")]
pub fn may_goto_two_loops_share_budget() {
    bpf_asm!(
        "r0 = 0;"
    "1:"
        "may_goto 2f;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "r1 = 0;"
    "3:"
        "may_goto 4f;"
        "r1 += 1;"
        "goto 3b;"
    "4:"
        "r0 = r1;"
        "exit;"
    )
}

// A bounded loop in a subprogram called twice with different counts.
#[subprog]
fn count_to() {
    bpf_asm!(
        "r0 = 0;"
    "1:"
        "if r0 >= r1 goto 2f;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[log_level(2)]
#[msg("7: frame1: R1=3 R10=fp0")]
#[msg("7: frame1: R1=4 R10=fp0")]
pub fn loop_in_subprog_two_calls() {
    bpf_asm!(
        "r1 = 3;"
        "call %[count_to];"
        "r6 = r0;"
        "r1 = 4;"
        "call %[count_to];"
        "r0 += r6;"
        "exit;",
        imm(count_to),
    )
}

// A loop that reads a stack slot set in its body: bounded, walked.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(16)]
#[log_level(2)]
#[msg("5: (7b) *(u64 *)(r10 -8) = r1         ; R1=16 R10=fp0 fp-8=16")]
pub fn loop_doubling_on_stack() {
    bpf_asm!(
        "r1 = 1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 4;"
    "1:"
        "r1 = *(u64 *)(r10 - 8);"
        "r1 <<= 1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 -= 1;"
        "if r2 != 0 goto 1b;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}
