//! The control-flow graph (`kernel/bpf/cfg.c`): `bpf_check_cfg` (a
//! depth-first walk that finds jumps out of range, back-edges an
//! unprivileged loader may not have, unreachable insns and jumps into the
//! middle of an `ld_imm64`), `bpf_compute_postorder`, `bpf_compute_scc`
//! (loops, for the log and state pruning) and `bpf_insn_successors`.

use bpf_isa::helper_ids::bpf_func_id::{FIND_VMA, FOR_EACH_MAP_ELEM, LOOP, TIMER_SET_CALLBACK, USER_RINGBUF_DRAIN};
use bpf_isa::op::*;

use super::diag::bpf_diag_program_structure;
use super::env::*;
use super::errno::*;
use super::subprogs::BPF_FUNC_TAIL_CALL;
use super::{Fail, PResult};

const DISCOVERED: u8 = 0x10;
const EXPLORED: u8 = 0x20;
const FALLTHROUGH: u8 = 1;
const BRANCH: u8 = 2;

/// `bpf_is_sync_callback_calling_insn`.
pub fn bpf_is_sync_callback_calling_insn(env: &VerifierEnv<'_>, insn: &Insn) -> bool {
    (bpf_helper_call(insn) && matches!(insn.imm, FOR_EACH_MAP_ELEM | FIND_VMA | LOOP | USER_RINGBUF_DRAIN))
        || (bpf_pseudo_kfunc_call(insn) && insn.off == 0 && env.kfunc_name(insn.imm).is_some_and(super::graph::is_bpf_rbtree_add_kfunc))
}

/// `bpf_is_async_callback_calling_insn`.
pub fn bpf_is_async_callback_calling_insn(env: &VerifierEnv<'_>, insn: &Insn) -> bool {
    (bpf_helper_call(insn) && insn.imm == TIMER_SET_CALLBACK)
        || (bpf_pseudo_kfunc_call(insn) && insn.off == 0 && env.kfunc_name(insn.imm).is_some_and(super::kfuncs::is_async_callback_calling_kfunc))
}

/// `bpf_is_throw_kfunc`.
pub fn bpf_is_throw_kfunc(env: &VerifierEnv<'_>, insn: &Insn) -> bool {
    bpf_pseudo_kfunc_call(insn) && insn.off == 0 && env.kfunc_name(insn.imm) == Some("bpf_throw")
}

use bpf_isa::Insn;

struct Dfs {
    state: Vec<u8>,
    /// Entries `(first, end)`: one insn `(t, t + 1)`, or a run of plain
    /// insns `first..end` each pushed by the one before it as its
    /// fall-through (a straight-line program would otherwise put every
    /// insn on the stack, whose pages cost more than the DFS).
    stack: Vec<(u32, u32)>,
}

enum Visit {
    Done,
    Keep,
}

