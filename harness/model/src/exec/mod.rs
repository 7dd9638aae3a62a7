//! Execution: what `BPF_PROG_TEST_RUN` does with a loaded program, in
//! userspace, so that `#[retval]` can be answered without a kernel.
//!
//! * [`interp`]: an interpreter with the semantics 7.3's JITed code has
//!   after the verifier's fixups (`___bpf_prog_run` plus the div/mod
//!   guards, so division by zero and `INT_MIN / -1` give the patched
//!   results), bpf2bpf calls with callee-saved r6-r9 and one stack per
//!   frame, stack arguments through r11, tail calls, callbacks;
//! * [`mem`]: a bounds-checked address space of regions (no pointers into
//!   Rust memory; a bad access is an error, never a panic); a
//!   `BPF_F_MMAPABLE` array's region is populated a page at a time as it
//!   is written ([`mem::Memory::alloc_lazy`]), and user space's mapping of
//!   it is [`Runtime::map_mmap`];
//! * [`maps`]: maps laid out as the kernel's (array values after
//!   `struct bpf_array`, hash elements as `struct htab_elem`) with their
//!   behaviour: array, per-CPU array, [`htab`] (hash kinds, with the
//!   element reuse programs can see), [`lru`] (the kernel's LRU lists),
//!   ring buffer, queue/stack, bloom filter, prog array, cgroup storage;
//! * [`helpers`] and [`kfuncs`]: the functions programs call;
//! * [`ctx`]: the ctx and packet each program type gets in a test run, and
//!   what the run hands back; for xlated programs also the kernel's objects
//!   behind the ctx (`struct sk_buff` with its device and socket, `struct
//!   xdp_buff` with its rxq) at the Debian 7.3 offsets, the fields a test
//!   run fills;
//! * [`xlated`]: the xlated program (after every fixup) as a program to
//!   run: what the model's test runs execute;
//! * [`trampoline`]: programs attached to the kernel functions and
//!   tracepoints a run reaches, with 7.3's recursion check and run
//!   counters;
//! * [`native`]: the x86-64 JIT's code of it run natively on x86-64 Linux
//!   hosts, in a runtime whose memory is at host addresses, compared with
//!   the interpreter.
//!
//! Measured against 7.3 under QEMU on a corpus of small programs and two
//! seeded random corpora (retval and `data_out`) and on the `__retval` of
//! the kernel's own `verifier_*.c` tests.
//!
//! Arena memory is [`arena`]'s: a page map for the interpreter, and for
//! native runs a real 4 GiB window (faults fixed up by the JIT's exception
//! table). flow_dissector and sk_lookup test runs hand the program the
//! kernel's ctx object, so only the xlated program runs them.
//!
//! Not modelled yet (the run fails with [`ExecError::Unsupported`], never a
//! guess): `gotox` jump tables, fentry/fexit programs on kernel functions
//! other than those [`trampoline`] knows, the program as loaded of
//! sk_lookup and flow dissector runs, netfilter test runs, a socket an
//! sk_lookup program selects, non-linear skbs (`__linear_size`),
//! sockets to look up (lookups find none, as in a test run), and the fields
//! of the kernel's ctx objects a test run does not fill (an xlated program
//! that loads one stops as not modelled; [`test_run_accepted`] then runs
//! the program as loaded, [`RunPath::AsLoaded`]).
//!
//! A program is run as an [`ExecProgram`]: its instructions plus, resolved
//! before the run, the target of every call ([`CallTarget`]) and the value
//! of every special `ld_imm64` ([`Imm64`]). [`ExecProgram::from_loaded`]
//! builds one from the program as loaded and what its loader resolved;
//! [`ExecProgram::from_xlated`] from the xlated program, with calls by
//! kernel address resolved to helpers, kfuncs and [`Internal`] kernel
//! functions.
//!
//! Deterministic by construction: `bpf_get_prandom_u32` is a seeded PRNG,
//! time is a fake clock that advances per read, there is one CPU.

