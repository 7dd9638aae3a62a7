//! The project's own suites of annotated BPF programs, one module per suite
//! as the kernel has one `progs/*.c` object per test.

pub mod alu;
pub mod atomics;
pub mod bpf_loop;
pub mod cfg;
pub mod ctx;
pub mod global_data;
pub mod iters;
pub mod jited;
pub mod jmp32;
pub mod kfuncs;
pub mod loops;
pub mod main_pass;
pub mod maps;
pub mod packet;
pub mod patch_list;
pub mod readme;
pub mod stack;
pub mod subprogs;
pub mod unpriv;
pub mod zext;
