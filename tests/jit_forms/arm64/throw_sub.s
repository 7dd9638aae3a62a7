# oracle: --type raw_tp
r1 = 42
*(u64 *)(r10 - 16) = r1
call thrower
r0 = 0
exit
thrower:
r1 = 1
call bpf_throw
r0 = 0
exit
