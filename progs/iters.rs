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

// Sum of 5..10 through an open-coded iterator, run on 64 bytes of packet:
// pins the loop the inlined bpf_iter_num_next() closes (the back-edge
// crosses both inlined kfuncs) and the values the iterator yields.
#[sec("socket")]
#[success]
#[retval(35)]
#[kernel("7.3")]
#[xlated("...")]
#[xlated("19: r7 = 0")]
#[xlated("20: r1 = r6")]
#[xlated("21: r0 = *(u32 *)(r1 +0)")]
#[xlated("...")]
#[xlated("29: r0 = 0")]
#[xlated("30: if r0 == 0x0 goto pc+3")]
#[xlated("31: r1 = *(u32 *)(r0 +0)")]
#[xlated("32: r7 += r1")]
// the back-edge lands on the first insn of the inlined next()
#[xlated("33: goto pc-14")]
#[xlated("34: r1 = r6")]
#[xlated("35: goto pc+0")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn iter_sum_range() {
    bpf_asm!(
        "r6 = r10;"
        "r6 += -8;"
        "r1 = r6;"
        "r2 = 5;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r7 = 0;"
    "1:"
        "r1 = r6;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 2f;"
        "r1 = *(u32 *)(r0 + 0);"
        "r7 += r1;"
        "goto 1b;"
    "2:"
        "r1 = r6;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// Two live iterators (fp-8 outer 0..3, fp-16 inner 0..4): 12 inner steps.
// The verifier tracks both in one state (depths per slot); the inner loop
// is re-verified for every outer state until it converges.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(12)]
#[kernel("7.3")]
#[msg(
    "call bpf_iter_num_new#{{[0-9]+}}          ; fp-16=iter_num(id=3,state=active,depth=0) refs=1,3"
)]
#[msg(
    "fp-8=iter_num(id=1,state=active,depth=1) fp-16=iter_num(id=3,state=active,depth=1) refs=1,3"
)]
#[msg(
    "fp-8=iter_num(id=1,state=active,depth=2) fp-16=iter_num(id=7,state=active,depth=1) refs=1,7"
)]
#[msg("processed 96 insns")]
pub fn iter_nested_for() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 3;"
        "call %[bpf_iter_num_new];"
        "r7 = 0;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 3f;"
        "r1 = r10;"
        "r1 += -16;"
        "r2 = 0;"
        "r3 = 4;"
        "call %[bpf_iter_num_new];"
    "2:"
        "r1 = r10;"
        "r1 += -16;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 4f;"
        "r7 += 1;"
        "goto 2b;"
    "4:"
        "r1 = r10;"
        "r1 += -16;"
        "call %[bpf_iter_num_destroy];"
        "goto 1b;"
    "3:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// Leaves the loop from the middle (at the value 3 of 0..100) and destroys
// the still-active iterator: the break path and the drained path merge at
// the destroy.
#[sec("socket")]
#[success]
#[retval(3)]
#[kernel("7.3")]
#[xlated("...")]
#[xlated("30: if r0 == 0x0 goto pc+4")]
#[xlated("31: r1 = *(u32 *)(r0 +0)")]
#[xlated("32: if r1 == 0x3 goto pc+1")]
#[xlated("33: goto pc-15")]
#[xlated("34: r7 = r1")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn iter_early_break() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 100;"
        "call %[bpf_iter_num_new];"
        "r7 = -1;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 2f;"
        "r1 = *(u32 *)(r0 + 0);"
        "if r1 == 3 goto 3f;"
        "goto 1b;"
    "3:"
        "r7 = r1;"
    "2:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// A range starting at INT_MIN: the first value yielded is INT_MIN itself
// (the inlined new() stores start - 1, which wraps to INT_MAX in 32 bits).
#[sec("socket")]
#[success]
#[retval(_INT_MIN)]
#[kernel("7.3")]
pub fn iter_int_min_start() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "w2 = 0x80000000;"
        "w3 = 0x80000003;"
        "call %[bpf_iter_num_new];"
        "r7 = 1;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 1f;"
        "r7 = *(u32 *)(r0 + 0);"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// Counts the values of INT_MIN..INT_MIN+3 (three of them).
