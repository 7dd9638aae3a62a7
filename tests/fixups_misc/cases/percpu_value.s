# case: --prog-type raw_tracepoint --map pc:percpu_array:4:8:1
# the address of a per-CPU array's value: this CPU's copy
r1 = pc__value ll
r0 = *(u64 *)(r1 + 0)
r0 = 0
exit
