# oracle: --type socket_filter --unpriv --log-level 1
# Unprivileged (test_loader's @unpriv run): returning the frame pointer leaks
# an address, rejected with EACCES; a privileged load accepts it.
r0 = r10
exit
