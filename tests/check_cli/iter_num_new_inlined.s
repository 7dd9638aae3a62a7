r6 = r10
r6 += -8
call bpf_get_prandom_u32
r3 = r0
r3 &= 0xffff
r1 = r6
r2 = 0
call bpf_iter_num_new
1:
r1 = r6
call bpf_iter_num_next
if r0 != 0 goto 1b
r1 = r6
call bpf_iter_num_destroy
r0 = 0
exit
