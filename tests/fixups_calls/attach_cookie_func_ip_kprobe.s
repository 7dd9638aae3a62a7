# load: --type kprobe
r6 = r1;
call bpf_get_attach_cookie;
r1 = r6;
call bpf_get_func_ip;
r0 = 0;
exit;
