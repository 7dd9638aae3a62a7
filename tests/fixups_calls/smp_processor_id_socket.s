# load: --type socket_filter
call bpf_get_smp_processor_id;
exit;
