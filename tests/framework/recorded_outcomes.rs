//! The runner against outcomes recorded from real kernels, through a
//! backend that replays them: the seed test passes on Linux 7.3's xlated
//! program, fails (and is version-gated) on 6.18's, and a deliberately wrong
//! `#[xlated]` line gives test_loader's report.

use std::sync::Arc;

use bpf_selftest::backend::{Backend, LoadOutcome, LoadRequest, Unavailable};
use bpf_selftest::recorded::backend_truth::Truth;
use bpf_selftest::runner::{self, Plan, RunOptions, Verdict};
use bpf_selftest::spec::parse_test_spec;
use bpf_selftest::target::Arch;
use bpf_selftest_suite::iters::iter_num_new_inlined;

/// `tests/oracle_progs/iter_num.s`, the body of
/// `iters.c:iter_num_new_inlined`, as a kernel loaded it for `record --set
/// backend-truth`: `vm-x86_64.json` is 7.3 under QEMU (which inlines the
/// iterator kfuncs; arm64 gives the same text), `live-x86_64.json` the
/// 6.18 host (which calls them).
fn recorded(file: &str) -> Replay {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/oracle").join(file);
    let truth = Truth::read(&path).unwrap_or_else(|e| panic!("{e}"));
    let p = truth.program("iter_num").unwrap_or_else(|| panic!("{file}: no iter_num"));
    assert!(p.accepted, "{file}: iter_num was accepted");
    Replay { release: truth.release.clone(), xlated: p.xlated_text.lines().map(str::to_string).collect() }
}

struct Replay {
    release: String,
    xlated: Vec<String>,
}

impl Backend for Replay {
    fn name(&self) -> &'static str {
        "replay"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        self.release.to_string()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        Ok(outcome(&self.xlated))
    }
}

fn outcome(xlated: &[String]) -> LoadOutcome {
    LoadOutcome { accepted: true, verified_insns: 18, xlated: xlated.to_vec(), ..Default::default() }
}

fn opts(arch: Arch) -> RunOptions {
    RunOptions { arch, backend: "replay".into(), verbosity: 0, filters: Vec::new() }
}

fn run(backend: &Replay, arch: Arch) -> Verdict {
    let subtests = runner::plan(&opts(arch), backend);
    let st = subtests.iter().find(|s| s.name == "iters/iter_num_new_inlined").expect("the seed test is registered");
    runner::run_subtest(st, backend, &opts(arch)).0
}

#[test]
fn seed_test_passes_on_the_recorded_7_3_program() {
    let b = recorded("vm-x86_64.json");
    assert!(b.release.starts_with("7.3"), "{}", b.release);
    assert_eq!(run(&b, Arch::X86_64), Verdict::Ok);
    assert_eq!(run(&b, Arch::Arm64), Verdict::Ok);
    assert_eq!(iter_num_new_inlined.tags.iter().filter(|t| t.starts_with("test_expect_xlated=")).count(), 36);
}

