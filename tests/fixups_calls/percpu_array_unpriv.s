# load: --type socket_filter --unpriv --map pa:percpu_array:4:8:6
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = pa ll;
call bpf_map_lookup_elem;
r0 = 0;
exit;
