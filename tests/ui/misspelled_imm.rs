use bpf_selftest::prelude::*;

// the asm is right, the operand list is not: the operand is the one named
#[sec("socket")]
fn typo_in_imm() {
    bpf_asm!("call %[bpf_get_smp_processor_id]; exit;", imm(bpf_get_smp_processor_idd))
}

fn main() {}