pub mod arena;
pub mod ctx;
pub mod helpers;
pub mod htab;
pub mod interp;
pub mod kfuncs;
pub mod lru;
pub mod maps;
pub mod mem;
pub mod native;
mod runtime;
pub mod trampoline;
pub mod xlated;

use std::fmt;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::target::Arch;
pub use kfuncs::Kfunc;
pub use mem::{Addr, Fault};
pub use runtime::Runtime;

/// What a `call` instruction calls, resolved before the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallTarget {
    /// A helper by its `BPF_FUNC_*` id.
    Helper(i32),
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
    /// `__htab_map_lookup_elem(map, key)`: the element (`struct htab_elem
    /// *`), not the value, or NULL; inlined hash lookups add the value's
    /// offset themselves.
    HtabLookupElem,
    /// `arch_bpf_timed_may_goto`: its own convention: the stack offset of
    /// the loop's `struct bpf_timed_may_goto` in AX (r12) in, the new count
    /// in AX out, every other register kept. Time is the fake clock's: the
    /// count is refreshed until 250 ms have passed since the loop began.
    TimedMayGoto,
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

/// What the loader resolved at an instruction of the program as loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// The value of an `ld_imm64` (a map, a map value, a ksym).
    Imm64(Imm64),
    /// The target of a call (a kfunc by name).
    Call(CallTarget),
}

/// A program ready to run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecProgram {
    pub insns: Vec<Insn>,
    /// The target of the call at each instruction (`None` elsewhere).
    pub calls: Vec<Option<CallTarget>>,
    /// The value of the special `ld_imm64` at each instruction (and of a
    /// `mov` of a per-CPU kernel variable's address in an xlated program).
    pub imm64: Vec<Option<Imm64>>,
    /// Stack bytes each frame gets (`MAX_BPF_STACK`, or more when the
    /// fixups' extra slots need it).
    pub frame_size: u32,
    /// The program reads the kernel's object behind its ctx (`struct
    /// sk_buff`, `struct xdp_buff`), as an xlated program's converted
    /// accesses do, instead of the uapi view.
    pub kernel_ctx: bool,
}

pub use bpf_isa::insn::MAX_BPF_STACK;

impl ExecProgram {
    /// The program as loaded (before the verifier's rewrites): helper calls
    /// by id, pseudo calls and funcs by relative offset, the `imm` of a
    /// `BPF_PSEUDO_MAP_*` as a map index, then what the loader resolved
    /// (`resolved`: map loads, kfunc calls and ksyms by instruction), which
    /// takes precedence.
    pub fn from_loaded(insns: &[Insn], resolved: impl IntoIterator<Item = (usize, Resolved)>) -> ExecProgram {
        let n = insns.len();
        let mut calls = vec![None; n];
        let mut imm64 = vec![None; n];
        for (pc, insn) in insns.iter().enumerate() {
            if insn.is_call() {
                calls[pc] = match insn.src {
                    0 => Some(CallTarget::Helper(insn.imm)),
                    BPF_PSEUDO_CALL => rel_target(pc, insn.imm, n).map(CallTarget::Subprog),
                    _ => None,
                };
            } else if insn.is_ld_imm64() {
                imm64[pc] = match insn.src {
                    BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX => Some(Imm64::Map(insn.imm as u32 as usize)),
                    BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => {
                        Some(Imm64::MapValue { map: insn.imm as u32 as usize, off: insns.get(pc + 1).map_or(0, |i| i.imm as u32) })
                    }
                    BPF_PSEUDO_FUNC => rel_target(pc, insn.imm, n).map(Imm64::Func),
                    _ => None,
                };
            }
        }
        for (pc, r) in resolved {
            match r {
                Resolved::Imm64(v) => set(&mut imm64, pc, v),
                Resolved::Call(t) => set(&mut calls, pc, t),
            }
        }
        ExecProgram { insns: insns.to_vec(), calls, imm64, frame_size: MAX_BPF_STACK, kernel_ctx: false }
    }

