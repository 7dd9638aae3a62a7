//! The x86-64 BPF trampoline: `arch_prepare_bpf_trampoline` of 7.3's
//! `arch/x86/net/bpf_jit_comp.c` (`__arch_prepare_bpf_trampoline`).
//!
//! The frame it builds, below the saved `rbp`:
//!
//! ```text
//! rbp - 8              return value        (CALL_ORIG or RET_FENTRY_RET)
//! rbp - regs_off       arguments, 8 bytes a register (the programs' ctx)
//! rbp - func_meta_off  the argument register count (`bpf_get_func_arg_cnt`)
//! rbp - ip_off         the traced function  (IP_ARG)
//! rbp - rbx_off        saved rbx
//! rbp - run_ctx_off    struct bpf_tramp_run_ctx
//! rbp - arg_stack_off  stack arguments for the original call (> 6 regs)
//! ```
//!
//! Each program runs between its enter and exit functions
//! (`invoke_bpf_prog`); fmod_ret programs may skip the traced function
//! (`invoke_bpf_mod_ret`'s branches to `do_fexit`). Not modelled: session
//! programs (`fsession` cookies), arena arguments, call depth accounting
//! (`X86_FEATURE_CALL_DEPTH`) and kCFI/FineIBT preambles: the modelled
//! kernel ([`X86Profile::default`]) has none of them.

use super::encoder::{Emitter, Reg, Width, is_imm8, is_simm32};
use super::{X86_PATCH_SIZE, X86Profile, emit_mov_imm32, emit_return, load_tcc_ptr, mov_imm64};
use crate::jit::trampoline::{
    BpfTrampProgType, BtfFuncModel, HeapPtr, HeapRef, MAX_BPF_FUNC_ARGS, ProgEnter, RunCtxLayout, TrampAddrs, TrampError, TrampFlags, TrampImage, TrampNode,
    TrampNodes,
};

/// `CONFIG_DYNAMIC_FTRACE_WITH_JMP` of the Debian 7.3 amd64 config: a
/// trampoline that calls the traced function is jumped to, not called
/// ([`TrampFlags::bpf_trampoline_update`]).
pub const DYNAMIC_FTRACE_WITH_JMP: bool = true;

/// `ENDBR_INSN_SIZE`.
const ENDBR_INSN_SIZE: u64 = 4;

/// `is_endbr`: whether a function's first bytes are an `endbr64` (or
/// `endbr32`), or the poison objtool seals unused ones with (`nopl
/// -0x2a(%rax)`); either way the fentry `call` comes after them.
pub fn is_endbr(head: &[u8]) -> bool {
    match head.get(..4) {
        Some(&[0x0f, 0x1f, 0x40, 0xd6]) => true,
        Some(&[0xf3, 0x0f, 0x1e, b]) => b == 0xfa || b == 0xfb,
        _ => false,
    }
}

/// The image under construction: its bytes, where it will live, and the
/// heap pointers it embeds.
struct Tramp<'a> {
    e: Emitter,
    profile: &'a X86Profile,
    addrs: &'a TrampAddrs,
    heap_refs: Vec<HeapRef>,
}

