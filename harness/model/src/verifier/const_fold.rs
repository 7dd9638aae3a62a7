//! Constant registers before the main pass (`kernel/bpf/const_fold.c`):
//! `bpf_compute_const_regs`, a forward data flow over r0-r9 in reverse
//! post-order, and `bpf_prune_dead_branches`, which rewrites conditional
//! jumps with a known outcome into `goto` (taken) or `goto +0` (not taken)
//! so liveness does not flow through dead code. The rewrite is visible in
//! the level-2 listings and in the xlated program.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::cfg::{bpf_compute_postorder, bpf_insn_successors};
use super::env::*;
use crate::map::flags::BPF_F_RDONLY_PROG;
use crate::map::types::*;

/// `enum const_arg_state` with its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConstArg {
    Unvisited,
    Unknown,
    Const(u64),
    /// A map pointer: index into `used_maps`.
    MapPtr(u32),
    /// Into a map's value: (`used_maps` index, offset).
    MapValue(u32, u64),
    /// A subprogram's address: its index.
    Subprog(u32),
}

use ConstArg::*;

impl ConstArg {
    /// `(state, map_index, val)` as `const_reg_join` compares them.
    fn key(self) -> (u8, u32, u64) {
        match self {
            Unvisited => (0, 0, 0),
            Unknown => (1, 0, 0),
            Const(v) => (2, 0, v),
            MapPtr(m) => (3, m, 0),
            MapValue(m, v) => (4, m, v),
            Subprog(v) => (5, 0, v as u64),
        }
    }
}

const NREGS: usize = MAX_BPF_REG as usize;

/// `const_reg_xfer`.
fn const_reg_xfer(env: &VerifierEnv<'_>, ci: &mut [ConstArg; NREGS], insn: &Insn, idx: usize) {
    if is_stack_arg_st(insn) || is_stack_arg_stx(insn) {
        return;
    }
    let d = insn.dst as usize;
    let s = insn.src as usize;
    if is_stack_arg_ldx(insn) {
        if d < NREGS {
            ci[d] = Unknown;
        }
        return;
    }
    if d >= NREGS || s >= NREGS {
        return;
    }
    let cls = insn.class();
    let opcode = op(insn.code) | src(insn.code);
    match cls {
        BPF_ALU | BPF_ALU64 => {
            let dst = ci[d];
            let srcv = ci[s];
            let imm = insn.imm as i64 as u64;
            ci[d] = match opcode {
                x if x == BPF_MOV | BPF_K => Const(imm),
                x if x == BPF_MOV | BPF_X => {
                    if insn.off == 0 {
                        srcv
                    } else if let Const(v) = srcv {
                        match insn.off {
                            8 => Const(v as i8 as i64 as u64),
                            16 => Const(v as i16 as i64 as u64),
                            32 => Const(v as i32 as i64 as u64),
                            _ => Unknown,
                        }
                    } else {
                        Unknown
                    }
                }
                x if x == BPF_ADD | BPF_K => match dst {
                    Const(v) => Const(v.wrapping_add(imm)),
                    MapValue(m, v) => MapValue(m, v.wrapping_add(imm)),
                    _ => Unknown,
                },
                x if x == BPF_SUB | BPF_K => match dst {
                    Const(v) => Const(v.wrapping_sub(imm)),
                    MapValue(m, v) => MapValue(m, v.wrapping_sub(imm)),
                    _ => Unknown,
                },
                x if x == BPF_AND | BPF_K => match dst {
                    Const(v) => Const(v & imm),
                    _ if insn.imm == 0 => Const(0),
                    _ => Unknown,
                },
                x if x == BPF_AND | BPF_X => match (dst, srcv) {
                    (Const(0), _) => Const(0),
                    (_, Const(0)) => Const(0),
                    (Const(a), Const(b)) => Const(a & b),
                    _ => Unknown,
                },
                _ => Unknown,
            };
            if cls == BPF_ALU {
                ci[d] = match ci[d] {
                    Const(v) => Const(v as u32 as u64),
                    Unknown => Unknown,
                    _ => Unknown,
                };
            }
        }
        BPF_LD => {
            let m = mode(insn.code);
            if m == BPF_ABS || m == BPF_IND {
                clobber_call(ci);
                return;
            }
            if m != BPF_IMM || size(insn.code) != BPF_DW {
                return;
            }
            ci[d] = match insn.src {
                BPF_PSEUDO_FUNC => match env.bpf_find_subprog(jmp_target(idx, insn.imm) as usize) {
                    Some(sp) if jmp_target(idx, insn.imm) >= 0 => Subprog(sp as u32),
                    _ => Unknown,
                },
                BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => MapValue(env.aux[idx].map_index as u32, env.aux[idx].map_off as u64),
                BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX => MapPtr(env.aux[idx].map_index as u32),
                0 => {
                    let hi = env.insns.get(idx + 1).map_or(0, |n| n.imm as u32 as u64);
                    Const(insn.imm as u32 as u64 | hi << 32)
                }
                _ => Unknown,
            };
        }
        BPF_LDX => {
            ci[d] = match ci[s] {
                MapValue(m, v) => map_direct_read(env, m as usize, v.wrapping_add(insn.off as i64 as u64) as u32 as i32 as i64, insn).map_or(Unknown, Const),
                _ => Unknown,
            };
        }
        BPF_JMP if op(insn.code) == BPF_CALL => clobber_call(ci),
        BPF_STX => {
            if let Some(r) = bpf_atomic_load_reg(insn) {
                ci[r] = Unknown;
            }
        }
        _ => {}
    }
}

