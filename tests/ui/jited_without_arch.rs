use bpf_selftest::prelude::*;

#[sec("socket")]
#[success]
#[jited("\tendbr64")]
#[arch(x86_64)]
fn jited_first() {
    bpf_asm!("r0 = 0; exit;")
}

fn main() {}
