# oracle: --type socket_filter
r6 = 3
r1 = 1
call f1
r6 += r0
r1 = 2
call f2
r0 += r6
exit
f1:
r0 = r1
r0 += 1
*(u64 *)(r10 - 8) = r0
r0 = *(u64 *)(r10 - 8)
exit
f2:
r7 = r1
r1 = 5
call f1
r0 += r7
exit
