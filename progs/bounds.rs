//! Scalar bounds the verifier derives and prints at log level 2: after
//! signed division and modulo, sign extension (movsx), byte swaps, shift
//! pairs, subtraction and negation; registers linked by a shared id
//! (with and without a constant delta) and what breaks the link; and the
//! precision backtracking (`mark_precise`) a scalar gets when it becomes
//! a pointer offset.

use bpf_selftest::prelude::*;

// r0 in [-100, 155], then s/= 10.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (17) r0 -= 100                     ; R0=scalar(smin=smin32=-100,smax=smax32=155)")]
#[msg("3: (37) r0 s/= 10                     ; R0=scalar(smin=smin32=-10,smax=smax32=15)")]
pub fn sdiv_of_signed_range() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r0 -= 100;"
        "r0 s/= 10;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r0 in [0, 255] s% 7.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (97) r0 s%= 7                      ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=6,var_off=(0x0; 0x7))")]
pub fn smod_of_positive_range() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r0 s%= 7;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A 32-bit constant divided by a negative constant: folded to 7.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (34) w0 s/= -5                     ; R0=7")]
pub fn sdiv32_const_by_negative() {
    bpf_asm!(
        "w0 = -37;"
        "w0 s/= -5;"
        "exit;"
    )
}

// 64-bit s% with a negative dividend: the result keeps the dividend's sign.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (9f) r0 s%= r1                     ; R0=scalar(smin=smin32=-4,smax=smax32=0) R1=5")]
#[msg("3: (07) r0 += 10                      ; R0=scalar(smin=umin=smin32=umin32=6,smax=umax=smax32=umax32=10,var_off=(0x0; 0xf))")]
pub fn smod64_negative_dividend() {
    bpf_asm!(
        "r0 = -37;"
        "r1 = 5;"
        "r0 s%= r1;"
        "r0 += 10;"
        "exit;"
    )
}

// A byte masked to [0, 255], then (s8): [-128, 127].
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (bf) r1 = (s8)r0                   ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff)) R1=scalar(smin=smin32=-128,smax=smax32=127)")]
pub fn movsx8_of_masked_byte() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r1 = (s8)r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A value in [0, 127], then (s8): unchanged, still non-negative.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (bf) r1 = (s8)r0                   ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=127,var_off=(0x0; 0x7f)) R1=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=127,var_off=(0x0; 0x7f))")]
pub fn movsx8_of_small_range() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0x7f;"
        "r1 = (s8)r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// w1 = (s16)w0 of an unknown u32: a 32-bit result, zero-extended.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (bc) w1 = (s16)w0                  ; R0=scalar() R1=scalar(smin=0,smax=umax=0xffffffff,smin32=-32768,smax32=32767,var_off=(0x0; 0xffffffff))")]
pub fn movsx16_32bit_of_unknown() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w1 = (s16)w0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r1 = (s32)r0 of an unknown u32: the full signed 32-bit range.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (bf) r1 = (s32)r0                  ; R0=scalar() R1=scalar(smin=0xffffffff80000000,smax=0x7fffffff)")]
pub fn movsx32_of_unknown_u32() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = (s32)r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// (s8) of the constant 0x80 folds to -128.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (bf) r0 = (s8)r1                   ; R0=-128 R1=384")]
#[msg("2: (07) r0 += 200                     ; R0=72")]
#[arch(x86_64)]
#[jited("\tmovsbq\t%dil, %rax")]
#[jited("\taddq\t$0xc8, %rax")]
#[arch(arm64)]
#[jited("\tsxtb\tx8, w0")]
#[jited("\tadd\tx8, x8, #0xc8")]
pub fn movsx8_const_fold() {
    bpf_asm!(
        "r1 = 0x180;"
        "r0 = (s8)r1;"
        "r0 += 200;"
        "exit;"
    )
}

// be16 of a byte: the known bits move to the high byte of the halfword.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (dc) r0 = be16 r0                  ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xff00,var_off=(0x0; 0xff00))")]
pub fn be16_of_masked_byte() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r0 = be16 r0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// bswap32 of a constant folds.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (d7) r0 = bswap32 r0               ; R0=0x44332211")]
pub fn bswap32_const_fold() {
    bpf_asm!(
        "r0 = 0x11223344;"
        "r0 = bswap32 r0;"
        "exit;"
    )
}

