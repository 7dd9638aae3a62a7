//! BPF arenas (BPF_MAP_TYPE_ARENA): pages shared by the program and user
//! space. `bpf_arena_alloc_pages` hands out user addresses, the program
//! turns them into arena pointers with `addr_space_cast`, and every access
//! through one becomes a fault-tolerant `BPF_PROBE_MEM32` access on
//! `kern_vm_start + (u32)ptr` (r12 on x86_64, x28 on arm64). The loaders
//! give the arena its user address in `map_extra` (0x7f0000000000).

use bpf_selftest::prelude::*;

#[map]
static arena: Map = Map::new(BPF_MAP_TYPE_ARENA, 0, 0, 4).flags(BPF_F_MMAPABLE);

// A store and a load through a fresh page: plain accesses in the dump,
// `(%rax,%r12)` / `x28`-based in the JIT.
#[sec("syscall")]
#[success]
#[log_level(2)]
#[retval(0x1234)]
#[msg("7: (bf) r0 = addr_space_cast(r0, 0, 1)        ; R0=arena")]
#[msg("9: (7b) *(u64 *)(r0 +8) = r1          ; R0=arena R1=4660")]
#[xlated("7: w0 = w0")]
#[xlated("8: r1 = 4660")]
#[xlated("9: *(u64 *)(r0 +8) = r1")]
#[xlated("10: r0 = *(u32 *)(r0 +8)")]
#[arch(x86_64)]
#[jited("\tmovl\t%eax, %eax")]
#[jited("\tmovl\t$0x1234, %edi")]
#[jited("\tmovq\t%rdi, 0x8(%rax,%r12)")]
#[jited("\tmovl\t0x8(%rax,%r12), %eax")]
#[arch(arm64)]
#[jited("\tmov\tw8, w8")]
#[jited("\tmov\tx0, #0x1234")]
#[jited("\tadd\tx11, x8, x28")]
#[jited("\tstr\tx0, [x11, #0x8]")]
#[jited("\tadd\tx11, x8, x28")]
#[jited("\tldr\tw8, [x11, #0x8]")]
pub fn alloc_store_load() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r1 = 0x1234;"
        "*(u64 *)(r0 + 8) = r1;"
        "r0 = *(u32 *)(r0 + 8);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// Stores of immediates of every size, read back as one u64.
#[sec("syscall")]
#[arch(x86_64, arm64)]
#[success]
#[retval(0x44332211)]
pub fn store_imm_sizes() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "*(u8 *)(r0 + 0) = 0x11;"
        "*(u8 *)(r0 + 1) = 0x22;"
        "*(u16 *)(r0 + 2) = 0x4433;"
        "*(u32 *)(r0 + 4) = 0x55;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// Arithmetic on an arena pointer: the verifier lets it through and marks
// the 64-bit add for zero extension, which the fixups turn into `w0 += 16`.
#[sec("syscall")]
#[arch(x86_64, arm64)]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("8: (07) r0 += 16                      ; R0=arena")]
#[xlated("8: w0 += 16")]
#[xlated("9: r1 = 7")]
pub fn pointer_arithmetic() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r0 += 16;"
        "r1 = 7;"
        "*(u32 *)(r0 + 0) = r1;"
        "r0 = *(u32 *)(r0 + 0);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// No page behind the pointer: the store is skipped and the load gives 0
// (the JITs' exception table), the program goes on.
#[sec("syscall")]
#[arch(x86_64, arm64)]
#[success]
#[retval(0)]
pub fn fault_loads_zero() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r0 = 0x1000;"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r1 = 5;"
        "*(u64 *)(r0 + 0) = r1;"
        "r0 = *(u32 *)(r0 + 0);"
        "exit;",
        imm_addr(arena),
    )
}

