//! Every encoder form against iced-x86's decoder: all registers, immediate
//! and displacement sizes, decode to exactly the instruction meant, in the
//! bytes emitted (nothing left over, nothing missing).

use super::encoder::*;
use super::*;
use iced_x86::{Decoder, DecoderOptions, Instruction, Mnemonic, OpKind, Register as R};

const R64: [R; 16] = [R::RAX, R::RCX, R::RDX, R::RBX, R::RSP, R::RBP, R::RSI, R::RDI, R::R8, R::R9, R::R10, R::R11, R::R12, R::R13, R::R14, R::R15];
const R32: [R; 16] = [R::EAX, R::ECX, R::EDX, R::EBX, R::ESP, R::EBP, R::ESI, R::EDI, R::R8D, R::R9D, R::R10D, R::R11D, R::R12D, R::R13D, R::R14D, R::R15D];
const R16: [R; 16] = [R::AX, R::CX, R::DX, R::BX, R::SP, R::BP, R::SI, R::DI, R::R8W, R::R9W, R::R10W, R::R11W, R::R12W, R::R13W, R::R14W, R::R15W];
const R8: [R; 16] = [R::AL, R::CL, R::DL, R::BL, R::SPL, R::BPL, R::SIL, R::DIL, R::R8L, R::R9L, R::R10L, R::R11L, R::R12L, R::R13L, R::R14L, R::R15L];

fn regs() -> impl Iterator<Item = Reg> {
    (0..16).filter_map(Reg::from_num)
}

/// Registers as BPF programs can name them: not rsp (never an operand of
/// the JIT's generated ALU code).
fn gprs() -> impl Iterator<Item = Reg> {
    regs().filter(|r| *r != Reg::RSP)
}

fn r64(r: Reg) -> R {
    R64[r.num() as usize]
}
fn r32(r: Reg) -> R {
    R32[r.num() as usize]
}
fn rw(r: Reg, is64: bool) -> R {
    if is64 { r64(r) } else { r32(r) }
}

const IMMS: [i32; 9] = [0, 1, -1, 127, -128, 128, -129, 0x7fff_ffff, i32::MIN];
const DISPS: [i32; 8] = [0, 8, -8, 127, -128, 128, -129, -0x1000_0000];

/// Decodes `f`'s bytes as exactly one instruction.
fn one(f: impl FnOnce(&mut Emitter)) -> Instruction {
    let mut e = Emitter::new();
    f(&mut e);
    let mut d = Decoder::with_ip(64, &e.buf, 0, DecoderOptions::NONE);
    let i = d.decode();
    assert!(!i.is_invalid(), "invalid: {:02x?}", e.buf);
    assert_eq!(i.len(), e.buf.len(), "one instruction of {:02x?}: {i}", e.buf);
    i
}

fn imm_of(i: &Instruction, op: u32) -> i64 {
    match i.op_kind(op) {
        OpKind::Immediate8 => i.immediate8() as i8 as i64,
        OpKind::Immediate8to32 | OpKind::Immediate8to64 | OpKind::Immediate32to64 => i.immediate(op) as i64,
        OpKind::Immediate16 => i.immediate16() as i16 as i64,
        OpKind::Immediate32 => i.immediate32() as i32 as i64,
        OpKind::Immediate64 => i.immediate64() as i64,
        k => panic!("operand {op} of {i} is {k:?}"),
    }
}

/// Bytes of the memory operand.
fn msize(i: &Instruction) -> usize {
    use iced_x86::MemorySize as M;
    match i.memory_size() {
        M::UInt8 | M::Int8 => 1,
        M::UInt16 | M::Int16 => 2,
        M::UInt32 | M::Int32 => 4,
        M::UInt64 | M::Int64 => 8,
        m => panic!("{i}: memory size {m:?}"),
    }
}

fn mem(i: &Instruction, base: Reg, disp: i32) {
    assert_eq!(i.memory_base(), r64(base), "{i}");
    assert_eq!(i.memory_displacement64() as i64, disp as i64, "{i}");
}

