//! ALU and ALU32: constant folding, 32-bit wrap-around and zero extension,
//! the scalar bounds each operation leaves (log level 2 register states),
//! division and modulo fixups, cpu v4 ops, and the errors for ALU on
//! pointers and bad operands.

use bpf_selftest::prelude::*;

// 64-bit constant folding through add, mul and sub.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(35)]
#[msg("1: (07) r0 += 7                       ; R0=12")]
#[msg("2: (27) r0 *= 3                       ; R0=36")]
#[msg("3: (17) r0 -= 1                       ; R0=35")]
pub fn alu64_const_fold() {
    bpf_asm!(
        "r0 = 5;"
        "r0 += 7;"
        "r0 *= 3;"
        "r0 -= 1;"
        "exit;"
    )
}

// A 32-bit add wraps at 2^32: 0xffffffff + 2 == 1.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(1)]
#[msg("0: (b4) w0 = -1                       ; R0=0xffffffff")]
#[msg("1: (04) w0 += 2                       ; R0=1")]
// w0 = -1 is redefined before its upper half is read: rnd_hi32 poisons it
#[xlated("0: w0 = -1")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r0 |= r12")]
#[xlated("4: w0 += 2")]
#[xlated("5: exit")]
#[arch(x86_64, arm64)]
pub fn alu32_add_wraps() {
    bpf_asm!(
        "w0 = -1;"
        "w0 += 2;"
        "exit;"
    )
}

// A 32-bit op zero-extends: -1 becomes 0xffffffff, whose upper half is 0.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("0: (b7) r0 = -1                       ; R0=-1")]
#[msg("1: (04) w0 += 0                       ; R0=0xffffffff")]
#[msg("2: (77) r0 >>= 32                     ; R0=0")]
pub fn alu32_zero_extends() {
    bpf_asm!(
        "r0 = -1;"
        "w0 += 0;"
        "r0 >>= 32;"
        "exit;"
    )
}

// 64-bit ALU immediates are sign-extended: r0 |= -1 sets all 64 bits.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(1)]
#[msg("1: (47) r0 |= -1                      ; R0=-1")]
#[msg("2: (77) r0 >>= 63                     ; R0=1")]
pub fn alu64_imm_sign_extends() {
    bpf_asm!(
        "r0 = 0;"
        "r0 |= -1;"
        "r0 >>= 63;"
        "exit;"
    )
}

// ... while the 32-bit form leaves the upper half zero.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("1: (44) w0 |= -1                      ; R0=0xffffffff")]
#[msg("2: (77) r0 >>= 32                     ; R0=0")]
pub fn alu32_imm_no_sign_extension() {
    bpf_asm!(
        "w0 = 0;"
        "w0 |= -1;"
        "r0 >>= 32;"
        "exit;"
    )
}

// An unknown value masked with 0xff: [0, 255], var_off (0x0; 0xff).
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg("0: (85) call bpf_get_prandom_u32#7    ; R0=scalar()")]
#[msg(
    "1: (57) r0 &= 255                     ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))"
)]
pub fn and_mask_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// OR makes a bit known-one: var_off (0x10; ~0x10).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (47) r0 |= 16                      ; R0=scalar(umin=umin32=16,var_off=(0x10; 0xffffffffffffffef))"
)]
pub fn or_sets_known_bit() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 |= 0x10;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Shifts move the tnum and the unsigned range: [0, 0xff] << 4 >> 2.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "2: (67) r0 <<= 4                      ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=4080,var_off=(0x0; 0xff0))"
)]
#[msg(
    "3: (77) r0 >>= 2                      ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=1020,var_off=(0x0; 0x3fc))"
)]
pub fn shift_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xff;"
        "r0 <<= 4;"
        "r0 >>= 2;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Multiplying two [0, 0xffff] values: umax 0xfffe0001.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "2: (2f) r0 *= r0                      ; R0=scalar(smin=0,smax=umax=umax32=0xfffe0001,var_off=(0x0; 0xffffffff))"
)]
pub fn mul_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xffff;"
        "r0 *= r0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Division of [0, 0xffff] by 3: umax 0x5555.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "2: (37) r0 /= 3                       ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=21845,var_off=(0x0; 0x7fff))"
)]
pub fn div_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 &= 0xffff;"
        "r0 /= 3;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// r ^= r and r -= r of an unknown value.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
