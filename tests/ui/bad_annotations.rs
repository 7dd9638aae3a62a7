use bpf_selftest::prelude::*;

#[sec("socket")]
#[flag(BPF_F_NO_SUCH_FLAG)]
#[retval(-0x10)]
#[arch(sparc64)]
#[caps_unpriv(CAP_BPF | CAP_NOPE)]
#[msg("R0={{[0-9]+")]
fn misuse() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[retval(1 << 3)]
#[retval(0X10)]
#[success(1)]
#[kernel("7")]
#[log_level("2")]
fn more_misuse() {
    bpf_asm!("r0 = 0; exit;")
}

#[map]
static mut MUTABLE: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

#[global(stack)]
static COUNTER: u64 = 0;

#[success]
fn no_sec() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
fn unknown_operand() {
    bpf_asm!("call %[bpf_nope]; exit;", imm(bpf_get_prandom_u32))
}

fn main() {}
