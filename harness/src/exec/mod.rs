//! Execution: what `BPF_PROG_TEST_RUN` does with a loaded program, in
//! userspace, so that `#[retval]` can be answered without a kernel.
//!
//! * [`interp`]: an interpreter with the semantics 7.3's JITed code has
//!   after the verifier's fixups (`___bpf_prog_run` plus the div/mod
//!   guards, so division by zero and `INT_MIN / -1` give the patched
//!   results), bpf2bpf calls with callee-saved r6-r9 and one stack per
//!   frame, stack arguments through r11, tail calls, callbacks;
//! * [`mem`]: a bounds-checked address space of regions (no pointers into
//!   Rust memory; a bad access is an error, never a panic);
//! * [`maps`]: maps with their kernel behaviour (array, per-CPU array, hash,
//!   per-CPU and LRU hash, ring buffer, queue/stack, bloom filter, prog
//!   array, map-in-map);
//! * [`helpers`] and [`kfuncs`]: the functions programs call;
//! * [`ctx`]: the ctx and packet each program type gets in a test run, and
//!   what the run hands back.
//!
//! A program is run as an [`ExecProgram`]: its instructions plus, resolved
//! before the run, the target of every call ([`CallTarget`]) and the value
//! of every special `ld_imm64` ([`Imm64`]). [`ExecProgram::from_linked`]
//! builds one from the linker's output (the program as loaded); the fixups
//! stage builds one for the xlated program, with the call targets its own
//! rewrites chose (inlined helpers, [`Internal`] kernel functions).
//!
//! Deterministic by construction: `bpf_get_prandom_u32` is a seeded PRNG,
//! time is a fake clock that advances per read, there is one CPU.

pub mod ctx;
pub mod helpers;
pub mod interp;
pub mod kfuncs;
pub mod maps;
pub mod mem;
mod runtime;

use std::fmt;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use crate::backend::{LoadRequest, TestRunInput};
use crate::link::{LinkReloc, LinkedProgram};
use crate::target::Arch;
pub use kfuncs::Kfunc;
pub use mem::{Addr, Fault};
pub use runtime::Runtime;

/// What a `call` instruction calls, resolved before the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// A helper by its `BPF_FUNC_*` id.
    Helper(u32),
    /// A kernel function called by BTF id in the program as loaded.
    Kfunc(Kfunc),
    /// A bpf2bpf call: the callee's first instruction.
    Subprog(usize),
    /// A kernel-internal function that only the verifier's rewrites call.
    Internal(Internal),
}

/// Kernel-internal functions fixups emit calls to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Internal {
    /// `bpf_skb_load_helper_{8,16,32}_no_cache(skb, offset)`: what `LD_ABS`
    /// and `LD_IND` become; the size in bytes.
    SkbLoadNoCache(u8),
    /// The tail call instruction (`BPF_JMP | BPF_TAIL_CALL`) as a call.
    TailCall,
}

/// The value of an `ld_imm64` that is not a plain constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Imm64 {
    /// `BPF_PSEUDO_MAP_FD`: the map object of map index `.0`.
    Map(usize),
    /// `BPF_PSEUDO_MAP_VALUE`: an address inside the (array) map's value.
    MapValue { map: usize, off: u32 },
    /// `BPF_PSEUDO_FUNC`: a callback, by its first instruction.
    Func(usize),
    /// `BPF_PSEUDO_BTF_ID`: a kernel variable (`__ksym`), by name.
    Ksym(String),
}

/// A program ready to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecProgram {
    pub insns: Vec<Insn>,
    /// The target of the call at each instruction (`None` elsewhere).
    pub calls: Vec<Option<CallTarget>>,
    /// The value of the special `ld_imm64` at each instruction.
    pub imm64: Vec<Option<Imm64>>,
    /// Stack bytes each frame gets (`MAX_BPF_STACK`, or more when the
    /// fixups' extra slots need it).
    pub frame_size: u32,
}

/// `MAX_BPF_STACK`.
pub const MAX_BPF_STACK: u32 = 512;

impl ExecProgram {
    /// The program as loaded (before the verifier's rewrites): helper calls
    /// by id, kfunc calls by the linker's names, pseudo calls and funcs by
    /// relative offset, maps by the linker's relocations (or, without one,
    /// the `imm` of a `BPF_PSEUDO_MAP_*` as a map index).
    pub fn from_linked(p: &LinkedProgram) -> ExecProgram {
        let n = p.insns.len();
        let mut calls = vec![None; n];
        let mut imm64 = vec![None; n];
        for (pc, insn) in p.insns.iter().enumerate() {
            if insn.is_call() {
                calls[pc] = match insn.src {
                    0 => Some(CallTarget::Helper(insn.imm as u32)),
                    BPF_PSEUDO_CALL => rel_target(pc, insn.imm, n).map(CallTarget::Subprog),
                    _ => None,
                };
            } else if insn.is_ld_imm64() {
                imm64[pc] = match insn.src {
                    BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX => Some(Imm64::Map(insn.imm as u32 as usize)),
                    BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => Some(Imm64::MapValue {
                        map: insn.imm as u32 as usize,
                        off: p.insns.get(pc + 1).map_or(0, |i| i.imm as u32),
                    }),
                    BPF_PSEUDO_FUNC => rel_target(pc, insn.imm, n).map(Imm64::Func),
                    _ => None,
                };
            }
        }
        for r in &p.relocs {
            match r {
                LinkReloc::Map { insn, map } => set(&mut imm64, *insn, Imm64::Map(*map)),
                LinkReloc::MapValue { insn, map, off } => {
                    set(&mut imm64, *insn, Imm64::MapValue { map: *map, off: *off })
                }
                LinkReloc::BtfId { insn, name } => set(&mut imm64, *insn, Imm64::Ksym(name.clone())),
                LinkReloc::Kfunc { insn, name } => set(&mut calls, *insn, CallTarget::Kfunc(Kfunc::by_name(name))),
            }
        }
        ExecProgram {
            insns: p.insns.clone(),
            calls,
            imm64,
            frame_size: MAX_BPF_STACK,
        }
    }

