//! The x86-64 JIT against the images 7.3 produced: every x86_64 golden of
//! progs/ that was accepted and JITed is re-JITed by the model from the
//! golden's own `xlated_hex` (what the kernel's JIT was fed), with the
//! stack depths and tail call facts of the model verifier, and compared
//! with the recorded image: disassembled the same way, kernel addresses
//! (calls, address loads) masked, every other byte equal.
//!
//! Programs the model verifier cannot take (no stack depth) are counted and
//! skipped. The ratchet below only goes up.

use std::path::PathBuf;
use std::time::Instant;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::cli::record::mask_jited_addresses;
use bpf_selftest::conform::progs_with_goldens;
use bpf_selftest::jit::JitProgram;
use bpf_selftest::jit::x86_64::{X86Profile, bpf_int_jit_compile};
use bpf_selftest::recorded::jit_forms::read_x86_forms;
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// Images that must stay byte-exact (masked); raise it as the JIT improves.
const AT_LEAST_EXACT: usize = 218;
/// Images exact when the JIT gets the stack depths 7.3 JITed with (the
/// JIT alone, without the fixups that grow frames or a model verifier run).
const AT_LEAST_EXACT_WITH_7_3_DEPTHS: usize = 238;

fn hex_bytes(h: &str) -> Vec<u8> {
    (0..h.len() / 2).filter_map(|k| u8::from_str_radix(h.get(2 * k..2 * k + 2)?, 16).ok()).collect()
}

/// test_loader's text of the images with kernel addresses masked: a masked
/// insn keeps its pc and its kind, every other line its pc, bytes and text.
fn comparable(images: &[Vec<u8>]) -> Vec<String> {
    let text = bpf_selftest::jit_disasm::test_loader_text(Arch::X86_64, images);
    let (masked, _) = mask_jited_addresses(&text);
    text.iter()
        .zip(masked)
        .map(|(line, m)| {
            // a `jmp` to a kernel address: a retpoline thunk (indirect jumps
            // of tail calls) or the return thunk; `mask_jited_addresses`
            // covers calls only
            let thunk = m.split_once("jmp\t0xffffffff").is_some_and(|(pre, _)| pre.is_empty() || pre.ends_with(":\t"));
            if thunk || m.contains("<jump out>") {
                format!("{}: <thunk jump>", line.split(':').next().unwrap_or(""))
            } else if m.contains("<call>") || m.contains("<address load>") {
                format!("{}: {m}", line.split(':').next().unwrap_or(""))
            } else {
                line.clone()
            }
        })
        .collect()
}

/// The frame an image's prologue allocates (`sub rsp, imm32` right after
/// the tail call entry's `endbr64`), 0 without one.
fn prologue_stack_depth(img: &[u8]) -> u32 {
    match img.get(0x14..0x1b) {
        Some([0x48, 0x81, 0xec, a, b, c, d]) => u32::from_le_bytes([*a, *b, *c, *d]),
        _ => 0,
    }
}

