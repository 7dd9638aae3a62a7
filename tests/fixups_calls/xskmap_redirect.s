# load: --type xdp --map xm:xskmap:4:4:3
r1 = xm ll;
r2 = 0;
r3 = 0;
call bpf_redirect_map;
exit;
