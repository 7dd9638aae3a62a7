//! Atomic memory operations (BPF_ATOMIC) on the stack and on map values:
//! results of every fetch variant, xchg and cmpxchg, load-acquire and
//! store-release, where atomics are refused, and the JIT's instructions
//! for them on x86_64 and arm64.

use bpf_selftest::prelude::*;

#[map]
static vals: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);

// lock add on a stack slot: 5 + 3.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(8)]
// an atomic on a spilled constant leaves misc bytes
#[msg("3: (db) lock *(u64 *)(r10 -8) += r1   ; R1=3 R10=fp0 fp-8=mmmmmmmm")]
#[xlated("3: lock *(u64 *)(r10 -8) += r1")]
pub fn add_stack() {
    bpf_asm!(
        "r1 = 5;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 3;"
        "lock *(u64 *)(r10 - 8) += r1;"
        "r0 = *(u64 *)(r10 - 8);"
        "exit;"
    )
}

// fetch_add returns the old value (5) in the source register.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(5)]
// the old value is tracked: R1=5
#[msg("3: (db) r1 = atomic64_fetch_add((u64 *)(r10 -8), r1)          ; R1=5 R10=fp0 fp-8=mmmmmmmm")]
pub fn fetch_add_returns_old() {
    bpf_asm!(
        "r1 = 5;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 3;"
        "r1 = atomic_fetch_add((u64 *)(r10 - 8), r1);"
        "r0 = r1;"
        "exit;"
    )
}

// 32-bit fetch_and: old 0xf0f, new 0xf0f & 0xff == 0xf; returns both
// folded: old + (new << 16).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0xf0f0f)]
// a 32-bit atomic reads only the low half of its source: w1 = 255 gets
// rnd_hi32's poisoned upper half
#[xlated("2: w1 = 255")]
#[xlated("3: r12 = {{.*}}")]
#[xlated("4: r12 <<= 32")]
#[xlated("5: r1 |= r12")]
#[xlated("6: r1 = atomic_fetch_and((u32 *)(r10 -8), r1)")]
pub fn fetch_and32() {
    bpf_asm!(
        "r1 = 0xf0f;"
        "*(u32 *)(r10 - 8) = r1;"
        "w1 = 0xff;"
        "w1 = atomic_fetch_and((u32 *)(r10 - 8), w1);"
        "r0 = *(u32 *)(r10 - 8);"
        "r0 <<= 16;"
        "r0 += r1;"
        "exit;"
    )
}

// fetch_or and fetch_xor in a row: 1 | 6 == 7, 7 ^ 2 == 5; returns the
// final value plus the second old value times 16 (5 + 0x70).
#[sec("socket")]
#[success]
#[retval(0x75)]
#[xlated("3: r1 = atomic64_fetch_or((u64 *)(r10 -8), r1)")]
#[xlated("4: r1 = 2")]
#[xlated("5: r1 = atomic64_fetch_xor((u64 *)(r10 -8), r1)")]
pub fn fetch_or_xor() {
    bpf_asm!(
        "r1 = 1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 6;"
        "r1 = atomic_fetch_or((u64 *)(r10 - 8), r1);"
        "r1 = 2;"
        "r1 = atomic_fetch_xor((u64 *)(r10 - 8), r1);"
        "r1 <<= 4;"
        "r0 = *(u64 *)(r10 - 8);"
        "r0 += r1;"
        "exit;"
    )
}

// xchg swaps: the register gets the old value (4), memory the new (9).
#[sec("socket")]
#[success]
#[retval(94)]
#[xlated("3: r1 = atomic64_xchg((u64 *)(r10 -8), r1)")]
pub fn xchg64() {
    bpf_asm!(
        "r1 = 4;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 9;"
        "r1 = xchg_64(r10 - 8, r1);"
        "r0 = *(u64 *)(r10 - 8);"
        "r0 *= 10;"
        "r0 += r1;"
        "exit;"
    )
}