// neither r ^= r nor r -= r is known to be zero
#[msg("2: (af) r0 ^= r0                      ; R0=scalar()")]
#[msg("3: (1f) r1 -= r1                      ; R1=scalar()")]
pub fn xor_sub_self() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r1 = r0;"
        "r0 ^= r0;"
        "r1 -= r1;"
        "r0 |= r1;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A 32-bit add that may cross 2^32: [0, 0xff] + 0xffffff00 in w0.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "2: (04) w0 += -256                    ; R0=scalar(smin=umin=umin32=0xffffff00,smax=umax=0xffffffff,smin32=-256,smax32=-1,var_off=(0xffffff00; 0xff))"
)]
pub fn alu32_add_crosses_u32_max() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "w0 &= 0xff;"
        "w0 += 0xffffff00;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Arithmetic right shift keeps the sign: -16 s>> 2 == -4.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(-4)]
#[msg("1: (c7) r0 s>>= 2                     ; R0=-4")]
pub fn arsh64_negative() {
    bpf_asm!(
        "r0 = -16;"
        "r0 s>>= 2;"
        "exit;"
    )
}

// The 32-bit arsh works on the low word (0xfffffff0 s>> 2).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(-4)]
#[msg("0: (b4) w0 = -16                      ; R0=0xfffffff0")]
#[msg("1: (c4) w0 s>>= 2                     ; R0=0xfffffffc")]
pub fn arsh32_negative() {
    bpf_asm!(
        "w0 = -16;"
        "w0 s>>= 2;"
        "exit;"
    )
}

// Negation of a constant.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(-5)]
#[msg("1: (87) r0 = -r0                      ; R0=-5")]
pub fn neg64() {
    bpf_asm!(
        "r0 = 5;"
        "r0 = -r0;"
        "exit;"
    )
}

// Division by a zero register yields 0: the fixup guards the division.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("0: r0 = 10")]
#[xlated("1: r1 = 0")]
#[xlated("2: if r1 != 0x0 goto pc+2")]
#[xlated("3: w0 ^= w0")]
#[xlated("4: goto pc+1")]
#[xlated("5: r0 /= r1")]
#[xlated("6: exit")]
#[arch(x86_64, arm64)]
pub fn div64_by_zero_reg() {
    bpf_asm!(
        "r0 = 10;"
        "r1 = 0;"
        "r0 /= r1;"
        "exit;"
    )
}

// Modulo by a zero register leaves the dividend: 10 % 0 == 10.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(10)]
// the guard's fall-through zero-extends the untouched dividend
#[xlated("...")]
#[xlated("8: if w1 == 0x0 goto pc+2")]
#[xlated("9: w0 %= w1")]
#[xlated("10: goto pc+1")]
#[xlated("11: w0 = w0")]
#[xlated("12: exit")]
#[arch(x86_64, arm64)]
pub fn mod32_by_zero_reg() {
    bpf_asm!(
        "w0 = 10;"
        "w1 = 0;"
        "w0 %= w1;"
        "exit;"
    )
}

// 64-bit modulo by zero: the dividend again.
#[sec("socket")]
#[success]
#[retval(10)]
#[xlated("0: r0 = 10")]
#[xlated("1: r1 = 0")]
#[xlated("2: if r1 == 0x0 goto pc+1")]
#[xlated("3: r0 %= r1")]
#[xlated("4: exit")]
pub fn mod64_by_zero_reg() {
    bpf_asm!(
        "r0 = 10;"
        "r1 = 0;"
        "r0 %= r1;"
        "exit;"
    )
}

// INT_MIN s/ -1 overflows; the fixup makes it INT_MIN (a negation).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(_INT_MIN)]
#[xlated("...")]
#[xlated("8: r12 = r1")]
#[xlated("9: w12 += 1")]
#[xlated("10: if w12 > 0x1 goto pc+4")]
#[xlated("11: if w12 == 0x0 goto pc+1")]
#[xlated("12: w0 = 0")]
#[xlated("13: w0 = -w0")]
#[xlated("14: goto pc+1")]
#[xlated("15: w0 s/= w1")]
#[xlated("16: exit")]
#[arch(x86_64, arm64)]
pub fn sdiv32_int_min_by_minus_one() {
    bpf_asm!(
        "w0 = 0x80000000;"
        "w1 = -1;"
        "w0 s/= w1;"
        "exit;"
    )
}

