//! The encoder against an independent decoder: every form the JIT emits,
//! over a broad set of operands, decodes (yaxpeax-arm, printed like LLVM
//! MC, `crate::jit_disasm`) to the instruction that was meant. And small
//! lowering cases whose expected code is spelled out from 7.3's
//! bpf_jit_comp.c.

use super::insn::*;
use super::*;

fn text(word: u32) -> String {
    let d = crate::jit_disasm::disasm_insn(Arch::Arm64, &word.to_le_bytes(), 0, &|_| None);
    d.map_or_else(|| format!("<undecodable {word:08x}>"), |d| d.text.trim_start().to_string())
}

fn x(r: Reg, is64: bool) -> String {
    match (r, is64) {
        (31, true) => "xzr".into(),
        (31, false) => "wzr".into(),
        (r, true) => format!("x{r}"),
        (r, false) => format!("w{r}"),
    }
}

fn xsp(r: Reg, is64: bool) -> String {
    match (r, is64) {
        (31, true) => "sp".into(),
        (31, false) => "wsp".into(),
        _ => x(r, is64),
    }
}

fn hex(v: i64) -> String {
    if v < 0 { format!("-0x{:x}", -v) } else { format!("0x{v:x}") }
}

/// Registers the JIT uses (x0-x12, x19-x22, x25-x30) and the zero register.
const REGS: [Reg; 12] = [0, 1, 4, 8, 9, 10, 11, 12, 19, 22, 25, 26];

