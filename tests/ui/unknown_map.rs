use bpf_selftest::prelude::*;

#[map]
static known: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

#[sec("socket")]
fn missing_map() {
    bpf_asm!("r1 = %[no_such_map] ll; r0 = 0; exit;", imm_addr(no_such_map))
}

fn main() {}