// INT_MIN s% -1 is 0.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[xlated("...")]
#[xlated("8: r12 = r1")]
#[xlated("9: w12 += 1")]
#[xlated("10: if w12 > 0x1 goto pc+3")]
#[xlated("11: if w12 == 0x1 goto pc+4")]
#[xlated("12: w0 = 0")]
#[xlated("13: goto pc+1")]
#[xlated("14: w0 s%= w1")]
#[xlated("15: goto pc+1")]
#[xlated("16: w0 = w0")]
#[xlated("17: exit")]
#[arch(x86_64, arm64)]
pub fn smod32_int_min_by_minus_one() {
    bpf_asm!(
        "w0 = 0x80000000;"
        "w1 = -1;"
        "w0 s%= w1;"
        "exit;"
    )
}

// Signed division by an immediate -1: no guard needed, INT_MIN again.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(_INT_MIN)]
// s/= -1 becomes a negation
#[xlated("...")]
#[xlated("3: r0 |= r12")]
#[xlated("4: w0 = -w0")]
#[xlated("5: exit")]
#[arch(x86_64, arm64)]
pub fn sdiv32_imm_minus_one() {
    bpf_asm!(
        "w0 = 0x80000000;"
        "w0 s/= -1;"
        "exit;"
    )
}

// Signed division rounds toward zero: -7 s/ 2 == -3, -7 s% 2 == -1.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(-4)]
#[msg("1: (37) r0 s/= 2                      ; R0=-3")]
// a signed modulo is not folded: only its sign range is known
#[msg("3: (97) r1 s%= 2                      ; R1=scalar(smin=smin32=-1,smax=smax32=0)")]
pub fn sdiv_smod_round_to_zero() {
    bpf_asm!(
        "r0 = -7;"
        "r0 s/= 2;"
        "r1 = -7;"
        "r1 s%= 2;"
        "r0 += r1;"
        "exit;"
    )
}

// Unsigned division and modulo of constants.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(16)]
#[msg("1: (37) r0 /= 7                       ; R0=14")]
// the unsigned modulo is not folded either: [0, 6]
#[msg(
    "3: (97) r1 %= 7                       ; R1=scalar(smin=smin32=0,smax=umax=smax32=umax32=6,var_off=(0x0; 0x7))"
)]
pub fn udiv_umod_const() {
    bpf_asm!(
        "r0 = 100;"
        "r0 /= 7;"
        "r1 = 100;"
        "r1 %= 7;"
        "r0 += r1;"
        "exit;"
    )
}

// be16 swaps the low half-word on a little-endian host (0x1234 -> 0x3412).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0x3412)]
#[msg("1: (dc) r0 = be16 r0                  ; R0=13330")]
pub fn bswap_be16() {
    bpf_asm!(
        "r0 = 0x1234;"
        "r0 = be16 r0;"
        "exit;"
    )
}

// cpu v4 bswap32 (unconditional): 0x11223344 -> 0x44332211.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0x44332211)]
#[msg("1: (d7) r0 = bswap32 r0               ; R0=0x44332211")]
pub fn bswap32_v4() {
    bpf_asm!(
        "r0 = 0x11223344;"
        "r0 = bswap32 r0;"
        "exit;"
    )
}

// le64 is a no-op on little-endian: ld_imm64's high word survives.
#[sec("socket")]
#[success]
#[retval(1)]
#[xlated("0: r0 = 0x123456789")]
#[xlated("2: r0 = le64 r0")]
pub fn le64_noop() {
    bpf_asm!(
        "r0 = 0x123456789 ll;"
        "r0 = le64 r0;"
        "r0 >>= 32;"
        "exit;"
    )
}

