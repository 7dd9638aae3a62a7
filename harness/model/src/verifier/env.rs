//! What `bpf_check` needs from the world ([`VerifierInput`]: the
//! `BPF_PROG_LOAD` attributes, the caller's capabilities, the maps behind the
//! fds, the program BTF's `func_info`, the target kernel's kfunc BTF ids) and
//! its working state ([`VerifierEnv`], the kernel's `struct
//! bpf_verifier_env`: subprogram table, per-insn aux data, the log).

use bpf_isa::Insn;
use bpf_isa::disasm::{VerifierCallbacks, print_bpf_insn};

use std::sync::Arc;

use super::kfunc_btf_ids;
use super::log::BpfVerifierLog;
use crate::btf::Btf;
use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::target::Arch;

/// `BPF_MAXINSNS`: the unprivileged program size limit.
pub const BPF_MAXINSNS: usize = 4096;
/// `BPF_MAX_SUBPROGS`.
pub const BPF_MAX_SUBPROGS: usize = 256;
/// `MAX_USED_MAPS`.
pub const MAX_USED_MAPS: usize = 64;
pub use bpf_isa::insn::{BPF_REG_FP, BPF_REG_PARAMS, MAX_BPF_REG};

/// Capabilities of the loading task (test_loader's unprivileged run drops
/// the first four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub sys_admin: bool,
    pub net_admin: bool,
    pub perfmon: bool,
    pub bpf: bool,
}

impl Caps {
    /// root.
    pub const ALL: Caps = Caps { sys_admin: true, net_admin: true, perfmon: true, bpf: true };
    /// test_loader's unprivileged run.
    pub const NONE: Caps = Caps { sys_admin: false, net_admin: false, perfmon: false, bpf: false };

    /// Capabilities from the `caps_unpriv` list a test gives back
    /// (`CAP_NET_ADMIN` 12, `CAP_SYS_ADMIN` 21, `CAP_PERFMON` 38, `CAP_BPF` 39).
    pub fn from_numbers(caps: &[u32]) -> Caps {
        let has = |c: u32| caps.contains(&c);
        Caps { sys_admin: has(21), net_admin: has(12), perfmon: has(38), bpf: has(39) }
    }

    /// `bpf_capable()`: CAP_BPF or CAP_SYS_ADMIN.
    pub fn bpf_capable(self) -> bool {
        self.bpf || self.sys_admin
    }
    /// `perfmon_capable()`: CAP_PERFMON or CAP_SYS_ADMIN.
    pub fn perfmon_capable(self) -> bool {
        self.perfmon || self.sys_admin
    }
    /// `capable(CAP_NET_ADMIN)`.
    pub fn net_admin(self) -> bool {
        self.net_admin
    }
}

/// A map behind an fd of the loading process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapObj {
    pub fd: i32,
    pub def: MapDef,
    /// The map's id (`bpf_map_info.id`).
    pub id: u32,
    /// Where `struct bpf_map` lives in the (modelled) kernel: what
    /// `ld_imm64` of the map loads and the log prints when pointers may leak.
    pub kaddr: u64,
    /// `map->record`: the value's special fields when the map was created
    /// with BTF (`None`: without), and its inner map's.
    pub record: Option<super::maps::MapRecord>,
    pub inner_record: Option<super::maps::MapRecord>,
}

/// One record of the program BTF's `func_info` (`struct bpf_func_info`),
/// with what the model reads of its `FUNC`: name, linkage and argument
/// count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncInfo {
    pub insn_off: u32,
    /// The `FUNC`'s id in [`VerifierInput::prog_btf`] (0 without it: the
    /// prototype is then `int (int, ...)` with `nargs` arguments).
    pub type_id: u32,
    pub name: String,
    pub global: bool,
    /// Number of arguments of the prototype.
    pub nargs: u32,
}

