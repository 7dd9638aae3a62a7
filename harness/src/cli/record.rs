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
}

/// `YYYY-MM-DD` of now, UTC.
fn today() -> String {
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

pub fn run(a: &RecordArgs) -> Result<(), String> {
    let be = backend::by_name(&a.backend)?;
    if be.name() == "model" {
        return Err("goldens come from a real kernel: --backend vm or kernel".into());
    }
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let (mut written, mut same, mut drift) = (0, 0, Vec::new());
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
                    let mut req = job.request;
                    // the log at the spec's level; level 2 when it has none
                    if req.log_level & 3 == 0 {
                        req.log_level |= 2;
                    }
                    req.want_jited = arch.has_jit();
                    names.push(st.name);
                    reqs.push(req);
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
            ];
            let g = Golden::from_outcome(header, &out);
            let path = golden_path(&a.out, &series(&release), arch, name);
            if a.check {
                let stored = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let stored = Golden::parse(&stored).map_err(|e| format!("{}: {e}", path.display()))?;
                if comparable(&stored) == comparable(&g) {
                    same += 1;
                } else {
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
        if !drift.is_empty() {
            return Err(drift.join("\n"));
        }
    } else {
        println!("{written} goldens written");
    }
    Ok(())
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
/// (x86_64: `movabsq`/`movq` of a kernel address; arm64: the `mov` of a
/// negative value and its two `movk`s). The image lengths and every other
/// instruction must not drift.
///
/// A program with `BPF_F_TEST_RND_HI32` poison (`r12 = RND` in the xlated
/// dump) carries a fresh random immediate per load in its image, and on
/// arm64 the number of instructions that load it varies with its value, so
/// its image (and every pc after the poison) is not compared at all.
fn comparable(g: &Golden) -> Golden {
    let random_image = g.xlated.iter().any(|l| l.ends_with(": r12 = RND"));
    let (jited_hex, jited) = if random_image {
        (Vec::new(), vec!["<image with BPF_F_TEST_RND_HI32 immediates: not compared>".to_string()])
    } else {
        (g.jited_hex.iter().map(|h| format!("{} bytes", h.len() / 2)).collect(), mask_jited_addresses(&g.jited))
    };
    Golden { header: Vec::new(), log: mask_verification_time(&g.log), jited_hex, jited, ..g.clone() }
}

/// `verification time 1206 usec` (log level 4) -> `verification time <t> usec`.
fn mask_verification_time(log: &str) -> String {
    log.lines()
        .map(|l| match l.strip_prefix("verification time ").and_then(|r| r.strip_suffix(" usec")) {
            Some(t) if t.bytes().all(|c| c.is_ascii_digit()) => "verification time <t> usec".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The jited lines with per-load kernel addresses replaced (see
/// [`comparable`]).
fn mask_jited_addresses(jited: &[String]) -> Vec<String> {
    let text = |l: &str| l.rsplit_once('\t').map(|(a, b)| (a.rsplit('\t').next().unwrap_or(a).to_string(), b.to_string()));
    let pc = |l: &str| l.split_once(":\t").map_or(String::new(), |(p, _)| p.to_string());
    // an x86 immediate of a kernel address: 64-bit, or 32-bit sign-extended
    let x86_addr = |ops: &str| {
        let Some(imm) = ops.strip_prefix("$-0x").or_else(|| ops.strip_prefix("$0xffff")) else { return false };
        imm.bytes().take_while(u8::is_ascii_hexdigit).count() >= 8
    };
    let mut out: Vec<String> = Vec::with_capacity(jited.len());
    let mut k = 0;
    while k < jited.len() {
        let l = &jited[k];
        let (mnemonic, ops) = text(l).unwrap_or_default();
        if (mnemonic == "callq" || mnemonic == "bl") && ops.starts_with("0x") {
            out.push(format!("{}: <call>", pc(l)));
        } else if (mnemonic == "movabsq" || mnemonic == "movq") && x86_addr(&ops) {
            out.push(format!("{}: <address load>", pc(l)));
        } else if mnemonic == "mov" && ops.contains(", #-0x") {
            // arm64: mov xN, #-...; movk xN, ..; movk xN, ..
            let reg = ops.split(',').next().unwrap_or("").to_string();
            let movk = |j: usize| {
                jited.get(j).and_then(|l| text(l)).is_some_and(|(m, o)| m == "movk" && o.starts_with(&format!("{reg},")))
            };
            if movk(k + 1) && movk(k + 2) {
                out.extend(jited[k..k + 3].iter().map(|l| format!("{}: <address load>", pc(l))));
                k += 3;
                continue;
            }
            out.push(l.clone());
        } else {
            out.push(l.clone());
        }
        k += 1;
    }
    out
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
        let m = mask_jited_addresses(&lines);
        assert_eq!(m[0], "2b: <address load>");
        assert_eq!(m[1], "35: <call>");
        assert_eq!(m[2], "2b: <address load>");
        assert_eq!(m[3], lines[3]);
        assert_eq!(m[4], lines[4]);
        assert_eq!(&m[5..8], ["38: <address load>", "3c: <address load>", "40: <address load>"]);
        assert_eq!(m[8], lines[8]);
        assert_eq!(mask_verification_time("a\nverification time 1206 usec\nb"), "a\nverification time <t> usec\nb");
    }
}
