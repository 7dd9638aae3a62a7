//! Helper calls: `check_helper_call` and the checks of its arguments
//! (`check_func_arg`, `check_reg_type`, `check_func_arg_reg_off`, the
//! memory, size, map, constant-string, timer and spin-lock arguments), what
//! a call records for the fixups (`record_func_map`, `record_func_key`,
//! `update_loop_inline_state`) and the refinement of its return value.
//!
//! BPF-to-BPF calls, frames and callbacks are in [`super::calls`], kfuncs
//! in [`super::kfuncs`], the prototype table in [`super::helper_protos`].

use crate::map::types::*;
use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::calls::{CALLER_SAVED_REGS, CallbackKind, retval_range_within};
use super::diag::ModReason;
use super::do_check::*;
use super::helper_protos::*;
use super::helpers::{self, func};
use super::reg::*;
use super::scalar::print::tnum_strn;
use super::state::*;
use super::tnum::*;
use crate::prog_type::bpf_attach_type;

/// `BPF_MAX_VAR_SIZ`.
pub(crate) const BPF_MAX_VAR_SIZ: u64 = 1 << 29;
/// `MAX_ERRNO`.
const MAX_ERRNO: i64 = 4095;

/// `bpf_map_key_state` of a tail call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MapKeyState {
    #[default]
    Unseen,
    Imm(u64),
    Poison,
}

/// `struct bpf_loop_inline_state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopInlineState {
    pub initialized: bool,
    pub fit_for_inline: bool,
    pub callback_subprogno: u32,
}

/// The map value fields `check_map_field_pointer` finds (`BPF_TIMER`,
/// `BPF_WORKQUEUE`, `BPF_TASK_WORK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MapField {
    Timer,
    Workqueue,
    TaskWork,
}

impl MapField {
    /// `btf_field_type_name`.
    pub(crate) fn btf_field_type_name(self) -> &'static str {
        match self {
            MapField::Timer => "bpf_timer",
            MapField::Workqueue => "bpf_wq",
            MapField::TaskWork => "bpf_task_work",
        }
    }
}

/// The argument facts `check_func_arg` collects (`struct
/// bpf_call_arg_meta`).
#[derive(Clone, Debug, Default)]
pub(crate) struct CallArgMeta {
    pub func_id: i32,
    /// `map.ptr` (flattened index) and `map.uid`.
    pub map: Option<(usize, u32)>,
    pub raw_mem_regno: usize,
    pub raw_mem_size: i64,
    pub release_regno: usize,
    pub const_map_key: i64,
    pub msize_max_value: u64,
    pub subprogno: usize,
    pub ret_mem_size: Option<u64>,
    /// `ref_obj`: id, parent id, how many referenced args.
    pub ref_obj_id: u32,
    pub ref_obj_parent: u32,
    pub ref_obj_cnt: u32,
    /// `dynptr`: type, id, parent of an initialized dynptr argument.
    pub dynptr_type: u32,
    pub dynptr_id: u32,
    pub dynptr_parent: u32,
    pub arg_constant: Option<u64>,
    /// `iter`: slot and frame of the iterator argument.
    pub iter_spi: usize,
    pub iter_frameno: usize,
    pub ret_btf: i64,
    /// `kptr_field`: `bpf_kptr_xchg`'s destination field.
    pub kptr_field: Option<crate::btf::BtfField>,
    /// `arg_btf`/`arg_btf_id`: the (model's id of the) local type of an
    /// allocated-object argument.
    pub arg_btf_id: i64,
    /// `arg_owning_ref`: a refcounted-kptr argument is an owning
    /// reference (so `bpf_refcount_acquire` cannot fail).
    pub arg_owning_ref: bool,
    /// `arg_list_head.field`/`arg_rbtree_root.field`: the graph root
    /// argument of a list or rbtree kfunc.
    pub graph_root: Option<crate::btf::BtfField>,
}

/// `reg_arg_name` for a register argument.
pub(crate) fn reg_arg_name(regno: usize) -> String {
    format!("R{regno}")
}

/// `process_spin_lock`'s flags.
pub(crate) const PROCESS_SPIN_LOCK: u32 = 1 << 0;
pub(crate) const PROCESS_RES_LOCK: u32 = 1 << 1;
pub(crate) const PROCESS_LOCK_IRQ: u32 = 1 << 2;

/// `diag_lock_name`: how a report names a held lock of this kind.
fn diag_lock_name(typ: u32) -> &'static str {
    match typ {
        REF_TYPE_LOCK => "bpf_spin_lock",
        REF_TYPE_RES_LOCK => "resource spin lock",
        REF_TYPE_RES_LOCK_IRQ => "IRQ-saving resource spin lock",
        _ => "lock",
    }
}

/// `arg_type_is_mem_size`.
fn arg_type_is_mem_size(t: ArgType) -> bool {
    t == ARG_MEM_SIZE || t == ARG_MEM_SIZE_OR_ZERO
}

/// `arg_type_is_raw_mem`.
fn arg_type_is_raw_mem(t: ArgType) -> bool {
    (base_type(t) == ARG_PTR_TO_MEM || base_type(t) == ARG_PTR_TO_MAP_VALUE) && t & MEM_UNINIT != 0
}

/// `arg_type_is_release`.
pub(crate) fn arg_type_is_release(t: ArgType) -> bool {
    t & OBJ_RELEASE != 0
}

/// `arg_type_is_dynptr`.
fn arg_type_is_dynptr(t: ArgType) -> bool {
    base_type(t) == ARG_PTR_TO_DYNPTR
}

/// `compatible_reg_types[]`: the register types an argument type accepts.
fn compatible_reg_types(t: ArgType) -> Option<&'static [RegType]> {
    const SOCK: &[RegType] = &[PTR_TO_SOCK_COMMON, PTR_TO_SOCKET, PTR_TO_TCP_SOCK, PTR_TO_XDP_SOCK];
    const BTF_ID_SOCK_COMMON: &[RegType] = &[PTR_TO_SOCK_COMMON, PTR_TO_SOCKET, PTR_TO_TCP_SOCK, PTR_TO_XDP_SOCK, PTR_TO_BTF_ID, PTR_TO_BTF_ID | PTR_TRUSTED];
    const MEM: &[RegType] = &[
        PTR_TO_STACK,
        PTR_TO_PACKET,
        PTR_TO_PACKET_META,
        PTR_TO_MAP_KEY,
        PTR_TO_MAP_VALUE,
        PTR_TO_MEM,
        PTR_TO_MEM | MEM_RINGBUF,
        PTR_TO_BUF,
        PTR_TO_BTF_ID | PTR_TRUSTED,
        PTR_TO_CTX,
    ];
    const SPIN_LOCK: &[RegType] = &[PTR_TO_MAP_VALUE, PTR_TO_BTF_ID | MEM_ALLOC];
    const FULLSOCK: &[RegType] = &[PTR_TO_SOCKET];
    const SCALAR: &[RegType] = &[SCALAR_VALUE];
    const CONTEXT: &[RegType] = &[PTR_TO_CTX];
    const RINGBUF_MEM: &[RegType] = &[PTR_TO_MEM | MEM_RINGBUF];
    const CONST_MAP_PTR: &[RegType] = &[CONST_PTR_TO_MAP];
    const BTF_PTR: &[RegType] = &[PTR_TO_BTF_ID, PTR_TO_BTF_ID | PTR_TRUSTED, PTR_TO_BTF_ID | MEM_RCU];
    const PERCPU_BTF_PTR: &[RegType] = &[PTR_TO_BTF_ID | MEM_PERCPU, PTR_TO_BTF_ID | MEM_PERCPU | MEM_RCU, PTR_TO_BTF_ID | MEM_PERCPU | PTR_TRUSTED];
    const FUNC_PTR: &[RegType] = &[PTR_TO_FUNC];
    const STACK_PTR: &[RegType] = &[PTR_TO_STACK];
    const CONST_STR: &[RegType] = &[PTR_TO_MAP_VALUE];
    const TIMER: &[RegType] = &[PTR_TO_MAP_VALUE];
    const KPTR_XCHG_DEST: &[RegType] =
        &[PTR_TO_MAP_VALUE, PTR_TO_BTF_ID | MEM_ALLOC, PTR_TO_BTF_ID | MEM_ALLOC | NON_OWN_REF, PTR_TO_BTF_ID | MEM_ALLOC | NON_OWN_REF | MEM_RCU];
    const DYNPTR: &[RegType] = &[PTR_TO_STACK, CONST_PTR_TO_DYNPTR];
    Some(match base_type(t) {
        ARG_PTR_TO_MAP_KEY | ARG_PTR_TO_MAP_VALUE | ARG_PTR_TO_MEM => MEM,
        ARG_MEM_SIZE | ARG_MEM_SIZE_OR_ZERO | ARG_CONST_ALLOC_SIZE_OR_ZERO | ARG_SCALAR => SCALAR,
        ARG_CONST_MAP_PTR => CONST_MAP_PTR,
        ARG_PTR_TO_CTX => CONTEXT,
        ARG_PTR_TO_SOCK_COMMON => SOCK,
        ARG_PTR_TO_BTF_ID_SOCK_COMMON => BTF_ID_SOCK_COMMON,
        ARG_PTR_TO_SOCKET => FULLSOCK,
        ARG_PTR_TO_BTF_ID => BTF_PTR,
        ARG_PTR_TO_SPIN_LOCK => SPIN_LOCK,
        ARG_PTR_TO_RINGBUF_MEM => RINGBUF_MEM,
        ARG_PTR_TO_PERCPU_BTF_ID => PERCPU_BTF_PTR,
        ARG_PTR_TO_FUNC => FUNC_PTR,
        ARG_PTR_TO_STACK => STACK_PTR,
        ARG_PTR_TO_CONST_STR => CONST_STR,
        ARG_PTR_TO_TIMER => TIMER,
        ARG_KPTR_XCHG_DEST => KPTR_XCHG_DEST,
        ARG_PTR_TO_DYNPTR => DYNPTR,
        _ => return None,
    })
}

