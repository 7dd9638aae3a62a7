# oracle: --type socket_filter
r1 = 5
r2 = 9
w3 = -1
if r1 == r2 goto l1
if r1 > r2 goto l1
if r1 >= r2 goto l1
if r1 < 0x1000 goto l2
l2:
if r1 <= -5 goto l1
if r1 s> 0x12345 goto l1
if r1 s>= -0x1000 goto l3
l3:
if r1 s< r2 goto l4
l4:
if r1 s<= r2 goto l5
l5:
if r1 != 0xfff000 goto l6
l6:
if r1 & 0x10 goto l1
if r1 & 0x12345 goto l1
if r1 & r2 goto l1
if w1 == w3 goto l1
if w1 > 0x7fffffff goto l1
if w1 s< -7 goto l1
if w1 & 0xff00 goto l1
if w1 != 0x12345 goto l1
if r1 == 0 goto l8
gotol l7
l8:
r0 = 1
l7:
r0 = 0
exit
l1:
r0 = 2
exit
