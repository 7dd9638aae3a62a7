# oracle: --type socket_filter --test-run --log-level 2
# The smallest accepted program: returns 42 from a test run.
r0 = 42
exit
