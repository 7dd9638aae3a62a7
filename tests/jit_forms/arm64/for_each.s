# oracle: --type socket_filter --map arr:array:4:8:4
r1 = arr ll
r2 = cb ll
r3 = r10
r3 += -8
r4 = 0
*(u64 *)(r10 - 8) = r4
call bpf_for_each_map_elem
r0 = 0
exit
cb:
r0 = *(u64 *)(r3 + 0)
r0 += 1
*(u64 *)(r3 + 0) = r0
r0 = 0
exit
