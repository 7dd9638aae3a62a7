//! The model of `kernel/bpf/verifier.c` (Linux 7.3).
//!
//! `bpf_check()` of `verifier.c` runs 7.3's phases in the kernel's order,
//! each with the kernel's messages, errnos and log output at levels 1, 2
//! and 4. [`verify`] runs them up to the end of the main pass; the
//! rewrites that follow come after the verifier in this model's layers
//! ([`crate::fixups`]), so `bpf_check` itself, which runs both and
//! finishes the log, is [`crate::load::bpf_check`].
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
//! | `check_attach_btf_id`, `bpf_check_attach_target` (the LSM hook sets of `bpf_lsm.c`, the iterator targets of `bpf_iter.c`) | here, [`bpf_lsm`], [`bpf_iter`] |
//! | `bpf_compute_const_regs`, `bpf_prune_dead_branches` | [`const_fold`] |
//! | `sort_subprogs_topo` | [`subprogs`] |
//! | `bpf_compute_scc` | [`cfg`] |
//! | `bpf_compute_live_registers` (which runs the stack liveness, `bpf_compute_subprog_arg_access`) | [`live_registers`], [`liveness`] |
//! | `do_check_main` (on what the front end computed: prune points, SCCs, live registers, stack liveness) | [`do_check`] and the modules it names |
//! | `check_max_stack_depth` | [`subprogs`] |
//! | the fixups, `print_verification_stats`, the xlated dump | [`crate::fixups`], [`crate::load::bpf_check`] (passes the model lacks leave the load undecided) |
//!
//! A phase the model does not have yet ends the run with
//! [`Verdict::NotModelled`], naming the phase: the caller can say honestly
//! what it cannot decide. A program the main pass rejects is decided in
//! full (`print_verification_stats` and the log's finalisation follow the
//! error as in the kernel); one it accepts goes through the rewrites,
//! which may still fail and print, and is decided with its xlated program
//! when every rewrite it needs is modelled. Failures are reported as 7.3 reports them, including the
//! "Verification failed:" blocks of [`diag`].

pub mod cfg;
pub mod check_btf;
pub mod const_fold;
pub mod diag;
pub mod env;
pub mod errno;
pub mod fastcall;
pub mod kfunc_btf_ids;
pub mod linfo;
pub mod live_registers;
pub mod liveness;
pub mod log;
pub mod prog_load;
pub mod resolve;
pub mod scalar;
pub mod subprogs;
pub mod tnum;

// The main pass (do_check) and its parts.
pub mod alu;
pub mod arena;
pub mod backtrack;
pub mod bpf_iter;
pub mod bpf_lsm;
pub mod btf_access;
pub mod btf_args;
pub mod calls;
pub mod ctx;
pub mod do_check;
pub mod graph;
pub mod helper_call;
pub mod helper_protos;
pub mod helpers;
pub mod jmp;
pub mod kfuncs;
pub mod kptrs;
pub mod map_create;
pub mod maps;
pub mod mem;
pub mod print;
pub mod refs;
pub mod reg;
pub mod retcode;
pub mod sock;
pub mod stack;
pub mod state;
pub mod states;

use crate::map::types::*;
use std::time::Instant;

use crate::uapi::prog_flags;
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

/// What the verifier knows of one subprogram that the JITs need besides
/// its insns (`subprog_info[i]` after the fixups).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubprogFacts {
    pub stack_depth: u32,
    pub tail_call_reachable: bool,
    pub is_exception_cb: bool,
    /// `exception_boundary`: the main program of one that throws.
    pub exception_boundary: bool,
    /// Where it starts in the xlated program, and whether
    /// `add_hidden_subprog` appended it (JITed but not dumped).
    pub start: usize,
    pub hidden: bool,
    /// `priv_stack_mode == PRIV_STACK_ADAPTIVE`: `jits_use_priv_stack`.
    pub priv_stack: bool,
}

