//! `bpf-selftest record`: goldens for every program of progs/ from a real
//! kernel (7.3 under QEMU by default), one batch (one boot) per arch.
//! `--check` records the same way and compares with what is stored instead
//! of writing: the drift check CI runs.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::backend::{self, Backend};
use crate::golden::Golden;
use crate::runner::{self, Plan, RunOptions};
use crate::target::Arch;

mod kernel_answers;

#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    /// Record only subtests whose `suite/prog` name contains one of these.
    pub filters: Vec<String>,
    /// Arches, comma-separated.
    #[arg(long, default_value = "x86_64,arm64")]
    pub arch: String,
    /// The real kernel to record from: vm (7.3 under QEMU) or kernel (the
    /// running one; its goldens go under its own release).
    #[arg(long, default_value = "vm")]
    pub backend: String,
    /// Where goldens live.
    #[arg(long, default_value = "expected")]
    pub out: PathBuf,
    /// Compare with the stored goldens instead of writing them; fail on drift.
    #[arg(long)]
    pub check: bool,
    /// With `--check` (set progs): a stored golden whose answers the kernel
    /// gives again unchanged gets the `source` of the load it was just
    /// recorded from, the rest of it left as it is.
    #[arg(long)]
    pub stamp_source: bool,
    /// Which golden set: progs (the goldens of progs/), do-check, calls
    /// (the verifier-log goldens of `expected/linux-7.3/{do_check,calls}`),
    /// scalar (`expected/linux-7.3/scalar`), vmlinux-btf (the subset of the
    /// images' BTF in `harness/model/data/vmlinux_btf`), kfunc-ids (the kfunc BTF
    /// ids of `harness/isa/src/kfunc_btf_ids.rs`), kfunc-imms (the kfuncs'
    /// call imms in `harness/model/src/fixups/calls/bpf_call_imms.txt`), exec (the test runs
    /// of the interpreter's corpus), isa (llvm-mc-19's encodings),
    /// test-run-sizes (`expected/linux-7.3/test_run_sizes.txt`),
    /// verifier-front (`expected/linux-7.3/<arch>/verifier-front`),
    /// map-create (`expected/linux-7.3/map_create.txt`), limits
    /// (`tests/limits`), fuzz-regressions (`tests/fuzz_regressions`), disasm
    /// (`expected/linux-7.3/disasm`), jit-forms (`expected/jit_disasm`),
    /// backend-truth (`expected/oracle`), ctx-probes
    /// (`tests/fixups_ctx/probes.txt`), fixup-calls (`tests/fixups_calls`),
    /// fixup-misc (`tests/fixups_misc`), linfo (the verifier logs of the C
    /// programs of `expected/linux-7.3/linfo`), trampolines (the images of
    /// `expected/linux-7.3/<arch>/trampolines`), or all.
    #[arg(long, default_value = "progs")]
    pub set: String,
}

/// The golden sets `record --set` knows, in the order `all` records them.
pub const SETS: [&str; 22] = [
    "progs",
    "do-check",
    "calls",
    "scalar",
    "vmlinux-btf",
    "kfunc-ids",
    "kfunc-imms",
    "exec",
    "isa",
    "test-run-sizes",
    "verifier-front",
    "map-create",
    "limits",
    "fuzz-regressions",
    "disasm",
    "jit-forms",
    "backend-truth",
    "ctx-probes",
    "fixup-calls",
    "fixup-misc",
    "linfo",
    "trampolines",
];

pub fn run(a: &RecordArgs) -> Result<(), String> {
    let sets: Vec<&str> = if a.set == "all" { SETS.to_vec() } else { vec![a.set.as_str()] };
    let mut failed = Vec::new();
    for set in sets {
        let r = match set {
            "progs" => run_progs(a),
            "do-check" => verifier_log_set(a, "do-check", &["linux-7.3/do_check"]),
            "calls" => verifier_log_set(a, "calls", &["linux-7.3/calls", "linux-7.3/arm64/calls"]),
            "scalar" => scalar_set(a),
            "vmlinux-btf" => vmlinux_btf_set(a),
            "kfunc-ids" => kfunc_ids_set(a),
            "kfunc-imms" => kfunc_imms_set(a),
            "exec" => exec_set(a),
            "isa" => isa_set(a),
            "test-run-sizes" => test_run_sizes_set(a),
            "verifier-front" => kernel_answers::verifier_front_set(a),
            "map-create" => kernel_answers::map_create_set(a),
            "limits" => kernel_answers::limits_set(a),
            "fuzz-regressions" => kernel_answers::fuzz_regressions_set(a),
            "disasm" => crate::recorded::disasm_forms::record(a),
            "jit-forms" => crate::recorded::jit_forms::record(a),
            "backend-truth" => crate::recorded::backend_truth::record(a),
            "ctx-probes" => kernel_answers::ctx_probes_set(a),
            "fixup-calls" => kernel_answers::fixup_calls_set(a),
            "fixup-misc" => kernel_answers::fixup_misc_set(a),
            "linfo" => linfo_set(a),
            "trampolines" => crate::recorded::trampolines::record(a),
            other => Err(format!("record: unknown set '{other}' (all, {})", SETS.join(", "))),
        };
        if let Err(e) = r {
            if a.set != "all" {
                return Err(e);
            }
            eprintln!("record --set {set}: {e}");
            failed.push(set);
        }
    }
    if failed.is_empty() { Ok(()) } else { Err(format!("record --set all: {} failed", failed.join(", "))) }
}

