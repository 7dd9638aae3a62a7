# oracle: --type socket_filter --unpriv --map arr:array:4:48:1
r1 = 0
*(u32 *)(r10 - 4) = r1
r2 = r10
r2 += -4
r1 = arr ll
call bpf_map_lookup_elem
if r0 == 0 goto out
r1 = *(u32 *)(r0 + 0)
if r1 > 8 goto out
r0 += r1
r0 = *(u8 *)(r0 + 0)
out:
r0 = 0
exit
