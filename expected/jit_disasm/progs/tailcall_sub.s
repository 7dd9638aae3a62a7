# oracle: --type socket_filter --map jmp:prog_array:4:4:1 --tail-call-self jmp:0
# tail call from a subprog: tail_call_reachable prologues in both functions
r6 = r1
call sub
r0 = 0
exit
sub:
r2 = jmp ll
r3 = 0
call bpf_tail_call
r0 = 0
exit