/// What `BPF_PROG_LOAD` returned, as far as the verifier decides it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    pub accepted: bool,
    /// Positive errno, 0 when accepted.
    pub errno: i32,
    /// What the user's log buffer holds.
    pub log: String,
    /// `log_true_size`: the buffer size the whole log needed.
    pub log_true_size: u32,
    pub verified_insns: u32,
    /// An accepted program's xlated insns, as `BPF_OBJ_GET_INFO_BY_FD`
    /// returns them (`bpf_insn_prepare_dump`); empty when rejected.
    pub xlated: Vec<bpf_isa::Insn>,
    /// An accepted program's subprograms as the JIT gets them.
    pub subprogs: Vec<SubprogFacts>,
    /// Its direct tail calls' prog array (index into the input's maps)
    /// and key, by poke number - 1 (`prog->aux->poke_tab`).
    pub tail_call_pokes: Vec<Option<(usize, u64)>>,
    /// Where the direct tail calls are in `xlated` and their poke numbers
    /// (the dump shows every tail call as `call bpf_tail_call`).
    pub direct_tail_calls: Vec<(usize, u32)>,
    /// The program's arena as its JIT sees it (`prog->aux->arena`).
    pub arena: Option<arena::ArenaJit>,
    /// Loads and stores in kernel-internal modes the dump shows as
    /// `BPF_MEM` (`BPF_PROBE_MEM`, `BPF_PROBE_MEM32`, ...): (insn, code).
    pub hidden_modes: Vec<(usize, u8)>,
}

impl Decision {
    /// The xlated program as it runs and as the JIT gets it: the dump, with
    /// arena accesses and loads that may fault back in their kernel-internal
    /// modes (`BPF_PROBE_MEM32`, `BPF_PROBE_MEM`, which the dump shows as
    /// `BPF_MEM`).
    ///
    /// A bpf2bpf call is in the layout `jit_subprogs` leaves in
    /// `prog->insnsi`: the pc-relative offset in `imm`, the callee's index
    /// in `off`. The dump has them the other way round, with an offset
    /// beyond 16 bits shown as 0 (`prepare_dump_pseudo_call`): the offset
    /// is taken from where the callee starts.
    pub fn xlated_as_run(&self) -> Vec<bpf_isa::Insn> {
        use bpf_isa::op::{BPF_CALL, BPF_JMP, BPF_PSEUDO_CALL};
        let mut insns = self.xlated.clone();
        for &(k, code) in &self.hidden_modes {
            if let Some(i) = insns.get_mut(k) {
                i.code = code;
            }
        }
        let mut k = 0;
        while k < insns.len() {
            let i = insns[k];
            if i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL {
                let callee = usize::try_from(i.imm).ok().and_then(|n| self.subprogs.get(n));
                insns[k].imm = callee.map_or(i.off as i32, |s| s.start as i32 - k as i32 - 1);
                insns[k].off = i16::try_from(i.imm).unwrap_or(0);
            }
            k += if i.is_ld_imm64() { 2 } else { 1 };
        }
        insns
    }
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
        /// Insns the main pass processed before that phase (for a program
        /// the main pass accepted: its `verified_insns`, unless the
        /// rewrites fail).
        verified_insns: u32,
    },
}

