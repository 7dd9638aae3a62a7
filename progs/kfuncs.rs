//! Kernel functions other than the numeric iterator: RCU, preemption and
//! IRQ critical sections and the lifetime rules the verifier enforces on
//! them, bpf_cast_to_kern_ctx() (rewritten to a move), and kfunc argument
//! checks.

use bpf_selftest::prelude::*;

// A balanced RCU read-side critical section.
#[sec("socket")]
#[success]
#[retval(1)]
#[xlated("0: call kernel-function")]
#[xlated("1: call kernel-function")]
#[xlated("2: r0 = 1")]
pub fn rcu_lock_unlock() {
    bpf_asm!(
        "call %[bpf_rcu_read_lock];"
        "call %[bpf_rcu_read_unlock];"
        "r0 = 1;"
        "exit;",
        imm(bpf_rcu_read_lock),
        imm(bpf_rcu_read_unlock),
    )
}

// Unlock without lock.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("unmatched rcu read unlock (kernel function bpf_rcu_read_unlock)")]
#[msg("Verification failed: Execution Context Safety: Unmatched context exit")]
pub fn rcu_unlock_unmatched() {
    bpf_asm!(
        "call %[bpf_rcu_read_unlock];"
        "r0 = 0;"
        "exit;",
        imm(bpf_rcu_read_unlock),
    )
}

// Exit inside the critical section.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("BPF_EXIT instruction in main prog cannot be used inside bpf_rcu_read_lock-ed region")]
#[msg("Verification failed: Execution Context Safety: Operation is not allowed in this context")]
pub fn rcu_exit_while_locked() {
    bpf_asm!(
        "call %[bpf_rcu_read_lock];"
        "r0 = 0;"
        "exit;",
        imm(bpf_rcu_read_lock),
    )
}

// Nested RCU sections are allowed.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(2)]
#[msg("1: (85) call bpf_rcu_read_lock#{{[0-9]+}}")]
#[msg("4: (b7) r0 = 2                        ; R0=2")]
pub fn rcu_nested() {
    bpf_asm!(
        "call %[bpf_rcu_read_lock];"
        "call %[bpf_rcu_read_lock];"
        "call %[bpf_rcu_read_unlock];"
        "call %[bpf_rcu_read_unlock];"
        "r0 = 2;"
        "exit;",
        imm(bpf_rcu_read_lock),
        imm(bpf_rcu_read_unlock),
    )
}

// Preemption disabled and enabled again.
#[sec("socket")]
#[success]
#[retval(1)]
pub fn preempt_disable_enable() {
    bpf_asm!(
        "call %[bpf_preempt_disable];"
        "call %[bpf_preempt_enable];"
        "r0 = 1;"
        "exit;",
        imm(bpf_preempt_disable),
        imm(bpf_preempt_enable),
    )
}

// Enable without disable.
#[sec("socket")]
#[failure]
#[msg("unmatched attempt to enable preemption (kernel function bpf_preempt_enable)")]
pub fn preempt_enable_unmatched() {
    bpf_asm!(
        "call %[bpf_preempt_enable];"
        "r0 = 0;"
        "exit;",
        imm(bpf_preempt_enable),
    )
}

// Exit with preemption still disabled.
#[sec("socket")]
#[failure]
#[msg("BPF_EXIT instruction in main prog cannot be used inside bpf_preempt_disable-ed region")]
pub fn preempt_exit_disabled() {
    bpf_asm!(
        "call %[bpf_preempt_disable];"
        "r0 = 0;"
        "exit;",
        imm(bpf_preempt_disable),
    )
}

// bpf_local_irq_save()/restore() with the flags on the stack.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(1)]
// the flag slot becomes a referenced irq-flag stack object
#[msg("2: (85) call bpf_local_irq_save#{{[0-9]+}}         ; fp-8=ffffffff refs=1")]
#[msg("5: (85) call bpf_local_irq_restore#{{[0-9]+}}")]
#[msg("6: (b7) r0 = 1                        ; R0=1")]
pub fn irq_save_restore() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_local_irq_save];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_local_irq_restore];"
        "r0 = 1;"
        "exit;",
        imm(bpf_local_irq_save),
        imm(bpf_local_irq_restore),
    )
}

// Exit with IRQs still disabled.
#[sec("socket")]
#[failure]
#[msg("BPF_EXIT instruction in main prog cannot be used inside bpf_local_irq_save-ed region")]
pub fn irq_exit_disabled() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_local_irq_save];"
        "r0 = 0;"
        "exit;",
        imm(bpf_local_irq_save),
    )
}

