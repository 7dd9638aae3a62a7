# load: --type tc
call bpf_get_cgroup_classid;
r0 = 0;
exit;