// cmpxchg with a matching r0 stores; r0 gets the old value (3), memory 8.
#[sec("socket")]
#[success]
#[retval(83)]
#[xlated("4: r0 = atomic64_cmpxchg((u64 *)(r10 -8), r0, r1)")]
pub fn cmpxchg_hit() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = 3;"
        "r1 = 8;"
        "r0 = cmpxchg_64(r10 - 8, r0, r1);"
        "r1 = *(u64 *)(r10 - 8);"
        "r1 *= 10;"
        "r0 += r1;"
        "exit;"
    )
}

// With a different r0 nothing is stored; r0 still gets the old value.
#[sec("socket")]
#[success]
#[retval(33)]
#[xlated("4: r0 = atomic64_cmpxchg((u64 *)(r10 -8), r0, r1)")]
pub fn cmpxchg_miss() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = 4;"
        "r1 = 8;"
        "r0 = cmpxchg_64(r10 - 8, r0, r1);"
        "r1 = *(u64 *)(r10 - 8);"
        "r1 *= 10;"
        "r0 += r1;"
        "exit;"
    )
}

// A 32-bit cmpxchg zero-extends r0: the fixups add w0 = w0 after it.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0)]
#[log_level(2)]
#[msg(
    "4: (c3) r0 = atomic_cmpxchg((u32 *)(r10 -8), r0, r1)          ; R0=0xffffffff R1=1 R10=fp0 fp-8=mmmmmmmm"
)]
// r0 of a 32-bit cmpxchg is zero-extended explicitly, even on x86_64
#[xlated("7: r0 = atomic_cmpxchg((u32 *)(r10 -8), r0, r1)")]
#[xlated("8: w0 = w0")]
#[xlated("9: r0 >>= 32")]
pub fn cmpxchg32_zext() {
    bpf_asm!(
        "r1 = -1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = 0;"
        "w1 = 1;"
        "w0 = cmpxchg32_32(r10 - 8, w0, w1);"
        "r0 >>= 32;"
        "exit;"
    )
}

// Atomics on a map value.
#[sec("socket")]
#[success]
#[retval(2)]
#[xlated("...")]
#[xlated("14: lock *(u64 *)(r0 +0) += r1")]
#[arch(x86_64, arm64)] // riscv64 zero-extends 32-bit results: other xlated numbering
pub fn add_map_value() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[vals] ll;"
        "call %[bpf_map_lookup_elem];"
        "r1 = 2;"
        "lock *(u64 *)(r0 + 0) += r1;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(vals),
        imm(bpf_map_lookup_elem),
    )
}

// No atomics on the ctx.
#[sec("socket")]
#[failure]
#[msg("BPF_ATOMIC stores into R1 ctx is not allowed")]
pub fn atomic_on_ctx() {
    bpf_asm!(
        "r2 = 1;"
        "lock *(u32 *)(r1 + 48) += r2;"
        "r0 = 0;"
        "exit;"
    )
}

// ... nor on packet memory.
#[sec("tc")]
#[failure]
#[msg("BPF_ATOMIC stores into R2 pkt is not allowed")]
pub fn atomic_on_packet() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r4 = r2;"
        "r4 += 8;"
        "r0 = 0;"
        "if r4 > r3 goto 1f;"
        "r5 = 1;"
        "lock *(u64 *)(r2 + 0) += r5;"
    "1:"
        "exit;"
    )
}

// Atomics must be aligned to their size.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("misaligned stack access off 0+-12 size 8")]
pub fn atomic_misaligned() {
    bpf_asm!(
        "r1 = 0;"
        "*(u64 *)(r10 - 16) = r1;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 1;"
        "lock *(u64 *)(r10 - 12) += r1;"
        "r0 = 0;"
        "exit;"
    )
}

// An atomic on a never-written slot reads it: fine privileged, refused
// unprivileged.
#[sec("socket")]
#[success]
#[failure_unpriv]
#[retval(0)]
#[msg_unpriv("invalid read from stack R10 off=-8 size=8")]
pub fn atomic_uninit_slot() {
    bpf_asm!(
        "r1 = 1;"
        "lock *(u64 *)(r10 - 8) += r1;"
        "r0 = 0;"
        "exit;"
    )
}

