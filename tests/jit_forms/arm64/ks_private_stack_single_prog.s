# oracle: --type kprobe
# 7.3 verifier_private_stack.c: private_stack_single_prog
r1 = 42
*(u64 *)(r10 - 256) = r1
r0 = 0
exit
