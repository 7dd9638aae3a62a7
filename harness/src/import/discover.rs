//! Which files of `tools/testing/selftests/bpf/progs` are test_loader
//! suites: the objects `prog_tests/` hands to `test_loader__run_subtests()`.
//!
//! test_progs runs a suite through `RUN_TESTS(skel)` (test_progs.h), or,
//! in `prog_tests/verifier.c`, through `RUN(skel)` and `run_tests_aux("name",
//! ...)` (the same loader, with CAP_SYS_ADMIN dropped). The skeleton's name
//! is the object's, so the file is `progs/<name>.c`. Files annotated with
//! bpf_misc.h's tags that no test hands to test_loader (`test_bpf_nf_fail.c`
//! is loaded by its own test, which checks the log itself) are not suites:
//! their tags are read by nothing.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::cpp::KernelTree;

/// How a suite's file is named among the kernel's selftests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SuiteGroup {
    /// `verifier_*.c`: test_verifier's tests, converted.
    Verifier,
    /// Every other file test_progs runs through test_loader.
    Other,
}

impl SuiteGroup {
    pub fn of(suite: &str) -> SuiteGroup {
        if suite.starts_with("verifier_") { SuiteGroup::Verifier } else { SuiteGroup::Other }
    }

    pub fn label(self) -> &'static str {
        match self {
            SuiteGroup::Verifier => "verifier_*.c",
            SuiteGroup::Other => "other test_loader suites",
        }
    }
}

/// The names `RUN_TESTS(name)`, `RUN(name)` and `run_tests_aux("name", ...)`
/// hand to test_loader in one `prog_tests/*.c` text. Macro definitions
/// (`#define RUN_TESTS(skel)`) are not calls and are left out.
pub fn run_tests_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('#') {
            continue;
        }
        for (open, quoted) in [("RUN_TESTS(", false), ("RUN(", false), ("run_tests_aux(", true)] {
            let mut rest = line;
            while let Some(at) = rest.find(open) {
                let before = rest[..at].chars().next_back();
                let arg = &rest[at + open.len()..];
                rest = arg;
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue; // the tail of a longer name
                }
                let arg = arg.trim_start();
                let arg = if quoted {
                    match arg.strip_prefix('"') {
                        Some(a) => a,
                        None => continue,
                    }
                } else {
                    arg
                };
                let end = arg.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(arg.len());
                let name = &arg[..end];
                let closes = if quoted { arg[end..].starts_with('"') } else { arg[end..].trim_start().starts_with(')') };
                if !name.is_empty() && closes {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// The test_loader suites of `tree`, by file name: every `verifier_*.c`,
/// and every other `progs/<name>.c` some `prog_tests/*.c` runs through
/// test_loader. Sorted, the verifier_*.c files first.
pub fn test_loader_suites(tree: &KernelTree) -> Vec<PathBuf> {
    let progs = tree.progs();
    let mut names: BTreeSet<(SuiteGroup, String)> = BTreeSet::new();
    if let Ok(d) = std::fs::read_dir(&progs) {
        for e in d.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some(stem) = n.strip_suffix(".c").filter(|s| s.starts_with("verifier_")) {
                names.insert((SuiteGroup::Verifier, stem.to_string()));
            }
        }
    }
    if let Ok(d) = std::fs::read_dir(tree.selftests().join("prog_tests")) {
        for e in d.flatten() {
            let p = e.path();
            if p.extension().is_none_or(|x| x != "c") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&p) else { continue };
            for n in run_tests_names(&text) {
                if progs.join(format!("{n}.c")).is_file() {
                    names.insert((SuiteGroup::of(&n), n));
                }
            }
        }
    }
    names.into_iter().map(|(_, n)| progs.join(format!("{n}.c"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_handed_to_test_loader() {
        let text = "#define RUN_TESTS(skel) ({ x })\n\
                    #define RUN(skel) run_tests_aux(#skel, skel##__elf_bytes, NULL)\n\
                    void test_a(void) { RUN_TESTS(arena_kfunc); }\n\
                    void test_b(void) { RUN(irq); MY_RUN(no); }\n\
                    \trun_tests_aux(\"verifier_array_access\",\n\
                    \tRUN_TESTS(skel);\n";
        assert_eq!(run_tests_names(text), ["arena_kfunc", "irq", "verifier_array_access", "skel"]);
    }

    #[test]
    fn groups() {
        assert_eq!(SuiteGroup::of("verifier_and"), SuiteGroup::Verifier);
        assert_eq!(SuiteGroup::of("iters"), SuiteGroup::Other);
    }
}
