# oracle: --type socket_filter --test-run --log-level 2 --global forty
# A global subprogram (BTF_FUNC_GLOBAL) is verified on its own; returns 41.
call forty
r0 += 1
exit
forty:
r0 = 40
exit
