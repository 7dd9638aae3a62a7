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
