# oracle: --type socket_filter
r2 = 1
r1 = 3
*(u64 *)(r10 - 8) = r1
*(u32 *)(r10 - 16) = r1
*(u32 *)(r10 - 12) = r1
lock *(u64 *)(r10 - 8) += r1
lock *(u64 *)(r10 - 8) &= r1
lock *(u64 *)(r10 - 8) |= r1
lock *(u64 *)(r10 - 8) ^= r1
lock *(u32 *)(r10 - 16) += w1
lock *(u32 *)(r10 - 16) &= w1
lock *(u32 *)(r10 - 16) |= w1
lock *(u32 *)(r10 - 16) ^= w1
r2 = atomic_fetch_add((u64 *)(r10 - 8), r2)
r2 = atomic_fetch_and((u64 *)(r10 - 8), r2)
r2 = atomic_fetch_or((u64 *)(r10 - 8), r2)
r2 = atomic_fetch_xor((u64 *)(r10 - 8), r2)
w2 = atomic_fetch_add((u32 *)(r10 - 16), w2)
w2 = atomic_fetch_and((u32 *)(r10 - 16), w2)
w2 = atomic_fetch_or((u32 *)(r10 - 16), w2)
w2 = atomic_fetch_xor((u32 *)(r10 - 16), w2)
r2 = xchg_64(r10 - 8, r2)
w2 = xchg32_32(r10 - 16, w2)
r0 = 0
r0 = cmpxchg_64(r10 - 8, r0, r1)
w0 = cmpxchg32_32(r10 - 12, w0, w1)
r3 = r10
r3 += -8
r4 = load_acquire((u64 *)(r3 + 0))
w4 = load_acquire((u32 *)(r10 - 16))
w4 = load_acquire((u16 *)(r10 - 16))
w4 = load_acquire((u8 *)(r10 - 16))
store_release((u64 *)(r3 + 0), r4)
store_release((u32 *)(r10 - 16), w4)
store_release((u16 *)(r10 - 16), w4)
store_release((u8 *)(r10 - 16), w4)
r0 = 0
exit