    /// A program of raw instructions with no maps or kfuncs.
    pub fn from_insns(insns: &[Insn]) -> ExecProgram {
        ExecProgram::from_loaded(insns, [])
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
    /// How far the fake clock jumps at each refill of a timed `may_goto`
    /// loop's count (`arch_bpf_timed_may_goto`), so that its 250 ms end
    /// after a fixed number of refills, the same number for the
    /// interpreter and native code (which counts no instructions). 8 ms:
    /// 31 refills of 65,535 turns, 2.03M, far fewer than the kernel's JIT
    /// gets through in 250 ms but enough for the selftests' loops of up to
    /// two million turns (cond_break1) to finish, as on 7.3, while endless
    /// loops still end within the default budget.
    pub timed_may_goto_ns: u64,
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
            timed_may_goto_ns: 8_000_000,
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
    /// `duration`: of a native run, the mean nanoseconds of one of its
    /// `repeat` runs, as the kernel measures it; of an interpreted one, a
    /// stand-in (the instructions executed, at least 1), not a time.
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

/// Input of `BPF_PROG_TEST_RUN`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestRunInput {
    pub data: Vec<u8>,
    pub ctx: Option<Vec<u8>>,
    /// Size of the `data_out` buffer.
    pub data_out_size: u32,
    pub repeat: u32,
}

impl TestRunInput {
    /// What test_loader passes: 64 zero bytes in, a 256-byte buffer out;
    /// nothing at all for `BPF_PROG_TYPE_SYSCALL`.
    pub fn test_loader(prog_type: ProgType) -> TestRunInput {
        if prog_type == crate::prog_type::SYSCALL {
            // test_loader zeroes all options for SYSCALL, repeat included
            // (the kernel refuses a repeat count for this type: EINVAL)
            TestRunInput { data: Vec::new(), ctx: None, data_out_size: 0, repeat: 0 }
        } else {
            TestRunInput { data: vec![0; 64], ctx: None, data_out_size: 256, repeat: 1 }
        }
    }
}

/// The loaded program a test run is of: what `BPF_PROG_TEST_RUN` finds
/// behind the program fd, besides its instructions.
#[derive(Clone, Copy, Debug)]
pub struct LoadedProg<'a> {
    /// The arch whose kernel runs it.
    pub arch: Arch,
    pub prog_type: ProgType,
    pub expected_attach_type: Option<u32>,
    /// Its maps, by the loader's map index, with their initial contents.
    pub maps: &'a [MapDef],
    /// Its name: the prog array slots that name it hold it once loaded
    /// (the loader's `init_prog_array_slots`).
    pub name: Option<&'a str>,
}

/// `BPF_PROG_TEST_RUN` of `prog` (the program as loaded, or the xlated one
/// with its resolved calls) loaded as `loaded`.
pub fn test_run_program(loaded: &LoadedProg<'_>, prog: &ExecProgram, input: &TestRunInput, opts: &ExecOptions) -> Result<TestRunOutput, ExecError> {
    test_run_program_with(loaded, prog, input, opts, &RunSetup::default()).map(|(out, _)| out)
}

/// What surrounds a test run: programs attached before it (their xlated
/// programs, with the request's maps), the program under test attached
/// too, global data written before and read after it (map index, offset,
/// bytes or length), as a user would through an mmap of the map.
#[derive(Clone, Debug, Default)]
pub struct RunSetup {
    pub attached: Vec<(ExecProgram, trampoline::AttachKind, String)>,
    pub attach_self: Option<(trampoline::AttachKind, String)>,
    pub global_init: Vec<(usize, u32, Vec<u8>)>,
    pub global_read: Vec<(usize, u32, u32)>,
}

/// What was read after a run with a [`RunSetup`]: the counters of the
/// program under test and of each attached program, in order, and the
/// bytes of each `global_read`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    pub stats: Vec<trampoline::ProgStats>,
    pub globals: Vec<Vec<u8>>,
}

