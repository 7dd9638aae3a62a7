# load: --type cgroup/sock_create
r2 = 0;
*(u32 *)(r10 - 4) = r2;
r2 = 1;
r3 = 7;
r4 = r10;
r4 += -4;
r5 = 4;
call bpf_setsockopt;
r0 = 1;
exit;
