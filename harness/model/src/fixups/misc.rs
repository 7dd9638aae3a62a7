//! `bpf_do_misc_fixups` (kernel/bpf/fixups.c): one walk over the program
//! that makes the JIT's and the interpreter's life simple. In the kernel's
//! order, per insn: address space casts, sdiv/smod by -1, div/mod guards,
//! user-address checks of `BPF_PROBE_MEM` loads, `LD_ABS`/`LD_IND`,
//! Spectre v1 masking of pointer ALU, `may_goto`, per-CPU `ld_imm64`, and
//! calls: tail calls here, every other helper or kfunc call in
//! [`super::calls::fixup_call`]. Then the stack slots `may_goto` needs,
//! initialised in a prologue of each subprogram that uses them.
//!
//! Every rewrite is queued on the patch engine ([`super::patch`]) against
//! the program as the pass read it, and applied together.

use bpf_isa::Insn;
use bpf_isa::insn::{BPF_REG_AX, BPF_REG_FP};
use bpf_isa::op::*;

use super::patch::{self, Patches};
use crate::limits::{BPF_MAX_LOOPS, BPF_MAX_TIMED_LOOPS};
use crate::map::types::BPF_MAP_TYPE_PERCPU_ARRAY;
use crate::prog_type::{SCHED_ACT, SCHED_CLS, SOCKET_FILTER};
use crate::target::Arch;
use crate::verifier::Fail;
use crate::verifier::do_check::{BPF_ALU_IMMEDIATE, BPF_ALU_NEG_VALUE, BPF_ALU_NON_POINTER, BPF_ALU_SANITIZE_DST, BPF_ALU_SANITIZE_SRC};
use crate::verifier::env::{SubprogInfo, VerifierEnv};
use crate::verifier::helper_call::MapKeyState;

const PHASE: &str = "bpf_do_misc_fixups";

use bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL;
use bpf_isa::insn::MAX_BPF_STACK;
/// `BPF_ALU_SANITIZE`: either side sanitized.
const BPF_ALU_SANITIZE: u8 = BPF_ALU_SANITIZE_SRC | BPF_ALU_SANITIZE_DST;

/// Kernel functions the rewrites of this pass call (`BPF_EMIT_CALL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelFn {
    /// `bpf_skb_load_helper_{8,16,32}_no_cache`, by load size in bytes.
    SkbLoadHelperNoCache(u8),
    /// `arch_bpf_timed_may_goto`.
    ArchBpfTimedMayGoto,
}

/// `BPF_CALL_IMM(fn)` of the Debian 7.3.4 image of `arch`, from the
/// kallsyms table the call rewrites use; unknown for other images.
pub fn kernel_fn_call_imm(arch: Arch, f: KernelFn) -> Option<i32> {
    let name = match f {
        KernelFn::SkbLoadHelperNoCache(1) => "bpf_skb_load_helper_8_no_cache",
        KernelFn::SkbLoadHelperNoCache(2) => "bpf_skb_load_helper_16_no_cache",
        KernelFn::SkbLoadHelperNoCache(4) => "bpf_skb_load_helper_32_no_cache",
        KernelFn::SkbLoadHelperNoCache(_) => return None,
        KernelFn::ArchBpfTimedMayGoto => "arch_bpf_timed_may_goto",
    };
    super::calls::kernel_symbols::call_imm(arch, name)
}

/// `bpf_jit_supports_timed_may_goto()`: every 7.3 JIT we target says yes.
fn jit_supports_timed_may_goto(arch: Arch) -> Option<bool> {
    Some(arch.kernel_jits())
}

/// `bpf_jit_supports_percpu_insn()`: all but s390x's 7.3 JIT.
fn bpf_jit_supports_percpu_insn(arch: Arch) -> bool {
    arch.kernel_jits() && arch != Arch::S390x
}

fn ins(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn::new(code, dst, src, off, imm)
}

fn ja(off: i16) -> Insn {
    ins(BPF_JMP | BPF_JA, 0, 0, off, 0)
}

