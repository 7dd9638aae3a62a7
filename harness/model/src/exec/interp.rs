//! The interpreter: `___bpf_prog_run` (kernel/bpf/core.c) with the results
//! 7.3 programs actually get, i.e. after the verifier's fixups and on the
//! JIT:
//!
//! * `x / 0 = 0`; `x % 0 = x` (its low 32 bits, zero-extended, for `w`
//!   registers); signed `x / -1 = -x` and `x % -1 = 0`, so `INT_MIN / -1`
//!   is `INT_MIN` (the guards `do_misc_fixups` inserts);
//! * shift amounts masked to the operand width (what the interpreter does
//!   explicitly and x86-64/arm64 shift instructions do anyway);
//! * 32-bit ALU results zero-extended into the 64-bit register;
//! * `LD_ABS`/`LD_IND` as `bpf_gen_ld_abs` rewrites them: a big-endian load
//!   relative to `skb->data`, and on failure the function returns 0;
//! * `may_goto` with a per-frame budget of `BPF_MAX_LOOPS`;
//! * bpf2bpf calls: the callee gets a fresh stack frame, r1-r5 are its
//!   arguments, r6-r9 are the caller's again after it returns (one register
//!   file, as in the JITs), arguments 6+ pass through r11 (`*(u64 *)(r11 -
//!   8k)` in the caller, `*(u64 *)(r11 + 8k)` in the callee).
//!
//! Registers that the verifier makes unreadable (r1-r5 after a call, r0 at
//! entry) keep whatever they held; no accepted program can tell.

use std::rc::Rc;

use bpf_isa::Insn;
use bpf_isa::alu::{alu32, alu64, endian};
use bpf_isa::insn::op::*;

use super::mem::{Addr, Fault, RegionKind};
use super::{CallTarget, ExecError, ExecProgram, Imm64, Internal, Runtime, helpers, kfuncs};
use crate::limits::{BPF_MAX_LOOPS, BPF_MAX_TIMED_LOOPS, MAX_TAIL_CALL_CNT};
use bpf_isa::insn::BPF_REG_PARAMS;

/// Stack arguments beyond r1-r5 (`MAX_BPF_FUNC_ARGS` is 12).
const MAX_STACK_ARGS: usize = 7;
/// Call frames one interpreter loop may hold (the verifier allows 8).
const MAX_FRAMES: usize = 64;
/// Nested interpreter loops (callbacks inside callbacks).
const MAX_NESTING: u32 = 32;
const NREGS: usize = 13;

/// What a called function asks the interpreter to do next.
pub(crate) enum Flow {
    /// Return this in r0 and go on.
    Ret(u64),
    /// Go on with r0 as it was (a tail call that was not taken).
    Keep,
    /// Continue in program `.0` from its start (a taken tail call).
    TailCall(usize),
}

pub(crate) struct Frame {
    prog: Rc<Prepared>,
    /// Index of `prog` in the runtime (for callbacks' addresses).
    prog_idx: usize,
    /// Where the caller continues.
    ret_pc: usize,
    /// The caller's r6-r9 and r10.
    saved: [u64; 5],
    /// This frame's stack region (`None`: a frame on the shared stack of a
    /// host-memory run, [`super::runtime::HostStack`]).
    stack: Option<Addr>,
    /// Stack arguments this frame passes to its callees (a callee reads
    /// them from its caller's frame: they do not change while it runs).
    out_args: [u64; MAX_STACK_ARGS],
    may_goto: u64,
}

/// An operand: a register or an immediate (already extended to the
/// operation's width).
#[derive(Clone, Copy, Debug)]
enum Src {
    Reg(u8),
    Imm(u64),
}

/// One instruction decoded once before the run, as the jump table of
/// `___bpf_prog_run` selects its handler: the common forms with their
/// operands resolved, everything else ([`Op::Generic`]) decoded at each
/// execution as before. A decoded form does exactly what the generic code
/// does for that instruction, faults and errors included.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// `BPF_ALU64`/`BPF_ALU` ops through `alu64`/`alu32` (not `BPF_END`,
    /// not the special `mov`s).
    Alu {
        wide: bool,
        op: u8,
        off: i16,
        d: u8,
        src: Src,
    },
    /// `mov` of an immediate (no kernel variable behind it).
    MovImm {
        d: u8,
        v: u64,
    },
    /// `goto` (`BPF_JA`) to an instruction at or after the start.
    Ja {
        target: usize,
    },
    /// A conditional jump to an instruction at or after the start.
    Jcond {
        op: u8,
        wide: bool,
        d: u8,
        src: Src,
        target: usize,
    },
    /// `may_goto` to an instruction at or after the start.
    MayGoto {
        target: usize,
    },
    /// `BPF_LDX | BPF_MEM(SX)` not through r11.
    Ldx {
        n: u8,
        sx: bool,
        d: u8,
        s: u8,
        off: i16,
    },
    /// `BPF_ST(X) | BPF_MEM` not through r11.
    Store {
        n: u8,
        d: u8,
        off: i16,
        src: Src,
    },
    /// A plain `ld_imm64` with its second slot.
    LdImm64 {
        d: u8,
        v: u64,
    },
    Exit,
    Generic,
}

