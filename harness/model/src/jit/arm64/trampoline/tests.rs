//! The trampoline's structure as 7.3's prepare_trampoline lays it out,
//! read back through the disassembler.

use super::*;
use crate::prog_type::{bpf_attach_type as at, bpf_prog_type as pt};
use crate::target::Arch;

/// The 7.3.4 arm64 image's addresses (its kallsyms).
fn ksyms() -> TrampKsyms {
    TrampKsyms {
        bpf_prog_enter_lsm_cgroup: 0xffff_8000_803b_61c0,
        bpf_prog_enter: 0xffff_8000_803b_6250,
        bpf_prog_exit_lsm_cgroup: 0xffff_8000_803b_6760,
        bpf_prog_enter_recur: 0xffff_8000_803b_69a0,
        bpf_prog_exit: 0xffff_8000_803b_6b80,
        bpf_prog_exit_recur: 0xffff_8000_803b_6bd0,
        bpf_prog_enter_sleepable: 0xffff_8000_803b_6ca8,
        bpf_prog_exit_sleepable_recur: 0xffff_8000_803b_6de8,
        bpf_prog_enter_sleepable_recur: 0xffff_8000_803b_6fc0,
        bpf_prog_exit_sleepable: 0xffff_8000_803b_71c8,
        bpf_tramp_enter: 0xffff_8000_803b_79c0,
        bpf_tramp_exit: 0xffff_8000_803b_7a90,
    }
}

fn prog(n: u64, eat: u32) -> BpfTrampNode {
    BpfTrampNode {
        prog: 0xffff_8000_8200_0000 + n * 0x1000,
        bpf_func: 0xffff_8000_8400_0000 + n * 0x1000,
        prog_type: pt::TRACING,
        expected_attach_type: eat,
        ..Default::default()
    }
}

fn tramp(args: &[u8], nodes: BpfTrampNodes) -> BpfTrampoline {
    let model = BtfFuncModel::new(8, &args.iter().map(|&s| (s, 0)).collect::<Vec<_>>()).unwrap();
    let flags = bpf_trampoline_update_flags(&nodes, 0, false);
    BpfTrampoline { model, flags, nodes, func_addr: 0xffff_8000_8012_3400, image: 0xffff_8000_8410_0000, im: 0xffff_0000_c1a2_b300, ksyms: ksyms() }
}

fn disasm(t: &TrampolineImage, base: u64) -> Vec<String> {
    t.image[..t.len]
        .chunks(4)
        .enumerate()
        .map(|(k, w)| {
            let pc = base + 4 * k as u64;
            crate::jit_disasm::disasm_insn(Arch::Arm64, w, pc, &|a| Some(format!("{a:#x}")))
                .map_or_else(|| format!("<undecodable {:08x}>", u32::from_le_bytes(w.try_into().unwrap())), |d| d.text.trim().replace('\t', " "))
        })
        .collect()
}

#[test]
fn arg_aux() {
    let m = BtfFuncModel::new(8, &[(8, 0), (16, BTF_FMODEL_STRUCT_ARG), (4, 0)]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 3, regs_for_args: 4, bstack_for_args: 0, ostack_for_args: 0 });
    // nine 8-byte args: the ninth on the stack; a 16-byte one that does
    // not fit in the last register goes to the stack with everything after
    let m = BtfFuncModel::new(8, &[(8, 0); 9]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 8, regs_for_args: 8, bstack_for_args: 8, ostack_for_args: 8 });
    let m = BtfFuncModel::new(8, &[(8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (8, 0), (16, 0), (1, 0)]).unwrap();
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 7, regs_for_args: 7, bstack_for_args: 24, ostack_for_args: 24 });
}

fn build(tr: &BpfTrampoline) -> (TrampolineImage, Vec<String>) {
    let img = arch_prepare_bpf_trampoline(tr, &Arm64Profile::default()).unwrap();
    let text = disasm(&img, tr.image);
    (img, text)
}

