// Arenas (syscall programs): BPF_PROBE_MEM32 / BPF_PROBE_ATOMIC accesses
// at kern_vm_start + (u32)ptr + off, and what the JIT's exception table
// does when no page is there (ex_handler_bpf: the register the insn loads
// into is zeroed, the insn skipped), in the guards and across a page end.

@@ arena_store_load
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r2 = 0;
r3 = 1;
r4 = -1;
r5 = 0;
call bpf_arena_alloc_pages;
r0 = addr_space_cast(r0, 0x0, 0x1);
r1 = 0x1234;
*(u64 *)(r0 + 8) = r1;
*(u8 *)(r0 + 17) = 0x56;
r1 = *(u64 *)(r0 + 8);
r0 = *(u8 *)(r0 + 17);
r0 += r1;
exit;

@@ arena_fault_load_zeroes_dst
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x3000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r0 = 77;
*(u64 *)(r6 + 0) = r0;
r0 = *(u64 *)(r6 + 0);
r0 += 5;
exit;

@@ arena_fault_fetch_add_zeroes_src
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x2000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r1 = 9;
r1 = atomic_fetch_add((u64 *)(r6 + 0), r1);
r0 = r1;
r0 += 100;
exit;

@@ arena_fault_add_keeps_src
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x2000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r1 = 9;
lock *(u64 *)(r6 + 0) += r1;
r0 = r1;
r0 += 100;
exit;

@@ arena_fault_xchg_zeroes_src
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x2000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r1 = 9;
r1 = xchg_64(r6 + 0, r1);
r0 = r1;
r0 += 200;
exit;

@@ arena_fault_cmpxchg_zeroes_r0
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x2000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r0 = 3;
r1 = 9;
r0 = cmpxchg_64(r6 + 0, r0, r1);
r0 += 300;
exit;

@@ arena_fault_fetch_add32_zeroes_src
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r6 = 0x2000;
r6 = addr_space_cast(r6, 0x0, 0x1);
r1 = -1;
w1 = atomic_fetch_add((u32 *)(r6 + 0), w1);
r0 = r1;
r0 += 400;
exit;

@@ arena_atomics_on_a_page
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r2 = 0;
r3 = 1;
r4 = -1;
r5 = 0;
call bpf_arena_alloc_pages;
r6 = addr_space_cast(r0, 0x0, 0x1);
r1 = 5;
*(u64 *)(r6 + 0) = r1;
r1 = 3;
r1 = atomic_fetch_add((u64 *)(r6 + 0), r1);
r2 = 0x10;
lock *(u64 *)(r6 + 0) |= r2;
r0 = 0x18;
r3 = 1;
r0 = cmpxchg_64(r6 + 0, r0, r3);
r7 = *(u64 *)(r6 + 0);
r7 <<= 8;
r7 |= r1;
r7 <<= 8;
r7 |= r0;
r0 = r7;
exit;

@@ arena_guards
@type syscall
@map arena:arena:0:0:4:0x400
r1 = arena ll;
r2 = 0;
r3 = 1;
r4 = -1;
r5 = 0;
call bpf_arena_alloc_pages;
r6 = addr_space_cast(r0, 0x0, 0x1);
r1 = -1;
*(u64 *)(r6 + 0) = r1;
*(u64 *)(r6 + 4088) = r1;
r7 = 0xfffffff8;
r7 = addr_space_cast(r7, 0x0, 0x1);
*(u64 *)(r7 + 16) = r1;
r0 = *(u64 *)(r7 + 16);
r2 = *(u64 *)(r6 - 8);
r0 += r2;
r2 = *(u32 *)(r6 + 4092);
r0 += r2;
r2 = *(u64 *)(r6 + 4092);
r0 += r2;
exit;