// bswap64 of a constant: the low bytes move to the top.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (d7) r0 = bswap64 r0               ; R0=0x8877665544332211")]
#[msg("3: (77) r0 >>= 32                     ; R0=0x88776655")]
#[arch(x86_64)]
#[jited("\tbswapq\t%rax")]
#[jited("\tshrq\t$0x20, %rax")]
#[arch(arm64)]
#[jited("\trev\tx8, x8")]
#[jited("\tlsr\tx8, x8, #32")]
pub fn bswap64_const_fold() {
    bpf_asm!(
        "r0 = 0x1122334455667788 ll;"
        "r0 = bswap64 r0;"
        "r0 >>= 32;"
        "exit;"
    )
}

// le32 truncates to the low 32 bits (a no-op swap on little endian).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (d4) r0 = le32 r0                  ; R0=0xffffffff")]
pub fn le32_truncates() {
    bpf_asm!(
        "r0 = 0x1ffffffff ll;"
        "r0 = le32 r0;"
        "exit;"
    )
}

// << 56 then s>> 56: a sign-extended byte.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (67) r0 <<= 56                     ; R0=scalar(smax=0x7f00000000000000,smin32=0,smax32=umax32=0,var_off=(0x0; 0xff00000000000000))")]
#[msg("3: (c7) r0 s>>= 56                    ; R0=scalar(smin=smin32=-128,smax=smax32=127)")]
pub fn shift_pair_sign_extends() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r0 <<= 56;"
        "r0 s>>= 56;"
        "r1 = r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// 5 - [0, 15] = [-10, 5].
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("3: (1f) r1 -= r0                      ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf)) R1=scalar(smin=smin32=-10,smax=smax32=5)")]
pub fn sub_range_goes_negative() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xf;"
        "r1 = 5;"
        "r1 -= r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// -w0 of [0, 15].
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (84) w0 = -w0                      ; R0=scalar(smin=0,smax=umax=0xffffffff,smin32=-15,smax32=0,var_off=(0x0; 0xffffffff))")]
pub fn neg32_of_small_range() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 &= 0xf;"
        "w0 = -w0;"
        "w1 = w0;"
        "w0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// & 0xf0 then | 3: known low bits, unknown nibble.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (47) r0 |= 3                       ; R0=scalar(smin=umin=smin32=umin32=3,smax=umax=smax32=umax32=243,var_off=(0x3; 0xf0))")]
pub fn and_then_or_tnum() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xf0;"
        "r0 |= 3;"
        "r1 = r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A u32 squared: 64-bit multiplication bounds.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (2f) r0 *= r0                      ; R0=scalar(smin=0,smax=umax=umax32=0xfffe0001,var_off=(0x0; 0xffffffff))")]
pub fn mul_u32_squared() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xffff;"
        "r0 *= r0;"
        "r1 = r0;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r1 = r0 shares r0's id: the bound learned on r0 holds for r1 (and
// both are marked precise), but subtracting a scalar from the frame
// pointer is refused whatever its bounds.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("2: (25) if r0 > 0x7 goto pc+4         ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7)) R1=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))")]
#[msg("mark_precise: frame0: regs=r0,r1 stack= before 1: (bf) r1 = r0")]
#[msg("R2 subtraction from stack pointer prohibited")]
#[msg("Verification failed: Register Type Safety: Subtraction from stack pointer")]
pub fn linked_copy_sub_from_fp_rejected() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "if r0 > 7 goto 1f;"
        "r2 = r10;"
        "r2 += -8;"
        "r2 -= r1;"
        "*(u8 *)(r2 + 0) = 0;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r1 = r0 + 4 stays linked with a delta: r0 <= 7 gives r1 in [4, 11].
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (07) r1 += 4                       ; R1=scalar(id=1+4)")]
#[msg("3: (25) if r0 > 0x7 goto pc+2         ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7)) R1=scalar(id=1+4,smin=umin=smin32=umin32=4,smax=umax=smax32=umax32=11,var_off=(0x0; 0xf))")]
pub fn linked_copy_with_delta() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "r1 += 4;"
        "if r0 > 7 goto 1f;"
        "r0 = r1;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Overwriting the copy breaks the link: r1 learns nothing from r0.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("2: (27) r1 *= 2                       ; R1=scalar(smax=0x7ffffffffffffffe,smax32=0x7ffffffe,var_off=(0x0; 0xfffffffffffffffe))")]