/// An [`ExecProgram`] with its instructions decoded for the interpreter.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    pub prog: ExecProgram,
    code: Vec<Op>,
}

impl std::ops::Deref for Prepared {
    type Target = ExecProgram;
    fn deref(&self) -> &ExecProgram {
        &self.prog
    }
}

impl Prepared {
    pub fn new(prog: ExecProgram) -> Prepared {
        let code = (0..prog.insns.len()).map(|pc| decode(&prog, pc)).collect();
        Prepared { prog, code }
    }
}

/// The [`Op`] of instruction `pc`.
fn decode(prog: &ExecProgram, pc: usize) -> Op {
    let insn = prog.insns[pc];
    let (d, s) = (insn.dst, insn.src);
    if d as usize >= NREGS || s as usize >= NREGS {
        return Op::Generic;
    }
    let class = insn.class();
    let target = |delta: i64| usize::try_from(pc as i64 + 1 + delta).ok();
    let is_x = src(insn.code) == BPF_X;
    match class {
        BPF_ALU | BPF_ALU64 => {
            let o = op(insn.code);
            let wide = class == BPF_ALU64;
            let imm = if wide { insn.imm as i64 as u64 } else { insn.imm as u32 as u64 };
            if o == BPF_END || (wide && o == BPF_MOV && is_x && matches!(insn.off, BPF_ADDR_PERCPU | BPF_ADDR_SPACE_CAST)) {
                return Op::Generic;
            }
            if o == BPF_MOV && !is_x && insn.off == 0 {
                return match prog.imm64.get(pc) {
                    Some(Some(Imm64::Ksym(_))) if wide => Op::Generic,
                    _ => Op::MovImm { d, v: imm },
                };
            }
            Op::Alu { wide, op: o, off: insn.off, d, src: if is_x { Src::Reg(s) } else { Src::Imm(imm) } }
        }
        BPF_JMP | BPF_JMP32 => {
            let o = op(insn.code);
            let wide = class == BPF_JMP;
            match o {
                BPF_JA if !is_x => target(if wide { insn.off as i64 } else { insn.imm as i64 }).map_or(Op::Generic, |target| Op::Ja { target }),
                BPF_JCOND if wide && s == BPF_MAY_GOTO => target(insn.off as i64).map_or(Op::Generic, |target| Op::MayGoto { target }),
                BPF_EXIT if wide => Op::Exit,
                _ if jmp_cond(o, wide, 0, 0).is_some() => match target(insn.off as i64) {
                    Some(target) => Op::Jcond { op: o, wide, d, src: if is_x { Src::Reg(s) } else { Src::Imm(insn.imm as i64 as u64) }, target },
                    None => Op::Generic,
                },
                _ => Op::Generic,
            }
        }
        BPF_LD if insn.is_ld_imm64() && pc + 1 < prog.insns.len() && matches!(prog.imm64.get(pc), None | Some(None)) => {
            Op::LdImm64 { d, v: (insn.imm as u32 as u64) | ((prog.insns[pc + 1].imm as u32 as u64) << 32) }
        }
        BPF_LDX if s != BPF_REG_PARAMS => {
            let n = size_bytes(insn.code);
            match mode(insn.code) {
                BPF_MEM => Op::Ldx { n: n as u8, sx: false, d, s, off: insn.off },
                BPF_MEMSX if n < 8 => Op::Ldx { n: n as u8, sx: true, d, s, off: insn.off },
                _ => Op::Generic,
            }
        }
        BPF_ST | BPF_STX if d != BPF_REG_PARAMS && mode(insn.code) == BPF_MEM => {
            let src = if class == BPF_ST { Src::Imm(insn.imm as i64 as u64) } else { Src::Reg(s) };
            Op::Store { n: size_bytes(insn.code) as u8, d, off: insn.off, src }
        }
        _ => Op::Generic,
    }
}

/// A conditional jump's test; `None` for an op that is not one.
pub fn jmp_cond(op: u8, wide: bool, dst: u64, src: u64) -> Option<bool> {
    let (a, b, sa, sb) = if wide { (dst, src, dst as i64, src as i64) } else { (dst as u32 as u64, src as u32 as u64, dst as i32 as i64, src as i32 as i64) };
    Some(match op {
        BPF_JEQ => a == b,
        BPF_JNE => a != b,
        BPF_JGT => a > b,
        BPF_JGE => a >= b,
        BPF_JLT => a < b,
        BPF_JLE => a <= b,
        BPF_JSET => a & b != 0,
        BPF_JSGT => sa > sb,
        BPF_JSGE => sa >= sb,
        BPF_JSLT => sa < sb,
        BPF_JSLE => sa <= sb,
        _ => return None,
    })
}

