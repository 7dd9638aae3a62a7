//! bpf-selftest: BPF verifier selftests written as annotated naked asm in
//! Rust, run through a model of the Linux 7.3 load pipeline or a real kernel.
//!
//! Data flows one way: source -> [`isa::asm`] -> [`link`] -> a [`backend`]
//! (model, kernel, vm) -> [`backend::LoadOutcome`] -> [`matcher`] against the
//! [`spec`] a program's annotations give.

pub use bpf_isa as isa;
pub use bpf_selftest_macros::*;
#[doc(hidden)]
pub use inventory;

pub mod backend;
pub mod cli;
pub mod import;
pub mod link;
pub mod map;
pub mod prog_type;
pub mod target;
pub mod verifier;
