//! The model of `kernel/bpf/verifier.c` (Linux 7.3).

pub mod scalar;
pub mod tnum;

// The main pass (do_check) and its parts.
pub mod alu;
pub mod backtrack;
pub mod calls;
pub mod ctx;
pub mod do_check;
pub mod helper_protos;
pub mod helpers;
pub mod jmp;
pub mod kfuncs;
pub mod maps;
pub mod mem;
pub mod print;
pub mod refs;
pub mod reg;
pub mod retcode;
pub mod stack;
pub mod state;
pub mod states;
