# oracle: --type socket_filter --log-level 0
# The same rejection at log level 0: a loader retries at level 1 to get the log.
exit