#[test]
fn alu_forms() {
    let ops = [
        (AluOp::Add, Mnemonic::Add),
        (AluOp::Or, Mnemonic::Or),
        (AluOp::And, Mnemonic::And),
        (AluOp::Sub, Mnemonic::Sub),
        (AluOp::Xor, Mnemonic::Xor),
        (AluOp::Cmp, Mnemonic::Cmp),
    ];
    for (op, m) in ops {
        for is64 in [false, true] {
            for d in gprs() {
                for s in gprs() {
                    let i = one(|e| e.alu_rr(op, is64, d, s));
                    assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (m, rw(d, is64), rw(s, is64)));
                }
                for imm in IMMS {
                    for f in [Emitter::alu_ri, Emitter::alu_ri32] {
                        let i = one(|e| f(e, op, is64, d, imm));
                        assert_eq!((i.mnemonic(), i.op0_register()), (m, rw(d, is64)), "{i}");
                        let want = if is64 { imm as i64 } else { imm as u32 as i64 };
                        let got = imm_of(&i, 1);
                        assert!(got == want || got as i32 == imm, "{i}: {got:#x} vs {imm:#x}");
                    }
                }
                for disp in DISPS {
                    let i = one(|e| e.alu_mr(op, is64, d, disp, Reg::RDX));
                    mem(&i, d, disp);
                    assert_eq!((i.mnemonic(), i.op1_register()), (m, rw(Reg::RDX, is64)));
                    let i = one(|e| e.alu_mi8(op, is64, d, disp, -3));
                    mem(&i, d, disp);
                    assert_eq!((i.mnemonic(), imm_of(&i, 1) as i8), (m, -3));
                }
            }
        }
    }
}

#[test]
fn moves_and_immediates() {
    for d in gprs() {
        for is64 in [false, true] {
            for s in gprs() {
                if is64 && d == s {
                    assert!(one_or_none(|e| e.mov_rr(true, d, s)), "mov r,r to itself is left out");
                    continue;
                }
                let i = one(|e| e.mov_rr(is64, d, s));
                assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (Mnemonic::Mov, rw(d, is64), rw(s, is64)));
                let i = one(|e| e.imul_rr(is64, d, s));
                assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (Mnemonic::Imul, rw(d, is64), rw(s, is64)));
                let i = one(|e| e.test_rr(is64, d, s));
                assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (Mnemonic::Test, rw(d, is64), rw(s, is64)));
                for bits in [8u8, 16, 32] {
                    if bits == 32 && !is64 {
                        continue;
                    }
                    let i = one(|e| e.movsx_rr(bits, is64, d, s));
                    let src = match bits {
                        8 => R8[s.num() as usize],
                        16 => R16[s.num() as usize],
                        _ => r32(s),
                    };
                    assert_eq!((i.op0_register(), i.op1_register()), (rw(d, is64), src), "{i}");
                }
                for imm in IMMS {
                    let i = one(|e| e.imul_rri(is64, d, s, imm));
                    assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register(), imm_of(&i, 2) as i32), (Mnemonic::Imul, rw(d, is64), rw(s, is64), imm));
                }
            }
            let i = one(|e| e.neg(is64, d));
            assert_eq!((i.mnemonic(), i.op0_register()), (Mnemonic::Neg, rw(d, is64)));
            let i = one(|e| e.bswap(is64, d));
            assert_eq!((i.mnemonic(), i.op0_register()), (Mnemonic::Bswap, rw(d, is64)));
            for signed in [false, true] {
                let i = one(|e| e.div(signed, is64, d));
                assert_eq!((i.mnemonic(), i.op0_register()), (if signed { Mnemonic::Idiv } else { Mnemonic::Div }, rw(d, is64)));
            }
            for imm in IMMS {
                let i = one(|e| e.test_ri(is64, d, imm));
                assert_eq!((i.mnemonic(), i.op0_register(), imm_of(&i, 1) as i32), (Mnemonic::Test, rw(d, is64), imm));
            }
        }
        for imm in IMMS {
            let i = one(|e| e.mov_ri32(d, imm as u32));
            assert_eq!((i.op0_register(), imm_of(&i, 1) as u32), (r32(d), imm as u32));
            let i = one(|e| e.mov_ri_sx(d, imm));
            assert_eq!((i.op0_register(), imm_of(&i, 1)), (r64(d), imm as i64));
        }
        for v in [0u64, 1, 0x8000_0000, 0xffff_8880_05e7_c000, u64::MAX] {
            let i = one(|e| e.movabs(d, v));
            assert_eq!((i.op0_register(), i.immediate64()), (r64(d), v));
        }
        let i = one(|e| e.zero(d));
        assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (Mnemonic::Xor, r32(d), r32(d)));
        let i = one(|e| e.movzx16_rr(d, d));
        assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (Mnemonic::Movzx, r32(d), R16[d.num() as usize]));
        let i = one(|e| e.ror16_ri(d, 8));
        assert_eq!((i.mnemonic(), i.op0_register(), imm_of(&i, 1)), (Mnemonic::Ror, R16[d.num() as usize], 8));
        let i = one(|e| e.push(d));
        assert_eq!((i.mnemonic(), i.op0_register()), (Mnemonic::Push, r64(d)));
        let i = one(|e| e.pop(d));
        assert_eq!((i.mnemonic(), i.op0_register()), (Mnemonic::Pop, r64(d)));
        let i = one(|e| e.jmp_reg(d));
        assert_eq!((i.mnemonic(), i.op0_register()), (Mnemonic::Jmp, r64(d)));
    }
}