#[sec("socket")]
#[success]
#[retval(3)]
#[kernel("7.3")]
pub fn iter_int_min_count() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "w2 = 0x80000000;"
        "w3 = 0x80000003;"
        "call %[bpf_iter_num_new];"
        "r7 = 0;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 2f;"
        "r7 += 1;"
        "goto 1b;"
    "2:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// start == end: new() succeeds (returns 0) and the first next() is NULL;
// retval 42 only if both hold.
#[sec("socket")]
#[success]
#[retval(42)]
#[kernel("7.3")]
pub fn iter_empty_range() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 7;"
        "r3 = 7;"
        "call %[bpf_iter_num_new];"
        "r7 = r0;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "r8 = 1;"
        "if r0 != 0 goto 1f;"
        "r8 = 42;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r8;"
        "r0 += r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// The largest range new() accepts: end - start == BPF_MAX_LOOPS (1 << 23);
// returns new()'s result (0) without iterating.
#[sec("socket")]
#[success]
#[retval(0)]
#[kernel("7.3")]
pub fn iter_max_range() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 0x800000;"
        "call %[bpf_iter_num_new];"
        "r7 = r0;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// One more than BPF_MAX_LOOPS: -E2BIG, and the iterator is left empty
// (next() yields NULL), yet it must still be destroyed.
#[sec("socket")]
#[success]
#[retval(-E2BIG)]
#[kernel("7.3")]
pub fn iter_range_e2big() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = -1;"
        "r3 = 0x800000;"
        "call %[bpf_iter_num_new];"
        "r7 = r0;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 1f;"
        "r7 = 1;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// INT_MIN..INT_MAX: the span does not fit the 32-bit difference the
// inlined check computes as unsigned, so -E2BIG too.
#[sec("socket")]
#[success]
#[retval(-E2BIG)]
#[kernel("7.3")]
pub fn iter_full_int_range_e2big() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "w2 = 0x80000000;"
        "w3 = 0x7fffffff;"
        "call %[bpf_iter_num_new];"
        "r7 = r0;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// start > end: -EINVAL.
#[sec("socket")]
#[success]
#[retval(-EINVAL)]
#[kernel("7.3")]
pub fn iter_range_einval() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 10;"
        "r3 = 5;"
        "call %[bpf_iter_num_new];"
        "r7 = r0;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// next() on a drained iterator keeps returning NULL (the inlined next()
// zeroes the iterator when it runs out): retval 5 if it does.
#[sec("socket")]
#[success]
#[retval(5)]
#[kernel("7.3")]
pub fn iter_next_after_drained() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 1;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "r7 = 1;"
        "if r0 != 0 goto 1f;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 != 0 goto 1f;"
        "r7 = 5;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = r7;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// An iterator created and never destroyed is a leaked reference.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("Unreleased reference id=1 alloc_insn=4")]
#[msg("Verification failed: Resource Lifetime Safety: Unreleased resource")]
#[msg("BPF_EXIT instruction in main prog would lead to reference leak")]
pub fn iter_not_destroyed() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
    )
}

// Destroying twice: the second destroy finds no initialized iterator.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("10: (85) call bpf_iter_num_destroy#{{[0-9]+}}")]
#[msg("expected an initialized iter_num as R1")]
#[msg("Verification failed: Resource Lifetime Safety: Uninitialized iterator use")]
pub fn iter_destroy_twice() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// next() on stack that never held an iterator.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("expected an initialized iter_num as R1")]
#[msg("Verification failed: Resource Lifetime Safety: Uninitialized iterator use")]
pub fn iter_next_uninit() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_next),
    )
}

// The value next() returns may be NULL: dereferencing it unchecked fails.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("R0 invalid mem access 'scalar'")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
#[msg("update: R0 changed from uninitialized value to rdonly_mem_or_null at offset 0")]
pub fn iter_next_deref_unchecked() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "r6 = *(u32 *)(r0 + 0);"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// The yielded int is 4 read-only bytes: reading past them fails.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("invalid access to memory, mem_size=4 off=4 size=4")]
#[msg("R0 min value is outside of the allowed memory range")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn iter_read_past_value() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 1f;"
        "r6 = *(u32 *)(r0 + 4);"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// ... and writing into them fails too.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("R0 cannot write into rdonly_mem")]