fn size_bytes(code: u8) -> usize {
    match size(code) {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    }
}

fn sign_extend(v: u64, bytes: usize) -> u64 {
    match bytes {
        1 => v as i8 as i64 as u64,
        2 => v as i16 as i64 as u64,
        4 => v as i32 as i64 as u64,
        _ => v,
    }
}

fn bad(pc: usize, why: impl Into<String>) -> ExecError {
    ExecError::BadInsn { pc, why: why.into() }
}

impl Runtime {
    fn fault(pc: usize) -> impl Fn(Fault) -> ExecError {
        move |fault| ExecError::Fault { pc, fault }
    }

    fn new_stack(&mut self, size: u32) -> Result<Addr, ExecError> {
        self.mem.alloc_zeroed(RegionKind::Stack, size as usize, false).map_err(|f| ExecError::Unsupported(format!("stack frame: {f}")))
    }

    /// A load by the program: the ctx's pointer fields give pointers.
    fn prog_load(&self, addr: Addr, size: usize) -> Result<u64, Fault> {
        if let Some(v) = self.ctx_load(addr, size) {
            return Ok(v);
        }
        self.mem.load(addr, size)
    }

    /// Runs function `pc` of program `prog_idx` with `args` in r1-r5 until
    /// it returns; its r0. Callbacks and the program itself run through here.
    pub(crate) fn run_func(&mut self, prog_idx: usize, pc: usize, args: [u64; 5]) -> Result<u64, ExecError> {
        if self.depth >= MAX_NESTING {
            return Err(bad(pc, "callbacks nested too deeply"));
        }
        self.depth += 1;
        // the frames of a finished loop serve the next (a callback per
        // bpf_loop iteration allocates none)
        let mut frames = self.frame_pool.pop().unwrap_or_default();
        let r = self.run_loop(prog_idx, pc, args, &mut frames);
        frames.clear();
        self.frame_pool.push(frames);
        self.depth -= 1;
        r
    }

