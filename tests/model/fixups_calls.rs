//! The call rewrites of `bpf_do_misc_fixups` (`bpf_selftest::fixups::calls`)
//! against the xlated programs 7.3 produced for the goldens of progs/
//! (`== xlated_hex`, both arches).
//!
//! For every accepted golden whose program calls helpers or kfuncs, the
//! model verifies the program, asks `fixup_call` for each call, and
//! applies the replacements with the patch engine. Two measures:
//! - per call: the replacement (in the dump form) must occur in 7.3's
//!   xlated program; the other passes (ctx conversion, dead code, ...)
//!   never touch the insns of a call's patch, so this holds whatever else
//!   7.3 rewrote;
//! - per program: where calls are the only rewrites, the whole program
//!   must equal 7.3's byte for byte.
//!
//! Calls the model does not rewrite yet (`Fail::Unsupported`) are counted
//! and printed with their reasons; the counts are ratchets that may only
//! go up.
//!
//! Also: the call imms of the table are re-derived from the images'
//! kallsyms, read from 7.3 guests by the vm backend.

use bpf_selftest::map::types::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use bpf_isa::Insn;
use bpf_isa::helper_ids::bpf_func_id::{LOOP as BPF_FUNC_LOOP, TAIL_CALL};
use bpf_isa::helper_ids::helper_name;
use bpf_isa::op::*;
use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::conform::progs_with_goldens;
use bpf_selftest::fixups::calls::{fixup_call, kernel_symbols};
use bpf_selftest::fixups::patch::{Patches, apply};
use bpf_selftest::isa::op::BPF_TAIL_CALL;
use bpf_selftest::recorded::fixup_programs as fp;
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::env::{VerifierEnv, VerifierInput};
use bpf_selftest::verifier::{Fail, verify};
use bpf_selftest_suite as _;

#[derive(Default, Debug)]
struct Counts {
    /// (calls, replacement found in 7.3's program, not modelled)
    families: BTreeMap<String, (usize, usize, usize)>,
    programs: usize,
    verified: usize,
    all_calls_modelled: usize,
    exact: usize,
    mismatched_calls: Vec<String>,
    unsupported: BTreeMap<String, usize>,
    not_exact: Vec<String>,
}

fn family(env: &VerifierEnv<'_>, i: usize) -> String {
    let insn = env.insns[i];
    if insn.src == BPF_PSEUDO_KFUNC_CALL {
        let name = env.kfuncs.iter().find(|(_, id)| *id as i32 == insn.imm).map_or("?", |(n, _)| n);
        return if name.starts_with("bpf_iter_num_") { "kfunc bpf_iter_num_*".into() } else { format!("kfunc {name}") };
    }
    let name = helper_name(insn.imm).unwrap_or("?");
    if name.starts_with("map_") || name == "redirect_map" || name == "for_each_map_elem" {
        let ty = env.pass_aux.get(i).and_then(|a| a.map_ptr).and_then(|m| env.used_maps.get(m as usize)).map(|&u| env.input.maps[u].def.map_type);
        let ty = match ty {
            Some(BPF_MAP_TYPE_ARRAY) => "array",
            Some(BPF_MAP_TYPE_PERCPU_ARRAY) => "percpu_array",
            Some(BPF_MAP_TYPE_HASH) => "hash",
            Some(BPF_MAP_TYPE_LRU_HASH) => "lru_hash",
            Some(BPF_MAP_TYPE_PERCPU_HASH) => "percpu_hash",
            Some(BPF_MAP_TYPE_ARRAY_OF_MAPS) => "array_of_maps",
            Some(BPF_MAP_TYPE_HASH_OF_MAPS) => "hash_of_maps",
            Some(BPF_MAP_TYPE_RINGBUF) => "ringbuf",
            Some(BPF_MAP_TYPE_LRU_PERCPU_HASH) => "lru_percpu_hash",
            Some(BPF_MAP_TYPE_QUEUE) => "queue",
            Some(BPF_MAP_TYPE_STACK) => "stack",
            Some(BPF_MAP_TYPE_DEVMAP) => "devmap",
            Some(BPF_MAP_TYPE_PROG_ARRAY) => "prog_array",
            Some(_) => "other map",
            None => "inner map",
        };
        return format!("bpf_{name} ({ty})");
    }
    format!("bpf_{name}")
}

