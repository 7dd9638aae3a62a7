# load: --type kprobe
call bpf_ktime_get_boot_ns;
call bpf_get_current_pid_tgid;
r0 = 0;
exit;
