//! Loads and stores through `PTR_TO_BTF_ID` pointers into kernel structs
//! (`check_ptr_to_btf_access`), with btf.c's `btf_struct_access` /
//! `btf_struct_walk` over the recorded vmlinux BTF ([`crate::vmlinux_btf`])
//! and the trust a loaded pointer inherits (`type_is_trusted`,
//! `type_is_rcu_or_null`, ... through the verifier's `__safe_*` allow-list
//! structs, `btf_nested_type_is_trusted`).
//!
//! The model's registers name a struct by its index in
//! [`super::kfuncs::BTF_TYPES`] (or an interned name past it); the walk
//! looks the struct up by name in the target kernel's BTF.

use super::do_check::*;
use super::reg::*;
use super::scalar::print::tnum_strn;
use super::tnum::tnum_is_const;
use crate::vmlinux_btf::{Kind, VmlinuxBtf};

/// What a walk found at the offset (btf.c's `enum bpf_struct_walk_result`).
#[derive(Debug, PartialEq, Eq)]
pub enum Walk {
    Scalar,
    /// A pointer to a struct: its BTF id, and the member's name.
    Ptr(u32, String),
    /// A pointer to something not a struct (`WALK_PTR_UNTRUSTED`).
    PtrUntrusted,
    /// The offset starts a nested struct: go on walking in it.
    Struct(u32),
}

/// Why a walk stopped: the kernel's message and errno, or something the
/// subset does not hold.
#[derive(Debug, PartialEq, Eq)]
pub enum WalkErr {
    Log(String, i32),
    Unsupported(String),
}

/// `__btf_name_by_offset`: anonymous types and members print `(anon)`.
fn anon(name: &str) -> &str {
    if name.is_empty() { "(anon)" } else { name }
}

/// `__btf_resolve_size`: the member's type past modifiers, with arrays
/// (multi-dimensional ones flattened) seen through to their element.
struct Resolved {
    /// The outermost array, or the resolved type.
    id: u32,
    is_array: bool,
    size: u32,
    total_nelems: u32,
    /// The element type past modifiers, and the id the last array names.
    elem_resolved: u32,
    elem_id: u32,
    /// The id the last modifier pointed to (the member's id when none).
    type_id: u32,
}

fn btf_resolve_size(btf: &VmlinuxBtf, mut id: u32) -> Option<Resolved> {
    let (mut array, mut array_elem, mut nelems) = (None, 0u32, 1u32);
    let mut type_id = id;
    for _ in 0..32 {
        let t = btf.type_by_id(id)?;
        let size = match &t.kind {
            Kind::Int { size, .. } | Kind::Struct { size, .. } | Kind::Enum { size } | Kind::Float { size } => *size,
            Kind::Ptr(_) => 8,
            Kind::Typedef(n) | Kind::Volatile(n) | Kind::Const(n) | Kind::Restrict(n) | Kind::TypeTag(n) => {
                id = *n;
                type_id = *n;
                continue;
            }
            Kind::Array { elem, nelems: n } => {
                array.get_or_insert(id);
                array_elem = *elem;
                nelems = nelems.checked_mul(*n)?;
                id = *elem;
                continue;
            }
            _ => return None,
        };
        let size = nelems.checked_mul(size)?;
        return Some(Resolved {
            id: array.unwrap_or(id),
            is_array: array.is_some(),
            size,
            total_nelems: nelems,
            elem_resolved: id,
            elem_id: if array.is_some() { array_elem } else { 0 },
            type_id,
        });
    }
    None
}

fn is_struct(btf: &VmlinuxBtf, id: u32) -> bool {
    matches!(btf.type_by_id(id).map(|t| &t.kind), Some(Kind::Struct { .. }))
}

/// `btf_type_tag_walk` from a pointer with the tags `btf_struct_walk`
/// looks for: the pointee past modifiers, its id and the flag of a
/// `user`/`percpu`/`rcu` tag.
fn btf_type_tag_walk(btf: &VmlinuxBtf, ptr_target: u32) -> Result<(u32, RegType), WalkErr> {
    let (mut id, mut res, mut n) = (ptr_target, 0, 0);
    for _ in 0..32 {
        let Some(t) = btf.type_by_id(id) else { break };
        match &t.kind {
            Kind::TypeTag(next) => {
                let f = match t.name.as_str() {
                    "user" => MEM_USER,
                    "percpu" => MEM_PERCPU,
                    "rcu" => MEM_RCU,
                    _ => 0,
                };
                if f != 0 && res & f == 0 {
                    res |= f;
                    n += 1;
                }
                id = *next;
            }
            Kind::Typedef(next) | Kind::Volatile(next) | Kind::Const(next) | Kind::Restrict(next) => id = *next,
            _ => break,
        }
    }
    if n > 1 {
        return Err(WalkErr::Log("type 'ptr' has multiple type tags\n".into(), EINVAL));
    }
    Ok((id, res))
}

