//! bpf-selftest: BPF verifier selftests written as annotated naked asm in
//! Rust, run through a model of the Linux 7.3 load pipeline or a real kernel.
//!
//! Data flows one way: source -> [`isa::asm`] -> [`link`] -> a [`backend`]
//! (model, kernel, vm) -> [`backend::LoadOutcome`] -> [`matcher`] against the
//! [`spec`] a program's annotations give.

// The attribute macros name this crate `::bpf_selftest`; this makes that
// path work inside the crate too (its own tests use the attributes).
extern crate self as bpf_selftest;

pub use bpf_isa as isa;
// The model of the 7.3 load pipeline, by its modules' names.
pub use bpf_model::{exec, fixups, jit, jit_disasm, load, map, prog_type, target, uapi, verifier, vmlinux_btf};
pub use bpf_selftest_macros::*;
#[doc(hidden)]
pub use inventory;

pub mod backend;
pub mod bench;
pub mod btf;
pub mod cli;
pub mod conform;
pub mod golden;
pub mod import;
pub mod link;
pub mod matcher;
pub mod object;
pub mod recorded;
pub mod registry;
pub mod require;
pub mod runner;
pub mod soundness;
pub mod spec;
pub mod sys;

/// What a suite module needs: `use bpf_selftest::prelude::*;`.
pub mod prelude {
    pub use crate::isa::Insn;
    pub use crate::isa::op::*;
    pub use crate::map::flags::*;
    pub use crate::map::types::*;
    pub use crate::registry::Map;
    pub use bpf_selftest_macros::*;
}

#[cfg(test)]
mod jit_expectations;
#[cfg(test)]
mod model_facts;
