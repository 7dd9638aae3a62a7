//! Tristate numbers (`kernel/bpf/tnum.c`).
