# oracle: --type socket_filter --test-run
# helper calls (incl. ones the JITs inline), bpf2bpf calls across three functions
r6 = r1
call bpf_get_prandom_u32
r7 = r0
call bpf_ktime_get_ns
call bpf_get_smp_processor_id
r8 = r0
r1 = 3
call sub1
r0 += r7
r1 = 4
call sub2
r0 = 0
exit
sub1:
r6 = r1
r1 = 5
call sub2
r0 += r6
exit
sub2:
r0 = r1
r0 *= 7
exit