fn clobber_call(ci: &mut [ConstArg; NREGS]) {
    for r in ci.iter_mut().take(6) {
        *r = Unknown;
    }
}

/// `bpf_atomic_load_reg`: the register an atomic insn loads into.
fn bpf_atomic_load_reg(insn: &Insn) -> Option<usize> {
    if mode(insn.code) != BPF_ATOMIC {
        return None;
    }
    if insn.imm == BPF_CMPXCHG {
        return Some(0);
    }
    if insn.imm == BPF_LOAD_ACQ {
        return Some(insn.dst as usize);
    }
    if insn.imm & BPF_FETCH != 0 {
        return Some(insn.src as usize);
    }
    None
}

/// A load from a read-only map's value (`bpf_map_is_rdonly` and
/// `bpf_map_direct_read`): the frozen `.rodata`-style array's contents.
fn map_direct_read(env: &VerifierEnv<'_>, used: usize, off: i64, insn: &Insn) -> Option<u64> {
    let map = &env.input.maps[*env.used_maps.get(used)?].def;
    let sz: i64 = match size(insn.code) {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    };
    let rdonly = map.map_flags & BPF_F_RDONLY_PROG != 0 && map.frozen;
    // only arrays with one element have a direct value address; per-CPU
    // arrays and insn arrays refuse direct reads
    if !rdonly || map.map_type != BPF_MAP_TYPE_ARRAY || map.max_entries != 1 {
        return None;
    }
    if off < 0 || off + sz > map.value_size as i64 {
        return None;
    }
    let value = map.init.iter().find(|(k, _)| k.iter().all(|b| *b == 0)).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
    let mut bytes = [0u8; 8];
    for (i, b) in bytes.iter_mut().enumerate().take(sz as usize) {
        *b = value.get(off as usize + i).copied().unwrap_or(0);
    }
    let raw = u64::from_le_bytes(bytes);
    let sx = mode(insn.code) == BPF_MEMSX;
    Some(match (sz, sx) {
        (1, true) => raw as u8 as i8 as i64 as u64,
        (2, true) => raw as u16 as i16 as i64 as u64,
        (4, true) => raw as u32 as i32 as i64 as u64,
        _ => raw,
    })
}

/// `const_reg_join`: merge `out` into a successor's input.
fn const_reg_join(target: &mut [ConstArg; NREGS], out: &[ConstArg; NREGS]) -> bool {
    let mut changed = false;
    for r in 0..NREGS {
        let old = target[r];
        let new = out[r];
        if old == Unvisited && new != Unvisited {
            target[r] = new;
            changed = true;
        } else if old != Unknown && old != Unvisited && new.key() != old.key() {
            target[r] = Unknown;
            changed = true;
        }
    }
    changed
}

