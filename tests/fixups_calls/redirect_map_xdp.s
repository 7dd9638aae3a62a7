# load: --type xdp --map dm:devmap:4:4:4
r1 = dm ll;
r2 = 0;
r3 = 0;
call bpf_redirect_map;
exit;
