//! The main pass (`verifier::do_check`) against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/do_check/*.txt` holds the level-1 and level-2 logs,
//! verdicts and `verified_insns` 7.3 produced for small call-free programs
//! (`scripts/record-do-check-goldens.py`); [`verifier_common`] replays each
//! through `do_check_main` and compares.
//!
//! The test prints the pass rate per area and fails when fewer programs
//! match than [`MIN_PASSING`] (a ratchet: raise it as the model improves).
//! `DO_CHECK_VERBOSE=1` prints every mismatch, `DO_CHECK_FILTER=x` keeps
//! the programs whose name (or area) contains `x`.

mod verifier_common;

const DIR: &str = "expected/linux-7.3/do_check";
/// Programs that must match completely.
const MIN_PASSING: usize = 172;

#[test]
fn do_check_against_linux_7_3() {
    let (pass, total) = verifier_common::run_suite(DIR, "DO_CHECK_VERBOSE", "DO_CHECK_FILTER");
    if std::env::var("DO_CHECK_FILTER").is_err() {
        assert!(pass >= MIN_PASSING, "{pass}/{total} programs match, fewer than {MIN_PASSING}");
    }
}