/// `check_func_proto`: the static sanity of a prototype (a kernel bug
/// otherwise).
fn check_func_proto(fn_: &FuncProto, meta: &mut CallArgMeta) -> bool {
    // check_raw_mode_ok
    for (i, &t) in fn_.args.iter().enumerate() {
        if t == ARG_DONTCARE {
            break;
        }
        if !arg_type_is_raw_mem(t) {
            continue;
        }
        if meta.raw_mem_regno != 0 {
            return false;
        }
        meta.raw_mem_regno = i + 1;
    }
    // check_arg_pair_ok
    if arg_type_is_mem_size(fn_.args[0]) {
        return false;
    }
    for arg in 0..5 {
        let is_fixed = fn_.args[arg] & MEM_FIXED_SIZE != 0;
        let has_size = fn_.arg_size[arg] != 0;
        let is_next_size = arg + 1 < 5 && arg_type_is_mem_size(fn_.args[arg + 1]);
        let invalid = if base_type(fn_.args[arg]) != ARG_PTR_TO_MEM { is_next_size } else { has_size == is_next_size || is_next_size == is_fixed };
        if invalid {
            return false;
        }
    }
    // check_mem_arg_rw_flag_ok
    for &t in fn_.args.iter() {
        if t == ARG_DONTCARE {
            break;
        }
        if base_type(t) == ARG_PTR_TO_MEM && t & (MEM_WRITE | MEM_RDONLY) == 0 {
            return false;
        }
    }
    // check_proto_release_reg
    for (i, &t) in fn_.args.iter().enumerate() {
        if t == ARG_DONTCARE {
            break;
        }
        if arg_type_is_release(t) {
            if meta.release_regno != 0 {
                return false;
            }
            meta.release_regno = i + 1;
        }
    }
    true
}

impl Env<'_, '_> {
    /// `bpf_register_is_null` of the current frame's register.
    fn reg_is_null(&self, regno: usize) -> bool {
        self.regs().get(regno).is_some_and(|r| r.is_null())
    }

    /// `check_helper_call`.
    pub(super) fn check_helper_call(&mut self, insn: &Insn) -> VResult<Next> {
        let func_id = insn.imm;
        let insn_idx = self.insn_idx;
        let name = helpers::func_id_name(func_id);
        if !(0..helpers::BPF_FUNC_MAX_ID).contains(&func_id) {
            self.verbose(&format!("invalid func {name}#{func_id}\n"));
            return errno(EINVAL);
        }
        let pctx = helpers::ProtoCtx {
            prog_type: self.input.prog_type,
            expected_attach_type: self.input.expected_attach_type,
            sleepable: self.input.sleepable,
            cap_bpf: self.bpf_capable(),
            cap_perfmon: self.allow_ptr_leaks(),
            cap_sys_admin: self.bpf_capable() && self.allow_ptr_leaks(),
            attach_func: self.input.vmlinux_btf.and_then(|b| b.type_by_id(self.input.attach_btf_id)).map_or("", |t| t.name.as_str()),
        };
        let Some(fn_) = helpers::get_func_proto(func_id, &pctx) else {
            self.verbose(&format!("program of this type cannot use helper {name}#{func_id}\n"));
            let idx = self.insn_idx;
            super::diag::bpf_diag_policy(
                self,
                idx,
                &format!("helper {name}#{func_id}"),
                "this program type does not allow the helper",
                "Use a helper allowed for this program type, or move the logic to a compatible program type.",
            );
            return errno(EINVAL);
        };
        if !self.input.gpl && fn_.gpl_only {
            self.verbose("cannot call GPL-restricted function from non-GPL compatible program\n");
            let idx = self.insn_idx;
            super::diag::bpf_diag_policy(
                self,
                idx,
                &format!("helper {name}#{func_id}"),
                "this helper is restricted to GPL-compatible programs",
                "Use a GPL-compatible license, or replace the helper with one that is available to non-GPL programs.",
            );
            return errno(EINVAL);
        }
        let allowed = match fn_.allowed {
            Allowed::Always => true,
            Allowed::DPath => self.bpf_d_path_allowed()?,
            Allowed::ImaInodeHash => return Err(DoCheckError::Unsupported(format!("the attach-point policy of {name} is not modelled"))),
            Allowed::SkStorageTracing => self.bpf_sk_storage_tracing_allowed()?,
        };
        if !allowed {
            self.verbose("helper call is not allowed in probe\n");
            let idx = self.insn_idx;
            super::diag::bpf_diag_policy(
                self,
                idx,
                &format!("helper {name}#{func_id}"),
                "the helper-specific policy callback rejected this program",
                "Use the helper only from an allowed attach point or program configuration.",
            );
            return errno(EINVAL);
        }
        let mut changes_data = helpers::bpf_helper_changes_pkt_data(func_id);
        if changes_data && fn_.args[0] != ARG_PTR_TO_CTX {
            self.verbose(&format!("verifier bug: func {name}#{func_id}: r1 != ctx\n"));
            return errno(EFAULT);
        }
        let mut meta = CallArgMeta { func_id, const_map_key: -1, ..CallArgMeta::default() };
        if !check_func_proto(fn_, &mut meta) {
            self.verbose(&format!("verifier bug: incorrect func proto {name}#{func_id}\n"));
            return errno(EINVAL);
        }
        if fn_.might_sleep && !self.in_sleepable_context() {
            let s = format!("sleepable helper {name}#{func_id} in {}\n", self.non_sleepable_context_description());
            self.verbose(&s);
            return errno(EINVAL);
        }
        if !self.in_sleepable_context()
            && let Some(a) = self.aux.get_mut(insn_idx)
        {
            a.non_sleepable = true;
        }
        for arg in 0..5 {
            self.check_func_arg(arg, fn_, &mut meta)?;
        }
        self.record_func_map(&meta, func_id)?;
        self.record_func_key(&meta, func_id)?;
        // raw mode: the helper fills the buffer, its bytes become STACK_MISC
        for i in 0..meta.raw_mem_size {
            self.check_mem_access_insn(meta.raw_mem_regno, i, BPF_B, true, None, false)?;
        }
        if meta.release_regno != 0 {
            let reg = self.regs()[meta.release_regno];
            // a percpu object exchanged into a kptr inside RCU stays usable
            let convert_rcu = func_id == func::KPTR_XCHG && self.in_rcu_cs() && reg.typ & MEM_ALLOC != 0 && reg.typ & MEM_PERCPU != 0;
            self.release_reg(&reg, convert_rcu, meta.dynptr_id != 0)?;
        }
        match func_id {
            func::TAIL_CALL => self.check_resource_leak(false, true, "tail_call")?,
            func::GET_LOCAL_STORAGE => {
                if !self.reg_is_null(2) {
                    self.verbose("get_local_storage() doesn't support non-zero flags\n");
                    return errno(EINVAL);
                }
                self.mark_chain_precision(2)?;
            }
            func::FOR_EACH_MAP_ELEM => self.push_callback_call(insn, insn_idx, meta.subprogno, CallbackKind::MapElem)?,
            func::TIMER_SET_CALLBACK => self.push_callback_call(insn, insn_idx, meta.subprogno, CallbackKind::Timer)?,
            func::FIND_VMA => self.push_callback_call(insn, insn_idx, meta.subprogno, CallbackKind::FindVma)?,
            func::SNPRINTF => self.check_bpf_snprintf_call()?,
            func::LOOP => {
                self.update_loop_inline_state(meta.subprogno)?;
                self.mark_chain_precision(1)?;
                let umax = self.regs()[1].s.umax();
                if (self.cur.cur().callback_depth as u64) < umax {
                    self.push_callback_call(insn, insn_idx, meta.subprogno, CallbackKind::Loop)?;
                } else {
                    self.cur.cur_mut().callback_depth = 0;
                    if self.level() & BPF_LOG_LEVEL2 != 0 {
                        let s = format!("frame{} bpf_loop iteration limit reached\n", self.cur.curframe());
                        self.verbose(&s);
                    }
                }
            }
            func::DYNPTR_FROM_MEM => {
                let t = self.regs()[1].typ;
                if t != PTR_TO_MAP_VALUE {
                    self.verbose(&format!("Unsupported reg type {} for bpf_dynptr_from_mem data\n", reg_type_str(t)));
                    return errno(EACCES);
                }
            }
            func::SET_RETVAL => {
                let r1 = self.regs()[1];
                if r1.typ != SCALAR_VALUE {
                    self.verbose("R1 is not a scalar\n");
                    return errno(EINVAL);
                }
                let getsockopt = self.input.prog_type == helpers::prog::CGROUP_SOCKOPT && self.input.expected_attach_type == bpf_attach_type::CGROUP_GETSOCKOPT;
                if !getsockopt {
                    let mut range = RetvalRange { minval: -(MAX_ERRNO as i32), maxval: 0, return_32bit: true };
                    if self.input.prog_type == helpers::prog::LSM && self.input.expected_attach_type == bpf_attach_type::LSM_CGROUP {
                        if self.attach_func_returns_void() {
                            self.verbose("BPF_LSM_CGROUP that attach to void LSM hooks can't modify return value!\n");
                            return errno(EINVAL);
                        }
                        let Some((minval, maxval)) = self.lsm_retval_range() else {
                            return Err(DoCheckError::Unsupported("the hook of this BPF_LSM_CGROUP program".into()));
                        };
                        (range.minval, range.maxval) = (minval, maxval);
                    }
                    self.mark_chain_precision(1)?;
                    let r1 = self.regs()[1];
                    if !retval_range_within(range, &r1) {
                        self.verbose_invalid_scalar(&r1, range, "At bpf_set_retval", "R1");
                        return errno(EINVAL);
                    }
                }
            }
            func::DYNPTR_WRITE => {
                use super::kfuncs::dynptr as dt;
                if meta.dynptr_type == dt::INVALID {
                    return errno(EFAULT);
                }
                if meta.dynptr_type == dt::SKB || meta.dynptr_type == dt::SKB_META {
                    changes_data = true;
                }
            }
            func::PER_CPU_PTR | func::THIS_CPU_PTR if self.regs()[1].typ & MEM_RCU != 0 => {
                return Err(DoCheckError::Unsupported("per-cpu allocated objects are not modelled".into()));
            }
            func::USER_RINGBUF_DRAIN => self.push_callback_call(insn, insn_idx, meta.subprogno, CallbackKind::UserRingbuf)?,
            _ => {}
        }

        // reset caller saved regs; R0's new value is one change
        self.bpf_diag_record_caller_saved();
        let t0 = self.diag_reg_target(self.cur.curframe(), 0);
        self.diag_mod_begin(t0, None, ModReason::Write);
        for i in 0..CALLER_SAVED_REGS {
            self.regs_mut()[i] = RegState::not_init();
            self.mark_reg_scratched(i);
        }
        let ret_type = fn_.ret;
        let mut ret_flag = ret_type & !0xff;
        let cap = self.bpf_capable();
        let mut r0;
        match base_type(ret_type) {
            RET_INTEGER => r0 = RegState::unknown(cap),
            RET_VOID => r0 = RegState::not_init(),
            RET_PTR_TO_MAP_VALUE => {
                let Some((m, uid)) = meta.map else {
                    self.verbose("verifier bug: unexpected null map_ptr\n");
                    return errno(EFAULT);
                };
                let map = self.maps.get(m).cloned().unwrap_or_default();
                if func_id == func::MAP_LOOKUP_ELEM
                    && super::maps::can_elide_value_nullness(&map)
                    && meta.const_map_key >= 0
                    && meta.const_map_key < map.max_entries as i64
                {
                    ret_flag &= !PTR_MAYBE_NULL;
                }
                r0 = RegState::ptr(PTR_TO_MAP_VALUE | ret_flag, m as i64);
                r0.map_uid = uid;
                if type_may_be_null(ret_flag) || map.record.as_ref().is_some_and(|r| r.has_field(crate::btf::BPF_SPIN_LOCK | crate::btf::BPF_RES_SPIN_LOCK)) {
                    self.id_gen += 1;
                    r0.id = self.id_gen;
                }
                self.refine_map_lookup_value(&mut r0);
            }
            RET_PTR_TO_SOCKET => r0 = RegState::ptr(PTR_TO_SOCKET | ret_flag, 0),
            RET_PTR_TO_SOCK_COMMON => r0 = RegState::ptr(PTR_TO_SOCK_COMMON | ret_flag, 0),
            RET_PTR_TO_TCP_SOCK => r0 = RegState::ptr(PTR_TO_TCP_SOCK | ret_flag, 0),
            RET_PTR_TO_MEM => {
                r0 = RegState::ptr(PTR_TO_MEM | ret_flag, meta.ret_mem_size.unwrap_or(0) as i64);
            }
            // a per-CPU kernel variable's copy: a struct stays a BTF
            // pointer (without MEM_RDONLY), anything else is memory of its
            // size
            RET_PTR_TO_MEM_OR_BTF_ID => {
                let Some(btf) = self.input.vmlinux_btf else {
                    return Err(DoCheckError::Unsupported("no vmlinux BTF is recorded for this arch".into()));
                };
                let tname = super::kfuncs::btf_type_name(meta.ret_btf);
                if btf.struct_by_name(tname).is_some() {
                    r0 = RegState::ptr(PTR_TO_BTF_ID | (ret_flag & !MEM_RDONLY), meta.ret_btf);
                } else {
                    let Some(size) = btf.named_type_size(tname) else {
                        return Err(DoCheckError::Unsupported(format!("the size of type '{tname}' of {name}'s argument is not in the recorded vmlinux BTF")));
                    };
                    r0 = RegState::ptr(PTR_TO_MEM | ret_flag, i64::from(size));
                }
            }
            RET_PTR_TO_BTF_ID => {
                if func_id == func::KPTR_XCHG {
                    let Some(field) = meta.kptr_field.clone() else { return errno(EFAULT) };
                    let (alloc, id) = self.kptr_type(&field);
                    r0 = RegState::ptr(PTR_TO_BTF_ID | ret_flag | alloc, id);
                } else {
                    let Some(t) = super::kfuncs::btf_type_by_name(fn_.ret_btf) else {
                        return Err(DoCheckError::Unsupported(format!("the return type of {name} is not modelled")));
                    };
                    r0 = RegState::ptr(PTR_TO_BTF_ID | ret_flag, t as i64);
                }
            }
            _ => {
                let s = format!("unknown return type {} of func {name}#{func_id}\n", base_type(ret_type));
                self.verbose(&s);
                return errno(EINVAL);
            }
        }
        if type_may_be_null(r0.typ) && r0.id == 0 {
            self.id_gen += 1;
            r0.id = self.id_gen;
        }
        self.regs_mut()[0] = r0;
        if helpers::is_ptr_cast_function(func_id) && self.find_reference_state(meta.ref_obj_id) {
            self.validate_ref_obj(&meta)?;
            // the NULL result is explored as a branch of its own
            let idx = self.insn_idx;
            let bi = self.push_stack(idx + 1, idx, false)?;
            if let Some(b) = self.stack.get_mut(bi) {
                b.st.cur_mut().regs[0] = RegState::known(0);
            }
            let t0 = self.diag_reg_target(self.cur.curframe(), 0);
            self.diag_mod_begin(t0, None, ModReason::Write);
            let r = &mut self.regs_mut()[0];
            r.typ &= !PTR_MAYBE_NULL;
            r.id = meta.ref_obj_id;
        } else if helpers::is_acquire_function(func_id, meta.map.and_then(|(m, _)| self.maps.get(m)).map(|m| m.map_type)) {
            let id = self.acquire_reference(insn_idx, 0);
            self.regs_mut()[0].id = id;
        }
        if func_id == func::DYNPTR_DATA {
            self.regs_mut()[0].parent_id = meta.dynptr_id;
        }
        self.do_refine_retval_range(ret_type, func_id, &meta)?;
        self.diag_mod_end();
        let map = meta.map.map(|(m, _)| m);
        self.check_map_func_compatibility(map, func_id)?;
        if func_id == func::GET_FUNC_IP {
            self.check_get_func_ip()?;
        }
        if func_id == func::TAIL_CALL {
            if self.cur.curframe() > 0 {
                if self.cur.cur().in_callback_fn {
                    self.verbose("cannot tail call within callback\n");
                    return errno(EINVAL);
                }
                self.mark_reg_scratched(0);
                let idx = self.insn_idx;
                self.push_stack(idx + 1, idx, false)?;
                self.clear_all_pkt_pointers();
                self.mark_reg_unknown(0);
                self.prepare_func_exit()?;
                // the taken tail call returns from this frame
                self.insn_idx -= 1;
                if changes_data {
                    self.clear_all_pkt_pointers();
                }
                return Ok(Next::Fallthrough);
            }
            changes_data = false;
        }
        if changes_data {
            self.clear_all_pkt_pointers();
        }
        Ok(Next::Fallthrough)
    }

