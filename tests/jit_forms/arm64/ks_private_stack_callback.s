# oracle: --type raw_tp
# 7.3 verifier_private_stack.c: private_stack_callback
r1 = 1
r2 = loop_callback ll
r3 = 0
r4 = 0
call bpf_loop
r0 = 0
exit
loop_callback:
call bpf_get_prandom_u32
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
