//! Randomised checks of the domain: no panics (debug builds check overflow)
//! and soundness, by carrying one concrete value alongside each abstract one
//! through random ALU ops and branches. Fidelity to 7.3 is
//! checked on the scalar corpus recorded from it; this catches what that
//! corpus misses.

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::alu::adjust_scalar_min_max_vals;
use super::branch::scalar_cond_jmp;
use super::print::scalar_to_string;
use super::{Scalar, scalar_mov};
use crate::verifier::tnum::Tnum;

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Values near the interesting edges more often than uniform ones.
    fn value(&mut self) -> u64 {
        const EDGES: [u64; 10] = [0, 1, 2, 0x7f, 0xff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 1 << 63, u64::MAX];
        match self.below(4) {
            0 => EDGES[self.below(10) as usize].wrapping_add(self.below(3)).wrapping_sub(1),
            1 => self.below(64),
            2 => (self.next() as i8) as i64 as u64,
            _ => self.next(),
        }
    }
}

fn contains(s: &Scalar, v: u64) -> bool {
    (v & !s.var_off.mask) == s.var_off.value && s.r64.contains(v) && s.r32.contains(v as u32)
}

/// The concrete BPF result of an ALU op (`insn.off == 1`: signed div/mod).
fn concrete_alu(insn: &Insn, d: u64, s: u64) -> u64 {
    super::alu::bpf_alu_value(op(insn.code), insn.class() == BPF_ALU64, insn.off == 1, d, s)
}

fn concrete_end(insn: &Insn, d: u64) -> u64 {
    let swap = insn.class() == BPF_ALU64 || src(insn.code) == BPF_TO_BE;
    match (insn.imm, swap) {
        (16, true) => u64::from((d as u16).swap_bytes()),
        (32, true) => u64::from((d as u32).swap_bytes()),
        (64, true) => d.swap_bytes(),
        (16, false) => d & 0xffff,
        (32, false) => d & 0xffff_ffff,
        _ => d,
    }
}

fn concrete_cond(opcode: u8, is_jmp32: bool, a: u64, b: u64) -> bool {
    let (ua, ub, sa, sb) =
        if is_jmp32 { (u64::from(a as u32), u64::from(b as u32), i64::from(a as i32), i64::from(b as i32)) } else { (a, b, a as i64, b as i64) };
    match opcode {
        BPF_JEQ => ua == ub,
        BPF_JNE => ua != ub,
        BPF_JGT => ua > ub,
        BPF_JGE => ua >= ub,
        BPF_JLT => ua < ub,
        BPF_JLE => ua <= ub,
        BPF_JSGT => sa > sb,
        BPF_JSGE => sa >= sb,
        BPF_JSLT => sa < sb,
        BPF_JSLE => sa <= sb,
        _ => ua & ub != 0,
    }
}

/// A random abstract value holding the concrete `v`.
fn random_pair(rng: &mut Rng) -> (Scalar, u64) {
    let v = rng.value();
    let s = match rng.below(4) {
        0 => Scalar::known(v),
        1 => Scalar::unknown(),
        2 => {
            // Bits: a random mask of unknowns around v.
            let mask = rng.next() & rng.next();
            let mut s = Scalar::unknown();
            s.var_off = Tnum::new(v & !mask, mask);
            super::reg_bounds_sync(&mut s);
            s
        }
        _ => {
            // A range narrowed by a branch the value satisfies.
            let (mut s, k) = (Scalar::unknown(), Scalar::known(rng.value()));
            let ops = [BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE];
            let o = ops[rng.below(8) as usize];
            let jmp32 = rng.below(2) == 0;
            let (_, br) = scalar_cond_jmp(&s, &k, false, o, jmp32);
            s = if concrete_cond(o, jmp32, v, k.var_off.value) { br.true_reg1 } else { br.false_reg1 };
            s
        }
    };
    (s, v)
}

const ALU: [u8; 13] = [BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_MOD, BPF_OR, BPF_AND, BPF_XOR, BPF_LSH, BPF_RSH, BPF_ARSH, BPF_NEG, BPF_END];
const JMP: [u8; 11] = [BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JGE, BPF_JLT, BPF_JLE, BPF_JSGT, BPF_JSGE, BPF_JSLT, BPF_JSLE, BPF_JSET];

