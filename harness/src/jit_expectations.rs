//! The kernel's own arm64 `__jited` expectations (7.3's
//! tools/testing/selftests/bpf/progs/verifier_private_stack.c,
//! verifier_ldsx.c, verifier_jit_inline.c), matched with test_loader's
//! rules (the framework's matcher) against the model's arm64 image of the
//! program as the verifier and the fixups leave it (written out here, with
//! the facts the verifier decides: private stack, exception boundary,
//! arena).

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::jit::arm64::{Arm64Profile, bpf_int_jit_compile};
use crate::jit::{JitFunc, JitProgram};
use crate::target::Arch;

/// The model's image of `prog` matched with test_loader's `__jited` rules.
fn matches_jited(prog: &JitProgram, patterns: &[&str]) -> Result<(), String> {
    let images = bpf_int_jit_compile(prog, &Arm64Profile::default()).map_err(|e| e.to_string())?;
    let text = crate::jit_disasm::test_loader_text(Arch::Arm64, &images).join("\n") + "\n";
    let mut msgs = crate::matcher::ExpectedMsgs::default();
    let mut on_next_line = false;
    for p in patterns {
        msgs.push_disasm_msg(p, &mut on_next_line)?;
    }
    crate::matcher::validate_msgs(&text, &msgs).map_err(|m| format!("{}\n{text}", m.pattern_report()))
}

fn func(src: &str, depth: u32) -> JitFunc {
    let insns = bpf_isa::assemble(src).unwrap().insns;
    JitFunc { insns, stack_depth: depth, ..Default::default() }
}

fn program(funcs: Vec<JitFunc>) -> JitProgram {
    JitProgram { funcs, prog_type: 26, ..Default::default() }
}

#[test]
fn kernel_private_stack_single_prog() {
    let mut f = func("r1 = 42; *(u64 *)(r10 - 256) = r1; r0 = 0; exit", 256);
    f.jits_use_priv_stack = true;
    let pats = [
        "\tstp\tx25, x27, [sp, {{.*}}]!",
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
        "\tmov\tx0, #0x2a",
        "\tstr\tx0, [x27]",
        "...",
        "\tldp\tx25, x27, [sp], {{.*}}",
    ];
    matches_jited(&program(vec![f]), &pats).unwrap();
}

#[test]
fn kernel_no_private_stack_nested() {
    let f = func("r1 = 42; *(u64 *)(r10 - 8) = r1; r0 = 0; exit", 8);
    matches_jited(&program(vec![f]), &["\tmov\tx25, sp", "\tsub\tsp, sp, #0x10"]).unwrap();
}

#[test]
fn kernel_private_stack_nested_1() {
    // main: the deepest frame (MAX_BPF_STACK), then a call
    let mut main = func("r1 = 42; *(u64 *)(r10 - 512) = r1; call 2; r0 = 0; exit", 512);
    main.insns[2] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 1, 2);
    main.jits_use_priv_stack = true;
    let mut sub = func("r0 = 0; exit", 0);
    sub.start = 5;
    let pats = [
        "\tstp\tx25, x27, [sp, {{.*}}]!",
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
        "\tmov\tx0, #0x2a",
        "\tstr\tx0, [x27]",
        "\tbl\t{{.*}}",
        "...",
        "\tldp\tx25, x27, [sp], {{.*}}",
    ];
    matches_jited(&program(vec![main, sub]), &pats).unwrap();
}

