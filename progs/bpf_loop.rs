//! bpf_loop(): callback verification, the inlined loop 7.3 emits for a
//! constant-zero flags argument and a single callback, nested loops and
//! the helper's return values.

use bpf_selftest::prelude::*;

// Callback: bumps the u64 counter its ctx points to, keeps looping.
#[subprog]
fn count_cb() {
    bpf_asm!(
        "r0 = *(u64 *)(r2 + 0);"
        "r0 += 1;"
        "*(u64 *)(r2 + 0) = r0;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback: adds the loop index to the counter.
#[subprog]
fn sum_index_cb() {
    bpf_asm!(
        "r0 = *(u64 *)(r2 + 0);"
        "r0 += r1;"
        "*(u64 *)(r2 + 0) = r0;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback: stops the loop (returns 1) at index 3.
#[subprog]
fn stop_at_3_cb() {
    bpf_asm!(
        "r0 = 0;"
        "if r1 != 3 goto 1f;"
        "r0 = 1;"
    "1:"
        "exit;"
    )
}

// Callback: returns 2, outside the [0, 1] a bpf_loop callback may return.
#[subprog]
fn bad_ret_cb() {
    bpf_asm!(
        "r0 = 2;"
        "exit;"
    )
}

// Callback: writes 8 bytes past its u64 ctx.
#[subprog]
fn oob_ctx_cb() {
    bpf_asm!(
        "r0 = 0;"
        "*(u64 *)(r2 + 8) = r0;"
        "exit;"
    )
}

// Callback: loops 4 times over count_cb on the same counter.
#[subprog]
fn inner_loop_cb() {
    bpf_asm!(
        "r1 = 4;"
        "r3 = r2;"
        "r2 = %[count_cb] ll;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// Ten iterations of count_cb on a stack counter; the program returns the
// counter. Pins the inlined loop: the nr_loops range check, the spill of
// the loop state below the program's own stack (fp-16..fp-32), the direct
// call of the callback and the loop's back-edge.
#[sec("socket")]
#[success]
#[retval(10)]
#[xlated("...")]
#[xlated("3: r2 = 0x100000019")]
#[xlated("5: r3 = r10")]
#[xlated("6: r3 += -8")]
#[xlated("7: r4 = 0")]
#[xlated("8: if r1 <= 0x800000 goto pc+2")]
#[xlated("9: w0 = -7")]
#[xlated("10: goto pc+16")]
#[xlated("11: *(u64 *)(r10 -32) = r6")]
#[xlated("12: *(u64 *)(r10 -24) = r7")]
#[xlated("13: *(u64 *)(r10 -16) = r8")]
#[xlated("14: r6 = r1")]
#[xlated("15: w7 = 0")]
#[xlated("16: r8 = r3")]
#[xlated("17: if r7 >= r6 goto pc+5")]
#[xlated("18: r1 = r7")]
#[xlated("19: r2 = r8")]
#[xlated("20: call pc+8")]
#[xlated("21: r7 += 1")]
#[xlated("22: if r0 == 0x0 goto pc-6")]
#[xlated("23: r0 = r7")]
#[xlated("24: r6 = *(u64 *)(r10 -32)")]
#[xlated("25: r7 = *(u64 *)(r10 -24)")]
#[xlated("26: r8 = *(u64 *)(r10 -16)")]
#[xlated("27: r0 = *(u64 *)(r10 -8)")]
#[xlated("28: exit")]
#[xlated("29: r0 = *(u64 *)(r2 +0)")]
#[arch(x86_64, arm64)]
pub fn loop_counts_to_ten() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 10;"
        "r2 = %[count_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// bpf_loop() returns the number of iterations made: 7.
#[sec("socket")]
#[success]
#[retval(7)]
pub fn loop_returns_iterations() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 7;"
        "r2 = %[count_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// The callback sees the index in r1: 0 + 1 + ... + 9 = 45.
#[sec("socket")]
#[success]
#[retval(45)]
pub fn loop_sums_indexes() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 10;"
        "r2 = %[sum_index_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(sum_index_cb),
        imm(bpf_loop),
    )
}

// A callback returning 1 ends the loop; the count includes that call (4).
#[sec("socket")]
#[success]
#[retval(4)]
pub fn loop_callback_breaks() {
    bpf_asm!(
        "r1 = 100;"
        "r2 = %[stop_at_3_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "exit;",
        imm_addr(stop_at_3_cb),
        imm(bpf_loop),
    )
}

// Zero iterations: returns 0 and never calls the callback (the counter
// stays 0, so the result is 0 + 0 * 16).
#[sec("socket")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("frame0 bpf_loop iteration limit reached")]
#[msg("8: (79) r1 = *(u64 *)(r10 -8)         ; R1=0 R10=fp0 fp-8=0")]
pub fn loop_zero_iterations() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = %[count_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r1 = *(u64 *)(r10 - 8);"
        "r1 <<= 4;"
        "r0 += r1;"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// nr_loops above BPF_MAX_LOOPS (1 << 23): -E2BIG from the inlined check.
#[sec("socket")]
#[success]
#[retval(-E2BIG)]
pub fn loop_too_many_e2big() {
    bpf_asm!(
        "r1 = 0x800001;"
        "r2 = %[stop_at_3_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "exit;",
        imm_addr(stop_at_3_cb),
        imm(bpf_loop),
    )
}

// Non-zero flags: not inlined (the helper stays a call) and the helper
// says -EINVAL.
#[sec("socket")]
#[success]
#[retval(-EINVAL)]
#[xlated("...")]
#[xlated("4: r4 = 1")]
#[xlated("5: call unknown")]
#[xlated("6: exit")]
pub fn loop_flags_einval() {
    bpf_asm!(
        "r1 = 3;"
        "r2 = %[stop_at_3_cb] ll;"
        "r3 = 0;"
        "r4 = 1;"
        "call %[bpf_loop];"
        "exit;",
        imm_addr(stop_at_3_cb),
        imm(bpf_loop),
    )
}

// nr_loops from skb->len (50: test_loader's 64 bytes minus the Ethernet
// header the socket filter test run pulls): the
// inlined loop does not need a constant count.
#[sec("socket")]
#[success]
#[retval(50)]
pub fn loop_count_from_ctx() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r2 = 0;"
        "*(u64 *)(r10 - 8) = r2;"
        "r2 = %[count_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// 3 outer iterations of a callback that itself loops 4 times: 12. Both
// calls are inlined, the inner one inside the callback's own frame.
#[sec("socket")]
#[success]
#[retval(12)]
// the inner loop spills r6-r8 into the callback's own frame
#[xlated("...")]
#[xlated("34: if r1 <= 0x800000 goto pc+2")]
#[xlated("35: w0 = -7")]
#[xlated("36: goto pc+16")]
#[xlated("37: *(u64 *)(r10 -24) = r6")]
#[xlated("38: *(u64 *)(r10 -16) = r7")]
#[xlated("39: *(u64 *)(r10 -8) = r8")]
#[xlated("...")]
#[xlated("46: call pc+8")]
#[xlated("...")]
#[xlated("53: r0 = 0")]
#[xlated("54: exit")]
#[arch(x86_64, arm64)]
pub fn loop_nested() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 3;"
        "r2 = %[inner_loop_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(inner_loop_cb),
        imm(bpf_loop),
    )
}

// Two callbacks reach the same call site: not inlined.
#[sec("socket")]
#[success]
#[retval(5)]
#[xlated("...")]
#[xlated("12: r4 = 0")]
#[xlated("13: call unknown")]
#[xlated("14: r0 = *(u64 *)(r10 -8)")]
pub fn loop_two_callbacks_not_inlined() {
    bpf_asm!(
        "r6 = r1;"
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = *(u32 *)(r6 + 0);"
        "r2 = %[count_cb] ll;"
        "if r1 != 0 goto 1f;"
        "r2 = %[sum_index_cb] ll;"
    "1:"
        "r1 = 5;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(count_cb),
        imm_addr(sum_index_cb),
        imm(bpf_loop),
    )
}

// A million iterations through bpf_loop(): the callback is verified
// once, so the whole program takes a handful of insns to verify.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(4)]
#[retval(1000000)]
#[msg("subprog 0 (loop_million_iterations) main insns_self 14 insns_total 24 stack 32")]
#[msg("subprog 1 (count_cb) static insns_self 10 insns_total 10 stack 0")]
#[msg("processed 24 insns (limit 1000000)")]
pub fn loop_million_iterations() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 1000000;"
        "r2 = %[count_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(count_cb),
        imm(bpf_loop),
    )
}

// The same million iterations as a bounded loop: the verifier walks every
// iteration and gives up at its 1M-insn limit. (With libbpf's retry at
// log level 1 the truncated log turns the error into ENOSPC.)
#[sec("socket")]
#[failure]
#[msg("BPF program is too large. Processed 1000001 insn")]
pub fn loop_million_unrolled() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r6 = 0;"
    "1:"
        "r1 = *(u64 *)(r10 - 8);"
        "r1 += 1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r6 += 1;"
        "if r6 < 1000000 goto 1b;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
    )
}