/// Everything before the rewrites: the checks of `bpf_prog_load`, the front
/// end and the main pass. `Ok` is the env of a
/// program the verifier accepts, as the fixups find it; `Err` the verdict
/// when it did not get that far.
// the verdict is the rare way out, once per load: not worth a box
#[allow(clippy::result_large_err)]
pub fn verify(input: &VerifierInput, start: Instant) -> Result<VerifierEnv<'_>, Verdict> {
    // refused before the log holds anything
    let refused = |errno: i32| Verdict::Decided(Decision { errno, ..Decision::default() });
    // bpf_log_attr_init (in __sys_bpf), then bpf_prog_load's own checks
    if !log::bpf_verifier_log_attr_valid(input.log_level, input.log_size != 0, input.log_size) {
        return Err(refused(EINVAL));
    }
    if let Err(e) = prog_load::bpf_prog_load(input) {
        return Err(refused(e));
    }
    let Ok(vlog) = BpfVerifierLog::bpf_vlog_init(input.log_level, input.log_size) else {
        return Err(refused(EINVAL));
    };
    let mut env = VerifierEnv::new(input, vlog);

    // err_prep: nothing verified, no statistics
    if input.insns.last().is_some_and(|i| i.is_ld_imm64()) {
        env.verbose("invalid bpf_ld_imm64 insn\n");
        return Err(finish(&env, Err(EINVAL), false));
    }

    let flags = input.prog_flags;
    env.strict_alignment = flags & prog_flags::BPF_F_STRICT_ALIGNMENT != 0;
    if !input.arch.efficient_unaligned_access() {
        env.strict_alignment = true;
    }
    if flags & prog_flags::BPF_F_ANY_ALIGNMENT != 0 {
        env.strict_alignment = false;
    }
    if env.bpf_capable {
        env.test_state_freq = flags & prog_flags::BPF_F_TEST_STATE_FREQ != 0;
    }
    env.test_reg_invariants = flags & prog_flags::BPF_F_TEST_REG_INVARIANTS != 0;

    let fail = |env: &mut VerifierEnv<'_>, f: Fail| match f {
        Fail::Errno(e) => finish_rejected(env, start, e),
        Fail::Unsupported { phase, what } => not_modelled(env, phase, what),
    };
    if let Err(f) = front_end(&mut env) {
        return Err(fail(&mut env, f));
    }
    if let Err(f) = main_pass(&mut env) {
        return Err(fail(&mut env, f));
    }
    Ok(env)
}

/// A phase the model lacks: the log so far and what was verified.
pub(crate) fn not_modelled(env: &VerifierEnv<'_>, phase: &'static str, what: String) -> Verdict {
    Verdict::NotModelled { phase, what, log_so_far: env.log.contents(), verified_insns: env.insn_processed }
}

/// A rejection: `print_verification_stats`, then the log's finalisation.
pub(crate) fn finish_rejected(env: &mut VerifierEnv<'_>, start: Instant, errno: i32) -> Verdict {
    print_verification_stats(env, start);
    finish(env, Err(errno), false)
}

