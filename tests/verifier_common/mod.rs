//! Shared driver of the verifier tests against recorded 7.3 logs
//! (`verifier_do_check`, `verifier_calls`): goldens recorded from a real
//! Linux 7.3 verifier at log levels 1 and 2 by `scripts/record-*-goldens.py`
//! through the oracle kit, each program loaded again through the whole
//! model of `bpf_check` as the kit loaded it (a GPL program with one BTF
//! `FUNC` per subprogram, named after the job and the labels, even
//! unprivileged; maps by fd), and compared: verdict, errno,
//! `verified_insns` and the log. A rejected program's log is compared to
//! its end; an accepted one up to the closing statistics (which come
//! after the fixups: checked apart when the model decides them too). Kernel pointers are masked as in the goldens of
//! `progs/` (map addresses printed by `ld_imm64`).
//!
//! Two levels of agreement are counted: the whole log ("strict"), and the
//! log without the "Verification failed:" diagnostics blocks, which the
//! model does not write for every error yet.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::{BtfMode, LoadRequest};
use bpf_selftest::golden::mask_kernel_pointers;
use bpf_selftest::link::{Func, LinkReloc, LinkedProgram};
use bpf_selftest::map::MapDef;
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::env::FuncInfo;
use bpf_selftest::verifier::errno::errno_name;
use bpf_selftest::verifier::{Verdict, bpf_check};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One recorded program.
pub struct Case {
    /// From the file's header.
    pub arch: Arch,
    pub area: String,
    pub name: String,
    pub ptype: String,
    pub opts: String,
    pub asm: String,
    pub result: String,
    pub log1: String,
    pub log2: String,
}

/// Every program of `dir` (one `<area>.txt` per area).
pub fn load(dir: &str) -> Vec<Case> {
    let dir = Path::new(ROOT).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("goldens").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "txt")) {
        let area = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let text = std::fs::read_to_string(f).expect("read");
        let arch = if text.lines().next().is_some_and(|l| l.contains(" arm64 ")) { Arch::Arm64 } else { Arch::X86_64 };
        for chunk in text.split("\n=== ").skip(1) {
            let mut c = Case {
                arch,
                area: area.clone(),
                name: String::new(),
                ptype: String::new(),
                opts: String::new(),
                asm: String::new(),
                result: String::new(),
                log1: String::new(),
                log2: String::new(),
            };
            let mut sect = 0;
            for (i, l) in chunk.lines().enumerate() {
                if i == 0 {
                    c.name = l.to_string();
                    continue;
                }
                match sect {
                    0 if l.starts_with("type: ") => c.ptype = l[6..].to_string(),
                    0 if l.starts_with("opts:") => c.opts = l[5..].trim().to_string(),
                    0 if l == "asm:" => sect = 1,
                    1 if l.starts_with("  ") => {
                        c.asm.push_str(l.trim());
                        c.asm.push('\n');
                    }
                    1 if l.starts_with("result: ") => c.result = l[8..].to_string(),
                    _ if l == "--- level 1" => sect = 2,
                    _ if l == "--- level 2" => sect = 3,
                    2 => {
                        c.log1.push_str(l);
                        c.log1.push('\n');
                    }
                    3 => {
                        c.log2.push_str(l);
                        c.log2.push('\n');
                    }
                    _ => {}
                }
            }
            out.push(c);
        }
    }
    out
}

/// The oracle kit's program type names.
pub fn prog_type(t: &str) -> u32 {
    match t {
        "socket" => 1,
        "kprobe" => 2,
        "tc" => 3,
        "tracepoint" => 5,
        "xdp" => 6,
        "cgroup_skb" => 8,
        "cgroup_sock" => 9,
        "raw_tp" => 17,
        "sk_lookup" => 30,
        "syscall" => 31,
        other => ProgType::from_name(other).map_or(0, |p| p.0),
    }
}

/// A load as the oracle kit made it, and what the request cannot say.
pub struct Load {
    pub request: LoadRequest,
    /// `--license` other than GPL.
    pub gpl: bool,
    /// `--no-btf`: no program BTF at all.
    pub no_btf: bool,
}

