//! Maps and helpers: lookups per map type and the inlined code 7.3 emits
//! for them, NULL checks, map value bounds, update/delete return values,
//! read-only maps, ring buffer references, map-in-map, and the errors for
//! bad helper arguments.

use bpf_selftest::prelude::*;

#[map]
static arr8: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 2);
#[map]
static arr16: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 16, 1);
#[map]
static hash8: Map = Map::new(BPF_MAP_TYPE_HASH, 8, 8, 1);
#[map]
static pcpu: Map = Map::new(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 1);
#[map]
static lru: Map = Map::new(BPF_MAP_TYPE_LRU_HASH, 8, 8, 16);
#[map]
static rdonly: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1).flags(BPF_F_RDONLY_PROG);
#[map]
static rb: Map = Map::new(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096);
static INNER: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
#[map]
static outer: Map = Map::new(BPF_MAP_TYPE_ARRAY_OF_MAPS, 4, 4, 1).inner(&INNER);

// Array lookup of key 0, NULL-checked: the value is zeroed (retval 0).
// The lookup is inlined: bounds check of the key, then base + key * 8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[xlated("...")]
#[xlated("4: r1 = {{.*}}")]
#[xlated("6: r1 += 296")]
#[xlated("7: r0 = *(u32 *)(r2 +0)")]
#[xlated("8: if r0 >= 0x2 goto pc+3")]
#[xlated("9: r0 <<= 3")]
#[xlated("10: r0 += r1")]
#[xlated("11: goto pc+1")]
#[xlated("12: r0 = 0")]
// the constant key made the result non-NULL: the program's check is gone
#[xlated("13: r0 = *(u64 *)(r0 +0)")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn array_lookup_inlined() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}

// A constant in-range key into an array cannot miss: 7.3 types the
// result as a plain map value, so no NULL check is needed (and the
// inlined lookup's miss path is never taken).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value(map=arr8,ks=4,vs=8)")]
#[msg("7: (79) r0 = *(u64 *)(r0 +0)          ; R0=scalar()")]
pub fn array_lookup_const_key_not_null() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}

// A hash lookup may miss: its result must be NULL-checked.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=hash8,ks=8,vs=8)")]
#[msg("R0 invalid mem access 'map_value_or_null'")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
pub fn hash_lookup_unchecked() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = r10;"
        "r2 += -8;"
        "r1 = %[hash8] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_lookup_elem),
    )
}

// An array key the verifier does not know may be out of range: NULL
// check needed.
#[sec("socket")]
#[failure]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=arr8,ks=4,vs=8)")]
#[msg("R0 invalid mem access 'map_value_or_null'")]
pub fn array_lookup_unknown_key_unchecked() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "*(u32 *)(r10 - 4) = r0;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(arr8),
        imm(bpf_get_prandom_u32),
        imm(bpf_map_lookup_elem),
    )
}

// A key past max_entries: the inlined bounds check returns NULL.
#[sec("socket")]
#[success]
#[retval(1)]
#[xlated("...")]
#[xlated("8: if r0 >= 0x2 goto pc+3")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn array_lookup_key_out_of_range() {
    bpf_asm!(
        "r1 = 5;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}

// Reading the 8 bytes after an 8-byte value.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("invalid access to map value, value_size=8 off=8 size=8")]
#[msg("R0 min value is outside of the allowed memory range")]
#[msg("Verification failed: Memory Safety: Access outside bounds")]
pub fn value_read_past_end() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 8);"
    "1:"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}

// A value pointer with a bounded variable offset [0, 8] in a 16-byte
// value: an 8-byte read fits either way.
#[sec("socket")]
#[success]
#[log_level(2)]
#[msg(
    "12: R0=map_value(map=arr16,ks=4,vs=16,smin=smin32=0,smax=umax=smax32=umax32=8,var_off=(0x0; 0x8))"
)]
// 16-byte values: the inlined lookup scales the key by << 4
#[xlated("...")]
#[xlated("11: if r0 >= 0x1 goto pc+3")]
#[xlated("12: r0 <<= 4")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn value_var_off_bounded() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r6 = r0;"
        "r6 &= 8;"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr16] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 += r6;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(arr16),
        imm(bpf_get_prandom_u32),
        imm(bpf_map_lookup_elem),
    )
}

// An unbounded variable offset.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("math between map_value pointer and register with unbounded min value is not allowed")]
#[msg("Verification failed: Register Type Safety: Pointer offset is not safe")]
pub fn value_var_off_unbounded() {
    bpf_asm!(
        "call %[bpf_get_prandom_u32];"
        "r6 = r0;"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr16] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 += r6;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(arr16),
        imm(bpf_get_prandom_u32),
        imm(bpf_map_lookup_elem),
    )
}

