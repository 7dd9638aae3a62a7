//! The `bpf-selftest` command line. Every failure is one line on stderr and
//! a non-zero exit status.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod check;
pub mod conform;
pub mod conform_objects;
pub mod import;
pub mod record;
pub mod veristat;
pub mod xlated;

use crate::isa::disasm::{NoCallbacks, print_bpf_insn, xlated_text};
use crate::isa::insn::{Insn, from_hex, to_hex};
use crate::isa::{Operand, assemble_bytes_with};

#[derive(Parser)]
#[command(name = "bpf-selftest", version, about = "BPF verifier selftests against a model of Linux 7.3 or a real kernel")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the suites (progs/) with a per-suite summary like the kernel's
    /// test_progs: OK/SKIP/FAIL per subtest and per suite.
    Run {
        /// Run only subtests whose `suite/prog` name or description contains one of these.
        filters: Vec<String>,
        /// Target arch (default: BPF_SELFTEST_ARCH, else the host).
        #[arg(long)]
        arch: Option<String>,
        /// Backend: model, kernel or vm (default: BPF_SELFTEST_BACKEND, else model).
        #[arg(long)]
        backend: Option<String>,
        /// -v, -vv, -vvv as test_progs: raise the log level, print dumps.
        #[arg(short, action = clap::ArgAction::Count)]
        verbose: u8,
    },
    /// Assemble LLVM-syntax BPF asm: one 16-hex-digit word per insn slot
    /// (the 8 bytes in memory order).
    Asm {
        /// The asm file (`-` for stdin).
        file: String,
        /// Value of a `%[name]` operand: `name=NUMBER` or `name=SYMBOL`.
        #[arg(long = "imm", value_name = "NAME=VALUE")]
        imms: Vec<String>,
    },
    /// Put one program through a backend's whole pipeline and print
    /// everything it produced: verdict, errno, verifier log, xlated, jited,
    /// test-run retval.
    Check(check::CheckArgs),
    /// The program's xlated dump as ready-to-paste `#[arch]` and
    /// `#[xlated("...")]` attributes, loaded as a test loads it (same
    /// options as `check`, the runner's default flags). `--arch
    /// x86_64,arm64,riscv64` gives one block per distinct dump, arches with
    /// the same dump sharing one; map loads, kernel addresses and random
    /// poison match anything.
    Xlated(check::CheckArgs),
    /// The kernel's veristat on BPF objects: every program loaded on its
    /// own, with its verdict, verification time, processed insns, total
    /// and peak states; `--backend A,B` puts two backends side by side
    /// with their differences, as `veristat -C` does.
    Veristat(veristat::VeristatArgs),
    /// Import kernel selftest sources (progs/*.c) as annotated Rust modules,
    /// reporting per program what could not be expressed.
    Import(import::ImportArgs),
    /// Record goldens (expected/linux-7.3/<arch>/<suite>/<prog>.txt) for
    /// every program of progs/ from a real kernel; --check compares instead.
    Record(record::RecordArgs),
    /// The model against the goldens of progs/ (what 7.3 did), section by
    /// section: a table per arch and the first mismatches not listed in
    /// expected/KNOWN_DIVERGENCES. With --kernel-selftests: the kernel's
    /// own verifier_*.c, imported from the 7.3 source and run through
    /// --backend, with pass rates per suite. With --objects: every
    /// program of every object of the 7.3 selftests (progs/*.c) on 7.3
    /// under QEMU and through the model, compared.
    Conform {
        /// Arches, comma-separated.
        #[arg(long, default_value = "x86_64,arm64")]
        arch: String,
        /// Where goldens live.
        #[arg(long, default_value = "expected")]
        expected: std::path::PathBuf,
        /// How many unexplained mismatches to print.
        #[arg(long, default_value_t = 20)]
        show: usize,
        #[command(flatten)]
        kernel: conform::KernelSelftestArgs,
        #[command(flatten)]
        objects: conform_objects::ObjectsArgs,
    },
    /// Benchmarks: the model and the running kernel side by side (medians;
    /// model/kernel ratios).
    Bench {
        /// Run only cases whose name contains one of these.
        filters: Vec<String>,
        /// One JSON object per line per case.
        #[arg(long)]
        json: bool,
        /// Repetitions per case (the median is reported).
        #[arg(long, default_value_t = 5)]
        reps: usize,
        /// Also load each verification case once on Linux 7.3 under QEMU
        /// (the vm backend, the host's arch) for its processed insns.
        #[arg(long)]
        vm: bool,
    },
    /// Soundness against a real kernel: random programs through the model
    /// and a kernel backend; fails if the model accepts one the kernel
    /// rejects, and counts every other disagreement by category.
    Soundness {
        /// How many programs.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Target arch (default: the host).
        #[arg(long)]
        arch: Option<String>,
        /// The real kernel: vm (7.3 under QEMU) or kernel (the running one).
        #[arg(long, default_value = "vm")]
        backend: String,
        /// How many disagreements to print in full (asm and both answers).
        #[arg(long, default_value_t = 5)]
        show: usize,
    },
    /// Print the kernel's disasm.c text of instruction words (as `asm` prints
    /// them; whitespace and commas between words are ignored).
    Disasm {
        /// A file of words (`-` or nothing for stdin).
        file: Option<String>,
        /// test_loader's xlated form (`N: text`, no opcode, calls cut at `#`)
        /// instead of the verifier log's (`N: (xx) text`).
        #[arg(long)]
        xlated: bool,
    },
}

