// The __sk_buff a test run gives socket filters (L3: the MAC header pulled)
// and tc programs (L2), for 64 zero bytes and for an IPv4 frame; LD_ABS,
// skb_load_bytes, skb_store_bytes and direct packet writes (data_out).

@@ socket_len
r0 = *(u32 *)(r1 + 0);
exit;

@@ tc_len
@type tc
r0 = *(u32 *)(r1 + 0);
exit;

@@ socket_protocol_zero_frame
r0 = *(u32 *)(r1 + 16);
exit;

@@ socket_protocol_ipv4
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r0 = *(u32 *)(r1 + 16);
exit;

@@ socket_protocol_802_3
@data-hex 000000000000 000000000000 0010 ffff 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
r0 = *(u32 *)(r1 + 16);
exit;

@@ socket_pkt_type_broadcast
@data-hex ffffffffffff 000000000000 0800 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
r0 = *(u32 *)(r1 + 4);
exit;

@@ socket_pkt_type_multicast
@data-hex 010000000000 000000000000 0800 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
r0 = *(u32 *)(r1 + 4);
exit;

@@ socket_pkt_type_otherhost
@data-hex 020000000000 000000000000 0800 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
r0 = *(u32 *)(r1 + 4);
exit;

@@ socket_ifindex_fields
r0 = *(u32 *)(r1 + 40);
r2 = *(u32 *)(r1 + 36);
r2 <<= 8;
r0 |= r2;
r2 = *(u32 *)(r1 + 8);
r2 <<= 16;
r0 |= r2;
r2 = *(u32 *)(r1 + 32);
r2 <<= 24;
r0 |= r2;
exit;

@@ socket_misc_fields
r0 = *(u32 *)(r1 + 12);
r2 = *(u32 *)(r1 + 20);
r0 += r2;
r2 = *(u32 *)(r1 + 24);
r0 += r2;
r2 = *(u32 *)(r1 + 28);
r0 += r2;
r2 = *(u32 *)(r1 + 44);
r0 += r2;
r2 = *(u32 *)(r1 + 48);
r0 += r2;
r2 = *(u32 *)(r1 + 64);
r0 += r2;
r2 = *(u32 *)(r1 + 68);
r0 += r2;
r2 = *(u32 *)(r1 + 84);
r0 += r2;
r0 += 1;
exit;

@@ socket_cb_write_read
r2 = 0x55;
*(u32 *)(r1 + 52) = r2;
r0 = *(u32 *)(r1 + 52);
exit;

@@ socket_narrow_protocol
@data-hex 000000000000 000000000000 86dd 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
r0 = *(u16 *)(r1 + 16);
r2 = *(u8 *)(r1 + 16);
r2 <<= 16;
r0 |= r2;
exit;

@@ tc_data_len
@type tc
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 80);
r0 = r3;
r0 -= r2;
exit;

@@ tc_data_meta_equals_data
@type tc
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 140);
r0 = 1;
if r2 == r3 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ tc_read_packet
@type tc
@data-hex 0a0b0c0d0e0f 101112131415 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 80);
r4 = r2;
r4 += 34;
if r4 > r3 goto l_out_%=;
r0 = *(u32 *)(r2 + 30);
exit;
l_out_%=:
r0 = 0;
exit;

@@ tc_write_packet_data_out
@type tc
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 80);
r4 = r2;
r4 += 16;
if r4 > r3 goto l_out_%=;
r5 = 0x1122334455667788 ll;
*(u64 *)(r2 + 8) = r5;
*(u8 *)(r2 + 0) = 0xaa;
l_out_%=:
r0 = 0;
exit;

@@ cgroup_skb_family
@type cgroup/skb
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = *(u32 *)(r1 + 88);
r0 = 0;
if r2 != 2 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ cgroup_skb_remote_ip4
@type cgroup/skb
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = *(u32 *)(r1 + 92);
r0 = 0;
if w2 != 0x08070605 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ cgroup_skb_local_ip4
@type cgroup/skb
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = *(u32 *)(r1 + 96);
r0 = 0;
if w2 != 0x04030201 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ cgroup_skb_family_zero_frame
@type cgroup/skb
r2 = *(u32 *)(r1 + 88);
r0 = 0;
if r2 != 0 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ tc_sk_present
@type tc
r1 = *(u64 *)(r1 + 168);
r0 = 1;
if r1 == 0 goto l_out_%=;
r0 = 2;
l_out_%=:
exit;

