//! The x86-64 JIT of 7.3 (`arch/x86/net/bpf_jit_comp.c`): per function,
//! `bpf_int_jit_compile` runs `do_jit` until the image stops shrinking
//! (jumps start out as rel32 on a 64-bytes-per-insn estimate and turn into
//! rel8 as the addresses settle), then once more into the image; programs
//! with subprograms get an extra pass per function once every function's
//! address is known (`jit_subprogs`).
//!
//! Register mapping (`reg2hex`): r0 rax, r1 rdi, r2 rsi, r3 rdx, r4 rcx,
//! r5 r8, r6 rbx, r7 r13, r8 r14, r9 r15, r10 rbp; the blinding/scratch
//! register BPF_REG_AX is r10, the JIT's own scratch (`AUX_REG`) r11.
//!
//! Not modelled (no profile knob for them; the recorded 7.3 kernel uses
//! none):
//! call depth tracking, kCFI/FineIBT preambles, and classic BPF programs'
//! prologue and Spectre-BHB barrier. Arena accesses without the arena's
//! address are refused ([`JitError::Unsupported`]).

pub mod encoder;
pub mod trampoline;

use bpf_isa::Insn;
use bpf_isa::insn::{BPF_REG_FP, MAX_BPF_REG};
use bpf_isa::op::*;
use encoder::{AluOp, Cond, Emitter, Reg, Rex, ShiftOp, Width, is_imm8, is_simm32};

use super::{JitFunc, JitProgram};
use crate::kernel_layout::{OFFSETOF_BPF_ARRAY_VALUE, OFFSETOF_BPF_MAP_MAX_ENTRIES, OFFSETOF_BPF_PROG_BPF_FUNC};
use crate::limits::MAX_TAIL_CALL_CNT;
use crate::target::PAGE_SIZE;

/// What of the kernel build and the CPU changes the code the JIT emits,
/// and the fixed addresses that stand in for the kernel's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct X86Profile {
    /// `CONFIG_X86_KERNEL_IBT`: `endbr64` at the entry and at the tail call
    /// entry (`EMIT_ENDBR`), with no kCFI/FineIBT preamble (`cfi_mode` off).
    pub ibt: bool,
    /// `cpu_wants_rethunk()`: returns go through `jmp x86_return_thunk`.
    pub rethunk: bool,
    /// `CONFIG_MITIGATION_SLS`: `int3` after `ret` and after indirect jumps.
    pub sls: bool,
    /// How indirect jumps (tail calls, `gotox`) are emitted.
    pub indirect_jump: IndirectJump,
    /// `boot_cpu_has(X86_FEATURE_BMI2)`: shifts by a register use
    /// `shlx/shrx/sarx`.
    pub bmi2: bool,
    /// `__bpf_call_base`: helper call `imm`s are relative to it.
    pub bpf_call_base: u64,
    /// Where the model puts function `i`'s image: `image_base + i * image_stride`.
    pub image_base: u64,
    pub image_stride: u64,
    /// `&this_cpu_off` (the per-CPU offset `mov_percpu_addr` adds from %gs).
    pub this_cpu_off: u64,
    /// `x86_return_thunk` / `__x86_indirect_thunk_array`.
    pub return_thunk: u64,
    pub indirect_thunk_array: u64,
    /// `MODULES_VADDR`: the stand-in address `jit_subprogs` gives pseudo
    /// func loads before the functions have images.
    pub modules_vaddr: u64,
    /// `TASK_SIZE_MAX` (4-level paging) for the `BPF_PROBE_MEM` range check.
    pub task_size_max: u64,
    /// Where the model allocates private stacks (`__alloc_percpu_gfp`): a
    /// per-CPU pointer, which without KASLR fits a sign-extended imm32.
    pub priv_stack_ptr: u64,
}

/// `emit_indirect_jump` flavours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndirectJump {
    /// `jmp *%reg` (+ `int3` with SLS).
    Plain,
    /// `X86_FEATURE_RETPOLINE_LFENCE`: `lfence; jmp *%reg`.
    Lfence,
    /// `X86_FEATURE_RETPOLINE`: `jmp __x86_indirect_thunk_<reg>`.
    Retpoline,
}

impl Default for X86Profile {
    /// The Debian 7.3.4 amd64 kernel under QEMU (`-cpu max,la57=off`, no
    /// KASLR), the machine the recorded images come from.
    fn default() -> X86Profile {
        X86Profile {
            ibt: true,
            rethunk: false,
            sls: true,
            indirect_jump: IndirectJump::Retpoline,
            bmi2: true,
            bpf_call_base: 0xffff_ffff_8139_3c30,
            image_base: 0xffff_ffff_c000_0000,
            image_stride: 0x800,
            this_cpu_off: 0xffff_ffff_83f4_d030,
            return_thunk: 0xffff_ffff_8240_0000,
            indirect_thunk_array: 0xffff_ffff_823f_f000,
            modules_vaddr: 0xffff_ffff_a000_0000,
            task_size_max: (1u64 << 47) - 4096,
            priv_stack_ptr: 0xffff_ffff_83f7_3400,
        }
    }
}

/// Why a program could not be JITed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JitError {
    /// An instruction the JIT rejects (`bpf_jit: unknown opcode`, a zero
    /// call `imm`, 1/2-byte RMW atomics...).
    BadInsn { func: usize, insn: usize, code: u8, why: &'static str },
    /// Something 7.3 JITs that the model does not (yet): arenas, stack
    /// arguments, indirect jump tables.
    Unsupported { func: usize, what: String },
    /// `do_jit` did not converge in `MAX_PASSES`.
    NoConvergence { func: usize },
    /// The final pass changed the image size (`bpf_jit: proglen != oldproglen`).
    SizeChanged { func: usize, old: usize, new: usize },
}

impl std::fmt::Display for JitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JitError::BadInsn { func, insn, code, why } => write!(f, "func #{func} insn {insn} (code {code:#04x}): {why}"),
            JitError::Unsupported { func, what } => write!(f, "func #{func}: not modelled: {what}"),
            JitError::NoConvergence { func } => write!(f, "func #{func}: JIT did not converge in {MAX_PASSES} passes"),
            JitError::SizeChanged { func, old, new } => write!(f, "func #{func}: bpf_jit: proglen={new} != oldproglen={old}"),
        }
    }
}

impl std::error::Error for JitError {}

const MAX_PASSES: usize = 20;
/// After this many passes jumps stop shrinking (nops pad them instead).
const PADDING_PASSES: usize = MAX_PASSES - 5;
/// `X86_PATCH_SIZE`: a `call`/`jmp rel32`, or the nop5 reserved for them.
const X86_PATCH_SIZE: usize = 5;
const VSYSCALL_ADDR: u64 = 0xffff_ffff_ff60_0000;
/// Private stacks: a guard word below and above each frame.
const PRIV_STACK_GUARD_SZ: u64 = 8;

/// The JIT's scratch registers.
const AUX_REG: Reg = Reg::R11;
const REG_AX: Reg = Reg::R10;

/// `reg2hex` of BPF registers 0..=10 and BPF_REG_AX.
fn bpf_reg(r: u8) -> Option<Reg> {
    Some(match r {
        0 => Reg::RAX,
        1 => Reg::RDI,
        2 => Reg::RSI,
        3 => Reg::RDX,
        4 => Reg::RCX,
        5 => Reg::R8,
        6 => Reg::RBX,
        7 => Reg::R13,
        8 => Reg::R14,
        9 => Reg::R15,
        10 => Reg::RBP,
        12 => REG_AX,
        _ => return None,
    })
}

