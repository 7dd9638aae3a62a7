//! The kernel's own selftests for calls, maps and references (the suites
//! of [`SUITES`]), imported from the 7.3 source at test time, through the
//! main pass, against what a real 7.3 kernel did with each of them.
//!
//! Each subtest is planned as test_loader runs it (privileged and
//! `@unpriv`), loaded once into 7.3 at log level 2 through the `vm`
//! backend, and the outcome kept in the cache
//! (`$BPF_SELFTEST_CACHE`, default `~/.cache/bpf-selftest`,
//! `calls-imported/<arch>/`: the programs are GPL, so are their logs;
//! nothing is committed). `CALLS_IMPORTED_RECORD=1` boots the VM for what
//! the cache lacks; without it such subtests are counted apart.
//!
//! Then each is loaded through the model (`ModelBackend::verifier_input`
//! and `bpf_check`, the whole verifier) and compared, per suite:
//! - `exact`: verdict, errno, `verified_insns` and the whole level-2 log
//!   equal 7.3's (an accepted program's up to its closing statistics,
//!   which come after the fixups);
//! - `main`: the same without the "Verification failed:" diagnostics
//!   blocks, which the model does not write for every error yet;
//! - `tl`: test_loader's checks of the subtest pass on the model's outcome
//!   (load result and `__msg` patterns; xlated, JIT and retval belong to
//!   later stages and are left out), counted over the subtests 7.3 itself
//!   passes that way.
//!
//! `front` counts the subtests 7.3's front end decides. Without the source, gcc or any cached outcome the test
//! says so and passes. `CALLS_IMPORTED_VERBOSE=1` prints every mismatch,
//! `CALLS_IMPORTED_FILTER=x` keeps the subtests whose name contains `x`,
//! `CALLS_IMPORTED_DUMP=suite/prog` prints both logs of one,
//! `CALLS_IMPORTED_ALL=1` takes every `verifier_*.c`.

use crate::verifier_common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use bpf_selftest::backend::{Backend, LoadOutcome, LoadRequest};
use bpf_selftest::golden::mask_kernel_pointers;
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions, Verdict};
use bpf_selftest::spec::TestSpec;
use bpf_selftest::target::Arch;

/// Issue 7's suites.
const SUITES: &[&str] = &[
    "verifier_array_access",
    "verifier_helper_access_var_len",
    "verifier_helper_packet_access",
    "verifier_helper_restricted",
    "verifier_helper_value_access",
    "verifier_map_in_map",
    "verifier_map_ptr",
    "verifier_map_ptr_mixing",
    "verifier_map_ret_val",
    "verifier_prevent_map_lookup",
    "verifier_ref_tracking",
    "verifier_ringbuf",
    "verifier_spin_lock",
    "verifier_subprog_precision",
    "verifier_global_subprogs",
    "verifier_iterating_callbacks",
    "verifier_may_goto_1",
    "verifier_may_goto_2",
    "verifier_tailcall",
    "verifier_value",
    "verifier_value_adj_spill",
    "verifier_value_illegal_alu",
    "verifier_value_or_null",
    "verifier_value_ptr_arith",
    "verifier_xadd",
];

/// Subtests that must match exactly, but for diagnostics, and pass
/// test_loader's checks (ratchets).
const MIN_EXACT: usize = 391;
const MIN_MAIN: usize = 393;
const MIN_TL: usize = 392;

fn cache_dir(arch: Arch) -> PathBuf {
    let base = std::env::var("BPF_SELFTEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/tmp".into())).join(".cache/bpf-selftest"));
    base.join("calls-imported").join(arch.name())
}

/// What identifies a load: everything the request passes to the kernel.
fn request_key(req: &LoadRequest) -> String {
    let mut s = format!("{}|{}|{:?}|{}|{}|{:?}|", req.name, req.prog_type.0, req.expected_attach_type, req.prog_flags, req.unpriv, req.caps_unpriv);
    for i in &req.prog.insns {
        s.push_str(&format!("{:02x}{:x}{:x}{:x}{:x},", i.code, i.dst, i.src, i.off, i.imm));
    }
    s.push_str(&format!("{:?}{:?}{:?}", req.prog.funcs, req.prog.relocs, req.maps));
    format!("{:016x}", bpf_selftest::import::cpp::fnv64(s.as_bytes()))
}

fn read_cached(path: &std::path::Path) -> Option<LoadOutcome> {
    let text = std::fs::read_to_string(path).ok()?;
    let (head, log) = text.split_once('\n')?;
    let f: Vec<&str> = head.split_whitespace().collect();
    Some(LoadOutcome {
        accepted: f.first()? == &"accepted",
        errno: f.get(1)?.parse().ok()?,
        verified_insns: f.get(2)?.parse().ok()?,
        log: log.to_string(),
        ..LoadOutcome::default()
    })
}

fn write_cached(path: &std::path::Path, out: &LoadOutcome) {
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let head = format!("{} {} {}\n", if out.accepted { "accepted" } else { "rejected" }, out.errno, out.verified_insns);
    let _ = std::fs::write(path, head + &out.log);
}

