call bpf_rcu_read_lok
r0 = 0
exit