#[test]
fn x86_64_images_match_the_7_3_goldens() {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let replay = ReplayBackend::new(expected);
    let profile = X86Profile::default();
    let (mut total, mut exact, mut no_depth) = (0, 0, Vec::new());
    let mut mismatches = Vec::new();
    let mut depth_only = Vec::new();
    let (mut exact_with_7_3_depths, mut jit_only) = (0, Vec::new());
    for (name, req, golden) in progs_with_goldens(&replay, Arch::X86_64) {
        if !golden.accepted || golden.jited_hex.is_empty() || golden.xlated_insns.is_empty() {
            continue;
        }
        // BPF_F_TEST_RND_HI32 images carry random immediates
        if golden.xlated.iter().any(|l| l.ends_with(": r12 = RND")) {
            continue;
        }
        total += 1;
        let want: Vec<Vec<u8>> = golden.jited_hex.iter().map(|h| hex_bytes(h)).collect();
        let kernel_depths: Vec<u32> = want.iter().map(|img| prologue_stack_depth(img)).collect();
        let prog_type = req.prog_type.0;
        let mut with_kernel_depths = JitProgram::from_xlated_dump(&golden.xlated_insns, &kernel_depths, prog_type);
        match bpf_int_jit_compile(&with_kernel_depths, &profile) {
            Ok(img) if comparable(&img) == comparable(&want) => exact_with_7_3_depths += 1,
            Ok(img) => {
                let (w, g) = (comparable(&want), comparable(&img));
                let k = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
                let line = |v: &Vec<String>| v.get(k).cloned().unwrap_or_else(|| "<end>".into());
                jit_only.push(format!("{}:\n    7.3:   {}\n    model: {}", name, line(&w), line(&g)));
            }
            Err(e) => jit_only.push(format!("{}: JIT error: {e}", name)),
        }
        let input = match ModelBackend::verifier_input(&req) {
            Ok(i) => i,
            Err(e) => {
                no_depth.push(format!("{}: {}", name, e.0));
                continue;
            }
        };
        let mut env = match bpf_selftest::verifier::verify(&input, Instant::now()) {
            Ok(env) => env,
            Err(_) => {
                no_depth.push(format!("{}: the model verifier decided before the main pass", name));
                continue;
            }
        };
        // the fixups grow frames (bpf_loop inlining, may_goto): their depths
        // once they run through, else the main pass's
        let before: Vec<u32> = env.subprog_info.iter().map(|s| s.stack_depth).collect();
        let fixed = bpf_selftest::fixups::bpf_fixups(&mut env).is_ok();
        if !fixed {
            for (s, d) in env.subprog_info.iter_mut().zip(before) {
                s.stack_depth = d;
            }
        }
        let cnt = env.subprog_cnt.min(env.subprog_info.len());
        let depths: Vec<u32> = env.subprog_info[..cnt].iter().map(|s| s.stack_depth).collect();
        // an arena program's accesses in the modes the JIT gets (the dump
        // shows BPF_PROBE_MEM32 as BPF_MEM), and its arena
        let arena = if fixed { bpf_selftest::load::arena_jit(&env, &golden.xlated_insns) } else { None };
        let mut xlated = golden.xlated_insns.clone();
        for &(k, code) in arena.iter().flat_map(|a| a.codes.iter()) {
            if let Some(i) = xlated.get_mut(k) {
                i.code = code;
            }
        }
        let mut prog = JitProgram::from_xlated_dump(&xlated, &depths, input.prog_type.0);
        if let Some(a) = &arena {
            prog.arena_vm_start = a.kern_vm_start;
            prog.user_vm_start = a.user_vm_start;
        }
        for (f, s) in prog.funcs.iter_mut().zip(&env.subprog_info[..cnt]) {
            f.tail_call_reachable = s.tail_call_reachable;
            f.exception_cb = s.is_exception_cb;
        }
        let got = match bpf_int_jit_compile(&prog, &profile) {
            Ok(images) => images,
            Err(e) => {
                mismatches.push(format!("{}: JIT error: {e}", name));
                continue;
            }
        };
        let (w, g) = (comparable(&want), comparable(&got));
        if w == g {
            exact += 1;
            continue;
        }
        // fixups (bpf_loop inlining, may_goto) grow the stack after the main
        // pass: with 7.3's own frame sizes, is the rest of the image right?
        with_kernel_depths = prog.clone();
        for (f, d) in with_kernel_depths.funcs.iter_mut().zip(&kernel_depths) {
            f.stack_depth = *d;
        }
        if depths.iter().zip(&kernel_depths).any(|(a, b)| a.div_ceil(8) != b.div_ceil(8))
            && bpf_int_jit_compile(&with_kernel_depths, &profile).is_ok_and(|img| comparable(&img) == w)
        {
            depth_only.push(format!("{}: model verifier {depths:?}, 7.3 JITed {kernel_depths:?}", name));
            continue;
        }
        let k = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
        let line = |v: &Vec<String>| v.get(k).cloned().unwrap_or_else(|| "<end>".into());
        mismatches.push(format!("{}:\n    7.3:   {}\n    model: {}", name, line(&w), line(&g)));
    }
    eprintln!("x86_64 JIT: {exact} of {total} images byte-exact (masked); {} without a model stack depth", no_depth.len());
    eprintln!("  {} more are exact with the stack depths 7.3 JITed (the fixups that grow them are not applied here):", depth_only.len());
    for m in &depth_only {
        eprintln!("    {m}");
    }
    for m in &no_depth {
        eprintln!("  no stack depth: {m}");
    }
    for m in &mismatches {
        eprintln!("  mismatch: {m}");
    }
    eprintln!("with the stack depths 7.3 JITed: {exact_with_7_3_depths} of {total} exact");
    for m in &jit_only {
        eprintln!("  mismatch with 7.3's stack depths: {m}");
    }
    assert!(total >= 12, "only {total} x86_64 goldens with images found");
    assert!(
        exact_with_7_3_depths >= AT_LEAST_EXACT_WITH_7_3_DEPTHS,
        "{exact_with_7_3_depths} exact images with 7.3's stack depths, the ratchet says at least {AT_LEAST_EXACT_WITH_7_3_DEPTHS}"
    );
    assert!(exact >= AT_LEAST_EXACT, "{exact} exact images, the ratchet says at least {AT_LEAST_EXACT}");
}

