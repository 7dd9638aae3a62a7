# load: --type sock_ops --map sm:sockmap:4:4:1 --map sh:sockhash:4:4:1
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = sm ll;
call bpf_map_delete_elem;
r2 = r10;
r2 += -4;
r1 = sh ll;
call bpf_map_delete_elem;
r0 = 0;
exit;
