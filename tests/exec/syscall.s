// syscall programs (no ctx in a test_loader run) and kfuncs: numeric and
// bits iterators, string kfuncs, dynptrs.

@@ syscall_retval
@type syscall
r0 = 0x12345678 ll;
exit;

@@ syscall_ctx_is_null
@type syscall
r0 = r1;
r0 += 3;
exit;

@@ iter_num_sum
@type syscall
r6 = r10;
r6 += -8;
r1 = r6;
r2 = 2;
r3 = 7;
call bpf_iter_num_new;
r7 = 0;
l_loop_%=:
r1 = r6;
call bpf_iter_num_next;
if r0 == 0 goto l_done_%=;
r1 = *(u32 *)(r0 + 0);
r7 += r1;
goto l_loop_%=;
l_done_%=:
r1 = r6;
call bpf_iter_num_destroy;
r0 = r7;
exit;

@@ iter_num_new_einval
@type syscall
r6 = r10;
r6 += -8;
r1 = r6;
r2 = 5;
r3 = 1;
call bpf_iter_num_new;
r7 = r0;
r1 = r6;
call bpf_iter_num_next;
r8 = r0;
r1 = r6;
call bpf_iter_num_destroy;
r0 = r7;
if r8 == 0 goto l_out_%=;
r0 = 1000;
l_out_%=:
exit;

@@ iter_num_new_e2big
@type syscall
r6 = r10;
r6 += -8;
r1 = r6;
r2 = 0;
r3 = 0x800001;
call bpf_iter_num_new;
r7 = r0;
r1 = r6;
call bpf_iter_num_destroy;
r0 = r7;
exit;

@@ iter_num_negative_range
@type syscall
r6 = r10;
r6 += -8;
r1 = r6;
r2 = -3;
r3 = 2;
call bpf_iter_num_new;
r7 = 0;
l_loop_%=:
r1 = r6;
call bpf_iter_num_next;
if r0 == 0 goto l_done_%=;
r1 = *(s32 *)(r0 + 0);
r7 *= 10;
r7 += r1;
goto l_loop_%=;
l_done_%=:
r1 = r6;
call bpf_iter_num_destroy;
r0 = r7;
exit;

@@ iter_bits_u64
@type syscall
r1 = 0x8000000000000105 ll;
*(u64 *)(r10 - 24) = r1;
r6 = r10;
r6 += -16;
r1 = r6;
r2 = r10;
r2 += -24;
r3 = 1;
call bpf_iter_bits_new;
r7 = 0;
l_loop_%=:
r1 = r6;
call bpf_iter_bits_next;
if r0 == 0 goto l_done_%=;
r1 = *(u32 *)(r0 + 0);
r7 *= 100;
r7 += r1;
goto l_loop_%=;
l_done_%=:
r1 = r6;
call bpf_iter_bits_destroy;
r0 = r7;
exit;

@@ iter_bits_two_words
@type syscall
*(u64 *)(r10 - 24) = 2;
*(u64 *)(r10 - 32) = 0x10;
r6 = r10;
r6 += -16;
r1 = r6;
r2 = r10;
r2 += -32;
r3 = 2;
call bpf_iter_bits_new;
r7 = 0;
l_loop_%=:
r1 = r6;
call bpf_iter_bits_next;
if r0 == 0 goto l_done_%=;
r1 = *(u32 *)(r0 + 0);
r7 *= 100;
r7 += r1;
goto l_loop_%=;
l_done_%=:
r1 = r6;
call bpf_iter_bits_destroy;
r0 = r7;
exit;

@@ iter_bits_zero_words
@type syscall
*(u64 *)(r10 - 24) = 2;
r6 = r10;
r6 += -16;
r1 = r6;
r2 = r10;
r2 += -24;
r3 = 0;
call bpf_iter_bits_new;
r7 = r0;
r1 = r6;
call bpf_iter_bits_destroy;
r0 = r7;
exit;

