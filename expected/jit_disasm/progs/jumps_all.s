# oracle: --type socket_filter --test-run
# every conditional jump (reg/imm, 64/32-bit), more than 32 branch
# references (test_loader keeps 32 labels), short and long (rel8/rel32) jumps
r6 = *(u32 *)(r1 + 0)
r7 = *(u32 *)(r1 + 4)
r0 = 0
if r6 == r7 goto l0
r0 = 1
l0:
if r6 == 3 goto l1
r0 = 1
l1:
if w6 == w7 goto l2
r0 = 1
l2:
if w6 == -3 goto l3
r0 = 1
l3:
if r6 != r7 goto l4
r0 = 1
l4:
if r6 != 3 goto l5
r0 = 1
l5:
if w6 != w7 goto l6
r0 = 1
l6:
if w6 != -3 goto l7
r0 = 1
l7:
if r6 > r7 goto l8
r0 = 1
l8:
if r6 > 3 goto l9
r0 = 1
l9:
if w6 > w7 goto l10
r0 = 1
l10:
if w6 > -3 goto l11
r0 = 1
l11:
if r6 >= r7 goto l12
r0 = 1
l12:
if r6 >= 3 goto l13
r0 = 1
l13:
if w6 >= w7 goto l14
r0 = 1
l14:
if w6 >= -3 goto l15
r0 = 1
l15:
if r6 < r7 goto l16
r0 = 1
l16:
if r6 < 3 goto l17
r0 = 1
l17:
if w6 < w7 goto l18
r0 = 1
l18:
if w6 < -3 goto l19
r0 = 1
l19:
if r6 <= r7 goto l20
r0 = 1
l20:
if r6 <= 3 goto l21
r0 = 1
l21:
if w6 <= w7 goto l22
r0 = 1
l22:
if w6 <= -3 goto l23
r0 = 1
l23:
if r6 s> r7 goto l24
r0 = 1
l24:
if r6 s> 3 goto l25
r0 = 1
l25:
if w6 s> w7 goto l26
r0 = 1
l26:
if w6 s> -3 goto l27
r0 = 1
l27:
if r6 s>= r7 goto l28
r0 = 1
l28:
if r6 s>= 3 goto l29
r0 = 1
l29:
if w6 s>= w7 goto l30
r0 = 1
l30:
if w6 s>= -3 goto l31
r0 = 1
l31:
if r6 s< r7 goto l32
r0 = 1
l32:
if r6 s< 3 goto l33
r0 = 1
l33:
if w6 s< w7 goto l34
r0 = 1
l34:
if w6 s< -3 goto l35
r0 = 1
l35:
if r6 s<= r7 goto l36
r0 = 1
l36:
if r6 s<= 3 goto l37
r0 = 1
l37:
if w6 s<= w7 goto l38
r0 = 1
l38:
if w6 s<= -3 goto l39
r0 = 1
l39:
if r6 & r7 goto l40
r0 = 1
l40:
if r6 & 3 goto l41
r0 = 1
l41:
if w6 & w7 goto l42
r0 = 1
l42:
if w6 & -3 goto l43
r0 = 1
l43:
if r6 > 1000 goto far
r1 = 0
r2 = 1000003
r3 = 2000006
r4 = 3000009
r5 = 4000012
r1 = 5000015
r2 = 6000018
r3 = 7000021
r4 = 8000024
r5 = 9000027
r1 = 10000030
r2 = 11000033
r3 = 12000036
r4 = 13000039
r5 = 14000042
r1 = 15000045
r2 = 16000048
r3 = 17000051
r4 = 18000054
r5 = 19000057
r1 = 20000060
r2 = 21000063
r3 = 22000066
r4 = 23000069
r5 = 24000072
r1 = 25000075
r2 = 26000078
r3 = 27000081
r4 = 28000084
r5 = 29000087
r1 = 30000090
r2 = 31000093
r3 = 32000096
r4 = 33000099
r5 = 34000102
r1 = 35000105
r2 = 36000108
r3 = 37000111
r4 = 38000114
r5 = 39000117
r1 = 40000120
r2 = 41000123
r3 = 42000126
r4 = 43000129
r5 = 44000132
far:
r8 = 0
back:
r1 = 0
r2 = 77777
r3 = 155554
r4 = 233331
r5 = 311108
r1 = 388885
r2 = 466662
r3 = 544439
r4 = 622216
r5 = 699993
r1 = 777770
r2 = 855547
r3 = 933324
r4 = 1011101
r5 = 1088878
r1 = 1166655
r2 = 1244432
r3 = 1322209
r4 = 1399986
r5 = 1477763
r1 = 1555540
r2 = 1633317
r3 = 1711094
r4 = 1788871
r5 = 1866648
r1 = 1944425
r2 = 2022202
r3 = 2099979
r4 = 2177756
r5 = 2255533
r1 = 2333310
r2 = 2411087
r3 = 2488864
r4 = 2566641
r5 = 2644418
r1 = 2722195
r2 = 2799972
r3 = 2877749
r4 = 2955526
r5 = 3033303
r8 += 1
if r8 < 3 goto back
if r6 == 77 goto skip
gotol end
skip:
r0 = 2
end:
r0 = 0
exit
