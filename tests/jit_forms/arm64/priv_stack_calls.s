# oracle: --type raw_tp
r1 = 42
*(u64 *)(r10 - 512) = r1
call sub1
r0 = 0
exit
sub1:
r1 = 7
*(u64 *)(r10 - 8) = r1
r0 = *(u64 *)(r10 - 8)
exit
