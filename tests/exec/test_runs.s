// Test runs of program types whose ctx is a kernel object of its own:
// flow_dissector (struct bpf_flow_dissector, the keys as data_out, nhoff
// and thoff clamped after the run), sk_lookup (struct bpf_sk_lookup_kern
// from the user's struct bpf_sk_lookup), and a syscall ctx shorter than
// the program reads (refused before the run).

@@ flow_dissector_keys_clamped
@type flow_dissector
@data-hex 00112233445566778899aabb08004500001c0000000040110000c0a80001c0a8000204d2162e0008000000000000000000000000000000000000000000000000000000
r2 = *(u64 *)(r1 + 144);
r3 = *(u16 *)(r2 + 10);
r4 = *(u16 *)(r2 + 0);
r3 <<= 16;
r3 |= r4;
r4 = 100;
*(u16 *)(r2 + 0) = r4;
r4 = 20;
*(u16 *)(r2 + 2) = r4;
r4 = 17;
*(u8 *)(r2 + 9) = r4;
r0 = r3;
exit;

@@ flow_dissector_packet
@type flow_dissector
@data-hex 00112233445566778899aabb86dd6000000000083aff
r2 = *(u32 *)(r1 + 76);
r3 = *(u32 *)(r1 + 80);
r4 = r2;
r4 += 22;
r0 = 1;
if r4 > r3 goto l_out_%=;
r0 = *(u8 *)(r2 + 20);
r5 = *(u8 *)(r2 + 12);
r0 <<= 8;
r0 |= r5;
r6 = *(u64 *)(r1 + 144);
r5 = 0xffff;
*(u16 *)(r6 + 2) = r5;
l_out_%=:
exit;

@@ sk_lookup_ipv4
@type sk_lookup
@data-len 0
@data-out-size 0
@ctx-hex 0000000000000000020000000600000001020304000000000000000000000000000000001f9000000a000001000000000000000000000000000000005000000000000000
r2 = *(u32 *)(r1 + 8);
r3 = *(u32 *)(r1 + 12);
r4 = *(u32 *)(r1 + 60);
r5 = *(u32 *)(r1 + 36);
r0 = 0;
if r2 != 2 goto l_out_%=;
if r3 != 6 goto l_out_%=;
if r4 != 80 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ syscall_ctx_too_short
@type syscall
r0 = *(u64 *)(r1 + 0);
r0 += 1;
exit;

@@ syscall_ctx_read
@type syscall
@ctx-hex 0102030405060708
r0 = *(u32 *)(r1 + 4);
exit;

// The kernel's sk_buff behind a tc ctx (bpf_cast_to_kern_ctx): protocol
// and, past it in the headers union, transport_header, which a test run's
// skb leaves unset (~0).
@@ kern_ctx_protocol_transport_header
@type tc
call bpf_cast_to_kern_ctx;
r0 = *(u32 *)(r0 + 180);
exit;
