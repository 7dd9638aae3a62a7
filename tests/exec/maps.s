// Maps: array, per-CPU array, hash (update flags, full map, old pointers
// after an update), LRU, queue/stack, bloom filter, ring buffer, for_each.

@@ array_lookup_update
@map arr:array:4:8:4
*(u32 *)(r10 - 4) = 2;
*(u64 *)(r10 - 16) = 41;
r1 = arr ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r6 = r0;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r0 = *(u64 *)(r0 + 0);
r0 += 1;
r0 += r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ array_lookup_out_of_range
@map arr:array:4:8:4
*(u32 *)(r10 - 4) = 4;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r0 = 1;
exit;
l_null_%=:
r0 = 2;
exit;

@@ array_update_errors
@map arr:array:4:8:4
*(u32 *)(r10 - 4) = 4;
*(u64 *)(r10 - 16) = 1;
r1 = arr ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r6 = r0;
r6 &= 0xff;
*(u32 *)(r10 - 4) = 0;
r1 = arr ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 1;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r1 = arr ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 3;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_delete_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r0 = r6;
exit;

@@ array_direct_value
@map arr:array:4:16:1
r1 = arr__value ll;
*(u64 *)(r1 + 8) = 31;
*(u32 *)(r10 - 4) = 0;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r0 = *(u64 *)(r0 + 8);
exit;
l_null_%=:
r0 = 999;
exit;

@@ array_values_are_8_byte_strided
@map arr:array:4:4:4
*(u32 *)(r10 - 4) = 1;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r6 = r0;
*(u32 *)(r10 - 4) = 0;
r1 = arr ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r6 -= r0;
r0 = r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ percpu_array
@map pa:percpu_array:4:8:2
*(u32 *)(r10 - 4) = 1;
*(u64 *)(r10 - 16) = 77;
r1 = pa ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r1 = pa ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r0 = *(u64 *)(r0 + 0);
exit;
l_null_%=:
r0 = 999;
exit;

@@ percpu_lookup_other_cpu
@map pa:percpu_array:4:8:2
*(u32 *)(r10 - 4) = 1;
r1 = pa ll;
r2 = r10;
r2 += -4;
r3 = 1;
call bpf_map_lookup_percpu_elem;
r6 = 1;
if r0 == 0 goto l1_%=;
r6 = 2;
l1_%=:
r1 = pa ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_lookup_percpu_elem;
r0 = r6;
if r0 == 0 goto l2_%=;
r0 += 10;
l2_%=:
exit;

@@ hash_insert_lookup_delete
@map h:hash:4:8:4
*(u32 *)(r10 - 4) = 7;
*(u64 *)(r10 - 16) = 70;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
r6 = 1;
if r0 == 0 goto l1_%=;
r6 = 100;
l1_%=:
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r1 = *(u64 *)(r0 + 0);
r6 += r1;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_delete_elem;
r6 += r0;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_delete_elem;
r0 &= 0xff;
r6 <<= 8;
r6 += r0;
r0 = r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ hash_update_flags
@map h:hash:4:8:4
*(u32 *)(r10 - 4) = 1;
*(u64 *)(r10 - 16) = 5;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 2;
call bpf_map_update_elem;
r6 = r0;
r6 &= 0xff;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 1;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 1;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 2;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r0 = r6;
exit;

@@ hash_full
@map h:hash:4:8:2
*(u64 *)(r10 - 16) = 5;
r6 = 0;
r7 = 0;
l_loop_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r6 <<= 8;
r0 &= 0xff;
r6 |= r0;
r7 += 1;
if r7 < 3 goto l_loop_%=;
*(u32 *)(r10 - 4) = 0;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r0 = r6;
exit;

@@ hash_old_pointer_after_update
@map h:hash:4:8:4
*(u32 *)(r10 - 4) = 1;
*(u64 *)(r10 - 16) = 5;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r6 = r0;
*(u64 *)(r10 - 16) = 9;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r0 = *(u64 *)(r6 + 0);
exit;
l_null_%=:
r0 = 999;
exit;

@@ hash_value_write_through_pointer
@map h:hash:8:16:4
*(u64 *)(r10 - 8) = 3;
*(u64 *)(r10 - 24) = 1;
*(u64 *)(r10 - 16) = 2;
r1 = h ll;
r2 = r10;
r2 += -8;
r3 = r10;
r3 += -24;
r4 = 0;
call bpf_map_update_elem;
r1 = h ll;
r2 = r10;
r2 += -8;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
*(u64 *)(r0 + 8) = 40;
r1 = h ll;
r2 = r10;
r2 += -8;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r1 = *(u64 *)(r0 + 0);
r0 = *(u64 *)(r0 + 8);
r0 += r1;
exit;
l_null_%=:
r0 = 999;
exit;

