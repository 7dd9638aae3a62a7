# oracle: --type socket_filter --test-run
# every atomic op at both sizes
r1 = 0
*(u64 *)(r10 - 8) = r1
*(u64 *)(r10 - 16) = r1
r2 = 1
lock *(u64 *)(r10 - 8) += r2
lock *(u64 *)(r10 - 8) &= r2
lock *(u64 *)(r10 - 8) |= r2
lock *(u64 *)(r10 - 8) ^= r2
lock *(u32 *)(r10 - 16) += w2
lock *(u32 *)(r10 - 16) &= w2
lock *(u32 *)(r10 - 16) |= w2
lock *(u32 *)(r10 - 16) ^= w2
r3 = 3
r3 = atomic_fetch_add((u64 *)(r10 - 8), r3)
r3 = atomic_fetch_and((u64 *)(r10 - 8), r3)
r3 = atomic_fetch_or((u64 *)(r10 - 8), r3)
r3 = atomic_fetch_xor((u64 *)(r10 - 8), r3)
w4 = 4
w4 = atomic_fetch_add((u32 *)(r10 - 16), w4)
w4 = atomic_fetch_and((u32 *)(r10 - 16), w4)
w4 = atomic_fetch_or((u32 *)(r10 - 16), w4)
w4 = atomic_fetch_xor((u32 *)(r10 - 16), w4)
r5 = 5
r5 = xchg_64(r10 - 8, r5)
w6 = 6
w6 = xchg32_32(r10 - 16, w6)
r0 = 1
r7 = 7
r0 = cmpxchg_64(r10 - 8, r0, r7)
w0 = 1
w8 = 8
w0 = cmpxchg32_32(r10 - 16, w0, w8)
r0 = 0
exit
