//! The patch engine. A rewrite pass reads the program as the previous pass
//! left it and queues [`Patches`]: "replace insn `at` by these insns". The
//! engine then applies a pass's patches together, in one O(N + inserted)
//! step, with the result 7.3 gets from calling `bpf_patch_insn_data` once
//! per patch as the pass walks the program: branches remapped
//! (`bpf_adj_branches`), per-insn aux data moved (`adjust_insn_aux_data`),
//! subprogram starts shifted (`adjust_subprog_starts`). Dead code goes the
//! same way ([`remove_insns`]: `verifier_remove_insns` per run).
//!
//! Naming: `at` is an index into the program the pass read. The insns of a
//! patch are laid out as the kernel lays them out when that patch alone is
//! applied: a jump inside a patch that leaves it is relative to the patch
//! in place (in the program the pass read), and a jump anywhere that
//! targeted a patched insn lands on the first insn of its patch. That is
//! what the kernel's walk gives: it patches front to back, each pass
//! reading insns whose offsets earlier patches already adjusted.
//!
//! [`apply_one_at_a_time`] is the kernel's way, patch by patch, kept as the
//! reference the engine is checked (and benchmarked) against.

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::do_check::PassAux;
use crate::verifier::env::{InsnAux, SubprogInfo, VerifierEnv};

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

/// What the patches rewrite: the program and everything indexed by insn.
pub struct PatchTarget<'e> {
    pub insns: &'e mut Vec<Insn>,
    pub aux: &'e mut Vec<InsnAux>,
    /// Empty when the main pass recorded nothing (then left empty).
    pub pass_aux: &'e mut Vec<PassAux>,
    /// `subprog_cnt` entries and the fake last one.
    pub subprog_info: &'e mut Vec<SubprogInfo>,
    pub subprog_cnt: &'e mut usize,
}

impl<'e> PatchTarget<'e> {
    pub fn of(env: &'e mut VerifierEnv<'_>) -> PatchTarget<'e> {
        PatchTarget {
            insns: &mut env.insns,
            aux: &mut env.aux,
            pass_aux: &mut env.pass_aux,
            subprog_info: &mut env.subprog_info,
            subprog_cnt: &mut env.subprog_cnt,
        }
    }
}

/// The error of `bpf_patch_insn_single` when a jump no longer fits (the
/// kernel logs "insn N cannot be patched due to 16-bit range" and fails
/// the load with ENOMEM; the model leaves such a load undecided).
fn erange() -> Fail {
    Fail::unsupported("bpf_patch_insn_single", "a patch moves a jump out of its 16-bit range (ERANGE)")
}

fn bad_patches(what: &str) -> Fail {
    Fail::unsupported("bpf_patch_insn_data", what)
}

/// Where an insn keeps the offset `bpf_adj_branches` adjusts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rel {
    /// `off` (16 bits): jumps.
    Off,
    /// `imm` (32 bits): `gotol`, pseudo calls, `ld_imm64` of a pseudo func.
    Imm,
}

/// Whether `bpf_adj_branches` adjusts the insn, and which field.
fn branch_field(insn: &Insn) -> Option<Rel> {
    if insn.code == BPF_LD | BPF_IMM | BPF_DW && insn.src == BPF_PSEUDO_FUNC {
        return Some(Rel::Imm);
    }
    let class = insn.code & 0x07;
    if class != BPF_JMP && class != BPF_JMP32 {
        return None;
    }
    match insn.code & 0xf0 {
        BPF_EXIT => None,
        BPF_CALL => (insn.src == BPF_PSEUDO_CALL).then_some(Rel::Imm),
        _ if insn.code == BPF_JMP32 | BPF_JA => Some(Rel::Imm),
        _ => Some(Rel::Off),
    }
}

fn rel_get(insn: &Insn, r: Rel) -> i64 {
    match r {
        Rel::Off => insn.off as i64,
        Rel::Imm => insn.imm as i64,
    }
}

fn rel_set(insn: &mut Insn, r: Rel, v: i64) -> Result<(), Fail> {
    match r {
        Rel::Off => insn.off = i16::try_from(v).map_err(|_| erange())?,
        Rel::Imm => insn.imm = i32::try_from(v).map_err(|_| erange())?,
    }
    Ok(())
}

