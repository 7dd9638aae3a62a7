//! The trampoline's structure as 7.3's prepare_trampoline lays it out,
//! read back through the disassembler.

use super::*;
use crate::target::Arch;

/// `struct bpf_tramp_run_ctx` of the 7.3 images (their BTF).
const RUN_CTX: RunCtxLayout = RunCtxLayout { size: 16, bpf_cookie: 0 };

fn prog(n: u64) -> TrampNode {
    TrampNode { prog: 0xffff_8000_8200_0000 + n * 0x1000, bpf_func: 0xffff_8000_8400_0000 + n * 0x1000, ..Default::default() }
}

fn model(args: &[u8]) -> BtfFuncModel {
    BtfFuncModel { ret_size: 8, arg_size: args.to_vec(), ..Default::default() }
}

/// A traced function's trampoline with the 7.3.4 arm64 image's helper
/// addresses (its kallsyms).
struct Case {
    m: BtfFuncModel,
    flags: TrampFlags,
    nodes: TrampNodes,
    addrs: TrampAddrs,
}

fn tramp(args: &[u8], nodes: TrampNodes) -> Case {
    let flags = TrampFlags::bpf_trampoline_update(&nodes, false, false, false, false);
    let addrs = TrampAddrs {
        image: 0xffff_8000_8410_0000,
        func: 0xffff_8000_8012_3400,
        func_endbr: false,
        im: 0xffff_0000_c1a2_b300,
        bpf_prog_enter_recur: 0xffff_8000_803b_69a0,
        bpf_prog_exit_recur: 0xffff_8000_803b_6bd0,
        bpf_prog_enter: 0xffff_8000_803b_6250,
        bpf_prog_exit: 0xffff_8000_803b_6b80,
        bpf_prog_enter_sleepable_recur: 0xffff_8000_803b_6fc0,
        bpf_prog_exit_sleepable_recur: 0xffff_8000_803b_6de8,
        bpf_tramp_enter: 0xffff_8000_803b_79c0,
        bpf_tramp_exit: 0xffff_8000_803b_7a90,
    };
    Case { m: model(args), flags, nodes, addrs }
}

impl Case {
    fn prepare(&self, profile: &Arm64Profile) -> Result<TrampImage, TrampError> {
        arch_prepare_bpf_trampoline(profile, RUN_CTX, &self.m, self.flags, &self.nodes, &self.addrs)
    }

    fn size(&self) -> usize {
        arch_bpf_trampoline_size(&Arm64Profile::default(), RUN_CTX, &self.m, self.flags, &self.nodes, &self.addrs).unwrap()
    }
}

fn disasm(code: &[u8], base: u64) -> Vec<String> {
    code.chunks(4)
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
    let m = model(&[8, 16, 4]);
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 3, regs_for_args: 4, bstack_for_args: 0, ostack_for_args: 0 });
    // nine 8-byte args: the ninth on the stack; a 16-byte one that does
    // not fit in the last register goes to the stack with everything after
    let m = model(&[8; 9]);
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 8, regs_for_args: 8, bstack_for_args: 8, ostack_for_args: 8 });
    let m = model(&[8, 8, 8, 8, 8, 8, 8, 16, 1]);
    assert_eq!(calc_arg_aux(&m), ArgAux { args_in_regs: 7, regs_for_args: 7, bstack_for_args: 24, ostack_for_args: 24 });
}

fn build(tr: &Case) -> (TrampImage, Vec<String>) {
    let img = tr.prepare(&Arm64Profile::default()).unwrap();
    let text = disasm(&img.code, tr.addrs.image);
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
    let tr = tramp(&[8, 8], TrampNodes { fentry: vec![prog(1)], ..Default::default() });
    assert_eq!(tr.flags, TrampFlags { restore_regs: true, ..Default::default() });
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
    assert_eq!(img.heap_refs, [HeapRef { off: 4 * 13, len: 12, ptr: HeapPtr::Prog(BpfTrampProgType::Fentry, 0) }]);
    // the sizing pass called each of the three targets indirectly (four
    // instructions instead of one)
    assert_eq!(tr.size(), img.code.len() + 3 * 3 * 4);
}

/// fmod_ret and fexit (`BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME`):
/// `__bpf_tramp_enter`, the fmod_ret program's return value deciding
/// whether the original function runs, the call of it at the traced
/// function's return address, the fexit program, `__bpf_tramp_exit`,
/// the return to the traced function's caller with the return value.
#[test]
fn fmod_ret_and_fexit() {
    let tr = tramp(&[8], TrampNodes { fexit: vec![prog(1)], fmod_ret: vec![prog(2)], ..Default::default() });
    assert_eq!(tr.flags, TrampFlags { call_orig: true, skip_frame: true, ..Default::default() });
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
    assert_eq!(text[cbnz], format!("cbnz x10, {:#x}", tr.addrs.image + 4 * (orig as u64 + 3)));
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
    assert_eq!(tr.size(), img.code.len() + 4 * (8 * 3 + 2));
}

