//! The model of `kernel/bpf/verifier.c` (Linux 7.3).
//!
//! [`bpf_check`] runs 7.3's phases in the kernel's order (see
//! `bpf_check()` in `verifier.c`), each with the kernel's messages, errnos
//! and log output at levels 1, 2 and 4:
//!
//! | phase | module |
//! |---|---|
//! | `bpf_prog_load`'s checks before the verifier | [`prog_load`] |
//! | `bpf_vlog_init`, the log buffer | [`log`] |
//! | `bpf_prepare_btf_info` | [`check_btf`] |
//! | `add_subprogs`, `check_subprogs` | [`subprogs`] |
//! | `bpf_check_btf_info` | [`check_btf`] |
//! | `check_and_resolve_insns`, `add_kfuncs` | [`resolve`] |
//! | `bpf_check_cfg`, `bpf_compute_postorder` | [`cfg`] |
//! | `check_attach_btf_id` | here |
//! | `bpf_compute_const_regs`, `bpf_prune_dead_branches` | [`const_fold`] |
//! | `sort_subprogs_topo` | [`subprogs`] |
//! | `bpf_compute_scc` | [`cfg`] |
//! | `bpf_compute_live_registers` | [`liveness`] |
//! | `do_check_main` and everything after | not modelled yet |
//!
//! A phase the model does not have yet ends the run with
//! [`Verdict::NotModelled`], naming the phase: the caller can say honestly
//! what it cannot decide. Failures are reported as 7.3 reports them,
//! including the "Verification failed:" blocks of [`diag`].

pub mod cfg;
pub mod check_btf;
pub mod const_fold;
pub mod diag;
pub mod env;
pub mod errno;
pub mod kfunc_btf_ids;
pub mod liveness;
pub mod log;
pub mod prog_load;
pub mod resolve;
pub mod scalar;
pub mod subprogs;
pub mod tnum;

// The main pass (do_check) and its parts.
pub mod alu;
pub mod backtrack;
pub mod ctx;
pub mod do_check;
pub mod jmp;
pub mod mem;
pub mod print;
pub mod reg;
pub mod retcode;
pub mod stack;
pub mod state;
pub mod states;

use std::time::Instant;

use env::{VerifierEnv, VerifierInput};
use errno::EINVAL;
use log::{BPF_LOG_STATS, BpfVerifierLog};

/// Why a phase stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    /// The kernel's verdict: the load fails with this (positive) errno.
    Errno(i32),
    /// The model cannot decide: `phase` (a kernel function name) needs
    /// something not modelled yet.
    Unsupported { phase: &'static str, what: String },
}

impl Fail {
    pub fn unsupported(phase: &'static str, what: &str) -> Fail {
        Fail::Unsupported { phase, what: what.to_string() }
    }
}

pub type PResult<T> = Result<T, Fail>;

/// What `BPF_PROG_LOAD` returned, as far as the verifier decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub accepted: bool,
    /// Positive errno, 0 when accepted.
    pub errno: i32,
    /// What the user's log buffer holds.
    pub log: String,
    /// `log_true_size`: the buffer size the whole log needed.
    pub log_true_size: u32,
    pub verified_insns: u32,
}

/// The model's answer for one load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Decided by modelled phases only.
    Decided(Decision),
    /// A phase that is not modelled yet was reached.
    NotModelled {
        /// The kernel function (`do_check_main`, ...).
        phase: &'static str,
        what: String,
        /// The log up to that point (no truncation applied beyond what
        /// the buffer size implies).
        log_so_far: String,
    },
}

/// `bpf_check`, preceded by what `bpf_prog_load` and `bpf_log_attr_init`
/// check first.
pub fn bpf_check(input: &VerifierInput) -> Verdict {
    let start = Instant::now();
    let refused = |errno: i32| Verdict::Decided(Decision { accepted: false, errno, log: String::new(), log_true_size: 0, verified_insns: 0 });
    // bpf_log_attr_init (in __sys_bpf), then bpf_prog_load's own checks
    if !log::bpf_verifier_log_attr_valid(input.log_level, input.log_size != 0, input.log_size) {
        return refused(EINVAL);
    }
    if let Err(e) = prog_load::bpf_prog_load(input) {
        return refused(e);
    }
    let Ok(vlog) = BpfVerifierLog::bpf_vlog_init(input.log_level, input.log_size) else {
        return refused(EINVAL);
    };
    let mut env = VerifierEnv::new(input, vlog);

    // err_prep: nothing verified, no statistics
    if input.insns.last().is_some_and(|i| i.is_ld_imm64()) {
        env.verbose("invalid bpf_ld_imm64 insn\n");
        return finish(&env, Err(EINVAL), false);
    }

    let flags = input.prog_flags;
    env.strict_alignment = flags & prog_load::BPF_F_STRICT_ALIGNMENT != 0;
    if !input.arch.efficient_unaligned_access() {
        env.strict_alignment = true;
    }
    if flags & prog_load::BPF_F_ANY_ALIGNMENT != 0 {
        env.strict_alignment = false;
    }
    if env.bpf_capable {
        env.test_state_freq = flags & prog_load::BPF_F_TEST_STATE_FREQ != 0;
    }
    env.test_reg_invariants = flags & prog_load::BPF_F_TEST_REG_INVARIANTS != 0;

    let ret = match front_end(&mut env) {
        Ok(()) => {
            // do_check_main / do_check_subprogs and every later phase
            return Verdict::NotModelled {
                phase: "do_check_main",
                what: "the main pass (abstract interpretation) is not modelled yet".into(),
                log_so_far: env.log.contents(),
            };
        }
        Err(Fail::Errno(e)) => Err(e),
        Err(Fail::Unsupported { phase, what }) => return Verdict::NotModelled { phase, what, log_so_far: env.log.contents() },
    };
    // skip_full_check: the rewrites only run on success
    print_verification_stats(&mut env, start);
    finish(&env, ret, false)
}

