//! Subprogram discovery and layout (`verifier.c`): `add_subprog`,
//! `add_subprogs`, `check_subprogs`, `sort_subprogs_topo`.

use bpf_isa::op::*;

use super::diag::{bpf_diag_policy, bpf_diag_program_structure};
use super::env::*;
use super::errno::*;
use super::log::BPF_LOG_LEVEL2;
use super::{Fail, PResult};
use crate::limits::MAX_CALL_FRAMES;

pub use bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL;

/// `add_subprog`: the index of the subprogram starting at `off`, added if new.
fn add_subprog(env: &mut VerifierEnv<'_>, off: i32) -> PResult<usize> {
    if off < 0 || off as i64 >= env.len() as i64 {
        env.verbose("call to invalid destination\n");
        return Err(Fail::Errno(EINVAL));
    }
    let off = off as usize;
    if let Some(s) = env.bpf_find_subprog(off) {
        return Ok(s);
    }
    if env.subprog_cnt >= BPF_MAX_SUBPROGS {
        env.verbose("too many subprograms\n");
        return Err(Fail::Errno(E2BIG));
    }
    // keep subprog_info[..subprog_cnt] sorted by start (the kernel sorts)
    let cnt = env.subprog_cnt;
    let at = env.subprog_info[..cnt].partition_point(|s| s.start < off);
    env.subprog_info.insert(at, SubprogInfo { start: off, ..SubprogInfo::default() });
    env.subprog_cnt += 1;
    // like the kernel, return the last index (not where it landed)
    Ok(env.subprog_cnt - 1)
}

/// `add_subprogs`: the entry, every bpf-to-bpf call target and every
/// callback whose address is taken; unprivileged loaders may do neither.
pub fn add_subprogs(env: &mut VerifierEnv<'_>) -> PResult<()> {
    add_subprog(env, 0)?;
    for i in 0..env.len() {
        let insn = env.insns[i];
        let func = bpf_pseudo_func(&insn);
        if !func && !bpf_pseudo_call(&insn) {
            continue;
        }
        env.has_subprog_refs = true;
        if !env.bpf_capable {
            let (operation, suggestion) = if func {
                ("BPF function reference", "Load this program with the required capability, or avoid BPF function references in unprivileged programs.")
            } else {
                ("BPF-to-BPF function call", "Load this program with the required capability, or avoid BPF-to-BPF function calls in unprivileged programs.")
            };
            env.verbose("loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n");
            bpf_diag_policy(env, i, operation, "loading or calling other BPF functions requires CAP_BPF or CAP_SYS_ADMIN", suggestion);
            return Err(Fail::Errno(EPERM));
        }
        add_subprog(env, jmp_target(i, insn.imm))?;
    }
    // a subprogram the main one names as its exception callback
    let ex_cb_insn = bpf_find_exception_callback_insn_off(env)?;
    if ex_cb_insn > 0 {
        add_subprog(env, ex_cb_insn as i32)?;
        if let Some(i) = (1..env.subprog_cnt).find(|&i| env.subprog_info[i].start == ex_cb_insn) {
            env.exception_callback_subprog = i;
            bpf_mark_subprog_exc_cb(env, i);
        }
    }

    // the fake 'exit' subprogram past the end
    let cnt = env.subprog_cnt;
    let n = env.len();
    env.subprog_info.truncate(cnt);
    env.subprog_info.push(SubprogInfo { start: n, ..SubprogInfo::default() });

    if env.level() & BPF_LOG_LEVEL2 != 0 {
        for i in 0..env.subprog_cnt {
            let s = env.subprog_info[i].start;
            env.verbose(&format!("func#{i} @{s}\n"));
        }
    }
    Ok(())
}

/// `bpf_mark_subprog_exc_cb`: an exception callback runs on its own, like
/// an async callback.
fn bpf_mark_subprog_exc_cb(env: &mut VerifierEnv<'_>, i: usize) {
    let info = &mut env.subprog_info[i];
    info.is_cb = true;
    info.is_async_cb = true;
    info.is_exception_cb = true;
}