/// What the walk carries from insn to insn.
struct Walk {
    arch: Arch,
    /// The image whose kernel addresses calls get (`symbols_arch`).
    symbols_arch: Arch,
    timed_may_goto: Option<bool>,
    /// `subprogs[cur_subprog].stack_depth` before this pass's extra slots.
    stack_depth: u32,
    /// `stack_depth_extra` of the current subprogram.
    stack_depth_extra: u32,
    /// Tail call poke descriptors handed out so far.
    pokes: u32,
}

/// The pass.
pub fn bpf_do_misc_fixups(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    // the walk stops before a hidden subprogram appended now
    let insn_cnt = env.insns.len();
    env.seen_exception = seen_exception(env);
    if env.seen_exception && env.exception_callback_subprog == 0 {
        add_exception_callback(env)?;
    }

    let arch = env.input.arch;
    let cnt = env.subprog_cnt;
    // `stack_extra` per subprogram; the boundaries are the program's as
    // read (a patch never moves the insns of the walk behind it)
    let mut stack_extra = vec![0u32; cnt];
    let starts: Vec<usize> = (0..=cnt).map(|s| env.subprog_info.get(s).map_or(insn_cnt, |si| si.start)).collect();
    let mut cur = 0;
    let mut w = Walk {
        arch,
        symbols_arch: env.input.symbols_arch,
        timed_may_goto: jit_supports_timed_may_goto(arch),
        stack_depth: env.subprog_info.first().map_or(0, |s| s.stack_depth),
        stack_depth_extra: 0,
        pokes: 0,
    };
    let mut patches = Patches::new();
    let mut i = 0;
    while i < insn_cnt {
        // the insns before the subprogram's last one that the walk passes
        // over, in one scan
        let last = if cur < cnt { starts[cur + 1].min(insn_cnt) } else { insn_cnt }.saturating_sub(1);
        if i < last && !may_rewrite(env, i) {
            i = (i + 1..last).find(|&k| may_rewrite(env, k)).unwrap_or(last);
        }
        if may_rewrite(env, i)
            && let Some(p) = fixup_insn(env, &mut w, &mut i)?
        {
            patches.replace(i, p);
        }
        // next_insn: leaving a subprogram settles its extra stack
        if cur < cnt
            && starts[cur + 1] == i + 1
            && let Some(si) = env.subprog_info.get_mut(cur)
        {
            si.stack_depth += w.stack_depth_extra;
            stack_extra[cur] = w.stack_depth_extra;
            if si.stack_depth > MAX_BPF_STACK && !arch.kernel_jits() {
                let msg = format!("stack size {}(extra {}) is too large\n", si.stack_depth, w.stack_depth_extra);
                env.verbose(&msg);
                return Err(Fail::Errno(crate::verifier::errno::EINVAL));
            }
            cur += 1;
            w.stack_depth = env.subprog_info.get(cur).map_or(0, |s| s.stack_depth);
            w.stack_depth_extra = 0;
        }
        i += 1;
    }
    patch::apply(env, patches)?;
    may_goto_prologues(env, &stack_extra)
}

/// The opcodes [`fixup_insn`] may rewrite: address space casts (`r = r`
/// 64-bit moves), div/mod, probing loads, `LD_ABS`/`LD_IND`, pointer
/// add/sub, `may_goto`, `ld_imm64` and calls. Every other insn (an arena
/// ALU aside: `needs_zext`) the walk passes over with one look, as the
/// kernel's `continue`s do.
const MISC_FIXUP_CANDIDATES: [bool; 256] = {
    let mut t = [false; 256];
    let mut code = 0;
    while code < 256 {
        let c = code as u8;
        let (class, op, mode) = (c & 0x07, c & 0xf0, c & 0xe0);
        t[code] = match class {
            BPF_ALU | BPF_ALU64 => {
                matches!(op, BPF_DIV | BPF_MOD) || c == BPF_ALU64 | BPF_MOV | BPF_X || c == BPF_ALU64 | BPF_ADD | BPF_X || c == BPF_ALU64 | BPF_SUB | BPF_X
            }
            BPF_LDX => matches!(mode, BPF_PROBE_MEM | BPF_PROBE_MEMSX),
            BPF_LD => matches!(mode, BPF_ABS | BPF_IND) || c == BPF_LD | BPF_IMM | BPF_DW,
            BPF_JMP => c == BPF_JMP | BPF_JCOND || c == BPF_JMP | BPF_CALL,
            _ => false,
        };
        code += 1;
    }
    t
};

