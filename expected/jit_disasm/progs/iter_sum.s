# oracle: --type raw_tp
# An open-coded numeric iterator summing what it yields (7.3 inlines
# bpf_iter_num_new, _next and _destroy).
r6 = r10
r6 += -8
r1 = r6
r2 = 0
r3 = 5
call bpf_iter_num_new
r7 = 0
1:
r1 = r6
call bpf_iter_num_next
if r0 == 0 goto 2f
r1 = *(u32 *)(r0 + 0)
r7 += r1
goto 1b
2:
r1 = r6
call bpf_iter_num_destroy
r0 = r7
exit
