//! `bpf_convert_ctx_accesses` against what 7.3 made of ctx accesses:
//!
//! * every ctx field of the modelled prog types loaded (and stored) once,
//!   recorded on 7.3 x86_64 and arm64 (`tests/fixups_ctx/probes.txt`):
//!   the model's main pass, then this pass, must give the recorded xlated
//!   program exactly, and a probe 7.3 rejected must be rejected with the
//!   same message;
//! * the goldens of progs/ whose programs access ctx (or sockets, or need
//!   barriers): this pass's output against the golden's raw xlated program,
//!   after taking out what later passes add that is recognisable without
//!   them (`BPF_F_TEST_RND_HI32` poison, zero extension). Programs other
//!   passes rewrite more deeply cannot match yet; the count of exact ones
//!   is a ratchet, and every other one is printed with its first difference.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use bpf_isa::Insn;
use bpf_isa::op::*;
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::fixups::ctx_access::bpf_convert_ctx_accesses;
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::recorded::ctx_probes::{self, Answer, Probe};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest::uapi::prog_flags::BPF_F_TEST_RND_HI32;
use bpf_selftest::verifier::env::{VerifierEnv, VerifierInput};
use bpf_selftest::verifier::reg::*;
use bpf_selftest::{
    load::bpf_check,
    verifier::{Fail, Verdict, verify},
};
use bpf_selftest_suite as _;

const BPF_REG_AX: u8 = 12;

/// What the comparison ignores: the imm of helper calls (an address) and
/// both imms and src of `ld_imm64` (map ids or kernel addresses).
fn masked(insns: &[Insn]) -> Vec<Insn> {
    let mut out = Vec::with_capacity(insns.len());
    let mut i = 0;
    while i < insns.len() {
        let mut x = insns[i];
        if x.code == BPF_JMP | BPF_CALL && x.src == 0 {
            x.imm = 0;
        }
        // arena accesses are dumped as plain ones
        if matches!(x.code & 0x07, BPF_LDX | BPF_ST | BPF_STX) && x.code & 0xe0 == BPF_PROBE_MEM32 {
            x.code = (x.code & 0x07) | (x.code & 0x18) | BPF_MEM;
        }
        if x.code == BPF_LD | BPF_IMM | BPF_DW {
            out.push(Insn { src: 0, imm: 0, ..x });
            out.push(Insn::default());
            i += 2;
            continue;
        }
        out.push(x);
        i += 1;
    }
    out
}

fn is_jump(x: &Insn) -> bool {
    let class = x.code & 0x07;
    (class == BPF_JMP || class == BPF_JMP32) && !matches!(x.code & 0xf0, BPF_CALL | BPF_EXIT)
}

/// The xlated program without the insns `bpf_opt_subreg_zext_lo32_rnd_hi32`
/// adds after a 32-bit def: `rAX = RND; rAX <<= 32; rX |= rAX` and the
/// zero-extending `wX = wX` (imm 1), jumps remapped as if never inserted.
fn without_zext_and_rnd_hi32(insns: &[Insn]) -> Vec<Insn> {
    let mut keep = vec![true; insns.len()];
    let mut i = 0;
    while i < insns.len() {
        let x = insns[i];
        let rnd = x.code == BPF_ALU64 | BPF_MOV | BPF_K
            && x.dst == BPF_REG_AX
            && insns.get(i + 1).is_some_and(|y| y.code == BPF_ALU64 | BPF_LSH | BPF_K && y.dst == BPF_REG_AX && y.imm == 32)
            && insns.get(i + 2).is_some_and(|y| y.code == BPF_ALU64 | BPF_OR | BPF_X && y.src == BPF_REG_AX);
        if rnd {
            keep[i..i + 3].fill(false);
            i += 3;
            continue;
        }
        if x.code == BPF_ALU | BPF_MOV | BPF_X && x.dst == x.src && x.imm == 1 {
            keep[i] = false;
        }
        i += 1;
    }
    // new index of each old one (a removed insn maps to the next kept one)
    let mut new_idx = vec![0i64; insns.len() + 1];
    let mut n = 0i64;
    for (k, &kept) in keep.iter().enumerate() {
        new_idx[k] = n;
        if kept {
            n += 1;
        }
    }
    new_idx[insns.len()] = n;
    let mut out = Vec::new();
    for (k, x) in insns.iter().enumerate() {
        if !keep[k] {
            continue;
        }
        let mut x = *x;
        if is_jump(&x) || (x.code == BPF_JMP | BPF_CALL && x.src == BPF_PSEUDO_CALL) {
            let wide = x.code == BPF_JMP32 | BPF_JA || x.code == BPF_JMP | BPF_CALL;
            let rel = if wide { x.imm as i64 } else { x.off as i64 };
            let target = (k as i64 + rel + 1).clamp(0, insns.len() as i64) as usize;
            let new_rel = new_idx[target] - new_idx[k] - 1;
            if wide {
                x.imm = new_rel as i32;
            } else {
                x.off = new_rel as i16;
            }
        }
        out.push(x);
    }
    out
}

