//! 32-bit definitions and their upper halves after verification: the
//! verifier proves which 32-bit results are only ever read as 32 bits and,
//! with BPF_F_TEST_RND_HI32 (on by default in test_loader), poisons their
//! upper halves (`r12 = <random>; r12 <<= 32; rX |= r12`) to flush out
//! JITs that rely on them. Neither x86_64 nor arm64 needs explicit zero
//! extension, so what differs per program is where the poison goes; on
//! riscv64 and s390x (`bpf_jit_needs_zext`) the verifier inserts `wN = wN`
//! after the 32-bit defs whose upper half is read. Most expectations here
//! are x86_64's and arm64's; the `*_per_arch` tests pin both forms on one
//! function, an `#[arch]` block each (the riscv64/s390x block is checked by
//! the model only: there is no 7.3 image of those arches to record from).

use bpf_selftest::prelude::*;

// Read as 64 bits by a 64-bit move: no poison.
#[sec("socket")]
#[success]
#[retval(5)]
#[xlated("0: w1 = 5")]
#[xlated("1: r0 = r1")]
#[xlated("2: exit")]
#[arch(x86_64, arm64)]
pub fn def32_read64() {
    bpf_asm!(
        "w1 = 5;"
        "r0 = r1;"
        "exit;"
    )
}

// Read only by a 32-bit move: the upper half of r1 is poisoned.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(5)]
#[xlated("0: w1 = 5")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: w0 = w1")]
#[xlated("5: exit")]
#[arch(x86_64, arm64)]
pub fn def32_read32() {
    bpf_asm!(
        "w1 = 5;"
        "w0 = w1;"
        "exit;"
    )
}

// The same program with the flag cleared: no poison.
#[sec("socket")]
#[success]
#[flag(!BPF_F_TEST_RND_HI32)]
#[retval(5)]
#[xlated("0: w1 = 5")]
#[xlated("1: w0 = w1")]
#[xlated("2: exit")]
#[arch(x86_64, arm64)]
pub fn def32_read32_no_rnd_hi32() {
    bpf_asm!(
        "w1 = 5;"
        "w0 = w1;"
        "exit;"
    )
}

// A 32-bit compare reads only the low half.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(1)]
// (the always-taken branch itself is resolved and removed)
#[xlated("0: w1 = 5")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: r0 = 0")]
#[xlated("5: r0 = 1")]
pub fn def32_jmp32() {
    bpf_asm!(
        "w1 = 5;"
        "r0 = 0;"
        "if w1 > 3 goto 1f;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;"
    )
}

// A 32-bit store reads only the low half.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[xlated("0: w1 = 7")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: *(u32 *)(r10 -4) = r1")]
pub fn def32_stx32() {
    bpf_asm!(
        "w1 = 7;"
        "*(u32 *)(r10 - 4) = r1;"
        "r0 = *(u32 *)(r10 - 4);"
        "exit;"
    )
}

// A 4-byte stack load is a 32-bit definition too.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[xlated("2: r1 = *(u32 *)(r10 -8)")]
#[xlated("3: r12 = {{.*}}")]
#[xlated("4: r12 <<= 32")]
#[xlated("5: r1 |= r12")]
#[xlated("6: w0 = w1")]
pub fn ldx32_stack() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = *(u32 *)(r10 - 8);"
        "w0 = w1;"
        "exit;"
    )
}

// ... but a ctx load is never poisoned (its conversion may not zero
// the upper half itself).
#[sec("socket")]
#[success]
#[retval(50)]
#[xlated("0: r1 = *(u32 *)(r1 +112)")]
#[xlated("1: w0 = w1")]
#[xlated("2: exit")]
pub fn ldx32_ctx_excluded() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "w0 = w1;"
        "exit;"
    )
}

// Helper arguments are read as 64 bits.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("2: w2 = 8")]
#[xlated("3: w3 = 0")]
#[xlated("4: call unknown")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn def32_helper_arg() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "w2 = 8;"
        "w3 = 0;"
        "call %[bpf_probe_read_kernel];"
        "r0 = 0;"
        "exit;",
        imm(bpf_probe_read_kernel),
    )
}

