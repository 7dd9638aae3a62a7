//! The arm64 JIT of Linux 7.3 (`arch/arm64/net/bpf_jit_comp.c`): each
//! function of an xlated program turned into the A64 code
//! `bpf_int_jit_compile` emits for it, byte for byte, with the model's own
//! fixed kernel addresses (helpers, maps, function images) in place of the
//! ones a real kernel has.
//!
//! Structure follows the kernel's: `build_prologue`, `build_body` /
//! `build_insn`, `build_epilogue`, `build_plt` (methods of `JitCtx`);
//! a sizing pass fixes every instruction's offset, the writing pass encodes
//! jumps against them. The kernel needs more passes only because the first
//! one runs before the image exists (so calls are indirect then); the model
//! knows the final image address from the start, which gives the same
//! final image.
//!
//! Checked against 7.3: every arm64 image recorded from it of the
//! project's test programs, 18 recorded programs of instruction forms (LSE and LL/SC
//! atomics, tail calls, callbacks, private stacks, exception boundaries,
//! large offsets), and the kernel's own arm64 `__jited` expectations. Not
//! checked against a kernel: BTI landing pads and `TPIDR_EL2` (no recorded
//! kernel enables them), outgoing stack arguments (`BPF_REG_PARAMS`).
//! Facts the xlated dump does not carry come with the [`JitProgram`]: a
//! dump shows arena accesses (`BPF_PROBE_MEM32`) as plain `BPF_MEM`, so
//! an arena program needs its xlated program from the fixups, not a dump.

pub mod insn;
pub mod trampoline;

use std::fmt;

use bpf_isa::Insn;
use bpf_isa::helper_ids::bpf_func_id::{GET_CURRENT_TASK, GET_CURRENT_TASK_BTF, GET_SMP_PROCESSOR_ID};
use bpf_isa::insn::BPF_REG_FP;
use bpf_isa::op::*;

use self::insn::*;
use super::{BTF_FMODEL_ARENA_ARG, BTF_FMODEL_NULLABLE_ARG, JitFunc, JitProgram, KfuncModel};
use crate::kernel_layout::{OFFSETOF_BPF_ARRAY_VALUE, OFFSETOF_BPF_MAP_MAX_ENTRIES, OFFSETOF_BPF_PROG_BPF_FUNC};
use crate::limits::MAX_TAIL_CALL_CNT;
use crate::target::Arch;

/// CPU features and kernel configuration that change the code the JIT
/// emits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm64Profile {
    /// `ARM64_HAS_LSE_ATOMICS`: `ldaddal`/`casal`/`stadd`..., else LL/SC loops.
    pub lse_atomics: bool,
    /// `CONFIG_ARM64_PTR_AUTH_KERNEL`: `paciasp`/`autiasp` around the frame.
    pub ptr_auth_kernel: bool,
    /// `CONFIG_ARM64_BTI_KERNEL`: `bti` landing pads.
    pub bti_kernel: bool,
    /// `ARM64_HAS_SB`: `sb` as the speculation barrier, else `dsb nsh; isb`.
    pub has_sb: bool,
    /// `ARM64_HAS_VIRT_HOST_EXTN`: the per-CPU offset is in `TPIDR_EL2`.
    pub vhe: bool,
    /// `offsetof(struct thread_info, cpu)` (the inlined
    /// `bpf_get_smp_processor_id`).
    pub thread_info_cpu: u32,
}

impl Default for Arm64Profile {
    /// Debian's 7.3.4 arm64 kernel under `qemu-system-aarch64 -M virt -cpu
    /// max,pauth-impdef=on`, the CPU the recorded images come from.
    fn default() -> Self {
        Arm64Profile { lse_atomics: true, ptr_auth_kernel: true, bti_kernel: false, has_sb: true, vhe: false, thread_info_cpu: 0x18 }
    }
}

/// Why a program cannot be JITed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JitError {
    /// An opcode the arm64 JIT rejects (`unknown opcode %02x`).
    UnknownOpcode { func: usize, insn: usize, code: u8 },
    /// A branch or call displacement out of its field's range.
    OutOfRange { func: usize, insn: usize },
    /// An operand no A64 form encodes (`validate_code` finds
    /// `AARCH64_BREAK_FAULT` in the image), e.g. a frame beyond 16M.
    Unencodable { func: usize },
    /// Something the model does not know enough about to JIT (arena, ...).
    Unsupported { func: usize, insn: usize, what: &'static str },
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JitError::UnknownOpcode { func, insn, code } => write!(f, "func #{func} insn {insn}: unknown opcode {code:02x}"),
            JitError::OutOfRange { func, insn } => write!(f, "func #{func} insn {insn}: jump or call out of range"),
            JitError::Unencodable { func } => write!(f, "func #{func}: an operand cannot be encoded (AARCH64_BREAK_FAULT)"),
            JitError::Unsupported { func, insn, what } => write!(f, "func #{func} insn {insn}: {what} is not modelled"),
        }
    }
}

impl std::error::Error for JitError {}

/// `__bpf_call_base` in the model's kernel: helper and kfunc calls target
/// `__bpf_call_base + imm`.
pub const BPF_CALL_BASE: u64 = 0xffff_8000_8030_0000;
/// Where the model's JIT images live (the module/BPF region, within `bl`
/// range of the kernel text as in the recorded images): function `i` of a
/// program at `IMAGE_BASE + i * IMAGE_STRIDE`.
pub const IMAGE_BASE: u64 = 0xffff_8000_8400_0000;
pub const IMAGE_STRIDE: u64 = 0x4_0000;
/// The model's per-CPU private stacks (`prog->aux->priv_stack_ptr`, a
/// `__percpu` cookie: a kernel address, 0xffff800082a13860 in a recorded
/// 7.3 image), one per function.
pub const PRIV_STACK_BASE: u64 = 0xffff_8000_82a0_0000;

/// The model address of function `func`'s private stack.
pub fn priv_stack_kaddr(func: usize) -> u64 {
    PRIV_STACK_BASE + 0x1000 * func as u64
}

/// `PRIV_STACK_GUARD_SZ`: guard bytes below and above a private stack.
const PRIV_STACK_GUARD_SZ: u64 = 16;

/// The model address of function `func`'s image (`prog->bpf_func`).
pub fn image_kaddr(func: usize) -> u64 {
    IMAGE_BASE + IMAGE_STRIDE * func as u64
}

// bpf2a64: BPF registers r0-r10, PARAMS, AX, then the JIT's TMP_REG_1,
// TMP_REG_2, TCCNT_PTR, TMP_REG_3, PRIVATE_SP, ARENA_VM_START.
const TMP_REG_1: usize = 13;
const TMP_REG_2: usize = 14;
const TCCNT_PTR: usize = 15;
const TMP_REG_3: usize = 16;
const PRIVATE_SP: usize = 17;
const ARENA_VM_START: usize = 18;
const BPF2A64: [Reg; 19] = [8, 0, 1, 2, 3, 4, 19, 20, 21, 22, 25, 31, 9, 10, 11, 26, 12, 27, 28];
use bpf_isa::insn::BPF_REG_PARAMS;

fn a64(bpf_reg: usize) -> Reg {
    BPF2A64[bpf_reg.min(BPF2A64.len() - 1)]
}

