# load: --type socket_filter --map rb:ringbuf:0:0:4096
r1 = 0;
*(u64 *)(r10 - 8) = r1;
r1 = rb ll;
r2 = r10;
r2 += -8;
r3 = 8;
r4 = 0;
call bpf_ringbuf_output;
r1 = rb ll;
r2 = 0;
call bpf_ringbuf_query;
r0 = 0;
exit;