/// Everything `bpf_prog_load` + `bpf_check` read from outside the program.
#[derive(Clone, Debug)]
pub struct VerifierInput {
    /// As passed to `BPF_PROG_LOAD`: maps by fd (`ld_imm64` src 1/2),
    /// kfuncs by vmlinux BTF id.
    pub insns: Vec<Insn>,
    pub prog_type: ProgType,
    pub expected_attach_type: u32,
    /// `attach_btf_id`: the vmlinux BTF id of the function a tracing
    /// program attaches to (0: none).
    pub attach_btf_id: u32,
    pub prog_flags: u32,
    pub log_level: u32,
    /// Size of the log buffer; 0 passes none.
    pub log_size: u32,
    pub caps: Caps,
    /// The process's map fds.
    pub maps: Vec<MapObj>,
    /// The program BTF's `func_info`; `None` loads without program BTF.
    pub func_info: Option<Vec<FuncInfo>>,
    /// The program BTF (`prog_btf_fd`) the `func_info` records' type ids
    /// point into; `None` takes every prototype as `int (int, ...)`.
    pub prog_btf: Option<Arc<Btf>>,
    /// The program BTF's `line_info` (`line_info_rec_size`,
    /// `line_info_cnt` and the records); `None` passes none.
    pub line_info: Option<super::linfo::LineInfoAttr>,
    /// License is GPL-compatible.
    pub gpl: bool,
    /// The kernel's arch: kfunc BTF ids and JIT availability.
    pub arch: Arch,
    /// The arch whose 7.3 image gave the kfunc BTF ids in `insns`: `arch`,
    /// but for an arch no 7.3 image was recorded for (a loader may borrow
    /// x86_64's ids there, and should say so).
    pub symbols_arch: Arch,
    /// What level 4's "verification time N usec" says; `None` measures the
    /// model's own run (set it for reproducible logs).
    pub verification_time_usec: Option<u64>,
}

impl VerifierInput {
    /// A privileged load of `insns` with defaults (GPL, no maps, no BTF).
    pub fn new(insns: Vec<Insn>, prog_type: ProgType, arch: Arch) -> VerifierInput {
        VerifierInput {
            insns,
            prog_type,
            expected_attach_type: 0,
            attach_btf_id: 0,
            prog_flags: 0,
            log_level: 0,
            log_size: 0,
            caps: Caps::ALL,
            maps: Vec::new(),
            func_info: None,
            prog_btf: None,
            line_info: None,
            gpl: true,
            arch,
            symbols_arch: arch,
            verification_time_usec: None,
        }
    }

    pub fn map_by_fd(&self, fd: i32) -> Option<usize> {
        self.maps.iter().position(|m| m.fd == fd)
    }
}

/// `struct bpf_subprog_info`, the parts the front end fills.
#[derive(Clone, Debug, Default)]
pub struct SubprogInfo {
    pub start: usize,
    /// The last `exit` of the subprogram (`check_subprogs`).
    pub exit_idx: usize,
    pub has_tail_call: bool,
    pub tail_call_reachable: bool,
    pub has_ld_abs: bool,
    /// `changes_pkt_data`: the subprogram, or one it calls, may move packet
    /// data (`bpf_check_cfg` marks it).
    pub changes_pkt_data: bool,
    /// `might_sleep`: the subprogram, or one it calls, may call a sleepable
    /// helper or kfunc (`bpf_check_cfg` marks it).
    pub might_sleep: bool,
    /// `might_throw`: the subprogram, or one it calls, may call
    /// `bpf_throw` (`bpf_check_cfg` marks it).
    pub might_throw: bool,
    pub is_exception_cb: bool,
    /// Appended by `add_hidden_subprog` (the default exception callback):
    /// JITed, but no image of the dump (`hidden_subprog_cnt`).
    pub hidden: bool,
    /// A callback (`is_cb`) and an asynchronous one (`is_async_cb`): set
    /// by the main pass when it meets their call sites.
    pub is_cb: bool,
    pub is_async_cb: bool,
    pub postorder_start: usize,
    /// From func_info's BTF, set by `check_btf_func`.
    pub name: Option<String>,
    pub insns_self: u32,
    pub insns_total: u32,
    pub stack_depth: u32,
    /// `priv_stack_mode == PRIV_STACK_ADAPTIVE` after `check_max_stack_depth`:
    /// the JIT gives this function a per-CPU private stack.
    pub priv_stack_adaptive: bool,
    /// `mark_fastcall_patterns`: where the fastcall spill/fill slots start
    /// (`i16::MIN` once an access outside a pattern disabled the rewrite),
    /// and whether a pattern around a call this kernel does not inline
    /// keeps the stack as it is.
    pub fastcall_stack_off: i16,
    pub keep_fastcall_stack: bool,
}

