# oracle: --type socket_filter --test-run
# loads, stores and immediate stores of every size, sign-extending loads,
# near and far stack offsets, ctx loads
r1 = 0x1122334455667788 ll
*(u64 *)(r10 - 8) = r1
*(u32 *)(r10 - 16) = r1
*(u16 *)(r10 - 20) = r1
*(u8 *)(r10 - 21) = r1
*(u64 *)(r10 - 256) = r1
*(u64 *)(r10 - 512) = r1
*(u32 *)(r10 - 300) = 5
*(u64 *)(r10 - 32) = -1
*(u16 *)(r10 - 34) = 4660
*(u8 *)(r10 - 35) = 7
*(u64 *)(r10 - 48) = 2147483647
r2 = *(u64 *)(r10 - 8)
r3 = *(u32 *)(r10 - 16)
r4 = *(u16 *)(r10 - 20)
r5 = *(u8 *)(r10 - 21)
r6 = *(s8 *)(r10 - 21)
r7 = *(s16 *)(r10 - 20)
r8 = *(s32 *)(r10 - 16)
r9 = *(u64 *)(r10 - 512)
r0 = *(u64 *)(r10 - 256)
r0 = *(u32 *)(r10 - 300)
r0 = *(u64 *)(r10 - 32)
r0 = *(u16 *)(r10 - 34)
r0 = *(u8 *)(r10 - 35)
r0 = *(u64 *)(r10 - 48)
r6 = r10
r6 += -64
*(u64 *)(r6 + 0) = r9
*(u32 *)(r6 + 8) = r8
r7 = *(u64 *)(r6 + 0)
r8 = *(u32 *)(r6 + 8)
r0 = 0
exit
