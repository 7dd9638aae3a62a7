//! `bpf-selftest`: the CLI, with the project's own suites linked in.

// Keep the suites (their inventory registrations) in the binary.
use bpf_selftest_suite as _;

// glibc returns the verifier's big per-insn arrays to the OS when they are
// freed, and the next load pays for fresh zeroed pages again (page faults
// were ~30% of a 1M-insn load); mimalloc keeps them for reuse.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    bpf_selftest::cli::main()
}