/// The index of the first line equal to `line` at or after `from`.
fn find(text: &[String], from: usize, line: &str) -> usize {
    from + text[from..].iter().position(|l| l == line).unwrap_or_else(|| panic!("no {line:?} after line {from}"))
}

/// fentry only (`BPF_TRAMP_F_RESTORE_REGS`): frames, metadata, the
/// arguments saved for the program and restored for the traced function,
/// which the trampoline returns into.
#[test]
fn fentry_only() {
    let tr = tramp(&[8, 8], BpfTrampNodes { fentry: vec![prog(1, at::TRACE_FENTRY)], ..Default::default() });
    assert_eq!(tr.flags, BPF_TRAMP_F_RESTORE_REGS);
    let (img, text) = build(&tr);
    let want = [
        "stp x29, x9, [sp, #-0x10]!",
        "mov x29, sp",
        "stp x29, x30, [sp, #-0x10]!",
        "mov x29, sp",
        // run ctx 0x0, metadata 0x10, args 0x18, x19/x20 0x28
        "sub sp, sp, #0x40",
        "mov w10, #0x2",
        "str x10, [sp, #0x10]",
        "str x0, [sp, #0x18]",
        "str x1, [sp, #0x20]",
        "str x19, [sp, #0x28]",
        "str x20, [sp, #0x30]",
        // invoke_bpf_prog
        "nop",
        "str xzr, [sp]",
        "mov x19, #-0xf000",
        "movk x19, #0x8200, lsl #16",
        "movk x19, #0x8000, lsl #32",
        "mov x0, x19",
        "mov x1, sp",
        "bl 0xffff8000803b69a0",
        "mov x20, x0",
        "cbz x0, 0xffff80008410005c",
        "add x0, sp, #0x18",
        "bl 0xffff800084001000",
        "mov x0, x19",
        "mov x1, x20",
        "mov x2, sp",
        "bl 0xffff8000803b6bd0",
        // restore_args
        "ldr x0, [sp, #0x18]",
        "ldr x1, [sp, #0x20]",
        "ldr x19, [sp, #0x28]",
        "ldr x20, [sp, #0x30]",
        "mov sp, x29",
        "ldp x29, x30, [sp], #0x10",
        "ldp x29, x9, [sp], #0x10",
        "mov x10, x30",
        "mov x30, x9",
        "ret x10",
    ];
    assert_eq!(text, want);
    assert_eq!(img.skips, [BpfTrampSkip { prog: tr.nodes.fentry[0].prog, nop: 4 * 11, target: 4 * 27 }]);
    // the sizing pass called each of the three targets indirectly (four
    // instructions instead of one); the rest is AARCH64_BREAK_FAULT
    assert_eq!(img.image.len(), img.len + 3 * 3 * 4);
    assert!(img.image[img.len..].chunks(4).all(|w| w == BREAK_FAULT.to_le_bytes()));
}

