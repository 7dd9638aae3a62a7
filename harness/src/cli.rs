//! The `bpf-selftest` command line.
