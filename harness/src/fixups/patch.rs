//! The patch engine. A rewrite pass reads the program as the previous pass
//! left it and queues [`Patches`]: "replace insn `at` by these insns". The
//! engine then applies a pass's patches together, with the result 7.3 gets
//! from calling `bpf_patch_insn_data` once per patch as the pass walks the
//! program: branches remapped (`bpf_adj_branches`), per-insn aux data moved
//! (`adjust_insn_aux_data`), subprogram starts shifted.
//!
//! Naming: `at` is an index into the program the pass read. The insns of a
//! patch are laid out as the kernel lays them out when that patch alone is
//! applied: a jump inside a patch that leaves it is relative to the patch
//! in place, and a jump elsewhere that targeted the patched insn lands on
//! the first insn of its patch.
//!
//! [`apply_one_at_a_time`] is the kernel's way, patch by patch, kept as the
//! reference the engine is checked (and benchmarked) against.

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::do_check::PassAux;
use crate::verifier::env::{InsnAux, VerifierEnv};

/// One queued replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The insn replaced, as an index into the program the pass read.
    pub at: usize,
    /// What replaces it (at least one insn).
    pub insns: Vec<Insn>,
}

/// The patches of one pass, at distinct indexes, in any order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patches {
    pub list: Vec<Patch>,
}

impl Patches {
    pub fn new() -> Patches {
        Patches::default()
    }

    /// Queue "replace insn `at` by `insns`".
    pub fn replace(&mut self, at: usize, insns: Vec<Insn>) {
        debug_assert!(!insns.is_empty(), "a patch replaces an insn by at least one insn");
        self.list.push(Patch { at, insns });
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }
}

/// What the patches rewrite besides the insns.
pub struct PatchTarget<'e> {
    pub insns: &'e mut Vec<Insn>,
    pub aux: &'e mut Vec<InsnAux>,
    pub pass_aux: &'e mut Vec<PassAux>,
    /// `subprog_info[i].start` for every subprogram and the fake last one.
    pub subprog_starts: Vec<&'e mut usize>,
}

/// `bpf_patch_insn_data` once per patch, the kernel's way: each patch
/// remaps every branch of the whole program (O(N) per patch).
pub fn apply_one_at_a_time(env: &mut VerifierEnv<'_>, patches: Patches) -> Result<(), Fail> {
    let mut list = patches.list;
    // front to back at `at + delta`, as a pass's walk does: a jump that
    // leaves an earlier patch is then moved by the later patches it
    // crosses (applying from the back would leave it short of them)
    list.sort_by_key(|p| p.at);
    let mut delta = 0;
    for p in list {
        bpf_patch_insn_data(env, p.at + delta, &p.insns)?;
        delta += p.insns.len() - 1;
    }
    Ok(())
}

/// One patch: `bpf_patch_insn_single` and the aux data adjustments.
pub fn bpf_patch_insn_data(env: &mut VerifierEnv<'_>, off: usize, patch: &[Insn]) -> Result<(), Fail> {
    let len = patch.len();
    if len == 1 {
        env.insns[off] = patch[0];
    } else {
        let (end_old, end_new) = (off + 1, off + len);
        env.insns.splice(off..off + 1, patch.iter().copied());
        bpf_adj_branches(&mut env.insns, off, end_old, end_new)?;
        // the patched insn's aux data goes with its last insn
        let seen = env.pass_aux.get(off).is_some_and(|a| a.seen);
        env.aux.splice(off..off, std::iter::repeat_n(InsnAux::default(), len - 1));
        if !env.pass_aux.is_empty() {
            let fresh = PassAux { seen, ..PassAux::default() };
            env.pass_aux.splice(off..off, std::iter::repeat_n(fresh, len - 1));
        }
        for si in env.subprog_info.iter_mut().take(env.subprog_cnt + 1) {
            if si.start > off {
                si.start += len - 1;
            }
        }
    }
    // zext_dst of the patch's insns: whether each defines a 32-bit subregister
    for i in off..off + len {
        env.aux[i].zext_dst = crate::fixups::insn_def32(&env.insns, i);
    }
    Ok(())
}

/// `bpf_adj_branches` after `insns[pos]` became `insns[pos..end_new]`:
/// jumps and pseudo calls (and `ld_imm64` of a pseudo func) outside the
/// patch that cross it move by the growth.
pub fn bpf_adj_branches(insns: &mut [Insn], pos: usize, end_old: usize, end_new: usize) -> Result<(), Fail> {
    let delta = (end_new - end_old) as i64;
    let (pos, end_old, end_new) = (pos as i64, end_old as i64, end_new as i64);
    let adjust = |curr: i64, rel: i64| -> i64 {
        if curr < pos && curr + rel + 1 >= end_old {
            rel + delta
        } else if curr >= end_new && curr + rel + 1 < end_new {
            rel - delta
        } else {
            rel
        }
    };
    let range = |what: &str| Fail::unsupported("bpf_patch_insn_single", &format!("a patch moves a {what} out of its range (ERANGE)"));
    for (i, insn) in insns.iter_mut().enumerate() {
        let curr = i as i64;
        let class = insn.code & 0x07;
        let pseudo_func = insn.code == BPF_LD | BPF_IMM | BPF_DW && insn.src == BPF_PSEUDO_FUNC;
        let pseudo_call = insn.code == BPF_JMP | BPF_CALL && insn.src == BPF_PSEUDO_CALL;
        if pseudo_func || pseudo_call {
            let imm = adjust(curr, insn.imm as i64);
            insn.imm = i32::try_from(imm).map_err(|_| range("call"))?;
            continue;
        }
        if (class != BPF_JMP && class != BPF_JMP32) || matches!(insn.code & 0xf0, BPF_EXIT | BPF_CALL) {
            continue;
        }
        if insn.code == BPF_JMP32 | BPF_JA {
            insn.imm = i32::try_from(adjust(curr, insn.imm as i64)).map_err(|_| range("jump"))?;
        } else {
            insn.off = i16::try_from(adjust(curr, insn.off as i64)).map_err(|_| range("jump"))?;
        }
    }
    Ok(())
}

/// Apply one pass's patches. (For now patch by patch; the one-step engine
/// replaces this with the same result.)
pub fn apply(env: &mut VerifierEnv<'_>, patches: Patches) -> Result<(), Fail> {
    apply_one_at_a_time(env, patches)
}
