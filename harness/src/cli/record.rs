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

/// What must not drift between two recordings: everything but the header
/// and what encodes where the image landed: pc-relative calls to kernel
/// functions (`callq 0x...`, `bl 0x...`) differ per load, the image lengths
/// and every other instruction must not.
///
/// A program with `BPF_F_TEST_RND_HI32` poison (`r12 = RND` in the xlated
/// dump) carries a fresh random immediate per load in its image, and on
/// arm64 the number of instructions that load it varies with its value, so
/// its image (and every pc after the poison) is not compared at all.
fn comparable(g: &Golden) -> Golden {
    let mask_call = |l: &String| match l.split_once(":\t") {
        Some((pc, _)) if l.contains("\tcallq\t0x") || l.contains("\tbl\t0x") => format!("{pc}: <call to a kernel address>"),
        _ => l.clone(),
    };
    let random_image = g.xlated.iter().any(|l| l.ends_with(": r12 = RND"));
    let (jited_hex, jited) = if random_image {
        (Vec::new(), vec!["<image with BPF_F_TEST_RND_HI32 immediates: not compared>".to_string()])
    } else {
        (g.jited_hex.iter().map(|h| format!("{} bytes", h.len() / 2)).collect(), g.jited.iter().map(mask_call).collect())
    };
    Golden { header: Vec::new(), jited_hex, jited, ..g.clone() }
}