/// `btf_struct_walk`: what lies at `off` (`size` bytes) of struct `id`.
/// `flag` gathers `PTR_UNTRUSTED` (walked a union) and pointer tags.
pub fn btf_struct_walk(btf: &VmlinuxBtf, id: u32, mut off: u32, size: u32, flag: &mut RegType, walk_flex_arrays: bool) -> Result<Walk, WalkErr> {
    let mut id = btf.skip_modifiers(id);
    let unsupported = |what: String| Err(WalkErr::Unsupported(what));
    // each round descends into a member: bounded by the nesting depth
    for _ in 0..64 {
        let Some(t) = btf.type_by_id(id) else {
            return unsupported(format!("BTF type {id} is outside the recorded vmlinux subset"));
        };
        let tname = anon(&t.name).to_string();
        let Kind::Struct { union, size: tsize, members } = &t.kind else {
            return Err(WalkErr::Log(format!("Type '{tname}' is not a struct\n"), EINVAL));
        };
        let Some(members) = members else {
            return unsupported(format!("the members of struct {tname} are not in the recorded vmlinux BTF"));
        };
        // walking unions yields untrusted pointers, unless single-member
        if *union && members.len() != 1 {
            *flag |= PTR_UNTRUSTED;
        }
        if off.saturating_add(size) > *tsize {
            // a flexible array at the end may be walked past the size
            let flex = walk_flex_arrays.then(|| members.last()).flatten().and_then(|m| match btf.type_by_id(btf.skip_modifiers(m.type_id)).map(|t| &t.kind) {
                Some(Kind::Array { elem, nelems: 0 }) if off >= m.bit_off / 8 => Some((m.bit_off / 8, btf.skip_modifiers(*elem))),
                _ => None,
            });
            if let Some((moff, elem)) = flex {
                match btf.type_by_id(elem).map(|t| &t.kind) {
                    Some(Kind::Int { .. }) => return Ok(Walk::Scalar),
                    Some(Kind::Struct { size: s, .. }) if *s != 0 => {
                        off = (off - moff) % s;
                        id = elem;
                        continue;
                    }
                    _ => {}
                }
            }
            return Err(WalkErr::Log(format!("access beyond struct {tname} at off {off} size {size}\n"), EACCES));
        }
        let mut next = None;
        for m in members {
            let mut moff = m.bit_off / 8;
            if off + size <= moff {
                break;
            }
            if m.bitfield_size != 0 {
                let end_bit = m.bit_off + m.bitfield_size;
                if off <= moff && end_bit.div_ceil(8) <= off + size {
                    return Ok(Walk::Scalar);
                }
                continue;
            }
            // off points into a hole
            if off < moff {
                break;
            }
            let mname = anon(&m.name);
            let Some(r) = btf_resolve_size(btf, m.type_id) else {
                if btf.type_by_id(m.type_id).is_none() {
                    return unsupported(format!("the type of {tname}.{mname} is not in the recorded vmlinux BTF"));
                }
                return Err(WalkErr::Log(format!("field {mname} doesn't have size\n"), EFAULT));
            };
            let (mut mtype, mut mid, mut msize) = (r.id, r.type_id, r.size);
            let mtrue_end = moff + msize;
            if off >= mtrue_end {
                continue;
            }
            if r.is_array {
                if moff == mtrue_end {
                    continue;
                }
                msize /= r.total_nelems.max(1);
                let elem_idx = (off - moff) / msize.max(1);
                moff += elem_idx * msize;
                mtype = r.elem_resolved;
                mid = r.elem_id;
            }
            if is_struct(btf, mtype) {
                if off == moff {
                    return Ok(Walk::Struct(mid));
                }
                off -= moff;
                next = Some(mtype);
                break;
            }
            if let Some(Kind::Ptr(target)) = btf.type_by_id(mtype).map(|t| &t.kind) {
                if msize != size || off != moff {
                    return Err(WalkErr::Log(
                        format!("cannot access ptr member {mname} with moff {moff} in struct {tname} with off {off} size {size}\n"),
                        EACCES,
                    ));
                }
                let (sid, tags) = btf_type_tag_walk(btf, *target)?;
                if is_struct(btf, sid) {
                    *flag |= tags;
                    return Ok(Walk::Ptr(sid, m.name.clone()));
                }
                return Ok(Walk::PtrUntrusted);
            }
            // an int may be read in parts, an int array like scratch space
            if off + size > mtrue_end && *flag & PTR_UNTRUSTED == 0 {
                return Err(WalkErr::Log(
                    format!("access beyond the end of member {mname} (mend:{mtrue_end}) in struct {tname} with off {off} size {size}\n"),
                    EACCES,
                ));
            }
            return Ok(Walk::Scalar);
        }
        match next {
            Some(n) => id = n,
            None => return Err(WalkErr::Log(format!("struct {tname} doesn't have field at offset {off}\n"), EINVAL)),
        }
    }
    unsupported("a BTF struct nested too deep".into())
}