// Restoring from a slot no save wrote.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("expected an initialized irq flag as R1")]
#[msg("Verification failed: Resource Lifetime Safety: Uninitialized IRQ flag restore")]
pub fn irq_restore_uninit() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_local_irq_restore];"
        "r0 = 0;"
        "exit;",
        imm(bpf_local_irq_restore),
    )
}

// A helper call inside an RCU section is fine; the kfuncs themselves
// show as `call kernel-function` in the xlated dump.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("0: call kernel-function")]
#[xlated("1: call unknown")]
#[xlated("2: call kernel-function")]
pub fn helper_inside_rcu() {
    bpf_asm!(
        "call %[bpf_rcu_read_lock];"
        "call %[bpf_get_prandom_u32];"
        "call %[bpf_rcu_read_unlock];"
        "r0 = 0;"
        "exit;",
        imm(bpf_rcu_read_lock),
        imm(bpf_get_prandom_u32),
        imm(bpf_rcu_read_unlock),
    )
}

// bpf_cast_to_kern_ctx() is inlined as a move; the result is a trusted
// struct sk_buff pointer whose len field (offset 112) can be read.
#[sec("tc")]
#[success]
#[log_level(2)]
#[retval(64)]
#[msg("0: (85) call bpf_cast_to_kern_ctx#{{[0-9]+}}       ; R0=trusted_ptr_sk_buff()")]
// inlined: the ctx already is the sk_buff
#[xlated("0: r0 = r1")]
#[xlated("1: r0 = *(u32 *)(r0 +112)")]
pub fn cast_to_kern_ctx() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u32 *)(r0 + 112);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// The kernel struct behind it is read-only.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("R0 cannot write into ptr_sk_buff at off=112 size=4")]
pub fn cast_to_kern_ctx_write() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = 0;"
        "*(u32 *)(r0 + 112) = r1;"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Its argument must be the ctx.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("R1 expected pointer to ctx, but got fp")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn cast_to_kern_ctx_bad_arg() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A kfunc clobbers r1-r5 like a helper.
#[sec("socket")]
#[failure]
#[msg("R2 !read_ok")]
pub fn kfunc_clobbers_args() {
    bpf_asm!(
        "r2 = 1;"
        "call %[bpf_rcu_read_lock];"
        "call %[bpf_rcu_read_unlock];"
        "r0 = r2;"
        "exit;",
        imm(bpf_rcu_read_lock),
        imm(bpf_rcu_read_unlock),
    )
}

// Reads through the trusted struct sk_buff bpf_cast_to_kern_ctx() returns
// are walked in vmlinux BTF (btf_struct_access): an int may be read in
// parts.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(64)]
#[xlated("1: r0 = *(u16 *)(r0 +112)")]
#[msg("1: (69) r0 = *(u16 *)(r0 +112)        ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff))")]
pub fn kern_ctx_read_part_of_int() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u16 *)(r0 + 112);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// skb->cb[] is a u8 array: read as scratch space in any size within it.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("1: (79) r0 = *(u64 *)(r0 +40)         ; R0=scalar()")]
pub fn kern_ctx_read_cb_array() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u64 *)(r0 + 40);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A bitfield read whole in a byte load.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (71) r1 = *(u8 *)(r0 +126)         ; R0=trusted_ptr_sk_buff() R1=scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))")]
pub fn kern_ctx_read_bitfields() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u8 *)(r0 + 126);"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// skb->sk is listed in sk_buff__safe_rcu_or_null: an RCU pointer that
// may be NULL; after the check its fields read as scalars.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("1: (79) r1 = *(u64 *)(r0 +24)         ; R1=rcu_ptr_or_null_sock(id=1)")]
#[msg("2: (15) if r1 == 0x0 goto pc+1        ; R1=rcu_ptr_sock(id=1)")]
pub fn kern_ctx_sk_rcu_or_null() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 24);"
        "if r1 == 0 goto l0_%=;"
        "r2 = *(u32 *)(r1 + 532);"
        "l0_%=:"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A pointer read from an RCU pointer without a trust rule is a plain