/// `push_insn`: follow edge `e` from `t` to `w`.
fn push_insn(env: &mut VerifierEnv<'_>, dfs: &mut Dfs, t: usize, w: i32, e: u8) -> PResult<Visit> {
    if e == FALLTHROUGH && dfs.state[t] >= DISCOVERED | FALLTHROUGH {
        return Ok(Visit::Done);
    }
    if e == BRANCH && dfs.state[t] >= DISCOVERED | BRANCH {
        return Ok(Visit::Done);
    }
    if w < 0 || w as usize >= env.len() {
        env.verbose_linfo(t, &format!("{t}: "));
        env.verbose(&format!("jump out of range from insn {t} to {w}\n"));
        let reason = format!("Instruction {t} jumps to instruction {w}, but the program only contains instructions 0 through {}.", env.len() as i64 - 1);
        bpf_diag_program_structure(env, t, "jump out of range", "Keep branch targets inside the program.", &reason);
        return Err(Fail::Errno(EINVAL));
    }
    let w = w as usize;
    if e == BRANCH {
        env.aux[w].prune_point = true;
        env.aux[w].jmp_point = true;
    }
    if dfs.state[w] == 0 {
        // tree edge
        dfs.state[t] = DISCOVERED | e;
        dfs.state[w] = DISCOVERED;
        if dfs.stack.len() >= env.len() {
            return Err(Fail::Errno(E2BIG));
        }
        dfs.stack.push((w as u32, w as u32 + 1));
        return Ok(Visit::Keep);
    }
    if dfs.state[w] & 0xf0 == DISCOVERED {
        // back edge: a loop, which only bpf_capable loaders may have
        env.cfg_loop_free = false;
        if env.bpf_capable {
            return Ok(Visit::Done);
        }
        env.verbose_linfo(t, &format!("{t}: "));
        env.verbose_linfo(w, &format!("{w}: "));
        env.verbose(&format!("back-edge from insn {t} to {w}\n"));
        let reason =
            format!("Instruction {t} branches back to instruction {w}. This program is being rejected without the privilege needed for this back-edge.");
        bpf_diag_program_structure(
            env,
            t,
            "back-edge is not allowed",
            "Load with privileges that allow this back-edge, or rewrite the control flow so it does not branch backward.",
            &reason,
        );
        return Err(Fail::Errno(EINVAL));
    }
    if dfs.state[w] == EXPLORED {
        // forward or cross edge
        dfs.state[t] = DISCOVERED | e;
        return Ok(Visit::Done);
    }
    env.verbose("verifier bug: insn state internal bug\n");
    Err(Fail::Errno(EFAULT))
}

/// `mark_subprog_changes_pkt_data`.
fn mark_subprog_changes_pkt_data(env: &mut VerifierEnv<'_>, t: usize) {
    if let Some(s) = env.bpf_find_containing_subprog(t) {
        env.subprog_info[s].changes_pkt_data = true;
    }
}

/// `mark_subprog_might_sleep`.
fn mark_subprog_might_sleep(env: &mut VerifierEnv<'_>, t: usize) {
    if let Some(s) = env.bpf_find_containing_subprog(t) {
        env.subprog_info[s].might_sleep = true;
    }
}

/// `mark_subprog_might_throw`.
fn mark_subprog_might_throw(env: &mut VerifierEnv<'_>, t: usize) {
    if let Some(s) = env.bpf_find_containing_subprog(t) {
        env.subprog_info[s].might_throw = true;
    }
}

/// `merge_callee_effects`: the caller of `w`'s subprogram at `t` inherits
/// what the callee may do. The DFS comes back to `t` once the callee is
/// explored, so the marks are complete by then (there is no recursion).
fn merge_callee_effects(env: &mut VerifierEnv<'_>, t: usize, w: i32) {
    let caller = env.bpf_find_containing_subprog(t);
    let callee = usize::try_from(w).ok().and_then(|w| env.bpf_find_containing_subprog(w));
    if let (Some(caller), Some(callee)) = (caller, callee) {
        env.subprog_info[caller].changes_pkt_data |= env.subprog_info[callee].changes_pkt_data;
        env.subprog_info[caller].might_sleep |= env.subprog_info[callee].might_sleep;
        env.subprog_info[caller].might_throw |= env.subprog_info[callee].might_throw;
    }
}

/// `bpf_fetch_kfunc_arg_meta` succeeding (a kfunc the program type may
/// call) for a `KF_SLEEPABLE` kfunc (`bpf_is_kfunc_sleepable`).
fn kfunc_arg_meta_sleepable(env: &VerifierEnv<'_>, insn: &Insn) -> bool {
    use super::kfuncs::{KFUNCS, btf_kfunc_is_allowed, kf};
    insn.off == 0
        && env
            .kfunc_name(insn.imm)
            .and_then(|name| KFUNCS.iter().find(|k| k.name == name))
            .is_some_and(|k| btf_kfunc_is_allowed(k, env.input.prog_type.0) && k.flags & kf::SLEEPABLE != 0)
}

