// The xdp_md of a test run and the helpers that move its data.

@@ xdp_data_len
@type xdp
r2 = *(u32 *)(r1 + 0);
r3 = *(u32 *)(r1 + 4);
r0 = r3;
r0 -= r2;
exit;

@@ xdp_md_fields
@type xdp
r0 = *(u32 *)(r1 + 12);
r2 = *(u32 *)(r1 + 16);
r2 <<= 8;
r0 |= r2;
exit;

@@ xdp_meta_equals_data
@type xdp
r2 = *(u32 *)(r1 + 0);
r3 = *(u32 *)(r1 + 8);
r0 = 1;
if r2 == r3 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ xdp_write_data_out
@type xdp
r2 = *(u32 *)(r1 + 0);
r3 = *(u32 *)(r1 + 4);
r4 = r2;
r4 += 8;
if r4 > r3 goto l_out_%=;
r5 = 0x0102030405060708 ll;
*(u64 *)(r2 + 0) = r5;
l_out_%=:
r0 = 2;
exit;

@@ xdp_adjust_head_shrink
@type xdp
r6 = r1;
r2 = 10;
call bpf_xdp_adjust_head;
r7 = r0;
r2 = *(u32 *)(r6 + 0);
r3 = *(u32 *)(r6 + 4);
r3 -= r2;
r0 = r7;
r0 <<= 16;
r0 |= r3;
exit;

@@ xdp_adjust_head_grow_data_out
@type xdp
r6 = r1;
r2 = -8;
call bpf_xdp_adjust_head;
r2 = *(u32 *)(r6 + 0);
r3 = *(u32 *)(r6 + 4);
r4 = r2;
r4 += 1;
if r4 > r3 goto l_out_%=;
*(u8 *)(r2 + 0) = 0x77;
l_out_%=:
r0 = 2;
exit;

@@ xdp_adjust_head_too_far
@type xdp
r2 = -300;
call bpf_xdp_adjust_head;
exit;

@@ xdp_adjust_head_past_end
@type xdp
r2 = 60;
call bpf_xdp_adjust_head;
exit;

@@ xdp_adjust_tail_shrink
@type xdp
r6 = r1;
r2 = -14;
call bpf_xdp_adjust_tail;
r7 = r0;
r2 = *(u32 *)(r6 + 0);
r3 = *(u32 *)(r6 + 4);
r3 -= r2;
r0 = r7;
r0 <<= 16;
r0 |= r3;
exit;

@@ xdp_adjust_tail_grow
@type xdp
r6 = r1;
r2 = 100;
call bpf_xdp_adjust_tail;
r7 = r0;
r2 = *(u32 *)(r6 + 0);
r3 = *(u32 *)(r6 + 4);
r3 -= r2;
r0 = r7;
r0 <<= 16;
r0 |= r3;
exit;

@@ xdp_adjust_tail_too_small
@type xdp
r2 = -60;
call bpf_xdp_adjust_tail;
exit;

@@ xdp_adjust_meta
@type xdp
r6 = r1;
r2 = -8;
call bpf_xdp_adjust_meta;
r7 = r0;
r2 = *(u32 *)(r6 + 8);
r3 = *(u32 *)(r6 + 0);
r4 = r2;
r4 += 8;
if r4 > r3 goto l_out_%=;
*(u32 *)(r2 + 0) = 0xabcdef;
r3 -= r2;
r0 = r7;
r0 <<= 16;
r0 |= r3;
exit;
l_out_%=:
r0 = 99;
exit;

@@ xdp_adjust_meta_unaligned
@type xdp
r2 = -3;
call bpf_xdp_adjust_meta;
exit;

@@ xdp_adjust_meta_too_big
@type xdp
r2 = -36;
call bpf_xdp_adjust_meta;
exit;

@@ xdp_get_buff_len
@type xdp
call bpf_xdp_get_buff_len;
exit;

@@ xdp_load_store_bytes
@type xdp
@data-hex 00112233445566778899aabbccddeeff 00000000000000000000000000000000
r6 = r1;
r2 = 4;
r3 = r10;
r3 += -8;
r4 = 8;
call bpf_xdp_load_bytes;
r1 = r6;
r2 = 20;
r3 = r10;
r3 += -8;
r4 = 8;
call bpf_xdp_store_bytes;
r0 = 2;
exit;

@@ xdp_redirect
@type xdp
r1 = 1;
r2 = 0;
call bpf_redirect;
exit;

@@ xdp_empty_data
@type xdp
@data-len 0
r0 = 2;
exit;
