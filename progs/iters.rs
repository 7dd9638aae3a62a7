//! Programs of the kernel's `tools/testing/selftests/bpf/progs/iters.c`
//! (run there by `RUN_TESTS(iters)`).

use bpf_selftest::prelude::*;

// The kfuncs bpf_iter_num_new() (with a non-constant end, so the
// -EINVAL/-E2BIG range checks stay), bpf_iter_num_next() and
// bpf_iter_num_destroy() are inlined from 7.3 on; older kernels keep the
// calls, hence #[kernel("7.3")].
#[sec("raw_tp")]
#[arch(x86_64)]
#[arch(arm64)]
#[success]
#[kernel("7.3")]
#[xlated("r6 = r10")]
#[xlated("r6 += -8")]
#[xlated("call unknown")]
#[xlated("r3 = r0")]
#[xlated("r3 &= 65535")]
#[xlated("r1 = r6")]
#[xlated("r2 = 0")]
// bpf_iter_num_new(&it, 0, <non-const>) with the range check kept
#[xlated("if w2 s> w3 goto pc+8")]
#[xlated("w0 = w3")]
#[xlated("w0 -= w2")]
#[xlated("if r0 > 0x800000 goto pc+8")]
#[xlated("w2 += -1")]
#[xlated("*(u32 *)(r1 +0) = r2")]
#[xlated("*(u32 *)(r1 +4) = r3")]
#[xlated("r0 = 0")]
#[xlated("goto pc+5")]
#[xlated("*(u64 *)(r1 +0) = 0")]
#[xlated("r0 = -22")]
#[xlated("goto pc+2")]
#[xlated("*(u64 *)(r1 +0) = 0")]
#[xlated("r0 = -7")]
#[xlated("r1 = r6")]
// bpf_iter_num_next(&it)
#[xlated("r0 = *(u32 *)(r1 +0)")]
#[xlated("w0 += 1")]
#[xlated("r2 = *(u32 *)(r1 +4)")]
#[xlated("if w0 s>= w2 goto pc+3")]
#[xlated("*(u32 *)(r1 +0) = r0")]
#[xlated("r0 = r1")]
#[xlated("goto pc+2")]
#[xlated("*(u64 *)(r1 +0) = 0")]
#[xlated("r0 = 0")]
#[xlated("if r0 != 0x0 goto pc-11")]
#[xlated("r1 = r6")]
// bpf_iter_num_destroy(&it) is inlined to a nop
#[xlated("goto pc+0")]
#[xlated("r0 = 0")]
#[xlated("exit")]
pub fn iter_num_new_inlined() {
    bpf_asm!(
        // r6 points to struct bpf_iter_num on the stack
        "r6 = r10;"
        "r6 += -8;"
        // non-constant end so the range checks are kept
        "call %[bpf_get_prandom_u32];"
        "r3 = r0;"
        "r3 &= 0xffff;"
        "r1 = r6;"
        "r2 = 0;"
        "call %[bpf_iter_num_new];"
    "1:"
        "r1 = r6;"
        "call %[bpf_iter_num_next];"
        "if r0 != 0 goto 1b;"
        "r1 = r6;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}