/// `struct bpf_insn_aux_data`, the parts the front end fills. Every
/// rewrite that grows the program moves this per-insn data: what few
/// insns have (jump tables, constant registers) lives beside it, so that
/// an entry is 40 bytes.
#[derive(Clone, Debug, Default)]
pub struct InsnAux {
    /// Successors that are not the plain ones: `gotox` targets, and the
    /// hidden exit of `tail_call` and `LD_ABS`/`LD_IND`.
    pub jt: Option<JumpTable>,
    /// Index into `used_maps` of an `ld_imm64` of a map.
    pub map_index: usize,
    pub map_off: u32,
    /// `btf_var`: what an `ld_imm64` of a kernel variable
    /// (`BPF_PSEUDO_BTF_ID`) loads, its register type (0: not such a load)
    /// and its type (the model's id, for `PTR_TO_BTF_ID`) or `mem_size`
    /// (for `PTR_TO_MEM`).
    pub btf_var_type: super::reg::RegType,
    pub btf_var_aux: i64,
    /// `bpf_compute_const_regs`: the insn's entry in
    /// [`VerifierEnv::const_regs`] (0: no register known constant).
    pub const_regs: u32,
    /// Strongly connected component (0: in no loop).
    pub scc: u32,
    pub live_regs_before: u16,
    pub zext_dst: bool,
    /// `mark_calls_callback`: a call of a helper or kfunc that calls a
    /// callback synchronously (an implicit loop).
    pub calls_callback: bool,
    pub prune_point: bool,
    pub jmp_point: bool,
    pub force_checkpoint: bool,
    /// `jump_target` (set by `check_cfg` on branch, `goto` and callee
    /// targets; computed by [`super::fastcall::mark_jump_targets`]).
    pub jump_target: bool,
    /// A spill or fill of a fastcall pattern, and on the call how many
    /// spill/fill pairs `bpf_remove_fastcall_spills_fills` removes.
    pub fastcall_pattern: bool,
    pub fastcall_spills_num: u8,
}

/// An insn's jump table (`insn_aux->jt`): one pointer in the per-insn
/// data (a boxed slice would be two).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(clippy::box_collection)] // the box is what keeps it one pointer
pub struct JumpTable(Box<Vec<usize>>);

impl std::ops::Deref for JumpTable {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.0
    }
}

impl<const N: usize> From<[usize; N]> for JumpTable {
    fn from(targets: [usize; N]) -> JumpTable {
        JumpTable(Box::new(targets.to_vec()))
    }
}

impl From<Vec<usize>> for JumpTable {
    fn from(targets: Vec<usize>) -> JumpTable {
        JumpTable(Box::new(targets))
    }
}

/// `bpf_compute_const_regs`'s result for one insn: registers known to
/// hold a constant that fits in 32 bits, maps (by `used_maps` index) and
/// subprograms, and their values (by register).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConstRegs {
    pub mask: u16,
    pub map_mask: u16,
    pub subprog_mask: u16,
    pub vals: [u32; 10],
}

impl ConstRegs {
    /// No register known constant.
    pub const NONE: ConstRegs = ConstRegs { mask: 0, map_mask: 0, subprog_mask: 0, vals: [0; 10] };
}

