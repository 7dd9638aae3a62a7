//! Computations whose results the test run checks: loops with constant
//! inputs the verifier walks to the end, signed arithmetic, byte swaps,
//! 32-bit wrap-around, and values derived from the packet length.

use bpf_selftest::prelude::*;

// The 10th Fibonacci number.
#[sec("socket")]
#[success]
#[retval(55)]
pub fn fibonacci_10() {
    bpf_asm!(
        "r1 = 0;"
        "r2 = 1;"
        "r3 = 10;"
    "1:"
        "r4 = r1;"
        "r4 += r2;"
        "r1 = r2;"
        "r2 = r4;"
        "r3 -= 1;"
        "if r3 != 0 goto 1b;"
        "r0 = r1;"
        "exit;"
    )
}

// Population count of 0xf0f0 by clearing the lowest set bit.
#[sec("socket")]
#[success]
#[retval(8)]
pub fn popcount_loop() {
    bpf_asm!(
        "r1 = 0xf0f0;"
        "r0 = 0;"
    "1:"
        "if r1 == 0 goto 2f;"
        "r2 = r1;"
        "r2 -= 1;"
        "r1 &= r2;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

// Euclid's gcd(1071, 462) with a modulo loop: BPF_MOD by a register
// leaves an unknown scalar even for constants, so the loop has no known
// end and the verifier gives up on the jump sequence.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("4: (9f) r3 %= r2                      ; R2=scalar(id=3874,umin=1) R3=scalar()")]
#[msg("The sequence of 8193 jumps is too complex.")]
pub fn gcd_loop_too_complex() {
    bpf_asm!(
        "r1 = 1071;"
        "r2 = 462;"
    "1:"
        "if r2 == 0 goto 2f;"
        "r3 = r1;"
        "r3 %= r2;"
        "r1 = r2;"
        "r2 = r3;"
        "goto 1b;"
    "2:"
        "r0 = r1;"
        "exit;"
    )
}

// Collatz steps from 27: 111.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(111)]
#[log_level(2)]
#[msg("3: (07) r0 += 1                       ; R0=111")]
pub fn collatz_27() {
    bpf_asm!(
        "r1 = 27;"
        "r0 = 0;"
    "1:"
        "if r1 == 1 goto 3f;"
        "r0 += 1;"
        "r2 = r1;"
        "r2 &= 1;"
        "if r2 != 0 goto 2f;"
        "r1 >>= 1;"
        "goto 1b;"
    "2:"
        "r1 *= 3;"
        "r1 += 1;"
        "goto 1b;"
    "3:"
        "exit;"
    )
}

// -7 s/ 2 = -3 and -7 s% 2 = -1, combined as (-3 * 16) + (-1): -49.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(-49)]
#[log_level(2)]
#[msg("3: (97) r2 s%= 2                      ; R2=scalar(smin=smin32=-1,smax=smax32=0)")]
#[arch(x86_64)]
#[jited("\tmovq\t$0x2, %r11")]
#[jited("\tmovq\t%rdi, %rax")]
#[jited("\tcqto")]
#[jited("\tidivq\t%r11")]
#[jited("\tmovq\t%rax, %rdi")]
#[arch(arm64)]
#[jited("\tsdiv\tx0, x0, x10")]
pub fn sdiv_smod_negative() {
    bpf_asm!(
        "r1 = -7;"
        "r2 = r1;"
        "r1 s/= 2;"
        "r2 s%= 2;"
        "r1 *= 16;"
        "r0 = r1;"
        "r0 += r2;"
        "exit;"
    )
}

// 0x10000 * 0x10001 in 32 bits wraps to 0x10000. (7.3 numbers the hidden
// AX register r12; older kernels print it as r11.)
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0x10000)]
#[xlated("0: w0 = 65536")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r0 |= r12")]
#[xlated("4: w1 = 65537")]
#[xlated("5: r12 = {{.*}}")]
#[xlated("6: r12 <<= 32")]
#[xlated("7: r1 |= r12")]
#[xlated("8: w0 *= w1")]
pub fn mul32_wraps() {
    bpf_asm!(
        "w0 = 0x10000;"
        "w1 = 0x10001;"
        "w0 *= w1;"
        "exit;"
    )
}

// be16 of the packet length in tc (64 = 0x40): 0x4000.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0x4000)]
#[log_level(2)]
#[msg("1: (dc) r0 = be16 r0                  ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff))")]
#[arch(x86_64)]
#[jited("\trorw\t$0x8, %ax")]
#[jited("\tmovzwl\t%ax, %eax")]
#[arch(arm64)]
#[jited("\trev16\tw8, w8")]
#[jited("\tuxth\tw8, w8")]
pub fn be16_of_len() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 = be16 r0;"
        "exit;"
    )
}

// skb->len * 3 / 7 (tc: len 64 -> 27).
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(27)]
#[log_level(2)]
#[msg("2: (37) r0 /= 7                       ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0x6db6db6d,var_off=(0x0; 0x7fffffff))")]
pub fn len_times_3_div_7() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 *= 3;"
        "r0 /= 7;"
        "exit;"
    )
}

// Arithmetic shift of a negative 32-bit value, then zero extension:
// (0x80000000 s>> 4) = 0xf8000000, >> 24 = 0xf8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(248)]
#[log_level(2)]
#[msg("1: (c4) w0 s>>= 4                     ; R0=0xf8000000")]
pub fn arsh32_then_rsh() {
    bpf_asm!(
        "w0 = 0x80000000;"
        "w0 s>>= 4;"
        "r0 >>= 24;"
        "exit;"
    )
}

// (s16) of 0xfffe and a 64-bit rotate-free mix: -2 * -3 = 6.
#[sec("socket")]
#[success]
#[retval(6)]
pub fn movsx16_negative_product() {
    bpf_asm!(
        "r1 = 0xfffe;"
        "r1 = (s16)r1;"
        "r2 = -3;"
        "r1 *= r2;"
        "r0 = r1;"
        "exit;"
    )
}
