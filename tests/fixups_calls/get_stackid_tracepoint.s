# load: --type tracepoint --map st:stack_trace:4:64:16
r2 = st ll;
r3 = 0;
call bpf_get_stackid;
r0 = 0;
exit;
