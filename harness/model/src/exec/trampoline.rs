//! Attached programs: what 7.3 runs around a kernel function that has
//! fentry, fexit or fmod_ret programs (the BPF trampoline and its
//! `__bpf_prog_enter_recur`/`__bpf_prog_exit_recur`) and at a tracepoint
//! with raw tracepoint programs (`__bpf_trace_run`), with the per-program
//! recursion context (`bpf_prog_get_recursion_context`) and the counters
//! `bpf_prog_info` reports (`run_cnt` with stats enabled,
//! `recursion_misses`).
//!
//! The kernel functions a run reaches that programs can attach to:
//! * `bpf_fentry_test1`..`bpf_fentry_test10`, `bpf_modify_return_test`
//!   and `bpf_modify_return_test2`, which `bpf_prog_test_run_tracing`
//!   calls ([`Runtime::run_tracing_attached`]);
//! * the map operation behind a map helper or a fixup's direct call
//!   (`htab_map_delete_elem`, ...: the map type's `bpf_map_ops` function);
//! * the tracepoints `bpf_trace_printk` (from the helper) and
//!   `bpf_test_finish` (the end of every test run that reports through
//!   `bpf_test_finish`, and of tracing test runs).
//!
//! One CPU, one execution context: a program entered again before it
//! left is a recursion (x86-64's per-CPU counter above 1; arm64's counter
//! of the context level not being the only one set), counted as a miss
//! and not run. The trampoline calls the exit half even for a missed
//! program, so the counter always comes back down.

use super::mem::RegionKind;
use super::{ExecError, Runtime};

/// How a program is attached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachKind {
    /// `BPF_TRACE_FENTRY`: before the function, with its arguments.
    Fentry,
    /// `BPF_TRACE_FEXIT`: after it, with its arguments and return value.
    Fexit,
    /// `BPF_MODIFY_RETURN`: before it; a non-zero return skips the
    /// function and becomes its return value.
    FmodRet,
    /// A raw tracepoint (`raw_tp`, `tp_btf`): the tracepoint's arguments.
    RawTp,
}

/// One attachment: runtime program `prog` on kernel function or
/// tracepoint `target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub prog: usize,
    pub kind: AttachKind,
    pub target: String,
}

/// What `bpf_prog_info` says of a program after a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgStats {
    /// Runs counted by `update_prog_stats` (stats enabled).
    pub run_cnt: u64,
    /// `bpf_prog_inc_misses_counter`: runs refused by the recursion check.
    pub recursion_misses: u64,
}

/// The attachments of a runtime and each program's recursion context and
/// counters, by runtime program index.
#[derive(Clone, Debug, Default)]
pub struct Tracing {
    pub attachments: Vec<Attachment>,
    active: Vec<u32>,
    pub stats: Vec<ProgStats>,
}

impl Tracing {
    fn slot(&mut self, prog: usize) -> usize {
        if self.active.len() <= prog {
            self.active.resize(prog + 1, 0);
            self.stats.resize(prog + 1, ProgStats::default());
        }
        prog
    }

    /// `bpf_prog_get_recursion_context`: false (and a miss counted) when
    /// the program is running already.
    pub fn enter(&mut self, prog: usize) -> bool {
        let k = self.slot(prog);
        self.active[k] += 1;
        if self.active[k] != 1 {
            self.stats[k].recursion_misses += 1;
            return false;
        }
        true
    }

    /// `bpf_prog_put_recursion_context`.
    pub fn exit(&mut self, prog: usize) {
        let k = self.slot(prog);
        self.active[k] = self.active[k].saturating_sub(1);
    }

    /// One run of the program counted (`update_prog_stats`).
    pub fn count_run(&mut self, prog: usize) {
        let k = self.slot(prog);
        self.stats[k].run_cnt += 1;
    }

    /// The counters of runtime program `prog`.
    pub fn stats_of(&self, prog: usize) -> ProgStats {
        self.stats.get(prog).copied().unwrap_or_default()
    }

    /// The programs of `kind` on `target` in the order they run: a
    /// trampoline's lists put the last attached first (`hlist_add_head`),
    /// a tracepoint's probes run in the order they were registered.
    fn attached(&self, target: &str, kind: AttachKind) -> Vec<usize> {
        let mut v: Vec<usize> = self.attachments.iter().filter(|a| a.kind == kind && a.target == target).map(|a| a.prog).collect();
        if kind != AttachKind::RawTp {
            v.reverse();
        }
        v
    }

