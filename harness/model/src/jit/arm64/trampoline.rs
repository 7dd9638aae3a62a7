//! The arm64 BPF trampoline of Linux 7.3 (`arch_prepare_bpf_trampoline` in
//! `arch/arm64/net/bpf_jit_comp.c`) from the arch-neutral description of
//! `crate::jit::trampoline`: the image `bpf_trampoline_update` attaches to
//! a traced function's patched entry (`mov x9, lr; bl <trampoline>`), to
//! a BPF program's, or installs as a struct_ops function pointer
//! (`BPF_TRAMP_F_INDIRECT`).
//!
//! As the kernel does it: a sizing pass without the image address
//! ([`arch_bpf_trampoline_size`]: every call indirect,
//! `__bpf_tramp_enter`'s argument taken as four instructions) fixes
//! `im->size`, which `bpf_trampoline_update` refuses beyond `PAGE_SIZE`;
//! the writing pass knows where the image lives, so calls within +-128M
//! become `bl` and the code can end before the size (the rest of the
//! allocation is `AARCH64_BREAK_FAULT`, `jit_fill_hole`).
//!
//! Frame (offsets from sp after the prologue, from the bottom): the
//! original function's stack arguments (`BPF_TRAMP_F_CALL_ORIG`), the
//! `bpf_tramp_run_ctx`, the traced ip (`BPF_TRAMP_F_IP_ARG`), the
//! function metadata word (the argument count), the arguments as the BPF
//! programs see them, the return value, x19/x20, padding to 16; above it
//! the traced function's frame (fp, lr) and its caller's (fp, x9).
//!
//! Checked against 7.3: the 23 arm64 images of `record --set trampolines`
//! (fentry, fexit, fmod_ret and their combinations; functions of 1 to 11
//! arguments, 16-byte structs by value, arguments on the stack with their
//! garbage cleared, link cookies, `BPF_TRAMP_F_IP_ARG`, sleepable
//! programs; `tests/model/jit_trampoline_arm64.rs`), byte for byte. Not
//! checked against a kernel (no recording has them yet):
//! `__bpf_prog_enter`, `BPF_TRAMP_F_RET_FENTRY_RET`, struct_ops, BTI.
//!
//! Not modelled: fsession programs (their cookie slots and metadata) and
//! `__arena` arguments of struct_ops trampolines, which the shared
//! description does not carry (the latter is refused); kCFI hashes
//! (`CONFIG_CFI`: the Debian 7.3 kernels are built without it). The
//! trampoline signs nothing, so pointer authentication does not change
//! it; BTI adds the `bti jc` landing pad ([`Arm64Profile::bti_kernel`]).