/// Runs the CLI with the process arguments.
pub fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a print into a closed pipe (`check big.s |
    // head`) would panic; a command-line tool ends quietly there instead
    // SAFETY: at the start of main, before any thread or handler exists
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let res = match cli.cmd {
        Cmd::Asm { file, imms } => cmd_asm(&file, &imms),
        Cmd::Disasm { file, xlated } => cmd_disasm(file.as_deref(), xlated),
        Cmd::Check(a) => check::run(&a),
        Cmd::Soundness { count, seed, arch, backend, show } => cmd_soundness(count, seed, arch, &backend, show),
        Cmd::Xlated(a) => xlated::run(&a),
        Cmd::Veristat(a) => veristat::run(&a),
        Cmd::Import(a) => import::run(&a),
        Cmd::Record(a) => record::run(&a),
        Cmd::Bench { filters, json, reps, vm } => cmd_bench(&filters, json, reps, vm),
        Cmd::Conform { arch, kernel, objects, show, .. } if objects.objects => {
            conform_objects::run(&arch, &objects, &kernel.filters, kernel.tree.as_deref(), show, kernel.verbose > 0)
        }
        Cmd::Conform { arch, kernel, .. } if kernel.kernel_selftests => conform::run(&arch, &kernel),
        Cmd::Conform { arch, expected, show, .. } => cmd_conform(&arch, &expected, show),
        Cmd::Run { filters, arch, backend, verbose } => cmd_run(filters, arch, backend, verbose),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bpf-selftest: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn cmd_run(filters: Vec<String>, arch: Option<String>, backend: Option<String>, verbose: u8) -> Result<(), String> {
    let mut opts = crate::runner::RunOptions::from_env()?;
    if let Some(a) = arch {
        opts.arch = a.parse()?;
    }
    if let Some(b) = backend {
        crate::backend::by_name(&b)?;
        opts.backend = b;
    }
    opts.verbosity = opts.verbosity.max(verbose.min(3));
    opts.filters = filters;
    if crate::runner::run_summary(&opts) { Ok(()) } else { Err("some subtests failed".into()) }
}

fn cmd_conform(arches: &str, expected: &std::path::Path, show: usize) -> Result<(), String> {
    use crate::conform::{KnownDivergences, Report, against_goldens};
    let known = KnownDivergences::load(&expected.join("KNOWN_DIVERGENCES"))?;
    let replay = crate::backend::replay::ReplayBackend::new(expected.to_path_buf());
    let model = crate::backend::by_name("model")?;
    let mut report = Report::default();
    for a in arches.split(',') {
        let arch: crate::target::Arch = a.trim().parse()?;
        against_goldens(model.as_ref(), &replay, arch, &known, &mut report);
    }
    print!("{}", report.render(show));
    match report.unexplained().count() {
        0 => Ok(()),
        n => Err(format!("{n} mismatches are not in KNOWN_DIVERGENCES")),
    }
}

fn cmd_soundness(count: usize, seed: u64, arch: Option<String>, backend: &str, show: usize) -> Result<(), String> {
    let arch = match arch {
        Some(a) => a.parse()?,
        None => crate::target::Arch::host().ok_or("the host arch is not a BPF target")?,
    };
    let be = crate::backend::by_name(backend)?;
    eprintln!("soundness: {count} random programs (seed {seed}) on {arch}, model against {backend}");
    let report = crate::soundness::run(be.as_ref(), arch, seed, count)?;
    print!("{}", report.table());
    for f in report
        .findings
        .iter()
        .filter(|f| f.category == crate::soundness::Category::Unsound)
        .chain(report.findings.iter().filter(|f| f.category != crate::soundness::Category::Unsound))
        .take(show)
    {
        let model = match &f.model {
            crate::soundness::ModelVerdict::Rejected { errno, .. } => format!("rejected, errno {errno}"),
            other => format!("{other:?}"),
        };
        println!("\n--- {} ({}{}): model {model}", f.name, f.category.name(), if f.unpriv { ", unpriv" } else { "" });
        println!("kernel: errno {}: {}", f.kernel_errno, f.kernel_log_tail);
        if let Some((m, k)) = &f.first_log_difference {
            println!("first log difference:\n  model:  {m}\n  kernel: {k}");
        }
        println!("{}", f.asm);
    }
    match report.unsound() {
        0 => Ok(()),
        n => Err(format!("{n} programs the model accepts and {backend} rejects")),
    }
}

fn cmd_bench(filters: &[String], json: bool, reps: usize, vm: bool) -> Result<(), String> {
    let arch = crate::target::Arch::host().ok_or("the host arch is not a BPF target")?;
    let model = crate::backend::by_name("model")?;
    let kernel = crate::backend::by_name("kernel")?;
    // without bpf(2) the kernel's side has no numbers (each case says why)
    if let Err(u) = kernel.probe(arch) {
        let line = crate::require::missing(crate::require::Component::Bpf, &format!("bench: the kernel's side: {}", u.0))?;
        eprintln!("{line}");
    }
    let linux_7_3 = if vm { Some(crate::backend::by_name("vm")?) } else { None };
    let mut rows = Vec::new();
    let selected = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let mut cases = crate::bench::cases_selected(arch, selected)?;
    match crate::bench::object_cases(arch, selected) {
        Ok(c) => cases.extend(c),
        Err((Some(component), why)) => eprintln!("bench: {}", crate::require::missing(component, &why)?),
        Err((None, why)) => return Err(format!("bench: {why}")),
    }
    for case in cases {
        // the 1M-insn program takes seconds per load in the kernel
        let n = if case.request.prog.insns.len() > 500_000 { reps.min(3) } else { reps };
        eprintln!("bench: {} ({} insns, {n} reps)", case.name, case.request.prog.insns.len());
        let mut m = crate::bench::measure(model.as_ref(), &case, n);
        if case.kind == crate::bench::Kind::Verify {
            match crate::bench::measure_model_verifier(&case, n) {
                Ok((ms, processed)) => {
                    m.verifier_ms = Some(ms);
                    m.processed = m.processed.or(Some(processed));
                }
                Err(why) => eprintln!("  model verifier: {why}"),
            }
        }
        let k = crate::bench::measure(kernel.as_ref(), &case, n);
        let v = linux_7_3.as_ref().filter(|_| case.kind == crate::bench::Kind::Verify).map(|be| crate::bench::measure(be.as_ref(), &case, 1));
        for (side, s) in [("model", Some(&m)), ("kernel", Some(&k)), ("7.3", v.as_ref())] {
            if let Some(why) = s.and_then(|s| s.unavailable.as_ref()) {
                eprintln!("  {side}: {why}");
            }
        }
        let row = crate::bench::Row { case, model: m, kernel: k, linux_7_3: v };
        if json {
            println!("{}", crate::bench::json_line(&row));
        }
        rows.push(row);
    }
    if !json && !rows.is_empty() {
        print!("{}", crate::bench::table(&rows));
    }
    if filters.is_empty() || filters.iter().any(|f| "suite_throughput".contains(f.as_str())) {
        eprintln!("bench: suite throughput (progs/, 2 threads)");
        let (reqs, plan_ms) = crate::bench::suite_requests(arch);
        let mut rows = vec![crate::bench::suite_throughput(model.as_ref(), &reqs, plan_ms, 2)];
        if kernel.probe(arch).is_ok() {
            // the same requests: the kernel side does not assemble
            rows.push(crate::bench::suite_throughput(kernel.as_ref(), &reqs, 0.0, 2));
        }
        if json {
            for r in &rows {
                println!("{}", crate::bench::suite_throughput_json(r));
            }
        } else {
            print!("\n{}", crate::bench::suite_throughput_table(&rows));
        }
    }
    let mmap_rows = crate::bench::arraymap_mmap(selected);
    if !mmap_rows.is_empty() {
        eprintln!("bench: arraymap_mmap");
        for r in &mmap_rows {
            for (side, res) in [("model", &r.model_ns), ("kernel", &r.kernel_ns)] {
                if let Err(why) = res {
                    eprintln!("  {}: {side}: {why}", r.case);
                }
            }
        }
        if json {
            mmap_rows.iter().for_each(|r| println!("{}", crate::bench::arraymap_mmap_json(r)));
        } else {
            print!("\n{}", crate::bench::arraymap_mmap_table(&mmap_rows));
        }
    }
    if filters.is_empty() || filters.iter().any(|f| "fixups_engine".contains(f.as_str()) || f.contains("fixups")) {
        eprintln!("bench: fixups engine");
        let rows = crate::bench::fixups_engine(reps)?;
        if json {
            crate::bench::fixups_engine_json(&rows).iter().for_each(|r| println!("{r}"));
        } else {
            print!("{}", crate::bench::fixups_engine_table(&rows));
        }
    }
    Ok(())
}

pub(crate) fn read_input(file: Option<&str>) -> Result<String, String> {
    match file {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| format!("reading stdin: {e}"))?;
            Ok(s)
        }
        Some(f) => std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}")),
    }
}

