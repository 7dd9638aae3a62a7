//! The arm64 JIT against 7.3's own images: for every arm64 golden of progs/
//! that was accepted and has a JIT image, the golden's raw xlated program
//! (`== xlated_hex`) is split into functions, given the stack depths the
//! model verifier computes for the program, JITed, and compared with the
//! image 7.3 produced: test_loader's text with kernel-address loads masked
//! (`mask_jited_addresses`, as `record --check` compares), and the image
//! length besides those loads.
//!
//! A mismatch is printed with its first differing line. When the frame
//! size is the only reason (the fixups, not modelled here yet, add stack:
//! bpf_loop inlining, may_goto counters), the program is JITed again with
//! the frame size read from the kernel's image, and counted apart.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::backend::replay::ReplayBackend;
use bpf_selftest::cli::record::mask_jited_addresses;
use bpf_selftest::conform::progs_with_goldens;
use bpf_selftest::golden::Golden;
use bpf_selftest::jit::JitProgram;
use bpf_selftest::jit::arm64::{Arm64Profile, bpf_int_jit_compile};
use bpf_selftest::jit_disasm::test_loader_text;
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// Exact images reached with the model verifier's stack depths.
const AT_LEAST_EXACT: usize = 240;
/// Exact images reached when the frame size comes from the kernel's image.
const AT_LEAST_EXACT_GIVEN_FRAME: usize = 254;
/// Images identical byte for byte (those without kernel addresses or calls).
const AT_LEAST_BYTE_EXACT: usize = 128;

/// The image as compared: masked text (without pcs and bytes) and the bytes
/// besides address loads. Under `BPF_F_TEST_RND_HI32` the poison's constant
/// (`mov`/`movk x9` before `lsl x9, x9, #32`) is random per load, so its
/// loads are left out on both sides.
fn comparable(text: &[String]) -> (Vec<String>, usize) {
    let (masked, address_bytes) = mask_jited_addresses(text);
    let total: usize = text
        .iter()
        .filter_map(|l| l.split_once(":\t"))
        .filter(|(pc, _)| !pc.starts_with('L'))
        .map(|(_, rest)| rest.split('\t').next().unwrap_or("").split_whitespace().filter(|t| !t.ends_with(':')).count())
        .sum();
    let mut out: Vec<String> = Vec::with_capacity(masked.len());
    let mut rnd_bytes = 0;
    for l in masked {
        if l.ends_with("lsl\tx9, x9, #32") {
            while out.last().is_some_and(|p| p.starts_with("mov\tx9, #") || p.starts_with("movk\tx9, #")) {
                out.pop();
                rnd_bytes += 4;
            }
        }
        out.push(l);
    }
    // the PLT's alignment nop (`build_plt` keeps its 8-byte target aligned)
    // follows the lengths of the loads left out above
    let mut plt_nops = 0;
    if address_bytes + rnd_bytes > 0 {
        let mut k = 0;
        while k + 2 < out.len() {
            if out[k] == "nop" && out[k + 1] == "ldr\tx10, #0x8" && out[k + 2] == "br\tx10" {
                out.remove(k);
                plt_nops += 4;
            }
            k += 1;
        }
    }
    (out, total - address_bytes - rnd_bytes - plt_nops)
}

/// The frame size (`round_up(stack_depth, 16)`) a 7.3 arm64 image allocates
/// in function `func`'s prologue: the first `sub sp, sp, #n` after the
/// callee-saved pushes, or 0.
fn kernel_frame_sizes(g: &Golden) -> Vec<u32> {
    let mut sizes = Vec::new();
    let mut cur: Option<u32> = None;
    let mut in_prologue = false;
    for l in &g.jited {
        if l.starts_with("func #") {
            if let Some(s) = cur.take() {
                sizes.push(s);
            }
            cur = Some(0);
            in_prologue = true;
            continue;
        }
        if !in_prologue {
            continue;
        }
        // `pc:`, the bytes (and a label), then `mnemonic[\toperands]`
        let insn = l.splitn(3, '\t').nth(2).unwrap_or("");
        let (mnemonic, operands) = insn.split_once('\t').unwrap_or((insn, ""));
        // the frame: `sub sp, sp, #n`, or on a private stack `add x25, x27, #n`
        let frame = operands.strip_prefix("sp, sp, #0x").filter(|_| mnemonic == "sub");
        let frame = frame.or(operands.strip_prefix("x25, x27, #0x").filter(|_| mnemonic == "add"));
        if let Some(n) = frame {
            cur = u32::from_str_radix(n, 16).ok();
            in_prologue = false;
        } else {
            let frame_setup = match mnemonic {
                "nop" | "paciasp" | "stp" | "mrs" => true,
                "mov" => operands.ends_with(", sp") || operands.ends_with(", x30") || operands.starts_with("x27, #"),
                "movk" => operands.starts_with("x27, #"),
                "add" => operands == "x27, x27, x10",
                m => m.starts_with("bti"),
            };
            in_prologue &= frame_setup;
        }
    }
    if let Some(s) = cur {
        sizes.push(s);
    }
    sizes
}

