# oracle: --type raw_tp --test-run --log-level 1
# The body of iters.c:iter_num_new_inlined: kfuncs resolved by name in the
# kernel's BTF. 7.3 inlines bpf_iter_num_{new,next,destroy}; 6.18 calls them.
r6 = r10
r6 += -8
call bpf_get_prandom_u32
r3 = r0
r3 &= 0xffff
r1 = r6
r2 = 0
call bpf_iter_num_new
1:
r1 = r6
call bpf_iter_num_next
if r0 != 0 goto 1b
r1 = r6
call bpf_iter_num_destroy
r0 = 0
exit
