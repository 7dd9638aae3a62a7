//! The runner end to end with the attributes and a fake backend.

use std::sync::Mutex;

use super::*;
use crate::backend::Unavailable;
use crate::link::LinkReloc;
use crate::prelude::*;
use crate::registry::Decl;

#[map]
static map_hash_8b: Map = Map::new(BPF_MAP_TYPE_HASH, 8, 8, 1).flags(BPF_F_NO_PREALLOC);

#[global]
static counter: u64 = 0;

#[global]
static limit: u32 = 7;

#[global(rodata)]
static table: [u8; 3] = [1, 2, 3];

#[subprog]
fn sub_static() {
    bpf_asm!("r0 = 1; exit;")
}

#[subprog(global, nargs = 1)]
fn sub_global() {
    bpf_asm!("r0 = r1; exit;")
}

const SIXTEEN: i64 = 16;

#[sec("socket")]
#[description("maps, globals, subprogs")]
#[success]
#[success_unpriv]
#[retval(-EFAULT)]
#[caps_unpriv(CAP_NET_ADMIN, CAP_BPF)]
#[flag(BPF_F_TEST_STATE_FREQ)]
#[flag(!BPF_F_TEST_RND_HI32)]
#[log_level(2)]
fn uses_everything() {
    bpf_asm!(
        "r1 = %[map_hash_8b] ll;"
        "r2 = %[counter] ll;"
        "r3 = %[limit] ll;"
        "r4 = %[table] ll;"
        "call sub_static;"
        "call %[sub_global];"
        "r0 = %[k];"
        "r0 = %[sixteen];"
        ".8byte %[ja];"
        "exit;",
        imm_addr(map_hash_8b),
        imm_addr(counter),
        imm_addr(limit),
        imm_addr(table),
        imm(sub_global),
        imm_const(k = -(1 << 4)),
        imm_const(sixteen = SIXTEEN),
        imm_insn(ja = Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0)),
    )
}

/// Doc comments and cfg_attr around the annotations are fine.
#[sec("socket")]
#[failure]
#[cfg_attr(all(), msg("invalid access"))]
#[cfg_attr(any(), msg("never there"))]
#[not_msg("processed")]
fn rejected() {
    bpf_asm!("r0 = *(u64 *)(r1 + 0x1000); exit;")
}

#[sec("socket")]
#[arch(riscv64)]
#[success]
fn riscv_only() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[kernel("9.0")]
#[success]
fn from_9_0() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[load_if_no_jited]
#[success]
fn interpreter_only() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[arch(x86_64)]
#[arch(arm64)]
#[success]
#[jited("\tendbr64")]
fn wants_jit() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("socket")]
#[auxiliary]
fn helper_prog() {
    bpf_asm!("r0 = 0; exit;")
}

#[sec("no_such_section")]
fn bad_section() {
    bpf_asm!("r0 = 0; exit;")
}

/// Answers every load with what `answer` gives for the program name.
struct Fake {
    release: &'static str,
    jit: bool,
    answer: fn(&str) -> LoadOutcome,
    seen: Mutex<Vec<LoadRequest>>,
}

impl Fake {
    fn new(answer: fn(&str) -> LoadOutcome) -> Fake {
        Fake { release: "7.3.4+deb13-amd64", jit: true, answer, seen: Mutex::new(Vec::new()) }
    }
}

impl Backend for Fake {
    fn name(&self) -> &'static str {
        "fake"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        self.release.to_string()
    }
    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        self.seen.lock().unwrap().push(req.clone());
        Ok((self.answer)(&req.name))
    }
    fn jit_enabled(&self, _arch: Arch) -> bool {
        self.jit
    }
}

fn ok(_: &str) -> LoadOutcome {
    LoadOutcome { accepted: true, retval: Some(-14i32 as u32), ..Default::default() }
}

fn opts(arch: Arch) -> RunOptions {
    RunOptions { arch, backend: "fake".into(), verbosity: 0, filters: Vec::new() }
}

fn our_suite() -> Suite {
    registry::suites().into_iter().find(|s| s.module_path.ends_with("runner::tests")).expect("this module's suite")
}

fn planned(fake: &Fake, arch: Arch) -> Vec<Subtest> {
    plan_suites(&[our_suite()], &opts(arch), fake)
}

fn find<'a>(subs: &'a [Subtest], name: &str) -> &'a Subtest {
    subs.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no subtest {name}"))
}

fn run(fake: &Fake, arch: Arch, name: &str) -> Verdict {
    let subs = planned(fake, arch);
    run_subtest(find(&subs, name), fake, &opts(arch)).0
}

