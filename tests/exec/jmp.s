// Jumps: 32- and 64-bit compares, signedness, JSET, gotol, may_goto,
// bounded loops.

@@ jmp32_ignores_high_bits
r1 = 0x100000000 ll;
r0 = 1;
if w1 == 0 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jmp64_sees_high_bits
r1 = 0x100000000 ll;
r0 = 1;
if r1 == 0 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jsgt32_negative
r1 = 0xffffffff;
r0 = 1;
if w1 s> 0 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jsgt64_positive
r1 = 0xffffffff;
r0 = 1;
if r1 s> 0 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jgt_imm_sign_extended
r1 = 5;
r0 = 1;
if r1 > -1 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jlt32_imm
w1 = -1;
r0 = 1;
if w1 < -2 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jset
r1 = 0x10;
r0 = 1;
if r1 & 0x30 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jset32_high_bits_ignored
r1 = 0x100000000 ll;
r2 = -1;
r0 = 1;
if w1 & w2 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ jsle_jsge
r1 = -3;
r0 = 0;
if r1 s<= -3 goto l1_%=;
r0 += 1;
l1_%=:
if r1 s>= -2 goto l2_%=;
r0 += 2;
l2_%=:
if r1 s< 0 goto l3_%=;
r0 += 4;
l3_%=:
if r1 <= 3 goto l4_%=;
r0 += 8;
l4_%=:
if r1 >= 3 goto l5_%=;
r0 += 16;
l5_%=:
if r1 != -3 goto l6_%=;
r0 += 32;
l6_%=:
exit;

@@ gotol
r0 = 1;
r1 = 5;
if r1 > 3 goto l_far_%=;
r0 = 3;
gotol l_out_%=;
l_far_%=:
r0 = 2;
gotol l_out_%=;
l_out_%=:
exit;

@@ bounded_loop_sum
r0 = 0;
r1 = 0;
l_loop_%=:
r0 += r1;
r1 += 1;
if r1 < 100 goto l_loop_%=;
exit;

@@ bounded_loop_32
w0 = 0;
w1 = 10;
l_loop_%=:
w0 *= 3;
w0 += w1;
w1 -= 1;
if w1 != 0 goto l_loop_%=;
exit;

@@ may_goto_not_taken
r0 = 7;
may_goto l_out_%=;
r0 = 9;
l_out_%=:
exit;

@@ may_goto_loop_bounded
r0 = 0;
l_loop_%=:
may_goto l_out_%=;
r0 += 1;
if r0 < 1000 goto l_loop_%=;
l_out_%=:
exit;