    /// The interpreter loop; `frames` (empty) holds its call frames, the
    /// current one last.
    fn run_loop(&mut self, prog_idx: usize, entry: usize, args: [u64; 5], frames: &mut Vec<Frame>) -> Result<u64, ExecError> {
        let prog = self.progs.get(prog_idx).cloned().ok_or_else(|| bad(entry, "no such program"))?;
        let mut regs = [0u64; NREGS];
        regs[1..6].copy_from_slice(&args);
        // the program's own entry in a host-memory run: where the JITed
        // entry's frame is (callbacks keep frames of their own)
        let host_fp = (self.depth == 1).then(|| self.host_stack.as_ref().map(|h| h.entry_fp())).flatten();
        let stack = match host_fp {
            Some(fp) => {
                regs[10] = fp;
                None
            }
            None => {
                let stack = self.new_stack(prog.frame_size)?;
                regs[10] = stack + prog.frame_size as u64;
                Some(stack)
            }
        };
        frames.push(Frame { prog, prog_idx, ret_pc: 0, saved: [0; 5], stack, out_args: [0; MAX_STACK_ARGS], may_goto: u64::from(BPF_MAX_LOOPS) });
        let mut pc = entry;
        loop {
            let Some((cur, callers)) = frames.split_last_mut() else { return Err(bad(pc, "no call frame")) };
            self.insns += 1;
            if self.insns > self.opts.insn_budget {
                return Err(ExecError::Budget(self.opts.insn_budget));
            }
            let Some(&decoded) = cur.prog.code.get(pc) else { return Err(bad(pc, "execution left the program")) };
            let read = |src: Src, regs: &[u64; NREGS]| match src {
                Src::Reg(r) => regs[r as usize],
                Src::Imm(v) => v,
            };
            match decoded {
                Op::Alu { wide, op, off, d, src } => {
                    let (d, v) = (d as usize, read(src, &regs));
                    regs[d] = if wide { alu64(op, off, regs[d], v) } else { alu32(op, off, regs[d], v) }
                        .ok_or_else(|| bad(pc, format!("bad ALU insn {:?}", cur.prog.insns[pc])))?;
                    pc += 1;
                    continue;
                }
                Op::MovImm { d, v } => {
                    regs[d as usize] = v;
                    pc += 1;
                    continue;
                }
                Op::Ja { target } => {
                    pc = target;
                    continue;
                }
                Op::Jcond { op, wide, d, src, target } => {
                    let taken = jmp_cond(op, wide, regs[d as usize], read(src, &regs)).expect("a conditional jump (decoded)");
                    pc = if taken { target } else { pc + 1 };
                    continue;
                }
                Op::MayGoto { target } => {
                    if cur.may_goto == 0 {
                        pc = target;
                    } else {
                        cur.may_goto -= 1;
                        pc += 1;
                    }
                    continue;
                }
                Op::Ldx { n, sx, d, s, off } => {
                    let n = n as usize;
                    let addr = regs[s as usize].wrapping_add(off as i64 as u64);
                    self.kview_check(addr, n).map_err(|e| at_pc(e, pc))?;
                    let v = self.prog_load(addr, n).map_err(Self::fault(pc))?;
                    regs[d as usize] = if sx { sign_extend(v, n) } else { v };
                    pc += 1;
                    continue;
                }
                Op::Store { n, d, off, src } => {
                    let addr = regs[d as usize].wrapping_add(off as i64 as u64);
                    self.mem.store(addr, n as usize, read(src, &regs)).map_err(Self::fault(pc))?;
                    pc += 1;
                    continue;
                }
                Op::LdImm64 { d, v } => {
                    regs[d as usize] = v;
                    pc += 2;
                    continue;
                }
                Op::Exit => match self.ret(frames, &mut regs) {
                    Some(r) => {
                        pc = r;
                        continue;
                    }
                    None => return Ok(regs[0]),
                },
                Op::Generic => {}
            }
            let insn: Insn = cur.prog.insns[pc];
            let (d, s) = (insn.dst as usize, insn.src as usize);
            if d >= NREGS || s >= NREGS {
                return Err(bad(pc, format!("bad register in {insn:?}")));
            }
            let class = insn.class();
            let mut next = pc + 1;
            match class {
                BPF_ALU | BPF_ALU64 => {
                    let o = op(insn.code);
                    let is_x = src(insn.code) == BPF_X;
                    let src = if is_x {
                        regs[s]
                    } else if class == BPF_ALU64 {
                        insn.imm as i64 as u64
                    } else {
                        insn.imm as u32 as u64
                    };
                    regs[d] = if o == BPF_END {
                        endian(class, is_x, insn.imm, regs[d])
                    } else if class == BPF_ALU64 && o == BPF_MOV && is_x && insn.off == BPF_ADDR_PERCPU {
                        // this_cpu_ptr() on the only CPU
                        Some(regs[s])
                    } else if class == BPF_ALU64 && o == BPF_MOV && is_x && insn.off == BPF_ADDR_SPACE_CAST {
                        // the fixups leave only casts to user addresses; a
                        // cast to an arena pointer is the program as loaded,
                        // whose plain accesses through it cannot reach the
                        // arena (the xlated program's BPF_PROBE_MEM32 ones do)
                        match (&self.arena, insn.imm) {
                            (Some(a), 0x1_0000) => Some(a.cast_user(regs[s])),
                            _ => return Err(ExecError::Unsupported("arena addr_space_cast (the program as loaded)".into())),
                        }
                    } else if o == BPF_MOV && !is_x && insn.off == 0 {
                        match cur.prog.imm64.get(pc) {
                            Some(Some(Imm64::Ksym(name))) if class == BPF_ALU64 => Some(self.ksym(&name.clone())?),
                            _ => Some(src),
                        }
                    } else if class == BPF_ALU64 {
                        alu64(o, insn.off, regs[d], src)
                    } else {
                        alu32(o, insn.off, regs[d], src)
                    }
                    .ok_or_else(|| bad(pc, format!("bad ALU insn {insn:?}")))?;
                }
                BPF_JMP | BPF_JMP32 => {
                    let o = op(insn.code);
                    match o {
                        BPF_JA => {
                            if src(insn.code) == BPF_X {
                                return Err(ExecError::Unsupported("gotox (indirect jump)".into()));
                            }
                            let delta = if class == BPF_JMP32 { insn.imm as i64 } else { insn.off as i64 };
                            next = jump(pc, delta)?;
                        }
                        BPF_JCOND if class == BPF_JMP && insn.src == BPF_MAY_GOTO => {
                            if cur.may_goto == 0 {
                                next = jump(pc, insn.off as i64)?;
                            } else {
                                cur.may_goto -= 1;
                            }
                        }
                        BPF_CALL if class == BPF_JMP => {
                            let prog = Rc::clone(&cur.prog);
                            let target = prog.calls.get(pc).and_then(Option::as_ref);
                            let args = [regs[1], regs[2], regs[3], regs[4], regs[5]];
                            let kernel_call = !matches!(target, Some(CallTarget::Subprog(_)));
                            if kernel_call {
                                self.kview_writeback()?;
                            }
                            let flow = match target {
                                Some(&CallTarget::Subprog(t)) => {
                                    if callers.len() >= MAX_FRAMES {
                                        return Err(bad(pc, "call stack too deep"));
                                    }
                                    let host_fp = match cur.stack {
                                        None => self.host_stack.as_ref().and_then(|h| h.callee_fp(cur.prog_idx, pc, regs[10])),
                                        Some(_) => None,
                                    };
                                    let (stack, fp) = match host_fp {
                                        Some(fp) => (None, fp),
                                        None => {
                                            let st = self.new_stack(cur.prog.frame_size)?;
                                            (Some(st), st + cur.prog.frame_size as u64)
                                        }
                                    };
                                    let callee = Frame {
                                        prog: cur.prog.clone(),
                                        prog_idx: cur.prog_idx,
                                        ret_pc: pc + 1,
                                        saved: [regs[6], regs[7], regs[8], regs[9], regs[10]],
                                        stack,
                                        out_args: [0; MAX_STACK_ARGS],
                                        may_goto: u64::from(BPF_MAX_LOOPS),
                                    };
                                    regs[10] = fp;
                                    frames.push(callee);
                                    pc = t;
                                    continue;
                                }
                                Some(&CallTarget::Helper(id)) => helpers::call(self, id, args).map_err(|e| at_pc(e, pc))?,
                                Some(CallTarget::Kfunc(k)) => kfuncs::call(self, k, args).map_err(|e| at_pc(e, pc))?,
                                Some(CallTarget::Internal(Internal::TimedMayGoto)) => {
                                    let at = regs[10].wrapping_add(regs[12]);
                                    regs[12] = self.timed_may_goto(at).map_err(Self::fault(pc))?;
                                    Flow::Keep
                                }
                                Some(&CallTarget::Internal(i)) => self.call_internal(i, args).map_err(|e| at_pc(e, pc))?,
                                None => {
                                    return Err(bad(pc, format!("call with no resolved target: {insn:?}")));
                                }
                            };
                            if kernel_call {
                                self.kview_refresh()?;
                            }
                            match flow {
                                Flow::Ret(v) => regs[0] = v,
                                Flow::Keep => {}
                                Flow::TailCall(p) => {
                                    let prog = self.progs[p].clone();
                                    // (a frame on the host stack keeps r10: the
                                    // JIT's tail call keeps rbp)
                                    if let Some(old) = cur.stack.filter(|_| prog.frame_size != cur.prog.frame_size) {
                                        self.mem.free(old);
                                        let st = self.new_stack(prog.frame_size)?;
                                        cur.stack = Some(st);
                                        regs[10] = st + prog.frame_size as u64;
                                    }
                                    cur.prog = prog;
                                    cur.prog_idx = p;
                                    cur.may_goto = u64::from(BPF_MAX_LOOPS);
                                    next = 0;
                                }
                            }
                        }
                        BPF_EXIT if class == BPF_JMP => match self.ret(frames, &mut regs) {
                            Some(r) => next = r,
                            None => return Ok(regs[0]),
                        },
                        0xf0 if class == BPF_JMP => {
                            // BPF_TAIL_CALL, as the fixups emit it: r2 map, r3 index
                            if let Flow::TailCall(p) = self.tail_call(regs[2], regs[3]).map_err(|e| at_pc(e, pc))? {
                                cur.prog = self.progs[p].clone();
                                cur.prog_idx = p;
                                next = 0;
                            }
                        }
                        _ => {
                            let src = if src(insn.code) == BPF_X { regs[s] } else { insn.imm as i64 as u64 };
                            let taken = jmp_cond(o, class == BPF_JMP, regs[d], src).ok_or_else(|| bad(pc, format!("bad jump {insn:?}")))?;
                            if taken {
                                next = jump(pc, insn.off as i64)?;
                            }
                        }
                    }
                }
                BPF_LD => {
                    if insn.is_ld_imm64() {
                        let hi = cur.prog.insns.get(pc + 1).ok_or_else(|| bad(pc, "ld_imm64 without its second slot"))?;
                        regs[d] = match cur.prog.imm64.get(pc).cloned().flatten() {
                            None => (insn.imm as u32 as u64) | ((hi.imm as u32 as u64) << 32),
                            Some(Imm64::Map(m)) => self.maps.get(m).ok_or_else(|| bad(pc, format!("no map {m}")))?.addr,
                            Some(Imm64::MapValue { map, off }) => {
                                self.map_value_addr(map, off).ok_or_else(|| bad(pc, format!("map {map} has no direct value")))?
                            }
                            Some(Imm64::Func(t)) => Runtime::func_addr(cur.prog_idx, t),
                            Some(Imm64::Ksym(name)) => self.ksym(&name)?,
                        };
                        next = pc + 2;
                    } else if matches!(mode(insn.code), BPF_ABS | BPF_IND) && size(insn.code) != BPF_DW {
                        let off = if mode(insn.code) == BPF_IND { regs[s].wrapping_add(insn.imm as i64 as u64) } else { insn.imm as i64 as u64 };
                        regs[1] = regs[6];
                        regs[2] = off;
                        let v = self.skb_load(regs[6], off as i32, size_bytes(insn.code)).map_err(|e| at_pc(e, pc))?;
                        if (v as i64) < 0 {
                            regs[0] = 0;
                            match self.ret(frames, &mut regs) {
                                Some(r) => next = r,
                                None => return Ok(regs[0]),
                            }
                        } else {
                            regs[0] = v;
                        }
                    } else {
                        return Err(bad(pc, format!("bad LD insn {insn:?}")));
                    }
                }
                BPF_LDX => {
                    let n = size_bytes(insn.code);
                    let m = mode(insn.code);
                    if s == BPF_REG_PARAMS as usize {
                        // a stack argument: *(u64 *)(r11 + 8k), k >= 1
                        let k = (insn.off / 8) as usize;
                        if m != BPF_MEM || n != 8 || insn.off <= 0 || insn.off % 8 != 0 || k > MAX_STACK_ARGS {
                            return Err(bad(pc, "bad stack-argument load"));
                        }
                        // (the outermost function has no caller: zeros)
                        regs[d] = callers.last().map_or(0, |c| c.out_args[k - 1]);
                    } else {
                        let addr = regs[s].wrapping_add(insn.off as i64 as u64);
                        if matches!(m, BPF_MEM | BPF_MEMSX) {
                            self.kview_check(addr, n).map_err(|e| at_pc(e, pc))?;
                        }
                        regs[d] = match m {
                            BPF_MEM => self.prog_load(addr, n).map_err(Self::fault(pc))?,
                            BPF_MEMSX if n < 8 => sign_extend(self.prog_load(addr, n).map_err(Self::fault(pc))?, n),
                            // a faulting probe load reads zero (the exception table)
                            BPF_PROBE_MEM => self.mem.load(addr, n).unwrap_or(0),
                            BPF_PROBE_MEMSX if n < 8 => sign_extend(self.mem.load(addr, n).unwrap_or(0), n),
                            BPF_PROBE_MEM32 | BPF_PROBE_MEM32SX => {
                                let Some(a) = &self.arena else {
                                    return Err(ExecError::Unsupported("arena memory without an arena".into()));
                                };
                                let v = a.load(regs[s], insn.off, n);
                                if m == BPF_PROBE_MEM32 || n == 8 { v } else { sign_extend(v, n) }
                            }
                            _ => return Err(bad(pc, format!("bad LDX insn {insn:?}"))),
                        };
                    }
                }
                BPF_ST | BPF_STX => {
                    let n = size_bytes(insn.code);
                    let m = mode(insn.code);
                    let val = if class == BPF_ST { insn.imm as i64 as u64 } else { regs[s] };
                    if class == BPF_ST && m == BPF_NOSPEC {
                        // a speculation barrier
                    } else if d == BPF_REG_PARAMS as usize {
                        let k = (-(insn.off as i32) / 8) as usize;
                        if m != BPF_MEM || n != 8 || insn.off >= 0 || insn.off % 8 != 0 || k > MAX_STACK_ARGS {
                            return Err(bad(pc, "bad stack-argument store"));
                        }
                        cur.out_args[k - 1] = val;
                    } else if m == BPF_MEM {
                        let addr = regs[d].wrapping_add(insn.off as i64 as u64);
                        self.mem.store(addr, n, val).map_err(Self::fault(pc))?;
                    } else if class == BPF_STX && m == BPF_ATOMIC {
                        self.atomic(&insn, &mut regs, pc)?;
                    } else if m == BPF_PROBE_MEM32 || m == BPF_PROBE_ATOMIC {
                        self.arena_store(&insn, &mut regs, val, pc)?;
                    } else {
                        return Err(bad(pc, format!("bad store insn {insn:?}")));
                    }
                }
                _ => return Err(bad(pc, format!("bad instruction class {insn:?}"))),
            }
            pc = next;
        }
    }

