//! What Linux 7.3 does to a BPF program, modelled in userspace.
//!
//! Given what `BPF_PROG_LOAD` receives ([`verifier::env::VerifierInput`]:
//! instructions with maps as fds and kfuncs as BTF ids, the program type,
//! flags, log attributes, func_info), the model answers what 7.3 answers:
//! the verdict, errno and verifier log, `verified_insns`, the xlated
//! program, the JIT image per arch, and what `BPF_PROG_TEST_RUN` returns.
//!
//! Data flows one way through the layers, each using only those above it
//! in this list:
//!
//! | layer | modules |
//! |---|---|
//! | the instruction set | [`isa`] (the `bpf-isa` crate: encoding, assembler, disassembler, ALU semantics) |
//! | kernel facts | [`target`], [`prog_type`], [`map`], [`btf`], [`vmlinux_btf`], [`uapi`], [`kernel_layout`], [`limits`] |
//! | the verifier (`kernel/bpf/verifier.c`) | [`verifier`] |
//! | the rewrites after it (`bpf_do_misc_fixups` and the others) | [`fixups`] |
//! | the JITs (`arch/{x86,arm64}/net/bpf_jit_comp.c`) and their images' disassembly | [`jit`], [`jit_disasm`] |
//! | execution (`BPF_PROG_TEST_RUN`, helpers, maps) | [`exec`] |
//! | the load pipeline (`bpf_prog_load`: verify, rewrite, JIT) | [`load`] |
//!
//! Nothing here knows how programs are written, collected, expected or
//! compared: that is the test framework's (the `bpf-selftest` crate), which
//! links programs, builds the input, and reads the answer.

pub use bpf_isa as isa;

pub mod btf;
pub mod exec;
pub mod fixups;
pub mod jit;
pub mod jit_disasm;
pub mod kernel_layout;
pub mod limits;
pub mod load;
pub mod map;
pub mod prog_type;
pub mod target;
pub mod uapi;
pub mod verifier;
pub mod vmlinux_btf;

#[cfg(test)]
mod layering;
