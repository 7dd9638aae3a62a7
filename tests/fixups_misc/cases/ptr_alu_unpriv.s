# case: --prog-type socket_filter --map val:array:4:16:1 --unpriv
# Spectre v1 masking of pointer arithmetic: pointer += scalar, scalar +=
# pointer, pointer -= scalar, and a known-constant scalar
r1 = val__value ll
r2 = *(u32 *)(r1 + 0)
r2 &= 7
r1 += r2
r0 = *(u8 *)(r1 + 0)
r3 = val__value ll
r4 = *(u32 *)(r3 + 0)
r4 &= 3
r4 += r3
r0 = *(u8 *)(r4 + 0)
r5 = val__value ll
r6 = 2
r5 += r6
r0 = *(u8 *)(r5 + 0)
r7 = val__value ll
r7 += 8
r8 = *(u32 *)(r7 - 8)
r8 &= 7
r7 -= r8
r0 = *(u8 *)(r7 + 0)
r0 = 0
exit
