# oracle: --type socket_filter --map jmp:prog_array:4:4:2 --tail-call-self jmp:0
# direct tail call (poked jmp) and indirect tail call (unknown index)
r6 = r1
r7 = *(u32 *)(r1 + 0)
r1 = r6
r2 = jmp ll
r3 = 0
call bpf_tail_call
r1 = r6
r2 = jmp ll
r3 = r7
call bpf_tail_call
r0 = 0
exit