/// The load the oracle kit made of `case` at `level`.
pub fn request(case: &Case, level: u32) -> Result<Load, String> {
    let prog = bpf_selftest::isa::assemble(&case.asm).map_err(|e| format!("asm: {e}"))?;
    let mut maps = Vec::new();
    let (mut unpriv, mut flags, mut attach) = (false, 0, None);
    let (mut globals, mut no_btf, mut gpl) = (Vec::new(), false, true);
    let mut toks = case.opts.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            // --map NAME:TYPE:KS:VS:MAX[:FLAGS]
            "--map" => {
                let f: Vec<&str> = toks.next().unwrap_or_default().split(':').collect();
                let num = |i: usize| f.get(i).and_then(|v| v.parse().ok()).ok_or(format!("bad --map in {:?}", case.opts));
                let ty = bpf_selftest::map::map_type_by_name(f.get(1).copied().unwrap_or_default()).ok_or("bad map type")?;
                let mut m = MapDef::new(f[0], ty, num(2)?, num(3)?, num(4)?);
                if f.len() > 5 {
                    m.map_flags = num(5)?;
                }
                maps.push(m);
            }
            "--unpriv" => unpriv = true,
            "--flags" => {
                for f in toks.next().unwrap_or_default().split(',') {
                    flags |= bpf_selftest::prog_type::prog_flag(f).ok_or(format!("flag {f}"))?;
                }
            }
            "--attach-type" => {
                attach = Some(match toks.next() {
                    Some("cgroup_inet_ingress") => 0,
                    Some("cgroup_inet_egress") => 1,
                    Some("sk_lookup") => 36,
                    other => return Err(format!("attach type {other:?}")),
                })
            }
            "--global" => globals.extend(toks.next().map(str::to_string)),
            "--no-btf" => no_btf = true,
            "--license" => gpl = toks.next().is_some_and(|l| l.contains("GPL")),
            other => return Err(format!("option {other}")),
        }
    }
    let mut prog = prog;
    let mut relocs = Vec::new();
    for r in &prog.relocs {
        let (name, value) = match r.symbol.strip_suffix("__value") {
            Some(n) => (n, true),
            None => (r.symbol.as_str(), false),
        };
        if let Some(map) = maps.iter().position(|m| m.name == name) {
            relocs.push(if value { LinkReloc::MapValue { insn: r.insn, map, off: 0 } } else { LinkReloc::Map { insn: r.insn, map } });
        } else if r.kind == bpf_isa::asm::RelocKind::Call {
            // what the linker makes of a call of an unknown name
            if let Some(x) = prog.insns.get_mut(r.insn) {
                x.src = bpf_isa::insn::op::BPF_PSEUDO_KFUNC_CALL;
            }
            relocs.push(LinkReloc::Kfunc { insn: r.insn, name: r.symbol.clone() });
        } else {
            return Err(format!("symbol {}", r.symbol));
        }
    }
    // one function per bpf-to-bpf call or callback target, named by its label
    let name = format!("{}__{}__l{level}", case.area, case.name);
    let mut funcs = vec![Func { name: name.clone(), start: 0, global: false, nargs: 0 }];
    for (i, insn) in prog.insns.iter().enumerate() {
        let is_target = insn.is_pseudo_call() || (insn.is_ld_imm64() && insn.src == bpf_isa::insn::op::BPF_PSEUDO_FUNC);
        let t = i as i64 + insn.imm as i64 + 1;
        if !is_target || t <= 0 || funcs.iter().any(|f| f.start as i64 == t) {
            continue;
        }
        let label = prog.labels.iter().find(|(_, at)| **at as i64 == t).map_or_else(|| format!("f{t}"), |(l, _)| l.clone());
        funcs.push(Func { global: globals.contains(&label), name: label, start: t as usize, nargs: 0 });
    }
    funcs.sort_by_key(|f| f.start);
    Ok(Load {
        request: LoadRequest {
            prog: LinkedProgram { insns: prog.insns, funcs, relocs },
            name,
            prog_type: ProgType(prog_type(&case.ptype)),
            expected_attach_type: attach,
            attach_func: None,
            prog_flags: flags,
            log_level: level,
            unpriv,
            caps_unpriv: Vec::new(),
            maps,
            btf: if no_btf { BtfMode::None } else { BtfMode::FuncInfo },
            test_run: None,
            arch: case.arch,
            want_jited: false,
        },
        gpl,
        no_btf,
    })
}

/// The model's result line, log and `verified_insns` for `case` at
/// `level`.
pub fn run(case: &Case, level: u32) -> Result<(String, String), String> {
    let load = request(case, level)?;
    let req = &load.request;
    let mut input = ModelBackend::verifier_input(req).map_err(|u| u.0)?;
    // the oracle kit loads the program BTF before it drops capabilities
    // (the project's loaders, after: without CAP_BPF they go on without)
    if !load.no_btf {
        input.func_info =
            Some(req.prog.funcs.iter().map(|f| FuncInfo { insn_off: f.start as u32, name: f.name.clone(), global: f.global, nargs: 0 }).collect());
    }
    input.gpl = load.gpl;
    match bpf_check(&input) {
        Verdict::Decided(d) if !d.accepted => Ok((format!("rejected errno={}", errno_name(d.errno)), d.log)),
        Verdict::Decided(d) => {
            // decided through the fixups: the closing statistics too
            let stats = |log: &str| log.lines().filter(|l| l.starts_with("processed ")).map(str::to_string).collect::<Vec<_>>();
            let kernel = if level == 1 { &case.log1 } else { &case.log2 };
            if stats(&d.log) != stats(kernel) {
                return Err(format!("statistics: kernel {:?}, model {:?}", stats(kernel), stats(&d.log)));
            }
            let log = d.log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
            Ok((format!("accepted verified_insns={}", d.verified_insns), log))
        }
        Verdict::NotModelled { phase: "fixups", log_so_far, verified_insns, .. } => {
            Ok((format!("accepted verified_insns={verified_insns}"), log_so_far))
        }
        Verdict::NotModelled { phase, what, .. } => Err(format!("not modelled: {phase}: {what}")),
    }
}