impl Tramp<'_> {
    /// Where the next instruction lands (`image + (prog - rw_image)`).
    fn ip(&self) -> u64 {
        self.addrs.image.wrapping_add(self.e.len() as u64)
    }

    /// `emit_rsb_call` (no call depth accounting: see the module doc).
    fn emit_rsb_call(&mut self, func: u64) -> Result<(), TrampError> {
        let offset = func.wrapping_sub(self.ip().wrapping_add(X86_PATCH_SIZE as u64)) as i64;
        if !is_simm32(offset) {
            return Err(TrampError::OutOfRange(func));
        }
        self.e.call32(offset as i32);
        Ok(())
    }

    /// `emit_mov_imm64` of a heap pointer, remembering where it went.
    fn mov_heap_ptr(&mut self, dst: Reg, v: u64, ptr: HeapPtr) {
        let start = self.e.len();
        mov_imm64(&mut self.e, dst, v);
        let len = self.e.len() - start;
        // movabs: REX.W, opcode, imm64; the shorter forms end in their imm32
        let (off, n) = if len == 10 { (start + 2, 8) } else { (self.e.len() - 4, 4) };
        if len > 2 {
            self.heap_refs.push(HeapRef { off, len: n, ptr });
        }
    }

    /// `emit_stx(BPF_DW, BPF_REG_FP, src, off)`.
    fn stx_fp(&mut self, src: Reg, off: i32) {
        self.e.store(Width::Dw, Reg::RBP, src, off);
    }

    /// `emit_ldx(BPF_DW, dst, BPF_REG_FP, off)`.
    fn ldx_fp(&mut self, dst: Reg, off: i32) {
        self.e.load(Width::Dw, dst, Reg::RBP, off);
    }

    /// `emit_store_stack_imm64`: `mov reg, imm64; mov [rbp + off], reg`.
    fn emit_store_stack_imm64(&mut self, reg: Reg, off: i32, imm: u64) {
        mov_imm64(&mut self.e, reg, imm);
        self.stx_fp(reg, off);
    }

    /// `lea reg, [rbp + off]` with the kernel's fixed encodings (`modrm`
    /// is the register field's ModRM byte for a disp8).
    fn lea_fp(&mut self, modrm: u8, off: i32) {
        if is_imm8(off as i64) {
            self.e.bytes(&[0x48, 0x8d, modrm]);
            self.e.byte(off as u8);
        } else {
            self.e.bytes(&[0x48, 0x8d, modrm + 0x40]);
            self.e.imm32(off);
        }
    }

    /// `save_args`: the arguments into the frame (or, `for_call_origin`,
    /// only the stack-passed ones into the outgoing area).
    fn save_args(&mut self, m: &BtfFuncModel, mut stack_size: i32, for_call_origin: bool, flags: TrampFlags) {
        let (mut first_off, mut nr_regs, mut nr_stack_slots) = (0, 0, 0);
        let stack_args_off = if flags.use_jmp() || flags.indirect { 16 } else { 24 };
        for i in 0..m.nr_args().min(MAX_BPF_FUNC_ARGS) {
            let arg_regs = (i32::from(m.arg_size[i]) + 7) / 8;
            if nr_regs + arg_regs > 6 {
                for _ in 0..arg_regs {
                    self.ldx_fp(Reg::RAX, nr_stack_slots * 8 + stack_args_off);
                    self.stx_fp(Reg::RAX, -stack_size);
                    if nr_stack_slots == 0 {
                        first_off = stack_size;
                    }
                    stack_size -= 8;
                    nr_stack_slots += 1;
                }
            } else {
                if for_call_origin {
                    nr_regs += arg_regs;
                    continue;
                }
                for _ in 0..arg_regs {
                    self.stx_fp(arg_reg(nr_regs), -stack_size);
                    stack_size -= 8;
                    nr_regs += 1;
                }
            }
        }
        self.clean_stack_garbage(m, nr_stack_slots, first_off);
    }

    /// `clean_stack_garbage`: a lone stack argument of 4 bytes or less
    /// leaves the caller's upper half in its slot; zero it.
    fn clean_stack_garbage(&mut self, m: &BtfFuncModel, nr_stack_slots: i32, stack_size: i32) {
        if nr_stack_slots != 1 {
            return;
        }
        if m.arg_size.last().is_some_and(|&s| s <= 4) {
            let off = -(stack_size - 4);
            if is_imm8(off as i64) {
                self.e.bytes(&[0xc7, 0x45, off as u8]);
            } else {
                self.e.bytes(&[0xc7, 0x85]);
                self.e.imm32(off);
            }
            self.e.imm32(0);
        }
    }

    /// `restore_regs`: the argument registers back from the frame.
    fn restore_regs(&mut self, m: &BtfFuncModel, mut stack_size: i32) {
        let mut nr_regs = 0;
        for i in 0..m.nr_args().min(MAX_BPF_FUNC_ARGS) {
            let arg_regs = (i32::from(m.arg_size[i]) + 7) / 8;
            if nr_regs + arg_regs <= 6 {
                for _ in 0..arg_regs {
                    self.ldx_fp(arg_reg(nr_regs), -stack_size);
                    stack_size -= 8;
                    nr_regs += 1;
                }
            } else {
                stack_size -= 8 * arg_regs;
            }
            if nr_regs >= 6 {
                break;
            }
        }
    }

    /// `invoke_bpf_prog`: one program between its enter and exit functions.
    #[allow(clippy::too_many_arguments)]
    fn invoke_bpf_prog(
        &mut self,
        node: &TrampNode,
        ptr: HeapPtr,
        stack_size: i32,
        run_ctx_off: i32,
        run_ctx: RunCtxLayout,
        save_ret: bool,
    ) -> Result<(), TrampError> {
        let (enter, exit) = match node.enter {
            ProgEnter::Recur => (self.addrs.bpf_prog_enter_recur, self.addrs.bpf_prog_exit_recur),
            ProgEnter::SleepableRecur => (self.addrs.bpf_prog_enter_sleepable_recur, self.addrs.bpf_prog_exit_sleepable_recur),
            ProgEnter::Plain => (self.addrs.bpf_prog_enter, self.addrs.bpf_prog_exit),
        };
        // the nop bpf_tramp_image_add_skip patches to skip a detached program
        self.e.nops(X86_PATCH_SIZE);
        mov_imm64(&mut self.e, Reg::RDI, node.cookie);
        self.stx_fp(Reg::RDI, -run_ctx_off + run_ctx.bpf_cookie as i32);
        self.mov_heap_ptr(Reg::RDI, node.prog, ptr);
        self.lea_fp(0x75, -run_ctx_off);
        self.emit_rsb_call(enter)?;
        self.e.mov_rr(true, Reg::RBX, Reg::RAX);
        self.e.bytes(&[0x48, 0x85, 0xc0]);
        let jmp_insn = self.e.len();
        self.e.nops(2);
        self.lea_fp(0x7d, -stack_size);
        self.emit_rsb_call(node.bpf_func)?;
        if save_ret {
            self.stx_fp(Reg::RAX, -8);
        }
        let skip = self.e.len() - jmp_insn - 2;
        self.e.buf[jmp_insn] = 0x74;
        self.e.buf[jmp_insn + 1] = skip as u8;
        self.mov_heap_ptr(Reg::RDI, node.prog, ptr);
        self.e.mov_rr(true, Reg::RSI, Reg::RBX);
        self.lea_fp(0x55, -run_ctx_off);
        self.emit_rsb_call(exit)
    }

    /// `invoke_bpf`: the programs of one kind, in order.
    fn invoke_bpf(
        &mut self,
        nodes: &[TrampNode],
        kind: BpfTrampProgType,
        stack_size: i32,
        run_ctx_off: i32,
        run_ctx: RunCtxLayout,
        save_ret: bool,
    ) -> Result<(), TrampError> {
        for (i, n) in nodes.iter().enumerate() {
            self.invoke_bpf_prog(n, HeapPtr::Prog(kind, i), stack_size, run_ctx_off, run_ctx, save_ret)?;
        }
        Ok(())
    }

    /// `invoke_bpf_mod_ret`: each fmod_ret program, then 6 nops for the
    /// `jne do_fexit` taken when it returned non-zero. Returns where the
    /// nops are.
    fn invoke_bpf_mod_ret(&mut self, nodes: &[TrampNode], stack_size: i32, run_ctx_off: i32, run_ctx: RunCtxLayout) -> Result<Vec<usize>, TrampError> {
        // the first program would otherwise see a garbage return value
        emit_mov_imm32(&mut self.e, false, Reg::RAX, 0);
        self.stx_fp(Reg::RAX, -8);
        let mut branches = Vec::new();
        for (i, n) in nodes.iter().enumerate() {
            self.invoke_bpf_prog(n, HeapPtr::Prog(BpfTrampProgType::ModifyReturn, i), stack_size, run_ctx_off, run_ctx, true)?;
            // cmp qword ptr [rbp - 8], 0
            self.e.bytes(&[0x48, 0x83, 0x7d, 0xf8, 0x00]);
            branches.push(self.e.len());
            self.e.nops(4 + 2);
        }
        Ok(branches)
    }
}

