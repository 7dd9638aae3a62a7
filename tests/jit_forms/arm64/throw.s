# oracle: --type raw_tp
r6 = 5
*(u64 *)(r10 - 8) = r6
r1 = 0
call bpf_throw
r0 = 0
exit
