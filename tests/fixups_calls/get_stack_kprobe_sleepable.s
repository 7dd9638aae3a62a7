# load: --type kprobe --flags sleepable
r2 = r10;
r2 += -64;
r3 = 64;
r4 = 0;
call bpf_get_stack;
r0 = 0;
exit;
