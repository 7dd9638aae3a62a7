//! Programs written to reach fixups the goldens of progs/ do not, and
//! what 7.3 made of them:
//!
//! * `tests/fixups_calls/*.s` (options on a `# load:` line) and
//!   `tests/fixups_calls/recorded-<arch>.txt`, their xlated programs: a
//!   `== NAME` line, then one 8-byte slot per line (map ids replaced by
//!   map indexes), or `rejected ERRNO`;
//! * `tests/fixups_calls/imported-calls-<arch>.txt`: the helper and kfunc
//!   calls 7.3 left in the xlated programs of the kernel's own
//!   `verifier_*.c` selftests that call something, `NAME: SLOT SLOT ...`;
//! * `tests/fixups_misc/cases/*.s` (options on a `# case:` line) and
//!   `tests/fixups_misc/linux-7.3/<arch>/NAME.txt`, one golden each.
//!
//! `record --set fixup-calls` and `record --set fixup-misc` load them again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::backend::LoadRequest;
use crate::backend::model::ModelBackend;
use crate::cli::check::{CheckArgs, request};
use crate::fixups::calls::kernel_symbols;
use crate::map::MapDef;
use crate::runner::{Plan, RunOptions};
use crate::target::Arch;

/// The value of option `--opt` lines start with (`# load:`, `# case:`).
fn options<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    src.lines().find_map(|l| l.strip_prefix(key))
}

/// A program of `tests/fixups_calls/` as its `# load:` line says:
/// `--type`, `--map NAME:TYPE:KEY:VALUE:MAX[:FLAGS]` (as `bpf-selftest
/// check`), `--inner NAME:TYPE:KEY:VALUE:MAX` (the inner map of map
/// NAME), `--unpriv`, `--flags` (prog_flags as `check --flags` takes
/// them; none by default).
pub fn calls_request(path: &Path, arch: Arch) -> Result<LoadRequest, String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let src = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    // recorded with no prog_flags
    let mut a = CheckArgs { log_level: 0, flags: Some("0".into()), ..CheckArgs::new(&path.display().to_string(), "socket_filter", arch) };
    let mut inner: Vec<MapDef> = Vec::new();
    let mut words = options(&src, "# load:").unwrap_or_default().split_whitespace();
    while let Some(w) = words.next() {
        let mut value = || words.next().map(str::to_string).ok_or_else(|| at(format!("{w} wants a value")));
        match w {
            "--type" => a.prog_type = value()?,
            "--map" => a.maps.push(value()?),
            "--unpriv" => a.unpriv = true,
            "--flags" => a.flags = Some(value()?),
            "--inner" => inner.push(MapDef::parse_cli(&value()?).map_err(at)?),
            o => return Err(at(format!("option {o} is not one of --type, --map, --inner, --unpriv, --flags"))),
        }
    }
    let body: String = src.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n");
    let mut req = request(&a, &body).map_err(at)?;
    for def in inner {
        let m = req.maps.iter_mut().find(|m| m.name == def.name).ok_or_else(|| at(format!("--inner of unknown map {}", def.name)))?;
        m.inner = Some(Box::new(def));
    }
    Ok(req)
}

/// The `.s` files of `dir`, by name.
pub fn programs(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    Ok(super::files_in(dir, "s")?.into_iter().map(|p| (p.file_stem().unwrap_or_default().to_string_lossy().into_owned(), p)).collect())
}

/// `recorded-<arch>.txt`: per program, its xlated slots or `None` (7.3
/// refused it).
pub type RecordedPrograms = BTreeMap<String, Option<Vec<Insn>>>;

pub fn calls_recording_path(dir: &Path, arch: Arch) -> PathBuf {
    dir.join(format!("recorded-{}.txt", arch.name()))
}

pub fn parse_recorded(text: &str) -> Result<RecordedPrograms, String> {
    let mut out = RecordedPrograms::new();
    let mut cur: Option<String> = None;
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some(n) = l.strip_prefix("== ") {
            cur = Some(n.to_string());
            out.insert(n.to_string(), Some(Vec::new()));
        } else if let Some(n) = &cur {
            if l.starts_with("rejected") {
                out.insert(n.clone(), None);
            } else if let Some(v) = out.get_mut(n).and_then(|v| v.as_mut()) {
                v.push(bpf_isa::insn::from_hex(l).ok_or_else(|| format!("bad slot {l:?}"))?);
            }
        }
    }
    Ok(out)
}

/// One program's section of `recorded-<arch>.txt` for what a kernel did.
pub fn recorded_section(name: &str, o: &crate::backend::LoadOutcome) -> String {
    use crate::backend::normalize::renumber_maps;
    let mut s = format!("== {name}\n");
    if o.accepted {
        for i in renumber_maps(&o.xlated_insns, &o.map_ids, &|k| k as u32) {
            s += &bpf_isa::insn::to_hex(i);
            s.push('\n');
        }
    } else {
        s += &format!("rejected {}\n", o.errno);
    }
    s
}

pub fn recorded_header(arch: Arch, release: &str) -> String {
    format!(
        "# The xlated programs of tests/fixups_calls/*.s as Linux {release} ({arch}, QEMU, nokaslr) loaded them:\n\
         # one 8-byte slot per line as BPF_OBJ_GET_INFO_BY_FD returns it, map ids replaced by map indexes.\n\
         # Recorded by `bpf-selftest record --set fixup-calls`.\n"
    )
}