const NR_STACK_ARG_REGS: usize = 3;
const STACK_ARG_REGS: [Reg; NR_STACK_ARG_REGS] = [5, 6, 7];

/// JITs every function of `prog`: the images as `BPF_OBJ_GET_INFO_BY_FD`
/// returns them (`jited_prog_insns` split by `jited_func_lens`).
pub fn bpf_int_jit_compile(prog: &JitProgram, profile: &Arm64Profile) -> Result<Vec<Vec<u8>>, JitError> {
    let multi = prog.funcs.len() > 1;
    let func_addrs: Vec<u64> = (0..prog.funcs.len()).map(image_kaddr).collect();
    prog.funcs
        .iter()
        .enumerate()
        .map(|(n, f)| {
            let mut ctx = JitCtx::new(n, f, profile, multi, &func_addrs);
            ctx.arena_vm_start = prog.arena_vm_start;
            ctx.user_vm_start = prog.user_vm_start;
            ctx.kfunc_models = &prog.kfunc_models;
            ctx.compile()?;
            Ok(ctx.image.iter().flat_map(|w| w.to_le_bytes()).collect())
        })
        .collect()
}

/// `struct jit_ctx`: one function being JITed.
struct JitCtx<'a> {
    func_idx: usize,
    insns: &'a [Insn],
    stack_depth: u32,
    profile: &'a Arm64Profile,
    /// the program has several functions (jit_subprogs' extra pass gives
    /// calls their callees' addresses)
    multi: bool,
    func_addrs: &'a [u64],
    /// this image's address (`ctx->ro_image`)
    base: u64,
    image: Vec<u32>,
    /// `ctx->offset`: the index of each BPF insn's first A64 insn (+ end)
    offset: Vec<usize>,
    epilogue_offset: usize,
    stack_size: u32,
    stack_arg_size: u32,
    used_callee_reg: Vec<Reg>,
    fp_used: bool,
    /// the frame is on a per-CPU private stack (`ctx->priv_sp_used`)
    priv_sp_used: bool,
    exception_boundary: bool,
    exception_cb: bool,
    arena_vm_start: u64,
    user_vm_start: u64,
    kfunc_models: &'a [KfuncModel],
    /// the final pass: branches are encoded against `offset`
    write: bool,
}

impl<'a> JitCtx<'a> {
    fn new(func_idx: usize, f: &'a JitFunc, profile: &'a Arm64Profile, multi: bool, func_addrs: &'a [u64]) -> Self {
        JitCtx {
            func_idx,
            insns: &f.insns,
            stack_depth: f.stack_depth,
            profile,
            multi,
            func_addrs,
            base: func_addrs.get(func_idx).copied().unwrap_or(IMAGE_BASE),
            image: Vec::new(),
            offset: vec![0; f.insns.len() + 1],
            epilogue_offset: 0,
            stack_size: 0,
            stack_arg_size: 0,
            used_callee_reg: Vec::new(),
            fp_used: false,
            priv_sp_used: f.jits_use_priv_stack,
            exception_boundary: f.exception_boundary && func_idx == 0,
            exception_cb: f.exception_cb,
            arena_vm_start: 0,
            user_vm_start: 0,
            kfunc_models: &[],
            write: false,
        }
    }

    fn is_main_prog(&self) -> bool {
        self.func_idx == 0
    }

    fn emit(&mut self, insn: u32) {
        self.image.push(insn);
    }

    fn idx(&self) -> usize {
        self.image.len()
    }

    fn compile(&mut self) -> Result<(), JitError> {
        self.stack_arg_size = self.out_stack_arg_size();
        // sizing pass, then the pass that writes with the final offsets
        for write in [false, true] {
            self.write = write;
            self.image.clear();
            self.build_prologue();
            self.build_body()?;
            self.epilogue_offset = self.idx();
            self.build_epilogue();
            self.build_plt();
        }
        // validate_code: an operand no generator could encode
        if self.image.contains(&BREAK_FAULT) {
            return Err(JitError::Unencodable { func: self.func_idx });
        }
        Ok(())
    }

    /// `bpf_out_stack_arg_cnt` as stack bytes: the outgoing arguments 9+
    /// (stored through `BPF_REG_PARAMS` at negative offsets) beyond the
    /// three passed in x5-x7.
    fn out_stack_arg_size(&self) -> u32 {
        let out = self
            .insns
            .iter()
            .filter(|i| matches!(class(i.code), BPF_ST | BPF_STX) && mode(i.code) == BPF_MEM && i.dst == BPF_REG_PARAMS && i.off < 0)
            .map(|i| (-(i.off as i32) / 8) as usize)
            .max()
            .unwrap_or(0);
        let on_stack = out.saturating_sub(NR_STACK_ARG_REGS) as u32;
        (on_stack * 8).div_ceil(16) * 16
    }

    // ---- constants ----

    fn emit_a64_mov_i(&mut self, is64: bool, reg: Reg, val: i32) {
        emit_a64_mov_i(&mut self.image, is64, reg, val);
    }

    fn emit_a64_mov_i64(&mut self, reg: Reg, val: u64) {
        emit_a64_mov_i64(&mut self.image, reg, val);
    }

    fn emit_addr_mov_i64(&mut self, reg: Reg, val: u64) {
        emit_addr_mov_i64(&mut self.image, reg, val);
    }

    /// `emit_a64_add_i`
    fn emit_a64_add_i(&mut self, is64: bool, dst: Reg, src: Reg, tmp: Reg, imm: i32) {
        if let Some(w) = add_sub_imm(is64, dst, src, imm as u32, AddSub::Add) {
            self.emit(w);
        } else if let Some(w) = add_sub_imm(is64, dst, src, (imm as u32).wrapping_neg(), AddSub::Sub) {
            self.emit(w);
        } else {
            self.emit_a64_mov_i(is64, tmp, imm);
            self.emit(add_sub_reg(is64, dst, src, tmp, AddSub::Add));
        }
    }

    fn add_i(&mut self, is64: bool, dst: Reg, src: Reg, imm: u32) {
        // the JIT only passes encodable immediates here (stack sizes, 0, 1)
        let w = add_sub_imm(is64, dst, src, imm, AddSub::Add).unwrap_or(BREAK_FAULT);
        self.emit(w);
    }

    fn sub_i(&mut self, is64: bool, dst: Reg, src: Reg, imm: u32) {
        let w = add_sub_imm(is64, dst, src, imm, AddSub::Sub).unwrap_or(BREAK_FAULT);
        self.emit(w);
    }

    /// `A64_MOV` from sp: `add rd, sp, #0` (`orr` would read xzr).
    fn mov_from_sp(&mut self, dst: Reg) {
        self.add_i(true, dst, SP, 0);
    }

    // ---- calls ----

    fn emit_call(&mut self, target: u64) {
        emit_call(&mut self.image, Some(self.base), target);
    }

    // ---- frame ----

    fn find_used_callee_regs(&mut self) {
        let uses = |r: u8| self.insns.iter().any(|i| i.dst == r || i.src == r);
        let mut regs = Vec::new();
        for r in 6..=9 {
            if uses(r) {
                regs.push(a64(r as usize));
            }
        }
        self.fp_used = uses(BPF_REG_FP);
        if self.fp_used {
            regs.push(a64(BPF_REG_FP as usize));
            if self.priv_sp_used {
                regs.push(a64(PRIVATE_SP));
            }
        }
        if self.arena_vm_start != 0 {
            regs.push(a64(ARENA_VM_START));
        }
        self.used_callee_reg = regs;
    }