    /// `bpf_d_path_allowed` (bpf_trace.c): iterators, sleepable LSM hooks,
    /// and the tracing targets of [`BTF_ALLOWLIST_D_PATH`].
    fn bpf_d_path_allowed(&self) -> VResult<bool> {
        use super::helpers::prog;
        let t = self.input.prog_type;
        if t == prog::TRACING && self.input.expected_attach_type == bpf_attach_type::TRACE_ITER {
            return Ok(true);
        }
        let id = self.input.attach_btf_id;
        let Some(target) = self.input.vmlinux_btf.and_then(|b| b.type_by_id(id)) else {
            return Err(DoCheckError::Unsupported(format!("bpf_d_path_allowed: attach target btf_id {id} is not in the recorded vmlinux BTF")));
        };
        if t == prog::LSM {
            return Ok(super::bpf_lsm::bpf_lsm_is_sleepable_hook(&target.name));
        }
        Ok(BTF_ALLOWLIST_D_PATH.contains(&target.name.as_str()))
    }

    /// `bpf_sk_storage_tracing_allowed` (bpf_sk_storage.c): iterators and
    /// BTF tracepoints (no bpf_sk_storage tracepoint exists), fentry/fexit
    /// on anything but a `bpf_sk_storage*` function; no other attach type.
    fn bpf_sk_storage_tracing_allowed(&self) -> VResult<bool> {
        match self.input.expected_attach_type {
            bpf_attach_type::TRACE_ITER | bpf_attach_type::TRACE_RAW_TP => Ok(true),
            bpf_attach_type::TRACE_FENTRY | bpf_attach_type::TRACE_FEXIT => {
                let id = self.input.attach_btf_id;
                let Some(target) = self.input.vmlinux_btf.and_then(|b| b.type_by_id(id)) else {
                    return Err(DoCheckError::Unsupported(format!(
                        "bpf_sk_storage_tracing_allowed: attach target btf_id {id} is not in the recorded vmlinux BTF"
                    )));
                };
                Ok(!target.name.starts_with("bpf_sk_storage"))
            }
            t @ (bpf_attach_type::TRACE_FSESSION
            | bpf_attach_type::TRACE_FENTRY_MULTI
            | bpf_attach_type::TRACE_FEXIT_MULTI
            | bpf_attach_type::TRACE_FSESSION_MULTI) => {
                Err(DoCheckError::Unsupported(format!("bpf_sk_storage_tracing_allowed for attach type {t} is not in the source the model reads")))
            }
            _ => Ok(false),
        }
    }

