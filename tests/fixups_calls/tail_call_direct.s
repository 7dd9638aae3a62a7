# load: --type socket_filter --map jmp:prog_array:4:4:4
r6 = r1;
r1 = r6;
r2 = jmp ll;
r3 = 1;
call bpf_tail_call;
r0 = 0;
exit;
