# oracle: --type socket_filter --test-run --log-level 2
# A bpf-to-bpf call of a static subprogram (BTF_FUNC_STATIC: verified in
# the context of its call) that doubles a value in its caller's stack frame
# through a pointer. Returns 2 * 20 + 2 = 42.
r1 = 20
*(u64 *)(r10 - 8) = r1
r1 = r10
r1 += -8
call double_it
r0 = *(u64 *)(r10 - 8)
r0 += 2
exit
double_it:
r2 = *(u64 *)(r1 + 0)
r2 <<= 1
*(u64 *)(r1 + 0) = r2
r0 = 0
exit