/// The main pass on the front end's results: `do_check_main`, which
/// verifies the main program and then (`do_check_subprogs`) each global
/// function it calls.
fn main_pass(env: &mut VerifierEnv<'_>) -> PResult<()> {
    use do_check::{DoCheckError, DoCheckInput, MapInfo, Privs, Subprog};

    let maps: Vec<MapInfo> = env.used_maps.iter().map(|&m| map_info(&env.input.maps[m])).collect();
    let subprogs: Vec<Subprog> = (0..env.subprog_cnt)
        .map(|i| {
            let si = &env.subprog_info[i];
            Subprog {
                start: si.start,
                name: env.bpf_subprog_name(i),
                global: env.bpf_subprog_is_global(i),
                nargs: env.input.func_info.as_ref().and_then(|f| f.get(i)).map_or(0, |f| f.nargs),
                type_id: env.input.func_info.as_ref().and_then(|f| f.get(i)).map_or(0, |f| f.type_id),
                returns_void: match (env.input.prog_btf.as_deref(), env.input.func_info.as_ref().and_then(|f| f.get(i))) {
                    (Some(btf), Some(f)) => btf_args::subprog_returns_void(btf, f.type_id),
                    _ => false,
                },
                is_exception_cb: si.is_exception_cb,
                has_tail_call: si.has_tail_call,
                has_ld_abs: si.has_ld_abs,
                fastcall_stack_off: si.fastcall_stack_off,
                changes_pkt_data: si.changes_pkt_data,
                might_sleep: si.might_sleep,
                might_throw: si.might_throw,
            }
        })
        .collect();
    let input = DoCheckInput {
        insns: &env.insns,
        aux: &env.aux,
        prog_type: env.input.prog_type.0,
        expected_attach_type: prog_load::bpf_prog_load_fixup_attach_type(env.input.prog_type, env.input.expected_attach_type),
        privs: Privs {
            bpf_capable: env.bpf_capable,
            allow_ptr_leaks: env.allow_ptr_leaks,
            allow_uninit_stack: env.allow_uninit_stack,
            bypass_spec_v1: env.bypass_spec_v1,
            bypass_spec_v4: env.bypass_spec_v4,
        },
        strict_alignment: env.strict_alignment,
        test_state_freq: env.test_state_freq,
        test_reg_invariants: env.test_reg_invariants,
        maps: &maps,
        liveness: &env.stack_liveness,
        // the kernel's own struct, from the image's BTF (arm64's is larger
        // than the user_pt_regs a perf_event ctx starts with)
        pt_regs_size: crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.arch)
            .and_then(|b| b.type_size(b.struct_by_name("pt_regs")?))
            .map_or(crate::uapi::bpf_user_pt_regs_size(env.input.arch).into(), i64::from),
        user_pt_regs_size: crate::uapi::bpf_user_pt_regs_size(env.input.arch).into(),
        subprogs: &subprogs,
        has_func_info: env.input.func_info.is_some(),
        gpl: env.input.gpl,
        sleepable: env.input.prog_flags & prog_flags::BPF_F_SLEEPABLE != 0,
        jit_requested: env.input.arch.kernel_jits(),
        // the project's kernels run on one CPU
        nr_cpu_ids: 1,
        kfuncs: env.kfuncs,
        vmlinux_btf: crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch),
        attach_btf_id: env.input.attach_btf_id,
        has_arena: maps.iter().any(|m| m.map_type == BPF_MAP_TYPE_ARENA),
        prog_btf: env.input.prog_btf.as_deref(),
        linfo: &env.linfo,
        arch: env.input.arch,
    };
    let out = do_check::do_check_main(&input, &mut env.log);
    env.insn_processed = out.stats.insn_processed;
    env.max_states_per_insn = out.stats.max_states_per_insn;
    env.total_states = out.stats.total_states;
    env.peak_states = out.stats.peak_states;
    env.longest_mark_read_walk = out.stats.longest_mark_read_walk;
    env.pass_aux = out.aux;
    env.max_ctx_offset = out.max_ctx_offset;
    for (si, rt) in env.subprog_info.iter_mut().zip(&out.subprogs) {
        si.stack_depth = rt.stack_depth;
        si.insns_self = rt.insns_self;
        si.insns_total = rt.insns_total;
        // an exception callback is marked as both since add_subprogs
        si.is_cb |= rt.is_cb;
        si.is_async_cb |= rt.is_async_cb;
        si.fastcall_stack_off = rt.fastcall_stack_off;
    }
    match out.result {
        Ok(()) => Ok(()),
        Err(DoCheckError::Errno(e)) => Err(Fail::Errno(e)),
        Err(DoCheckError::Unsupported(what)) => Err(Fail::Unsupported { phase: "do_check_main", what }),
    }
}

/// A map as the main pass sees it: its record, its inner map's meta, a
/// frozen map's contents (`.rodata`: the value of key 0).
fn map_info(m: &env::MapObj) -> do_check::MapInfo {
    let mut info = def_info(&m.def, m.record.clone());
    if let (Some(inner), Some(i)) = (&m.def.inner, info.inner.as_mut()) {
        **i = def_info(inner, m.inner_record.clone());
    }
    info
}

/// [`map_info`] of one definition, with `record`.
fn def_info(d: &crate::map::MapDef, record: Option<maps::MapRecord>) -> do_check::MapInfo {
    do_check::MapInfo {
        name: bpf_obj_name(&d.name),
        map_type: d.map_type,
        key_size: d.key_size,
        value_size: d.value_size,
        max_entries: d.max_entries,
        map_flags: d.map_flags,
        inner: d.inner.as_deref().map(|i| Box::new(def_info(i, None))),
        frozen: d.frozen,
        record,
        data: if d.frozen { d.init.first().map(|(_, v)| v.clone()).unwrap_or_default() } else { Vec::new() },
    }
}

/// A map's name as the kernel keeps it (`BPF_OBJ_NAME_LEN` with the NUL).
fn bpf_obj_name(name: &str) -> String {
    let mut end = name.len().min(crate::uapi::BPF_OBJ_NAME_LEN - 1);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    name[..end].to_string()
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
    fastcall::mark_jump_targets(env);
    cfg::bpf_compute_postorder(env);
    check_attach_btf_id(env)?;
    const_fold::bpf_compute_const_regs(env);
    const_fold::bpf_prune_dead_branches(env)?;
    subprogs::sort_subprogs_topo(env)?;
    cfg::bpf_compute_scc(env);
    live_registers::bpf_compute_live_registers(env)?;
    fastcall::mark_fastcall_patterns(env)?;
    Ok(())
}