    fn push_callee_regs(&mut self) {
        // an exception boundary saves every callee-saved register: the
        // exception callback unwinds to its frame
        if self.exception_boundary {
            for r in [19, 21, 23, 25, 27] {
                self.emit(push(r, r + 1, SP));
            }
            self.fp_used = true;
            return;
        }
        self.find_used_callee_regs();
        let regs = self.used_callee_reg.clone();
        for pair in regs.chunks(2) {
            match *pair {
                [a, b] => self.emit(push(a, b, SP)),
                [a] => self.emit(push(a, ZR, SP)),
                _ => {}
            }
        }
    }

    fn pop_callee_regs(&mut self) {
        if self.exception_boundary || self.exception_cb {
            for r in [27, 25, 23, 21, 19] {
                self.emit(pop(r, r + 1, SP));
            }
            return;
        }
        let regs = self.used_callee_reg.clone();
        let mut i = regs.len();
        if !i.is_multiple_of(2) {
            self.emit(pop(regs[i - 1], ZR, SP));
            i -= 1;
        }
        while i > 0 {
            self.emit(pop(regs[i - 2], regs[i - 1], SP));
            i -= 2;
        }
    }

    /// `prepare_bpf_tail_call_cnt`: the main program puts a zero counter on
    /// its stack and points x26 at it; subprograms keep the caller's pointer.
    fn prepare_bpf_tail_call_cnt(&mut self) {
        let ptr = a64(TCCNT_PTR);
        if self.is_main_prog() {
            self.emit(push(ZR, ptr, SP));
            self.mov_from_sp(ptr);
        } else {
            self.emit(push(ptr, ptr, SP));
        }
    }

    fn build_prologue(&mut self) {
        if self.profile.bti_kernel {
            self.emit(BTI_JC);
        }
        self.emit(move_reg(true, 9, LR));
        self.emit(NOP);
        if !self.exception_cb {
            if self.profile.ptr_auth_kernel {
                self.emit(PACIASP);
            }
            self.emit(push(FP, LR, SP));
            self.mov_from_sp(FP);
            self.prepare_bpf_tail_call_cnt();
            if self.is_main_prog() && self.profile.bti_kernel {
                // landing pad of the tail call's `br`
                self.emit(BTI_J);
            }
            self.push_callee_regs();
        } else {
            // the callback runs on the boundary's frame, whose x29 it gets
            // in x2; 12 registers are saved below it
            self.emit(move_reg(true, FP, 2));
            self.sub_i(true, SP, FP, 96);
            self.fp_used = true;
        }
        // round_up(stack_depth, 16); a depth no verifier allows still must
        // not overflow (the `sub sp` then fails to encode)
        self.stack_size = ((self.stack_depth as u64 + 15) & !15).min(u32::MAX as u64 & !15) as u32;
        if self.fp_used {
            let fp = a64(BPF_REG_FP as usize);
            if self.priv_sp_used {
                let priv_sp = a64(PRIVATE_SP);
                self.emit_percpu_ptr(priv_sp, priv_stack_kaddr(self.func_idx) + PRIV_STACK_GUARD_SZ);
                self.add_i(true, fp, priv_sp, self.stack_size);
            } else {
                self.mov_from_sp(fp);
            }
        }
        if self.stack_size != 0 && !self.priv_sp_used {
            self.sub_i(true, SP, SP, self.stack_size);
        }
        if self.stack_arg_size != 0 {
            self.sub_i(true, SP, SP, self.stack_arg_size);
        }
        if self.arena_vm_start != 0 {
            self.emit_a64_mov_i64(a64(ARENA_VM_START), self.arena_vm_start);
        }
    }

    /// `emit_percpu_ptr`: this CPU's address of a per-CPU cookie.
    fn emit_percpu_ptr(&mut self, dst: Reg, cookie: u64) {
        let tmp = a64(TMP_REG_1);
        self.emit_a64_mov_i64(dst, cookie);
        let r = if self.profile.vhe { SysReg::TpidrEl2 } else { SysReg::TpidrEl1 };
        self.emit(mrs(tmp, r));
        self.emit(add_sub_reg(true, dst, dst, tmp, AddSub::Add));
    }

    fn build_epilogue(&mut self) {
        if self.stack_arg_size != 0 {
            self.add_i(true, SP, SP, self.stack_arg_size);
        }
        if self.stack_size != 0 && !self.priv_sp_used {
            self.add_i(true, SP, SP, self.stack_size);
        }
        self.pop_callee_regs();
        self.emit(pop(ZR, a64(TCCNT_PTR), SP));
        self.emit(pop(FP, LR, SP));
        self.emit(move_reg(true, 0, a64(0)));
        if self.profile.ptr_auth_kernel {
            self.emit(AUTIASP);
        }
        self.emit(ret(LR));
    }

    /// `build_plt`: `ldr x10, target; br x10` with the 8-byte target (not
    /// part of `jited_len`) 8-byte aligned.
    fn build_plt(&mut self) {
        if !(self.idx() + 2).is_multiple_of(2) {
            self.emit(NOP);
        }
        let tmp = a64(TMP_REG_1);
        self.emit(load_literal64(tmp, 8));
        self.emit(br(tmp));
    }

    /// `emit_bpf_tail_call`
    fn emit_bpf_tail_call(&mut self, i: usize) -> Result<(), JitError> {
        let (r2, r3) = (a64(2), a64(3));
        let (tmp, prg, tcc, ptr) = (a64(TMP_REG_1), a64(TMP_REG_2), a64(TMP_REG_3), a64(TCCNT_PTR));
        // if (index >= array->map.max_entries) goto out;
        self.emit_a64_mov_i64(tmp, OFFSETOF_BPF_MAP_MAX_ENTRIES as u64);
        self.emit(load_store_reg(tmp, r2, tmp, 2, LdSt::Load));
        self.emit(move_reg(false, r3, r3));
        self.emit(add_sub_reg(false, ZR, r3, tmp, AddSub::SubS));
        let branch1 = self.idx();
        self.emit(NOP);
        // if (*tail_call_cnt_ptr >= MAX_TAIL_CALL_CNT) goto out;
        self.emit_a64_mov_i64(tmp, u64::from(MAX_TAIL_CALL_CNT));
        self.emit(load_store_imm(tcc, ptr, 0, 3, LdSt::Load).unwrap_or(BREAK_FAULT));
        self.emit(add_sub_reg(true, ZR, tcc, tmp, AddSub::SubS));
        let branch2 = self.idx();
        self.emit(NOP);
        self.add_i(true, tcc, tcc, 1);
        // prog = array->ptrs[index]; if (prog == NULL) goto out;
        self.emit_a64_mov_i64(tmp, OFFSETOF_BPF_ARRAY_VALUE as u64);
        self.emit(add_sub_reg(true, tmp, r2, tmp, AddSub::Add));
        self.emit(lsl_imm(true, prg, r3, 3));
        self.emit(load_store_reg(prg, tmp, prg, 3, LdSt::Load));
        let branch3 = self.idx();
        self.emit(NOP);
        self.emit(load_store_imm(tcc, ptr, 0, 3, LdSt::Store).unwrap_or(BREAK_FAULT));
        if self.stack_arg_size != 0 {
            self.add_i(true, SP, SP, self.stack_arg_size);
        }
        if self.stack_size != 0 && !self.priv_sp_used {
            self.add_i(true, SP, SP, self.stack_size);
        }
        self.pop_callee_regs();
        // goto *(prog->bpf_func + prologue_offset);
        self.emit_a64_mov_i64(tmp, OFFSETOF_BPF_PROG_BPF_FUNC as u64);
        self.emit(load_store_reg(tmp, prg, tmp, 3, LdSt::Load));
        let prologue_offset = (self.profile.bti_kernel as u32) + 2 + (self.profile.ptr_auth_kernel as u32) + 4;
        self.add_i(true, tmp, tmp, 4 * prologue_offset);
        self.emit(br(tmp));
        let out = self.idx();
        let oor = JitError::OutOfRange { func: self.func_idx, insn: i };
        self.image[branch1] = cond_branch(Cond::Cs, (out - branch1) as i64).ok_or(oor.clone())?;
        self.image[branch2] = cond_branch(Cond::Cs, (out - branch2) as i64).ok_or(oor.clone())?;
        self.image[branch3] = comp_branch(true, prg, (out - branch3) as i64, false).ok_or(oor)?;
        Ok(())
    }

