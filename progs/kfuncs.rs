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
