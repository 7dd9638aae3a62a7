# oracle: --type tracing --attach-type trace_fentry --attach-btf bpf_fentry_test2
# 7.3 verifier_jit_inline.c: inline_bpf_get_smp_processor_id (its C body)
call bpf_get_smp_processor_id
r0 = 0
exit
