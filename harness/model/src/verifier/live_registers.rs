//! Register liveness before the main pass: `bpf_compute_live_registers`,
//! a backward data flow over the insns giving each insn's live registers
//! (the "Live regs before insn" listing at log level 2) and `zext_dst` for
//! 32-bit defs whose upper half is read later. Between the two it runs
//! the stack liveness of [`super::liveness`] (`bpf_compute_subprog_arg_access`).

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::PResult;
use super::cfg::bpf_insn_successors;
use super::env::*;
use super::liveness::{MAX_BPF_FUNC_REG_ARGS, bpf_atomic_load_reg, bpf_compute_subprog_arg_access, bpf_get_call_summary};
use super::log::{BPF_LOG_LEVEL2, bpf_vlog_alignment};

/// `struct insn_live_regs`: masks with r0-r15 in the low 16 bits (the low
/// halves) and again in the high 16 bits (the upper halves).
#[derive(Clone, Copy, Default)]
struct InsnLiveRegs {
    use_: u32,
    def: u32,
    in_: u32,
    out: u32,
}

fn reg64_mask(n: u8) -> u32 {
    (1u32 << n) | (1u32 << (n as u32 + 16))
}

fn mask_lo(m: u32) -> u32 {
    m & 0xffff
}

fn mask_hi(m: u32) -> u32 {
    m >> 16
}

fn mask_widen(m: u32) -> u32 {
    m | (m << 16)
}

/// `compute_insn_live_regs`.
fn compute_insn_live_regs(env: &VerifierEnv<'_>, insn: &Insn) -> PResult<(u32, u32)> {
    let cls = insn.class();
    let code = op(insn.code);
    let m = mode(insn.code);
    let srcm = reg64_mask(insn.src);
    let dstm = reg64_mask(insn.dst);
    let src32 = mask_lo(srcm);
    let dst32 = mask_lo(dstm);
    let r0 = reg64_mask(0);
    let mut def = 0u32;
    let mut use_ = u32::MAX;
    match cls {
        BPF_LD => {
            if m == BPF_IMM && size(insn.code) == BPF_DW {
                def = dstm;
                use_ = 0;
            }
        }
        BPF_LDX => {
            if m == BPF_MEM || m == BPF_MEMSX {
                def = dstm;
                use_ = srcm;
            }
        }
        BPF_ST => {
            if m == BPF_MEM {
                def = 0;
                use_ = dstm;
            }
        }
        BPF_STX => {
            if m == BPF_MEM {
                def = 0;
                use_ = dstm | if size(insn.code) == BPF_DW { srcm } else { src32 };
            } else if m == BPF_ATOMIC {
                let dw = size(insn.code) == BPF_DW;
                let srcv = if dw { srcm } else { src32 };
                let r0v = if dw { r0 } else { mask_lo(r0) };
                match insn.imm {
                    BPF_CMPXCHG => {
                        use_ = r0v | dstm | srcv;
                        def = r0;
                    }
                    BPF_LOAD_ACQ => {
                        def = dstm;
                        use_ = srcm;
                    }
                    BPF_STORE_REL => {
                        def = 0;
                        use_ = dstm | srcv;
                    }
                    imm => {
                        use_ = dstm | srcv;
                        def = if imm & BPF_FETCH != 0 { srcm } else { 0 };
                    }
                }
            }
        }
        BPF_ALU | BPF_ALU64 => {
            let k = src(insn.code) == BPF_K;
            match code {
                BPF_END => {
                    use_ = dstm;
                    def = dstm;
                }
                BPF_MOV => {
                    def = dstm;
                    use_ = if k {
                        0
                    } else if cls == BPF_ALU64 {
                        srcm
                    } else {
                        src32
                    };
                }
                _ => {
                    def = dstm;
                    use_ = match (k, cls == BPF_ALU64) {
                        (true, true) => dstm,
                        (true, false) => dst32,
                        (false, true) => dstm | srcm,
                        (false, false) => dst32 | src32,
                    };
                }
            }
        }
        _ => {
            // BPF_JMP / BPF_JMP32
            match code {
                BPF_JA => {
                    def = 0;
                    use_ = if src(insn.code) == BPF_X { dstm } else { 0 };
                }
                BPF_JCOND => {
                    def = 0;
                    use_ = 0;
                }
                BPF_EXIT => {
                    def = 0;
                    use_ = r0;
                }
                BPF_CALL => {
                    // r0-r5 are clobbered; a bpf-to-bpf call reads r1-r5
                    let d = (1u32 << 6) - 1;
                    let mut u = d & !1;
                    if let Some(n) = bpf_get_call_summary(env, insn)?.map(|c| c.num_params) {
                        let n = n.min(MAX_BPF_FUNC_REG_ARGS as u32);
                        u = if n == 0 { 0 } else { ((1u32 << (n + 1)) - 1) & !1 };
                    }
                    def = mask_widen(d);
                    use_ = mask_widen(u);
                }
                _ => {
                    def = 0;
                    use_ = if cls == BPF_JMP { dstm } else { dst32 };
                    if src(insn.code) == BPF_X {
                        use_ |= if cls == BPF_JMP { srcm } else { src32 };
                    }
                }
            }
        }
    }
    Ok((use_, def))
}

