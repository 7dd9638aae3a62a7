// bpf2bpf calls and callbacks.

@@ call_returns_value
r1 = 20;
r2 = 22;
call add2;
exit;
add2:
r0 = r1;
r0 += r2;
exit;

@@ callee_saved_regs
r6 = 1;
r7 = 2;
r8 = 3;
r9 = 4;
call clobber;
r0 = r6;
r0 += r7;
r0 += r8;
r0 += r9;
exit;
clobber:
r6 = 100;
r7 = 100;
r8 = 100;
r9 = 100;
r0 = 0;
exit;

@@ callee_own_stack
*(u64 *)(r10 - 8) = 5;
call scribble;
r1 = *(u64 *)(r10 - 8);
r0 += r1;
exit;
scribble:
*(u64 *)(r10 - 8) = 1000;
r0 = *(u64 *)(r10 - 8);
exit;

@@ callee_writes_caller_stack
*(u64 *)(r10 - 8) = 5;
r1 = r10;
r1 += -8;
call poke;
r0 = *(u64 *)(r10 - 8);
exit;
poke:
r2 = *(u64 *)(r1 + 0);
r2 *= 7;
*(u64 *)(r1 + 0) = r2;
r0 = 0;
exit;

@@ nested_calls
r1 = 3;
call f1;
exit;
f1:
r6 = r1;
r1 += 1;
call f2;
r0 *= r6;
exit;
f2:
r0 = r1;
r0 += 10;
exit;

@@ deep_calls
r1 = 1;
call d1;
exit;
d1:
r1 += 1;
call d2;
r0 += 1;
exit;
d2:
r1 += 1;
call d3;
r0 += 1;
exit;
d3:
r1 += 1;
call d4;
r0 += 1;
exit;
d4:
r0 = r1;
r0 *= 100;
exit;

@@ bpf_loop_sum
*(u64 *)(r10 - 8) = 0;
r1 = 10;
r2 = loop_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_loop;
r1 = *(u64 *)(r10 - 8);
r0 <<= 16;
r0 += r1;
exit;
loop_cb:
r2 = *(u64 *)(r2 + 0);
r2 += r1;
*(u64 *)(r10 - 8) = r2;
r3 = r10;
r0 = 0;
exit;

@@ bpf_loop_callback_ctx
*(u64 *)(r10 - 8) = 0;
r1 = 10;
r2 = acc_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_loop;
r1 = *(u64 *)(r10 - 8);
r0 <<= 16;
r0 += r1;
exit;
acc_cb:
r3 = *(u64 *)(r2 + 0);
r3 += r1;
*(u64 *)(r2 + 0) = r3;
r0 = 0;
exit;

@@ bpf_loop_early_stop
r1 = 100;
r2 = stop_cb ll;
r3 = 0;
r4 = 0;
call bpf_loop;
exit;
stop_cb:
r0 = 0;
if r1 < 6 goto l_out_%=;
r0 = 1;
l_out_%=:
exit;

@@ bpf_loop_bad_flags
r1 = 1;
r2 = nop_cb ll;
r3 = 0;
r4 = 1;
call bpf_loop;
exit;
nop_cb:
r0 = 0;
exit;

@@ bpf_loop_too_many
r1 = 0x800001;
r2 = nop2_cb ll;
r3 = 0;
r4 = 0;
call bpf_loop;
exit;
nop2_cb:
r0 = 0;
exit;

@@ bpf_loop_zero
r1 = 0;
r2 = nop3_cb ll;
r3 = 0;
r4 = 0;
call bpf_loop;
r0 += 50;
exit;
nop3_cb:
r0 = 1;
exit;

@@ bpf_loop_nested
*(u64 *)(r10 - 8) = 0;
r1 = 3;
r2 = outer_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_loop;
r1 = *(u64 *)(r10 - 8);
r0 <<= 16;
r0 += r1;
exit;
outer_cb:
r6 = r2;
r1 = 4;
r2 = inner_cb ll;
r3 = r6;
r4 = 0;
call bpf_loop;
r0 = 0;
exit;
inner_cb:
r3 = *(u64 *)(r2 + 0);
r3 += 1;
*(u64 *)(r2 + 0) = r3;
r0 = 0;
exit;

@@ bpf_loop_callback_calls_subprog
*(u64 *)(r10 - 8) = 0;
r1 = 5;
r2 = sub_cb ll;
r3 = r10;
r3 += -8;
r4 = 0;
call bpf_loop;
r0 = *(u64 *)(r10 - 8);
exit;
sub_cb:
r6 = r2;
call square;
r1 = *(u64 *)(r6 + 0);
r1 += r0;
*(u64 *)(r6 + 0) = r1;
r0 = 0;
exit;
square:
r0 = r1;
r0 *= r1;
exit;