/// Whether [`fixup_insn`] has anything to look at in insn `i`.
fn may_rewrite(env: &VerifierEnv<'_>, i: usize) -> bool {
    MISC_FIXUP_CANDIDATES[env.insns[i].code as usize] || env.pass_aux.get(i).is_some_and(|a| a.needs_zext)
}

/// `env->seen_exception`: a `bpf_throw` was verified.
fn seen_exception(env: &VerifierEnv<'_>) -> bool {
    env.insns
        .iter()
        .enumerate()
        .any(|(i, insn)| insn.is_kfunc_call() && env.pass_aux.get(i).is_some_and(|a| a.seen) && env.kfunc_name(insn.imm) == Some("bpf_throw"))
}

/// `add_hidden_subprog` with the default exception callback (`r0 = r1;
/// exit`: the cookie of `bpf_throw` is the program's return value),
/// appended as a new last subprogram (`bpf_mark_subprog_exc_cb`).
fn add_exception_callback(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let Some(&last) = env.insns.last() else {
        return Err(Fail::unsupported(PHASE, "an empty program with an exception"));
    };
    let old_len = env.insns.len();
    let mut p = Patches::new();
    p.replace(old_len - 1, vec![last, ins(BPF_ALU64 | BPF_MOV | BPF_X, 0, 1, 0, 0), ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)]);
    patch::apply(env, p)?;
    let cnt = env.subprog_cnt;
    let cb =
        SubprogInfo { start: old_len, exit_idx: old_len + 1, is_cb: true, is_async_cb: true, is_exception_cb: true, hidden: true, ..SubprogInfo::default() };
    env.subprog_info.insert(cnt, cb);
    env.subprog_cnt += 1;
    env.exception_callback_subprog = cnt;
    Ok(())
}

/// What replaces insn `*i` (`None`: it stays). The per-CPU `ld_imm64`
/// rewrite patches the second slot and moves `*i` to it, as the kernel's
/// walk does.
fn fixup_insn(env: &mut VerifierEnv<'_>, w: &mut Walk, i: &mut usize) -> Result<Option<Vec<Insn>>, Fail> {
    if super::arena::is_addr_space_cast32(env, &env.insns[*i]) {
        // a 32-bit move that clears the upper half, in place
        env.insns[*i] = Insn { code: BPF_ALU | BPF_MOV | BPF_X, off: 0, imm: 0, ..env.insns[*i] };
        return Ok(None);
    }
    if env.pass_aux.get(*i).is_some_and(|a| a.needs_zext) {
        // 64-bit ALU on an arena pointer: its 32-bit form, in place; the
        // main pass also marked it `zext_dst` (so no RND_HI32 poison)
        let c = env.insns[*i].code;
        env.insns[*i].code = BPF_ALU | (c & 0xf0) | (c & 0x08);
        if let Some(a) = env.aux.get_mut(*i) {
            a.zext_dst = true;
        }
    }
    let insn = env.insns[*i];
    let (class, op, src_k) = (insn.code & 0x07, insn.code & 0xf0, insn.code & 0x08);

    let alu = class == BPF_ALU || class == BPF_ALU64;
    let is64 = class == BPF_ALU64;
    if alu && matches!(op, BPF_DIV | BPF_MOD) {
        if src_k == BPF_K {
            return Ok(sdiv_by_minus_one(insn));
        }
        return Ok(Some(div_mod_guard(insn, is64)));
    }

    if class == BPF_LDX && matches!(insn.code & 0xe0, BPF_PROBE_MEM | BPF_PROBE_MEMSX) {
        let Some(limit) = bpf_arch_uaddress_limit(w.arch) else {
            return Err(Fail::unsupported(PHASE, &format!("the user address check of the BPF_PROBE_MEM load at insn {i} on {}", w.arch)));
        };
        return Ok(probe_mem_user_address_check(insn, limit));
    }

    if class == BPF_LD && matches!(insn.code & 0xe0, BPF_ABS | BPF_IND) {
        return bpf_gen_ld_abs(env, w.arch, insn).map(Some);
    }

    if insn.code == BPF_ALU64 | BPF_ADD | BPF_X || insn.code == BPF_ALU64 | BPF_SUB | BPF_X {
        let a = env.pass_aux.get(*i).map_or((0, 0), |a| (a.alu_state, a.alu_limit));
        return Ok(sanitize_ptr_alu(insn, a.0, a.1));
    }

    if insn.code == BPF_JMP | BPF_JCOND && insn.src == BPF_MAY_GOTO {
        return may_goto(w, insn).map(Some);
    }

    if insn.code == BPF_LD | BPF_IMM | BPF_DW && matches!(insn.src, BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE) {
        // bpf_jit_supports_percpu_insn(): both modelled JITs
        let map = env.used_maps.get(env.aux[*i].map_index).and_then(|&m| env.input.maps.get(m));
        let Some(map) = map else {
            return Err(Fail::unsupported(PHASE, &format!("the map of the ld_imm64 at insn {i} is not known")));
        };
        if map.def.map_type != BPF_MAP_TYPE_PERCPU_ARRAY {
            return Ok(None);
        }
        if !bpf_jit_supports_percpu_insn(w.arch) {
            return Err(Fail::unsupported(PHASE, &format!("per-CPU ld_imm64 on {} (bpf_jit_supports_percpu_insn)", w.arch)));
        }
        let Some(&hi) = env.insns.get(*i + 1) else { return Ok(None) };
        // the second slot is patched: the kernel cannot split an ld_imm64
        *i += 1;
        return Ok(Some(vec![hi, ins(BPF_ALU64 | BPF_MOV | BPF_X, insn.dst, insn.dst, BPF_ADDR_PERCPU, 0)]));
    }

    if insn.code != BPF_JMP | BPF_CALL || insn.src == BPF_PSEUDO_CALL {
        return Ok(None);
    }
    if insn.src == 0 && insn.imm == BPF_FUNC_TAIL_CALL {
        return tail_call(env, w, *i, insn);
    }
    super::calls::fixup_call(env, *i)
}

