//! The model of `kernel/bpf/verifier.c` (Linux 7.3).

pub mod scalar;
pub mod tnum;
