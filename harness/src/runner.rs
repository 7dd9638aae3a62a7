//! The runner: every registered program becomes one subtest per run its
//! spec asks for (`<suite>/<program>` and `<suite>/<program> @unpriv`), run
//! through a [`Backend`] and checked as test_loader's `run_subtest` does.
//!
//! Two front ends share it: [`test_main`], a libtest-compatible harness for
//! `cargo test` / nextest (filters, `--list`, `--ignored`, `--exact`), and
//! [`run_summary`], test_progs-like output for `bpf-selftest run`.
//!
//! Skips say why. A skip known before loading (arch not in `#[arch]`, load
//! mode, kernel too old, backend unavailable, unpriv runs not possible) is
//! decided when the trial is built: the trial is marked ignored (so nextest
//! and `--ignored` see it) and its kind carries the reason, printed as
//! `test [skip: <reason>] suite/prog ... ignored`. Forced to run with
//! `--ignored`, such a trial reports itself ignored with the same reason.
//! A skip only known after loading (the backend gave up, no JIT dump for
//! `#[jited]`) is a runtime ignore with its reason. A backend unavailable
//! for lack of something from outside the project (bpf(2) for the kernel
//! backend, QEMU, the images or a booting guest for the vm backend:
//! [`Backend::requires`]) is a failure instead when `BPF_SELFTEST_REQUIRE`
//! requires it ([`crate::require`]), before loading and after.
//!
//! Decisions on the quirks of reference §9 that live here (the matching ones
//! are in [`crate::matcher`], the parsing ones in [`crate::spec`]):
//!
//! * §9.10 the xlated text is the backend's: [`LoadOutcome::xlated`] holds
//!   test_loader's `N: text` lines; the runner joins them with `\n` and a
//!   final newline, which is the buffer test_loader matches. Same for jited.
//! * §9.11 `BPF_F_TEST_RND_HI32` is on by default (spec); zext and the AX
//!   register are the backend's.
//! * §9.12 an arch not in `#[arch]` skips the whole subtest: replicated. A
//!   backend that gives no JIT dump for `#[jited]` patterns skips the
//!   subtest after the load and the log/xlated checks (a failure of those
//!   still fails it), as test_loader does without LLVM.
//! * §9.13 the program runs only with `#[retval]` and an expected success:
//!   replicated. `__stderr`/`__stdout` stream checks are not supported yet.
//! * §9.14 caps are restored for the dumps and the test run: the backend's
//!   job (see [`LoadRequest::unpriv`]).
//! * §9.15 `POINTER_VALUE` runs without comparing: replicated.
//! * §9.16 an empty log for successful loads at level 0 and libbpf's retry
//!   at level 1 are the backend's; the log level itself is `prepare_case`'s
//!   ([`log_level`]), so `#[msg]` on a successful load needs `#[log_level]`
//!   as in the kernel.
//! * Pattern failures of one list do not stop the later checks (log, then
//!   xlated, then jited, then retval), as in `run_subtest`; a wrong load
//!   result or test-run error does.
//!
//! Differences from test_loader, on purpose: subtests are named after the
//! program (the description is shown in reports; libtest filters see the
//! name, [`run_summary`]'s filters the description too); `#[auxiliary]`
//! programs are not loaded alongside the target yet (a [`LoadRequest`]
//! carries one program).

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::backend::{self, Backend, BtfMode, LoadOutcome, LoadRequest, TestRunInput};
use crate::link::{self, LinkedProgram, Symbols};
use crate::map::MapDef;
use crate::matcher::{self, Dump, ExpectedMsgs};
use crate::object::BpfObject;
use crate::registry::{self, ProgDecl, Suite, SuiteSymbols};
use crate::spec::{self, KernelVersion, TestSpec};
use crate::target::Arch;

/// How to run the registry.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Target arch (`BPF_SELFTEST_ARCH`, default: the host).
    pub arch: Arch,
    /// Backend name (`BPF_SELFTEST_BACKEND`, default `model`).
    pub backend: String,
    /// test_progs' verbosity: 0, 1 (`-v`), 2 (`-vv`), 3 (`-vvv`). It sets
    /// the minimum verifier log level as test_loader's `prepare_case` does,
    /// and [`run_summary`] prints the dumps of passing tests from 1 on.
    pub verbosity: u8,
    /// [`run_summary`] only: run the subtests whose `suite/prog` name (or
    /// description) contains one of these; all when empty.
    pub filters: Vec<String>,
}

impl RunOptions {
    /// From `BPF_SELFTEST_ARCH`, `BPF_SELFTEST_BACKEND` and
    /// `BPF_SELFTEST_VERBOSE` (0-3).
    pub fn from_env() -> Result<RunOptions, String> {
        let arch = match std::env::var("BPF_SELFTEST_ARCH") {
            Ok(a) if !a.is_empty() => a.parse().map_err(|e| format!("BPF_SELFTEST_ARCH: {e}"))?,
            _ => Arch::host().ok_or_else(|| format!("BPF_SELFTEST_ARCH is not set and the host arch '{}' is not a BPF target", std::env::consts::ARCH))?,
        };
        let backend = match std::env::var("BPF_SELFTEST_BACKEND") {
            Ok(b) if !b.is_empty() => b,
            _ => "model".to_string(),
        };
        let verbosity = match std::env::var("BPF_SELFTEST_VERBOSE") {
            Ok(v) if !v.is_empty() => v.parse::<u8>().map_err(|_| format!("BPF_SELFTEST_VERBOSE: '{v}' is not 0-3"))?.min(3),
            _ => 0,
        };
        Ok(RunOptions { arch, backend, verbosity, filters: Vec::new() })
    }
}

