# oracle: --type socket_filter --unpriv
# Unprivileged: the stack slot filled before its read and the branch on it
# get the verifier's speculation barriers (nospec) in the xlated program.
r1 = 0
*(u64 *)(r10 - 8) = r1
r0 = *(u64 *)(r10 - 8)
if r0 != 0 goto +1
r0 = 0
exit