/// 7.3's outcome of each request at log level 2, from the cache or (with
/// `CALLS_IMPORTED_RECORD=1`) the vm backend.
fn kernel_outcomes(reqs: &[LoadRequest], arch: Arch) -> Vec<Option<LoadOutcome>> {
    let dir = cache_dir(arch);
    let paths: Vec<PathBuf> = reqs.iter().map(|r| dir.join(request_key(r))).collect();
    let mut outs: Vec<Option<LoadOutcome>> = paths.iter().map(|p| read_cached(p)).collect();
    // outcomes recorded before the loaders read glued statistics lines
    for o in outs.iter_mut().flatten() {
        if !o.accepted && o.verified_insns == 0 {
            o.verified_insns = bpf_selftest::backend::loader::processed_insns(&o.log).unwrap_or(0);
        }
    }
    let missing: Vec<usize> = (0..reqs.len()).filter(|&i| outs[i].is_none()).collect();
    if missing.is_empty() || std::env::var("CALLS_IMPORTED_RECORD").is_err() {
        return outs;
    }
    let vm = bpf_selftest::backend::vm::VmBackend::from_env();
    if let Err(e) = vm.probe(arch) {
        require::skip(Component::Vm, &format!("CALLS_IMPORTED_RECORD: not recorded: {}", e.0));
        return outs;
    }
    let batch: Vec<LoadRequest> = missing.iter().map(|&i| reqs[i].clone()).collect();
    eprintln!("recording {} loads on 7.3 ({arch}) ...", batch.len());
    for (k, r) in vm.load_batch(&batch).into_iter().enumerate() {
        match r {
            Ok(out) => {
                write_cached(&paths[missing[k]], &out);
                outs[missing[k]] = Some(out);
            }
            Err(e) => eprintln!("{}: {}", batch[k].name, e.0),
        }
    }
    outs
}

/// The request as the test loads it: level 2, nothing after the verifier.
fn level2(req: &LoadRequest) -> LoadRequest {
    let mut r = req.clone();
    r.log_level = 2;
    r.test_run = None;
    r.want_jited = false;
    r
}

/// test_loader's checks that the verifier decides: xlated, JIT and test
/// run are left out.
fn verifier_part(spec: &TestSpec) -> TestSpec {
    let mut s = spec.clone();
    for sub in [&mut s.privileged, &mut s.unpriv] {
        sub.expect_xlated = Default::default();
        sub.jited = Default::default();
        sub.execute = false;
    }
    s
}

/// The model's outcome of `req`: accepted (up to the fixups) or decided,
/// with its log; `Err` names what is not modelled.
fn model_outcome(req: &LoadRequest) -> Result<LoadOutcome, String> {
    use bpf_selftest::{load::bpf_check, verifier::Verdict as V};
    let input = bpf_selftest::backend::model::ModelBackend::verifier_input(req).map_err(|u| u.0)?;
    match bpf_check(&input) {
        // an accepted load's statistics are not in what it is compared with
        V::Decided(d) if d.accepted => {
            let log = d.log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
            Ok(LoadOutcome { accepted: true, log, verified_insns: d.verified_insns, ..LoadOutcome::default() })
        }
        V::Decided(d) => Ok(LoadOutcome { accepted: d.accepted, errno: d.errno, log: d.log, verified_insns: d.verified_insns, ..LoadOutcome::default() }),
        V::NotModelled { phase: "fixups", log_so_far, verified_insns, .. } => {
            Ok(LoadOutcome { accepted: true, log: log_so_far, verified_insns, ..LoadOutcome::default() })
        }
        V::NotModelled { phase, what, .. } => Err(format!("{phase}: {what}")),
    }
}

#[derive(Default)]
struct Counts {
    total: usize,
    front: usize,
    /// Agree but for diagnostics blocks.
    main: usize,
    exact: usize,
    kernel_tl: usize,
    model_tl: usize,
}

