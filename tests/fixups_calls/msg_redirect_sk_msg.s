# load: --type sk_msg --map sm:sockmap:4:4:1 --map sh:sockhash:4:4:1
r6 = r1;
r2 = sm ll;
r3 = 0;
r4 = 0;
call bpf_msg_redirect_map;
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r1 = r6;
r2 = sh ll;
r3 = r10;
r3 += -4;
r4 = 0;
call bpf_msg_redirect_hash;
exit;
