//! Importing the kernel's own selftests (`tools/testing/selftests/bpf/progs`).

pub mod c_source;