    // ---- body ----

    fn build_body(&mut self) -> Result<(), JitError> {
        let mut i = 0;
        while i < self.insns.len() {
            self.offset[i] = self.idx();
            let wide = self.build_insn(i)?;
            if wide {
                i += 1;
                if i < self.offset.len() {
                    self.offset[i] = self.idx();
                }
            }
            i += 1;
        }
        let n = self.insns.len();
        self.offset[n] = self.idx();
        Ok(())
    }

    /// `bpf2a64_offset`: a BPF jump from insn `i` by `off` as an A64
    /// displacement in instructions from the branch itself (the last insn
    /// emitted for `i`).
    fn bpf2a64_offset(&self, i: usize, off: i32) -> Option<i64> {
        let next = i + 1;
        let target = next as i64 + off as i64;
        if target < 0 || target as usize >= self.offset.len() {
            return None;
        }
        Some(self.offset[target as usize] as i64 - (self.offset[next] as i64 - 1))
    }

    /// A branch by `disp` instructions; the sizing pass only reserves it.
    fn emit_branch(&mut self, i: usize, disp: Option<i64>, enc: impl Fn(i64) -> Option<u32>) -> Result<(), JitError> {
        if !self.write {
            self.emit(NOP);
            return Ok(());
        }
        let w = disp.and_then(enc).ok_or(JitError::OutOfRange { func: self.func_idx, insn: i })?;
        self.emit(w);
        Ok(())
    }

    /// The base and offset of a memory access through `reg` (BPF fp accesses
    /// go through sp below the frame).
    fn adjust_fp(&self, reg: Reg, off: i16) -> (Reg, i32) {
        if reg == a64(BPF_REG_FP as usize) && self.priv_sp_used {
            (a64(PRIVATE_SP), off as i32 + self.stack_size.min(1 << 24) as i32)
        } else if reg == a64(BPF_REG_FP as usize) {
            let adj = off as i64 + self.stack_size as i64 + self.stack_arg_size as i64;
            (SP, i32::try_from(adj).unwrap_or(-1))
        } else {
            (reg, off as i32)
        }
    }