/// `visit_func_call_insn`.
fn visit_func_call_insn(env: &mut VerifierEnv<'_>, dfs: &mut Dfs, t: usize, visit_callee: bool) -> PResult<Visit> {
    let insn = env.insns[t];
    let sz = if insn.is_ld_imm64() { 2 } else { 1 };
    let r = push_insn(env, dfs, t, (t + sz) as i32, FALLTHROUGH)?;
    if let Visit::Keep = r {
        return Ok(r);
    }
    if let Some(a) = env.aux.get_mut(t + sz) {
        a.prune_point = true;
        a.jmp_point = true;
    }
    if visit_callee {
        let w = jmp_target(t, insn.imm);
        env.aux[t].prune_point = true;
        merge_callee_effects(env, t, w);
        return push_insn(env, dfs, t, w, BRANCH);
    }
    Ok(r)
}

/// `visit_abnormal_return_insn`: tail calls and `LD_ABS`/`LD_IND` may
/// leave the subprogram through a hidden exit.
fn visit_abnormal_return_insn(env: &mut VerifierEnv<'_>, t: usize) {
    if env.aux[t].jt.is_some() {
        return;
    }
    let exit = env.bpf_find_containing_subprog(t).map_or(0, |s| env.subprog_info[s].exit_idx);
    env.aux[t].jt = Some([t + 1, exit].into());
    env.cfg_loop_free = false;
}

/// `visit_insn`.
fn visit_insn(env: &mut VerifierEnv<'_>, dfs: &mut Dfs, t: usize) -> PResult<Visit> {
    let insn = env.insns[t];
    if bpf_pseudo_func(&insn) {
        return visit_func_call_insn(env, dfs, t, true);
    }
    let cls = insn.class();
    if cls != BPF_JMP && cls != BPF_JMP32 {
        if cls == BPF_LD && matches!(mode(insn.code), BPF_ABS | BPF_IND) {
            visit_abnormal_return_insn(env, t);
        }
        let sz = if insn.is_ld_imm64() { 2 } else { 1 };
        return push_insn(env, dfs, t, (t + sz) as i32, FALLTHROUGH);
    }
    match op(insn.code) {
        BPF_EXIT => Ok(Visit::Done),
        BPF_CALL => {
            if bpf_is_async_callback_calling_insn(env, &insn) {
                env.aux[t].prune_point = true;
            }
            if bpf_is_sync_callback_calling_insn(env, &insn) {
                env.cfg_loop_free = false;
                let a = &mut env.aux[t];
                a.calls_callback = true;
                a.force_checkpoint = true;
                a.prune_point = true;
                a.jmp_point = true;
            }
            // a sleepable call in a non-sleepable context is refused when
            // checked, so the marks only matter where they are allowed
            if bpf_helper_call(&insn) && super::liveness::bpf_get_helper_proto(env, insn.imm).is_some_and(|fp| fp.might_sleep) {
                mark_subprog_might_sleep(env, t);
            }
            if bpf_pseudo_kfunc_call(&insn) && kfunc_arg_meta_sleepable(env, &insn) {
                mark_subprog_might_sleep(env, t);
            }
            if bpf_helper_call(&insn) && super::helpers::bpf_helper_changes_pkt_data(insn.imm) {
                mark_subprog_changes_pkt_data(env, t);
            }
            if bpf_pseudo_kfunc_call(&insn) && env.kfunc_name(insn.imm).is_some_and(super::kfuncs::bpf_is_kfunc_pkt_changing) {
                mark_subprog_changes_pkt_data(env, t);
            }
            if bpf_is_throw_kfunc(env, &insn) {
                mark_subprog_might_throw(env, t);
            }
            if bpf_helper_call(&insn) && insn.imm == BPF_FUNC_TAIL_CALL {
                visit_abnormal_return_insn(env, t);
            }
            if bpf_pseudo_kfunc_call(&insn) && env.kfunc_name(insn.imm).is_some_and(|n| n.starts_with("bpf_iter_") && n.ends_with("_next")) {
                env.aux[t].prune_point = true;
                env.aux[t].force_checkpoint = true;
            }
            visit_func_call_insn(env, dfs, t, insn.src == BPF_PSEUDO_CALL)
        }
        BPF_JA => {
            if src(insn.code) == BPF_X {
                return Err(Fail::unsupported("bpf_check_cfg", "gotox (indirect jumps through jump tables) is not modelled"));
            }
            let off = if cls == BPF_JMP { insn.off as i32 } else { insn.imm };
            let w = jmp_target(t, off);
            let r = push_insn(env, dfs, t, w, FALLTHROUGH)?;
            if let Visit::Keep = r {
                return Ok(r);
            }
            if let Some(a) = usize::try_from(w).ok().and_then(|w| env.aux.get_mut(w)) {
                a.prune_point = true;
                a.jmp_point = true;
            }
            Ok(r)
        }
        _ => {
            env.aux[t].prune_point = true;
            if bpf_is_may_goto_insn(&insn) {
                env.aux[t].force_checkpoint = true;
            }
            let r = push_insn(env, dfs, t, (t + 1) as i32, FALLTHROUGH)?;
            if let Visit::Keep = r {
                return Ok(r);
            }
            push_insn(env, dfs, t, jmp_target(t, insn.off as i32), BRANCH)
        }
    }
}