pub fn iter_write_value() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 1f;"
        "r6 = 1;"
        "*(u32 *)(r0 + 0) = r6;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// A store over a live iterator's stack slot is rejected.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("expected an initialized iter_num as R1")]
pub fn iter_overwrite_slot() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

// The iterator must be on the stack: a map value pointer is not one.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[msg("R1 expected pointer to an iterator on stack")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn iter_new_not_on_stack() {
    bpf_asm!(
        "r1 = r1;"
        "r2 = 0;"
        "r3 = 10;"
        "call %[bpf_iter_num_new];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_num_new),
    )
}

// A counter bumped inside the loop and then used as a stack offset becomes
// precise, so the iterator loop no longer converges: the verifier walks it
// one counter value at a time (R7=P23 in the parent state) until the read
// at fp-24 + 24 leaves the stack.
#[sec("raw_tp")]
#[failure]
#[kernel("7.3")]
#[log_level(2)]
#[msg(
    "parent state regs= stack=:  R1=fp-8 R7=P23 R10=fp0 fp-8=iter_num(id=1,state=active,depth=23) fp-24=0 refs=1"
)]
#[msg("20: R1=fp0 R7=24")]
#[msg("invalid read from stack R1 off=0 size=1")]
pub fn iter_counter_walks_off_buffer() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 24) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 4;"
        "call %[bpf_iter_num_new];"
        "r7 = 0;"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_next];"
        "if r0 == 0 goto 2f;"
        "r7 += 1;"
        "goto 1b;"
    "2:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r1 = r10;"
        "r1 += -24;"
        "r1 += r7;"
        "r0 = *(u8 *)(r1 + 0);"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_next),
        imm(bpf_iter_num_destroy),
    )
}

// Unprivileged programs may not call kfuncs at all.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(1)]
#[kernel("7.3")]
#[msg_unpriv(
    "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"
)]
#[msg_unpriv("Verification failed: Policy: Operation is not allowed")]
pub fn iter_unpriv_rejected() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 1;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_num_destroy];"
        "r0 = 1;"
        "exit;",
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}

#[map]
static arr48: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 48, 4);

// A 7.3 verifier bug, found by `bpf-selftest soundness` (random program,
// seed 1, #4377, minimised): a scalar spilled to fp-56 on one path only, an
// iterator at fp-64, then precision tracking of the iterator's constant
// arguments walks back into a state whose frame has one stack slot and
// meets slot 6: `verifier_bug_if()` fires and the load fails with EFAULT.
#[sec("socket")]
#[failure]
#[kernel("7.3")]
#[msg("19: (85) call bpf_iter_num_new#")]
#[msg("verifier bug: stack slot 6, total slots 1 (i >= func->allocated_stack / BPF_REG_SIZE)")]
pub fn iter_new_precision_verifier_bug() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr48] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 != 0 goto 1f;"
        "exit;"
    "1:"
        "r7 = r0;"
        "r6 = *(u64 *)(r7 + 0);"
        "call %[bpf_get_prandom_u32];"
        "r6 /= r0;"
        "if w6 & 23 goto 2f;"
        "*(u64 *)(r10 - 56) = r0;"
    "2:"
        "r1 = r10;"
        "r1 += -64;"
        "r2 = 0;"
        "r3 = 9;"
        "call %[bpf_iter_num_new];"
        "r1 = r10;"
        "r1 += -64;"
        "call %[bpf_iter_num_destroy];"
        "r0 = *(u64 *)(r10 - 56);"
        "r0 &= 7;"
        "r8 = r7;"
        "r8 += r0;"
        "r0 = 0;"
        "exit;",
        imm_addr(arr48),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
        imm(bpf_iter_num_new),
        imm(bpf_iter_num_destroy),
    )
}
