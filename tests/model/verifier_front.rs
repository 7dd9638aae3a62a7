//! The verifier's front end against Linux 7.3: every program of
//! `expected/linux-7.3/<arch>/verifier-front` (recorded by `bpf-selftest
//! record --set verifier-front`, format in
//! `bpf_selftest::recorded::verifier_front`: malformed insns, bad jumps, subprogram
//! layout, capabilities, log buffer sizes, and programs that get past the
//! front end) is loaded into the model, which must give what the kernel gave:
//!
//! * when the kernel decided before its main pass (no insn processed): the
//!   same verdict, errno, log text, `log_true_size` and `verified_insns`;
//! * when the main pass rejected it: the same verdict, errno and log;
//! * when the main pass accepted it: the model's log up to its fixups (not
//!   modelled yet) is the kernel's but for the closing statistics, with
//!   the same `verified_insns`;
//! * or the model's main pass stops at something it does not model yet,
//!   with a log that is exactly the start of the kernel's.
//!
//! Kernel addresses and level 4's verification time are the only things
//! normalised. The same cases also go through the model backend from a
//! `LoadRequest`, as the runner would load them.

use std::fs;
use std::path::{Path, PathBuf};

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::{Backend, LoadRequest};
use bpf_selftest::isa::Insn;
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::recorded::verifier_front::{self, KernelAnswer};
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::env::{Caps, FuncInfo, VerifierInput};
use bpf_selftest::{load::bpf_check, verifier::Verdict};

