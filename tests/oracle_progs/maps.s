# oracle: --type socket_filter --test-run --log-level 2 --map vals:array:4:8:2 --map-update vals:01000000:0500000000000000 --map seen:hash:8:8:16 --map-update seen:0700000000000000:2500000000000000
# Map lookups, each result checked against NULL: element 1 of an array map
# (7.3 inlines the lookup into the xlated program) and key 7 of a hash map
# (a call of the hash table's own lookup, then the value's offset added);
# both elements set before the load. Returns 5 + 37 = 42.
r1 = 1
*(u32 *)(r10 - 4) = r1
r2 = r10
r2 += -4
r1 = vals ll
call bpf_map_lookup_elem
r6 = 0
if r0 == 0 goto 1f
r6 = *(u64 *)(r0 + 0)
1:
r1 = 7
*(u64 *)(r10 - 16) = r1
r2 = r10
r2 += -16
r1 = seen ll
call bpf_map_lookup_elem
if r0 == 0 goto 2f
r1 = *(u64 *)(r0 + 0)
r6 += r1
2:
r0 = r6
exit
