//! `bpf_do_misc_fixups` against 7.3: every golden of progs/ (x86_64 and
//! arm64) whose xlated program only this pass rewrites is run through the
//! main pass (`verifier::verify`), the passes before it that are on main,
//! `bpf_do_misc_fixups`, a stand-in for the zero extension pass that
//! follows it, and `bpf_insn_prepare_dump`, and compared slot for slot
//! with the golden's `== xlated_hex`.
//!
//! A golden is left out, with the reason counted, when the model does not
//! decide its main pass, when another pass would rewrite it (dead code,
//! ctx accesses, helper or kfunc calls), or when this pass meets something
//! it does not model. The
//! rest must match: a ratchet per arch, the mismatches printed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use bpf_isa::Insn;
use bpf_isa::insn::BPF_REG_AX;
use bpf_isa::op::*;
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::conform::progs_with_goldens;
use bpf_selftest::fixups::{ctx_access, misc, patch, zext};
use bpf_selftest::recorded::fixup_programs as fp;
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest::uapi::prog_flags::BPF_F_TEST_RND_HI32;
use bpf_selftest::verifier::env::VerifierEnv;
use bpf_selftest::verifier::reg::PTR_TO_CTX;
use bpf_selftest::verifier::{Fail, subprogs, verify};
use bpf_selftest_suite as _;

/// What happened to one golden.
enum Outcome {
    /// Byte-exact; whether this pass rewrote anything.
    Exact(bool),
    Mismatch(String),
    Skipped(String),
}

/// The golden's program through the model up to and including this pass,
/// in the dump form.
fn run(req: &bpf_selftest::backend::LoadRequest) -> Result<(Vec<Insn>, bool), String> {
    let input = ModelBackend::verifier_input(req).map_err(|u| format!("input: {}", u.0))?;
    let mut env = verify(&input, Instant::now()).map_err(|_| "main pass not decided by the model, or rejected".to_string())?;
    let fail = |f: Fail| match f {
        Fail::Errno(e) => format!("errno {e}"),
        Fail::Unsupported { phase, what } => format!("{phase}: {what}"),
    };
    subprogs::check_max_stack_depth(&mut env).map_err(fail)?;
    dead_code_stand_in(&mut env)?;
    if !ctx_access_untouched(&env) {
        ctx_access::bpf_convert_ctx_accesses(&mut env).map_err(fail)?;
    }
    let before = env.insns.clone();
    misc::bpf_do_misc_fixups(&mut env).map_err(|f| format!("misc: {}", fail(f)))?;
    let touched = env.insns != before;
    zext_stand_in(&mut env, req.prog_flags)?;
    Ok((prepare_dump(&env), touched))
}

/// The dead-code passes. Privileged (hard-wiring, removal, `ja +0` /
/// `may_goto +0` removal; the fixups core's, not on this branch): the
/// program must be one they leave alone, every insn seen and no nop.
/// Unprivileged: a stand-in for `sanitize_dead_code`, every unseen insn
/// becomes the trap `goto pc-1`.
fn dead_code_stand_in(env: &mut VerifierEnv<'_>) -> Result<(), String> {
    // (the main pass does not mark an ld_imm64's second slot; 7.3 marks
    // both slots)
    let unseen: Vec<usize> = (0..env.insns.len())
        .filter(|&i| {
            let at = if i > 0 && env.insns[i - 1].is_ld_imm64() { i - 1 } else { i };
            !env.pass_aux.get(at).is_some_and(|a| a.seen)
        })
        .collect();
    if !env.bpf_capable {
        for i in unseen {
            env.insns[i] = Insn::new(BPF_JMP | BPF_JA, 0, 0, -1, 0);
            env.aux[i].zext_dst = false;
        }
        return Ok(());
    }
    if let Some(i) = unseen.first() {
        return Err(format!("dead code pass (insn {i} unseen)"));
    }
    let nop = |i: &Insn| i.code == BPF_JMP | BPF_JA && i.off == 0 && i.imm == 0 && i.dst == 0 && i.src == 0;
    let may_goto_0 = |i: &Insn| i.code == BPF_JMP | BPF_JCOND && i.off == 0 && i.imm == 0 && i.dst == 0 && i.src == 0;
    if env.insns.iter().any(|i| nop(i) || may_goto_0(i)) {
        return Err("dead code pass (nop removal)".into());
    }
    Ok(())
}

