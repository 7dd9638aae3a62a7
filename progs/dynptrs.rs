//! Dynptr kfuncs on dynptrs over a map value: bpf_dynptr_memset() and
//! bpf_dynptr_copy() with what they write, and their errors, read back by
//! test runs.

use bpf_selftest::prelude::*;

// The memory of the programs: bpf_dynptr_from_mem() takes map
// values (7.3 refuses the stack: "Unsupported reg type fp for
// bpf_dynptr_from_mem data").
#[map]
static dynptr_buf: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 16, 1);

// bpf_dynptr_memset() fills 4 bytes at offset 2 of a local dynptr over 8
// bytes of a map value; the filled half-word is read back.
#[sec("socket")]
#[success]
#[retval(43947)]
pub fn dynptr_memset_local() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[dynptr_buf] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "r1 = 0;"
        "*(u64 *)(r7 + 0) = r1;"
        "r1 = r7;"
        "r2 = 8;"
        "r3 = 0;"
        "r4 = r10;"
        "r4 += -24;"
        "call %[bpf_dynptr_from_mem];"
        "r1 = r10;"
        "r1 += -24;"
        "r2 = 2;"
        "r3 = 4;"
        "r4 = 0xab;"
        "call %[bpf_dynptr_memset];"
        "r6 = r0;"
        "r0 = *(u16 *)(r7 + 2);"
        "r0 += r6;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(dynptr_buf),
        imm(bpf_map_lookup_elem),
        imm(bpf_dynptr_from_mem),
        imm(bpf_dynptr_memset),
    )
}

// bpf_dynptr_memset() past the end of the dynptr: -E2BIG, nothing written.
#[sec("socket")]
#[success]
#[retval(-7)]
pub fn dynptr_memset_past_end() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[dynptr_buf] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "r1 = 0;"
        "*(u64 *)(r7 + 0) = r1;"
        "r1 = r7;"
        "r2 = 8;"
        "r3 = 0;"
        "r4 = r10;"
        "r4 += -24;"
        "call %[bpf_dynptr_from_mem];"
        "r1 = r10;"
        "r1 += -24;"
        "r2 = 6;"
        "r3 = 4;"
        "r4 = 0xab;"
        "call %[bpf_dynptr_memset];"
        "r1 = *(u64 *)(r7 + 0);"
        "r0 += r1;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(dynptr_buf),
        imm(bpf_map_lookup_elem),
        imm(bpf_dynptr_from_mem),
        imm(bpf_dynptr_memset),
    )
}

// bpf_dynptr_copy() of the upper half of one local dynptr's 8 bytes into
// the start of another's (both over one map value).
#[sec("socket")]
#[success]
#[retval(287454020)]
pub fn dynptr_copy_local() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[dynptr_buf] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "r1 = 0x1122334455667788 ll;"
        "*(u64 *)(r7 + 0) = r1;"
        "r1 = 0;"
        "*(u64 *)(r7 + 8) = r1;"
        "r1 = r7;"
        "r2 = 8;"
        "r3 = 0;"
        "r4 = r10;"
        "r4 += -24;"
        "call %[bpf_dynptr_from_mem];"
        "r1 = r7;"
        "r1 += 8;"
        "r2 = 8;"
        "r3 = 0;"
        "r4 = r10;"
        "r4 += -40;"
        "call %[bpf_dynptr_from_mem];"
        "r1 = r10;"
        "r1 += -40;"
        "r2 = 0;"
        "r3 = r10;"
        "r3 += -24;"
        "r4 = 4;"
        "r5 = 4;"
        "call %[bpf_dynptr_copy];"
        "r6 = r0;"
        "r0 = *(u32 *)(r7 + 8);"
        "r0 += r6;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(dynptr_buf),
        imm(bpf_map_lookup_elem),
        imm(bpf_dynptr_from_mem),
        imm(bpf_dynptr_copy),
    )
}
