# load: --type socket_filter --unpriv --map a20:array:4:20:5
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = a20 ll;
call bpf_map_lookup_elem;
r0 = 0;
exit;