fn one_or_none(f: impl FnOnce(&mut Emitter)) -> bool {
    let mut e = Emitter::new();
    f(&mut e);
    e.is_empty()
}

#[test]
fn shifts() {
    let ops = [(ShiftOp::Shl, Mnemonic::Shl), (ShiftOp::Shr, Mnemonic::Shr), (ShiftOp::Sar, Mnemonic::Sar), (ShiftOp::Rol, Mnemonic::Rol)];
    for (op, m) in ops {
        for is64 in [false, true] {
            for d in gprs() {
                for imm in [1u8, 2, 31, 63] {
                    let i = one(|e| e.shift_ri(op, is64, d, imm));
                    assert_eq!((i.mnemonic(), i.op0_register()), (m, rw(d, is64)));
                    if imm != 1 {
                        assert_eq!(imm_of(&i, 1), imm as i64);
                    }
                }
                let i = one(|e| e.shift_cl(op, is64, d));
                assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register()), (m, rw(d, is64), R::CL));
                if op == ShiftOp::Rol {
                    continue;
                }
                let mx = match op {
                    ShiftOp::Shl => Mnemonic::Shlx,
                    ShiftOp::Shr => Mnemonic::Shrx,
                    _ => Mnemonic::Sarx,
                };
                for c in gprs() {
                    let i = one(|e| e.shiftx(op, is64, d, d, c));
                    assert_eq!((i.mnemonic(), i.op0_register(), i.op1_register(), i.op2_register()), (mx, rw(d, is64), rw(d, is64), rw(c, is64)));
                }
            }
        }
    }
}

