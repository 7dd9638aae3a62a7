# oracle: --type socket_filter --test-run --log-level 1
# oracle: --map counters:array:4:8:4 --map table:hash:4:8:16 --map answer:array:4:8:1
# oracle: --map-update answer:00000000:2a00000000000000
# An array and a hash lookup (both inlined by map_gen_lookup), then a direct
# load from the value of the single-entry array `answer` (BPF_PSEUDO_MAP_VALUE),
# whose initial contents make the test run return 42.
r1 = 0
*(u32 *)(r10 - 4) = r1
r2 = r10
r2 += -4
r1 = counters ll
call bpf_map_lookup_elem
if r0 == 0 goto 1f
r6 = *(u64 *)(r0 + 0)
1:
r2 = r10
r2 += -4
r1 = table ll
call bpf_map_lookup_elem
if r0 == 0 goto 2f
r7 = *(u64 *)(r0 + 0)
2:
r1 = answer__value ll
r0 = *(u64 *)(r1 + 0)
exit
