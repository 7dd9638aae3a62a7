# load: --type socket_filter --map q:queue:0:8:4 --map stk:stack:0:8:4
r1 = 0;
*(u64 *)(r10 - 8) = r1;
r2 = r10;
r2 += -8;
r1 = q ll;
r3 = 0;
call bpf_map_push_elem;
r2 = r10;
r2 += -8;
r1 = q ll;
call bpf_map_peek_elem;
r2 = r10;
r2 += -8;
r1 = stk ll;
call bpf_map_pop_elem;
r0 = 0;
exit;