@@ percpu_hash_update_in_place
@map h:percpu_hash:4:8:4
*(u32 *)(r10 - 4) = 1;
*(u64 *)(r10 - 16) = 5;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r6 = r0;
*(u64 *)(r10 - 16) = 9;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r0 = *(u64 *)(r6 + 0);
exit;
l_null_%=:
r0 = 999;
exit;

@@ lru_hash_evicts
@map h:lru_hash:4:8:8
*(u64 *)(r10 - 16) = 5;
r7 = 0;
l_loop_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
if r0 != 0 goto l_err_%=;
r7 += 1;
if r7 < 32 goto l_loop_%=;
r0 = 1;
exit;
l_err_%=:
r0 = r7;
r0 += 100;
exit;

@@ queue_fifo
@map q:queue:0:4:4
*(u32 *)(r10 - 4) = 1;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
*(u32 *)(r10 - 4) = 2;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_pop_elem;
r6 = *(u32 *)(r10 - 8);
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_peek_elem;
r0 = *(u32 *)(r10 - 8);
r6 <<= 8;
r0 += r6;
exit;

@@ stack_lifo
@map q:stack:0:4:4
*(u32 *)(r10 - 4) = 1;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
*(u32 *)(r10 - 4) = 2;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_pop_elem;
r6 = *(u32 *)(r10 - 8);
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_pop_elem;
r0 = *(u32 *)(r10 - 8);
r6 <<= 8;
r0 += r6;
exit;

@@ queue_empty_and_full
@map q:queue:0:4:2
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_pop_elem;
r6 = r0;
r6 &= 0xff;
*(u32 *)(r10 - 4) = 1;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
*(u32 *)(r10 - 4) = 9;
r1 = q ll;
r2 = r10;
r2 += -4;
r3 = 2;
call bpf_map_push_elem;
r0 &= 0xff;
r6 <<= 8;
r6 |= r0;
r1 = q ll;
r2 = r10;
r2 += -8;
call bpf_map_pop_elem;
r0 = *(u32 *)(r10 - 8);
r6 <<= 8;
r6 |= r0;
r0 = r6;
exit;

@@ bloom_filter
@map b:bloom_filter:0:4:16
*(u32 *)(r10 - 4) = 42;
r1 = b ll;
r2 = r10;
r2 += -4;
r3 = 0;
call bpf_map_push_elem;
*(u32 *)(r10 - 4) = 42;
r1 = b ll;
r2 = r10;
r2 += -4;
call bpf_map_peek_elem;
r6 = r0;
r6 &= 0xff;
*(u32 *)(r10 - 4) = 43;
r1 = b ll;
r2 = r10;
r2 += -4;
call bpf_map_peek_elem;
r0 &= 0xff;
r6 <<= 8;
r0 |= r6;
exit;

@@ ringbuf_reserve_submit_query
@map rb:ringbuf:0:0:4096
r1 = rb ll;
r2 = 20;
r3 = 0;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null_%=;
*(u64 *)(r0 + 0) = 1;
r1 = r0;
r2 = 0;
call bpf_ringbuf_submit;
r1 = rb ll;
r2 = 0;
call bpf_ringbuf_query;
r6 = r0;
r1 = rb ll;
r2 = 1;
call bpf_ringbuf_query;
r6 <<= 16;
r6 += r0;
r1 = rb ll;
r2 = 3;
call bpf_ringbuf_query;
r6 <<= 8;
r0 += r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ ringbuf_output_until_full
@map rb:ringbuf:0:0:4096
*(u64 *)(r10 - 8) = 1;
r6 = 0;
l_loop_%=:
r1 = rb ll;
r2 = r10;
r2 += -8;
r3 = 8;
r4 = 0;
call bpf_ringbuf_output;
if r0 != 0 goto l_full_%=;
r6 += 1;
if r6 < 1000 goto l_loop_%=;
l_full_%=:
r0 &= 0xff;
r6 <<= 8;
r0 |= r6;
exit;

@@ ringbuf_reserve_too_big
@map rb:ringbuf:0:0:4096
r1 = rb ll;
r2 = 4096;
r3 = 0;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null_%=;
r1 = r0;
r2 = 0;
call bpf_ringbuf_discard;
r0 = 1;
exit;
l_null_%=:
r0 = 2;
exit;

@@ ringbuf_discard_then_reserve
@map rb:ringbuf:0:0:4096
r1 = rb ll;
r2 = 2000;
r3 = 0;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null_%=;
r1 = r0;
r2 = 0;
call bpf_ringbuf_discard;
r1 = rb ll;
r2 = 2000;
r3 = 0;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null2_%=;
r1 = r0;
r2 = 0;
call bpf_ringbuf_submit;
r1 = rb ll;
r2 = 3;
call bpf_ringbuf_query;
exit;
l_null2_%=:
r0 = 2;
exit;
l_null_%=:
r0 = 1;
exit;