/// Which functions of a 7.3 arm64 image keep their frame on a private stack
/// (`add x27, x27, x10` after `mrs x10, TPIDR_EL1` in the prologue).
fn kernel_private_stacks(g: &Golden) -> Vec<bool> {
    let mut out: Vec<bool> = Vec::new();
    for l in &g.jited {
        if l.starts_with("func #") {
            out.push(false);
        } else if l.ends_with("\tadd\tx27, x27, x10")
            && let Some(last) = out.last_mut()
        {
            *last = true;
        }
    }
    out
}

fn first_difference(kernel: &[String], model: &[String]) -> String {
    let n = kernel.len().max(model.len());
    for k in 0..n {
        let (a, b) = (kernel.get(k), model.get(k));
        if a != b {
            return format!("line {}: kernel {:?}, model {:?}", k + 1, a.map_or("<end>", |s| s), b.map_or("<end>", |s| s));
        }
    }
    "same text".into()
}

#[test]
fn arm64_images_match_7_3() {
    let expected = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected");
    let replay = ReplayBackend::new(expected);
    let profile = Arm64Profile::default();
    let (mut exact, mut exact_given_frame, mut compared, mut byte_exact) = (0, 0, 0, 0);
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for (name, req, truth) in progs_with_goldens(&replay, Arch::Arm64) {
        if !truth.accepted || truth.jited_hex.is_empty() || truth.xlated_insns.is_empty() {
            continue;
        }
        let input = match ModelBackend::verifier_input(&req) {
            Ok(i) => i,
            Err(u) => {
                *skipped.entry(format!("no verifier input: {}", u.0)).or_default() += 1;
                continue;
            }
        };
        let (depths, arena): (Vec<u32>, _) = match bpf_selftest::verifier::verify(&input, Instant::now()) {
            Ok(mut env) => {
                let depths = env.subprog_info.iter().map(|s| s.stack_depth).collect();
                // an arena program's accesses in the modes the JIT gets (the
                // dump shows BPF_PROBE_MEM32 as BPF_MEM), and its arena
                let fixed = bpf_selftest::fixups::bpf_fixups(&mut env).is_ok();
                (depths, if fixed { bpf_selftest::load::arena_jit(&env, &truth.xlated_insns) } else { None })
            }
            Err(_) => {
                // not counted; said whether the image is right given the frames
                let prog = JitProgram::from_xlated_dump(&truth.xlated_insns, &kernel_frame_sizes(&truth), req.prog_type.0);
                let model = bpf_int_jit_compile(&prog, &profile).map(|i| comparable(&test_loader_text(Arch::Arm64, &i)));
                let exact = model.is_ok_and(|m| m == comparable(&truth.jited));
                *skipped
                    .entry(format!(
                        "the model verifier gives no stack depth: {} (image {} given the kernel's frame sizes)",
                        name,
                        if exact { "exact" } else { "differs" }
                    ))
                    .or_default() += 1;
                continue;
            }
        };
        compared += 1;
        let kernel = comparable(&truth.jited);
        let mut xlated = truth.xlated_insns.clone();
        for &(k, code) in arena.iter().flat_map(|a| a.codes.iter()) {
            if let Some(i) = xlated.get_mut(k) {
                i.code = code;
            }
        }
        let program = |depths: &[u32]| {
            let mut prog = JitProgram::from_xlated_dump(&xlated, depths, req.prog_type.0);
            if let Some(a) = &arena {
                prog.arena_vm_start = a.kern_vm_start;
                prog.user_vm_start = a.user_vm_start;
            }
            prog
        };
        // byte for byte, where no kernel address or random constant is in the image
        let prog = program(&depths);
        if let Ok(images) = bpf_int_jit_compile(&prog, &profile) {
            let hex: Vec<String> = images.iter().map(|b| b.iter().map(|x| format!("{x:02x}")).collect()).collect();
            if hex == truth.jited_hex {
                byte_exact += 1;
            }
        }
        let jit = |depths: &[u32]| -> Result<(Vec<String>, usize), String> {
            let prog = program(depths);
            let images = bpf_int_jit_compile(&prog, &profile).map_err(|e| e.to_string())?;
            Ok(comparable(&test_loader_text(Arch::Arm64, &images)))
        };
        match jit(&depths) {
            Ok(model) if model == kernel => exact += 1,
            Ok(model) => {
                let frames = kernel_frame_sizes(&truth);
                let again = jit(&frames);
                let why = if model.0 != kernel.0 {
                    first_difference(&kernel.0, &model.0)
                } else {
                    format!("{} bytes besides address loads, model {}", kernel.1, model.1)
                };
                if again.as_ref().is_ok_and(|m| *m == kernel) {
                    exact_given_frame += 1;
                    mismatches
                        .push(format!("{}: frame size only (verifier depths {depths:?}, kernel frames {frames:?}: the fixups grow the stack): {why}", name));
                } else {
                    mismatches.push(format!("{}: {why}", name));
                }
            }
            Err(e) => mismatches.push(format!("{}: not JITed: {e}", name)),
        }
    }
    eprintln!(
        "arm64 JIT: {exact} of {compared} images exact with the model's stack depths, {exact_given_frame} more with the kernel's frame sizes; {byte_exact} byte for byte (no address loads)"
    );
    for (why, n) in &skipped {
        eprintln!("skipped {n}: {why}");
    }
    for m in &mismatches {
        eprintln!("mismatch {m}");
    }
    assert!(compared >= 1, "no arm64 golden with an image was found");
    assert!(exact >= AT_LEAST_EXACT, "only {exact} of {compared} exact (ratchet: {AT_LEAST_EXACT})");
    assert!(byte_exact >= AT_LEAST_BYTE_EXACT, "only {byte_exact} byte for byte (ratchet: {AT_LEAST_BYTE_EXACT})");
    assert!(exact + exact_given_frame >= AT_LEAST_EXACT_GIVEN_FRAME, "only {} exact given the kernel's frame sizes", exact + exact_given_frame);
}