/// Whether the main pass left anything for this pass to rewrite (ctx
/// accesses count where the prog type converts them).
fn needs_ctx_conversion(env: &VerifierEnv<'_>) -> bool {
    let ctx_as_is = matches!(env.input.prog_type.name(), "kprobe" | "tracepoint" | "raw_tracepoint" | "syscall");
    env.insns.iter().zip(&env.pass_aux).any(|(insn, a)| {
        let mem = matches!(insn.code & 0x07, BPF_LDX | BPF_ST | BPF_STX);
        let t = a.ptr_type;
        let converted = (t == PTR_TO_CTX && !ctx_as_is)
            || matches!(base_type(t), PTR_TO_SOCKET | PTR_TO_SOCK_COMMON | PTR_TO_TCP_SOCK | PTR_TO_XDP_SOCK | PTR_TO_ARENA)
            || t & PTR_UNTRUSTED != 0
            || t == PTR_TO_BTF_ID;
        (mem && converted) || a.nospec || a.nospec_result
    })
}

/// The later passes that also rewrite this program (as far as the main
/// pass's results tell): a mismatch with none of them is this pass's.
fn other_rewrites(env: &VerifierEnv<'_>) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut add = |what| {
        if !out.contains(&what) {
            out.push(what);
        }
    };
    let mut i = 0;
    while i < env.insns.len() {
        let (x, a) = (env.insns[i], &env.pass_aux[i]);
        let (class, op) = (x.code & 0x07, x.code & 0xf0);
        if !a.seen {
            add("dead code");
        }
        if matches!(class, BPF_ALU | BPF_ALU64) && matches!(op, BPF_DIV | BPF_MOD) {
            add("div/mod guards");
        }
        if class == BPF_LD && matches!(x.code & 0xe0, BPF_ABS | BPF_IND) {
            add("ld_abs");
        }
        if class == BPF_JMP && op == BPF_JCOND {
            add("may_goto");
        }
        if class == BPF_JMP && op == BPF_CALL {
            add("calls");
        }
        if a.alu_state != 0 {
            add("alu sanitation");
        }
        // misc: address space casts become 32-bit moves, 64-bit ALU on
        // arena pointers 32-bit ALU
        if (x.code == BPF_ALU64 | BPF_MOV | BPF_X && x.off == BPF_ADDR_SPACE_CAST) || a.needs_zext {
            add("arena casts");
        }
        i += if x.code == BPF_LD | BPF_IMM | BPF_DW { 2 } else { 1 };
    }
    out
}

fn first_diff(kernel: &[Insn], model: &[Insn]) -> String {
    let n = kernel.len().max(model.len());
    let show = |x: Option<&Insn>| x.map_or("<none>".to_string(), |i| bpf_isa::insn::to_hex(*i));
    match (0..n).find(|&i| kernel.get(i) != model.get(i)) {
        Some(i) => format!("insn {i}: kernel {}, model {} ({} vs {} insns)", show(kernel.get(i)), show(model.get(i)), kernel.len(), model.len()),
        None => "equal".into(),
    }
}

/// The probes of `probes.txt` (`record --set ctx-probes`).
fn probes() -> Vec<Probe> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixups_ctx/probes.txt");
    let text = std::fs::read_to_string(&path).expect("probes.txt");
    ctx_probes::parse(&text).unwrap_or_else(|e| panic!("{e}")).probes
}

