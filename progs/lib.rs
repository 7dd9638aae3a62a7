//! The project's own suites of annotated BPF programs, one module per suite
//! as the kernel has one `progs/*.c` object per test.

pub mod alu;
pub mod arena;
pub mod atomics;
pub mod atomics_fetch;
pub mod bounds;
pub mod bpf_loop;
pub mod branches;
pub mod callbacks;
pub mod cfg;
pub mod convergence;
pub mod ctx;
pub mod global_data;
pub mod iters;
pub mod jited;
pub mod jmp32;
pub mod kfuncs;
pub mod loops;
pub mod main_pass;
pub mod map_values;
pub mod maps;
pub mod packet;
pub mod packet_ranges;
pub mod patch_list;
pub mod readme;
pub mod retvals;
pub mod stack;
pub mod stack_slots;
pub mod subprogs;
pub mod tracing;
pub mod unpriv;
pub mod unpriv_rules;
pub mod zext;
