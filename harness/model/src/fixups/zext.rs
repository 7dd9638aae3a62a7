//! Zero extension of 32-bit subregister defs (`bpf_opt_subreg_zext_lo32_rnd_hi32`
//! and what it reads: which insns define a 32-bit subregister).

use bpf_isa::Insn;
use bpf_isa::op::*;

/// `insn_def_regno`: the register an insn writes, if any. Atomics write a
/// register only when they fetch (`r0` for cmpxchg, `src` otherwise) or
/// load-acquire (`dst`).
pub fn insn_def_regno(insn: &Insn) -> Option<u8> {
    match insn.code & 0x07 {
        BPF_JMP | BPF_JMP32 | BPF_ST => None,
        BPF_STX => bpf_atomic_load_reg(insn),
        _ => Some(insn.dst),
    }
}

/// `bpf_atomic_load_reg`: the register a `BPF_ATOMIC` insn loads into.
fn bpf_atomic_load_reg(insn: &Insn) -> Option<u8> {
    if !matches!(insn.code & 0xe0, BPF_ATOMIC | BPF_PROBE_ATOMIC) {
        return None;
    }
    match insn.imm {
        BPF_CMPXCHG => Some(0),
        BPF_LOAD_ACQ => Some(insn.dst),
        imm if imm & BPF_FETCH != 0 => Some(insn.src),
        _ => None,
    }
}

/// `bpf_is_reg64`: whether the register the insn defines holds a 64-bit
/// value (conservatively yes).
fn bpf_is_reg64(insn: &Insn) -> bool {
    let (class, mode, size, op) = (insn.code & 0x07, insn.code & 0xe0, insn.code & 0x18, insn.code & 0xf0);
    if (class == BPF_ALU || class == BPF_ALU64) && op == BPF_END && insn.imm != 64 {
        return false;
    }
    if class == BPF_ALU && op != BPF_END {
        return false;
    }
    let mode_mem = matches!(mode, BPF_MEM | BPF_PROBE_MEM | BPF_PROBE_MEM32);
    if class == BPF_LDX && mode_mem && size != BPF_DW {
        return false;
    }
    if class == BPF_STX && size != BPF_DW {
        return false;
    }
    if class == BPF_LD && matches!(mode, BPF_IND | BPF_ABS) {
        return false;
    }
    true
}

/// `bpf_insn_def32`: the 32-bit subregister the insn defines, if it
/// defines one. (Address space casts of an arena with
/// `BPF_F_NO_USER_CONV` also do, once arenas are modelled.)
pub fn bpf_insn_def32(insn: &Insn) -> Option<u8> {
    insn_def_regno(insn).filter(|_| !bpf_is_reg64(insn))
}

/// `is_cmpxchg_insn`: cmpxchg always loads R0, zero-extended, even where
/// the arch's instruction does not on failure.
fn is_cmpxchg_insn(insn: &Insn) -> bool {
    insn.code & 0x07 == BPF_STX && matches!(insn.code & 0xe0, BPF_ATOMIC | BPF_PROBE_ATOMIC) && insn.imm == BPF_CMPXCHG
}

/// `BPF_ZEXT_REG(reg)`: `wN = wN` marked (imm 1) as a zero extension.
pub fn bpf_zext_reg(reg: u8) -> Insn {
    Insn::new(BPF_ALU | BPF_MOV | BPF_X, reg, reg, 0, 1)
}

/// The seed of the `BPF_F_TEST_RND_HI32` poison: the kernel draws
/// `get_random_u32()`; the model draws from a fixed sequence so that a
/// load is reproducible (comparisons with a kernel mask the value).
pub const RND_HI32_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// `bpf_opt_subreg_zext_lo32_rnd_hi32`: after every 32-bit def whose upper
/// half is read (`zext_dst`), a `wN = wN` when the JIT needs it (riscv64,
/// s390x) or the def is a cmpxchg; with `BPF_F_TEST_RND_HI32`, after every
/// other 32-bit def, random garbage in the upper half
/// (`r12 = imm; r12 <<= 32; rN |= r12`).
pub fn bpf_opt_subreg_zext_lo32_rnd_hi32(env: &mut crate::verifier::env::VerifierEnv<'_>, seed: u64) -> Result<(), crate::verifier::Fail> {
    use super::patch::{Patches, apply};
    use crate::uapi::prog_flags::BPF_F_TEST_RND_HI32;
    use crate::verifier::reg::PTR_TO_CTX;

    let rnd_hi32 = env.input.prog_flags & BPF_F_TEST_RND_HI32 != 0;
    let needs_zext = env.input.arch.jit_needs_zext();
    let mut rng = seed | 1;
    let mut next_rnd = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng as u32
    };
    let mut patches = Patches::new();
    let (insns, aux, pass_aux) = (&env.insns, &env.aux, &env.pass_aux);
    if !rnd_hi32 && !needs_zext {
        // neither poison nor a JIT that needs the zext: only a cmpxchg
        // whose R0 is read gets one (the walk below, reduced to that)
        for (at, insn) in insns.iter().enumerate().filter(|(_, insn)| is_cmpxchg_insn(insn)) {
            if aux[at].zext_dst {
                patches.replace(at, vec![*insn, bpf_zext_reg(0)]);
            }
        }
        return apply(env, patches);
    }
    let mut i = 0;
    while i < insns.len() {
        let insn = insns[i];
        let at = i;
        i += 1;
        let load_reg = insn_def_regno(&insn);
        if !aux[at].zext_dst {
            let Some(reg) = load_reg.filter(|_| rnd_hi32) else { continue };
            if bpf_is_reg64(&insn) {
                if insn.code & 0x07 == BPF_LD && insn.code & 0xe0 == BPF_IMM {
                    i += 1;
                }
                continue;
            }
            // a ctx load may become a wider load
            if insn.code & 0x07 == BPF_LDX && pass_aux.get(at).is_some_and(|a| a.ptr_type == PTR_TO_CTX) {
                continue;
            }
            let imm = next_rnd() as i32;
            patches.replace(
                at,
                vec![
                    insn,
                    Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_AX, 0, 0, imm),
                    Insn::new(BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_AX, 0, 0, 32),
                    Insn::new(BPF_ALU64 | BPF_OR | BPF_X, reg, BPF_REG_AX, 0, 0),
                ],
            );
            continue;
        }
        if !needs_zext && !is_cmpxchg_insn(&insn) {
            continue;
        }
        // a kfunc's caller extends its result itself
        if insn.code == BPF_JMP | BPF_CALL && insn.src == BPF_PSEUDO_KFUNC_CALL {
            continue;
        }
        let Some(reg) = load_reg else {
            return Err(crate::verifier::Fail::unsupported("bpf_opt_subreg_zext_lo32_rnd_hi32", "zext_dst is set, but no reg is defined (a verifier bug)"));
        };
        patches.replace(at, vec![insn, bpf_zext_reg(reg)]);
    }
    apply(env, patches)
}

/// `BPF_REG_AX`: the kernel's hidden scratch register (r12 in 7.3, after
/// the stack-argument register r11).
pub const BPF_REG_AX: u8 = 12;
