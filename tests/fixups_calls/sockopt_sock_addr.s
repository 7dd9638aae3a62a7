# load: --type cgroup/connect4
r6 = r1;
r2 = 1;
r3 = 7;
r4 = r10;
r4 += -8;
r5 = 4;
call bpf_getsockopt;
r1 = r6;
r2 = 1;
r3 = 7;
r4 = r10;
r4 += -8;
r5 = 4;
call bpf_setsockopt;
r0 = 1;
exit;