/// What `btf_struct_access` makes of the loaded register.
#[derive(Debug, PartialEq, Eq)]
pub enum Access {
    Scalar,
    /// `PTR_TO_BTF_ID | flag` of this struct, loaded from this member.
    BtfId {
        id: u32,
        flag: RegType,
        field: String,
    },
    /// `PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED`, size 0.
    UntrustedMem,
}

/// `btf_struct_access` for kernel (non-allocated) objects.
pub fn btf_struct_access(btf: &VmlinuxBtf, id: u32, off: u32, size: u32) -> Result<Access, WalkErr> {
    let (mut id, mut off, mut flag) = (id, off, 0);
    for _ in 0..64 {
        match btf_struct_walk(btf, id, off, size, &mut flag, true)? {
            Walk::Ptr(next, field) => return Ok(Access::BtfId { id: next, flag, field }),
            Walk::PtrUntrusted => return Ok(Access::UntrustedMem),
            Walk::Scalar => return Ok(Access::Scalar),
            Walk::Struct(next) => {
                id = next;
                off = 0;
            }
        }
    }
    Err(WalkErr::Unsupported("a BTF struct nested too deep".into()))
}

/// `btf_nested_type_is_trusted`: `<walked struct><suffix>` lists the
/// member as a pointer to the loaded type.
pub fn btf_nested_type_is_trusted(btf: &VmlinuxBtf, walked: &str, field: &str, btf_id: u32, suffix: &str) -> bool {
    let Some(safe) = btf.struct_by_name(&format!("{walked}{suffix}")) else { return false };
    let Some(Kind::Struct { members: Some(ms), .. }) = btf.type_by_id(safe).map(|t| &t.kind) else { return false };
    ms.iter().any(|m| m.name == field && matches!(btf.type_by_id(m.type_id).map(|t| &t.kind), Some(Kind::Ptr(p)) if btf.skip_modifiers(*p) == btf_id))
}

impl Env<'_, '_> {
    /// `is_trusted_reg` for a `PTR_TO_BTF_ID` register.
    fn is_trusted_btf_reg(&self, reg: &RegState) -> bool {
        const TRUSTED_MODIFIERS: RegType = MEM_ALLOC | PTR_TRUSTED | NON_OWN_REF;
        let flags = reg.typ & !0xff;
        self.reg_is_referenced(reg) || (flags & TRUSTED_MODIFIERS != 0 && flags & !TRUSTED_MODIFIERS == 0)
    }

