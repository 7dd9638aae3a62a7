//! BPF-to-BPF calls: static subprograms verified in their caller's
//! context, global subprograms verified once on their own, stack sharing
//! across frames, the call-depth and combined-stack limits, and what a
//! call clobbers.

use bpf_selftest::prelude::*;

#[subprog]
fn add2() {
    bpf_asm!(
        "r0 = r1;"
        "r0 += r2;"
        "exit;"
    )
}

// A static subprogram's result is known to the caller: R0=5 after the
// call (log level 2 shows both frames).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(5)]
#[msg("4: frame1: R1=2 R2=3 R10=fp0")]
#[msg("from 6 to 3: R0=5 R10=fp0")]
#[xlated("2: call pc+1")]
#[xlated("3: exit")]
#[xlated("4: r0 = r1")]
pub fn static_call_const_result() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = 3;"
        "call %[add2];"
        "exit;",
        imm(add2),
    )
}

#[subprog]
fn read_arg_ptr() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 0);"
        "exit;"
    )
}

// The callee reads the caller's stack through a pointer argument
// (fp[0]-8 in frame 1).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("6: frame1: R1=fp[0]-8 R10=fp0")]
#[msg("from 7 to 5: R0=7 R10=fp0")]
pub fn callee_reads_caller_stack() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[read_arg_ptr];"
        "exit;",
        imm(read_arg_ptr),
    )
}

#[subprog]
fn write_arg_ptr() {
    bpf_asm!(
        "r2 = 9;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// ... and writes it: the caller sees the callee's store.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(9)]
#[msg("7: frame1: R1=fp[0]-8 R10=fp0")]
#[msg("from 10 to 5: R10=fp0 fp-8=9")]
pub fn callee_writes_caller_stack() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[write_arg_ptr];"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;",
        imm(write_arg_ptr),
    )
}

#[subprog(global, nargs = 1)]
fn global_plus_one() {
    bpf_asm!(
        "r0 = r1;"
        "r0 += 1;"
        "exit;"
    )
}

// A global function is verified once, on its own: the caller only knows
// its return is a scalar.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(42)]
#[msg("Func#1 ('global_plus_one') is global and assumed valid.")]
#[msg("2: R0=scalar()")]
#[msg("Validating global_plus_one() func#1...")]
#[msg("3: R1=scalar() R10=fp0")]
#[msg("Func#1 ('global_plus_one') is safe for any args that match its prototype")]
pub fn global_call_unknown_result() {
    bpf_asm!(
        "r1 = 41;"
        "call %[global_plus_one];"
        "exit;",
        imm(global_plus_one),
    )
}

// A global function's int argument cannot be a pointer.
#[sec("socket")]
#[failure]
#[msg("R1 is not a scalar")]
#[msg("Caller passes invalid args into func#1 ('global_plus_one')")]
pub fn global_call_ptr_arg() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[global_plus_one];"
        "exit;",
        imm(global_plus_one),
    )
}

#[subprog]
fn recurse() {
    bpf_asm!(
        "call %[recurse];"
        "r0 = 0;"
        "exit;",
        imm(recurse),
    )
}

// A subprogram calling itself.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("recursive call from recurse() to recurse()")]
#[msg("Verification failed: Program Structure: Recursive subprogram call")]
pub fn recursion_rejected() {
    bpf_asm!(
        "call %[recurse];"
        "exit;",
        imm(recurse),
    )
}

#[subprog]
fn big_frame() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 64) = r1;"
        "r0 = 0;"
        "exit;"
    )
}

// 480 bytes in main plus 64 in the callee exceed the 512-byte limit.
#[sec("socket")]
#[failure]
#[msg("combined stack size of 2 calls is 544. Too large")]
pub fn combined_stack_too_large() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 480) = r1;"
        "call %[big_frame];"
        "exit;",
        imm(big_frame),
    )
}

// 448 + 64 = 512: just fits.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(4)]
#[retval(0)]
#[msg("stack depth max 512")]
#[msg("subprog 0 (combined_stack_fits) main insns_self 4 insns_total 8 stack 448")]
#[msg("subprog 1 (big_frame) static insns_self 4 insns_total 4 stack 64")]
pub fn combined_stack_fits() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 448) = r1;"
        "call %[big_frame];"
        "exit;",
        imm(big_frame),
    )
}

#[subprog]
fn d16() {
    bpf_asm!("r0 = 8; exit;")
}
#[subprog]
fn d15() {
    bpf_asm!("call %[d16]; exit;", imm(d16))
}
#[subprog]
fn d14() {
    bpf_asm!("call %[d15]; exit;", imm(d15))
}
#[subprog]
fn d13() {
    bpf_asm!("call %[d14]; exit;", imm(d14))
}
#[subprog]
fn d12() {
    bpf_asm!("call %[d13]; exit;", imm(d13))
}
#[subprog]
fn d11() {
    bpf_asm!("call %[d12]; exit;", imm(d12))
}
#[subprog]
fn d10() {
    bpf_asm!("call %[d11]; exit;", imm(d11))
}
#[subprog]
fn d9() {
    bpf_asm!("call %[d10]; exit;", imm(d10))
}
#[subprog]
fn d8() {
    bpf_asm!("call %[d9]; exit;", imm(d9))
}
#[subprog]
fn d7() {
    bpf_asm!("call %[d8]; exit;", imm(d8))
}
#[subprog]
fn d6() {
    bpf_asm!("call %[d7]; exit;", imm(d7))
}
#[subprog]
fn d5() {
    bpf_asm!("call %[d6]; exit;", imm(d6))
}
#[subprog]
fn d4() {
    bpf_asm!("call %[d5]; exit;", imm(d5))
}
#[subprog]
fn d3() {
    bpf_asm!("call %[d4]; exit;", imm(d4))
}
#[subprog]
fn d2() {
    bpf_asm!("call %[d3]; exit;", imm(d3))
}
#[subprog]
fn d1() {
    bpf_asm!("call %[d2]; exit;", imm(d2))
}