/// The kernel's log as the model can reproduce it: an accepted program's
/// closing statistics come after the fixups.
pub fn expected_log(case: &Case, level: u32) -> String {
    let log = if level == 1 { &case.log1 } else { &case.log2 };
    let mut log = mask_kernel_pointers(log);
    if case.result.starts_with("accepted") {
        log = log.lines().filter(|l| !l.starts_with("processed ")).map(|l| format!("{l}\n")).collect();
    }
    log
}

/// `log` without its "Verification failed:" blocks (each ends with its
/// suggestion's paragraph, or at the statistics).
pub fn without_diagnostics(log: &str) -> String {
    let mut out = String::new();
    let (mut in_diag, mut suggestion) = (false, false);
    for l in log.split_inclusive('\n') {
        let t = l.trim_end_matches('\n');
        if t.starts_with("Verification failed:") {
            (in_diag, suggestion) = (true, false);
            // the blank line before it
            if out.ends_with("\n\n") {
                out.pop();
            }
            continue;
        }
        if in_diag {
            if t.starts_with("Suggestion:") {
                suggestion = true;
                continue;
            }
            if suggestion && t.is_empty() {
                in_diag = false;
                continue;
            }
            if !t.starts_with("processed ") {
                continue;
            }
            in_diag = false;
            if out.ends_with("\n\n") {
                out.pop();
            }
        }
        out.push_str(l);
    }
    out
}

/// How a program compared.
pub enum Match {
    /// Everything, diagnostics included.
    Strict,
    /// Everything but the diagnostics blocks (where they first differ).
    MainPass(String),
}

fn first_diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    format!("line {}:\n  want: {}\n  got:  {}", i + 1, w.get(i).unwrap_or(&"<end>"), g.get(i).unwrap_or(&"<end>"))
}

/// Runs `case` at both log levels against its goldens.
pub fn check(case: &Case) -> Result<Match, String> {
    let mut errs = Vec::new();
    let mut strict = None;
    for level in [1u32, 2] {
        let (result, log) = run(case, level)?;
        if level == 2 && result != case.result {
            errs.push(format!("result: got {result}, want {}", case.result));
        }
        let want = expected_log(case, level);
        let got = mask_kernel_pointers(&log);
        if want.trim_end() == got.trim_end() {
            continue;
        }
        strict.get_or_insert_with(|| format!("level {level} log differs at {}", first_diff(&want, &got)));
        let (w, g) = (without_diagnostics(&want), without_diagnostics(&got));
        if w.trim_end() != g.trim_end() {
            errs.push(format!("level {level} log differs at {}", first_diff(&w, &g)));
        }
    }
    if !errs.is_empty() {
        return Err(errs.join("\n"));
    }
    Ok(match strict {
        None => Match::Strict,
        Some(d) => Match::MainPass(d),
    })
}

/// Pass counts of a suite run.
#[derive(Default)]
pub struct Counts {
    pub total: usize,
    /// Agree but for diagnostics blocks (strict ones included).
    pub pass: usize,
    pub strict: usize,
}

/// Checks every case of `dir`, prints the counts per area (strict, main
/// pass, total). `$VERBOSE_VAR` set prints each failure; `$FILTER_VAR`
/// keeps only names (or areas) containing it.
pub fn run_suite(dir: &str, verbose_var: &str, filter_var: &str) -> Counts {
    let mut cases = load(dir);
    assert!(!cases.is_empty());
    if let Ok(f) = std::env::var(filter_var) {
        cases.retain(|c| c.name.contains(&f) || c.area == f);
    }
    let verbose = std::env::var(verbose_var).is_ok();
    let mut per_area: BTreeMap<String, Counts> = BTreeMap::new();
    for c in &cases {
        let r = std::panic::catch_unwind(|| check(c)).unwrap_or_else(|_| Err("panic".into()));
        let e = per_area.entry(c.area.clone()).or_default();
        e.total += 1;
        match r {
            Ok(m) => {
                e.pass += 1;
                match m {
                    Match::Strict => e.strict += 1,
                    Match::MainPass(d) if verbose => eprintln!("DIAG {}/{}: {d}", c.area, c.name),
                    Match::MainPass(_) => {}
                }
            }
            Err(m) if verbose => eprintln!("FAIL {}/{}: {m}", c.area, c.name),
            Err(_) => {}
        }
    }
    let mut all = Counts::default();
    for (a, c) in &per_area {
        eprintln!("{a}: {}/{} ({} with diagnostics)", c.pass, c.total, c.strict);
        all.total += c.total;
        all.pass += c.pass;
        all.strict += c.strict;
    }
    eprintln!("total: {}/{} ({} with diagnostics)", all.pass, all.total, all.strict);
    all
}

/// Prints the model's log of the program named `name` at `level`
/// (debugging aid).
pub fn dump(dir: &str, name: &str, level: u32) {
    for c in load(dir).iter().filter(|c| c.name == name) {
        match run(c, level) {
            Ok((result, log)) => eprintln!("{log}\n=> {result}"),
            Err(e) => eprintln!("{e}"),
        }
    }
}