/// The phases between `bpf_prepare_btf_info` and `mark_fastcall_patterns`.
fn front_end(env: &mut VerifierEnv<'_>) -> PResult<()> {
    check_btf::bpf_prepare_btf_info(env)?;
    subprogs::add_subprogs(env)?;
    subprogs::check_subprogs(env)?;
    check_btf::bpf_check_btf_info(env)?;
    resolve::check_and_resolve_insns(env)?;
    resolve::add_kfuncs(env)?;
    cfg::bpf_check_cfg(env)?;
    cfg::bpf_compute_postorder(env);
    check_attach_btf_id(env)?;
    const_fold::bpf_compute_const_regs(env);
    const_fold::bpf_prune_dead_branches(env)?;
    subprogs::sort_subprogs_topo(env)?;
    cfg::bpf_compute_scc(env);
    liveness::bpf_compute_live_registers(env)?;
    Ok(())
}

/// `check_attach_btf_id` for loads without an attach target: syscall
/// programs must be sleepable, and only some types may be.
fn check_attach_btf_id(env: &mut VerifierEnv<'_>) -> PResult<()> {
    use prog_load::attach_types as at;
    use prog_load::prog_types as pt;
    let t = env.input.prog_type.0;
    let sleepable = env.input.prog_flags & prog_load::BPF_F_SLEEPABLE != 0;
    let attach = prog_load::bpf_prog_load_fixup_attach_type(env.input.prog_type, env.input.expected_attach_type);
    if t == pt::SYSCALL {
        if sleepable {
            return Ok(());
        }
        env.verbose("Syscall programs can only be sleepable\n");
        return Err(Fail::Errno(EINVAL));
    }
    let can_sleep = match t {
        pt::TRACING => matches!(
            attach,
            at::TRACE_FENTRY
                | at::TRACE_FEXIT
                | at::MODIFY_RETURN
                | at::TRACE_ITER
                | at::TRACE_FSESSION
                | at::TRACE_RAW_TP
                | at::TRACE_FENTRY_MULTI
                | at::TRACE_FEXIT_MULTI
                | at::TRACE_FSESSION_MULTI
        ),
        pt::LSM => attach != at::LSM_CGROUP,
        _ => matches!(t, pt::KPROBE | pt::STRUCT_OPS | pt::RAW_TRACEPOINT | pt::TRACEPOINT),
    };
    if sleepable && !can_sleep {
        env.verbose("Program of this type cannot be sleepable\n");
        return Err(Fail::Errno(EINVAL));
    }
    if matches!(t, pt::STRUCT_OPS | pt::TRACING | pt::LSM | pt::EXT) {
        return Err(Fail::unsupported("check_attach_btf_id", "attach targets (vmlinux BTF, target programs) are not modelled"));
    }
    Ok(())
}

/// `print_verification_stats`.
fn print_verification_stats(env: &mut VerifierEnv<'_>, start: Instant) {
    if env.level() & BPF_LOG_STATS != 0 {
        let usec = env.input.verification_time_usec.unwrap_or(start.elapsed().as_micros() as u64);
        env.verbose(&format!("verification time {usec} usec\n"));
        env.verbose(&format!("stack depth max {}\n", env.max_stack_depth));
        for i in 0..env.subprog_cnt {
            let si = &env.subprog_info[i];
            let name = si.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "<unknown>".into());
            let kind = if i == 0 {
                "main"
            } else if env.bpf_subprog_is_global(i) {
                "global"
            } else {
                "static"
            };
            let line = format!("subprog {i} ({name}) {kind} insns_self {} insns_total {} stack {}\n", si.insns_self, si.insns_total, si.stack_depth);
            env.verbose(&line);
        }
    }
    let line = format!(
        "processed {} insns (limit {}) max_states_per_insn {} total_states {} peak_states {} mark_read {}\n",
        env.insn_processed,
        env::BPF_COMPLEXITY_LIMIT_INSNS,
        env.max_states_per_insn,
        env.total_states,
        env.peak_states,
        env.longest_mark_read_walk
    );
    env.verbose(&line);
}

/// `bpf_log_attr_finalize` and the return to user space: a truncated log
/// turns any result into `ENOSPC`.
fn finish(env: &VerifierEnv<'_>, ret: Result<(), i32>, accepted_possible: bool) -> Verdict {
    let (true_size, fin) = env.log.finalize();
    let ret = match fin {
        Err(e) => Err(e),
        Ok(()) => ret,
    };
    let accepted = accepted_possible && ret.is_ok();
    Verdict::Decided(Decision {
        accepted,
        errno: ret.err().unwrap_or(0),
        log: env.log.contents(),
        log_true_size: true_size,
        verified_insns: if accepted { env.insn_processed } else { 0 },
    })
}
