//! Verifier logs of C programs against a real Linux 7.3 verifier: the
//! loads carry the object's `line_info`, so the logs quote the source
//! (`; <line> @ <file>:<n>` before an insn, `func @ file:line:col` and
//! `Source context:` in the diagnostics).
//!
//! `expected/linux-7.3/linfo/<area>.c` is compiled with clang 19 as it was
//! for the recording (`bpf-selftest record --set linfo`, format in
//! `bpf_selftest::recorded::linfo_logs`), and every program of the object
//! is loaded through the whole model of `bpf_check` at levels 1 and 2 and
//! compared with what 7.3 logged: verdict, errno and the whole log (an
//! accepted program's up to its closing statistics, which must match
//! apart when the model decides them). Cases `<program>:<edit>` load the
//! program with its `line_info` edited (`linfo_logs::EDITS`): 7.3's checks
//! at load (`check_btf_line`). Skipped without clang 19.

use std::path::Path;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::golden::mask_kernel_pointers;
use bpf_selftest::recorded::linfo_logs;
use bpf_selftest::require::{Component, skip};
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::errno::errno_name;
use bpf_selftest::{load::bpf_check, verifier::Verdict};

const DIR: &str = "expected/linux-7.3/linfo";

/// The model's result line and log, an accepted program's without its
/// closing statistics (checked against `kernel_log` here).
fn run(req: &bpf_selftest::backend::LoadRequest, kernel_log: &str) -> Result<(String, String), String> {
    let input = ModelBackend::verifier_input(req).map_err(|u| u.0)?;
    let stats = |log: &str| log.lines().filter(|l| l.starts_with("processed ")).map(str::to_string).collect::<Vec<_>>();
    let no_stats = |log: &str| log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect::<String>();
    match bpf_check(&input) {
        Verdict::Decided(d) if !d.accepted => Ok((format!("rejected errno={}", errno_name(d.errno)), d.log)),
        Verdict::Decided(d) => {
            if stats(&d.log) != stats(kernel_log) {
                return Err(format!("statistics: kernel {:?}, model {:?}", stats(kernel_log), stats(&d.log)));
            }
            Ok((format!("accepted verified_insns={}", d.verified_insns), no_stats(&d.log)))
        }
        Verdict::NotModelled { phase: "fixups", log_so_far, verified_insns, .. } => Ok((format!("accepted verified_insns={verified_insns}"), log_so_far)),
        Verdict::NotModelled { phase, what, .. } => Err(format!("not modelled: {phase}: {what}")),
    }
}

#[test]
fn linfo_logs_against_linux_7_3() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIR);
    let files = linfo_logs::read_dir(&root).expect("goldens");
    let (mut checked, mut failures) = (0, Vec::new());
    for file in files {
        let Some(obj) = linfo_logs::compile(&root.join(format!("{}.c", file.area))).expect("compile") else {
            skip(Component::Clang, "clang-19 compiles the C programs of expected/linux-7.3/linfo");
            return;
        };
        assert_eq!(linfo_logs::case_names(&obj, &file), file.cases.iter().map(|c| c.name.clone()).collect::<Vec<_>>(), "{}: the programs", file.area);
        for c in &file.cases {
            for (level, kernel_log) in [(1, &c.log1), (2, &c.log2)] {
                let accepted = c.result.starts_with("accepted");
                let mut want = mask_kernel_pointers(kernel_log.trim_end_matches('\n'));
                if accepted {
                    want = want.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect::<String>();
                }
                let req = linfo_logs::request(&obj, &c.name, Arch::X86_64, level).expect("request");
                checked += 1;
                let what = format!("{}/{} level {level}", file.area, c.name);
                match run(&req, kernel_log) {
                    Err(e) => failures.push(format!("{what}: {e}")),
                    Ok((result, log)) => {
                        let log = mask_kernel_pointers(log.trim_end_matches('\n'));
                        if result != c.result {
                            failures.push(format!("{what}: kernel {}, model {result}", c.result));
                        } else if log.trim_end_matches('\n') != want.trim_end_matches('\n') {
                            let n = want.lines().zip(log.lines()).take_while(|(a, b)| a == b).count();
                            failures.push(format!("{what}: the logs differ from line {}:\n--- kernel\n{want}\n--- model\n{log}", n + 1));
                        }
                    }
                }
            }
        }
    }
    println!("linfo: {} of {checked} loads match 7.3", checked - failures.len());
    assert!(checked > 0, "no recorded programs under {DIR}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
