# load: --type socket_filter
call bpf_jiffies64;
r0 = 0;
exit;