#[test]
fn registry_collects_this_module_in_declaration_order() {
    let s = our_suite();
    assert_eq!(s.name, "tests");
    let progs: Vec<_> = s.programs.iter().map(|p| p.name).collect();
    assert_eq!(progs, ["uses_everything", "rejected", "riscv_only", "from_9_0", "interpreter_only", "wants_jit", "helper_prog", "bad_section"]);
    assert_eq!(s.maps.len(), 1);
    assert_eq!(s.globals.iter().map(|g| g.name).collect::<Vec<_>>(), ["counter", "limit", "table"]);
    assert_eq!(s.subprogs.iter().map(|g| (g.name, g.global, g.nargs)).collect::<Vec<_>>(), [("sub_static", false, 0), ("sub_global", true, 1)]);
    assert!(inventory::iter::<Decl>.into_iter().count() >= 14);
}

#[test]
fn tags_are_the_kernel_texts_in_order() {
    assert_eq!(
        uses_everything.tags,
        [
            "test_description=maps, globals, subprogs",
            "test_expect_success",
            "test_expect_success_unpriv",
            "test_retval=-14",
            "test_caps_unpriv=12|39",
            "test_prog_flags=BPF_F_TEST_STATE_FREQ",
            "test_prog_flags=!BPF_F_TEST_RND_HI32",
            "test_log_level=2",
        ]
    );
    // the kernel texts, each #[arch] attribute's after the tag opening its block
    assert_eq!(wants_jit.tags, ["test_arch_block", "test_arch=X86_64", "test_arch_block", "test_arch=ARM64", "test_expect_success", "test_jited=\tendbr64"]);
    assert_eq!(uses_everything.sec, "socket");
    assert_eq!(rejected.tags, ["test_expect_failure", "test_expect_msg=invalid access", "test_expect_not_msg=processed"]);
}

#[test]
fn compile_time_and_run_time_assembly() {
    // Only literal operands: assembled by the macro.
    assert!(rejected.asm.compiled.is_some());
    assert!(sub_static.asm.compiled.is_some());
    // A `const` and an `Insn::new(..)` operand: assembled at first use.
    assert!(uses_everything.asm.compiled.is_none());
    let p = uses_everything.asm.program().unwrap();
    // 4 ld_imm64, 2 calls, 2 movs, the raw insn, exit
    assert_eq!(p.insns.len(), 4 * 2 + 2 + 2 + 1 + 1);
    assert_eq!(p.insns[10].imm, -16);
    assert_eq!(p.insns[11].imm, 16);
    assert_eq!(p.insns[12], Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0));
    let c = rejected.asm.program().unwrap();
    assert_eq!(c, bpf_isa::assemble("r0 = *(u64 *)(r1 + 0x1000); exit;").unwrap());
}

#[test]
fn load_request_as_test_loader_builds_it() {
    let fake = Fake::new(ok);
    assert_eq!(run(&fake, Arch::X86_64, "tests/uses_everything"), Verdict::Ok);
    assert_eq!(run(&fake, Arch::X86_64, "tests/uses_everything @unpriv"), Verdict::Ok);
    let seen = fake.seen.lock().unwrap();
    let (p, u) = (&seen[0], &seen[1]);
    assert_eq!(p.name, "tests/uses_everything");
    assert_eq!(p.prog_type, crate::prog_type::SOCKET_FILTER);
    assert_eq!(p.prog_flags, spec::BPF_F_TEST_STATE_FREQ | spec::BPF_F_TEST_REG_INVARIANTS);
    assert_eq!(p.log_level, 2);
    assert!(!p.unpriv && p.caps_unpriv.is_empty());
    assert!(u.unpriv);
    assert_eq!(u.caps_unpriv, [12, 39]);
    assert_eq!(p.test_run, Some(TestRunInput::test_loader(crate::prog_type::SOCKET_FILTER)));
    assert!(!p.want_jited);
    // The suite's map, then one map per global-data section (first use order).
    let maps: Vec<_> = p.maps.iter().map(|m| (m.name.as_str(), m.map_type, m.value_size, m.map_flags, m.frozen)).collect();
    assert_eq!(
        maps,
        [
            ("map_hash_8b", 1, 8, 1, false),
            ("tests.bss", 2, 8, 1 << 10, false),
            ("tests.data", 2, 4, 1 << 10, false),
            ("tests.rodata", 2, 3, (1 << 10) | (1 << 7), true),
        ]
    );
    assert_eq!(p.maps[2].init, [(vec![0, 0, 0, 0], 7u32.to_le_bytes().to_vec())]);
    assert_eq!(p.maps[3].init[0].1, [1, 2, 3]);
    assert_eq!(
        p.prog.relocs,
        [
            LinkReloc::Map { insn: 0, map: 0 },
            LinkReloc::MapValue { insn: 2, map: 1, off: 0 },
            LinkReloc::MapValue { insn: 4, map: 2, off: 0 },
            LinkReloc::MapValue { insn: 6, map: 3, off: 0 },
        ]
    );
    let funcs: Vec<_> = p.prog.funcs.iter().map(|f| (f.name.as_str(), f.start, f.global)).collect();
    assert_eq!(funcs, [("uses_everything", 0, true), ("sub_static", 14, false), ("sub_global", 16, true)]);
    assert!(p.prog.insns[8].is_pseudo_call() && p.prog.insns[8].imm == 14 - 9);
}

