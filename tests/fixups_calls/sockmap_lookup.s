# load: --type sk_skb --map sm:sockmap:4:4:1
r1 = 0;
*(u32 *)(r10 - 4) = r1;
r2 = r10;
r2 += -4;
r1 = sm ll;
call bpf_map_lookup_elem;
if r0 != 0 goto l0_%=;
exit;
l0_%=:
r1 = r0;
r0 = *(u32 *)(r0 + 4);
call bpf_sk_release;
exit;
