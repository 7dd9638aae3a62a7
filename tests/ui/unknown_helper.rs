use bpf_selftest::prelude::*;

#[subprog]
fn callee() {
    bpf_asm!("r0 = 0; exit;")
}

// a misspelled helper is neither a helper, a 7.3 kfunc nor an item here
#[sec("socket")]
fn misspelled_helper() {
    bpf_asm!("call %[bpf_get_smp_processor_idd]; exit;", imm(bpf_get_smp_processor_idd))
}

// the same, called by name in the asm
#[sec("socket")]
fn misspelled_kfunc() {
    bpf_asm!("call bpf_rcu_read_lok; r0 = 0; exit;")
}

// a name close to nothing known
#[sec("socket")]
fn unknown_name() {
    bpf_asm!("call %[frobnicate]; exit;", imm(frobnicate))
}

// real helpers, kfuncs and subprograms compile
#[sec("socket")]
fn known_names() {
    bpf_asm!(
        "call %[bpf_get_smp_processor_id]; call bpf_rcu_read_lock; call bpf_rcu_read_unlock; call %[callee]; exit;",
        imm(bpf_get_smp_processor_id),
        imm(callee)
    )
}

fn main() {}
