# oracle: --type socket_filter
# bpf_get_smp_processor_id, which 7.3 inlines: a per-CPU address and its
# load in the xlated program.
call bpf_get_smp_processor_id
r0 = 0
exit
