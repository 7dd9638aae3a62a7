# oracle: --type tracing --attach-type trace_fentry --attach-btf bpf_fentry_test1
# 7.3 verifier_jit_inline.c: inline_bpf_get_current_task (its C body)
call bpf_get_current_task
r0 = 0
exit