#[test]
fn kernel_private_stack_exception_main_prog() {
    // r1 = 42; *(u64 *)(r10 - 512) = r1; bpf_throw(0) (a kfunc that never
    // returns: what follows is dead code the verifier removed)
    let mut main = func("r1 = 42; *(u64 *)(r10 - 512) = r1; r1 = 0; call 0", 512);
    main.insns[3] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, -0x1234);
    main.jits_use_priv_stack = true;
    main.exception_boundary = true;
    let pats = [
        "\tstp\tx29, x30, [sp, #-0x10]!",
        "\tmov\tx29, sp",
        "\tstp\txzr, x26, [sp, #-0x10]!",
        "\tmov\tx26, sp",
        "\tstp\tx19, x20, [sp, #-0x10]!",
        "\tstp\tx21, x22, [sp, #-0x10]!",
        "\tstp\tx23, x24, [sp, #-0x10]!",
        "\tstp\tx25, x26, [sp, #-0x10]!",
        "\tstp\tx27, x28, [sp, #-0x10]!",
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
        "\tmov\tx0, #0x2a",
        "\tstr\tx0, [x27]",
        "\tmov\tx0, #0x0",
        "\tbl\t0x{{.*}}",
        "\tmov\tx8, x0",
        "\tldp\tx27, x28, [sp], #0x10",
    ];
    matches_jited(&program(vec![main]), &pats).unwrap();
}

#[test]
fn kernel_private_stack_exception_sub_prog() {
    // the code after the call is dead (the callee always throws)
    let mut main = func("r1 = 42; *(u64 *)(r10 - 512) = r1; call 2", 512);
    main.insns[2] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 1, 0);
    main.jits_use_priv_stack = true;
    main.exception_boundary = true;
    let mut sub = func("r1 = 0; call 0; r0 = 0; exit", 0);
    sub.insns[1] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, -0x1234);
    sub.start = 3;
    let pats = [
        "\tstp\tx27, x28, [sp, #-0x10]!",
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
        "\tmov\tx0, #0x2a",
        "\tstr\tx0, [x27]",
        "\tbl\t0x{{.*}}",
        "\tmov\tx8, x0",
        "\tldp\tx27, x28, [sp], #0x10",
    ];
    matches_jited(&program(vec![main, sub]), &pats).unwrap();
}

#[test]
fn kernel_arena_ldsx_disasm() {
    // after the fixups: addr_space_cast(r0, 0, 1) is `w0 = w0`, the arena
    // loads are BPF_PROBE_MEM32SX
    let mut f = func(
        "r1 = 0 ll; r2 = 0; r3 = 1; r4 = -1; r5 = 0; call 0; w0 = w0; r1 = r0;
         r8 = *(s32 *)(r0 + 16); r8 = *(s16 *)(r0 + 24); r8 = *(s8 *)(r0 + 32);
         r9 = *(s32 *)(r1 + 16); r9 = *(s16 *)(r1 + 24); r9 = *(s8 *)(r1 + 32);
         r0 = 0; exit",
        0,
    );
    f.insns[0].src = BPF_PSEUDO_MAP_FD;
    f.insns[6] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, -0x4321);
    for i in &mut f.insns[9..15] {
        i.code = BPF_LDX | BPF_PROBE_MEM32SX | size(i.code);
    }
    let mut prog = program(vec![f]);
    prog.arena_vm_start = 0xffff_8001_0000_0000;
    prog.user_vm_start = 0x7f00_0000_0000;
    let pats = [
        "add\tx11, x8, x28",
        "ldrsw\tx21, [x11, #0x10]",
        "add\tx11, x8, x28",
        "ldrsh\tx21, [x11, #0x18]",
        "add\tx11, x8, x28",
        "ldrsb\tx21, [x11, #0x20]",
        "add\tx11, x0, x28",
        "ldrsw\tx22, [x11, #0x10]",
        "add\tx11, x0, x28",
        "ldrsh\tx22, [x11, #0x18]",
        "add\tx11, x0, x28",
        "ldrsb\tx22, [x11, #0x20]",
    ];
    matches_jited(&prog, &pats).unwrap();
}

#[test]
fn kernel_inline_bpf_get_current_task() {
    let f = func("call 35; r0 = 0; exit", 0);
    matches_jited(&program(vec![f]), &["\tmrs\tx8, SP_EL0"]).unwrap();
}

fn arena_program(src: &str, kfunc_flags: Vec<u8>) -> JitProgram {
    let mut f = func(src, 0);
    for i in &mut f.insns {
        if i.code == BPF_JMP | BPF_CALL && i.imm == 77 {
            *i = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, -0x777);
        }
    }
    let mut prog = program(vec![f]);
    prog.arena_vm_start = 0xffff_8001_0000_0000;
    prog.user_vm_start = 0x7f00_0000_0000;
    prog.kfunc_models = vec![crate::jit::KfuncModel { imm: -0x777, off: 0, arg_flags: kfunc_flags }];
    prog
}