    /// JITs insn `i`; true when it took two slots (`ld_imm64`).
    fn build_insn(&mut self, i: usize) -> Result<bool, JitError> {
        let insn = self.insns[i];
        let code = insn.code;
        let mut dst = a64(insn.dst as usize);
        let mut src = a64(insn.src as usize);
        let (tmp, tmp2, tmp3) = (a64(TMP_REG_1), a64(TMP_REG_2), a64(TMP_REG_3));
        let arena = a64(ARENA_VM_START);
        let off = insn.off;
        let imm = insn.imm;
        let cls = class(code);
        let is64 = cls == BPF_ALU64 || cls == BPF_JMP;
        let unknown = JitError::UnknownOpcode { func: self.func_idx, insn: i, code };
        let unsupported = |what| JitError::Unsupported { func: self.func_idx, insn: i, what };

        match cls {
            BPF_ALU | BPF_ALU64 => self.build_alu(insn, is64, dst, src).ok_or(unknown)?,
            BPF_JMP | BPF_JMP32 => {
                let o = op(code);
                let k = code & BPF_X == 0;
                match o {
                    BPF_JA if cls == BPF_JMP && !k => {
                        // its targets would need `bti j` (bpf_insn_is_indirect_target),
                        // which only the verifier's aux data knows
                        if self.profile.bti_kernel {
                            return Err(unsupported("an indirect jump under BTI"));
                        }
                        self.emit(br(dst));
                    }
                    BPF_JA => {
                        let by = if cls == BPF_JMP { off as i32 } else { imm };
                        let d = self.bpf2a64_offset(i, by);
                        self.emit_branch(i, d, |d| branch_imm(d, false))?;
                    }
                    BPF_CALL if cls == BPF_JMP => self.build_call(i, insn)?,
                    BPF_TAIL_CALL if cls == BPF_JMP => self.emit_bpf_tail_call(i)?,
                    BPF_EXIT if cls == BPF_JMP => {
                        // the last insn falls through into the epilogue
                        if i != self.insns.len() - 1 {
                            let d = self.epilogue_offset as i64 - self.idx() as i64;
                            self.emit_branch(i, Some(d), |d| branch_imm(d, false))?;
                        }
                    }
                    BPF_JEQ | BPF_JGT | BPF_JLT | BPF_JGE | BPF_JLE | BPF_JNE | BPF_JSGT | BPF_JSLT | BPF_JSGE | BPF_JSLE | BPF_JSET => {
                        if !k && o == BPF_JSET {
                            self.emit(logic_reg(is64, ZR, dst, src, Logic::AndS));
                        } else if !k {
                            self.emit(add_sub_reg(is64, ZR, dst, src, AddSub::SubS));
                        } else if o == BPF_JSET {
                            let value = if is64 { imm as i64 as u64 } else { imm as u32 as u64 };
                            match logic_imm(is64, ZR, dst, value, Logic::AndS) {
                                Some(w) => self.emit(w),
                                None => {
                                    self.emit_a64_mov_i(is64, tmp, imm);
                                    self.emit(logic_reg(is64, ZR, dst, tmp, Logic::AndS));
                                }
                            }
                        } else if let Some(w) = add_sub_imm(is64, ZR, dst, imm as u32, AddSub::SubS) {
                            self.emit(w);
                        } else if let Some(w) = add_sub_imm(is64, ZR, dst, (imm as u32).wrapping_neg(), AddSub::AddS) {
                            self.emit(w);
                        } else {
                            self.emit_a64_mov_i(is64, tmp, imm);
                            self.emit(add_sub_reg(is64, ZR, dst, tmp, AddSub::SubS));
                        }
                        let cond = match o {
                            BPF_JEQ => Cond::Eq,
                            BPF_JGT => Cond::Hi,
                            BPF_JLT => Cond::Cc,
                            BPF_JGE => Cond::Cs,
                            BPF_JLE => Cond::Ls,
                            BPF_JSET | BPF_JNE => Cond::Ne,
                            BPF_JSGT => Cond::Gt,
                            BPF_JSLT => Cond::Lt,
                            BPF_JSGE => Cond::Ge,
                            _ => Cond::Le,
                        };
                        let d = self.bpf2a64_offset(i, off as i32);
                        self.emit_branch(i, d, |d| cond_branch(cond, d))?;
                    }
                    _ => return Err(unknown),
                }
            }
            BPF_LD => {
                if code != BPF_LD | BPF_IMM | BPF_DW {
                    return Err(unknown);
                }
                let hi = self.insns.get(i + 1).map_or(0, |n| n.imm);
                let imm64 = (hi as u32 as u64) << 32 | imm as u32 as u64;
                match insn.src {
                    BPF_PSEUDO_FUNC => {
                        // jit_subprogs gives it the callee's image; alone, the
                        // program keeps what the verifier left
                        let addr = if self.multi { self.func_addrs.get(hi as usize).copied().unwrap_or(0) } else { imm64 };
                        self.emit_addr_mov_i64(dst, addr);
                    }
                    BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX => {
                        self.emit_a64_mov_i64(dst, crate::map::map_kaddr(Arch::Arm64, imm as u32 as usize));
                    }
                    BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => {
                        let map = crate::map::map_kaddr(Arch::Arm64, imm as u32 as usize);
                        self.emit_a64_mov_i64(dst, map + OFFSETOF_BPF_ARRAY_VALUE as u64 + hi as u32 as u64);
                    }
                    _ => self.emit_a64_mov_i64(dst, imm64),
                }
                return Ok(true);
            }
            BPF_LDX => {
                let m = mode(code);
                if !matches!(m, BPF_MEM | BPF_PROBE_MEM | BPF_MEMSX | BPF_PROBE_MEMSX | BPF_PROBE_MEM32 | BPF_PROBE_MEM32SX) {
                    return Err(unknown);
                }
                if m == BPF_MEM && insn.src == BPF_REG_PARAMS {
                    self.emit_stack_arg_load(dst, off);
                    return Ok(false);
                }
                if m == BPF_PROBE_MEM32 || m == BPF_PROBE_MEM32SX {
                    if self.arena_vm_start == 0 {
                        return Err(unsupported("an arena access without an arena"));
                    }
                    self.emit(add_sub_reg(true, tmp2, src, arena, AddSub::Add));
                    src = tmp2;
                }
                let signed = m == BPF_MEMSX || m == BPF_PROBE_MEMSX || m == BPF_PROBE_MEM32SX;
                let (base, off_adj) = self.adjust_fp(src, off);
                let sz = size_log2(code);
                let t = if signed && sz < 3 { LdSt::SignedLoad } else { LdSt::Load };
                match load_store_imm(dst, base, off_adj, sz, t) {
                    Some(w) => self.emit(w),
                    None => {
                        self.emit_a64_mov_i(true, tmp, off as i32);
                        self.emit(load_store_reg(dst, src, tmp, sz, t));
                    }
                }
            }
            BPF_ST => {
                let m = mode(code);
                if code == BPF_ST | BPF_NOSPEC {
                    if self.profile.has_sb {
                        self.emit(SB);
                    } else {
                        self.emit(DSB_NSH);
                        self.emit(ISB);
                    }
                    return Ok(false);
                }
                if m == BPF_PROBE_MEM32 {
                    if self.arena_vm_start == 0 {
                        return Err(unsupported("an arena access without an arena"));
                    }
                    self.emit(add_sub_reg(true, tmp3, dst, arena, AddSub::Add));
                    dst = tmp3;
                } else if m != BPF_MEM {
                    return Err(unknown);
                } else if insn.dst == BPF_REG_PARAMS {
                    self.emit_stack_arg_store_imm(imm, off);
                    return Ok(false);
                }
                let (base, off_adj) = self.adjust_fp(dst, off);
                self.emit_a64_mov_i(true, tmp, imm);
                let sz = size_log2(code);
                match load_store_imm(tmp, base, off_adj, sz, LdSt::Store) {
                    Some(w) => self.emit(w),
                    None => {
                        self.emit_a64_mov_i(true, tmp2, off as i32);
                        self.emit(load_store_reg(tmp, dst, tmp2, sz, LdSt::Store));
                    }
                }
            }
            BPF_STX => {
                let m = mode(code);
                match m {
                    BPF_MEM | BPF_PROBE_MEM32 => {
                        if m == BPF_PROBE_MEM32 {
                            if self.arena_vm_start == 0 {
                                return Err(unsupported("an arena access without an arena"));
                            }
                            self.emit(add_sub_reg(true, tmp2, dst, arena, AddSub::Add));
                            dst = tmp2;
                        } else if insn.dst == BPF_REG_PARAMS {
                            self.emit_stack_arg_store(src, off);
                            return Ok(false);
                        }
                        let (base, off_adj) = self.adjust_fp(dst, off);
                        let sz = size_log2(code);
                        match load_store_imm(src, base, off_adj, sz, LdSt::Store) {
                            Some(w) => self.emit(w),
                            None => {
                                self.emit_a64_mov_i(true, tmp, off as i32);
                                self.emit(load_store_reg(src, dst, tmp, sz, LdSt::Store));
                            }
                        }
                    }
                    BPF_ATOMIC | BPF_PROBE_ATOMIC => {
                        if m == BPF_PROBE_ATOMIC && (self.arena_vm_start == 0 || !self.profile.lse_atomics && imm != BPF_LOAD_ACQ && imm != BPF_STORE_REL) {
                            // ll_sc atomics do not support arena pointers
                            return Err(unsupported("an arena atomic"));
                        }
                        if imm == BPF_LOAD_ACQ || imm == BPF_STORE_REL {
                            self.emit_atomic_ld_st(insn).ok_or(unknown)?;
                        } else if self.profile.lse_atomics {
                            self.emit_lse_atomic(insn).ok_or(unknown)?;
                        } else {
                            self.emit_ll_sc_atomic(insn).ok_or(unknown)?;
                        }
                    }
                    _ => return Err(unknown),
                }
            }
            _ => return Err(unknown),
        }
        Ok(false)
    }

