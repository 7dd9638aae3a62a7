//! `bpf-selftest bench`: the model side by side with the running kernel on
//! the same machine, in one run. Each verification case is a generated
//! program loaded by both; the kernel's time is its BPF_PROG_LOAD wall time
//! (and its own `verification time` at log level 4), the model's the time of
//! its whole load. Execution cases run the same loops with
//! BPF_PROG_TEST_RUN and report ns per iteration. Medians over repetitions.
//! Where a side cannot run a case (the model does not verify yet, bpf(2) not
//! permitted) its numbers are null and the reason is printed.
//!
//! The model's verification is also timed on its own (`verifier::bpf_check`,
//! its own `verification time`), against the kernel's `verification time`:
//! both span the same passes, from the front end to the last rewrite before
//! the JIT.

use std::fmt::Write as _;
use std::time::Instant;

use serde_json::json;

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest, TestRunInput};
use crate::isa::assemble;
use crate::link::{Symbols, link};
use crate::map::MapDef;
use crate::prog_type::{ProgType, RAW_TRACEPOINT, SOCKET_FILTER};
use crate::target::Arch;

/// What a case measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Load time and processed insns.
    Verify,
    /// Test-run time per loop iteration.
    Exec { iterations: u64 },
}

/// One benchmark case: a program and how to run it.
pub struct Case {
    pub name: String,
    pub kind: Kind,
    pub request: LoadRequest,
    /// Why the kernel's side is not run (it would take minutes).
    pub kernel_skip: Option<&'static str>,
}

fn request(name: &str, asm: &str, prog_type: ProgType, maps: Vec<MapDef>, arch: Arch) -> Result<LoadRequest, String> {
    let prog = assemble(asm).map_err(|e| format!("{name}: {e}"))?;
    let linked = link(name, &prog, &Symbols { maps: &maps, ..Default::default() }).map_err(|e| format!("{name}: {e}"))?;
    Ok(LoadRequest {
        name: name.to_string(),
        prog: linked,
        prog_type,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: 0,
        log_level: 4,
        unpriv: false,
        caps_unpriv: Vec::new(),
        maps,
        btf: BtfMode::FuncInfo,
        test_run: None,
        arch,
        want_jited: false,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: crate::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    })
}

/// `r0 = 0; r0 += 1 ...; exit`: exactly `n` insns.
fn straight_line(n: usize) -> String {
    let mut s = String::from("r0 = 0;\n");
    for _ in 0..n.saturating_sub(2) {
        s.push_str("r0 += 1;\n");
    }
    s.push_str("exit;\n");
    s
}

/// `r0 = 0`, `n` times `goto +0`, `exit`: every `goto` is a nop
/// `bpf_opt_remove_nops` removes, which 7.3 does one at a time (each
/// removal moves the rest of the program and remaps all its branches).
fn goto_nops(n: usize) -> String {
    let mut s = String::with_capacity(8 * n + 16);
    s.push_str("r0 = 0;\n");
    for _ in 0..n {
        s.push_str("goto +0;\n");
    }
    s.push_str("exit;\n");
    s
}

/// A bounded loop the verifier walks `n` times.
fn walked_loop(n: u64) -> String {
    format!("r0 = 0;\nr1 = {n};\nl0:\nr0 += 1;\nr1 -= 1;\nif r1 != 0 goto l0;\nexit;\n")
}

/// `n` conditional branches on an unknown value.
fn branch_chain(n: usize) -> String {
    let mut s = String::from("call bpf_get_prandom_u32;\nr1 = r0;\nr0 = 0;\n");
    for k in 0..n {
        let _ = write!(s, "if r1 > {} goto +1;\nr0 += 1;\n", k * 7 % 1000);
    }
    s.push_str("exit;\n");
    s
}

/// An open-coded `bpf_for(i, 0, n)` loop (`bpf_iter_num_*` kfuncs) summing
/// into r7; converges in a handful of verified insns whatever `n` is.
fn bpf_for(n: u64) -> String {
    format!(
        "r7 = 0;\nr6 = r10;\nr6 += -8;\nr1 = r6;\nr2 = 0;\nr3 = {n};\ncall bpf_iter_num_new;\n\
         l0:\nr1 = r6;\ncall bpf_iter_num_next;\nif r0 == 0 goto l1;\nr7 += 1;\ngoto l0;\n\
         l1:\nr1 = r6;\ncall bpf_iter_num_destroy;\nr0 = r7;\nr0 &= 1;\nexit;\n"
    )
}

/// The same loop as `bpf_loop(n, cb, NULL, 0)`.
fn bpf_loop(n: u64) -> String {
    format!(
        "r1 = {n};\nr2 = cb ll;\nr3 = 0;\nr4 = 0;\ncall bpf_loop;\nr0 &= 1;\nexit;\n\
         cb:\nr0 = 0;\nexit;\n"
    )
}

/// The loop body unrolled `n` times.
fn unrolled(n: usize) -> String {
    let mut s = String::from("r7 = 0;\n");
    for _ in 0..n {
        s.push_str("r7 += 1;\n");
    }
    s.push_str("r0 = r7;\nr0 &= 1;\nexit;\n");
    s
}

/// Every case, for `arch`.
pub fn cases(arch: Arch) -> Result<Vec<Case>, String> {
    cases_selected(arch, |_| true)
}

