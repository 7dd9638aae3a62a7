//! Subprogram discovery and layout (`verifier.c`): `add_subprog`,
//! `add_subprogs`, `check_subprogs`, `sort_subprogs_topo`.

use bpf_isa::op::*;

use super::diag::{bpf_diag_policy, bpf_diag_program_structure};
use super::env::*;
use super::errno::*;
use super::log::BPF_LOG_LEVEL2;
use super::{Fail, PResult};

/// `BPF_FUNC_tail_call`.
pub const BPF_FUNC_TAIL_CALL: i32 = 12;

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
        if !env.bpf_capable {
            let (operation, suggestion) = if func {
                (
                    "BPF function reference",
                    "Load this program with the required capability, or avoid BPF function references in unprivileged programs.",
                )
            } else {
                (
                    "BPF-to-BPF function call",
                    "Load this program with the required capability, or avoid BPF-to-BPF function calls in unprivileged programs.",
                )
            };
            env.verbose("loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n");
            bpf_diag_policy(env, i, operation, "loading or calling other BPF functions requires CAP_BPF or CAP_SYS_ADMIN", suggestion);
            return Err(Fail::Errno(EPERM));
        }
        add_subprog(env, jmp_target(i, insn.imm))?;
    }
    // bpf_find_exception_callback_insn_off: the program BTF here never
    // carries the "exception_callback:" decl tag.

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
                let reason = format!(
                    "Subprogram {cur} reaches its last instruction {i} without an exit or jump, so control could continue into the next subprogram."
                );
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
        if color[i] != 0 {
            continue;
        }
        color[i] = 1;
        stack.push(i);
        while let Some(&cur) = stack.last() {
            let po = env.subprog_info[cur].postorder_start..env.subprog_info[cur + 1].postorder_start;
            let mut pushed = false;
            for j in po {
                let idx = env.insn_postorder[j];
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