#[test]
fn loads_and_stores() {
    let widths = [Width::B, Width::H, Width::W, Width::Dw];
    for base in regs() {
        for r in gprs() {
            for disp in DISPS {
                for w in widths {
                    let (size, reg) = match w {
                        Width::B => (1, R8[r.num() as usize]),
                        Width::H => (2, R16[r.num() as usize]),
                        Width::W => (4, r32(r)),
                        Width::Dw => (8, r64(r)),
                    };
                    let i = one(|e| e.load(w, r, base, disp));
                    mem(&i, base, disp);
                    let dst = if matches!(w, Width::B | Width::H) { r64(r) } else { reg };
                    assert_eq!((i.op0_register(), msize(&i)), (dst, size), "{i}");
                    if w != Width::Dw {
                        let i = one(|e| e.load_sx(w, r, base, disp));
                        mem(&i, base, disp);
                        assert_eq!((i.op0_register(), msize(&i)), (r64(r), size), "{i}");
                    }
                    let i = one(|e| e.store(w, base, r, disp));
                    mem(&i, base, disp);
                    assert_eq!((i.mnemonic(), i.op1_register()), (Mnemonic::Mov, reg), "{i}");
                    for imm in [0, -1, 0x12] {
                        let i = one(|e| e.store_imm(w, base, disp, imm));
                        mem(&i, base, disp);
                        assert_eq!((msize(&i), imm_of(&i, 1) as i8), (size, imm as i8), "{i}");
                    }
                    if base == Reg::RSP {
                        continue;
                    }
                    let idx = Reg::R12;
                    for sx in [false, true] {
                        if sx && w == Width::Dw {
                            continue;
                        }
                        let i = one(|e| e.load_index(w, sx, r, base, idx, disp));
                        mem(&i, base, disp);
                        assert_eq!((i.memory_index(), msize(&i)), (R::R12, size), "{i}");
                    }
                    let i = one(|e| e.store_index(w, base, r, idx, disp));
                    mem(&i, base, disp);
                    assert_eq!((i.memory_index(), i.op1_register()), (R::R12, reg), "{i}");
                    let i = one(|e| e.store_imm_index(w, base, idx, disp, 7));
                    mem(&i, base, disp);
                    assert_eq!((i.memory_index(), imm_of(&i, 1)), (R::R12, 7), "{i}");
                }
                for is64 in [false, true] {
                    for aop in [BPF_ADD as i32, BPF_AND as i32, BPF_OR as i32, BPF_XOR as i32, BPF_ADD as i32 | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG] {
                        let i = one(|e| atomic_rmw(e, aop, is64, base, r, disp));
                        mem(&i, base, disp);
                        assert_eq!(i.op1_register(), rw(r, is64), "{i}");
                        assert_eq!(i.has_lock_prefix(), aop != BPF_XCHG, "{i}");
                    }
                }
            }
        }
    }
}

#[test]
fn branches_and_misc() {
    let conds = [
        (Cond::B, Mnemonic::Jb),
        (Cond::Ae, Mnemonic::Jae),
        (Cond::E, Mnemonic::Je),
        (Cond::Ne, Mnemonic::Jne),
        (Cond::Be, Mnemonic::Jbe),
        (Cond::A, Mnemonic::Ja),
        (Cond::L, Mnemonic::Jl),
        (Cond::Ge, Mnemonic::Jge),
        (Cond::Le, Mnemonic::Jle),
        (Cond::G, Mnemonic::Jg),
    ];
    for (c, m) in conds {
        for rel in [-128i32, -2, 0, 5, 123, 127] {
            let i = one(|e| e.jcc8(c, rel as i8));
            assert_eq!((i.mnemonic(), i.near_branch64() as i64), (m, 2 + rel as i64));
        }
        for rel in [-0x1000_0000i32, -129, 128, 0x7fff_0000] {
            let i = one(|e| e.jcc32(c, rel));
            assert_eq!((i.mnemonic(), i.near_branch64() as i64), (m, 6 + rel as i64));
        }
    }
    for rel in [-128i32, 0, 127] {
        let i = one(|e| e.jmp8(rel as i8));
        assert_eq!((i.mnemonic(), i.near_branch64() as i64), (Mnemonic::Jmp, 2 + rel as i64));
    }
    for rel in [-0x1000_0000i32, 0, 0x100] {
        let i = one(|e| e.jmp32(rel));
        assert_eq!((i.mnemonic(), i.near_branch64() as i64), (Mnemonic::Jmp, 5 + rel as i64));
        let i = one(|e| e.call32(rel));
        assert_eq!((i.mnemonic(), i.near_branch64() as i64), (Mnemonic::Call, 5 + rel as i64));
    }
    for n in 1..=11 {
        let i = one(|e| e.nops(n));
        assert_eq!(i.mnemonic(), Mnemonic::Nop);
    }
    assert_eq!(one(|e| e.endbr64()).mnemonic(), Mnemonic::Endbr64);
    assert_eq!(one(|e| e.lfence()).mnemonic(), Mnemonic::Lfence);
    assert_eq!(one(|e| e.sign_extend_rax(false)).mnemonic(), Mnemonic::Cdq);
    assert_eq!(one(|e| e.sign_extend_rax(true)).mnemonic(), Mnemonic::Cqo);
}