    /// `check_ptr_to_btf_access`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_ptr_to_btf_access(
        &mut self,
        regno: usize,
        reg: &RegState,
        off: i64,
        size: i64,
        write: bool,
        value_regno: Option<usize>,
    ) -> VResult<()> {
        let tname = super::kfuncs::btf_type_name(reg.aux);
        if !self.allow_ptr_leaks() {
            self.verbose(&format!("'struct {tname}' access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n"));
            return errno(EPERM);
        }
        let local = super::kfuncs::btf_local_type(reg.aux);
        if !self.input.gpl && local.is_none() {
            self.verbose(&format!("Cannot access kernel 'struct {tname}' from non-GPL compatible program\n"));
            return errno(EINVAL);
        }
        if !tnum_is_const(reg.s.var_off) {
            let s = format!("R{regno} is ptr_{tname} invalid variable offset: off={off}, var_off={}\n", tnum_strn(reg.s.var_off));
            self.verbose(&s);
            return errno(EACCES);
        }
        let off = off.wrapping_add(reg.s.var_off.value as i64) as i32 as i64;
        if off < 0 {
            self.verbose(&format!("R{regno} is ptr_{tname} invalid negative access: off={off}\n"));
            return errno(EACCES);
        }
        if reg.typ & MEM_USER != 0 {
            self.verbose(&format!("R{regno} is ptr_{tname} access user memory: off={off}\n"));
            return errno(EACCES);
        }
        if reg.typ & MEM_PERCPU != 0 {
            self.verbose(&format!("R{regno} is ptr_{tname} access percpu memory: off={off}\n"));
            return errno(EACCES);
        }
        let may_fault = reg.typ == PTR_TO_BTF_ID || reg.typ & PTR_UNTRUSTED != 0;
        if write && may_fault {
            self.verbose("only read is supported\n");
            return errno(EACCES);
        }
        if reg.typ & MEM_ALLOC != 0 {
            // a store leaves its source register alone
            let value_regno = if write { None } else { value_regno };
            return self.check_ptr_to_alloc_obj_access(reg, local, off as u32, size as u32, value_regno);
        }
        if local.is_some() {
            return Err(DoCheckError::Unsupported(
                "reads through an untrusted pointer to a local type (a local kptr loaded outside RCU) are not modelled".into(),
            ));
        }
        if write {
            // tc and xdp have a btf_struct_access callback: it allows
            // writes to nf_conn fields only once nf_conntrack is loaded,
            // which the recorded 7.3 kernels never do
            if matches!(self.input.prog_type, super::ctx::pt::SCHED_CLS | super::ctx::pt::SCHED_ACT | super::ctx::pt::XDP) {
                self.verbose(&format!("R{regno} cannot write into ptr_{tname} at off={off} size={size}\n"));
            } else {
                self.verbose("only read is supported\n");
            }
            return errno(EACCES);
        }
        let Some(btf) = self.input.vmlinux_btf else {
            return Err(DoCheckError::Unsupported("no vmlinux BTF is recorded for this arch".into()));
        };
        let Some(sid) = btf.struct_by_name(tname) else {
            return Err(DoCheckError::Unsupported(format!("struct {tname} is not in the recorded vmlinux BTF")));
        };
        let access = match btf_struct_access(btf, sid, off as u32, size as u32) {
            Ok(a) => a,
            Err(WalkErr::Log(msg, e)) => {
                self.verbose(&msg);
                return errno(e);
            }
            Err(WalkErr::Unsupported(what)) => return Err(DoCheckError::Unsupported(what)),
        };
        let Some(v) = value_regno else { return Ok(()) };
        match access {
            Access::Scalar => self.mark_reg_unknown(v),
            Access::UntrustedMem => self.regs_mut()[v] = RegState::ptr(PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED, 0),
            Access::BtfId { id, flag, field } => {
                let flag = if reg.typ & PTR_UNTRUSTED != 0 {
                    PTR_UNTRUSTED
                } else if self.is_trusted_btf_reg(reg) || reg.typ & MEM_RCU != 0 {
                    let nested = |suffix| btf_nested_type_is_trusted(btf, tname, &field, id, suffix);
                    let mut flag = flag & !PTR_TRUSTED;
                    if nested("__safe_trusted") {
                        flag | PTR_TRUSTED
                    } else if nested("__safe_trusted_or_null") {
                        flag | PTR_TRUSTED | PTR_MAYBE_NULL
                    } else if self.in_rcu_cs() && !type_may_be_null(reg.typ) {
                        if nested("__safe_rcu") {
                            flag | MEM_RCU
                        } else if flag & MEM_RCU != 0 || nested("__safe_rcu_or_null") {
                            flag |= MEM_RCU | PTR_MAYBE_NULL;
                            if nested("__safe_rcu_or_null") {
                                flag &= !PTR_UNTRUSTED;
                            }
                            flag
                        } else if flag & (MEM_PERCPU | MEM_USER) != 0 {
                            flag
                        } else {
                            // walking unknown pointers yields plain PTR_TO_BTF_ID
                            flag & !(MEM_ALLOC | PTR_TRUSTED | NON_OWN_REF | MEM_RCU)
                        }
                    } else {
                        PTR_UNTRUSTED
                    }
                } else {
                    flag & !(MEM_ALLOC | PTR_TRUSTED | NON_OWN_REF | MEM_RCU)
                };
                let name = btf.name_of(id);
                let mut r = RegState::ptr(PTR_TO_BTF_ID | flag, super::kfuncs::btf_type_id_interned(name));
                if type_may_be_null(flag) {
                    self.id_gen += 1;
                    r.id = self.id_gen;
                }
                self.regs_mut()[v] = r;
            }
        }
        Ok(())
    }
}

impl Env<'_, '_> {
    /// `check_ptr_to_btf_access` of an object of a local type
    /// (`PTR_TO_BTF_ID | MEM_ALLOC`): read or written through the
    /// program's BTF by `btf_struct_access`, flexible arrays not walked; a
    /// pointer member reads as a scalar.
    fn check_ptr_to_alloc_obj_access(&mut self, reg: &RegState, local: Option<u32>, off: u32, size: u32, value_regno: Option<usize>) -> VResult<()> {
        let (Some(id), Some(btf)) = (local, self.input.prog_btf) else {
            return Err(DoCheckError::Unsupported("allocated objects of types outside the program's BTF are not modelled".into()));
        };
        if reg.typ & (NON_OWN_REF | MEM_RCU | PTR_UNTRUSTED) == 0 && !self.reg_is_referenced(reg) {
            self.verbose("verifier bug: allocated object must be referenced\n");
            return errno(EFAULT);
        }
        // the special fields of its record are not for direct access
        let rec = match btf.btf_find_struct_meta(id) {
            Ok(r) => r,
            Err(_) => return Err(DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())),
        };
        for f in rec.iter().flat_map(|r| r.fields.iter()) {
            if u64::from(off) < u64::from(f.offset) + u64::from(f.size) && u64::from(f.offset) < u64::from(off) + u64::from(size) {
                self.verbose(&format!("direct access to {} is disallowed\n", crate::btf::btf_field_type_name(f.field_type)));
                return errno(EACCES);
            }
        }
        let view = VmlinuxBtf::from_prog_btf(btf);
        let (mut id, mut off, mut flag) = (id, off, 0);
        let mut access = None;
        for _ in 0..64 {
            match btf_struct_walk(&view, id, off, size, &mut flag, false) {
                Ok(Walk::Ptr(..)) | Ok(Walk::Scalar) => {
                    access = Some(Access::Scalar);
                    break;
                }
                Ok(Walk::PtrUntrusted) => {
                    access = Some(Access::UntrustedMem);
                    break;
                }
                Ok(Walk::Struct(next)) => {
                    id = next;
                    off = 0;
                }
                Err(WalkErr::Log(msg, e)) => {
                    self.verbose(&msg);
                    return errno(e);
                }
                Err(WalkErr::Unsupported(what)) => return Err(DoCheckError::Unsupported(what)),
            }
        }
        let Some(access) = access else { return Err(DoCheckError::Unsupported("a local struct nested too deep".into())) };
        let Some(v) = value_regno else { return Ok(()) };
        match access {
            Access::UntrustedMem => self.regs_mut()[v] = RegState::ptr(PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED, 0),
            _ => self.mark_reg_unknown(v),
        }
        Ok(())
    }
}

