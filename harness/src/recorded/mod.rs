//! Sets of kernel truth besides the goldens of `progs/`, each with its
//! format and its recorder (`bpf-selftest record --set NAME`).

pub mod exec_corpus;
pub mod isa_encodings;
pub mod kfunc_ids;
pub mod scalar_logs;
pub mod test_run_sizes;
pub mod verifier_logs;
