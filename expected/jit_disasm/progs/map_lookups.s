# oracle: --type socket_filter --map counts:percpu_array:4:8:4 --map pairs:hash:4:16:8
# A per-CPU array lookup and a hash lookup, each result checked against
# NULL: what 7.3 inlines of them, and the per-CPU offset, in the image.
r1 = 2
*(u32 *)(r10 - 4) = r1
r2 = r10
r2 += -4
r1 = counts ll
call bpf_map_lookup_elem
if r0 == 0 goto 1f
r1 = *(u64 *)(r0 + 0)
r1 += 1
*(u64 *)(r0 + 0) = r1
1:
r2 = r10
r2 += -4
r1 = pairs ll
call bpf_map_lookup_elem
if r0 == 0 goto 2f
r0 = *(u64 *)(r0 + 8)
2:
r0 = 0
exit