/// fmod_ret and fexit (`BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME`):
/// `__bpf_tramp_enter`, the fmod_ret program's return value deciding
/// whether the original function runs, the call of it at the traced
/// function's return address, the fexit program, `__bpf_tramp_exit`,
/// the return to the traced function's caller with the return value.
#[test]
fn fmod_ret_and_fexit() {
    let tr = tramp(&[8], BpfTrampNodes { fexit: vec![prog(1, at::TRACE_FEXIT)], fmod_ret: vec![prog(2, at::MODIFY_RETURN)], ..Default::default() });
    assert_eq!(tr.flags, BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME);
    let (img, text) = build(&tr);
    let at_ = |line: &str| find(&text, 0, line);
    // run ctx 0x0, metadata 0x10, arg 0x18, return value 0x20, x19/x20
    // 0x28; the traced function's return address at 0x40 + 8
    assert_eq!(text[4], "sub sp, sp, #0x40");
    let enter = at_("bl 0xffff8000803b79c0");
    assert_eq!(text[enter - 3..enter], ["mov x0, #-0x1000000000000", "movk x0, #0xc1a2, lsl #16", "movk x0, #0xb300"]);
    // invoke_bpf_mod_ret zeroes the return value first
    assert_eq!(text[enter + 1], "str xzr, [sp, #0x20]");
    let fmod_call = at_("bl 0xffff800084002000");
    assert_eq!(text[fmod_call + 1], "str x0, [sp, #0x20]");
    let orig = at_("adr x30, #8");
    assert_eq!(text[orig - 2..orig + 3], ["ldr x0, [sp, #0x18]", "ldr x10, [sp, #0x48]", "adr x30, #8", "ret x10", "str x0, [sp, #0x20]"]);
    // a non-zero fmod_ret return skips the original function
    let cbnz = at_("ldr x10, [sp, #0x20]") + 1;
    assert_eq!(text[cbnz], format!("cbnz x10, {:#x}", tr.image + 4 * (orig as u64 + 3)));
    let fexit_call = at_("bl 0xffff800084001000");
    assert!(fexit_call > orig);
    let exit = at_("bl 0xffff8000803b7a90");
    assert_eq!(
        text[exit + 1..],
        [
            "ldr x19, [sp, #0x28]",
            "ldr x20, [sp, #0x30]",
            "ldr x0, [sp, #0x20]",
            "mov sp, x29",
            "ldp x29, x30, [sp], #0x10",
            "ldp x29, x9, [sp], #0x10",
            "mov x30, x9",
            "ret x9"
        ]
    );
    // each program's skip: from its nop to after its exit helper's call
    assert_eq!(img.skips.len(), 2);
    assert_eq!((img.skips[0].prog, img.skips[1].prog), (tr.nodes.fmod_ret[0].prog, tr.nodes.fexit[0].prog));
    for s in &img.skips {
        assert_eq!(text[s.nop / 4], "nop");
        assert_eq!(text[s.target / 4 - 1], "bl 0xffff8000803b6bd0");
    }
    // heap pointers: `im` twice (three instructions each), each program's
    // struct bpf_prog (three)
    let refs: Vec<(usize, usize, HeapPtr)> = img.heap_refs.iter().map(|r| (r.off / 4, r.len / 4, r.ptr)).collect();
    let x19 = |from: usize| find(&text, from, "movk x19, #0x8000, lsl #32") - 2;
    assert_eq!(
        refs,
        [
            (enter - 3, 3, HeapPtr::Im),
            (x19(0), 3, HeapPtr::Prog(BpfTrampProgType::ModifyReturn, 0)),
            (x19(orig), 3, HeapPtr::Prog(BpfTrampProgType::Fexit, 0)),
            (exit - 3, 3, HeapPtr::Im),
        ]
    );
    // sizing: 8 calls went direct, and the two loads of `im` took three
    // instructions of the four assumed
    assert_eq!(img.image.len(), img.len + 4 * (8 * 3 + 2));
}

/// Arguments beyond x0-x7 are read from the traced function's stack
/// frame, their unused high bytes cleared for the programs, and copied
/// below the trampoline's frame for the original function.
#[test]
fn stack_arguments() {
    let tr = tramp(&[8, 8, 8, 8, 8, 8, 8, 16, 1, 2], BpfTrampNodes { fexit: vec![prog(1, at::TRACE_FEXIT)], ..Default::default() });
    let (_, text) = build(&tr);
    // 16-byte stack args for the original function at 0x0, run ctx 0x20,
    // metadata 0x30 (11 slots), args 0x38, return value 0x90, x19/x20 0x98
    assert_eq!(text[4..7], ["sub sp, sp, #0xb0", "mov w10, #0xb", "str x10, [sp, #0x30]"]);
    let saved = find(&text, 0, "ldr x10, [x29, #0x20]");
    assert_eq!(
        text[saved - 1..saved + 13],
        [
            "str x6, [sp, #0x68]",
            "ldr x10, [x29, #0x20]",
            "str x10, [sp, #0x70]",
            "ldr x10, [x29, #0x28]",
            "str x10, [sp, #0x78]",
            "ldr x10, [x29, #0x30]",
            "lsl x10, x10, #56",
            "lsr x10, x10, #56",
            "str x10, [sp, #0x80]",
            "ldr x10, [x29, #0x38]",
            "lsl x10, x10, #48",
            "lsr x10, x10, #48",
            "str x10, [sp, #0x88]",
            "str x19, [sp, #0x98]",
        ]
    );
    let orig = find(&text, saved + 1, "ldr x10, [x29, #0x20]");
    assert_eq!(text[orig - 1], "ldr x6, [sp, #0x68]");
    assert_eq!(
        text[orig..orig + 11],
        [
            "ldr x10, [x29, #0x20]",
            "str x10, [sp]",
            "ldr x10, [x29, #0x28]",
            "str x10, [sp, #0x8]",
            "ldr x10, [x29, #0x30]",
            "str x10, [sp, #0x10]",
            "ldr x10, [x29, #0x38]",
            "str x10, [sp, #0x18]",
            "ldr x10, [sp, #0xb8]",
            "adr x30, #8",
            "ret x10",
        ]
    );
    assert_eq!(text[find(&text, 0, "str xzr, [sp, #0x20]") + 5], "add x1, sp, #0x20");
}