// Main plus sixteen nested calls: 17 frames, one more than 7.3 allows.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("the call stack of 17 frames is too deep")]
pub fn call_depth_too_deep() {
    bpf_asm!(
        "call %[d1];"
        "exit;",
        imm(d1),
    )
}

// Main plus fifteen: the deepest chain 7.3 accepts (16 frames).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(8)]
#[log_level(2)]
#[msg("30: frame15: R10=fp0")]
#[msg("from 31 to 29: frame14: R0=8 R10=fp0")]
pub fn call_depth_max() {
    bpf_asm!(
        "call %[d2];"
        "exit;",
        imm(d2),
    )
}

#[subprog]
fn no_r0() {
    bpf_asm!(
        "r1 = 1;"
        "exit;"
    )
}

// A subprogram that exits without setting r0.
#[sec("socket")]
#[failure]
#[msg("to caller at 1:")]
#[msg("R0 !read_ok")]
pub fn subprog_exit_without_r0() {
    bpf_asm!(
        "call %[no_r0];"
        "exit;",
        imm(no_r0),
    )
}

#[subprog]
fn ret_zero() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
    )
}

// A call clobbers r1-r5 in the caller.
#[sec("socket")]
#[failure]
#[msg("R1 !read_ok")]
pub fn call_clobbers_r1() {
    bpf_asm!(
        "r1 = 5;"
        "call %[ret_zero];"
        "r0 = r1;"
        "exit;",
        imm(ret_zero),
    )
}

#[subprog]
fn uses_r6() {
    bpf_asm!(
        "r6 = 1;"
        "r0 = r6;"
        "exit;"
    )
}

// ... but r6-r9 survive it, whatever the callee does with its own.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(42)]
#[log_level(2)]
#[msg("from 6 to 2: R6=42 R10=fp0")]
pub fn callee_saved_survive() {
    bpf_asm!(
        "r6 = 42;"
        "call %[uses_r6];"
        "r0 = r6;"
        "exit;",
        imm(uses_r6),
    )
}

#[subprog]
fn ret_own_stack() {
    bpf_asm!(
        "r0 = r10;"
        "r0 += -8;"
        "exit;"
    )
}

// Returning a pointer into the callee's own (dead) frame.
#[sec("socket")]
#[failure]
#[msg("cannot return stack pointer to the caller")]
pub fn return_callee_stack_ptr() {
    bpf_asm!(
        "call %[ret_own_stack];"
        "r0 = 0;"
        "exit;",
        imm(ret_own_stack),
    )
}

#[subprog]
fn ret_three() {
    bpf_asm!(
        "r0 = 3;"
        "exit;"
    )
}

// A callee's constant used as a stack offset by the caller: precision
// propagates back into the callee's frame.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("from 9 to 3: R0=3 R10=fp0 fp-8=0")]
#[msg("mark_precise: frame1: regs=r0 stack= before 8: (b7) r0 = 3")]
#[msg("6: R0=3 R1=fp-5")]
pub fn precision_through_call() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[ret_three];"
        "r1 = r10;"
        "r1 += -8;"
        "r1 += r0;"
        "r0 = *(u8 *)(r1 + 0);"
        "exit;",
        imm(ret_three),
    )
}

// A subprogram made from a local label of the program itself.
#[sec("socket")]
#[success]
#[retval(11)]
#[xlated("1: call pc+1")]
#[xlated("2: exit")]
#[xlated("3: r0 = r1")]
pub fn local_label_subprog() {
    bpf_asm!(
        "r1 = 10;"
        "call 1f;"
        "exit;"
    "1:"
        "r0 = r1;"
        "r0 += 1;"
        "exit;"
    )
}

// A jump from a subprogram back into its caller's code.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("jump out of range from insn 3 to 0")]
#[msg("Verification failed: Program Structure: Jump out of range")]
pub fn jump_out_of_subprog() {
    bpf_asm!(
    "2:"
        "r0 = 0;"
        "call 1f;"
        "exit;"
    "1:"
        "goto 2b;"
    )
}

// Subprogram calls are refused unprivileged (they need CAP_BPF).
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(5)]
#[msg_unpriv(
    "loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN"
)]
pub fn call_unpriv_rejected() {
    bpf_asm!(
        "r1 = 2;"
        "r2 = 3;"
        "call %[add2];"
        "exit;",
        imm(add2),
    )
}
