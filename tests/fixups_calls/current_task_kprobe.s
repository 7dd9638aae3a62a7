# load: --type kprobe
call bpf_get_current_task;
r0 = 0;
exit;