/// The JIT's instruction forms against 7.3 (expected/jit/x86_64-forms.json,
/// `bpf-selftest record --set jit-forms`, read by the library's
/// `recorded::jit_forms`): each program's xlated dump re-JITed with the
/// frame sizes 7.3 JITed and the facts the dump loses (direct tail calls;
/// tail-call reachability follows from the calls).
#[test]
fn x86_64_forms_match_7_3() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected/jit/x86_64-forms.json");
    let doc = read_x86_forms(&path).expect("forms file");
    let profile = X86Profile::default();
    let (mut total, mut failures) = (0, Vec::new());
    for p in &doc.programs {
        let name = p.name.as_str();
        total += 1;
        let insns = p.xlated().expect("xlated slots");
        let want = p.images().expect("images");
        let mut depths: Vec<u32> = want.iter().map(|img| prologue_stack_depth(img)).collect();
        if let Some(given) = &p.stack_depths {
            depths = given.clone();
        }
        let mut prog = JitProgram::from_xlated_dump(&insns, &depths, 1);
        if let Some(at) = p.hidden_exception_cb {
            if let Some(cb) = prog.split_hidden(at) {
                cb.exception_cb = true;
            }
            prog.funcs[0].exception_boundary = true;
        }
        for &k in p.priv_stack.iter().flatten() {
            if let Some(f) = prog.funcs.get_mut(k) {
                f.jits_use_priv_stack = true;
            }
        }
        for &d in &p.direct_tail_calls {
            if let Some(f) = prog.funcs.iter_mut().rev().find(|f| f.start <= d) {
                f.insns[d - f.start].imm = 1;
            }
        }
        for &d in &p.probe_mem {
            if let Some(f) = prog.funcs.iter_mut().rev().find(|f| f.start <= d) {
                let i = &mut f.insns[d - f.start];
                i.code = (i.code & !0xe0) | bpf_isa::op::BPF_PROBE_MEM;
            }
        }
        mark_tail_call_reachable(&mut prog);
        match bpf_int_jit_compile(&prog, &profile) {
            Ok(mut got) => {
                // hidden subprograms are JITed but not dumped
                got.truncate(want.len());
                let (w, g) = (comparable(&want), comparable(&got));
                if w != g {
                    let k = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
                    let line = |v: &Vec<String>| v.get(k).cloned().unwrap_or_else(|| "<end>".into());
                    failures.push(format!("{name}:\n    7.3:   {}\n    model: {}", line(&w), line(&g)));
                }
            }
            Err(e) => failures.push(format!("{name}: JIT error: {e}")),
        }
    }
    eprintln!("x86_64 JIT forms: {} of {total} exact", total - failures.len());
    assert!(total >= 12, "forms file has {total} programs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `check_max_stack_depth`'s rule: a function that tail-calls, and every
/// function on a call chain to it, is tail-call reachable (the main one too).
fn mark_tail_call_reachable(prog: &mut JitProgram) {
    use bpf_isa::op::*;
    let n = prog.funcs.len();
    let calls: Vec<Vec<usize>> = prog
        .funcs
        .iter()
        .map(|f| {
            f.insns
                .iter()
                .enumerate()
                .filter(|(_, i)| i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL)
                .filter_map(|(k, i)| {
                    // the JIT's form: the pc-relative offset in imm
                    let at = (f.start + k) as i64 + i.imm as i64 + 1;
                    prog.funcs.iter().position(|g| g.start as i64 == at)
                })
                .collect()
        })
        .collect();
    let has_tail_call: Vec<bool> = prog.funcs.iter().map(|f| f.insns.iter().any(|i| i.code == BPF_JMP | bpf_selftest::isa::op::BPF_TAIL_CALL)).collect();
    // reaches[i]: i calls (transitively) a function with a tail call
    let mut reaches = has_tail_call.clone();
    for _ in 0..n {
        for i in 0..n {
            if calls[i].iter().any(|&c| reaches[c]) {
                reaches[i] = true;
            }
        }
    }
    for (f, r) in prog.funcs.iter_mut().zip(reaches) {
        f.tail_call_reachable = r;
    }
}

/// One recorded outcome, whatever the request: lets the runner's own
/// matching judge an outcome the test built.
struct Fixed(bpf_selftest::backend::LoadOutcome);

impl bpf_selftest::backend::Backend for Fixed {
    fn name(&self) -> &'static str {
        "vm"
    }
    fn probe(&self, _: Arch) -> Result<(), bpf_selftest::backend::Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13-amd64".into()
    }
    fn load(&self, _: &bpf_selftest::backend::LoadRequest) -> Result<bpf_selftest::backend::LoadOutcome, bpf_selftest::backend::Unavailable> {
        Ok(self.0.clone())
    }
}