/// The cases whose name `selected` accepts, for `arch`. Only those are
/// generated and assembled: the 1M-insn program alone takes longer to
/// assemble than most cases take to run, and would dominate a profile of
/// any other case.
pub fn cases_selected(arch: Arch, selected: impl Fn(&str) -> bool) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    let mut verify = |name: String, asm: &dyn Fn() -> String, t: ProgType, maps: &dyn Fn() -> Vec<MapDef>| -> Result<(), String> {
        if selected(&name) {
            let request = request(&name, &asm(), t, maps(), arch)?;
            out.push(Case { name, kind: Kind::Verify, request, kernel_skip: None });
        }
        Ok(())
    };
    let no_maps = || Vec::new();
    for n in [1_000, 10_000, 100_000, 1_000_000] {
        verify(format!("straight_line_{}", human(n as u64)), &|| straight_line(n), SOCKET_FILTER, &no_maps)?;
    }
    for n in [1_000u64, 10_000, 100_000] {
        verify(format!("bounded_loop_x{}", human(n)), &|| walked_loop(n), SOCKET_FILTER, &no_maps)?;
    }
    for n in [100, 1_000] {
        verify(format!("branch_chain_{}", human(n as u64)), &|| branch_chain(n), SOCKET_FILTER, &no_maps)?;
    }
    for n in [10_000, 25_000, 500_000] {
        verify(format!("goto_nops_{}", human(n as u64)), &|| goto_nops(n), SOCKET_FILTER, &no_maps)?;
    }
    verify("bpf_for_x1M".into(), &|| bpf_for(1_000_000), RAW_TRACEPOINT, &no_maps)?;
    verify("bpf_loop_x1M".into(), &|| bpf_loop(1_000_000), RAW_TRACEPOINT, &no_maps)?;
    verify("unrolled_x10k".into(), &|| unrolled(10_000), RAW_TRACEPOINT, &no_maps)?;
    // the kernel's removal of nops is quadratic (6.18 on 2 cores: 0.6 s
    // for 10k, 20 s for 50k): 500k, minutes, are the model's alone
    for c in out.iter_mut().filter(|c| c.name == "goto_nops_500k") {
        c.kernel_skip = Some("the kernel removes nops one at a time: minutes for 500k");
    }
    for n in [1u64, 1_000, 1_000_000] {
        for (label, asm) in [("bpf_for", bpf_for as fn(u64) -> String), ("bpf_loop", bpf_loop)] {
            let name = format!("exec_{label}_x{}", human(n));
            if !selected(&name) {
                continue;
            }
            // socket filters: their test runs repeat and report a duration
            // (raw_tp test runs refuse both)
            let mut req = request(&name, &asm(n), SOCKET_FILTER, vec![], arch)?;
            req.log_level = 0;
            req.test_run = Some(TestRunInput { data: vec![0; 64], ctx: None, data_out_size: 0, repeat: if n >= 1_000_000 { 3 } else { 100 } });
            out.push(Case { name, kind: Kind::Exec { iterations: n }, request: req, kernel_skip: None });
        }
    }
    Ok(out)
}

/// The selftests' objects the bench loads as they are: 7.3's
/// `tools/testing/selftests/bpf/progs/<name>.c`, compiled for the run's
/// arch as the selftests are ([`crate::import::clang::compile`]). The
/// verifier's scale tests: pyperf and strobemeta unrolled, with `bpf_loop`
/// and as plain loops, the three `test_verif_scale` programs and the
/// bounded loops.
pub const SELFTEST_OBJECTS: &[&str] = &[
    "pyperf50",
    "pyperf100",
    "pyperf180",
    "pyperf600",
    "pyperf600_bpf_loop",
    "pyperf600_nounroll",
    "pyperf_global",
    "pyperf_subprogs",
    "strobemeta",
    "strobemeta_bpf_loop",
    "strobemeta_nounroll1",
    "strobemeta_nounroll2",
    "strobemeta_subprogs",
    "test_verif_scale1",
    "test_verif_scale2",
    "test_verif_scale3",
    "loop1",
    "loop2",
    "loop3",
    "loop4",
    "loop5",
    "loop6",
];

/// One case per program of each object of [`SELFTEST_OBJECTS`] whose name
/// `selected` accepts (`<object>`, or `<object>/<program>` for an object of
/// several), loaded as libbpf loads it at log level 4; `Err` says why there
/// are none (no clang or source: the caller decides whether that is a skip).
pub fn object_cases(arch: Arch, selected: impl Fn(&str) -> bool) -> Result<Vec<Case>, (Option<crate::require::Component>, String)> {
    use crate::require::Component;
    let names: Vec<&str> = SELFTEST_OBJECTS.iter().copied().filter(|n| selected(n)).collect();
    if names.is_empty() {
        return Ok(Vec::new());
    }
    if crate::import::clang::clang_program().is_none() {
        return Err((Some(Component::Clang), "the selftests' objects: compiling them needs clang-19".into()));
    }
    let Some(tree) = crate::import::cpp::source_tree() else {
        return Err((Some(Component::Source), "the selftests' objects: they are compiled from the Linux 7.3 source".into()));
    };
    let mut out = Vec::new();
    for name in names {
        let src = tree.root.join(format!("tools/testing/selftests/bpf/progs/{name}.c"));
        let o = crate::import::clang::compile(&src, &tree, arch).map_err(|e| (None, format!("{name}: {e}")))?;
        let obj = crate::object::BpfObject::open(&o).map_err(|e| (None, format!("{name}: {e}")))?;
        let progs: Vec<String> = obj.programs().map(|p| p.name.clone()).collect();
        for prog in &progs {
            let mut request = obj.load_request(prog, arch).map_err(|e| (None, format!("{name}: {prog}: {e}")))?;
            request.log_level = 4;
            request.want_jited = false;
            let case = if progs.len() == 1 { name.to_string() } else { format!("{name}/{prog}") };
            out.push(Case { name: case, kind: Kind::Verify, request, kernel_skip: None });
        }
    }
    Ok(out)
}

fn human(n: u64) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

/// The measured numbers of one side of a case.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub ms: Option<f64>,
    /// The kernel's own `verification time`, from its level-4 log.
    pub verification_ms: Option<f64>,
    pub processed: Option<u32>,
    /// The model's own `verification time` (`bpf_check`: the same passes).
    pub verifier_ms: Option<f64>,
    pub ns_per_iter: Option<f64>,
    /// Why there are no numbers.
    pub unavailable: Option<String>,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

fn verification_usec(log: &str) -> Option<f64> {
    log.lines().find_map(|l| l.strip_prefix("verification time ")?.strip_suffix(" usec")?.parse::<f64>().ok())
}