/// `bpf_find_exception_callback_insn_off`: where the subprogram the main
/// program's `exception_callback:<name>` decl tag names starts, as its
/// func_info record gives it; 0 without such a tag.
fn bpf_find_exception_callback_insn_off(env: &mut VerifierEnv<'_>) -> PResult<usize> {
    let Some(func_info) = env.input.func_info.clone().filter(|f| !f.is_empty()) else { return Ok(0) };
    let Some(btf) = env.input.prog_btf.clone() else { return Ok(0) };
    let main_btf_id = func_info[0].type_id;
    if btf.type_by_id(main_btf_id).is_none() {
        env.verbose("invalid btf id for main subprog in func_info\n");
        return Err(Fail::Errno(EINVAL));
    }
    // btf_find_decl_tag_value(btf, t, -1, "exception_callback:")
    const TAG_KEY: &str = "exception_callback:";
    let mut tags = (1..btf.type_cnt() as u32).filter(|&id| {
        btf.type_by_id(id).is_some_and(|t| {
            t.kind == crate::btf::BTF_KIND_DECL_TAG
                && t.size_or_type == main_btf_id
                && btf.decl_tag_component_idx(id) == Some(-1)
                && btf.name(t.name_off).is_some_and(|n| n.starts_with(TAG_KEY))
        })
    });
    let Some(tag) = tags.next() else { return Ok(0) };
    if tags.next().is_some() {
        env.verbose("multiple exception callback tags for main subprog\n");
        return Err(Fail::Errno(EEXIST));
    }
    let name = btf.type_by_id(tag).and_then(|t| btf.name(t.name_off)).unwrap_or("")[TAG_KEY.len()..].to_string();
    let Some(id) = btf.find_by_name_kind(&name, crate::btf::BTF_KIND_FUNC) else {
        env.verbose(&format!("exception callback '{name}' could not be found in BTF\n"));
        return Err(Fail::Errno(ENOENT));
    };
    // btf_func_linkage: a FUNC's vlen
    if btf.type_by_id(id).map_or(0, |t| t.vlen) != crate::btf::BTF_FUNC_GLOBAL {
        env.verbose(&format!("exception callback '{name}' must have global linkage\n"));
        return Err(Fail::Errno(EINVAL));
    }
    // every record of that type counts, the last one wins
    let mut ret: i64 = 0;
    for f in func_info.iter().filter(|f| f.type_id == id) {
        ret = f.insn_off as i64;
        if ret == 0 {
            env.verbose("invalid exception callback insn_off in func_info: 0\n");
            ret = -(EINVAL as i64);
        }
    }
    if ret == 0 {
        env.verbose("exception callback type id not found in func_info\n");
        return Err(Fail::Errno(EINVAL));
    }
    if ret < 0 {
        return Err(Fail::Errno(-ret as i32));
    }
    Ok(ret as usize)
}

/// `check_subprogs`: jumps stay inside their subprogram and no subprogram
/// falls through into the next one. Also notes tail calls, `LD_ABS` and
/// each subprogram's last `exit`.
pub fn check_subprogs(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let n = env.len();
    let mut cur = 0usize;
    let mut start = env.subprog_info[0].start;
    let mut end = env.subprog_info[1].start;
    for i in 0..n {
        let insn = env.insns[i];
        let code = insn.code;
        if code == BPF_JMP | BPF_CALL && insn.src == 0 && insn.imm == BPF_FUNC_TAIL_CALL {
            env.subprog_info[cur].has_tail_call = true;
            env.subprog_info[cur].tail_call_reachable = true;
        }
        if class(code) == BPF_LD && (mode(code) == BPF_ABS || mode(code) == BPF_IND) {
            env.subprog_info[cur].has_ld_abs = true;
        }
        let is_jmp = class(code) == BPF_JMP || class(code) == BPF_JMP32;
        if is_jmp && op(code) != BPF_CALL {
            if op(code) == BPF_EXIT {
                env.subprog_info[cur].exit_idx = i;
            } else if !insn_is_gotox(&insn) {
                let off = jmp_target(i, bpf_jmp_offset(&insn));
                if (off as i64) < start as i64 || off as i64 >= end as i64 {
                    env.verbose(&format!("jump out of range from insn {i} to {off}\n"));
                    let reason = format!(
                        "Instruction {i} jumps to instruction {off}, but subprogram {cur} only contains instructions {start} through {}. A branch target must stay inside the same subprogram.",
                        end as i64 - 1
                    );
                    bpf_diag_program_structure(
                        env,
                        i,
                        "jump out of range",
                        "Keep branch targets within the same subprogram, or use an explicit subprogram call.",
                        &reason,
                    );
                    return Err(Fail::Errno(EINVAL));
                }
            }
        }
        if i + 1 == end {
            // the last insn must be an exit or an unconditional jump
            let ok = code == BPF_JMP | BPF_EXIT || code == BPF_JMP32 | BPF_JA || code == BPF_JMP | BPF_JA || insn_is_gotox(&insn);
            if !ok {
                env.verbose("last insn is not an exit or jmp\n");
                let reason =
                    format!("Subprogram {cur} reaches its last instruction {i} without an exit or jump, so control could continue into the next subprogram.");
                bpf_diag_program_structure(
                    env,
                    i,
                    "subprogram can fall through",
                    "End each subprogram with an exit or an explicit jump that keeps control flow inside the subprogram.",
                    &reason,
                );
                return Err(Fail::Errno(EINVAL));
            }
            start = end;
            cur += 1;
            if cur < env.subprog_cnt {
                end = env.subprog_info[cur + 1].start;
            }
        }
    }
    Ok(())
}