/// Arguments beyond x0-x7 are read from the traced function's stack
/// frame, their unused high bytes cleared for the programs, and copied
/// below the trampoline's frame for the original function.
#[test]
fn stack_arguments() {
    let tr = tramp(&[8, 8, 8, 8, 8, 8, 8, 16, 1, 2], TrampNodes { fexit: vec![prog(1)], ..Default::default() });
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

/// `bpf_get_func_ip` users get the traced function's address; a BTI
/// kernel starts the image with `bti jc`; a cookie goes into the run ctx.
#[test]
fn ip_arg_cookie_and_bti() {
    let mut tr = tramp(&[8], TrampNodes { fentry: vec![TrampNode { cookie: 0x1234_5678_9abc, ..prog(1) }], ..Default::default() });
    tr.flags = TrampFlags::bpf_trampoline_update(&tr.nodes, true, false, false, false);
    assert_eq!(tr.flags, TrampFlags { restore_regs: true, ip_arg: true, ..Default::default() });
    let (_, text) = build(&tr);
    // run ctx 0x0, ip 0x10, metadata 0x18
    assert_eq!(text[5..9], ["mov x10, #-0xcc00", "movk x10, #0x8012, lsl #16", "movk x10, #0x8000, lsl #32", "str x10, [sp, #0x10]"]);
    assert_eq!(text[9..11], ["mov w10, #0x1", "str x10, [sp, #0x18]"]);
    let nop = find(&text, 0, "nop");
    assert_eq!(text[nop + 1..nop + 5], ["mov x10, #0x123400000000", "movk x10, #0x5678, lsl #16", "movk x10, #0x9abc", "str x10, [sp]"]);
    let bti = Arm64Profile { bti_kernel: true, ..Arm64Profile::default() };
    let img = tr.prepare(&bti).unwrap();
    assert_eq!(disasm(&img.code, tr.addrs.image)[..2], ["bti jc", "stp x29, x9, [sp, #-0x10]!"]);
    assert_eq!(img.code.len(), 4 * (text.len() + 1));
}

/// A struct_ops trampoline (`BPF_TRAMP_F_INDIRECT`) is called through a
/// pointer: one frame, no x9, stack arguments above that one frame, the
/// program's return value returned to the caller.
#[test]
fn struct_ops() {
    let mut tr = tramp(&[8, 8, 8, 8, 8, 8, 8, 8, 4], TrampNodes { fentry: vec![TrampNode { enter: ProgEnter::Plain, ..prog(1) }], ..Default::default() });
    tr.flags = TrampFlags { indirect: true, ret_fentry_ret: true, ..Default::default() };
    let (img, text) = build(&tr);
    assert_eq!(text[..3], ["stp x29, x30, [sp, #-0x10]!", "mov x29, sp", "sub sp, sp, #0x80"]);
    let stack = find(&text, 0, "ldr x10, [x29, #0x10]");
    assert_eq!(text[stack..stack + 4], ["ldr x10, [x29, #0x10]", "lsl x10, x10, #32", "lsr x10, x10, #32", "str x10, [sp, #0x58]"]);
    // a struct_ops program without a private stack runs under __bpf_prog_enter
    assert!(text.contains(&"bl 0xffff8000803b6250".to_string()));
    // the program's return value is the trampoline's
    assert_eq!(text[find(&text, 0, "bl 0xffff800084001000") + 1], "str x0, [sp, #0x60]");
    assert_eq!(
        text[text.len() - 6..],
        ["ldr x19, [sp, #0x68]", "ldr x20, [sp, #0x70]", "ldr x0, [sp, #0x60]", "mov sp, x29", "ldp x29, x30, [sp], #0x10", "ret"]
    );
    assert_eq!(img.heap_refs.len(), 1);
    // __arena arguments it would convert against the program's arena
    tr.m.arg_flags = vec![FmodelFlags { signed: true, ..Default::default() }, FmodelFlags { arena: true, ..Default::default() }];
    assert!(matches!(tr.prepare(&Arm64Profile::default()), Err(TrampError::Unsupported(_))));
}

/// Calls out of `bl` range stay indirect, as in the sizing pass.
#[test]
fn far_calls_are_indirect() {
    let mut tr = tramp(&[8], TrampNodes { fexit: vec![prog(1)], ..Default::default() });
    tr.addrs.image = 0xffff_8000_9000_0000;
    let (img, text) = build(&tr);
    // only the two loads of `im` are shorter than the sizing pass assumed
    assert_eq!(tr.size(), img.code.len() + 2 * 4);
    assert!(!text.iter().any(|l| l.starts_with("bl ")));
    assert_eq!(text.iter().filter(|l| l.starts_with("blr x10")).count(), 5);
}

/// `BPF_MAX_TRAMP_LINKS` (37 on arm64) fentry programs fit in the page
/// `bpf_trampoline_update` allows; as many fexit programs with cookies
/// (28 instructions each in the sizing pass) do not.
#[test]
fn sizes_against_a_page() {
    let page = crate::target::PAGE_SIZE as usize;
    let tr = tramp(&[8; 6], TrampNodes { fentry: (0..37).map(prog).collect(), ..Default::default() });
    assert!(tr.size() <= page);
    let tr = tramp(&[8], TrampNodes { fexit: (0..37).map(|n| TrampNode { cookie: 0x1234_5678_9abc, ..prog(n) }).collect(), ..Default::default() });
    assert!(tr.size() > page);
    let mut m = model(&[8; 13]);
    m.ret_size = 0;
    let tr = Case { m, ..tramp(&[], TrampNodes::default()) };
    assert_eq!(tr.prepare(&Arm64Profile::default()), Err(TrampError::TooManyArgs(13)));
}