/// Runs `case` `reps` times on `be`.
pub fn measure(be: &dyn Backend, case: &Case, reps: usize) -> Side {
    // profiling one side (e.g. under callgrind) without the other:
    // BPF_SELFTEST_BENCH_ONLY=model|kernel|verifier
    if let Some(only) = std::env::var_os("BPF_SELFTEST_BENCH_ONLY").filter(|o| o != be.name()) {
        return Side { unavailable: Some(format!("skipped: BPF_SELFTEST_BENCH_ONLY={}", only.to_string_lossy())), ..Default::default() };
    }
    if let Some(why) = case.kernel_skip.filter(|_| be.name() != "model") {
        return Side { unavailable: Some(format!("skipped: {why}")), ..Default::default() };
    }
    if let Err(u) = be.probe(case.request.arch) {
        return Side { unavailable: Some(u.0), ..Default::default() };
    }
    let (mut times, mut vtimes, mut per_iter) = (Vec::new(), Vec::new(), Vec::new());
    let mut processed = None;
    for _ in 0..reps.max(1) {
        let t0 = Instant::now();
        let out: LoadOutcome = match be.load(&case.request) {
            Ok(o) => o,
            Err(u) => return Side { unavailable: Some(u.0), ..Default::default() },
        };
        let wall = t0.elapsed().as_nanos() as f64;
        if !out.accepted {
            let last = out.log.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").to_string();
            // a program every kernel refuses (loop3: the 1M insn limit) still
            // shows how far its verification went
            let processed = crate::backend::loader::processed_insns(&out.log).filter(|&p| p > 0);
            return Side { processed, unavailable: Some(format!("rejected: errno {}: {last}", out.errno)), ..Default::default() };
        }
        times.push(if out.load_ns > 0 { out.load_ns as f64 } else { wall } / 1e6);
        if let Some(v) = verification_usec(&out.log) {
            vtimes.push(v / 1e3);
        }
        processed = crate::backend::loader::processed_insns(&out.log).or(Some(out.verified_insns)).filter(|&p| p > 0);
        if let Kind::Exec { iterations } = case.kind {
            if out.retval.is_none() {
                return Side { unavailable: Some(format!("test run failed: errno {}", out.test_run_errno)), ..Default::default() };
            }
            // a backend that does not time its test runs (the model's
            // interpreter) reports 0: the model's side is then its x86-64
            // JIT code run natively, else no number rather than a false one
            if out.test_run_duration_ns > 0 {
                per_iter.push(out.test_run_duration_ns as f64 / iterations as f64);
            } else if be.name() == "model" {
                match model_native_ns(&case.request) {
                    Ok(ns) => per_iter.push(ns / iterations as f64),
                    Err(why) => return Side { unavailable: Some(format!("native run: {why}")), ..Default::default() },
                }
            }
        }
    }
    Side { ms: median(times), verification_ms: median(vtimes), processed, ns_per_iter: median(per_iter), unavailable: None, verifier_ms: None }
}

/// The mean ns of one run (of the test run's `repeat`) of the x86-64 JIT
/// code of the model's xlated program for `req`, natively
/// ([`crate::exec::native`]).
fn model_native_ns(req: &LoadRequest) -> Result<f64, String> {
    if let Some(why) = crate::exec::native::unavailable() {
        return Err(why.into());
    }
    if req.arch != Arch::X86_64 {
        return Err(format!("the x86-64 JIT's code runs natively, not {}'s", req.arch));
    }
    let input = req.test_run.as_ref().ok_or("the case has no test run")?;
    let vin = crate::backend::model::ModelBackend::verifier_input(req).map_err(|u| u.0)?;
    let crate::verifier::Verdict::Decided(d) = crate::load::bpf_check(&vin) else {
        return Err("the model does not decide the program".into());
    };
    let opts = crate::exec::ExecOptions { arch: req.arch, ..crate::exec::ExecOptions::default() };
    let out = crate::exec::native::test_run_native(&crate::backend::model::loaded_prog(req), &d.xlated_as_run(), &d.subprogs, input, &opts)
        .map_err(|e| e.to_string())?;
    Ok(f64::from(out.duration))
}

/// The model's `bpf_check` on `case`, `reps` times: the median of its own
/// `verification time` (the span the kernel's covers: the checks of
/// `bpf_prog_load` done, the front end, the main pass and the rewrites up to
/// `fixup_call_args`), and its processed insns; or why it could not run.
pub fn measure_model_verifier(case: &Case, reps: usize) -> Result<(f64, u32), String> {
    if std::env::var_os("BPF_SELFTEST_BENCH_ONLY").is_some_and(|o| o != "verifier") {
        return Err("skipped: BPF_SELFTEST_BENCH_ONLY".into());
    }
    let input = crate::backend::model::ModelBackend::verifier_input(&case.request).map_err(|u| u.0)?;
    let mut times = Vec::new();
    let mut processed = 0;
    for _ in 0..reps.max(1) {
        let t0 = Instant::now();
        let d = match crate::load::bpf_check(&input) {
            crate::verifier::Verdict::Decided(d) if d.accepted => d,
            crate::verifier::Verdict::Decided(d) => return Err(format!("verifier: rejected with errno {}", d.errno)),
            crate::verifier::Verdict::NotModelled { phase, what, .. } => return Err(format!("verifier: {phase}: {what}")),
        };
        let wall = t0.elapsed().as_nanos() as f64 / 1e6;
        // its own statistics line ends where the kernel's does; without one
        // (a case loaded below log level 4) the call's wall time
        times.push(verification_usec(&d.log).map_or(wall, |us| us / 1e3));
        processed = d.verified_insns;
    }
    Ok((median(times).unwrap_or(0.0), processed))
}

/// One case measured: the model's side, the running kernel's and, with
/// `bench --vm`, Linux 7.3's processed insns (under QEMU TCG its times
/// say nothing of the kernel's speed).
pub struct Row {
    pub case: Case,
    pub model: Side,
    pub kernel: Side,
    pub linux_7_3: Option<Side>,
}