    /// Leaves the current function: the caller's pc, or `None` when the
    /// outermost function of this loop returned.
    fn ret(&mut self, frames: &mut Vec<Frame>, regs: &mut [u64; NREGS]) -> Option<usize> {
        let cur = frames.last()?;
        if let Some(st) = cur.stack {
            self.mem.free(st);
        }
        if frames.len() == 1 {
            return None;
        }
        let done = frames.pop()?;
        regs[6..11].copy_from_slice(&done.saved);
        Some(done.ret_pc)
    }

    /// A `BPF_PROBE_MEM32` store or `BPF_PROBE_ATOMIC` op on the arena: a
    /// faulting one does nothing (the JITs' exception table).
    fn arena_store(&mut self, insn: &Insn, regs: &mut [u64; NREGS], val: u64, pc: usize) -> Result<(), ExecError> {
        let (d, s) = (insn.dst as usize, insn.src as usize);
        let n = size_bytes(insn.code);
        let Some(a) = self.arena.as_mut() else {
            return Err(ExecError::Unsupported("arena memory without an arena".into()));
        };
        if mode(insn.code) == BPF_PROBE_MEM32 {
            a.store(regs[d], insn.off, n, val);
            return Ok(());
        }
        match insn.imm {
            BPF_LOAD_ACQ => regs[d] = a.load(regs[s], insn.off, n),
            BPF_STORE_REL => {
                a.store(regs[d], insn.off, n, regs[s]);
            }
            imm => {
                let mask = if n == 4 { u32::MAX as u64 } else { u64::MAX };
                let v = regs[s] & mask;
                let r0 = regs[0] & mask;
                let op = |old: u64| -> u64 {
                    match imm & !BPF_FETCH {
                        x if x == BPF_ADD as i32 => old.wrapping_add(v),
                        x if x == BPF_AND as i32 => old & v,
                        x if x == BPF_OR as i32 => old | v,
                        x if x == BPF_XOR as i32 => old ^ v,
                        _ if imm == BPF_XCHG => v,
                        _ if imm == BPF_CMPXCHG => {
                            if old == r0 {
                                v
                            } else {
                                old
                            }
                        }
                        _ => old,
                    }
                };
                let known = [BPF_ADD, BPF_AND, BPF_OR, BPF_XOR].iter().any(|&o| imm & !BPF_FETCH == o as i32) || imm == BPF_XCHG || imm == BPF_CMPXCHG;
                if !known || (n != 4 && n != 8) {
                    return Err(bad(pc, format!("bad arena atomic {insn:?}")));
                }
                // a fault loads 0 into the register the op loads into
                // (bpf_atomic_load_reg, cleared by ex_handler_bpf)
                let old = a.rmw(regs[d], insn.off, n, |o| op(o) & mask).unwrap_or(0);
                if imm == BPF_CMPXCHG {
                    regs[0] = old;
                } else if imm & BPF_FETCH != 0 || imm == BPF_XCHG {
                    regs[s] = old;
                }
            }
        }
        Ok(())
    }