// A constant offset inside the value: the upper 4 bytes of a 16-byte
// value's second half.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("8: (07) r0 += 12                      ; R0=map_value(map=arr16,ks=4,vs=16,imm=12)")]
pub fn value_const_offset() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr16] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 += 12;"
        "r0 = *(u32 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(arr16),
        imm(bpf_map_lookup_elem),
    )
}

// Update key 1 with 42, look it up again: 42.
#[sec("socket")]
#[success]
#[retval(42)]
#[xlated("...")]
#[xlated("11: call unknown")]
pub fn array_update_then_lookup() {
    bpf_asm!(
        "r1 = 1;"
        "*(u32 *)(r10 - 4) = r1;"
        "r1 = 42;"
        "*(u64 *)(r10 - 16) = r1;"
        "r1 = %[arr8] ll;"
        "r2 = r10;"
        "r2 += -4;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "r1 = %[arr8] ll;"
        "r2 = r10;"
        "r2 += -4;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_update_elem),
        imm(bpf_map_lookup_elem),
    )
}

// Updating an array key >= max_entries: -E2BIG.
#[sec("socket")]
#[success]
#[retval(-E2BIG)]
pub fn array_update_out_of_range() {
    bpf_asm!(
        "r1 = 2;"
        "*(u32 *)(r10 - 4) = r1;"
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "r1 = %[arr8] ll;"
        "r2 = r10;"
        "r2 += -4;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_update_elem),
    )
}

// BPF_NOEXIST on an array, whose elements always exist: -EEXIST.
#[sec("socket")]
#[success]
#[retval(-EEXIST)]
pub fn array_update_noexist() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "*(u64 *)(r10 - 16) = r1;"
        "r1 = %[arr8] ll;"
        "r2 = r10;"
        "r2 += -4;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 1;"
        "call %[bpf_map_update_elem];"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_update_elem),
    )
}

// Hash lookup of a missing key: NULL (retval 1). The lookup is inlined as
// a call of the hash's own lookup plus the step to the value.
#[sec("socket")]
#[success]
#[retval(1)]
// the inlined hash lookup: the map's own lookup, then the step over the
// element header to the value
#[xlated("...")]
#[xlated("4: r1 = {{.*}}")]
#[xlated("6: call unknown")]
#[xlated("7: if r0 == 0x0 goto pc+1")]
#[xlated("8: r0 += 56")]
#[xlated("9: if r0 == 0x0 goto pc+2")]
pub fn hash_lookup_miss() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = r10;"
        "r2 += -8;"
        "r1 = %[hash8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_lookup_elem),
    )
}

// Insert then find: 42.
#[sec("socket")]
#[success]
#[retval(42)]
pub fn hash_update_lookup() {
    bpf_asm!(
        "r1 = 7;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 42;"
        "*(u64 *)(r10 - 16) = r1;"
        "r1 = %[hash8] ll;"
        "r2 = r10;"
        "r2 += -8;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "r1 = %[hash8] ll;"
        "r2 = r10;"
        "r2 += -8;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
    "1:"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_update_elem),
        imm(bpf_map_lookup_elem),
    )
}

// A one-entry hash takes one key; the second insert is -E2BIG.
#[sec("socket")]
#[success]
#[retval(-E2BIG)]
pub fn hash_full_e2big() {
    bpf_asm!(
        "r1 = 1;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u64 *)(r10 - 16) = r1;"
        "r1 = %[hash8] ll;"
        "r2 = r10;"
        "r2 += -8;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "r1 = 2;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = %[hash8] ll;"
        "r2 = r10;"
        "r2 += -8;"
        "r3 = r10;"
        "r3 += -16;"
        "r4 = 0;"
        "call %[bpf_map_update_elem];"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_update_elem),
    )
}

// Deleting a missing key: -ENOENT.
#[sec("socket")]
#[success]
#[retval(-ENOENT)]
pub fn hash_delete_missing() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = %[hash8] ll;"
        "r2 = r10;"
        "r2 += -8;"
        "call %[bpf_map_delete_elem];"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_delete_elem),
    )
}

// Per-CPU array lookup: inlined with the per-CPU offset of this CPU.
#[sec("socket")]
#[success]
#[retval(0)]
#[xlated("...")]
#[xlated("8: if r0 >= 0x1 goto pc+5")]
#[xlated("9: r0 <<= 3")]
#[xlated("10: r0 += r1")]
#[xlated("11: r0 = *(u64 *)(r0 +0)")]
#[xlated("12: r0 = &(void __percpu *)(r0)")]
#[xlated("13: goto pc+1")]
#[xlated("14: r0 = 0")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn percpu_array_lookup() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[pcpu] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(pcpu),
        imm(bpf_map_lookup_elem),
    )
}