/// A program through the whole JIT: prologue, body, epilogue as 7.3 lays
/// them out (bytes of 7.3's image of the alu32_shift test program).
#[test]
fn jits_a_small_program_like_7_3() {
    let insns = [Insn::new(BPF_ALU | BPF_MOV | BPF_K, 0, 0, 0, 1), Insn::new(BPF_ALU | BPF_LSH | BPF_K, 0, 0, 0, 3), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    let prog = JitProgram::from_xlated_dump(&insns, &[0], 1);
    let img = bpf_int_jit_compile(&prog, &X86Profile::default()).unwrap();
    let hex: String = img[0].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "f30f1efa0f1f4400000f1f00554889e5f30f1efab801000000c1e003c9c3cc");
}

/// Jumps start as rel32 and shrink to rel8 over the passes; positive rel8
/// offsets stop at 123.
#[test]
fn jumps_converge_to_short_forms() {
    // if r1 == 0 goto +n; n x (r0 = 0x11223344, 5 bytes); exit
    for (n, short) in [(24usize, true), (25, false)] {
        let mut insns = vec![Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, n as i16, 0)];
        insns.extend(std::iter::repeat_n(Insn::new(BPF_ALU | BPF_MOV | BPF_K, 0, 0, 0, 0x1122_3344), n));
        insns.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        let prog = JitProgram::from_xlated_dump(&insns, &[0], 1);
        let img = &bpf_int_jit_compile(&prog, &X86Profile::default()).unwrap()[0];
        // after the 20-byte prologue: test rdi, rdi (3 bytes), then je
        let je = &img[0x17..];
        if short {
            assert_eq!(je[..2], [0x74, 5 * n as u8 - 5 + 5]);
        } else {
            assert_eq!(je[..2], [0x0f, 0x84]);
        }
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let prog = |insns: &[Insn]| JitProgram::from_xlated_dump(insns, &[0], 1);
    let p = X86Profile::default();
    // unknown opcode, jump out of the function, ld_imm64 cut short, bad register
    assert!(bpf_int_jit_compile(&prog(&[Insn::new(0xff, 0, 0, 0, 0)]), &p).is_err());
    assert!(bpf_int_jit_compile(&prog(&[Insn::new(BPF_JMP | BPF_JA, 0, 0, 100, 0)]), &p).is_err());
    assert!(bpf_int_jit_compile(&prog(&[Insn::new(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 0)]), &p).is_err());
    assert!(bpf_int_jit_compile(&prog(&[Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 13, 0, 0, 0)]), &p).is_err());
    assert!(bpf_int_jit_compile(&prog(&[Insn::new(BPF_STX | BPF_ATOMIC | BPF_B, 1, 2, 0, BPF_ADD as i32)]), &p).is_err());
}