/// One case's JSON line (`--json`), the documented keys.
pub fn json_line(row: &Row) -> serde_json::Value {
    let (case, model, kernel) = (&row.case, &row.model, &row.kernel);
    let ratio = |m: Option<f64>, k: Option<f64>| match (m, k) {
        (Some(m), Some(k)) if k > 0.0 => Some(m / k),
        _ => None,
    };
    match case.kind {
        Kind::Verify => json!({
            "case": case.name,
            "model_ms": model.ms,
            "kernel_ms": kernel.ms,
            "ratio": ratio(model.ms, kernel.ms),
            "kernel_verification_ms": kernel.verification_ms,
            "model_verifier_ms": model.verifier_ms,
            "verifier_ratio": ratio(model.verifier_ms, kernel.verification_ms),
            "model_processed": model.processed,
            "kernel_processed": kernel.processed,
            "linux_7_3_processed": row.linux_7_3.as_ref().and_then(|s| s.processed),
        }),
        Kind::Exec { .. } => json!({
            "case": case.name,
            "model_ns_per_iter": model.ns_per_iter,
            "kernel_ns_per_iter": kernel.ns_per_iter,
            "ratio": ratio(model.ns_per_iter, kernel.ns_per_iter),
        }),
    }
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.digits$}"))
}

/// The aligned table of a run.
pub fn table(rows: &[Row]) -> String {
    let mut lines = vec![[
        "case".to_string(),
        "model ms".into(),
        "kernel ms".into(),
        "kernel verif ms".into(),
        "ratio".into(),
        "model verif ms".into(),
        "verif ratio".into(),
        "model processed".into(),
        "kernel processed".into(),
        "7.3 processed".into(),
        "model ns/iter".into(),
        "kernel ns/iter".into(),
    ]];
    for Row { case: c, model: m, kernel: k, linux_7_3 } in rows {
        let ratio = match c.kind {
            Kind::Verify => m.ms.zip(k.ms).map(|(m, k)| m / k),
            Kind::Exec { .. } => m.ns_per_iter.zip(k.ns_per_iter).map(|(m, k)| m / k),
        };
        let p = |x: Option<u32>| x.map_or_else(|| "-".to_string(), |x| x.to_string());
        lines.push([
            c.name.clone(),
            num(m.ms, 3),
            num(k.ms, 3),
            num(k.verification_ms, 3),
            num(ratio, 2),
            num(m.verifier_ms, 3),
            num(m.verifier_ms.zip(k.verification_ms).map(|(m, k)| m / k), 2),
            p(m.processed),
            p(k.processed),
            p(linux_7_3.as_ref().and_then(|s| s.processed)),
            num(m.ns_per_iter, 2),
            num(k.ns_per_iter, 2),
        ]);
    }
    let widths: Vec<usize> = (0..12).map(|i| lines.iter().map(|l| l[i].len()).max().unwrap_or(0)).collect();
    let mut s = String::new();
    for l in &lines {
        let cells: Vec<String> =
            l.iter().enumerate().map(|(i, c)| if i == 0 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) }).collect();
        s.push_str(cells.join("  ").trim_end());
        s.push('\n');
    }
    // the execution cases as the seed's table has them: iterations per
    // second of JIT code (the model's: its x86-64 JIT's, run natively)
    let mips = |ns: Option<f64>| num(ns.filter(|&n| n > 0.0).map(|n| 1e3 / n), 1);
    let exec: Vec<_> = rows.iter().filter(|r| matches!(r.case.kind, Kind::Exec { .. })).collect();
    if !exec.is_empty() {
        s.push_str("\nexecution            model ns/iter  model M iter/s  kernel ns/iter  kernel M iter/s  ratio\n");
        for Row { case: c, model: m, kernel: k, .. } in exec {
            let ratio = m.ns_per_iter.zip(k.ns_per_iter).map(|(m, k)| m / k);
            let _ = writeln!(
                s,
                "{:<20} {:>13}  {:>14}  {:>14}  {:>15}  {:>5}",
                c.name,
                num(m.ns_per_iter, 2),
                mips(m.ns_per_iter),
                num(k.ns_per_iter, 2),
                mips(k.ns_per_iter),
                num(ratio, 2)
            );
        }
    }
    s
}

/// The fixups' patch engine on a real program: each pass's patches
/// applied in one step ([`crate::fixups::patch::apply_to`]) and the
/// kernel's way, patch by patch
/// ([`crate::fixups::patch::apply_one_at_a_time_to`]).
pub struct EngineRow {
    pub case: String,
    /// The passes that patched the program.
    pub passes: usize,
    /// The insns the passes were given (summed over the passes).
    pub insns: usize,
    pub patches: usize,
    /// Runs of the one step per measurement.
    pub reps: usize,
    /// The one step from cold caches, the arrays in memory they had
    /// before (room for what the patches add).
    pub cold: EngineTimes,
    /// The same right after its input was built (in the caches as far as
    /// they hold it).
    pub warm: EngineTimes,
    /// From cold caches with the arrays new, of exactly their size: the
    /// allocator's realloc in the timed region.
    pub fresh: EngineTimes,
    /// `None` where the kernel's way would take too long to wait for.
    pub one_at_a_time_ms: Option<f64>,
}

/// The runs of one measurement (ms of CPU), and the minor page faults of
/// a run (the memory the engine touches first: its arrays grow).
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineTimes {
    pub median_ms: f64,
    pub min_ms: f64,
    pub page_faults: u64,
}

impl EngineTimes {
    fn of(mut runs: Vec<(f64, u64)>) -> EngineTimes {
        if runs.is_empty() {
            return EngineTimes::default();
        }
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = runs.len();
        let median_ms = if n % 2 == 1 { runs[n / 2].0 } else { (runs[n / 2 - 1].0 + runs[n / 2].0) / 2.0 };
        let mut faults: Vec<u64> = runs.iter().map(|r| r.1).collect();
        faults.sort_unstable();
        EngineTimes { median_ms, min_ms: runs[0].0, page_faults: faults[n / 2] }
    }
}

/// The passes of the fixups on program `prog` of selftest object
/// `object` as the model loads it for the host's arch ([`object_cases`]):
/// each pass's program before it and its patches, as
/// [`crate::fixups::patch::apply`] was given them.
fn engine_passes(object: &str) -> Result<Vec<crate::fixups::patch::PassPatches>, String> {
    let arch = Arch::host().ok_or("the host arch is not a BPF target")?;
    let case = object_cases(arch, |n| n == object).map_err(|(_, why)| why)?.into_iter().next().ok_or_else(|| format!("{object}: no program"))?;
    let input = crate::backend::model::ModelBackend::verifier_input(&case.request).map_err(|u| u.0)?;
    let (verdict, passes) = crate::fixups::patch::with_passes_seen(|| crate::load::bpf_check(&input));
    match verdict {
        crate::verifier::Verdict::Decided(d) if d.accepted => Ok(passes),
        crate::verifier::Verdict::Decided(d) => Err(format!("{object}: the model rejects it (errno {})", d.errno)),
        crate::verifier::Verdict::NotModelled { phase, what, .. } => Err(format!("{object}: {phase}: {what}")),
    }
}