/// `MAX_BPF_FUNC_ARGS`.
const MAX_BPF_FUNC_ARGS: i64 = 12;

/// The attach target of a tracing or LSM program as `btf_ctx_access`
/// reads it: `attach_func_name`, the return type and the arguments of
/// `attach_func_proto` (for tp_btf, those after `btf_trace_<tp>`'s first
/// `void *` argument).
pub(crate) struct AttachFunc<'b> {
    pub name: &'b str,
    pub ret: u32,
    pub params: &'b [(String, u32)],
}

/// `bpf_check_attach_target`'s lookup of the prototype: a FUNC for
/// fentry/fexit/LSM, the `btf_trace_<tp>` typedef of a function pointer
/// for tp_btf (`attach_btf_trace`).
pub(crate) fn attach_func(btf: &VmlinuxBtf, id: u32, btf_trace: bool) -> Result<AttachFunc<'_>, String> {
    let t = btf.type_by_id(id).ok_or_else(|| format!("attach target {id} is not recorded"))?;
    let proto = match (&t.kind, btf_trace) {
        (Kind::Func(p), false) => *p,
        (Kind::Typedef(p), true) if t.name.starts_with("btf_trace_") => match btf.type_by_id(*p).map(|t| &t.kind) {
            Some(Kind::Ptr(f)) => *f,
            _ => return Err(format!("{} is not a pointer to a function", t.name)),
        },
        _ => return Err(format!("attach target {} ({id}) is not of the expected kind", t.name)),
    };
    match btf.type_by_id(proto).map(|t| &t.kind) {
        Some(Kind::FuncProto { ret, params: Some(ps) }) if !btf_trace => Ok(AttachFunc { name: &t.name, ret: *ret, params: ps }),
        Some(Kind::FuncProto { ret, params: Some(ps) }) if !ps.is_empty() => {
            Ok(AttachFunc { name: &t.name["btf_trace_".len()..], ret: *ret, params: &ps[1..] })
        }
        _ => Err(format!("the prototype of {} is not recorded", t.name)),
    }
}

/// `btf_param_match_suffix(.., "__nullable")`.
fn param_is_nullable(name: &str) -> bool {
    name.len() > "__nullable".len() && name.ends_with("__nullable")
}