/// Asm input as bytes: the assembler takes any bytes inside comments, as
/// llvm-mc does, and names the line and column of one elsewhere.
pub(crate) fn read_asm_input(file: &str) -> Result<Vec<u8>, String> {
    match file {
        "-" => {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map_err(|e| format!("reading stdin: {e}"))?;
            Ok(b)
        }
        f => std::fs::read(f).map_err(|e| format!("{f}: {e}")),
    }
}

/// `name=VALUE` pairs of `--imm`: numbers (decimal or 0x hex) or symbols.
pub fn parse_imms(imms: &[String]) -> Result<Vec<(String, Operand)>, String> {
    imms.iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("--imm '{kv}': expected NAME=VALUE"))?;
            let num = if let Some(h) = v.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok().map(|x| x as i64)
            } else if let Some(h) = v.strip_prefix("-0x") {
                i64::from_str_radix(h, 16).ok().map(|x| -x)
            } else {
                v.parse::<i64>().ok()
            };
            Ok((k.to_string(), num.map_or_else(|| Operand::Sym(v.to_string()), Operand::Imm)))
        })
        .collect()
}

fn cmd_asm(file: &str, imms: &[String]) -> Result<(), String> {
    let src = read_asm_input(file)?;
    let imms = parse_imms(imms)?;
    let ops = |name: &str| imms.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let prog = assemble_bytes_with(&src, &ops).map_err(|e| format!("{file}:{e}"))?;
    drop(src);
    let mut out = String::new();
    for i in &prog.insns {
        out.push_str(&to_hex(*i));
        out.push('\n');
    }
    print!("{out}");
    for r in &prog.relocs {
        let symbol = crate::isa::asm::clip(&r.symbol);
        eprintln!("note: slot {}: '{symbol}' is resolved when the program is linked ({:?})", r.insn, r.kind);
    }
    Ok(())
}

fn cmd_disasm(file: Option<&str>, xlated: bool) -> Result<(), String> {
    let text = read_input(file)?;
    let mut insns = Vec::new();
    for (n, word) in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).enumerate() {
        let insn: Insn = from_hex(word).ok_or_else(|| format!("word {}: '{word}' is not 16 hex digits", n + 1))?;
        insns.push(insn);
    }
    let mut i = 0;
    let mut out = String::new();
    while i < insns.len() {
        let next = insns.get(i + 1);
        if insns[i].is_ld_imm64() && next.is_none() {
            return Err(format!("slot {i}: ld_imm64 without its second slot"));
        }
        let t = if xlated { xlated_text(&insns[i], next) } else { print_bpf_insn(&NoCallbacks, &insns[i], next, true) };
        out.push_str(&format!("{i}: {t}\n"));
        i += if insns[i].is_ld_imm64() { 2 } else { 1 };
    }
    print!("{out}");
    Ok(())
}