/// `bpf_convert_ctx_accesses` provably leaves the program alone (the
/// pass on this branch is a stub that refuses any pointer access): a
/// program type without prologue or epilogue, no Spectre barrier to
/// insert, and every load or store through the stack, a map value or key,
/// or packet data (`default: continue` in the kernel's switch).
fn ctx_access_untouched(env: &VerifierEnv<'_>) -> bool {
    use bpf_selftest::verifier::reg::*;
    // socket_filter, kprobe, xdp, perf_event, cgroup_skb, raw_tracepoint, tracepoint
    if !matches!(env.input.prog_type.0, 1 | 2 | 5 | 6 | 7 | 8 | 17) {
        return false;
    }
    let risky = PTR_UNTRUSTED | MEM_USER | MEM_PERCPU | MEM_RCU | PTR_TRUSTED | MEM_ALLOC;
    env.insns.iter().zip(&env.pass_aux).all(|(insn, a)| {
        let mem = matches!(insn.code & 0x07, BPF_LDX | BPF_STX | BPF_ST);
        let plain =
            matches!(base_type(a.ptr_type), NOT_INIT | SCALAR_VALUE | PTR_TO_STACK | PTR_TO_MAP_VALUE | PTR_TO_MAP_KEY | PTR_TO_PACKET | PTR_TO_PACKET_META)
                && a.ptr_type & risky == 0;
        !a.nospec && !a.nospec_result && (!mem || plain)
    })
}

/// A stand-in for `bpf_opt_subreg_zext_lo32_rnd_hi32` (the fixups core's
/// pass, not on this branch) so that 32-bit rewrites can be compared: a
/// 32-bit def whose upper half is dead gets it poisoned under
/// `BPF_F_TEST_RND_HI32` (`r12 = RND; r12 <<= 32; rX |= r12`, the random
/// immediate 0 as the goldens store it); one whose upper half is read is
/// zero-extended (`wX = wX` with imm 1) when the JIT asks for it or after
/// a cmpxchg.
fn zext_stand_in(env: &mut VerifierEnv<'_>, prog_flags: u32) -> Result<(), String> {
    let rnd_hi32 = prog_flags & BPF_F_TEST_RND_HI32 != 0;
    let mut patches = patch::Patches::new();
    let mut i = 0;
    while i < env.insns.len() {
        let insn = env.insns[i];
        let step = if insn.is_ld_imm64() { 2 } else { 1 };
        let def = zext::bpf_insn_def32(&insn);
        if !env.aux[i].zext_dst {
            let ctx_load = insn.code & 0x07 == BPF_LDX && env.pass_aux.get(i).is_some_and(|a| a.ptr_type == PTR_TO_CTX);
            if let Some(r) = def.filter(|_| rnd_hi32 && !ctx_load) {
                patches.replace(
                    i,
                    vec![
                        insn,
                        Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_AX, 0, 0, 0),
                        Insn::new(BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_AX, 0, 0, 32),
                        Insn::new(BPF_ALU64 | BPF_OR | BPF_X, r, BPF_REG_AX, 0, 0),
                    ],
                );
            }
        } else {
            let cmpxchg = insn.code & 0x07 == BPF_STX && insn.code & 0xe0 == BPF_ATOMIC && insn.imm == BPF_CMPXCHG;
            if (env.input.arch.jit_needs_zext() || cmpxchg) && !insn.is_kfunc_call() {
                let Some(r) = zext::insn_def_regno(&insn) else { return Err(format!("zext pass: zext_dst at insn {i} defines no register")) };
                patches.replace(i, vec![insn, Insn::new(BPF_ALU | BPF_MOV | BPF_X, r, r, 0, 1)]);
            }
        }
        i += step;
    }
    patch::apply(env, patches).map_err(|_| "zext pass: patching failed".to_string())
}

