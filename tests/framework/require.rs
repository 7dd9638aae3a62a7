//! `BPF_SELFTEST_REQUIRE`: a test that skips for lack of something from
//! outside the project fails instead when that component is required, and
//! so do the runner's subtests on a backend that lacks its component. The
//! variable is process-wide, so the test binary never sets it on itself:
//! each case runs one of its `child_*` tests again in a child process with
//! the variable set (or removed), and reads what the child said.

use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

use bpf_selftest::backend::{Backend, LoadOutcome, LoadRequest, Unavailable};
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// Set in the children: the `child_*` tests do nothing without it.
const CHILD: &str = "BPF_SELFTEST_REQUIRE_TEST_CHILD";

/// Runs the ignored test `name` of this module in a child, with
/// `BPF_SELFTEST_REQUIRE` set to `spec` (removed for `None`); its success
/// and its stdout and stderr together.
fn child(name: &str, spec: Option<&str>) -> (bool, String) {
    // libtest names a test by its path in the binary, without the crate
    let (_, module) = module_path!().split_once("::").expect("a module of the test binary");
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--ignored", "--exact", &format!("{module}::{name}"), "--nocapture", "--test-threads=1"]).env(CHILD, "1");
    match spec {
        Some(s) => cmd.env("BPF_SELFTEST_REQUIRE", s),
        None => cmd.env_remove("BPF_SELFTEST_REQUIRE"),
    };
    let Output { status, stdout, stderr } = cmd.output().expect("the child runs");
    (status.success(), format!("{}{}", String::from_utf8_lossy(&stdout), String::from_utf8_lossy(&stderr)))
}

#[test]
#[ignore = "run in a child by a_required_components_skip_fails_the_test"]
fn child_skips_for_lack_of_the_source() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    require::skip(Component::Source, "no Linux 7.3 source (a stand-in)");
}

#[test]
fn a_required_components_skip_fails_the_test() {
    for spec in [None, Some("none"), Some("vm,llvm,clang,bpf")] {
        let (ok, out) = child("child_skips_for_lack_of_the_source", spec);
        assert!(ok, "BPF_SELFTEST_REQUIRE={spec:?}: the test must pass, skipped:\n{out}");
        assert!(out.contains("skipped: no Linux 7.3 source (a stand-in)"), "{out}");
        assert!(!out.contains("required component"), "{out}");
    }
    for spec in ["all", "source", "vm, source"] {
        let (ok, out) = child("child_skips_for_lack_of_the_source", Some(spec));
        assert!(!ok, "BPF_SELFTEST_REQUIRE={spec}: the test must fail:\n{out}");
        assert!(out.contains("required component 'source' is missing: no Linux 7.3 source (a stand-in)"), "{out}");
        assert!(out.contains("scripts/setup-vm.sh --source"), "{out}");
    }
}

const NO_VM: &str = "fake vm: qemu-system-x86_64 is not in PATH";
const NO_BOOT: &str = "fake vm: the guest did not boot";
const NOT_MODELLED: &str = "fake model: not modelled";

/// A backend whose probe fails for lack of its component (the vm backend
/// without QEMU), or whose first load finds it missing (a guest that does
/// not boot: its probe fails from then on), or one that lacks nothing and
/// cannot do a load (the model with something it does not model).
#[derive(Default)]
struct Fake {
    no_vm: bool,
    no_boot: bool,
    broken: AtomicBool,
}

impl Backend for Fake {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        if self.no_vm {
            return Err(Unavailable(NO_VM.into()));
        }
        if self.broken.load(Ordering::Relaxed) {
            return Err(Unavailable(NO_BOOT.into()));
        }
        Ok(())
    }
    fn requires(&self, _arch: Arch) -> Option<Component> {
        (self.no_vm || self.no_boot).then_some(Component::Vm)
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13-amd64".into()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        if self.no_boot {
            self.broken.store(true, Ordering::Relaxed);
            return Err(Unavailable(NO_BOOT.into()));
        }
        Err(Unavailable(NOT_MODELLED.into()))
    }
}

#[test]
#[ignore = "run in a child by the_runner_fails_a_backend_missing_a_required_component"]
fn child_runner_verdicts() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let opts = RunOptions { arch: Arch::X86_64, backend: "fake".into(), verbosity: 0, filters: Vec::new() };
    let (mut skipped, mut failed, mut other) = (0, 0, 0);
    for st in runner::plan(&opts, &Fake { no_vm: true, ..Fake::default() }) {
        match st.plan {
            Plan::Skip(why) if why == NO_VM => skipped += 1,
            Plan::Fail(why) if why.contains(NO_VM) => failed += 1,
            _ => other += 1,
        }
    }
    println!("planned: {skipped} skipped, {failed} failed, {other} other");
    for (what, fake) in [("no boot", Fake { no_boot: true, ..Fake::default() }), ("not modelled", Fake::default())] {
        let subtests = runner::plan(&opts, &fake);
        let st = subtests.iter().find(|s| matches!(s.plan, Plan::Load(_))).expect("a subtest to load");
        println!("{what}: {:?}", runner::run_subtest(st, &fake, &opts).0);
    }
}

/// The number before `what` in the child's `planned:` line.
fn count(out: &str, what: &str) -> usize {
    // libtest's `test child_runner_verdicts ... ` may start the line
    let line = out.lines().find_map(|l| l.find("planned: ").map(|at| &l[at..])).unwrap_or_else(|| panic!("no plan in\n{out}"));
    let at = line.find(what).unwrap_or_else(|| panic!("{line}"));
    line[..at].trim_end().rsplit(' ').next().unwrap().parse().unwrap()
}

#[test]
fn the_runner_fails_a_backend_missing_a_required_component() {
    for spec in [None, Some("source,bpf")] {
        let (ok, out) = child("child_runner_verdicts", spec);
        assert!(ok, "{out}");
        assert!(count(&out, "skipped") > 0 && count(&out, "failed") == 0, "{out}");
        assert!(out.contains(&format!("no boot: Skip({NO_BOOT:?})")), "{out}");
        assert!(out.contains(&format!("not modelled: Skip({NOT_MODELLED:?})")), "{out}");
    }
    for spec in ["all", "vm"] {
        let (ok, out) = child("child_runner_verdicts", Some(spec));
        assert!(ok, "{out}");
        // the arch gate still comes first: those stay skips ("other")
        assert!(count(&out, "skipped") == 0 && count(&out, "failed") > 0, "{out}");
        assert!(out.contains(&format!("no boot: Fail(\"required component 'vm' is missing: {NO_BOOT}")), "{out}");
        // what the backend cannot do is not a missing component
        assert!(out.contains(&format!("not modelled: Skip({NOT_MODELLED:?})")), "{out}");
    }
}