/// Instruction forms progs/ does not reach (every ALU/JMP/atomic form, large
/// offsets, tail calls, callbacks, LL/SC atomics without LSE), recorded from
/// 7.3 by `bpf-selftest record --set jit-forms` from tests/jit_forms/arm64/
/// (read by the library's `recorded::jit_forms`). The recording has no
/// verifier facts, so the frame sizes come from the images; the CPU model
/// (`# backend:`) picks the profile.
#[test]
fn arm64_forms_match_7_3() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected/jit/arm64-forms");
    let names = bpf_selftest::recorded::jit_forms::read_arm64_forms(&dir).unwrap();
    let mut bad = Vec::new();
    for (path, g) in &names {
        let backend = g.header.iter().find(|(k, _)| k == "backend").map_or("", |(_, v)| v.as_str());
        let profile = if backend.contains("cortex-a57") {
            Arm64Profile { lse_atomics: false, has_sb: false, ..Arm64Profile::default() }
        } else {
            Arm64Profile::default()
        };
        // an exception boundary saves x19-x28; 7.3 then appends the default
        // exception callback (`r0 = r1; exit`) as a hidden subprogram, in
        // the dump but not among the reported images
        let boundary = g.jited.iter().take_while(|l| *l != "func #1:").any(|l| l.ends_with("\tstp\tx23, x24, [sp, #-0x10]!"));
        let mut insns = g.xlated_insns.clone();
        let hidden_cb = [bpf_isa::Insn::new(0xbf, 0, 1, 0, 0), bpf_isa::Insn::new(0x95, 0, 0, 0, 0)];
        if boundary && insns.ends_with(&hidden_cb) {
            insns.truncate(insns.len() - 2);
        }
        let mut prog = JitProgram::from_xlated_dump(&insns, &kernel_frame_sizes(g), 1);
        if let Some(main) = prog.funcs.first_mut() {
            main.exception_boundary = boundary;
        }
        // a private stack shows as x27 set up from the per-CPU offset
        for (f, uses) in prog.funcs.iter_mut().zip(kernel_private_stacks(g)) {
            f.jits_use_priv_stack = uses;
        }
        let kernel = comparable(&g.jited);
        match bpf_int_jit_compile(&prog, &profile) {
            Ok(images) => {
                let model = comparable(&test_loader_text(Arch::Arm64, &images));
                if model != kernel {
                    bad.push(format!("{path}: {}", first_difference(&kernel.0, &model.0)));
                }
            }
            Err(e) => bad.push(format!("{path}: not JITed: {e}")),
        }
    }
    assert!(names.len() >= 10, "only {} recorded forms programs", names.len());
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), names.len(), bad.join("\n"));
}

