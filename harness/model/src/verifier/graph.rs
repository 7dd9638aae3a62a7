//! BPF graphs: linked lists and rbtrees of allocated objects
//! (`bpf_list_head`/`bpf_list_node`, `bpf_rb_root`/`bpf_rb_node`). A
//! graph root lives in a map value or an allocated object beside the
//! `bpf_spin_lock` that must be held to use it (`check_reg_allocation_locked`);
//! its `__contains` tag names the element struct and its node
//! (`btf_parse_graph_root`). The kfuncs' root and node arguments
//! (`__process_kf_arg_ptr_to_graph_root`/`_node`), the nodes they hand
//! back (`mark_reg_graph_node`), an object that passes into a graph
//! becoming a non-owning reference until the lock is released
//! (`ref_convert_owning_non_owning`, `ref_set_non_owning`), and
//! `bpf_rbtree_add`'s `less()` callback (`set_rbtree_add_callback_state`,
//! `in_rbtree_lock_required_cb`).

use super::do_check::*;
use super::helper_call::{CallArgMeta, reg_arg_name};
use super::kfuncs::{btf_local_type, btf_local_type_id, kfunc_name};
use super::reg::*;
use super::state::*;
use super::tnum::tnum_is_const;
use crate::btf::{BPF_LIST_HEAD, BPF_LIST_NODE, BPF_RB_NODE, BPF_RB_ROOT, BtfField, BtfRecord, btf_field_type_name, btf_record_find};

/// The lock pointer (`active_lock.ptr`) of a lock in an allocated object:
/// `reg->btf`, the program's BTF (no map's [`lock_ptr`] is this).
pub(crate) const PROG_BTF_LOCK_PTR: u64 = u64::MAX;

/// `is_bpf_list_push_kfunc`.
pub(crate) fn is_bpf_list_push_kfunc(name: &str) -> bool {
    matches!(name, "bpf_list_push_front" | "bpf_list_push_front_impl" | "bpf_list_push_back" | "bpf_list_push_back_impl" | "bpf_list_add")
}

/// `is_bpf_rbtree_add_kfunc`.
pub(crate) fn is_bpf_rbtree_add_kfunc(name: &str) -> bool {
    matches!(name, "bpf_rbtree_add" | "bpf_rbtree_add_impl")
}

/// `is_bpf_rbtree_api_kfunc` (`is_rbtree_lock_required_kfunc`).
pub(crate) fn is_bpf_rbtree_api_kfunc(name: &str) -> bool {
    is_bpf_rbtree_add_kfunc(name) || matches!(name, "bpf_rbtree_remove" | "bpf_rbtree_first" | "bpf_rbtree_root" | "bpf_rbtree_left" | "bpf_rbtree_right")
}

/// `type_is_ptr_alloc_obj`: a pointer to an allocated object. One made
/// untrusted (a local kptr read under RCU, after the section) is not: 7.3
/// describes it as an untrusted kernel object pointer and refuses it where
/// an owning or non-owning reference is wanted.
pub(crate) fn type_is_ptr_alloc_obj(t: RegType) -> bool {
    base_type(t) == PTR_TO_BTF_ID && t & MEM_ALLOC != 0 && t & PTR_UNTRUSTED == 0
}

/// `type_is_non_owning_ref`.
pub(crate) fn type_is_non_owning_ref(t: RegType) -> bool {
    type_is_ptr_alloc_obj(t) && t & NON_OWN_REF != 0
}

/// The error a program BTF whose struct metas do not parse gets (7.3
/// refuses it when the BTF is loaded).
fn metas_unparsed() -> DoCheckError {
    DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())
}

