# oracle: --type socket_filter --map big:array:4:32768:1
r1 = 0
*(u32 *)(r10 - 4) = r1
r2 = r10
r2 += -4
r1 = big ll
call bpf_map_lookup_elem
if r0 == 0 goto out
r1 = *(u64 *)(r0 + 0x7ff8)
r2 = *(u32 *)(r0 + 0x3ffc)
r3 = *(u16 *)(r0 + 0x1ffe)
r4 = *(u8 *)(r0 + 0x1001)
r5 = *(u64 *)(r0 + 8)
r1 = *(s8 *)(r0 + 0x1001)
r1 = *(s16 *)(r0 + 0x2002)
r1 = *(s32 *)(r0 + 0x4004)
r1 = *(s8 *)(r0 + 1)
r1 = *(s16 *)(r0 + 2)
r1 = *(s32 *)(r0 + 4)
r1 = *(u64 *)(r0 + 3)
*(u64 *)(r0 + 0x3ff8) = r1
*(u32 *)(r0 + 0x3ffc) = r1
*(u16 *)(r0 + 0x2ffe) = r1
*(u8 *)(r0 + 0x1fff) = r1
*(u64 *)(r0 + 0x3ff0) = 0x12345
*(u32 *)(r0 + 0x3ff4) = -7
*(u16 *)(r0 + 0x2ff0) = 5
*(u8 *)(r0 + 0x1fff) = 6
*(u64 *)(r0 + 16) = -0x12345
*(u32 *)(r0 + 20) = 9
*(u16 *)(r0 + 22) = 0x7fff
*(u8 *)(r0 + 23) = 1
*(u64 *)(r0 + 5) = 1
out:
r0 = 0
exit
