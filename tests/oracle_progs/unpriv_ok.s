# oracle: --type socket_filter --unpriv --test-run --log-level 1
# Unprivileged and accepted; the test run happens with capabilities restored.
r0 = 7
exit