/// The program as `BPF_OBJ_GET_INFO_BY_FD` returns it after the JIT
/// (`jit_subprogs`' leftovers, `bpf_insn_prepare_dump`), with maps by their
/// request index as the goldens store them.
fn prepare_dump(env: &VerifierEnv<'_>) -> Vec<Insn> {
    let mut out = env.insns.clone();
    let subprog_at = |t: i64| env.subprog_info[..env.subprog_cnt].iter().position(|s| s.start as i64 == t);
    let mut i = 0;
    while i < out.len() {
        let insn = out[i];
        if insn.code == BPF_JMP | bpf_selftest::isa::op::BPF_TAIL_CALL {
            out[i].code = BPF_JMP | BPF_CALL;
            out[i].imm = 12;
        } else if insn.code == BPF_JMP | BPF_CALL && insn.src == BPF_PSEUDO_CALL {
            let rel = insn.imm;
            out[i].imm = subprog_at(i as i64 + 1 + rel as i64).unwrap_or(0) as i32;
            out[i].off = i16::try_from(rel).unwrap_or(0);
        } else if insn.code & 0x07 == BPF_LDX && insn.code & 0xe0 == BPF_PROBE_MEM {
            out[i].code = BPF_LDX | (insn.code & 0x18) | BPF_MEM;
        } else if matches!(insn.code & 0x07, BPF_LDX | BPF_ST | BPF_STX) && insn.code & 0xe0 == BPF_PROBE_MEM32 {
            // arena accesses are dumped as plain ones
            out[i].code = (insn.code & 0x07) | (insn.code & 0x18) | BPF_MEM;
        } else if insn.is_ld_imm64() && i + 1 < out.len() {
            match insn.src {
                BPF_PSEUDO_FUNC => out[i + 1].imm = subprog_at(i as i64 + 1 + insn.imm as i64).unwrap_or(0) as i32,
                BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX | BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => {
                    let value = matches!(insn.src, BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE);
                    let obj = env.used_maps[env.aux[i].map_index];
                    out[i].src = if value { BPF_PSEUDO_MAP_VALUE } else { BPF_PSEUDO_MAP_FD };
                    // the request's map index (the model numbers ids from 1)
                    out[i].imm = env.input.maps[obj].id as i32 - 1;
                    out[i + 1].imm = if value { env.aux[i].map_off as i32 } else { 0 };
                }
                _ => {}
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    out
}

fn first_difference(model: &[Insn], truth: &[Insn]) -> String {
    let n = model.len().max(truth.len());
    for k in 0..n {
        let (m, t) = (model.get(k), truth.get(k));
        if m != t {
            let show = |x: Option<&Insn>| x.map_or("-".to_string(), |i| bpf_isa::insn::to_hex(*i));
            return format!("slot {k}: kernel {} model {} (lengths {} / {})", show(t), show(m), truth.len(), model.len());
        }
    }
    String::new()
}

fn run_arch(arch: Arch) -> BTreeMap<String, Outcome> {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let replay = ReplayBackend::new(expected);
    let mut out = BTreeMap::new();
    for (name, req, truth) in progs_with_goldens(&replay, arch) {
        if !truth.accepted || truth.xlated_insns.is_empty() {
            continue;
        }
        let o = match run(&req) {
            Err(why) => Outcome::Skipped(why),
            Ok((model, touched)) if model == truth.xlated_insns => Outcome::Exact(touched),
            Ok((model, _)) => Outcome::Mismatch(first_difference(&model, &truth.xlated_insns)),
        };
        out.insert(name, o);
    }
    out
}

/// Goldens reproduced byte for byte, per arch (the ratchet: raise it as
/// the pass grows; never lower it).
const AT_LEAST_EXACT: [(Arch, usize); 2] = [(Arch::X86_64, 107), (Arch::Arm64, 107)];
/// Of those, goldens this pass rewrites.
const AT_LEAST_REWRITTEN: usize = 13;

#[test]
fn misc_fixups_reproduce_the_goldens_xlated_hex() {
    let mut report = String::new();
    let mut failures = Vec::new();
    for (arch, at_least) in AT_LEAST_EXACT {
        let res = run_arch(arch);
        let exact = res.values().filter(|o| matches!(o, Outcome::Exact(_))).count();
        let rewritten: Vec<&String> = res.iter().filter(|(_, o)| matches!(o, Outcome::Exact(true))).map(|(n, _)| n).collect();
        let mismatched: Vec<_> = res.iter().filter_map(|(n, o)| if let Outcome::Mismatch(d) = o { Some((n, d)) } else { None }).collect();
        let mut skips: BTreeMap<String, usize> = BTreeMap::new();
        for o in res.values() {
            if let Outcome::Skipped(why) = o {
                // the reason without its insn number
                let key: String = why.chars().filter(|c| !c.is_ascii_digit()).collect();
                *skips.entry(key).or_default() += 1;
            }
        }
        report += &format!(
            "{arch}: {exact} exact ({} rewritten by this pass), {} mismatched, of {} compared ({} goldens)\n",
            rewritten.len(),
            mismatched.len(),
            exact + mismatched.len(),
            res.len()
        );
        for n in &rewritten {
            report += &format!("  rewritten and exact: {n}\n");
        }
        for (n, d) in &mismatched {
            report += &format!("  MISMATCH {n}: {d}\n");
        }
        if std::env::var_os("FIXUPS_MISC_VERBOSE").is_some() {
            for (n, o) in &res {
                if let Outcome::Skipped(why) = o {
                    report += &format!("  skip {n}: {why}\n");
                }
            }
        }
        for (why, c) in &skips {
            report += &format!("  skipped {c}: {why}\n");
        }
        if rewritten.len() < AT_LEAST_REWRITTEN {
            failures.push(format!("{arch}: {} rewritten and exact, the ratchet wants at least {AT_LEAST_REWRITTEN}", rewritten.len()));
        }
        if !mismatched.is_empty() {
            failures.push(format!("{arch}: {} goldens differ", mismatched.len()));
        }
        if exact < at_least {
            failures.push(format!("{arch}: {exact} exact, the ratchet wants at least {at_least}"));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The kernel's own `__xlated` tests of this pass's rewrites, imported
/// from the 7.3 source: `(file, at least N matching on x86_64, on arm64)`
/// (verifier_sdiv's are x86_64 only; verifier_may_goto_2 has none; the
/// others wait for the dead code, ctx access and call passes).
const KERNEL_XLATED: [(&str, usize, usize); 10] = [
    ("verifier_sdiv", 16, 0),
    ("verifier_may_goto_1", 0, 0),
    ("verifier_may_goto_2", 0, 0),
    ("verifier_scalar_ids", 0, 0),
    ("verifier_value_ptr_arith", 0, 0),
    // the other files with __xlated tests, whose programs this pass may
    // rewrite too
    ("verifier_and", 0, 0),
    ("verifier_bounds", 0, 0),
    ("verifier_movsx", 0, 0),
    ("verifier_unpriv", 0, 0),
    ("verifier_zext", 0, 0),
];

#[test]
fn misc_fixups_pass_the_kernels_xlated_tests() {
    use bpf_selftest::import;
    use bpf_selftest::matcher::validate_msgs;
    let Some(tree) = import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source");
        return;
    };
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        require::skip(Component::Source, "gcc is not installed");
        return;
    }
    let model = bpf_selftest::backend::by_name("model").unwrap();
    let mut report = String::new();
    let mut failures = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let filter = |name: &str| KERNEL_XLATED.iter().any(|(f, _, _)| name == *f || name.ends_with(&format!("/{f}.c")) || name.ends_with(&format!("{f}.c")));
        let files = import::import_verifier_suites(&tree, arch, &filter);
        let suites: Vec<_> = files.iter().filter_map(|(_, r)| r.as_ref().ok()).map(import::suite::to_suite).collect();
        let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
        let known = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected/KERNEL_SELFTESTS_KNOWN")).unwrap_or_default();
        let known_rnd_hi32: Vec<String> =
            import::known_failures(&known, arch).into_iter().filter(|(_, why)| why.contains("rnd_hi32")).map(|(name, _)| name).collect();
        let mut per_file: BTreeMap<String, (usize, usize, usize, usize)> = BTreeMap::new();
        for st in runner::plan_suites(&suites, &opts, model.as_ref()) {
            let Plan::Load(job) = st.plan else { continue };
            let sub = job.spec.subspec(job.unpriv);
            if sub.expect_xlated.is_empty() || sub.expect_failure {
                continue;
            }
            let e = per_file.entry(st.suite.clone()).or_default();
            e.0 += 1;
            // 7.3 fails these as test_loader loads them (its own poisoning
            // breaks the expected line numbers): compare the load the
            // expectations were written for, without BPF_F_TEST_RND_HI32
            let mut req = job.request.clone();
            if known_rnd_hi32.contains(&st.name) {
                req.prog_flags &= !BPF_F_TEST_RND_HI32;
            }
            match run(&req) {
                Err(why) => {
                    report += &format!("  {arch} skip {}: {why}\n", st.name);
                }
                Ok((insns, _)) => {
                    let text = bpf_isa::disasm::xlated_dump(&insns);
                    match validate_msgs(&text, &sub.expect_xlated) {
                        Ok(()) => e.1 += 1,
                        Err(m) => {
                            e.2 += 1;
                            report += &format!("  {arch} FAIL {}:\n{}", st.name, m.report(bpf_selftest::matcher::Dump::Xlated, &text));
                        }
                    }
                }
            }
            e.3 = e.0 - e.1 - e.2;
        }
        for (file, x86, arm) in KERNEL_XLATED {
            let at_least = if arch == Arch::X86_64 { x86 } else { arm };
            let (n, ok, bad, skipped) = per_file.get(file).copied().unwrap_or_default();
            report += &format!("{arch} {file}: {ok} of {n} __xlated subtests match, {bad} differ, {skipped} skipped\n");
            if ok < at_least {
                failures.push(format!("{arch} {file}: {ok} match, the ratchet wants at least {at_least}"));
            }
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The cases of tests/fixups_misc/cases, each loaded as its `# case:`
/// line says.
fn cases(arch: Arch) -> Vec<(String, bpf_selftest::backend::LoadRequest)> {
    fp::misc_cases(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixups_misc/cases"), arch).unwrap_or_else(|e| panic!("{e}"))
}

/// What 7.3 did with a case (`record --set fixup-misc`).
fn case_truth_path(arch: Arch, name: &str) -> PathBuf {
    fp::misc_truth_path(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixups_misc/linux-7.3"), arch, name)
}

/// At least this many cases per arch reproduce 7.3's xlated program byte
/// for byte (the ratchet).
const CASES_AT_LEAST_EXACT: usize = 9;

#[test]
fn misc_fixups_reproduce_the_recorded_cases() {
    use bpf_selftest::golden::Golden;
    let mut report = String::new();
    let mut failures = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let mut exact = 0;
        for (name, req) in cases(arch) {
            let Ok(text) = std::fs::read_to_string(case_truth_path(arch, &name)) else {
                let model = run(&req).map(|(m, _)| bpf_isa::disasm::xlated_dump(&m));
                report += &format!("{arch} {name}: not recorded; the model: {model:?}\n");
                continue;
            };
            let truth = Golden::parse(&text).expect("recorded case parses");
            if !truth.accepted {
                failures.push(format!("{arch} {name}: 7.3 refused the case (errno {}): fix the case", truth.errno));
                continue;
            }
            match run(&req) {
                Err(why) => report += &format!("{arch} {name}: skipped: {why}\n"),
                Ok((model, _)) if model == truth.xlated_insns => {
                    exact += 1;
                    report += &format!("{arch} {name}: exact\n");
                }
                Ok((model, _)) => {
                    let d = first_difference(&model, &truth.xlated_insns);
                    report += &format!("{arch} {name}: MISMATCH {d}\n{}", bpf_isa::disasm::xlated_dump(&model));
                    failures.push(format!("{arch} {name}: {d}"));
                }
            }
        }
        report += &format!("{arch}: {exact} cases exact\n");
        if exact < CASES_AT_LEAST_EXACT {
            failures.push(format!("{arch}: {exact} cases exact, the ratchet wants at least {CASES_AT_LEAST_EXACT}"));
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