/// The arm64 `__jited` expectations of 7.3's own verifier_private_stack.c
/// and verifier_jit_inline.c,
/// matched with test_loader's rules against the model's image of the
/// xlated program a 7.3 kernel produced for each (the naked-asm bodies,
/// recorded as expected/jit/arm64-forms/ks_*.txt).
#[test]
fn kernel_selftests_jited_on_recorded_xlated() {
    const X27_SETUP: [&str; 6] = [
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
    ];
    let with_setup =
        |head: &[&'static str], tail: &[&'static str]| -> Vec<&'static str> { head.iter().chain(X27_SETUP.iter()).chain(tail.iter()).copied().collect() };
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "ks_private_stack_single_prog",
            with_setup(&["\tstp\tx25, x27, [sp, {{.*}}]!"], &["\tmov\tx0, #0x2a", "\tstr\tx0, [x27]", "...", "\tldp\tx25, x27, [sp], {{.*}}"]),
        ),
        ("ks_no_private_stack_nested", vec!["\tmov\tx25, sp", "\tsub\tsp, sp, #0x10"]),
        (
            "ks_private_stack_nested_1",
            with_setup(&["\tstp\tx25, x27, [sp, {{.*}}]!"], &["\tmov\tx0, #0x2a", "\tstr\tx0, [x27]", "\tbl\t{{.*}}", "...", "\tldp\tx25, x27, [sp], {{.*}}"]),
        ),
        (
            "ks_private_stack_callback",
            with_setup(
                &["func #1", "...", "\tstp\tx25, x27, [sp, {{.*}}]!"],
                &[
                    "\tbl\t0x{{.*}}",
                    "\tmov\tx8, x0",
                    "\tmov\tx0, #0x2a",
                    "\tstr\tx0, [x27]",
                    "\tbl\t0x{{.*}}",
                    "\tmov\tx8, x0",
                    "\tmov\tx8, #0x0",
                    "\tldp\tx25, x27, [sp], {{.*}}",
                ],
            ),
        ),
        // verifier_jit_inline.c (arm64 has the one for bpf_get_current_task)
        ("ks_inline_bpf_get_current_task", vec!["\tmrs\tx8, SP_EL0"]),
    ];
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected/jit/arm64-forms");
    let mut matched = 0;
    let mut bad = Vec::new();
    for (name, patterns) in &cases {
        let g = Golden::parse(&std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap()).unwrap();
        let mut prog = JitProgram::from_xlated_dump(&g.xlated_insns, &kernel_frame_sizes(&g), 2);
        for (f, uses) in prog.funcs.iter_mut().zip(kernel_private_stacks(&g)) {
            f.jits_use_priv_stack = uses;
        }
        let images = bpf_int_jit_compile(&prog, &Arm64Profile::default()).unwrap();
        let text = test_loader_text(Arch::Arm64, &images).join("\n") + "\n";
        let mut msgs = bpf_selftest::matcher::ExpectedMsgs::default();
        let mut on_next_line = false;
        for p in patterns {
            msgs.push_disasm_msg(p, &mut on_next_line).unwrap();
        }
        match bpf_selftest::matcher::validate_msgs(&text, &msgs) {
            Ok(()) => matched += 1,
            Err(m) => bad.push(format!("{name}:\n{}", m.pattern_report())),
        }
    }
    eprintln!("verifier_private_stack.c and verifier_jit_inline.c arm64 __jited: {matched} of {} programs", cases.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