/// `insn_def_regno`.
fn insn_def_regno(insn: &Insn) -> Option<usize> {
    match insn.class() {
        BPF_JMP | BPF_JMP32 | BPF_ST => None,
        BPF_STX => bpf_atomic_load_reg(insn),
        _ => Some(insn.dst as usize),
    }
}

/// `bpf_is_reg64` (programs here have no arena, so an address-space cast
/// to address space 0 is the only 32-bit cast).
#[inline]
fn bpf_is_reg64(insn: &Insn) -> bool {
    let cls = insn.class();
    // the commonest insn, 64-bit ALU: 64-bit unless a narrow byte swap or
    // a cast to address space 0
    if cls == BPF_ALU64 && op(insn.code) != BPF_END && insn.code != BPF_ALU64 | BPF_MOV | BPF_X {
        return true;
    }
    let m = mode(insn.code);
    let o = op(insn.code);
    if (cls == BPF_ALU || cls == BPF_ALU64) && o == BPF_END && insn.imm != 64 {
        return false;
    }
    if cls == BPF_ALU && o != BPF_END {
        return false;
    }
    if insn.code == BPF_ALU64 | BPF_MOV | BPF_X && insn.off == BPF_ADDR_SPACE_CAST && insn.imm == 1 {
        return false;
    }
    let mode_mem = m == BPF_MEM || m == BPF_PROBE_MEM || m == BPF_PROBE_MEM32;
    if cls == BPF_LDX && mode_mem && size(insn.code) != BPF_DW {
        return false;
    }
    if cls == BPF_STX && size(insn.code) != BPF_DW {
        return false;
    }
    if cls == BPF_LD && (m == BPF_IND || m == BPF_ABS) {
        return false;
    }
    true
}

/// `bpf_insn_def32`: the 32-bit subregister an insn defines, if any.
#[inline]
pub fn bpf_insn_def32(insn: &Insn) -> Option<usize> {
    // the cheaper test first: most insns are 64-bit
    if bpf_is_reg64(insn) { None } else { insn_def_regno(insn) }
}

/// `bpf_compute_live_registers`.
pub fn bpf_compute_live_registers(env: &mut VerifierEnv<'_>) -> PResult<()> {
    if !(env.cfg_loop_free && compute_live_registers_loop_free(env)?) {
        compute_live_registers_iterating(env)?;
    }
    env.stack_liveness = bpf_compute_subprog_arg_access(env)?;
    print_live_registers(env);
    Ok(())
}

/// The `live_regs_before` and `zext_dst` of an insn with live-out `out`
/// and live-in `in_`.
fn record_live_regs(env: &mut VerifierEnv<'_>, idx: usize, in_: u32, out: u32) {
    // no upper half read later: nothing to zero-extend, whatever the insn
    let hi_out = mask_hi(out);
    let zext = hi_out != 0 && bpf_insn_def32(&env.insns[idx]).is_some_and(|r| r < 16 && hi_out & (1 << r) != 0);
    let a = &mut env.aux[idx];
    a.live_regs_before = (mask_lo(in_) | mask_hi(in_)) as u16;
    a.zext_dst = zext;
}

