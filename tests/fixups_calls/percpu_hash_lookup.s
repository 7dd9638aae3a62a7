# load: --type socket_filter --map hm:percpu_hash:12:8:4
r1 = 0;
*(u64 *)(r10 - 16) = r1;
*(u32 *)(r10 - 8) = r1;
r2 = r10;
r2 += -16;
r1 = hm ll;
call bpf_map_lookup_elem;
r0 = 0;
exit;
