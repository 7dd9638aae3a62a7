//! The framework as its users meet it: the CLI (`check_cli`, `asm_limits`),
//! the attributes (`compile_fail`, `newcomer`), the runner against recorded
//! outcomes (`goldens`, `recorded_outcomes`), the `{{...}}` matcher against
//! the C library's POSIX engine (`matcher_posix`) and `BPF_SELFTEST_REQUIRE`
//! (`require`). One test binary (`cargo test --test framework`; `cargo test
//! --test framework goldens` runs one module).
//!
//! `asm_limits` installs the binary's global allocator: the system's,
//! counting per thread the bytes live, which its tests read about their own
//! thread.

mod asm_limits;
mod check_cli;
mod compile_fail;
mod goldens;
mod matcher_posix;
mod newcomer;
mod recorded_outcomes;
mod require;