/// The kernel's own x86-64 `__jited` selftests (verifier_tailcall_jit.c,
/// verifier_jit_convergence.c, verifier_ldsx.c, verifier_private_stack.c,
/// verifier_jit_inline.c, verifier_percpu_addr.c), imported from the 7.3 source, loaded into 7.3
/// under QEMU for their xlated programs, re-JITed by the model, and matched
/// by the runner as test_loader would. Needs the VM (one boot) and the
/// kernel source: `cargo test --test model -- --ignored jit_x86_64::`.
#[test]
#[ignore = "boots 7.3 x86_64 under QEMU"]
fn kernel_jited_selftests_with_the_model_jit() {
    let Some(tree) = bpf_selftest::import::cpp::source_tree() else {
        panic!("no Linux 7.3 source");
    };
    let files = ["verifier_tailcall_jit", "verifier_jit_convergence", "verifier_ldsx", "verifier_private_stack", "verifier_jit_inline", "verifier_percpu_addr"];
    let filter = |name: &str| files.iter().any(|f| name.contains(f));
    let suites: Vec<_> = bpf_selftest::import::import_verifier_suites(&tree, Arch::X86_64, &filter)
        .into_iter()
        .filter_map(|(_, r)| r.ok())
        .map(|f| bpf_selftest::import::suite::to_suite(&f))
        .collect();
    let vm = bpf_selftest::backend::by_name("vm").expect("vm backend");
    let opts = RunOptions { arch: Arch::X86_64, backend: "vm".into(), verbosity: 0, filters: Vec::new() };
    let subtests: Vec<_> = runner::plan_suites(&suites, &opts, vm.as_ref())
        .into_iter()
        .filter(|st| match &st.plan {
            Plan::Load(job) => {
                let sub = if job.unpriv { &job.spec.unpriv } else { &job.spec.privileged };
                !sub.jited.is_empty()
            }
            _ => false,
        })
        .collect();
    let reqs: Vec<_> = subtests
        .iter()
        .filter_map(|st| match &st.plan {
            Plan::Load(job) => Some(job.request.clone()),
            _ => None,
        })
        .collect();
    let outcomes = vm.load_batch(&reqs);
    let profile = X86Profile::default();
    let (mut with_jit, mut kernel_ok, mut model_ok) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut not_run = Vec::new();
    for (st, out) in subtests.iter().zip(outcomes) {
        let out = match out {
            Ok(o) => o,
            Err(u) => {
                not_run.push(format!("{}: {}", st.name, u.0));
                continue;
            }
        };
        if out.jited_funcs.is_empty() {
            not_run.push(format!("{}: no image (accepted: {})", st.name, out.accepted));
            continue;
        }
        with_jit += 1;
        let (kernel_verdict, report) = runner::run_subtest(st, &Fixed(out.clone()), &opts);
        if !matches!(kernel_verdict, runner::Verdict::Ok) {
            not_run.push(format!("{}: 7.3 itself fails it as run here:\n{report}", st.name));
            continue;
        }
        kernel_ok += 1;
        let depths: Vec<u32> = out.jited_funcs.iter().map(|img| prologue_stack_depth(img)).collect();
        let mut prog = JitProgram::from_xlated_dump(&out.xlated_insns, &depths, 0);
        mark_tail_call_reachable(&mut prog);
        let mut model = out.clone();
        match bpf_int_jit_compile(&prog, &profile) {
            Ok(images) => {
                model.jited = bpf_selftest::jit_disasm::test_loader_text(Arch::X86_64, &images);
                model.jited_funcs = images;
            }
            Err(e) => {
                failures.push(format!("{}: JIT error: {e}", st.name));
                continue;
            }
        }
        match runner::run_subtest(st, &Fixed(model), &opts) {
            (runner::Verdict::Ok, _) => model_ok += 1,
            (_, report) => failures.push(format!("{}:\n{report}", st.name)),
        }
    }
    eprintln!("kernel __jited selftests (x86_64): {with_jit} JITed, 7.3 passes {kernel_ok}, the model JIT on 7.3's xlated passes {model_ok}");
    eprintln!("{} subtests with __jited expectations planned", subtests.len());
    for f in &not_run {
        eprintln!("  not compared: {f}");
    }
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(kernel_ok > 0, "no __jited subtest ran on 7.3");
}