/// `struct bpf_verifier_env`: the front end's part.
pub struct VerifierEnv<'a> {
    pub input: &'a VerifierInput,
    /// `env->prog->insnsi`: rewritten in place (map addresses, folded branches).
    pub insns: Vec<Insn>,
    pub aux: Vec<InsnAux>,
    /// `subprog_cnt` entries and the fake one at the end (`start` = len).
    pub subprog_info: Vec<SubprogInfo>,
    pub subprog_cnt: usize,
    pub subprog_topo_order: Vec<usize>,
    pub exception_callback_subprog: usize,
    /// `env->seen_exception`: a verified `bpf_throw` (set by
    /// `bpf_do_misc_fixups`, before calls get their addresses).
    pub seen_exception: bool,
    pub log: BpfVerifierLog,
    pub bpf_capable: bool,
    pub allow_ptr_leaks: bool,
    pub allow_uninit_stack: bool,
    pub bypass_spec_v1: bool,
    pub bypass_spec_v4: bool,
    pub strict_alignment: bool,
    pub test_state_freq: bool,
    pub test_reg_invariants: bool,
    /// `prog->aux->func_info` after `prepare_btf_func`.
    pub func_info: Option<Vec<FuncInfo>>,
    /// `prog->aux->func_info_aux` after `check_btf_func`: global linkage.
    pub func_info_global: Option<Vec<bool>>,
    /// `prog->aux->linfo` after `check_btf_line`.
    pub linfo: Vec<super::linfo::BpfLineInfo>,
    /// `env->prev_linfo`: the record `verbose_linfo` printed last.
    pub prev_linfo: Option<usize>,
    /// Indexes into `input.maps`, in first-use order.
    pub used_maps: Vec<usize>,
    /// `env->cfg.insn_postorder` (reachable insns, per subprogram; u32:
    /// as long as the program, and programs have fewer than 2^32 insns).
    pub insn_postorder: Vec<u32>,
    pub scc_cnt: u32,
    /// `bpf_check_cfg` met no back-edge, no callback-calling insn and no
    /// hidden exit: the CFG has no loop of any kind, so no insn is in an
    /// SCC and `bpf_compute_scc` need not walk it.
    pub cfg_loop_free: bool,
    /// `add_subprogs` met a bpf-to-bpf call or a subprogram reference
    /// (`ld_imm64` of a function): without one, no analysis needs to walk
    /// the insns looking for callees.
    pub has_subprog_refs: bool,
    /// Statistics `print_verification_stats` reports.
    pub insn_processed: u32,
    pub max_states_per_insn: u32,
    pub total_states: u32,
    pub peak_states: u32,
    pub longest_mark_read_walk: u32,
    pub max_stack_depth: u32,
    /// The kfunc table of the target (name by BTF id).
    pub kfuncs: &'static [(&'static str, u32)],
    /// `env->liveness`: stack liveness for the main pass's pruning.
    pub stack_liveness: super::liveness::BpfLiveness,
    /// What the main pass left per insn for the rewrites (empty before it).
    pub pass_aux: Vec<super::do_check::PassAux>,
    /// `prog->aux->max_ctx_offset`.
    pub max_ctx_offset: u32,
    /// `prog->aux->poke_tab`, by poke number - 1: the prog array (index
    /// into `input.maps`) and key of each direct tail call, when known.
    pub tail_call_pokes: Vec<Option<(usize, u64)>>,
    /// The constant registers of the insns that have any, by
    /// `InsnAux::const_regs` (entry 0: none).
    pub const_regs: Vec<ConstRegs>,
}