    /// ALU and ALU64; `None` for an opcode the JIT rejects.
    fn build_alu(&mut self, insn: Insn, is64: bool, dst: Reg, src: Reg) -> Option<()> {
        let (tmp, tmp2) = (a64(TMP_REG_1), a64(TMP_REG_2));
        let code = insn.code;
        let imm = insn.imm;
        let off = insn.off;
        let x = code & BPF_X != 0;
        match op(code) {
            BPF_MOV if x => {
                if class(code) == BPF_ALU64 && off == BPF_ADDR_SPACE_CAST && imm == 1 << 16 {
                    // cast_user: the arena offset in the low half, the
                    // user mapping's upper half on top, NULL kept NULL
                    let upper = (self.user_vm_start >> 32) as u32;
                    let (lo, hi) = (upper as u16, (upper >> 16) as u16);
                    let nr_movk = (lo != 0) as i64 + (hi != 0) as i64;
                    self.emit(move_reg(false, dst, src));
                    if nr_movk != 0 {
                        self.emit(comp_branch(false, dst, nr_movk + 1, false)?);
                        if lo != 0 {
                            self.emit(movewide(true, dst, lo, 32, MoveWide::Keep));
                        }
                        if hi != 0 {
                            self.emit(movewide(true, dst, hi, 48, MoveWide::Keep));
                        }
                    }
                    return Some(());
                }
                if class(code) == BPF_ALU64 && off == BPF_ADDR_PERCPU {
                    if dst != src {
                        self.emit(move_reg(true, dst, src));
                    }
                    let r = if self.profile.vhe { SysReg::TpidrEl2 } else { SysReg::TpidrEl1 };
                    self.emit(mrs(tmp, r));
                    self.emit(add_sub_reg(true, dst, dst, tmp, AddSub::Add));
                    return Some(());
                }
                match off {
                    0 => self.emit(move_reg(is64, dst, src)),
                    8 => self.emit(bitfield(is64, dst, src, 0, 7, true)),
                    16 => self.emit(bitfield(is64, dst, src, 0, 15, true)),
                    32 => self.emit(bitfield(is64, dst, src, 0, 31, true)),
                    _ => {}
                }
            }
            BPF_MOV => self.emit_a64_mov_i(is64, dst, imm),
            BPF_ADD if x => self.emit(add_sub_reg(is64, dst, dst, src, AddSub::Add)),
            BPF_SUB if x => self.emit(add_sub_reg(is64, dst, dst, src, AddSub::Sub)),
            BPF_AND if x => self.emit(logic_reg(is64, dst, dst, src, Logic::And)),
            BPF_OR if x => self.emit(logic_reg(is64, dst, dst, src, Logic::Orr)),
            BPF_XOR if x => self.emit(logic_reg(is64, dst, dst, src, Logic::Eor)),
            BPF_MUL if x => self.emit(data3(is64, dst, ZR, dst, src, false)),
            BPF_DIV if x => self.emit(data2(is64, dst, dst, src, if off == 0 { Data2::Udiv } else { Data2::Sdiv })),
            BPF_MOD if x => {
                self.emit(data2(is64, tmp, dst, src, if off == 0 { Data2::Udiv } else { Data2::Sdiv }));
                self.emit(data3(is64, dst, dst, tmp, src, true));
            }
            BPF_LSH if x => self.emit(data2(is64, dst, dst, src, Data2::Lslv)),
            BPF_RSH if x => self.emit(data2(is64, dst, dst, src, Data2::Lsrv)),
            BPF_ARSH if x => self.emit(data2(is64, dst, dst, src, Data2::Asrv)),
            BPF_NEG => self.emit(add_sub_reg(is64, dst, ZR, dst, AddSub::Sub)),
            BPF_END => {
                // little endian: ALU|TO_LE only zero-extends; ALU|TO_BE and
                // ALU64 (bswap) reverse the bytes
                if class(code) == BPF_ALU && !x {
                    match imm {
                        16 => self.emit(bitfield(is64, dst, dst, 0, 15, false)),
                        32 => self.emit(bitfield(is64, dst, dst, 0, 31, false)),
                        _ => {}
                    }
                } else {
                    match imm {
                        16 => {
                            self.emit(rev16(is64, dst, dst));
                            self.emit(bitfield(is64, dst, dst, 0, 15, false));
                        }
                        32 => self.emit(rev32(false, dst, dst)),
                        64 => self.emit(rev64(dst, dst)),
                        _ => {}
                    }
                }
            }
            BPF_ADD => self.emit_a64_add_i(is64, dst, dst, tmp, imm),
            BPF_SUB => {
                if let Some(w) = add_sub_imm(is64, dst, dst, imm as u32, AddSub::Sub) {
                    self.emit(w);
                } else if let Some(w) = add_sub_imm(is64, dst, dst, (imm as u32).wrapping_neg(), AddSub::Add) {
                    self.emit(w);
                } else {
                    self.emit_a64_mov_i(is64, tmp, imm);
                    self.emit(add_sub_reg(is64, dst, dst, tmp, AddSub::Sub));
                }
            }
            o @ (BPF_AND | BPF_OR | BPF_XOR) => {
                let t = match o {
                    BPF_AND => Logic::And,
                    BPF_OR => Logic::Orr,
                    _ => Logic::Eor,
                };
                let value = if is64 { imm as i64 as u64 } else { imm as u32 as u64 };
                match logic_imm(is64, dst, dst, value, t) {
                    Some(w) => self.emit(w),
                    None => {
                        self.emit_a64_mov_i(is64, tmp, imm);
                        self.emit(logic_reg(is64, dst, dst, tmp, t));
                    }
                }
            }
            BPF_MUL => {
                self.emit_a64_mov_i(is64, tmp, imm);
                self.emit(data3(is64, dst, ZR, dst, tmp, false));
            }
            BPF_DIV => {
                self.emit_a64_mov_i(is64, tmp, imm);
                self.emit(data2(is64, dst, dst, tmp, if off == 0 { Data2::Udiv } else { Data2::Sdiv }));
            }
            BPF_MOD => {
                self.emit_a64_mov_i(is64, tmp2, imm);
                self.emit(data2(is64, tmp, dst, tmp2, if off == 0 { Data2::Udiv } else { Data2::Sdiv }));
                self.emit(data3(is64, dst, dst, tmp, tmp2, true));
            }
            BPF_LSH => self.emit(lsl_imm(is64, dst, dst, imm as u32)),
            BPF_RSH => self.emit(lsr_imm(is64, dst, dst, imm as u32)),
            BPF_ARSH => self.emit(asr_imm(is64, dst, dst, imm as u32)),
            _ => return None,
        }
        Some(())
    }

    /// Helper, kfunc and bpf2bpf calls, with the helpers the arm64 JIT
    /// inlines (`bpf_jit_inlines_helper_call`).
    fn build_call(&mut self, _i: usize, insn: Insn) -> Result<(), JitError> {
        let r0 = a64(0);
        let (tmp, tmp2) = (a64(TMP_REG_1), a64(TMP_REG_2));
        if insn.src == 0 && insn.imm == GET_SMP_PROCESSOR_ID {
            let cpu = self.profile.thread_info_cpu as i32;
            self.emit(mrs(tmp, SysReg::SpEl0));
            match load_store_imm(r0, tmp, cpu, 2, LdSt::Load) {
                Some(w) => self.emit(w),
                None => {
                    self.emit_a64_mov_i(true, tmp2, cpu);
                    self.emit(load_store_reg(r0, tmp, tmp2, 2, LdSt::Load));
                }
            }
            return Ok(());
        }
        if insn.src == 0 && (insn.imm == GET_CURRENT_TASK || insn.imm == GET_CURRENT_TASK_BTF) {
            self.emit(mrs(r0, SysReg::SpEl0));
            return Ok(());
        }
        if insn.src == BPF_PSEUDO_KFUNC_CALL {
            self.emit_kfunc_arena_args(_i, insn)?;
        }
        let target = if insn.src == BPF_PSEUDO_CALL {
            // without jit_subprogs' extra pass the callee is unknown (NULL)
            if self.multi { self.func_addrs.get(insn.off as usize).copied().unwrap_or(0) } else { 0 }
        } else {
            BPF_CALL_BASE.wrapping_add(insn.imm as i64 as u64)
        };
        self.emit_call(target);
        if !self.is_timed_may_goto_call(_i) {
            self.emit(move_reg(true, r0, 0));
        }
        Ok(())
    }