impl Env<'_, '_> {
    /// The program's attach target, for the programs `btf_ctx_access`
    /// serves.
    fn prog_attach_func(&self) -> VResult<AttachFunc<'static>> {
        let Some(btf) = self.input.vmlinux_btf else {
            return Err(DoCheckError::Unsupported("no vmlinux BTF is recorded for this arch".into()));
        };
        let raw_tp =
            self.input.prog_type == super::prog_load::prog_types::TRACING && self.input.expected_attach_type == crate::prog_type::bpf_attach_type::TRACE_RAW_TP;
        attach_func(btf, self.input.attach_btf_id, raw_tp).map_err(DoCheckError::Unsupported)
    }

    /// `!prog->aux->attach_func_proto->type`.
    pub(crate) fn attach_func_returns_void(&self) -> bool {
        self.prog_attach_func().is_ok_and(|f| f.ret == 0)
    }

    /// `bpf_lsm_get_retval_range` of the program's hook.
    pub(crate) fn lsm_retval_range(&self) -> Option<(i32, i32)> {
        let f = self.prog_attach_func().ok()?;
        super::bpf_lsm::bpf_lsm_get_retval_range(f.name, f.ret == 0)
    }

    /// `prog_args_trusted`.
    fn prog_args_trusted(&self, func: &str) -> bool {
        use super::prog_load::prog_types as pt;
        use crate::prog_type::bpf_attach_type as at;
        match self.input.prog_type {
            pt::TRACING => matches!(self.input.expected_attach_type, at::TRACE_RAW_TP | at::TRACE_ITER),
            pt::LSM => super::bpf_lsm::bpf_lsm_is_trusted(func),
            _ => false,
        }
    }

    /// Whether a ctx load at `off` reads the hook's return value
    /// (`info->is_retval` of `btf_ctx_access`: BPF_LSM_MAC only).
    pub(crate) fn btf_ctx_access_is_retval(&self, off: i64) -> bool {
        let lsm_mac =
            self.input.prog_type == super::prog_load::prog_types::LSM && self.input.expected_attach_type == crate::prog_type::bpf_attach_type::LSM_MAC;
        let (Some(btf), Ok(f)) = (self.input.vmlinux_btf, self.prog_attach_func()) else { return false };
        lsm_mac && off % 8 == 0 && btf_ctx_arg_idx(btf, f.params, off) == f.params.len()
    }

    /// `bpf_tracing_btf_ctx_access` -> `btf_ctx_access` for fentry/fexit,
    /// tp_btf and LSM programs on vmlinux targets: the ctx is a u64 per
    /// argument (then the return value for fexit and LSM), typed by the
    /// target's BTF prototype.
    pub(crate) fn tracing_btf_ctx_access(&mut self, off: i64, size: i64, write: bool) -> VResult<super::ctx::CtxAccess> {
        use super::ctx::CtxAccess;
        use crate::prog_type::bpf_attach_type as at;
        let invalid = |env: &mut Self| {
            env.verbose(&format!("invalid bpf_context access off={off} size={size}\n"));
            errno(EACCES)
        };
        if !(0..8 * MAX_BPF_FUNC_ARGS).contains(&off) || write || off % size != 0 {
            return invalid(self);
        }
        let f = self.prog_attach_func()?;
        let btf = self.input.vmlinux_btf.expect("prog_attach_func found it");
        let (tname, ret, params) = (f.name, f.ret, f.params);
        if off % 8 != 0 {
            self.verbose(&format!("func '{tname}' offset {off} is not multiple of 8\n"));
            return invalid(self);
        }
        let arg = btf_ctx_arg_idx(btf, params, off);
        if arg < params.len() && btf_ctx_arg_offset(btf, params, arg) != off {
            return Err(DoCheckError::Unsupported(format!("a read inside argument {arg} of {tname} (passed by value)")));
        }
        let nr_args = params.len();
        let t = if arg > nr_args {
            self.verbose(&format!("func '{tname}' doesn't have {}-th argument\n", arg + 1));
            return invalid(self);
        } else if arg == nr_args && self.input.expected_attach_type == at::MODIFY_RETURN {
            // fmod_ret only attaches to functions returning an int
            let r = btf.skip_modifiers(ret);
            match btf.type_by_id(r).map(|t| &t.kind) {
                Some(Kind::Int { size: s, .. }) if *s <= 8 => ret,
                _ => return Err(DoCheckError::Unsupported(format!("the return type of {tname} under fmod_ret (btf_type_str)"))),
            }
        } else if arg == nr_args {
            if !matches!(self.input.expected_attach_type, at::TRACE_FEXIT | at::LSM_MAC | at::LSM_CGROUP) {
                self.verbose(&format!("func '{tname}' doesn't have {}-th argument\n", arg + 1));
                return invalid(self);
            }
            ret
        } else {
            params[arg].1
        };
        let scalar = Ok(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 0, btf_id: 0 });
        let t = btf.skip_modifiers(t);
        let kind = btf.type_by_id(t).map(|t| &t.kind);
        match kind {
            Some(Kind::Int { size: s, .. }) if *s <= 8 => return scalar,
            Some(Kind::Enum { .. } | Kind::Struct { .. }) => return scalar,
            Some(Kind::Ptr(_)) => {}
            // a void return, or a type the subset lacks
            _ => return Err(DoCheckError::Unsupported(format!("argument {arg} of {tname}: its type is not modelled"))),
        }
        if size != 8 {
            self.verbose(&format!("func '{tname}' size {size} must be 8\n"));
            return invalid(self);
        }
        let ctx_arg_info = self.ctx_arg_info_at(btf, tname, off);
        // PTR_TO_RDONLY_BUF_OR_NULL, PTR_TO_RDWR_BUF_OR_NULL
        if let Some(a) = ctx_arg_info
            && base_type(a.reg_type) == PTR_TO_BUF
            && type_may_be_null(a.reg_type)
        {
            return Ok(CtxAccess { reg_type: a.reg_type, ctx_field_size: 0, btf_id: 0 });
        }
        let Some(Kind::Ptr(target)) = kind else { return scalar };
        // pointers to anything but a struct read as scalars
        let sid = btf.skip_modifiers(*target);
        let Some(st) = btf.type_by_id(sid).filter(|t| matches!(t.kind, Kind::Struct { .. })) else {
            if btf.type_by_id(sid).is_none() && sid != 0 {
                return Err(DoCheckError::Unsupported(format!("argument {arg} of {tname}: its pointee is not recorded")));
            }
            return scalar;
        };
        if let Some(a) = ctx_arg_info {
            let Some(st) = a.btf_struct else {
                self.verbose(&format!("invalid btf_id for context argument offset {off}\n"));
                return invalid(self);
            };
            return Ok(CtxAccess { reg_type: a.reg_type, ctx_field_size: 0, btf_id: super::kfuncs::btf_type_id_interned(st) });
        }
        if self.input.expected_attach_type == at::TRACE_RAW_TP && RAW_TP_NULL_ARGS.contains(&tname) {
            return Err(DoCheckError::Unsupported(format!("tracepoint {tname}: its nullable or IS_ERR arguments (raw_tp_null_args) are not modelled")));
        }
        let mut reg_type = PTR_TO_BTF_ID;
        if self.prog_args_trusted(tname) {
            reg_type |= PTR_TRUSTED;
        }
        if arg < nr_args && param_is_nullable(&params[arg].0) {
            reg_type |= PTR_MAYBE_NULL;
        }
        let (_, tags) = btf_type_tag_walk(btf, *target).map_err(|_| DoCheckError::Unsupported("type tags of a tracing argument".into()))?;
        if tags & !(MEM_USER | MEM_PERCPU) != 0 {
            return Err(DoCheckError::Unsupported("an rcu-tagged tracing argument".into()));
        }
        let what = if matches!(st.kind, Kind::Struct { union: true, .. }) { "UNION" } else { "STRUCT" };
        self.verbose(&format!("func '{tname}' arg{arg} has btf_id {sid} type {what} '{}'\n", anon(&st.name)));
        Ok(CtxAccess { reg_type: reg_type | tags, ctx_field_size: 0, btf_id: super::kfuncs::btf_type_id_interned(&st.name) })
    }
}

