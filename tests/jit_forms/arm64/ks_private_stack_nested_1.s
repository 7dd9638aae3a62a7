# oracle: --type kprobe
# 7.3 verifier_private_stack.c: private_stack_nested_1
r1 = 42
*(u64 *)(r10 - 512) = r1
call cumulative_stack_depth_subprog
r0 = 0
exit
cumulative_stack_depth_subprog:
r1 = 41
*(u64 *)(r10 - 32) = r1
call bpf_get_smp_processor_id
exit