/// `check_attach_btf_id` for loads without an attach target: syscall
/// programs must be sleepable, and only some types may be.
fn check_attach_btf_id(env: &mut VerifierEnv<'_>) -> PResult<()> {
    use crate::prog_type::bpf_attach_type as at;
    use prog_load::prog_types as pt;
    let t = env.input.prog_type.0;
    let sleepable = env.input.prog_flags & prog_flags::BPF_F_SLEEPABLE != 0;
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
    if t == pt::TRACING && matches!(attach, at::TRACE_FENTRY | at::TRACE_FEXIT) {
        check_attach_fentry(env)?;
        return check_attach_denied(env, attach);
    }
    if t == pt::LSM && matches!(attach, at::LSM_MAC | at::LSM_CGROUP) {
        return check_attach_lsm(env, sleepable);
    }
    if t == pt::TRACING && attach == at::TRACE_RAW_TP {
        return check_attach_raw_tp(env, sleepable);
    }
    match (t, attach) {
        (pt::STRUCT_OPS, _) => Err(Fail::unsupported("check_attach_btf_id", "struct_ops programs (check_struct_ops_btf_id) are not modelled")),
        (pt::EXT, _) => Err(Fail::unsupported("check_attach_btf_id", "freplace targets (the target program's BTF) are not modelled")),
        (pt::TRACING, at::TRACE_ITER) => check_attach_iter(env),
        (pt::TRACING, at::MODIFY_RETURN) => check_attach_modify_return(env, sleepable),
        (pt::TRACING | pt::LSM, _) => Err(Fail::unsupported("check_attach_btf_id", "this attach type's targets are not modelled")),
        _ => Ok(()),
    }
}

/// The functions of the sets `register_btf_fmodret_id_set` gives
/// `btf_kfunc_is_modify_return`: `bpf_test_modify_return_ids`
/// (net/bpf/test_run.c) and `bpf_mptcp_fmodret_ids` (net/mptcp/bpf.c,
/// CONFIG_MPTCP, set on both images: 7.3 takes fmod_ret on
/// `update_socket_protocol`, which no syscall or `security_` prefix allows).
const BPF_TEST_MODIFY_RETURN_IDS: &[&str] =
    &["bpf_modify_return_test", "bpf_modify_return_test2", "bpf_modify_return_test_tp", "bpf_fentry_test1", "update_socket_protocol"];

/// `btf_id_deny`: the functions no tracing program may attach to. The
/// entries under config options are the union of both images' (x86_64:
/// CONFIG_SMP and CONFIG_PREEMPT_RCU; arm64: CONFIG_SMP without
/// CONFIG_PREEMPT_RCU), exact because each of those functions exists only
/// where its option puts it in the set (`preempt_count_add`/`_sub` are
/// functions only with the debug options both configs leave unset).
const BTF_ID_DENY: &[&str] = &[
    "___migrate_enable",
    "migrate_disable",
    "migrate_enable",
    "rcu_read_unlock_strict",
    "preempt_count_add",
    "preempt_count_sub",
    "__rcu_read_lock",
    "__rcu_read_unlock",
];

/// The end of `check_attach_btf_id` for fentry, fexit and fmod_ret on a
/// vmlinux function: `btf_id_deny` for every tracing program, then
/// `noreturn_deny` for those that run after the function returns.
fn check_attach_denied(env: &mut VerifierEnv<'_>, attach: u32) -> PResult<()> {
    use crate::prog_type::bpf_attach_type as at;
    let Some(btf) = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch) else {
        return Err(Fail::unsupported("check_attach_btf_id", "no vmlinux BTF is recorded for this arch"));
    };
    let tname = btf.name_of(env.input.attach_btf_id).to_string();
    if BTF_ID_DENY.contains(&tname.as_str()) {
        env.verbose(&format!("Attaching tracing programs to function '{tname}' is rejected.\n"));
        return Err(Fail::Errno(EINVAL));
    }
    if matches!(attach, at::TRACE_FEXIT | at::MODIFY_RETURN) && NORETURN_DENY.contains(&tname.as_str()) {
        env.verbose(&format!("Attaching fexit/fsession/fmod_ret to __noreturn function '{tname}' is rejected.\n"));
        return Err(Fail::Errno(EINVAL));
    }
    Ok(())
}