/// The register of argument register `n` (`BPF_REG_1 + n`, r9 for the 6th).
fn arg_reg(n: i32) -> Reg {
    [Reg::RDI, Reg::RSI, Reg::RDX, Reg::RCX, Reg::R8, Reg::R9][n.clamp(0, 5) as usize]
}

/// `get_nr_used_regs`: argument registers the function's arguments take.
fn get_nr_used_regs(m: &BtfFuncModel) -> i32 {
    let mut nr_used_regs = 0;
    for i in 0..m.nr_args().min(MAX_BPF_FUNC_ARGS) {
        let arg_regs = (i32::from(m.arg_size[i]) + 7) / 8;
        if nr_used_regs + arg_regs <= 6 {
            nr_used_regs += arg_regs;
        }
        if nr_used_regs >= 6 {
            break;
        }
    }
    nr_used_regs
}

/// `arch_prepare_bpf_trampoline`: the trampoline of function `addrs.func`
/// (model `m`) running `nodes` with `flags`, placed at `addrs.image`.
pub fn arch_prepare_bpf_trampoline(
    profile: &X86Profile,
    run_ctx: RunCtxLayout,
    m: &BtfFuncModel,
    flags: TrampFlags,
    nodes: &TrampNodes,
    addrs: &TrampAddrs,
) -> Result<TrampImage, TrampError> {
    // bpf_tramp_arena_base: only programs of an arena convert arguments
    if m.arg_flags.iter().any(|f| f.arena) {
        return Err(TrampError::Unsupported("__arena arguments (emit_arena_arg_conv)"));
    }
    let nr_regs = m.nr_args() as i32 + m.arg_size.iter().map(|&s| (i32::from(s) + 7) / 8 - 1).sum::<i32>();
    if nr_regs > MAX_BPF_FUNC_ARGS as i32 {
        return Err(TrampError::TooManyArgs(nr_regs as usize));
    }
    let mut t = Tramp { e: Emitter::new(), profile, addrs, heap_refs: Vec::new() };

    let save_ret = flags.call_orig || flags.ret_fentry_ret;
    let mut stack_size = if save_ret { 8 } else { 0 };
    stack_size += nr_regs * 8;
    let regs_off = stack_size;
    stack_size += 8;
    let func_meta_off = stack_size;
    if flags.ip_arg {
        stack_size += 8;
    }
    let ip_off = stack_size;
    // no session cookies
    stack_size += 8;
    let rbx_off = stack_size;
    stack_size += (run_ctx.size as i32 + 7) & !7;
    let run_ctx_off = stack_size;
    if nr_regs > 6 && flags.call_orig {
        stack_size += (nr_regs - get_nr_used_regs(m)) * 8;
        // 16-byte aligned rsp at the original call: the traced function's
        // call left a return address unless it jumped here
        if flags.use_jmp() {
            stack_size += if stack_size % 16 != 0 { 8 } else { 0 };
        } else {
            stack_size += if stack_size % 16 != 0 { 0 } else { 8 };
        }
    }
    let arg_stack_off = stack_size;

    let mut orig_call = addrs.func;
    if flags.call_orig {
        // past the patched call (and the endbr64 before it)
        if addrs.func_endbr {
            orig_call += ENDBR_INSN_SIZE;
        }
        orig_call += X86_PATCH_SIZE as u64;
    }

    if flags.indirect {
        // emit_cfi without kCFI/FineIBT: an endbr64 on IBT kernels
        if profile.ibt {
            t.e.endbr64();
        }
    }
    t.e.push(Reg::RBP);
    t.e.mov_rr(true, Reg::RBP, Reg::RSP);
    if is_imm8(stack_size as i64) {
        t.e.bytes(&[0x48, 0x83, 0xec, stack_size as u8]);
    } else {
        t.e.bytes(&[0x48, 0x81, 0xec]);
        t.e.imm32(stack_size);
    }
    if flags.tail_call_ctx {
        t.e.push(Reg::RAX);
    }
    t.stx_fp(Reg::RBX, -rbx_off);
    let func_meta = nr_regs as u64;
    t.emit_store_stack_imm64(Reg::RAX, -func_meta_off, func_meta);
    if flags.ip_arg {
        t.emit_store_stack_imm64(Reg::RAX, -ip_off, addrs.func);
    }
    t.save_args(m, regs_off, false, flags);

    if flags.call_orig {
        t.mov_heap_ptr(Reg::RDI, addrs.im, HeapPtr::Im);
        t.emit_rsb_call(addrs.bpf_tramp_enter)?;
    }
    if !nodes.fentry.is_empty() {
        t.invoke_bpf(&nodes.fentry, BpfTrampProgType::Fentry, regs_off, run_ctx_off, run_ctx, flags.ret_fentry_ret)?;
    }
    let branches = if nodes.fmod_ret.is_empty() { Vec::new() } else { t.invoke_bpf_mod_ret(&nodes.fmod_ret, regs_off, run_ctx_off, run_ctx)? };

    if flags.call_orig {
        t.restore_regs(m, regs_off);
        t.save_args(m, arg_stack_off, true, flags);
        if flags.tail_call_ctx {
            load_tcc_ptr(&mut t.e, -((stack_size + 7) & !7) - 8);
        }
        if flags.orig_stack {
            t.ldx_fp(Reg::RBX, 8);
            t.e.bytes(&[0xff, 0xd3]); // call *rbx
        } else {
            t.emit_rsb_call(orig_call)?;
        }
        t.stx_fp(Reg::RAX, -8);
    }

    if !branches.is_empty() {
        // do_fexit: a 16-byte aligned branch target
        let pad = (16 - t.e.len() % 16) % 16;
        t.e.nops(pad);
        let do_fexit = t.e.len();
        for b in branches {
            let rel = do_fexit as i64 - (b as i64 + 6);
            t.e.buf[b..b + 2].copy_from_slice(&[0x0f, 0x85]);
            t.e.buf[b + 2..b + 6].copy_from_slice(&(rel as i32).to_le_bytes());
        }
    }

    if !nodes.fexit.is_empty() {
        t.invoke_bpf(&nodes.fexit, BpfTrampProgType::Fexit, regs_off, run_ctx_off, run_ctx, false)?;
    }
    if flags.restore_regs {
        t.restore_regs(m, regs_off);
    }
    if flags.call_orig {
        t.mov_heap_ptr(Reg::RDI, addrs.im, HeapPtr::Im);
        t.emit_rsb_call(addrs.bpf_tramp_exit)?;
    } else if flags.tail_call_ctx {
        load_tcc_ptr(&mut t.e, -((stack_size + 7) & !7) - 8);
    }
    if save_ret {
        t.ldx_fp(Reg::RAX, -8);
    }
    t.ldx_fp(Reg::RBX, -rbx_off);
    t.e.byte(0xc9); // leave
    if flags.skip_frame {
        t.e.bytes(&[0x48, 0x83, 0xc4, 0x08]); // add rsp, 8
    }
    let ip = t.ip();
    emit_return(t.profile, &mut t.e, ip);
    Ok(TrampImage { code: t.e.buf, heap_refs: t.heap_refs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endbr_and_its_seal() {
        assert!(is_endbr(&[0xf3, 0x0f, 0x1e, 0xfa, 0xe8]));
        assert!(is_endbr(&[0x0f, 0x1f, 0x40, 0xd6]));
        assert!(!is_endbr(&[0x0f, 0x1f, 0x44, 0x00, 0x00]));
        assert!(!is_endbr(&[0xf3]));
    }

    /// A fentry-only trampoline restores the argument registers and
    /// returns to the traced function: no call of it, no saved return value.
    #[test]
    fn fentry_only_frame() {
        let m = BtfFuncModel { arg_size: vec![8, 8], ..BtfFuncModel::default() };
        let mut nodes = TrampNodes::default();
        nodes.push(BpfTrampProgType::Fentry, TrampNode { bpf_func: 0xffff_ffff_c000_1000, prog: 0xffff_8880_0000_1000, ..TrampNode::default() });
        let flags = TrampFlags::bpf_trampoline_update(&nodes, false, false, false, DYNAMIC_FTRACE_WITH_JMP);
        let addrs = TrampAddrs { image: 0xffff_ffff_c000_0000, func: 0xffff_ffff_8100_0000, ..TrampAddrs::default() };
        let img = arch_prepare_bpf_trampoline(&X86Profile::default(), RunCtxLayout { size: 16, bpf_cookie: 0 }, &m, flags, &nodes, &addrs).unwrap();
        // push rbp; mov rbp, rsp; sub rsp, 2*8 + 8 + 8 + 16
        assert_eq!(img.code[..8], [0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x30]);
        // ... leave; ret; int3
        assert_eq!(img.code[img.code.len() - 3..], [0xc9, 0xc3, 0xcc]);
        assert_eq!(img.heap_refs.len(), 2);
        assert!(img.heap_refs.iter().all(|r| r.ptr == HeapPtr::Prog(BpfTrampProgType::Fentry, 0) && r.len == 8));
        let too_many = BtfFuncModel { arg_size: vec![16; 7], ..BtfFuncModel::default() };
        assert_eq!(
            arch_prepare_bpf_trampoline(&X86Profile::default(), RunCtxLayout { size: 16, bpf_cookie: 0 }, &too_many, flags, &nodes, &addrs),
            Err(TrampError::TooManyArgs(14))
        );
    }
}
