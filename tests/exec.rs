//! The interpreter (`bpf_selftest::exec`) against what 7.3 returned for the
//! same test runs:
//!
//! * the corpus of `tests/exec/*.s` (small programs, one per ALU op and
//!   width, edge case, memory and atomic form, call, map, helper, kfunc and
//!   ctx field) and a seeded random corpus of straight-line ALU/jump/stack
//!   programs ([`random`]), each run by 7.3 on x86_64 and arm64 under QEMU
//!   and recorded in `expected/exec/linux-7.3-<arch>.txt` by
//!   `scripts/record-exec-goldens.sh`;
//! * every program of progs/ whose golden has a test run.
//!
//! Nothing here compares the interpreter with itself: every expected value
//! is a real kernel's.

#[path = "exec/random.rs"]
mod random;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::backend::{Backend, LoadOutcome, LoadRequest};
use bpf_selftest::cli::check::{CheckArgs, request};
use bpf_selftest::exec::{self, ExecError};
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// How many random programs the corpus has: ALU/stack ones and map ones.
const RANDOM_PROGRAMS: usize = 400;
const RANDOM_MAP_PROGRAMS: usize = 200;
const RANDOM_SEED: u64 = 0x7_3000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One program of the corpus and how to load and run it.
#[derive(Clone, Debug)]
struct Case {
    name: String,
    prog_type: String,
    maps: Vec<String>,
    flags: Option<String>,
    data_hex: Option<String>,
    data_len: Option<usize>,
    ctx_hex: Option<String>,
    /// `data_size_out` other than test_loader's (0: no data_out buffer).
    data_out_size: Option<u32>,
    src: String,
}

impl Case {
    fn new(name: &str) -> Case {
        Case {
            name: name.to_string(),
            prog_type: "socket".into(),
            maps: Vec::new(),
            flags: None,
            data_hex: None,
            data_len: None,
            ctx_hex: None,
            data_out_size: None,
            src: String::new(),
        }
    }

    fn request(&self, arch: Arch) -> Result<LoadRequest, String> {
        let a = CheckArgs {
            file: format!("{}.s", self.name),
            prog_type: self.prog_type.clone(),
            arch: Some(arch.name().to_string()),
            backend: "vm".into(),
            maps: self.maps.clone(),
            flags: self.flags.clone(),
            log_level: 0,
            unpriv: false,
            btf: "func_info".into(),
            global_funcs: Vec::new(),
            imms: Vec::new(),
            run: true,
            data_len: self.data_len,
            data_hex: self.data_hex.clone(),
            ctx_len: None,
            ctx_hex: self.ctx_hex.clone(),
            json: false,
            interp: false,
        };
        let mut req = request(&a, &self.src)?;
        if let (Some(n), Some(t)) = (self.data_out_size, req.test_run.as_mut()) {
            t.data_out_size = n;
        }
        Ok(req)
    }
}

/// Parses a corpus file: cases start with `@@ name`; `@type`, `@map`,
/// `@flags`, `@data-len`, `@data-hex`, `@ctx-hex` lines set up the run; the
/// rest is asm.
fn parse_corpus(file: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("@@") {
            out.push(Case::new(name.trim()));
            continue;
        }
        let Some(c) = out.last_mut() else { continue };
        if let Some(d) = t.strip_prefix('@') {
            let (k, v) = d.split_once(char::is_whitespace).unwrap_or((d, ""));
            let v = v.trim().to_string();
            match k {
                "type" => c.prog_type = v,
                "map" => c.maps.push(v),
                "flags" => c.flags = Some(v),
                "data-len" => c.data_len = Some(v.parse().expect("data-len")),
                "data-hex" => c.data_hex = Some(v),
                "ctx-hex" => c.ctx_hex = Some(v),
                "data-out-size" => c.data_out_size = Some(v.parse().expect("data-out-size")),
                _ => panic!("{}: unknown directive @{k}", file.display()),
            }
        } else {
            c.src.push_str(line);
            c.src.push('\n');
        }
    }
    out
}

