# load: --type socket_filter --map outer:array_of_maps:4:4:2 --inner outer:array:4:8:3:0x1000
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = outer ll;
call bpf_map_lookup_elem;
if r0 == 0 goto l0_%=;
r1 = r0;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
l0_%=:
r0 = 0;
exit;
