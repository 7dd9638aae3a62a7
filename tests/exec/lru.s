// LRU hash maps: which keys survive (the kernel's LRU lists on one CPU,
// with its local free list and target_free batches, decide).
// Each program inserts keys, touches some, inserts more, then returns a
// bitmask of the keys still present.

@@ lru_4_insert_5
@map h:lru_hash:4:8:4
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
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 5 goto l_chk_%=;
r0 = r6;
exit;

@@ lru_8_insert_16
@map h:lru_hash:4:8:8
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
if r7 < 16 goto l_ins_%=;
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 16 goto l_chk_%=;
r0 = r6;
exit;

@@ lru_8_touch_then_insert
@map h:lru_hash:4:8:8
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
if r7 < 8 goto l_ins_%=;
*(u32 *)(r10 - 4) = 0;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
*(u32 *)(r10 - 4) = 3;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
r7 = 8;
l_ins2_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r7 += 1;
if r7 < 14 goto l_ins2_%=;
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 14 goto l_chk_%=;
r0 = r6;
exit;

@@ lru_update_existing_and_noexist
@map h:lru_hash:4:8:4
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
if r7 < 4 goto l_ins_%=;
*(u32 *)(r10 - 4) = 1;
*(u64 *)(r10 - 16) = 7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r8 = r0;
r8 &= 0xff;
*(u32 *)(r10 - 4) = 2;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 1;
call bpf_map_update_elem;
r0 &= 0xff;
r8 <<= 8;
r8 |= r0;
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = *(u64 *)(r0 + 0);
r1 <<= 4;
r1 |= r7;
r6 <<= 8;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 4 goto l_chk_%=;
r8 <<= 16;
r0 = r6;
r0 ^= r8;
exit;

@@ lru_delete_then_insert
@map h:lru_hash:4:8:4
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
if r7 < 4 goto l_ins_%=;
*(u32 *)(r10 - 4) = 2;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_delete_elem;
r7 = 4;
l_ins2_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r7 += 1;
if r7 < 7 goto l_ins2_%=;
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 7 goto l_chk_%=;
r0 = r6;
exit;

@@ lru_no_common_8_insert_16
@map h:lru_hash:4:8:8:0x2
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
if r7 < 16 goto l_ins_%=;
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 16 goto l_chk_%=;
r0 = r6;
exit;

@@ lru_percpu_update_in_place
@map h:lru_percpu_hash:4:8:4
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
if r7 < 6 goto l_ins_%=;
*(u32 *)(r10 - 4) = 5;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_none_%=;
r9 = r0;
*(u64 *)(r10 - 16) = 9;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r9 = *(u64 *)(r9 + 0);
r6 = 0;
r7 = 0;
l_chk_%=:
*(u32 *)(r10 - 4) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_miss_%=;
r1 = 1;
r1 <<= r7;
r6 |= r1;
l_miss_%=:
r7 += 1;
if r7 < 6 goto l_chk_%=;
r9 <<= 8;
r0 = r6;
r0 |= r9;
exit;
l_none_%=:
r0 = 999;
exit;

@@ lru_evicted_pointer_sees_new_element
@map h:lru_hash:4:8:2
r7 = 0;
l_ins_%=:
*(u32 *)(r10 - 4) = r7;
*(u64 *)(r10 - 16) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r7 += 1;
if r7 < 2 goto l_ins_%=;
*(u32 *)(r10 - 4) = 0;
r1 = h ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_none_%=;
r9 = r0;
r7 = 10;
l_ins2_%=:
*(u32 *)(r10 - 4) = r7;
*(u64 *)(r10 - 16) = r7;
r1 = h ll;
r2 = r10;
r2 += -4;
r3 = r10;
r3 += -16;
r4 = 0;
call bpf_map_update_elem;
r7 += 1;
if r7 < 13 goto l_ins2_%=;
r0 = *(u64 *)(r9 + 0);
exit;
l_none_%=:
r0 = 999;
exit;