impl<'a> VerifierEnv<'a> {
    pub fn new(input: &'a VerifierInput, log: BpfVerifierLog) -> VerifierEnv<'a> {
        let caps = input.caps;
        let n = input.insns.len();
        VerifierEnv {
            input,
            insns: input.insns.clone(),
            aux: vec![InsnAux::default(); n],
            subprog_info: vec![SubprogInfo::default(); 1],
            subprog_cnt: 0,
            subprog_topo_order: Vec::new(),
            exception_callback_subprog: 0,
            seen_exception: false,
            log,
            bpf_capable: caps.bpf_capable(),
            allow_ptr_leaks: caps.perfmon_capable(),
            allow_uninit_stack: caps.perfmon_capable(),
            bypass_spec_v1: caps.perfmon_capable(),
            // bpf_jit_bypass_spec_v4: arm64 relies on the firmware's SSBD
            bypass_spec_v4: caps.perfmon_capable() || input.arch == Arch::Arm64,
            strict_alignment: false,
            test_state_freq: false,
            test_reg_invariants: false,
            func_info: None,
            func_info_global: None,
            linfo: Vec::new(),
            prev_linfo: None,
            used_maps: Vec::new(),
            insn_postorder: Vec::new(),
            scc_cnt: 0,
            cfg_loop_free: false,
            has_subprog_refs: false,
            insn_processed: 0,
            max_states_per_insn: 0,
            total_states: 0,
            peak_states: 0,
            longest_mark_read_walk: 0,
            max_stack_depth: 0,
            kfuncs: kfunc_btf_ids::table(input.symbols_arch),
            stack_liveness: Default::default(),
            pass_aux: Vec::new(),
            max_ctx_offset: 0,
            tail_call_pokes: Vec::new(),
            const_regs: vec![ConstRegs::NONE],
        }
    }

    pub fn len(&self) -> usize {
        self.insns.len()
    }

    /// The constant registers `bpf_compute_const_regs` found at insn `idx`.
    pub fn const_regs_at(&self, idx: usize) -> &ConstRegs {
        self.const_regs.get(self.aux[idx].const_regs as usize).unwrap_or(&ConstRegs::NONE)
    }

    pub fn is_empty(&self) -> bool {
        self.insns.is_empty()
    }

    /// `verbose()`.
    pub fn verbose(&mut self, msg: &str) {
        self.log.vlog(msg);
    }

    pub fn level(&self) -> u32 {
        self.log.level
    }

    /// `verbose_linfo`: `prefix` and the source line of `insn_off`, unless
    /// it is the line printed last.
    pub fn verbose_linfo(&mut self, insn_off: usize, prefix: &str) {
        if self.level() == 0 {
            return;
        }
        let mut prev = self.prev_linfo;
        if let Some(text) = super::linfo::verbose_linfo_text(&self.linfo, self.input.prog_btf.as_deref(), self.insns.len(), &mut prev, insn_off) {
            self.prev_linfo = prev;
            self.verbose(prefix);
            self.verbose(&text);
        }
    }

    /// The name of a kfunc by its BTF id, if the table knows it.
    pub fn kfunc_name(&self, btf_id: i32) -> Option<&'static str> {
        self.kfuncs.iter().find(|(_, id)| *id as i64 == btf_id as i64).map(|(n, _)| *n)
    }

    /// `bpf_verbose_insn` (and diagnostics' `format_disasm_line`): the
    /// disasm.c text of insn `idx` with the log's callbacks.
    pub fn insn_text(&self, idx: usize) -> String {
        let kf = |id: i32, off: i16| -> Option<String> {
            if off != 0 {
                return None;
            }
            self.kfunc_name(id).map(str::to_string)
        };
        let cbs = VerifierCallbacks { kfunc_name: &kf };
        let Some(insn) = self.insns.get(idx) else { return String::new() };
        print_bpf_insn(&cbs, insn, self.insns.get(idx + 1), self.allow_ptr_leaks)
    }

    /// `bpf_subprog_name`: the func_info name, "" without BTF.
    pub fn bpf_subprog_name(&self, subprog: usize) -> String {
        match &self.func_info {
            Some(fi) => fi.get(subprog).map_or_else(String::new, |f| f.name.clone()),
            None => String::new(),
        }
    }

    /// `bpf_subprog_is_global`.
    pub fn bpf_subprog_is_global(&self, subprog: usize) -> bool {
        self.func_info_global.as_ref().is_some_and(|g| g.get(subprog).copied().unwrap_or(false))
    }

    /// `bpf_find_containing_subprog`.
    pub fn bpf_find_containing_subprog(&self, off: usize) -> Option<usize> {
        if off >= self.len() || self.subprog_cnt == 0 {
            return None;
        }
        let starts = &self.subprog_info[..self.subprog_cnt];
        // the last subprogram whose start is <= off
        let k = starts.partition_point(|s| s.start <= off);
        Some(k.saturating_sub(1))
    }

    /// `bpf_find_subprog`: the subprogram starting exactly at `off`.
    pub fn bpf_find_subprog(&self, off: usize) -> Option<usize> {
        let s = self.bpf_find_containing_subprog(off)?;
        (self.subprog_info[s].start == off).then_some(s)
    }

    /// `bpf_calls_callback`. Only calls are marked (`check_cfg`): the
    /// insn is looked at first, so analyses asking about every insn do
    /// not pull in every (large) aux entry.
    pub fn bpf_calls_callback(&self, idx: usize) -> bool {
        self.insns.get(idx).is_some_and(|i| i.code == bpf_isa::op::BPF_JMP | bpf_isa::op::BPF_CALL) && self.aux.get(idx).is_some_and(|a| a.calls_callback)
    }
}

