# load: --type socket_filter --map arr:array:4:8:4
r1 = arr ll;
r2 = cb ll;
r3 = 0;
r4 = 0;
call bpf_for_each_map_elem;
r0 = 0;
exit;
cb:
r0 = 0;
exit;
