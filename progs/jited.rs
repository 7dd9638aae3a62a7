//! What the JITs emit, on x86_64 and on arm64: prologue and epilogue,
//! stack frames, immediates, 32-bit ops, ld_imm64, calls (helper and
//! bpf-to-bpf, whose pc-relative targets vary per load: matched with
//! `{{...}}`), branches and labels, division, byte swaps, sign-extending
//! loads, and the per-arch inlining of bpf_get_smp_processor_id().

use bpf_selftest::prelude::*;

// The smallest program: prologue, r0 = 0, epilogue.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[arch(x86_64)]
// x86_64: IBT landing pad, patchable nops, frame, tail-call-counter-free
// body, leave/ret and the int3 padding
#[jited("\tendbr64")]
#[jited("\tnopl\t(%rax,%rax)")]
#[jited("\tnopl\t(%rax)")]
#[jited("\tpushq\t%rbp")]
#[jited("\tmovq\t%rsp, %rbp")]
#[jited("\tendbr64")]
#[jited("\txorl\t%eax, %eax")]
#[jited("\tleave")]
#[jited("\tretq")]
#[jited("\tint3")]
#[arch(arm64)]
// arm64: PAC, frame record, the BPF frame pointer x25/x26 set-up
#[jited("\tmov\tx9, x30")]
#[jited("\tnop")]
#[jited("\tpaciasp")]
#[jited("\tstp\tx29, x30, [sp, #-0x10]!")]
#[jited("\tmov\tx29, sp")]
#[jited("\tstp\txzr, x26, [sp, #-0x10]!")]
#[jited("\tmov\tx26, sp")]
#[jited("\tmov\tx8, #0x0")]
#[jited("\tldp\txzr, x26, [sp], #0x10")]
#[jited("\tldp\tx29, x30, [sp], #0x10")]
#[jited("\tmov\tx0, x8")]
#[jited("\tautiasp")]
#[jited("\tret")]
pub fn prologue_epilogue() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
    )
}

// A full 512-byte frame.
#[sec("socket")]
#[success]
#[retval(0)]
#[arch(x86_64)]
#[jited("\tsubq\t$0x200, %rsp")]
#[jited("\txorl\t%eax, %eax")]
#[jited("\tmovq\t%rax, -0x200(%rbp)")]
#[arch(arm64)]
#[jited("\tsub\tsp, sp, #0x200")]
#[jited("\tmov\tx8, #0x0")]
#[jited("\tstr\tx8, [sp]")]
#[jited("\tadd\tsp, sp, #0x200")]
pub fn stack_frame_512() {
    bpf_asm!(
        "r0 = 0;"
        "*(u64 *)(r10 - 512) = r0;"
        "exit;"
    )
}

// 64-bit ALU with immediates.
#[sec("socket")]
#[success]
#[retval(0x368f)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x5, %eax")]
#[jited("\taddq\t$0x1230, %rax")]
#[jited("\timulq\t$0x3, %rax, %rax")]
#[jited("\txorq\t$0x10, %rax")]
#[arch(arm64)]
#[jited("\tmov\tx10, #0x1230")]
#[jited("\tadd\tx8, x8, x10")]
#[jited("\tmov\tx10, #0x3")]
#[jited("\tmul\tx8, x8, x10")]
#[jited("\teor\tx8, x8, #0x10")]
pub fn alu64_imm() {
    bpf_asm!(
        "r0 = 5;"
        "r0 += 0x1230;"
        "r0 *= 3;"
        "r0 ^= 0x10;"
        "exit;"
    )
}

// 32-bit ALU: the 32-bit forms, which zero-extend for free (without the
// rnd_hi32 poison, whose random immediate would be in the image).
#[sec("socket")]
#[success]
#[flag(!BPF_F_TEST_RND_HI32)]
#[retval(8)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x1, %eax")]
#[jited("\tshll\t$0x3, %eax")]
#[arch(arm64)]
#[jited("\tlsl\tw8, w8, #3")]
pub fn alu32_shift() {
    bpf_asm!(
        "w0 = 1;"
        "w0 <<= 3;"
        "exit;"
    )
}

// A 64-bit immediate load.
#[sec("socket")]
#[success]
#[retval(1)]
#[arch(x86_64)]
#[jited("\tmovabsq\t$0x123456789, %rax")]
#[jited("\tshrq\t$0x20, %rax")]
#[arch(arm64)]
#[jited("\tmov\tx8, #0x100000000")]
#[jited("\tmovk\tx8, #0x2345, lsl #16")]
#[jited("\tmovk\tx8, #0x6789")]
#[jited("\tlsr\tx8, x8, #32")]
pub fn ld_imm64() {
    bpf_asm!(
        "r0 = 0x123456789 ll;"
        "r0 >>= 32;"
        "exit;"
    )
}

// A helper call.
#[sec("socket")]
#[success]
#[retval(0)]
#[arch(x86_64)]
// the call target is pc-relative to wherever the image landed
#[jited("\tcallq\t0x{{[0-9a-f]+}}")]
#[jited("\txorl\t%eax, %eax")]
#[arch(arm64)]
#[jited("\tbl\t0x{{[0-9a-f]+}}")]
#[jited("\tmov\tx8, x0")]
#[jited("\tmov\tx8, #0x0")]
pub fn helper_call() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

#[subprog]
fn twice() {
    bpf_asm!(
        "r0 = r1;"
        "r0 += r1;"
        "exit;"
    )
}

