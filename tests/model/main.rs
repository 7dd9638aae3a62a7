//! The model against recorded truth, one module per part of the 7.3 load
//! pipeline: the verifier (`verifier_*`), the fixups (`fixups*`), the JITs
//! and their printer (`jit_*`), execution (`exec*`), the ISA, resource
//! limits, fuzz regressions, soundness and conformance over progs/. One test
//! binary for all of them (`cargo test --test model`; `cargo test --test
//! model verifier_calls` runs one module), so that the harness is linked
//! once and their tests share the test threads.

mod conform;
mod exec;
mod exec_native;
mod fixups;
mod fixups_calls;
mod fixups_ctx;
mod fixups_misc;
mod fuzz_regressions;
mod isa;
mod jit_arm64;
mod jit_disasm;
mod jit_trampoline_arm64;
mod jit_x86_64;
mod jit_x86_64_trampoline;
mod limits;
mod soundness;
mod verifier_calls;
mod verifier_calls_imported;
mod verifier_common;
mod verifier_do_check;
mod verifier_front;
mod verifier_linfo;
mod verifier_scalar;
