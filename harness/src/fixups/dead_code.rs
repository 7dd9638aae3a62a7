//! Dead code after the main pass (kernel/bpf/fixups.c, verifier.c): a
//! privileged load has branches into never-visited code hard-wired, that
//! code removed and the resulting no-op jumps dropped; an unprivileged one
//! keeps its layout and gets every unvisited insn turned into a trap
//! (`sanitize_dead_code`).

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::patch::{self, PatchTarget};
use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;

/// `goto pc+0`.
const NOP: Insn = Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0);
/// `may_goto pc+0`.
const MAY_GOTO_0: Insn = Insn::new(BPF_JMP | BPF_JCOND, 0, 0, 0, 0);

fn seen(env: &VerifierEnv<'_>, i: i64) -> bool {
    usize::try_from(i).ok().and_then(|i| env.pass_aux.get(i)).is_some_and(|a| a.seen)
}

/// `bpf_insn_is_cond_jump`.
pub fn bpf_insn_is_cond_jump(code: u8) -> bool {
    let op = code & 0xf0;
    match code & 0x07 {
        BPF_JMP32 => op != BPF_JA,
        BPF_JMP => !matches!(op, BPF_JA | BPF_EXIT | BPF_CALL),
        _ => false,
    }
}

/// `bpf_opt_hard_wire_dead_code_branches`: a conditional jump with one
/// side never visited becomes `goto` the other side (in place).
pub fn bpf_opt_hard_wire_dead_code_branches(env: &mut VerifierEnv<'_>) {
    for i in 0..env.insns.len() {
        let insn = env.insns[i];
        if !bpf_insn_is_cond_jump(insn.code) {
            continue;
        }
        let off = if !seen(env, i as i64 + 1) {
            insn.off
        } else if !seen(env, i as i64 + 1 + insn.off as i64) {
            0
        } else {
            continue;
        };
        env.insns[i] = Insn::new(BPF_JMP | BPF_JA, 0, 0, off, 0);
    }
}

/// `bpf_opt_remove_dead_code`: every run of unvisited insns goes, in one
/// step of the patch engine.
pub fn bpf_opt_remove_dead_code(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let mut runs = Vec::new();
    let n = env.insns.len();
    let mut i = 0;
    while i < n {
        if seen(env, i as i64) {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && !seen(env, i as i64) {
            i += 1;
        }
        runs.push((start, i - start));
    }
    if runs.is_empty() {
        return Ok(());
    }
    patch::remove_insns(&mut PatchTarget::of(env), &runs)
}

/// `bpf_opt_remove_nops`: `goto pc+0` and `may_goto pc+0` go one by one,
/// the kernel's way: after a `may_goto pc+0` the insn before it is looked
/// at again (a `may_goto pc+1` before it became one). Rare, so each
/// removal is the kernel's O(N) one.
pub fn bpf_opt_remove_nops(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let mut i: i64 = 0;
    while (i as usize) < env.insns.len() {
        // the next `goto`/`may_goto`, in one scan
        let from = i as usize;
        let Some(k) = env.insns[from..].iter().position(|x| x.code == NOP.code || x.code == MAY_GOTO_0.code) else { break };
        i = (from + k) as i64;
        let insn = env.insns[i as usize];
        let is_may_goto_0 = insn == MAY_GOTO_0;
        if insn != NOP && !is_may_goto_0 {
            i += 1;
            continue;
        }
        patch::verifier_remove_insns(&mut PatchTarget::of(env), i as usize, 1)?;
        if is_may_goto_0 && i > 0 {
            i -= 1;
        }
    }
    Ok(())
}

/// `sanitize_dead_code`: an unprivileged load keeps its unvisited insns,
/// each turned into `goto pc-1`.
pub fn sanitize_dead_code(env: &mut VerifierEnv<'_>) {
    let trap = Insn::new(BPF_JMP | BPF_JA, 0, 0, -1, 0);
    for i in 0..env.insns.len() {
        if seen(env, i as i64) {
            continue;
        }
        env.insns[i] = trap;
        env.aux[i].zext_dst = false;
    }
}