/// `record --set test-run-sizes`: `BPF_PROG_TEST_RUN`'s answers for
/// packets and ctxs of many sizes (`recorded::test_run_sizes`), one batch
/// per arch.
fn test_run_sizes_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::test_run_sizes;
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let path = a.out.join("linux-7.3/test_run_sizes.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let header: Vec<String> = text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect();
    let stored = test_run_sizes::parse(&text)?;
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let mut now = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        if !arches.contains(&arch) {
            now.extend(stored.iter().filter(|c| c.arch == arch).cloned());
            continue;
        }
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        now.extend(test_run_sizes::record(be.as_ref(), arch, &stored)?);
    }
    if a.check {
        let drift: Vec<String> =
            stored.iter().zip(&now).filter(|(x, y)| x != y).map(|(x, y)| format!("{}: stored {}, now {}", x.key(), x.outcome, y.outcome)).collect();
        println!("record --set test-run-sizes: {} cases unchanged, {} drifted", stored.len() - drift.len(), drift.len());
        return if drift.is_empty() { Ok(()) } else { Err(drift.join("\n")) };
    }
    std::fs::write(&path, test_run_sizes::render(&header, &now)).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("record --set test-run-sizes: {} cases -> {}", now.len(), path.display());
    Ok(())
}

/// `record --set isa`: llvm-mc-19's encodings of the instruction corpus
/// (`recorded::isa_encodings`); `--check` compares every line but the header.
fn isa_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::isa_encodings;
    let corpus = a.out.join("isa/corpus.s");
    let path = a.out.join("isa/llvm-mc-19.txt");
    let lines = isa_encodings::corpus_lines(&corpus)?;
    let hex = isa_encodings::encode(&lines)?;
    let text = isa_encodings::render(&isa_encodings::llvm_version()?, &lines, &hex);
    if a.check {
        let body = |t: &str| t.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
        let old = body(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
        let new = body(&text);
        let same = old.iter().zip(&new).filter(|(x, y)| x == y).count();
        let drift = new.len().max(old.len()) - same;
        println!("record --set isa: {same} encodings unchanged, {drift} drifted");
        return if drift == 0 { Ok(()) } else { Err(format!("{}: llvm-mc-19 now encodes {drift} lines otherwise", path.display())) };
    }
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("record --set isa: {} encodings -> {}", lines.len(), path.display());
    Ok(())
}

/// `record --set exec`: the test-run results of the interpreter's corpus
/// (`recorded::exec_corpus`), one batch per arch. `--check` wants every
/// line as stored (the lines carry no boot-dependent values).
fn exec_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::exec_corpus;
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cases = exec_corpus::corpus(&root.join("tests/exec"))?;
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let (mut same, mut drift) = (0, Vec::new());
    for arch in arches {
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        eprintln!("{arch} exec: {} test runs", cases.len());
        let (text, rejected) = exec_corpus::record(be.as_ref(), arch, &cases)?;
        for r in &rejected {
            eprintln!("{arch} exec: REJECTED {r} (the corpus is meant to load)");
        }
        let path = exec_corpus::golden_path(&a.out, arch);
        if a.check {
            let body = |t: &str| t.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect::<Vec<_>>();
            let old = body(&std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
            let new = body(&text);
            same += new.iter().filter(|l| old.contains(l)).count();
            drift.extend(new.iter().filter(|l| !old.contains(l)).map(|l| format!("{arch} exec: now `{l}`")));
            drift.extend(old.iter().filter(|l| !new.contains(l)).map(|l| format!("{arch} exec: stored `{l}`")));
        } else {
            std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("{arch} exec: {} runs -> {}", cases.len(), path.display());
        }
    }
    if a.check {
        println!("record --set exec: {same} runs unchanged, {} drifted", drift.len());
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    }
    Ok(())
}