    /// Attaches runtime program `prog` (the order of calls is the order of
    /// attachment).
    pub fn attach(&mut self, prog: usize, kind: AttachKind, target: &str) {
        self.attachments.push(Attachment { prog, kind, target: target.to_string() });
    }

    fn has(&self, target: &str) -> bool {
        self.attachments.iter().any(|a| a.target == target)
    }
}

/// `bpf_fentry_test1`..`10` as `bpf_prog_test_run_tracing` calls them:
/// name, the arguments it passes (pointer arguments by the index of a
/// scratch object, see [`Arg`]), and what each must return.
const FENTRY_TESTS: &[(&str, &[Arg], u64)] = &[
    ("bpf_fentry_test1", &[Arg::Val(1)], 2),
    ("bpf_fentry_test2", &[Arg::Val(2), Arg::Val(3)], 5),
    ("bpf_fentry_test3", &[Arg::Val(4), Arg::Val(5), Arg::Val(6)], 15),
    ("bpf_fentry_test4", &[Arg::Val(7), Arg::Val(8), Arg::Val(9), Arg::Val(10)], 34),
    ("bpf_fentry_test5", &[Arg::Val(11), Arg::Val(12), Arg::Val(13), Arg::Val(14), Arg::Val(15)], 65),
    ("bpf_fentry_test6", &[Arg::Val(16), Arg::Val(17), Arg::Val(18), Arg::Val(19), Arg::Val(20), Arg::Val(21)], 111),
    ("bpf_fentry_test7", &[Arg::Val(0)], 0),
    // a zeroed `struct bpf_fentry_test_t` on the caller's stack
    ("bpf_fentry_test8", &[Arg::Zeroed(8)], 0),
    // the caller's `u32 retval`, 0
    ("bpf_fentry_test9", &[Arg::Zeroed(4)], 0),
    ("bpf_fentry_test10", &[Arg::Val(0)], 0),
];

#[derive(Clone, Copy, Debug)]
enum Arg {
    Val(u64),
    /// A pointer to that many zero bytes of the caller's.
    Zeroed(usize),
}

impl AttachKind {
    /// How a program of this type and expected attach type attaches, if it
    /// does through a trampoline or a tracepoint.
    pub fn of(prog_type: crate::prog_type::ProgType, expected_attach_type: Option<u32>) -> Option<AttachKind> {
        use crate::prog_type::bpf_attach_type::{MODIFY_RETURN, TRACE_FENTRY, TRACE_FEXIT, TRACE_RAW_TP};
        use crate::prog_type::bpf_prog_type::{RAW_TRACEPOINT, RAW_TRACEPOINT_WRITABLE, TRACING};
        match (prog_type.0, expected_attach_type) {
            (RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE, _) => Some(AttachKind::RawTp),
            (TRACING, Some(TRACE_FENTRY)) => Some(AttachKind::Fentry),
            (TRACING, Some(TRACE_FEXIT)) => Some(AttachKind::Fexit),
            (TRACING, Some(MODIFY_RETURN)) => Some(AttachKind::FmodRet),
            (TRACING, Some(TRACE_RAW_TP)) => Some(AttachKind::RawTp),
            _ => None,
        }
    }
}

impl Runtime {
    /// Calls kernel function `name` with `args` through its trampoline:
    /// fentry programs, fmod_ret programs (the first non-zero return skips
    /// `body` and is the return value), `body`, fexit programs with the
    /// return value. Without attachments, `body` alone.
    pub(crate) fn kernel_call(&mut self, name: &str, args: &[u64], body: impl FnOnce(&mut Runtime) -> Result<u64, ExecError>) -> Result<u64, ExecError> {
        if !self.tracing.has(name) {
            return body(self);
        }
        // the trampoline's frame: the arguments, then the return value
        let mut frame: Vec<u8> = args.iter().flat_map(|a| a.to_le_bytes()).collect();
        frame.extend_from_slice(&0u64.to_le_bytes());
        let ctx = self.mem.alloc(RegionKind::Stack, frame, false).map_err(|f| ExecError::Unsupported(format!("trampoline frame: {f}")))?;
        let ret_at = ctx + 8 * args.len() as u64;
        for p in self.tracing.attached(name, AttachKind::Fentry) {
            self.invoke_bpf_prog(p, ctx, None)?;
        }
        let mut skip = false;
        for p in self.tracing.attached(name, AttachKind::FmodRet) {
            self.invoke_bpf_prog(p, ctx, Some(ret_at))?;
            if self.mem.load(ret_at, 8).map_err(super::helpers::fault)? != 0 {
                skip = true;
                break;
            }
        }
        let ret = if skip { self.mem.load(ret_at, 8).map_err(super::helpers::fault)? } else { body(self)? };
        self.mem.store(ret_at, 8, ret).map_err(super::helpers::fault)?;
        for p in self.tracing.attached(name, AttachKind::Fexit) {
            self.invoke_bpf_prog(p, ctx, None)?;
        }
        self.mem.free(ctx);
        Ok(ret)
    }