/// `bpf_compute_live_registers` on a CFG without loops: in post-order the
/// successors of an insn come before it, so one backward pass is the fixed
/// point, with a live-in mask per insn and nothing else. A `goto` back to
/// an insn the post-order emitted later (no loop, see
/// `compute_const_regs_loop_free`) is a successor not yet done: then it
/// gives up (false) for the iteration.
fn compute_live_registers_loop_free(env: &mut VerifierEnv<'_>) -> PResult<bool> {
    let n = env.len();
    let mut live_in = vec![0u32; n];
    let mut done = vec![0u64; n.div_ceil(64)];
    let is_done = |done: &[u64], i: usize| done[i / 64] & (1u64 << (i % 64)) != 0;
    for k in 0..env.insn_postorder.len() {
        let idx = env.insn_postorder[k] as usize;
        let insn = env.insns[idx];
        let (use_, def) = compute_insn_live_regs(env, &insn)?;
        let mut out = 0u32;
        for &s in bpf_insn_successors(env, idx).as_slice() {
            if s < n {
                if !is_done(&done, s) {
                    return Ok(false);
                }
                out |= live_in[s];
            }
        }
        let in_ = (out & !def) | use_;
        live_in[idx] = in_;
        done[idx / 64] |= 1u64 << (idx % 64);
        record_live_regs(env, idx, in_, out);
    }
    // unreachable insns (dead branches) and the second halves of ld_imm64
    for (w, &bits) in done.iter().enumerate() {
        if bits == u64::MAX {
            continue;
        }
        for i in w * 64..(w * 64 + 64).min(n) {
            if !is_done(&done, i) {
                record_live_regs(env, i, 0, 0);
            }
        }
    }
    Ok(true)
}

/// `bpf_compute_live_registers` by iteration to a fixed point.
fn compute_live_registers_iterating(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let n = env.len();
    let mut state = vec![InsnLiveRegs::default(); n];
    // only reachable insns take part (the kernel computes the others too,
    // unused; call summaries are only needed where they matter)
    for i in env.insn_postorder.iter().map(|&i| i as usize) {
        let (u, d) = compute_insn_live_regs(env, &env.insns[i])?;
        state[i].use_ = u;
        state[i].def = d;
    }
    // A pass in which every successor read was already visited in that
    // pass (no loop) leaves nothing for another pass to change: code
    // without loops converges in one pass instead of two.
    let mut visited_in_pass = vec![0u32; n];
    let mut pass = 0u32;
    loop {
        pass += 1;
        let (mut changed, mut stale_read) = (false, false);
        for idx in env.insn_postorder.iter().map(|&i| i as usize) {
            let succ = bpf_insn_successors(env, idx);
            let mut new_out = 0u32;
            for &s in succ.as_slice() {
                if s < n {
                    new_out |= state[s].in_;
                    stale_read |= visited_in_pass[s] != pass;
                }
            }
            visited_in_pass[idx] = pass;
            let live = &mut state[idx];
            let new_in = (new_out & !live.def) | live.use_;
            if new_out != live.out || new_in != live.in_ {
                live.in_ = new_in;
                live.out = new_out;
                changed = true;
            }
        }
        if !changed || !stale_read {
            break;
        }
    }
    for (i, st) in state.iter().enumerate() {
        record_live_regs(env, i, st.in_, st.out);
    }
    Ok(())
}

/// The level-2 listing of the live registers before each insn.
fn print_live_registers(env: &mut VerifierEnv<'_>) {
    let n = env.len();
    if env.level() & BPF_LOG_LEVEL2 != 0 {
        env.verbose("Live regs before insn:\n");
        let mut i = 0;
        while i < n {
            let scc = env.aux[i].scc;
            if scc != 0 {
                env.verbose(&format!("{scc:3} "));
            } else {
                env.verbose("    ");
            }
            env.verbose(&format!("{i:3}: "));
            let live = env.aux[i].live_regs_before;
            let regs: String = (0..10).map(|j| if live & (1 << j) != 0 { char::from(b'0' + j as u8) } else { '.' }).collect();
            env.verbose(&regs);
            env.verbose(" ");
            let pos = env.log.end_pos;
            let text = env.insn_text(i);
            env.verbose(&text);
            let insn_pos = env.log.end_pos;
            if env.aux[i].zext_dst {
                let pad = bpf_vlog_alignment(insn_pos - pos);
                env.verbose(&format!("{}; zext", " ".repeat(pad)));
            }
            env.verbose("\n");
            if env.insns[i].is_ld_imm64() {
                i += 1;
            }
            i += 1;
        }
    }
}