    /// `emit_kfunc_arena_args`: `__arena` arguments become kernel addresses,
    /// `xN = kern_vm_start + (u32)xN`, NULL kept for nullable ones.
    fn emit_kfunc_arena_args(&mut self, i: usize, insn: Insn) -> Result<(), JitError> {
        let Some(model) = self.kfunc_models.iter().find(|m| m.imm == insn.imm && m.off == insn.off) else {
            return Ok(());
        };
        let flags = model.arg_flags.clone();
        for (k, f) in flags.iter().take(5).enumerate() {
            if f & BTF_FMODEL_ARENA_ARG == 0 {
                continue;
            }
            if self.arena_vm_start == 0 {
                return Err(JitError::Unsupported { func: self.func_idx, insn: i, what: "an __arena kfunc argument without an arena" });
            }
            let reg = a64(1 + k);
            if f & BTF_FMODEL_NULLABLE_ARG != 0 {
                self.emit(move_reg(false, reg, reg));
                self.emit(comp_branch(false, reg, 2, false).unwrap_or(BREAK_FAULT));
            }
            self.emit(add_uxtw(reg, a64(ARENA_VM_START), reg));
        }
        Ok(())
    }

    /// The verifier's call of `arch_bpf_timed_may_goto` (argument and
    /// result in BPF_REG_AX, no `mov x8, x0` after it): a helper call right
    /// after `AX = -<stack slot>`.
    fn is_timed_may_goto_call(&self, i: usize) -> bool {
        let insn = self.insns[i];
        insn.src == 0
            && i > 0
            && self.insns[i - 1].code == BPF_ALU64 | BPF_MOV | BPF_K
            && self.insns[i - 1].dst == bpf_isa::insn::BPF_REG_AX
            && self.insns.get(i + 1).is_some_and(|n| n.code == BPF_STX | BPF_MEM | BPF_DW && n.src == bpf_isa::insn::BPF_REG_AX)
    }

    fn emit_stack_arg_load(&mut self, dst: Reg, off: i16) {
        let idx = (off as i32 / 8 - 1).max(0) as usize;
        if idx < NR_STACK_ARG_REGS {
            self.emit(move_reg(true, dst, STACK_ARG_REGS[idx]));
        } else {
            let o = ((idx - NR_STACK_ARG_REGS) * 8 + 16) as i32;
            self.emit(load_store_imm(dst, FP, o, 3, LdSt::Load).unwrap_or(BREAK_FAULT));
        }
    }

    fn emit_stack_arg_store(&mut self, src: Reg, off: i16) {
        let idx = (-(off as i32) / 8 - 1).max(0) as usize;
        if idx < NR_STACK_ARG_REGS {
            self.emit(move_reg(true, STACK_ARG_REGS[idx], src));
        } else {
            let o = ((idx - NR_STACK_ARG_REGS) * 8) as i32;
            self.emit(load_store_imm(src, SP, o, 3, LdSt::Store).unwrap_or(BREAK_FAULT));
        }
    }

    fn emit_stack_arg_store_imm(&mut self, imm: i32, off: i16) {
        let idx = (-(off as i32) / 8 - 1).max(0) as usize;
        if idx < NR_STACK_ARG_REGS {
            self.emit_a64_mov_i(true, STACK_ARG_REGS[idx], imm);
        } else {
            let tmp = a64(TMP_REG_1);
            self.emit_a64_mov_i(true, tmp, imm);
            let o = ((idx - NR_STACK_ARG_REGS) * 8) as i32;
            self.emit(load_store_imm(tmp, SP, o, 3, LdSt::Store).unwrap_or(BREAK_FAULT));
        }
    }

    /// `emit_atomic_ld_st`: load-acquire / store-release.
    fn emit_atomic_ld_st(&mut self, insn: Insn) -> Option<()> {
        let (dst, src, tmp) = (a64(insn.dst as usize), a64(insn.src as usize), a64(TMP_REG_1));
        let mut reg = if insn.imm == BPF_LOAD_ACQ { src } else { dst };
        if insn.off != 0 {
            self.emit_a64_add_i(true, tmp, reg, tmp, insn.off as i32);
            reg = tmp;
        }
        if mode(insn.code) == BPF_PROBE_ATOMIC {
            self.emit(add_sub_reg(true, tmp, reg, a64(ARENA_VM_START), AddSub::Add));
            reg = tmp;
        }
        let sz = size_log2(insn.code);
        if insn.imm == BPF_LOAD_ACQ {
            self.emit(load_acquire(dst, reg, sz));
        } else {
            self.emit(store_release(src, reg, sz));
        }
        Some(())
    }

    /// `emit_lse_atomic`
    fn emit_lse_atomic(&mut self, insn: Insn) -> Option<()> {
        let (dst, src, tmp, tmp2) = (a64(insn.dst as usize), a64(insn.src as usize), a64(TMP_REG_1), a64(TMP_REG_2));
        let isdw = size(insn.code) == BPF_DW;
        let mut reg = dst;
        if insn.off != 0 {
            self.emit_a64_add_i(true, tmp, reg, tmp, insn.off as i32);
            reg = tmp;
        }
        if mode(insn.code) == BPF_PROBE_ATOMIC {
            self.emit(add_sub_reg(true, tmp, reg, a64(ARENA_VM_START), AddSub::Add));
            reg = tmp;
        }
        let mvn = |me: &mut Self| me.emit(logic_reg(isdw, tmp2, ZR, src, Logic::Orn));
        match insn.imm {
            x if x == BPF_ADD as i32 => self.emit(atomic_ld_op(isdw, ZR, reg, src, AtomicOp::Add, false)),
            x if x == BPF_AND as i32 => {
                mvn(self);
                self.emit(atomic_ld_op(isdw, ZR, reg, tmp2, AtomicOp::Clr, false));
            }
            x if x == BPF_OR as i32 => self.emit(atomic_ld_op(isdw, ZR, reg, src, AtomicOp::Set, false)),
            x if x == BPF_XOR as i32 => self.emit(atomic_ld_op(isdw, ZR, reg, src, AtomicOp::Eor, false)),
            x if x == BPF_ADD as i32 | BPF_FETCH => self.emit(atomic_ld_op(isdw, src, reg, src, AtomicOp::Add, true)),
            x if x == BPF_AND as i32 | BPF_FETCH => {
                mvn(self);
                self.emit(atomic_ld_op(isdw, src, reg, tmp2, AtomicOp::Clr, true));
            }
            x if x == BPF_OR as i32 | BPF_FETCH => self.emit(atomic_ld_op(isdw, src, reg, src, AtomicOp::Set, true)),
            x if x == BPF_XOR as i32 | BPF_FETCH => self.emit(atomic_ld_op(isdw, src, reg, src, AtomicOp::Eor, true)),
            BPF_XCHG => self.emit(atomic_ld_op(isdw, src, reg, src, AtomicOp::Swp, true)),
            BPF_CMPXCHG => self.emit(casal(isdw, src, reg, a64(0))),
            _ => return None,
        }
        Some(())
    }