/// CPU time of the calling thread (ms): on a machine shared with other
/// jobs, wall time of a run longer than a scheduler slice measures the
/// neighbours too, and more so the longer the run.
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        // no such clock: wall time since the first call
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        return START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3;
    }
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// Minor page faults of the calling thread so far (0 where unknown).
fn thread_minor_faults() -> u64 {
    // SAFETY: getrusage writes the struct it is given
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    if rc != 0 { 0 } else { ru.ru_minflt as u64 }
}

/// Writes a buffer larger than the caches this machine gives a core, so
/// that a run starts with its input in memory only, whatever its size.
fn evict_caches(buf: &mut [u8]) {
    for b in buf.iter_mut().step_by(64) {
        *b = b.wrapping_add(1);
    }
    std::hint::black_box(buf);
}

/// The arrays one run rewrites, built the same way for every run.
#[derive(Default)]
struct EngineTarget {
    insns: Vec<crate::isa::Insn>,
    aux: Vec<crate::verifier::env::InsnAux>,
    pass_aux: Vec<crate::verifier::do_check::PassAux>,
    subprogs: Vec<crate::verifier::env::SubprogInfo>,
    cnt: usize,
}

impl EngineTarget {
    /// The arrays as the main pass leaves them for `insns`. `fresh`: in
    /// new allocations of exactly that size (the engine's growth then
    /// reallocates them in the timed region); otherwise in the ones of the
    /// previous run, which already have the room the patches need.
    fn fill(&mut self, insns: &[crate::isa::Insn], fresh: bool) {
        use crate::verifier::do_check::PassAux;
        use crate::verifier::env::{InsnAux, SubprogInfo};
        if fresh {
            *self = EngineTarget::default();
        }
        let n = insns.len();
        self.insns.clear();
        self.insns.extend_from_slice(insns);
        self.aux.clear();
        self.aux.resize(n, InsnAux::default());
        self.pass_aux.clear();
        self.pass_aux.resize(n, PassAux { seen: true, ..PassAux::default() });
        self.subprogs = vec![SubprogInfo { start: 0, ..Default::default() }, SubprogInfo { start: n, ..Default::default() }];
        self.cnt = 1;
    }
}

/// How a run's memory starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EngineStart {
    /// The input in the arrays of the previous run, the caches cleared:
    /// what the growth is read from.
    Cold,
    /// The same right after the input was written (in the caches as far
    /// as they hold it).
    Warm,
    /// The input in new arrays of its size, the caches cleared: the
    /// allocator's realloc in the timed region (it may move an array, with
    /// a copy and fresh pages to fault in, or grow it where it is).
    Fresh,
}

/// One application of each pass's patches to its program (ms of CPU
/// time, minor page faults, summed over the passes). Every run does the
/// same: its input (program, aux data, patches) built outside the timed
/// region the same way, then the caches cleared unless `start` is warm.
fn time_engine(
    e: &mut EngineTarget,
    passes: &[crate::fixups::patch::PassPatches],
    one_step: bool,
    start: EngineStart,
    evict: &mut [u8],
) -> Result<(f64, u64), String> {
    use crate::fixups::patch::{PatchTarget, apply_one_at_a_time_to, apply_to};
    let (mut ms, mut faults) = (0.0, 0);
    for (insns, patches) in passes {
        e.fill(insns, start == EngineStart::Fresh);
        let patches = patches.clone();
        let mut t = PatchTarget { insns: &mut e.insns, aux: &mut e.aux, pass_aux: &mut e.pass_aux, subprog_info: &mut e.subprogs, subprog_cnt: &mut e.cnt };
        if start != EngineStart::Warm {
            evict_caches(evict);
        }
        let f0 = thread_minor_faults();
        let t0 = thread_cpu_ms();
        let r = if one_step { apply_to(&mut t, patches) } else { apply_one_at_a_time_to(&mut t, patches) };
        ms += thread_cpu_ms() - t0;
        faults += thread_minor_faults() - f0;
        r.map_err(|e| format!("{e:?}"))?;
    }
    Ok((ms, faults))
}

/// The engine's cases: the fixups' passes of the real pyperf180 and
/// pyperf600 as the model loads them, applied in one step and patch by
/// patch; the median and the best of `reps` runs (at least 15: a run takes
/// milliseconds, and other jobs' memory traffic slows single runs), cold,
/// warm and fresh. `BPF_BENCH_ENGINE_CASE=<case>` runs that case's one
/// step alone (to profile it).
pub fn fixups_engine(reps: usize) -> Result<Vec<EngineRow>, String> {
    let reps = reps.max(15);
    let only = std::env::var("BPF_BENCH_ENGINE_CASE").ok();
    // larger than a core's share of the caches here (2 MB of L2 per core
    // and a last level shared with other machines)
    let mut evict = vec![0u8; 256 << 20];
    let mut runs = |one_step: bool, start: EngineStart, n: usize, passes: &[crate::fixups::patch::PassPatches]| -> Result<EngineTimes, String> {
        // one run first, not counted: it gives the arrays their room, and
        // the allocator has then seen arrays of these sizes
        let mut e = EngineTarget::default();
        time_engine(&mut e, passes, one_step, start, &mut evict)?;
        let runs = (0..n).map(|_| time_engine(&mut e, passes, one_step, start, &mut evict)).collect::<Result<Vec<_>, _>>()?;
        Ok(EngineTimes::of(runs))
    };
    let mut rows = Vec::new();
    for object in ["pyperf180", "pyperf600"] {
        let case = format!("fixups_engine_{object}");
        if only.as_deref().is_some_and(|o| o != case) {
            continue;
        }
        let passes = engine_passes(object)?;
        let cold = runs(true, EngineStart::Cold, reps, &passes)?;
        let warm = runs(true, EngineStart::Warm, reps, &passes)?;
        let fresh = runs(true, EngineStart::Fresh, reps, &passes)?;
        let one_at_a_time_ms = if only.is_none() { Some(runs(false, EngineStart::Cold, reps.min(3), &passes)?.median_ms) } else { None };
        let insns = passes.iter().map(|(i, _)| i.len()).sum();
        let patches = passes.iter().map(|(_, p)| p.len()).sum();
        rows.push(EngineRow { case, passes: passes.len(), insns, patches, reps, cold, warm, fresh, one_at_a_time_ms });
    }
    Ok(rows)
}