@@ dynptr_from_mem_read_write
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = 0x0807060504030201 ll;
*(u64 *)(r9 + 0) = r1;
r1 = r9;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r6 = r0;
*(u32 *)(r10 - 32) = 0xaabbccdd;
r1 = r10;
r1 += -24;
r2 = 2;
r3 = r10;
r3 += -32;
r4 = 4;
r5 = 0;
call bpf_dynptr_write;
r6 <<= 8;
r6 |= r0;
r1 = r10;
r1 += -40;
r2 = 4;
r3 = r10;
r3 += -24;
r4 = 3;
r5 = 0;
call bpf_dynptr_read;
r6 <<= 8;
r6 |= r0;
r0 = *(u32 *)(r10 - 40);
r0 ^= r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_read_out_of_range
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r1 = r10;
r1 += -40;
r2 = 4;
r3 = r10;
r3 += -24;
r4 = 5;
r5 = 0;
call bpf_dynptr_read;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_write_out_of_range
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
*(u64 *)(r10 - 40) = 0;
r1 = r10;
r1 += -24;
r2 = 6;
r3 = r10;
r3 += -40;
r4 = 4;
r5 = 0;
call bpf_dynptr_write;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_from_mem_bad_flags
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 8;
r3 = 1;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r6 = r0;
r1 = r10;
r1 += -24;
call bpf_dynptr_is_null;
// a kfunc's bool is only defined in the low byte (x86-64 leaves garbage above)
r0 &= 0xff;
r6 <<= 8;
r0 |= r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_size_adjust
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 16;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r1 = r10;
r1 += -24;
r2 = 4;
r3 = 10;
call bpf_dynptr_adjust;
r6 = r0;
r1 = r10;
r1 += -24;
call bpf_dynptr_size;
r6 <<= 8;
r0 |= r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_adjust_errors
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 16;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r1 = r10;
r1 += -24;
r2 = 10;
r3 = 4;
call bpf_dynptr_adjust;
r6 = r0;
r6 &= 0xff;
r1 = r10;
r1 += -24;
r2 = 0;
r3 = 17;
call bpf_dynptr_adjust;
r0 &= 0xff;
r6 <<= 8;
r0 |= r6;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_data
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = 0x0807060504030201 ll;
*(u64 *)(r9 + 0) = r1;
r1 = r9;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r1 = r10;
r1 += -24;
r2 = 4;
r3 = 4;
call bpf_dynptr_data;
if r0 == 0 goto l_none_%=;
r0 = *(u32 *)(r0 + 0);
exit;
l_none_%=:
r0 = 99;
exit;
l_null_%=:
r0 = 999;
exit;

@@ dynptr_data_out_of_range
@type syscall
@map m:array:4:16:1
*(u32 *)(r10 - 4) = 0;
r1 = m ll;
r2 = r10;
r2 += -4;
call bpf_map_lookup_elem;
if r0 == 0 goto l_null_%=;
r9 = r0;
r1 = r9;
r2 = 8;
r3 = 0;
r4 = r10;
r4 += -24;
call bpf_dynptr_from_mem;
r1 = r10;
r1 += -24;
r2 = 6;
r3 = 4;
call bpf_dynptr_data;
if r0 == 0 goto l_none_%=;
r0 = 1;
exit;
l_none_%=:
r0 = 99;
exit;
l_null_%=:
r0 = 999;
exit;

@@ ringbuf_dynptr
@type syscall
@map rb:ringbuf:0:0:4096
r1 = rb ll;
r2 = 16;
r3 = 0;
r4 = r10;
r4 += -16;
call bpf_ringbuf_reserve_dynptr;
r6 = r0;
r1 = r10;
r1 += -16;
r2 = 0;
call bpf_ringbuf_submit_dynptr;
r1 = rb ll;
r2 = 3;
call bpf_ringbuf_query;
r6 <<= 16;
r0 |= r6;
exit;