    /// `emit_ll_sc_atomic`: exclusive load/store loops for CPUs without LSE.
    fn emit_ll_sc_atomic(&mut self, insn: Insn) -> Option<()> {
        let (dst, src) = (a64(insn.dst as usize), a64(insn.src as usize));
        let (tmp, tmp2, tmp3) = (a64(TMP_REG_1), a64(TMP_REG_2), a64(TMP_REG_3));
        let isdw = size(insn.code) == BPF_DW;
        let mut reg = dst;
        if insn.off != 0 {
            self.emit_a64_add_i(true, tmp, reg, tmp, insn.off as i32);
            reg = tmp;
        }
        let imm = insn.imm;
        let alu = |me: &mut Self, op: i32, d: Reg, a: Reg, b: Reg| match op {
            x if x == BPF_ADD as i32 => me.emit(add_sub_reg(isdw, d, a, b, AddSub::Add)),
            x if x == BPF_AND as i32 => me.emit(logic_reg(isdw, d, a, b, Logic::And)),
            x if x == BPF_OR as i32 => me.emit(logic_reg(isdw, d, a, b, Logic::Orr)),
            _ => me.emit(logic_reg(isdw, d, a, b, Logic::Eor)),
        };
        let base_op = imm & !BPF_FETCH;
        let is_alu_op = [BPF_ADD, BPF_AND, BPF_OR, BPF_XOR].iter().any(|&o| o as i32 == base_op);
        if is_alu_op && imm & BPF_FETCH == 0 {
            self.emit(ldxr(isdw, tmp2, reg));
            alu(self, imm, tmp2, tmp2, src);
            self.emit(stxr(isdw, tmp2, reg, tmp3, false));
            self.emit(comp_branch(false, tmp3, -3, true)?);
        } else if is_alu_op {
            let ax = a64(bpf_isa::insn::BPF_REG_AX as usize);
            self.emit(move_reg(isdw, ax, src));
            self.emit(ldxr(isdw, src, reg));
            alu(self, base_op, tmp2, src, ax);
            self.emit(stxr(isdw, tmp2, reg, tmp3, true));
            self.emit(comp_branch(false, tmp3, -3, true)?);
            self.emit(DMB_ISH);
        } else if imm == BPF_XCHG {
            self.emit(move_reg(isdw, tmp2, src));
            self.emit(ldxr(isdw, src, reg));
            self.emit(stxr(isdw, tmp2, reg, tmp3, true));
            self.emit(comp_branch(false, tmp3, -2, true)?);
            self.emit(DMB_ISH);
        } else if imm == BPF_CMPXCHG {
            let r0 = a64(0);
            self.emit(move_reg(isdw, tmp2, r0));
            self.emit(ldxr(isdw, r0, reg));
            self.emit(logic_reg(isdw, tmp3, r0, tmp2, Logic::Eor));
            self.emit(comp_branch(isdw, tmp3, 4, true)?);
            self.emit(stxr(isdw, src, reg, tmp3, true));
            self.emit(comp_branch(false, tmp3, -4, true)?);
            self.emit(DMB_ISH);
        } else {
            return None;
        }
        Some(())
    }
}

/// `emit_a64_mov_i`: a 32-bit value with `movz`/`movn` (+ `movk`).
fn emit_a64_mov_i(image: &mut Vec<u32>, is64: bool, reg: Reg, val: i32) {
    let hi = (val >> 16) as u16;
    let lo = val as u16;
    if hi & 0x8000 != 0 {
        if hi == 0xffff {
            image.push(movewide(is64, reg, !lo, 0, MoveWide::Inverse));
        } else {
            image.push(movewide(is64, reg, !hi, 16, MoveWide::Inverse));
            if lo != 0xffff {
                image.push(movewide(is64, reg, lo, 0, MoveWide::Keep));
            }
        }
    } else {
        image.push(movewide(is64, reg, lo, 0, MoveWide::Zero));
        if hi != 0 {
            image.push(movewide(is64, reg, hi, 16, MoveWide::Keep));
        }
    }
}

/// `emit_a64_mov_i64`: the top non-trivial block with `movz` or `movn`
/// (whichever leaves fewer blocks), then `movk` of each lower block that
/// differs from the filler.
fn emit_a64_mov_i64(image: &mut Vec<u32>, reg: Reg, val: u64) {
    if val >> 32 == 0 {
        return emit_a64_mov_i(image, false, reg, val as u32 as i32);
    }
    let blocks = |filler: u64| (0..4).filter(|k| (val >> (16 * k)) & 0xffff != filler).count();
    let inverse = blocks(0xffff) < blocks(0);
    let top = if inverse { !val } else { val };
    let fls = 64 - top.leading_zeros() as i32;
    let mut shift = ((fls - 1).div_euclid(16) * 16).max(0);
    if inverse {
        image.push(movewide(true, reg, (!val >> shift) as u16, shift as u32, MoveWide::Inverse));
    } else {
        image.push(movewide(true, reg, (val >> shift) as u16, shift as u32, MoveWide::Zero));
    }
    shift -= 16;
    let filler = if inverse { 0xffff } else { 0 };
    while shift >= 0 {
        let block = (val >> shift) & 0xffff;
        if block != filler {
            image.push(movewide(true, reg, block as u16, shift as u32, MoveWide::Keep));
        }
        shift -= 16;
    }
}

/// `emit_addr_mov_i64`: a kernel address in a fixed three instructions
/// (`movn` of the low block, `movk` at 16 and 32; the top is all ones).
fn emit_addr_mov_i64(image: &mut Vec<u32>, reg: Reg, val: u64) {
    image.push(movewide(true, reg, !val as u16, 0, MoveWide::Inverse));
    image.push(movewide(true, reg, (val >> 16) as u16, 16, MoveWide::Keep));
    image.push(movewide(true, reg, (val >> 32) as u16, 32, MoveWide::Keep));
}

/// `emit_call`: `bl` when the image's address is known (`ro_image`) and
/// the target is within +-128M of the call, else the address into x10 and
/// `blr` (`emit_indirect_call`).
fn emit_call(image: &mut Vec<u32>, ro_image: Option<u64>, target: u64) {
    if let Some(base) = ro_image.filter(|_| target != 0) {
        let pc = base.wrapping_add(4 * image.len() as u64);
        let off = target.wrapping_sub(pc) as i64;
        if (-(128 << 20)..(128 << 20)).contains(&off)
            && let Some(w) = branch_imm(off >> 2, true)
        {
            image.push(w);
            return;
        }
    }
    let tmp = a64(TMP_REG_1);
    emit_addr_mov_i64(image, tmp, target);
    image.push(blr(tmp));
}

/// `AARCH64_BREAK_FAULT`: what the kernel's generators return for an
/// unencodable operand (and `validate_code` then refuses).
pub const BREAK_FAULT: u32 = 0xd420_0000 | (0x100 << 5);

fn size_log2(code: u8) -> u32 {
    match size(code) {
        BPF_B => 0,
        BPF_H => 1,
        BPF_W => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests;