fn round_up8(v: u32) -> u32 {
    // no overflow on absurd depths (the verifier caps them at 512)
    ((v as u64 + 7) & !7) as u32
}

fn width(code: u8) -> Width {
    match size(code) {
        BPF_B => Width::B,
        BPF_H => Width::H,
        BPF_W => Width::W,
        _ => Width::Dw,
    }
}

/// `jit_context`: labels a pass learns and the next one uses.
#[derive(Clone, Copy, Debug, Default)]
struct JitContext {
    cleanup_addr: i64,
    tail_call_direct_label: i64,
    tail_call_indirect_label: i64,
}

/// One function being JITed: its (patched) instructions, the per-insn end
/// offsets of the last pass (`addrs`) and the labels.
struct FuncJit<'a> {
    idx: usize,
    func: &'a JitFunc,
    insns: Vec<Insn>,
    profile: &'a X86Profile,
    is_subprog: bool,
    image_addr: u64,
    addrs: Vec<i64>,
    ctx: JitContext,
    proglen: usize,
    /// The program's arena (`kern_vm_start`, `user_vm_start`; 0: none)
    /// and its kfuncs' argument flags.
    arena_vm_start: u64,
    user_vm_start: u64,
    kfunc_models: &'a [super::KfuncModel],
    /// Direct tail calls (poke numbers) whose slot holds this program, and
    /// where its image (`bpf_func`) is.
    self_pokes: &'a [u32],
    prog_func: u64,
    /// The exception table of the last pass (`bpf_prog->aux->extable`).
    extable: Vec<ExTableEntry>,
}

/// One entry of a function's exception table (`struct
/// exception_table_entry` with `EX_TYPE_BPF`, as `do_jit`'s
/// `populate_extable` fills it for `BPF_PROBE_MEM32`/`BPF_PROBE_ATOMIC`
/// accesses): `ex_handler_bpf` clears `clear` (if any) and resumes `len`
/// bytes after the faulting instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExTableEntry {
    /// The faulting instruction's offset in the function's image.
    pub insn: usize,
    /// Its length (`FIXUP_INSN_LEN_MASK`).
    pub len: u8,
    /// The register the fixup zeroes (`FIXUP_REG_MASK`; `None`: `DONT_CLEAR`).
    pub clear: Option<Reg>,
    /// The access writes the arena (`FIXUP_ARENA_WRITE`).
    pub write: bool,
}

/// JITs every function of `prog` the way `jit_subprogs` (or, for a single
/// function, `bpf_prog_select_runtime`) drives `bpf_int_jit_compile`; one
/// image per function.
pub fn bpf_int_jit_compile(prog: &JitProgram, profile: &X86Profile) -> Result<Vec<Vec<u8>>, JitError> {
    bpf_int_jit_compile_extable(prog, profile).map(|(images, _)| images)
}

/// Per function: its image, and its exception table.
pub type ImagesAndExTables = (Vec<Vec<u8>>, Vec<Vec<ExTableEntry>>);

/// [`bpf_int_jit_compile`], and each function's exception table (the
/// faulting instructions of its arena accesses and their fixups): what a
/// native run needs to handle a fault as the kernel's `ex_handler_bpf`.
pub fn bpf_int_jit_compile_extable(prog: &JitProgram, profile: &X86Profile) -> Result<ImagesAndExTables, JitError> {
    let func_addr = |i: usize| profile.image_base.wrapping_add(profile.image_stride.wrapping_mul(i as u64));
    let multi = prog.funcs.len() > 1;
    let mut jits = Vec::with_capacity(prog.funcs.len());
    for (idx, func) in prog.funcs.iter().enumerate() {
        let mut insns = func.insns.clone();
        if multi {
            // jit_subprogs: calls point at __bpf_call_base + 1 and pseudo
            // func loads at MODULES_VADDR until every function has an image
            let mut k = 0;
            while k < insns.len() {
                let i = insns[k];
                if i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL {
                    insns[k].imm = 1;
                } else if i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC && k + 1 < insns.len() {
                    insns[k].imm = profile.modules_vaddr as u32 as i32;
                    insns[k + 1].imm = (profile.modules_vaddr >> 32) as u32 as i32;
                }
                k += if i.is_ld_imm64() { 2 } else { 1 };
            }
        }
        let mut jit = FuncJit {
            idx,
            func,
            insns,
            profile,
            is_subprog: idx > 0,
            image_addr: func_addr(idx),
            addrs: Vec::new(),
            ctx: JitContext::default(),
            proglen: 0,
            arena_vm_start: prog.arena_vm_start,
            user_vm_start: prog.user_vm_start,
            kfunc_models: &prog.kfunc_models,
            self_pokes: &prog.self_pokes,
            prog_func: func_addr(0),
            extable: Vec::new(),
        };
        jit.check_supported()?;
        let image = jit.converge()?;
        jits.push((jit, image));
    }
    if !multi {
        return Ok(jits.into_iter().map(|(jit, image)| (image, jit.extable)).unzip());
    }
    // the callees' addresses are known: the last pass of every function
    let mut images = Vec::with_capacity(jits.len());
    let mut extables = Vec::with_capacity(jits.len());
    for (mut jit, _) in jits {
        let mut k = 0;
        while k < jit.insns.len() {
            let i = jit.insns[k];
            let orig = jit.func.insns[k];
            // the callee by where it starts
            let callee = |rel: i64| {
                let at = (jit.func.start + k) as i64 + rel + 1;
                prog.funcs.iter().position(|f| f.start as i64 == at).unwrap_or(0)
            };
            if i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL {
                // relative in imm as jit_subprogs leaves it (the dump's
                // callee index may be zeroed, the offset is not)
                let target = func_addr(callee(orig.imm as i64));
                jit.insns[k].imm = target.wrapping_sub(profile.bpf_call_base) as i32;
            } else if i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC && k + 1 < jit.insns.len() {
                let target = func_addr(callee(orig.imm as i64));
                jit.insns[k].imm = target as u32 as i32;
                jit.insns[k + 1].imm = (target >> 32) as u32 as i32;
            }
            k += if i.is_ld_imm64() { 2 } else { 1 };
        }
        let old = jit.proglen;
        let image = jit.do_jit(true)?;
        if image.len() != old {
            return Err(JitError::SizeChanged { func: jit.idx, old, new: image.len() });
        }
        images.push(image);
        extables.push(std::mem::take(&mut jit.extable));
    }
    Ok((images, extables))
}

