# oracle: --type raw_tp
# 7.3 verifier_private_stack.c: no_private_stack_nested
r1 = 42
*(u64 *)(r10 - 8) = r1
r0 = 0
exit
