//! The arm64 BPF trampoline of Linux 7.3 (`arch_prepare_bpf_trampoline` in
//! `arch/arm64/net/bpf_jit_comp.c`): the image `bpf_trampoline_update`
//! attaches to a traced function's patched entry (`mov x9, lr; bl
//! <trampoline>`), to a BPF program's, or installs as a struct_ops
//! function pointer.
//!
//! As the kernel does it: a sizing pass without the image address (every
//! call indirect, `__bpf_tramp_enter`'s argument taken as four
//! instructions) fixes `im->size`; the writing pass knows where the image
//! lives, so calls within +-128M become `bl` and the code can end before
//! the size, the rest filled with `AARCH64_BREAK_FAULT`
//! (`jit_fill_hole`).
//!
//! Frame (offsets from sp after the prologue, from the bottom): the
//! original function's stack arguments (`BPF_TRAMP_F_CALL_ORIG`), the
//! `bpf_tramp_run_ctx`, fsession cookies, the traced ip
//! (`BPF_TRAMP_F_IP_ARG`), the function metadata word (the argument count
//! and the fsession bits), the arguments as the BPF programs see them,
//! the return value, x19/x20, padding to 16; above it the traced
//! function's frame (fp, lr) and its caller's (fp, x9).
//!
//! Checked against 7.3: the 13 arm64 images of `record --set trampolines`
//! (fentry, fexit, fmod_ret and their combinations; `tests/model/
//! jit_trampoline_arm64.rs`), byte for byte. Not checked against a kernel
//! (no recording has them yet): cookies, `BPF_TRAMP_F_IP_ARG`, stack
//! arguments, sleepable and LSM programs, fsession, struct_ops, BTI.
//!
//! Not modelled: kCFI hashes of struct_ops trampolines (`CONFIG_CFI`: the
//! Debian 7.3 kernels are built without it). The trampoline signs
//! nothing, so pointer authentication does not change it; BTI adds the
//! `bti jc` landing pad ([`Arm64Profile::bti_kernel`]).

use super::insn::*;
use super::{Arm64Profile, BREAK_FAULT, TMP_REG_1, TMP_REG_2, a64, emit_a64_mov_i, emit_a64_mov_i64, emit_addr_mov_i64, emit_call};
use crate::jit::trampoline::*;

/// `struct arg_aux`: how the traced function's arguments are passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArgAux {
    /// Arguments passed in registers (x0-x7); the rest are on the stack.
    pub args_in_regs: usize,
    /// Registers they take (a 16-byte argument takes two).
    pub regs_for_args: usize,
    /// Stack bytes of the other arguments, as the BPF programs get them.
    pub bstack_for_args: u32,
    /// ... and as the trampoline passes them on to the original function.
    pub ostack_for_args: u32,
}

/// `calc_arg_aux`
pub fn calc_arg_aux(m: &BtfFuncModel) -> ArgAux {
    let sizes = m.args();
    let mut a = ArgAux::default();
    let mut i = 0;
    while i < sizes.len() {
        let slots = (sizes[i] as usize).div_ceil(8);
        if a.regs_for_args + slots > 8 {
            break;
        }
        a.regs_for_args += slots;
        i += 1;
    }
    a.args_in_regs = i;
    for &size in &sizes[i..] {
        let bytes = (size as u32).div_ceil(8) * 8;
        a.bstack_for_args += bytes;
        a.ostack_for_args += bytes;
    }
    a
}

const X0: Reg = 0;
const X1: Reg = 1;
const X2: Reg = 2;
const X9: Reg = 9;
const X10: Reg = 10;
const X19: Reg = 19;
const X20: Reg = 20;

/// The trampoline's `struct jit_ctx`.
struct TrampCtx<'a> {
    image: Vec<u32>,
    /// `ctx->ro_image`: unknown in the sizing pass
    ro_image: Option<u64>,
    profile: &'a Arm64Profile,
    /// a `struct bpf_tramp_image` keeps the skips (not a struct_ops one)
    has_im: bool,
    skips: Vec<BpfTrampSkip>,
    heap_refs: Vec<HeapRef>,
}

