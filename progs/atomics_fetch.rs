//! Atomics with fetch on map values and the stack: the old value they
//! return (unknown for map values, the spilled constant for stack slots;
//! pinned by test runs), 32-bit forms and their zero extension, a
//! constant-key lookup needing no NULL check, a variable offset into a map
//! value, and the read-only map refusal.

use bpf_selftest::prelude::*;

#[map]
static cnt: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
#[map]
static ro: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1).flags(BPF_F_RDONLY_PROG);

// fetch_add twice on a map value: returns the first old value plus ten
// times the second (0 + 10 * 5).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(50)]
#[log_level(2)]
#[msg("9: (db) r1 = atomic64_fetch_add((u64 *)(r0 +0), r1)   ; R0=map_value(map=cnt,ks=4,vs=8) R1=scalar()")]
#[msg("11: (db) r2 = atomic64_fetch_add((u64 *)(r0 +0), r2)          ; R0=map_value(map=cnt,ks=4,vs=8) R2=scalar()")]
#[arch(x86_64)]
#[jited("\tlock")]
#[jited("\txaddq\t%rdi, (%rax)")]
#[arch(arm64)]
#[jited("\tldaddal\tx0, x0, [x8]")]
pub fn map_fetch_add_twice() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[cnt] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = 5;"
        "r1 = atomic_fetch_add((u64 *)(r0 + 0), r1);"
        "r2 = 5;"
        "r2 = atomic_fetch_add((u64 *)(r0 + 0), r2);"
        "r2 *= 10;"
        "r0 = r1;"
        "r0 += r2;"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(cnt),
        imm(bpf_map_lookup_elem),
    )
}

// cmpxchg on a map value: 0 -> 9 succeeds, the value is then 9.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(9)]
#[log_level(2)]
#[msg("11: (db) r0 = atomic64_cmpxchg((u64 *)(r6 +0), r0, r1)        ; R0=scalar() R1=9 R6=map_value(map=cnt,ks=4,vs=8)")]
pub fn map_cmpxchg() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[cnt] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "r0 = 0;"
        "r1 = 9;"
        "r0 = cmpxchg_64(r6 + 0, r0, r1);"
        "r0 = *(u64 *)(r6 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(cnt),
        imm(bpf_map_lookup_elem),
    )
}

// A 32-bit xchg on the stack: the old value comes back zero-extended.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(1)]
#[log_level(2)]
#[msg("3: (c3) r1 = atomic_xchg((u32 *)(r10 -8), r1)         ; R1=0xffffffff R10=fp0 fp-8=mmmmmmmm")]
#[msg("4: (77) r1 >>= 32                     ; R1=0")]
#[arch(x86_64)]
#[jited("\txchgl\t%edi, -0x8(%rbp)")]
#[arch(arm64)]
#[jited("\tswpal\tw0, w0, [x10]")]
pub fn stack_xchg32_zext() {
    bpf_asm!(
        "r1 = -1;"
        "*(u64 *)(r10 - 8) = r1;"
        "w1 = 3;"
        "w1 = xchg32_32(r10 - 8, w1);"
        "r1 >>= 32;"
        "r0 = 1;"
        "if r1 == 0 goto 1f;"
        "r0 = 2;"
    "1:"
        "exit;"
    )
}

// fetch_or on the stack: the fetched value is the spilled constant (the
// verifier reads it from the slot), and the slot becomes misc bytes.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(6)]
#[log_level(2)]
#[msg("3: (db) r1 = atomic64_fetch_or((u64 *)(r10 -8), r1)   ; R1=6 R10=fp0 fp-8=mmmmmmmm")]
pub fn stack_fetch_or_unknown_old() {
    bpf_asm!(
        "r1 = 6;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 1;"
        "r1 = atomic_fetch_or((u64 *)(r10 - 8), r1);"
        "r0 = r1;"
        "exit;"
    )
}

// fetch_and then read back: 0xff & 0x0f.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(15)]
#[log_level(2)]
#[msg("3: (db) r1 = atomic64_fetch_and((u64 *)(r10 -8), r1)          ; R1=255 R10=fp0 fp-8=mmmmmmmm")]
#[msg("4: (79) r0 = *(u64 *)(r10 -8)         ; R0=scalar() R10=fp0 fp-8=mmmmmmmm")]
pub fn stack_fetch_and_read_back() {
    bpf_asm!(
        "r1 = 0xff;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 0xf;"
        "r1 = atomic_fetch_and((u64 *)(r10 - 8), r1);"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// An atomic on an unchecked lookup result: the array lookup of the
// constant in-range key 0 cannot return NULL, so it is allowed.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[msg("6: (85) call bpf_map_lookup_elem#1    ; R0=map_value(map=cnt,ks=4,vs=8)")]
#[msg("8: (db) lock *(u64 *)(r0 +0) += r1    ; R0=map_value(map=cnt,ks=4,vs=8) R1=1")]
pub fn atomic_on_const_key_value() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[cnt] ll;"
        "call %[bpf_map_lookup_elem];"
        "r1 = 1;"
        "lock *(u64 *)(r0 + 0) += r1;"
        "r0 = 0;"
        "exit;",
        imm_addr(cnt),
        imm(bpf_map_lookup_elem),
    )
}

// An atomic on a read-only map's value.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("9: (db) lock *(u64 *)(r0 +0) += r1")]
#[msg("write into map forbidden, value_size=8 off=0 size=8")]
pub fn atomic_on_rdonly_map() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[ro] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r1 = 1;"
        "lock *(u64 *)(r0 + 0) += r1;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(ro),
        imm(bpf_map_lookup_elem),
    )
}

// An atomic on a map value at a variable (bounded) offset.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg("13: (c3) lock *(u32 *)(r6 +0) += r1   ;")]
pub fn atomic_map_value_var_off() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[cnt] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r6 = r0;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 4;"
        "r6 += r0;"
        "w1 = 1;"
        "lock *(u32 *)(r6 + 0) += w1;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(cnt),
        imm(bpf_map_lookup_elem),
        imm(bpf_get_prandom_u32),
    )
}

// An atomic on the stack at a variable offset: 7.3 checks the atomic's
// stack operand like a helper memory argument and refuses a variable offset.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("variable offset stack pointer cannot be passed into helper function; var_off=(0xfffffffffffffff0; 0x8) off=0 size=8")]
#[msg("Verification failed: Memory Safety: Variable stack access")]
pub fn atomic_stack_var_off() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 8;"
        "r1 = r10;"
        "r1 += -16;"
        "r1 += r0;"
        "r2 = 1;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "r0 = 0;"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}