impl FuncJit<'_> {
    fn unsupported(&self, what: impl Into<String>) -> JitError {
        JitError::Unsupported { func: self.idx, what: what.into() }
    }

    /// What the model leaves out, refused up front rather than emitted wrong.
    fn check_supported(&self) -> Result<(), JitError> {
        for i in &self.insns {
            let m = mode(i.code);
            let cls = class(i.code);
            // BPF_REG_PARAMS (r11) only names stack arguments: stored by
            // ST/STX, loaded by LDX
            let params_ok = match cls {
                BPF_ST | BPF_STX => i.src != MAX_BPF_REG && (m == BPF_MEM || i.dst != MAX_BPF_REG),
                BPF_LDX => i.dst != MAX_BPF_REG && (matches!(m, BPF_MEM | BPF_MEMSX | BPF_PROBE_MEM | BPF_PROBE_MEMSX) || i.src != MAX_BPF_REG),
                _ => i.dst != MAX_BPF_REG && i.src != MAX_BPF_REG,
            };
            if !params_ok {
                return Err(self.bad(0, "BPF_REG_PARAMS outside a stack argument access"));
            }
            let arena_access = (cls == BPF_LDX || cls == BPF_ST || cls == BPF_STX)
                && (m == BPF_PROBE_MEM32 || m == BPF_PROBE_MEM32SX && cls == BPF_LDX || m == BPF_PROBE_ATOMIC && cls == BPF_STX);
            if arena_access && self.arena_vm_start == 0 {
                return Err(self.unsupported("arena accesses without the arena's address"));
            }
        }
        Ok(())
    }

    /// The passes of `bpf_int_jit_compile` up to, and including, the pass
    /// into the image.
    fn converge(&mut self) -> Result<Vec<u8>, JitError> {
        let n = self.insns.len();
        // before the first pass: every insn takes 64 bytes
        self.addrs = (0..=n).map(|i| 64 * (i as i64 + 1)).collect();
        self.ctx.cleanup_addr = 64 * (n as i64 + 1);
        let mut oldproglen = 0;
        let mut padding = false;
        let mut image = false;
        let mut pass = 0;
        while pass < MAX_PASSES || image {
            if !padding && pass >= PADDING_PASSES {
                padding = true;
            }
            let out = self.do_jit(padding)?;
            let len = out.len();
            if image {
                if len != oldproglen {
                    return Err(JitError::SizeChanged { func: self.idx, old: oldproglen, new: len });
                }
                self.proglen = len;
                return Ok(out);
            }
            if len == oldproglen {
                image = true;
            }
            oldproglen = len;
            pass += 1;
        }
        Err(JitError::NoConvergence { func: self.idx })
    }

    /// `populate_extable`: the arena access just emitted at `insn` (image
    /// offset), `len` bytes long, faults into `ex_handler_bpf`. Recorded
    /// next to the image, which it leaves unchanged.
    fn populate_extable(&mut self, insn: usize, len: usize, clear: Option<Reg>, write: bool) {
        self.extable.push(ExTableEntry { insn, len: len as u8, clear, write });
    }

    fn bad(&self, insn: usize, why: &'static str) -> JitError {
        JitError::BadInsn { func: self.idx, insn, code: self.insns.get(insn).map_or(0, |i| i.code), why }
    }

    /// `emit_prologue`
    fn emit_prologue(&self, e: &mut Emitter, stack_depth: u32) {
        let f = self.func;
        if self.profile.ibt {
            e.endbr64();
        }
        // the trampoline's patch site
        e.nops(X86_PATCH_SIZE);
        if f.tail_call_reachable && !self.is_subprog {
            // initialises tail_call_cnt
            e.bytes(&[0x48, 0x31, 0xc0]);
        } else {
            e.nops(3);
        }
        if f.exception_cb {
            // the exception callback reuses the main frame: rsp = arg2, rbp = arg3
            e.bytes(&[0x48, 0x89, 0xf4, 0x48, 0x89, 0xd5]);
            pop_callee_regs(e, [true; 4]);
            e.pop(Reg::R12);
            e.bytes(&[0x48, 0x89, 0xec]);
        } else {
            e.push(Reg::RBP);
            e.mov_rr(true, Reg::RBP, Reg::RSP);
        }
        // X86_TAIL_CALL_OFFSET: tail calls enter here
        if self.profile.ibt {
            e.endbr64();
        }
        if stack_depth != 0 {
            // always the imm32 form
            e.alu_ri32(AluOp::Sub, true, Reg::RSP, round_up8(stack_depth) as i32);
        }
        if f.tail_call_reachable {
            if !self.is_subprog {
                // rax is tail_call_cnt (<= MAX) at the entry, or a pointer to
                // it when a subprogram tail-called into this program
                e.bytes(&[0x48, 0x83, 0xf8, MAX_TAIL_CALL_CNT as u8]);
                e.jcc8(Cond::A, 6);
                e.push(Reg::RAX);
                e.mov_rr(true, Reg::RAX, Reg::RSP);
                e.jmp8(1);
                e.push(Reg::RAX);
                e.push(Reg::RAX);
            } else {
                e.push(Reg::RAX);
                e.push(Reg::RAX);
            }
        }
    }

    fn emit_return(&self, e: &mut Emitter, ip: u64) {
        emit_return(self.profile, e, ip);
    }

    /// `emit_indirect_jump`
    fn emit_indirect_jump(&self, e: &mut Emitter, r: Reg, ip: u64) {
        match self.profile.indirect_jump {
            IndirectJump::Lfence => {
                e.lfence();
                e.jmp_reg(r);
            }
            IndirectJump::Retpoline => {
                let thunk = self.profile.indirect_thunk_array + 32 * r.num() as u64;
                e.jmp32(rel32(thunk, ip));
            }
            IndirectJump::Plain => {
                e.jmp_reg(r);
                if self.profile.sls {
                    e.byte(0xcc);
                }
            }
        }
    }

    fn pop_frame_regs(&self, e: &mut Emitter, used: [bool; 4]) {
        if self.func.exception_boundary {
            pop_callee_regs(e, [true; 4]);
            e.pop(Reg::R12);
        } else {
            pop_callee_regs(e, used);
            if self.arena_vm_start != 0 {
                e.pop(Reg::R12);
            }
        }
    }

    /// `emit_kfunc_arena_args`: `__arena` pointer arguments of a kfunc are
    /// rebased on the arena (r12) from their 32-bit arena offset. A kfunc
    /// without a known model has none.
    fn emit_kfunc_arena_args(&self, e: &mut Emitter, insn: &Insn) {
        let Some(m) = self.kfunc_models.iter().find(|m| m.imm == insn.imm && m.off == insn.off) else { return };
        for (k, flags) in m.arg_flags.iter().take(5).enumerate() {
            if flags & super::BTF_FMODEL_ARENA_ARG == 0 {
                continue;
            }
            let Some(r) = bpf_reg(1 + k as u8) else { continue };
            // truncate to the arena offset
            e.mov_rr(false, r, r);
            if flags & super::BTF_FMODEL_NULLABLE_ARG != 0 {
                // NULL stays NULL: jump over the 3-byte add
                e.test_rr(false, r, r);
                e.jcc8(Cond::E, 3);
            }
            e.alu_rr(AluOp::Add, true, r, Reg::R12);
        }
    }

    /// `emit_bpf_tail_call_indirect`: `rdi` ctx, `rsi` the prog array,
    /// `rdx` the index.
    fn emit_tail_call_indirect(&mut self, e: &mut Emitter, used: [bool; 4], stack_depth: u32, ip: u64) {
        let start = e.len() as i64;
        let label = self.ctx.tail_call_indirect_label;
        let tcc_ptr_off = tail_call_cnt_ptr_off(stack_depth);
        // if (index >= array->map.max_entries) goto out
        e.mov_rr(false, Reg::RDX, Reg::RDX);
        e.alu_mr(AluOp::Cmp, false, Reg::RSI, OFFSETOF_BPF_MAP_MAX_ENTRIES as i32, Reg::RDX);
        let off = label - (e.len() as i64 + 2 - start);
        e.jcc8(Cond::Be, off as i8);
        // if ((*tcc_ptr)++ >= MAX_TAIL_CALL_CNT) goto out
        load_tcc_ptr(e, tcc_ptr_off);
        e.bytes(&[0x48, 0x83, 0x38, MAX_TAIL_CALL_CNT as u8]);
        let off = label - (e.len() as i64 + 2 - start);
        e.jcc8(Cond::Ae, off as i8);
        // prog = array->ptrs[index]: mov rcx, [rsi + rdx*8 + ptrs]
        e.bytes(&[0x48, 0x8b, 0x8c, 0xd6]);
        e.imm32(OFFSETOF_BPF_ARRAY_VALUE as i32);
        // if (prog == NULL) goto out
        e.test_rr(true, Reg::RCX, Reg::RCX);
        let off = label - (e.len() as i64 + 2 - start);
        e.jcc8(Cond::E, off as i8);
        // the slot is populated: count the call
        e.bytes(&[0x48, 0x83, 0x00, 0x01]);
        self.pop_frame_regs(e, used);
        // tail_call_cnt_ptr, then tail_call_cnt (main) or its pointer (subprog)
        e.pop(Reg::RAX);
        e.pop(Reg::RAX);
        if stack_depth != 0 {
            e.alu_ri32(AluOp::Add, true, Reg::RSP, round_up8(stack_depth) as i32);
        }
        // goto *(prog->bpf_func + X86_TAIL_CALL_OFFSET)
        e.load(Width::Dw, Reg::RCX, Reg::RCX, OFFSETOF_BPF_PROG_BPF_FUNC as i32);
        e.alu_ri(AluOp::Add, true, Reg::RCX, self.tail_call_offset());
        let here = ip.wrapping_add((e.len() as i64 - start) as u64);
        self.emit_indirect_jump(e, Reg::RCX, here);
        self.ctx.tail_call_indirect_label = e.len() as i64 - start;
    }

    /// `emit_bpf_tail_call_direct`: a poke site. With no program in the
    /// slot it jumps over the nop5 that would become `jmp target`; with
    /// one (`target`: its `bpf_func + X86_TAIL_CALL_OFFSET`), as
    /// `prog_array_map_poke_run` patched it, the bypass is the nop5 and
    /// the nop5 the jump.
    fn emit_tail_call_direct(&mut self, e: &mut Emitter, used: [bool; 4], stack_depth: u32, ip: u64, target: Option<u64>) {
        let start = e.len() as i64;
        let label = self.ctx.tail_call_direct_label;
        let tcc_ptr_off = tail_call_cnt_ptr_off(stack_depth);
        load_tcc_ptr(e, tcc_ptr_off);
        e.bytes(&[0x48, 0x83, 0x38, MAX_TAIL_CALL_CNT as u8]);
        let off = label - (e.len() as i64 + 2 - start);
        e.jcc8(Cond::Ae, off as i8);
        // the bypass: jmp to right after the nop5 at `label - 5`
        let off = label - (e.len() as i64 - start) - X86_PATCH_SIZE as i64;
        if target.is_some() {
            e.nops(X86_PATCH_SIZE);
        } else {
            e.jmp32(off as i32);
        }
        e.bytes(&[0x48, 0x83, 0x00, 0x01]);
        self.pop_frame_regs(e, used);
        e.pop(Reg::RAX);
        e.pop(Reg::RAX);
        if stack_depth != 0 {
            e.alu_ri32(AluOp::Add, true, Reg::RSP, round_up8(stack_depth) as i32);
        }
        match target {
            Some(t) => {
                let here = ip.wrapping_add((e.len() as i64 - start) as u64);
                e.jmp32(rel32(t, here));
            }
            None => e.nops(X86_PATCH_SIZE),
        }
        self.ctx.tail_call_direct_label = e.len() as i64 - start;
    }

    /// `X86_TAIL_CALL_OFFSET`: the prologue bytes a tail call skips.
    fn tail_call_offset(&self) -> i32 {
        12 + if self.profile.ibt { 4 } else { 0 }
    }

    /// One pass of `do_jit`: the whole image, `addrs` and the labels
    /// updated as the kernel updates them (in place, so forward jumps see
    /// the previous pass and backward jumps this one).
    fn do_jit(&mut self, padding: bool) -> Result<Vec<u8>, JitError> {
        let f = self.func;
        let mut stack_depth = f.stack_depth;
        let priv_frame = f.jits_use_priv_stack;
        if priv_frame {
            stack_depth = 0;
        }
        let mut used = [false; 4];
        for i in &self.insns {
            for r in [i.dst, i.src] {
                if (6..=9).contains(&r) {
                    used[(r - 6) as usize] = true;
                }
            }
        }
        let mut image = Vec::new();
        self.extable.clear();
        let mut e = Emitter::new();
        self.emit_prologue(&mut e, stack_depth);
        if f.exception_boundary {
            // r12 too: the throw enters the kernel, which may clobber it
            e.push(Reg::R12);
            push_callee_regs(&mut e, [true; 4]);
        } else {
            if self.arena_vm_start != 0 {
                e.push(Reg::R12);
            }
            push_callee_regs(&mut e, used);
        }
        // outgoing stack arguments 7+ sit at [rsp], below the saved registers
        let outgoing_rsp = u32::from(f.out_stack_arg_cnt.saturating_sub(1)) * 8;
        let callee_saved =
            if f.exception_boundary { 40 } else { 8 * used.iter().filter(|u| **u).count() as u32 + if self.arena_vm_start != 0 { 8 } else { 0 } };
        let outgoing_arg_base = -(round_up8(stack_depth) as i64 + callee_saved as i64);
        emit_rsp_adjust(&mut e, AluOp::Sub, outgoing_rsp);
        if self.arena_vm_start != 0 {
            // r12 holds the arena's kernel base for every arena access
            mov_imm64(&mut e, Reg::R12, self.arena_vm_start);
        }
        if priv_frame {
            // r9 = this CPU's frame: movabs r9, priv_frame_ptr; add r9, gs:[this_cpu_off]
            let frame = self.profile.priv_stack_ptr.wrapping_add(PRIV_STACK_GUARD_SZ + round_up8(f.stack_depth) as u64);
            mov_imm64(&mut e, Reg::R9, frame);
            e.bytes(&[0x65, 0x4c, 0x03, 0x0c, 0x25]);
            e.imm32(self.profile.this_cpu_off as u32 as i32);
        }
        image.extend_from_slice(&e.buf);
        self.addrs[0] = image.len() as i64;
        let mut seen_exit = false;
        let n = self.insns.len();
        let mut i = 1;
        while i <= n {
            let insn = self.insns[i - 1];
            let mut e = Emitter::new();
            let map = |r: u8| -> Result<Reg, JitError> {
                // stack arguments live around rbp (or in r9, handled below)
                let x = if priv_frame && r == BPF_REG_FP {
                    Some(Reg::R9)
                } else if r == MAX_BPF_REG {
                    Some(Reg::RBP)
                } else {
                    bpf_reg(r)
                };
                x.ok_or(JitError::BadInsn { func: self.idx, insn: i - 1, code: insn.code, why: "bad register" })
            };
            let dst = map(insn.dst)?;
            let src = map(insn.src)?;
            if self.profile.ibt && f.indirect_targets.contains(&(f.start + i - 1)) {
                e.endbr64();
            }
            let ip = self.image_addr.wrapping_add(self.addrs[i - 1] as u64 + e.len() as u64);
            let code = insn.code;
            let cls = class(code);
            let is64 = cls == BPF_ALU64 || cls == BPF_JMP;
            let imm = insn.imm;
            let alu_op = |op: u8| match op {
                BPF_ADD => AluOp::Add,
                BPF_SUB => AluOp::Sub,
                BPF_AND => AluOp::And,
                BPF_OR => AluOp::Or,
                _ => AluOp::Xor,
            };
            let shift_op = |op: u8| match op {
                BPF_LSH => ShiftOp::Shl,
                BPF_RSH => ShiftOp::Shr,
                _ => ShiftOp::Sar,
            };
            let mut consumed = 1;
            match (cls, op(code), src_bit(code)) {
                (BPF_ALU | BPF_ALU64, BPF_ADD | BPF_SUB | BPF_AND | BPF_OR | BPF_XOR, BPF_X) => {
                    e.alu_rr(alu_op(op(code)), is64, dst, src);
                }
                (BPF_ALU | BPF_ALU64, BPF_ADD | BPF_SUB | BPF_AND | BPF_OR | BPF_XOR, BPF_K) => {
                    e.alu_ri(alu_op(op(code)), is64, dst, imm);
                }
                (BPF_ALU64, BPF_MOV, BPF_X) if insn.off == BPF_ADDR_SPACE_CAST && insn.imm == 1 << 16 => {
                    // cast to the user view: (u32)src | user_vm_start's upper
                    // half, and 0 stays 0 (cmove from a zeroed r11)
                    if dst != src {
                        e.mov_rr(false, dst, src);
                    }
                    e.shift_ri(ShiftOp::Shl, true, dst, 32);
                    let upper = (self.user_vm_start >> 32) as u32 as i32;
                    if dst == Reg::RAX {
                        e.bytes(&[0x48, 0x0d]);
                        e.imm32(upper);
                    } else {
                        e.alu_ri32(AluOp::Or, true, dst, upper);
                    }
                    e.shift_ri(ShiftOp::Rol, true, dst, 32);
                    e.alu_rr(AluOp::Xor, true, AUX_REG, AUX_REG);
                    e.test_rr(false, dst, dst);
                    // cmove dst, r11
                    e.rex(Rex::W, Some(dst), None, Some(AUX_REG));
                    e.bytes(&[0x0f, 0x44]);
                    e.modrm_reg(dst.low(), AUX_REG);
                }
                (BPF_ALU64, BPF_MOV, BPF_X) if insn.off == BPF_ADDR_PERCPU => {
                    // dst = src + this CPU's offset (add dst, gs:[this_cpu_off])
                    e.mov_rr(true, dst, src);
                    e.byte(0x65);
                    e.rex(Rex::W, Some(dst), None, None);
                    e.bytes(&[0x03, 0x04 | dst.low() << 3, 0x25]);
                    e.imm32(self.profile.this_cpu_off as u32 as i32);
                }
                (BPF_ALU | BPF_ALU64, BPF_MOV, BPF_X) => {
                    if insn.off == 0 {
                        e.mov_rr(is64, dst, src);
                    } else if matches!(insn.off, 8 | 16 | 32) {
                        e.movsx_rr(insn.off as u8, is64, dst, src);
                    }
                }
                (BPF_ALU | BPF_ALU64, BPF_NEG, _) => e.neg(is64, dst),
                (BPF_ALU | BPF_ALU64, BPF_MOV, BPF_K) => emit_mov_imm32(&mut e, is64, dst, imm as u32),
                (BPF_LD, _, _) if code == BPF_LD | BPF_IMM | BPF_DW => {
                    let hi = self.insns.get(i).map(|n| n.imm).ok_or_else(|| self.bad(i - 1, "ld_imm64 without its second slot"))?;
                    let v = (hi as u32 as u64) << 32 | imm as u32 as u64;
                    let v = match insn.src {
                        // the dump names maps by index: the model's map addresses
                        BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX => map_kaddr(imm),
                        BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => map_kaddr(imm) + OFFSETOF_BPF_ARRAY_VALUE as u64 + hi as u32 as u64,
                        _ => v,
                    };
                    mov_imm64(&mut e, dst, v);
                    consumed = 2;
                }
                (BPF_ALU | BPF_ALU64, BPF_DIV | BPF_MOD, s) => {
                    // the dividend goes in rdx:rax; save what the op clobbers
                    if dst != Reg::RAX {
                        e.push(Reg::RAX);
                    }
                    if dst != Reg::RDX {
                        e.push(Reg::RDX);
                    }
                    let mut divisor = src;
                    if s == BPF_X {
                        if src == Reg::RAX || src == Reg::RDX {
                            e.mov_rr(true, AUX_REG, src);
                            divisor = AUX_REG;
                        }
                    } else {
                        e.mov_ri_sx(AUX_REG, imm);
                        divisor = AUX_REG;
                    }
                    if dst != Reg::RAX {
                        e.mov_rr(is64, Reg::RAX, dst);
                    }
                    if insn.off == 0 {
                        // xor edx, edx
                        e.bytes(&[0x31, 0xd2]);
                        e.div(false, is64, divisor);
                    } else {
                        e.sign_extend_rax(is64);
                        e.div(true, is64, divisor);
                    }
                    if op(code) == BPF_MOD && dst != Reg::RDX {
                        e.mov_rr(is64, dst, Reg::RDX);
                    } else if op(code) == BPF_DIV && dst != Reg::RAX {
                        e.mov_rr(is64, dst, Reg::RAX);
                    }
                    if dst != Reg::RDX {
                        e.pop(Reg::RDX);
                    }
                    if dst != Reg::RAX {
                        e.pop(Reg::RAX);
                    }
                }
                (BPF_ALU | BPF_ALU64, BPF_MUL, BPF_K) => e.imul_rri(is64, dst, dst, imm),
                (BPF_ALU | BPF_ALU64, BPF_MUL, BPF_X) => e.imul_rr(is64, dst, src),
                (BPF_ALU | BPF_ALU64, BPF_LSH | BPF_RSH | BPF_ARSH, BPF_K) => e.shift_ri(shift_op(op(code)), is64, dst, imm as u8),
                (BPF_ALU | BPF_ALU64, BPF_LSH | BPF_RSH | BPF_ARSH, BPF_X) => {
                    let sop = shift_op(op(code));
                    if self.profile.bmi2 && src != Reg::RCX {
                        // no gain when the count already is in cl
                        e.shiftx(sop, is64, dst, dst, src);
                    } else {
                        let mut d = dst;
                        if src != Reg::RCX {
                            if dst == Reg::RCX {
                                e.mov_rr(true, AUX_REG, dst);
                                d = AUX_REG;
                            } else {
                                e.push(Reg::RCX);
                            }
                            e.mov_rr(true, Reg::RCX, src);
                        }
                        e.shift_cl(sop, is64, d);
                        if src != Reg::RCX {
                            if dst == Reg::RCX {
                                e.mov_rr(true, dst, AUX_REG);
                            } else {
                                e.pop(Reg::RCX);
                            }
                        }
                    }
                }
                (BPF_ALU, BPF_END, BPF_TO_BE) | (BPF_ALU64, BPF_END, BPF_TO_LE) => match imm {
                    16 => {
                        e.ror16_ri(dst, 8);
                        e.movzx16_rr(dst, dst);
                    }
                    32 => e.bswap(false, dst),
                    64 => e.bswap(true, dst),
                    _ => return Err(self.bad(i - 1, "bad byte swap width")),
                },
                (BPF_ALU, BPF_END, BPF_TO_LE) => match imm {
                    16 => e.movzx16_rr(dst, dst),
                    32 => e.mov_rr(false, dst, dst),
                    64 => {}
                    _ => return Err(self.bad(i - 1, "bad byte swap width")),
                },
                (BPF_ST, _, _) if code == BPF_ST | BPF_NOSPEC => e.lfence(),
                (BPF_ST, _, _) if mode(code) == BPF_PROBE_MEM32 => {
                    let start = e.len();
                    e.store_imm_index(width(code), dst, Reg::R12, insn.off as i32, imm);
                    self.populate_extable(image.len() + start, e.len() - start, None, true);
                }
                (BPF_STX, _, _) if mode(code) == BPF_PROBE_MEM32 => {
                    let start = e.len();
                    e.store_index(width(code), dst, src, Reg::R12, insn.off as i32);
                    self.populate_extable(image.len() + start, e.len() - start, None, true);
                }
                (BPF_LDX, _, _) if mode(code) == BPF_PROBE_MEM32 || mode(code) == BPF_PROBE_MEM32SX => {
                    let sx = mode(code) == BPF_PROBE_MEM32SX;
                    if sx && size(code) == BPF_DW {
                        return Err(self.bad(i - 1, "bpf_jit: unknown opcode"));
                    }
                    let start = e.len();
                    e.load_index(width(code), sx, dst, src, Reg::R12, insn.off as i32);
                    self.populate_extable(image.len() + start, e.len() - start, Some(dst), false);
                }
                (BPF_STX, _, _) if mode(code) == BPF_PROBE_ATOMIC => {
                    let w = width(code);
                    let start = e.len();
                    // bpf_atomic_load_reg: what a faulting access zeroes
                    let (clear, write) = match imm {
                        BPF_LOAD_ACQ => (Some(dst), false),
                        BPF_CMPXCHG => (Some(Reg::RAX), true),
                        _ if imm & BPF_FETCH != 0 => (Some(src), true),
                        _ => (None, true),
                    };
                    if imm == BPF_LOAD_ACQ {
                        e.load_index(w, false, dst, src, Reg::R12, insn.off as i32);
                    } else if imm == BPF_STORE_REL {
                        e.store_index(w, dst, src, Reg::R12, insn.off as i32);
                    } else if matches!(w, Width::B | Width::H) {
                        return Err(self.bad(i - 1, "bpf_jit: 1- and 2-byte RMW atomics are not supported"));
                    } else if [BPF_ADD as i32, BPF_AND as i32, BPF_OR as i32, BPF_XOR as i32, BPF_ADD as i32 | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG].contains(&imm)
                    {
                        atomic_rmw_index(&mut e, imm, w == Width::Dw, dst, src, Reg::R12, insn.off as i32);
                    } else {
                        return Err(self.bad(i - 1, "bpf_jit: unknown atomic opcode"));
                    }
                    self.populate_extable(image.len() + start, e.len() - start, clear, write);
                }
                (BPF_ST | BPF_STX, _, _) if mode(code) == BPF_MEM && insn.dst == MAX_BPF_REG && insn.off == -8 && (cls == BPF_STX || size(code) == BPF_DW) => {
                    // the 6th argument goes in r9
                    if cls == BPF_ST {
                        mov_imm64(&mut e, Reg::R9, imm as i64 as u64);
                    } else {
                        e.mov_rr(true, Reg::R9, src);
                    }
                }
                (BPF_ST | BPF_STX, _, _) if mode(code) == BPF_MEM && insn.dst == MAX_BPF_REG => {
                    // BPF's r11-16, r11-24... are [rsp], [rsp+8]...: from rbp
                    let off = (outgoing_arg_base - outgoing_rsp as i64 - insn.off as i64 - 16) as i32;
                    if cls == BPF_ST {
                        e.store_imm(width(code), Reg::RBP, off, imm);
                    } else {
                        e.store(width(code), Reg::RBP, src, off);
                    }
                }
                (BPF_LDX, _, _) if insn.src == MAX_BPF_REG && insn.off == 8 => {
                    // the incoming 6th argument is r9
                    e.mov_rr(true, dst, Reg::R9);
                }
                (BPF_ST, _, _) if mode(code) == BPF_MEM => e.store_imm(width(code), dst, insn.off as i32, imm),
                (BPF_STX, _, _) if mode(code) == BPF_MEM => e.store(width(code), dst, src, insn.off as i32),
                (BPF_LDX, _, _) if matches!(mode(code), BPF_MEM | BPF_PROBE_MEM | BPF_MEMSX | BPF_PROBE_MEMSX) => {
                    let m = mode(code);
                    let probe = m == BPF_PROBE_MEM || m == BPF_PROBE_MEMSX;
                    let sx = m == BPF_MEMSX || m == BPF_PROBE_MEMSX;
                    if sx && size(code) == BPF_DW {
                        return Err(self.bad(i - 1, "bpf_jit: unknown opcode"));
                    }
                    let mut jmp_at = 0;
                    if probe {
                        // only load from kernel addresses:
                        // src + off > TASK_SIZE_MAX + PAGE_SIZE && < VSYSCALL_ADDR
                        let limit = self.profile.task_size_max.wrapping_add(PAGE_SIZE).wrapping_sub(VSYSCALL_ADDR);
                        mov_imm64(&mut e, REG_AX, VSYSCALL_ADDR);
                        e.mov_rr(true, AUX_REG, src);
                        if insn.off != 0 {
                            e.alu_ri32(AluOp::Add, true, AUX_REG, insn.off as i32);
                        }
                        e.alu_rr(AluOp::Sub, true, AUX_REG, REG_AX);
                        mov_imm64(&mut e, REG_AX, limit);
                        e.alu_rr(AluOp::Cmp, true, AUX_REG, REG_AX);
                        e.jcc8(Cond::A, 0);
                        let end_of_ja = e.len();
                        emit_mov_imm32(&mut e, false, dst, 0);
                        e.jmp8(0);
                        jmp_at = e.len();
                        e.buf[end_of_ja - 1] = (jmp_at - end_of_ja) as u8;
                    }
                    if sx {
                        e.load_sx(width(code), dst, src, insn.off as i32);
                    } else {
                        e.load(width(code), dst, src, insn.off as i32);
                    }
                    if probe {
                        e.buf[jmp_at - 1] = (e.len() - jmp_at) as u8;
                    }
                }
                (BPF_STX, _, _) if mode(code) == BPF_ATOMIC => {
                    let w = width(code);
                    let is_ld_st = imm == BPF_LOAD_ACQ || imm == BPF_STORE_REL;
                    if matches!(w, Width::B | Width::H) && !is_ld_st {
                        return Err(self.bad(i - 1, "bpf_jit: 1- and 2-byte RMW atomics are not supported"));
                    }
                    let fetch_logic = [BPF_AND as i32, BPF_OR as i32, BPF_XOR as i32].map(|o| o | BPF_FETCH);
                    if fetch_logic.contains(&imm) {
                        // no single x86 insn: a cmpxchg loop, r0 saved in r10
                        let is64 = w == Width::Dw;
                        e.mov_rr(true, REG_AX, Reg::RAX);
                        let real_src = if src == Reg::RAX { REG_AX } else { src };
                        let real_dst = if dst == Reg::RAX { REG_AX } else { dst };
                        let loop_at = e.len();
                        e.load(w, Reg::RAX, real_dst, insn.off as i32);
                        e.mov_rr(is64, AUX_REG, Reg::RAX);
                        e.alu_rr(alu_op((imm & !BPF_FETCH) as u8), is64, AUX_REG, real_src);
                        atomic_rmw(&mut e, BPF_CMPXCHG, is64, real_dst, AUX_REG, insn.off as i32);
                        let back = -((e.len() - loop_at) as i64) - 2;
                        e.jcc8(Cond::Ne, back as i8);
                        e.mov_rr(is64, real_src, Reg::RAX);
                        e.mov_rr(true, Reg::RAX, REG_AX);
                    } else if imm == BPF_LOAD_ACQ {
                        e.load(w, dst, src, insn.off as i32);
                    } else if imm == BPF_STORE_REL {
                        e.store(w, dst, src, insn.off as i32);
                    } else if [BPF_ADD as i32, BPF_AND as i32, BPF_OR as i32, BPF_XOR as i32, BPF_ADD as i32 | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG].contains(&imm)
                    {
                        atomic_rmw(&mut e, imm, w == Width::Dw, dst, src, insn.off as i32);
                    } else {
                        return Err(self.bad(i - 1, "bpf_jit: unknown atomic opcode"));
                    }
                }
                (BPF_JMP, BPF_CALL, _) => {
                    let mut ip = ip;
                    if insn.src == BPF_PSEUDO_CALL && f.tail_call_reachable {
                        load_tcc_ptr(&mut e, tail_call_cnt_ptr_off(stack_depth));
                        ip = ip.wrapping_add(7);
                    }
                    if insn.src == BPF_PSEUDO_KFUNC_CALL {
                        let before = e.len();
                        self.emit_kfunc_arena_args(&mut e, &insn);
                        ip = ip.wrapping_add((e.len() - before) as u64);
                    }
                    // the kernel refuses a zero imm, but a dump without raw
                    // rights zeroes every call's: any target will do, call
                    // targets are masked on comparison
                    let target = self.profile.bpf_call_base.wrapping_add(imm as i64 as u64);
                    if priv_frame {
                        e.push(Reg::R9);
                        ip = ip.wrapping_add(2);
                    }
                    e.call32(rel32(target, ip));
                    if priv_frame {
                        e.pop(Reg::R9);
                    }
                }
                (BPF_JMP, BPF_TAIL_CALL, _) => {
                    if imm != 0 {
                        let target = self.self_pokes.contains(&(imm as u32)).then(|| self.prog_func.wrapping_add(self.tail_call_offset() as u64));
                        self.emit_tail_call_direct(&mut e, used, stack_depth, ip, target);
                    } else {
                        self.emit_tail_call_indirect(&mut e, used, stack_depth, ip);
                    }
                }
                (BPF_JMP, BPF_JA, BPF_X) => {
                    // gotox: to the address in dst
                    self.emit_indirect_jump(&mut e, dst, ip);
                }
                (BPF_JMP | BPF_JMP32, BPF_JA, _) => {
                    let target = if cls == BPF_JMP { insn.off as i64 } else { imm as i64 };
                    // a jump to itself (-1) is always 2 bytes back: long runs
                    // of dead code would otherwise take many passes
                    let jmp_offset = if target == -1 { -2 } else { self.addr(i as i64 + target)? - self.addrs[i] };
                    if jmp_offset == 0 {
                        if padding {
                            let nops = self.insn_sz_diff(i, e.len());
                            if ![0, 2, 5].contains(&nops) {
                                return Err(self.bad(i - 1, "unexpected nop jump padding"));
                            }
                            e.nops(nops as usize);
                        }
                    } else {
                        self.emit_jmp(&mut e, i, jmp_offset, padding)?;
                    }
                }
                (BPF_JMP, BPF_EXIT, _) => {
                    if seen_exit {
                        let jmp_offset = self.ctx.cleanup_addr - self.addrs[i];
                        self.emit_jmp(&mut e, i, jmp_offset, padding)?;
                    } else {
                        seen_exit = true;
                        self.ctx.cleanup_addr = image.len() as i64;
                        emit_rsp_adjust(&mut e, AluOp::Add, outgoing_rsp);
                        self.pop_frame_regs(&mut e, used);
                        e.byte(0xc9); // leave
                        let ip = self.image_addr.wrapping_add(self.addrs[i - 1] as u64 + e.len() as u64);
                        self.emit_return(&mut e, ip);
                    }
                }
                (BPF_JMP | BPF_JMP32, jop, s) if jmp_cond(jop).is_some() => {
                    let cond = jmp_cond(jop).unwrap_or(Cond::E);
                    if jop == BPF_JSET {
                        if s == BPF_X {
                            e.test_rr(is64, dst, src);
                        } else {
                            e.test_ri(is64, dst, imm);
                        }
                    } else if s == BPF_X {
                        e.alu_rr(AluOp::Cmp, is64, dst, src);
                    } else if imm == 0 {
                        // test is a byte shorter than cmp $0
                        e.test_rr(is64, dst, dst);
                    } else {
                        cmp_ri(&mut e, is64, dst, imm);
                    }
                    let jmp_offset = self.addr(i as i64 + insn.off as i64)? - self.addrs[i];
                    if is_imm8_jmp_offset(jmp_offset) {
                        if padding {
                            let nops = self.insn_sz_diff(i, e.len()) - 2;
                            if nops != 0 && nops != 4 {
                                return Err(self.bad(i - 1, "unexpected jmp_cond padding"));
                            }
                            e.nops(nops as usize);
                        }
                        e.jcc8(cond, jmp_offset as i8);
                    } else if is_simm32(jmp_offset) {
                        e.jcc32(cond, jmp_offset as i32);
                    } else {
                        return Err(self.bad(i - 1, "cond_jmp gen bug"));
                    }
                }
                _ => return Err(self.bad(i - 1, "bpf_jit: unknown opcode")),
            }
            image.extend_from_slice(&e.buf);
            // an ld_imm64's second slot keeps its estimate, as in the kernel
            i += consumed;
            self.addrs[i - 1] = image.len() as i64;
        }
        Ok(image)
    }

    /// `addrs[k]`, refusing jumps out of the function.
    fn addr(&self, k: i64) -> Result<i64, JitError> {
        usize::try_from(k).ok().and_then(|k| self.addrs.get(k).copied()).ok_or(JitError::BadInsn {
            func: self.idx,
            insn: 0,
            code: BPF_JMP,
            why: "jump out of the function",
        })
    }

    /// `INSN_SZ_DIFF`: the insn's size in the last pass (measured from this
    /// pass's start) minus what it has emitted so far.
    fn insn_sz_diff(&self, i: usize, emitted: usize) -> i64 {
        self.addrs[i] - self.addrs[i - 1] - emitted as i64
    }

    /// `emit_jmp`: rel8 when the offset fits (positive ones up to 123, for
    /// convergence), else rel32; padded with nops once jumps may not shrink.
    fn emit_jmp(&self, e: &mut Emitter, i: usize, jmp_offset: i64, padding: bool) -> Result<(), JitError> {
        if is_imm8_jmp_offset(jmp_offset) {
            if padding {
                let nops = self.insn_sz_diff(i, e.len()) - 2;
                if nops != 0 && nops != 3 {
                    return Err(self.bad(i - 1, "unexpected jump padding"));
                }
                e.nops(nops as usize);
            }
            e.jmp8(jmp_offset as i8);
        } else if is_simm32(jmp_offset) {
            e.jmp32(jmp_offset as i32);
        } else {
            return Err(self.bad(i - 1, "jmp gen bug"));
        }
        Ok(())
    }
}