/// The patches sorted by `at`, checked: distinct, in range, not empty.
fn sorted(mut list: Vec<Patch>, len: usize) -> Result<Vec<Patch>, Fail> {
    list.sort_by_key(|p| p.at);
    for (k, p) in list.iter().enumerate() {
        if p.at >= len || p.insns.is_empty() {
            return Err(bad_patches(&format!("a patch at insn {} of {len} (with {} insns) is invalid", p.at, p.insns.len())));
        }
        if k > 0 && list[k - 1].at == p.at {
            return Err(bad_patches(&format!("two patches of insn {}", p.at)));
        }
    }
    Ok(list)
}

/// `bpf_patch_insn_data` once per patch, the kernel's way: the pass walks
/// front to back, every patch remaps every branch of the whole program
/// (O(N) per patch). A jump of a patch leaving it backwards is rebased on
/// the insns before it as they are by then, as a kernel pass that copied
/// the (already adjusted) offset of the insn it read would have it.
pub fn apply_one_at_a_time(env: &mut VerifierEnv<'_>, patches: Patches) -> Result<(), Fail> {
    apply_one_at_a_time_to(&mut PatchTarget::of(env), patches)
}

pub fn apply_one_at_a_time_to(t: &mut PatchTarget<'_>, patches: Patches) -> Result<(), Fail> {
    let list = sorted(patches.list, t.insns.len())?;
    // (old index, growth) of the patches applied so far
    let mut done: Vec<(usize, i64)> = Vec::with_capacity(list.len());
    let mut delta = 0i64;
    for p in list {
        let cur = |old: i64| old + done.iter().filter(|&&(at, _)| (at as i64) < old).map(|&(_, d)| d).sum::<i64>();
        let pos = p.at as i64 + delta;
        let mut insns = p.insns;
        let n = insns.len() as i64;
        for (k, insn) in insns.iter_mut().enumerate() {
            let Some(r) = branch_field(insn) else { continue };
            let local = k as i64 + rel_get(insn, r) + 1;
            if local < 0 {
                let target = cur(p.at as i64 + local);
                rel_set(insn, r, target - (pos + k as i64) - 1)?;
            }
        }
        bpf_patch_insn_data(t, pos as usize, &insns)?;
        done.push((p.at, n - 1));
        delta += n - 1;
    }
    Ok(())
}

/// One patch: `bpf_patch_insn_single` and the aux data adjustments.
pub fn bpf_patch_insn_data(t: &mut PatchTarget<'_>, off: usize, patch: &[Insn]) -> Result<(), Fail> {
    let len = patch.len();
    if len == 1 {
        t.insns[off] = patch[0];
    } else {
        let (end_old, end_new) = (off + 1, off + len);
        let mut insns = t.insns.clone();
        insns.splice(off..off + 1, patch.iter().copied());
        bpf_adj_branches(&mut insns, off, end_old, end_new)?;
        *t.insns = insns;
        // the patched insn's aux data goes with its last insn
        let seen = t.pass_aux.get(off).is_some_and(|a| a.seen);
        t.aux.splice(off..off, std::iter::repeat_n(InsnAux::default(), len - 1));
        if !t.pass_aux.is_empty() {
            let fresh = PassAux { seen, ..PassAux::default() };
            t.pass_aux.splice(off..off, std::iter::repeat_n(fresh, len - 1));
        }
        for si in t.subprog_info.iter_mut().take(*t.subprog_cnt + 1) {
            if si.start > off {
                si.start += len - 1;
            }
        }
    }
    // zext_dst of the patch's insns: whether each defines a 32-bit subregister
    for i in off..off + len {
        t.aux[i].zext_dst = crate::fixups::insn_def32(t.insns, i);
    }
    Ok(())
}

/// `bpf_adj_branches` after `insns[pos..end_old]` became
/// `insns[pos..end_new]`: jumps and pseudo calls (and `ld_imm64` of a
/// pseudo func) outside that range that cross it move by the difference.
pub fn bpf_adj_branches(insns: &mut [Insn], pos: usize, end_old: usize, end_new: usize) -> Result<(), Fail> {
    let delta = end_new as i64 - end_old as i64;
    let (pos, end_old, end_new) = (pos as i64, end_old as i64, end_new as i64);
    for (i, insn) in insns.iter_mut().enumerate() {
        let Some(r) = branch_field(insn) else { continue };
        let curr = i as i64;
        let rel = rel_get(insn, r);
        let moved = if curr < pos && curr + rel + 1 >= end_old {
            rel + delta
        } else if curr >= end_new && curr + rel + 1 < end_new {
            rel - delta
        } else {
            continue;
        };
        rel_set(insn, r, moved)?;
    }
    Ok(())
}