// PTR_TO_BTF_ID: loads through it may fault and become BPF_PROBE_MEM (the
// dump shows plain loads; x86-64 guards each with an address range check,
// both JITs add exception table entries). No #[retval]: the test run
// reads the kernel's own sk_buff and sock, which the interpreter does not
// model.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("3: (79) r2 = *(u64 *)(r1 +288)        ; R1=rcu_ptr_sock(id=1) R2=ptr_socket()")]
#[msg("4: (61) r3 = *(u32 *)(r2 +0)          ; R2=ptr_socket() R3=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff))")]
pub fn kern_ctx_sk_socket_probe_mem() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 24);"
        "if r1 == 0 goto l0_%=;"
        "r2 = *(u64 *)(r1 + 288);"
        "r3 = *(u32 *)(r2 + 0);"
        "r4 = *(u16 *)(r2 + 4);"
        "l0_%=:"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// skb->dev lies in a union of two members: the pointer is untrusted.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("1: (79) r1 = *(u64 *)(r0 +16)         ; R0=trusted_ptr_sk_buff() R1=untrusted_ptr_net_device()")]
pub fn kern_ctx_dev_in_union_untrusted() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 16);"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Inside the headers union an int may be read past its end.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("1: (61) r1 = *(u32 *)(r0 +180)        ; R0=trusted_ptr_sk_buff() R1=scalar(smin=0,smax=umax=0xffffffff,var_off=(0x0; 0xffffffff))")]
pub fn kern_ctx_union_read_past_member() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u32 *)(r0 + 180);"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Outside a union it may not.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("access beyond the end of member len (mend:116) in struct sk_buff with off 114 size 4")]
#[arch(x86_64, arm64)] // riscv64 (no efficient unaligned access) refuses the misaligned load first
pub fn kern_ctx_read_past_member() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u32 *)(r0 + 114);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Past the struct.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("access beyond struct sk_buff at off 232 size 4")]
pub fn kern_ctx_read_beyond_struct() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u32 *)(r0 + 232);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A pointer member is read whole or not at all.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("cannot access ptr member sk with moff 24 in struct sk_buff with off 24 size 4")]
pub fn kern_ctx_read_half_pointer() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u32 *)(r0 + 24);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A hole between bitfields and the next member.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("struct (anon) doesn't have field at offset 5")]
pub fn kern_ctx_read_hole() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u8 *)(r0 + 133);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Below the struct.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("R0 is ptr_sk_buff invalid negative access: off=-8")]
pub fn kern_ctx_read_negative() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r0 = *(u32 *)(r0 - 8);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Writes through an RCU socket pointer go to tc's btf_struct_access
// callback, which refuses them.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("R1 cannot write into ptr_sock at off=532 size=4")]
pub fn kern_ctx_sk_write() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 24);"
        "if r1 == 0 goto l0_%=;"
        "r2 = 0;"
        "*(u32 *)(r1 + 532) = r2;"
        "l0_%=:"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// Through an untrusted pointer only reads are allowed.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[msg("only read is supported")]
pub fn kern_ctx_untrusted_write() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 16);"
        "r2 = 0;"
        "*(u32 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// A variable offset into the struct.
#[sec("tc")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("R0 is ptr_sk_buff invalid variable offset: off=112, var_off=(0x0; 0x4)")]
pub fn kern_ctx_variable_offset() {
    bpf_asm!(
        "r6 = r1;"
        "call %[bpf_get_prandom_u32];"
        "r7 = r0;"
        "r7 &= 4;"
        "r1 = r6;"
        "call %[bpf_cast_to_kern_ctx];"
        "r0 += r7;"
        "r0 = *(u32 *)(r0 + 112);"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
        imm(bpf_get_prandom_u32),
    )
}

// xdp: the kernel ctx is struct xdp_buff, whose data is a void pointer:
// untrusted read-only memory of size 0.
#[sec("xdp")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(2)]
#[msg("1: (79) r1 = *(u64 *)(r0 +0)          ; R0=trusted_ptr_xdp_buff() R1=rdonly_untrusted_mem(sz=0)")]
pub fn kern_ctx_xdp_data_void_ptr() {
    bpf_asm!(
        "call %[bpf_cast_to_kern_ctx];"
        "r1 = *(u64 *)(r0 + 0);"
        "r0 = 2;"
        "exit;",
        imm(bpf_cast_to_kern_ctx),
    )
}

// bpf_task_from_pid() is in generic_btf_ids, which 7.3 registers for
// tracing, tc, xdp, struct_ops, syscall and cgroup programs only.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("calling kernel function bpf_task_from_pid is not allowed")]
pub fn task_from_pid_not_in_socket_filter() {
    bpf_asm!(
        "r1 = 1;"
        "call %[bpf_task_from_pid];"
        "r0 = 0;"
        "exit;",
        imm(bpf_task_from_pid),
    )
}