/// `sort_subprogs_topo`: callees before callers (DFS post-order over the
/// reachable calls and callback references), refusing recursion.
pub fn sort_subprogs_topo(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let cnt = env.subprog_cnt;
    let mut color = vec![0u8; cnt];
    let mut stack: Vec<usize> = Vec::with_capacity(cnt);
    let mut order = Vec::with_capacity(cnt);
    for i in 0..cnt {
        if !env.has_subprog_refs {
            // no subprogram calls or references another: each one alone,
            // in order (what the walk below finds, without walking)
            order.push(i);
            continue;
        }
        if color[i] != 0 {
            continue;
        }
        color[i] = 1;
        stack.push(i);
        while let Some(&cur) = stack.last() {
            let po = env.subprog_info[cur].postorder_start..env.subprog_info[cur + 1].postorder_start;
            let mut pushed = false;
            for j in po {
                let idx = env.insn_postorder[j] as usize;
                let insn = env.insns[idx];
                let func = bpf_pseudo_func(&insn);
                if !bpf_pseudo_call(&insn) && !func {
                    continue;
                }
                let target = jmp_target(idx, insn.imm);
                let Some(callee) = usize::try_from(target).ok().and_then(|t| env.bpf_find_subprog(t)) else {
                    return Err(Fail::Errno(EFAULT));
                };
                match color[callee] {
                    2 => continue,
                    1 if func => continue,
                    1 => {
                        let (a, b) = (env.bpf_subprog_name(cur), env.bpf_subprog_name(callee));
                        env.verbose(&format!("recursive call from {a}() to {b}()\n"));
                        bpf_diag_program_structure(
                            env,
                            idx,
                            "recursive subprogram call",
                            "Rewrite the recursion as an explicit bounded loop, or split the logic so subprogram calls do not form a cycle.",
                            "This bpf2bpf call would make the subprogram call graph recursive. The verifier requires a finite, acyclic call graph so it can bound stack depth and analysis.",
                        );
                        return Err(Fail::Errno(EINVAL));
                    }
                    _ => {}
                }
                color[callee] = 1;
                stack.push(callee);
                pushed = true;
                break;
            }
            if !pushed {
                color[cur] = 2;
                order.push(cur);
                stack.pop();
            }
        }
    }
    env.subprog_topo_order = order;
    if env.level() & BPF_LOG_LEVEL2 != 0 {
        for i in 0..cnt {
            let name = env.bpf_subprog_name(env.subprog_topo_order[i]);
            env.verbose(&format!("topo_order[{i}] = {name}\n"));
        }
    }
    Ok(())
}

/// `BPF_PRIV_STACK_MIN_SIZE`: smaller frames stay on the kernel stack.
const BPF_PRIV_STACK_MIN_SIZE: u32 = 64;
use bpf_isa::insn::MAX_BPF_STACK;

/// `enum priv_stack_mode`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PrivStack {
    Unknown,
    No,
    Adaptive,
}