    /// `check_get_func_ip`.
    fn check_get_func_ip(&mut self) -> VResult<()> {
        let id = func::GET_FUNC_IP;
        let t = self.input.prog_type;
        if t == helpers::prog::KPROBE {
            return Ok(());
        }
        if t == helpers::prog::TRACING {
            return Err(DoCheckError::Unsupported("fentry/fexit attach points are not modelled".into()));
        }
        let s = format!("func {}#{id} not supported for program type {t}\n", helpers::func_id_name(id));
        self.verbose(&s);
        errno(ENOTSUPP)
    }

    /// `update_loop_inline_state` (with `loop_flag_is_zero`).
    fn update_loop_inline_state(&mut self, subprogno: usize) -> VResult<()> {
        let idx = self.insn_idx;
        let st = self.aux.get(idx).map(|a| a.loop_inline).unwrap_or_default();
        let flag_is_zero = |env: &mut Self| -> VResult<bool> {
            if !env.reg_is_null(4) {
                return Ok(false);
            }
            env.mark_chain_precision(4)?;
            Ok(true)
        };
        let new = if !st.initialized {
            let z = flag_is_zero(self)?;
            LoopInlineState { initialized: true, fit_for_inline: z, callback_subprogno: subprogno as u32 }
        } else if !st.fit_for_inline {
            return Ok(());
        } else {
            let z = flag_is_zero(self)?;
            LoopInlineState { fit_for_inline: z && st.callback_subprogno as usize == subprogno, ..st }
        };
        if let Some(a) = self.aux.get_mut(idx) {
            a.loop_inline = new;
        }
        Ok(())
    }

    /// `refine_map_lookup_value`: map-in-map, xskmap, sockmap lookups.
    fn refine_map_lookup_value(&mut self, r: &mut RegState) {
        let maybe_null = r.typ & PTR_MAYBE_NULL;
        let Some(map) = usize::try_from(r.aux).ok().and_then(|i| self.maps.get(i)) else { return };
        if map.inner.is_some() {
            let inner = super::maps::inner_meta_index(self.input.maps, r.aux as usize);
            r.typ = CONST_PTR_TO_MAP | maybe_null;
            r.aux = inner.map_or(-1, |i| i as i64);
            r.map_uid = r.id;
        } else if map.map_type == BPF_MAP_TYPE_XSKMAP {
            r.typ = PTR_TO_XDP_SOCK | maybe_null;
            r.map_uid = 0;
        } else if map.map_type == BPF_MAP_TYPE_SOCKMAP || map.map_type == BPF_MAP_TYPE_SOCKHASH {
            r.typ = PTR_TO_SOCKET | maybe_null;
            r.map_uid = 0;
        }
    }

    /// `do_refine_retval_range`.
    fn do_refine_retval_range(&mut self, ret_type: RetType, func_id: i32, meta: &CallArgMeta) -> VResult<()> {
        if ret_type != RET_INTEGER {
            return Ok(());
        }
        let lsm_cgroup_range = if self.input.prog_type == helpers::prog::LSM && self.input.expected_attach_type == bpf_attach_type::LSM_CGROUP {
            Some(self.lsm_retval_range())
        } else {
            None
        };
        let r = &mut self.cur.cur_mut().regs[0];
        match func_id {
            func::GET_STACK | func::GET_TASK_STACK | func::PROBE_READ_STR | func::PROBE_READ_KERNEL_STR | func::PROBE_READ_USER_STR => {
                r.s.set_srange64(-MAX_ERRNO, meta.msize_max_value as i64);
                r.s.set_srange32(-MAX_ERRNO as i32, meta.msize_max_value as i32);
                super::scalar::reg_bounds_sync(&mut r.s);
            }
            func::GET_SMP_PROCESSOR_ID => {
                let n = self.input.nr_cpu_ids.max(1) as u64 - 1;
                r.s.set_urange64(0, n);
                r.s.set_urange32(0, n as u32);
                super::scalar::reg_bounds_sync(&mut r.s);
            }
            func::GET_RETVAL => {
                if self.input.prog_type == helpers::prog::CGROUP_SOCKOPT && self.input.expected_attach_type == bpf_attach_type::CGROUP_GETSOCKOPT {
                    // arbitrary value
                } else if let Some(range) = lsm_cgroup_range {
                    // bpf_lsm_get_retval_range of the hook; none for a void hook
                    if let Some((minval, maxval)) = range {
                        r.s.set_srange64(minval as i64, maxval as i64);
                        r.s.set_srange32(minval, maxval);
                        super::scalar::reg_bounds_sync(&mut r.s);
                    }
                } else {
                    r.s.set_srange64(-MAX_ERRNO, 0);
                    r.s.set_srange32(-MAX_ERRNO as i32, 0);
                    super::scalar::reg_bounds_sync(&mut r.s);
                }
            }
            _ => {}
        }
        self.reg_bounds_sanity_check(0, "retval")
    }

    /// `record_func_map`: remember the map of a map helper for the fixups.
    fn record_func_map(&mut self, meta: &CallArgMeta, func_id: i32) -> VResult<()> {
        use func::*;
        if !matches!(
            func_id,
            TAIL_CALL
                | MAP_LOOKUP_ELEM
                | MAP_UPDATE_ELEM
                | MAP_DELETE_ELEM
                | MAP_PUSH_ELEM
                | MAP_POP_ELEM
                | MAP_PEEK_ELEM
                | FOR_EACH_MAP_ELEM
                | REDIRECT_MAP
                | MAP_LOOKUP_PERCPU_ELEM
        ) {
            return Ok(());
        }
        let Some((m, _)) = meta.map else {
            self.verbose("verifier bug: expected map for helper call\n");
            return errno(EFAULT);
        };
        let flags = self.maps.get(m).map_or(0, |m| m.map_flags);
        if flags & crate::map::flags::BPF_F_RDONLY_PROG != 0 && matches!(func_id, MAP_DELETE_ELEM | MAP_UPDATE_ELEM | MAP_PUSH_ELEM | MAP_POP_ELEM) {
            self.verbose("write into map forbidden\n");
            return errno(EACCES);
        }
        let unpriv = !self.input.privs.bypass_spec_v1;
        let idx = self.insn_idx;
        if let Some(a) = self.aux.get_mut(idx) {
            let unpriv = unpriv || a.map_ptr_unpriv;
            let poison = a.map_ptr.is_some_and(|p| p as usize != m) || a.map_ptr_poison;
            a.map_ptr_unpriv = unpriv;
            a.map_ptr_poison = poison;
            a.map_ptr = Some(m as u32);
        }
        Ok(())
    }

    /// `record_func_key`: the constant index of a tail call.
    fn record_func_key(&mut self, meta: &CallArgMeta, func_id: i32) -> VResult<()> {
        if func_id != func::TAIL_CALL {
            return Ok(());
        }
        let map = meta.map.and_then(|(m, _)| self.maps.get(m)).cloned();
        let Some(map) = map.filter(|m| m.map_type == BPF_MAP_TYPE_PROG_ARRAY) else {
            self.verbose("expected prog array map for tail call");
            return errno(EINVAL);
        };
        let r3 = self.regs()[3];
        let val = r3.s.var_off.value;
        let idx = self.insn_idx;
        // is_reg_const: a pointer whose offset is known is not a key
        if !(r3.typ == SCALAR_VALUE && r3.s.is_reg_const(false) && val < map.max_entries as u64) {
            if let Some(a) = self.aux.get_mut(idx) {
                a.map_key = MapKeyState::Poison;
            }
            return Ok(());
        }
        self.mark_chain_precision(3)?;
        if let Some(a) = self.aux.get_mut(idx) {
            a.map_key = match a.map_key {
                MapKeyState::Unseen => MapKeyState::Imm(val),
                MapKeyState::Imm(v) if v == val => MapKeyState::Imm(v),
                _ => MapKeyState::Poison,
            };
        }
        Ok(())
    }

