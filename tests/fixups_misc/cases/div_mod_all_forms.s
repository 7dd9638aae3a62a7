# case: --prog-type socket_filter --flags rnd_hi32,reg_invariants
# every div/mod form: unsigned and signed, 64 and 32 bits, by a register
# and by an immediate (-1 and others)
r0 = 1000
r1 = 3
r2 = -1
r0 /= r1
r0 %= r1
r0 += 77
w0 /= w1
w0 %= w1
r0 += 1000
r0 s/= r2
r0 s%= r2
r0 += 1000
w0 s/= w2
w0 s%= w2
r0 += 1000
r0 s/= -1
r0 s%= -1
r0 += 1000
w0 s/= -1
w0 s%= -1
r0 += 1000
r0 /= 5
r0 s/= 3
r0 s%= 7
w0 s/= -7
exit
