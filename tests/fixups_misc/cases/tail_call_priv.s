# case: --prog-type socket_filter --map jmp:prog_array:4:4:4
# constant keys (poke descriptors) and an unknown key (a plain tail call)
r6 = r1
r1 = r6
r2 = jmp ll
r3 = 1
call bpf_tail_call
r1 = r6
r2 = jmp ll
r3 = 2
call bpf_tail_call
r0 = *(u8 *)skb[0]
r3 = r0
r1 = r6
r2 = jmp ll
call bpf_tail_call
r0 = 0
exit