    /// `check_func_arg` for argument `arg` (register `arg + 1`).
    fn check_func_arg(&mut self, arg: usize, fn_: &FuncProto, meta: &mut CallArgMeta) -> VResult<()> {
        let regno = arg + 1;
        let mut arg_type = fn_.args[arg];
        if arg_type == ARG_DONTCARE {
            return Ok(());
        }
        self.check_reg_src(regno)?;
        if arg_type == ARG_ANYTHING {
            if self.is_pointer_value(regno) {
                self.verbose(&format!("R{regno} leaks addr into helper function\n"));
                return errno(EACCES);
            }
            return Ok(());
        }
        let reg = self.regs()[regno];
        if type_is_pkt_pointer(reg.typ) && !self.may_access_direct_pkt_data(Some(fn_)) {
            self.verbose("helper access to the packet is not allowed\n");
            return errno(EACCES);
        }
        if base_type(arg_type) == ARG_PTR_TO_MAP_VALUE {
            arg_type = self.resolve_map_arg_type(meta, arg_type)?;
        }
        let skip_type_check = reg.is_null() && type_may_be_null(arg_type);
        if skip_type_check {
            self.mark_chain_precision(regno)?;
        } else {
            let btf = if base_type(arg_type) == ARG_PTR_TO_BTF_ID || base_type(arg_type) == ARG_PTR_TO_SPIN_LOCK { fn_.arg_btf[arg] } else { "" };
            self.check_reg_type(&reg, regno, arg_type, btf, meta)?;
            self.check_func_arg_reg_off(&reg, regno, arg_type)?;
        }
        let reg = self.regs()[regno];
        if arg_type_is_release(arg_type) && !arg_type_is_dynptr(arg_type) && !self.reg_is_referenced(&reg) && !reg.is_null() {
            let s = format!("release helper {} expects referenced PTR_TO_BTF_ID passed to R{regno}\n", helpers::func_id_name(meta.func_id));
            self.verbose(&s);
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(
                idx,
                regno,
                &helpers::func_id_name(meta.func_id),
                "release helpers require a value that owns a live resource returned by a matching acquire helper",
                "Pass the resource-owning pointer returned by the matching acquire helper, and avoid calling the release helper after ownership has already been transferred or released.",
            );
            return errno(EINVAL);
        }
        if self.reg_is_referenced(&reg) {
            meta.ref_obj_id = reg.id;
            meta.ref_obj_parent = reg.parent_id;
            meta.ref_obj_cnt += 1;
        }
        match base_type(arg_type) {
            ARG_CONST_MAP_PTR => self.process_map_ptr_arg(&reg, regno, meta)?,
            ARG_PTR_TO_MAP_KEY => {
                let Some((m, _)) = meta.map else {
                    self.verbose("verifier bug: invalid map_ptr to access map->key\n");
                    return errno(EFAULT);
                };
                let map = self.maps.get(m).cloned().unwrap_or_default();
                self.check_helper_mem_access(&reg, regno, map.key_size as i64, false, false, None)?;
                if super::maps::can_elide_value_nullness(&map) {
                    match self.get_constant_map_key(&reg, map.key_size as i64)? {
                        Some(v) => meta.const_map_key = v,
                        None => meta.const_map_key = -1,
                    }
                }
            }
            ARG_PTR_TO_MAP_VALUE => {
                if type_may_be_null(arg_type) && reg.is_null() {
                    return Ok(());
                }
                let Some((m, _)) = meta.map else {
                    self.verbose("verifier bug: invalid map_ptr to access map->value\n");
                    return errno(EFAULT);
                };
                let map = self.maps.get(m).cloned().unwrap_or_default();
                if meta.func_id == func::MAP_PEEK_ELEM && map.map_type == BPF_MAP_TYPE_BLOOM_FILTER {
                    meta.raw_mem_regno = 0;
                }
                self.check_helper_mem_access(&reg, regno, map.value_size as i64, arg_type & MEM_WRITE != 0, false, Some(meta))?;
            }
            ARG_PTR_TO_PERCPU_BTF_ID => {
                if reg.aux == 0 {
                    self.verbose(&format!("Helper has invalid btf_id in R{regno}\n"));
                    return errno(EACCES);
                }
                meta.ret_btf = reg.aux;
            }
            ARG_PTR_TO_SPIN_LOCK => {
                if self.in_rbtree_lock_required_cb() {
                    self.verbose("can't spin_{lock,unlock} in rbtree cb\n");
                    return errno(EACCES);
                }
                if meta.func_id == func::SPIN_LOCK {
                    self.process_spin_lock(&reg, regno, PROCESS_SPIN_LOCK)?;
                } else if meta.func_id == func::SPIN_UNLOCK {
                    self.process_spin_lock(&reg, regno, 0)?;
                } else {
                    self.verbose("verifier bug: spin lock arg on unexpected helper\n");
                    return errno(EFAULT);
                }
            }
            ARG_PTR_TO_TIMER => self.process_timer_func(&reg, regno, meta)?,
            ARG_PTR_TO_FUNC => meta.subprogno = reg.subprogno(),
            ARG_PTR_TO_MEM if arg_type & MEM_FIXED_SIZE != 0 => {
                let size = fn_.arg_size[arg] as i64;
                self.check_mem_reg(&reg, regno, size, arg_type & MEM_WRITE != 0, Some(meta))?;
                if arg_type & MEM_ALIGNED != 0 {
                    self.check_ptr_alignment(&reg, 0, size, true)?;
                }
            }
            ARG_MEM_SIZE | ARG_MEM_SIZE_OR_ZERO => {
                let mem = self.regs()[regno - 1];
                let write = fn_.args[arg - 1] & MEM_WRITE != 0;
                self.check_mem_size_reg(&mem, &reg, regno - 1, regno, write, base_type(arg_type) == ARG_MEM_SIZE_OR_ZERO, meta)?;
            }
            ARG_PTR_TO_DYNPTR => {
                let name = helpers::func_id_name(meta.func_id);
                self.process_dynptr_func(&reg, regno, &name, arg_type, meta, true)?;
            }
            ARG_CONST_ALLOC_SIZE_OR_ZERO => self.process_const_alloc_mem_size(&reg, regno, meta)?,
            ARG_PTR_TO_CONST_STR => self.check_arg_const_str(&reg, regno)?,
            ARG_KPTR_XCHG_DEST => self.process_kptr_func(&reg, regno, meta)?,
            _ => {}
        }
        Ok(())
    }

    /// `may_access_direct_pkt_data` (read access, from a helper when
    /// `fn_` is given).
    pub(crate) fn may_access_direct_pkt_data(&self, fn_: Option<&FuncProto>) -> bool {
        use helpers::prog::*;
        match self.input.prog_type {
            LWT_IN | LWT_OUT | LWT_SEG6LOCAL | SK_REUSEPORT | FLOW_DISSECTOR | CGROUP_SKB | SCHED_CLS | SCHED_ACT | XDP | LWT_XMIT | SK_SKB | SK_MSG => {
                fn_.is_none_or(|f| f.pkt_access)
            }
            CGROUP_SOCKOPT => true,
            _ => false,
        }
    }

    /// `resolve_map_arg_type`: sockmap values are sockets; a bloom filter
    /// peek reads its value.
    fn resolve_map_arg_type(&mut self, meta: &CallArgMeta, arg_type: ArgType) -> VResult<ArgType> {
        let Some((m, _)) = meta.map else {
            self.verbose("verifier bug: invalid map_ptr to access map->type\n");
            return errno(EFAULT);
        };
        let t = self.maps.get(m).map_or(0, |m| m.map_type);
        match t {
            BPF_MAP_TYPE_SOCKMAP | BPF_MAP_TYPE_SOCKHASH => {
                if arg_type == ARG_PTR_TO_MAP_VALUE {
                    Ok(ARG_PTR_TO_BTF_ID_SOCK_COMMON)
                } else {
                    self.verbose("invalid arg_type for sockmap/sockhash\n");
                    errno(EINVAL)
                }
            }
            BPF_MAP_TYPE_BLOOM_FILTER if meta.func_id == func::MAP_PEEK_ELEM => Ok(ARG_PTR_TO_MAP_VALUE),
            _ => Ok(arg_type),
        }
    }

    /// `check_reg_type`: is the register's type one the argument accepts?
    pub(crate) fn check_reg_type(&mut self, reg: &RegState, regno: usize, arg_type: ArgType, arg_btf: &str, meta: &CallArgMeta) -> VResult<()> {
        let Some(compatible) = compatible_reg_types(arg_type) else {
            self.verbose(&format!("verifier bug: unsupported arg type {arg_type}\n"));
            return errno(EFAULT);
        };
        let mut t = reg.typ;
        if arg_type & MEM_RDONLY != 0 {
            t &= !MEM_RDONLY;
        }
        if arg_type & PTR_MAYBE_NULL != 0 {
            t &= !PTR_MAYBE_NULL;
        }
        if base_type(arg_type) == ARG_PTR_TO_MEM {
            t &= !DYNPTR_TYPE_FLAG_MASK;
        }
        if meta.func_id == func::KPTR_XCHG && t & MEM_ALLOC != 0 && regno == 2 {
            t &= !(MEM_ALLOC | MEM_PERCPU);
        }
        if !compatible.contains(&t) {
            let list: Vec<String> = compatible.iter().map(|&c| reg_type_str(c)).collect();
            let s = format!("R{regno} type={} expected={}\n", reg_type_str(reg.typ), list.join(", "));
            self.verbose(&s);
            let reason = format!("it has type {}, but this argument accepts {}", reg_type_str(reg.typ), super::diag::bpf_diag_expected_reg_types(compatible));
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(
                idx,
                regno,
                &helpers::func_id_name(meta.func_id),
                &reason,
                "Pass a value with one of the accepted pointer or scalar types for this call.",
            );
            return errno(EACCES);
        }
        if base_type(reg.typ) != PTR_TO_BTF_ID {
            return Ok(());
        }
        if base_type(arg_type) == ARG_PTR_TO_MEM || base_type(arg_type) == ARG_PTR_TO_MAP_KEY || base_type(arg_type) == ARG_PTR_TO_MAP_VALUE {
            if arg_type & MEM_RDONLY == 0 {
                let s = format!("{}() may write into memory pointed by R{regno} type={}\n", &helpers::func_id_name(meta.func_id), reg_type_str(reg.typ));
                self.verbose(&s);
                return errno(EACCES);
            }
            return Ok(());
        }
        let plain = reg.typ & !(PTR_TRUSTED | PTR_MAYBE_NULL | MEM_RCU);
        if plain == PTR_TO_BTF_ID {
            if type_may_be_null(reg.typ) && (!type_may_be_null(arg_type) || arg_type_is_release(arg_type)) {
                self.verbose(&format!("Possibly NULL pointer passed to helper R{regno}\n"));
                let idx = self.insn_idx;
                self.bpf_diag_call_arg(
                    idx,
                    regno,
                    &helpers::func_id_name(meta.func_id),
                    "the pointer may be NULL, but this call requires a non-NULL pointer",
                    "Add a NULL check and make the call only on the non-NULL path.",
                );
                return errno(EACCES);
            }
            let want = if arg_btf.is_empty() && base_type(arg_type) == ARG_PTR_TO_BTF_ID_SOCK_COMMON { "sock_common" } else { arg_btf };
            if meta.func_id == func::KPTR_XCHG {
                let Some(field) = meta.kptr_field.clone() else { return errno(EFAULT) };
                return self.map_kptr_match_type(&field, reg, regno);
            }
            if want == BTF_POISON {
                return Err(DoCheckError::Unsupported("BTF-poisoned arguments are not modelled".into()));
            }
            self.check_ptr_off_reg(reg, regno, true)?;
            let have = super::kfuncs::btf_type_name(reg.aux);
            let strict = arg_type_is_release(arg_type) && meta.func_id != func::SK_RELEASE;
            let off = reg.s.var_off.value;
            let same = self.btf_struct_ids_match(reg, off, want, strict)?;
            if !same {
                let s = format!("R{regno} is of type {have} but {want} is expected\n");
                self.verbose(&s);
                return errno(EACCES);
            }
            return Ok(());
        }
        let alloc = [
            PTR_TO_BTF_ID | MEM_ALLOC,
            PTR_TO_BTF_ID | MEM_PERCPU | MEM_ALLOC,
            PTR_TO_BTF_ID | MEM_ALLOC | NON_OWN_REF,
            PTR_TO_BTF_ID | MEM_ALLOC | NON_OWN_REF | MEM_RCU,
        ];
        if alloc.contains(&reg.typ) {
            if meta.func_id != func::SPIN_LOCK && meta.func_id != func::SPIN_UNLOCK && meta.func_id != func::KPTR_XCHG {
                self.verbose("verifier bug: unimplemented handling of MEM_ALLOC\n");
                return errno(EFAULT);
            }
            // a local kptr stored must be of the destination's type
            if meta.func_id == func::KPTR_XCHG && regno == 2 {
                let Some(field) = meta.kptr_field.clone() else { return errno(EFAULT) };
                return self.map_kptr_match_type(&field, reg, regno);
            }
            return Ok(());
        }
        // per-CPU BTF pointers: the helpers taking them check them
        if reg.typ & !(MEM_RCU | PTR_TRUSTED) == PTR_TO_BTF_ID | MEM_PERCPU {
            return Ok(());
        }
        Err(DoCheckError::Unsupported(format!("helper arguments of type {} are not modelled", reg_type_str(reg.typ))))
    }

