//! JMP32: conditional jumps on the low 32 bits, the bounds they give the
//! subregister (and the full register when its upper half is known), and
//! the branches the verifier proves dead.

use bpf_selftest::prelude::*;

// w0 == 1 although r0 == 0x100000001: the upper half does not count.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(2)]
#[msg("2: (16) if w0 == 0x1 goto pc+2")]
// only the taken edge is walked
#[msg("5: (b7) r0 = 2                        ; R0=2")]
pub fn jmp32_ignores_upper_half() {
    bpf_asm!(
        "r0 = 0x100000001 ll;"
        "if w0 == 1 goto 1f;"
        "r0 = 3;"
        "exit;"
    "1:"
        "r0 = 2;"
        "exit;"
    )
}

// The same value compared in 64 bits: not equal to 1.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(3)]
#[msg("2: (15) if r0 == 0x1 goto pc+2")]
#[msg("3: (b7) r0 = 3                        ; R0=3")]
pub fn jmp64_sees_upper_half() {
    bpf_asm!(
        "r0 = 0x100000001 ll;"
        "if r0 == 1 goto 1f;"
        "r0 = 3;"
        "exit;"
    "1:"
        "r0 = 2;"
        "exit;"
    )
}

// w0 <= 5 bounds the subregister only: the 64-bit value stays unknown.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (26) if w0 > 0x5 goto pc+1         ; R0=scalar(umax=0xffffffff00000005,smin32=0,smax32=umax32=5,var_off=(0x0; 0xffffffff00000007))"
)]
pub fn jmp32_bounds_subreg_only() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 > 5 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// After w0 = w0 the upper half is zero, so w0 <= 5 bounds r0 too.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "1: (bc) w0 = w0                       ; R0=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff))"
)]
#[msg(
    "2: (26) if w0 > 0x5 goto pc+1         ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=5,var_off=(0x0; 0x7))"
)]
pub fn jmp32_bounds_after_zext() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 = w0;"
        "if w0 > 5 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Signed 32-bit compare against 0: smin32 = 0 on the fall-through.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (c6) if w0 s< 0x0 goto pc+1        ; R0=scalar(umax=0xffffffff7fffffff,smin32=0,umax32=0x7fffffff,var_off=(0x0; 0xffffffff7fffffff))"
)]
pub fn jmp32_signed_nonneg() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 s< 0 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// JSET: bit 3 is known clear on the fall-through.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "2: (46) if w0 & 0x8 goto pc+1         ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))"
)]
pub fn jmp32_jset_clears_bit() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 &= 0xf;"
        "if w0 & 0x8 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Register against register: [0, 15] < 10 gives [0, 9].
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "4: (ae) if w1 < w2 goto pc+2          ; R1=scalar(smin=umin=smin32=umin32=10,smax=umax=smax32=umax32=15,var_off=(0x8; 0x7)) R2=10"
)]
#[msg("from 4 to 7: R1=scalar(smin=smin32=0,smax=umax=smax32=umax32=9,var_off=(0x0; 0xf)) R10=fp0")]
pub fn jmp32_reg_reg_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w1 = w0;"
        "w1 &= 0xf;"
        "w2 = 10;"
        "if w1 < w2 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = r1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// != 7 falling through makes w0 the constant 7 (the 64-bit value is
// still unknown).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (56) if w0 != 0x7 goto pc+1        ; R0=scalar(smin=0x8000000000000007,smax=0x7fffffff00000007,smin32=umin32=7,smax32=umax32=7,var_off=(0x7; 0xffffffff00000000))"
)]
pub fn jmp32_jne_fallthrough_const() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 != 7 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A negative immediate prints as its u32 hex: s>= -1 is 0xffffffff.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (76) if w0 s>= 0xffffffff goto pc+1        ; R0=scalar(umin=umin32=0x80000000,umax=0xfffffffffffffffe,smax32=-2,umax32=0xfffffffe,var_off=(0x80000000; 0xffffffff7fffffff))"
)]
pub fn jmp32_negative_imm() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 s>= -1 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// w0 = 5 can never be > 10: the taken branch, which reads an
// uninitialized register, is never verified and is removed from the
// xlated program.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(5)]
#[log_level(2)]
// 7.3 rewrites the never-taken branch to a nop before walking the program
#[msg("1: (05) goto pc+0")]
#[msg("processed 3 insns")]
#[xlated("0: w0 = 5")]
#[xlated("1: exit")]
#[arch(x86_64, arm64)]
pub fn jmp32_dead_branch_removed() {
    bpf_asm!(
        "w0 = 5;"
        "if w0 > 10 goto 1f;"
        "exit;"
    "1:"
        "r0 = r5;"
        "exit;"
    )
}

// Both operands known: the verifier follows only the taken edge.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(1)]
// the always-taken compare is printed as the goto it was rewritten to
#[msg("3: (05) goto pc+1")]
#[msg("5: (95) exit")]
#[xlated("...")]
#[xlated("7: r2 |= r12")]
#[xlated("8: r0 = 1")]
#[xlated("9: exit")]
pub fn jmp32_both_const() {
    bpf_asm!(
        "w1 = 3;"
        "w2 = 3;"
        "r0 = 1;"
        "if w1 == w2 goto 1f;"
        "r0 = 2;"
    "1:"
        "exit;"
    )
}

// Unsigned w0 < 1 on r0 = -1: the low half is 0xffffffff, not taken.
#[sec("socket")]
#[success]
#[retval(9)]
pub fn jmp32_unsigned_low_half() {
    bpf_asm!(
        "r1 = -1;"
        "r0 = 9;"
        "if w1 < 1 goto 1f;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;"
    )
}

// Signed compare of the low half of 0x80000000: negative in 32 bits,
// positive in 64.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(3)]
#[log_level(2)]
#[msg("3: (05) goto pc+0")]
#[msg("4: (07) r0 += 1                       ; R0=1")]
#[msg("5: (05) goto pc+1")]
#[msg("7: (07) r0 += 2                       ; R0=3")]
// both resolved branches and the dead insn are gone
#[xlated("0: r1 = 0x80000000")]
#[xlated("2: r0 = 0")]
#[xlated("3: r0 += 1")]
#[xlated("4: r0 += 2")]
#[xlated("5: exit")]
pub fn jmp32_vs_jmp64_sign() {
    bpf_asm!(
        "r1 = 0x80000000 ll;"
        "r0 = 0;"
        "if w1 s> 0 goto 1f;"
        "r0 += 1;"
    "1:"
        "if r1 s> 0 goto 2f;"
        "exit;"
    "2:"
        "r0 += 2;"
        "exit;"
    )
}

// A 32-bit compare of a pointer: allowed privileged, refused unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(1)]
#[msg_unpriv("1: (16) if w1 == 0x0 goto pc+1")]
#[msg_unpriv("R1 pointer comparison prohibited")]
pub fn jmp32_on_pointer_priv_only() {
    bpf_asm!(
        "r0 = 0;"
        "if w1 == 0 goto 1f;"
        "r0 = 1;"
    "1:"
        "exit;"
    )
}