/// The DFS of `bpf_check_cfg` from what its stack holds (the
/// `walk_cfg` loop).
fn bpf_check_cfg_walk(env: &mut VerifierEnv<'_>, dfs: &mut Dfs) -> PResult<()> {
    let n = env.len();
    while let Some(&(first, end)) = dfs.stack.last() {
        let t = first as usize;
        if end - first > 1 {
            // a run of plain insns whose last one is done: all done
            dfs.state[t..end as usize].fill(EXPLORED);
            dfs.stack.pop();
            continue;
        }
        // Straight-line insns (most of any program) have one edge, the
        // fall-through: take it here as `visit_insn` would, along the whole
        // run of them, and leave everything else (jumps, calls,
        // LD_ABS/LD_IND, ld_imm64, errors, an edge to an already
        // discovered insn) to it.
        if is_plain_insn(&env.insns[t]) {
            if dfs.state[t] >= DISCOVERED | FALLTHROUGH {
                dfs.state[t] = EXPLORED;
                dfs.stack.pop();
                continue;
            }
            let mut w = t;
            while is_plain_insn(&env.insns[w]) && w + 1 < n && dfs.state[w + 1] == 0 {
                dfs.state[w] = DISCOVERED | FALLTHROUGH;
                dfs.state[w + 1] = DISCOVERED;
                w += 1;
            }
            if w > t {
                // t..w wait for w (one entry), w is next
                *dfs.stack.last_mut().expect("non-empty") = (t as u32, w as u32);
                dfs.stack.push((w as u32, w as u32 + 1));
                continue;
            }
        }
        match visit_insn(env, dfs, t)? {
            Visit::Done => {
                dfs.state[t] = EXPLORED;
                dfs.stack.pop();
            }
            Visit::Keep => {}
        }
    }
    Ok(())
}

/// An insn whose only successor is the next one and that marks nothing in
/// the aux data: not a jump, call or exit, not `BPF_LD` (ld_imm64, pseudo
/// funcs, LD_ABS/LD_IND).
fn is_plain_insn(insn: &Insn) -> bool {
    !matches!(insn.class(), BPF_JMP | BPF_JMP32 | BPF_LD)
}

/// `bpf_check_cfg`: non-recursive DFS from insn 0.
pub fn bpf_check_cfg(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let n = env.len();
    let mut dfs = Dfs { state: vec![0; n], stack: Vec::with_capacity(16) };
    env.cfg_loop_free = true;
    // the exception callback is an entry of its own
    let ex_insn_beg = match env.exception_callback_subprog {
        0 => 0,
        ex => env.subprog_info[ex].start,
    };
    dfs.state[0] = DISCOVERED;
    dfs.stack.push((0, 1));
    loop {
        bpf_check_cfg_walk(env, &mut dfs)?;
        if ex_insn_beg != 0 && dfs.state[ex_insn_beg] != EXPLORED {
            dfs.state[ex_insn_beg] = DISCOVERED;
            dfs.stack.push((ex_insn_beg as u32, ex_insn_beg as u32 + 1));
            continue;
        }
        break;
    }
    let mut i = 0;
    while i < n {
        if dfs.state[i] != EXPLORED {
            env.verbose(&format!("unreachable insn {i}\n"));
            let reason = format!("Instruction {i} is not reachable from the program entry point.");
            bpf_diag_program_structure(
                env,
                i,
                "unreachable instruction",
                "Remove the unreachable instruction or add valid control flow that reaches it.",
                &reason,
            );
            return Err(Fail::Errno(EINVAL));
        }
        if env.insns[i].is_ld_imm64() {
            if dfs.state.get(i + 1).copied().unwrap_or(0) != 0 {
                env.verbose(&format!("jump into the middle of ldimm64 insn {i}\n"));
                let reason = format!("Control flow reaches the second half of the ldimm64 instruction pair that starts at instruction {i}.");
                bpf_diag_program_structure(
                    env,
                    i,
                    "jump into ldimm64 immediate",
                    "Target the first instruction of the ldimm64 pair, or restructure the jump target.",
                    &reason,
                );
                return Err(Fail::Errno(EINVAL));
            }
            i += 1;
        }
        i += 1;
    }
    Ok(())
}