/// `noreturn_deny`: the functions fexit and fmod_ret may not attach to
/// (the entries under config options are the union of both arches': each
/// exists only where its option puts it in the set).
const NORETURN_DENY: &[&str] = &[
    "__ia32_sys_exit",
    "__ia32_sys_exit_group",
    "__kunit_abort",
    "kunit_try_catch_throw",
    "__module_put_and_kthread_exit",
    "__x64_sys_exit",
    "__x64_sys_exit_group",
    "do_exit",
    "do_group_exit",
    "kthread_complete_and_exit",
    "make_task_dead",
];

/// `has_arch_syscall_prefix`: a syscall's entry function on this arch.
fn has_arch_syscall_prefix(arch: crate::target::Arch, func_name: &str) -> bool {
    use crate::target::Arch;
    let prefix = match arch {
        Arch::X86_64 => "__x64_",
        Arch::Arm64 => "__arm64_",
        Arch::Riscv64 => "__riscv_",
        Arch::S390x => "__s390x_",
        Arch::Loongarch64 => "sys_",
    };
    func_name.starts_with(prefix)
}

/// `check_attach_modify_return` of a kernel without
/// CONFIG_FUNCTION_ERROR_INJECTION (7.3's configs, both arches): syscalls
/// and `security_*` functions.
fn check_attach_modify_return_target(arch: crate::target::Arch, func_name: &str) -> bool {
    has_arch_syscall_prefix(arch, func_name) || func_name.starts_with("security_")
}

/// `bpf_check_attach_target` and `check_attach_btf_id` for fmod_ret on a
/// vmlinux function: a function of the recorded BTF that is modifiable
/// (`btf_kfunc_is_modify_return`, `check_attach_modify_return`) and may
/// return.
fn check_attach_modify_return(env: &mut VerifierEnv<'_>, sleepable: bool) -> PResult<()> {
    check_attach_fentry(env)?;
    if sleepable {
        return Err(Fail::unsupported("check_attach_btf_id", "sleepable fmod_ret (btf_id_allow_sleepable) is not modelled"));
    }
    let id = env.input.attach_btf_id;
    let Some(btf) = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch) else {
        return Err(Fail::unsupported("check_attach_btf_id", "no vmlinux BTF is recorded for this arch"));
    };
    let tname = btf.name_of(id).to_string();
    if !BPF_TEST_MODIFY_RETURN_IDS.contains(&tname.as_str()) && !check_attach_modify_return_target(env.input.symbols_arch, &tname) {
        env.verbose(&format!("{tname}() is not modifiable\n"));
        return Err(Fail::Errno(EINVAL));
    }
    check_attach_denied(env, crate::prog_type::bpf_attach_type::MODIFY_RETURN)
}