/// `adjust_jmp_off`: jumps (not calls) to insn `tgt`, other than from the
/// `delta` insns there, move on by `delta`: after a prologue of `delta`
/// insns went in at `tgt`, a jump from outside to the old insn reaches it
/// again (`bpf_convert_ctx_accesses`' prologue, the stack set up for
/// `may_goto` in each subprogram).
pub fn adjust_jmp_off(insns: &mut [Insn], tgt: usize, delta: usize) -> Result<(), Fail> {
    let range = || Fail::unsupported("adjust_jmp_off", "a jump moves out of its range (ERANGE)");
    for (i, insn) in insns.iter_mut().enumerate() {
        if (tgt..tgt + delta).contains(&i) {
            continue;
        }
        let class = insn.code & 0x07;
        if (class != BPF_JMP && class != BPF_JMP32) || matches!(insn.code & 0xf0, BPF_CALL | BPF_EXIT) {
            continue;
        }
        let gotol = insn.code == BPF_JMP32 | BPF_JA;
        let rel = if gotol { insn.imm as i64 } else { insn.off as i64 };
        if i as i64 + 1 + rel != tgt as i64 {
            continue;
        }
        if gotol {
            insn.imm = insn.imm.checked_add(delta as i32).ok_or_else(range)?;
        } else {
            insn.off = i16::try_from(insn.off as i64 + delta as i64).map_err(|_| range())?;
        }
    }
    Ok(())
}

/// Apply one pass's patches in one step: the result of
/// [`apply_one_at_a_time`], in O(N + inserted) (and a binary search over
/// the patches per jump).
pub fn apply(env: &mut VerifierEnv<'_>, patches: Patches) -> Result<(), Fail> {
    PASSES_SEEN.with(|seen| {
        if let Some(passes) = seen.borrow_mut().as_mut() {
            passes.push((env.insns.clone(), patches.clone()));
        }
    });
    apply_to(&mut PatchTarget::of(env), patches)
}

/// A pass's program as it was before its patches, and the patches.
pub type PassPatches = (Vec<Insn>, Patches);

