//! The load pipeline: what `BPF_PROG_LOAD` does with a program
//! (`bpf_prog_load` in `kernel/bpf/syscall.c`): `bpf_check` (the verifier's
//! phases, then the rewrites), then `bpf_prog_select_runtime` (the JIT
//! image of the target arch).

use std::time::Instant;

use bpf_isa::Insn;
use bpf_isa::op::{BPF_JMP, BPF_TAIL_CALL};

use crate::verifier::arena::{ArenaJit, kern_vm_start, prog_arena};
use crate::verifier::env::{VerifierEnv, VerifierInput};
use crate::verifier::{Decision, Fail, SubprogFacts, Verdict, finish, finish_rejected, not_modelled, print_verification_stats, verify};

/// `bpf_check`: the checks of `bpf_prog_load` and the log attributes, the
/// verifier's phases ([`verify`]), then for a program it accepts the
/// rewrites ([`crate::fixups::bpf_fixups`]), which may still fail, and the
/// statistics and the log's finalisation.
pub fn bpf_check(input: &VerifierInput) -> Verdict {
    let start = Instant::now();
    let mut env = match verify(input, start) {
        Ok(env) => env,
        Err(v) => return v,
    };
    // skip_full_check: the rewrites, which may still fail; only then come
    // the statistics
    match crate::fixups::bpf_fixups(&mut env) {
        Ok(()) => finish_accepted(&mut env, start),
        Err(Fail::Errno(e)) => finish_rejected(&mut env, start, e),
        // the main pass accepted it: undecided at "fixups", the pass named
        Err(Fail::Unsupported { phase, what }) => not_modelled(&env, "fixups", format!("{phase}: {what}")),
    }
}

/// The end of `bpf_check` for a program the rewrites accepted:
/// `print_verification_stats`, `verified_insns`, the log's finalisation
/// (which may still fail the load with ENOSPC), and what the JIT and the
/// dump get: the xlated program and the facts of its subprograms.
fn finish_accepted(env: &mut VerifierEnv<'_>, start: Instant) -> Verdict {
    print_verification_stats(env, start);
    match finish(env, Ok(()), true) {
        Verdict::Decided(mut d) if d.accepted => {
            d.xlated = crate::fixups::bpf_insn_prepare_dump(env);
            d.tail_call_pokes = env.tail_call_pokes.clone();
            d.arena = arena_jit(env, &d.xlated);
            d.hidden_modes = crate::fixups::dump_hidden_modes(env, &d.xlated);
            d.direct_tail_calls =
                env.insns.iter().enumerate().filter(|(_, i)| i.code == BPF_JMP | BPF_TAIL_CALL && i.imm > 0).map(|(k, i)| (k, i.imm as u32)).collect();
            let cnt = env.subprog_cnt.min(env.subprog_info.len());
            let seen_exception = env.seen_exception;
            d.subprogs = env.subprog_info[..cnt]
                .iter()
                .enumerate()
                .map(|(i, s)| SubprogFacts {
                    stack_depth: s.stack_depth,
                    tail_call_reachable: s.tail_call_reachable,
                    is_exception_cb: s.is_exception_cb,
                    exception_boundary: i == 0 && seen_exception,
                    start: s.start,
                    hidden: s.hidden,
                    priv_stack: s.priv_stack_adaptive,
                })
                .collect();
            Verdict::Decided(d)
        }
        v => v,
    }
}

/// The arena of an accepted program for its JIT: both bases and the
/// codes of the loads and stores the dump (`dumped`) shows differently from
/// what the JIT gets (`BPF_PROBE_MEM32` accesses; LDX, ST, STX).
pub fn arena_jit(env: &VerifierEnv<'_>, dumped: &[Insn]) -> Option<ArenaJit> {
    let def = prog_arena(env)?;
    let codes = crate::fixups::dump_hidden_modes(env, dumped);
    Some(ArenaJit { kern_vm_start: kern_vm_start(env.input.arch), user_vm_start: crate::verifier::map_create::loader_map_extra(def), codes })
}

/// What `BPF_PROG_LOAD` made of a program the model decided.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgLoad {
    /// The verdict, log and xlated dump.
    pub decision: Decision,
    /// An accepted program's xlated insns as they run and as the JIT gets
    /// them ([`Decision::xlated_as_run`]).
    pub as_run: Vec<Insn>,
    /// The JIT image of each function, when asked for (`jit_subprogs`).
    pub jited_funcs: Vec<Vec<u8>>,
    /// Wall time of the verification and the JIT image, in ns.
    pub load_ns: u64,
}

/// A load the model cannot decide: the phase it lacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotModelled(pub String);

impl std::fmt::Display for NotModelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `bpf_prog_load` of `input`: `bpf_check`, and for an accepted program
/// with `want_jited` the JIT images of the target arch. `prog_name` is the
/// name the loader fills prog array slots with once the program is loaded
/// (`init_prog_array_slots`): its direct tail calls through those slots
/// are patched into jumps before the image is read.
pub fn bpf_prog_load(input: &VerifierInput, want_jited: bool, prog_name: Option<&str>) -> Result<ProgLoad, NotModelled> {
    let t0 = Instant::now();
    let verdict = bpf_check(input);
    let mut load_ns = t0.elapsed().as_nanos() as u64;
    let d = match verdict {
        Verdict::Decided(d) => d,
        Verdict::NotModelled { phase, what, .. } => return Err(NotModelled(format!("{phase}: {what}"))),
    };
    let as_run = if d.accepted { d.xlated_as_run() } else { Vec::new() };
    let mut jited_funcs = Vec::new();
    if d.accepted && want_jited {
        let in_own_slot = |poke: &Option<(usize, u64)>| {
            poke.is_some_and(|(m, key)| {
                input.maps.get(m).is_some_and(|m| m.def.prog_slots.iter().any(|(k, n)| *k as u64 == key && Some(n.as_str()) == prog_name))
            })
        };
        let self_pokes: Vec<u32> = d.tail_call_pokes.iter().enumerate().filter(|(_, p)| in_own_slot(p)).map(|(n, _)| n as u32 + 1).collect();
        let t1 = Instant::now();
        jited_funcs = crate::jit::jit_xlated_arena(input.arch, &as_run, &d.subprogs, input.prog_type.0, &d.direct_tail_calls, &self_pokes, d.arena.as_ref())
            .map_err(NotModelled)?;
        // hidden subprograms are JITed but have no image in the dump
        jited_funcs.truncate(d.subprogs.iter().filter(|s| !s.hidden).count());
        load_ns += t1.elapsed().as_nanos() as u64;
    }
    Ok(ProgLoad { decision: d, as_run, jited_funcs, load_ns: load_ns.max(1) })
}