    /// `__check_ptr_off_reg`: a pointer passed on must be unmodified.
    pub(crate) fn check_ptr_off_reg(&mut self, reg: &RegState, regno: usize, fixed_off_ok: bool) -> VResult<()> {
        if !tnum_is_const(reg.s.var_off) {
            let s = format!("variable {} access var_off={} disallowed\n", reg_type_str(reg.typ), tnum_strn(reg.s.var_off));
            self.verbose(&s);
            return errno(EACCES);
        }
        if reg.s.smin() < 0 {
            let s = format!("negative offset {} ptr R{regno} off={} disallowed\n", reg_type_str(reg.typ), reg.s.var_off.value as i64);
            self.verbose(&s);
            return errno(EACCES);
        }
        if !fixed_off_ok && reg.s.var_off.value != 0 {
            let s = format!("dereference of modified {} ptr R{regno} off={} disallowed\n", reg_type_str(reg.typ), reg.s.var_off.value as i64);
            self.verbose(&s);
            self.bpf_diag_invalid_deref(regno, reg, super::diag::DerefKind::ModifiedPtr, reg.s.var_off.value as i64);
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_func_arg_reg_off` (`__check_func_arg_reg_off` with fixed
    /// offsets of BTF pointers allowed).
    pub(crate) fn check_func_arg_reg_off(&mut self, reg: &RegState, regno: usize, arg_type: ArgType) -> VResult<()> {
        self.check_func_arg_reg_off_ext(reg, regno, arg_type, true)
    }

    /// `__check_func_arg_reg_off`.
    pub(crate) fn check_func_arg_reg_off_ext(&mut self, reg: &RegState, regno: usize, arg_type: ArgType, btf_id_fixed_off_ok: bool) -> VResult<()> {
        let t = reg.typ;
        if arg_type_is_release(arg_type) {
            if arg_type_is_dynptr(arg_type) && t == PTR_TO_STACK {
                return Ok(());
            }
            if !tnum_is_const(reg.s.var_off) || reg.s.var_off.value != 0 {
                self.verbose(&format!("R{regno} must have zero offset when passed to release func or trusted arg to kfunc\n"));
                return errno(EINVAL);
            }
        }
        match t {
            PTR_TO_STACK | PTR_TO_PACKET | PTR_TO_PACKET_META | PTR_TO_MAP_KEY | PTR_TO_MAP_VALUE | PTR_TO_ARENA | SCALAR_VALUE => Ok(()),
            _ if t == PTR_TO_MEM || t == PTR_TO_MEM | MEM_RDONLY || t == PTR_TO_MEM | MEM_RINGBUF || t == PTR_TO_BUF || t == PTR_TO_BUF | MEM_RDONLY => Ok(()),
            _ if base_type(t) == PTR_TO_BTF_ID && t & !(MEM_ALLOC | PTR_TRUSTED | MEM_RCU | NON_OWN_REF | PTR_TO_BTF_ID) == 0 => {
                self.check_ptr_off_reg(reg, regno, btf_id_fixed_off_ok)
            }
            PTR_TO_CTX if arg_type != ARG_PTR_TO_CTX && self.input.prog_type == helpers::prog::SYSCALL => Ok(()),
            _ => self.check_ptr_off_reg(reg, regno, false),
        }
    }

    /// `check_helper_mem_access`: `[reg, reg + access_size)` must be
    /// memory the program may read (or write).
    pub(crate) fn check_helper_mem_access(
        &mut self,
        reg: &RegState,
        regno: usize,
        access_size: i64,
        write: bool,
        zero_size_allowed: bool,
        meta: Option<&mut CallArgMeta>,
    ) -> VResult<()> {
        match base_type(reg.typ) {
            PTR_TO_PACKET | PTR_TO_PACKET_META => self.check_packet_access_ext(regno, reg, 0, access_size, zero_size_allowed),
            PTR_TO_MAP_KEY => {
                if write {
                    self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(reg.typ)));
                    return errno(EACCES);
                }
                let ks = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).map_or(0, |m| m.key_size as i64);
                self.check_mem_region_access_ext(regno, reg, 0, access_size, ks, false)
            }
            PTR_TO_MAP_VALUE => {
                self.check_map_access_type(reg, 0, access_size, write)?;
                self.check_map_access_ext(regno, reg, 0, access_size, zero_size_allowed, false)
            }
            PTR_TO_MEM => {
                if reg.typ & MEM_RDONLY != 0 && write {
                    self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(reg.typ)));
                    return errno(EACCES);
                }
                self.check_mem_region_access_ext(regno, reg, 0, access_size, reg.mem_size(), zero_size_allowed)
            }
            PTR_TO_STACK => self.check_stack_range_initialized(reg, regno, 0, access_size, zero_size_allowed, write, meta),
            PTR_TO_BUF => {
                if reg.typ & MEM_RDONLY != 0 && write {
                    self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(reg.typ)));
                    return errno(EACCES);
                }
                self.check_buffer_access(regno, reg, 0, access_size)
            }
            PTR_TO_BTF_ID => self.check_ptr_to_btf_access(regno, reg, 0, access_size, write, None),
            // is_var_ctx_off_allowed: a syscall program's ctx is user memory
            // of up to U16_MAX bytes, which helpers may read and write
            PTR_TO_CTX if self.input.prog_type == helpers::prog::SYSCALL => {
                self.check_mem_region_access_ext(regno, reg, 0, access_size, u16::MAX as i64, zero_size_allowed)?;
                let end = reg.s.umax().saturating_add(access_size as u64);
                self.max_ctx_offset = self.max_ctx_offset.max(u32::try_from(end).unwrap_or(u32::MAX));
                Ok(())
            }
            _ => {
                if zero_size_allowed && access_size == 0 && reg.is_null() {
                    return Ok(());
                }
                let s = format!("R{regno} type={} expected={}\n", reg_type_str(reg.typ), reg_type_str(PTR_TO_STACK));
                self.verbose(&s);
                errno(EACCES)
            }
        }
    }

    /// `check_stack_range_initialized`: a helper reads (or writes) stack
    /// bytes; reads must hit initialised ones. A negative `access_size` is
    /// a global function's argument, where poisoned slots are fine.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_stack_range_initialized(
        &mut self,
        reg: &RegState,
        regno: usize,
        off: i64,
        access_size: i64,
        zero_size_allowed: bool,
        write: bool,
        meta: Option<&mut CallArgMeta>,
    ) -> VResult<()> {
        let frame = reg.frameno().min(self.cur.curframe());
        let clobber = write;
        let allow_poison = access_size < 0 || clobber;
        let mut raw_mode = meta.as_ref().is_some_and(|m| m.raw_mem_regno == regno && regno != 0);
        let access_size = access_size.abs();
        if access_size == 0 && !zero_size_allowed {
            self.verbose("invalid zero-sized read\n");
            return errno(EACCES);
        }
        self.check_stack_access_within_bounds(regno, reg, off, access_size, write)?;
        let (min_off, max_off) = if tnum_is_const(reg.s.var_off) {
            let m = reg.s.var_off.value as i64 + off;
            (m, m)
        } else {
            if !self.input.privs.bypass_spec_v1 {
                let s = format!("R{regno} variable offset stack access prohibited for !root, var_off={}\n", tnum_strn(reg.s.var_off));
                self.verbose(&s);
                return errno(EACCES);
            }
            raw_mode = false;
            (reg.s.smin() + off, reg.s.smax() + off)
        };
        if raw_mode {
            if let Some(m) = meta {
                m.raw_mem_size = access_size;
            }
            return Ok(());
        }
        let allow_uninit = self.input.privs.allow_uninit_stack;
        let allow_leaks = self.allow_ptr_leaks();
        let cap = self.bpf_capable();
        for i in min_off..max_off + access_size {
            let slot = -i - 1;
            let spi = (slot / BPF_REG_SIZE as i64) as usize;
            let f = &mut self.cur.frame[frame];
            if slot < 0 || f.allocated_stack() as i64 <= slot {
                self.verbose("allocated_stack too small\n");
                return errno(EFAULT);
            }
            let b = slot as usize % BPF_REG_SIZE;
            let st = &mut f.stack[spi];
            let stype = st.slot_type[b];
            if stype == STACK_MISC {
                continue;
            }
            if stype == STACK_ZERO || (stype == STACK_INVALID && allow_uninit) {
                if clobber {
                    st.slot_type[b] = STACK_MISC;
                }
                continue;
            }
            if st.is_spilled_reg() && (st.spilled_ptr.typ == SCALAR_VALUE || allow_leaks) {
                if clobber {
                    st.spilled_ptr = RegState::unknown(cap);
                    for t in st.slot_type.iter_mut() {
                        if *t != STACK_INVALID && *t != STACK_POISON {
                            *t = STACK_MISC;
                        }
                    }
                }
                continue;
            }
            let s = if stype == STACK_POISON {
                if allow_poison {
                    continue;
                }
                format!("reading from stack R{regno} off {min_off}+{} size {access_size}, slot poisoned by dead code elimination\n", i - min_off)
            } else if tnum_is_const(reg.s.var_off) {
                format!("invalid read from stack R{regno} off {min_off}+{} size {access_size}\n", i - min_off)
            } else {
                format!("invalid read from stack R{regno} var_off {}+{} size {access_size}\n", tnum_strn(reg.s.var_off), i - min_off)
            };
            self.verbose(&s);
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_mem_size_reg`: a (pointer, size) argument pair.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_mem_size_reg(
        &mut self,
        mem: &RegState,
        size: &RegState,
        mem_regno: usize,
        size_regno: usize,
        write: bool,
        zero_size_allowed: bool,
        meta: &mut CallArgMeta,
    ) -> VResult<()> {
        meta.msize_max_value = size.s.umax();
        let const_size = tnum_is_const(size.s.var_off);
        if size.s.smin() < 0 {
            self.verbose(&format!("R{size_regno} min value is negative, either use unsigned or 'var &= const'\n"));
            return errno(EACCES);
        }
        if size.s.umin() == 0 && !zero_size_allowed {
            let s = format!("R{size_regno} invalid zero-sized read: u64=[{},{}]\n", size.s.umin() as i64, size.s.umax() as i64);
            self.verbose(&s);
            return errno(EACCES);
        }
        if size.s.umax() >= BPF_MAX_VAR_SIZ {
            self.verbose(&format!("R{size_regno} unbounded memory access, use 'var &= const' or 'if (var < const)'\n"));
            return errno(EACCES);
        }
        let umax = size.s.umax() as i64;
        // without a constant size, raw mode is off: the program must
        // initialise what the helper may fill only in part
        let m = if const_size { Some(&mut *meta) } else { None };
        if !write {
            self.check_helper_mem_access(mem, mem_regno, umax, false, zero_size_allowed, m)?;
        } else {
            // the kernel checks the read side first only for MEM_READ;
            // BPF_WRITE alone is what write-only prototypes ask for
            self.check_helper_mem_access(mem, mem_regno, umax, true, zero_size_allowed, m)?;
        }
        self.mark_chain_precision(size_regno)
    }

    /// `check_mem_reg`: a fixed-size memory argument (a null pointer is a
    /// size-0 access).
    pub(crate) fn check_mem_reg(&mut self, reg: &RegState, regno: usize, mem_size: i64, write: bool, meta: Option<&mut CallArgMeta>) -> VResult<()> {
        if reg.is_null() {
            return self.mark_chain_precision(regno);
        }
        if mem_size > i32::MAX as i64 {
            self.verbose(&format!("R{regno} memory size {mem_size} is too large\n"));
            return errno(EACCES);
        }
        let size = if meta.is_none() && base_type(reg.typ) == PTR_TO_STACK { -mem_size } else { mem_size };
        self.check_helper_mem_access(reg, regno, size, write, true, meta)
    }

    /// `process_const_alloc_mem_size`.
    fn process_const_alloc_mem_size(&mut self, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        if meta.ret_mem_size.is_some() {
            self.verbose("verifier bug: only one allocation size argument permitted\n");
            return errno(EFAULT);
        }
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} is not a const\n"));
            return errno(EINVAL);
        }
        if reg.s.var_off.value > u32::MAX as u64 {
            self.verbose(&format!("R{regno} allocation size exceeds u32 max\n"));
            return errno(EINVAL);
        }
        self.mark_chain_precision(regno)?;
        meta.ret_mem_size = Some(reg.s.var_off.value);
        Ok(())
    }

