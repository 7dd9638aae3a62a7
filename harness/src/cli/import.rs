//! `bpf-selftest import FILE.c... [--arch A] [-o DIR]`: the kernel's
//! selftest sources as annotated Rust modules, with a per-program report
//! of what could not be expressed.

use std::path::PathBuf;

use clap::Args;

use crate::import::{self, ImportOptions, ImportedFile};
use crate::target::Arch;

#[derive(Args)]
pub struct ImportArgs {
    /// Kernel selftest sources (`tools/testing/selftests/bpf/progs/*.c`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The arch to resolve `#ifdef`s and compute values for (default:
    /// BPF_SELFTEST_ARCH, else the host).
    #[arg(long)]
    pub arch: Option<String>,
    /// Write `<DIR>/<file stem>.rs` per source (default: the modules to
    /// stdout). The report goes to stdout with -o, else to stderr.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The kernel tree for the headers (default: the one the file is in,
    /// else the linux-7.3 that `scripts/setup-vm.sh --source` fetched).
    #[arg(long, value_name = "DIR")]
    pub tree: Option<PathBuf>,
}

/// `--arch`, else `BPF_SELFTEST_ARCH`, else the host.
pub fn arch_arg(a: Option<&str>) -> Result<Arch, String> {
    match a {
        Some(a) => a.parse(),
        None => match std::env::var("BPF_SELFTEST_ARCH") {
            Ok(a) if !a.is_empty() => a.parse().map_err(|e| format!("BPF_SELFTEST_ARCH: {e}")),
            _ => Arch::host().ok_or_else(|| format!("the host arch '{}' is not a BPF target: give --arch", std::env::consts::ARCH)),
        },
    }
}

/// The report of one file: a summary line, then each program that is not
/// imported with its reasons.
pub fn report(f: &ImportedFile) -> String {
    let mut s = format!(
        "{} ({}): {} programs, {} imported, {} not imported; {} maps, {} globals, {} subprogs\n",
        f.source.display(),
        f.arch,
        f.programs.len(),
        f.runnable(),
        f.programs.len() - f.runnable(),
        f.maps.len(),
        f.globals.len(),
        f.subprogs.len()
    );
    for p in f.programs.iter().filter(|p| !p.runnable()) {
        let why: Vec<String> = p.blocked.iter().map(|b| b.to_string()).collect();
        s.push_str(&format!("  {}: {}\n", p.name, why.join("; ")));
    }
    for p in f.programs.iter().filter(|p| p.runnable()) {
        if let Some(o) = &p.object {
            s.push_str(&format!("  {}: note: written in C, loaded from {}\n", p.name, o.display()));
        }
        if let Some(a) = &p.body {
            for n in &a.notes {
                s.push_str(&format!("  {}: note: {n}\n", p.name));
            }
        }
    }
    s
}

pub fn run(a: &ImportArgs) -> Result<(), String> {
    let arch = arch_arg(a.arch.as_deref())?;
    let opts = ImportOptions { arch, tree: a.tree.clone().map(import::cpp::KernelTree::new) };
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut failed = 0;
    for (path, res) in import::import_files(&a.files, &opts) {
        let f = match res {
            Ok(f) => f,
            Err(e) => {
                eprintln!("bpf-selftest: {}: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let module = import::rust::render(&f);
        match &a.out {
            Some(dir) => {
                let p = dir.join(format!("{}.rs", f.suite));
                std::fs::write(&p, module).map_err(|e| format!("{}: {e}", p.display()))?;
                print!("{}", report(&f));
            }
            None => {
                print!("{module}");
                eprint!("{}", report(&f));
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} files could not be imported", a.files.len())) } else { Ok(()) }
}