/// sdiv/smod by the immediate -1: `dst = -dst` and `dst = 0`, so that
/// INT_MIN / -1 never traps.
fn sdiv_by_minus_one(insn: Insn) -> Option<Vec<Insn>> {
    if insn.off != 1 || insn.imm != -1 {
        return None;
    }
    let class = insn.code & 0x07;
    Some(vec![if insn.code & 0xf0 == BPF_DIV { ins(class | BPF_NEG | BPF_K, insn.dst, 0, 0, 0) } else { ins(BPF_ALU | BPF_MOV | BPF_K, insn.dst, 0, 0, 0) }])
}

/// Division and modulo by a register: x / 0 = 0, x % 0 = x, and for the
/// signed forms x / -1 = -x, x % -1 = 0, without the insn trapping. The
/// 32-bit modulo forms end with `wX = wX`: the result's upper half is 0
/// on every path.
fn div_mod_guard(insn: Insn, is64: bool) -> Vec<Insn> {
    let (alu, jmp) = if is64 { (BPF_ALU64, BPF_JMP) } else { (BPF_ALU, BPF_JMP32) };
    let (dst, src) = (insn.dst, insn.src);
    let isdiv = insn.code & 0xf0 == BPF_DIV;
    let signed = insn.off == 1;
    let zext_tail = [ja(1), ins(BPF_ALU | BPF_MOV | BPF_X, dst, dst, 0, 0)];
    let mut p = Vec::with_capacity(9);
    match (isdiv, signed) {
        (true, true) => {
            // AX = src + 1: above 1 (unsigned) means neither 0 nor -1
            p.push(ins(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_AX, src, 0, 0));
            p.push(ins(alu | BPF_ADD | BPF_K, BPF_REG_AX, 0, 0, 1));
            p.push(ins(jmp | BPF_JGT | BPF_K, BPF_REG_AX, 0, 4, 1));
            p.push(ins(jmp | BPF_JEQ | BPF_K, BPF_REG_AX, 0, 1, 0));
            p.push(ins(alu | BPF_MOV | BPF_K, dst, 0, 0, 0));
            p.push(ins(alu | BPF_NEG | BPF_K, dst, 0, 0, 0));
            p.push(ja(1));
            p.push(insn);
        }
        (false, true) => {
            p.push(ins(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_AX, src, 0, 0));
            p.push(ins(alu | BPF_ADD | BPF_K, BPF_REG_AX, 0, 0, 1));
            p.push(ins(jmp | BPF_JGT | BPF_K, BPF_REG_AX, 0, 3, 1));
            p.push(ins(jmp | BPF_JEQ | BPF_K, BPF_REG_AX, 0, if is64 { 3 } else { 4 }, 1));
            p.push(ins(BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, 0));
            p.push(ja(1));
            p.push(insn);
            if !is64 {
                p.extend(zext_tail);
            }
        }
        (true, false) => {
            p.push(ins(jmp | BPF_JNE | BPF_K, src, 0, 2, 0));
            p.push(ins(BPF_ALU | BPF_XOR | BPF_X, dst, dst, 0, 0));
            p.push(ja(1));
            p.push(insn);
        }
        (false, false) => {
            p.push(ins(jmp | BPF_JEQ | BPF_K, src, 0, if is64 { 1 } else { 2 }, 0));
            p.push(insn);
            if !is64 {
                p.extend(zext_tail);
            }
        }
    }
    p
}

