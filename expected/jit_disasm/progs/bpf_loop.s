# oracle: --type socket_filter --test-run
# bpf_loop with a callback (inlined by the verifier), a callback subprog
r1 = 10
r2 = cb ll
r3 = 0
r4 = 0
call bpf_loop
r0 = 0
exit
cb:
r0 = 0
exit