/// The growth of the one step from the first row to `r` (medians): cold,
/// warm caches, fresh arrays.
fn engine_growth(rows: &[EngineRow], r: &EngineRow) -> Option<(f64, f64, f64)> {
    let a = rows.first().filter(|a| !std::ptr::eq(*a, r))?;
    let g = |x: &EngineTimes, y: &EngineTimes| x.median_ms / y.median_ms.max(1e-9);
    Some((g(&r.cold, &a.cold), g(&r.warm, &a.warm), g(&r.fresh, &a.fresh)))
}

/// The same of the minimums (cold, warm): on a loaded machine the runs
/// that other jobs disturbed least.
fn engine_min_growth(rows: &[EngineRow], r: &EngineRow) -> Option<(f64, f64)> {
    let a = rows.first().filter(|a| !std::ptr::eq(*a, r))?;
    Some((r.cold.min_ms / a.cold.min_ms.max(1e-9), r.warm.min_ms / a.warm.min_ms.max(1e-9)))
}

/// The engine's table: the speed-up over the kernel's way, and the growth
/// from pyperf180 to pyperf600.
pub fn fixups_engine_table(rows: &[EngineRow]) -> String {
    let mut s = String::from(
        "fixups engine (ms of CPU)  passes    insns  patches  cold ms (min)      warm ms (min)      fresh ms (faults)  one-at-a-time ms  speed-up  growth cold (min)  warm (min)  fresh\n",
    );
    let opt = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.1}x"));
    let paren = |v: Option<f64>| v.map_or_else(String::new, |v| format!("({v:.1}x)"));
    for r in rows {
        let up = r.one_at_a_time_ms.map(|m| m / r.cold.median_ms.max(1e-9));
        let growth = engine_growth(rows, r);
        let min_growth = engine_min_growth(rows, r);
        let _ = writeln!(
            s,
            "{:<26} {:>6} {:>8}  {:>7}  {:>7.3} ({:>6.3})  {:>7.3} ({:>6.3})  {:>7.3} ({:>6})  {:>16}  {:>8}  {:>11} {:>5}  {:>4} {:>5}  {:>5}",
            r.case,
            r.passes,
            r.insns,
            r.patches,
            r.cold.median_ms,
            r.cold.min_ms,
            r.warm.median_ms,
            r.warm.min_ms,
            r.fresh.median_ms,
            r.fresh.page_faults,
            r.one_at_a_time_ms.map_or_else(|| "-".to_string(), |m| format!("{m:.3}")),
            opt(up),
            opt(growth.map(|g| g.0)),
            paren(min_growth.map(|g| g.0)),
            opt(growth.map(|g| g.1)),
            paren(min_growth.map(|g| g.1)),
            opt(growth.map(|g| g.2)),
        );
    }
    if let Some(r) = rows.first() {
        let size = |r: &EngineRow| (r.insns + r.patches) as f64;
        let linear = rows
            .last()
            .filter(|l| !std::ptr::eq(*l, r))
            .map_or_else(String::new, |l| format!(" (linear: {:.1}x, the ratio of insns + patches)", size(l) / size(r)));
        let _ = writeln!(
            s,
            "medians (and minimums) of {} runs each; growth: the one step's median (minimum) over the first row's{linear}; fresh: new arrays, the allocator's growth in the timed region",
            r.reps
        );
    }
    s
}

/// Suite throughput: the programs of progs/ through one backend's whole
/// load (verifier, fixups, JIT image, test run) on `threads` threads.
pub struct ThroughputRow {
    pub backend: String,
    pub programs: usize,
    /// Loads the backend could not do (not modelled, skipped by the kernel).
    pub unavailable: usize,
    pub threads: usize,
    /// Building the requests (assembling and linking progs/), then the loads.
    pub plan_ms: f64,
    pub loads_ms: f64,
    /// The programs whose loads took longest (name, ms), longest first:
    /// where the time goes.
    pub slowest: Vec<(String, f64)>,
}

/// How many of the longest loads [`suite_throughput`] keeps.
const SLOWEST_SHOWN: usize = 5;

impl ThroughputRow {
    pub fn per_sec(&self) -> f64 {
        self.programs as f64 / ((self.plan_ms + self.loads_ms) / 1e3).max(1e-9)
    }
}

/// The load requests of every program of progs/ for `arch`, as the
/// runner builds them, and the time that took (ms).
pub fn suite_requests(arch: Arch) -> (Vec<LoadRequest>, f64) {
    let t0 = Instant::now();
    let opts = crate::runner::RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
    let reqs = crate::runner::plan(&opts, &crate::backend::model::ModelBackend)
        .into_iter()
        .filter_map(|st| match st.plan {
            crate::runner::Plan::Load(job) => Some(job.request),
            _ => None,
        })
        .collect();
    (reqs, t0.elapsed().as_secs_f64() * 1e3)
}

/// Loads every request on `be`, `threads` at a time.
pub fn suite_throughput(be: &dyn Backend, reqs: &[LoadRequest], plan_ms: f64, threads: usize) -> ThroughputRow {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = threads.max(1);
    let (next, unavailable) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let took = std::sync::Mutex::new(Vec::with_capacity(reqs.len()));
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(req) = reqs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let t = Instant::now();
                    if be.load(req).is_err() {
                        unavailable.fetch_add(1, Ordering::Relaxed);
                    }
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    took.lock().unwrap_or_else(|e| e.into_inner()).push((req, ms));
                }
            });
        }
    });
    let loads_ms = t0.elapsed().as_secs_f64() * 1e3;
    let mut took = took.into_inner().unwrap_or_else(|e| e.into_inner());
    took.sort_by(|a, b| b.1.total_cmp(&a.1));
    let unpriv = |r: &LoadRequest| if r.unpriv { " @unpriv" } else { "" };
    let slowest = took.iter().take(SLOWEST_SHOWN).map(|(r, ms)| (format!("{}{}", r.name, unpriv(r)), *ms)).collect();
    ThroughputRow { backend: be.name().into(), programs: reqs.len(), unavailable: unavailable.into_inner(), threads, plan_ms, loads_ms, slowest }
}