@@ tc_sk_fields
@type tc
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r1 = *(u64 *)(r1 + 168);
if r1 == 0 goto l_out_%=;
r0 = *(u32 *)(r1 + 4);
r2 = *(u32 *)(r1 + 24);
r0 ^= r2;
r2 = *(u32 *)(r1 + 52);
r0 ^= r2;
exit;
l_out_%=:
r0 = 999;
exit;

@@ tc_sk_fullsock_state
@type tc
r1 = *(u64 *)(r1 + 168);
if r1 == 0 goto l_out_%=;
call bpf_sk_fullsock;
if r0 == 0 goto l_out_%=;
r6 = *(u32 *)(r0 + 72);
r7 = *(u32 *)(r0 + 8);
r7 <<= 8;
r6 |= r7;
r7 = *(u32 *)(r0 + 12);
r7 <<= 16;
r6 |= r7;
r0 = r6;
exit;
l_out_%=:
r0 = 999;
exit;

@@ tc_tcp_sock_null
@type tc
r1 = *(u64 *)(r1 + 168);
if r1 == 0 goto l_out_%=;
call bpf_tcp_sock;
if r0 == 0 goto l_out_%=;
r0 = 1;
exit;
l_out_%=:
r0 = 2;
exit;

@@ ld_abs_sizes
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r6 = r1;
r0 = *(u8 *)skb[9];
r7 = r0;
r0 = *(u16 *)skb[2];
r7 <<= 16;
r7 |= r0;
r0 = *(u32 *)skb[12];
r0 ^= r7;
exit;

@@ ld_abs_out_of_bounds_returns_zero
r6 = r1;
r0 = *(u32 *)skb[48];
r0 = 7;
exit;

@@ ld_abs_last_bytes
@data-hex 000000000000 000000000000 0800 0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000aabbcc
r6 = r1;
r0 = *(u16 *)skb[48];
exit;

@@ ld_ind
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r6 = r1;
r2 = 10;
r0 = *(u16 *)skb[r2];
r7 = r0;
r2 = 1;
r0 = *(u8 *)skb[r2];
r7 <<= 8;
r0 |= r7;
exit;

@@ ld_ind_negative_fails
r6 = r1;
r2 = -1;
r0 = *(u8 *)skb[r2];
r0 = 5;
exit;

@@ ld_abs_net_offset
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r6 = r1;
r0 = *(u8 *)skb[-1048567];
exit;

@@ ld_abs_ll_offset
@data-hex 010203040506 0708090a0b0c 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r6 = r1;
r0 = *(u32 *)skb[-2097148];
exit;

@@ ld_abs_ll_offset_tc
@type tc
@data-hex 010203040506 0708090a0b0c 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r6 = r1;
r0 = *(u32 *)skb[-2097148];
exit;

@@ ld_abs_in_subprog_exit
r6 = r1;
call sub;
r0 += 100;
exit;
sub:
r6 = r1;
r0 = *(u8 *)skb[1000];
r0 = 5;
exit;

@@ skb_load_bytes
@data-hex 000000000000 000000000000 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = 12;
r3 = r10;
r3 += -8;
r4 = 8;
call bpf_skb_load_bytes;
r1 = *(u64 *)(r10 - 8);
r2 = r1;
r2 >>= 32;
r1 ^= r2;
r0 <<= 24;
r0 ^= r1;
exit;

@@ skb_load_bytes_out_of_range
*(u64 *)(r10 - 8) = -1;
r2 = 46;
r3 = r10;
r3 += -8;
r4 = 8;
call bpf_skb_load_bytes;
r1 = *(u64 *)(r10 - 8);
r0 += r1;
exit;

@@ skb_load_bytes_tc
@type tc
@data-hex 0a0b0c0d0e0f 101112131415 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = 0;
r3 = r10;
r3 += -8;
r4 = 8;
call bpf_skb_load_bytes;
r0 = *(u32 *)(r10 - 8);
exit;

@@ skb_load_bytes_relative
@type tc
@data-hex 0a0b0c0d0e0f 101112131415 0800 4500001c000100004011000001020304 05060708 0000000000000000000000000000000000000000000000000000
r2 = 12;
r3 = r10;
r3 += -8;
r4 = 4;
r5 = 1;
call bpf_skb_load_bytes_relative;
r1 = *(u32 *)(r10 - 8);
r0 <<= 8;
r0 ^= r1;
exit;

@@ skb_store_bytes_data_out
@type tc
*(u64 *)(r10 - 8) = -1;
r2 = 20;
r3 = r10;
r3 += -8;
r4 = 4;
r5 = 0;
call bpf_skb_store_bytes;
exit;

