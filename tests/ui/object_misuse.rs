use bpf_selftest::prelude::*;

#[sec("socket")]
#[object("bpf/prog.bpf.c")]
#[success]
fn object_with_a_body() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[object("a.bpf.o")]
#[object("b.bpf.o")]
fn two_objects() {}

#[sec("socket")]
#[object(prog)]
fn not_a_path() {}

#[sec("socket")]
#[object("")]
fn empty_path() {}

#[object("x.bpf.o")]
#[map]
static M: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

fn main() {}