thread_local! {
    static PASSES_SEEN: std::cell::RefCell<Option<Vec<PassPatches>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (a load through the verifier, on this thread) and returns with
/// its result every pass [`apply`] was given in it: what the engine does
/// to a real program, to be timed on its own.
pub fn with_passes_seen<T>(f: impl FnOnce() -> T) -> (T, Vec<PassPatches>) {
    PASSES_SEEN.with(|seen| *seen.borrow_mut() = Some(Vec::new()));
    let out = f();
    let passes = PASSES_SEEN.with(|seen| seen.borrow_mut().take()).unwrap_or_default();
    (out, passes)
}

pub fn apply_to(t: &mut PatchTarget<'_>, patches: Patches) -> Result<(), Fail> {
    if patches.is_empty() {
        return Ok(());
    }
    let old_len = t.insns.len();
    let mut list = sorted(patches.list, old_len)?;
    // per patch (few next to the insns): its insn, and the growth of the
    // program up to and with it; a place in the new program is found by
    // binary search instead of a table as long as the program
    let ats: Vec<usize> = list.iter().map(|p| p.at).collect();
    let grown: Vec<usize> = list
        .iter()
        .scan(0, |g, p| {
            *g += p.insns.len() - 1;
            Some(*g)
        })
        .collect();
    let total = grown.last().copied().unwrap_or(0);
    // where old insn x (its patch's first insn) lands, also outside the
    // program (bad jumps)
    let land = |x: i64| -> i64 {
        if x < 0 {
            x
        } else if x as usize >= old_len {
            x + total as i64
        } else {
            match ats.partition_point(|&a| (a as i64) < x) {
                0 => x,
                k => x + grown[k - 1] as i64,
            }
        }
    };

    // every new branch offset, checked before anything moves: the ones of
    // insns kept as they are, noted by old index (jumps are few)
    let mut retargeted: Vec<(usize, i64)> = Vec::new();
    let (mut k, mut shift) = (0, 0i64);
    for (x, insn) in t.insns.iter().enumerate() {
        if ats.get(k) == Some(&x) {
            shift = grown[k] as i64;
            k += 1;
            continue;
        }
        let Some(r) = branch_field(insn) else { continue };
        let rel = rel_get(insn, r);
        let to = land(x as i64 + rel + 1) - (x as i64 + shift) - 1;
        if to != rel {
            rel_set(&mut insn.clone(), r, to)?;
            retargeted.push((x, to));
        }
    }
    // and the patches' own
    for p in list.iter_mut() {
        let (x, n) = (p.at, p.insns.len() as i64);
        let here = land(x as i64);
        // the kernel adjusts the replaced insn as long as it is there: a
        // backward jump of it may overflow first
        let old = t.insns[x];
        if let Some(r) = branch_field(&old) {
            let tg = x as i64 + rel_get(&old, r) + 1;
            if tg < x as i64 {
                rel_set(&mut old.clone(), r, land(tg) - here - 1)?;
            }
        }
        for (k, insn) in p.insns.iter_mut().enumerate() {
            let k = k as i64;
            let Some(r) = branch_field(insn) else { continue };
            let local = k + rel_get(insn, r) + 1;
            // leaving the patch: relative to it in place
            let old_target = if local < 0 {
                Some(x as i64 + local)
            } else if local >= n {
                Some(x as i64 + 1 + (local - n))
            } else {
                None
            };
            if let Some(tg) = old_target {
                rel_set(insn, r, land(tg) - (here + k) - 1)?;
            }
        }
    }

    for &(x, to) in &retargeted {
        let insn = &mut t.insns[x];
        if let Some(r) = branch_field(insn) {
            // checked above
            let _ = rel_set(insn, r, to);
        }
    }
    spread(t.insns, &list, &grown, |_| Insn::default(), |p, slots| slots.copy_from_slice(&p.insns));
    // the patched insn's aux data goes with its last insn; zext_dst of
    // the patch's insns: whether each defines a 32-bit subregister
    spread(
        t.aux,
        &list,
        &grown,
        |_| InsnAux::default(),
        |p, slots| {
            for (a, insn) in slots.iter_mut().zip(&p.insns) {
                a.zext_dst = crate::fixups::zext::bpf_insn_def32(insn).is_some();
            }
        },
    );
    if !t.pass_aux.is_empty() {
        spread(t.pass_aux, &list, &grown, |a| PassAux { seen: a.seen, ..PassAux::default() }, |_, _| ());
    }
    for si in t.subprog_info.iter_mut().take(*t.subprog_cnt + 1) {
        si.start = land(si.start as i64) as usize;
    }
    Ok(())
}

/// Moves the elements of `v`, one per insn of the program the pass read,
/// to where the patches `list` (sorted, `grown` their running growth) put
/// them: a patched insn's element to the last slot of its patch, `fresh`
/// of it into the slots before, then `patched` sees the patch's slots
/// (while they are in the caches). Each element is read and written once:
/// in place from the back when the vector has the room (every element
/// moves to or after where it was, so none is overwritten before it
/// moved, and the runs between patches move with one copy each), else
/// front to back into one new allocation. Not `reserve` and a move in
/// place: a realloc the allocator cannot do where the vector is copies
/// all of it first, into fresh pages (per-insn data is large: `InsnAux`,
/// `PassAux`, a 400k-insn program's does not fit in the caches twice).
fn spread<T>(v: &mut Vec<T>, list: &[Patch], grown: &[usize], fresh: impl Fn(&T) -> T, patched: impl FnMut(&Patch, &mut [T])) {
    let Some(&total) = grown.last() else { return };
    if v.capacity() - v.len() >= total {
        spread_in_place(v, list, grown, total, fresh, patched);
    } else {
        spread_into_new(v, list, grown, total, fresh, patched);
    }
}

fn spread_in_place<T>(v: &mut Vec<T>, list: &[Patch], grown: &[usize], total: usize, fresh: impl Fn(&T) -> T, mut patched: impl FnMut(&Patch, &mut [T])) {
    let old_len = v.len();
    // while elements move, the vector owns none of them: a panic (of
    // `fresh`) leaks them instead of dropping one twice
    // SAFETY: shrinking the length drops nothing and exposes nothing
    unsafe { v.set_len(0) };
    let base = v.as_mut_ptr();
    let mut end = old_len;
    for (p, &shift) in list.iter().zip(grown).rev() {
        let last = p.at + shift;
        let here = last + 1 - p.insns.len();
        // SAFETY: every index is below old_len + total, within the
        // capacity (checked by the caller). Back to front, the sources
        // `p.at..end` still hold the old elements (earlier writes all went
        // to `last + 1..`, past them); `ptr::copy` allows the overlap.
        // Each of the new slots `0..old_len + total` is written exactly
        // once (the run before the first patch stays), so every element
        // lives on in exactly one slot; a slot moved from is overwritten
        // without a drop. The patch's slots are initialized and nothing
        // else refers to them.
        unsafe {
            std::ptr::copy(base.add(p.at + 1), base.add(last + 1), end - p.at - 1);
            std::ptr::copy(base.add(p.at), base.add(last), 1);
            for i in here..last {
                base.add(i).write(fresh(&*base.add(last)));
            }
            patched(p, std::slice::from_raw_parts_mut(base.add(here), last + 1 - here));
        }
        end = p.at;
    }
    // SAFETY: all of `0..old_len + total` is initialized (above)
    unsafe { v.set_len(old_len + total) };
}

fn spread_into_new<T>(v: &mut Vec<T>, list: &[Patch], grown: &[usize], total: usize, fresh: impl Fn(&T) -> T, mut patched: impl FnMut(&Patch, &mut [T])) {
    let old_len = v.len();
    let mut out: Vec<T> = Vec::with_capacity(old_len + total);
    advise_huge_pages(&mut out);
    // the elements move to `out`: `v` keeps none of them (a panic of
    // `fresh` leaks, never drops twice)
    // SAFETY: shrinking the length drops nothing and exposes nothing
    unsafe { v.set_len(0) };
    let (src, dst) = (v.as_ptr(), out.as_mut_ptr());
    let (mut from, mut prev) = (0, 0);
    for (p, &shift) in list.iter().zip(grown) {
        let last = p.at + shift;
        let here = last + 1 - p.insns.len();
        // SAFETY: the sources `from..=p.at` are below old_len and read
        // once each (the patches are sorted and distinct); the targets
        // `from + prev..=last` are below old_len + total, the capacity of
        // `out`, and written once each, front to back: every element of
        // `v` lives on in exactly one slot of `out`. The patch's slots are
        // initialized before `patched` sees them.
        unsafe {
            std::ptr::copy_nonoverlapping(src.add(from), dst.add(from + prev), p.at - from);
            std::ptr::copy_nonoverlapping(src.add(p.at), dst.add(last), 1);
            for i in here..last {
                dst.add(i).write(fresh(&*dst.add(last)));
            }
            patched(p, std::slice::from_raw_parts_mut(dst.add(here), last + 1 - here));
        }
        from = p.at + 1;
        prev = shift;
    }
    // SAFETY: the run after the last patch, as above; then all of
    // `0..old_len + total` is initialized
    unsafe {
        std::ptr::copy_nonoverlapping(src.add(from), dst.add(from + prev), old_len - from);
        out.set_len(old_len + total);
    }
    // the old allocation goes, empty
    *v = out;
}

/// Asks for transparent huge pages for a large per-insn array before its
/// pages are first touched: a program of 400k insns has 40 MB of aux data,
/// and with 4 KB pages its moves miss the TLB on every page (dearly under
/// a hypervisor), so that the time would grow faster than the program.
fn advise_huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes < HUGE {
            return;
        }
        let start = v.as_mut_ptr() as usize;
        let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: the range lies inside the vector's allocation; the
            // advice changes how its pages are backed, not their contents
            // (a kernel without THP refuses it, which changes nothing)
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// `verifier_remove_insns`: insns `off..off + cnt` removed, the kernel's
/// way (O(N) per run): `bpf_remove_insns` (branches across the run move
/// back), `adjust_subprog_starts_after_remove` (subprograms wholly inside
/// the run go, with their func_info), aux data moved.
pub fn verifier_remove_insns(t: &mut PatchTarget<'_>, off: usize, cnt: usize) -> Result<(), Fail> {
    if cnt == 0 || off + cnt > t.insns.len() {
        return Err(bad_patches(&format!("removal of insns {off}..{} of {}", off + cnt, t.insns.len())));
    }
    t.insns.drain(off..off + cnt);
    bpf_adj_branches(t.insns, off, off + cnt, off)?;
    adjust_subprog_starts_after_remove(t.subprog_info, t.subprog_cnt, off, cnt)?;
    t.aux.drain(off..off + cnt);
    if !t.pass_aux.is_empty() {
        t.pass_aux.drain(off..off + cnt);
    }
    Ok(())
}

/// `adjust_subprog_starts_after_remove`. A run may take whole
/// subprograms (they go, with their func_info) but never the entry of one
/// it leaves partly alive: an entry is seen before anything after it.
fn adjust_subprog_starts_after_remove(info: &mut Vec<SubprogInfo>, cnt_subprogs: &mut usize, off: usize, cnt: usize) -> Result<(), Fail> {
    let n = *cnt_subprogs;
    // the first subprogram starting in the run, the first one after it
    let mut i = (0..n).find(|&i| info[i].start >= off).unwrap_or(n);
    let mut j = (i..n).find(|&j| info[j].start >= off + cnt).unwrap_or(n);
    if info[j].start != off + cnt {
        // only the front of the previous one goes
        j = j.saturating_sub(1);
    }
    if j > i {
        info.drain(i..j);
        *cnt_subprogs -= j - i;
    } else if info[i].start == off {
        i += 1;
    }
    for si in info.iter_mut().take(*cnt_subprogs + 1).skip(i) {
        si.start = si
            .start
            .checked_sub(cnt)
            .filter(|&s| s >= off || si.start >= off + cnt)
            .ok_or_else(|| Fail::unsupported("bpf_opt_remove_dead_code", "dead code takes the entry of a subprogram that stays"))?;
    }
    Ok(())
}

fn retain_kept<T>(v: &mut Vec<T>, gone: &[bool]) {
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
}

/// Where a kept jump into removed code lands: each removal of `cnt` insns
/// at `off` leaves a target below `off + cnt` as it is (the same index now
/// names a later insn) and moves the others back by `cnt`, whatever the
/// jump's own place (`bpf_adj_branches` with `end_new < end_old`). Such
/// jumps are rare (a callback never called, removed with its subprogram,
/// stays referenced by its `ld_imm64`): run by run.
fn into_removed(runs: &[(usize, usize)], t: i64) -> i64 {
    let mut v = t;
    let mut removed = 0i64;
    for &(off, cnt) in runs {
        let (off, cnt) = (off as i64 - removed, cnt as i64);
        if v >= off + cnt {
            v -= cnt;
        }
        removed += cnt;
    }
    v
}

/// Remove the runs `(off, cnt)` (ascending, disjoint, as the program was
/// read) in one step: the result of [`verifier_remove_insns`] run after
/// run, front to back.
pub fn remove_insns(t: &mut PatchTarget<'_>, runs: &[(usize, usize)]) -> Result<(), Fail> {
    let len = t.insns.len();
    let mut gone = vec![false; len];
    let mut run_start = vec![false; len];
    let mut last_end = 0;
    for &(off, cnt) in runs {
        if cnt == 0 || off < last_end || off + cnt > len {
            return Err(bad_patches(&format!("removal of insns {off}..{} of {len}", off + cnt)));
        }
        gone[off..off + cnt].fill(true);
        run_start[off] = true;
        last_end = off + cnt;
    }
    // new index of each old index (of the next kept insn for removed ones)
    let mut new_idx = Vec::with_capacity(len + 1);
    let mut removed = 0usize;
    for (x, &g) in gone.iter().enumerate() {
        new_idx.push(x - removed);
        if g {
            removed += 1;
        }
    }
    new_idx.push(len - removed);
    // a target at the start of a run lands where the next kept insn does
    // (the runs after it start at or after that insn, and none reaches
    // back over it); one inside a run does not, see `into_removed`
    let land = |x: i64| -> Option<i64> {
        if x < 0 {
            Some(x)
        } else if x as usize >= len {
            Some(x - removed as i64)
        } else if gone[x as usize] && !run_start[x as usize] {
            None
        } else {
            Some(new_idx[x as usize] as i64)
        }
    };
    let mut insns = Vec::with_capacity(len - removed);
    for (x, insn) in t.insns.iter().enumerate() {
        if gone[x] {
            continue;
        }
        let mut insn = *insn;
        if let Some(r) = branch_field(&insn) {
            let t = x as i64 + rel_get(&insn, r) + 1;
            let tg = land(t).unwrap_or_else(|| into_removed(runs, t));
            rel_set(&mut insn, r, tg - new_idx[x] as i64 - 1)?;
        }
        insns.push(insn);
    }
    retain_kept(t.aux, &gone);
    if !t.pass_aux.is_empty() {
        retain_kept(t.pass_aux, &gone);
    }
    *t.insns = insns;
    // few subprograms: the kernel's bookkeeping run by run
    let mut shifted = 0;
    for &(off, cnt) in runs {
        adjust_subprog_starts_after_remove(t.subprog_info, t.subprog_cnt, off - shifted, cnt)?;
        shifted += cnt;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::testing::{Owned, Rng, random_subprogs};
    use super::*;

    fn random_insn(rng: &mut Rng, len: usize, i: usize, wide: bool) -> Insn {
        let span = if wide { 70_000 } else { 2 * len as i64 + 4 };
        let rel = |rng: &mut Rng| (rng.below(span as u64) as i64 - span / 2).clamp(i16::MIN as i64, i16::MAX as i64);
        let _ = i;
        match rng.below(9) {
            0 => Insn::new(BPF_JMP | BPF_JA, 0, 0, rel(rng) as i16, 0),
            1 => Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, rel(rng) as i16, 3),
            2 => Insn::new(BPF_JMP32 | BPF_JA, 0, 0, 0, rel(rng) as i32),
            3 => Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, rel(rng) as i32),
            4 => Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 7),
            5 => Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            6 => Insn::new(BPF_ALU | BPF_ADD | BPF_K, 2, 0, 0, 1),
            7 => Insn::new(BPF_LDX | BPF_MEM | BPF_W, 3, 10, -8, 0),
            _ => Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 4, 5, 0, 0),
        }
    }

    fn random_prog(rng: &mut Rng, len: usize, wide: bool) -> Owned {
        let insns: Vec<Insn> = (0..len).map(|i| random_insn(rng, len, i, wide)).collect();
        // some with a jump table: moved, not copied (nothing dropped twice)
        let aux = (0..len)
            .map(|i| InsnAux { map_off: i as u32, scc: rng.below(3) as u32, jt: (rng.below(4) == 0).then(|| [i, i + 1].into()), ..InsnAux::default() })
            .collect();
        let pass_aux = (0..len).map(|i| PassAux { seen: rng.below(4) != 0, alu_limit: i as u32, ..PassAux::default() }).collect();
        let (subprogs, cnt) = random_subprogs(rng, len, len as u64 / 3 + 1);
        Owned { insns, aux, pass_aux, subprogs, cnt }
    }

    fn random_patches(rng: &mut Rng, len: usize, wide: bool) -> Patches {
        let mut p = Patches::new();
        for at in 0..len {
            if rng.below(3) == 0 {
                let n = 1 + rng.below(if wide { 4000 } else { 5 }) as usize;
                let insns = (0..n).map(|k| random_insn(rng, n, k, false)).collect();
                p.replace(at, insns);
            }
        }
        // any order
        p.list.reverse();
        p
    }

    #[test]
    fn one_step_equals_one_at_a_time() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut erange = 0;
        for case in 0..3000 {
            let wide = case % 100 == 99;
            let len = 1 + rng.below(if wide { 30 } else { 40 }) as usize;
            let prog = random_prog(&mut rng, len, wide);
            let patches = random_patches(&mut rng, len, wide);
            let mut a =
                Owned { insns: prog.insns.clone(), aux: prog.aux.clone(), pass_aux: prog.pass_aux.clone(), subprogs: prog.subprogs.clone(), cnt: prog.cnt };
            let mut b = prog;
            // half the cases with room in the arrays (moved in place), half
            // without (moved into new ones)
            if case % 2 == 0 {
                let extra: usize = patches.list.iter().map(|p| p.insns.len()).sum();
                b.insns.reserve(extra);
                b.aux.reserve(extra);
                b.pass_aux.reserve(extra);
            }
            let ra = apply_one_at_a_time_to(&mut a.target(), patches.clone());
            let rb = apply_to(&mut b.target(), patches.clone());
            assert_eq!(ra, rb, "case {case}: {} patches", patches.len());
            if ra.is_ok() {
                assert_eq!(a.snapshot(), b.snapshot(), "case {case}");
            } else {
                erange += 1;
            }
        }
        assert!(erange > 0, "the cases include programs that overflow");
    }

    #[test]
    fn one_step_removal_equals_run_by_run() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let (mut checked, mut into_some) = (0, 0);
        for case in 0..3000 {
            let len = 1 + rng.below(40) as usize;
            let prog = random_prog(&mut rng, len, false);
            let mut runs = Vec::new();
            let mut x = 0;
            while x < len {
                if rng.below(4) == 0 {
                    let cnt = (1 + rng.below(4) as usize).min(len - x);
                    runs.push((x, cnt));
                    x += cnt + 1;
                } else {
                    x += 1;
                }
            }
            if runs.is_empty() {
                continue;
            }
            // a run that takes a subprogram's entry takes all of it
            let starts: Vec<usize> = prog.subprogs.iter().map(|s| s.start).collect();
            let whole = runs.iter().all(|&(o, c)| {
                starts.iter().enumerate().all(|(k, &st)| !(st > o && st < o + c) || starts.get(k + 1).is_some_and(|&nx| nx <= o + c))
                    && (!starts.contains(&o) || starts.iter().any(|&nx| nx == o + c) || o + c == len)
            });
            if !whole {
                continue;
            }
            let mut gone = vec![false; len];
            for &(o, c) in &runs {
                gone[o..o + c].fill(true);
            }
            // dead code is never the target of a kept jump
            let into_gone = prog.insns.iter().enumerate().any(|(i, insn)| {
                !gone[i]
                    && branch_field(insn).is_some_and(|r| {
                        let t = i as i64 + rel_get(insn, r) + 1;
                        t >= 0 && (t as usize) < len && gone[t as usize]
                    })
            });
            let mut a =
                Owned { insns: prog.insns.clone(), aux: prog.aux.clone(), pass_aux: prog.pass_aux.clone(), subprogs: prog.subprogs.clone(), cnt: prog.cnt };
            let mut b = prog;
            let rb = remove_insns(&mut b.target(), &runs);
            into_some += into_gone as usize;
            let mut shifted = 0;
            for &(o, c) in &runs {
                verifier_remove_insns(&mut a.target(), o - shifted, c).unwrap();
                shifted += c;
            }
            rb.unwrap();
            assert_eq!(a.snapshot(), b.snapshot(), "case {case}: {runs:?}");
            checked += 1;
        }
        assert!(checked > 500 && into_some > 50, "{checked} {into_some}");
    }

    #[test]
    fn leaving_jumps_are_relative_to_the_patch_in_place() {
        // 0: if r1 == 3 goto +2 (-> 3); 1: r2 += 1; 2: r2 += 1; 3: exit
        let add = Insn::new(BPF_ALU | BPF_ADD | BPF_K, 2, 0, 0, 1);
        let exit = Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
        let mut o = Owned {
            insns: vec![Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2, 3), add, add, exit],
            aux: vec![InsnAux::default(); 4],
            pass_aux: vec![PassAux { seen: true, ..PassAux::default() }; 4],
            subprogs: vec![SubprogInfo { start: 0, ..Default::default() }, SubprogInfo { start: 4, ..Default::default() }],
            cnt: 1,
        };
        let mut p = Patches::new();
        // insn 0 becomes "r3 = 0; if r1 == 3 goto (old 3)"; 1 and 2 grow
        p.replace(0, vec![Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0), Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 2, 3)]);
        p.replace(1, vec![add, add]);
        p.replace(2, vec![add, add, add]);
        apply_to(&mut o.target(), p).unwrap();
        // the jump at new insn 1 lands on the exit at new insn 7
        assert_eq!(o.insns[1].off, 5);
        assert_eq!(o.insns[7], exit);
        assert_eq!(o.subprogs[1].start, 8);
        assert!(o.aux[4].zext_dst && o.pass_aux[3].seen);
    }
}

