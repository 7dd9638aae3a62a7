# load: --type socket_filter
r2 = 0;
r3 = r10;
r3 += -8;
r4 = 4;
call bpf_skb_load_bytes;
r0 = 0;
exit;