use super::insn::*;
use super::{Arm64Profile, BREAK_FAULT, TMP_REG_1, a64, emit_a64_mov_i64, emit_addr_mov_i64, emit_call};
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
    let sizes = &m.arg_size;
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
    run_ctx: RunCtxLayout,
    addrs: &'a TrampAddrs,
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

    /// The code from instruction `at` to here loaded a heap pointer.
    fn heap_ref(&mut self, at: usize, ptr: HeapPtr) {
        self.heap_refs.push(HeapRef { off: 4 * at, len: 4 * (self.idx() - at), ptr });
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

    /// `save_args`: the arguments into the BPF programs' array at
    /// `bargs_off` (or, `for_call_origin`, back into the registers and the
    /// outgoing stack for the original function).
    fn save_args(&mut self, mut bargs_off: i32, oargs_off: i32, m: &BtfFuncModel, a: &ArgAux, for_call_origin: bool, is_struct_ops: bool) {
        let tmp = a64(TMP_REG_1);
        let mut reg: Reg = 0;
        for i in 0..a.args_in_regs {
            for _ in 0..(m.arg_size[i] as usize).div_ceil(8) {
                if for_call_origin {
                    self.ldr64i(reg, SP, bargs_off);
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
        for i in a.args_in_regs..m.nr_args() {
            let slots = (m.arg_size[i] as usize).div_ceil(8);
            for k in (0..slots).rev() {
                self.ldr64i(tmp, FP, soff);
                if k == 0 && !for_call_origin {
                    self.clear_garbage(tmp, m.arg_size[i] as u32 % 8);
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

    /// `invoke_bpf_prog`: one program between its enter and exit helpers
    /// (`bpf_trampoline_enter`/`_exit`), behind the nop its detachment
    /// patches into a skip.
    fn invoke_bpf_prog(&mut self, node: &TrampNode, which: HeapPtr, bargs_off: i32, retval_off: i32, run_ctx_off: i32, save_ret: bool) {
        let (enter_prog, exit_prog) = match node.enter {
            ProgEnter::Recur => (self.addrs.bpf_prog_enter_recur, self.addrs.bpf_prog_exit_recur),
            ProgEnter::SleepableRecur => (self.addrs.bpf_prog_enter_sleepable_recur, self.addrs.bpf_prog_exit_sleepable_recur),
            ProgEnter::Plain => (self.addrs.bpf_prog_enter, self.addrs.bpf_prog_exit),
        };
        let cookie_off = self.run_ctx.bpf_cookie as i32;
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
    }

    /// `invoke_bpf_mod_ret`: each fmod_ret program, then a branch (placed
    /// as a nop, patched to `cbnz` by the caller) to the fexit part when
    /// it returned non-zero.
    fn invoke_bpf_mod_ret(&mut self, nodes: &[TrampNode], bargs_off: i32, retval_off: i32, run_ctx_off: i32) -> Vec<usize> {
        // the first program would see a garbage return value
        self.str64i(ZR, SP, retval_off);
        let mut branches = Vec::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            self.invoke_bpf_prog(node, HeapPtr::Prog(BpfTrampProgType::ModifyReturn, i), bargs_off, retval_off, run_ctx_off, true);
            self.ldr64i(X10, SP, retval_off);
            branches.push(self.idx());
            self.emit(NOP);
        }
        branches
    }

    /// `__bpf_tramp_enter`/`__bpf_tramp_exit`'s argument, the image's
    /// `struct bpf_tramp_image *`: four instructions assumed by the sizing
    /// pass.
    fn mov_im_to_x0(&mut self) {
        if self.writing() {
            let at = self.idx();
            emit_a64_mov_i64(&mut self.image, X0, self.addrs.im);
            self.heap_ref(at, HeapPtr::Im);
        } else {
            self.image.extend([NOP; 4]);
        }
    }

    /// `prepare_trampoline`: the whole image; its length in instructions.
    fn prepare_trampoline(&mut self, m: &BtfFuncModel, a: &ArgAux, flags: TrampFlags, tn: &TrampNodes) -> usize {
        // is_struct_ops_tramp: the struct_ops trampoline is the indirect one
        let is_struct_ops = flags.indirect;

        let mut stack_size: i32 = 0;
        let oargs_off = stack_size;
        if flags.call_orig {
            stack_size += a.ostack_for_args as i32;
        }
        let run_ctx_off = stack_size;
        stack_size += self.run_ctx.size.div_ceil(8) as i32 * 8;
        // no fsession cookies
        let ip_off = stack_size;
        if flags.ip_arg {
            stack_size += 8;
        }
        let func_meta_off = stack_size;
        stack_size += 8;
        let bargs_off = stack_size;
        let nfuncargs = a.regs_for_args as i32 + a.bstack_for_args as i32 / 8;
        stack_size += 8 * nfuncargs;
        let retval_off = stack_size;
        let save_ret = flags.call_orig || flags.ret_fentry_ret;
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

        if flags.ip_arg {
            emit_addr_mov_i64(&mut self.image, X10, self.addrs.func);
            self.str64i(X10, SP, ip_off);
        }
        self.store_func_meta(nfuncargs as u64, func_meta_off);
        self.save_args(bargs_off, oargs_off, m, a, false, is_struct_ops);
        self.str64i(X19, SP, regs_off);
        self.str64i(X20, SP, regs_off + 8);

        if flags.call_orig {
            self.mov_im_to_x0();
            self.call(self.addrs.bpf_tramp_enter);
        }

        for (i, node) in tn.fentry.iter().enumerate() {
            self.invoke_bpf_prog(node, HeapPtr::Prog(BpfTrampProgType::Fentry, i), bargs_off, retval_off, run_ctx_off, flags.ret_fentry_ret);
        }

        let branches = if tn.fmod_ret.is_empty() { Vec::new() } else { self.invoke_bpf_mod_ret(&tn.fmod_ret, bargs_off, retval_off, run_ctx_off) };

        if flags.call_orig {
            // the original function with the arguments it was called with,
            // at its return address, returning here
            self.save_args(bargs_off, oargs_off, m, a, true, is_struct_ops);
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

        for (i, node) in tn.fexit.iter().enumerate() {
            self.invoke_bpf_prog(node, HeapPtr::Prog(BpfTrampProgType::Fexit, i), bargs_off, retval_off, run_ctx_off, false);
        }

        if flags.call_orig {
            self.mov_im_to_x0();
            self.call(self.addrs.bpf_tramp_exit);
        }

        if flags.restore_regs {
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
            if flags.skip_frame {
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
}

/// What the shared description cannot give the arm64 trampoline.
fn check(m: &BtfFuncModel, flags: TrampFlags, nodes: &TrampNodes) -> Result<(), TrampError> {
    if m.nr_args() > MAX_BPF_FUNC_ARGS {
        return Err(TrampError::TooManyArgs(m.nr_args()));
    }
    // bpf_tramp_arena_base: the struct_ops trampoline of one program
    // converts __arena arguments against that program's arena
    if flags.indirect && nodes.fentry.len() == 1 && (0..m.nr_args()).any(|i| m.arg_flags(i).arena) {
        return Err(TrampError::Unsupported("__arena arguments of a struct_ops trampoline"));
    }
    Ok(())
}

/// `arch_bpf_trampoline_size`: the image size in bytes (`im->size`).
pub fn arch_bpf_trampoline_size(
    profile: &Arm64Profile,
    run_ctx: RunCtxLayout,
    m: &BtfFuncModel,
    flags: TrampFlags,
    nodes: &TrampNodes,
    addrs: &TrampAddrs,
) -> Result<usize, TrampError> {
    check(m, flags, nodes)?;
    let a = calc_arg_aux(m);
    let mut ctx = TrampCtx { image: Vec::new(), ro_image: None, profile, run_ctx, addrs, heap_refs: Vec::new() };
    Ok(4 * ctx.prepare_trampoline(m, &a, flags, nodes))
}

/// `arch_prepare_bpf_trampoline` into an image at `addrs.image` of
/// [`arch_bpf_trampoline_size`] bytes: its code (the allocation's rest is
/// `AARCH64_BREAK_FAULT`).
pub fn arch_prepare_bpf_trampoline(
    profile: &Arm64Profile,
    run_ctx: RunCtxLayout,
    m: &BtfFuncModel,
    flags: TrampFlags,
    nodes: &TrampNodes,
    addrs: &TrampAddrs,
) -> Result<TrampImage, TrampError> {
    let size = arch_bpf_trampoline_size(profile, run_ctx, m, flags, nodes, addrs)?;
    let a = calc_arg_aux(m);
    let mut ctx = TrampCtx { image: Vec::new(), ro_image: Some(addrs.image), profile, run_ctx, addrs, heap_refs: Vec::new() };
    let n = ctx.prepare_trampoline(m, &a, flags, nodes);
    // validate_code
    if ctx.image.contains(&BREAK_FAULT) || 4 * n > size {
        return Err(TrampError::Unsupported("an operand no A64 instruction encodes (validate_code)"));
    }
    Ok(TrampImage { code: ctx.image.iter().flat_map(|w| w.to_le_bytes()).collect(), heap_refs: ctx.heap_refs })
}

#[cfg(test)]
mod tests;