#[test]
fn gates_say_why() {
    let fake = Fake::new(ok);
    let subs = planned(&fake, Arch::X86_64);
    let skip = |n: &str| match &find(&subs, n).plan {
        Plan::Skip(w) => w.clone(),
        _ => panic!("{n} not skipped"),
    };
    assert_eq!(skip("tests/riscv_only"), "arch x86_64 is not in arch(riscv64)");
    assert_eq!(skip("tests/from_9_0"), "kernel 7.3.4+deb13-amd64 is older than 9.0");
    assert_eq!(skip("tests/interpreter_only"), "load_if_no_jited, but the JIT is on");
    // auxiliary programs are not subtests; a bad spec fails.
    assert!(!subs.iter().any(|s| s.name.contains("helper_prog")));
    match &find(&subs, "tests/bad_section").plan {
        Plan::Fail(w) => assert!(w.starts_with("Can't parse test spec for program 'bad_section': SEC(\"no_such_section\")"), "{w}"),
        _ => panic!("bad_section should fail"),
    }
    let subs = planned(&fake, Arch::Riscv64);
    assert!(matches!(find(&subs, "tests/riscv_only").plan, Plan::Load(_)));
    assert_eq!(
        match &find(&subs, "tests/wants_jit").plan {
            Plan::Skip(w) => w.as_str(),
            _ => "",
        },
        "arch riscv64 is not in arch(x86_64, arm64)"
    );
}

/// A backend that cannot run anything (what a kernel backend says without
/// bpf(2), or the model for an arch it lacks).
struct NoBackend;

impl Backend for NoBackend {
    fn name(&self) -> &'static str {
        "none"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Err(Unavailable("none: bpf(2) is not permitted".into()))
    }
    fn kernel_release(&self) -> String {
        String::new()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        Err(Unavailable("none: bpf(2) is not permitted".into()))
    }
}

#[test]
fn backend_unavailable_skips_everything() {
    let subs = plan_suites(&[our_suite()], &opts(Arch::X86_64), &NoBackend);
    let s = find(&subs, "tests/uses_everything");
    assert!(matches!(&s.plan, Plan::Skip(w) if w == "none: bpf(2) is not permitted"));
    // The arch gate comes first.
    assert!(matches!(&find(&subs, "tests/riscv_only").plan, Plan::Skip(w) if w.starts_with("arch x86_64")));
}

fn rejected_with_log(_: &str) -> LoadOutcome {
    LoadOutcome {
        accepted: false,
        errno: 13,
        log: "0: R1=ctx() R10=fp0\n0: (79) r0 = *(u64 *)(r1 +4096)\ninvalid bpf_context access off=4096 size=8\nprocessed 1 insns\n".into(),
        ..Default::default()
    }
}

#[test]
fn load_result_and_log_checks() {
    // Accepted although #[failure].
    match run(&Fake::new(ok), Arch::X86_64, "tests/rejected") {
        Verdict::Fail(r) => assert!(r.starts_with("run_subtest:FAIL: unexpected_load_success"), "{r}"),
        v => panic!("{v:?}"),
    }
    // Rejected, but the log has neither the message nor lacks the not_msg.
    match run(&Fake::new(rejected_with_log), Arch::X86_64, "tests/rejected") {
        Verdict::Fail(r) => {
            assert!(r.contains("VERIFIER LOG:\n=============\n"), "{r}");
            assert!(r.contains("EXPECTED   SUBSTR: 'invalid access'\n"), "{r}");
        }
        v => panic!("{v:?}"),
    }
    // Rejected where success was expected: the log is shown.
    match run(&Fake::new(rejected_with_log), Arch::X86_64, "tests/uses_everything") {
        Verdict::Fail(r) => {
            assert!(r.contains("run_subtest:FAIL: unexpected_load_failure: errno 13 (Permission denied)\n"), "{r}");
            assert!(r.contains("invalid bpf_context access"), "{r}");
        }
        v => panic!("{v:?}"),
    }
}

