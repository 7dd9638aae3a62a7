//! Unprivileged loads (test_loader's `@unpriv` run, without CAP_BPF,
//! CAP_PERFMON, CAP_NET_ADMIN, CAP_SYS_ADMIN): pointer leaks and
//! comparisons refused, helpers restricted, and the Spectre mitigations
//! the verifier adds to the xlated program instead of the privileged
//! program's optimisations.

use bpf_selftest::prelude::*;

#[map]
static vals: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 16, 1);

// Returning the ctx pointer: fine privileged, a leak unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[msg_unpriv("R0 leaks addr as return value")]
pub fn return_ctx_ptr() {
    bpf_asm!(
        "r0 = r1;"
        "exit;"
    )
}

// Comparing two pointers.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("R10 pointer comparison prohibited")]
pub fn compare_pointers() {
    bpf_asm!(
        "r0 = 0;"
        "if r1 == r10 goto 1f;"
        "r0 = 0;"
    "1:"
        "exit;"
    )
}

// Even a pointer against the constant 0 is a pointer comparison.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(1)]
#[msg_unpriv("1: (55) if r1 != 0x0 goto pc+1")]
#[msg_unpriv("R1 pointer comparison prohibited")]
pub fn compare_pointer_with_zero() {
    bpf_asm!(
        "r0 = 1;"
        "if r1 != 0 goto 1f;"
        "r0 = 2;"
    "1:"
        "exit;"
    )
}

// A pointer stored into a ctx field (cb[0]) would leak it.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("R2 leaks addr into ctx")]
pub fn ptr_into_ctx() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = r10;"
        "*(u32 *)(r1 + 48) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// A branch the verifier proves never taken: removed privileged, replaced
// by a self-loop (goto pc-1) unprivileged so speculation cannot use it.
#[sec("socket")]
#[success]
#[success_unpriv]
#[retval(1)]
#[log_level(2)]
#[msg("3: (25) if r1 > 0x10 goto pc+1")]
#[msg("3: R1=scalar(smin=smin32=0,smax=umax=smax32=umax32=15,var_off=(0x0; 0xf))")]
#[xlated("2: r1 &= 15")]
#[xlated("3: exit")]
// unprivileged, the never-taken path is walked as speculative execution
#[msg_unpriv("from 3 to 5 (speculative execution): R10=fp0")]
#[xlated_unpriv("3: if r1 > 0x10 goto pc+1")]
#[xlated_unpriv("4: exit")]
#[xlated_unpriv("5: goto pc-1")]
#[xlated_unpriv("6: goto pc-1")]
#[xlated_unpriv("7: goto pc-1")]
pub fn dead_code_sanitized() {
    bpf_asm!(
        "r0 = 1;"
        "r1 = *(u32 *)(r1 + 0);"
        "r1 &= 0xf;"
        "if r1 > 0x10 goto 1f;"
        "exit;"
    "1:"
        "r0 = 2;"
        "r0 += 3;"
        "exit;"
    )
}

// A map value pointer plus an unknown bounded offset: unprivileged, the
// addition is masked against the value's size (Spectre v1 ALU
// sanitation through the hidden AX register r12).
#[sec("socket")]
#[success]
#[success_unpriv]
#[retval(0)]
#[log_level(2)]
#[msg("10: (0f) r0 += r6")]
#[xlated("16: r0 += r6")]
#[xlated("17: r0 = *(u64 *)(r0 +0)")]
#[msg_unpriv("from 10 to 11 (speculative execution): R0=map_value(id=1,map=vals,ks=4,vs=16)")]
// the key is masked to 0 (max_entries 1), the offset against 16 - 8
#[xlated_unpriv("...")]
#[xlated_unpriv("w0 &= 0")]
#[xlated_unpriv("...")]
#[xlated_unpriv("w12 = 8")]
#[xlated_unpriv("r12 -= r6")]
#[xlated_unpriv("r12 |= r6")]
#[xlated_unpriv("r12 = -r12")]
#[xlated_unpriv("r12 s>>= 63")]
#[xlated_unpriv("r12 &= r6")]
#[xlated_unpriv("r0 += r12")]
#[xlated_unpriv("r0 = *(u64 *)(r0 +0)")]
pub fn value_ptr_alu_sanitized() {
    bpf_asm!(
        "r6 = *(u32 *)(r1 + 0);"
        "r6 &= 8;"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 += r6;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
    )
}