/// `bpf_enable_priv_stack`: tracing-like types (and trampoline ones
/// `bpf_prog_check_recur` guards) whose JIT (x86-64, arm64)
/// can give a deep enough subprogram its own stack.
fn bpf_enable_priv_stack(env: &VerifierEnv<'_>) -> PrivStack {
    use super::prog_load::prog_types as pt;
    use crate::target::Arch;
    if !matches!(env.input.arch, Arch::X86_64 | Arch::Arm64) {
        return PrivStack::No;
    }
    match env.input.prog_type.0 {
        pt::KPROBE | pt::TRACEPOINT | pt::PERF_EVENT | pt::RAW_TRACEPOINT => PrivStack::Adaptive,
        // the trampoline's programs: where `bpf_prog_check_recur` holds
        // (tracing but iterators; LSM never; struct_ops only with
        // `priv_stack_requested`, which no modelled load sets)
        pt::TRACING if env.input.expected_attach_type != crate::prog_type::bpf_attach_type::TRACE_ITER => PrivStack::Adaptive,
        _ => PrivStack::No,
    }
}

/// `round_up_stack_depth` with the JIT requested (every modelled kernel
/// has its JIT always on): 16-byte granularity.
fn round_up_stack_depth(depth: u32) -> u32 {
    depth.div_ceil(16) * 16
}

/// `check_max_stack_depth`: the deepest chain of static calls must fit the
/// 512-byte stack (frames on a private stack count on their own), call
/// chains are at most `MAX_CALL_FRAMES` deep, and tail calls are checked
/// against the stack of their callers. Sets `max_stack_depth`.
pub fn check_max_stack_depth(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let cnt = env.subprog_cnt;
    let mode = if env.subprog_info[..cnt].iter().any(|s| s.has_tail_call) { PrivStack::No } else { bpf_enable_priv_stack(env) };
    let mut modes = vec![PrivStack::Unknown; cnt];
    let mut dinfo = vec![DepthInfo::default(); cnt];
    for i in (0..cnt).rev() {
        if i == 0 || env.subprog_info[i].is_async_cb {
            let supported = i == 0 && mode == PrivStack::Adaptive;
            check_max_stack_depth_subprog(env, i, &mut dinfo, &mut modes, supported)?;
        }
    }
    for (si, m) in env.subprog_info.iter_mut().zip(&modes) {
        si.priv_stack_adaptive = *m == PrivStack::Adaptive;
    }
    Ok(())
}

/// `struct bpf_subprog_call_depth_info`.
#[derive(Clone, Copy, Default)]
struct DepthInfo {
    ret_insn: usize,
    caller: Option<usize>,
    frame: usize,
}

/// The subprograms on the call chain ending at `idx`, innermost first.
fn call_chain(dinfo: &[DepthInfo], idx: usize) -> impl Iterator<Item = usize> + '_ {
    let mut next = Some(idx);
    std::iter::from_fn(move || {
        let cur = next?;
        next = dinfo[cur].caller;
        Some(cur)
    })
    .take(dinfo.len() + 1)
}

