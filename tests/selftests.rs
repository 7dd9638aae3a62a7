//! The project's suites (progs/) through the runner: `cargo test` runs them
//! on the backend `BPF_SELFTEST_BACKEND` names (default `model`) for the arch
//! `BPF_SELFTEST_ARCH` names (default: the host).

// Links the suites in, so that their registrations are collected.
use bpf_selftest_suite as _;

fn main() -> std::process::ExitCode {
    bpf_selftest::runner::test_main()
}