/// The model's address of map `index` ([`crate::map::map_kaddr`]).
fn map_kaddr(index: i32) -> u64 {
    crate::map::map_kaddr(crate::target::Arch::X86_64, index.max(0) as usize)
}

fn src_bit(code: u8) -> u8 {
    code & BPF_X
}

/// Positive offsets stop at 123 so that a je/jmp pair cannot flip between
/// sizes forever.
fn is_imm8_jmp_offset(v: i64) -> bool {
    (-128..=123).contains(&v)
}

fn jmp_cond(jop: u8) -> Option<Cond> {
    Some(match jop {
        BPF_JEQ => Cond::E,
        BPF_JSET | BPF_JNE => Cond::Ne,
        BPF_JGT => Cond::A,
        BPF_JLT => Cond::B,
        BPF_JGE => Cond::Ae,
        BPF_JLE => Cond::Be,
        BPF_JSGT => Cond::G,
        BPF_JSLT => Cond::L,
        BPF_JSGE => Cond::Ge,
        BPF_JSLE => Cond::Le,
        _ => return None,
    })
}

/// `rel32` of a `call`/`jmp` at `ip` to `target`. Kernel addresses are
/// within 2 GiB of each other; the model's stand-ins may not be, and the
/// value is masked on comparison anyway, so it wraps.
fn rel32(target: u64, ip: u64) -> i32 {
    target.wrapping_sub(ip.wrapping_add(X86_PATCH_SIZE as u64)) as i64 as i32
}