// Defined on one path, read as 64 bits after the paths join: the read
// counts for the definition on either path.
#[sec("socket")]
#[success]
#[retval(2)]
#[xlated("1: w0 = 1")]
#[xlated("2: if r2 > 0xa goto pc+1")]
#[xlated("3: w0 = 3")]
#[xlated("4: r0 += 1")]
pub fn def32_read64_after_join() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "w0 = 1;"
        "if r2 > 10 goto 1f;"
        "w0 = 3;"
    "1:"
        "r0 += 1;"
        "exit;"
    )
}

// A 32-bit result shifted left by 32 is read as 64 bits.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("0: w0 = 9")]
#[xlated("1: r0 <<= 32")]
#[arch(x86_64, arm64)]
pub fn def32_shifted() {
    bpf_asm!(
        "w0 = 9;"
        "r0 <<= 32;"
        "r0 >>= 63;"
        "exit;"
    )
}

// The poison lands after each of several independent 32-bit defs.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(6)]
#[xlated("0: w1 = 1")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: w2 = 2")]
#[xlated("...")]
#[xlated("8: w3 = 3")]
#[xlated("...")]
#[xlated("12: w0 = w1")]
#[xlated("...")]
#[xlated("15: r0 |= r12")]
#[xlated("16: w0 += w2")]
#[xlated("...")]
// the last def flows to exit: no poison
#[xlated("19: r0 |= r12")]
#[xlated("20: w0 += w3")]
#[xlated("21: exit")]
#[arch(x86_64, arm64)]
pub fn several_defs() {
    bpf_asm!(
        "w1 = 1;"
        "w2 = 2;"
        "w3 = 3;"
        "w0 = w1;"
        "w0 += w2;"
        "w0 += w3;"
        "exit;"
    )
}

// Read as 64 bits: riscv64 and s390x zero-extend r1 after its 32-bit def;
// x86_64 and arm64 leave the def as it is (their JITs zero the upper half).
#[sec("socket")]
#[success]
#[retval(5)]
#[arch(x86_64, arm64)]
#[xlated("0: w1 = 5")]
#[xlated("1: r0 = r1")]
#[xlated("2: exit")]
#[arch(riscv64, s390x)]
#[xlated("0: w1 = 5")]
#[xlated("1: w1 = w1")]
#[xlated("2: r0 = r1")]
#[xlated("3: exit")]
pub fn def32_read64_per_arch() {
    bpf_asm!(
        "w1 = 5;"
        "r0 = r1;"
        "exit;"
    )
}

// r1 is read only as 32 bits (poisoned on every arch); r0 is read in full
// by exit: zero-extended where the JIT needs it, left alone elsewhere.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(5)]
#[arch(x86_64, arm64)]
#[xlated("0: w1 = 5")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: w0 = w1")]
#[xlated("5: exit")]
#[arch(riscv64, s390x)]
#[xlated("0: w1 = 5")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r1 |= r12")]
#[xlated("4: w0 = w1")]
#[xlated("5: w0 = w0")]
#[xlated("6: exit")]
pub fn def32_exit_per_arch() {
    bpf_asm!(
        "w1 = 5;"
        "w0 = w1;"
        "exit;"
    )
}

// A 32-bit add that wraps: its upper half is read by the shift, and must
// be zero (the result is 0) whether the JIT or a `w1 = w1` clears it.
#[sec("socket")]
#[success]
#[retval(0)]
#[arch(x86_64, arm64)]
#[xlated("0: r1 = -1")]
#[xlated("1: w1 += 1")]
#[xlated("2: r0 = r1")]
#[xlated("3: r0 >>= 32")]
#[xlated("4: exit")]
#[arch(riscv64, s390x)]
#[xlated("0: r1 = -1")]
#[xlated("1: w1 += 1")]
#[xlated("2: w1 = w1")]
#[xlated("3: r0 = r1")]
#[xlated("4: r0 >>= 32")]
#[xlated("5: exit")]
pub fn alu32_wrap_upper_half_per_arch() {
    bpf_asm!(
        "r1 = -1;"
        "w1 += 1;"
        "r0 = r1;"
        "r0 >>= 32;"
        "exit;"
    )
}