// Sign-extending moves (cpu v4): (s8)0xff == -1, (s16)0x8000 == -32768.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(-32769)]
#[msg("1: (bf) r0 = (s8)r1                   ; R0=-1 R1=255")]
#[msg("3: (bc) w2 = (s16)w2                  ; R2=0xffff8000")]
#[msg("5: (c7) r2 s>>= 32                    ; R2=-32768")]
pub fn movsx_8_16() {
    bpf_asm!(
        "r1 = 0xff;"
        "r0 = (s8)r1;"
        "w2 = 0x8000;"
        "w2 = (s16)w2;"
        "r2 <<= 32;"
        "r2 s>>= 32;"
        "r0 += r2;"
        "exit;"
    )
}

// (s32) of an unknown u32: the 64-bit range becomes [S32_MIN, S32_MAX].
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg("1: (bf) r0 = (s32)r0                  ; R0=scalar(smin=0xffffffff80000000,smax=0x7fffffff)")]
pub fn movsx32_bounds() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 = (s32)r0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// An unsigned compare bounds the register on both branches.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg(
    "1: (25) if r0 > 0xa goto pc+1         ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=10,var_off=(0x0; 0xf))"
)]
// the taken branch's R0 is dead (overwritten at 3), so it is not printed
#[msg("from 1 to 3: R10=fp0")]
pub fn jgt_bounds_both_branches() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "if r0 > 10 goto 1f;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Two signed compares: [-5, 5].
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg("2: (65) if r0 s> 0x5 goto pc+3        ; R0=scalar(smin=0xffffffff80000000,smax=smax32=5)")]
#[msg("3: (c5) if r0 s< 0xfffffffb goto pc+2         ; R0=scalar(smin=smin32=-5,smax=smax32=5)")]
pub fn signed_range_from_jumps() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 = (s32)r0;"
        "if r0 s> 5 goto 1f;"
        "if r0 s< -5 goto 1f;"
        "r0 += 0;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Multiplying a pointer is not pointer arithmetic the verifier allows.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R1 pointer arithmetic with *= operator prohibited")]
#[msg("Verification failed: Register Type Safety: Invalid pointer arithmetic operator")]
pub fn ptr_mul_rejected() {
    bpf_asm!(
        "r1 *= 2;"
        "r0 = 0;"
        "exit;"
    )
}

// Nor is 32-bit arithmetic on a pointer.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R1 32-bit pointer arithmetic prohibited")]
#[msg("Verification failed: Register Type Safety: 32-bit pointer arithmetic")]
pub fn ptr_alu32_rejected() {
    bpf_asm!(
        "w1 += 1;"
        "r0 = 0;"
        "exit;"
    )
}

// Pointer minus pointer of different kinds: a scalar for a privileged
// program (pointer leaks allowed), refused unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[log_level(2)]
#[msg("1: (1f) r1 -= r2                      ; R1=scalar() R2=fp0")]
#[msg_unpriv("R1 pointer -= pointer prohibited")]
pub fn ptr_sub_ptr_priv_scalar() {
    bpf_asm!(
        "r2 = r10;"
        "r1 -= r2;"
        "r0 = 0;"
        "exit;"
    )
}

// Reading a register nothing wrote.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R2 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn read_uninit_reg() {
    bpf_asm!(
        "r0 = r2;"
        "exit;"
    )
}

// A 64-bit shift by 64 is undefined and rejected.
#[sec("socket")]
#[failure]
#[msg("invalid shift 64")]
pub fn shift_by_64_rejected() {
    bpf_asm!(
        "r0 = 1;"
        "r0 <<= 64;"
        "exit;"
    )
}

// A 32-bit shift by 32, likewise.
#[sec("socket")]
#[failure]
#[msg("invalid shift 32")]
pub fn shift32_by_32_rejected() {
    bpf_asm!(
        "w0 = 1;"
        "w0 >>= 32;"
        "exit;"
    )
}

// Division by an immediate zero is rejected at load.
#[sec("socket")]
#[failure]
#[msg("div by zero")]
pub fn div_by_imm_zero_rejected() {
    bpf_asm!(
        "r0 = 1;"
        "r0 /= 0;"
        "exit;"
    )
}

// The frame pointer cannot be written.
#[sec("socket")]
#[failure]
#[msg("frame pointer is read only")]
pub fn write_frame_pointer() {
    bpf_asm!(
        "r10 = 0;"
        "r0 = 0;"
        "exit;"
    )
}