/// `bpf_arch_uaddress_limit()`: where user addresses end when the kernel
/// and user address spaces do not overlap (0: the JIT checks by itself, as
/// x86-64's does). arm64's `TASK_SIZE` is `1 << vabits_actual`: 52 bits on
/// the recorded 7.3 guests (`CONFIG_ARM64_VA_BITS_52`, QEMU's
/// `-cpu max` has LVA).
fn bpf_arch_uaddress_limit(arch: Arch) -> Option<u64> {
    match arch {
        Arch::X86_64 => Some(0),
        Arch::Arm64 => Some(1 << 52),
        _ => None,
    }
}

/// A `BPF_PROBE_MEM` load from a user address would not fault on arches
/// whose JIT cannot tell: such an address reads as 0 instead.
fn probe_mem_user_address_check(insn: Insn, limit: u64) -> Option<Vec<Insn>> {
    if limit == 0 {
        return None;
    }
    let mut p = vec![ins(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_AX, insn.src, 0, 0)];
    if insn.off != 0 {
        p.push(ins(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_AX, 0, 0, insn.off as i32));
    }
    p.push(ins(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_AX, 0, 0, 32));
    p.push(ins(BPF_JMP | BPF_JLE | BPF_K, BPF_REG_AX, 0, 2, (limit >> 32) as i32));
    p.push(insn);
    p.push(ja(1));
    p.push(ins(BPF_ALU64 | BPF_MOV | BPF_K, insn.dst, 0, 0, 0));
    Some(p)
}

