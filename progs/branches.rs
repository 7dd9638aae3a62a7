//! What conditional jumps teach the verifier: JMP32 and JMP64 refinements
//! of both branches (signed and unsigned, reg-reg, jset), the 64-bit
//! bounds a 32-bit compare gives once the upper half is known, and the
//! branches it proves dead (and so never walks).

use bpf_selftest::prelude::*;

// w0 s> -1 on an unknown u32: the subregister is non-negative.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (66) if w0 s> 0xffffffff goto pc+2         ; R0=scalar(umin=umin32=0x80000000,smax32=-1,var_off=(0x80000000; 0xffffffff7fffffff))")]
#[msg("from 1 to 4: R0=scalar(umax=0xffffffff7fffffff,smin32=0,umax32=0x7fffffff,var_off=(0x0; 0xffffffff7fffffff)) R10=fp0")]
pub fn jmp32_sgt_minus_one() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 s> -1 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r1 = r0;"
        "r0 = 1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// w0 s< 0 after a zero-extending mov: r0 becomes >= 0x80000000 on the
// taken branch.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (c6) if w0 s< 0x0 goto pc+2        ; R0=scalar(smin=smin32=0,smax=umax=umax32=0x7fffffff,var_off=(0x0; 0x7fffffff))")]
#[msg("from 2 to 5: R0=scalar(smin=umin=umin32=0x80000000,smax=umax=0xffffffff,smax32=-1,var_off=(0x80000000; 0x7fffffff)) R10=fp0")]
pub fn jmp32_slt_zero_full_reg() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 = w0;"
        "if w0 s< 0 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r1 = r0;"
        "r0 = 1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Two JMP32 checks make a window [10, 20] of the subregister.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (a6) if w0 < 0xa goto pc+4         ; R0=scalar(umin=umin32=10)")]
#[msg("2: (26) if w0 > 0x14 goto pc+3        ; R0=scalar(umin=smin32=umin32=10,umax=0xffffffff00000014,smax32=umax32=20,var_off=(0x0; 0xffffffff0000001f))")]
pub fn jmp32_window() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if w0 < 10 goto 1f;"
        "if w0 > 20 goto 1f;"
        "r1 = r0;"
        "r0 = 1;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// JMP32 reg-reg: w6 < w1 with w1 in [0, 15] bounds w6 to [0, 14] (the
// upper half of r6 stays unknown).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("from 5 to 8: R6=scalar(umax=0xffffffff0000000e,smin32=0,smax32=umax32=14,var_off=(0x0; 0xffffffff0000000f)) R10=fp0")]
pub fn jmp32_reg_lt_bounded_reg() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "w1 = w0;"
        "w1 &= 15;"
        "if w6 < w1 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = r6;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// jset on bit 0 of an even number: never taken, the branch is dead.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(2)]
#[log_level(2)]
#[msg("2: (45) if r0 & 0x1 goto pc+2")]
pub fn jset_on_even_never_taken() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 <<= 1;"
        "if r0 & 1 goto 1f;"
        "r0 = 2;"
        "exit;"
    "1:"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// The fall-through of jset learns the bit is clear.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (45) if r0 & 0xf0 goto pc+3        ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))")]
pub fn jset_fallthrough_clears_bits() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "if r0 & 0xf0 goto 1f;"
        "r1 = r0;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A helper's result is a full 64-bit unknown for the verifier (not a
// u32): s> -1 is undecided, both edges are walked (the uninitialized read
// is allowed privileged); at run time the u32 is non-negative.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(1)]
#[log_level(2)]
#[msg("1: (65) if r0 s> 0xffffffff goto pc+2         ; R0=scalar(smax=-1,umin=0x8000000000000000,var_off=(0x8000000000000000; 0x7fffffffffffffff))")]
#[msg("2: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0")]
pub fn jsgt_helper_result_both_ways() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if r0 s> -1 goto 1f;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r0 == r1 with r1 a constant makes r0 that constant on the taken edge.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (1d) if r0 == r1 goto pc+2         ; R0=scalar() R1=9")]
#[msg("from 2 to 5: R0=9 R10=fp0")]
pub fn jeq_reg_const_propagates() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = 9;"
        "if r0 == r1 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r2 = r0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// w0 != 5 on [5, 6]: the fall-through knows w0 == 5, the taken edge
// that w0 is 6.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("3: (56) if w0 != 0x5 goto pc+2        ; R0=5")]
#[msg("from 3 to 6: R0=6 R10=fp0")]
pub fn jmp32_jne_narrows_edge() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 &= 1;"
        "w0 += 5;"
        "if w0 != 5 goto 1f;"
        "r1 = r0;"
        "exit;"
    "1:"
        "r2 = r0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A dead branch that would fail to verify: never walked, accepted.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(4)]
#[log_level(2)]
#[msg("2: (26) if w0 > 0x3 goto pc+2")]
pub fn jmp32_dead_bad_code_accepted() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 &= 3;"
        "if w0 > 3 goto 1f;"
        "r0 = 4;"
        "exit;"
    "1:"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A signed 64-bit window then a stack index: s>= 0 and s< 8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("4: (c5) if r0 s< 0x0 goto pc+6        ; R0=scalar(smin=smin32=0,smax=umax=umax32=0x7fffffff,var_off=(0x0; 0x7fffffff))")]
#[msg("5: (65) if r0 s> 0x7 goto pc+5        ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))")]
pub fn signed_window_as_index() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 = (s32)r0;"
        "if r0 s< 0 goto 1f;"
        "if r0 s> 7 goto 1f;"
        "r1 = r10;"
        "r1 += -8;"
        "r1 += r0;"
        "r0 = *(u8 *)(r1 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Only the unsigned upper bound: a negative value passes `s> 7` and the
// index is refused.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("4: (65) if r0 s> 0x7 goto pc+5        ; R0=scalar(smin=0xffffffff80000000,smax=smax32=7)")]
#[msg("value -2147483648 makes fp pointer be out of bounds")]
#[msg("Verification failed: Register Type Safety: Pointer offset is not safe")]
pub fn signed_upper_bound_only() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 = (s32)r0;"
        "if r0 s> 7 goto 1f;"
        "r1 = r10;"
        "r1 += -8;"
        "r1 += r0;"
        "r0 = *(u8 *)(r1 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A constant that reaches a compare only along a path that jumps back to an
// insn before it: the front end's constant registers (for
// bpf_prune_dead_branches) must join both paths, r3 is 0 or 1, and the
// compare stays (the model once took the post-order for a topological order
// and folded it: the program always returned 0).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[xlated("3: if r3 == 0x0 goto pc+2")]
#[xlated("4: r0 = 1")]
#[retval(1)]
pub fn const_joined_from_a_goto_back() {
    bpf_asm!(
        "r3 = 0;"
        "r7 = *(u32 *)(r1 + 0);"
        "if r7 > 1 goto 3f;"
    "1:"
        "if r3 == 0 goto 2f;"
        "r0 = 1;"
        "exit;"
    "2:"
        "r0 = 0;"
        "exit;"
    "3:"
        "r3 = 1;"
        "goto 1b;"
    )
}