    fn atomic(&mut self, insn: &Insn, regs: &mut [u64; NREGS], pc: usize) -> Result<(), ExecError> {
        let (d, s) = (insn.dst as usize, insn.src as usize);
        let n = size_bytes(insn.code);
        let f = Self::fault(pc);
        match insn.imm {
            BPF_LOAD_ACQ => {
                let addr = regs[s].wrapping_add(insn.off as i64 as u64);
                regs[d] = self.prog_load(addr, n).map_err(f)?;
                return Ok(());
            }
            BPF_STORE_REL => {
                let addr = regs[d].wrapping_add(insn.off as i64 as u64);
                return self.mem.store(addr, n, regs[s]).map_err(f);
            }
            _ => {}
        }
        if n != 4 && n != 8 {
            return Err(bad(pc, format!("bad atomic size {insn:?}")));
        }
        let addr = regs[d].wrapping_add(insn.off as i64 as u64);
        let mask = if n == 4 { u32::MAX as u64 } else { u64::MAX };
        let old = self.mem.load(addr, n).map_err(&f)?;
        let v = regs[s] & mask;
        let (new, fetch_into) = match insn.imm {
            i if i & !BPF_FETCH == BPF_ADD as i32 => (old.wrapping_add(v), (i & BPF_FETCH != 0).then_some(s)),
            i if i & !BPF_FETCH == BPF_AND as i32 => (old & v, (i & BPF_FETCH != 0).then_some(s)),
            i if i & !BPF_FETCH == BPF_OR as i32 => (old | v, (i & BPF_FETCH != 0).then_some(s)),
            i if i & !BPF_FETCH == BPF_XOR as i32 => (old ^ v, (i & BPF_FETCH != 0).then_some(s)),
            BPF_XCHG => (v, Some(s)),
            BPF_CMPXCHG => (if old == regs[0] & mask { v } else { old }, Some(0)),
            _ => return Err(bad(pc, format!("bad atomic op {insn:?}"))),
        };
        self.mem.store(addr, n, new & mask).map_err(f)?;
        if let Some(r) = fetch_into {
            regs[r] = old;
        }
        Ok(())
    }

