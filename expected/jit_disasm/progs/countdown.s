# oracle: --type socket_filter --test-run
# A bounded loop the verifier walks to its end: a backward conditional
# jump in the image. Returns 16 + 15 + ... + 1 = 136.
r0 = 0
r1 = 16
1:
r0 += r1
r1 += -1
if r1 != 0 goto 1b
exit
