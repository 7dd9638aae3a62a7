//! `bpf-selftest`: the CLI, with the project's own suites linked in.

// Keep the suites (their inventory registrations) in the binary.
use bpf_selftest_suite as _;

fn main() -> std::process::ExitCode {
    bpf_selftest::cli::main()
}
