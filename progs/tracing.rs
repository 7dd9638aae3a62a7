//! fentry/fexit programs (BPF_PROG_TYPE_TRACING attached to a kernel
//! function by its vmlinux BTF id): the ctx is the u64 array of the
//! function's arguments, read as its BTF prototype types them
//! (`btf_ctx_access`); fentry must return 0; the JITs inline
//! bpf_get_current_task() (the kernel's verifier_jit_inline.c, as naked asm).

use bpf_selftest::prelude::*;

// verifier_jit_inline.c's inline_bpf_get_current_task: x86-64 reads
// current_task through a per-CPU insn, arm64 from SP_EL0.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[arch(x86_64)]
#[jited("\taddq\t%gs:{{.*}}, %rax")]
#[arch(arm64)]
#[jited("\tmrs\tx8, SP_EL0")]
pub fn inline_bpf_get_current_task() {
    bpf_asm!(
        "call %[bpf_get_current_task];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_current_task),
    )
}

// verifier_jit_inline.c's inline_bpf_get_smp_processor_id.
#[sec("fentry/bpf_fentry_test2")]
#[kernel("7.3")]
#[success]
#[retval(0)]
pub fn inline_bpf_get_smp_processor_id() {
    bpf_asm!(
        "call %[bpf_get_smp_processor_id];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_smp_processor_id),
    )
}

// bpf_fentry_test1(int a): its argument is a scalar in ctx[0].
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
pub fn fentry_read_int_arg() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;",
    )
}

// bpf_fentry_test2(int a, u64 b): the second argument.
#[sec("fentry/bpf_fentry_test2")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
pub fn fentry_read_second_arg() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 8);"
        "r0 = 0;"
        "exit;",
    )
}

// A narrower load of an int argument.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
pub fn fentry_read_int_arg_u32() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "exit;",
    )
}

// bpf_fentry_test1 has one argument: ctx[1] is past it.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
pub fn fentry_read_past_args() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 8);"
        "r0 = 0;"
        "exit;",
    )
}

// The args array is read-only.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
pub fn fentry_write_ctx() {
    bpf_asm!(
        "r2 = 0;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
    )
}

// An access that is not a whole u64 slot.
#[sec("fentry/bpf_fentry_test2")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
pub fn fentry_read_misaligned() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 4);"
        "r0 = 0;"
        "exit;",
    )
}

// fentry programs must return 0.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
pub fn fentry_return_nonzero() {
    bpf_asm!(
        "r0 = 1;"
        "exit;",
    )
}

// fexit sees the arguments and then the return value.
#[sec("fexit/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
pub fn fexit_read_retval() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 8);"
        "r0 = 0;"
        "exit;",
    )
}

// A pointer argument: bpf_fentry_test7(struct bpf_fentry_test_t *arg)
// gives a trusted PTR_TO_BTF_ID (or NULL).
#[sec("fentry/bpf_fentry_test7")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
pub fn fentry_read_ptr_arg() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;",
    )
}