    /// `process_map_ptr_arg`.
    pub(crate) fn process_map_ptr_arg(&mut self, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        let m = reg.aux.max(0) as usize;
        if let Some((pm, uid)) = meta.map
            && (pm != m || uid != reg.map_uid)
        {
            let name = match self.maps.get(pm).and_then(|m| m.record.clone()) {
                Some(r) if r.timer_off.is_some() => "timer",
                Some(r) if r.task_work_off.is_some() => "bpf_task_work",
                _ => "workqueue",
            };
            let s = format!("{name} pointer in R{} map_uid={uid} doesn't match map pointer in R{regno} map_uid={}\n", regno.saturating_sub(1), reg.map_uid);
            self.verbose(&s);
            return errno(EINVAL);
        }
        meta.map = Some((m, reg.map_uid));
        Ok(())
    }

    /// `get_constant_map_key`: a key spilled as a known constant (or all
    /// zero bytes) lets an array lookup skip the null check.
    fn get_constant_map_key(&mut self, key: &RegState, key_size: i64) -> VResult<Option<i64>> {
        if !self.bpf_capable() || key.typ != PTR_TO_STACK || !tnum_is_const(key.s.var_off) {
            return Ok(None);
        }
        let frame = key.frameno().min(self.cur.curframe());
        let stack_off = key.s.var_off.value as i64;
        let slot = -stack_off - 1;
        if slot < 0 {
            return Ok(None);
        }
        let spi = (slot / BPF_REG_SIZE as i64) as usize;
        let off = (slot % BPF_REG_SIZE as i64) as usize;
        let Some(st) = self.cur.frame[frame].stack.get(spi).copied() else { return Ok(None) };
        let zero_size = (0..=off).rev().take_while(|&i| st.slot_type[i] == STACK_ZERO).count() as i64;
        if zero_size >= key_size {
            return Ok(Some(0));
        }
        if !st.is_spilled_scalar_reg() {
            return Ok(None);
        }
        let spill_size = (0..=off).rev().take_while(|&i| st.slot_type[i] == STACK_SPILL).count() as i64;
        if spill_size != key_size || !tnum_is_const(st.spilled_ptr.s.var_off) {
            return Ok(None);
        }
        self.bt_reset();
        self.bt.frame = self.cur.curframe();
        self.bt.stack_masks[key.frameno() & 15] |= 1u64 << (spi & 63);
        self.mark_chain_precision_batch()?;
        Ok(Some(st.spilled_ptr.s.var_off.value as i64))
    }

