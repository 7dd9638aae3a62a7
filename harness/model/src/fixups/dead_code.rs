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

/// `bpf_opt_remove_nops`: `goto pc+0` and `may_goto pc+0` go. The kernel
/// walks the program and removes each one as it meets it, O(N) per removal
/// ([`bpf_opt_remove_nops_one_at_a_time`]); the model finds the same insns
/// in one walk ([`nops_the_kernel_removes`]) and removes them in one step.
pub fn bpf_opt_remove_nops(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    remove_nops(&mut PatchTarget::of(env))
}

/// [`bpf_opt_remove_nops`] on the program and its per-insn data.
pub fn remove_nops(t: &mut PatchTarget<'_>) -> Result<(), Fail> {
    let gone = nops_the_kernel_removes(t.insns);
    if gone.is_empty() {
        return Ok(());
    }
    // one run per insn: removed one at a time, a jump into a removed insn
    // lands on the next insn still there, and that is what runs of one give
    let runs: Vec<(usize, usize)> = gone.into_iter().map(|x| (x, 1)).collect();
    patch::remove_insns(t, &runs)
}

/// Whether `insn`, with its offset as it is now, is one the kernel's walk
/// removes: a `goto pc+0` or `may_goto pc+0` exactly (the whole insn is
/// compared).
fn is_nop(insn: &Insn) -> bool {
    *insn == NOP || *insn == MAY_GOTO_0
}

/// The insns (ascending indexes into `insns`) the kernel's walk removes.
///
/// The walk removes the insn under it if it is a nop and then looks at the
/// same place again, or, after a `may_goto pc+0`, at the insn before it.
/// A removal changes only jumps across the removed insn: one after it
/// stays a nop or not (its offset is negative or unchanged), so an insn the
/// walk has not reached yet is judged as it was read; one before it that
/// jumped just past it becomes a nop exactly when it is the insn right
/// before it. So the walk keeps the insns it passed on a stack: the one on
/// top is a nop now when its target was after it and no insn is left
/// between them (every jump lands on the first insn still there at or
/// after its target), and it is looked at again only after a `may_goto
/// pc+0` went. Each insn is pushed and popped at most once: O(N).
pub fn nops_the_kernel_removes(insns: &[Insn]) -> Vec<usize> {
    let mut passed: Vec<usize> = Vec::new();
    let mut gone = Vec::new();
    let mut next = 0;
    // whether the walk looks at the top of the stack (else at `next`)
    let mut back = false;
    loop {
        if back {
            let Some(&j) = passed.last() else { break };
            let insn = insns[j];
            let target = j as i64 + insn.off as i64 + 1;
            let now = Insn { off: 0, ..insn };
            back = false;
            if is_nop(&now) && target > j as i64 && target <= next as i64 {
                passed.pop();
                gone.push(j);
                back = now == MAY_GOTO_0 && !passed.is_empty();
            }
            continue;
        }
        let Some(insn) = insns.get(next) else { break };
        if is_nop(insn) {
            gone.push(next);
            back = *insn == MAY_GOTO_0 && !passed.is_empty();
        } else {
            passed.push(next);
        }
        next += 1;
    }
    gone.sort_unstable();
    gone
}

