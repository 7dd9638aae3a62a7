use bpf_selftest::prelude::*;

#[sec("socket")]
#[success]
#[arch(x86_64, arm64)]
#[xlated("0: w0 = 0")]
#[arch(riscv64, x86_64)]
#[xlated("0: w0 = 0")]
#[xlated("1: w0 = w0")]
fn two_blocks_for_x86_64() {
    bpf_asm!("w0 = 0; exit;")
}

fn main() {}