/// [`test_run_program`] with its surroundings.
pub fn test_run_program_with(
    loaded: &LoadedProg<'_>,
    prog: &ExecProgram,
    input: &TestRunInput,
    opts: &ExecOptions,
    setup: &RunSetup,
) -> Result<(TestRunOutput, RunReport), ExecError> {
    let mut rt = Runtime::new(loaded.maps, opts)?;
    if let Some(name) = loaded.name {
        rt.fill_self_slots(loaded.maps, name);
    }
    let mut indexes = Vec::with_capacity(setup.attached.len());
    for (p, kind, target) in &setup.attached {
        let k = rt.add_program(p.clone());
        rt.tracing.attach(k, *kind, target);
        indexes.push(k);
    }
    if let Some((kind, target)) = &setup.attach_self {
        rt.tracing.attach(0, *kind, target);
    }
    for (map, off, bytes) in &setup.global_init {
        rt.user_map_write(*map, *off, bytes)?;
    }
    let out = rt.test_run(prog, loaded.prog_type, loaded.expected_attach_type, input)?;
    let mut report = RunReport { stats: vec![rt.tracing.stats_of(0)], globals: Vec::new() };
    report.stats.extend(indexes.iter().map(|&k| rt.tracing.stats_of(k)));
    for (map, off, len) in &setup.global_read {
        report.globals.push(rt.user_map_read(*map, *off, *len)?);
    }
    Ok((out, report))
}

/// Which program a model test run executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunPath {
    /// The xlated program, as the kernel runs it.
    Xlated,
    /// The program as loaded, because the xlated one could not run (why).
    AsLoaded(String),
}

/// The model's test run of an accepted load: the xlated program (`xlated`,
/// as it runs) when the runtime can run it, else the program as loaded
/// (`as_loaded`; the reason is in the [`RunPath`]): a call of a kernel
/// function the runtime does not have, or a field of the kernel's ctx
/// object the model does not fill. `Ok(Err(errno))` is a test run that
/// `BPF_PROG_TEST_RUN` itself refuses.
pub fn test_run_accepted(
    loaded: &LoadedProg<'_>,
    xlated: &[Insn],
    as_loaded: &ExecProgram,
    input: &TestRunInput,
) -> Result<(Result<TestRunOutput, i32>, RunPath), ExecError> {
    test_run_accepted_with(loaded, xlated, as_loaded, input, &RunSetup::default()).map(|(out, path, _)| (out, path))
}