/// `BPF_TAIL_CALL_CNT_PTR_STACK_OFF`: the tail call count pointer sits
/// below the frame (pushed by the prologue after `sub rsp`).
fn tail_call_cnt_ptr_off(stack_depth: u32) -> i32 {
    (-16i32).wrapping_sub(round_up8(stack_depth) as i32)
}

/// `mov rax, qword ptr [rbp + off]` with a disp32 (the tail call count pointer).
fn load_tcc_ptr(e: &mut Emitter, off: i32) {
    e.bytes(&[0x48, 0x8b, 0x85]);
    e.imm32(off);
}

/// `cmp dst, imm`: imm8 or `0x81 /7 imm32` (the JIT never uses the rax short form).
fn cmp_ri(e: &mut Emitter, is64: bool, dst: Reg, imm: i32) {
    if is_imm8(imm as i64) {
        e.alu_ri(AluOp::Cmp, is64, dst, imm);
    } else {
        e.alu_ri32(AluOp::Cmp, is64, dst, imm);
    }
}

/// `emit_return`: `jmp x86_return_thunk` when the CPU wants the return
/// thunk, else `ret` (and `int3` with `CONFIG_MITIGATION_SLS`).
fn emit_return(profile: &X86Profile, e: &mut Emitter, ip: u64) {
    if profile.rethunk {
        e.jmp32(rel32(profile.return_thunk, ip));
    } else {
        e.byte(0xc3);
        if profile.sls {
            e.byte(0xcc);
        }
    }
}