#[test]
fn encoder_round_trips_through_the_decoder() {
    let mut cases: Vec<(u32, String)> = Vec::new();
    for is64 in [true, false] {
        let w = |r| x(r, is64);
        for &d in &REGS {
            for &s in &[0u8, 9, 25] {
                cases.push((move_reg(is64, d, s), format!("mov\t{}, {}", w(d), w(s))));
                cases.push((add_sub_reg(is64, d, d, s, AddSub::Add), format!("add\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((add_sub_reg(is64, d, d, s, AddSub::Sub), format!("sub\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((add_sub_reg(is64, ZR, d, s, AddSub::SubS), format!("cmp\t{}, {}", w(d), w(s))));
                cases.push((add_sub_reg(is64, d, ZR, s, AddSub::Sub), format!("neg\t{}, {}", w(d), w(s))));
                cases.push((logic_reg(is64, d, d, s, Logic::And), format!("and\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((logic_reg(is64, d, d, s, Logic::Orr), format!("orr\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((logic_reg(is64, d, d, s, Logic::Eor), format!("eor\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((logic_reg(is64, ZR, d, s, Logic::AndS), format!("tst\t{}, {}", w(d), w(s))));
                cases.push((logic_reg(is64, d, ZR, s, Logic::Orn), format!("mvn\t{}, {}", w(d), w(s))));
                cases.push((data3(is64, d, ZR, d, s, false), format!("mul\t{}, {}, {}", w(d), w(d), w(s))));
                cases.push((data3(is64, d, d, 10, s, true), format!("msub\t{}, {}, {}, {}", w(d), w(10), w(s), w(d))));
                for (t, m) in [(Data2::Udiv, "udiv"), (Data2::Sdiv, "sdiv"), (Data2::Lslv, "lsl"), (Data2::Lsrv, "lsr"), (Data2::Asrv, "asr")] {
                    cases.push((data2(is64, d, d, s, t), format!("{m}\t{}, {}, {}", w(d), w(d), w(s))));
                }
            }
            for imm in [0u32, 1, 0x18, 0x128, 0xfff, 0x1000, 0x7ff000] {
                let shown = if imm > 0xfff { format!("#0x{:x}, lsl #12", imm >> 12) } else { format!("#0x{imm:x}") };
                cases.push((add_sub_imm(is64, d, d, imm, AddSub::Add).unwrap(), format!("add\t{}, {}, {shown}", xsp(d, is64), xsp(d, is64))));
                cases.push((add_sub_imm(is64, d, d, imm, AddSub::Sub).unwrap(), format!("sub\t{}, {}, {shown}", xsp(d, is64), xsp(d, is64))));
                cases.push((add_sub_imm(is64, ZR, d, imm, AddSub::SubS).unwrap(), format!("cmp\t{}, {shown}", xsp(d, is64))));
                cases.push((add_sub_imm(is64, ZR, d, imm, AddSub::AddS).unwrap(), format!("cmn\t{}, {shown}", xsp(d, is64))));
            }
            assert_eq!(add_sub_imm(is64, d, d, 0x1001, AddSub::Add), None);
            for (imm, shift) in [(0u16, 0u32), (5, 0), (0xffff, 0), (0x1234, 16)] {
                let v = (imm as u64) << shift;
                cases.push((movewide(is64, d, imm, shift, MoveWide::Zero), format!("mov\t{}, #{}", w(d), hex(v as i64))));
                let k = if shift == 0 { format!("movk\t{}, #0x{imm:x}", w(d)) } else { format!("movk\t{}, #0x{imm:x}, lsl #{shift}", w(d)) };
                cases.push((movewide(is64, d, imm, shift, MoveWide::Keep), k));
            }
            // movn prints its value: all ones but the inverted block
            let inv = movewide(is64, d, 0x4, 0, MoveWide::Inverse);
            cases.push((inv, format!("mov\t{}, #-0x5", w(d))));
            for sh in [1u32, 3, 31] {
                cases.push((lsl_imm(is64, d, d, sh), format!("lsl\t{}, {}, #{sh}", w(d), w(d))));
                cases.push((lsr_imm(is64, d, d, sh), format!("lsr\t{}, {}, #{sh}", w(d), w(d))));
                cases.push((asr_imm(is64, d, d, sh), format!("asr\t{}, {}, #{sh}", w(d), w(d))));
            }
            cases.push((bitfield(is64, d, d, 0, 7, true), format!("sxtb\t{}, {}", w(d), x(d, false))));
            cases.push((bitfield(is64, d, d, 0, 15, true), format!("sxth\t{}, {}", w(d), x(d, false))));
            let uxth = if is64 { format!("ubfx\t{}, {}, #0, #16", w(d), w(d)) } else { format!("uxth\t{}, {}", w(d), w(d)) };
            cases.push((bitfield(is64, d, d, 0, 15, false), uxth));
            cases.push((rev16(is64, d, d), format!("rev16\t{}, {}", w(d), w(d))));
            let replicated = if is64 { (0x5555_5555_5555_5555u64, "0x5555555555555555") } else { (0x5555_5555, "0x55555555") };
            for (value, shown) in [(0xffu64, "0xff"), (0xff00, "0xff00"), replicated, (0x7fff_fff0, "0x7ffffff0")] {
                cases.push((logic_imm(is64, d, d, value, Logic::And).unwrap(), format!("and\t{}, {}, #{shown}", xsp(d, is64), w(d))));
                cases.push((logic_imm(is64, d, d, value, Logic::Orr).unwrap(), format!("orr\t{}, {}, #{shown}", xsp(d, is64), w(d))));
                cases.push((logic_imm(is64, d, d, value, Logic::Eor).unwrap(), format!("eor\t{}, {}, #{shown}", xsp(d, is64), w(d))));
                cases.push((logic_imm(is64, ZR, d, value, Logic::AndS).unwrap(), format!("tst\t{}, #{shown}", w(d))));
            }
        }
    }
    for &d in &REGS {
        cases.push((bitfield(true, d, d, 0, 31, true), format!("sxtw\t{}, {}", x(d, true), x(d, false))));
        cases.push((rev32(true, d, d), format!("rev32\t{}, {}", x(d, true), x(d, true))));
        cases.push((rev32(false, d, d), format!("rev\t{}, {}", x(d, false), x(d, false))));
        cases.push((rev64(d, d), format!("rev\t{}, {}", x(d, true), x(d, true))));
        cases.push((logic_imm(true, d, d, 0xffff_ffff_0000_0000, Logic::And).unwrap(), format!("and\t{}, {}, #0xffffffff00000000", xsp(d, true), x(d, true))));
        cases.push((add_uxtw(d, 28, d), format!("add\t{}, x28, {}, uxtw", xsp(d, true), x(d, false))));
        // loads and stores: every size and kind, scaled immediates and register offsets
        for (size, st, ld, lds, rt64) in
            [(0u32, "strb", "ldrb", "ldrsb", false), (1, "strh", "ldrh", "ldrsh", false), (2, "str", "ldr", "ldrsw", false), (3, "str", "ldr", "", true)]
        {
            for off in [0i32, 8, 0x18, 0x100, 0xff8] {
                let o = off & !((1 << size) - 1);
                let addr = if o == 0 { "[x10]".to_string() } else { format!("[x10, #0x{o:x}]") };
                cases.push((load_store_imm(d, 10, o, size, LdSt::Store).unwrap(), format!("{st}\t{}, {addr}", x(d, rt64))));
                cases.push((load_store_imm(d, 10, o, size, LdSt::Load).unwrap(), format!("{ld}\t{}, {addr}", x(d, rt64))));
                if !lds.is_empty() {
                    cases.push((load_store_imm(d, 10, o, size, LdSt::SignedLoad).unwrap(), format!("{lds}\t{}, {addr}", x(d, true))));
                }
            }
            assert_eq!(load_store_imm(d, 10, -8, size, LdSt::Load), None);
            assert_eq!(load_store_imm(d, 10, 0x1000 << size, size, LdSt::Load), None);
            cases.push((load_store_reg(d, 1, 10, size, LdSt::Store), format!("{st}\t{}, [x1, x10]", x(d, rt64))));
            cases.push((load_store_reg(d, 1, 10, size, LdSt::Load), format!("{ld}\t{}, [x1, x10]", x(d, rt64))));
            if !lds.is_empty() {
                cases.push((load_store_reg(d, 1, 10, size, LdSt::SignedLoad), format!("{lds}\t{}, [x1, x10, sxtx]", x(d, true))));
            }
            let (acq, rel) = match size {
                0 => ("ldarb", "stlrb"),
                1 => ("ldarh", "stlrh"),
                _ => ("ldar", "stlr"),
            };
            cases.push((load_acquire(d, 10, size), format!("{acq}\t{}, [x10]", x(d, rt64))));
            cases.push((store_release(d, 10, size), format!("{rel}\t{}, [x10]", x(d, rt64))));
        }
        // atomics, both widths
        for is64 in [true, false] {
            let w = |r| x(r, is64);
            for (op, name) in [(AtomicOp::Add, "add"), (AtomicOp::Clr, "clr"), (AtomicOp::Eor, "eor"), (AtomicOp::Set, "set")] {
                cases.push((atomic_ld_op(is64, ZR, 10, d, op, false), format!("st{name}\t{}, [x10]", w(d))));
                cases.push((atomic_ld_op(is64, d, 10, 11, op, true), format!("ld{name}al\t{}, {}, [x10]", w(11), w(d))));
            }
            cases.push((atomic_ld_op(is64, d, 10, d, AtomicOp::Swp, true), format!("swpal\t{}, {}, [x10]", w(d), w(d))));
            cases.push((casal(is64, d, 10, 8), format!("casal\t{}, {}, [x10]", w(8), w(d))));
            cases.push((ldxr(is64, d, 10), format!("ldxr\t{}, [x10]", w(d))));
            cases.push((stxr(is64, d, 10, 12, false), format!("stxr\tw12, {}, [x10]", w(d))));
            cases.push((stxr(is64, d, 10, 12, true), format!("stlxr\tw12, {}, [x10]", w(d))));
        }
        cases.push((push(d, 26, SP), format!("stp\t{}, x26, [sp, #-0x10]!", x(d, true))));
        // a pair load of one register twice is unpredictable (the JIT pops xzr, x26)
        let other = if d == 26 { ZR } else { 26 };
        cases.push((pop(d, other, SP), format!("ldp\t{}, {}, [sp], #0x10", x(d, true), x(other, true))));
        cases.push((br(d), format!("br\t{}", x(d, true))));
        cases.push((blr(d), format!("blr\t{}", x(d, true))));
        cases.push((mrs(d, SysReg::SpEl0), format!("mrs\t{}, SP_EL0", x(d, true))));
        cases.push((mrs(d, SysReg::TpidrEl1), format!("mrs\t{}, TPIDR_EL1", x(d, true))));
        cases.push((mrs(d, SysReg::TpidrEl2), format!("mrs\t{}, TPIDR_EL2", x(d, true))));
    }
    // branches: displacements in instructions, printed as byte offsets from pc 0
    for disp in [1i64, 2, 0x3f, -3, -0x40, 0x3ffff, -0x40000] {
        cases.push((branch_imm(disp, false).unwrap(), format!("b\t{}", hex_addr(disp))));
        cases.push((branch_imm(disp, true).unwrap(), format!("bl\t{}", hex_addr(disp))));
        for (c, m) in [
            (Cond::Eq, "eq"),
            (Cond::Ne, "ne"),
            (Cond::Cs, "hs"),
            (Cond::Cc, "lo"),
            (Cond::Hi, "hi"),
            (Cond::Ls, "ls"),
            (Cond::Ge, "ge"),
            (Cond::Lt, "lt"),
            (Cond::Gt, "gt"),
            (Cond::Le, "le"),
        ] {
            cases.push((cond_branch(c, disp).unwrap(), format!("b.{m}\t{}", hex_addr(disp))));
        }
        cases.push((comp_branch(true, 11, disp, false).unwrap(), format!("cbz\tx11, {}", hex_addr(disp))));
        cases.push((comp_branch(false, 12, disp, true).unwrap(), format!("cbnz\tw12, {}", hex_addr(disp))));
    }
    assert_eq!(cond_branch(Cond::Eq, 0x40000), None);
    assert_eq!(branch_imm(-0x200_0001, false), None);
    cases.push((load_literal64(10, 8), "ldr\tx10, #0x8".into()));
    cases.push((ret(LR), "ret".into()));
    for (w, t) in [
        (NOP, "nop"),
        (PACIASP, "paciasp"),
        (AUTIASP, "autiasp"),
        (BTI_C, "bti\tc"),
        (BTI_J, "bti\tj"),
        (BTI_JC, "bti\tjc"),
        (DMB_ISH, "dmb\tish"),
        (DSB_NSH, "dsb\tnsh"),
        (ISB, "isb"),
        (SB, "sb"),
    ] {
        cases.push((w, t.into()));
    }

    let bad: Vec<String> = cases
        .iter()
        .filter_map(|(w, want)| {
            let got = text(*w);
            (got != *want).then(|| format!("{w:08x}: meant {want:?}, decodes as {got:?}"))
        })
        .collect();
    assert!(bad.is_empty(), "{} of {} forms differ:\n{}", bad.len(), cases.len(), bad.join("\n"));
    assert!(cases.len() > 1500, "only {} forms", cases.len());
}

/// A branch target from pc 0, as LLVM prints it without a label.
fn hex_addr(disp: i64) -> String {
    format!("0x{:x}", (disp * 4) as u64)
}

#[test]
fn bitmask_immediates_round_trip() {
    // every encodable 32- and 64-bit pattern of a few element sizes decodes
    // back to itself; everything else is refused
    for is64 in [true, false] {
        for v in [0x1u64, 0x3, 0xf0, 0x8000_0001, 0x0f0f_0f0f, 0x3333_3333, 0xfffe, 0x1234, 0x8000_0000_0000_0001, 0xffff_0000_ffff_0000] {
            let ok = encode_bitmask_imm(is64, v);
            let Some((n, immr, imms)) = ok else { continue };
            // decode per the architecture's DecodeBitMasks
            let len = 31 - ((n << 6) | (!imms & 0x3f)).leading_zeros();
            let esize = 1u32 << len;
            let s = imms & (esize - 1);
            let r = immr & (esize - 1);
            let emask = if esize == 64 { u64::MAX } else { (1u64 << esize) - 1 };
            let run = (1u64 << (s + 1)) - 1;
            let elem = if r == 0 { run } else { ((run >> r) | (run << (esize - r))) & emask };
            let mut full = 0u64;
            let mut k = 0;
            while k < 64 {
                full |= elem << k;
                k += esize;
            }
            let want = if is64 { v } else { v | v << 32 };
            assert_eq!(full, want, "{v:#x} is64={is64}");
        }
    }
    assert_eq!(encode_bitmask_imm(true, 0x1234), None);
    assert_eq!(encode_bitmask_imm(false, 0x8000_0000_0000_0001), None);
}

fn jit_one(insns: &[Insn], depth: u32, profile: &Arm64Profile) -> Vec<String> {
    let prog =
        JitProgram { funcs: vec![JitFunc { insns: insns.to_vec(), start: 0, stack_depth: depth, ..Default::default() }], prog_type: 1, ..Default::default() };
    let images = bpf_int_jit_compile(&prog, profile).unwrap();
    crate::jit_disasm::test_loader_text(Arch::Arm64, &images).iter().map(|l| l.splitn(3, '\t').nth(2).unwrap_or(l).to_string()).collect()
}

/// The body between the frame set-up and the epilogue.
fn body(lines: &[String]) -> Vec<String> {
    let start = lines.iter().position(|l| l == "mov\tx26, sp").unwrap() + 1;
    let end = lines.iter().rposition(|l| l.starts_with("ldp\txzr, x26")).unwrap();
    lines[start..end].to_vec()
}

#[test]
fn ll_sc_atomics_without_lse() {
    let profile = Arm64Profile { lse_atomics: false, ..Arm64Profile::default() };
    // lock *(u64 *)(r1 + 8) += r2; r0 = 0; exit
    let insns = [
        Insn::new(BPF_STX | BPF_ATOMIC | BPF_DW, 1, 2, 8, BPF_ADD as i32),
        Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
        Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    ];
    let b = body(&jit_one(&insns, 0, &profile));
    assert_eq!(b[..5], ["add\tx10, x0, #0x8", "ldxr\tx11, [x10]", "add\tx11, x11, x1", "stxr\tw12, x11, [x10]", "cbnz\tw12, L0"]);
    let lse = body(&jit_one(&insns, 0, &Arm64Profile::default()));
    assert_eq!(lse[..2], ["add\tx10, x0, #0x8", "stadd\tx1, [x10]"]);
}

#[test]
fn tail_call_sequence() {
    // bpf_tail_call(ctx, r2, r3) then exit
    let insns = [Insn::new(BPF_JMP | BPF_TAIL_CALL, 0, 0, 0, 0), Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    let b = body(&jit_one(&insns, 0, &Arm64Profile::default()));
    let want = [
        "mov\tw10, #0x44",
        "ldr\tw10, [x1, x10]",
        "mov\tw2, w2",
        "cmp\tw2, w10",
        "b.hs\tL0",
        "mov\tw10, #0x21",
        "ldr\tx12, [x26]",
        "cmp\tx12, x10",
        "b.hs\tL0",
        "add\tx12, x12, #0x1",
        "mov\tw10, #0x128",
        "add\tx10, x1, x10",
        "lsl\tx11, x2, #3",
        "ldr\tx11, [x10, x11]",
        "cbz\tx11, L0",
        "str\tx12, [x26]",
        "mov\tw10, #0x48",
        "ldr\tx10, [x11, x10]",
        "add\tx10, x10, #0x1c",
        "br\tx10",
        "mov\tx8, #0x0",
    ];
    assert_eq!(b, want);
}

#[test]
fn mov_i64_picks_movz_or_movn() {
    let ld = |v: u64| {
        let insns = [
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, v as u32 as i32),
            Insn::new(0, 0, 0, 0, (v >> 32) as i32),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        body(&jit_one(&insns, 0, &Arm64Profile::default()))
    };
    assert_eq!(ld(0x1_0000_0000), ["mov\tx8, #0x100000000"]);
    assert_eq!(ld(0xffff_ffff_ffff_fffe), ["mov\tx8, #-0x2"]);
    assert_eq!(ld(0x1234_0000_5678), ["mov\tx8, #0x123400000000", "movk\tx8, #0x5678"]);
    assert_eq!(ld(0xffff_8000_1234_ffff), ["mov\tx8, #-0x7fff00000001", "movk\tx8, #0x1234, lsl #16"]);
    assert_eq!(ld(7), ["mov\tw8, #0x7"]);
}

#[test]
fn random_programs_never_panic() {
    // xorshift: any instruction stream, any stack depth, either an image or
    // an error
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..3000 {
        let n = 1 + (next() % 24) as usize;
        let insns: Vec<Insn> = (0..n)
            .map(|_| {
                let v = next();
                Insn::new(v as u8, (v >> 8) as u8 & 0xf, (v >> 12) as u8 & 0xf, (v >> 16) as i16 % 40, (v >> 32) as i32)
            })
            .collect();
        let depth = match round % 7 {
            0 => next() as u32,
            1 => u32::MAX - (next() % 16) as u32,
            _ => (next() % 512) as u32,
        };
        let prog = JitProgram::from_xlated_dump(&insns, &[depth, depth / 2], 1);
        let profile = Arm64Profile { lse_atomics: round % 2 == 0, ..Arm64Profile::default() };
        let _ = bpf_int_jit_compile(&prog, &profile);
    }
}

/// The kernel's own arm64 `__jited` expectations (7.3's
/// tools/testing/selftests/bpf/progs/verifier_private_stack.c,
/// verifier_ldsx.c, verifier_jit_inline.c), matched with test_loader's
/// rules against the model's image of the program as the verifier and the
/// fixups leave it (written out here, with the facts the verifier decides:
/// private stack, exception boundary, arena).
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

#[test]
fn bti_landing_pads() {
    // CONFIG_ARM64_BTI_KERNEL: `bti jc` at entry, `bti j` where a tail call
    // lands (PROLOGUE_OFFSET), and the tail call jumps past one more insn
    let profile = Arm64Profile { bti_kernel: true, ..Arm64Profile::default() };
    let insns = [Insn::new(BPF_JMP | BPF_TAIL_CALL, 0, 0, 0, 0), Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    let lines = jit_one(&insns, 0, &profile);
    assert_eq!(
        lines[1..10],
        ["bti\tjc", "mov\tx9, x30", "nop", "paciasp", "stp\tx29, x30, [sp, #-0x10]!", "mov\tx29, sp", "stp\txzr, x26, [sp, #-0x10]!", "mov\tx26, sp", "bti\tj"]
    );
    assert!(lines.contains(&"add\tx10, x10, #0x20".to_string()), "{lines:?}");
    let gotox = [Insn::new(BPF_JMP | BPF_JA | BPF_X, 1, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    let prog = JitProgram { funcs: vec![JitFunc { insns: gotox.to_vec(), ..Default::default() }], ..Default::default() };
    assert!(matches!(bpf_int_jit_compile(&prog, &profile), Err(JitError::Unsupported { .. })));
}
