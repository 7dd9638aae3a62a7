# oracle: --type raw_tp
r1 = 1
r2 = cb ll
r3 = 0
r4 = 0
call bpf_loop
r0 = 0
exit
cb:
call bpf_get_prandom_u32
r1 = 42
*(u64 *)(r10 - 512) = r1
call sub2
r0 = 0
exit
sub2:
r0 = 0
exit