/// `bpf_insn_prepare_dump` as the goldens store it: maps by their index in
/// the suite's list, tail calls as calls, kernel pointers zeroed (the
/// goldens' kernels ran with KASLR; the recordings of tests/fixups_calls/
/// without).
fn dump_form(env: &VerifierEnv<'_>, zero_kernel_pointers: bool) -> Vec<Insn> {
    let mut out = env.insns.clone();
    let mut i = 0;
    while i < out.len() {
        let insn = out[i];
        if insn.code == BPF_JMP | BPF_TAIL_CALL {
            out[i].code = BPF_JMP | BPF_CALL;
            out[i].imm = TAIL_CALL;
        }
        if insn.is_ld_imm64() && i + 1 < out.len() {
            let is_map = matches!(insn.src, BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX | BPF_PSEUDO_MAP_IDX_VALUE);
            if is_map {
                let a = &env.aux[i];
                let index = env.used_maps.get(a.map_index).map_or(0, |&u| env.input.maps[u].id as i32 - 1);
                let value = matches!(insn.src, BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE);
                out[i].src = if value { BPF_PSEUDO_MAP_VALUE } else { BPF_PSEUDO_MAP_FD };
                out[i].imm = index;
                out[i + 1].imm = if value { a.map_off as i32 } else { 0 };
            } else if insn.src == 0 && zero_kernel_pointers {
                // a kernel address (jiffies, ...): zeroed in the goldens
                let v = (insn.imm as u32 as u64) | ((out[i + 1].imm as u32 as u64) << 32);
                if v >> 48 == 0xffff || v >> 52 == 0xfff {
                    out[i].imm = 0;
                    out[i + 1].imm = 0;
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    out
}

fn contains(hay: &[Insn], needle: &[Insn]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

fn run_arch(arch: Arch) -> Counts {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let replay = ReplayBackend::new(expected);
    let mut c = Counts::default();
    for (name, req, truth) in progs_with_goldens(&replay, arch) {
        if !truth.accepted || truth.xlated_insns.is_empty() {
            continue;
        }
        if ModelBackend::create_maps(&req).is_some() {
            continue;
        }
        let Ok(mut input) = ModelBackend::verifier_input(&req) else { continue };
        input.verification_time_usec = Some(0);
        let calls: Vec<usize> =
            input.insns.iter().enumerate().filter(|(_, i)| i.code == BPF_JMP | BPF_CALL && i.src != BPF_PSEUDO_CALL).map(|(k, _)| k).collect();
        if calls.is_empty() {
            continue;
        }
        check_program(&input, &truth.xlated_insns, true, &name, arch, &mut c);
    }
    c
}

/// The model's call rewrites of one program against 7.3's xlated program.
fn check_program(input: &VerifierInput, golden: &[Insn], zero_kernel_pointers: bool, name: &str, arch: Arch, c: &mut Counts) {
    c.programs += 1;
    let Ok(mut env) = verify(input, Instant::now()) else { return };
    c.verified += 1;
    let mut patches = Patches::new();
    let mut all = true;
    let calls: Vec<usize> = env.insns.iter().enumerate().filter(|(_, i)| i.code == BPF_JMP | BPF_CALL && i.src != BPF_PSEUDO_CALL).map(|(k, _)| k).collect();
    for i in calls {
        // gone before bpf_do_misc_fixups: inlined by bpf_optimize_bpf_loop, or dead code
        let a = env.pass_aux.get(i).cloned().unwrap_or_default();
        if (env.insns[i].src == 0 && env.insns[i].imm == BPF_FUNC_LOOP && a.loop_inline.fit_for_inline) || !a.seen {
            continue;
        }
        let fam = family(&env, i);
        c.families.entry(fam.clone()).or_default().0 += 1;
        match fixup_call(&mut env, i) {
            Ok(Some(seq)) => {
                // the replacement in its dump form, alone
                let mut probe = env.insns.clone();
                probe.splice(i..=i, seq.iter().copied());
                let saved = std::mem::replace(&mut env.insns, probe);
                let mut shifted_aux = env.aux.clone();
                shifted_aux.splice(i..i, std::iter::repeat_n(Default::default(), seq.len() - 1));
                let saved_aux = std::mem::replace(&mut env.aux, shifted_aux);
                let dumped = dump_form(&env, zero_kernel_pointers)[i..i + seq.len()].to_vec();
                env.insns = saved;
                env.aux = saved_aux;
                if contains(golden, &dumped) {
                    c.families.get_mut(&fam).unwrap().1 += 1;
                } else {
                    c.mismatched_calls.push(format!("{arch} {name} insn {i} ({fam}): model {}", hex(&dumped)));
                }
                patches.replace(i, seq);
            }
            Ok(None) => {
                let dumped = [dump_form(&env, zero_kernel_pointers)[i]];
                if contains(golden, &dumped) {
                    c.families.get_mut(&fam).unwrap().1 += 1;
                } else {
                    c.mismatched_calls.push(format!("{arch} {name} insn {i} ({fam}): left as is, not in 7.3's program"));
                }
            }
            Err(Fail::Unsupported { what, .. }) => {
                all = false;
                c.families.get_mut(&fam).unwrap().2 += 1;
                *c.unsupported.entry(what).or_default() += 1;
            }
            Err(Fail::Errno(e)) => panic!("{arch} {name}: fixup_call at {i} failed with errno {e}"),
        }
    }
    if !all {
        return;
    }
    c.all_calls_modelled += 1;
    if apply(&mut env, patches).is_err() {
        return;
    }
    if dump_form(&env, zero_kernel_pointers) == golden {
        c.exact += 1;
    } else {
        c.not_exact.push(name.to_string());
    }
}

fn hex(insns: &[Insn]) -> String {
    insns.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect::<Vec<_>>().join(" ")
}

fn report(arch: Arch, c: &Counts) {
    eprintln!(
        "== {arch}: {} programs with helper/kfunc calls, {} verified by the model, {} with every call modelled, {} byte-exact",
        c.programs, c.verified, c.all_calls_modelled, c.exact
    );
    eprintln!("   per family: calls, replacement found in 7.3's xlated program, not modelled");
    for (f, (n, ok, un)) in &c.families {
        eprintln!("   {f:40} {n:4} {ok:4} {un:4}");
    }
    for (w, n) in &c.unsupported {
        eprintln!("   not modelled ({n}x): {w}");
    }
    for m in &c.mismatched_calls {
        eprintln!("   MISMATCH {m}");
    }
    eprintln!("   not byte-exact (other passes rewrite them too, or a call differs): {}", c.not_exact.join(", "));
}

/// (arch, calls whose replacement 7.3's program contains, byte-exact programs)
const RATCHET: [(Arch, usize, usize); 2] = [(Arch::X86_64, 122, 63), (Arch::Arm64, 122, 64)];

#[test]
fn call_rewrites_match_the_xlated_goldens() {
    let mut failures = Vec::new();
    for (arch, min_calls, min_exact) in RATCHET {
        let c = run_arch(arch);
        report(arch, &c);
        let found: usize = c.families.values().map(|f| f.1).sum();
        eprintln!("   {arch}: {found} call rewrites found in 7.3's programs");
        if !c.mismatched_calls.is_empty() {
            failures.push(format!("{arch}: {} call rewrites differ from 7.3 (see MISMATCH above)", c.mismatched_calls.len()));
        }
        if found < min_calls {
            failures.push(format!("{arch}: {found} call rewrites found in 7.3's programs, the ratchet is {min_calls}"));
        }
        if c.exact < min_exact {
            failures.push(format!("{arch}: {} programs byte-exact, the ratchet is {min_exact}", c.exact));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every imm and address of the table against the images' kallsyms, as
/// the vm backend reads them from a 7.3 guest (once; then from its cache).
/// Skipped where the vm backend cannot boot that image.
#[test]
fn call_imms_are_the_images_kallsyms() {
    use bpf_selftest::backend::Backend;
    let vm = bpf_selftest::backend::vm::VmBackend::from_env();
    for (slot, arch) in [Arch::X86_64, Arch::Arm64].into_iter().enumerate() {
        let image = vm.config().release(arch).unwrap_or_default();
        if let Err(u) = vm.probe(arch) {
            require::skip(Component::Vm, &format!("{image}'s kallsyms: {}", u.0));
            return;
        }
        let text = vm.kallsyms(arch).unwrap_or_else(|u| panic!("{image}: {}", u.0));
        let mut syms: BTreeMap<&str, u64> = BTreeMap::new();
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let [a, _, name, ..] = f.as_slice()
                && let Ok(a) = u64::from_str_radix(a, 16)
            {
                syms.entry(name).or_insert(a);
            }
        }
        let base = syms["__bpf_call_base"];
        let mut checked = 0;
        for (f, imm) in kernel_symbols::all_call_imms() {
            if let Some(imm) = imm[slot] {
                let a = syms.get(f).unwrap_or_else(|| panic!("{f} is not in {image}'s kallsyms"));
                assert_eq!(a.wrapping_sub(base) as i64, imm as i64, "{image}: {f}");
                checked += 1;
            }
        }
        for (v, addr) in kernel_symbols::all_var_addrs() {
            if let Some(addr) = addr[slot] {
                assert_eq!(syms.get(v), Some(&addr), "{image}: &{v}");
            }
        }
        assert!(checked > 400, "{image}: {checked} imms checked");
    }
}

fn calls_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixups_calls")
}

/// The recorded xlated programs of tests/fixups_calls/*.s, by name
/// (`record --set fixup-calls`).
fn recorded(arch: Arch) -> BTreeMap<String, Option<Vec<Insn>>> {
    let path = fp::calls_recording_path(&calls_dir(), arch);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    fp::parse_recorded(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (arch, call rewrites found in 7.3's programs, byte-exact programs)
const RECORDED_RATCHET: [(Arch, usize, usize); 2] = [(Arch::X86_64, 74, 39), (Arch::Arm64, 74, 42)];

/// Rewrites the goldens do not exercise (tail calls, per-CPU hashes,
/// queue/stack ops, odd value sizes, index masking, jiffies, per-CPU
/// variables, redirect_map, ...), against 7.3 under QEMU.
#[test]
fn call_rewrites_match_the_recorded_programs() {
    let files = fp::programs(&calls_dir()).unwrap();
    let mut failures = Vec::new();
    for (arch, min_calls, min_exact) in RECORDED_RATCHET {
        let truth = recorded(arch);
        let mut c = Counts::default();
        for (name, f) in &files {
            let Some(Some(golden)) = truth.get(name) else {
                failures.push(format!("{arch} {name}: no recorded xlated program"));
                continue;
            };
            let req = fp::calls_request(f, arch).unwrap_or_else(|e| panic!("{e}"));
            assert!(ModelBackend::create_maps(&req).is_none(), "{arch} {name}: the model refuses a map 7.3 created");
            let mut input = ModelBackend::verifier_input(&req).unwrap_or_else(|e| panic!("{arch} {name}: {}", e.0));
            input.verification_time_usec = Some(0);
            check_program(&input, golden, false, name, arch, &mut c);
        }
        report(arch, &c);
        let found: usize = c.families.values().map(|f| f.1).sum();
        eprintln!("   {arch}: {found} call rewrites found in 7.3's programs");
        if !c.mismatched_calls.is_empty() {
            failures.push(format!("{arch}: {} call rewrites differ from 7.3 (see MISMATCH above)", c.mismatched_calls.len()));
        }
        if found < min_calls {
            failures.push(format!("{arch}: {found} call rewrites found in 7.3's programs, the ratchet is {min_calls}"));
        }
        if c.exact < min_exact {
            failures.push(format!("{arch}: {} programs byte-exact, the ratchet is {min_exact}", c.exact));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A survey, not a check (run with `--ignored`): what `fixup_call` says
/// about every call of the kernel's own `verifier_*.c` programs the model
/// verifies, per arch: how many it rewrites and why it declines the rest.
#[test]
#[ignore = "a survey over the imported kernel selftests (needs the 7.3 source and gcc)"]
fn survey_imported_kernel_selftests() {
    use bpf_selftest::import;
    let Some(tree) = import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source");
        return;
    };
    for arch in [Arch::X86_64, Arch::Arm64] {
        let files = import::import_verifier_suites(&tree, arch, &|_| true);
        let suites: Vec<_> = files.iter().filter_map(|(_, r)| r.as_ref().ok()).map(import::suite::to_suite).collect();
        let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
        let model = bpf_selftest::backend::by_name("model").unwrap();
        let (mut rewritten, mut kept) = (0usize, 0usize);
        let mut declined: BTreeMap<String, usize> = BTreeMap::new();
        for st in bpf_selftest::runner::plan_suites(&suites, &opts, model.as_ref()) {
            let Plan::Load(job) = st.plan else { continue };
            let Ok(mut input) = ModelBackend::verifier_input(&job.request) else { continue };
            input.verification_time_usec = Some(0);
            let Ok(mut env) = verify(&input, Instant::now()) else { continue };
            let calls: Vec<usize> =
                env.insns.iter().enumerate().filter(|(_, i)| i.code == BPF_JMP | BPF_CALL && i.src != BPF_PSEUDO_CALL).map(|(k, _)| k).collect();
            for i in calls {
                // dead code never reaches bpf_do_misc_fixups (removed, or sanitized to `goto -1`)
                if !env.pass_aux.get(i).is_some_and(|a| a.seen) {
                    continue;
                }
                match fixup_call(&mut env, i) {
                    Ok(Some(_)) => rewritten += 1,
                    Ok(None) => kept += 1,
                    Err(Fail::Unsupported { what, .. }) => *declined.entry(what).or_default() += 1,
                    Err(Fail::Errno(e)) => panic!("{arch} {}: errno {e}", st.name),
                }
            }
        }
        eprintln!("== {arch}: {rewritten} calls rewritten, {kept} left as they are, {} declined", declined.values().sum::<usize>());
        for (w, n) in &declined {
            eprintln!("   {n:4}x {w}");
        }
    }
}

/// The model's call rewrites of the imported kernel selftests against the
/// calls 7.3 left in their xlated programs (`record --set fixup-calls`).
#[test]
fn call_rewrites_match_the_imported_recordings() {
    let mut failures = Vec::new();
    for arch in [Arch::X86_64, Arch::Arm64] {
        let Ok(text) = std::fs::read_to_string(fp::imported_calls_path(&calls_dir(), arch)) else {
            eprintln!("skipped: no recording for {arch}");
            continue;
        };
        let truth: BTreeMap<&str, &str> =
            text.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once(": ").or_else(|| l.strip_suffix(':').map(|n| (n, "")))).collect();
        let Some(jobs) = fp::imported_jobs(arch) else {
            require::skip(Component::Source, "no Linux 7.3 source or gcc");
            return;
        };
        let (mut same, mut compared, mut declined) = (0, 0, 0);
        for (name, req) in &jobs {
            let Some(rec) = truth.get(name.as_str()) else { continue };
            if rec.starts_with("rejected") || rec.starts_with("unavailable") {
                continue;
            }
            let Some(want) = rec.split_whitespace().map(bpf_isa::insn::from_hex).collect::<Option<Vec<_>>>() else {
                failures.push(format!("{arch} {name}: bad recording"));
                continue;
            };
            let mut input = ModelBackend::verifier_input(req).unwrap();
            input.verification_time_usec = Some(0);
            let Ok(mut env) = verify(&input, Instant::now()) else { continue };
            let mut patches = Patches::new();
            let mut ok = true;
            let calls: Vec<usize> =
                env.insns.iter().enumerate().filter(|(_, i)| i.code == BPF_JMP | BPF_CALL && i.src != BPF_PSEUDO_CALL).map(|(k, _)| k).collect();
            for i in calls {
                let a = env.pass_aux.get(i).cloned().unwrap_or_default();
                let inlined_loop = env.insns[i].src == 0 && env.insns[i].imm == BPF_FUNC_LOOP && a.loop_inline.fit_for_inline;
                if !a.seen || inlined_loop {
                    // removed before bpf_do_misc_fixups: dead code, bpf_optimize_bpf_loop
                    patches.replace(i, vec![Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0)]);
                    continue;
                }
                match fixup_call(&mut env, i) {
                    Ok(Some(seq)) => patches.replace(i, seq),
                    Ok(None) => {}
                    Err(_) => ok = false,
                }
            }
            if !ok {
                declined += 1;
                continue;
            }
            apply(&mut env, patches).unwrap();
            compared += 1;
            let got = fp::call_slots(&dump_form(&env, false), arch);
            if got == want {
                same += 1;
            } else {
                failures.push(format!("{arch} {name}: 7.3 {} / model {}", hex(&want), hex(&got)));
            }
        }
        eprintln!("== {arch}: {same} of {compared} imported programs with the calls 7.3 left ({declined} with a call not modelled)");
    }
    assert!(failures.is_empty(), "{} programs differ:\n{}", failures.len(), failures.join("\n"));
}