/// `record --set kfunc-ids`: the kfunc BTF id tables of
/// `harness/isa/src/kfunc_btf_ids.rs` (`recorded::kfunc_ids`), one
/// batch per arch for every kfunc of its image (the `bpf_kfunc`-tagged
/// functions of its vmlinux BTF).
fn kfunc_ids_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::kfunc_ids;
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("isa/src/kfunc_btf_ids.rs");
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let stored = kfunc_ids::parse(&src)?;
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let mut now = Vec::new();
    let (mut same, mut drift) = (0, Vec::new());
    for (arch, old) in &stored {
        if !arches.contains(arch) {
            now.push((*arch, old.clone()));
            continue;
        }
        be.probe(*arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let image = kfunc_ids::image_kfuncs(*arch)?;
        let names: Vec<String> = image.iter().map(|(n, _)| n.clone()).collect();
        eprintln!("{arch} kfunc-ids: loading {} programs", names.len());
        let mut t = kfunc_ids::record(be.as_ref(), *arch, &names)?;
        // the id printed is the image's BTF id of the function: a kfunc the
        // verifier refuses before it prints the call (a device-bound XDP
        // metadata kfunc outside a device-bound program, a prototype it
        // cannot take) keeps that one
        for (n, btf_id) in &image {
            match t.iter().find(|(m, _)| m == n) {
                Some((_, i)) if i != btf_id => drift.push(format!("{arch} kfunc {n}: id {i} printed, {btf_id} in the image's BTF")),
                Some(_) => {}
                None => t.push((n.clone(), *btf_id)),
            }
        }
        t.sort();
        for (n, id) in old {
            match t.iter().find(|(m, _)| m == n) {
                Some((_, i)) if i == id => same += 1,
                Some((_, i)) => drift.push(format!("{arch} kfunc {n}: id {i}, stored {id}")),
                None => drift.push(format!("{arch} kfunc {n}: no id printed, stored {id}")),
            }
        }
        for (n, i) in t.iter().filter(|(n, _)| !old.iter().any(|(m, _)| m == n)) {
            drift.push(format!("{arch} kfunc {n}: id {i}, not stored"));
        }
        now.push((*arch, t));
    }
    if a.check {
        println!("record --set kfunc-ids: {same} ids unchanged, {} drifted", drift.len());
        return if drift.is_empty() { Ok(()) } else { Err(drift.join("\n")) };
    }
    std::fs::write(&path, kfunc_ids::render(&src, &now)?).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("record --set kfunc-ids: {} ids written to {}", now.iter().map(|(_, t)| t.len()).sum::<usize>(), path.display());
    Ok(())
}