/// `bpf_check_attach_target` for an iterator program, then
/// `bpf_iter_prog_supported`: the id must name a FUNC `bpf_iter_<target>`
/// of the recorded BTF for a registered target, whose `ctx_arg_info`
/// `btf_ctx_access` then uses.
fn check_attach_iter(env: &mut VerifierEnv<'_>) -> PResult<()> {
    use crate::vmlinux_btf::Kind;
    let id = env.input.attach_btf_id;
    if id == 0 {
        env.verbose("Tracing programs must provide btf_id\n");
        return Err(Fail::Errno(EINVAL));
    }
    let Some(btf) = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch) else {
        return Err(Fail::unsupported("check_attach_btf_id", "no vmlinux BTF is recorded for this arch"));
    };
    let Some(t) = btf.type_by_id(id) else {
        return Err(Fail::unsupported("check_attach_btf_id", &format!("attach target btf_id {id} is not in the recorded vmlinux BTF")));
    };
    let Kind::Func(proto) = t.kind else {
        env.verbose(&format!("attach_btf_id {id} is not a function\n"));
        return Err(Fail::Errno(EINVAL));
    };
    // btf_distill_func_proto: an iterator function takes pointers (and
    // task_file's u32 fd)
    let plain = |t: u32| {
        let t = btf.skip_modifiers(t);
        t == 0 || matches!(btf.type_by_id(t).map(|t| &t.kind), Some(Kind::Int { .. } | Kind::Ptr(_) | Kind::Enum { .. }))
    };
    match btf.type_by_id(proto).map(|p| &p.kind) {
        Some(Kind::FuncProto { ret, params: Some(ps) }) if ps.len() <= 12 && plain(*ret) && ps.iter().all(|(_, t)| *t != 0 && plain(*t)) => {}
        _ => return Err(Fail::unsupported("check_attach_btf_id", &format!("the prototype of {} (btf_distill_func_proto)", t.name))),
    }
    match bpf_iter::bpf_iter_prog_supported(&t.name) {
        bpf_iter::IterTarget::Registered(reg) => {
            if let Some(a) = reg.ctx_arg_info.iter().find(|a| bpf_iter::ctx_field_offset(btf, reg.target, a.field).is_none()) {
                return Err(Fail::unsupported(
                    "check_attach_btf_id",
                    &format!("iter: field {} of bpf_iter__{} is not in the recorded vmlinux BTF", a.field, reg.target),
                ));
            }
            Ok(())
        }
        bpf_iter::IterTarget::Unmodelled(target) => {
            Err(Fail::unsupported("check_attach_btf_id", &format!("iter: the registration of target {target} (its bpf_iter_reg ctx_arg_info) is not modelled")))
        }
        bpf_iter::IterTarget::None => Err(Fail::Errno(EINVAL)),
    }
}

/// `bpf_check_attach_target` then `bpf_lsm_verify_prog` for an LSM program
/// on a vmlinux hook: the id must name a `bpf_lsm_<hook>` FUNC of the
/// recorded BTF; a sleepable program needs a sleepable hook
/// (`btf_id_allow_sleepable`); the license must be GPL compatible and the
/// hook not disabled.
fn check_attach_lsm(env: &mut VerifierEnv<'_>, sleepable: bool) -> PResult<()> {
    use crate::vmlinux_btf::Kind;
    let id = env.input.attach_btf_id;
    if id == 0 {
        env.verbose("Tracing programs must provide btf_id\n");
        return Err(Fail::Errno(EINVAL));
    }
    let btf = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch);
    let Some(func) = btf.and_then(|b| b.type_by_id(id)) else {
        return Err(Fail::unsupported("check_attach_btf_id", &format!("attach target btf_id {id} is not in the recorded vmlinux BTF")));
    };
    let tname = func.name.clone();
    let proto = match func.kind {
        Kind::Func(p) => btf.and_then(|b| b.type_by_id(p)),
        _ => return Err(Fail::unsupported("check_attach_btf_id", &format!("attach target {tname} (btf_id {id}) is not a function"))),
    };
    // btf_distill_func_proto: hooks take pointers and integers; anything
    // else the model does not distill
    let b = btf.expect("found above");
    let plain = |t: u32| {
        let t = b.skip_modifiers(t);
        t == 0 || matches!(b.type_by_id(t).map(|t| &t.kind), Some(Kind::Int { .. } | Kind::Ptr(_) | Kind::Enum { .. }))
    };
    match proto.map(|p| &p.kind) {
        Some(Kind::FuncProto { ret, params: Some(ps) }) if ps.len() <= 12 && plain(*ret) && ps.iter().all(|(_, t)| *t != 0 && plain(*t)) => {}
        _ => return Err(Fail::unsupported("check_attach_btf_id", &format!("the prototype of {tname} (btf_distill_func_proto)"))),
    }
    // bpf_lsm_hooks: the recorded bpf_lsm_* functions are hooks (see bpf_lsm)
    if !tname.starts_with("bpf_lsm_") {
        return Err(Fail::unsupported("check_attach_btf_id", &format!("whether {tname} is an LSM hook (bpf_lsm_hooks)")));
    }
    if sleepable && !bpf_lsm::bpf_lsm_is_sleepable_hook(&tname) {
        env.verbose(&format!("{tname} is not sleepable\n"));
        return Err(Fail::Errno(EINVAL));
    }
    if !env.input.gpl {
        env.verbose("LSM programs must have a GPL compatible license\n");
        return Err(Fail::Errno(EINVAL));
    }
    if bpf_lsm::bpf_lsm_is_disabled_hook(&tname) {
        env.verbose(&format!("attach_btf_id {id} points to disabled hook {tname}\n"));
        return Err(Fail::Errno(EINVAL));
    }
    Ok(())
}

