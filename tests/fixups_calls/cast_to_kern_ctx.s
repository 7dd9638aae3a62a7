# load: --type socket_filter
call bpf_cast_to_kern_ctx;
r0 = 0;
exit;