/// `ops->gen_ld_abs`: `bpf_gen_ld_abs` of the socket filter and tc program
/// types (the only ones the main pass lets use `LD_ABS`): a call of the
/// uncached skb load helper, and `return 0` when it fails.
fn bpf_gen_ld_abs(env: &VerifierEnv<'_>, arch: Arch, insn: Insn) -> Result<Vec<Insn>, Fail> {
    let pt = env.input.prog_type;
    if pt != SOCKET_FILTER && pt != SCHED_CLS && pt != SCHED_ACT {
        return Err(Fail::unsupported(PHASE, &format!("LD_ABS/LD_IND in program type {} (no gen_ld_abs)", pt.0)));
    }
    let size = match insn.code & 0x18 {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => return Err(Fail::unsupported(PHASE, "a double-word LD_ABS/LD_IND")),
    };
    let Some(call) = kernel_fn_call_imm(env.input.symbols_arch, KernelFn::SkbLoadHelperNoCache(size)) else {
        return Err(Fail::unsupported(PHASE, &format!("the address of bpf_skb_load_helper_{}_no_cache on {arch}", size * 8)));
    };
    let mut p = Vec::with_capacity(7);
    if insn.code & 0xe0 == BPF_ABS {
        p.push(ins(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, insn.imm));
    } else {
        p.push(ins(BPF_ALU64 | BPF_MOV | BPF_X, 2, insn.src, 0, 0));
        if insn.imm != 0 {
            p.push(ins(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, insn.imm));
        }
    }
    // the main pass made sure the skb is in r6
    p.push(ins(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0));
    p.push(ins(BPF_JMP | BPF_CALL, 0, 0, 0, call));
    p.push(ins(BPF_JMP | BPF_JSGE | BPF_K, 0, 0, 2, 0));
    p.push(ins(BPF_ALU | BPF_XOR | BPF_X, 0, 0, 0, 0));
    p.push(ins(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
    Ok(p)
}

/// Pointer arithmetic the main pass found speculatively unsafe: the
/// scalar side is masked through AX to the limit it recorded
/// (`alu_limit`), so a mispredicted path cannot reach out of bounds.
fn sanitize_ptr_alu(insn: Insn, alu_state: u8, alu_limit: u32) -> Option<Vec<Insn>> {
    if alu_state == 0 || alu_state == BPF_ALU_NON_POINTER {
        return None;
    }
    let isneg = alu_state & BPF_ALU_NEG_VALUE != 0;
    let issrc = alu_state & BPF_ALU_SANITIZE == BPF_ALU_SANITIZE_SRC;
    let isimm = alu_state & BPF_ALU_IMMEDIATE != 0;
    let off_reg = if issrc { insn.src } else { insn.dst };
    let limit = ins(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_AX, 0, 0, alu_limit as i32);
    let mut p = Vec::with_capacity(10);
    if isimm {
        p.push(limit);
    } else {
        if isneg {
            p.push(ins(BPF_ALU64 | BPF_MUL | BPF_K, off_reg, 0, 0, -1));
        }
        // AX = (limit - off | off) < 0 ? 0 : ~0, then AX &= off
        p.push(limit);
        p.push(ins(BPF_ALU64 | BPF_SUB | BPF_X, BPF_REG_AX, off_reg, 0, 0));
        p.push(ins(BPF_ALU64 | BPF_OR | BPF_X, BPF_REG_AX, off_reg, 0, 0));
        p.push(ins(BPF_ALU64 | BPF_NEG | BPF_K, BPF_REG_AX, 0, 0, 0));
        p.push(ins(BPF_ALU64 | BPF_ARSH | BPF_K, BPF_REG_AX, 0, 0, 63));
        p.push(ins(BPF_ALU64 | BPF_AND | BPF_X, BPF_REG_AX, off_reg, 0, 0));
    }
    if !issrc {
        p.push(ins(BPF_ALU64 | BPF_MOV | BPF_X, insn.dst, insn.src, 0, 0));
    }
    let mut masked = insn;
    masked.src = BPF_REG_AX;
    if isneg {
        let op = if insn.code & 0xf0 == BPF_ADD { BPF_SUB } else { BPF_ADD };
        masked.code = BPF_ALU64 | op | BPF_X;
    }
    p.push(masked);
    if issrc && isneg && !isimm {
        p.push(ins(BPF_ALU64 | BPF_MUL | BPF_K, off_reg, 0, 0, -1));
    }
    Some(p)
}

/// `may_goto`: a count in a stack slot below the subprogram's frame,
/// decremented through AX; the jump is taken once it is 0. The timed form
/// keeps a second slot for `arch_bpf_timed_may_goto`, which refills the
/// count until the loop has run too long.
fn may_goto(w: &mut Walk, insn: Insn) -> Result<Vec<Insn>, Fail> {
    let Some(timed) = w.timed_may_goto else {
        return Err(Fail::unsupported(PHASE, &format!("may_goto on {} (bpf_jit_supports_timed_may_goto)", w.arch)));
    };
    let depth = w.stack_depth as i32;
    let ldx = |off: i32| ins(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_AX, BPF_REG_FP, off as i16, 0);
    let stx = |off: i32| ins(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_FP, BPF_REG_AX, off as i16, 0);
    // a forward target moves by the insns added before it in the patch
    let target = |added: i16| -> Result<i16, Fail> {
        let off = if insn.off >= 0 { insn.off.checked_add(added) } else { insn.off.checked_sub(1) };
        off.ok_or_else(|| Fail::unsupported(PHASE, "a may_goto whose patched offset overflows"))
    };
    if timed {
        let Some(call) = kernel_fn_call_imm(w.symbols_arch, KernelFn::ArchBpfTimedMayGoto) else {
            return Err(Fail::unsupported(PHASE, &format!("the address of arch_bpf_timed_may_goto on {}", w.arch)));
        };
        let cnt_off = -depth - 16;
        w.stack_depth_extra = 16;
        Ok(vec![
            ldx(cnt_off),
            ins(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_AX, 0, target(5)?, 0),
            ins(BPF_ALU64 | BPF_SUB | BPF_K, BPF_REG_AX, 0, 0, 1),
            ins(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_AX, 0, 2, 0),
            // AX passes the slot's offset in and the new count out
            ins(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_AX, 0, 0, cnt_off),
            ins(BPF_JMP | BPF_CALL, 0, 0, 0, call),
            stx(cnt_off),
        ])
    } else {
        let off = -depth - 8;
        w.stack_depth_extra = 8;
        Ok(vec![ldx(off), ins(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_AX, 0, target(2)?, 0), ins(BPF_ALU64 | BPF_SUB | BPF_K, BPF_REG_AX, 0, 0, 1), stx(off)])
    }
}

/// `bpf_tail_call` becomes `BPF_JMP | BPF_TAIL_CALL`. With one known prog
/// array and constant key, a privileged JITed load gets a poke descriptor
/// (its number + 1 in `imm`; the JIT patches a direct jump; the map and
/// key stay in the insn's [`PassAux`](crate::verifier::do_check::PassAux)).
/// An unprivileged one gets the index bounded and masked first, against
/// speculation past the array.
fn tail_call(env: &mut VerifierEnv<'_>, w: &mut Walk, i: usize, insn: Insn) -> Result<Option<Vec<Insn>>, Fail> {
    // (prog->aux->stack_depth = MAX_BPF_STACK when tail calls are not
    // allowed in subprograms is overwritten after the walk)
    let mut tc = insn;
    tc.code = BPF_JMP | BPF_TAIL_CALL;
    tc.imm = 0;
    let Some(a) = env.pass_aux.get(i) else {
        return Err(Fail::unsupported(PHASE, &format!("the tail call at insn {i} has no aux data")));
    };
    let key_poisoned = a.map_key == MapKeyState::Poison;
    // blinding is never requested: bpf_jit_harden is 0 in the kernels we target
    let jit_requested = w.arch.kernel_jits();
    if env.bpf_capable && jit_requested && !key_poisoned && !a.map_ptr_poison && !a.map_ptr_unpriv {
        // bpf_jit_add_poke_descriptor: at most 1024 per program
        if w.pokes >= 1024 {
            env.verbose("adding tail call poke descriptor failed\n");
            return Err(Fail::Errno(crate::verifier::errno::ENOSPC));
        }
        w.pokes += 1;
        tc.imm = w.pokes as i32;
        // the poke's map and key: a program put there later is jumped to
        // directly (the JIT's image is patched)
        let map = a.map_ptr.and_then(|m| env.used_maps.get(m as usize)).copied();
        let key = match a.map_key {
            MapKeyState::Imm(k) => Some(k),
            _ => None,
        };
        env.tail_call_pokes.push(map.zip(key));
        return Ok(Some(vec![tc]));
    }
    if !a.map_ptr_unpriv {
        return Ok(Some(vec![tc]));
    }
    if a.map_ptr_poison {
        env.verbose("tail_call abusing map_ptr\n");
        return Err(Fail::Errno(crate::verifier::errno::EINVAL));
    }
    let map = a.map_ptr.and_then(|m| env.used_maps.get(m as usize)).and_then(|&m| env.input.maps.get(m));
    let Some(map) = map else {
        return Err(Fail::unsupported(PHASE, &format!("the prog array of the tail call at insn {i} is not a map of the program")));
    };
    let max_entries = map.def.max_entries;
    Ok(Some(vec![
        ins(BPF_JMP | BPF_JGE | BPF_K, 3, 0, 2, max_entries as i32),
        ins(BPF_ALU | BPF_AND | BPF_K, 3, 0, 0, array_index_mask(max_entries) as i32),
        tc,
    ]))
}

/// `array->index_mask`: the array size rounded up to a power of two, less 1.
fn array_index_mask(max_entries: u32) -> u32 {
    let bits = 32 - max_entries.saturating_sub(1).leading_zeros();
    ((1u64 << bits) - 1) as u32
}

/// After the walk: each subprogram whose `may_goto` took extra stack
/// initialises it first thing, and jumps to its first insn skip that.
fn may_goto_prologues(env: &mut VerifierEnv<'_>, stack_extra: &[u32]) -> Result<(), Fail> {
    if stack_extra.iter().all(|&e| e == 0) {
        return Ok(());
    }
    let Some(timed) = jit_supports_timed_may_goto(env.input.arch) else {
        return Err(Fail::unsupported(PHASE, &format!("may_goto on {} (bpf_jit_supports_timed_may_goto)", env.input.arch)));
    };
    let slots = if timed { 2 } else { 1 };
    let mut patches = Patches::new();
    let mut patched = Vec::new();
    for (s, &extra) in stack_extra.iter().enumerate() {
        if extra == 0 {
            continue;
        }
        if extra / 8 > slots {
            return Err(Fail::unsupported(PHASE, "verifier bug: stack_slots supports may_goto only"));
        }
        let Some(si) = env.subprog_info.get(s) else { continue };
        let (start, depth) = (si.start, -(si.stack_depth as i32));
        let st = |off: i32, imm: i32| ins(BPF_ST | BPF_MEM | BPF_DW, BPF_REG_FP, 0, off as i16, imm);
        let Some(&first) = env.insns.get(start) else { continue };
        let p = if timed { vec![st(depth, BPF_MAX_TIMED_LOOPS as i32), st(depth + 8, 0), first] } else { vec![st(depth, BPF_MAX_LOOPS as i32), first] };
        patches.replace(start, p);
        patched.push(s);
    }
    patch::apply(env, patches)?;
    for s in patched {
        let start = env.subprog_info[s].start;
        patch::adjust_jmp_off(&mut env.insns, start, slots as usize)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_mask_rounds_up_to_a_power_of_two() {
        assert_eq!(array_index_mask(1), 0);
        assert_eq!(array_index_mask(2), 1);
        assert_eq!(array_index_mask(3), 3);
        assert_eq!(array_index_mask(4), 3);
        assert_eq!(array_index_mask(5), 7);
        assert_eq!(array_index_mask(0x8000_0001), u32::MAX);
    }

    /// 7.3 arm64 under QEMU, fentry on `bpf_fentry_test7`: `r2 = *(u64 *)(r1
    /// +0)` through a BTF pointer (`BPF_PROBE_MEM`) became these slots (the
    /// dump shows the load as `BPF_MEM`); x86-64 left it alone.
    #[test]
    fn probe_mem_check_is_7_3s() {
        let load = ins(BPF_LDX | BPF_PROBE_MEM | BPF_DW, 2, 1, 0, 0);
        let recorded = ["bf1c000000000000", "770c000020000000", "b50c020000001000", "7912000000000000", "0500010000000000", "b702000000000000"];
        let mut got = probe_mem_user_address_check(load, bpf_arch_uaddress_limit(Arch::Arm64).unwrap()).unwrap();
        got[3].code = BPF_LDX | BPF_MEM | BPF_DW;
        let got: Vec<String> = got.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect();
        assert_eq!(got, recorded);
        assert_eq!(probe_mem_user_address_check(load, bpf_arch_uaddress_limit(Arch::X86_64).unwrap()), None);
        // with an offset, AX gets it added first
        let off = probe_mem_user_address_check(ins(BPF_LDX | BPF_PROBE_MEM | BPF_W, 0, 3, 16, 0), 1 << 52).unwrap();
        assert_eq!(off[1], ins(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_AX, 0, 0, 16));
        assert_eq!(off.len(), 7);
    }

    #[test]
    fn adjust_jmp_off_skips_the_prologue() {
        // 0: st; 1: st; 2: r0 = 0; 3: goto pc-4 (to 0); 4: call pc-5 (not a jump)
        let mut p = vec![
            ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 0xffff),
            ins(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 0),
            ins(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
            ja(-4),
            ins(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, -5),
        ];
        patch::adjust_jmp_off(&mut p, 0, 2).unwrap();
        assert_eq!(p[3].off, -2);
        assert_eq!(p[4].imm, -5);
    }
}