impl Env<'_, '_> {
    /// The entry of `prog->aux->ctx_arg_info` at ctx offset `off`: an
    /// iterator program's, from its target's registration.
    fn ctx_arg_info_at(&self, btf: &VmlinuxBtf, tname: &str, off: i64) -> Option<super::bpf_iter::BpfCtxArgAux> {
        use super::bpf_iter::{IterTarget, bpf_iter_prog_supported, ctx_field_offset};
        if self.input.prog_type != super::prog_load::prog_types::TRACING || self.input.expected_attach_type != crate::prog_type::bpf_attach_type::TRACE_ITER {
            return None;
        }
        let IterTarget::Registered(reg) = bpf_iter_prog_supported(tname) else { return None };
        reg.ctx_arg_info.iter().find(|a| ctx_field_offset(btf, reg.target, a.field) == Some(off)).copied()
    }
}

/// `btf_ctx_arg_idx`: the argument a ctx offset falls in (an argument
/// wider than 8 bytes takes more slots); past the arguments, one index
/// per slot.
fn btf_ctx_arg_idx(btf: &VmlinuxBtf, params: &[(String, u32)], off: i64) -> usize {
    let mut slot = 0i64;
    for (i, (_, t)) in params.iter().enumerate() {
        let n = btf.type_size(*t).map_or(1, |s| ((s as i64 + 7) / 8).max(1));
        if off / 8 < slot + n {
            return i;
        }
        slot += n;
    }
    params.len() + (off / 8 - slot) as usize
}

/// `btf_ctx_arg_offset`: the ctx offset of argument `arg`.
fn btf_ctx_arg_offset(btf: &VmlinuxBtf, params: &[(String, u32)], arg: usize) -> i64 {
    params[..arg].iter().map(|(_, t)| btf.type_size(*t).map_or(1, |s| ((s as i64 + 7) / 8).max(1)) * 8).sum()
}

