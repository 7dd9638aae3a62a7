# load: --type xdp
r1 = 1;
r2 = 0;
call bpf_redirect;
exit;
