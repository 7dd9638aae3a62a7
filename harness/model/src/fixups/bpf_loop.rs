//! `bpf_optimize_bpf_loop`: `bpf_loop` calls whose callback and flags the
//! main pass found fit (`loop_inline_state`) are replaced by an inline loop
//! (`inline_bpf_loop`, the loop of `bpf_iter.c:bpf_loop` in insns) that
//! keeps its bound, counter and context in R6-R8, spilled to three new
//! stack slots below the subprogram's frame.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::patch::{self, Patches};
use crate::limits::BPF_MAX_LOOPS;
use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::errno::E2BIG;
use crate::verifier::helpers::func;

const BPF_REG_SIZE: i32 = crate::verifier::state::BPF_REG_SIZE as i32;
/// The index of the callback call in the inlined loop.
const CALL_INSN: usize = 12;

/// `inline_bpf_loop`: the insns replacing the call at `at`, with their
/// spill slots at `stack_base` and the callback call aimed at insn
/// `callback_start` of the program as read (relative to the patch in place).
fn inline_bpf_loop(at: usize, stack_base: i32, callback_start: usize) -> Vec<Insn> {
    let (r6_off, r7_off, r8_off) = (stack_base, stack_base + BPF_REG_SIZE, stack_base + 2 * BPF_REG_SIZE);
    let (max, cnt, ctx) = (6, 7, 8);
    let stx = |reg: u8, off: i32| Insn::new(BPF_STX | BPF_MEM | BPF_DW, 10, reg, off as i16, 0);
    let ldx = |reg: u8, off: i32| Insn::new(BPF_LDX | BPF_MEM | BPF_DW, reg, 10, off as i16, 0);
    let mov = |dst: u8, src: u8| Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0);
    let mut v = vec![
        // too many iterations: -E2BIG, to the end of the patch
        Insn::new(BPF_JMP | BPF_JLE | BPF_K, 1, 0, 2, BPF_MAX_LOOPS as i32),
        Insn::new(BPF_ALU | BPF_MOV | BPF_K, 0, 0, 0, -E2BIG),
        Insn::new(BPF_JMP | BPF_JA, 0, 0, 16, 0),
        stx(6, r6_off),
        stx(7, r7_off),
        stx(8, r8_off),
        mov(max, 1),
        Insn::new(BPF_ALU | BPF_MOV | BPF_K, cnt, 0, 0, 0),
        mov(ctx, 3),
        // loop header: done when the counter reaches the bound
        Insn::new(BPF_JMP | BPF_JGE | BPF_X, cnt, max, 5, 0),
        mov(1, cnt),
        mov(2, ctx),
        Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0),
        Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, cnt, 0, 0, 1),
        // again while the callback returns 0
        Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, -6, 0),
        mov(0, cnt),
        ldx(6, r6_off),
        ldx(7, r7_off),
        ldx(8, r8_off),
    ];
    let n = v.len() as i64;
    // the callback's start as an insn of the patch in place
    let local = if callback_start > at { n + (callback_start - at - 1) as i64 } else { callback_start as i64 - at as i64 };
    v[CALL_INSN].imm = (local - CALL_INSN as i64 - 1) as i32;
    v
}

fn is_bpf_loop_call(insn: &Insn) -> bool {
    insn.code == BPF_JMP | BPF_CALL && insn.src == 0 && insn.imm == func::LOOP
}

/// The pass: one patch per call fit for inlining; each subprogram with one
/// grows its stack by the three slots (and the padding to 8 bytes).
pub fn bpf_optimize_bpf_loop(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let mut patches = Patches::new();
    for s in 0..env.subprog_cnt {
        let (start, end) = (env.subprog_info[s].start, env.subprog_info[s + 1].start.min(env.insns.len()));
        let depth = env.subprog_info[s].stack_depth as i32;
        let extra = BPF_REG_SIZE * 3 + ((depth + 7) / 8 * 8 - depth);
        let mut inlined = false;
        for i in start..end {
            if !is_bpf_loop_call(&env.insns[i]) {
                continue;
            }
            let Some(state) = env.pass_aux.get(i).map(|a| a.loop_inline) else { continue };
            if !state.fit_for_inline {
                continue;
            }
            let cb = env
                .subprog_info
                .get(state.callback_subprogno as usize)
                .filter(|_| (state.callback_subprogno as usize) < env.subprog_cnt)
                .ok_or_else(|| Fail::unsupported("bpf_optimize_bpf_loop", "the callback of an inlined bpf_loop is no subprogram"))?
                .start;
            patches.replace(i, inline_bpf_loop(i, -(depth + extra), cb));
            inlined = true;
        }
        if inlined {
            env.subprog_info[s].stack_depth += extra as u32;
        }
    }
    patch::apply(env, patches)
}
