# oracle: --type raw_tp
call bpf_get_smp_processor_id
r6 = r0
call bpf_get_current_task
r6 += r0
call bpf_ktime_get_ns
r6 += r0
call bpf_get_prandom_u32
r0 += r6
r0 = 0
exit
