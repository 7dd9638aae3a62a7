//! Callbacks and subprograms that go wrong (or just right): bpf_loop and
//! bpf_for_each_map_elem callbacks with bad return values, bad ctx use,
//! non-function callback arguments; callee reads of registers it was not
//! given; values flowing back through callback ctx pointers.

use bpf_selftest::prelude::*;

#[map]
static elems: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 3);

// Callback: returns an unbounded scalar.
#[subprog]
fn ret_random_cb() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// Callback: never sets r0.
#[subprog]
fn no_r0_cb() {
    bpf_asm!(
        "r1 = 0;"
        "exit;"
    )
}

// Callback: dereferences its ctx argument as a u64 counter.
#[subprog]
fn deref_ctx_cb() {
    bpf_asm!(
        "r0 = *(u64 *)(r2 + 0);"
        "r0 += 1;"
        "*(u64 *)(r2 + 0) = r0;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback: reads the caller's r6, which it does not get.
#[subprog]
fn read_r6_cb() {
    bpf_asm!(
        "r0 = r6;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback of bpf_for_each_map_elem: adds the element's value to the
// u64 its ctx points to, continues.
#[subprog]
fn sum_elem_cb() {
    bpf_asm!(
        "r0 = *(u64 *)(r3 + 0);"
        "r1 = *(u64 *)(r4 + 0);"
        "r1 += r0;"
        "*(u64 *)(r4 + 0) = r1;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback of bpf_for_each_map_elem: writes key * 10 into the element.
#[subprog]
fn fill_elem_cb() {
    bpf_asm!(
        "r0 = *(u32 *)(r2 + 0);"
        "r0 *= 10;"
        "*(u64 *)(r3 + 0) = r0;"
        "r0 = 0;"
        "exit;"
    )
}

// Callback of bpf_for_each_map_elem: stops after the first element.
#[subprog]
fn stop_first_cb() {
    bpf_asm!(
        "r0 = 1;"
        "exit;"
    )
}

// Callback of bpf_for_each_map_elem: writes past the element.
#[subprog]
fn elem_oob_cb() {
    bpf_asm!(
        "r0 = 0;"
        "*(u64 *)(r3 + 8) = r0;"
        "exit;"
    )
}

// A bpf_loop callback returning an unknown scalar.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("8: (85) call bpf_get_prandom_u32#7    ; frame1: R0=scalar() cb")]
#[msg("At callback return the register R0 has unknown scalar value should have been in [0, 1]")]
pub fn loop_cb_returns_unbounded() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = %[ret_random_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(ret_random_cb),
        imm(bpf_loop),
    )
}

// A bpf_loop callback that never sets r0.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R0 not a scalar value")]
pub fn loop_cb_without_r0() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = %[no_r0_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(no_r0_cb),
        imm(bpf_loop),
    )
}

// A scalar as bpf_loop's callback ctx: refused at the call (the ctx must
// be a stack pointer), before the callback is walked.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("3: (b7) r3 = 5                        ; R3=5")]
#[msg("R3 type=scalar expected=fp")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn loop_cb_ctx_is_scalar() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = %[deref_ctx_cb] ll;"
        "r3 = 5;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(deref_ctx_cb),
        imm(bpf_loop),
    )
}

// A scalar where bpf_loop wants the callback.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R2 type=scalar expected=func")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn loop_callback_not_a_function() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = 0;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm(bpf_loop),
    )
}

// The callback reads r6: callee frames start with only r1-r5.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("from 6 to 9: frame1: R10=fp0 cb")]
#[msg("R6 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn loop_cb_reads_callers_r6() {
    bpf_asm!(
        "r6 = 1;"
        "r1 = 2;"
        "r2 = %[read_r6_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = 0;"
        "exit;",
        imm_addr(read_r6_cb),
        imm(bpf_loop),
    )
}