// LRU hash lookup: inlined, and a hit sets the element's reference bit.
#[sec("socket")]
#[success]
#[retval(1)]
// a hit sets the LRU node's ref byte unless already set
#[xlated("...")]
#[xlated("6: call unknown")]
#[xlated("7: if r0 == 0x0 goto pc+4")]
#[xlated("8: r1 = *(u8 *)(r0 +35)")]
#[xlated("9: if r1 != 0x0 goto pc+1")]
#[xlated("10: *(u8 *)(r0 +35) = 1")]
#[xlated("11: r0 += 56")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn lru_hash_lookup() {
    bpf_asm!(
        "r1 = 9;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = r10;"
        "r2 += -8;"
        "r1 = %[lru] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(lru),
        imm(bpf_map_lookup_elem),
    )
}

// Array of maps: the outer lookup gives an inner map pointer (here the
// slot is empty, so NULL: retval 1); both lookups are inlined.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(1)]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_ptr_or_null(id=1,ks=4,vs=8)")]
#[msg("11: (85) call bpf_map_lookup_elem#1   ; R0=map_value(ks=4,vs=8)")]
// the outer lookup loads the inner map pointer from the slot
#[xlated("...")]
#[xlated("8: if r0 >= 0x1 goto pc+5")]
#[xlated("9: r0 <<= 3")]
#[xlated("10: r0 += r1")]
#[xlated("11: r0 = *(u64 *)(r0 +0)")]
#[xlated("12: if r0 == 0x0 goto pc+1")]
#[xlated("13: goto pc+1")]
#[xlated("14: r0 = 0")]
#[xlated("15: if r0 == 0x0 goto pc+13")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn array_of_maps_lookup() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[outer] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = r0;"
        "r2 = r10;"
        "r2 += -4;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(outer),
        imm(bpf_map_lookup_elem),
    )
}

// A BPF_F_RDONLY_PROG map may be read but not written by the program.
#[sec("socket")]
#[failure]
#[msg("write into map forbidden, value_size=8 off=0 size=8")]
pub fn rdonly_map_write() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[rdonly] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = 1;"
        "*(u64 *)(r0 + 0) = r1;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(rdonly),
        imm(bpf_map_lookup_elem),
    )
}

// Reserve, NULL-check, write, submit: the reference is released.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("5: R0=ringbuf_mem_or_null(id=2,sz=8) refs=2")]
#[msg("5: (15) if r0 == 0x0 goto pc+5        ; R0=ringbuf_mem(id=2,sz=8) refs=2")]
#[msg("10: (85) call bpf_ringbuf_submit#132")]
#[msg("11: (b7) r0 = 0                       ; R0=0")]
pub fn ringbuf_reserve_submit() {
    bpf_asm!(
        "r1 = %[rb] ll;"
        "r2 = 8;"
        "r3 = 0;"
        "call %[bpf_ringbuf_reserve];"
        "if r0 == 0 goto 1f;"
        "r1 = 5;"
        "*(u64 *)(r0 + 0) = r1;"
        "r1 = r0;"
        "r2 = 0;"
        "call %[bpf_ringbuf_submit];"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(rb),
        imm(bpf_ringbuf_reserve),
        imm(bpf_ringbuf_submit),
    )
}

// A reservation neither submitted nor discarded leaks.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("Unreleased reference id=2 alloc_insn=4")]
#[msg("Verification failed: Resource Lifetime Safety: Unreleased resource")]
pub fn ringbuf_leak() {
    bpf_asm!(
        "r1 = %[rb] ll;"
        "r2 = 8;"
        "r3 = 0;"
        "call %[bpf_ringbuf_reserve];"
        "r0 = 0;"
        "exit;",
        imm_addr(rb),
        imm(bpf_ringbuf_reserve),
    )
}

// Submitting a reservation that may be NULL.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R1 type=ringbuf_mem_or_null expected=ringbuf_mem")]
#[msg("Verification failed: Call Type Safety: Invalid call argument")]
pub fn ringbuf_submit_unchecked() {
    bpf_asm!(
        "r1 = %[rb] ll;"
        "r2 = 8;"
        "r3 = 0;"
        "call %[bpf_ringbuf_reserve];"
        "r1 = r0;"
        "r2 = 0;"
        "call %[bpf_ringbuf_submit];"
        "r0 = 0;"
        "exit;",
        imm_addr(rb),
        imm(bpf_ringbuf_reserve),
        imm(bpf_ringbuf_submit),
    )
}