/// The kernel's walk itself, each nop removed as met, O(N) per removal:
/// the reference [`remove_nops`] is checked against.
pub fn bpf_opt_remove_nops_one_at_a_time(t: &mut PatchTarget<'_>) -> Result<(), Fail> {
    let mut i = 0usize;
    while i < t.insns.len() {
        let insn = t.insns[i];
        if !is_nop(&insn) {
            i += 1;
            continue;
        }
        patch::verifier_remove_insns(t, i, 1)?;
        // after a `may_goto pc+0`, the insn before it again (a `may_goto
        // pc+1` there is one now); else the insn now in its place
        if insn == MAY_GOTO_0 && i > 0 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixups::patch::testing::{Owned, Rng, random_subprogs};
    use crate::verifier::do_check::PassAux;
    use crate::verifier::env::{InsnAux, SubprogInfo};

    /// Programs dense in what the walk looks at: nops, jumps of +1 and +2
    /// in front of them (nops once what they jump over goes), `may_goto`s,
    /// jumps into and across runs of nops, from both sides.
    fn random_prog(rng: &mut Rng, len: usize) -> Owned {
        let ja = |off: i16| Insn::new(BPF_JMP | BPF_JA, 0, 0, off, 0);
        let may_goto = |off: i16| Insn::new(BPF_JMP | BPF_JCOND, 0, 0, off, 0);
        let insns: Vec<Insn> = (0..len)
            .map(|_| {
                let near = rng.below(7) as i16 - 3;
                let far = rng.below(2 * len as u64 + 4) as i16 - len as i16 - 2;
                match rng.below(12) {
                    0 | 1 => NOP,
                    2 | 3 => MAY_GOTO_0,
                    4 => ja(near),
                    5 => may_goto(near),
                    6 => ja(far),
                    7 => Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, far, 0),
                    8 => Insn::new(BPF_JMP32 | BPF_JA, 0, 0, 0, far as i32),
                    9 => Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, far as i32),
                    10 => Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
                    _ => Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, 1),
                }
            })
            .collect();
        let aux = (0..len).map(|i| InsnAux { map_off: i as u32, ..InsnAux::default() }).collect();
        let pass_aux = (0..len).map(|i| PassAux { seen: true, alu_limit: i as u32, ..PassAux::default() }).collect();
        let (subprogs, cnt) = random_subprogs(rng, len, len as u64 / 2 + 1);
        Owned { insns, aux, pass_aux, subprogs, cnt }
    }

    #[test]
    fn one_step_equals_the_kernels_walk() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut checked, mut stepped_back, mut left) = (0, 0, 0);
        for case in 0..20_000 {
            let len = 1 + rng.below(30) as usize;
            let mut a = random_prog(&mut rng, len);
            let mut b = Owned { insns: a.insns.clone(), aux: a.aux.clone(), pass_aux: a.pass_aux.clone(), subprogs: a.subprogs.clone(), cnt: a.cnt };
            bpf_opt_remove_nops_one_at_a_time(&mut a.target()).unwrap();
            let gone = nops_the_kernel_removes(&b.insns);
            let plain = b.insns.iter().filter(|x| is_nop(x)).count();
            stepped_back += (gone.len() > plain) as usize;
            left += a.insns.iter().any(is_nop) as usize;
            remove_nops(&mut b.target()).unwrap();
            assert_eq!(a.snapshot(), b.snapshot(), "case {case}");
            checked += 1;
        }
        // the walk's corners are reached: nops made by removals, removed
        // after a `may_goto pc+0` or left in place
        assert!(checked > 10_000 && stepped_back > 200 && left > 1_000, "{checked} {stepped_back} {left}");
    }

    #[test]
    fn a_long_chain_goes_in_one_step() {
        // `r0 = 0; goto +0 x N; exit`: every `goto` goes, jumps over the
        // chain land on the exit
        let n = 200_000;
        let mut insns = vec![Insn::new(BPF_JMP | BPF_JA, 0, 0, (n / 8) as i16, 0)];
        insns.extend(std::iter::repeat_n(NOP, n));
        insns.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        let gone = nops_the_kernel_removes(&insns);
        assert_eq!(gone, (1..=n).collect::<Vec<_>>());
        let len = insns.len();
        let mut p = Owned {
            insns,
            aux: vec![InsnAux::default(); len],
            pass_aux: Vec::new(),
            subprogs: vec![SubprogInfo { start: 0, ..SubprogInfo::default() }, SubprogInfo { start: len, ..SubprogInfo::default() }],
            cnt: 1,
        };
        remove_nops(&mut p.target()).unwrap();
        assert_eq!(p.insns, vec![NOP, Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)]);
        assert_eq!(p.subprogs[1].start, 2);
    }
}
