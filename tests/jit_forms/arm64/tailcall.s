# oracle: --type socket_filter --map pa:prog_array:4:4:4 --tail-call-self pa:0
r6 = r1
r2 = pa ll
r3 = 0
call bpf_tail_call
r1 = r6
r2 = pa ll
r3 = 1
call bpf_tail_call
r0 = 0
exit