    /// `check_arg_const_str`: a zero-terminated string in a frozen
    /// read-only map.
    pub(crate) fn check_arg_const_str(&mut self, reg: &RegState, regno: usize) -> VResult<()> {
        if reg.typ != PTR_TO_MAP_VALUE {
            return errno(EINVAL);
        }
        let map = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
        if map.map_type == BPF_MAP_TYPE_INSN_ARRAY {
            self.verbose(&format!("R{regno} points to insn_array map which cannot be used as const string\n"));
            return errno(EACCES);
        }
        if map.map_type == BPF_MAP_TYPE_PERCPU_ARRAY {
            self.verbose(&format!("R{regno} points to percpu_array map which cannot be used as const string\n"));
            return errno(EACCES);
        }
        if !super::maps::bpf_map_is_rdonly(&map) {
            self.verbose(&format!("R{regno} does not point to a readonly map'\n"));
            return errno(EACCES);
        }
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} is not a constant address'\n"));
            return errno(EACCES);
        }
        if !super::maps::has_direct_value_addr(map.map_type) {
            self.verbose("no direct value access support for this map type\n");
            return errno(EACCES);
        }
        let off = reg.s.var_off.value as i64;
        self.check_map_access_ext(regno, reg, 0, map.value_size as i64 - off, false, false)?;
        let bytes = map.data.get(off.max(0) as usize..).unwrap_or(&[]);
        if map.data.is_empty() {
            return Err(DoCheckError::Unsupported("the contents of read-only maps are not known to the model".into()));
        }
        if !bytes.iter().take(map.value_size as usize).any(|&b| b == 0) {
            self.verbose("string is not zero-terminated\n");
            return errno(EINVAL);
        }
        Ok(())
    }

    /// `check_bpf_snprintf_call`: the format string (R3, in a frozen map)
    /// against the number of u64 arguments R5 gives.
    fn check_bpf_snprintf_call(&mut self) -> VResult<()> {
        let (fmt_reg, len_reg) = (self.regs()[3], self.regs()[5]);
        let data_len = len_reg.s.var_off.value;
        if data_len % 8 != 0 {
            return errno(EINVAL);
        }
        let map = usize::try_from(fmt_reg.aux).ok().and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
        let off = fmt_reg.s.var_off.value as usize;
        let Some(bytes) = map.data.get(off..) else {
            return Err(DoCheckError::Unsupported("the contents of read-only maps are not known to the model".into()));
        };
        let fmt = &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())];
        let num_args = (data_len / 8).min(u32::MAX as u64) as u32;
        if bpf_bprintf_prepare(fmt, num_args).is_err() {
            self.verbose("Invalid format string\n");
            return errno(EINVAL);
        }
        Ok(())
    }

    /// `process_timer_func`.
    fn process_timer_func(&mut self, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        self.check_map_field_pointer(reg, regno, MapField::Timer, meta)
    }

    /// `check_map_field_pointer`: `reg` points at the map value's one
    /// field of this type.
    pub(crate) fn check_map_field_pointer(&mut self, reg: &RegState, regno: usize, field: MapField, meta: &mut CallArgMeta) -> VResult<()> {
        let struct_name = field.btf_field_type_name();
        let map = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("{} doesn't have constant offset. {struct_name} has to be at the constant offset\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        let Some(rec) = map.record.clone() else {
            self.verbose(&format!("map '{}' has to have BTF in order to use {struct_name}\n", map.name));
            return errno(EINVAL);
        };
        let field_off = match field {
            MapField::Timer => rec.timer_off,
            MapField::Workqueue => rec.wq_off,
            MapField::TaskWork => rec.task_work_off,
        };
        let Some(off) = field_off else {
            self.verbose(&format!("map '{}' has no valid {struct_name}\n", map.name));
            return errno(EINVAL);
        };
        let val = reg.s.var_off.value;
        if off as u64 != val {
            self.verbose(&format!("off {} doesn't point to 'struct {struct_name}' that is at {off}\n", val as i64));
            return errno(EINVAL);
        }
        if meta.map.is_some() {
            self.verbose(&format!("verifier bug: Two map pointers in a {struct_name} helper\n"));
            return errno(EFAULT);
        }
        meta.map = Some((reg.aux.max(0) as usize, reg.map_uid));
        Ok(())
    }

    /// `process_spin_lock` for `bpf_spin_lock`/`bpf_spin_unlock` and the
    /// resilient locks' kfuncs (`flags`: [`PROCESS_SPIN_LOCK`],
    /// [`PROCESS_RES_LOCK`], [`PROCESS_LOCK_IRQ`]) on a map value.
    pub(crate) fn process_spin_lock(&mut self, reg: &RegState, regno: usize, flags: u32) -> VResult<()> {
        let is_lock = flags & PROCESS_SPIN_LOCK != 0;
        let is_res_lock = flags & PROCESS_RES_LOCK != 0;
        let is_irq = flags & PROCESS_LOCK_IRQ != 0;
        let lock_str = if is_res_lock { "bpf_res_spin" } else { "bpf_spin" };
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} doesn't have constant offset. {lock_str}_lock has to be at the constant offset\n"));
            return errno(EINVAL);
        }
        let in_map = reg.typ == PTR_TO_MAP_VALUE;
        let (rec, owner) = if in_map {
            let map = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
            let Some(rec) = map.record.clone() else {
                self.verbose(&format!("map '{}' has to have BTF in order to use {lock_str}_lock\n", map.name));
                return errno(EINVAL);
            };
            (rec, format!("map '{}'", map.name))
        } else {
            // an allocated object: its type's struct meta
            (self.reg_btf_record(reg)?.unwrap_or_default(), "local 'kptr'".to_string())
        };
        let field_off = if is_res_lock { rec.res_spin_lock_off } else { rec.spin_lock_off };
        let Some(off) = field_off else {
            self.verbose(&format!("{owner} has no valid {lock_str}_lock\n"));
            return errno(EINVAL);
        };
        let val = reg.s.var_off.value;
        if off as u64 != val {
            self.verbose(&format!("off {} doesn't point to 'struct {lock_str}_lock' that is at {off}\n", val as i64));
            return errno(EINVAL);
        }
        let ptr = if in_map { lock_ptr(reg.aux, 0) } else { super::graph::PROG_BTF_LOCK_PTR };
        let idx = self.insn_idx;
        // the lock a report shows, named as `diag_lock_name` does
        let held = |l: Option<RefState>| l.map(|l| (l.insn_idx, l.id, diag_lock_name(l.typ)));
        let typ = match (is_res_lock, is_irq) {
            (true, true) => REF_TYPE_RES_LOCK_IRQ,
            (true, false) => REF_TYPE_RES_LOCK,
            _ => REF_TYPE_LOCK,
        };
        if is_lock {
            if !is_res_lock
                && self.cur.active_locks > 0
                && let Some(l) = self.find_lock_state(REF_TYPE_LOCK, 0, 0, true)
            {
                self.verbose("Locking two bpf_spin_locks are not allowed\n");
                let active = held(Some(l));
                self.bpf_diag_lock(
                    idx,
                    "nested spin lock",
                    "This path already holds a bpf_spin_lock. The verifier allows only one regular BPF spin lock at a time.",
                    "Unlock the current bpf_spin_lock before taking another one.",
                    active,
                );
                return errno(EINVAL);
            }
            if is_res_lock
                && self.cur.active_locks > 0
                && let Some(l) = self.find_lock_state(REF_TYPE_RES_LOCK | REF_TYPE_RES_LOCK_IRQ, reg.id, ptr, false)
            {
                self.verbose("Acquiring the same lock again, AA deadlock detected\n");
                let active = held(Some(l));
                self.bpf_diag_lock(
                    idx,
                    "recursive resource spin lock",
                    "This path already holds the same resource spin lock. Taking it again would deadlock.",
                    "Avoid reacquiring the same resource spin lock before it is unlocked.",
                    active,
                );
                return errno(EINVAL);
            }
            self.acquire_lock_state(idx, typ, reg.id, ptr);
        } else {
            if self.cur.active_locks == 0 {
                self.verbose(&format!("{lock_str}_unlock without taking a lock\n"));
                self.bpf_diag_res(
                    idx,
                    "unlock without lock",
                    "This unlock operation has no matching active lock on the current path.",
                    "Take the matching lock before this unlock, or remove the unmatched unlock path.",
                );
                return errno(EINVAL);
            }
            let active = self.find_lock_state(REF_TYPE_LOCK_MASK, self.cur.active_lock_id, self.cur.active_lock_ptr, false);
            let Some(lock) = self.find_lock_state(typ, reg.id, ptr, false) else {
                self.verbose(&format!("{lock_str}_unlock of different lock\n"));
                let active = held(active);
                self.bpf_diag_lock(
                    idx,
                    "unlock of a different lock",
                    "This unlock does not match any active lock with the same tracked identity on the current path.",
                    "Unlock the same lock object that was most recently acquired.",
                    active,
                );
                return errno(EINVAL);
            };
            if reg.id != self.cur.active_lock_id || ptr != self.cur.active_lock_ptr {
                self.verbose(&format!("{lock_str}_unlock cannot be out of order\n"));
                let active = held(active);
                self.bpf_diag_lock(
                    idx,
                    "unlock out of order",
                    "Locks must be released in last-in, first-out order, but this unlock does not match the currently active lock.",
                    "Release nested locks in the reverse order they were acquired.",
                    active,
                );
                return errno(EINVAL);
            }
            if !self.release_lock_state(typ, reg.id, ptr) {
                self.verbose(&format!("{lock_str}_unlock of different lock\n"));
                self.bpf_diag_lock(
                    idx,
                    "unlock of a different lock",
                    "The verifier could not release a lock state matching this unlock operation.",
                    "Pass the same lock object and lock kind that were used for the matching lock operation.",
                    held(Some(lock)),
                );
                return errno(EINVAL);
            }
            self.invalidate_non_owning_refs();
            if !self.in_rcu_cs() {
                self.invalidate_rcu_protected_refs();
            }
        }
        Ok(())
    }
}

/// `bpf_bprintf_prepare` in verification mode (no arguments to copy): the
/// conversions of a `bpf_snprintf`/`bpf_trace_printk`-like format, at
/// most `num_args` of them. `fmt` ends before its NUL.
pub(crate) fn bpf_bprintf_prepare(fmt: &[u8], num_args: u32) -> Result<(), ()> {
    let at = |i: usize| fmt.get(i).copied().unwrap_or(0);
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let is_punct = |c: u8| c.is_ascii_punctuation();
    let mut num_spec = 0u32;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        // UTF-8 passes, ASCII control bytes do not
        if c.is_ascii() && !(0x20..0x7f).contains(&c) && !is_space(c) {
            return Err(());
        }
        if c != b'%' {
            i += 1;
            continue;
        }
        if at(i + 1) == b'%' {
            i += 2;
            continue;
        }
        if num_spec >= num_args {
            return Err(());
        }
        i += 1;
        if !at(i).is_ascii() {
            return Err(());
        }
        // optional "[0 +-][num]" width
        while matches!(at(i), b'0' | b'+' | b'-' | b' ') {
            i += 1;
        }
        if (b'1'..=b'9').contains(&at(i)) {
            i += 1;
            while at(i).is_ascii_digit() {
                i += 1;
            }
        }
        match at(i) {
            b'p' => {
                let n = at(i + 1);
                if n == 0 || is_space(n) || is_punct(n) {
                    // plain %p
                } else if (n == b'k' || n == b'u') && at(i + 2) == b's' {
                    i += 2;
                    let n = at(i + 1);
                    if n != 0 && !is_space(n) && !is_punct(n) {
                        return Err(());
                    }
                } else if matches!(n, b'K' | b'x' | b's' | b'S' | b'B') {
                    i += 1;
                } else if matches!(n, b'i' | b'I') && matches!(at(i + 2), b'4' | b'6') {
                    i += 2;
                } else {
                    return Err(());
                }
            }
            b's' => {
                let n = at(i + 1);
                if n != 0 && !is_space(n) && !is_punct(n) {
                    return Err(());
                }
            }
            b'c' => {}
            _ => {
                if at(i) == b'l' {
                    i += 1;
                }
                if at(i) == b'l' {
                    i += 1;
                }
                if !matches!(at(i), b'i' | b'd' | b'u' | b'x' | b'X') {
                    return Err(());
                }
            }
        }
        num_spec += 1;
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod bprintf_tests {
    use super::bpf_bprintf_prepare;

    #[test]
    fn formats() {
        assert!(bpf_bprintf_prepare(b"%d %s", 2).is_ok());
        assert!(bpf_bprintf_prepare(b"%d %s", 1).is_err());
        assert!(bpf_bprintf_prepare(b"100%%", 0).is_ok());
        assert!(bpf_bprintf_prepare(b"%pI4 %pks %llx %5d %-08lu", 5).is_ok());
        assert!(bpf_bprintf_prepare(b"%pZ", 1).is_err());
        assert!(bpf_bprintf_prepare(b"%sx", 1).is_err());
        assert!(bpf_bprintf_prepare(b"%q", 1).is_err());
        assert!(bpf_bprintf_prepare(b"\x01", 0).is_err());
        assert!(bpf_bprintf_prepare(b"caf\xc3\xa9 %c", 1).is_ok());
        assert!(bpf_bprintf_prepare(b"%", 1).is_err());
    }
}