/// Random instruction soup, random facts: an image or an error, never a panic.
#[test]
fn random_programs_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // mostly opcodes the JIT knows, so that the soup gets past the decoder
    let mut codes: Vec<u8> = Vec::new();
    for cls in [BPF_ALU, BPF_ALU64] {
        for op in (0..=0xd0).step_by(0x10) {
            codes.extend([cls | op as u8 | BPF_K, cls | op as u8 | BPF_X]);
        }
    }
    for cls in [BPF_JMP, BPF_JMP32] {
        for op in (0..=0xf0).step_by(0x10) {
            codes.extend([cls | op as u8 | BPF_K, cls | op as u8 | BPF_X]);
        }
    }
    for sz in [BPF_B, BPF_H, BPF_W, BPF_DW] {
        for m in [BPF_MEM, BPF_MEMSX, BPF_PROBE_MEM, BPF_PROBE_MEMSX, BPF_ATOMIC, BPF_PROBE_MEM32, 0xc0, BPF_PROBE_ATOMIC] {
            codes.extend([BPF_LDX | m | sz, BPF_ST | m | sz, BPF_STX | m | sz]);
        }
    }
    codes.extend([BPF_LD | BPF_IMM | BPF_DW, BPF_JMP | BPF_EXIT, BPF_JMP | BPF_CALL, 0xf5, 0xff]);
    let mut ok = 0;
    for round in 0..20000 {
        let n = 1 + (next() % 24) as usize;
        let insns: Vec<Insn> = (0..n)
            .map(|_| {
                let r = next();
                let code = codes[(r & 0xff) as usize % codes.len()];
                let imm = match (r >> 60) & 3 {
                    0 => (r >> 32) as i32,
                    1 => [BPF_ADD as i32, BPF_AND as i32 | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG, BPF_LOAD_ACQ, BPF_STORE_REL, 16, 32][(r >> 32) as usize % 8],
                    _ => ((r >> 32) as i32) % 70,
                };
                Insn::new(code, (r >> 8) as u8 % 12, (r >> 12) as u8 % 12, (r >> 16) as i16 % 8, imm)
            })
            .collect();
        let depths = [(next() % 600) as u32, u32::MAX - (next() % 16) as u32];
        let mut prog = JitProgram::from_xlated_dump(&insns, &depths, 1);
        if round % 3 == 0 {
            prog.arena_vm_start = 0xffff_c900_0000_0000;
            prog.user_vm_start = next();
        }
        for f in &mut prog.funcs {
            let r = next();
            f.tail_call_reachable = r & 1 != 0;
            f.exception_cb = r & 2 != 0 && round % 7 == 0;
            f.exception_boundary = r & 4 != 0;
            f.jits_use_priv_stack = r & 8 != 0;
            f.out_stack_arg_cnt = (r >> 4) as u16 % 4;
        }
        ok += usize::from(bpf_int_jit_compile(&prog, &X86Profile::default()).is_ok());
        let lean = X86Profile { ibt: false, rethunk: true, sls: false, bmi2: false, indirect_jump: IndirectJump::Lfence, ..X86Profile::default() };
        let _ = bpf_int_jit_compile(&prog, &lean);
    }
    // the soup must reach the emitters, not only the decoder's refusals
    assert!(ok > 500, "only {ok} of 20000 random programs JITed");
}

/// The image's test_loader text, without pcs and bytes.
fn text_of(prog: &JitProgram) -> Vec<String> {
    let images = bpf_int_jit_compile(prog, &X86Profile::default()).expect("JITs");
    crate::jit_disasm::test_loader_text(crate::target::Arch::X86_64, &images)
        .iter()
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (_, bytes, text) = (f.next(), f.next().unwrap_or(""), f.next().unwrap_or(l));
            // a branch target's label ends the bytes column
            match bytes.split_whitespace().last().filter(|t| t.ends_with(':')) {
                Some(label) => format!("{label}\t{}", text.trim()),
                None => text.trim().to_string(),
            }
        })
        .collect()
}

fn arena_prog(insns: &[Insn]) -> JitProgram {
    let mut p = JitProgram::from_xlated_dump(insns, &[0], 25);
    p.arena_vm_start = 0xffff_c900_0000_0000;
    p.user_vm_start = 0x7f12_0000_0000;
    p
}

/// Arena accesses go through r12 = kern_vm_start: `[src + r12 + off]`,
/// r12 saved around the program (the shapes of 7.3's arena `__jited` tests).
#[test]
fn arena_accesses_index_r12() {
    const MEM32SX: u8 = 0xc0;
    let mut insns = Vec::new();
    for (src, dst) in [(0u8, 8u8), (1, 9)] {
        for (sz, off) in [(BPF_W, 0x10), (BPF_H, 0x18), (BPF_B, 0x20)] {
            insns.push(Insn::new(BPF_LDX | MEM32SX | sz, dst, src, off, 0));
        }
    }
    insns.push(Insn::new(BPF_STX | BPF_PROBE_MEM32 | BPF_DW, 1, 2, 8, 0));
    insns.push(Insn::new(BPF_ST | BPF_PROBE_MEM32 | BPF_H, 1, 0, 2, 7));
    insns.push(Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_DW, 1, 2, 16, BPF_ADD as i32 | BPF_FETCH));
    insns.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    let t = text_of(&arena_prog(&insns));
    let want = [
        "pushq\t%r12",
        "movslq\t0x10(%rax,%r12), %r14",
        "movswq\t0x18(%rax,%r12), %r14",
        "movsbq\t0x20(%rax,%r12), %r14",
        "movslq\t0x10(%rdi,%r12), %r15",
        "movswq\t0x18(%rdi,%r12), %r15",
        "movsbq\t0x20(%rdi,%r12), %r15",
        "movq\t%rsi, 0x8(%rdi,%r12)",
        "movw\t$0x7, 0x2(%rdi,%r12)",
        "lock",
        "xaddq\t%rsi, 0x10(%rdi,%r12)",
        "popq\t%r12",
    ];
    let mut at = 0;
    for w in want {
        let k = t[at..].iter().position(|l| l.as_str() == w).unwrap_or_else(|| panic!("{w:?} not after line {at} in:\n{}", t.join("\n")));
        at += k + 1;
    }
    assert!(t.iter().any(|l| l.starts_with("movabsq\t$-0x370000000000, %r12")), "{}", t.join("\n"));
}