// Writing past the reserved size.
#[sec("socket")]
#[failure]
#[msg("invalid access to memory, mem_size=8 off=8 size=8")]
pub fn ringbuf_write_past_reservation() {
    bpf_asm!(
        "r1 = %[rb] ll;"
        "r2 = 8;"
        "r3 = 0;"
        "call %[bpf_ringbuf_reserve];"
        "if r0 == 0 goto 1f;"
        "r1 = 5;"
        "*(u64 *)(r0 + 8) = r1;"
        "r1 = r0;"
        "r2 = 0;"
        "call %[bpf_ringbuf_discard];"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(rb),
        imm(bpf_ringbuf_reserve),
        imm(bpf_ringbuf_discard),
    )
}

// No arithmetic on a map pointer.
#[sec("socket")]
#[failure]
#[msg("R1 pointer arithmetic on map_ptr prohibited")]
pub fn map_ptr_arith() {
    bpf_asm!(
        "r1 = %[arr8] ll;"
        "r1 += 8;"
        "r0 = 0;"
        "exit;",
        imm_addr(arr8),
    )
}

// The map argument must be a map pointer.
#[sec("socket")]
#[failure]
#[msg("R1 type=ctx expected=map_ptr")]
pub fn lookup_ctx_as_map() {
    bpf_asm!(
        "r2 = r10;"
        "r2 += -8;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm(bpf_map_lookup_elem),
    )
}

// An 8-byte key cannot start 4 bytes below the frame pointer.
#[sec("socket")]
#[failure]
#[msg("invalid read from stack R2 off=-4 size=8")]
pub fn key_past_frame() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[hash8] ll;"
        "call %[bpf_map_lookup_elem];"
        "r0 = 0;"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_lookup_elem),
    )
}

// A key on uninitialized stack: fine privileged, refused unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(1)]
#[msg_unpriv("invalid read from stack R2 off=-8 size=8")]
pub fn key_uninit_stack() {
    bpf_asm!(
        "r2 = r10;"
        "r2 += -8;"
        "r1 = %[hash8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_lookup_elem),
    )
}

// A copy of the lookup result shares its id: checking r0 makes r1
// non-NULL too (the key misses: retval 1).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(1)]
#[msg(
    "7: (bf) r1 = r0                       ; R0=map_value_or_null(id=1,map=hash8,ks=8,vs=8) R1=map_value_or_null(id=1,map=hash8,ks=8,vs=8)"
)]
#[msg("9: (79) r0 = *(u64 *)(r1 +0)          ; R0=scalar() R1=map_value(id=1,map=hash8,ks=8,vs=8)")]
pub fn null_check_through_copy() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = r10;"
        "r2 += -8;"
        "r1 = %[hash8] ll;"
        "call %[bpf_map_lookup_elem];"
        "r1 = r0;"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(hash8),
        imm(bpf_map_lookup_elem),
    )
}

// Storing a map value's address into the map: allowed privileged, a leak
// unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("R0 leaks addr into map")]
pub fn value_addr_into_map() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "*(u64 *)(r0 + 0) = r0;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}

// A helper the program type does not offer: XDP's adjust_head in a
// socket filter.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("program of this type cannot use helper bpf_xdp_adjust_head#44")]
#[msg("Verification failed: Policy: Operation is not allowed")]
pub fn helper_not_for_prog_type() {
    bpf_asm!(
        "r2 = 0;"
        "call %[bpf_xdp_adjust_head];"
        "r0 = 0;"
        "exit;",
        imm(bpf_xdp_adjust_head),
    )
}

// Unprivileged lookups work; the log shows the map address as 0.
#[sec("socket")]
#[success]
#[success_unpriv]
#[log_level(2)]
#[retval(0)]
// privileged: the constant key makes the value non-NULL
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value(map=arr8,ks=4,vs=8)")]
// unprivileged: the map address is hidden and the result may be NULL
#[msg_unpriv("4: (18) r1 = 0x0                      ; R1=map_ptr(map=arr8,ks=4,vs=8)")]
#[msg_unpriv(
    "6: (85) call bpf_map_lookup_elem#1    ; R0=map_value_or_null(id=1,map=arr8,ks=4,vs=8)"
)]
// Spectre v1 masking of the key in the inlined lookup (the x86_64 guest
// also gets a v4 barrier after the key's store, which shifts indices)
#[xlated_unpriv("...")]
#[xlated_unpriv("if r0 >= 0x2 goto pc+4")]
#[xlated_unpriv("w0 &= 1")]
#[xlated_unpriv("r0 <<= 3")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn lookup_unpriv() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[arr8] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;"
    "1:"
        "r0 = 1;"
        "exit;",
        imm_addr(arr8),
        imm(bpf_map_lookup_elem),
    )
}
