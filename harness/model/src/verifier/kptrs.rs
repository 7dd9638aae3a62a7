//! Kptrs in map values: `__kptr_untrusted`, `__kptr` and `__percpu_kptr`
//! fields read, stored and exchanged (`check_map_kptr_access`,
//! `map_kptr_match_type`, `process_kptr_func`, `btf_ld_kptr_type`).
//!
//! A kptr's pointee is a struct of the kernel's BTF, or one only the
//! program's BTF has (a local kptr, an object of `bpf_obj_new`): loaded
//! under RCU, a local kptr is an RCU-protected allocated object (and a
//! non-owning reference when it has a graph node).

use bpf_isa::insn::op::*;

use super::do_check::*;
use super::helper_call::CallArgMeta;
use super::reg::*;
use super::tnum::tnum_is_const;
use crate::btf::{BPF_KPTR, BPF_KPTR_PERCPU, BPF_KPTR_REF, BPF_KPTR_UNREF, BPF_UPTR, BtfField, btf_record_find};

/// `rcu_protected_types`: kernel structs a referenced kptr may be read
/// from under RCU as a trusted pointer.
const RCU_PROTECTED_TYPES: &[&str] = &["prog_test_ref_kfunc", "cgroup", "bpf_cpumask", "task_struct", "bpf_crypto_ctx", "bpf_ksock"];

/// The kernel structs 7.3's vmlinux registers kptr destructors for
/// (`register_btf_id_dtor_kfuncs` of `generic_dtors`, `cpumask_dtors`,
/// `bpf_crypto_dtors` and net/bpf/test_run.c's `bpf_prog_test_dtor_kfunc`):
/// a kptr to one is a kernel kptr whatever the recorded BTF subset holds.
const KPTR_DTOR_TYPES: &[&str] = &["task_struct", "cgroup", "bpf_cpumask", "bpf_crypto_ctx", "prog_test_ref_kfunc", "prog_test_member"];

/// `rcu_safe_kptr` of a kernel kptr.
fn rcu_safe_kptr(field: &BtfField) -> bool {
    field.field_type == BPF_KPTR_PERCPU || (field.field_type == BPF_KPTR_REF && RCU_PROTECTED_TYPES.contains(&field.kptr_name.as_str()))
}

impl Env<'_, '_> {
    /// `btf_is_kernel(kptr_field->kptr.btf)`: `btf_parse_kptr` found the
    /// pointee in the kernel's BTF. A pointee it would take from the
    /// program's BTF is not modelled.
    fn kernel_kptr(&self, field: &BtfField) -> VResult<()> {
        // (a destructor's struct is in 7.3's vmlinux BTF: what is done with
        // its members is checked where they are read)
        let known = KPTR_DTOR_TYPES.contains(&field.kptr_name.as_str()) || self.input.vmlinux_btf.is_some_and(|b| b.struct_by_name(&field.kptr_name).is_some());
        if known {
            return Ok(());
        }
        Err(DoCheckError::Unsupported(format!(
            "kptr to struct {} (a local kptr, or a kernel struct not in the recorded vmlinux BTF) is not modelled",
            field.kptr_name
        )))
    }

    /// A kptr `btf_parse_kptr` took from the program's BTF (its pointee is
    /// no struct of the kernel's BTF): an object of `bpf_obj_new`.
    fn local_kptr(&self, field: &BtfField) -> bool {
        self.input.prog_btf.is_some()
            && !KPTR_DTOR_TYPES.contains(&field.kptr_name.as_str())
            && self.input.vmlinux_btf.is_some_and(|b| b.struct_by_name(&field.kptr_name).is_none())
            && !super::kfuncs::is_kfunc_struct(&field.kptr_name)
    }

    /// The model's type id of a kptr's pointee.
    pub(crate) fn kptr_type(&self, field: &BtfField) -> (RegType, i64) {
        if self.local_kptr(field) {
            let percpu = if field.field_type == BPF_KPTR_PERCPU { MEM_PERCPU } else { 0 };
            (MEM_ALLOC | percpu, super::kfuncs::btf_local_type_id(field.kptr_type_id, &field.kptr_name))
        } else {
            (0, super::kfuncs::btf_type_id_interned(&field.kptr_name))
        }
    }

    /// `btf_ld_kptr_type` of a kernel kptr.
    fn btf_ld_kptr_type(&self, field: &BtfField) -> RegType {
        let mut ret = PTR_MAYBE_NULL;
        if rcu_safe_kptr(field) && self.in_rcu_cs() {
            ret |= MEM_RCU;
            if field.field_type == BPF_KPTR_PERCPU {
                ret |= MEM_PERCPU;
            }
        } else {
            ret |= PTR_UNTRUSTED;
        }
        ret
    }