// An unknown (but bounded) iteration count with a counting callback.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(50)]
#[log_level(2)]
#[msg("from 8 to 11: frame1: R2=fp[0]-8 R10=fp0 cb")]
#[msg("13: (7b) *(u64 *)(r2 +0) = r0         ; frame1: R0=1 R2=fp[0]-8 cb")]
pub fn loop_count_from_skb_len() {
    bpf_asm!(
        "r1 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "*(u64 *)(r10 - 8) = r0;"
        "r2 = %[deref_ctx_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_loop];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm_addr(deref_ctx_cb),
        imm(bpf_loop),
    )
}

// bpf_for_each_map_elem: fill each element with key * 10, then sum them
// (0 + 10 + 20); the program returns the sum plus the count of the
// second walk (3) times 100.
#[sec("socket")]
#[success]
#[retval(330)]
pub fn for_each_fill_then_sum() {
    bpf_asm!(
        "r1 = %[elems] ll;"
        "r2 = %[fill_elem_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_for_each_map_elem];"
        "r0 = 0;"
        "*(u64 *)(r10 - 8) = r0;"
        "r1 = %[elems] ll;"
        "r2 = %[sum_elem_cb] ll;"
        "r3 = r10;"
        "r3 += -8;"
        "r4 = 0;"
        "call %[bpf_for_each_map_elem];"
        "r0 *= 100;"
        "r1 = *(u64 *)(r10 - 8);"
        "r0 += r1;"
        "exit;",
        imm_addr(elems),
        imm_addr(fill_elem_cb),
        imm_addr(sum_elem_cb),
        imm(bpf_for_each_map_elem),
    )
}

// A for_each callback returning 1 stops the walk after one element.
#[sec("socket")]
#[success]
#[retval(1)]
pub fn for_each_stops_early() {
    bpf_asm!(
        "r1 = %[elems] ll;"
        "r2 = %[stop_first_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_for_each_map_elem];"
        "exit;",
        imm_addr(elems),
        imm_addr(stop_first_cb),
        imm(bpf_for_each_map_elem),
    )
}

// A for_each callback writing past its 8-byte element.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("from 6 to 9: frame1: R3=map_value(id=1,map=elems,ks=4,vs=8) R10=fp0 cb")]
#[msg("invalid access to map value, value_size=8 off=8 size=8")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn for_each_cb_value_oob() {
    bpf_asm!(
        "r1 = %[elems] ll;"
        "r2 = %[elem_oob_cb] ll;"
        "r3 = 0;"
        "r4 = 0;"
        "call %[bpf_for_each_map_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(elems),
        imm_addr(elem_oob_cb),
        imm(bpf_for_each_map_elem),
    )
}

// for_each with non-zero flags: -EINVAL at run time.
#[sec("socket")]
#[success]
#[retval(-22)]
pub fn for_each_flags_einval() {
    bpf_asm!(
        "r1 = %[elems] ll;"
        "r2 = %[stop_first_cb] ll;"
        "r3 = 0;"
        "r4 = 1;"
        "call %[bpf_for_each_map_elem];"
        "exit;",
        imm_addr(elems),
        imm_addr(stop_first_cb),
        imm(bpf_for_each_map_elem),
    )
}

// A static subprogram that reads r2 it was never passed (the caller did
// not set it).
#[subprog]
fn uses_r2() {
    bpf_asm!(
        "r0 = r2;"
        "exit;"
    )
}

#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("3: frame1: R10=fp0")]
#[msg("R2 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn callee_reads_unset_arg() {
    bpf_asm!(
        "r1 = 1;"
        "call %[uses_r2];"
        "exit;",
        imm(uses_r2),
    )
}

// A subprogram whose r0 differs by path: the caller sees both values.
#[subprog]
fn pick() {
    bpf_asm!(
        "r0 = 10;"
        "if r1 > 5 goto 1f;"
        "r0 = 20;"
    "1:"
        "exit;"
    )
}

#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(20)]
#[log_level(2)]
#[msg("3: frame1: R1=3 R10=fp0")]
#[msg("from 6 to 2: R0=20 R10=fp0")]
pub fn callee_return_by_arg() {
    bpf_asm!(
        "r1 = 3;"
        "call %[pick];"
        "exit;",
        imm(pick),
    )
}