@@ for_each_array
@map arr:array:4:8:5
*(u64 *)(r10 - 8) = 0;
r1 = arr ll;
r2 = sum_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_for_each_map_elem;
r1 = *(u64 *)(r10 - 8);
r0 <<= 16;
r0 += r1;
exit;
sum_cb:
r2 = *(u32 *)(r2 + 0);
r2 += 1;
r1 = *(u64 *)(r4 + 0);
r1 *= 10;
r1 += r2;
*(u64 *)(r4 + 0) = r1;
r0 = 0;
exit;

@@ for_each_array_stop
@map arr:array:4:8:5
r1 = arr ll;
r2 = stop_cb ll;
r3 = 0;
r4 = 0;
call bpf_for_each_map_elem;
exit;
stop_cb:
r0 = 0;
r2 = *(u32 *)(r2 + 0);
if r2 != 2 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ for_each_hash
@map h:hash:4:8:8
*(u64 *)(r10 - 16) = 3;
*(u32 *)(r10 - 4) = 10;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
*(u64 *)(r10 - 16) = 4;
*(u32 *)(r10 - 4) = 20;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
*(u64 *)(r10 - 24) = 0;
r1 = h ll;
r2 = hsum_cb ll;
r3 = r10;
r3 += -24;
r4 = 0;
call bpf_for_each_map_elem;
r1 = *(u64 *)(r10 - 24);
r0 <<= 16;
r0 += r1;
exit;
hsum_cb:
r2 = *(u32 *)(r2 + 0);
r3 = *(u64 *)(r3 + 0);
r2 *= r3;
r1 = *(u64 *)(r4 + 0);
r1 += r2;
*(u64 *)(r4 + 0) = r1;
r0 = 0;
exit;

@@ for_each_percpu_array
@map pa:percpu_array:4:8:3
*(u64 *)(r10 - 8) = 0;
r1 = pa ll;
r2 = pcount_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_for_each_map_elem;
r1 = *(u64 *)(r10 - 8);
r0 <<= 16;
r0 += r1;
exit;
pcount_cb:
r1 = *(u64 *)(r4 + 0);
r2 = *(u32 *)(r2 + 0);
r1 += r2;
r1 += 10;
*(u64 *)(r4 + 0) = r1;
r0 = 0;
exit;

@@ for_each_hash_delete_in_callback
@map h:hash:4:8:8
*(u64 *)(r10 - 16) = 1;
r7 = 0;
l_ins_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r7 += 1;
if r7 < 5 goto l_ins_%=;
*(u64 *)(r10 - 24) = 0;
r1 = h ll;
r2 = del_cb ll;
r3 = r10;
r3 += -24;
r4 = 0;
call bpf_for_each_map_elem;
r6 = r0;
r6 <<= 8;
r1 = *(u64 *)(r10 - 24);
r6 |= r1;
r7 = 0;
r8 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r8 += 1;
l_miss_%=:
r7 += 1;
if r7 < 5 goto l_chk_%=;
r6 <<= 8;
r0 = r6;
r0 |= r8;
exit;
del_cb:
r6 = r4;
r7 = *(u32 *)(r2 + 0);
r8 = *(u64 *)(r6 + 0);
r8 += r7;
*(u64 *)(r6 + 0) = r8;
r0 = 0;
if r7 & 1 goto l_del_%=;
exit;
l_del_%=:
call bpf_map_delete_elem;
r0 = 0;
exit;

@@ ringbuf_output_bad_flags
@map rb:ringbuf:0:0:4096
*(u64 *)(r10 - 8) = 1;
r1 = rb ll;
r2 = r10;
r2 += -8;
r3 = 8;
r4 = 4;
call bpf_ringbuf_output;
exit;

@@ ringbuf_reserve_flags
@map rb:ringbuf:0:0:4096
r1 = rb ll;
r2 = 8;
r3 = 1;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null_%=;
r1 = r0;
r2 = 0;
call bpf_ringbuf_discard;
r0 = 1;
exit;
l_null_%=:
r0 = 2;
exit;

@@ ringbuf_query_after_discard
@map rb:ringbuf:0:0:8192
r1 = rb ll;
r2 = 100;
r3 = 0;
call bpf_ringbuf_reserve;
if r0 == 0 goto l_null_%=;
r1 = r0;
r2 = 0;
call bpf_ringbuf_discard;
r1 = rb ll;
r2 = 0;
call bpf_ringbuf_query;
r6 = r0;
r1 = rb ll;
r2 = 2;
call bpf_ringbuf_query;
r6 <<= 16;
r0 |= r6;
exit;
l_null_%=:
r0 = 999;
exit;