/// `bpf_insn_successors`: fall-through first, then the jump target; the
/// insn's jump table instead when it has one.
pub fn bpf_insn_successors<'a>(env: &'a VerifierEnv<'_>, idx: usize) -> Succ<'a> {
    let mut s = Succ { items: [0; 2], cnt: 0, jt: None };
    let insn = &env.insns[idx];
    let cls = insn.class();
    // only jumps, calls and LD_ABS/LD_IND have jump tables: the others
    // leave the (large) aux entry untouched, which on big programs is
    // most of what the analyses asking for successors cost
    let may_have_jt = matches!(cls, BPF_JMP | BPF_JMP32) || (cls == BPF_LD && mode(insn.code) != BPF_IMM);
    if may_have_jt && let Some(jt) = env.aux[idx].jt.as_deref() {
        s.jt = Some(jt);
        return s;
    }
    let (can_jump, can_fall) = if cls == BPF_JMP || cls == BPF_JMP32 {
        match op(insn.code) {
            BPF_EXIT => (false, false),
            BPF_JA => (true, false),
            BPF_CALL => (false, true),
            0xf0 => (false, true),
            _ => (true, true),
        }
    } else {
        (false, true)
    };
    let sz = if insn.is_ld_imm64() { 2 } else { 1 };
    if can_fall {
        s.items[s.cnt] = idx + sz;
        s.cnt += 1;
    }
    if can_jump {
        s.items[s.cnt] = jmp_target(idx, bpf_jmp_offset(insn)) as usize;
        s.cnt += 1;
    }
    s
}

/// The successors of one insn (`struct bpf_iarray`), borrowing a jump
/// table rather than copying it (the analyses ask for every insn's).
pub struct Succ<'a> {
    items: [usize; 2],
    cnt: usize,
    jt: Option<&'a [usize]>,
}

impl Succ<'_> {
    pub fn as_slice(&self) -> &[usize] {
        match self.jt {
            Some(v) => v,
            None => &self.items[..self.cnt],
        }
    }
}

/// The successors of a list of insns, computed once for analyses that
/// iterate to a fixed point (flat: one allocation, not one per insn).
pub struct SuccTable {
    start: Vec<u32>,
    targets: Vec<usize>,
}

impl SuccTable {
    pub fn new(env: &VerifierEnv<'_>, insns: &[usize]) -> SuccTable {
        let mut start = Vec::with_capacity(insns.len() + 1);
        let mut targets = Vec::with_capacity(insns.len() + insns.len() / 4);
        for &idx in insns {
            start.push(targets.len() as u32);
            targets.extend_from_slice(bpf_insn_successors(env, idx).as_slice());
        }
        start.push(targets.len() as u32);
        SuccTable { start, targets }
    }

    /// The successors of the `k`-th insn of the list.
    pub fn get(&self, k: usize) -> &[usize] {
        &self.targets[self.start[k] as usize..self.start[k + 1] as usize]
    }
}