/// fsession: the program runs on both sides with its cookie slot's index
/// and, after the original function, the is-return bit in the metadata.
#[test]
fn fsession_metadata() {
    let fs = BpfTrampNode { call_session_cookie: true, cookie: 0x1234_5678_9abc, ..prog(3, at::TRACE_FSESSION) };
    let tr = tramp(&[8], BpfTrampNodes { fentry: vec![fs], fexit: vec![fs], ..Default::default() });
    let (_, text) = build(&tr);
    // run ctx 0x0, cookie 0x10, metadata 0x18, arg 0x20, return value 0x28
    let zero = find(&text, 0, "mov x10, #0x0");
    assert_eq!(text[zero..zero + 5], ["mov x10, #0x0", "str x10, [sp, #0x10]", "str x10, [sp, #0x28]", "mov w10, #0x201", "str x10, [sp, #0x18]"]);
    assert_eq!(text[zero + 6..zero + 10], ["mov x10, #0x123400000000", "movk x10, #0x5678, lsl #16", "movk x10, #0x9abc", "str x10, [sp]"]);
    let ret = find(&text, 0, "str x0, [sp, #0x28]");
    assert_eq!(
        text[ret + 1..ret + 7],
        [
            "mov x10, #-0x8000000000000000",
            "movk x10, #0x1",
            "str x10, [sp, #0x18]",
            "mov x10, #-0x8000000000000000",
            "movk x10, #0x201",
            "str x10, [sp, #0x18]"
        ]
    );
}

/// `bpf_get_func_ip` users get the traced function's address; a BTI
/// kernel starts the image with `bti jc`.
#[test]
fn ip_arg_and_bti() {
    let mut tr = tramp(&[8], BpfTrampNodes { fentry: vec![BpfTrampNode { call_get_func_ip: true, ..prog(1, at::TRACE_FENTRY) }], ..Default::default() });
    tr.flags = bpf_trampoline_update_flags(&tr.nodes, 0, false);
    assert_eq!(tr.flags, BPF_TRAMP_F_RESTORE_REGS | BPF_TRAMP_F_IP_ARG);
    let (_, text) = build(&tr);
    assert_eq!(text[5..9], ["mov x10, #-0xcc00", "movk x10, #0x8012, lsl #16", "movk x10, #0x8000, lsl #32", "str x10, [sp, #0x10]"]);
    assert_eq!(text[9..11], ["mov w10, #0x1", "str x10, [sp, #0x18]"]);
    let bti = Arm64Profile { bti_kernel: true, ..Arm64Profile::default() };
    let img = arch_prepare_bpf_trampoline(&tr, &bti).unwrap();
    assert_eq!(disasm(&img, tr.image)[..2], ["bti jc", "stp x29, x9, [sp, #-0x10]!"]);
    assert_eq!(img.len, 4 * (text.len() + 1));
}