/// What the patch engine's tests and the tests of the passes built on it
/// share: a program that owns what a [`PatchTarget`] borrows, and a small
/// deterministic generator.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// xorshift.
    pub(crate) struct Rng(pub(crate) u64);

    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        pub(crate) fn below(&mut self, n: u64) -> u64 {
            if n == 0 { 0 } else { self.next() % n }
        }
    }

    pub(crate) struct Owned {
        pub(crate) insns: Vec<Insn>,
        pub(crate) aux: Vec<InsnAux>,
        pub(crate) pass_aux: Vec<PassAux>,
        pub(crate) subprogs: Vec<SubprogInfo>,
        pub(crate) cnt: usize,
    }

    impl Owned {
        pub(crate) fn target(&mut self) -> PatchTarget<'_> {
            PatchTarget {
                insns: &mut self.insns,
                aux: &mut self.aux,
                pass_aux: &mut self.pass_aux,
                subprog_info: &mut self.subprogs,
                subprog_cnt: &mut self.cnt,
            }
        }

        /// Everything the engine keeps in step, as text to compare.
        pub(crate) fn snapshot(&self) -> String {
            let starts: Vec<usize> = self.subprogs.iter().take(self.cnt + 1).map(|s| s.start).collect();
            format!("{:?}\n{:?}\n{:?}\n{starts:?} {}", self.insns, self.aux, self.pass_aux, self.cnt)
        }
    }

    /// Subprograms of a `len`-insn program, each insn but the first
    /// starting one with odds 1 in `one_in`; the fake exit subprogram's
    /// start (`len`) closes the list. Returns them and their count.
    pub(crate) fn random_subprogs(rng: &mut Rng, len: usize, one_in: u64) -> (Vec<SubprogInfo>, usize) {
        let mut starts = vec![0usize];
        for x in 1..len {
            if rng.below(one_in) == 0 {
                starts.push(x);
            }
        }
        let cnt = starts.len();
        starts.push(len);
        (starts.into_iter().map(|start| SubprogInfo { start, ..SubprogInfo::default() }).collect(), cnt)
    }
}
