# oracle: --type socket_filter --log-level 1
# exit without writing r0: rejected (EACCES, "R0 !read_ok").
exit