/// What came of one subtest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    Skip(String),
    /// The report, test_loader style.
    Fail(String),
}

/// A subtest, planned: either decided already or ready to load.
pub struct Subtest {
    /// `suite/prog` or `suite/prog @unpriv`.
    pub name: String,
    pub suite: String,
    pub description: Option<String>,
    pub unpriv: bool,
    pub plan: Plan,
}

pub enum Plan {
    /// Decided before loading: skip, with the reason.
    Skip(String),
    /// Decided before loading: fail (bad spec, link error, a backend missing
    /// a required component), with the report.
    Fail(String),
    Load(Box<Job>),
}

/// A prepared load and what to check against its outcome.
pub struct Job {
    pub spec: Arc<TestSpec>,
    pub unpriv: bool,
    pub request: LoadRequest,
    /// The program's declaration: where a failure report points.
    pub decl: &'static ProgDecl,
}

/// test_loader's `prepare_case` log level: at least 1 with `-v`, 2 with
/// `-vvv`, keeping the spec's stats bit (4).
pub fn log_level(spec_level: i32, verbosity: u8) -> u32 {
    let min = match verbosity {
        0 => 0,
        1 | 2 => 1,
        _ => 2,
    };
    let level = if (spec_level & 3) < min { (spec_level & 4) | min } else { spec_level };
    level as u32
}

/// test_loader's `should_do_test_run`.
pub fn should_do_test_run(spec: &TestSpec, unpriv: bool, arch: Arch) -> bool {
    let sub = spec.subspec(unpriv);
    let alignment_ok = spec.prog_flags & spec::BPF_F_ANY_ALIGNMENT == 0 || arch.efficient_unaligned_access();
    sub.execute && !sub.expect_failure && alignment_ok
}

fn arch_list(arches: &[Arch]) -> String {
    arches.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
}

/// Facts about the backend, asked once per run.
struct BackendFacts {
    /// Why the backend cannot run the arch: `Ok` with the skip's reason,
    /// or `Err` with the failure when what it lacks is required
    /// ([`unavailable`]).
    available: Result<(), Result<String, String>>,
    release: Option<KernelVersion>,
    release_text: String,
    jit: bool,
    unpriv: Result<(), String>,
}

impl BackendFacts {
    fn ask(b: &dyn Backend, arch: Arch) -> BackendFacts {
        let release_text = b.kernel_release();
        BackendFacts {
            available: b.probe(arch).map_err(|u| unavailable(b, arch, u.0)),
            release: KernelVersion::parse(&release_text),
            release_text,
            jit: b.jit_enabled(arch),
            unpriv: b.can_execute_unpriv().map_err(|u| u.0),
        }
    }
}

/// A backend's `Unavailable` for `arch` as a skip's reason (`Ok`), or as a
/// failure (`Err`) when the backend lacks something from outside the project
/// ([`Backend::requires`]) that `BPF_SELFTEST_REQUIRE` requires.
fn unavailable(b: &dyn Backend, arch: Arch, why: String) -> Result<String, String> {
    match b.requires(arch).map(|c| crate::require::missing(c, &why)) {
        Some(Err(failure)) => Err(failure),
        _ => Ok(why),
    }
}

/// A load `b` could not do: skipped with the reason, unless `b` cannot run
/// `arch` at all any more (its guest did not boot, bpf(2) is refused) for
/// lack of a required component ([`unavailable`]): then a failure.
pub fn unavailable_verdict(b: &dyn Backend, arch: Arch, u: backend::Unavailable) -> Verdict {
    if b.requires(arch).is_some()
        && b.probe(arch).is_err()
        && let Err(failure) = unavailable(b, arch, u.0.clone())
    {
        return Verdict::Fail(format!("{failure}\n"));
    }
    Verdict::Skip(u.0)
}

/// The gates of `run_subtest`, in test_loader's order (arch, load mode,
/// unpriv), with the backend's own (available, kernel version) after arch:
/// `Ok` with a skip's reason, `Err` with a failure (a required component
/// is missing).
fn gate(spec: &TestSpec, unpriv: bool, arch: Arch, facts: &BackendFacts) -> Option<Result<String, String>> {
    if !spec.runs_on(arch) {
        return Some(Ok(format!("arch {arch} is not in arch({})", arch_list(&spec.arches))));
    }
    if let Err(gated) = &facts.available {
        return Some(gated.clone());
    }
    match (spec.min_kernel, facts.release) {
        (Some(min), Some(have)) if have < min => return Some(Ok(format!("kernel {} is older than {min}", facts.release_text))),
        _ => {}
    }
    let current = if facts.jit { spec::JITED } else { spec::NO_JITED };
    if current & spec.load_mask == 0 {
        return Some(Ok(if facts.jit { "load_if_no_jited, but the JIT is on".to_string() } else { format!("load_if_jited, but there is no JIT for {arch}") }));
    }
    if unpriv {
        if let Err(why) = &facts.unpriv {
            return Some(Ok(format!("unpriv: {why}")));
        }
        if spec.prog_flags & spec::BPF_F_ANY_ALIGNMENT != 0 && !arch.efficient_unaligned_access() {
            return Some(Ok(format!("unpriv: BPF_F_ANY_ALIGNMENT and {arch} lacks efficient unaligned access")));
        }
    }
    None
}