/// `emit_mov_imm32`: a negative imm sign-extends into 64 bits with
/// `mov r64, imm32`; zero is `xor`; anything else `mov r32, imm32`.
fn emit_mov_imm32(e: &mut Emitter, sign_propagate: bool, dst: Reg, imm: u32) {
    if sign_propagate && (imm as i32) < 0 {
        e.mov_ri_sx(dst, imm as i32);
    } else if imm == 0 {
        e.zero(dst);
    } else {
        e.mov_ri32(dst, imm);
    }
}

/// `emit_mov_imm64`: the shortest of the imm32 forms, else `movabs`.
fn mov_imm64(e: &mut Emitter, dst: Reg, v: u64) {
    if v == v as u32 as u64 {
        emit_mov_imm32(e, false, dst, v as u32);
    } else if is_simm32(v as i64) {
        emit_mov_imm32(e, true, dst, v as u32);
    } else {
        e.movabs(dst, v);
    }
}

/// `emit_atomic_rmw`: `lock` (not for xchg), then the op on `[dst + off]`.
fn atomic_rmw(e: &mut Emitter, aop: i32, is64: bool, dst: Reg, src: Reg, off: i32) {
    if aop != BPF_XCHG {
        e.byte(0xf0);
    }
    e.rex(Rex::w(is64), Some(src), None, Some(dst));
    match aop {
        a if a == BPF_ADD as i32 => e.byte(0x01),
        a if a == BPF_AND as i32 => e.byte(0x21),
        a if a == BPF_OR as i32 => e.byte(0x09),
        a if a == BPF_XOR as i32 => e.byte(0x31),
        a if a == BPF_ADD as i32 | BPF_FETCH => e.bytes(&[0x0f, 0xc1]),
        BPF_XCHG => e.byte(0x87),
        _ => e.bytes(&[0x0f, 0xb1]),
    }
    e.modrm_mem(src.low(), dst, off);
}