    /// `invoke_bpf_prog`: enter (recursion check), the program, exit; with
    /// `save_ret`, the program's r0 goes to the return value slot.
    fn invoke_bpf_prog(&mut self, prog: usize, ctx: u64, save_ret: Option<u64>) -> Result<(), ExecError> {
        if self.tracing.enter(prog) {
            let r0 = self.run_func(prog, 0, [ctx, 0, 0, 0, 0]);
            let r0 = match r0 {
                Ok(v) => v,
                Err(e) => {
                    self.tracing.exit(prog);
                    return Err(e);
                }
            };
            if let Some(at) = save_ret {
                self.mem.store(at, 8, r0).map_err(super::helpers::fault)?;
            }
            self.tracing.count_run(prog);
        }
        self.tracing.exit(prog);
        Ok(())
    }

    /// A tracepoint fires with `args`: each raw tracepoint program on it
    /// runs (`__bpf_trace_run`).
    pub(crate) fn trace_event(&mut self, tracepoint: &str, args: &[u64]) -> Result<(), ExecError> {
        let progs = self.tracing.attached(tracepoint, AttachKind::RawTp);
        if progs.is_empty() {
            return Ok(());
        }
        let frame: Vec<u8> = args.iter().flat_map(|a| a.to_le_bytes()).collect();
        let ctx = self.mem.alloc(RegionKind::Stack, frame, false).map_err(|f| ExecError::Unsupported(format!("tracepoint args: {f}")))?;
        for p in progs {
            self.invoke_bpf_prog(p, ctx, None)?;
        }
        self.mem.free(ctx);
        Ok(())
    }

    /// `trace_bpf_test_finish(&err)`.
    pub(crate) fn test_finish_event(&mut self, err: i32) -> Result<(), ExecError> {
        if !self.tracing.has("bpf_test_finish") {
            return Ok(());
        }
        let at = self.mem.alloc(RegionKind::Stack, (err as u32).to_le_bytes().to_vec(), false).map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        let r = self.trace_event("bpf_test_finish", &[at]);
        self.mem.free(at);
        r
    }

    /// What `bpf_prog_test_run_tracing` calls for an fentry/fexit
    /// (`modify_return`: false) or fmod_ret program: the test functions,
    /// through whatever is attached to them. The retval
    /// (`side_effect << 16 | ret`) or the errno of a failed check.
    pub(crate) fn run_tracing_attached(&mut self, modify_return: bool) -> Result<Result<u32, i32>, ExecError> {
        const EFAULT: i32 = 14;
        if !modify_return {
            for (name, args, want) in FENTRY_TESTS {
                let mut vals = Vec::with_capacity(args.len());
                let mut scratch = Vec::new();
                for a in args.iter() {
                    vals.push(match *a {
                        Arg::Val(v) => v,
                        Arg::Zeroed(n) => {
                            let p = self.mem.alloc(RegionKind::Stack, vec![0; n], false).map_err(|f| ExecError::Unsupported(format!("{f}")))?;
                            scratch.push(p);
                            p
                        }
                    });
                }
                let body_args = vals.clone();
                let ret = self.kernel_call(name, &vals, |rt| fentry_test_body(rt, name, &body_args))?;
                for p in scratch {
                    self.mem.free(p);
                }
                if ret as u32 != *want as u32 {
                    return Ok(Err(EFAULT));
                }
            }
            return Ok(Ok(0));
        }
        let mut side_effect: u16 = 0;
        let b = self.mem.alloc(RegionKind::Stack, 2u32.to_le_bytes().to_vec(), false).map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        let mut ret = self.kernel_call("bpf_modify_return_test", &[1, b], |rt| modify_return_body(rt, &[1, b]))? as u16;
        if self.mem.load(b, 4).map_err(super::helpers::fault)? != 2 {
            side_effect += 1;
        }
        self.mem.store(b, 4, 2).map_err(super::helpers::fault)?;
        let args2 = [1, b, 3, 4, 5, 6, 7];
        ret = ret.wrapping_add(self.kernel_call("bpf_modify_return_test2", &args2, |rt| modify_return_body(rt, &args2))? as u16);
        if self.mem.load(b, 4).map_err(super::helpers::fault)? != 2 {
            side_effect += 1;
        }
        self.mem.free(b);
        Ok(Ok(((side_effect as u32) << 16) | ret as u32))
    }
}