impl TrampCtx<'_> {
    fn emit(&mut self, w: u32) {
        self.image.push(w);
    }

    fn idx(&self) -> usize {
        self.image.len()
    }

    fn writing(&self) -> bool {
        self.ro_image.is_some()
    }

    /// `A64_STR64I` / `A64_LDR64I` off sp or fp.
    fn str64i(&mut self, rt: Reg, base: Reg, off: i32) {
        self.emit(load_store_imm(rt, base, off, 3, LdSt::Store).unwrap_or(BREAK_FAULT));
    }

    fn ldr64i(&mut self, rt: Reg, base: Reg, off: i32) {
        self.emit(load_store_imm(rt, base, off, 3, LdSt::Load).unwrap_or(BREAK_FAULT));
    }

    /// `A64_ADD_I(1, rd, rn, imm)`
    fn add_i(&mut self, dst: Reg, src: Reg, imm: i32) {
        self.emit(add_sub_imm(true, dst, src, imm as u32, AddSub::Add).unwrap_or(BREAK_FAULT));
    }

    /// `A64_MOV(1, ...)`: `add` when sp is an operand, else `orr`.
    fn mov(&mut self, dst: Reg, src: Reg) {
        if dst == SP || src == SP {
            self.add_i(dst, src, 0);
        } else {
            self.emit(move_reg(true, dst, src));
        }
    }

    fn call(&mut self, target: u64) {
        emit_call(&mut self.image, self.ro_image, target);
    }

    /// `emit_bti`
    fn emit_bti(&mut self, w: u32) {
        if self.profile.bti_kernel {
            self.emit(w);
        }
    }

    /// `clear_garbage`: zero the bytes above an argument's size in its last
    /// 8-byte slot (little endian: the high ones).
    fn clear_garbage(&mut self, reg: Reg, effective_bytes: u32) {
        if effective_bytes != 0 {
            let garbage_bits = 64 - 8 * effective_bytes;
            self.emit(lsl_imm(true, reg, reg, garbage_bits));
            self.emit(lsr_imm(true, reg, reg, garbage_bits));
        }
    }

    /// `emit_arena_arg_conv`: `dst = (u32)(src - kern_vm_start)`, NULL
    /// kept for a nullable argument.
    fn emit_arena_arg_conv(&mut self, dst: Reg, mut src: Reg, nullable: bool, base_lo: Reg) {
        if nullable {
            if dst != src {
                self.mov(dst, src);
            }
            self.emit(comp_branch(true, dst, 2, false).unwrap_or(BREAK_FAULT));
            src = dst;
        }
        self.emit(add_sub_reg(false, dst, src, base_lo, AddSub::Sub));
    }

    /// `save_args`: the arguments into the BPF programs' array at
    /// `bargs_off` (or, `for_call_origin`, back into the registers and the
    /// outgoing stack for the original function).
    #[allow(clippy::too_many_arguments)]
    fn save_args(&mut self, mut bargs_off: i32, oargs_off: i32, m: &BtfFuncModel, a: &ArgAux, for_call_origin: bool, is_struct_ops: bool, arena_base: u64) {
        let tmp = a64(TMP_REG_1);
        let base_lo = a64(TMP_REG_2);
        if arena_base != 0 {
            emit_a64_mov_i(&mut self.image, false, base_lo, arena_base as u32 as i32);
        }
        let arena_arg = |i: usize| arena_base != 0 && m.arg_flags[i] & BTF_FMODEL_ARENA_ARG != 0;
        let nullable = |i: usize| m.arg_flags[i] & BTF_FMODEL_NULLABLE_ARG != 0;
        let mut reg: Reg = 0;
        for i in 0..a.args_in_regs {
            for _ in 0..(m.arg_size[i] as usize).div_ceil(8) {
                if for_call_origin {
                    self.ldr64i(reg, SP, bargs_off);
                } else if arena_arg(i) {
                    self.emit_arena_arg_conv(tmp, reg, nullable(i), base_lo);
                    self.str64i(tmp, SP, bargs_off);
                } else {
                    self.str64i(reg, SP, bargs_off);
                }
                reg += 1;
                bargs_off += 8;
            }
        }
        // stack arguments: above the two frames the prologue pushes, or the
        // one of a struct_ops trampoline
        let mut soff = if is_struct_ops { 16 } else { 32 };
        let mut doff = if for_call_origin { oargs_off } else { bargs_off };
        for i in a.args_in_regs..m.args().len() {
            let slots = (m.arg_size[i] as usize).div_ceil(8);
            for k in (0..slots).rev() {
                self.ldr64i(tmp, FP, soff);
                if k == 0 && !for_call_origin {
                    self.clear_garbage(tmp, m.arg_size[i] as u32 % 8);
                }
                if arena_arg(i) {
                    self.emit_arena_arg_conv(tmp, tmp, nullable(i), base_lo);
                }
                self.str64i(tmp, SP, doff);
                soff += 8;
                doff += 8;
            }
        }
    }

    /// `restore_args`
    fn restore_args(&mut self, mut bargs_off: i32, nregs: usize) {
        for reg in 0..nregs {
            self.ldr64i(reg as Reg, SP, bargs_off);
            bargs_off += 8;
        }
    }

    /// `store_func_meta`
    fn store_func_meta(&mut self, func_meta: u64, func_meta_off: i32) {
        emit_a64_mov_i64(&mut self.image, X10, func_meta);
        self.str64i(X10, SP, func_meta_off);
    }

    /// `invoke_bpf_prog`: one program between its enter and exit helpers,
    /// behind the nop its detachment patches into a skip.
    #[allow(clippy::too_many_arguments)]
    fn invoke_bpf_prog(&mut self, node: &BpfTrampNode, which: HeapPtr, ksyms: &TrampKsyms, bargs_off: i32, retval_off: i32, run_ctx_off: i32, save_ret: bool) {
        let (enter_prog, exit_prog) = ksyms.pair(bpf_trampoline_enter(node));
        let cookie_off = OFFSETOF_BPF_TRAMP_RUN_CTX_BPF_COOKIE as i32;
        let skip = self.idx();
        self.emit(NOP);
        if node.cookie == 0 {
            self.str64i(ZR, SP, run_ctx_off + cookie_off);
        } else {
            emit_a64_mov_i64(&mut self.image, X10, node.cookie);
            self.str64i(X10, SP, run_ctx_off + cookie_off);
        }
        // the prog in x19 for both helper calls
        let at = self.idx();
        emit_addr_mov_i64(&mut self.image, X19, node.prog);
        self.heap_ref(at, which);
        self.mov(X0, X19);
        self.add_i(X1, SP, run_ctx_off);
        self.call(enter_prog);
        // the start time in x20
        self.mov(X20, X0);
        // if (enter(prog) == 0) skip the program
        let branch = self.idx();
        self.emit(NOP);
        self.add_i(X0, SP, bargs_off);
        if let Some(insnsi) = node.insnsi {
            emit_addr_mov_i64(&mut self.image, X1, insnsi);
        }
        self.call(node.bpf_func);
        if save_ret {
            self.str64i(X0, SP, retval_off);
        }
        if self.writing() {
            self.image[branch] = comp_branch(true, X0, (self.idx() - branch) as i64, false).unwrap_or(BREAK_FAULT);
        }
        self.mov(X0, X19);
        self.mov(X1, X20);
        self.add_i(X2, SP, run_ctx_off);
        self.call(exit_prog);
        // bpf_tramp_image_add_skip: struct_ops trampolines have no image
        if self.has_im {
            self.skips.push(BpfTrampSkip { prog: node.prog, nop: 4 * skip, target: 4 * self.idx() });
        }
    }

    /// `invoke_bpf_mod_ret`: each fmod_ret program, then a branch (placed
    /// as a nop, patched to `cbnz` by the caller) to the fexit part when
    /// it returned non-zero.
    fn invoke_bpf_mod_ret(&mut self, nodes: &[BpfTrampNode], ksyms: &TrampKsyms, bargs_off: i32, retval_off: i32, run_ctx_off: i32) -> Vec<usize> {
        // the first program would see a garbage return value
        self.str64i(ZR, SP, retval_off);
        let mut branches = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            self.invoke_bpf_prog(node, HeapPtr::Prog(BpfTrampProgType::ModifyReturn, i), ksyms, bargs_off, retval_off, run_ctx_off, true);
            self.ldr64i(X10, SP, retval_off);
            branches.push(self.idx());
            self.emit(NOP);
        }
        branches
    }

    /// `prepare_trampoline`: the whole image; its length in instructions.
    fn prepare_trampoline(&mut self, tr: &BpfTrampoline, a: &ArgAux) -> usize {
        let m = &tr.model;
        let flags = tr.flags;
        let tn = &tr.nodes;
        let is_struct_ops = tn.is_struct_ops_tramp();
        let fsession_cnt = tn.bpf_fsession_cnt();
        let arena_base = bpf_tramp_arena_base(m, tn, flags);

        let mut stack_size: i32 = 0;
        let oargs_off = stack_size;
        if flags & BPF_TRAMP_F_CALL_ORIG != 0 {
            stack_size += a.ostack_for_args as i32;
        }
        let run_ctx_off = stack_size;
        stack_size += SIZEOF_BPF_TRAMP_RUN_CTX.div_ceil(8) as i32 * 8;
        let cookie_off = stack_size;
        let cookie_cnt = tn.bpf_fsession_cookie_cnt() as i32;
        stack_size += cookie_cnt * 8;
        let ip_off = stack_size;
        if flags & BPF_TRAMP_F_IP_ARG != 0 {
            stack_size += 8;
        }
        let func_meta_off = stack_size;
        stack_size += 8;
        let bargs_off = stack_size;
        let nfuncargs = a.regs_for_args as i32 + a.bstack_for_args as i32 / 8;
        stack_size += 8 * nfuncargs;
        let retval_off = stack_size;
        let save_ret = flags & (BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_RET_FENTRY_RET) != 0;
        if save_ret {
            stack_size += 8;
        }
        let regs_off = stack_size;
        stack_size += 16;
        stack_size = (stack_size + 15) & !15;
        let retaddr_off = stack_size + 8;

        // reached by bl or br (traced functions and programs) or blr
        // (struct_ops)
        self.emit_bti(BTI_JC);
        if !is_struct_ops {
            // the traced function's caller's frame (its lr is in x9)
            self.emit(push(FP, X9, SP));
            self.mov(FP, SP);
        }
        self.emit(push(FP, LR, SP));
        self.mov(FP, SP);
        self.emit(add_sub_imm(true, SP, SP, stack_size as u32, AddSub::Sub).unwrap_or(BREAK_FAULT));

        if flags & BPF_TRAMP_F_IP_ARG != 0 {
            emit_addr_mov_i64(&mut self.image, X10, tr.func_addr);
            self.str64i(X10, SP, ip_off);
        }
        let mut func_meta = nfuncargs as u64;
        self.store_func_meta(func_meta, func_meta_off);
        self.save_args(bargs_off, oargs_off, m, a, false, is_struct_ops, arena_base);
        self.str64i(X19, SP, regs_off);
        self.str64i(X20, SP, regs_off + 8);

        if flags & BPF_TRAMP_F_CALL_ORIG != 0 {
            self.mov_im_to_x0(tr.im);
            self.call(tr.ksyms.bpf_tramp_enter);
        }

        if fsession_cnt != 0 {
            self.emit(movewide(true, X10, 0, 0, MoveWide::Zero));
            for k in 0..cookie_cnt {
                self.str64i(X10, SP, cookie_off + 8 * k);
            }
            // fentry programs see a zero return value
            self.str64i(X10, SP, retval_off);
        }

        let mut cookie_bargs_off = ((bargs_off - cookie_off) / 8) as u64;
        for (i, node) in tn.fentry.iter().enumerate() {
            if node.call_session_cookie {
                self.store_func_meta(func_meta | cookie_bargs_off << BPF_TRAMP_COOKIE_INDEX_SHIFT, func_meta_off);
                cookie_bargs_off = cookie_bargs_off.wrapping_sub(1);
            }
            let which = HeapPtr::Prog(BpfTrampProgType::Fentry, i);
            self.invoke_bpf_prog(node, which, &tr.ksyms, bargs_off, retval_off, run_ctx_off, flags & BPF_TRAMP_F_RET_FENTRY_RET != 0);
        }

        let branches = if tn.fmod_ret.is_empty() { Vec::new() } else { self.invoke_bpf_mod_ret(&tn.fmod_ret, &tr.ksyms, bargs_off, retval_off, run_ctx_off) };

        if flags & BPF_TRAMP_F_CALL_ORIG != 0 {
            // the original function gets the kernel's own arguments
            self.save_args(bargs_off, oargs_off, m, a, true, is_struct_ops, 0);
            // call it at its return address, returning here
            self.ldr64i(X10, SP, retaddr_off);
            self.emit(adr(LR, 2 * 4).unwrap_or(BREAK_FAULT));
            self.emit(ret(X10));
            self.str64i(X0, SP, retval_off);
        }

        if self.writing() {
            for b in branches {
                self.image[b] = comp_branch(true, X10, (self.idx() - b) as i64, true).unwrap_or(BREAK_FAULT);
            }
        }

        func_meta |= 1 << BPF_TRAMP_IS_RETURN_SHIFT;
        if fsession_cnt != 0 {
            self.store_func_meta(func_meta, func_meta_off);
        }
        let mut cookie_bargs_off = ((bargs_off - cookie_off) / 8) as u64;
        for (i, node) in tn.fexit.iter().enumerate() {
            if node.call_session_cookie {
                self.store_func_meta(func_meta | cookie_bargs_off << BPF_TRAMP_COOKIE_INDEX_SHIFT, func_meta_off);
                cookie_bargs_off = cookie_bargs_off.wrapping_sub(1);
            }
            self.invoke_bpf_prog(node, HeapPtr::Prog(BpfTrampProgType::Fexit, i), &tr.ksyms, bargs_off, retval_off, run_ctx_off, false);
        }

        if flags & BPF_TRAMP_F_CALL_ORIG != 0 {
            self.mov_im_to_x0(tr.im);
            self.call(tr.ksyms.bpf_tramp_exit);
        }

        if flags & BPF_TRAMP_F_RESTORE_REGS != 0 {
            self.restore_args(bargs_off, a.regs_for_args);
        }
        self.ldr64i(X19, SP, regs_off);
        self.ldr64i(X20, SP, regs_off + 8);
        if save_ret {
            self.ldr64i(X0, SP, retval_off);
        }
        self.mov(SP, FP);
        if is_struct_ops {
            self.emit(pop(FP, LR, SP));
            self.emit(ret(LR));
        } else {
            self.emit(pop(FP, LR, SP));
            self.emit(pop(FP, X9, SP));
            if flags & BPF_TRAMP_F_SKIP_FRAME != 0 {
                // back to the traced function's caller
                self.mov(LR, X9);
                self.emit(ret(X9));
            } else {
                // back into the traced function
                self.mov(X10, LR);
                self.mov(LR, X9);
                self.emit(ret(X10));
            }
        }
        self.idx()
    }

    /// The code from instruction `at` to here loaded a heap pointer.
    fn heap_ref(&mut self, at: usize, ptr: HeapPtr) {
        self.heap_refs.push(HeapRef { off: 4 * at, len: 4 * (self.idx() - at), ptr });
    }

    /// `__bpf_tramp_enter`/`__bpf_tramp_exit`'s argument, the image's
    /// `struct bpf_tramp_image *`: four instructions assumed by the sizing
    /// pass.
    fn mov_im_to_x0(&mut self, im: u64) {
        if self.writing() {
            let at = self.idx();
            emit_a64_mov_i64(&mut self.image, X0, im);
            self.heap_ref(at, HeapPtr::Im);
        } else {
            self.image.extend([NOP; 4]);
        }
    }
}