#[test]
fn seed_test_is_gated_off_6_18_which_would_fail_it() {
    let b = recorded("live-x86_64.json");
    assert!(b.release.starts_with("6.18"), "{}", b.release);
    assert_eq!(run(&b, Arch::X86_64), Verdict::Skip(format!("kernel {} is older than 7.3", b.release)));
    // Without the gate the 6.18 program fails at the first inlined insn.
    let spec = parse_test_spec(iter_num_new_inlined.name, iter_num_new_inlined.sec, iter_num_new_inlined.tags, Arch::X86_64).unwrap();
    let (v, _) = runner::check_outcome(&spec, false, Arch::X86_64, &outcome(&b.xlated), false);
    match v {
        Verdict::Fail(r) => assert!(r.contains("MATCHED    SUBSTR: 'r2 = 0'\nEXPECTED   SUBSTR: 'if w2 s> w3 goto pc+8'\n"), "{r}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn seed_test_is_skipped_off_its_arches() {
    let b = Replay { release: "7.3.4+deb13-riscv64".into(), ..recorded("vm-x86_64.json") };
    let subtests = runner::plan(&opts(Arch::Riscv64), &b);
    let st = subtests.iter().find(|s| s.name == "iters/iter_num_new_inlined").unwrap();
    assert!(matches!(&st.plan, Plan::Skip(w) if w == "arch riscv64 is not in arch(x86_64, arm64)"));
    let trials = runner::trials(&opts(Arch::Riscv64), Arc::new(b));
    let t = trials.iter().find(|t| t.name() == "iters/iter_num_new_inlined").unwrap();
    assert!(t.has_ignored_flag());
    assert_eq!(t.kind(), "skip: arch riscv64 is not in arch(x86_64, arm64)");
}

/// One deliberately wrong `#[xlated]` line (`w0 -= w3` for `w0 -= w2`):
/// test_loader's report, then the project's pointer at the closest line.
const WRONG_LINE_REPORT: &str = "\
validate_msgs:FAIL: expect_msg (XLATED)
XLATED:
=============
  + 0: r6 = r10
  + 1: r6 += -8
  + 2: call unknown
  + 3: r3 = r0
  + 4: r3 &= 65535
  + 5: r1 = r6
  + 6: r2 = 0
  + 7: if w2 s> w3 goto pc+8
  + 8: w0 = w3
>>> 9: w0 -= w2
    ^^^ EXPECTED SUBSTR: 'w0 -= w3': expected on this line
    10: if r0 > 0x800000 goto pc+8
    11: w2 += -1
    12: *(u32 *)(r1 +0) = r2
    13: *(u32 *)(r1 +4) = r3
    14: r0 = 0
    15: goto pc+5
    16: *(u64 *)(r1 +0) = 0
    17: r0 = -22
    18: goto pc+2
    19: *(u64 *)(r1 +0) = 0
    20: r0 = -7
    21: r1 = r6
    22: r0 = *(u32 *)(r1 +0)
    23: w0 += 1
    24: r2 = *(u32 *)(r1 +4)
    25: if w0 s>= w2 goto pc+3
    26: *(u32 *)(r1 +0) = r0
    27: r0 = r1
    28: goto pc+2
    29: *(u64 *)(r1 +0) = 0
    30: r0 = 0
    31: if r0 != 0x0 goto pc-11
    32: r1 = r6
    33: goto pc+0
    34: r0 = 0
    35: exit
=============
MATCHED    SUBSTR: 'r6 = r10'
MATCHED    SUBSTR: 'r6 += -8'
MATCHED    SUBSTR: 'call unknown'
MATCHED    SUBSTR: 'r3 = r0'
MATCHED    SUBSTR: 'r3 &= 65535'
MATCHED    SUBSTR: 'r1 = r6'
MATCHED    SUBSTR: 'r2 = 0'
MATCHED    SUBSTR: 'if w2 s> w3 goto pc+8'
MATCHED    SUBSTR: 'w0 = w3'
EXPECTED   SUBSTR: 'w0 -= w3'
(26 more patterns not checked)
closest XLATED line to 'w0 -= w3': line 8: 8: w0 = w3
";

#[test]
fn a_wrong_xlated_line_gives_the_report() {
    let tags: Vec<&str> =
        iter_num_new_inlined.tags.iter().map(|t| if *t == "test_expect_xlated=w0 -= w2" { "test_expect_xlated=w0 -= w3" } else { t }).collect();
    let spec = parse_test_spec(iter_num_new_inlined.name, iter_num_new_inlined.sec, &tags, Arch::X86_64).unwrap();
    let (v, _) = runner::check_outcome(&spec, false, Arch::X86_64, &outcome(&recorded("vm-x86_64.json").xlated), false);
    let Verdict::Fail(report) = v else { panic!("{v:?}") };
    eprintln!("{report}");
    assert_eq!(report, WRONG_LINE_REPORT);
}
