# oracle: --type socket_filter --test-run --log-level 1 --no-btf
# A static subprogram without program BTF (no func_info); returns 16.
r1 = 5
call triple
r0 += 1
exit
triple:
r0 = r1
r0 *= 3
exit