#[test]
fn every_ctx_field_converts_as_7_3_does() {
    let probes = probes();
    assert!(probes.len() >= 200, "{} probes", probes.len());
    let mut failures = Vec::new();
    let mut exact = 0;
    let mut compared = 0;
    let mut skipped = Vec::new();
    let mut rejected_alike = 0;
    for p in &probes {
        let prog = bpf_isa::assemble(&p.asm).unwrap_or_else(|e| panic!("{}: {e:?}", p.name));
        let prog_type = ProgType::from_name(&p.prog_type).unwrap_or_else(|| panic!("{}: prog type {}", p.name, p.prog_type));
        for (arch, answer) in &p.answers {
            let mut input = VerifierInput::new(prog.insns.clone(), prog_type, *arch);
            input.expected_attach_type = p.expected_attach_type;
            input.prog_flags = BPF_F_TEST_RND_HI32;
            let truth = match answer {
                Answer::Xlated(insns) => insns,
                Answer::Rejected(want) => {
                    // 7.3 rejected it: the model must, with the same message
                    let want = want.as_str();
                    input.log_level = 1;
                    input.log_size = 1 << 20;
                    match bpf_check(&input) {
                        Verdict::Decided(d) if !d.accepted && d.log.lines().any(|l| l == want) => rejected_alike += 1,
                        Verdict::Decided(d) if !d.accepted => {
                            failures.push(format!("{arch} {}: rejected without `{want}`: {}", p.name, d.log.lines().rev().nth(1).unwrap_or_default()))
                        }
                        Verdict::Decided(_) => failures.push(format!("{arch} {}: accepted, 7.3 rejected it: {want}", p.name)),
                        Verdict::NotModelled { phase, what, .. } => skipped.push(format!("{arch} {} (rejected by 7.3): {phase}: {what}", p.name)),
                    }
                    continue;
                }
            };
            compared += 1;
            let mut env = match verify(&input, Instant::now()) {
                Ok(env) => env,
                Err(Verdict::NotModelled { phase, what, .. }) => {
                    skipped.push(format!("{arch} {}: {phase}: {what}", p.name));
                    continue;
                }
                Err(v) => {
                    failures.push(format!("{arch} {}: the model's main pass does not accept it: {v:?}", p.name));
                    continue;
                }
            };
            if let Err(e) = bpf_convert_ctx_accesses(&mut env) {
                failures.push(format!("{arch} {}: {e:?}", p.name));
                continue;
            }
            let (kernel, model) = (masked(&without_zext_and_rnd_hi32(truth)), masked(&env.insns));
            if kernel == model {
                exact += 1;
            } else {
                failures.push(format!("{arch} {}: {}", p.name, first_diff(&kernel, &model)));
            }
        }
    }
    eprintln!("probes: {exact} of {compared} exact through the main pass; {rejected_alike} rejected as 7.3 did; {} not checked:", skipped.len());
    for f in skipped.iter().chain(&failures) {
        eprintln!("  {f}");
    }
    // every probe's prog type is loaded by the main pass now: all of them
    // must convert exactly, and the rejected ones be rejected alike
    assert!(skipped.is_empty(), "{} probes the model does not decide", skipped.len());
    assert!(exact >= 987, "only {exact} probes exact");
    assert!(rejected_alike >= 167, "only {rejected_alike} rejected probes rejected as 7.3 did");
    assert!(failures.is_empty(), "{} of {compared} probes differ:\n{}", failures.len(), failures.join("\n"));
}

/// Per prog type: (exact, compared, not modelled by this pass, differ).
type Tally = BTreeMap<(Arch, String), (usize, usize, usize, usize)>;

