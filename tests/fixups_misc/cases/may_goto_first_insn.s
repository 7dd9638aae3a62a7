# case: --prog-type raw_tracepoint
# may_goto is the first insn: the loop back to it lands after the prologue
1:
may_goto 2f
r0 = 1
goto 1b
2:
r0 = 0
exit
