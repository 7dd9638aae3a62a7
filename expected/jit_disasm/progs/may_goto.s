# oracle: --type socket_filter --test-run
# may_goto loop (kernel-internal counter on the stack)
r0 = 0
l0:
may_goto l1
r0 += 1
goto l0
l1:
r0 = 0
exit