/// The tracepoints of `raw_tp_null_args` (`btf_ctx_access`): some of
/// their pointer arguments may be NULL or an `ERR_PTR`.
const RAW_TP_NULL_ARGS: &[&str] = &[
    "sched_pi_setprio",
    "sched_process_wait",
    "sched_stick_numa",
    "sched_swap_numa",
    "afs_make_fs_call",
    "afs_make_fs_calli",
    "afs_make_fs_call1",
    "afs_make_fs_call2",
    "afs_protocol_error",
    "afs_flock_ev",
    "cachefiles_lookup",
    "cachefiles_unlink",
    "cachefiles_rename",
    "cachefiles_prep_read",
    "cachefiles_mark_active",
    "cachefiles_mark_failed",
    "cachefiles_mark_inactive",
    "cachefiles_vfs_error",
    "cachefiles_io_error",
    "ext4_mballoc_discard",
    "ext4_mballoc_free",
    "fib_table_lookup",
    "posix_lock_inode",
    "fcntl_setlk",
    "locks_remove_posix",
    "flock_lock_inode",
    "break_lease_noblock",
    "break_lease_block",
    "break_lease_unblock",
    "generic_delete_lease",
    "time_out_leases",
    "host1x_cdma_push_gather",
    "mm_khugepaged_scan_pmd",
    "mm_collapse_huge_page_isolate",
    "mm_khugepaged_scan_file",
    "mm_khugepaged_collapse_file",
    "mm_page_alloc",
    "mm_page_pcpu_drain",
    "mm_page_alloc_zone_locked",
    "netfs_failure",
    "device_pm_callback_start",
    "qdisc_dequeue",
    "rxrpc_recvdata",
    "rxrpc_resend",
    "rxrpc_tq",
    "rxrpc_client",
    "signal_generate",
    "signal_deliver",
    "xs_stream_read_data",
    "xprt_reserve_cong",
    "xprt_release_cong",
    "xprt_get_cong",
    "xprt_put_cong",
    "tcp_send_reset",
    "tcp_sendmsg_locked",
    "tegra_dma_tx_status",
    "tmigr_update_events",
    "writeback_dirty_folio",
    "folio_wait_writeback",
    "mr_integ_alloc",
    "bpf_testmod_test_read",
    "amdgpu_vm_bo_map",
    "amdgpu_vm_bo_unmap",
    "netfs_folioq",
    "xfs_defer_create_intent",
    "xfs_defer_cancel_list",
    "xfs_defer_pending_finish",
    "xfs_defer_pending_abort",
    "xfs_defer_relog_intent",
    "xfs_defer_isolate_paused",
    "xfs_defer_item_pause",
    "xfs_defer_item_unpause",
    "xfs_defer_add_item",
    "xfs_defer_cancel_item",
    "xfs_defer_finish_item",
    "xfs_ioc_free_eofblocks",
    "xfs_blockgc_free_space",
    "xfs_btree_updkeys",
    "xfs_btree_overlapped_query_range",
    "xfs_map_blocks_found",
    "xfs_map_blocks_alloc",
    "xfs_iomap_alloc",
    "xfs_iomap_found",
    "xfs_inodegc_flush",
    "xfs_inodegc_push",
    "xfs_inodegc_start",
    "xfs_inodegc_stop",
    "xfs_inodegc_queue",
    "xfs_inodegc_throttle",
    "xfs_fs_sync_fs",
    "xfs_blockgc_start",
    "xfs_blockgc_stop",
    "xfs_blockgc_worker",
    "xfs_blockgc_flush_all",
    "xchk_nlinks_live_update",
    "xchk_metapath_lookup",
    "nfsd_dirent",
    "nfsd_file_acquire",
    "nfsd_file_insert_err",
    "nfsd_file_cons_err",
    "nfs4_setup_sequence",
    "pnfs_update_layout",
    "nfs4_inode_callback_event",
    "nfs4_inode_stateid_callback_event",
    "pnfs_mds_fallback_pg_init_read",
    "pnfs_mds_fallback_pg_init_write",
    "pnfs_mds_fallback_pg_get_mirror_count",
    "pnfs_mds_fallback_read_done",
    "pnfs_mds_fallback_write_done",
    "pnfs_mds_fallback_read_pagelist",
    "pnfs_mds_fallback_write_pagelist",
    "coda_dec_pic_run",
    "coda_dec_pic_done",
    "cfg80211_scan_done",
    "rdev_set_coalesce",
    "cfg80211_report_wowlan_wakeup",
    "cfg80211_inform_bss_frame",
    "cfg80211_michael_mic_failure",
    "wiphy_work_queue",
    "wiphy_work_run",
    "wiphy_work_cancel",
    "wiphy_work_flush",
    "hugetlbfs_alloc_inode",
    "spufs_context",
    "kvm_page_fault_enter",
    "dpu_crtc_setup_mixer",
    "binder_transaction",
    "btree_path_free",
    "hfi1_sdma_progress",
    "iptfs_ingress_postq_event",
    "neigh_update",
    "amdtp_packet",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Arch;

    fn skb() -> (&'static VmlinuxBtf, u32) {
        let b = VmlinuxBtf::for_arch(Arch::X86_64).unwrap();
        (b, b.struct_by_name("sk_buff").unwrap())
    }

    #[test]
    fn sk_buff_fields() {
        let (b, s) = skb();
        // len: u32 at 112
        assert_eq!(btf_struct_access(b, s, 112, 4), Ok(Access::Scalar));
        // sk: struct sock * at 24 (inside an anonymous union of one member)
        match btf_struct_access(b, s, 24, 8) {
            Ok(Access::BtfId { id, field, .. }) => {
                assert_eq!(b.name_of(id), "sock");
                assert_eq!(field, "sk");
            }
            other => panic!("{other:?}"),
        }
        // half a pointer
        assert!(matches!(btf_struct_access(b, s, 24, 4), Err(WalkErr::Log(m, EACCES)) if m.starts_with("cannot access ptr member sk with moff 24")));
        // past the end
        assert_eq!(btf_struct_access(b, s, 232, 4), Err(WalkErr::Log("access beyond struct sk_buff at off 232 size 4\n".into(), EACCES)));
        // cb[] is u8 scratch space: any size within it
        assert_eq!(btf_struct_access(b, s, 40, 8), Ok(Access::Scalar));
    }
}