@@ skb_store_bytes_out_of_range
@type tc
*(u64 *)(r10 - 8) = -1;
r2 = 60;
r3 = r10;
r3 += -8;
r4 = 8;
r5 = 0;
call bpf_skb_store_bytes;
exit;

@@ skb_store_bytes_bad_flags
@type tc
*(u64 *)(r10 - 8) = -1;
r2 = 0;
r3 = r10;
r3 += -8;
r4 = 8;
r5 = 4;
call bpf_skb_store_bytes;
exit;

@@ cgroup_skb_len
@type cgroup/skb
r0 = *(u32 *)(r1 + 0);
r0 &= 1;
exit;

@@ cgroup_skb_data
@type cgroup/skb
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 80);
r3 -= r2;
r0 = 1;
if r3 == 50 goto l_out_%=;
r0 = 0;
l_out_%=:
exit;

@@ lwt_in_len
@type lwt_in
r0 = *(u32 *)(r1 + 0);
exit;

@@ short_frame_einval
@data-len 13
r0 = 1;
exit;

@@ tc_redirect
@type tc
r1 = 1;
r2 = 0;
call bpf_redirect;
exit;

@@ tc_redirect_bad_flags
@type tc
r1 = 1;
r2 = 8;
call bpf_redirect;
exit;

@@ sk_lookup_tcp_null
@type tc
*(u64 *)(r10 - 8) = 0;
*(u64 *)(r10 - 16) = 0;
r2 = r10;
r2 += -16;
r3 = 12;
r4 = 0;
r5 = 0;
call bpf_sk_lookup_tcp;
if r0 == 0 goto l_out_%=;
r1 = r0;
call bpf_sk_release;
r0 = 1;
exit;
l_out_%=:
r0 = 2;
exit;

@@ tc_csum_update_checksum_none
@type tc
r2 = 0x1234;
call bpf_csum_update;
exit;

@@ tc_get_hash_recalc_nonzero
@type tc
r6 = r1;
call bpf_get_hash_recalc;
r7 = *(u32 *)(r6 + 68);
r1 = 0;
if r0 == 0 goto l_out_%=;
r1 = 1;
if r7 != r0 goto l_out_%=;
r1 = 2;
l_out_%=:
r0 = r1;
exit;

@@ tc_set_hash_then_read
@type tc
r6 = r1;
r2 = 0xabcd;
call bpf_set_hash;
r7 = *(u32 *)(r6 + 68);
r1 = r6;
call bpf_set_hash_invalid;
r1 = *(u32 *)(r6 + 68);
r0 = r7;
r0 <<= 4;
r0 |= r1;
exit;

@@ tc_cgroup_classid
@type tc
call bpf_get_cgroup_classid;
r0 += 3;
exit;

@@ lwt_xmit_change_head_data_out
@type lwt_xmit
r6 = r1;
r2 = 6;
r3 = 0;
call bpf_skb_change_head;
r7 = r0;
r0 = *(u32 *)(r6 + 0);
r7 <<= 16;
r0 |= r7;
exit;

@@ tc_change_head_bad_flags
@type tc
r2 = 6;
r3 = 1;
call bpf_skb_change_head;
exit;

@@ cgroup_skb_local_storage
@type cgroup/skb
@map st:cgroup_storage:8:8:0
r2 = 0;
r1 = st ll;
call bpf_get_local_storage;
r1 = *(u64 *)(r0 + 0);
r0 = 0;
if r1 != 0 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ xdp_fib_lookup_short
@type xdp
*(u64 *)(r10 - 8) = 0;
r2 = r10;
r2 += -8;
r3 = 8;
r4 = 0;
call bpf_fib_lookup;
exit;

@@ xdp_fib_lookup_unknown_family
@type xdp
r2 = r10;
r2 += -64;
*(u64 *)(r10 - 64) = 0;
*(u64 *)(r10 - 56) = 0;
*(u64 *)(r10 - 48) = 0;
*(u64 *)(r10 - 40) = 0;
*(u64 *)(r10 - 32) = 0;
*(u64 *)(r10 - 24) = 0;
*(u64 *)(r10 - 16) = 0;
*(u64 *)(r10 - 8) = 0;
r3 = 64;
r4 = 0;
call bpf_fib_lookup;
exit;

@@ tc_pull_data
@type tc
r6 = r1;
r2 = 20;
call bpf_skb_pull_data;
r7 = r0;
r1 = r6;
r2 = 100;
call bpf_skb_pull_data;
r7 <<= 8;
r0 &= 0xff;
r0 |= r7;
exit;
