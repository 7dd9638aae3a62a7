//! Attached programs and what runs them: fentry, fexit and fmod_ret
//! programs on the functions `BPF_PROG_TEST_RUN` of a tracing program calls
//! (`bpf_fentry_test1`, `bpf_modify_return_test`) and on a map operation a
//! program reaches (`htab_map_delete_elem`), raw tracepoint programs on
//! `bpf_trace_printk` and `bpf_test_finish`; the per-program recursion
//! check that refuses a program entered again while it runs (counted in
//! `recursion_misses`), run counts with statistics enabled, and globals
//! read after the run as a skeleton's user reads them.

use bpf_selftest::prelude::*;

#[map]
static hmap: Map = Map::new(BPF_MAP_TYPE_HASH, 4, 8, 4);

#[global]
static hits: u64 = 0;
#[global]
static deletes: u64 = 0;
#[global]
static printks: u64 = 0;
#[global]
static finishes: u64 = 0;
#[global]
static arg_seen: u64 = 0;
#[global]
static ret_seen: u64 = 0;
#[global]
static input: u64 = 0;
#[global]
static output: u64 = 0;
#[global]
static order: u64 = 0;

// fentry on bpf_fentry_test1, attached to itself: the tracing test run
// calls bpf_fentry_test1(1) once, which runs it once.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[attach]
#[retval(0)]
#[run_count(1)]
#[recursion_misses(0)]
#[global_after(hits = 1)]
#[global_after(arg_seen = 1)]
pub fn fentry_runs_once() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 0);"
        "r3 = %[arg_seen] ll;"
        "*(u64 *)(r3 + 0) = r2;"
        "r3 = %[hits] ll;"
        "r2 = 1;"
        "lock *(u64 *)(r3 + 0) += r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(arg_seen),
        imm_addr(hits),
    )
}

// fexit sees bpf_fentry_test1's argument and return value (1 + 1).
#[sec("fexit/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[attach]
#[retval(0)]
#[run_count(1)]
#[global_after(arg_seen = 1)]
#[global_after(ret_seen = 2)]
pub fn fexit_sees_return() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 0);"
        "r3 = %[arg_seen] ll;"
        "*(u64 *)(r3 + 0) = r2;"
        "r2 = *(u64 *)(r1 + 8);"
        "r3 = %[ret_seen] ll;"
        "*(u64 *)(r3 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(arg_seen),
        imm_addr(ret_seen),
    )
}

/// fexit on bpf_modify_return_test: what its caller gets back.
#[sec("fexit/bpf_modify_return_test")]
#[auxiliary]
pub fn fexit_modify_return() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 16);"
        "r3 = %[ret_seen] ll;"
        "*(u64 *)(r3 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(ret_seen),
    )
}

// fmod_ret on bpf_modify_return_test returns 1234: the function is not
// called (no side effect on *b), the fexit program sees 1234, and the test
// run reports (side effects << 16) | (ret + ret of
// bpf_modify_return_test2, which ran: 29).
#[sec("fmod_ret/bpf_modify_return_test")]
#[kernel("7.3")]
#[success]
#[attach]
#[attach(fexit_modify_return)]
#[retval(66799)]
#[run_count(1)]
#[run_count(fexit_modify_return = 1)]
#[global_after(ret_seen = 1234)]
pub fn fmod_ret_replaces_return() {
    bpf_asm!(
        "r0 = 1234;"
        "exit;",
    )
}

// fmod_ret returning 0 lets the function run: *b goes from 2 to 3 (a side
// effect), it returns 1 + 3, and fexit sees that.
#[sec("fmod_ret/bpf_modify_return_test")]
#[kernel("7.3")]
#[success]
#[attach]
#[attach(fexit_modify_return)]
#[retval(131105)]
#[global_after(ret_seen = 4)]
pub fn fmod_ret_zero_calls_function() {
    bpf_asm!(
        "r0 = 0;"
        "exit;",
    )
}

/// fentry on the hash map's delete: counts, then deletes from the same
/// map, which enters htab_map_delete_elem (and this program) again.
#[sec("fentry/htab_map_delete_elem")]
#[auxiliary]
pub fn on_htab_delete() {
    bpf_asm!(
        "r1 = %[deletes] ll;"
        "r2 = 1;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "r1 = 7;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[hmap] ll;"
        "call %[bpf_map_delete_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(deletes),
        imm_addr(hmap),
        imm(bpf_map_delete_elem),
    )
}

// A syscall program deletes from the hash map: on_htab_delete runs once;
// its own delete reaches htab_map_delete_elem again, where the recursion
// check refuses it (one miss), and that delete goes on without it.
#[sec("syscall")]
#[kernel("7.3")]
#[success]
#[attach(on_htab_delete)]
#[retval(-ENOENT)]
#[run_count(1)]
#[run_count(on_htab_delete = 1)]
#[recursion_misses(on_htab_delete = 1)]
#[global_after(deletes = 1)]
pub fn recursion_through_map_delete() {
    bpf_asm!(
        "r1 = 1;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[hmap] ll;"
        "call %[bpf_map_delete_elem];"
        "exit;",
        imm_addr(hmap),
        imm(bpf_map_delete_elem),
    )
}

