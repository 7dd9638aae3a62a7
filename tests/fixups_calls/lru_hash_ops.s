# load: --type socket_filter --map hm:lru_hash:4:8:4 --map hs:hash:4:8:4
r1 = 0;
*(u64 *)(r10 - 8) = r1;
r2 = r10;
r2 += -8;
r3 = r10;
r3 += -8;
r1 = hm ll;
r4 = 0;
call bpf_map_update_elem;
r2 = r10;
r2 += -8;
r1 = hm ll;
call bpf_map_delete_elem;
r1 = hs ll;
r2 = cb ll;
r3 = 0;
r4 = 0;
call bpf_for_each_map_elem;
r0 = 0;
exit;
cb:
r0 = 0;
exit;