    /// A program of raw instructions with no maps or kfuncs.
    pub fn from_insns(insns: &[Insn]) -> ExecProgram {
        ExecProgram::from_linked(&LinkedProgram {
            insns: insns.to_vec(),
            ..Default::default()
        })
    }
}

fn rel_target(pc: usize, imm: i32, n: usize) -> Option<usize> {
    let t = pc as i64 + 1 + imm as i64;
    (0..n as i64).contains(&t).then_some(t as usize)
}

fn set<T>(v: &mut [Option<T>], at: usize, x: T) {
    if let Some(slot) = v.get_mut(at) {
        *slot = Some(x);
    }
}

/// Knobs of a run.
#[derive(Clone, Debug)]
pub struct ExecOptions {
    /// Instructions a run may execute before it is stopped ([`ExecError::Budget`]).
    pub insn_budget: u64,
    /// Seed of `bpf_get_prandom_u32`.
    pub prandom_seed: u64,
    /// The fake clock's first reading (ns since boot) and its step per read.
    pub clock_start_ns: u64,
    pub clock_step_ns: u64,
    /// The arch whose kernel is modelled (a few helpers differ by arch).
    pub arch: Arch,
}

impl Default for ExecOptions {
    fn default() -> ExecOptions {
        ExecOptions {
            insn_budget: 200_000_000,
            prandom_seed: 0x5eed_b9f0_0000_0001,
            clock_start_ns: 1_000_000_000,
            clock_step_ns: 1_000,
            arch: Arch::X86_64,
        }
    }
}

/// What a test run hands back, as `BPF_PROG_TEST_RUN` does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestRunOutput {
    /// The program's return value (`r0` truncated to 32 bits).
    pub retval: u32,
    /// The packet after the run (skb and xdp types), as `data_out` gets it.
    pub data_out: Vec<u8>,
    /// The ctx after the run, when the type hands it back.
    pub ctx_out: Option<Vec<u8>>,
    /// `duration` in ns (from the fake clock).
    pub duration: u32,
    /// Instructions executed.
    pub insns: u64,
    /// What `bpf_trace_printk` and `bpf_stream_*` printed.
    pub trace: String,
}

/// Why a run did not produce a [`TestRunOutput`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// `BPF_PROG_TEST_RUN` itself failed with this (positive) errno, as the
    /// kernel's would: a packet shorter than `ETH_HLEN`, input a program type
    /// does not take, a type without test runs.
    TestRun(i32),
    /// A memory access outside every region, or a store to read-only memory.
    /// For a program the verifier accepted that is a verifier bug.
    Fault { pc: usize, fault: Fault },
    /// An instruction that cannot execute (bad opcode, jump out of the
    /// program, unresolved call): the verifier should have rejected it.
    BadInsn { pc: usize, why: String },
    /// The run used something the model does not implement yet.
    Unsupported(String),
    /// The instruction budget ran out (a runaway loop).
    Budget(u64),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::TestRun(e) => write!(f, "test run failed: errno {e}"),
            ExecError::Fault { pc, fault } => write!(f, "insn {pc}: bad memory access: {fault}"),
            ExecError::BadInsn { pc, why } => write!(f, "insn {pc}: {why}"),
            ExecError::Unsupported(what) => write!(f, "not modelled yet: {what}"),
            ExecError::Budget(n) => write!(f, "stopped after {n} instructions (budget)"),
        }
    }
}

impl std::error::Error for ExecError {}

/// `BPF_PROG_TEST_RUN` of the program a [`LoadRequest`] loads, as loaded
/// (before fixups), with the request's maps and their initial contents.
pub fn test_run(req: &LoadRequest, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
    let opts = ExecOptions {
        arch: req.arch,
        ..ExecOptions::default()
    };
    test_run_program(req, &ExecProgram::from_linked(&req.prog), input, &opts)
}

/// `BPF_PROG_TEST_RUN` of `prog` (the program as loaded, or the xlated one
/// with its resolved calls) with the maps, type and attach type of `req`.
pub fn test_run_program(
    req: &LoadRequest,
    prog: &ExecProgram,
    input: &TestRunInput,
    opts: &ExecOptions,
) -> Result<TestRunOutput, ExecError> {
    let mut rt = Runtime::new(&req.maps, opts)?;
    rt.test_run(prog, req.prog_type, req.expected_attach_type, req.prog_flags, input)
}