/// What a load of program `name` of `obj` takes from the object, as
/// libbpf's `bpf_object__load` gives it for one program.
pub struct ObjectLoad {
    pub prog: LinkedProgram,
    pub maps: Vec<MapDef>,
    pub btf: BtfMode,
    pub license: String,
}

/// [`ObjectLoad`] for program `name` of `obj` (the object's own path,
/// [`BpfObject::load_request`]: its BTF, func_info and line_info), with
/// test_progs' map setup ([`crate::import::test_progs_setup`]) for the
/// object's suite.
pub fn object_load(obj: &BpfObject, name: &str, arch: Arch) -> Result<ObjectLoad, String> {
    let req = obj.load_request(name, arch).map_err(|e| e.0)?;
    let mut maps = req.maps;
    for m in &mut maps {
        m.init.extend(crate::import::test_progs_setup(&obj.name, &m.name, m.value_size));
    }
    Ok(ObjectLoad { prog: req.prog, maps, btf: req.btf, license: req.license })
}

/// Why a program's `#[object]` did not open.
#[derive(Debug)]
pub enum ObjectMissing {
    /// Something from outside the project that compiling the C source
    /// needs (clang, the 7.3 source's headers): a skip unless required.
    Component(crate::require::Component, String),
    /// A C source on an arch without a recorded 7.3 `vmlinux.h`: a skip.
    Arch(String),
    /// A bad object or a source clang refuses: the test fails.
    Bad(String),
}

/// Opens an `#[object]`: clang's object (`.o`) as it is, or a C source
/// (`.c`) compiled for `arch` as the kernel's selftests are compiled,
/// against the 7.3 image's `vmlinux.h` and libbpf's headers.
pub fn open_object(path: &str, arch: Arch) -> Result<BpfObject, ObjectMissing> {
    let path = std::path::Path::new(path);
    let compiled;
    let object = if path.extension().is_some_and(|e| e == "c") {
        compiled = compile_object_source(path, arch)?;
        compiled.as_path()
    } else {
        path
    };
    BpfObject::open(object).map_err(|e| ObjectMissing::Bad(e.0))
}

/// A C source compiled for `arch` (cached; see
/// [`crate::import::clang::compile_tracking_includes`]): the object's path.
pub fn compile_object_source(path: &std::path::Path, arch: Arch) -> Result<std::path::PathBuf, ObjectMissing> {
    use crate::require::Component;
    if !matches!(arch, Arch::X86_64 | Arch::Arm64) {
        return Err(ObjectMissing::Arch(format!("{}: C is compiled for x86_64 and arm64 only (the arches of the 7.3 images' vmlinux.h)", path.display())));
    }
    if crate::import::clang::clang_program().is_none() {
        return Err(ObjectMissing::Component(Component::Clang, format!("{}: compiling it needs clang-19", path.display())));
    }
    let Some(tree) = crate::import::cpp::source_tree() else {
        return Err(ObjectMissing::Component(Component::Source, format!("{}: compiling it needs libbpf's headers from the Linux 7.3 source", path.display())));
    };
    crate::import::clang::compile_tracking_includes(path, &tree, arch).map_err(|e| ObjectMissing::Bad(format!("{}: {e}", path.display())))
}

impl std::fmt::Display for ObjectMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ObjectMissing::Component(c, why) => write!(f, "{why} (installed by: {})", c.installed_by()),
            ObjectMissing::Arch(why) | ObjectMissing::Bad(why) => f.write_str(why),
        }
    }
}

fn prepare(
    suite: &Suite,
    syms: &SuiteSymbols,
    prog: &ProgDecl,
    object: Option<&BpfObject>,
    spec: &Arc<TestSpec>,
    unpriv: bool,
    opts: &RunOptions,
) -> Result<LoadRequest, String> {
    let load = match object {
        Some(obj) => object_load(obj, prog.name, opts.arch)?,
        None => {
            let program = prog.asm.program()?;
            let symbols = Symbols { subprogs: &syms.subprogs, maps: &syms.maps, globals: &syms.globals };
            let linked = link::link(prog.name, &program, &symbols).map_err(|e| format!("link: {e}"))?;
            ObjectLoad { prog: linked, maps: syms.maps.clone(), btf: BtfMode::default(), license: "GPL".into() }
        }
    };
    let sub = spec.subspec(unpriv);
    let prog_type = spec.sec_def.prog_type;
    let scenario = if unpriv { backend::Scenario::default() } else { scenario(suite, syms, prog, object, spec, opts.arch)? };
    Ok(LoadRequest {
        name: format!("{}/{}", suite.name, prog.name),
        prog: load.prog,
        prog_type,
        expected_attach_type: spec.sec_def.attach_type,
        attach_func: crate::prog_type::sec_attach_target(prog.sec).map(str::to_string),
        prog_flags: spec.sec_def.flags | spec.prog_flags,
        log_level: log_level(spec.log_level, opts.verbosity),
        unpriv,
        caps_unpriv: if unpriv { sub.cap_numbers() } else { Vec::new() },
        maps: load.maps,
        btf: load.btf,
        test_run: should_do_test_run(spec, unpriv, opts.arch).then(|| test_run_input(spec, unpriv)),
        arch: opts.arch,
        want_jited: !sub.jited.is_empty(),
        license: load.license,
        privileged_setup: false,
        log_size: crate::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario,
    })
}