#[test]
fn kernel_arena_arg_jit_rebase() {
    let arena = crate::jit::BTF_FMODEL_ARENA_ARG;
    let prog = arena_program("r1 = r6; call 77; r0 = 0; exit", vec![arena]);
    matches_jited(&prog, &["...", "\tadd\tx0, x28, w0, uxtw", "\t{{(bl|mov)\t.*}}"]).unwrap();
}

#[test]
fn kernel_arena_arg_jit_nullable() {
    let nullable = crate::jit::BTF_FMODEL_ARENA_ARG | crate::jit::BTF_FMODEL_NULLABLE_ARG;
    let prog = arena_program("r1 = r6; call 77; r0 = 0; exit", vec![nullable]);
    matches_jited(&prog, &["...", "\tmov\tw0, w0", "\tcbz\tw0, L0", "\tadd\tx0, x28, w0, uxtw", "L0:\t{{.*}}"]).unwrap();
}

#[test]
fn kernel_arena_arg_jit_args5() {
    let (a, n) = (crate::jit::BTF_FMODEL_ARENA_ARG, crate::jit::BTF_FMODEL_ARENA_ARG | crate::jit::BTF_FMODEL_NULLABLE_ARG);
    let prog = arena_program("r1 = r6; r2 = r6; r3 = r6; r4 = r6; r5 = r6; call 77; r0 = 0; exit", vec![a, a, a, a, n]);
    let pats = [
        "...",
        "\tadd\tx0, x28, w0, uxtw",
        "\tadd\tx1, x28, w1, uxtw",
        "\tadd\tx2, x28, w2, uxtw",
        "\tadd\tx3, x28, w3, uxtw",
        "\tmov\tw4, w4",
        "\tcbz\tw4, L0",
        "\tadd\tx4, x28, w4, uxtw",
        "L0:\t{{.*}}",
    ];
    matches_jited(&prog, &pats).unwrap();
}

#[test]
fn kernel_private_stack_callback() {
    // main: bpf_loop(1, loop_callback, 0, 0) as a helper call with the
    // callback's address; func #1 the callback, func #2
    // cumulative_stack_depth_subprog
    let mut main = func("r1 = 1; r2 = 0 ll; r3 = 0; r4 = 0; call 181; r0 = 0; exit", 0);
    main.insns[1] = Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_FUNC, 0, 7);
    main.insns[2] = Insn::new(0, 0, 0, 0, 1);
    main.insns[5].imm = 0x1234;
    let mut cb = func("call 7; r1 = 42; *(u64 *)(r10 - 512) = r1; call 2; r0 = 0; exit", 512);
    cb.insns[3] = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 2, 2);
    cb.insns[0].imm = 0x2345;
    cb.jits_use_priv_stack = true;
    cb.start = 8;
    let mut sub = func("r0 = 0; exit", 0);
    sub.start = 14;
    let pats = [
        "func #1",
        "...",
        "\tstp\tx25, x27, [sp, {{.*}}]!",
        "\tmov\tx27, {{.*}}",
        "\tmovk\tx27, {{.*}}, lsl #16",
        "\tmovk\tx27, {{.*}}",
        "\tmrs\tx10, TPIDR_EL{{[0-1]}}",
        "\tadd\tx27, x27, x10",
        "\tadd\tx25, x27, {{.*}}",
        "\tbl\t0x{{.*}}",
        "\tmov\tx8, x0",
        "\tmov\tx0, #0x2a",
        "\tstr\tx0, [x27]",
        "\tbl\t0x{{.*}}",
        "\tmov\tx8, x0",
        "\tmov\tx8, #0x0",
        "\tldp\tx25, x27, [sp], {{.*}}",
    ];
    matches_jited(&program(vec![main, cb, sub]), &pats).unwrap();
}