#[test]
fn goldens_with_ctx_accesses_match_the_recorded_xlated_program() {
    let replay = ReplayBackend::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected"));
    let mut tally = Tally::new();
    let mut report = Vec::new();
    let mut unexplained = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let opts = RunOptions { arch, backend: "replay".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan(&opts, &replay) {
            let Plan::Load(job) = st.plan else { continue };
            let Ok(truth) = replay.golden(&job.request) else { continue };
            if !truth.accepted || truth.xlated_insns.is_empty() {
                continue;
            }
            let Ok(input) = ModelBackend::verifier_input(&job.request) else { continue };
            let Ok(mut env) = verify(&input, Instant::now()) else { continue };
            if !needs_ctx_conversion(&env) {
                continue;
            }
            let others = other_rewrites(&env);
            let t = tally.entry((arch, job.request.prog_type.name().to_string())).or_default();
            t.1 += 1;
            match bpf_convert_ctx_accesses(&mut env) {
                Err(Fail::Unsupported { what, .. }) => {
                    t.2 += 1;
                    report.push(format!("{arch} {}: not modelled: {what}", st.name));
                }
                Err(Fail::Errno(e)) => {
                    t.3 += 1;
                    report.push(format!("{arch} {}: the pass failed with errno {e}", st.name));
                }
                Ok(()) => {
                    let (kernel, model) = (masked(&without_zext_and_rnd_hi32(&truth.xlated_insns)), masked(&env.insns));
                    if std::env::var("CTX_DUMP").is_ok_and(|n| st.name.contains(&n)) {
                        for i in 0..kernel.len().max(model.len()) {
                            let h = |x: Option<&Insn>| x.map_or(String::new(), |x| bpf_isa::insn::to_hex(*x));
                            eprintln!("{arch} {} {i:3}: {:16} {:16}", st.name, h(kernel.get(i)), h(model.get(i)));
                        }
                    }
                    if kernel == model {
                        t.0 += 1;
                    } else {
                        t.3 += 1;
                        if others.is_empty() {
                            unexplained.push(format!("{arch} {}", st.name));
                        }
                        report.push(format!("{arch} {}: {} (also rewritten by: {})", st.name, first_diff(&kernel, &model), others.join(", ")));
                    }
                }
            }
        }
    }
    let (mut exact, mut total) = (0, 0);
    for ((arch, pt), (e, n, u, d)) in &tally {
        eprintln!("{arch} {pt}: {e} of {n} exact ({u} not modelled, {d} differ)");
        exact += e;
        total += n;
    }
    eprintln!("goldens needing ctx conversion: {exact} of {total} exact; the others:");
    for r in &report {
        eprintln!("  {r}");
    }
    // ratchet: raise it as the pass (and the passes after it) grow
    const AT_LEAST: usize = 79;
    assert!(exact >= AT_LEAST, "only {exact} of {total} goldens exact (at least {AT_LEAST} were)");
    assert!(unexplained.is_empty(), "differences no later pass explains: {unexplained:?}");
    assert!(total >= 20, "only {total} goldens need ctx conversion: the plan or the main pass lost them");
}

#[test]
fn golden_normalisation_drops_rnd_hi32_and_zext_and_remaps_jumps() {
    let ins = |code, dst, src, off, imm| Insn::new(code, dst, src, off, imm);
    let prog = vec![
        ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 5, 0),
        ins(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 0, 1),
        ins(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_AX, 0, 0, 0),
        ins(BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_AX, 0, 0, 32),
        ins(BPF_ALU64 | BPF_OR | BPF_X, 0, BPF_REG_AX, 0, 0),
        ins(BPF_ALU | BPF_MOV | BPF_X, 2, 2, 0, 1),
        ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    ];
    let want = vec![ins(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1, 0), ins(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 0, 1), ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    assert_eq!(without_zext_and_rnd_hi32(&prog), want);
}

#[test]
fn unmeasured_layouts_and_fields_are_not_guessed() {
    // riscv64's structure layout was never measured: no conversion
    let prog = bpf_isa::assemble("r0 = *(u32 *)(r1 +0)\nexit").unwrap();
    let input = VerifierInput::new(prog.insns, ProgType::from_name("socket_filter").unwrap(), Arch::Riscv64);
    let mut env = verify(&input, Instant::now()).unwrap_or_else(|v| panic!("{v:?}"));
    match bpf_convert_ctx_accesses(&mut env) {
        Err(Fail::Unsupported { what, .. }) => assert!(what.contains("riscv64"), "{what}"),
        other => panic!("riscv64 converted without a layout: {other:?}"),
    }
    // a tracing ctx is read as it is: nothing to convert, nothing refused
    let prog = bpf_isa::assemble("r0 = *(u64 *)(r1 +8)\nexit").unwrap();
    let input = VerifierInput::new(prog.insns.clone(), ProgType::from_name("raw_tracepoint").unwrap(), Arch::X86_64);
    let mut env = verify(&input, Instant::now()).unwrap_or_else(|v| panic!("{v:?}"));
    bpf_convert_ctx_accesses(&mut env).expect("raw_tp ctx needs no conversion");
    assert_eq!(env.insns, prog.insns);
}
