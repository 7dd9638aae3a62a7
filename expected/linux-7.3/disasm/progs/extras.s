# oracle: --type socket_filter --log-level 2 --map arr:array:4:8:1
# Forms the ISA corpus does not give: load-acquire and store-release (LLVM
# 19 cannot write them), a map and a map value load, helper and kfunc
# calls, a bpf-to-bpf call and a subprogram address.
r1 = 0
*(u64 *)(r10 - 8) = r1
*(u64 *)(r10 - 16) = r1
r2 = r10
.8byte 0x00000100fff8a2d3
.8byte 0x00000100fff0a2cb
.8byte 0x00000100fffca2c3
.8byte 0x00000100fff8a2db
.8byte 0x00000110fff82ad3
.8byte 0x00000110fff02acb
.8byte 0x00000110fffc2ac3
.8byte 0x00000110fff82adb
r1 = arr ll
r2 = r10
r2 += -4
call bpf_map_lookup_elem
r1 = arr__value ll
call bpf_get_prandom_u32
call bpf_ktime_get_ns
r1 = r10
r1 += -16
r2 = 0
r3 = 4
call bpf_iter_num_new
r1 = r10
r1 += -16
call bpf_iter_num_destroy
call sub
r2 = sub ll
r0 = 0
exit
sub:
r0 = 1
exit
