# load: --type socket_filter --map a12:array:4:12:3 --map a20:array:4:20:5 --map a8:array:4:8:5
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = a12 ll;
call bpf_map_lookup_elem;
r2 = r10;
r2 += -4;
r1 = a20 ll;
call bpf_map_lookup_elem;
r2 = r10;
r2 += -4;
r1 = a8 ll;
call bpf_map_lookup_elem;
r0 = 0;
exit;