/// `bpf_compute_postorder`: each subprogram's reachable insns in DFS
/// post-order, subprogram after subprogram.
pub fn bpf_compute_postorder(env: &mut VerifierEnv<'_>) {
    let n = env.len();
    let mut postorder = Vec::with_capacity(n);
    let mut state = vec![0u8; n];
    // entries `(first, end)`: one insn `(t, t + 1)`, or a run of plain
    // insns `first..end`, each the fall-through of the one before, all
    // explored and waiting for `end` (see `Dfs::stack`)
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for i in 0..env.subprog_cnt {
        env.subprog_info[i].postorder_start = postorder.len();
        stack.clear();
        let start = env.subprog_info[i].start as u32;
        stack.push((start, start + 1));
        while let Some(&(first, end)) = stack.last() {
            if end - first > 1 {
                // a run: emitted last to first, as one entry per insn would
                postorder.extend((first..end).rev());
                stack.pop();
                continue;
            }
            let top = first as usize;
            state[top] |= DISCOVERED;
            if state[top] & EXPLORED != 0 {
                postorder.push(top as u32);
                stack.pop();
                continue;
            }
            if is_plain_insn(&env.insns[top]) {
                // the one successor, without building the list, along the
                // whole run of plain insns
                let mut w = top;
                while is_plain_insn(&env.insns[w]) && w + 1 < n && state[w + 1] == 0 {
                    state[w] |= EXPLORED;
                    state[w + 1] |= DISCOVERED;
                    w += 1;
                }
                if w > top {
                    *stack.last_mut().expect("non-empty") = (top as u32, w as u32);
                    stack.push((w as u32, w as u32 + 1));
                    continue;
                }
            } else {
                let succ = bpf_insn_successors(env, top);
                for &s in succ.as_slice() {
                    if s < n && state[s] == 0 {
                        stack.push((s as u32, s as u32 + 1));
                        state[s] |= DISCOVERED;
                    }
                }
            }
            state[top] |= EXPLORED;
        }
    }
    let cnt = env.subprog_cnt;
    env.subprog_info[cnt].postorder_start = postorder.len();
    env.insn_postorder = postorder;
}

/// `bpf_compute_scc`: strongly connected components (Tarjan, iterative,
/// Pearce's variant) numbered from 1 in completion order; an insn alone in
/// its component gets 0 unless it loops to itself or calls a callback.
pub fn bpf_compute_scc(env: &mut VerifierEnv<'_>) {
    const NOT_ON_STACK: u32 = u32::MAX;
    let n = env.len();
    if env.cfg_loop_free {
        // no loop: every insn is alone in its component and none is
        // numbered (pruning dead branches only removed edges)
        env.scc_cnt = 1;
        return;
    }
    let mut stack: Vec<usize> = Vec::with_capacity(n);
    let mut pre = vec![0u32; n];
    let mut low = vec![0u32; n];
    let mut dfs: Vec<usize> = Vec::with_capacity(n);
    let mut next_pre = 1u32;
    let mut next_scc = 1u32;
    for i in 0..n {
        if pre[i] != 0 {
            continue;
        }
        stack.clear();
        dfs.clear();
        dfs.push(i);
        'dfs: while let Some(&w) = dfs.last() {
            if pre[w] == 0 {
                low[w] = next_pre;
                pre[w] = next_pre;
                next_pre += 1;
                stack.push(w);
            }
            let succ = bpf_insn_successors(env, w);
            let succ = succ.as_slice();
            for &s in succ {
                if s >= n {
                    continue;
                }
                if pre[s] != 0 {
                    low[w] = low[w].min(low[s]);
                } else {
                    dfs.push(s);
                    continue 'dfs;
                }
            }
            if low[w] < pre[w] {
                dfs.pop();
                continue;
            }
            let mut assign = stack.last() != Some(&w);
            if succ.contains(&w) {
                assign = true;
            }
            if env.bpf_calls_callback(w) {
                assign = true;
            }
            while let Some(t) = stack.pop() {
                low[t] = NOT_ON_STACK;
                if assign {
                    env.aux[t].scc = next_scc;
                }
                if t == w {
                    break;
                }
            }
            if assign {
                next_scc += 1;
            }
            dfs.pop();
        }
    }
    env.scc_cnt = next_scc;
}