/// `arch_bpf_trampoline_size`: the image size in bytes (`im->size`).
pub fn arch_bpf_trampoline_size(tr: &BpfTrampoline, profile: &Arm64Profile) -> usize {
    let a = calc_arg_aux(&tr.model);
    let mut ctx = TrampCtx { image: Vec::new(), ro_image: None, profile, has_im: false, skips: Vec::new(), heap_refs: Vec::new() };
    4 * ctx.prepare_trampoline(tr, &a)
}

/// `arch_prepare_bpf_trampoline` into an image of
/// [`arch_bpf_trampoline_size`] bytes at `tr.image`, as
/// `bpf_trampoline_update` calls it (refusing images beyond `PAGE_SIZE`).
pub fn arch_prepare_bpf_trampoline(tr: &BpfTrampoline, profile: &Arm64Profile) -> Result<TrampolineImage, TrampolineError> {
    if tr.model.nr_args as usize > MAX_BPF_FUNC_ARGS {
        return Err(TrampolineError::Args("more than MAX_BPF_FUNC_ARGS"));
    }
    let size = arch_bpf_trampoline_size(tr, profile);
    if size as u64 > crate::target::PAGE_SIZE {
        return Err(TrampolineError::TooBig(size));
    }
    let a = calc_arg_aux(&tr.model);
    let mut ctx = TrampCtx { image: Vec::new(), ro_image: Some(tr.image), profile, has_im: tr.im != 0, skips: Vec::new(), heap_refs: Vec::new() };
    let n = ctx.prepare_trampoline(tr, &a);
    // validate_code
    if ctx.image.contains(&BREAK_FAULT) || 4 * n > size {
        return Err(TrampolineError::Unencodable);
    }
    let mut words = ctx.image;
    words.resize(size / 4, BREAK_FAULT);
    Ok(TrampolineImage { image: words.iter().flat_map(|w| w.to_le_bytes()).collect(), len: 4 * n, skips: ctx.skips, heap_refs: ctx.heap_refs })
}

#[cfg(test)]
mod tests;
