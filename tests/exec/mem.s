// Loads, stores and atomics on the stack, every size; sign-extending
// loads; load-acquire and store-release.

@@ stack_store_load_sizes
r1 = 0x1122334455667788 ll;
*(u64 *)(r10 - 8) = r1;
r0 = *(u8 *)(r10 - 8);
r2 = *(u16 *)(r10 - 6);
r0 += r2;
r2 = *(u32 *)(r10 - 4);
r0 += r2;
exit;

@@ stack_st_imm_sign_extends
*(u64 *)(r10 - 8) = -1;
r0 = *(u32 *)(r10 - 4);
exit;

@@ stack_partial_overwrite
r1 = 0;
*(u64 *)(r10 - 8) = r1;
*(u8 *)(r10 - 7) = 0xab;
*(u16 *)(r10 - 4) = 0x1234;
r0 = *(u64 *)(r10 - 8);
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ ldsx_s8
*(u64 *)(r10 - 8) = 0x80;
r0 = *(s8 *)(r10 - 8);
r0 >>= 40;
exit;

@@ ldsx_s16
*(u64 *)(r10 - 8) = 0x8001;
r0 = *(s16 *)(r10 - 8);
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ ldsx_s32
*(u64 *)(r10 - 8) = -2;
r0 = *(s32 *)(r10 - 8);
r0 >>= 32;
exit;

@@ atomic_add64
*(u64 *)(r10 - 8) = 40;
r1 = 2;
lock *(u64 *)(r10 - 8) += r1;
r0 = *(u64 *)(r10 - 8);
exit;

@@ atomic_and_or_xor32
*(u64 *)(r10 - 8) = -1;
w1 = 0xff0f;
lock *(u32 *)(r10 - 8) &= w1;
w1 = 0x30;
lock *(u32 *)(r10 - 8) |= w1;
w1 = 0x1;
lock *(u32 *)(r10 - 8) ^= w1;
r0 = *(u64 *)(r10 - 8);
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ atomic_fetch_add_returns_old
*(u64 *)(r10 - 8) = 100;
r1 = 5;
r1 = atomic_fetch_add((u64 *)(r10 - 8), r1);
r0 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 += r1;
exit;

@@ atomic_fetch32_zero_extends
*(u64 *)(r10 - 8) = -1;
r1 = -1;
w1 = atomic_fetch_and((u32 *)(r10 - 8), w1);
r0 = r1;
r0 >>= 32;
r0 += r1;
exit;

@@ atomic_fetch_or_xor64
*(u64 *)(r10 - 8) = 0x0f;
r1 = 0xf0;
r1 = atomic_fetch_or((u64 *)(r10 - 8), r1);
r2 = 0xff;
r2 = atomic_fetch_xor((u64 *)(r10 - 8), r2);
r0 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 |= r1;
r0 <<= 8;
r0 |= r2;
exit;

@@ atomic_xchg64
*(u64 *)(r10 - 8) = 11;
r1 = 22;
r1 = xchg_64(r10 - 8, r1);
r0 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 += r1;
exit;

@@ atomic_xchg32
*(u64 *)(r10 - 8) = -1;
r1 = 0x1234;
w1 = xchg32_32(r10 - 8, w1);
r0 = *(u64 *)(r10 - 8);
r0 >>= 16;
r0 += r1;
exit;

@@ atomic_cmpxchg64_success
*(u64 *)(r10 - 8) = 5;
r0 = 5;
r1 = 9;
r0 = cmpxchg_64(r10 - 8, r0, r1);
r1 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 += r1;
exit;

@@ atomic_cmpxchg64_failure
*(u64 *)(r10 - 8) = 5;
r0 = 6;
r1 = 9;
r0 = cmpxchg_64(r10 - 8, r0, r1);
r1 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 += r1;
exit;

@@ atomic_cmpxchg32_compares_low_half
*(u64 *)(r10 - 8) = 7;
r0 = 0x100000007 ll;
r1 = 3;
w0 = cmpxchg32_32(r10 - 8, w0, w1);
r1 = *(u64 *)(r10 - 8);
r0 <<= 8;
r0 += r1;
exit;

@@ load_acquire_sizes
r1 = 0x8899aabbccddeeff ll;
*(u64 *)(r10 - 8) = r1;
r0 = load_acquire((u8 *)(r10 - 8));
r2 = load_acquire((u16 *)(r10 - 8));
r0 += r2;
r2 = load_acquire((u32 *)(r10 - 8));
r0 += r2;
r2 = load_acquire((u64 *)(r10 - 8));
r2 >>= 32;
r0 += r2;
exit;

@@ store_release_sizes
*(u64 *)(r10 - 8) = 0;
r1 = 0x11223344aabbccdd ll;
store_release((u8 *)(r10 - 8), r1);
store_release((u16 *)(r10 - 6), r1);
store_release((u32 *)(r10 - 4), r1);
r0 = *(u64 *)(r10 - 8);
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ store_release_u64
r1 = 0x123456789 ll;
store_release((u64 *)(r10 - 8), r1);
r0 = *(u64 *)(r10 - 8);
r0 >>= 4;
exit;

@@ pointer_spill_fill
r1 = r10;
r1 += -16;
*(u64 *)(r10 - 8) = r1;
*(u64 *)(r10 - 16) = 77;
r2 = *(u64 *)(r10 - 8);
r0 = *(u64 *)(r2 + 0);
exit;

@@ stack_512_bytes
r1 = 3;
*(u64 *)(r10 - 512) = r1;
*(u64 *)(r10 - 256) = 4;
r0 = *(u64 *)(r10 - 512);
r1 = *(u64 *)(r10 - 256);
r0 += r1;
exit;