    /// The address `BPF_PSEUDO_MAP_VALUE` gives: inside an array's value.
    pub(crate) fn map_value_addr(&self, map: usize, off: u32) -> Option<Addr> {
        let m = self.maps.get(map)?;
        match m.store {
            super::maps::Store::Array { .. } => Some(m.addr + crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE as u64 + off as u64),
            _ => None,
        }
    }

    /// Kernel-internal functions the fixups call.
    pub(crate) fn call_internal(&mut self, f: Internal, a: [u64; 5]) -> Result<Flow, ExecError> {
        match f {
            Internal::SkbLoadNoCache(size) => Ok(Flow::Ret(self.skb_load(a[0], a[1] as i32, size as usize)?)),
            Internal::TailCall => self.tail_call(a[1], a[2]),
            Internal::HtabLookupElem => {
                let m = self.map_at(a[0]).ok_or_else(|| bad(0, "__htab_map_lookup_elem: not a map"))?;
                let key = self.mem.read(a[1], self.maps[m].def.key_size as usize).map_err(Self::fault(0))?.to_vec();
                match &mut self.maps[m].store {
                    super::maps::Store::Hash(h) => Ok(Flow::Ret(h.elem_of_touched(&key))),
                    _ => Err(bad(0, "__htab_map_lookup_elem on a map that is not a hash")),
                }
            }
            Internal::TimedMayGoto => Err(bad(0, "arch_bpf_timed_may_goto is called through its own convention")),
        }
    }

