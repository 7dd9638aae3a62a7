// Helpers whose results are deterministic in a test run.

@@ prandom_is_u32
call bpf_get_prandom_u32;
r0 >>= 32;
r0 += 1;
exit;

@@ ktime_is_monotonic
call bpf_ktime_get_ns;
r6 = r0;
call bpf_ktime_get_ns;
r1 = 1;
if r0 >= r6 goto l_out_%=;
r1 = 2;
l_out_%=:
r0 = r1;
exit;

@@ smp_processor_id
call bpf_get_smp_processor_id;
r0 += 1;
exit;

@@ numa_node_id
call bpf_get_numa_node_id;
r0 += 1;
exit;

@@ probe_read_kernel_stack
r1 = 0x1122334455667788 ll;
*(u64 *)(r10 - 16) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = r10;
r3 += -16;
call bpf_probe_read_kernel;
r1 = *(u64 *)(r10 - 8);
r0 += r1;
exit;

@@ probe_read_kernel_null
*(u64 *)(r10 - 8) = -1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 0;
call bpf_probe_read_kernel;
r1 = *(u64 *)(r10 - 8);
r0 += r1;
exit;

@@ probe_read_kernel_str
r1 = 0x0000006f6c6c6568 ll;
*(u64 *)(r10 - 16) = r1;
*(u64 *)(r10 - 8) = -1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = r10;
r3 += -16;
call bpf_probe_read_kernel_str;
r1 = *(u64 *)(r10 - 8);
r0 <<= 56;
r0 ^= r1;
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ probe_read_kernel_str_truncates
r1 = 0x6867666564636261 ll;
*(u64 *)(r10 - 16) = r1;
*(u64 *)(r10 - 24) = r1;
r1 = r10;
r1 += -24;
r2 = 4;
r3 = r10;
r3 += -16;
call bpf_probe_read_kernel_str;
r1 = *(u64 *)(r10 - 24);
r0 <<= 56;
r0 ^= r1;
r1 = r0;
r1 >>= 32;
r0 ^= r1;
exit;

@@ strtol_decimal
r1 = 0x00333231202d2020 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -16;
call bpf_strtol;
r1 = *(u64 *)(r10 - 16);
r0 <<= 16;
r0 += r1;
exit;

@@ strtoul_hex_auto
r1 = 0x0000006666317830 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -16;
call bpf_strtoul;
r1 = *(u64 *)(r10 - 16);
r0 <<= 16;
r0 += r1;
exit;

@@ strtoul_negative
r1 = 0x000000000035312d ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 10;
r4 = r10;
r4 += -16;
call bpf_strtoul;
exit;

@@ strtol_bad_base
r1 = 0x0000000000003531 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 7;
r4 = r10;
r4 += -16;
call bpf_strtol;
exit;

@@ strtol_no_digits
r1 = 0x00000000007a7a7a ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -16;
call bpf_strtol;
exit;

@@ csum_diff_to_only
@type tc
r1 = 0x0807060504030201 ll;
*(u64 *)(r10 - 8) = r1;
r1 = 0;
r2 = 0;
r3 = r10;
r3 += -8;
r4 = 8;
r5 = 0;
call bpf_csum_diff;
exit;

@@ csum_diff_from_to
@type tc
r1 = 0x0807060504030201 ll;
*(u64 *)(r10 - 8) = r1;
r1 = 0x1111111122222222 ll;
*(u64 *)(r10 - 16) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = r10;
r3 += -16;
r4 = 8;
r5 = 0x1234;
call bpf_csum_diff;
exit;

@@ csum_diff_from_only
@type tc
r1 = 0x0807060504030201 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 0;
r4 = 0;
r5 = 0xffff;
call bpf_csum_diff;
exit;

@@ csum_diff_equal
@type tc
r1 = 0x0807060504030201 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = r10;
r3 += -8;
r4 = 8;
r5 = 0;
call bpf_csum_diff;
exit;

@@ csum_diff_seed_only
@type tc
r1 = 0;
r2 = 0;
r3 = 0;
r4 = 0;
r5 = 0x12345678;
call bpf_csum_diff;
exit;

@@ csum_diff_carry
@type tc
r1 = -1;
*(u64 *)(r10 - 8) = r1;
*(u64 *)(r10 - 16) = r1;
r1 = 0;
r2 = 0;
r3 = r10;
r3 += -16;
r4 = 16;
r5 = -1;
call bpf_csum_diff;
exit;

@@ uid_gid
call bpf_get_current_uid_gid;
r0 += 3;
exit;

@@ trace_printk_len
r1 = 0x000a64252078 ll;
*(u64 *)(r10 - 8) = r1;
r1 = r10;
r1 += -8;
r2 = 8;
r3 = 12345;
call bpf_trace_printk;
exit;
