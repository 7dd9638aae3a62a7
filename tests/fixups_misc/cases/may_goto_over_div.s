# case: --prog-type socket_filter
# a may_goto whose target lies past a later patch (div guard), and a
# backward may_goto loop with a div inside
r0 = 7
r1 = 2
may_goto 1f
r0 /= r1
r0 += 1
1:
r2 = 3
2:
r0 %= r2
r0 += 5
may_goto 3f
goto 2b
3:
exit