/// [`test_run_accepted`] with its surroundings.
pub fn test_run_accepted_with(
    loaded: &LoadedProg<'_>,
    xlated: &[Insn],
    as_loaded: &ExecProgram,
    input: &TestRunInput,
    setup: &RunSetup,
) -> Result<(Result<TestRunOutput, i32>, RunPath, RunReport), ExecError> {
    let opts = ExecOptions { arch: loaded.arch, ..ExecOptions::default() };
    let refused = |r: Result<(TestRunOutput, RunReport), ExecError>| match r {
        Err(ExecError::TestRun(e)) => Ok((Err(e), RunReport::default())),
        r => r.map(|(out, rep)| (Ok(out), rep)),
    };
    let why = match ExecProgram::from_xlated(xlated, loaded.arch, loaded.prog_type.0) {
        Ok(p) => match refused(test_run_program_with(loaded, &p, input, &opts, setup)) {
            Ok((out, rep)) => return Ok((out, RunPath::Xlated, rep)),
            Err(ExecError::Unsupported(why)) => why,
            Err(e) => return Err(e),
        },
        Err(why) => why,
    };
    let (out, rep) = refused(test_run_program_with(loaded, as_loaded, input, &opts, setup))?;
    Ok((out, RunPath::AsLoaded(why), rep))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::MapDef;
    use crate::prog_type;

    /// splitmix64, for reproducible garbage.
    fn rng(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Arbitrary instructions (mostly valid opcodes with wild operands, some
    /// pure noise), every program type, maps of every kind: the interpreter
    /// answers or refuses, it never panics or hangs.
    #[test]
    fn no_panics_on_arbitrary_programs() {
        let codes: Vec<u8> = (0..=255u8).collect();
        let maps: Vec<MapDef> = ["array", "percpu_array", "hash", "lru_hash", "percpu_hash", "ringbuf", "queue", "prog_array"]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let ty = crate::map::map_type_by_name(t).unwrap();
                let (k, v, n) = match *t {
                    "ringbuf" => (0, 0, 4096),
                    "queue" => (0, 8, 4),
                    _ => (4, 8, 4),
                };
                MapDef::new(&format!("m{i}"), ty, k, v, n)
            })
            .collect();
        let types = [prog_type::SOCKET_FILTER, prog_type::SCHED_CLS, prog_type::XDP, prog_type::SYSCALL, prog_type::RAW_TRACEPOINT];
        let mut s = 42u64;
        let opts = ExecOptions { insn_budget: 20_000, ..ExecOptions::default() };
        let mut completed = 0;
        for round in 0..20_000 {
            let n = 1 + (rng(&mut s) % 24) as usize;
            let insns: Vec<Insn> = (0..n)
                .map(|_| {
                    let r = rng(&mut s);
                    let code = if r.is_multiple_of(8) { r as u8 } else { codes[(r >> 8) as usize % codes.len()] };
                    let v = rng(&mut s);
                    let off = if v.is_multiple_of(3) { (v >> 16) as i16 } else { ((v >> 16) % 16) as i16 - 8 };
                    let imm = if v.is_multiple_of(5) { (v >> 32) as i32 } else { ((v >> 32) % 64) as i32 - 16 };
                    Insn::new(code, (v % 13) as u8, ((v >> 4) % 13) as u8, off, imm)
                })
                .collect();
            let mut p = ExecProgram::from_insns(&insns);
            // sprinkle resolved calls and map loads
            for (pc, i) in insns.iter().enumerate() {
                if i.is_call() {
                    p.calls[pc] = Some(match rng(&mut s) % 4 {
                        0 => CallTarget::Helper(((i.imm as u32) % 212) as i32),
                        1 => CallTarget::Subprog((i.imm as u32 as usize) % n),
                        2 => CallTarget::Kfunc(Kfunc::by_name("bpf_iter_num_next")),
                        _ => CallTarget::Internal(Internal::SkbLoadNoCache(4)),
                    });
                } else if i.is_ld_imm64() {
                    p.imm64[pc] = Some(match rng(&mut s) % 3 {
                        0 => Imm64::Map(i.imm as u32 as usize % 10),
                        1 => Imm64::MapValue { map: 0, off: i.imm as u32 },
                        _ => Imm64::Func(i.imm as u32 as usize),
                    });
                }
            }
            let ty = types[round % types.len()];
            let mut input = TestRunInput::test_loader(ty);
            // odd inputs too: every size of packet and ctx
            if round % 3 == 0 {
                let sizes = [0usize, 1, 13, 14, 15, 64, 3520, 3521, 5000, 80_000];
                input.data = vec![0xa5; sizes[(rng(&mut s) % sizes.len() as u64) as usize]];
                input.ctx = rng(&mut s).is_multiple_of(2).then(|| vec![(rng(&mut s) % 3) as u8; (rng(&mut s) % 300) as usize]);
                input.data_out_size = (rng(&mut s) % 9000) as u32;
                input.repeat = (rng(&mut s) % 2) as u32;
            }
            let mut rt = Runtime::new(&maps, &opts).unwrap();
            if rt.test_run(&p, ty, None, &input).is_ok() {
                completed += 1;
            }
        }
        assert!(completed > 100, "only {completed} programs ran to their end");
    }

    /// Odd map definitions: created or refused, never a panic.
    #[test]
    fn no_panics_on_odd_maps() {
        for ty in 0..40 {
            for (k, v, n) in [(0, 0, 0), (4, 0, 1), (0, 4, 1), (4, 8, u32::MAX), (u32::MAX, u32::MAX, 2), (4, 8, 4097)] {
                let d = MapDef::new("m", ty, k, v, n);
                let _ = Runtime::new(&[d], &ExecOptions::default());
            }
        }
    }

    /// What the fixups make of a hash lookup: `__htab_map_lookup_elem` and
    /// the value's offset added inline (`htab_map_gen_lookup`).
    #[test]
    fn inlined_hash_lookup_through_the_internal_call() {
        use crate::map::types::BPF_MAP_TYPE_HASH;
        let maps = [MapDef::new("h", BPF_MAP_TYPE_HASH, 4, 8, 4)];
        let ld_map = |dst| [Insn::new(BPF_LD | BPF_IMM | BPF_DW, dst, BPF_PSEUDO_MAP_FD, 0, 0), Insn::new(0, 0, 0, 0, 0)];
        let mut insns = vec![
            Insn::new(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 7),    // key 7
            Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 99), // value 99
        ];
        insns.extend(ld_map(1));
        insns.extend([
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -16),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 2), // bpf_map_update_elem
        ]);
        insns.extend(ld_map(1));
        let call_at = insns.len() + 2;
        insns.extend([
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
            Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 0), // __htab_map_lookup_elem
            Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 56),
            Insn::new(BPF_LDX | BPF_MEM | BPF_DW, 0, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ]);
        let mut p = ExecProgram::from_insns(&insns);
        for (pc, i) in insns.iter().enumerate() {
            if i.is_ld_imm64() {
                p.imm64[pc] = Some(Imm64::Map(0));
            }
        }
        p.calls[call_at] = Some(CallTarget::Internal(Internal::HtabLookupElem));
        let input = TestRunInput::test_loader(prog_type::SYSCALL);
        let mut rt = Runtime::new(&maps, &ExecOptions::default()).unwrap();
        assert_eq!(rt.test_run(&p, prog_type::SYSCALL, None, &input).unwrap().retval, 99);
    }

    /// The timed `may_goto` sequence of 7.3's fixups ends a loop once the
    /// (fake) clock says 250 ms have passed.
    #[test]
    fn timed_may_goto_ends_a_loop() {
        const AX: u8 = bpf_isa::insn::BPF_REG_AX;
        // *(u64 *)(r10 -16) = 0xffff; *(u64 *)(r10 -8) = 0; r0 = 0;
        // loop: AX = *(u64 *)(r10 -16); if AX == 0 goto out; AX -= 1;
        //       if AX != 0 goto store; AX = -16; call timed_may_goto;
        // store: *(u64 *)(r10 -16) = AX; r0 += 1; goto loop; out: exit
        let insns = [
            Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 0xffff),
            Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 0),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
            Insn::new(BPF_LDX | BPF_MEM | BPF_DW, AX, 10, -16, 0),
            Insn::new(BPF_JMP | BPF_JEQ | BPF_K, AX, 0, 7, 0),
            Insn::new(BPF_ALU64 | BPF_SUB | BPF_K, AX, 0, 0, 1),
            Insn::new(BPF_JMP | BPF_JNE | BPF_K, AX, 0, 2, 0),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, AX, 0, 0, -16),
            Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 0),
            Insn::new(BPF_STX | BPF_MEM | BPF_DW, 10, AX, -16, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1),
            Insn::new(BPF_JMP | BPF_JA, 0, 0, -9, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let mut p = ExecProgram::from_insns(&insns);
        p.calls[8] = Some(CallTarget::Internal(Internal::TimedMayGoto));
        // one clock read per refill: 250 ms at 25 ms a read is 10 refills
        let opts = ExecOptions { clock_step_ns: 25_000_000, timed_may_goto_ns: 0, ..ExecOptions::default() };
        let mut rt = Runtime::new(&[], &opts).unwrap();
        let input = TestRunInput::test_loader(prog_type::SYSCALL);
        let out = rt.test_run(&p, prog_type::SYSCALL, None, &input).unwrap();
        assert_eq!(out.retval, 0xffff * 11);
    }

    #[test]
    fn budget_stops_an_endless_loop() {
        // l: goto l
        let p = ExecProgram::from_insns(&[Insn::new(BPF_JMP | BPF_JA, 0, 0, -1, 0)]);
        let opts = ExecOptions { insn_budget: 1000, ..ExecOptions::default() };
        let mut rt = Runtime::new(&[], &opts).unwrap();
        let input = TestRunInput::test_loader(prog_type::SOCKET_FILTER);
        assert_eq!(rt.test_run(&p, prog_type::SOCKET_FILTER, None, &input), Err(ExecError::Budget(1000)));
    }

    #[test]
    fn tail_call_into_a_prog_array_slot() {
        use crate::map::types::BPF_MAP_TYPE_PROG_ARRAY;
        let maps = [MapDef::new("jmp", BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 2)];
        // r2 = map; r3 = index; call bpf_tail_call; r0 = 1; exit
        let main = |index: i32| {
            let mut p = ExecProgram::from_insns(&[
                Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_MAP_FD, 0, 0),
                Insn::new(0, 0, 0, 0, 0),
                Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, index),
                Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 12),
                Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1),
                Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            ]);
            p.imm64[0] = Some(Imm64::Map(0));
            p
        };
        let target = ExecProgram::from_insns(&[Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 42), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)]);
        let input = TestRunInput::test_loader(prog_type::SOCKET_FILTER);
        for (index, want) in [(0, 42), (1, 1), (7, 1)] {
            let mut rt = Runtime::new(&maps, &ExecOptions::default()).unwrap();
            let t = rt.add_program(target.clone());
            rt.set_prog_array_slot(0, 0, Some(t)).unwrap();
            let out = rt.test_run(&main(index), prog_type::SOCKET_FILTER, None, &input).unwrap();
            assert_eq!(out.retval, want, "index {index}");
        }
    }

    /// A 1 GiB `BPF_F_MMAPABLE` array costs the pages written of it: one
    /// by the program, one by user space through its mapping; pages only
    /// read (by either) read as zeros and are not created.
    #[test]
    fn mmapable_array_pages_exist_once_written() {
        use crate::map::flags::{BPF_F_MMAPABLE, BPF_F_RDONLY_PROG};
        use crate::map::types::{BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_HASH};
        use maps::MmapError;
        const PAGE: u64 = 4096;
        let mut big = MapDef::new("big", BPF_MAP_TYPE_ARRAY, 4, 4096, 1 << 18);
        big.map_flags = BPF_F_MMAPABLE;
        let mut rt = Runtime::new(&[big.clone()], &ExecOptions::default()).unwrap();
        assert_eq!(rt.resident_map_pages(), 0);
        let view = rt.map_mmap(0, 0, 1 << 30, true).unwrap();
        assert_eq!(view.len, 1 << 30);
        // user space writes page 200 before the run
        view.write(&mut rt.mem, 200 * PAGE + 16, &0x0bad_cafe_u64.to_le_bytes()).unwrap();
        assert_eq!(rt.resident_map_pages(), 1);
        // r1 = &big[100 pages in]; r2 = 0x11223344; *(u64 *)(r1 + 8) = r2;
        // r1 = &big[200 pages in]; r0 = *(u64 *)(r1 + 16);
        // r1 = &big[300 pages in]; r2 = *(u64 *)(r1 + 0); r0 += r2; exit
        let insns = [
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 2, 0, 0),
            Insn::new(0, 0, 0, 0, 0),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 0x1122_3344),
            Insn::new(BPF_STX | BPF_MEM | BPF_DW, 1, 2, 8, 0),
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 2, 0, 0),
            Insn::new(0, 0, 0, 0, 0),
            Insn::new(BPF_LDX | BPF_MEM | BPF_DW, 0, 1, 16, 0),
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 2, 0, 0),
            Insn::new(0, 0, 0, 0, 0),
            Insn::new(BPF_LDX | BPF_MEM | BPF_DW, 2, 1, 0, 0),
            Insn::new(BPF_ALU64 | BPF_ADD | BPF_X, 0, 2, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let mut p = ExecProgram::from_insns(&insns);
        for (pc, page) in [(0, 100), (4, 200), (7, 300)] {
            p.imm64[pc] = Some(Imm64::MapValue { map: 0, off: (page * PAGE) as u32 });
        }
        let input = TestRunInput::test_loader(prog_type::SYSCALL);
        assert_eq!(rt.test_run(&p, prog_type::SYSCALL, None, &input).unwrap().retval, 0x0bad_cafe);
        assert_eq!(rt.resident_map_pages(), 2);
        // user space reads back what the program wrote, and zeros elsewhere
        assert_eq!(view.read(&rt.mem, 100 * PAGE + 8, 8).unwrap(), 0x1122_3344_u64.to_le_bytes());
        assert_eq!(view.read(&rt.mem, 500 * PAGE, 4096).unwrap(), vec![0; 4096]);
        assert_eq!(rt.resident_map_pages(), 2);
        // the mapping's bounds and protection
        assert!(view.read(&rt.mem, (1 << 30) - 4, 8).is_err());
        let ro = rt.map_mmap(0, 10, PAGE, false).unwrap();
        assert!(ro.write(&mut rt.mem, 0, &[1]).is_err());
        assert_eq!(ro.read(&rt.mem, 0, 1).unwrap(), [0]);

        // mmap(2)'s answers: array_map_mmap's range and flags, bpf_map_mmap's
        // protection checks, maps without a map_mmap op
        assert_eq!(rt.map_mmap(0, (1 << 18) - 1, 2 * PAGE, false), Err(MmapError::Errno(crate::verifier::errno::EINVAL)));
        assert_eq!(rt.map_mmap(0, 0, 0, false), Err(MmapError::Errno(crate::verifier::errno::EINVAL)));
        let plain = MapDef::new("plain", BPF_MAP_TYPE_ARRAY, 4, 8, 4);
        let mut rdonly = MapDef::new("rodata", BPF_MAP_TYPE_ARRAY, 4, 8, 4);
        rdonly.map_flags = BPF_F_MMAPABLE | BPF_F_RDONLY_PROG;
        let mut frozen = MapDef::new("frozen", BPF_MAP_TYPE_ARRAY, 4, 8, 4);
        (frozen.map_flags, frozen.frozen) = (BPF_F_MMAPABLE, true);
        let hash = MapDef::new("h", BPF_MAP_TYPE_HASH, 4, 8, 4);
        let rt2 = Runtime::new(&[plain, rdonly, frozen, hash], &ExecOptions::default()).unwrap();
        assert_eq!(rt2.map_mmap(0, 0, PAGE, false), Err(MmapError::Errno(crate::verifier::errno::EINVAL)));
        assert_eq!(rt2.map_mmap(1, 0, PAGE, true), Err(MmapError::Errno(crate::verifier::errno::EACCES)));
        assert!(rt2.map_mmap(1, 0, PAGE, false).is_ok());
        assert_eq!(rt2.map_mmap(2, 0, PAGE, true), Err(MmapError::Errno(crate::verifier::errno::EPERM)));
        assert_eq!(rt2.map_mmap(3, 0, PAGE, false), Err(MmapError::Errno(524)));
        // a plain array's pages all exist (one), the mmap-able ones' none
        // is written yet
        assert_eq!(rt2.resident_map_pages(), 1);
    }

    /// The largest mmap-able array the model runs: 4 GiB of values, of which
    /// only the pages written exist; a byte more is refused.
    #[test]
    fn mmapable_array_of_4_gib() {
        use crate::map::flags::BPF_F_MMAPABLE;
        use crate::map::types::BPF_MAP_TYPE_ARRAY;
        let mut d = MapDef::new("huge", BPF_MAP_TYPE_ARRAY, 4, 1 << 16, 1 << 16);
        d.map_flags = BPF_F_MMAPABLE;
        let mut rt = Runtime::new(&[d.clone()], &ExecOptions::default()).unwrap();
        let view = rt.map_mmap(0, (1 << 20) - 1, 4096, true).unwrap();
        view.write(&mut rt.mem, 4088, &[7; 8]).unwrap();
        assert_eq!(rt.resident_map_pages(), 1);
        assert_eq!(rt.mem.load(rt.maps[0].addr + crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE as u64 + (4 << 30) - 1, 1).unwrap(), 7);
        d.max_entries += 1;
        assert!(Runtime::new(&[d], &ExecOptions::default()).is_err());
    }
}