/// What the test run passes: test_loader's input, except that a raw
/// tracepoint program's run with surroundings ([`spec::RunExpect`]) gets
/// none (no packet, which the kernel refuses for that type), as a
/// skeleton's test passes it.
fn test_run_input(spec: &TestSpec, unpriv: bool) -> TestRunInput {
    use crate::prog_type::bpf_prog_type::{RAW_TRACEPOINT, RAW_TRACEPOINT_WRITABLE};
    let ty = spec.sec_def.prog_type;
    if !unpriv && !spec.run.is_empty() && matches!(ty.0, RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE) {
        return TestRunInput { data: Vec::new(), ctx: None, data_out_size: 0, repeat: 0 };
    }
    TestRunInput::test_loader(ty)
}

/// The kernel function or tracepoint a program of section `sec` is
/// attached to: the BTF target of fentry/fexit/fmod_ret/tp_btf, the
/// tracepoint of raw_tp.
pub fn attach_target(sec: &str) -> Option<String> {
    if let Some(t) = crate::prog_type::sec_attach_target(sec) {
        return Some(t.to_string());
    }
    let sec = sec.strip_prefix('?').unwrap_or(sec);
    let (head, tp) = sec.split_once('/')?;
    matches!(head, "raw_tp" | "raw_tracepoint" | "raw_tp.w" | "raw_tracepoint.w").then(|| tp.to_string())
}

/// The [`backend::Scenario`] of a privileged run: the programs of
/// `#[attach(...)]` linked against the suite's maps, the globals of
/// `#[global_init]` and `#[global_after]` placed in their maps.
fn scenario(suite: &Suite, syms: &SuiteSymbols, prog: &ProgDecl, object: Option<&BpfObject>, spec: &TestSpec, arch: Arch) -> Result<backend::Scenario, String> {
    let run = &spec.run;
    let mut out = backend::Scenario::default();
    if run.attach_self {
        out.attach_self = Some(
            attach_target(prog.sec)
                .ok_or_else(|| format!("#[attach]: SEC(\"{}\") names nothing to attach to (fentry/, fexit/, fmod_ret/, tp_btf/, raw_tp/)", prog.sec))?,
        );
    }
    for name in &run.attach {
        let other = suite.programs.iter().find(|p| p.name == name).ok_or_else(|| format!("#[attach({name})]: the suite has no program '{name}'"))?;
        if other.name == prog.name {
            return Err(format!("#[attach({name})]: that is the program itself; write #[attach]"));
        }
        let ospec = spec::parse_test_spec(other.name, other.sec, other.tags, arch).map_err(|e| format!("#[attach({name})]: {e}"))?;
        let target = attach_target(other.sec).ok_or_else(|| format!("#[attach({name})]: SEC(\"{}\") names nothing to attach to", other.sec))?;
        let (linked, btf) = match (other.object, object) {
            (Some(_), Some(obj)) => {
                let l = object_load(obj, other.name, arch)?;
                (l.prog, l.btf)
            }
            (Some(o), None) => return Err(format!("#[attach({name})]: a program of object {o} beside a program in asm")),
            (None, _) => {
                let program = other.asm.program()?;
                let symbols = Symbols { subprogs: &syms.subprogs, maps: &syms.maps, globals: &syms.globals };
                (link::link(other.name, &program, &symbols).map_err(|e| format!("#[attach({name})]: link: {e}"))?, BtfMode::default())
            }
        };
        out.attached.push(backend::AttachedProg {
            name: name.clone(),
            prog: linked,
            prog_type: ospec.sec_def.prog_type,
            expected_attach_type: ospec.sec_def.attach_type,
            attach_func: Some(target),
            prog_flags: ospec.sec_def.flags | ospec.prog_flags,
            btf,
        });
    }
    let known = |p: &Option<String>, what: &str| match p {
        Some(n) if n != prog.name && !run.attach.contains(n) => Err(format!("#[{what}({n} = ...)]: '{n}' is not attached by this test")),
        _ => Ok(()),
    };
    for (p, _) in &run.run_counts {
        known(p, "run_count")?;
    }
    for (p, _) in &run.recursion_misses {
        known(p, "recursion_misses")?;
    }
    let big_endian = arch == Arch::S390x;
    let place = |name: &str, what: &str| -> Result<(usize, u32, usize), String> {
        let g = syms.globals.iter().find(|g| g.name == name).ok_or_else(|| format!("#[{what}({name} = ...)]: the suite has no global '{name}'"))?;
        let decl = suite.globals.iter().find(|d| d.name == name).ok_or_else(|| format!("#[{what}]: no declaration of '{name}'"))?;
        if !(1..=8).contains(&decl.size) {
            return Err(format!("#[{what}({name} = ...)]: a {}-byte global is not a number", decl.size));
        }
        Ok((g.map, g.off, decl.size))
    };
    for (name, v) in &run.global_init {
        let (map, off, size) = place(name, "global_init")?;
        if syms.maps[map].frozen {
            return Err(format!("#[global_init({name} = ...)]: '{name}' is in a read-only section"));
        }
        out.global_init.push((map, off, value_bytes(*v, size, big_endian).ok_or_else(|| format!("#[global_init]: {v} does not fit {name}'s {size} bytes"))?));
    }
    for (name, v) in &run.global_after {
        let (map, off, size) = place(name, "global_after")?;
        value_bytes(*v, size, big_endian).ok_or_else(|| format!("#[global_after]: {v} does not fit {name}'s {size} bytes"))?;
        out.global_read.push((map, off, size as u32));
    }
    Ok(out)
}