/// `check_max_stack_depth_subprog`: a depth-first walk of the static call
/// graph from `root`, with the kernel's explicit stack of callers.
fn check_max_stack_depth_subprog(env: &mut VerifierEnv<'_>, root: usize, dinfo: &mut [DepthInfo], modes: &mut [PrivStack], supported: bool) -> PResult<()> {
    let mut idx = root;
    let mut depth: u32 = 0;
    let mut frame = 0usize;
    let mut tail_call_reachable = false;
    dinfo[idx].caller = None;
    let mut i = env.subprog_info[idx].start;
    if !supported {
        modes[idx] = PrivStack::No;
    }
    // recursion is refused earlier; the bound only guards the walk
    let mut budget = 1usize << 24;
    'process_func: loop {
        if env.subprog_info[idx].has_ld_abs && call_chain(dinfo, idx).any(|t| env.subprog_info[t].is_cb) {
            env.verbose("cannot use BPF_LD_[ABS|IND] within callback\n");
            return Err(Fail::Errno(EINVAL));
        }
        if idx != 0 && env.subprog_info[idx].has_tail_call && depth >= 256 {
            env.verbose(&format!("tail_calls are not allowed when call stack of previous frames is {depth} bytes. Too large\n"));
            return Err(Fail::Errno(EACCES));
        }
        let subprog_depth = round_up_stack_depth(env.subprog_info[idx].stack_depth);
        if supported && modes[idx] == PrivStack::Unknown && subprog_depth >= BPF_PRIV_STACK_MIN_SIZE {
            modes[idx] = PrivStack::Adaptive;
        }
        if modes[idx] == PrivStack::Adaptive {
            env.max_stack_depth = env.max_stack_depth.max(subprog_depth);
            if subprog_depth > MAX_BPF_STACK {
                env.verbose(&format!("stack size of subprog {idx} is {subprog_depth}. Too large\n"));
                return Err(Fail::Errno(EACCES));
            }
        } else {
            depth += subprog_depth;
            env.max_stack_depth = env.max_stack_depth.max(depth);
            if depth > MAX_BPF_STACK {
                let total = call_chain(dinfo, idx).count();
                env.verbose(&format!("combined stack size of {total} calls is {depth}. Too large\n"));
                return Err(Fail::Errno(EACCES));
            }
        }
        loop {
            // continue_func: the rest of `idx` after `i`
            let end = env.subprog_info[idx + 1].start;
            while i < end {
                budget = budget.checked_sub(1).ok_or(Fail::Errno(EFAULT))?;
                let insn = env.insns[i];
                if bpf_pseudo_kfunc_call(&insn) && insn.off == 0 {
                    if super::cfg::bpf_is_throw_kfunc(env, &insn) && call_chain(dinfo, idx).any(|t| env.subprog_info[t].is_cb) {
                        env.verbose(&format!("bpf_throw kfunc (insn {i}) cannot be called from callback subprog {idx}\n"));
                        return Err(Fail::Errno(EINVAL));
                    }
                    i += 1;
                    continue;
                }
                let call = bpf_pseudo_call(&insn);
                if !call && !bpf_pseudo_func(&insn) {
                    i += 1;
                    continue;
                }
                let next = jmp_target(i, insn.imm);
                let Some(sidx) = usize::try_from(next).ok().and_then(|t| env.bpf_find_subprog(t)) else {
                    env.verbose(&format!("verifier bug: callee not found at insn {next}\n"));
                    return Err(Fail::Errno(EFAULT));
                };
                if env.subprog_info[sidx].is_async_cb {
                    if !call {
                        i += 1;
                        continue;
                    }
                    if env.subprog_info[sidx].is_exception_cb {
                        env.verbose(&format!("insn {i} cannot call exception cb directly"));
                        return Err(Fail::Errno(EINVAL));
                    }
                }
                dinfo[idx].frame = frame;
                dinfo[idx].ret_insn = i + 1;
                dinfo[sidx].caller = Some(idx);
                i = env.subprog_info[sidx].start;
                idx = sidx;
                if !supported {
                    modes[idx] = PrivStack::No;
                }
                tail_call_reachable = env.subprog_info[idx].has_tail_call;
                frame = if env.bpf_subprog_is_global(idx) { 0 } else { frame + 1 };
                if frame >= MAX_CALL_FRAMES {
                    env.verbose(&format!("the call stack of {frame} frames is too deep !\n"));
                    return Err(Fail::Errno(E2BIG));
                }
                continue 'process_func;
            }
            if tail_call_reachable {
                let chain: Vec<usize> = call_chain(dinfo, idx).collect();
                for t in chain {
                    if env.subprog_info[t].is_cb {
                        env.verbose("cannot tail call within callback\n");
                        return Err(Fail::Errno(EINVAL));
                    }
                    env.subprog_info[t].tail_call_reachable = true;
                }
            }
            if frame == 0 && dinfo[idx].caller.is_none() {
                return Ok(());
            }
            if modes[idx] != PrivStack::Adaptive {
                depth = depth.saturating_sub(round_up_stack_depth(env.subprog_info[idx].stack_depth));
            }
            let Some(caller) = dinfo[idx].caller else { return Ok(()) };
            idx = caller;
            frame = dinfo[idx].frame;
            i = dinfo[idx].ret_insn;
            tail_call_reachable = env.subprog_info[idx].tail_call_reachable;
        }
    }
}