    /// `btf_ld_kptr_type` of a local kptr (every local type counts as
    /// RCU-protected): an allocated object under RCU, with `NON_OWN_REF`
    /// when its type has a list or rbtree node.
    fn btf_ld_local_kptr_type(&self, field: &BtfField) -> VResult<RegType> {
        let mut ret = PTR_MAYBE_NULL;
        let rcu_safe = field.field_type == BPF_KPTR_PERCPU || field.field_type == BPF_KPTR_REF;
        if !(rcu_safe && self.in_rcu_cs()) {
            return Ok(ret | PTR_UNTRUSTED);
        }
        ret |= MEM_RCU;
        if field.field_type == BPF_KPTR_PERCPU {
            ret |= MEM_PERCPU;
        } else {
            ret |= MEM_ALLOC;
        }
        let rec = match self.input.prog_btf.map(|b| b.btf_find_struct_meta(field.kptr_type_id)) {
            Some(Ok(r)) => r,
            Some(Err(_)) => return Err(DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())),
            None => None,
        };
        if rec.is_some_and(|r| r.has_field(crate::btf::BPF_GRAPH_NODE)) {
            ret |= NON_OWN_REF;
        }
        Ok(ret)
    }

    /// `check_map_kptr_access`: the load or store at the current insn of
    /// the kptr `field` (its offset, size and alignment `check_map_access`
    /// checked); `value_regno` is the loaded or stored register.
    pub(crate) fn check_map_kptr_access(&mut self, value_regno: Option<usize>, field: &BtfField) -> VResult<()> {
        let insn = self.insn(self.insn_idx);
        let class = insn.class();
        if insn.code & 0xe0 != BPF_MEM {
            self.verbose("kptr in map can only be accessed using BPF_MEM instruction mode\n");
            return errno(EACCES);
        }
        if class != BPF_LDX && (field.field_type == BPF_KPTR_REF || field.field_type == BPF_KPTR_PERCPU) {
            self.verbose("store to referenced kptr disallowed\n");
            return errno(EACCES);
        }
        if class != BPF_LDX && field.field_type == BPF_UPTR {
            self.verbose("store to uptr disallowed\n");
            return errno(EACCES);
        }
        match class {
            BPF_LDX => {
                if field.field_type == BPF_UPTR {
                    return Err(DoCheckError::Unsupported("loads of uptr fields of map values are not modelled".into()));
                }
                let local = self.local_kptr(field);
                // a referenced kptr to a kernel struct has a destructor: one
                // to a struct the recorded subset lacks is local; an
                // untrusted one might be either
                if local && field.field_type == BPF_KPTR_UNREF {
                    return Err(DoCheckError::Unsupported(format!(
                        "untrusted kptr to struct {} (a local type, or a kernel struct not in the recorded vmlinux BTF) is not modelled",
                        field.kptr_name
                    )));
                }
                let (flag, id) = if local {
                    (self.btf_ld_local_kptr_type(field)?, super::kfuncs::btf_local_type_id(field.kptr_type_id, &field.kptr_name))
                } else {
                    self.kernel_kptr(field)?;
                    (self.btf_ld_kptr_type(field), super::kfuncs::btf_type_id_interned(&field.kptr_name))
                };
                let Some(v) = value_regno else { return errno(EFAULT) };
                // mark_btf_ld_reg
                let mut r = RegState::ptr(PTR_TO_BTF_ID | flag, id);
                if type_may_be_null(flag) {
                    self.id_gen += 1;
                    r.id = self.id_gen;
                }
                self.regs_mut()[v] = r;
                Ok(())
            }
            BPF_STX => {
                let Some(v) = value_regno else { return errno(EFAULT) };
                if self.regs()[v].is_null() {
                    // a store of a known zero: precise, so that another
                    // scalar is not pruned against this state
                    return self.mark_chain_precision(v);
                }
                let val = self.regs()[v];
                self.map_kptr_match_type(field, &val, v)
            }
            BPF_ST => {
                if insn.imm != 0 {
                    self.verbose(&format!("BPF_ST imm must be 0 when storing to kptr at off={}\n", field.offset));
                    return errno(EACCES);
                }
                Ok(())
            }
            _ => {
                self.verbose("kptr in map can only be accessed using BPF_LDX/BPF_STX/BPF_ST\n");
                errno(EACCES)
            }
        }
    }

    /// `map_kptr_match_type`: `reg` (register `regno`) may be stored in, or
    /// exchanged into, the kptr `field` (a mismatch is EACCES, as its
    /// callers return it).
    pub(crate) fn map_kptr_match_type(&mut self, field: &BtfField, reg: &RegState, regno: usize) -> VResult<()> {
        let targ_name = field.kptr_name.clone();
        let local = self.local_kptr(field);
        if !local {
            self.kernel_kptr(field)?;
        }
        let mut reg_name = "";
        let matched = 'check: {
            if base_type(reg.typ) != PTR_TO_BTF_ID {
                break 'check false;
            }
            // btf_is_kernel(reg->btf): the model's allocated objects are
            // the program BTF's
            let perm_flags = if reg.typ & MEM_ALLOC == 0 {
                let mut f = PTR_MAYBE_NULL | PTR_TRUSTED | MEM_RCU;
                if field.field_type == BPF_KPTR_UNREF {
                    f |= PTR_UNTRUSTED;
                }
                f
            } else {
                let mut f = PTR_MAYBE_NULL | MEM_ALLOC;
                if field.field_type == BPF_KPTR_PERCPU {
                    f |= MEM_PERCPU;
                }
                f
            };
            if reg.typ & !((1 << BASE_BITS) - 1) & !perm_flags != 0 {
                break 'check false;
            }
            if (field.field_type == BPF_KPTR_PERCPU) != (reg.typ & MEM_PERCPU != 0) {
                break 'check false;
            }
            reg_name = super::kfuncs::btf_type_name(reg.aux);
            self.check_ptr_off_reg(reg, regno, true)?;
            match (reg.typ & MEM_ALLOC != 0, local) {
                // a local type matches only itself, at offset 0 (the
                // program's types are not walked)
                (true, true) => reg.s.var_off.value == 0 && super::kfuncs::btf_local_type(reg.aux) == Some(field.kptr_type_id),
                (false, false) => self.btf_struct_ids_match(reg, reg.s.var_off.value, &targ_name, field.field_type != BPF_KPTR_UNREF)?,
                _ => false,
            }
        };
        if matched {
            return Ok(());
        }
        let mut s = format!("invalid kptr access, R{regno} type={}{reg_name} ", reg_type_str(reg.typ));
        s += &format!("expected={}{targ_name}", reg_type_str(PTR_TO_BTF_ID));
        if field.field_type == BPF_KPTR_UNREF {
            s += &format!(" or {}{targ_name}\n", reg_type_str(PTR_TO_BTF_ID | PTR_UNTRUSTED));
        } else {
            s += "\n";
        }
        self.verbose(&s);
        // both callers turn the mismatch into EACCES
        errno(EACCES)
    }

    /// `process_kptr_func`: `bpf_kptr_xchg`'s destination, a referenced
    /// kptr of a map value at a constant offset.
    pub(crate) fn process_kptr_func(&mut self, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        let rec = if super::graph::type_is_ptr_alloc_obj(reg.typ) {
            // a kptr in an allocated object: its type's struct meta
            self.reg_btf_record(reg)?.unwrap_or_default()
        } else {
            let m = usize::try_from(reg.aux).ok();
            let map = m.and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
            let Some(rec) = map.record.clone() else {
                self.verbose(&format!("map '{}' has to have BTF in order to use bpf_kptr_xchg\n", map.name));
                return errno(EINVAL);
            };
            if let Some(i) = m {
                meta.map = Some((i, reg.map_uid));
            }
            rec
        };
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} doesn't have constant offset. kptr has to be at the constant offset\n"));
            return errno(EINVAL);
        }
        if !rec.has_field(BPF_KPTR) {
            self.verbose(&format!("R{regno} has no valid kptr\n"));
            return errno(EINVAL);
        }
        let kptr_off = reg.s.var_off.value as i64;
        let Some(field) = btf_record_find(&rec, kptr_off, BPF_KPTR).cloned() else {
            self.verbose(&format!("off={} doesn't point to kptr\n", kptr_off as i32));
            return errno(EACCES);
        };
        if field.field_type != BPF_KPTR_REF && field.field_type != BPF_KPTR_PERCPU {
            self.verbose(&format!("off={} kptr isn't referenced kptr\n", kptr_off as i32));
            return errno(EACCES);
        }
        meta.kptr_field = Some(field);
        Ok(())
    }
}