// A callback must return 0 or 1.
#[sec("socket")]
#[failure]
#[msg("At callback return the register R0 has smin=2 smax=2 should have been in [0, 1]")]
pub fn loop_callback_bad_return() {
    bpf_asm!(
        "r1 = 1;"
        "r2 = %[bad_ret_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(bad_ret_cb),
        imm(bpf_loop),
    )
}

// The callback's ctx is the caller's 8-byte stack slot: writing past it
// into the caller's frame above fp-8 is out of bounds.
#[sec("socket")]
#[failure]
#[msg("10: (7b) *(u64 *)(r2 +8) = r0")]
#[msg("invalid write to stack R2 off=0 size=8")]
pub fn loop_callback_ctx_oob() {
    bpf_asm!(
        "r1 = 1;"
        "r2 = %[oob_ctx_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(oob_ctx_cb),
        imm(bpf_loop),
    )
}

// The callback argument must be a function pointer.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R2 type=scalar expected=func")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn loop_callback_not_func() {
    bpf_asm!(
        "r1 = 1;"
        "r2 = 0;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm(bpf_loop),
    )
}

// The callback's frame has only r1..r5 as arguments: reading r6 there is
// reading an uninitialized register.
#[subprog]
fn reads_r6_cb() {
    bpf_asm!(
        "r0 = r6;"
        "r0 = 0;"
        "exit;"
    )
}

#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("9: (bf) r0 = r6")]
#[msg("R6 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn loop_callback_reads_callee_saved() {
    bpf_asm!(
        "r6 = 1;"
        "r1 = 1;"
        "r2 = %[reads_r6_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(reads_r6_cb),
        imm(bpf_loop),
    )
}

// bpf_loop() needs CAP_BPF: unprivileged it is an unknown helper.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(1)]
#[msg_unpriv(
    "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"
)]
pub fn loop_unpriv_rejected() {
    bpf_asm!(
        "r1 = 1;"
        "r2 = %[stop_at_3_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "exit;",
        imm_addr(stop_at_3_cb),
        imm(bpf_loop),
    )
}