/// `bpf_compute_const_regs`.
pub fn bpf_compute_const_regs(env: &mut VerifierEnv<'_>) {
    if !env.insns.iter().any(const_regs_consulted) {
        // no conditional jump and no call: nothing would read a record
        // (and the fresh aux entries record none)
        return;
    }
    if env.cfg_loop_free && compute_const_regs_loop_free(env) {
        return;
    }
    let n = env.len();
    let mut ci_in = vec![[Unvisited; NREGS]; n];
    for i in 0..env.subprog_cnt {
        ci_in[env.subprog_info[i].start] = [Unknown; NREGS];
    }
    // Only an insn whose input changed since its last visit is visited
    // again (the join is a semilattice: the others would change nothing),
    // so code without loops takes one pass, not two.
    let mut dirty = vec![false; n];
    let mut visited = vec![false; n];
    for i in 0..env.subprog_cnt {
        if let Some(d) = dirty.get_mut(env.subprog_info[i].start) {
            *d = true;
            visited[env.subprog_info[i].start] = true;
        }
    }
    loop {
        let mut changed = false;
        for p in (0..env.insn_postorder.len()).rev() {
            let idx = env.insn_postorder[p] as usize;
            if !std::mem::replace(&mut dirty[idx], false) {
                continue;
            }
            let mut out = ci_in[idx];
            let insn = env.insns[idx];
            const_reg_xfer(env, &mut out, &insn, idx);
            let succ = bpf_insn_successors(env, idx);
            for &s in succ.as_slice() {
                if s >= n {
                    continue;
                }
                if !visited[s] {
                    // all unvisited: takes the output as it is (which
                    // holds no unvisited register: entries start unknown)
                    visited[s] = true;
                    ci_in[s] = out;
                } else if !const_reg_join(&mut ci_in[s], &out) {
                    continue;
                }
                changed = true;
                dirty[s] = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (i, ci) in ci_in.iter().enumerate() {
        record_const_regs(env, i, ci);
    }
}

/// `bpf_compute_const_regs` on a CFG without loops (see
/// [`VerifierEnv::cfg_loop_free`]): in reverse post-order every
/// predecessor of an insn comes before it, so one pass is the fixed point
/// and an insn's input is final when it is reached. The output of an insn
/// is carried to the next insn of the order without being stored; only
/// inputs met out of order (jump targets) are stored, by a row index per
/// insn. Memory stays proportional to the jumps, not to the insns (176
/// bytes each).
///
/// The order is `bpf_compute_postorder`'s, which does not push an insn
/// already on its stack again: a `goto` back to such an insn (`5: if ..
/// goto 10; 6: ..; 10: ..; 11: goto 6` has no loop) lands on an insn the
/// pass has already done. Then it gives up (false) for the general
/// iteration.
fn compute_const_regs_loop_free(env: &mut VerifierEnv<'_>) -> bool {
    const NO_ROW: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    let n = env.len();
    let mut pending_row = vec![NO_ROW; n];
    let mut rows: Vec<[ConstArg; NREGS]> = Vec::new();
    for i in 0..env.subprog_cnt {
        if let Some(slot) = pending_row.get_mut(env.subprog_info[i].start) {
            *slot = rows.len() as u32;
            rows.push([Unknown; NREGS]);
        }
    }
    // the input of the insn at hand, then its output: carried on to the
    // next insn of the order when that is a successor
    let mut row = [Unvisited; NREGS];
    let mut carried = false;
    for p in (0..env.insn_postorder.len()).rev() {
        let idx = env.insn_postorder[p] as usize;
        let mut have = std::mem::replace(&mut carried, false);
        if let Some(&k) = pending_row.get(idx).filter(|&&k| k != NO_ROW) {
            if have {
                const_reg_join(&mut row, &rows[k as usize]);
            } else {
                row = rows[k as usize];
                have = true;
            }
        }
        pending_row[idx] = DONE;
        if !have {
            continue;
        }
        record_const_regs(env, idx, &row);
        let insn = env.insns[idx];
        const_reg_xfer(env, &mut row, &insn, idx);
        let next = p.checked_sub(1).map(|q| env.insn_postorder[q] as usize);
        for &s in bpf_insn_successors(env, idx).as_slice() {
            if s >= n {
                continue;
            }
            if Some(s) == next && !carried {
                carried = true;
                continue;
            }
            match pending_row[s] {
                NO_ROW => {
                    pending_row[s] = rows.len() as u32;
                    rows.push(row);
                }
                DONE => return false,
                k => {
                    const_reg_join(&mut rows[k as usize], &row);
                }
            }
        }
    }
    true
}

/// Whether anything reads the constant registers of `insn`: the
/// conditional jumps `bpf_prune_dead_branches` folds and the helper and
/// kfunc calls whose stack arguments and callbacks liveness sizes. (The
/// kernel also keeps them on every other insn for `do_check`'s sanity
/// check, which can only fail on a verifier bug and is not modelled.)
fn const_regs_consulted(insn: &Insn) -> bool {
    insn.code == BPF_JMP | BPF_CALL || (bpf_insn_is_cond_jump(insn.code) && !bpf_is_may_goto_insn(insn))
}

/// What the main pass and the rewrites keep of an insn's constant
/// registers: an entry of the side table `env.const_regs` for an insn
/// that has any and [consults them](const_regs_consulted), named by its
/// aux entry. Recording every insn made the table as long as a
/// straight-line program of constants.
fn record_const_regs(env: &mut VerifierEnv<'_>, idx: usize, ci: &[ConstArg; NREGS]) {
    if !env.insns.get(idx).is_some_and(const_regs_consulted) {
        return;
    }
    let mut c = ConstRegs::NONE;
    for (r, a) in ci.iter().enumerate().take(10) {
        match *a {
            Const(v) if v == v as u32 as u64 => {
                c.mask |= 1 << r;
                c.vals[r] = v as u32;
            }
            MapPtr(m) => {
                c.map_mask |= 1 << r;
                c.vals[r] = m;
            }
            Subprog(v) => {
                c.subprog_mask |= 1 << r;
                c.vals[r] = v;
            }
            _ => {}
        }
    }
    let slot = env.aux[idx].const_regs as usize;
    if c == ConstRegs::NONE {
        env.aux[idx].const_regs = 0;
    } else if slot != 0 && slot < env.const_regs.len() {
        // recomputed (after dead branches went): the insn's own entry
        env.const_regs[slot] = c;
    } else {
        env.aux[idx].const_regs = env.const_regs.len() as u32;
        env.const_regs.push(c);
    }
}

/// `eval_const_branch`.
fn eval_const_branch(code: u8, d: u64, s: u64) -> Option<bool> {
    Some(match op(code) {
        BPF_JEQ => d == s,
        BPF_JNE => d != s,
        BPF_JGT => d > s,
        BPF_JGE => d >= s,
        BPF_JLT => d < s,
        BPF_JLE => d <= s,
        BPF_JSGT => (d as i64) > s as i64,
        BPF_JSGE => (d as i64) >= s as i64,
        BPF_JSLT => (d as i64) < s as i64,
        BPF_JSLE => (d as i64) <= s as i64,
        BPF_JSET => d & s != 0,
        _ => return None,
    })
}

/// `bpf_prune_dead_branches`.
pub fn bpf_prune_dead_branches(env: &mut VerifierEnv<'_>) -> super::PResult<()> {
    if env.const_regs.len() <= 1 {
        // no jump or call has a constant register: nothing to fold
        return Ok(());
    }
    let mut changed = false;
    for i in 0..env.len() {
        let insn = env.insns[i];
        if !bpf_insn_is_cond_jump(insn.code) || bpf_is_may_goto_insn(&insn) {
            continue;
        }
        let c = env.const_regs_at(i);
        let d = insn.dst as usize;
        if d >= 10 || c.mask & (1 << d) == 0 {
            continue;
        }
        let mut dv = c.vals[d] as u64;
        let mut sv = if src(insn.code) == BPF_K {
            insn.imm as i64 as u64
        } else {
            let s = insn.src as usize;
            if s >= 10 || c.mask & (1 << s) == 0 {
                continue;
            }
            c.vals[s] as u64
        };
        if insn.class() == BPF_JMP32 {
            dv = dv as u32 as i32 as i64 as u64;
            sv = sv as u32 as i32 as i64 as u64;
        }
        let Some(taken) = eval_const_branch(insn.code, dv, sv) else {
            env.verbose(&format!("Unknown conditional jump {:x}\n", insn.code));
            return Err(super::Fail::Errno(super::errno::EFAULT));
        };
        env.insns[i] = Insn::new(BPF_JMP | BPF_JA, 0, 0, if taken { insn.off } else { 0 }, 0);
        changed = true;
    }
    if changed {
        bpf_compute_postorder(env);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::prog_type::SOCKET_FILTER;
    use crate::target::Arch;
    use crate::verifier::env::VerifierInput;
    use crate::{load::bpf_check, verifier::Verdict};
    use bpf_isa::op::*;

    /// `bpf_compute_postorder` emits insn 9 (`goto l0`) before insn 3, its
    /// successor, although nothing loops: r3 reaches `if r3 == 0` as 0
    /// (from insn 0) and as 1 (from insn 8), so it is no constant there and
    /// the branch must stay (folding it made the program always return 0).
    #[test]
    fn a_goto_back_without_a_loop_joins_its_constants() {
        let src =
            "r3 = 0;\nr7 = *(u32 *)(r1 + 0);\nif r7 > 1 goto l1;\nl0:\nif r3 == 0 goto l2;\nr0 = 1;\nexit;\nl2:\nr0 = 0;\nexit;\nl1:\nr3 = 1;\ngoto l0;\n";
        let insns = bpf_isa::asm::assemble(src).expect("assembles").insns;
        let Verdict::Decided(d) = bpf_check(&VerifierInput::new(insns, SOCKET_FILTER, Arch::X86_64)) else { panic!("not decided") };
        assert!(d.accepted, "{}", d.log);
        assert_eq!(d.xlated.len(), 10);
        assert_eq!(d.xlated[3].code, BPF_JMP | BPF_JEQ | BPF_K, "insn 3 was folded");
    }
}
