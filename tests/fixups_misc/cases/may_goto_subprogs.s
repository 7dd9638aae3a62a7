# case: --prog-type socket_filter
# may_goto in the main program below its own stack, and in a subprogram
# whose loop jumps back to the subprogram's first insn
r1 = 0
*(u64 *)(r10 - 8) = r1
1:
may_goto 2f
r1 = *(u64 *)(r10 - 8)
r1 += 1
*(u64 *)(r10 - 8) = r1
goto 1b
2:
call sub
r0 = 0
exit
sub:
may_goto 3f
goto sub
3:
r0 = 0
exit