pub fn suite_throughput_table(rows: &[ThroughputRow]) -> String {
    let mut s = String::from("suite throughput     programs  not loaded  threads  plan ms   loads ms  programs/s\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{:<20} {:>8}  {:>10}  {:>7}  {:>7.1}  {:>9.1}  {:>10.1}",
            format!("progs_{}", r.backend),
            r.programs,
            r.unavailable,
            r.threads,
            r.plan_ms,
            r.loads_ms,
            r.per_sec()
        );
    }
    for r in rows {
        let list: Vec<String> = r.slowest.iter().map(|(name, ms)| format!("{name} {ms:.0} ms")).collect();
        let _ = writeln!(s, "longest loads ({}): {}", r.backend, list.join(", "));
    }
    s
}

pub fn suite_throughput_json(r: &ThroughputRow) -> serde_json::Value {
    json!({
        "case": format!("suite_throughput_{}", r.backend),
        "programs": r.programs,
        "not_loaded": r.unavailable,
        "threads": r.threads,
        "plan_ms": r.plan_ms,
        "loads_ms": r.loads_ms,
        "programs_per_sec": r.per_sec(),
        "slowest": r.slowest.iter().map(|(name, ms)| json!({"program": name, "ms": ms})).collect::<Vec<_>>(),
    })
}

/// The sizes, in pages, of the `arraymap_mmap` cases.
pub const ARRAYMAP_MMAP_PAGES: [u32; 3] = [1, 64, 2048];

/// Runs of each side per `arraymap_mmap` case (the median is reported).
const ARRAYMAP_MMAP_RUNS: usize = 101;

/// One `arraymap_mmap` case: a `BPF_F_MMAPABLE` array of `pages` pages
/// (4,096-byte values) created, mapped shared and writable, one page (the
/// middle one) written through the mapping, unmapped, on each side. On the
/// kernel: `BPF_MAP_CREATE`, `mmap(2)`, the store, `munmap(2)` and
/// `close(2)`; on the model: the run's [`crate::exec::Runtime`] with the
/// map, [`crate::exec::Runtime::map_mmap`], the write and the runtime
/// dropped.
pub struct MmapRow {
    pub case: String,
    pub pages: u32,
    pub runs: usize,
    /// Median ns of one whole sequence, or why the side has none.
    pub model_ns: Result<f64, String>,
    pub kernel_ns: Result<f64, String>,
    /// The pages of the model's array that existed after the write.
    pub model_resident_pages: Option<u64>,
}

impl MmapRow {
    pub fn ratio(&self) -> Option<f64> {
        match (&self.model_ns, &self.kernel_ns) {
            (Ok(m), Ok(k)) if *k > 0.0 => Some(m / k),
            _ => None,
        }
    }
}

fn mmapable_array(pages: u32) -> MapDef {
    let mut d = MapDef::new("arraymap_mmap", crate::map::types::BPF_MAP_TYPE_ARRAY, 4, 4096, pages);
    d.map_flags = crate::map::flags::BPF_F_MMAPABLE;
    d
}

/// The model's side of an `arraymap_mmap` case: median ns and the pages
/// resident after the write.
fn model_arraymap_mmap(pages: u32, runs: usize) -> Result<(f64, u64), String> {
    let def = [mmapable_array(pages)];
    let opts = crate::exec::ExecOptions::default();
    let len = u64::from(pages) * 4096;
    let mut times = Vec::with_capacity(runs);
    let mut resident = 0;
    // the first run (not counted) warms the allocator and the caches
    for _ in 0..=runs {
        let t0 = Instant::now();
        let mut rt = crate::exec::Runtime::new(&def, &opts).map_err(|e| e.to_string())?;
        let view = rt.map_mmap(0, 0, len, true).map_err(|e| format!("mmap: {e:?}"))?;
        view.write(&mut rt.mem, u64::from(pages / 2) * 4096, &1u64.to_le_bytes()).map_err(|f| f.to_string())?;
        let before = t0.elapsed();
        // (counted outside the timed sequence)
        resident = rt.resident_map_pages();
        let t1 = Instant::now();
        drop(rt);
        times.push((before + t1.elapsed()).as_nanos() as f64);
    }
    times.remove(0);
    Ok((median(times).unwrap_or(0.0), resident))
}

/// The running kernel's side of an `arraymap_mmap` case: median ns.
fn kernel_arraymap_mmap(pages: u32, runs: usize) -> Result<f64, String> {
    use crate::sys::BpfSys;
    let mut sys = crate::sys::LocalSys;
    let len = pages as usize * 4096;
    let mut times = Vec::with_capacity(runs);
    // the first run (not counted) as on the model's side
    for _ in 0..=runs {
        let t0 = Instant::now();
        let call =
            crate::sys::attr::map_create(crate::map::types::BPF_MAP_TYPE_ARRAY, 4, 4096, pages, crate::map::flags::BPF_F_MMAPABLE, None, "arraymap_mmap");
        let fd = sys.bpf(&call).map_err(|e| e.to_string())?.fd().map_err(|e| format!("BPF_MAP_CREATE: {}", crate::sys::errno_desc(e)))?;
        // SAFETY: a fresh shared mapping of the map's `len` bytes of values
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0) };
        if p == libc::MAP_FAILED {
            let e = std::io::Error::last_os_error();
            let _ = sys.close(&[fd]);
            return Err(format!("mmap: {e}"));
        }
        // SAFETY: the middle page lies inside the `len` bytes mapped, which
        // are unmapped right after
        unsafe {
            std::ptr::write_volatile(p.cast::<u8>().add(pages as usize / 2 * 4096).cast::<u64>(), 1);
            libc::munmap(p, len);
        }
        let _ = sys.close(&[fd]);
        times.push(t0.elapsed().as_nanos() as f64);
    }
    times.remove(0);
    median(times).ok_or_else(|| "no runs".into())
}

