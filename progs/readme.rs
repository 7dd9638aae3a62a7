//! The README's example, kept here so that it compiles and its expectations
//! stay true against the recorded 7.3 outcomes.

use bpf_selftest::prelude::*;

/// One array slot of 8 bytes (`SEC(".maps")` in a kernel selftest).
#[map]
static counters: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

/// A hash map: a lookup may find nothing.
#[map]
static seen: Map = Map::new(BPF_MAP_TYPE_HASH, 4, 8, 16);

/// A static subprogram: returns its argument doubled.
#[subprog]
fn double() {
    bpf_asm!("r0 = r1; r0 <<= 1; exit;")
}

/// Look a value up, check for NULL, call a subprogram: accepted, and the
/// test run returns 42.
#[sec("socket")]
#[description("readme: lookup, null check, subprogram call")]
#[success]
#[retval(42)]
fn lookup_and_double() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[counters] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto l_out_%=;"
        "r1 = 21;"
        "call double;"
        "exit;"
    "l_out_%=:"
        "r0 = 0;"
        "exit;",
        imm_addr(counters),
        imm(bpf_map_lookup_elem),
    )
}

/// A hash lookup without the NULL check: the verifier refuses the load.
/// (An array lookup with a constant in-range key needs no check: 7.3 knows
/// it cannot fail.)
#[sec("socket")]
#[description("readme: dereference without a null check")]
#[failure]
#[msg("7: (79) r0 = *(u64 *)(r0 +0)")]
#[msg("R0 invalid mem access 'map_value_or_null'")]
fn lookup_without_null_check() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[seen] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(seen),
        imm(bpf_map_lookup_elem),
    )
}