// A bpf-to-bpf call: two functions in the image.
#[sec("socket")]
#[success]
#[retval(42)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x15, %edi")]
#[jited("\tcallq\t0x{{[0-9a-f]+}}")]
#[jited("...")]
#[jited("func #1:")]
#[jited("...")]
#[jited("\tmovq\t%rdi, %rax")]
#[jited("\taddq\t%rdi, %rax")]
#[arch(arm64)]
#[jited("\tbl\t0x{{[0-9a-f]+}}")]
#[jited("\tmov\tx8, x0")]
#[jited("...")]
#[jited("func #1:")]
#[jited("...")]
#[jited("\tmov\tx8, x0")]
#[jited("\tadd\tx8, x8, x0")]
pub fn bpf2bpf_call() {
    bpf_asm!(
        "r1 = 21;"
        "call %[twice];"
        "exit;",
        imm(twice),
    )
}

// A signed conditional branch and its label.
#[sec("socket")]
#[success]
#[retval(1)]
#[arch(x86_64)]
#[jited("\tcmpq\t$0x64, %rdi")]
#[jited("\tjg\tL1")]
#[jited("L0:\tleave")]
#[jited("...")]
#[jited("L1:\tmovl\t$0x2, %eax")]
#[jited("\tjmp\tL0")]
#[arch(arm64)]
#[jited("\tcmp\tx0, #0x64")]
#[jited("\tb.gt\tL0")]
#[jited("\tb\tL1")]
#[jited("L0:\tmov\tx8, #0x2")]
#[jited("L1:\tldp\txzr, x26, [sp], #0x10")]
pub fn cond_branch_label() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 1;"
        "if r1 s> 100 goto 1f;"
        "exit;"
    "1:"
        "r0 = 2;"
        "exit;"
    )
}

// Unsigned division by a register (after the verifier's zero guard).
#[sec("socket")]
#[success]
#[retval(25)]
#[arch(x86_64)]
#[jited("\ttestq\t%rdi, %rdi")]
#[jited("\tjne\tL0")]
#[jited("\txorl\t%eax, %eax")]
#[jited("\tjmp\tL1")]
#[jited("L0:\tpushq\t%rdx")]
#[jited("\txorl\t%edx, %edx")]
#[jited("\tdivq\t%rdi")]
#[jited("\tpopq\t%rdx")]
#[arch(arm64)]
#[jited("\tcmp\tx0, #0x0")]
#[jited("\tb.ne\tL0")]
#[jited("\teor\tw8, w8, w8")]
#[jited("\tb\tL1")]
#[jited("L0:\tudiv\tx8, x8, x0")]
pub fn udiv_reg() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r1 = 2;"
        "r0 /= r1;"
        "exit;"
    )
}

// Signed 64-bit division by an immediate.
#[sec("socket")]
#[success]
#[retval(-16)]
#[arch(x86_64)]
#[jited("\tpushq\t%rdx")]
#[jited("\tmovq\t$0x3, %r11")]
#[jited("\tcqto")]
#[jited("\tidivq\t%r11")]
#[jited("\tpopq\t%rdx")]
#[arch(arm64)]
#[jited("\tmov\tx10, #0x3")]
#[jited("\tsdiv\tx8, x8, x10")]
pub fn sdiv_imm() {
    bpf_asm!(
        "r0 = -50;"
        "r0 s/= 3;"
        "exit;"
    )
}

// be32 on a little-endian CPU.
#[sec("socket")]
#[success]
#[retval(0x44332211)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x11223344, %eax")]
#[jited("\tbswapl\t%eax")]
#[arch(arm64)]
#[jited("\tmov\tx8, #0x3344")]
#[jited("\tmovk\tx8, #0x1122, lsl #16")]
#[jited("\trev\tw8, w8")]
pub fn bswap_be32() {
    bpf_asm!(
        "r0 = 0x11223344;"
        "r0 = be32 r0;"
        "exit;"
    )
}

// A sign-extending byte load (cpu v4 LDSX).
#[sec("socket")]
#[success]
#[retval(-1)]
#[arch(x86_64)]
#[jited("\tmovsbq\t-0x8(%rbp), %rax")]
#[arch(arm64)]
#[jited("\tldrsb\tx8, [sp, #0x8]")]
pub fn ldsx_byte() {
    bpf_asm!(
        "r1 = 0xff;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = *(s8 *)(r10 - 8);"
        "exit;"
    )
}

// bpf_get_smp_processor_id() on x86_64: the verifier inlines it as a
// per-CPU load. (No #[retval]: the CPU number depends on where the test
// run happens to execute.)
#[sec("socket")]
#[success]
#[arch(x86_64)]
// the per-CPU offset of cpu_number (nokaslr: a fixed address)
#[xlated("0: r0 = {{-?[0-9]+}}")]
#[xlated("1: r0 = &(void __percpu *)(r0)")]
#[xlated("2: r0 = *(u32 *)(r0 +0)")]
#[xlated("3: exit")]
#[jited("\tmovq\t$-0x{{[0-9a-f]+}}, %rax")]
#[jited("\taddq\t%gs:-0x{{[0-9a-f]+}}, %rax")]
#[jited("\tmovl\t(%rax), %eax")]
pub fn smp_processor_id_x86_64() {
    bpf_asm!(
        "call %[bpf_get_smp_processor_id];"
        "exit;",
        imm(bpf_get_smp_processor_id),
    )
}

// On arm64 the call stays in the xlated program and the JIT inlines it.
#[sec("socket")]
#[success]
#[retval(0)]
#[arch(arm64)]
#[xlated("0: call bpf_get_smp_processor_id")]
#[xlated("1: exit")]
// the JIT reads the CPU number from current (SP_EL0) directly
#[jited("\tmrs\tx10, SP_EL0")]
#[jited("\tldr\tw8, [x10, #0x18]")]
pub fn smp_processor_id_arm64() {
    bpf_asm!(
        "call %[bpf_get_smp_processor_id];"
        "exit;",
        imm(bpf_get_smp_processor_id),
    )
}
