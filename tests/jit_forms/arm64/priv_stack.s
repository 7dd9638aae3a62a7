# oracle: --type raw_tp
r1 = 42
*(u64 *)(r10 - 256) = r1
r2 = *(u64 *)(r10 - 8)
r0 = 0
exit
