# load: --type socket_filter --map rh:rhash:4:8:16:1 --map rk:rhash:12:8:16:1
r1 = 0;
*(u64 *)(r10 - 16) = r1;
*(u64 *)(r10 - 8) = r1;
r2 = r10;
r2 += -16;
r1 = rh ll;
call bpf_map_lookup_elem;
r2 = r10;
r2 += -16;
r1 = rk ll;
call bpf_map_lookup_elem;
r0 = 0;
exit;
