# oracle: --type socket_filter --test-run --log-level 2
# A static subprogram: func_info in the program BTF, two JITed functions,
# `call pc+N` in the xlated dump; returns 5 * 3 + 1.
r1 = 5
call triple
r0 += 1
exit
triple:
r0 = r1
r0 *= 3
exit