#[msg("3: (25) if r0 > 0x7 goto pc+2         ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))")]
pub fn linked_copy_broken_by_write() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "r1 *= 2;"
        "if r0 > 7 goto 1f;"
        "r0 = r1;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Three registers of one id: the bound reaches all of them, and the
// spilled copy too.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("4: (a5) if r2 < 0x64 goto pc+2        ; R1=scalar(id=1,umin=100) R2=scalar(id=1,umin=100) fp-8=scalar(id=1,umin=100)")]
#[msg("from 4 to 7: R1=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=99,var_off=(0x0; 0x7f)) R10=fp0 fp-8=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=99,var_off=(0x0; 0x7f))")]
#[msg("7: (79) r3 = *(u64 *)(r10 -8)         ; R3=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=99,var_off=(0x0; 0x7f)) R10=fp0 fp-8=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=99,var_off=(0x0; 0x7f))")]
pub fn linked_three_regs_and_spill() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "r2 = r0;"
        "*(u64 *)(r10 - 8) = r0;"
        "if r2 < 100 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r3 = *(u64 *)(r10 - 8);"
        "r0 = r1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r1 = r0 + r0 is a new value (the link is gone): the check on r0 leaves
// r1 unbounded and the pointer arithmetic is refused.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("2: (0f) r1 += r1                      ; R1=scalar()")]
#[msg("3: (25) if r0 > 0x7 goto pc+4         ; R0=scalar(id=1,smin=smin32=0,smax=umax=smax32=umax32=7,var_off=(0x0; 0x7))")]
#[msg("math between fp pointer and register with unbounded min value is not allowed")]
#[msg("Verification failed: Register Type Safety: Pointer offset is not safe")]
pub fn unlinked_copy_unbounded_index() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "r1 += r1;"
        "if r0 > 7 goto 1f;"
        "r2 = r10;"
        "r2 += -8;"
        "r2 -= r1;"
        "*(u8 *)(r2 + 0) = 0;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A variable stack offset must be precise: the backtracking walks from
// the pointer addition back to the mask.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("mark_precise: frame0: last_idx 7 first_idx 0 subseq_idx -1 ")]
#[msg("mark_precise: frame0: regs=r0 stack= before 4: (57) r0 &= 8")]
#[msg("mark_precise: frame0: regs= stack=-8,-16 before 7: (0f) r1 += r0")]
#[msg("mark_precise: frame0: regs=r1 stack=-16 before 1: (7b) *(u64 *)(r10 -16) = r1")]
pub fn precision_of_stack_index() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Precision through a spill: the backtracking follows the index into the
// stack slot it was filled from.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("mark_precise: frame0: regs=r2 stack= before 7: (79) r2 = *(u64 *)(r10 -24)")]
#[msg("mark_precise: frame0: regs= stack=-24 before 5: (7b) *(u64 *)(r10 -24) = r0")]
#[msg("mark_precise: frame0: regs=r0 stack= before 4: (57) r0 &= 8")]
pub fn precision_through_spill() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "*(u64 *)(r10 - 24) = r0;"
        "r0 = 0;"
        "r2 = *(u64 *)(r10 - 24);"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r2;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Precision of a constant that came from an ALU chain: every insn of the
// chain is visited.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("mark_precise: frame0: regs=r3 stack= before 3: (bf) r3 = r2")]
#[msg("mark_precise: frame0: regs=r2 stack= before 2: (b7) r2 = 3")]
pub fn precision_through_alu_chain() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 3;"
        "r3 = r2;"
        "r3 *= 2;"
        "r3 += 2;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r3;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;"
    )
}

// Precision backtracking across a join: both branches set the index.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("mark_precise: frame0: parent state regs=r2 stack=:  R2=P8 R10=fp0 fp-8=0 fp-16=0")]
#[msg("mark_precise: frame0: regs=r2 stack= before 6: (b7) r2 = 8")]
#[msg("mark_precise: frame0: regs=r2 stack= before 4: (b7) r2 = 0")]
pub fn precision_across_branches() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r2 = 0;"
        "if r0 > 100 goto 1f;"
        "r2 = 8;"
    "1:"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r2;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}