/// `v` as a `size`-byte integer (either signedness), in the arch's order.
fn value_bytes(v: i128, size: usize, big_endian: bool) -> Option<Vec<u8>> {
    let bits = 8 * size as u32;
    let fits = v >= -(1i128 << (bits - 1)) && v < (1i128 << bits);
    if !fits {
        return None;
    }
    let le = (v as u128).to_le_bytes()[..size].to_vec();
    Some(if big_endian { le.into_iter().rev().collect() } else { le })
}

/// Every subtest of the registry, planned for `opts.arch` on `backend`.
pub fn plan(opts: &RunOptions, backend: &dyn Backend) -> Vec<Subtest> {
    plan_suites(&registry::suites(), opts, backend)
}

/// [`plan`] over the given suites.
pub fn plan_suites(suites: &[Suite], opts: &RunOptions, backend: &dyn Backend) -> Vec<Subtest> {
    let facts = BackendFacts::ask(backend, opts.arch);
    let mut out = Vec::new();
    for suite in suites {
        let syms = suite.symbols(opts.arch == Arch::S390x);
        // the suite's objects, each opened once
        let mut objects: Vec<(&str, Result<BpfObject, ObjectMissing>)> = Vec::new();
        for o in suite.programs.iter().filter_map(|p| p.object) {
            if !objects.iter().any(|(p, _)| *p == o) {
                objects.push((o, open_object(o, opts.arch)));
            }
        }
        for prog in &suite.programs {
            let name = format!("{}/{}", suite.name, prog.name);
            let spec = match spec::parse_test_spec(prog.name, prog.sec, prog.tags, opts.arch) {
                Ok(s) => Arc::new(s),
                Err(e) => {
                    let why = format!("Can't parse test spec for program '{}': {e}", prog.name);
                    out.push(Subtest { name, suite: suite.name.clone(), description: None, unpriv: false, plan: Plan::Fail(why) });
                    continue;
                }
            };
            if spec.auxiliary {
                continue;
            }
            for unpriv in [false, true] {
                if spec.mode_mask & if unpriv { spec::UNPRIV } else { spec::PRIV } == 0 {
                    continue;
                }
                let sub = spec.subspec(unpriv);
                let object = prog.object.and_then(|o| objects.iter().find(|(p, _)| *p == o)).map(|(_, r)| r.as_ref());
                let plan = match (gate(&spec, unpriv, opts.arch, &facts), object) {
                    (Some(Ok(why)), _) => Plan::Skip(why),
                    (Some(Err(failure)), _) => Plan::Fail(failure),
                    (None, Some(Err(ObjectMissing::Component(c, why)))) => match crate::require::missing(*c, why) {
                        Ok(skip) => Plan::Skip(skip),
                        Err(failure) => Plan::Fail(failure),
                    },
                    (None, Some(Err(ObjectMissing::Arch(why)))) => Plan::Skip(why.clone()),
                    (None, Some(Err(ObjectMissing::Bad(e)))) => Plan::Fail(format!("{}: {e}", prog.name)),
                    (None, object) => {
                        match syms.as_ref().map_err(Clone::clone).and_then(|syms| prepare(suite, syms, prog, object.and_then(|r| r.ok()), &spec, unpriv, opts))
                        {
                            Ok(request) => Plan::Load(Box::new(Job { spec: spec.clone(), unpriv, request, decl: prog })),
                            Err(e) => Plan::Fail(format!("{}: {e}", prog.name)),
                        }
                    }
                };
                out.push(Subtest {
                    name: format!("{}/{}", suite.name, sub.name),
                    suite: suite.name.clone(),
                    description: sub.description.clone(),
                    unpriv,
                    plan,
                });
            }
        }
    }
    out
}

fn framed(dump: Dump, text: &str) -> String {
    format!("{}:\n=============\n{text}=============\n", dump.title())
}

fn lines_text(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// `errno N (strerror)`.
fn errno_text(errno: i32) -> String {
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    let text = text.strip_suffix(&format!(" (os error {errno})")).unwrap_or(&text).to_string();
    format!("errno {errno} ({text})")
}

/// Which check of [`check_outcome`] failed, for pointing at its attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailedCheck {
    /// Accepted against `#[failure]`, or rejected against `#[success]`.
    LoadResult,
    /// A pattern of the dump's list: its text, and whether it is a `not_`.
    Pattern { dump: Dump, pattern: String, negative: bool },
    /// The test run: its error or its retval.
    TestRun,
}

fn check_list(buf: &str, msgs: &ExpectedMsgs, dump: Dump, report: &mut String, failed: &mut Vec<FailedCheck>) {
    if msgs.is_empty() && dump != Dump::VerifierLog {
        return;
    }
    if let Err(m) = matcher::validate_msgs(buf, msgs) {
        report.push_str(&m.report(dump, buf));
        if let Some(p) = msgs.patterns.get(m.index) {
            failed.push(FailedCheck::Pattern { dump, pattern: p.pattern.clone(), negative: p.negative });
        }
    }
}

/// The checks of test_loader's `run_subtest` after the load, in its order:
/// load result, log patterns, xlated, jited, test-run retval. Pattern
/// failures do not stop later checks (each prints its report, as the
/// kernel's does); a wrong load result or retval does. `verbose` adds the
/// dumps of a passing test to the transcript returned with `Ok`.
pub fn check_outcome(spec: &TestSpec, unpriv: bool, arch: Arch, out: &LoadOutcome, verbose: bool) -> (Verdict, String) {
    let (verdict, transcript, _) = check_outcome_failed(spec, unpriv, arch, out, verbose);
    (verdict, transcript)
}