/// The helper and kfunc calls of an xlated program (dump form), in order,
/// without those other passes emit (`LD_ABS`, timed `may_goto`).
pub fn call_slots(insns: &[Insn], arch: Arch) -> Vec<Insn> {
    let others: Vec<i32> = ["arch_bpf_timed_may_goto", "bpf_skb_load_helper_8_no_cache", "bpf_skb_load_helper_16_no_cache", "bpf_skb_load_helper_32_no_cache"]
        .iter()
        .filter_map(|f| kernel_symbols::call_imm(arch, f))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < insns.len() {
        let x = insns[i];
        if x.code == BPF_JMP | BPF_CALL && x.src != BPF_PSEUDO_CALL && !(x.src == 0 && others.contains(&x.imm)) {
            out.push(x);
        }
        i += if x.is_ld_imm64() { 2 } else { 1 };
    }
    out
}

pub fn imported_calls_path(dir: &Path, arch: Arch) -> PathBuf {
    dir.join(format!("imported-calls-{}.txt", arch.name()))
}

/// The loads of the kernel's `verifier_*.c` selftests (imported from the
/// 7.3 source subset) that the model verifies and that call a helper or
/// kfunc, by subtest name. `None` without the source or a C preprocessor.
pub fn imported_jobs(arch: Arch) -> Option<Vec<(String, LoadRequest)>> {
    use crate::import;
    let tree = import::cpp::source_tree()?;
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        return None;
    }
    let files = import::import_verifier_suites(&tree, arch, &|_| true);
    let suites: Vec<_> = files.iter().filter_map(|(_, r)| r.as_ref().ok()).map(import::suite::to_suite).collect();
    let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
    let model = crate::backend::by_name("model").ok()?;
    let mut out = Vec::new();
    for st in crate::runner::plan_suites(&suites, &opts, model.as_ref()) {
        let Plan::Load(job) = st.plan else { continue };
        let Ok(mut input) = ModelBackend::verifier_input(&job.request) else { continue };
        input.verification_time_usec = Some(0);
        let Ok(env) = crate::verifier::verify(&input, Instant::now()) else { continue };
        if env.insns.iter().any(|i| i.code == BPF_JMP | BPF_CALL && i.src != BPF_PSEUDO_CALL) {
            out.push((st.name.clone(), job.request));
        }
    }
    Some(out)
}

/// One line of `imported-calls-<arch>.txt`.
pub fn imported_calls_line(name: &str, arch: Arch, o: &Result<crate::backend::LoadOutcome, crate::backend::Unavailable>) -> String {
    match o {
        Ok(o) if o.accepted => {
            let calls: Vec<String> = call_slots(&o.xlated_insns, arch).iter().map(|i| bpf_isa::insn::to_hex(*i)).collect();
            format!("{name}: {}\n", calls.join(" "))
        }
        Ok(o) => format!("{name}: rejected {}\n", o.errno),
        Err(e) => format!("{name}: unavailable {}\n", e.0.replace('\n', " ")),
    }
}

pub fn imported_calls_header(arch: Arch, release: &str) -> String {
    format!(
        "# The helper and kfunc calls (raw xlated slots, in order) that Linux {release} ({arch}, QEMU) left in the\n\
         # programs of the kernel's verifier_*.c selftests the model verifies; recorded by\n\
         # `bpf-selftest record --set fixup-calls`.\n"
    )
}

/// The cases of `tests/fixups_misc/cases`, each loaded as its `# case:`
/// line says (`--prog-type`/`-t`, `--flags`, `--map`, `--unpriv`, as
/// `bpf-selftest check` takes them).
pub fn misc_cases(dir: &Path, arch: Arch) -> Result<Vec<(String, LoadRequest)>, String> {
    let mut out = Vec::new();
    for (name, f) in programs(dir)? {
        let at = |e: String| format!("{}: {e}", f.display());
        let src = std::fs::read_to_string(&f).map_err(|e| at(e.to_string()))?;
        let opts = options(&src, "# case:").ok_or_else(|| at("no `# case:` line".into()))?;
        // recorded with no prog_flags unless the case gives --flags
        let mut a = CheckArgs { flags: Some("0".into()), ..CheckArgs::new(&f.display().to_string(), "socket_filter", arch) };
        let mut it = opts.split_whitespace();
        while let Some(o) = it.next() {
            let mut value = || it.next().map(str::to_string).ok_or_else(|| at(format!("{o} wants a value")));
            match o {
                "--prog-type" | "-t" => a.prog_type = value()?,
                "--flags" => a.flags = Some(value()?),
                "--map" => a.maps.push(value()?),
                "--unpriv" => a.unpriv = true,
                other => return Err(at(format!("unknown case option {other}"))),
            }
        }
        let mut req = request(&a, &src).map_err(at)?;
        req.want_jited = false;
        out.push((name, req));
    }
    Ok(out)
}

pub fn misc_truth_path(dir: &Path, arch: Arch, name: &str) -> PathBuf {
    dir.join(format!("{arch}/{name}.txt"))
}
