use bpf_selftest::prelude::*;

#[sec("socket")]
#[success]
fn bad_register() {
    bpf_asm!(
        "r0 = 0;"
        "r12 = r1;"
        "exit;"
    )
}

#[sec("socket")]
#[success]
fn bad_multiline() {
    bpf_asm!(
        "r0 = 0;
         if r0 > 1 goto l0_%=;
         r0 = *(u128 *)(r10 - 8);
         l0_%=: exit;"
    )
}

fn main() {}