/// `record --set vmlinux-btf`: the subset of the 7.3 images' BTF the model
/// reads, extracted from the images setup-vm.sh fetched by
/// `scripts/record-vmlinux-btf.py` (it only reformats what the images
/// hold: no kernel runs). `--check` extracts into a temporary directory and
/// compares byte for byte.
fn vmlinux_btf_set(a: &RecordArgs) -> Result<(), String> {
    let stored = Path::new(env!("CARGO_MANIFEST_DIR")).join("model/data/vmlinux_btf");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/record-vmlinux-btf.py");
    let out = if a.check { std::env::temp_dir().join(format!("bpf-selftest-vmlinux-btf-{}", std::process::id())) } else { stored.clone() };
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&script).arg("--out").arg(&out);
    for arch in a.arch.split(',').map(str::trim) {
        cmd.arg("--arch").arg(arch);
    }
    let r = cmd.output().map_err(|e| format!("running python3 {}: {e}", script.display()))?;
    if !r.status.success() {
        return Err(format!("{} failed:\n{}", script.display(), String::from_utf8_lossy(&r.stderr)));
    }
    if !a.check {
        print!("{}", String::from_utf8_lossy(&r.stdout));
        return Ok(());
    }
    let mut drift = Vec::new();
    let mut same = 0;
    for arch in a.arch.split(',').map(str::trim) {
        let f = format!("{arch}.txt");
        let (old, new) = (std::fs::read_to_string(stored.join(&f)), std::fs::read_to_string(out.join(&f)));
        match (old, new) {
            (Ok(o), Ok(n)) if o == n => same += 1,
            _ => drift.push(format!("{}: differs from what the {arch} image holds", stored.join(&f).display())),
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    println!("record --set vmlinux-btf: {same} files unchanged, {} drifted", drift.len());
    if drift.is_empty() { Ok(()) } else { Err(drift.join("\n")) }
}

/// `record --set kfunc-imms`: the call imms of every kfunc of the images
/// (`bpf_kfunc`-tagged in their BTF) from the cached kallsyms of a booted
/// guest, written into the fixups' table by `scripts/record-kfunc-imms.py`
/// (no kernel runs); `--check` compares.
fn kfunc_imms_set(a: &RecordArgs) -> Result<(), String> {
    // the script reads the kallsyms the vm backend caches: a guest boot
    // per arch writes them when the cache has none
    let vm = crate::backend::vm::VmBackend::from_env();
    for arch in [Arch::X86_64, Arch::Arm64] {
        vm.kallsyms(arch).map_err(|u| format!("{arch}: kallsyms: {}", u.0))?;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/record-kfunc-imms.py");
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&script);
    if a.check {
        cmd.arg("--check");
    }
    let r = cmd.output().map_err(|e| format!("running python3 {}: {e}", script.display()))?;
    print!("{}", String::from_utf8_lossy(&r.stdout));
    if r.status.success() { Ok(()) } else { Err(format!("{} failed:\n{}", script.display(), String::from_utf8_lossy(&r.stderr))) }
}

/// `record --set scalar`: the scalar-domain goldens (`recorded::scalar_logs`),
/// recorded on x86_64 (the domain has nothing arch-specific), one batch per
/// group file. `--check` compares verdicts and main passes.
fn scalar_set(a: &RecordArgs) -> Result<(), String> {
    use crate::recorded::scalar_logs::{self, GroupFile};
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let arch = Arch::X86_64;
    be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
    let dir = a.out.join("linux-7.3/scalar");
    let release = release_of(be.as_ref(), arch);
    let header = vec![
        format!(
            "# Linux {release} {arch} level-2 verifier logs of socket_filter programs, loaded privileged; backend {}.",
            describe_backend(be.as_ref(), arch)
        ),
        format!("# Recorded by `bpf-selftest record --set scalar` on {}; do not edit.", today()),
    ];
    let (mut same, mut drift, mut written) = (0, Vec::new(), 0);
    for file in scalar_logs::read_dir(&dir)? {
        if !(a.filters.is_empty() || a.filters.iter().any(|f| file.group.contains(f.as_str()))) {
            continue;
        }
        eprintln!("{arch} scalar/{}: loading {} programs", file.group, file.cases.len());
        let now = scalar_logs::record(be.as_ref(), arch, &file, &header)?;
        let path = dir.join(format!("{}.txt", file.group));
        if a.check {
            for (old, new) in file.cases.iter().zip(&now.cases) {
                if old == new {
                    same += 1;
                    continue;
                }
                if drift.is_empty() {
                    let one = |c: &scalar_logs::Case| scalar_logs::render(&GroupFile { group: file.group.clone(), header: vec![], cases: vec![c.clone()] });
                    eprintln!(
                        "{arch} scalar/{}/{}: stored (-) and now (+):\n{}",
                        file.group,
                        old.name,
                        similar::TextDiff::from_lines(&one(old), &one(new)).unified_diff().context_radius(3)
                    );
                }
                drift.push(format!("{arch} scalar/{}/{}: differs from {}", file.group, old.name, path.display()));
            }
        } else {
            std::fs::write(&path, scalar_logs::render(&now)).map_err(|e| format!("{}: {e}", path.display()))?;
            written += now.cases.len();
        }
    }
    if a.check {
        println!("record --set scalar: {same} programs unchanged, {} drifted", drift.len());
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    } else {
        println!("record --set scalar: {written} programs written");
    }
    Ok(())
}

/// `record --set do-check|calls`: the verifier-log goldens of hand-written
/// programs (`recorded::verifier_logs`), each area file loaded again in one
/// batch on its arch's kernel. `--check` compares verdicts and both logs,
/// kernel pointers masked.
/// `record --set linfo`: the C programs of `expected/linux-7.3/linfo`
/// compiled with clang 19 and loaded with their `line_info` at levels 1
/// and 2 (x86_64: the sources' objects are the same for every arch).
fn linfo_set(a: &RecordArgs) -> Result<(), String> {
    use crate::golden::mask_kernel_pointers;
    use crate::recorded::linfo_logs;
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let arch = Arch::X86_64;
    if !a.arch.split(',').any(|s| s.trim().parse::<Arch>() == Ok(arch)) {
        return Ok(());
    }
    let log = |l: &str| mask_kernel_pointers(l.trim_end_matches('\n'));
    let masked = |c: &linfo_logs::Case| (c.name.clone(), c.result.clone(), log(&c.log1), log(&c.log2));
    let dir = a.out.join("linux-7.3/linfo");
    let (mut same, mut drift, mut written) = (0, Vec::new(), 0);
    for file in linfo_logs::read_dir(&dir)? {
        if !(a.filters.is_empty() || a.filters.iter().any(|f| file.area.contains(f.as_str()))) {
            continue;
        }
        let src = dir.join(format!("{}.c", file.area));
        let obj = linfo_logs::compile(&src)?.ok_or_else(|| format!("{}: clang-19 is needed to compile it", src.display()))?;
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let release = release_of(be.as_ref(), arch);
        let header = vec![
            format!(
                "# Linux {release} {arch} verifier logs of {}.c (clang-19 {}), levels 1 and 2; backend {}.",
                file.area,
                linfo_logs::CLANG_ARGS[..4].join(" "),
                describe_backend(be.as_ref(), arch)
            ),
            format!("# Recorded by `bpf-selftest record --set linfo` on {}; do not edit.", today()),
        ];
        eprintln!("{arch} linfo/{}: loading its programs at levels 1 and 2", file.area);
        let now = linfo_logs::record(be.as_ref(), &obj, &file, arch, &header)?;
        let path = dir.join(format!("{}.txt", file.area));
        if a.check {
            let old: Vec<_> = file.cases.iter().map(masked).collect();
            let new: Vec<_> = now.cases.iter().map(masked).collect();
            for (i, n) in new.iter().enumerate() {
                if old.get(i) == Some(n) {
                    same += 1;
                    continue;
                }
                if drift.is_empty() {
                    let x = old.get(i).map_or(String::new(), |o| format!("{}\n--- level 1\n{}\n--- level 2\n{}\n", o.1, o.2, o.3));
                    let y = format!("{}\n--- level 1\n{}\n--- level 2\n{}\n", n.1, n.2, n.3);
                    eprintln!(
                        "{arch} linfo/{}/{}: stored (-) and now (+):\n{}",
                        file.area,
                        n.0,
                        similar::TextDiff::from_lines(&x, &y).unified_diff().context_radius(3)
                    );
                }
                drift.push(format!("{arch} linfo/{}/{}: differs from {}", file.area, n.0, path.display()));
            }
            if old.len() > new.len() {
                drift.push(format!("{arch} linfo/{}: {} stored programs are no longer in the object", file.area, old.len() - new.len()));
            }
        } else {
            std::fs::write(&path, linfo_logs::render(&now)).map_err(|e| format!("{}: {e}", path.display()))?;
            written += now.cases.len();
            eprintln!("{arch} linfo/{}: {} programs -> {}", file.area, now.cases.len(), path.display());
        }
    }
    if a.check {
        println!("record --set linfo: {same} programs unchanged, {} drifted", drift.len());
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    } else {
        println!("record --set linfo: {written} programs written");
    }
    Ok(())
}

fn verifier_log_set(a: &RecordArgs, set: &str, dirs: &[&str]) -> Result<(), String> {
    use crate::golden::mask_kernel_pointers;
    use crate::recorded::verifier_logs::{self, Case};
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    // a file keeps a log without its trailing newlines
    let log = |l: &str| mask_kernel_pointers(l.trim_end_matches('\n'));
    let masked = |c: &Case| (c.result.clone(), log(&c.log1), log(&c.log2));
    let (mut same, mut drift, mut written) = (0, Vec::new(), 0);
    for dir in dirs {
        let dir = a.out.join(dir);
        for file in verifier_logs::read_dir(&dir)? {
            if !arches.contains(&file.arch) || !(a.filters.is_empty() || a.filters.iter().any(|f| file.area.contains(f.as_str()))) {
                continue;
            }
            be.probe(file.arch).map_err(|u| format!("{}: {}", file.arch, u.0))?;
            let release = release_of(be.as_ref(), file.arch);
            let header = vec![
                format!("# Linux {release} {} verifier logs, levels 1 and 2; backend {}.", file.arch, describe_backend(be.as_ref(), file.arch)),
                format!("# Recorded by `bpf-selftest record --set {set}` on {}; do not edit.", today()),
            ];
            eprintln!("{} {}/{}: loading {} programs at levels 1 and 2", file.arch, set, file.area, file.cases.len());
            let now = verifier_logs::record(be.as_ref(), &file, &header)?;
            let path = dir.join(format!("{}.txt", file.area));
            if a.check {
                for (old, new) in file.cases.iter().zip(&now.cases) {
                    if masked(old) == masked(new) {
                        same += 1;
                        continue;
                    }
                    if drift.is_empty() {
                        let (x, y) = (
                            verifier_logs::render(&verifier_logs::AreaFile { cases: vec![old.clone()], header: vec![], ..file.clone() }),
                            verifier_logs::render(&verifier_logs::AreaFile { cases: vec![new.clone()], header: vec![], ..file.clone() }),
                        );
                        eprintln!(
                            "{} {set}/{}/{}: stored (-) and now (+):\n{}",
                            file.arch,
                            file.area,
                            old.name,
                            similar::TextDiff::from_lines(&mask_kernel_pointers(&x), &mask_kernel_pointers(&y)).unified_diff().context_radius(3)
                        );
                    }
                    drift.push(format!("{} {set}/{}/{}: differs from {}", file.arch, file.area, old.name, path.display()));
                }
            } else {
                std::fs::write(&path, verifier_logs::render(&now)).map_err(|e| format!("{}: {e}", path.display()))?;
                written += now.cases.len();
                eprintln!("{} {set}/{}: {} programs -> {}", file.arch, file.area, now.cases.len(), path.display());
            }
        }
    }
    if a.check {
        println!("record --set {set}: {same} programs unchanged, {} drifted", drift.len());
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    } else {
        println!("record --set {set}: {written} programs written");
    }
    Ok(())
}

/// `YYYY-MM-DD` of now, UTC.
pub(crate) fn today() -> String {
    let days = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // civil date from days since 1970-01-01 (proleptic Gregorian)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `expected/linux-<series>/<arch>/<suite>/<prog>[@unpriv].txt`
pub fn golden_path(root: &Path, series: &str, arch: Arch, subtest: &str) -> PathBuf {
    let (suite, prog) = subtest.split_once('/').unwrap_or(("", subtest));
    let file = prog.replace(" @unpriv", "@unpriv");
    root.join(format!("linux-{series}")).join(arch.name()).join(suite).join(format!("{file}.txt"))
}

/// `7.3` of `7.3.4+deb13-amd64`.
pub fn series(release: &str) -> String {
    release.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// `record` (`--set progs`): the goldens of every program of progs/.
fn run_progs(a: &RecordArgs) -> Result<(), String> {
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    if a.stamp_source && !a.check {
        return Err("--stamp-source goes with --check".into());
    }
    let (mut written, mut same, mut stamped, mut drift) = (0, 0, 0, Vec::new());
    for arch in arches {
        be.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let opts = RunOptions { arch, backend: a.backend.clone(), verbosity: 0, filters: a.filters.clone() };
        let planned = runner::plan(&opts, be.as_ref());
        let mut names = Vec::new();
        let mut reqs = Vec::new();
        for st in planned {
            if !a.filters.is_empty() && !a.filters.iter().any(|f| st.name.contains(f.as_str())) {
                continue;
            }
            match st.plan {
                Plan::Load(job) => {
                    names.push(st.name);
                    reqs.push(crate::golden::recording_request(job.request));
                }
                Plan::Skip(why) => eprintln!("{arch} {}: not recorded ({why})", st.name),
                Plan::Fail(why) => return Err(format!("{}: {why}", st.name)),
            }
        }
        eprintln!("{arch}: loading {} programs in one batch on {}", reqs.len(), be.name());
        let outs = be.load_batch(&reqs);
        let release = release_of(be.as_ref(), arch);
        for ((name, req), out) in names.iter().zip(&reqs).zip(outs) {
            let out = out.map_err(|u| format!("{arch} {name}: {}", u.0))?;
            let header = vec![
                ("program".to_string(), name.clone()),
                ("kernel".to_string(), release.clone()),
                ("arch".to_string(), arch.name().to_string()),
                ("backend".to_string(), describe_backend(be.as_ref(), arch)),
                ("recorded".to_string(), today()),
                (
                    "request".to_string(),
                    format!(
                        "prog_type {}, prog_flags {:#x}, log_level {}, {}",
                        req.prog_type.name(),
                        req.prog_flags,
                        req.log_level,
                        if req.unpriv { "unprivileged" } else { "privileged" }
                    ),
                ),
                (crate::golden::SOURCE_KEY.to_string(), crate::golden::source_hash(req)),
            ];
            let g = Golden::from_outcome(header, &out);
            let path = golden_path(&a.out, &series(&release), arch, name);
            if a.check {
                let stored = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let stored = Golden::parse(&stored).map_err(|e| format!("{}: {e}", path.display()))?;
                if comparable(&stored) == comparable(&g) {
                    same += 1;
                    if a.stamp_source && stored.source() != g.source() {
                        // the same answers from this load: the golden was
                        // recorded from it, and says so from now on
                        stamp_source(&path, g.source().unwrap_or_default())?;
                        stamped += 1;
                    }
                } else {
                    if drift.is_empty() {
                        // the first drift in full, the others by name
                        let (a, b) = (comparable(&stored).to_text(), comparable(&g).to_text());
                        eprintln!("{arch} {name}: stored (-) and now (+):\n{}", similar::TextDiff::from_lines(&a, &b).unified_diff().context_radius(3));
                    }
                    drift.push(format!("{arch} {name}: differs from {}", path.display()));
                }
            } else {
                if let Some(d) = path.parent() {
                    std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
                }
                std::fs::write(&path, g.to_text()).map_err(|e| format!("{}: {e}", path.display()))?;
                eprintln!(
                    "{arch} {name}: {} (verified_insns {}) -> {}",
                    if out.accepted { "accepted" } else { "rejected" },
                    out.verified_insns,
                    path.display()
                );
                written += 1;
            }
        }
    }
    if a.check {
        println!("{same} goldens unchanged, {} drifted", drift.len());
        if a.stamp_source {
            println!("{stamped} unchanged goldens given their source");
        }
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    } else {
        println!("{written} goldens written");
    }
    Ok(())
}

/// Writes (or replaces) the `source` header line of a stored golden,
/// leaving every other byte of it as recorded.
fn stamp_source(path: &Path, source: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let line = format!("# {}: {source}\n", crate::golden::SOURCE_KEY);
    let prefix = format!("# {}: ", crate::golden::SOURCE_KEY);
    let mut out = String::with_capacity(text.len() + line.len());
    let mut placed = false;
    let mut in_header = true;
    for l in text.split_inclusive('\n') {
        if in_header && !l.starts_with("# ") {
            if !placed {
                out.push_str(&line);
                placed = true;
            }
            in_header = false;
        }
        if in_header && l.starts_with(&prefix) {
            if !placed {
                out.push_str(&line);
                placed = true;
            }
            continue;
        }
        out.push_str(l);
    }
    std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
}

fn release_of(be: &dyn Backend, arch: Arch) -> String {
    let r = be.kernel_release();
    let suffix = match arch {
        Arch::X86_64 => "-amd64",
        Arch::Arm64 => "-arm64",
        _ => "",
    };
    if be.name() == "vm" && !r.ends_with(suffix) { format!("{r}{suffix}") } else { r }
}

fn describe_backend(be: &dyn Backend, arch: Arch) -> String {
    match be.name() {
        "vm" => {
            let cpu = crate::backend::vm::VmConfig::from_env().cpu(arch).to_string();
            format!("vm (QEMU TCG, -cpu {cpu})")
        }
        other => other.to_string(),
    }
}

/// What must not drift between two recordings: everything but the header,
/// the verification time (log level 4) and what encodes where things
/// landed in the kernel. In the JIT image those are pc-relative calls to
/// kernel functions and between subprograms (`callq 0x...`, `bl 0x...`) and
/// the addresses of maps, map values and callbacks loaded by `ld_imm64`
/// (x86_64: `movabsq`/`movq` of a kernel address; arm64: a `mov` of the top
/// 16 bits and up to three `movk`s, as many as the address has non-zero
/// 16-bit blocks, so its length varies from load to load). Because that
/// length moves every later pc and the offsets of branches across it, the
/// image is compared as its disassembly without pcs and bytes (branch
/// targets are `L<k>` labels) and its length without the address loads.
///
/// A program with `BPF_F_TEST_RND_HI32` poison (`r12 = RND` in the xlated
/// dump) carries a fresh random immediate per load in its image, and on
/// arm64 the number of instructions that load it varies with its value, so
/// its image is not compared at all.
fn comparable(g: &Golden) -> Golden {
    let random_image = g.xlated.iter().any(|l| l.ends_with(": r12 = RND"));
    let (jited_hex, jited) = if random_image {
        (Vec::new(), vec!["<image with BPF_F_TEST_RND_HI32 immediates: not compared>".to_string()])
    } else {
        let (jited, address_bytes) = mask_jited_addresses(&g.jited);
        let total: usize = g.jited_hex.iter().map(|h| h.len() / 2).sum();
        (vec![format!("{} bytes besides address loads", total - address_bytes)], jited)
    };
    Golden { header: Vec::new(), log: mask_verification_time(&g.log), jited_hex, jited, ..g.clone() }
}

/// `verification time 1206 usec` (log level 4) -> `verification time <t> usec`.
pub fn mask_verification_time(log: &str) -> String {
    log.lines()
        .map(|l| match l.strip_prefix("verification time ").and_then(|r| r.strip_suffix(" usec")) {
            Some(t) if t.bytes().all(|c| c.is_ascii_digit()) => "verification time <t> usec".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of test_loader's jited text (`pc:\tbytes \t[label:]\tmnemonic\toperands`)
/// split into its byte count and its text without pc and bytes.
fn jited_line(l: &str) -> (usize, String) {
    let Some((_, rest)) = l.split_once(":\t") else { return (0, l.to_string()) };
    let Some((bytes, text)) = rest.split_once('\t') else { return (0, rest.to_string()) };
    // a branch target's label sits at the end of the bytes column
    let label = bytes.split_whitespace().find(|t| t.ends_with(':')).map_or(String::new(), |l| format!("{l}\t"));
    (bytes.split_whitespace().filter(|t| !t.ends_with(':')).count(), format!("{label}{}", text.trim_start()))
}

/// The jited lines without pcs and bytes, with per-load kernel addresses
/// collapsed into one `<address load>` line each (see [`comparable`]), and
/// the number of bytes those address loads took.
pub fn mask_jited_addresses(jited: &[String]) -> (Vec<String>, usize) {
    let ops = |text: &str| -> (String, String) {
        let text = text.rsplit_once(":\t").map_or(text, |(label, t)| if label.starts_with('L') { t } else { text });
        let (m, o) = text.split_once('\t').unwrap_or((text, ""));
        (m.to_string(), o.to_string())
    };
    // an x86 immediate of a kernel address: 64-bit, or 32-bit sign-extended
    let x86_addr = |ops: &str| {
        let Some(imm) = ops.strip_prefix("$-0x").or_else(|| ops.strip_prefix("$0xffff")) else { return false };
        imm.bytes().take_while(u8::is_ascii_hexdigit).count() >= 8
    };
    // arm64 `emit_a64_mov_i64` of a kernel address: a `movz` or `movn` of
    // its top non-trivial 16-bit block, printed `mov xN, #-0x<h>` with the
    // value below -2^32 (`0xfff0000004d7e200` direct map, `0xffff80008377..`
    // vmalloc), then a `movk` per lower block that is not all zeros (movz)
    // or all ones (movn)
    let arm64_addr_top = |ops: &str| {
        let (reg, imm) = ops.split_once(", #-0x")?;
        (reg.starts_with('x') && imm.len() >= 9 && imm.bytes().all(|c| c.is_ascii_hexdigit())).then(|| reg.to_string())
    };
    // arm64 `emit_addr_mov_i64` (callbacks): `movn` of the low block, then
    // always `movk` at 16 and 32
    let arm64_addr_fixed = |k: usize, ops: &str| {
        let (reg, _) = ops.split_once(", #-0x")?;
        let movk = |j: usize, shift: &str| {
            jited
                .get(j)
                .map(|l| jited_line(l).1)
                .is_some_and(|t| t.strip_prefix("movk\t").is_some_and(|o| o.starts_with(&format!("{reg},")) && o.ends_with(shift)))
        };
        (reg.starts_with('x') && movk(k, "lsl #16") && movk(k + 1, "lsl #32")).then_some(2)
    };
    let (mut out, mut address_bytes) = (Vec::with_capacity(jited.len()), 0);
    let mut k = 0;
    while k < jited.len() {
        let (n, text) = jited_line(&jited[k]);
        let (mnemonic, operands) = ops(&text);
        let label = text.split_once(":\t").filter(|(l, _)| l.starts_with('L')).map(|(l, _)| format!("{l}:\t"));
        let label = label.unwrap_or_default();
        k += 1;
        if (mnemonic == "callq" || mnemonic == "bl") && operands.starts_with("0x") {
            out.push(format!("{label}<call>"));
        } else if mnemonic == "jmp" && operands.starts_with("0x") {
            // a jump out of the image (a retpoline or return thunk, a tail
            // call into another function's image; a target inside the
            // function is printed as its label): its rel32 depends on where
            // the kernel put the two images, before or after this one, as a
            // call's does
            out.push(format!("{label}<jump out>"));
        } else if (mnemonic == "movabsq" || mnemonic == "movq") && x86_addr(&operands) {
            address_bytes += n;
            out.push(format!("{label}<address load>"));
        } else if let Some(movks) = arm64_addr_fixed(k, &operands).filter(|_| mnemonic == "mov") {
            address_bytes += n + jited[k..k + movks].iter().map(|l| jited_line(l).0).sum::<usize>();
            k += movks;
            out.push(format!("{label}<address load>"));
        } else if let Some(reg) = arm64_addr_top(&operands).filter(|_| mnemonic == "mov") {
            address_bytes += n;
            while let Some(l) = jited.get(k) {
                let (n, text) = jited_line(l);
                let (m, o) = ops(&text);
                if m != "movk" || !o.starts_with(&format!("{reg},")) || text.contains(":\t") {
                    break;
                }
                address_bytes += n;
                k += 1;
            }
            out.push(format!("{label}<address load>"));
        } else {
            out.push(text);
        }
    }
    // arm64: the PLT (`ldr x10, #0x8; br x10; .quad target`) is 8-byte
    // aligned with a `nop` when needed, which depends on how long the
    // address loads before it were
    if out.iter().any(|l| l.ends_with("<address load>")) {
        let plt = |l: Option<&String>| l.is_some_and(|l| l.ends_with("ldr\tx10, #0x8"));
        let mut k = 0;
        while k < out.len() {
            if out[k] == "nop" && plt(out.get(k + 1)) {
                out.remove(k);
                address_bytes += 4;
            } else {
                k += 1;
            }
        }
    }
    (out, address_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_addresses_not_constants() {
        let lines: Vec<String> = [
            "2b:\t48 bf 00 d8 d9 05 80 88 ff ff       \tmovabsq\t$-0x777ffa262800, %rdi",
            "35:\te8 42 10 5e c1                      \tcallq\t0xffffffffc15e107c",
            "2b:\t48 c7 c6 08 07 00 c0                \tmovq\t$-0x3ffff8f8, %rsi",
            "14:\t48 c7 c0 ce ff ff ff                \tmovq\t$-0x32, %rax",
            "14:\t48 b8 89 67 45 23 01 00 00 00       \tmovabsq\t$0x123456789, %rax",
            "38:\te1 c6 94 92                         \tmov\tx1, #-0xa638",
            "3c:\t61 66 b0 f2                         \tmovk\tx1, #0x8333, lsl #16",
            "40:\t01 00 d0 f2                         \tmovk\tx1, #0x8000, lsl #32",
            "44:\te2 03 19 aa                         \tmov\tx2, #-0x1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (m, bytes) = mask_jited_addresses(&lines);
        assert_eq!(m[0], "<address load>");
        assert_eq!(m[1], "<call>");
        assert_eq!(m[2], "<address load>");
        assert_eq!(m[3], "movq\t$-0x32, %rax");
        assert_eq!(m[4], "movabsq\t$0x123456789, %rax");
        assert_eq!(m[5], "<address load>");
        assert_eq!(m[6], "mov\tx2, #-0x1");
        assert_eq!(bytes, 10 + 7 + 12);
        // an arm64 address with one zero block loads in two insns, not three
        let two = ["38:\t00 fe ff d2 \tmov\tx0, #-0x10000000000000", "3c:\t00 40 9c f2 \tmovk\tx0, #0xe200", "40:\t08 01 00 8b   L1:\tadd\tx8, x8, x0"];
        let vmalloc = ["1c:\te0 ff cf 92 \tmov\tx0, #-0x7fff00000001", "20:\te0 6e b0 f2 \tmovk\tx0, #0x8377, lsl #16", "24:\t00 00 86 f2 \tmovk\tx0, #0x3000"];
        assert_eq!(mask_jited_addresses(&vmalloc.map(String::from)), (vec!["<address load>".to_string()], 12));
        let three = [
            "38:\t00 fe ff d2 \tmov\tx0, #-0x10000000000000",
            "3c:\te0 9a a0 f2 \tmovk\tx0, #0x4d7, lsl #16",
            "40:\t00 40 9c f2 \tmovk\tx0, #0xe200",
            "44:\t08 01 00 8b   L1:\tadd\tx8, x8, x0",
        ];
        let (two, b2) = mask_jited_addresses(&two.map(String::from));
        let (three, b3) = mask_jited_addresses(&three.map(String::from));
        assert_eq!(two, three);
        assert_eq!(two, ["<address load>", "L1:\tadd\tx8, x8, x0"]);
        assert_eq!((b2, b3), (8, 12));
        // a tail call's jump into the next program's image, placed before
        // or after this one
        let jumps = ["3a:\te9 11 ff ff ff \tjmp\t0xffffffffffffff50", "3a:\te9 8d 00 00 00 \tjmp\t0xcc", "25:\teb 01 \tjmp\tL1"];
        assert_eq!(mask_jited_addresses(&jumps.map(String::from)).0, ["<jump out>", "<jump out>", "jmp\tL1"]);
        assert_eq!(mask_verification_time("a\nverification time 1206 usec\nb"), "a\nverification time <t> usec\nb");
    }
}