/// `bpf_is_ldimm64`.
pub fn is_ldimm64(insn: &Insn) -> bool {
    insn.is_ld_imm64()
}

/// `bpf_pseudo_func`: `ld_imm64` of a subprogram's address (a callback).
#[inline]
pub fn bpf_pseudo_func(insn: &Insn) -> bool {
    insn.is_ld_imm64() && insn.src == bpf_isa::op::BPF_PSEUDO_FUNC
}

/// `bpf_pseudo_call`: a bpf-to-bpf call.
#[inline]
pub fn bpf_pseudo_call(insn: &Insn) -> bool {
    insn.is_pseudo_call()
}

/// `bpf_pseudo_kfunc_call`.
pub fn bpf_pseudo_kfunc_call(insn: &Insn) -> bool {
    insn.is_kfunc_call()
}

/// `bpf_helper_call`.
pub fn bpf_helper_call(insn: &Insn) -> bool {
    insn.is_helper_call()
}

/// `bpf_jmp_offset`: `gotol` keeps its offset in `imm`.
pub fn bpf_jmp_offset(insn: &Insn) -> i32 {
    use bpf_isa::op::*;
    if insn.code == BPF_JMP32 | BPF_JA { insn.imm } else { insn.off as i32 }
}

/// `t + off + 1` as the kernel computes it, in `int` (wrapping, as the
/// kernel's arithmetic does in practice for absurd offsets).
pub fn jmp_target(t: usize, off: i32) -> i32 {
    (t as i32).wrapping_add(off).wrapping_add(1)
}

/// `insn_is_gotox`: `BPF_JMP | BPF_JA | BPF_X`.
pub fn insn_is_gotox(insn: &Insn) -> bool {
    use bpf_isa::op::*;
    insn.class() == BPF_JMP && op(insn.code) == BPF_JA && src(insn.code) == BPF_X
}

/// `bpf_is_may_goto_insn`.
#[inline]
pub fn bpf_is_may_goto_insn(insn: &Insn) -> bool {
    use bpf_isa::op::*;
    insn.code == BPF_JMP | BPF_JCOND && insn.src == BPF_MAY_GOTO
}

/// `bpf_insn_is_cond_jump`.
#[inline]
pub fn bpf_insn_is_cond_jump(code: u8) -> bool {
    use bpf_isa::op::*;
    let o = op(code);
    match class(code) {
        BPF_JMP32 => o != BPF_JA,
        BPF_JMP => o != BPF_JA && o != BPF_EXIT && o != BPF_CALL,
        _ => false,
    }
}

// (the analyses ask these of every insn: the rare register first)

/// `is_stack_arg_ldx`: `rX = *(u64 *)(r11 + off)`, an incoming stack argument.
#[inline]
pub fn is_stack_arg_ldx(insn: &Insn) -> bool {
    use bpf_isa::op::*;
    insn.src == BPF_REG_PARAMS && insn.code == BPF_LDX | BPF_MEM | BPF_DW && insn.off > 0 && insn.off % 8 == 0
}

/// `is_stack_arg_stx`: `*(u64 *)(r11 + off) = rX`, an outgoing stack argument.
#[inline]
pub fn is_stack_arg_stx(insn: &Insn) -> bool {
    use bpf_isa::op::*;
    insn.dst == BPF_REG_PARAMS && insn.code == BPF_STX | BPF_MEM | BPF_DW && insn.off < 0 && insn.off % 8 == 0
}

/// `is_stack_arg_st`: `*(u64 *)(r11 + off) = imm`.
#[inline]
pub fn is_stack_arg_st(insn: &Insn) -> bool {
    use bpf_isa::op::*;
    insn.dst == BPF_REG_PARAMS && insn.code == BPF_ST | BPF_MEM | BPF_DW && insn.off < 0 && insn.off % 8 == 0
}

/// `license_is_gpl_compatible` (`include/linux/license.h`).
pub fn license_is_gpl_compatible(license: &str) -> bool {
    matches!(license, "GPL" | "GPL v2" | "GPL and additional rights" | "Dual BSD/GPL" | "Dual MIT/GPL" | "Dual MPL/GPL")
}
