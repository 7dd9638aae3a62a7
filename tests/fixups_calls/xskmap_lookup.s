# load: --type xdp --map xm:xskmap:4:4:3
r1 = 0;
*(u32 *)(r10 - 8) = r1;
r2 = r10;
r2 += -8;
r1 = xm ll;
call bpf_map_lookup_elem;
if r0 != 0 goto l0_%=;
exit;
l0_%=:
r0 = *(u32 *)(r0 + 0);
r0 = 0;
exit;