// A fetch on a spilled ctx pointer hands the pointer back in the source
// register (R2=ctx()): allowed privileged, refused unprivileged.
#[sec("socket")]
#[success]
#[log_level(2)]
#[failure_unpriv]
#[retval(0)]
#[msg(
    "2: (db) r2 = atomic64_fetch_add((u64 *)(r10 -8), r2)          ; R2=ctx() R10=fp0 fp-8=mmmmmmmm"
)]
#[msg_unpriv("leaking pointer from stack off -8")]
pub fn fetch_add_on_spilled_ptr() {
    bpf_asm!(
        "*(u64 *)(r10 - 8) = r1;"
        "r2 = 1;"
        "r2 = atomic_fetch_add((u64 *)(r10 - 8), r2);"
        "r0 = 0;"
        "exit;"
    )
}

// load_acquire / store_release (cpu v4 atomics) on the stack.
#[sec("socket")]
#[success]
#[retval(6)]
#[xlated("1: store_release((u64 *)(r10 -8), r1)")]
#[xlated("2: r0 = load_acquire((u64 *)(r10 -8))")]
pub fn acquire_release() {
    bpf_asm!(
        "r1 = 6;"
        "store_release((u64 *)(r10 - 8), r1);"
        "r0 = load_acquire((u64 *)(r10 - 8));"
        "exit;"
    )
}

// The JIT's fetch_add: lock xadd on x86_64; on the arm64 guest's CPU an
// LSE ldaddal.
#[sec("socket")]
#[success]
#[retval(5)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x1, %edi")]
#[jited("\tlock")]
#[jited("\txaddq\t%rdi, -0x8(%rbp)")]
#[jited("\tmovq\t%rdi, %rax")]
#[arch(arm64)]
#[jited("\tmov\tx0, #0x1")]
#[jited("\tsub\tx10, x25, #0x8")]
#[jited("\tldaddal\tx0, x0, [x10]")]
#[jited("\tmov\tx8, x0")]
pub fn fetch_add_jited() {
    bpf_asm!(
        "r1 = 5;"
        "*(u64 *)(r10 - 8) = r1;"
        "r1 = 1;"
        "r1 = atomic_fetch_add((u64 *)(r10 - 8), r1);"
        "r0 = r1;"
        "exit;"
    )
}

// The JIT's cmpxchg.
#[sec("socket")]
#[success]
#[retval(3)]
#[arch(x86_64)]
#[jited("\tmovl\t$0x3, %eax")]
#[jited("\tmovl\t$0x8, %edi")]
#[jited("\tlock")]
#[jited("\tcmpxchgq\t%rdi, -0x8(%rbp)")]
#[arch(arm64)]
#[jited("\tmov\tx8, #0x3")]
#[jited("\tmov\tx0, #0x8")]
#[jited("\tsub\tx10, x25, #0x8")]
#[jited("\tcasal\tx8, x0, [x10]")]
pub fn cmpxchg_jited() {
    bpf_asm!(
        "r1 = 3;"
        "*(u64 *)(r10 - 8) = r1;"
        "r0 = 3;"
        "r1 = 8;"
        "r0 = cmpxchg_64(r10 - 8, r0, r1);"
        "exit;"
    )
}

// load_acquire / store_release as the JITs emit them (plain moves on
// x86_64, ldar/stlr on arm64).
#[sec("socket")]
#[success]
#[retval(6)]
#[arch(x86_64)]
// x86 is TSO: a plain store and load
#[jited("\tmovl\t$0x6, %edi")]
#[jited("\tmovq\t%rdi, -0x8(%rbp)")]
#[jited("\tmovq\t-0x8(%rbp), %rax")]
#[arch(arm64)]
#[jited("\tmov\tx0, #0x6")]
#[jited("\tsub\tx10, x25, #0x8")]
#[jited("\tstlr\tx0, [x10]")]
#[jited("\tsub\tx10, x25, #0x8")]
#[jited("\tldar\tx8, [x10]")]
pub fn acquire_release_jited() {
    bpf_asm!(
        "r1 = 6;"
        "store_release((u64 *)(r10 - 8), r1);"
        "r0 = load_acquire((u64 *)(r10 - 8));"
        "exit;"
    )
}