// Sign-extending loads (BPF_PROBE_MEM32SX): 0xfffe read as s16 is -2.
#[sec("syscall")]
#[success]
#[retval(-2)]
#[arch(x86_64)]
#[jited("\tmovw\t%di, 0x2(%rax,%r12)")]
#[jited("\tmovswq\t0x2(%rax,%r12), %rax")]
#[arch(arm64)]
#[jited("\tadd\tx11, x8, x28")]
#[jited("\tstrh\tw0, [x11, #0x2]")]
#[jited("\tadd\tx11, x8, x28")]
#[jited("\tldrsh\tx8, [x11, #0x2]")]
pub fn sign_extending_load() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r1 = 0xfffe;"
        "*(u16 *)(r0 + 2) = r1;"
        "r0 = *(s16 *)(r0 + 2);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// Back to a user address (`addr_space_cast(r, 0x1, 0x0)`): the arena's
// upper half joins the offset, inline in the JIT, but an offset of 0 stays
// NULL. The first page of an arena at a 4 GiB-aligned user address (the
// loaders' 0x7f0000000000) is offset 0: the cast gives 0, so does `>> 32`.
#[sec("syscall")]
#[success]
#[retval(0)]
#[arch(x86_64)]
#[jited("\tshlq\t$0x20, %rax")]
#[jited("\torq\t$0x7f00, %rax")]
#[jited("\trolq\t$0x20, %rax")]
#[jited("\txorq\t%r11, %r11")]
#[jited("\ttestl\t%eax, %eax")]
#[jited("\tcmoveq\t%r11, %rax")]
#[arch(arm64)]
#[jited("\tcbz\tw8, L0")]
#[jited("\tmovk\tx8, #0x7f00, lsl #32")]
pub fn cast_to_user() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r0 = addr_space_cast(r0, 0x1, 0x0);"
        "r0 >>= 32;"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// An atomic add on arena memory (BPF_PROBE_ATOMIC).
#[sec("syscall")]
#[success]
#[retval(8)]
#[arch(x86_64)]
#[jited("\tlock")]
#[jited("\taddq\t%rdi, (%rax,%r12)")]
#[arch(arm64)]
#[jited("\tadd\tx10, x8, x28")]
#[jited("\tstadd\tx0, [x10]")]
pub fn atomic_add() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "r1 = 5;"
        "*(u64 *)(r0 + 0) = r1;"
        "r1 = 3;"
        "lock *(u64 *)(r0 + 0) += r1;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// A 32-bit cmpxchg on arena memory whose old value is only stored 32 bits
// wide: the rewrite to BPF_PROBE_ATOMIC is in place, so the insn keeps
// what liveness gave it (no upper half read: no zero extension, and the
// RND_HI32 poison of a dead upper half).
#[sec("syscall")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[xlated("16: probe r0 = atomic_cmpxchg((u32 *)(r1 +0), r0, r2)")]
#[xlated("17: r12 = {{.*}}")]
#[xlated("18: r12 <<= 32")]
#[xlated("19: r0 |= r12")]
#[xlated("20: *(u32 *)(r1 +4) = r0")]
pub fn cmpxchg32_old_value_stored() {
    bpf_asm!(
        "r1 = %[arena] ll;"
        "r2 = 0;"
        "r3 = 1;"
        "r4 = -1;"
        "r5 = 0;"
        "call %[bpf_arena_alloc_pages];"
        "r1 = addr_space_cast(r0, 0x0, 0x1);"
        "w0 = 0;"
        "w2 = 7;"
        "w0 = cmpxchg32_32(r1 + 0, w0, w2);"
        "*(u32 *)(r1 + 4) = w0;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;",
        imm_addr(arena),
        imm(bpf_arena_alloc_pages),
    )
}

// A cast in a program without an arena is refused.
#[sec("syscall")]
#[arch(x86_64, arm64)]
#[failure]
#[msg("addr_space_cast insn can only be used in a program that has an associated arena")]
pub fn cast_without_arena() {
    bpf_asm!(
        "r0 = 0;"
        "r0 = addr_space_cast(r0, 0x0, 0x1);"
        "exit;"
    )
}