fn corpus() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/exec"))
        .expect("tests/exec")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "s"))
        .collect();
    files.sort();
    let mut cases: Vec<Case> = files.iter().flat_map(|f| parse_corpus(f)).collect();
    for (i, src) in random::programs(RANDOM_SEED, RANDOM_PROGRAMS).into_iter().enumerate() {
        let mut c = Case::new(&format!("random_{i:04}"));
        c.src = src;
        cases.push(c);
    }
    for i in 0..RANDOM_MAP_PROGRAMS {
        let (map, src) = random::map_program(RANDOM_SEED, i as u64);
        let mut c = Case::new(&format!("random_map_{i:04}"));
        c.maps.push(map);
        c.src = src;
        cases.push(c);
    }
    let mut seen = std::collections::HashSet::new();
    for c in &cases {
        assert!(seen.insert(c.name.clone()), "duplicate case name {}", c.name);
    }
    cases
}

/// What a run gave, as recorded: `load <errno>`, then the test run's
/// `retval <v>` or `errno <e>`, then `data <hex>` when there is a packet.
fn outcome_line(o: &LoadOutcome) -> String {
    let mut s = String::new();
    if !o.accepted {
        let _ = write!(s, "rejected {}", o.errno);
        return s;
    }
    match o.retval {
        Some(r) if o.test_run_errno == 0 => {
            let _ = write!(s, "retval {r:#x}");
        }
        _ => {
            let _ = write!(s, "errno {}", o.test_run_errno);
        }
    }
    if !o.data_out.is_empty() {
        s.push_str(" data ");
        for b in &o.data_out {
            let _ = write!(s, "{b:02x}");
        }
    }
    s
}

fn interp_line(req: &LoadRequest) -> String {
    let input = req.test_run.clone().expect("a test run");
    match exec::test_run(req, &input) {
        Ok(out) => {
            let mut s = format!("retval {:#x}", out.retval);
            if !out.data_out.is_empty() {
                s.push_str(" data ");
                for b in &out.data_out {
                    let _ = write!(s, "{b:02x}");
                }
            }
            s
        }
        Err(ExecError::TestRun(e)) => format!("errno {e}"),
        Err(e) => format!("interpreter error: {e}"),
    }
}

/// A digest of the program, its maps, type and input, so that a golden
/// recorded from an older version of a case is noticed.
fn digest(req: &LoadRequest) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for i in &req.prog.insns {
        for b in i.to_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    for m in &req.maps {
        for b in format!("{m:?}").bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    // the run's input too: a case with other data or ctx is another case
    for b in format!("{:?}{:?}", req.prog_type, req.test_run).bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    format!("{:08x}", h as u32)
}

fn golden_path(arch: Arch) -> PathBuf {
    root().join(format!("expected/exec/linux-7.3-{arch}.txt"))
}

/// `name digest: outcome` per line.
fn read_golden(arch: Arch) -> BTreeMap<String, (String, String)> {
    let Ok(text) = std::fs::read_to_string(golden_path(arch)) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (head, outcome) = l.split_once(": ")?;
            let (name, dig) = head.split_once(' ')?;
            Some((name.to_string(), (dig.to_string(), outcome.to_string())))
        })
        .collect()
}