/// The `arraymap_mmap` cases whose names `selected` takes, both sides
/// (`BPF_SELFTEST_BENCH_ONLY=model|kernel` runs one).
pub fn arraymap_mmap(selected: impl Fn(&str) -> bool) -> Vec<MmapRow> {
    let only = std::env::var("BPF_SELFTEST_BENCH_ONLY").ok();
    let skipped = |side: &str| only.as_deref().filter(|o| *o != side).map(|o| format!("skipped: BPF_SELFTEST_BENCH_ONLY={o}"));
    ARRAYMAP_MMAP_PAGES
        .iter()
        .map(|&pages| (format!("arraymap_mmap_{pages}"), pages))
        .filter(|(name, _)| selected(name))
        .map(|(case, pages)| {
            let runs = ARRAYMAP_MMAP_RUNS;
            let model = match skipped("model") {
                Some(why) => Err(why),
                None => model_arraymap_mmap(pages, runs),
            };
            let kernel_ns = match skipped("kernel") {
                Some(why) => Err(why),
                None => kernel_arraymap_mmap(pages, runs),
            };
            let model_resident_pages = model.as_ref().ok().map(|m| m.1);
            MmapRow { case, pages, runs, model_ns: model.map(|m| m.0), kernel_ns, model_resident_pages }
        })
        .collect()
}

pub fn arraymap_mmap_table(rows: &[MmapRow]) -> String {
    let mut s = String::from(
        "arraymap mmap        pages  model ns  kernel ns  ratio  model resident pages
",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<20} {:>5}  {:>8}  {:>9}  {:>5}  {:>20}",
            r.case,
            r.pages,
            num(r.model_ns.as_ref().ok().copied(), 0),
            num(r.kernel_ns.as_ref().ok().copied(), 0),
            num(r.ratio(), 2),
            r.model_resident_pages.map_or_else(|| "-".to_string(), |p| p.to_string())
        );
    }
    if let Some(r) = rows.first() {
        let _ = writeln!(s, "medians of {} runs each: create, mmap (shared, writable), one page written, munmap", r.runs);
    }
    s
}

pub fn arraymap_mmap_json(r: &MmapRow) -> serde_json::Value {
    json!({
        "case": r.case,
        "pages": r.pages,
        "runs": r.runs,
        "model_ns": r.model_ns.as_ref().ok(),
        "kernel_ns": r.kernel_ns.as_ref().ok(),
        "ratio": r.ratio(),
        "model_resident_pages": r.model_resident_pages,
    })
}

/// The engine's rows for `--json`, the keys of [`fixups_engine_table`];
/// a row after the first also carries its growth over the first.
pub fn fixups_engine_json(rows: &[EngineRow]) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|r| {
            let growth = engine_growth(rows, r);
            let min_growth = engine_min_growth(rows, r);
            json!({
                "case": r.case,
                "passes": r.passes,
                "insns": r.insns,
                "patches": r.patches,
                "reps": r.reps,
                "one_step_ms": r.cold.median_ms,
                "one_step_min_ms": r.cold.min_ms,
                "one_step_warm_ms": r.warm.median_ms,
                "one_step_warm_min_ms": r.warm.min_ms,
                "one_step_fresh_ms": r.fresh.median_ms,
                "one_step_fresh_min_ms": r.fresh.min_ms,
                "page_faults": r.cold.page_faults,
                "page_faults_fresh": r.fresh.page_faults,
                "one_at_a_time_ms": r.one_at_a_time_ms,
                "speed_up": r.one_at_a_time_ms.map(|m| m / r.cold.median_ms.max(1e-9)),
                "growth": growth.map(|g| g.0),
                "growth_warm": growth.map(|g| g.1),
                "growth_fresh": growth.map(|g| g.2),
                "growth_min": min_growth.map(|g| g.0),
                "growth_warm_min": min_growth.map(|g| g.1),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_assemble_and_link_at_their_sizes() {
        let r = request("s", &straight_line(1000), SOCKET_FILTER, vec![], Arch::X86_64).unwrap();
        assert_eq!(r.prog.insns.len(), 1000);
        assert_eq!(request("n", &goto_nops(1000), SOCKET_FILTER, vec![], Arch::X86_64).unwrap().prog.insns.len(), 1002);
        for asm in [walked_loop(10), branch_chain(10), bpf_for(10), bpf_loop(10), unrolled(10)] {
            request("x", &asm, RAW_TRACEPOINT, vec![], Arch::X86_64).unwrap();
        }
    }

    #[test]
    fn the_engine_both_ways_gives_the_same_program() {
        use crate::isa::Insn;
        use crate::isa::op::*;
        // 20 helper calls, each patched into three insns (a call, a NULL
        // check jumping over an add), behind jumps that cross them
        let mut insns = Vec::new();
        let mut patches = crate::fixups::patch::Patches::new();
        for k in 0..20 {
            insns.push(Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, k));
            patches.replace(
                insns.len(),
                vec![
                    Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 0x1234),
                    Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, 0),
                    Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 48),
                ],
            );
            insns.push(Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 1));
        }
        insns.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        let passes = [(insns.clone(), patches)];
        let (mut a, mut b) = (EngineTarget::default(), EngineTarget::default());
        let mut evict = [0u8; 4096];
        time_engine(&mut a, &passes, true, EngineStart::Fresh, &mut evict).unwrap();
        time_engine(&mut a, &passes, true, EngineStart::Cold, &mut evict).unwrap();
        time_engine(&mut b, &passes, false, EngineStart::Warm, &mut evict).unwrap();
        assert_eq!(a.insns, b.insns);
        assert_eq!(a.insns.len(), insns.len() + 2 * 20);
    }

    #[test]
    fn arraymap_mmap_model_side_touches_one_page() {
        let (ns, resident) = model_arraymap_mmap(2048, 3).unwrap();
        assert!(ns > 0.0);
        assert_eq!(resident, 1);
    }
}