/// The exception table beside the image: one entry per arena access, at
/// the very instruction that touches `[reg + r12 + off]` and as long as it;
/// loads (and a fetch, xchg, cmpxchg or load-acquire) zero the register
/// they load into, plain stores and RMWs clear none; the bytes are those
/// of `bpf_int_jit_compile`.
#[test]
fn arena_extable_entries_mark_the_faulting_insns() {
    let mut insns = vec![
        Insn::new(BPF_LDX | BPF_PROBE_MEM32 | BPF_W, 0, 1, 8, 0),
        Insn::new(BPF_STX | BPF_PROBE_MEM32 | BPF_DW, 1, 2, 8, 0),
        Insn::new(BPF_ST | BPF_PROBE_MEM32 | BPF_B, 1, 0, -2, 7),
        Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_DW, 1, 2, 16, BPF_ADD as i32),
        Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_DW, 1, 3, 16, BPF_ADD as i32 | BPF_FETCH),
        Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_W, 1, 4, 0, BPF_XCHG),
        Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_DW, 1, 5, 0, BPF_CMPXCHG),
        Insn::new(BPF_STX | BPF_PROBE_ATOMIC | BPF_DW, 7, 1, 0, BPF_LOAD_ACQ),
    ];
    insns.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    let p = arena_prog(&insns);
    let profile = X86Profile::default();
    let (images, tables) = bpf_int_jit_compile_extable(&p, &profile).expect("jit");
    assert_eq!(images, bpf_int_jit_compile(&p, &profile).expect("jit"), "the same bytes");
    let clears = [Some(Reg::RAX), None, None, None, Some(Reg::RDX), Some(Reg::RCX), Some(Reg::RAX), Some(Reg::R13)];
    assert_eq!(tables[0].len(), clears.len());
    for (x, want) in tables[0].iter().zip(clears) {
        let mut d = Decoder::with_ip(64, &images[0][x.insn..], 0, DecoderOptions::NONE);
        let i = d.decode();
        assert_eq!(i.len(), x.len as usize, "{x:?}: {i}");
        assert_eq!(i.memory_index(), R::R12, "{x:?}: {i}");
        assert_eq!(x.clear, want, "{i}");
    }
}

/// `__arena` kfunc arguments are rebased on r12 before the call; nullable
/// ones keep NULL.
#[test]
fn arena_kfunc_arguments_are_rebased() {
    let call = Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 0x1234);
    let mut p = arena_prog(&[call, Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)]);
    let (arena, nullable) = (super::super::BTF_FMODEL_ARENA_ARG, super::super::BTF_FMODEL_NULLABLE_ARG);
    p.kfunc_models.push(super::super::KfuncModel { imm: 0x1234, off: 0, arg_flags: vec![arena, 0, arena, 0, arena | nullable] });
    let t = text_of(&p);
    let body: Vec<&str> = t.iter().map(String::as_str).skip_while(|l| !l.starts_with("movl\t%edi")).take(9).collect();
    assert_eq!(
        body,
        [
            "movl\t%edi, %edi",
            "addq\t%r12, %rdi",
            "movl\t%edx, %edx",
            "addq\t%r12, %rdx",
            "movl\t%r8d, %r8d",
            "testl\t%r8d, %r8d",
            "je\tL0",
            "addq\t%r12, %r8",
            body.get(8).copied().filter(|l| l.starts_with("L0:\tcallq\t0x")).unwrap_or("L0:\tcallq 0x..."),
        ]
    );
}