/// The bodies of `bpf_fentry_test1`..`10` (int results, as the C
/// functions compute them).
fn fentry_test_body(rt: &mut Runtime, name: &str, a: &[u64]) -> Result<u64, ExecError> {
    let sum = |n: usize| a.iter().take(n).fold(0u64, |s, v| s.wrapping_add(*v));
    let r = match name {
        "bpf_fentry_test8" => rt.mem.load(a[0], 8).map_err(super::helpers::fault)?,
        "bpf_fentry_test9" => rt.mem.load(a[0], 4).map_err(super::helpers::fault)?,
        "bpf_fentry_test1" => a[0].wrapping_add(1),
        _ => sum(a.len()),
    };
    Ok(r as u32 as u64)
}

/// `bpf_modify_return_test(a, b)` and `bpf_modify_return_test2(a, b, c,
/// d, e, f, g)`: `*b += 1`, then the sum of the arguments with `*b`.
fn modify_return_body(rt: &mut Runtime, a: &[u64]) -> Result<u64, ExecError> {
    let b = rt.mem.load(a[1], 4).map_err(super::helpers::fault)? as u32 + 1;
    rt.mem.store(a[1], 4, b as u64).map_err(super::helpers::fault)?;
    let mut r = (a[0] as u32).wrapping_add(b);
    for v in &a[2..] {
        r = r.wrapping_add(*v as u32);
    }
    Ok(r as u64)
}

impl Runtime {
    /// What a user's write through an mmap of array map `map` does
    /// ([`Runtime::map_mmap`]): `bytes` at `off` of its values.
    pub fn user_map_write(&mut self, map: usize, off: u32, bytes: &[u8]) -> Result<(), ExecError> {
        let view = self.user_map_view(map, off, bytes.len() as u32, true)?;
        view.write(&mut self.mem, u64::from(off), bytes).map_err(super::helpers::fault)
    }

    /// What a user reads through an mmap of array map `map`.
    pub fn user_map_read(&self, map: usize, off: u32, len: u32) -> Result<Vec<u8>, ExecError> {
        let view = self.user_map_view(map, off, len, false)?;
        view.read(&self.mem, u64::from(off), len as usize).map_err(super::helpers::fault)
    }

    /// The whole-values mapping a skeleton makes of a global's map.
    fn user_map_view(&self, map: usize, off: u32, len: u32, writable: bool) -> Result<super::maps::MapMmap, ExecError> {
        let end = u64::from(off) + u64::from(len);
        self.map_mmap(map, 0, end, writable).map_err(|e| ExecError::Unsupported(format!("mmap of map {map}: {e:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recursion context: a program entered while it runs is refused
    /// and counted; the exit half always runs, so it can run again after.
    #[test]
    fn recursion_context_counts_misses() {
        let mut t = Tracing::default();
        assert!(t.enter(3));
        assert!(!t.enter(3));
        t.exit(3);
        t.exit(3);
        assert!(t.enter(3));
        t.exit(3);
        assert_eq!(t.stats_of(3), ProgStats { run_cnt: 0, recursion_misses: 1 });
        assert_eq!(t.stats_of(7), ProgStats::default());
    }

    /// A trampoline runs the last attached program of a kind first; a
    /// tracepoint runs its programs in the order they were attached.
    #[test]
    fn attach_order() {
        let mut t = Tracing::default();
        t.attach(1, AttachKind::Fentry, "f");
        t.attach(2, AttachKind::Fentry, "f");
        t.attach(3, AttachKind::RawTp, "tp");
        t.attach(4, AttachKind::RawTp, "tp");
        assert_eq!(t.attached("f", AttachKind::Fentry), [2, 1]);
        assert_eq!(t.attached("tp", AttachKind::RawTp), [3, 4]);
        assert!(t.attached("f", AttachKind::Fexit).is_empty());
    }
}