// Nested: fentry on bpf_fentry_test1 deletes from the hash map, which runs
// the fentry program on htab_map_delete_elem (a program run from inside
// another attached program is no recursion); that one's own delete is.
#[sec("fentry/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[attach]
#[attach(on_htab_delete)]
#[retval(0)]
#[run_count(1)]
#[recursion_misses(0)]
#[run_count(on_htab_delete = 1)]
#[recursion_misses(on_htab_delete = 1)]
#[global_after(deletes = 1)]
pub fn nested_fentry_map_delete() {
    bpf_asm!(
        "r1 = 3;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[hmap] ll;"
        "call %[bpf_map_delete_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(hmap),
        imm(bpf_map_delete_elem),
    )
}

/// fentry on bpf_fentry_test2: appends 1 to `order`'s decimal digits.
#[sec("fentry/bpf_fentry_test2")]
#[auxiliary]
pub fn order_first_attached() {
    bpf_asm!(
        "r1 = %[order] ll;"
        "r2 = *(u64 *)(r1 + 0);"
        "r2 *= 10;"
        "r2 += 1;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(order),
    )
}

/// fentry on bpf_fentry_test2: appends 2.
#[sec("fentry/bpf_fentry_test2")]
#[auxiliary]
pub fn order_second_attached() {
    bpf_asm!(
        "r1 = %[order] ll;"
        "r2 = *(u64 *)(r1 + 0);"
        "r2 *= 10;"
        "r2 += 2;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(order),
    )
}

// Two fentry programs on one function, attached in this order: which runs
// first is the trampoline's (the last attached is first on its list).
// The tracing test run of this (unattached) program calls
// bpf_fentry_test2 once.
#[sec("fentry/bpf_fentry_test3")]
#[kernel("7.3")]
#[success]
#[attach(order_first_attached, order_second_attached)]
#[retval(0)]
#[run_count(0)]
#[run_count(order_first_attached = 1)]
#[run_count(order_second_attached = 1)]
#[global_after(order = 21)]
pub fn fentry_programs_in_order() {
    bpf_asm!(
        "r0 = 0;"
        "exit;",
    )
}

// fexit on bpf_fentry_test1 deletes from the hash map: the fentry program
// on htab_map_delete_elem runs from inside it, and misses its own delete.
#[sec("fexit/bpf_fentry_test1")]
#[kernel("7.3")]
#[success]
#[attach]
#[attach(on_htab_delete)]
#[retval(0)]
#[run_count(1)]
#[run_count(on_htab_delete = 1)]
#[recursion_misses(on_htab_delete = 1)]
#[global_after(deletes = 1)]
pub fn nested_fexit_map_delete() {
    bpf_asm!(
        "r1 = 5;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[hmap] ll;"
        "call %[bpf_map_delete_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(hmap),
        imm(bpf_map_delete_elem),
    )
}

// Raw tracepoint on bpf_trace_printk: counts, and prints, which fires the
// tracepoint again. Test-run directly, attached to bpf_trace_printk itself,
// it holds its recursion context while it runs (__bpf_prog_test_run_raw_tp):
// the print it makes finds it running.
#[sec("raw_tp/bpf_trace_printk")]
#[kernel("7.3")]
#[success]
#[attach]
#[retval(0)]
#[run_count(1)]
#[recursion_misses(1)]
#[global_after(printks = 1)]
pub fn on_printk() {
    bpf_asm!(
        "r1 = %[printks] ll;"
        "r2 = 1;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "r1 = 0x6968;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 3;"
        "call %[bpf_trace_printk];"
        "r0 = 0;"
        "exit;",
        imm_addr(printks),
        imm(bpf_trace_printk),
    )
}

// A socket filter prints once: on_printk runs and prints; the tracepoint
// it fires finds it running (one miss).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[attach(on_printk)]
#[retval(0)]
#[run_count(1)]
#[run_count(on_printk = 1)]
#[recursion_misses(on_printk = 1)]
#[global_after(printks = 1)]
pub fn raw_tp_recursion_through_printk() {
    bpf_asm!(
        "r1 = 0x6f6c;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 3;"
        "call %[bpf_trace_printk];"
        "r0 = 0;"
        "exit;",
        imm(bpf_trace_printk),
    )
}

/// Raw tracepoint on bpf_test_finish: the end of a test run.
#[sec("raw_tp/bpf_test_finish")]
#[auxiliary]
pub fn on_test_finish() {
    bpf_asm!(
        "r1 = %[finishes] ll;"
        "r2 = 1;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(finishes),
    )
}

// A socket filter's test run ends in bpf_test_finish, whose tracepoint runs
// on_test_finish once; the filter ran once.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[attach(on_test_finish)]
#[retval(5)]
#[run_count(1)]
#[run_count(on_test_finish = 1)]
#[global_after(finishes = 1)]
pub fn raw_tp_on_test_finish() {
    bpf_asm!(
        "r0 = 5;"
        "exit;",
    )
}

// Globals written before the run and read after it, through an mmap of
// the .bss map.
#[sec("socket")]
#[success]
#[global_init(input = 21)]
#[retval(21)]
#[global_after(input = 21)]
#[global_after(output = 42)]
pub fn globals_before_and_after() {
    bpf_asm!(
        "r1 = %[input] ll;"
        "r0 = *(u64 *)(r1 + 0);"
        "r2 = r0;"
        "r2 <<= 1;"
        "r1 = %[output] ll;"
        "*(u64 *)(r1 + 0) = r2;"
        "exit;",
        imm_addr(input),
        imm_addr(output),
    )
}
