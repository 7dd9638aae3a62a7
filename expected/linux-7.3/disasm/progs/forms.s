# oracle: --type socket_filter --flags rnd_hi32
# What the other programs of the set leave out of the xlated forms: 32-bit
# ALU results poisoned in their upper halves (BPF_F_TEST_RND_HI32 adds
# `r12 = RND; r12 <<= 32; rX |= r12` after each), 32-bit signed jumps,
# byte swaps, sign-extending moves, atomics on a stack slot, a bounded
# loop, 32-bit ALU and jumps on an unknown value (a division's guards)
# and a bpf-to-bpf call.
w1 = 1
w2 = 2
w1 += w2
w2 *= 3
w4 = w2
r3 = r1
r5 = 0
*(u64 *)(r10 - 8) = r5
r5 = *(u32 *)(r10 - 8)
w0 = 7
r2 = 2
lock *(u64 *)(r10 - 8) += r2
r3 = 3
r3 = atomic_fetch_add((u64 *)(r10 - 8), r3)
r4 = 9
r0 = cmpxchg_64(r10 - 8, r0, r4)
r3 &= 0xffff
if w0 s>= w2 goto 1f
w4 -= w2
1:
if w4 s> 100 goto 2f
if w4 s< w2 goto 2f
r4 = be16 r4
r0 = r4
r0 = bswap32 r0
r5 = (s8)r4
w6 = (s16)w4
2:
r1 = 10
3:
r1 += -1
if r1 != 0 goto 3b
if r0 == 0 goto 4f
r0 *= 3
4:
call bpf_get_prandom_u32
w3 = w0
w3 &= 255
w3 |= w0
w3 ^= 5
w3 <<= 2
w3 >>= 1
w3 s>>= 1
w3 = -w3
w7 = w0
w7 /= 3
w8 = w0
w8 %= 7
w9 = w0
w9 s/= 3
if w3 == 1 goto 5f
if w3 > w7 goto 5f
if w3 & 4 goto 5f
if w3 <= 9 goto 5f
if w3 s<= w8 goto 5f
r3 = -r3
5:
r1 = 5
call triple
r0 = 0
exit
triple:
r0 = r1
r0 *= 3
exit