// Stack pointer arithmetic with an unknown offset is refused
// unprivileged outright.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv(
    "R1 variable stack access prohibited for !root, var_off=(0xfffffffffffffff0; 0x8) off=-16"
)]
pub fn stack_ptr_var_arith() {
    bpf_asm!(
        "r0 = 0;"
        "*(u64 *)(r10 - 16) = r0;"
        "*(u64 *)(r10 - 8) = r0;"
        "r2 = *(u32 *)(r1 + 0);"
        "r2 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r2;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;"
    )
}

// A constant stack offset out of the frame.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("R1 stack pointer arithmetic goes out of range, prohibited for !root; off=-1000")]
pub fn stack_ptr_out_of_range() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -1000;"
        "r0 = 0;"
        "exit;"
    )
}

// bpf_get_prandom_u32() is open to everyone.
#[sec("socket")]
#[success]
#[success_unpriv]
#[retval(0)]
#[xlated_unpriv("0: call unknown")]
pub fn helper_prandom_unpriv() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// So is bpf_ktime_get_ns().
#[sec("socket")]
#[success]
#[success_unpriv]
#[retval(0)]
#[xlated_unpriv("0: call unknown")]
pub fn helper_ktime_unpriv() {
    bpf_asm!(
        "call %[bpf_ktime_get_ns];"
        "r0 = 0;"
        "exit;",
        imm(bpf_ktime_get_ns),
    )
}

// bpf_trace_printk() needs CAP_PERFMON... and a format string.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("program of this type cannot use helper bpf_trace_printk#6")]
#[msg_unpriv("Verification failed: Policy: Operation is not allowed")]
pub fn helper_trace_printk_unpriv() {
    bpf_asm!(
        "r1 = 0x0a6968;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 4;"
        "call %[bpf_trace_printk];"
        "r0 = 0;"
        "exit;",
        imm(bpf_trace_printk),
    )
}

// Unprivileged users may load socket filters, not tc programs.
#[sec("tc")]
#[success]
#[failure_unpriv]
#[retval(0)]
pub fn tc_prog_unpriv() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
    )
}

// An unprivileged store to a stack slot the program also spills to
// gets a Spectre v4 barrier on the x86_64 guest.
#[sec("socket")]
#[success]
#[success_unpriv]
#[arch(x86_64)]
#[retval(3)]
#[xlated("1: *(u64 *)(r10 -8) = r1")]
#[xlated("2: r0 = *(u64 *)(r10 -8)")]
#[xlated_unpriv("1: *(u64 *)(r10 -8) = r1")]
#[xlated_unpriv("2: nospec")]
#[xlated_unpriv("3: r0 = *(u64 *)(r10 -8)")]
pub fn spill_nospec_x86_64() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// The same program on the arm64 guest: no barrier.
#[sec("socket")]
#[success]
#[success_unpriv]
#[arch(arm64)]
#[retval(3)]
#[xlated_unpriv("1: *(u64 *)(r10 -8) = r1")]
#[xlated_unpriv("2: r0 = *(u64 *)(r10 -8)")]
pub fn spill_no_nospec_arm64() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// Unprivileged, every scalar is precise from the start (P in the state):
// there is no precision backtracking to do.
#[sec("socket")]
#[success]
#[success_unpriv]
#[log_level(2)]
#[retval(7)]
#[msg(
    "2: (25) if r1 > 0x64 goto pc+1        ; R1=scalar(smin=smin32=0,smax=umax=smax32=umax32=100,var_off=(0x0; 0x7f))"
)]
#[msg_unpriv("0: (b7) r0 = 7                        ; R0=P7")]
#[msg_unpriv(
    "2: (25) if r1 > 0x64 goto pc+1        ; R1=Pscalar(smin=smin32=0,smax=umax=smax32=umax32=100,var_off=(0x0; 0x7f))"
)]
pub fn precise_scalars_unpriv() {
    bpf_asm!(
        "r0 = 7;"
        "r1 = *(u32 *)(r1 + 0);"
        "if r1 > 100 goto 1f;"
        "exit;"
    "1:"
        "r0 = 8;"
        "exit;"
    )
}