/// A struct_ops trampoline is called through a pointer: one frame, no x9,
/// `__arena` arguments converted for the program, back to the caller.
#[test]
fn struct_ops() {
    let node = BpfTrampNode { prog_type: pt::STRUCT_OPS, struct_ops_link: true, arena_kern_vm_start: 0xffff_c900_1000_0000, ..prog(1, 0) };
    let model = BtfFuncModel::new(4, &[(8, BTF_FMODEL_ARENA_ARG | BTF_FMODEL_NULLABLE_ARG), (8, 0)]).unwrap();
    let nodes = BpfTrampNodes { fentry: vec![node], ..Default::default() };
    let tr = BpfTrampoline {
        model,
        flags: BPF_TRAMP_F_INDIRECT | BPF_TRAMP_F_RET_FENTRY_RET,
        nodes,
        image: 0xffff_8000_8410_0000,
        ksyms: ksyms(),
        ..Default::default()
    };
    let (img, text) = build(&tr);
    // no struct bpf_tramp_image: no skips
    assert!(img.skips.is_empty());
    assert_eq!(
        text[..11],
        [
            "stp x29, x30, [sp, #-0x10]!",
            "mov x29, sp",
            "sub sp, sp, #0x40",
            "mov w10, #0x2",
            "str x10, [sp, #0x10]",
            "mov w11, #0x0",
            "movk w11, #0x1000, lsl #16",
            "mov x10, x0",
            "cbz x10, 0xffff800084100028",
            "sub w10, w10, w11",
            "str x10, [sp, #0x18]",
        ]
    );
    // a struct_ops program without a private stack runs under __bpf_prog_enter
    assert!(text.contains(&"bl 0xffff8000803b6250".to_string()));
    assert_eq!(text[11], "str x1, [sp, #0x20]");
    // the program's return value is the trampoline's
    assert_eq!(
        text[text.len() - 6..],
        ["ldr x19, [sp, #0x30]", "ldr x20, [sp, #0x38]", "ldr x0, [sp, #0x28]", "mov sp, x29", "ldp x29, x30, [sp], #0x10", "ret"]
    );
}

/// Calls out of `bl` range stay indirect, as in the sizing pass.
#[test]
fn far_calls_are_indirect() {
    let mut tr = tramp(&[8], BpfTrampNodes { fexit: vec![prog(1, at::TRACE_FEXIT)], ..Default::default() });
    tr.image = 0xffff_8000_9000_0000;
    let (img, text) = build(&tr);
    // only the two loads of `im` are shorter than the sizing pass assumed
    assert_eq!(img.image.len(), img.len + 2 * 4);
    assert!(!text.iter().any(|l| l.starts_with("bl ")));
    assert_eq!(text.iter().filter(|l| l.starts_with("blr x10")).count(), 5);
}

/// `BPF_MAX_TRAMP_LINKS` fentry programs fit in a page; twice as many do
/// not, nor as many fexit programs with cookies (28 instructions each in
/// the sizing pass).
#[test]
fn image_beyond_a_page() {
    let max = crate::jit::trampoline::bpf_max_tramp_links(Arch::Arm64) as u64;
    let tr = tramp(&[8; 6], BpfTrampNodes { fentry: (0..max).map(|n| prog(n, at::TRACE_FENTRY)).collect(), ..Default::default() });
    assert!(arch_prepare_bpf_trampoline(&tr, &Arm64Profile::default()).is_ok());
    let tr = tramp(
        &[8],
        BpfTrampNodes { fexit: (0..max).map(|n| BpfTrampNode { cookie: 0x1234_5678_9abc, ..prog(n, at::TRACE_FEXIT) }).collect(), ..Default::default() },
    );
    assert!(matches!(arch_prepare_bpf_trampoline(&tr, &Arm64Profile::default()), Err(TrampolineError::TooBig(_))));
    let tr = tramp(&[8], BpfTrampNodes { fentry: (0..2 * max).map(|n| prog(n, at::TRACE_FENTRY)).collect(), ..Default::default() });
    assert!(matches!(arch_prepare_bpf_trampoline(&tr, &Arm64Profile::default()), Err(TrampolineError::TooBig(_))));
}
