# load: --type tracepoint --map pe:perf_event_array:4:4:1
r2 = 0;
*(u64 *)(r10 - 8) = r2;
r2 = pe ll;
r3 = 0xffffffff ll;
r4 = r10;
r4 += -8;
r5 = 8;
call bpf_perf_event_output;
r0 = 0;
exit;