#[test]
fn calls_suites_against_linux_7_3() {
    let Some(tree) = bpf_selftest::import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source");
        return;
    };
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        require::skip(Component::Source, "no gcc");
        return;
    }
    let arch: Arch = std::env::var("BPF_SELFTEST_ARCH").ok().and_then(|a| a.parse().ok()).unwrap_or(Arch::X86_64);
    // CALLS_IMPORTED_ALL=1: every verifier_*.c (a robustness run; the
    // ratchets count issue 7's suites only)
    let all = std::env::var("CALLS_IMPORTED_ALL").is_ok();
    let filter = |n: &str| all || SUITES.contains(&n);
    let files = bpf_selftest::import::import_verifier_suites(&tree, arch, &filter);
    let suites: Vec<_> = files.iter().filter_map(|(_, r)| r.as_ref().ok()).map(bpf_selftest::import::suite::to_suite).collect();
    let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
    let model = bpf_selftest::backend::model::ModelBackend;
    let only = std::env::var("CALLS_IMPORTED_FILTER").ok();
    let verbose = std::env::var("CALLS_IMPORTED_VERBOSE").is_ok();
    let mut jobs = Vec::new();
    for st in runner::plan_suites(&suites, &opts, &model) {
        if only.as_ref().is_some_and(|f| !st.name.contains(f.as_str())) {
            continue;
        }
        if let Plan::Load(job) = st.plan {
            jobs.push((st.name, st.suite, job));
        }
    }
    let reqs: Vec<LoadRequest> = jobs.iter().map(|(_, _, j)| level2(&j.request)).collect();
    let kernel = kernel_outcomes(&reqs, arch);
    let mut per: BTreeMap<String, Counts> = BTreeMap::new();
    let mut uncached = 0;
    let mut fails: BTreeMap<String, usize> = BTreeMap::new();
    for ((name, suite, job), (req, k)) in jobs.iter().zip(reqs.iter().zip(&kernel)) {
        let Some(k) = k else {
            uncached += 1;
            continue;
        };
        let c = per.entry(suite.clone()).or_default();
        c.total += 1;
        let spec = verifier_part(&job.spec);
        let (kv, _) = runner::check_outcome(&spec, job.unpriv, arch, k, false);
        let kernel_ok = kv == Verdict::Ok;
        c.kernel_tl += kernel_ok as usize;
        c.front += !k.log.contains("Live regs before insn:") as usize;
        let run = std::panic::catch_unwind(|| model_outcome(req));
        let Ok(run) = run else {
            eprintln!("PANIC {name}");
            *fails.entry("panic".into()).or_default() += 1;
            continue;
        };
        let mo = match run {
            Ok(o) => o,
            Err(w) => {
                if verbose {
                    eprintln!("UNSUPPORTED {name}: {w}");
                }
                *fails.entry(format!("not modelled: {w}")).or_default() += 1;
                continue;
            }
        };
        if std::env::var("CALLS_IMPORTED_DUMP").is_ok_and(|d| *name == d) {
            eprintln!("--- 7.3\n{}--- model\n{}=> accepted {} errno {}", k.log, mo.log, mo.accepted, mo.errno);
        }
        let (mv, report) = runner::check_outcome(&spec, job.unpriv, arch, &mo, false);
        if kernel_ok && mv == Verdict::Ok {
            c.model_tl += 1;
        }
        let same_result = mo.accepted == k.accepted && mo.errno == k.errno && mo.verified_insns == k.verified_insns;
        // an accepted program's statistics come after the fixups
        let mut want = mask_kernel_pointers(&k.log);
        if k.accepted {
            want = want.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
        }
        let got = mask_kernel_pointers(&mo.log);
        let strict = want.trim_end() == got.trim_end();
        let (wm, gm) = (verifier_common::without_diagnostics(&want), verifier_common::without_diagnostics(&got));
        let main = wm.trim_end() == gm.trim_end();
        if same_result && strict {
            c.exact += 1;
        }
        if same_result && main {
            c.main += 1;
            if verbose && kernel_ok && mv != Verdict::Ok {
                eprintln!("TL {name}: matches but for diagnostics; test_loader says:\n{report}");
            }
        } else {
            let why = if !same_result {
                format!("result: got {} {} {}, want {} {} {}", mo.accepted, mo.errno, mo.verified_insns, k.accepted, k.errno, k.verified_insns)
            } else {
                let (w, g): (Vec<&str>, Vec<&str>) = (wm.lines().collect(), gm.lines().collect());
                let i = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
                format!("log line {}:\n  want: {}\n  got:  {}", i + 1, w.get(i).unwrap_or(&"<end>"), g.get(i).unwrap_or(&"<end>"))
            };
            if verbose {
                eprintln!("FAIL {name}: {why}");
                if kernel_ok && mv != Verdict::Ok {
                    eprintln!("  test_loader: {}", report.lines().next().unwrap_or_default());
                }
            }
        }
    }
    let (mut t, mut f, mut m, mut e, mut kt, mut mt) = (0, 0, 0, 0, 0, 0);
    eprintln!("{:<34} {:>5} {:>5} {:>6} {:>6} {:>8} {:>8}", "suite", "progs", "front", "exact", "main", "tl(7.3)", "tl(model)");
    for (s, c) in &per {
        eprintln!("{s:<34} {:>5} {:>5} {:>6} {:>6} {:>8} {:>8}", c.total, c.front, c.exact, c.main, c.kernel_tl, c.model_tl);
        (t, f, m, e, kt, mt) = (t + c.total, f + c.front, m + c.main, e + c.exact, kt + c.kernel_tl, mt + c.model_tl);
    }
    eprintln!("{:<34} {t:>5} {f:>5} {e:>6} {m:>6} {kt:>8} {mt:>8}", "total");
    for (w, n) in &fails {
        eprintln!("  {n} x {w}");
    }
    if uncached > 0 {
        eprintln!("{uncached} subtests have no recorded 7.3 outcome (CALLS_IMPORTED_RECORD=1 records them)");
    }
    if only.is_none() && !all && t > 0 && uncached == 0 {
        assert!(e >= MIN_EXACT, "{e} exact matches, fewer than {MIN_EXACT}");
        assert!(m >= MIN_MAIN, "{m} matches (but for diagnostics), fewer than {MIN_MAIN}");
        assert!(mt >= MIN_TL, "{mt} test_loader passes, fewer than {MIN_TL}");
    }
}