fn wrong_retval(_: &str) -> LoadOutcome {
    LoadOutcome { accepted: true, retval: Some(0), ..Default::default() }
}

fn test_run_failed(_: &str) -> LoadOutcome {
    LoadOutcome { accepted: true, test_run_errno: 524, ..Default::default() }
}

#[test]
fn retval_checks() {
    match run(&Fake::new(wrong_retval), Arch::X86_64, "tests/uses_everything") {
        Verdict::Fail(r) => {
            let (head, source) = r.split_at(r.find("  --> ").unwrap_or(r.len()));
            assert_eq!(head, "description: maps, globals, subprogs\nrun_subtest:FAIL: Unexpected retval: 0 != -14\n");
            // then the attribute that failed and its test, by file and line
            let lines: Vec<&str> = source.lines().collect();
            assert_eq!(lines.len(), 2, "{r}");
            assert!(lines[0].starts_with("  --> harness/src/runner/tests.rs:") && lines[0].ends_with(": #[retval(-14)] failed"), "{r}");
            assert!(lines[1].starts_with("  --> harness/src/runner/tests.rs:") && lines[1].ends_with(": the test uses_everything"), "{r}");
        }
        v => panic!("{v:?}"),
    }
    match run(&Fake::new(test_run_failed), Arch::X86_64, "tests/uses_everything") {
        Verdict::Fail(r) => assert!(r.contains("Unexpected bpf_prog_test_run error: errno 524 (Unknown error 524)\n"), "{r}"),
        v => panic!("{v:?}"),
    }
}

#[test]
fn missing_jit_dump_is_a_skip_after_the_load() {
    // The pattern follows #[arch(arm64)]: it is arm64's block.
    let fake = Fake::new(ok);
    assert_eq!(run(&fake, Arch::Arm64, "tests/wants_jit"), Verdict::Skip("no JIT dump from the backend for arm64".into()));
    assert!(fake.seen.lock().unwrap()[0].want_jited);
    // On x86_64 its block is empty: nothing to check, no dump asked for.
    let fake = Fake::new(ok);
    assert_eq!(run(&fake, Arch::X86_64, "tests/wants_jit"), Verdict::Ok);
    assert!(!fake.seen.lock().unwrap()[0].want_jited);
}

#[test]
fn log_levels_as_prepare_case() {
    assert_eq!(log_level(0, 0), 0);
    assert_eq!(log_level(0, 1), 1);
    assert_eq!(log_level(4, 1), 5);
    assert_eq!(log_level(2, 1), 2);
    assert_eq!(log_level(1, 3), 2);
    assert_eq!(log_level(6, 3), 6);
}

#[test]
fn summary_like_test_progs() {
    let fake = Fake::new(ok);
    let mut o = opts(Arch::X86_64);
    o.filters = vec!["riscv_only".into(), "from_9_0".into(), "uses_everything".into()];
    let subs = planned(&fake, Arch::X86_64);
    let mut out = Vec::new();
    assert!(summarize(&subs, &fake, &o, &mut out));
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out,
        "#1/1     tests/maps, globals, subprogs:OK\n\
         #1/2     tests/maps, globals, subprogs @unpriv:OK\n\
         #1/4     tests/riscv_only:SKIP (arch x86_64 is not in arch(riscv64))\n\
         #1/5     tests/from_9_0:SKIP (kernel 7.3.4+deb13-amd64 is older than 9.0)\n\
         #1       tests:OK (SKIP: 2/4)\n\
         Summary: 1/2 PASSED, 2 SKIPPED, 0/0 FAILED\n"
    );
    o.filters = vec!["bad_section".into()];
    let mut out = Vec::new();
    assert!(!summarize(&subs, &fake, &o, &mut out));
    let out = String::from_utf8(out).unwrap();
    assert!(out.ends_with(":FAIL\n#1       tests:FAIL\nSummary: 0/0 PASSED, 0 SKIPPED, 1/1 FAILED\n"), "{out}");
}

#[test]
fn trials_carry_the_skip_reason() {
    let fake: Arc<dyn Backend> = Arc::new(Fake::new(ok));
    let trials = trials(&opts(Arch::X86_64), fake);
    let t = trials.iter().find(|t| t.name() == "tests/riscv_only").unwrap();
    assert!(t.has_ignored_flag());
    assert_eq!(t.kind(), "skip: arch x86_64 is not in arch(riscv64)");
    let t = trials.iter().find(|t| t.name() == "tests/uses_everything").unwrap();
    assert!(!t.has_ignored_flag() && t.kind().is_empty());
}