/// [`check_outcome`], with the checks that failed.
pub fn check_outcome_failed(spec: &TestSpec, unpriv: bool, arch: Arch, out: &LoadOutcome, verbose: bool) -> (Verdict, String, Vec<FailedCheck>) {
    let mut failed = Vec::new();
    let (verdict, transcript) = check_outcome_into(spec, unpriv, arch, out, verbose, &mut failed);
    (verdict, transcript, failed)
}

fn check_outcome_into(spec: &TestSpec, unpriv: bool, arch: Arch, out: &LoadOutcome, verbose: bool, failed: &mut Vec<FailedCheck>) -> (Verdict, String) {
    let sub = spec.subspec(unpriv);
    let mut transcript = String::new();
    if let Some(d) = &sub.description {
        let _ = writeln!(transcript, "description: {d}");
    }
    if sub.expect_failure && out.accepted {
        let _ = writeln!(transcript, "run_subtest:FAIL: unexpected_load_success: the program was accepted");
        failed.push(FailedCheck::LoadResult);
        if verbose || !out.log.is_empty() {
            transcript.push_str(&framed(Dump::VerifierLog, &out.log));
        }
        return (Verdict::Fail(transcript.clone()), transcript);
    }
    if !sub.expect_failure && !out.accepted {
        let _ = writeln!(transcript, "run_subtest:FAIL: unexpected_load_failure: {}", errno_text(out.errno));
        failed.push(FailedCheck::LoadResult);
        transcript.push_str(&framed(Dump::VerifierLog, &out.log));
        return (Verdict::Fail(transcript.clone()), transcript);
    }
    if verbose {
        transcript.push_str(&framed(Dump::VerifierLog, &out.log));
    }
    let mut failures = String::new();
    check_list(&out.log, &sub.expect_msgs, Dump::VerifierLog, &mut failures, failed);
    if !sub.expect_xlated.is_empty() {
        let text = lines_text(&out.xlated);
        if verbose {
            transcript.push_str(&framed(Dump::Xlated, &text));
        }
        check_list(&text, &sub.expect_xlated, Dump::Xlated, &mut failures, failed);
    }
    if !sub.jited.is_empty() {
        if out.jited.is_empty() {
            transcript.push_str(&failures);
            if failures.is_empty() {
                return (Verdict::Skip(format!("no JIT dump from the backend for {arch}")), transcript);
            }
            return (Verdict::Fail(transcript.clone()), transcript);
        }
        let text = lines_text(&out.jited);
        if verbose {
            transcript.push_str(&framed(Dump::Jited, &text));
        }
        check_list(&text, &sub.jited, Dump::Jited, &mut failures, failed);
    }
    if should_do_test_run(spec, unpriv, arch) {
        if out.test_run_errno != 0 {
            let _ = writeln!(failures, "run_subtest:FAIL: Unexpected bpf_prog_test_run error: {}", errno_text(out.test_run_errno));
            failed.push(FailedCheck::TestRun);
        } else {
            match out.retval {
                None => {
                    failures.push_str("run_subtest:FAIL: the backend did not run the program\n");
                    failed.push(FailedCheck::TestRun);
                }
                Some(got) if got as i32 != sub.retval && sub.retval != spec::POINTER_VALUE => {
                    let _ = writeln!(failures, "run_subtest:FAIL: Unexpected retval: {} != {}", got as i32, sub.retval);
                    failed.push(FailedCheck::TestRun);
                }
                Some(_) => {}
            }
        }
    }
    if !unpriv && !spec.run.is_empty() && out.test_run_errno == 0 && out.retval.is_some() {
        check_run_expect(spec, arch, out, &mut failures, failed);
    }
    transcript.push_str(&failures);
    if failures.is_empty() { (Verdict::Ok, transcript) } else { (Verdict::Fail(transcript.clone()), transcript) }
}

/// An expectation list of counters, the counter's name, how to read it.
type Counter<'a> = (&'a [(Option<String>, u64)], &'static str, fn(&backend::ProgRunStats) -> u64);

/// `#[run_count]`, `#[recursion_misses]` and `#[global_after]` against
/// what the backend read after the run.
fn check_run_expect(spec: &TestSpec, arch: Arch, out: &LoadOutcome, failures: &mut String, failed: &mut Vec<FailedCheck>) {
    let run = &spec.run;
    let index = |p: &Option<String>| match p {
        Some(n) if *n != spec.prog_name => run.attach.iter().position(|a| a == n).map(|k| k + 1),
        _ => Some(0),
    };
    let label = |p: &Option<String>| p.clone().unwrap_or_else(|| spec.prog_name.clone());
    let mut bad = false;
    let counters: [Counter; 2] = [(&run.run_counts, "run_cnt", |st| st.run_cnt), (&run.recursion_misses, "recursion_misses", |st| st.recursion_misses)];
    for (list, what, get) in counters {
        for (p, want) in list {
            match index(p).and_then(|k| out.prog_stats.get(k)) {
                Some(st) if get(st) == *want => {}
                Some(st) => {
                    let _ = writeln!(failures, "run_subtest:FAIL: {}: {what} {} != {want}", label(p), get(st));
                    bad = true;
                }
                None => {
                    let _ = writeln!(failures, "run_subtest:FAIL: {}: the backend reported no {what}", label(p));
                    bad = true;
                }
            }
        }
    }
    for (k, (name, want)) in run.global_after.iter().enumerate() {
        let Some(bytes) = out.globals.get(k) else {
            let _ = writeln!(failures, "run_subtest:FAIL: global {name}: the backend read nothing");
            bad = true;
            continue;
        };
        let mut b = bytes.clone();
        if arch == Arch::S390x {
            b.reverse();
        }
        let mut le = [0u8; 16];
        le[..b.len().min(16)].copy_from_slice(&b[..b.len().min(16)]);
        let unsigned = u128::from_le_bytes(le) as i128;
        let bits = 8 * b.len() as u32;
        let signed = if bits > 0 && bits < 128 && unsigned >> (bits - 1) & 1 == 1 { unsigned - (1i128 << bits) } else { unsigned };
        if unsigned != *want && signed != *want {
            let _ = writeln!(failures, "run_subtest:FAIL: global {name}: {unsigned} != {want}");
            bad = true;
        }
    }
    if bad {
        failed.push(FailedCheck::TestRun);
    }
}

