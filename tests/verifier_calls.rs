//! Calls in the main pass (helpers and their argument checks, maps,
//! subprograms, callbacks, iterators and other kfuncs, may_goto, tail
//! calls, references) against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/calls/*.txt` holds what 7.3 did with each program
//! (`scripts/record-calls-goldens.py`); [`verifier_common`] replays each
//! through `do_check_main` and compares verdict, errno, `verified_insns`
//! and the log at levels 1 and 2.
//!
//! The test prints the pass rate per area and fails when fewer programs
//! match than [`MIN_PASSING`] (a ratchet). `CALLS_VERBOSE=1` prints every
//! mismatch, `CALLS_FILTER=x` keeps the programs whose name (or area)
//! contains `x`.

mod verifier_common;

const DIR: &str = "expected/linux-7.3/calls";
/// Programs that must match completely.
const MIN_PASSING: usize = 0;

#[test]
fn calls_against_linux_7_3() {
    let (pass, total) = verifier_common::run_suite(DIR, "CALLS_VERBOSE", "CALLS_FILTER");
    if std::env::var("CALLS_FILTER").is_err() {
        assert!(pass >= MIN_PASSING, "{pass}/{total} programs match, fewer than {MIN_PASSING}");
    }
}

/// `CALLS_DUMP=name` prints the model's level-2 log of one program.
#[test]
fn dump_one() {
    if let Ok(name) = std::env::var("CALLS_DUMP") {
        verifier_common::dump(DIR, &name, std::env::var("CALLS_LEVEL").ok().and_then(|l| l.parse().ok()).unwrap_or(2));
    }
}