/// `emit_atomic_rmw_index`: the same on `[dst + index + off]` (arenas),
/// always with a REX.
fn atomic_rmw_index(e: &mut Emitter, aop: i32, is64: bool, dst: Reg, src: Reg, index: Reg, off: i32) {
    if aop != BPF_XCHG {
        e.byte(0xf0);
    }
    e.rex(if is64 { Rex::W } else { Rex::Always }, Some(src), Some(index), Some(dst));
    match aop {
        a if a == BPF_ADD as i32 => e.byte(0x01),
        a if a == BPF_AND as i32 => e.byte(0x21),
        a if a == BPF_OR as i32 => e.byte(0x09),
        a if a == BPF_XOR as i32 => e.byte(0x31),
        a if a == BPF_ADD as i32 | BPF_FETCH => e.bytes(&[0x0f, 0xc1]),
        BPF_XCHG => e.byte(0x87),
        _ => e.bytes(&[0x0f, 0xb1]),
    }
    e.modrm_sib(src.low(), dst, index, off);
}

/// `emit_sub_rsp`/`emit_add_rsp`: nothing for 0, else imm8 or imm32.
fn emit_rsp_adjust(e: &mut Emitter, op: AluOp, bytes: u32) {
    if bytes != 0 {
        e.alu_ri(op, true, Reg::RSP, bytes as i32);
    }
}

