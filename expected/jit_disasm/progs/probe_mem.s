# oracle: --type kprobe
# PROBE_MEM loads through a BTF pointer (exception table entries)
call bpf_get_current_task_btf
r3 = *(u64 *)(r0 + 0)
r4 = *(u32 *)(r0 + 16)
r0 = 0
exit