// A task reference taken by bpf_task_from_pid() must be released (KF_RET_NULL
// takes id 1 for R0, the reference is id 2).
#[sec("syscall")]
#[kernel("7.3")]
#[failure]
#[msg("Unreleased reference id=2 alloc_insn=1")]
pub fn task_from_pid_leaked() {
    bpf_asm!(
        "r1 = 1;"
        "call %[bpf_task_from_pid];"
        "r0 = 0;"
        "exit;",
        imm(bpf_task_from_pid),
    )
}

// The threads of the current task walked by the task iterator made inside
// an RCU read-side section: the task argument is `__nullable` (here a
// trusted task), and bpf_iter_task_next() hands out RCU pointers
// (`rcu_ptr_task_struct`). Leaving the section makes the iterator untrusted:
// the next call is refused. BPF_TASK_ITER_PROC_THREADS is 2.
#[sec("syscall")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("5: (bf) r2 = r6                       ; R2=trusted_ptr_task_struct() R6=trusted_ptr_task_struct()")]
#[msg("from 10 to 11: R0=rcu_ptr_task_struct(id=2) R10=fp0 fp-24=iter_task(id=1,state=active,depth=1) refs=1")]
#[msg("16: (85) call bpf_iter_task_next#{{[0-9]+}}")]
#[msg("expected an RCU CS when using bpf_iter_task_next")]
pub fn iter_task_next_after_rcu_unlock() {
    bpf_asm!(
        "call %[bpf_get_current_task_btf];"
        "r6 = r0;"
        "call %[bpf_rcu_read_lock];"
        "r1 = r10;"
        "r1 += -24;"
        "r2 = r6;"
        "r3 = 2;"
        "call %[bpf_iter_task_new];"
        "r1 = r10;"
        "r1 += -24;"
        "call %[bpf_iter_task_next];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "call %[bpf_rcu_read_unlock];"
        "r1 = r10;"
        "r1 += -24;"
        "call %[bpf_iter_task_next];"
        "call %[bpf_rcu_read_lock];"
    "1:"
        "r1 = r10;"
        "r1 += -24;"
        "call %[bpf_iter_task_destroy];"
        "call %[bpf_rcu_read_unlock];"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_current_task_btf),
        imm(bpf_rcu_read_lock),
        imm(bpf_rcu_read_unlock),
        imm(bpf_iter_task_new),
        imm(bpf_iter_task_next),
        imm(bpf_iter_task_destroy),
    )
}

// bpf_iter_task_new() is KF_RCU_PROTECTED: a sleepable program must call it
// inside bpf_rcu_read_lock() (a NULL task walks every process).
#[sec("syscall")]
#[kernel("7.3")]
#[failure]
#[msg("kernel func bpf_iter_task_new requires RCU critical section protection")]
#[msg("Verification failed: Execution Context Safety: Required context is not active")]
pub fn iter_task_new_outside_rcu() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -24;"
        "r2 = 0;"
        "r3 = 0;"
        "call %[bpf_iter_task_new];"
        "r1 = r10;"
        "r1 += -24;"
        "call %[bpf_iter_task_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_task_new),
        imm(bpf_iter_task_destroy),
    )
}

// The css task iterator is refused in a program that is neither LSM, an
// iterator nor sleepable (check_css_task_iter_allowlist), before its css
// argument is looked at.
#[sec("raw_tp")]
#[kernel("7.3")]
#[failure]
#[msg("css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs")]
pub fn iter_css_task_in_raw_tp() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "r2 = 0;"
        "r3 = 0;"
        "call %[bpf_iter_css_task_new];"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_css_task_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_css_task_new),
        imm(bpf_iter_css_task_destroy),
    )
}

// The kmem_cache iterator's kfuncs are KF_SLEEPABLE: a raw tracepoint
// program cannot make one.
#[sec("raw_tp")]
#[kernel("7.3")]
#[failure]
#[msg("program must be sleepable to call sleepable kfunc bpf_iter_kmem_cache_new")]
#[msg("Verification failed: Execution Context Safety: Operation is not allowed in this context")]
pub fn iter_kmem_cache_not_sleepable() {
    bpf_asm!(
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_kmem_cache_new];"
    "1:"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_kmem_cache_next];"
        "if r0 != 0 goto 1b;"
        "r1 = r10;"
        "r1 += -8;"
        "call %[bpf_iter_kmem_cache_destroy];"
        "r0 = 0;"
        "exit;",
        imm(bpf_iter_kmem_cache_new),
        imm(bpf_iter_kmem_cache_next),
        imm(bpf_iter_kmem_cache_destroy),
    )
}