/// Loads and checks one planned subtest.
pub fn run_subtest(st: &Subtest, backend: &dyn Backend, opts: &RunOptions) -> (Verdict, String) {
    match &st.plan {
        Plan::Skip(why) => (Verdict::Skip(why.clone()), String::new()),
        Plan::Fail(why) => (Verdict::Fail(format!("{why}\n")), String::new()),
        Plan::Load(job) => match backend.load(&job.request) {
            Err(u) => (unavailable_verdict(backend, opts.arch, u), String::new()),
            Ok(out) => {
                let (verdict, mut transcript, failed) = check_outcome_failed(&job.spec, job.unpriv, opts.arch, &out, opts.verbosity > 0);
                match verdict {
                    Verdict::Fail(mut report) => {
                        let at = source_report(job.decl, job.unpriv, &failed);
                        report.push_str(&at);
                        transcript.push_str(&at);
                        (Verdict::Fail(report), transcript)
                    }
                    v => (v, transcript),
                }
            }
        },
    }
}

/// The tag keys of the attributes a failed check comes from, the
/// unprivileged run's own first (it inherits the others), with the
/// attribute's name.
fn failed_check_keys(f: &FailedCheck, unpriv: bool) -> Vec<(String, &'static str)> {
    let both = |u: (&'static str, &'static str), p: (&'static str, &'static str)| if unpriv { vec![u, p] } else { vec![p] };
    let keys = match f {
        FailedCheck::LoadResult => {
            let mut k = both(("test_expect_success_unpriv", "success_unpriv"), ("test_expect_success", "success"));
            k.extend(both(("test_expect_failure_unpriv", "failure_unpriv"), ("test_expect_failure", "failure")));
            return k.into_iter().map(|(t, a)| (t.to_string(), a)).collect();
        }
        FailedCheck::TestRun => both(("test_retval_unpriv=", "retval_unpriv"), ("test_retval=", "retval")),
        FailedCheck::Pattern { dump: Dump::VerifierLog, negative: false, .. } => both(("test_expect_msg_unpriv=", "msg_unpriv"), ("test_expect_msg=", "msg")),
        FailedCheck::Pattern { dump: Dump::VerifierLog, negative: true, .. } => {
            both(("test_expect_not_msg_unpriv=", "not_msg_unpriv"), ("test_expect_not_msg=", "not_msg"))
        }
        FailedCheck::Pattern { dump: Dump::Xlated, .. } => both(("test_expect_xlated_unpriv=", "xlated_unpriv"), ("test_expect_xlated=", "xlated")),
        FailedCheck::Pattern { dump: Dump::Jited, .. } => both(("test_jited_unpriv=", "jited_unpriv"), ("test_jited=", "jited")),
    };
    let pattern = match f {
        FailedCheck::Pattern { pattern, .. } => pattern.as_str(),
        _ => "",
    };
    keys.into_iter().map(|(k, a)| (format!("{k}{pattern}"), a)).collect()
}

/// A source file as written by `file!()`, relative to the current
/// directory when it lies under it (`progs/<suite>.rs` from the workspace).
fn source_path(file: &str) -> String {
    let path = std::path::Path::new(file);
    std::env::current_dir().ok().and_then(|d| path.strip_prefix(d).ok().map(|p| p.display().to_string())).unwrap_or_else(|| file.to_string())
}

/// Where a failed subtest is in the source: `file:line` of each attribute
/// whose check failed, then of the test itself.
pub fn source_report(decl: &ProgDecl, unpriv: bool, failed: &[FailedCheck]) -> String {
    let file = source_path(decl.site.file);
    let mut out = String::new();
    for f in failed {
        let keys = failed_check_keys(f, unpriv);
        let found = keys.iter().find_map(|(key, attr)| {
            let exact = !key.ends_with('=');
            let k = decl.tags.iter().position(|t| if exact { t == key } else { t.starts_with(key.as_str()) })?;
            Some((decl.tag_lines.get(k).copied(), *attr, decl.tags[k].split_once('=').map(|(_, v)| v)))
        });
        match found {
            Some((Some(line), attr, value)) => {
                // patterns as the string literals they were written as
                let shown = match value {
                    Some(v) if attr.starts_with("retval") => format!("({v})"),
                    Some(v) => format!("({v:?})"),
                    None => String::new(),
                };
                let _ = writeln!(out, "  --> {file}:{line}: #[{attr}{shown}] failed");
            }
            Some((None, attr, _)) => {
                let _ = writeln!(out, "  --> {file}: #[{attr}] failed");
            }
            None if *f == FailedCheck::LoadResult => {
                let _ = writeln!(out, "  --> {file}:{}: no #[success] or #[failure]: the load must succeed", decl.site.line);
            }
            None => {}
        }
    }
    let _ = writeln!(out, "  --> {file}:{}: the test {}", decl.site.line, decl.name);
    out
}