#[test]
fn interpreter_agrees_with_7_3_on_the_corpus() {
    let cases = corpus();
    let mut report = Vec::new();
    let mut compared = 0;
    let mut as_loaded_arena = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let golden = read_golden(arch);
        assert!(
            !golden.is_empty(),
            "no goldens in {}; run scripts/record-exec-goldens.sh",
            golden_path(arch).display()
        );
        for c in &cases {
            let req = c.request(arch).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let Some((dig, want)) = golden.get(&c.name) else {
                report.push(format!(
                    "{arch} {}: no golden; run scripts/record-exec-goldens.sh",
                    c.name
                ));
                continue;
            };
            if *dig != digest(&req) {
                report.push(format!(
                    "{arch} {}: the golden is of another version of the program; re-record",
                    c.name
                ));
                continue;
            }
            if want.starts_with("rejected") {
                report.push(format!("{arch} {}: 7.3 rejects it ({want}); fix the case", c.name));
                continue;
            }
            let got = interp_line(&req);
            let kernel_ctx_run = c.name.starts_with("flow_dissector_") || c.name.starts_with("sk_lookup_");
            if got.starts_with(AS_LOADED_ARENA) && c.name.starts_with("arena_")
                || got.starts_with(AS_LOADED_KERNEL_CTX) && kernel_ctx_run
                || got.starts_with(AS_LOADED_CAST_TO_KERN_CTX) && c.name.starts_with("kern_ctx_")
            {
                // only the xlated program's accesses are arena ones: the
                // xlated/native test below runs these
                as_loaded_arena.push(format!("{arch} {}", c.name));
                continue;
            }
            compared += 1;
            if got != *want {
                report.push(format!(
                    "{arch} {}:\n  7.3:         {want}\n  interpreter: {got}",
                    c.name
                ));
            }
        }
    }
    eprintln!("{compared} runs compared ({} cases, 2 arches)", cases.len());
    eprintln!("  not run as loaded (arena, flow_dissector, sk_lookup, kern_ctx programs): {}", as_loaded_arena.join(", "));
    assert!(as_loaded_arena.len() <= AS_LOADED_ARENA_RATCHET, "{} cases not run as loaded", as_loaded_arena.len());
    assert!(
        report.is_empty(),
        "{} differences from 7.3:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The program as loaded casts to arena pointers, which only the
/// verifier turns into `BPF_PROBE_MEM32` accesses: tests/exec/arena.s
/// runs as xlated programs only (both arches: 2 x 9 cases).
const AS_LOADED_ARENA: &str = "interpreter error: not modelled yet: arena addr_space_cast";
/// flow_dissector and sk_lookup test runs hand the program the kernel's
/// ctx object, which only the xlated program (its ctx accesses converted)
/// reads: tests/exec/test_runs.s's 3 such cases, on both arches.
const AS_LOADED_KERNEL_CTX: &str = "interpreter error: not modelled yet: test runs of ";
/// Likewise `bpf_cast_to_kern_ctx`, which the fixups inline as `r0 = r1`
/// once the ctx is the kernel's object (tests/exec/test_runs.s's
/// `kern_ctx_` case, on both arches).
const AS_LOADED_CAST_TO_KERN_CTX: &str = "interpreter error: not modelled yet: bpf_cast_to_kern_ctx";
const AS_LOADED_ARENA_RATCHET: usize = 18 + 6 + 2;

/// What a model run gave, in the goldens' form.
fn run_line(r: &Result<exec::TestRunOutput, ExecError>) -> String {
    match r {
        Ok(out) => {
            let mut s = format!("retval {:#x}", out.retval);
            if !out.data_out.is_empty() {
                s.push_str(" data ");
                for b in &out.data_out {
                    let _ = write!(s, "{b:02x}");
                }
            }
            s
        }
        Err(ExecError::TestRun(e)) => format!("errno {e}"),
        Err(e) => format!("error: {e}"),
    }
}

/// The corpus as the model backend runs it: the model's xlated program
/// through the interpreter, and on an x86-64 Linux host the x86-64 JIT's
/// code of it natively; both against what 7.3 returned. Runs the model
/// cannot do yet are counted and listed (ratchets), never guessed.
#[test]
fn xlated_and_native_runs_agree_with_7_3_on_the_corpus() {
    use bpf_selftest::backend::model::ModelBackend;
    use bpf_selftest::verifier::{Verdict, bpf_check};
    let cases = corpus();
    let mut report = Vec::new();
    let (mut xlated, mut fallback, mut native, mut native_skipped) = (0, Vec::new(), 0, Vec::new());
    for arch in [Arch::X86_64, Arch::Arm64] {
        let golden = read_golden(arch);
        for c in &cases {
            let req = c.request(arch).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let Some((dig, want)) = golden.get(&c.name) else { continue };
            if *dig != digest(&req) || want.starts_with("rejected") {
                continue;
            }
            let vin = ModelBackend::verifier_input(&req).unwrap_or_else(|e| panic!("{}: {}", c.name, e.0));
            let Verdict::Decided(d) = bpf_check(&vin) else { continue };
            if !d.accepted {
                report.push(format!("{arch} {}: the model rejects it, 7.3 does not", c.name));
                continue;
            }
            let input = req.test_run.clone().expect("a test run");
            let opts = exec::ExecOptions {
                arch,
                ..exec::ExecOptions::default()
            };
            match exec::ExecProgram::from_xlated(&d.xlated_as_run(), arch, req.prog_type.0) {
                Err(why) => fallback.push(format!("{arch} {}: {why}", c.name)),
                Ok(p) => match exec::test_run_program(&req, &p, &input, &opts) {
                    Err(ExecError::Unsupported(why)) => fallback.push(format!("{arch} {}: {why}", c.name)),
                    got => {
                        xlated += 1;
                        let got = run_line(&got);
                        if got != *want {
                            report.push(format!("{arch} {} (xlated):\n  7.3:   {want}\n  model: {got}", c.name));
                        }
                    }
                },
            }
            if arch != Arch::X86_64 || exec::native::unavailable().is_some() {
                continue;
            }
            if std::env::var_os("BPF_SELFTEST_TRACE_NATIVE").is_some() {
                eprintln!("native: {}", c.name);
            }
            match exec::native::test_run_native(&req, &d.xlated_as_run(), &d.subprogs, &input, &opts) {
                Err(ExecError::Unsupported(why)) => native_skipped.push(format!("{}: {why}", c.name)),
                got => {
                    native += 1;
                    let got = run_line(&got);
                    // pointer values differ from the kernel's; the corpus
                    // returns none
                    if got != *want {
                        report.push(format!("x86_64 {} (native):\n  7.3:    {want}\n  native: {got}", c.name));
                    }
                }
            }
        }
    }
    eprintln!(
        "corpus: {xlated} xlated runs through the interpreter ({} not modelled), {native} native x86-64 runs ({} not run natively)",
        fallback.len(),
        native_skipped.len()
    );
    for f in &fallback {
        eprintln!("  xlated not run: {f}");
    }
    for f in &native_skipped {
        eprintln!("  native not run: {f}");
    }
    assert!(report.is_empty(), "{} differences from 7.3:\n{}", report.len(), report.join("\n"));
    assert!(fallback.len() <= CORPUS_XLATED_RATCHET, "{} xlated runs not modelled", fallback.len());
    assert!(native_skipped.len() <= CORPUS_NATIVE_RATCHET, "{} native runs not run", native_skipped.len());
}

/// At most this many corpus runs cannot run the xlated program / natively.
const CORPUS_XLATED_RATCHET: usize = 0;
const CORPUS_NATIVE_RATCHET: usize = 0;

/// Records the goldens from 7.3 under QEMU (one boot per arch):
/// `scripts/record-exec-goldens.sh`.
#[test]
#[ignore = "records goldens from 7.3 under QEMU; run scripts/record-exec-goldens.sh"]
fn record_exec_goldens() {
    let vm = bpf_selftest::backend::vm::VmBackend::from_env();
    let cases = corpus();
    for arch in [Arch::X86_64, Arch::Arm64] {
        if let Err(e) = vm.probe(arch) {
            panic!("{arch}: {}", e.0);
        }
        let reqs: Vec<LoadRequest> = cases
            .iter()
            .map(|c| c.request(arch).unwrap_or_else(|e| panic!("{}: {e}", c.name)))
            .collect();
        let outs = vm.load_batch(&reqs);
        let mut text = format!(
            "# What 7.3 ({}) returned for the test runs of tests/exec.rs's corpus.\n# Recorded by scripts/record-exec-goldens.sh; `name digest: outcome`.\n",
            vm.kernel_release()
        );
        let mut rejected = Vec::new();
        for ((c, req), out) in cases.iter().zip(&reqs).zip(&outs) {
            let out = out.as_ref().unwrap_or_else(|e| panic!("{}: {}", c.name, e.0));
            if !out.accepted {
                let tail: Vec<&str> = out.log.lines().rev().take(4).collect();
                rejected.push(format!(
                    "{}: errno {}: {}",
                    c.name,
                    out.errno,
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ));
            }
            let _ = writeln!(text, "{} {}: {}", c.name, digest(req), outcome_line(out));
        }
        let path = golden_path(arch);
        if std::env::var("BPF_SELFTEST_EXEC_CHECK").is_ok_and(|v| v == "1") {
            // drift check: the recorded outcomes must be what 7.3 gives now
            let strip = |t: &str| {
                t.lines()
                    .filter(|l| !l.starts_with('#'))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            };
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            let (old, new) = (strip(&old), strip(&text));
            let drift: Vec<String> = new.iter().filter(|l| !old.contains(l)).cloned().collect();
            assert!(
                drift.is_empty() && old.len() == new.len(),
                "{arch}: goldens drifted:\n{}",
                drift.join("\n")
            );
            eprintln!("{arch}: {} cases, no drift from {}", cases.len(), path.display());
            continue;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        eprintln!("{arch}: {} cases recorded in {}", cases.len(), path.display());
        for r in &rejected {
            eprintln!("REJECTED {r}");
        }
    }
}

/// Every program of progs/ with a test run, as the model backend runs it:
/// the model's xlated program (after all fixups) through the interpreter,
/// the program as loaded only where the xlated one cannot run yet (counted
/// and listed, and held to a ratchet): the retval (or test-run errno) is
/// 7.3's (the goldens do not hold `data_out`; the corpus test checks it).
#[test]
fn progs_xlated_retvals_match_their_goldens() {
    use bpf_selftest::backend::model::ModelBackend;
    let be = ReplayBackend::new(root().join("expected"));
    let mut report = Vec::new();
    let mut fallback = Vec::new();
    let (mut compared, mut xlated) = (0, 0);
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions {
            arch,
            backend: "replay".into(),
            verbosity: 0,
            filters: Vec::new(),
        };
        for st in runner::plan(&opts, &be) {
            let Plan::Load(job) = &st.plan else { continue };
            let req = &job.request;
            if req.test_run.is_none() {
                continue;
            }
            let Ok(g) = be.golden(req) else { continue };
            if !g.accepted {
                continue;
            }
            let Ok(input) = ModelBackend::verifier_input(req) else { continue };
            let Ok((mut out, as_run)) = ModelBackend::load_input_as_run(&input, false, None) else { continue };
            if !out.accepted {
                continue;
            }
            compared += 1;
            match exec::fill_outcome_model(req, &as_run, &mut out) {
                Ok(exec::RunPath::Xlated) => xlated += 1,
                Ok(exec::RunPath::AsLoaded(why)) => fallback.push(format!("{arch} {}: {why}", st.name)),
                Err(e) => {
                    report.push(format!("{arch} {}: {e}", st.name));
                    continue;
                }
            }
            if out.retval != g.retval || out.test_run_errno != g.test_run_errno {
                report.push(format!(
                    "{arch} {}: 7.3 retval {:?} errno {}; model retval {:?} errno {}",
                    st.name, g.retval, g.test_run_errno, out.retval, out.test_run_errno
                ));
            }
        }
    }
    eprintln!(
        "{compared} test runs of progs/ through the model: {xlated} ran the xlated program, {} the program as loaded",
        fallback.len()
    );
    for f in &fallback {
        eprintln!("  as loaded: {f}");
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
    // the fallback must shrink, never grow
    assert!(fallback.len() <= FALLBACK_RATCHET, "{} > {FALLBACK_RATCHET} runs fell back", fallback.len());
}

/// At most this many progs/ test runs fall back to the program as loaded.
const FALLBACK_RATCHET: usize = 0;

/// Every program of progs/ with a test run: the interpreter's retval is the
/// one 7.3 returned (its golden).
#[test]
fn progs_retvals_match_their_goldens() {
    let be = ReplayBackend::new(root().join("expected"));
    let mut report = Vec::new();
    let mut not_modelled = Vec::new();
    let mut compared = 0;
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions {
            arch,
            backend: "replay".into(),
            verbosity: 0,
            filters: Vec::new(),
        };
        for st in runner::plan(&opts, &be) {
            let Plan::Load(job) = &st.plan else { continue };
            let req = &job.request;
            if req.test_run.is_none() {
                continue;
            }
            let Ok(g) = be.golden(req) else { continue };
            if !g.accepted {
                continue;
            }
            compared += 1;
            // as the model backend will: the test-run part of its outcome
            let mut out = LoadOutcome {
                accepted: true,
                ..LoadOutcome::default()
            };
            let got = exec::fill_outcome(req, &exec::ExecProgram::from_linked(&req.prog), &mut out);
            if let Err(exec::ExecError::Unsupported(what)) = &got {
                // not modelled: counted and said, never guessed
                not_modelled.push(format!("{arch} {}: {what}", st.name));
                continue;
            }
            if got.is_err() || out.retval != g.retval || out.test_run_errno != g.test_run_errno {
                report.push(format!(
                    "{arch} {}: 7.3 retval {:?} errno {}; interpreter retval {:?} errno {} {got:?}",
                    st.name, g.retval, g.test_run_errno, out.retval, out.test_run_errno
                ));
            }
        }
    }
    eprintln!("{compared} test runs of progs/ compared, {} not modelled yet", not_modelled.len());
    for n in &not_modelled {
        eprintln!("  not modelled: {n}");
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// A backend that only answers the runner's questions about 7.3 (for
/// planning the imported suites; nothing is loaded through it).
struct Plan73;

impl Backend for Plan73 {
    fn name(&self) -> &'static str {
        "plan"
    }
    fn probe(&self, _arch: Arch) -> Result<(), bpf_selftest::backend::Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13".into()
    }
    fn load(&self, _req: &LoadRequest) -> Result<LoadOutcome, bpf_selftest::backend::Unavailable> {
        Err(bpf_selftest::backend::Unavailable("planning only".into()))
    }
}

/// At most this many of the kernel's `__retval` tests the model accepts
/// run the program as loaded instead of the xlated one.
const KERNEL_AS_LOADED_RATCHET: usize = 0;

/// Which program the model's test runs executed.
#[derive(Default)]
struct RunPaths {
    xlated: usize,
    /// Why the xlated program could not run, per run that fell back.
    as_loaded: Vec<String>,
    /// Fallbacks because the model has no xlated program (not accepted or
    /// not decided).
    not_accepted: usize,
}

/// A test run as the model backend does it: the model's xlated program when
/// the model accepts the load and the runtime can run it, else the program
/// as loaded.
fn model_test_run(
    req: &LoadRequest,
    input: &bpf_selftest::backend::TestRunInput,
    paths: &mut RunPaths,
) -> Result<exec::TestRunOutput, ExecError> {
    use bpf_selftest::backend::model::ModelBackend;
    use bpf_selftest::verifier::{Verdict, bpf_check};
    let opts = exec::ExecOptions {
        arch: req.arch,
        ..exec::ExecOptions::default()
    };
    let decided = ModelBackend::verifier_input(req).ok().map(|v| bpf_check(&v));
    let why = match decided {
        Some(Verdict::Decided(d)) if d.accepted => match exec::ExecProgram::from_xlated(&d.xlated_as_run(), req.arch, req.prog_type.0) {
            Ok(p) => match exec::test_run_program(req, &p, input, &opts) {
                Err(ExecError::Unsupported(why)) => why,
                r => {
                    paths.xlated += 1;
                    return r;
                }
            },
            Err(why) => why,
        },
        _ => {
            paths.not_accepted += 1;
            "the model does not accept the load".into()
        }
    };
    // the kind of reason, without program-specific details
    let kind = why.split(" (").next().unwrap_or(&why);
    paths.as_loaded.push(kind.to_string());
    exec::test_run(req, input)
}

/// The kernel's own `verifier_*.c` programs with `__retval` (imported from
/// the 7.3 source), run as the model backend runs them (the model's xlated
/// program; the program as loaded where that cannot run, counted): the
/// retval is the one the annotation (and so 7.3's test run) gives. Programs using what the model does not run yet
/// are counted, not failed; a wrong retval fails.
#[test]
fn kernel_selftest_retvals_match_their_annotations() {
    use bpf_selftest::import;
    let Some(tree) = import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source (BPF_SELFTEST_KERNEL_SRC, or scripts/setup-vm.sh --source)");
        return;
    };
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        require::skip(Component::Source, "gcc is not installed (the importer preprocesses the C sources)");
        return;
    }
    let mut wrong = Vec::new();
    let mut unsupported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let (mut agree, mut total) = (0, 0);
    let mut paths = RunPaths::default();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let suites: Vec<_> = import::import_verifier_suites(&tree, arch, &|_| true)
            .into_iter()
            .filter_map(|(_, r)| r.ok())
            .map(|f| import::suite::to_suite(&f))
            .collect();
        let opts = RunOptions {
            arch,
            backend: "plan".into(),
            verbosity: 0,
            filters: Vec::new(),
        };
        for st in runner::plan_suites(&suites, &opts, &Plan73) {
            let Plan::Load(job) = &st.plan else { continue };
            let Some(input) = &job.request.test_run else { continue };
            let want = job.spec.subspec(job.unpriv).retval;
            if want == bpf_selftest::spec::POINTER_VALUE {
                continue;
            }
            total += 1;
            match model_test_run(&job.request, input, &mut paths) {
                Ok(o) if o.retval as i32 == want => agree += 1,
                Ok(o) => wrong.push(format!(
                    "{arch} {}: __retval({want}), interpreter {}",
                    st.name, o.retval as i32
                )),
                Err(ExecError::Unsupported(what)) => {
                    unsupported.entry(what).or_default().push(format!("{arch} {}", st.name))
                }
                Err(e) => wrong.push(format!("{arch} {}: __retval({want}), interpreter error: {e}", st.name)),
            }
        }
    }
    let unsup: usize = unsupported.values().map(Vec::len).sum();
    eprintln!(
        "{total} annotated test runs: {agree} agree, {} wrong, {unsup} not modelled yet; {} ran the model's xlated program, {} the program as loaded ({} of them because the model does not accept or decide it)",
        wrong.len(),
        paths.xlated,
        paths.as_loaded.len(),
        paths.not_accepted
    );
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    for w in &paths.as_loaded {
        *why.entry(w.clone()).or_default() += 1;
    }
    for (w, n) in &why {
        eprintln!("  as loaded: {w}: {n}");
    }
    // where the model accepts the load, the xlated program runs (ratchet)
    let accepted_but_as_loaded = paths.as_loaded.len() - paths.not_accepted;
    assert!(
        accepted_but_as_loaded <= KERNEL_AS_LOADED_RATCHET,
        "{accepted_but_as_loaded} accepted programs ran as loaded"
    );
    for (what, progs) in &unsupported {
        eprintln!(
            "  not modelled: {what}: {} ({})",
            progs.len(),
            progs.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(
        wrong.is_empty(),
        "{} retvals differ from the kernel's annotations:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
