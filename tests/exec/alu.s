// ALU edge cases: what 7.3 gives after its div/mod guards, shift masking,
// 32-bit zero extension, sign-extending moves and byte swaps.

@@ div64_by_zero_reg
r0 = 1234;
r1 = 0;
r0 /= r1;
exit;

@@ mod64_by_zero_reg_keeps_dst
r0 = -1234 ll;
r1 = 0;
r0 %= r1;
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ div32_by_zero_reg
r0 = -1 ll;
w1 = 0;
w0 /= w1;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ mod32_by_zero_reg_zero_extends
r0 = 0x1234567887654321 ll;
r1 = 0x100000000 ll;
w0 %= w1;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ sdiv64_int_min_by_minus_one
r0 = 0x8000000000000000 ll;
r1 = -1;
r0 s/= r1;
r1 = r0;
r1 >>= 32;
exit;

@@ sdiv64_int_min_by_minus_one_high
r0 = 0x8000000000000000 ll;
r1 = -1;
r0 s/= r1;
r0 >>= 32;
exit;

@@ smod64_int_min_by_minus_one
r0 = 0x8000000000000000 ll;
r1 = -1;
r0 s%= r1;
r0 += 7;
exit;

@@ sdiv64_by_zero
r0 = -77;
r1 = 0;
r0 s/= r1;
r0 += 5;
exit;

@@ smod64_by_zero_keeps_dst
r0 = -77;
r1 = 0;
r0 s%= r1;
exit;

@@ sdiv32_int_min_by_minus_one
w0 = 0x80000000;
w1 = -1;
w0 s/= w1;
exit;

@@ smod32_negative_dividend
w0 = -7;
w1 = 2;
w0 s%= w1;
exit;

@@ smod32_negative_divisor
w0 = 7;
w1 = -2;
w0 s%= w1;
exit;

@@ smod32_by_zero_zero_extends
r0 = -5 ll;
w1 = 0;
w0 s%= w1;
r0 >>= 32;
exit;

@@ smod32_by_minus_one
w0 = 0x80000000;
w1 = -1;
w0 s%= w1;
r0 += 3;
exit;

@@ sdiv64_imm_minus_one
r0 = 0x8000000000000000 ll;
r0 s/= -1;
r1 = r0;
r1 >>= 60;
r0 += r1;
exit;

@@ smod64_imm_minus_one
r0 = 12345;
r0 s%= -1;
r0 += 9;
exit;

@@ sdiv32_imm_minus_one
w0 = 0x80000000;
w0 s/= -1;
exit;

@@ smod32_imm_minus_one
w0 = -9;
w0 s%= -1;
exit;

@@ sdiv64_rounds_toward_zero
r0 = -7;
r0 s/= 2;
exit;

@@ sdiv32_rounds_toward_zero
w0 = -7;
w0 s/= 2;
exit;

@@ udiv64_imm_sign_extended
r0 = -1;
r0 /= -1;
exit;

@@ umod64_imm_sign_extended
r0 = 5;
r0 %= -2;
exit;

@@ udiv32_ignores_high_bits
r0 = 0xffffffff00000064 ll;
w0 /= 10;
exit;

@@ lsh64_reg_masked
r0 = 1;
r1 = 65;
r0 <<= r1;
exit;

@@ rsh64_reg_masked
r0 = 0x8000000000000000 ll;
r1 = 127;
r0 >>= r1;
exit;

@@ arsh64_reg_masked
r0 = 0x8000000000000000 ll;
r1 = 0x7f;
r0 s>>= r1;
exit;

@@ lsh32_reg_masked
w0 = 1;
w1 = 33;
w0 <<= w1;
exit;

@@ arsh32_negative
w0 = 0x80000000;
w0 s>>= 31;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ arsh32_reg_masked
w0 = 0x80000010;
w1 = 36;
w0 s>>= w1;
exit;

@@ neg32_int_min
w0 = 0x80000000;
w0 = -w0;
exit;

@@ neg64_zero_extends_nothing
r0 = 1;
r0 = -r0;
r0 >>= 33;
exit;

@@ alu32_zero_extends
r0 = -1;
w0 += 0;
r0 >>= 32;
r0 += 1;
exit;

@@ mov32_zero_extends
r1 = -1;
w0 = w1;
r0 >>= 16;
exit;

@@ mov32_imm_negative
w0 = -1;
r0 >>= 16;
exit;

@@ mov64_imm_negative
r0 = -1;
r0 >>= 40;
exit;

@@ movsx64_s8
r1 = 0x180;
r0 = (s8)r1;
r0 >>= 40;
exit;

@@ movsx64_s16
r1 = 0x18000;
r0 = (s16)r1;
r0 >>= 40;
exit;

@@ movsx64_s32
r1 = 0x180000000 ll;
r0 = (s32)r1;
r0 >>= 40;
exit;

@@ movsx32_s8
r1 = 0x1ff;
w0 = (s8)w1;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ movsx32_s16
r1 = 0x18000;
w0 = (s16)w1;
exit;

@@ be16
r0 = 0x1122334455667788 ll;
r0 = be16 r0;
exit;

@@ be32
r0 = 0x1122334455667788 ll;
r0 = be32 r0;
exit;

@@ be64
r0 = 0x1122334455667788 ll;
r0 = be64 r0;
exit;

@@ le16_truncates
r0 = 0x1122334455667788 ll;
r0 = le16 r0;
exit;

@@ le32_truncates
r0 = 0x1122334455667788 ll;
r0 = le32 r0;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;

@@ le64_keeps
r0 = 0x1122334455667788 ll;
r0 = le64 r0;
r0 >>= 32;
exit;

@@ bswap16
r0 = 0x1122334455667788 ll;
r0 = bswap16 r0;
exit;

@@ bswap32
r0 = 0x1122334455667788 ll;
r0 = bswap32 r0;
exit;

@@ bswap64
r0 = 0x1122334455667788 ll;
r0 = bswap64 r0;
exit;

@@ mul64_wraps
r0 = 0x100000001 ll;
r1 = 0x100000001 ll;
r0 *= r1;
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ mul32_wraps
w0 = 0x10001;
w0 *= 0x10001;
exit;

@@ add_imm_sign_extended
r0 = 0;
r0 += -1;
r0 >>= 32;
exit;

@@ and_imm_sign_extended
r0 = -1;
r0 &= -256;
r0 >>= 32;
exit;

@@ xor_or_sub
r0 = 0xf0f0;
r0 |= 0x0f00;
r0 ^= 0x00ff;
r0 -= 0x1000;
exit;

@@ ld_imm64_full
r0 = 0xdeadbeefcafef00d ll;
r1 = r0;
r1 >>= 32;
r0 += r1;
exit;