fn backend_or_report(opts: &RunOptions) -> Result<Arc<dyn Backend>, String> {
    backend::by_name(&opts.backend).map(Arc::from)
}

/// libtest trials for every subtest.
pub fn trials(opts: &RunOptions, backend: Arc<dyn Backend>) -> Vec<Trial> {
    let subtests = plan(opts, &*backend);
    subtest_trials(subtests, opts, backend)
}

/// libtest trials for planned subtests (of any suites, e.g. imported ones).
pub fn subtest_trials(subtests: Vec<Subtest>, opts: &RunOptions, backend: Arc<dyn Backend>) -> Vec<Trial> {
    let opts = Arc::new(opts.clone());
    subtests
        .into_iter()
        .map(|st| {
            let skip = match &st.plan {
                Plan::Skip(why) => Some(format!("skip: {}", why.replace(['[', ']'], ""))),
                _ => None,
            };
            let name = st.name.clone();
            let backend = backend.clone();
            let opts = opts.clone();
            let trial = Trial::ignorable_test(name, move || match run_subtest(&st, &*backend, &opts).0 {
                Verdict::Ok => Ok(Completion::Completed),
                Verdict::Skip(why) => Ok(Completion::ignored_with(why)),
                Verdict::Fail(report) => Err(Failed::from(report.trim_end())),
            });
            match skip {
                Some(kind) => trial.with_kind(kind).with_ignored_flag(true),
                None => trial,
            }
        })
        .collect()
}

/// The `main` of a `harness = false` test target: the registry through
/// libtest-mimic, configured from the environment (see [`RunOptions::from_env`]).
pub fn test_main() -> ExitCode {
    let args = Arguments::from_args();
    let opts = match RunOptions::from_env() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bpf-selftest: {e}");
            return ExitCode::from(2);
        }
    };
    let backend = match backend_or_report(&opts) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bpf-selftest: BPF_SELFTEST_BACKEND: {e}");
            return ExitCode::from(2);
        }
    };
    libtest_mimic::run(&args, trials(&opts, backend)).exit_code()
}

/// Runs the registry with test_progs-like output: one line per subtest
/// (`#1/2    iters/prog:OK`), one per suite (`#1      iters:OK`, `SKIP`,
/// `FAIL`, `OK (SKIP: k/n)`), failure reports, and the summary line. True
/// when nothing failed.
pub fn run_summary(opts: &RunOptions) -> bool {
    let backend = match backend_or_report(opts) {
        Ok(b) => b,
        Err(e) => {
            println!("bpf-selftest: {e}");
            return false;
        }
    };
    let subtests = plan(opts, &*backend);
    summarize(&subtests, &*backend, opts, &mut std::io::stdout())
}

fn selected(st: &Subtest, filters: &[String]) -> bool {
    filters.is_empty() || filters.iter().any(|f| st.name.contains(f.as_str()) || st.description.as_deref().is_some_and(|d| d.contains(f.as_str())))
}

/// [`run_summary`] over planned subtests, writing to `w`.
pub fn summarize(subtests: &[Subtest], backend: &dyn Backend, opts: &RunOptions, w: &mut dyn std::io::Write) -> bool {
    let (mut succ, mut sub_succ, mut skip, mut fail, mut sub_fail) = (0, 0, 0, 0, 0);
    let mut test_num = 0;
    let mut i = 0;
    while i < subtests.len() {
        let suite = &subtests[i].suite;
        let end = subtests[i..].iter().position(|s| &s.suite != suite).map_or(subtests.len(), |k| i + k);
        let group = &subtests[i..end];
        i = end;
        if !group.iter().any(|s| selected(s, &opts.filters)) {
            continue;
        }
        test_num += 1;
        let (mut errors, mut skipped, mut count) = (0, 0, 0);
        for (k, st) in group.iter().enumerate() {
            if !selected(st, &opts.filters) {
                continue;
            }
            count += 1;
            let (verdict, transcript) = run_subtest(st, backend, opts);
            let num = format!("{test_num}/{}", k + 1);
            let shown = st.description.as_deref().map_or(st.name.clone(), |d| format!("{suite}/{d}"));
            let _ = match &verdict {
                Verdict::Ok => {
                    sub_succ += 1;
                    if opts.verbosity > 0 {
                        let _ = write!(w, "{transcript}");
                    }
                    writeln!(w, "#{num:<7} {shown}:OK")
                }
                Verdict::Skip(why) => {
                    skipped += 1;
                    skip += 1;
                    writeln!(w, "#{num:<7} {shown}:SKIP ({why})")
                }
                Verdict::Fail(report) => {
                    errors += 1;
                    sub_fail += 1;
                    let _ = write!(w, "{report}");
                    writeln!(w, "#{num:<7} {shown}:FAIL")
                }
            };
        }
        let result = if errors > 0 {
            fail += 1;
            "FAIL".to_string()
        } else {
            succ += 1;
            if skipped == 0 {
                "OK".to_string()
            } else if skipped == count {
                "SKIP".to_string()
            } else {
                format!("OK (SKIP: {skipped}/{count})")
            }
        };
        let _ = writeln!(w, "#{test_num:<7} {suite}:{result}");
    }
    let _ = writeln!(w, "Summary: {succ}/{sub_succ} PASSED, {skip} SKIPPED, {fail}/{sub_fail} FAILED");
    fail == 0
}

#[cfg(test)]
mod tests;