/// `push_callee_regs` of rbx, r13, r14, r15 as used.
fn push_callee_regs(e: &mut Emitter, used: [bool; 4]) {
    for (k, r) in [Reg::RBX, Reg::R13, Reg::R14, Reg::R15].into_iter().enumerate() {
        if used[k] {
            e.push(r);
        }
    }
}

/// How far below its frame pointer (`rbp`) `func`'s `rsp` is when it calls
/// (what `do_jit`'s prologue and call emission leave there): the rounded
/// stack, the tail call counter slots, the callee-saved registers (r12
/// too with an `arena`), the outgoing stack arguments, and r9 pushed
/// around a call from a private-stack frame. A callee's `rbp` is 16 bytes
/// lower still (return address, saved `rbp`). For runs of the JITed code
/// that place the interpreter's frames where the JIT's are.
pub fn frame_bytes_at_call(func: &JitFunc, arena: bool) -> u64 {
    let depth = if func.jits_use_priv_stack { 0 } else { round_up8(func.stack_depth) as u64 };
    let tail_call = if func.tail_call_reachable { 16 } else { 0 };
    let saved = if func.exception_boundary {
        40
    } else {
        let mut used = [false; 4];
        for i in &func.insns {
            for r in [i.dst, i.src] {
                if (6..=9).contains(&r) {
                    used[(r - 6) as usize] = true;
                }
            }
        }
        8 * used.iter().filter(|u| **u).count() as u64 + if arena { 8 } else { 0 }
    };
    let outgoing = u64::from(func.out_stack_arg_cnt.saturating_sub(1)) * 8;
    let priv_r9 = if func.jits_use_priv_stack { 8 } else { 0 };
    depth + tail_call + saved + outgoing + priv_r9
}

/// `pop_callee_regs`, in reverse.
fn pop_callee_regs(e: &mut Emitter, used: [bool; 4]) {
    for (k, r) in [Reg::RBX, Reg::R13, Reg::R14, Reg::R15].into_iter().enumerate().rev() {
        if used[k] {
            e.pop(r);
        }
    }
}

#[cfg(test)]
mod tests;