#[test]
fn random_ops_are_sound_and_never_panic() {
    let mut rng = Rng(0x7303_5ca1_a2d0_0001);
    for round in 0..200_000u32 {
        let (mut d, mut dv) = random_pair(&mut rng);
        let (s, sv) = random_pair(&mut rng);
        if !contains(&d, dv) || !contains(&s, sv) {
            // A narrowing branch the value did not take would be a bug too.
            panic!("round {round}: generator lost its witness: {d:?} {dv:#x} / {s:?} {sv:#x}");
        }
        if rng.below(3) == 0 {
            let opcode = JMP[rng.below(11) as usize];
            let jmp32 = rng.below(2) == 0;
            let (taken, br) = scalar_cond_jmp(&d, &s, false, opcode, jmp32);
            let truth = concrete_cond(opcode, jmp32, dv, sv);
            if let Some(t) = taken {
                assert_eq!(t, truth, "round {round}: {opcode:#x} jmp32={jmp32} {d:?}={dv:#x} {s:?}={sv:#x}");
            } else {
                let (r1, r2) = if truth { (br.true_reg1, br.true_reg2) } else { (br.false_reg1, br.false_reg2) };
                assert!(
                    contains(&r1, dv) && contains(&r2, sv),
                    "round {round}: {opcode:#x} jmp32={jmp32} truth={truth}: {d:?}={dv:#x} -> {r1:?}; {s:?}={sv:#x} -> {r2:?}"
                );
            }
            continue;
        }
        let opcode = ALU[rng.below(13) as usize];
        let class = if rng.below(2) == 0 { BPF_ALU64 } else { BPF_ALU };
        let mut insn = Insn { code: class | opcode | BPF_X, dst: 1, src: 2, off: 0, imm: 0 };
        if matches!(opcode, BPF_DIV | BPF_MOD) && rng.below(2) == 0 {
            insn.off = 1;
        }
        if opcode == BPF_END {
            insn.code = class | opcode | if rng.below(2) == 0 { BPF_TO_BE } else { BPF_TO_LE };
            insn.imm = [16, 32, 64][rng.below(3) as usize];
        }
        let before = d;
        let (src_abs, src_val) = if matches!(opcode, BPF_NEG | BPF_END) { (d, dv) } else { (s, sv) };
        let out = adjust_scalar_min_max_vals(&mut d, &src_abs, &insn);
        let _ = scalar_to_string(&d, 0, 0, false);
        dv = if opcode == BPF_END { concrete_end(&insn, dv) } else { concrete_alu(&insn, dv, src_val) };
        // The fork's two halves: the witness lives in one of them.
        let in_fork = out.fork.is_some_and(|f| {
            let mut o = f.dst;
            let _ = adjust_scalar_min_max_vals(&mut o, &src_abs, &insn);
            contains(&o, dv)
        });
        assert!(
            contains(&d, dv) || in_fork,
            "round {round}: {:#04x} off={} imm={}: {before:?} op {src_abs:?} (src {src_val:#x}) = {dv:#x}, got {d:?}",
            insn.code,
            insn.off,
            insn.imm
        );
        // Invalid offsets the verifier rejects earlier must not panic either.
        for off in [1i16, 32, 64, -1, i16::MAX] {
            let _ = scalar_mov(&d, rng.below(2) == 0, off);
        }
        // Moves and sign extensions, on the result.
        let off = [0i16, 8, 16, 32][rng.below(4) as usize];
        let alu64 = rng.below(2) == 0;
        if alu64 || off != 32 {
            let m = scalar_mov(&d, alu64, off);
            let mv = match (alu64, off) {
                (true, 0) => dv,
                (true, 8) => dv as i8 as i64 as u64,
                (true, 16) => dv as i16 as i64 as u64,
                (true, _) => dv as i32 as i64 as u64,
                (false, 0) => u64::from(dv as u32),
                (false, 8) => u64::from(dv as i8 as i32 as u32),
                (false, _) => u64::from(dv as i16 as i32 as u32),
            };
            assert!(contains(&m, mv), "round {round}: mov alu64={alu64} off={off}: {d:?}={dv:#x} -> {m:?}");
        }
    }
}