impl Env<'_, '_> {
    /// `reg_btf_record`: a map value's record, or the struct meta's
    /// record of an allocated object's type.
    pub(crate) fn reg_btf_record(&self, reg: &RegState) -> VResult<Option<BtfRecord>> {
        if reg.typ == PTR_TO_MAP_VALUE {
            let map = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i));
            return Ok(map.and_then(|m| m.record.clone()));
        }
        if type_is_ptr_alloc_obj(reg.typ) {
            let (Some(id), Some(btf)) = (btf_local_type(reg.aux), self.input.prog_btf) else { return Ok(None) };
            return btf.btf_find_struct_meta(id).map_err(|_| metas_unparsed());
        }
        Ok(None)
    }

    /// `check_reg_allocation_locked`: the lock held last belongs to the
    /// allocation `reg` points into (its map or the program's BTF, and its
    /// id). `false` is `-EINVAL`.
    fn check_reg_allocation_locked(&mut self, reg: &RegState) -> bool {
        let ptr = if reg.typ == PTR_TO_MAP_VALUE { lock_ptr(reg.aux, 0) } else { PROG_BTF_LOCK_PTR };
        if self.cur.active_locks == 0 {
            return false;
        }
        if self.find_lock_state(REF_TYPE_LOCK_MASK, reg.id, ptr, false).is_none() {
            self.verbose("held lock and object are not in the same allocation\n");
            return false;
        }
        true
    }

    /// `__process_kf_arg_ptr_to_graph_root`: a list head or rbtree root
    /// (`head_type`) at a constant offset of the value, its lock held.
    pub(crate) fn process_kf_arg_ptr_to_graph_root(&mut self, reg: &RegState, regno: usize, head_type: u32, meta: &mut CallArgMeta) -> VResult<()> {
        let head_name = btf_field_type_name(head_type);
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("{} doesn't have constant offset. {head_name} has to be at the constant offset\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        let rec = self.reg_btf_record(reg)?.unwrap_or_default();
        let head_off = reg.s.var_off.value;
        let Some(field) = btf_record_find(&rec, head_off as i64, head_type).cloned() else {
            self.verbose(&format!("{head_name} not found at offset={}\n", head_off as u32));
            return errno(EINVAL);
        };
        if !self.check_reg_allocation_locked(reg) {
            let lock_off = rec.spin_lock_off.map_or(-22, |o| o as i32);
            self.verbose(&format!("bpf_spin_lock at off={lock_off} must be held for {head_name}\n"));
            return errno(EINVAL);
        }
        if meta.graph_root.is_some() {
            self.verbose(&format!("verifier bug: repeating {head_name} arg\n"));
            return errno(EFAULT);
        }
        meta.graph_root = Some(field);
        Ok(())
    }

    /// `__process_kf_arg_ptr_to_graph_node`: the node of an object of the
    /// root's element type, where the root's `__contains` puts it.
    pub(crate) fn process_kf_arg_ptr_to_graph_node(
        &mut self,
        reg: &RegState,
        regno: usize,
        head_type: u32,
        node_type: u32,
        meta: &mut CallArgMeta,
    ) -> VResult<()> {
        let node_name = btf_field_type_name(node_type);
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("{} doesn't have constant offset. {node_name} has to be at the constant offset\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        let node_off = reg.s.var_off.value;
        let rec = self.reg_btf_record(reg)?;
        if rec.as_ref().and_then(|r| btf_record_find(r, node_off as i64, node_type)).is_none() {
            self.verbose(&format!("{node_name} not found at offset={}\n", node_off as u32));
            return errno(EINVAL);
        }
        let Some(field) = meta.graph_root.clone() else {
            // the root argument comes first in every graph kfunc
            return errno(EFAULT);
        };
        let btf = self.input.prog_btf;
        let value_name = btf.map_or("", |b| b.type_name(field.graph_value_type_id)).to_string();
        // btf_struct_ids_match at offset 0, strict: the same local type
        if btf_local_type(reg.aux) != Some(field.graph_value_type_id) {
            let reg_name = super::kfuncs::btf_type_name(reg.aux);
            self.verbose(&format!(
                "operation on {} expects arg#1 {node_name} at offset={} in struct {value_name}, but arg is at offset={} in struct {reg_name}\n",
                btf_field_type_name(head_type),
                field.graph_node_offset as i32,
                node_off as i32
            ));
            return errno(EINVAL);
        }
        meta.arg_btf_id = reg.aux;
        if node_off != u64::from(field.graph_node_offset) {
            self.verbose(&format!(
                "arg#1 offset={}, but expected {node_name} at offset={} in struct {value_name}\n",
                node_off as i32, field.graph_node_offset as i32
            ));
            return errno(EINVAL);
        }
        Ok(())
    }

    /// The `KF_ARG_PTR_TO_LIST_HEAD`/`KF_ARG_PTR_TO_RB_ROOT` cases of
    /// `check_kfunc_args`.
    pub(crate) fn check_kfunc_graph_root_arg(&mut self, reg: &RegState, regno: usize, head_type: u32, meta: &mut CallArgMeta) -> VResult<()> {
        if reg.typ != PTR_TO_MAP_VALUE && reg.typ != PTR_TO_BTF_ID | MEM_ALLOC {
            self.verbose(&format!("{} expected pointer to map value or allocated object\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        if reg.typ == PTR_TO_BTF_ID | MEM_ALLOC && !self.reg_is_referenced(reg) {
            self.verbose("allocated object must be referenced\n");
            return errno(EINVAL);
        }
        self.process_kf_arg_ptr_to_graph_root(reg, regno, head_type, meta)
    }

    /// A node argument that must be an object the program owns: a
    /// referenced pointer to an allocated object.
    fn check_owned_alloc_obj(&mut self, reg: &RegState, regno: usize) -> VResult<()> {
        if reg.typ != PTR_TO_BTF_ID | MEM_ALLOC {
            self.verbose(&format!("{} expected pointer to allocated object\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        if !self.reg_is_referenced(reg) {
            self.verbose("allocated object must be referenced\n");
            return errno(EINVAL);
        }
        Ok(())
    }

    /// The `KF_ARG_PTR_TO_LIST_NODE` case of `check_kfunc_args`.
    pub(crate) fn check_kfunc_list_node_arg(&mut self, reg: &RegState, regno: usize, nonown_allowed: bool, meta: &mut CallArgMeta) -> VResult<()> {
        // bpf_list_front/back's non-owning result for a __nonown_allowed node
        let nonown_ok = nonown_allowed && type_is_non_owning_ref(reg.typ) && !self.reg_is_referenced(reg);
        if !nonown_ok {
            self.check_owned_alloc_obj(reg, regno)?;
        }
        self.process_kf_arg_ptr_to_graph_node(reg, regno, BPF_LIST_HEAD, BPF_LIST_NODE, meta)
    }

    /// The `KF_ARG_PTR_TO_RB_NODE` case of `check_kfunc_args`: an owned
    /// object for `bpf_rbtree_add`, else a non-owning or referenced one,
    /// outside the `less()` callback.
    pub(crate) fn check_kfunc_rb_node_arg(&mut self, reg: &RegState, regno: usize, func_name: &str, meta: &mut CallArgMeta) -> VResult<()> {
        if is_bpf_rbtree_add_kfunc(func_name) {
            self.check_owned_alloc_obj(reg, regno)?;
        } else {
            if !type_is_non_owning_ref(reg.typ) && !self.reg_is_referenced(reg) {
                self.verbose(&format!("{func_name} can only take non-owning or refcounted bpf_rb_node pointer\n"));
                return errno(EINVAL);
            }
            if self.in_rbtree_lock_required_cb() {
                self.verbose(&format!("{func_name} not allowed in rbtree cb\n"));
                return errno(EINVAL);
            }
        }
        self.process_kf_arg_ptr_to_graph_node(reg, regno, BPF_RB_ROOT, BPF_RB_NODE, meta)
    }

    /// `mark_reg_graph_node`: a pointer to the node of an element of the
    /// graph root `field`.
    pub(crate) fn graph_node_reg(&self, field: &BtfField) -> RegState {
        let id = field.graph_value_type_id;
        let name = self.input.prog_btf.map_or("", |b| b.type_name(id));
        let mut r = RegState::ptr(PTR_TO_BTF_ID | MEM_ALLOC, btf_local_type_id(id, name));
        r.s = super::scalar::Scalar::known(u64::from(field.graph_node_offset));
        r
    }

    /// `ref_set_non_owning`: `reg` no longer owns its object (while the
    /// lock is held); an object with a refcount stays RCU-protected.
    pub(crate) fn ref_set_non_owning(&mut self, reg: &mut RegState) -> VResult<()> {
        if self.cur.active_locks == 0 {
            self.verbose("verifier bug: ref_set_non_owning w/o active lock\n");
            return errno(EFAULT);
        }
        if reg.typ & NON_OWN_REF != 0 {
            self.verbose("verifier bug: NON_OWN_REF already set\n");
            return errno(EFAULT);
        }
        let refcounted = self.reg_btf_record(reg)?.is_some_and(|r| r.refcount_off.is_some());
        reg.typ |= NON_OWN_REF;
        if refcounted {
            reg.typ |= MEM_RCU;
        }
        Ok(())
    }

    /// `ref_convert_owning_non_owning`: the object `id` passed into a
    /// graph; every register and spill holding it becomes non-owning.
    pub(crate) fn ref_convert_owning_non_owning(&mut self, id: u32) -> VResult<()> {
        self.release_reference_nomark(id);
        for fi in 0..self.cur.frame.len() {
            for ri in 0..self.cur.frame[fi].regs.len() {
                let mut r = self.cur.frame[fi].regs[ri];
                if r.id == id {
                    r.id = 0;
                    // 7.3 ignores what ref_set_non_owning says here
                    let _ = self.ref_set_non_owning(&mut r);
                    self.cur.frame[fi].regs[ri] = r;
                }
            }
            for si in 0..self.cur.frame[fi].stack.len() {
                let s = &self.cur.frame[fi].stack[si];
                if !s.is_spilled_reg() || s.spilled_ptr.id != id {
                    continue;
                }
                let mut r = s.spilled_ptr;
                r.id = 0;
                let _ = self.ref_set_non_owning(&mut r);
                self.cur.frame[fi].stack[si].spilled_ptr = r;
            }
        }
        Ok(())
    }

    /// `in_rbtree_lock_required_cb`: verifying `bpf_rbtree_add`'s callback
    /// (or a subprogram it calls), which runs with the lock held.
    pub(crate) fn in_rbtree_lock_required_cb(&self) -> bool {
        for f in (1..=self.cur.curframe()).rev() {
            let callee = &self.cur.frame[f];
            if !callee.in_callback_fn {
                continue;
            }
            let imm = self.insn(callee.callsite.max(0) as usize).imm;
            if kfunc_name(self, imm).is_some_and(is_bpf_rbtree_api_kfunc) {
                return true;
            }
        }
        false
    }

    /// `set_rbtree_add_callback_state`: `less(a, b)` gets two non-owning
    /// nodes of the root's element type and returns 0 or 1.
    pub(crate) fn set_rbtree_add_callback_state(&mut self, caller: &FuncState, callee: &mut FuncState) -> VResult<()> {
        let r1 = caller.regs[1];
        let rec = self.reg_btf_record(&r1)?;
        let field = rec.as_ref().and_then(|r| btf_record_find(r, r1.s.var_off.value as i64, BPF_RB_ROOT)).cloned();
        let Some(field) = field.filter(|f| f.graph_value_type_id != 0) else { return errno(EFAULT) };
        for regno in 1..=2 {
            let mut r = self.graph_node_reg(&field);
            // 7.3 does not check what ref_set_non_owning says here either
            let _ = self.ref_set_non_owning(&mut r);
            callee.regs[regno] = r;
        }
        for regno in 3..=5 {
            callee.regs[regno] = RegState::not_init();
        }
        callee.in_callback_fn = true;
        callee.callback_ret_range = RetvalRange::new(0, 1);
        Ok(())
    }
}