    /// `bpf_check_timed_may_goto` on `struct bpf_timed_may_goto { count;
    /// timestamp; }` at `at`: the loop's new count.
    pub(crate) fn timed_may_goto(&mut self, at: Addr) -> Result<u64, Fault> {
        let now = self.now_ns();
        self.advance_clock(self.opts.timed_may_goto_ns);
        let ts = self.mem.load(at.wrapping_add(8), 8)?;
        if ts == 0 {
            self.mem.store(at.wrapping_add(8), 8, now)?;
            return Ok(u64::from(BPF_MAX_TIMED_LOOPS));
        }
        Ok(if now.wrapping_sub(ts) >= 250_000_000 { 0 } else { u64::from(BPF_MAX_TIMED_LOOPS) })
    }

    /// `bpf_tail_call(ctx, map, index)`: jump to the program in the slot,
    /// or fall through when it is empty, out of range or the chain is too long.
    pub(crate) fn tail_call(&mut self, map: Addr, index: u64) -> Result<Flow, ExecError> {
        let m = self.map_at(map).ok_or_else(|| ExecError::Unsupported("tail call through a non-map pointer".into()))?;
        let super::maps::Store::ProgArray { slots } = &self.maps[m].store else {
            return Err(ExecError::Unsupported("tail call through a map that is not a prog array".into()));
        };
        let index = index as u32;
        if index >= self.maps[m].def.max_entries || self.tail_calls >= MAX_TAIL_CALL_CNT {
            return Ok(Flow::Keep);
        }
        match slots.get(index as usize).copied().flatten() {
            Some(p) if p < self.progs.len() => {
                self.tail_calls += 1;
                Ok(Flow::TailCall(p))
            }
            _ => Ok(Flow::Keep),
        }
    }
}

fn at_pc(e: ExecError, pc: usize) -> ExecError {
    match e {
        ExecError::Fault { fault, .. } => ExecError::Fault { pc, fault },
        ExecError::BadInsn { why, .. } => ExecError::BadInsn { pc, why },
        e => e,
    }
}

fn jump(pc: usize, delta: i64) -> Result<usize, ExecError> {
    let t = pc as i64 + 1 + delta;
    usize::try_from(t).map_err(|_| bad(pc, "jump before the program start"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_edge_cases() {
        assert_eq!(alu64(BPF_DIV, 0, 7, 0), Some(0));
        assert_eq!(alu64(BPF_MOD, 0, 7, 0), Some(7));
        assert_eq!(alu64(BPF_DIV, 1, i64::MIN as u64, -1i64 as u64), Some(i64::MIN as u64));
        assert_eq!(alu64(BPF_MOD, 1, i64::MIN as u64, -1i64 as u64), Some(0));
        assert_eq!(alu64(BPF_MOD, 1, -7i64 as u64, 2), Some(-1i64 as u64));
        assert_eq!(alu32(BPF_MOD, 0, 0xffff_ffff_0000_0007, 0), Some(7));
        assert_eq!(alu32(BPF_DIV, 1, i32::MIN as u32 as u64, -1i32 as u32 as u64), Some(i32::MIN as u32 as u64));
        assert_eq!(alu32(BPF_MOD, 1, (-7i32) as u32 as u64, 2), Some((-1i32) as u32 as u64));
        assert_eq!(alu32(BPF_ARSH, 0, 0x8000_0000, 31), Some(0xffff_ffff));
        assert_eq!(alu64(BPF_LSH, 0, 1, 65), Some(2));
        assert_eq!(alu32(BPF_MOV, 8, 0x80, 0x80), Some(0xffff_ff80));
        assert_eq!(endian(BPF_ALU, true, 16, 0x1234_5678), Some(0x7856));
        assert_eq!(endian(BPF_ALU64, false, 32, 0x1_1234_5678), Some(0x7856_3412));
        assert_eq!(jmp_cond(BPF_JSGT, false, 0xffff_ffff, 0), Some(false));
        assert_eq!(jmp_cond(BPF_JGT, false, 0x1_0000_0000, 0), Some(false));
    }
}