/// `bpf_check_attach_target` for tp_btf: the id must name the
/// `btf_trace_<tp>` typedef of a raw tracepoint. Its prototype (the
/// template's, the same types) is what `btf_ctx_access` reads the args by.
fn check_attach_raw_tp(env: &mut VerifierEnv<'_>, sleepable: bool) -> PResult<()> {
    use crate::vmlinux_btf::Kind;
    let id = env.input.attach_btf_id;
    if id == 0 {
        env.verbose("Tracing programs must provide btf_id\n");
        return Err(Fail::Errno(EINVAL));
    }
    let Some(btf) = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch) else {
        return Err(Fail::unsupported("check_attach_btf_id", "no vmlinux BTF is recorded for this arch"));
    };
    let Some(t) = btf.type_by_id(id) else {
        return Err(Fail::unsupported("check_attach_btf_id", &format!("attach target btf_id {id} is not in the recorded vmlinux BTF")));
    };
    if !matches!(t.kind, Kind::Typedef(_)) {
        env.verbose(&format!("attach_btf_id {id} is not a typedef\n"));
        return Err(Fail::Errno(EINVAL));
    }
    if !t.name.starts_with("btf_trace_") {
        env.verbose(&format!("attach_btf_id {id} points to wrong type name {}\n", t.name));
        return Err(Fail::Errno(EINVAL));
    }
    if sleepable {
        return Err(Fail::unsupported("check_attach_btf_id", "which tracepoints are faultable (tracepoint_is_faultable)"));
    }
    match btf_access::attach_func(btf, id, true) {
        Ok(_) => Ok(()),
        Err(e) => Err(Fail::unsupported("check_attach_btf_id", &format!("tp_btf target: {e}"))),
    }
}

/// `check_attach_btf_id` -> `bpf_check_attach_target` for fentry/fexit on
/// a vmlinux function: the id must name a FUNC whose prototype the
/// recorded BTF holds (what `btf_ctx_access` reads the args by).
fn check_attach_fentry(env: &mut VerifierEnv<'_>) -> PResult<()> {
    use crate::vmlinux_btf::Kind;
    let id = env.input.attach_btf_id;
    if id == 0 {
        env.verbose("Tracing programs must provide btf_id\n");
        return Err(Fail::Errno(EINVAL));
    }
    let btf = crate::vmlinux_btf::VmlinuxBtf::for_arch(env.input.symbols_arch);
    let proto = btf.and_then(|b| match b.type_by_id(id)?.kind {
        Kind::Func(p) => b.type_by_id(p),
        _ => None,
    });
    match proto.map(|t| &t.kind) {
        Some(Kind::FuncProto { params: Some(_), .. }) => Ok(()),
        _ => Err(Fail::unsupported("check_attach_btf_id", &format!("attach target btf_id {id} is not a function of the recorded vmlinux BTF"))),
    }
}

/// `print_verification_stats`.
pub(crate) fn print_verification_stats(env: &mut VerifierEnv<'_>, start: Instant) {
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
        crate::limits::BPF_COMPLEXITY_LIMIT_INSNS,
        env.max_states_per_insn,
        env.total_states,
        env.peak_states,
        env.longest_mark_read_walk
    );
    env.verbose(&line);
}

/// `bpf_log_attr_finalize` and the return to user space: a truncated log
/// turns any result into `ENOSPC`.
pub(crate) fn finish(env: &VerifierEnv<'_>, ret: Result<(), i32>, accepted_possible: bool) -> Verdict {
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
        // the kernel sets it either way; a rejected load's is what the log says
        verified_insns: env.insn_processed,
        ..Decision::default()
    })
}