/// `addr_space_cast(r, 0x1, 0x0)`: the user address, 0 kept 0.
#[test]
fn cast_user_builds_the_user_address() {
    let cast = Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 0, 6, BPF_ADDR_SPACE_CAST, 1 << 16);
    let t = text_of(&arena_prog(&[cast, Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)]));
    let body: Vec<&str> = t.iter().map(String::as_str).skip_while(|l| !l.starts_with("movl\t%ebx, %eax")).take(7).collect();
    assert_eq!(
        body,
        ["movl\t%ebx, %eax", "shlq\t$0x20, %rax", "orq\t$0x7f12, %rax", "rolq\t$0x20, %rax", "xorq\t%r11, %r11", "testl\t%eax, %eax", "cmoveq\t%r11, %rax"]
    );
}

/// Stack arguments: BPF's r11-8 is r9, r11-16, r11-24... are [rsp],
/// [rsp+8]... below the saved registers (room made in the prologue);
/// incoming r11+8 is r9, r11+16... are the caller's [rbp+16]...
#[test]
fn stack_arguments_around_rbp_and_r9() {
    let insns = [
        Insn::new(BPF_STX | BPF_MEM | BPF_DW, MAX_BPF_REG, 1, -8, 0),
        Insn::new(BPF_ST | BPF_MEM | BPF_DW, MAX_BPF_REG, 0, -16, 5),
        Insn::new(BPF_STX | BPF_MEM | BPF_DW, MAX_BPF_REG, 6, -24, 0),
        Insn::new(BPF_LDX | BPF_MEM | BPF_DW, 0, MAX_BPF_REG, 8, 0),
        Insn::new(BPF_LDX | BPF_MEM | BPF_DW, 0, MAX_BPF_REG, 16, 0),
        Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    ];
    let mut p = JitProgram::from_xlated_dump(&insns, &[16], 1);
    p.funcs[0].out_stack_arg_cnt = 3;
    let t = text_of(&p);
    let body: Vec<&str> = t.iter().map(String::as_str).skip_while(|l| *l != "subq\t$0x10, %rsp").collect();
    assert_eq!(
        body[..10],
        [
            "subq\t$0x10, %rsp",
            "pushq\t%rbx",
            "subq\t$0x10, %rsp",
            "movq\t%rdi, %r9",
            // rsp = rbp - 16 (frame) - 8 (rbx) - 16 (outgoing): [rsp] and [rsp+8]
            "movq\t$0x5, -0x28(%rbp)",
            "movq\t%rbx, -0x20(%rbp)",
            "movq\t%r9, %rax",
            "movq\t0x10(%rbp), %rax",
            "addq\t$0x10, %rsp",
            "popq\t%rbx",
        ]
    );
    // r11 anywhere else is refused
    let bad = JitProgram::from_xlated_dump(&[Insn::new(BPF_ALU64 | BPF_ADD | BPF_X, 0, MAX_BPF_REG, 0, 0)], &[0], 1);
    assert!(bpf_int_jit_compile(&bad, &X86Profile::default()).is_err());
}

/// gotox: an indirect jump (through the retpoline thunk of the default
/// profile, `jmp *%reg; int3` on a plain one), `endbr64` at its targets.
#[test]
fn indirect_jumps_and_their_targets() {
    let insns =
        [Insn::new(BPF_JMP | BPF_JA | BPF_X, 2, 0, 0, 0), Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
    let mut p = JitProgram::from_xlated_dump(&insns, &[0], 1);
    p.funcs[0].indirect_targets = vec![1];
    let t = text_of(&p);
    let body: Vec<&str> = t.iter().map(String::as_str).skip(7).take(3).collect();
    assert!(body[0].starts_with("jmp\t0x"), "{body:?}");
    assert_eq!(body[1..], ["endbr64", "movl\t$0x1, %eax"]);
    let plain = X86Profile { indirect_jump: IndirectJump::Plain, ..X86Profile::default() };
    let images = bpf_int_jit_compile(&p, &plain).unwrap();
    let t = crate::jit_disasm::test_loader_text(crate::target::Arch::X86_64, &images);
    assert!(t.iter().any(|l| l.ends_with("jmpq\t*%rsi")), "{t:?}");
}