fn goldens(arch: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/linux-7.3").join(arch).join("verifier-front");
    let mut v: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

/// Kernel pointers (16 hex digits: `0xffff888005e7c800`) and the
/// verification time.
fn normalize(log: &str) -> String {
    let mut out = String::with_capacity(log.len());
    let b = log.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let ptr = b[i..].starts_with(b"0x")
            && b.len() >= i + 18
            && b[i + 2..i + 18].iter().all(u8::is_ascii_hexdigit)
            && b.get(i + 18).is_none_or(|c| !c.is_ascii_hexdigit());
        if ptr {
            out.push_str("0xPTR");
            i += 18;
            continue;
        }
        if b[i..].starts_with(b"verification time ") {
            let mut j = i + 18;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            out.push_str("verification time N");
            i = j;
            continue;
        }
        let c = log[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The kernel's "verification time N usec", if the log shows it.
fn verification_time(log: &str) -> Option<u64> {
    let rest = &log[log.find("verification time ")? + 18..];
    rest.split(' ').next()?.parse().ok()
}

/// Whether the kernel decided before its main pass: rejected with no insn
/// processed.
fn decided_in_front(k: &KernelAnswer) -> bool {
    !k.accepted && !k.log.lines().any(|l| l.strip_prefix("processed ").is_some_and(|r| !r.starts_with("0 ")))
}

struct Case {
    name: String,
    input: VerifierInput,
    kernel: KernelAnswer,
    /// The same load as a runner request.
    request: LoadRequest,
}

/// A golden file as the library reads it, and the model's input for it:
/// what the model backend makes of the same request (maps at fds 4 and
/// up, the program BTF made before an unprivileged run drops its
/// capabilities), with the kernel's verification time.
fn case_of(path: &Path, arch: Arch) -> Case {
    let g = verifier_front::parse(&fs::read_to_string(path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let request = g.request(arch).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut input = ModelBackend::verifier_input(&request).unwrap_or_else(|u| panic!("{}: {}", path.display(), u.0));
    input.verification_time_usec = verification_time(&g.kernel.log);
    Case { name: g.name, input, kernel: g.kernel, request }
}

/// First differing line, for reports.
fn first_diff(want: &str, got: &str) -> String {
    for (n, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        if a != b {
            return format!("line {}:\n  kernel: {a:?}\n  model:  {b:?}", n + 1);
        }
    }
    format!("lengths differ: kernel {} lines, model {} lines", want.lines().count(), got.lines().count())
}

/// Where a case ended in the model.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ended {
    /// Decided by the front end, as the kernel did.
    Front,
    /// Rejected by the main pass, as the kernel did.
    MainPass,
    /// Accepted by the main pass; the fixups are not modelled.
    Fixups,
    /// The main pass met something it does not model yet.
    Unsupported,
}

/// Checks one case against the kernel.
fn check(c: &Case) -> Result<Ended, String> {
    let k = &c.kernel;
    let klog = normalize(&k.log);
    let front = decided_in_front(k);
    match bpf_check(&c.input) {
        Verdict::Decided(d) => {
            if (d.accepted, d.errno) != (k.accepted, k.errno) {
                return Err(format!("verdict: kernel {:?}, model {:?}\n{}", (k.accepted, k.errno), (d.accepted, d.errno), d.log));
            }
            // the recordings give 0 for a rejected load; the log's
            // "processed" line, compared below, says what was verified
            if front && d.verified_insns != k.verified_insns {
                return Err(format!("verified_insns: kernel {}, model {}", k.verified_insns, d.verified_insns));
            }
            let mlog = normalize(&d.log);
            if mlog != klog {
                return Err(format!("log differs: {}", first_diff(&klog, &mlog)));
            }
            if d.log_true_size != k.log_true_size {
                // a cut-off level-4 log hides how many digits the kernel's time had
                let time_hidden = c.input.log_level & 4 != 0 && c.input.verification_time_usec.is_none();
                if !(time_hidden && d.log_true_size.abs_diff(k.log_true_size) < 8) {
                    return Err(format!("log_true_size: kernel {}, model {}", k.log_true_size, d.log_true_size));
                }
            }
            let out = ModelBackend.load(&c.request).map_err(|u| format!("backend: {}", u.0))?;
            if (out.accepted, out.errno, normalize(&out.log)) != (d.accepted, d.errno, mlog) {
                return Err(format!("backend differs from bpf_check: errno {} log:\n{}", out.errno, out.log));
            }
            Ok(if front { Ended::Front } else { Ended::MainPass })
        }
        Verdict::NotModelled { phase, what, log_so_far, verified_insns } => {
            if front {
                return Err(format!("kernel decided in the front end (errno {}), model stopped at {phase}: {what}", k.errno));
            }
            let mut mlog = normalize(&log_so_far);
            if phase == "do_check_main" {
                // the line of the insn the model stopped at is unfinished
                let keep = mlog.trim_end_matches('\n').rfind('\n').map_or(0, |p| p + 1);
                mlog.truncate(keep);
            }
            if !klog.starts_with(&mlog) {
                return Err(format!("log differs: {}", first_diff(&klog, &mlog)));
            }
            let ended = match phase {
                "do_check_main" => Ended::Unsupported,
                "fixups" => {
                    if !k.accepted {
                        return Err(format!("model accepted, kernel rejected with errno {}", k.errno));
                    }
                    if verified_insns != k.verified_insns {
                        return Err(format!("verified_insns: kernel {}, model {verified_insns}", k.verified_insns));
                    }
                    // what follows the main pass's log: the statistics
                    let rest = &klog[mlog.len()..];
                    if !rest
                        .lines()
                        .all(|l| l.starts_with("processed ") || l.starts_with("verification time") || l.starts_with("stack depth") || l.starts_with("subprog "))
                    {
                        return Err(format!("the kernel's log goes on after the main pass:\n{rest}"));
                    }
                    Ended::Fixups
                }
                _ => return Err(format!("not modelled: {phase}: {what}")),
            };
            match ModelBackend.load(&c.request) {
                Err(u) if u.0 == format!("model: {phase}: {what}") => {}
                other => return Err(format!("backend: expected {phase} to be unavailable, got {other:?}")),
            }
            Ok(ended)
        }
    }
}

fn run_arch(arch_dir: &str, arch: Arch) {
    let paths = goldens(arch_dir);
    assert!(!paths.is_empty(), "no goldens for {arch_dir}");
    let mut ended = std::collections::BTreeMap::new();
    let mut fails = Vec::new();
    for p in &paths {
        let c = case_of(p, arch);
        match check(&c) {
            Ok(e) => *ended.entry(format!("{e:?}")).or_insert(0) += 1,
            Err(e) => fails.push(format!("{}: {e}", c.name)),
        }
    }
    eprintln!("{arch_dir}: {} goldens: {ended:?}, {} failing", paths.len(), fails.len());
    assert!(fails.is_empty(), "{} of {} cases differ from Linux 7.3:\n\n{}", fails.len(), paths.len(), fails.join("\n\n"));
}

#[test]
fn x86_64_goldens() {
    run_arch("x86_64", Arch::X86_64);
}

#[test]
fn arm64_goldens() {
    if goldens_exist("arm64") {
        run_arch("arm64", Arch::Arm64);
    }
}

fn goldens_exist(arch: &str) -> bool {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/linux-7.3").join(arch).join("verifier-front").is_dir()
}

/// Garbage never panics the front end and always gets a verdict or a
/// named phase: random slots, every opcode with random fields, huge and
/// empty programs.
#[test]
fn no_panic_on_garbage() {
    // BPF_FRONT_FUZZ_ROUNDS=1000000 for a long run
    let rounds: u64 = std::env::var("BPF_FRONT_FUZZ_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(4000);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..rounds * 3 / 4 {
        let n = 1 + (next() % 24) as usize;
        let insns: Vec<Insn> = (0..n)
            .map(|_| {
                let v = next();
                let mut i = Insn::from_u64(v);
                // keep jumps near so that more programs get past check_subprogs
                if round % 2 == 0 {
                    i.off %= 8;
                    i.imm %= 8;
                }
                i
            })
            .collect();
        for (level, unpriv) in [(2, false), (1, true), (4, false)] {
            let mut input = VerifierInput::new(insns.clone(), ProgType(1 + (round % 32) as u32), Arch::X86_64);
            input.log_level = level;
            input.log_size = 1 << 16;
            if unpriv {
                input.caps = Caps::NONE;
            }
            input.func_info = Some(vec![FuncInfo { insn_off: 0, type_id: 0, name: "g".into(), global: true, nargs: 0 }]);
            let _ = bpf_check(&input);
        }
    }
    // structured programs: stack traffic through frame-pointer copies,
    // branches both ways, bpf-to-bpf calls and callback references, so that
    // most get through to liveness
    let mut reached_main_pass = 0;
    for round in 0..rounds {
        // 1-4 subprograms of 2-12 insns; jumps stay in their subprogram
        let segs: Vec<usize> = (0..1 + next() % 4).map(|_| 2 + (next() % 11) as usize).collect();
        let seg_starts: Vec<usize> = segs
            .iter()
            .scan(0, |a, &l| {
                let s = *a;
                *a += l;
                Some(s)
            })
            .collect();
        let mut insns = Vec::new();
        for (k, &len) in segs.iter().enumerate() {
            let base = seg_starts[k];
            while insns.len() < base + len - 1 {
                let at = insns.len();
                let r = (next() % 10) as u8;
                let q = (next() % 10) as u8;
                let off = -8 * (1 + (next() % 6) as i16);
                let local = (base + (next() % len as u64) as usize) as i32 - at as i32 - 1;
                let callee = seg_starts[(next() % segs.len() as u64) as usize] as i32 - at as i32 - 1;
                let insn = match next() % 12 {
                    0 => Insn::new(0xb7, r, 0, 0, (next() % 7) as i32 - 3),
                    1 => Insn::new(0xbf, r, 10, 0, 0),
                    2 => Insn::new(0x07, r, 0, 0, off as i32),
                    3 => Insn::new(0x7b, if next() % 2 == 0 { 10 } else { r }, q, off, 0),
                    4 => Insn::new(0x79, r, if next() % 2 == 0 { 10 } else { q }, off, 0),
                    5 => Insn::new(0x7a, 10, 0, off, 1),
                    6 => Insn::new(0x15 | if next() % 2 == 0 { 0x08 } else { 0 }, r, q * (next() % 2) as u8, local as i16, 1),
                    7 => Insn::new(0x85, 0, 1, 0, callee),
                    8 => Insn::new(0xc3, 10, q, off, 0x01),
                    9 => Insn::new(0x05, 0, 0, local as i16, 0),
                    10 => Insn::new(0x0f, r, q, 0, 0),
                    _ if at + 2 < base + len => {
                        insns.push(Insn::new(0x18, r, 4, 0, callee));
                        Insn::new(0, 0, 0, 0, 0)
                    }
                    _ => Insn::new(0xbc, r, q, 0, 0),
                };
                insns.push(insn);
            }
            insns.push(Insn::new(0x95, 0, 0, 0, 0));
        }
        let mut starts = vec![0u32];
        for (i, x) in insns.iter().enumerate() {
            let t = i as i64 + x.imm as i64 + 1;
            if (x.is_pseudo_call() || (x.is_ld_imm64() && x.src == 4)) && (0..insns.len() as i64).contains(&t) {
                starts.push(t as u32);
            }
        }
        starts.sort_unstable();
        starts.dedup();
        let mut input = VerifierInput::new(insns, ProgType(1), if round % 2 == 0 { Arch::X86_64 } else { Arch::Arm64 });
        input.log_level = [1, 2, 4, 9][(round % 4) as usize];
        input.log_size = [64, 1 << 20][(round % 3 == 0) as usize];
        input.func_info = Some(starts.iter().map(|&s| FuncInfo { insn_off: s, type_id: 0, name: format!("f{s}"), global: s == 0, nargs: 0 }).collect());
        match bpf_check(&input) {
            Verdict::NotModelled { phase: "do_check_main" | "fixups", .. } => reached_main_pass += 1,
            Verdict::Decided(d) if d.verified_insns > 0 => reached_main_pass += 1,
            _ => {}
        }
    }
    eprintln!("{reached_main_pass} of {rounds} structured programs got through the front end");
    assert!(reached_main_pass * 20 > rounds, "the generator should exercise the later phases ({reached_main_pass})");
    // empty and oversized programs are refused before the verifier
    for n in [0usize, 1_000_001] {
        let input = VerifierInput::new(vec![Insn::new(0xb7, 0, 0, 0, 0); n], ProgType(1), Arch::X86_64);
        match bpf_check(&input) {
            Verdict::Decided(d) => assert_eq!(d.errno, 7, "E2BIG for {n} insns"),
            v => panic!("{v:?}"),
        }
    }
}

/// Size: a program at the privileged limit goes through the front end in
/// bounded time and memory (run with `--ignored`; it takes seconds).
#[test]
#[ignore]
fn big_program() {
    for n in [100_000usize, 1_000_000] {
        let mut insns = Vec::with_capacity(n);
        for i in 0..n - 1 {
            insns.push(match i % 4 {
                0 => Insn::new(0xbf, 1, 10, 0, 0),
                1 => Insn::new(0x07, 1, 0, 0, -8),
                2 => Insn::new(0x7b, 10, 1, -16, 0),
                _ => Insn::new(0x79, 2, 10, -16, 0),
            });
        }
        insns.push(Insn::new(0x95, 0, 0, 0, 0));
        let mut input = VerifierInput::new(insns, ProgType(1), Arch::X86_64);
        input.log_level = 2;
        input.log_size = 1 << 24;
        let t = std::time::Instant::now();
        let v = bpf_check(&input);
        eprintln!("{n} insns: {:?} in {:?}", matches!(v, Verdict::NotModelled { .. }), t.elapsed());
    }
}
