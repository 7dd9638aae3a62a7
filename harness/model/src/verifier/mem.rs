//! Loads and stores: `check_load_mem`, `check_store_reg`, `check_atomic`,
//! `check_mem_access` and its per-pointer-type checks (ctx, map values,
//! packet, alignment). Stack accesses are in [`super::stack`].

use crate::btf::{BPF_KPTR, BPF_KPTR_PERCPU, BPF_KPTR_REF, BPF_KPTR_UNREF, BPF_UPTR, btf_field_type_name, btf_record_find};
use crate::map::types::*;
use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::ctx;
use super::diag::{DerefKind, ModReason, bpf_diag_fmt_s64_sum};
use super::do_check::*;
use super::reg::*;
use super::scalar::print::tnum_strn;
use super::scalar::*;
use super::tnum::*;

impl Env<'_, '_> {
    /// `check_load_mem` (`rX = *(size *)(rY + off)`, and load-acquire
    /// with strict alignment).
    pub(crate) fn check_load_mem(&mut self, insn: &Insn, is_ldsx: bool) -> VResult<()> {
        self.check_load_mem_ex(insn, false, is_ldsx, true, "ldx")
    }

    fn check_load_mem_ex(&mut self, insn: &Insn, strict_once: bool, is_ldsx: bool, allow_trust_mismatch: bool, ctx: &str) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        self.check_reg_src(src)?;
        self.check_reg_dst(dst, false)?;
        let src_type = self.regs()[src].typ;
        // a fill from the stack refines the origin to the slot
        let target = self.diag_reg_target(self.cur.curframe(), dst);
        self.diag_mod_begin(target, None, ModReason::Write);
        self.check_mem_access(src, insn.off as i64, insn.size(), false, Some(dst), is_ldsx, strict_once)?;
        self.save_aux_ptr_type(src_type, allow_trust_mismatch)?;
        self.reg_bounds_sanity_check(dst, ctx)?;
        self.diag_mod_end();
        Ok(())
    }

    /// `check_store_reg`.
    pub(crate) fn check_store_reg(&mut self, insn: &Insn) -> VResult<()> {
        self.check_store_reg_ex(insn, false)
    }

    fn check_store_reg_ex(&mut self, insn: &Insn, strict_once: bool) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        self.check_reg_src(src)?;
        self.check_reg_src(dst)?;
        let dst_type = self.regs()[dst].typ;
        self.check_mem_access(dst, insn.off as i64, insn.size(), true, Some(src), false, strict_once)?;
        self.save_aux_ptr_type(dst_type, false)
    }

    /// `BPF_ST`: `*(size *)(rX + off) = imm`.
    pub(crate) fn check_st_mem(&mut self, insn: &Insn) -> VResult<()> {
        let dst = insn.dst as usize;
        self.check_reg_src(dst)?;
        let dst_type = self.regs()[dst].typ;
        self.check_mem_access(dst, insn.off as i64, insn.size(), true, None, false, false)?;
        self.save_aux_ptr_type(dst_type, false)
    }

    /// `save_aux_ptr_type`: an insn that accesses memory must see the same
    /// kind of pointer on every path (the fixups rewrite it for one).
    fn save_aux_ptr_type(&mut self, t: RegType, allow_trust_mismatch: bool) -> VResult<()> {
        let idx = self.insn_idx;
        let Some(a) = self.aux.get_mut(idx) else { return Ok(()) };
        if a.ptr_type == NOT_INIT {
            a.ptr_type = t;
        } else if reg_type_mismatch(t, a.ptr_type) {
            if allow_trust_mismatch && is_ptr_to_mem_or_btf_id(t) && is_ptr_to_mem_or_btf_id(a.ptr_type) {
                a.ptr_type = merge_ptr_types(t, a.ptr_type);
            } else {
                self.verbose("same insn cannot be used with different pointers\n");
                return errno(EINVAL);
            }
        }
        Ok(())
    }

    /// `check_atomic`.
    pub(crate) fn check_atomic(&mut self, insn: &Insn) -> VResult<()> {
        match insn.imm {
            BPF_LOAD_ACQ => self.check_atomic_load(insn),
            BPF_STORE_REL => self.check_atomic_store(insn),
            imm if [BPF_ADD, BPF_AND, BPF_OR, BPF_XOR].iter().any(|&o| imm & !BPF_FETCH == o as i32) || imm == BPF_XCHG || imm == BPF_CMPXCHG => {
                self.check_atomic_rmw(insn)
            }
            imm => {
                self.verbose(&format!("BPF_ATOMIC uses invalid atomic opcode {:02x}\n", imm));
                errno(EINVAL)
            }
        }
    }

    /// `atomic_ptr_type_ok`: atomics are not for ctx, packet, flow keys or
    /// sockets, and a load-acquire not through pointers that may fault.
    fn atomic_ptr_type_ok(&self, regno: usize, insn: &Insn) -> bool {
        let t = self.regs()[regno].typ;
        if t == PTR_TO_CTX || type_is_pkt_pointer(t) || t == PTR_TO_FLOW_KEYS || type_is_sk_pointer(t) {
            return false;
        }
        if t == PTR_TO_ARENA {
            return bpf_jit_supports_arena_insn(self.input.arch, insn);
        }
        !(insn.imm == BPF_LOAD_ACQ && may_fault_on_deref(t))
    }

    /// `check_atomic_load`.
    fn check_atomic_load(&mut self, insn: &Insn) -> VResult<()> {
        let src = insn.src as usize;
        self.check_reg_src(src)?;
        if !self.atomic_ptr_type_ok(src, insn) {
            let t = reg_type_str(self.regs()[src].typ);
            self.verbose(&format!("BPF_ATOMIC loads from R{src} {t} is not allowed\n"));
            return errno(EACCES);
        }
        self.check_load_mem_ex(insn, true, false, false, "atomic_load")
    }

    /// `check_atomic_store`.
    fn check_atomic_store(&mut self, insn: &Insn) -> VResult<()> {
        self.check_store_reg_ex(insn, true)?;
        let dst = insn.dst as usize;
        if !self.atomic_ptr_type_ok(dst, insn) {
            let t = reg_type_str(self.regs()[dst].typ);
            self.verbose(&format!("BPF_ATOMIC stores into R{dst} {t} is not allowed\n"));
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_atomic_rmw`: the read-modify-write forms.
    fn check_atomic_rmw(&mut self, insn: &Insn) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        let imm = insn.imm;
        if insn.size() != BPF_W && insn.size() != BPF_DW {
            self.verbose("invalid atomic operand size\n");
            return errno(EINVAL);
        }
        self.check_reg_src(src)?;
        self.check_reg_src(dst)?;
        if imm == BPF_CMPXCHG {
            self.check_reg_src(0)?;
            if self.is_pointer_value(0) {
                self.verbose("R0 leaks addr into mem\n");
                return errno(EACCES);
            }
        }
        if self.is_pointer_value(src) {
            self.verbose(&format!("R{src} leaks addr into mem\n"));
            return errno(EACCES);
        }
        if !self.atomic_ptr_type_ok(dst, insn) {
            let t = reg_type_str(self.regs()[dst].typ);
            self.verbose(&format!("BPF_ATOMIC stores into R{dst} {t} is not allowed\n"));
            return errno(EACCES);
        }
        let load_reg = if imm == BPF_CMPXCHG {
            Some(0)
        } else if imm & BPF_FETCH != 0 {
            Some(src)
        } else {
            None
        };
        if let Some(l) = load_reg {
            self.check_reg_dst(l, true)?;
        }
        // whether the memory can be read, again into the loaded register
        // as a fill, then whether it can be written
        self.check_mem_access(dst, insn.off as i64, insn.size(), false, None, false, true)?;
        if let Some(l) = load_reg {
            let target = self.diag_reg_target(self.cur.curframe(), l);
            self.diag_mod_begin(target, None, ModReason::Write);
            self.check_mem_access(dst, insn.off as i64, insn.size(), false, Some(l), false, true)?;
            self.diag_mod_end();
        }
        let dst_type = self.regs()[dst].typ;
        self.save_aux_ptr_type(dst_type, false)?;
        self.check_mem_access(dst, insn.off as i64, insn.size(), true, None, false, true)
    }

    /// `check_mem_access` with the register `regno` as the pointer;
    /// `value_regno` is the loaded register (reads) or the stored one
    /// (writes; `None` for `BPF_ST`).
    pub(crate) fn check_mem_access_insn(
        &mut self,
        regno: usize,
        off: i64,
        bpf_size: u8,
        write: bool,
        value_regno: Option<usize>,
        is_ldsx: bool,
    ) -> VResult<()> {
        self.check_mem_access(regno, off, bpf_size, write, value_regno, is_ldsx, false)
    }

    /// `check_mem_access`; `strict_once` asks for aligned access whatever
    /// the program's flags.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_mem_access(
        &mut self,
        regno: usize,
        off: i64,
        bpf_size: u8,
        write: bool,
        value_regno: Option<usize>,
        is_ldsx: bool,
        strict_once: bool,
    ) -> VResult<()> {
        let size = size_to_bytes(bpf_size);
        let reg = self.regs()[regno];
        self.check_ptr_alignment(&reg, off, size, strict_once)?;
        let t = reg.typ;
        if t == PTR_TO_MAP_KEY {
            if write {
                self.verbose(&format!("write to change key R{regno} not allowed\n"));
                return errno(EACCES);
            }
            let ks = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).map_or(0, |m| m.key_size as i64);
            self.check_mem_region_access(regno, &reg, off, size, ks)?;
            if let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if t == PTR_TO_MAP_VALUE {
            if write
                && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into map\n"));
                return errno(EACCES);
            }
            self.check_map_access_type(&reg, off, size, write)?;
            self.check_map_access(regno, &reg, off, size)?;
            let kptr_field = tnum_is_const(reg.s.var_off)
                .then(|| usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).and_then(|m| m.record.as_ref()))
                .flatten()
                .and_then(|rec| btf_record_find(rec, (reg.s.var_off.value as i64).wrapping_add(off), BPF_KPTR | BPF_UPTR))
                .cloned();
            if let Some(field) = kptr_field {
                self.check_map_kptr_access(value_regno, &field)?;
            } else if !write && let Some(v) = value_regno {
                self.check_map_mem_read(&reg, off, size, v, is_ldsx)?;
            }
        } else if base_type(t) == PTR_TO_MEM {
            let rdonly = t & MEM_RDONLY != 0;
            let rdonly_untrusted = rdonly && t & PTR_UNTRUSTED != 0;
            if type_may_be_null(t) {
                self.verbose(&format!("R{regno} invalid mem access '{}'\n", reg_type_str(t)));
                return errno(EACCES);
            }
            if write && rdonly {
                self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(t)));
                return errno(EACCES);
            }
            if write
                && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into mem\n"));
                return errno(EACCES);
            }
            if rdonly_untrusted && !self.allow_ptr_leaks() {
                self.verbose(&format!("{} access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n", reg_type_str(t)));
                return errno(EPERM);
            }
            if !rdonly_untrusted {
                self.check_mem_region_access(regno, &reg, off, size, reg.mem_size())?;
            }
            if let Some(v) = value_regno
                && (!write || rdonly)
            {
                self.mark_reg_unknown(v);
            }
        } else if t == CONST_PTR_TO_MAP {
            self.check_ptr_to_map_access(regno, &reg, off, size, write, value_regno)?;
        } else if t == PTR_TO_CTX {
            if write
                && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into ctx\n"));
                return errno(EACCES);
            }
            let access = self.check_ctx_access(regno, &reg, off, size, write, is_ldsx)?;
            if !write && let Some(v) = value_regno {
                let ctx_off = off.wrapping_add(reg.s.umax() as i64) as i32 as i64;
                let retval_range = if self.btf_ctx_access_is_retval(ctx_off) { self.lsm_retval_range() } else { None };
                if access.reg_type == SCALAR_VALUE
                    && let Some((minval, maxval)) = retval_range
                {
                    // get_func_retval_range: the hook's return value
                    self.mark_reg_unknown(v);
                    let mut r = self.regs()[v];
                    super::scalar::mark_reg_s32_range(&mut r.s, minval, maxval);
                    self.regs_mut()[v] = r;
                    self.reg_bounds_sanity_check(v, "s32_range")?;
                } else if access.reg_type == SCALAR_VALUE {
                    self.mark_reg_unknown(v);
                } else {
                    let mut r = RegState::ptr(access.reg_type, access.btf_id);
                    if type_may_be_null(access.reg_type) {
                        self.id_gen += 1;
                        r.id = self.id_gen;
                    }
                    self.regs_mut()[v] = r;
                }
            }
        } else if t == PTR_TO_STACK {
            self.check_stack_access_within_bounds(regno, &reg, off, size, write)?;
            if write {
                self.check_stack_write(&reg, off, size, value_regno)?;
            } else {
                self.check_stack_read(regno, &reg, off, size, value_regno)?;
            }
        } else if reg.is_pkt_pointer() {
            if write && !ctx::may_access_direct_pkt_data(self.input.prog_type, true) {
                self.verbose("cannot write into packet\n");
                return errno(EACCES);
            }
            if write
                && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into packet\n"));
                return errno(EACCES);
            }
            self.check_packet_access(regno, &reg, off, size)?;
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if t == PTR_TO_FLOW_KEYS {
            if write
                && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into flow keys\n"));
                return errno(EACCES);
            }
            self.check_flow_keys_access(regno, &reg, off, size)?;
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if t == PTR_TO_TP_BUFFER {
            self.check_tp_buffer_access(regno, &reg, off)?;
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if type_is_sk_pointer(t) {
            if write {
                self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(t)));
                return errno(EACCES);
            }
            self.check_sock_access(regno, &reg, off, size)?;
            if let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if base_type(t) == PTR_TO_BUF && !type_may_be_null(t) {
            let rdonly = t & MEM_RDONLY != 0;
            if rdonly && write {
                self.verbose(&format!("R{regno} cannot write into {}\n", reg_type_str(t)));
                return errno(EACCES);
            }
            self.check_buffer_access(regno, &reg, off, size)?;
            if let Some(v) = value_regno
                && (rdonly || !write)
            {
                self.mark_reg_unknown(v);
            }
        } else if t == PTR_TO_ARENA {
            // no bounds: the JIT's exception table covers every access
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if base_type(t) == PTR_TO_BTF_ID && !type_may_be_null(t) {
            self.check_ptr_to_btf_access(regno, &reg, off, size, write, value_regno)?;
        } else {
            self.verbose(&format!("R{regno} invalid mem access '{}'\n", reg_type_str(t)));
            let kind = if t == SCALAR_VALUE {
                DerefKind::Scalar
            } else if type_may_be_null(t) {
                DerefKind::NullablePtr
            } else {
                DerefKind::InvalidPtr
            };
            self.bpf_diag_invalid_deref(regno, &reg, kind, 0);
            return errno(EACCES);
        }
        if !write
            && let Some(v) = value_regno
            && size < 8
            && self.regs()[v].typ == SCALAR_VALUE
        {
            let mut r = self.regs()[v];
            if !is_ldsx {
                coerce_reg_to_size(&mut r.s, size as u8);
            } else {
                let no_sext = r.s.umax() < (1u64 << (size * 8 - 1));
                coerce_reg_to_size_sx(&mut r.s, size as u8);
                if !no_sext {
                    r.clear_scalar_id();
                }
            }
            self.regs_mut()[v] = r;
        }
        Ok(())
    }

    /// `check_map_mem_read`: a load from a map value; a frozen read-only
    /// map's bytes are known.
    fn check_map_mem_read(&mut self, reg: &RegState, off: i64, size: i64, v: usize, is_ldsx: bool) -> VResult<()> {
        let map = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).cloned().unwrap_or_default();
        if map.map_type == BPF_MAP_TYPE_INSN_ARRAY {
            return Err(DoCheckError::Unsupported("insn_array maps are not modelled yet".into()));
        }
        if map.map_type != BPF_MAP_TYPE_PERCPU_ARRAY
            && tnum_is_const(reg.s.var_off)
            && super::maps::bpf_map_is_rdonly(&map)
            && super::maps::has_direct_value_addr(map.map_type)
        {
            let map_off = off + reg.s.var_off.value as i64;
            let Some(bytes) = usize::try_from(map_off).ok().and_then(|o| map.data.get(o..o + size as usize)) else {
                return Err(DoCheckError::Unsupported("the contents of read-only maps are not known to the model".into()));
            };
            let mut val: u64 = 0;
            for (i, b) in bytes.iter().enumerate() {
                val |= (*b as u64) << (8 * i);
            }
            if is_ldsx && size < 8 {
                let shift = 64 - 8 * size as u32;
                val = (((val << shift) as i64) >> shift) as u64;
            }
            let mut r = RegState::known(val);
            r.precise = !self.bpf_capable();
            self.regs_mut()[v] = r;
            return Ok(());
        }
        self.mark_reg_unknown(v);
        Ok(())
    }

    /// `check_ptr_to_map_access`: loads from a `struct bpf_map` (only the
    /// checks before the BTF walk are modelled).
    fn check_ptr_to_map_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, write: bool, value_regno: Option<usize>) -> VResult<()> {
        let t = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)).map_or(0, |m| m.map_type);
        let Some(tname) = super::maps::map_btf_name(t) else {
            self.verbose(&format!("map_ptr access not supported for map type {t}\n"));
            return errno(ENOTSUPP);
        };
        if !self.allow_ptr_leaks() {
            self.verbose(&format!("'struct {tname}' access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n"));
            return errno(EPERM);
        }
        if off < 0 {
            self.verbose(&format!("R{regno} is {tname} invalid negative access: off={off}\n"));
            return errno(EACCES);
        }
        if write {
            self.verbose(&format!("only read from {tname} is supported\n"));
            return errno(EACCES);
        }
        // every map struct starts with its struct bpf_map
        let walk = if t == crate::map::types::BPF_MAP_TYPE_ARENA && off >= crate::kernel_layout::SIZEOF_BPF_MAP as i64 {
            super::maps::bpf_arena_struct_walk(off, size)
        } else {
            super::maps::bpf_map_struct_walk(off, size)
        };
        let read = match walk {
            Ok(r) => r,
            Err(Some(msg)) => {
                self.verbose(&msg);
                return errno(EACCES);
            }
            Err(None) => {
                let _ = reg;
                return Err(DoCheckError::Unsupported(format!("field access of struct {tname} past its struct bpf_map is not modelled yet")));
            }
        };
        if let Some(v) = value_regno {
            match read {
                super::maps::MapFieldRead::Scalar => self.mark_reg_unknown(v),
                super::maps::MapFieldRead::Ptr(t) => {
                    let id = super::kfuncs::btf_type_by_name(t).map_or(0, i64::from);
                    self.regs_mut()[v] = RegState::ptr(PTR_TO_BTF_ID, id);
                }
                super::maps::MapFieldRead::UntrustedMem => {
                    // mem_size 0
                    self.regs_mut()[v] = RegState::ptr(PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED, 0);
                }
            }
        }
        Ok(())
    }

    /// `check_ptr_alignment`; `strict_alignment_once` for the accesses
    /// that must be aligned whatever the program's flags (atomics,
    /// `MEM_ALIGNED` helper arguments).
    pub(crate) fn check_ptr_alignment(&mut self, reg: &RegState, off: i64, size: i64, strict_alignment_once: bool) -> VResult<()> {
        let mut strict = self.input.strict_alignment || strict_alignment_once;
        let desc = match reg.typ {
            PTR_TO_PACKET | PTR_TO_PACKET_META => {
                if !strict || size == 1 {
                    return Ok(());
                }
                let reg_off = tnum_add(reg.s.var_off, Tnum::new((2 + off) as u64, 0));
                if !tnum_is_aligned(reg_off, size as u64) {
                    let s = format!("misaligned packet access off {}+{}+{} size {}\n", 2, tnum_strn(reg.s.var_off), off, size);
                    self.verbose(&s);
                    return errno(EACCES);
                }
                return Ok(());
            }
            PTR_TO_FLOW_KEYS => "flow keys ",
            PTR_TO_MAP_KEY => "key ",
            PTR_TO_MAP_VALUE => "value ",
            PTR_TO_CTX => "context ",
            PTR_TO_STACK => {
                strict = true;
                "stack "
            }
            PTR_TO_SOCKET => "sock ",
            PTR_TO_SOCK_COMMON => "sock_common ",
            PTR_TO_TCP_SOCK => "tcp_sock ",
            PTR_TO_XDP_SOCK => "xdp_sock ",
            PTR_TO_ARENA => return Ok(()),
            _ => "",
        };
        if !strict || size == 1 {
            return Ok(());
        }
        let reg_off = tnum_add(reg.s.var_off, Tnum::new(off as u64, 0));
        if !tnum_is_aligned(reg_off, size as u64) {
            let s = format!("misaligned {desc}access off {}+{} size {}\n", tnum_strn(reg.s.var_off), off, size);
            self.verbose(&s);
            return errno(EACCES);
        }
        Ok(())
    }

    /// `__check_mem_access`: the message for an access outside
    /// `[0, mem_size)`.
    fn mem_access_error(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, mem_size: i64, zero_size_allowed: bool) -> bool {
        let size_ok = size > 0 || (size == 0 && zero_size_allowed);
        if off >= 0 && size_ok && off + size <= mem_size {
            return true;
        }
        let s = match reg.typ {
            PTR_TO_MAP_KEY => format!("invalid access to map key, key_size={mem_size} off={off} size={size}\n"),
            PTR_TO_MAP_VALUE => format!("invalid access to map value, value_size={mem_size} off={off} size={size}\n"),
            PTR_TO_PACKET | PTR_TO_PACKET_META | PTR_TO_PACKET_END => {
                format!("invalid access to packet, off={off} size={size}, R{regno}(id={},off={off},r={mem_size})\n", reg.id)
            }
            PTR_TO_CTX => format!("invalid access to context, ctx_size={mem_size} off={off} size={size}\n"),
            _ => format!("invalid access to memory, mem_size={} off={off} size={size}\n", mem_size as u32),
        };
        self.verbose(&s);
        false
    }

    /// `check_mem_region_access` for a load or store.
    fn check_mem_region_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, mem_size: i64) -> VResult<()> {
        self.check_mem_region_access_ext(regno, reg, off, size, mem_size, false)
    }

    /// `check_mem_region_access`.
    pub(crate) fn check_mem_region_access_ext(
        &mut self,
        regno: usize,
        reg: &RegState,
        off: i64,
        size: i64,
        mem_size: i64,
        zero_size_allowed: bool,
    ) -> VResult<()> {
        let smin = reg.s.smin();
        let proof;
        if smin < 0 && (smin == i64::MIN || off.wrapping_add(smin) != off.wrapping_add(smin) as i32 as i64 || smin.wrapping_add(off) < 0) {
            self.verbose(&format!("R{regno} min value is negative, either use unsigned index or do a if (index >=0) check.\n"));
            proof = format!("the minimal bound for a memory access is a negative value: {}", bpf_diag_fmt_s64_sum(smin, off as i32));
        } else if !self.mem_access_error(regno, reg, smin.wrapping_add(off) as i32 as i64, size, mem_size, zero_size_allowed) {
            self.verbose(&format!("R{regno} min value is outside of the allowed memory range\n"));
            proof = format!(
                "the minimal bound for a memory access is {} and is outside of the object of size {}",
                bpf_diag_fmt_s64_sum(smin, off as i32),
                mem_size as u32
            );
        } else if reg.s.umax() >= BPF_MAX_VAR_OFF as u64 {
            self.verbose(&format!("R{regno} unbounded memory access, make sure to bounds check any such access\n"));
            proof = format!("the maximal bound for a memory access is {} and exceeds maximum allowed offset of {}", reg.s.umax(), BPF_MAX_VAR_OFF);
        } else {
            let umax = reg.s.umax();
            if self.mem_access_error(regno, reg, (umax as i64).wrapping_add(off) as i32 as i64, size, mem_size, zero_size_allowed) {
                return Ok(());
            }
            self.verbose(&format!("R{regno} max value is outside of the allowed memory range\n"));
            let max_start = (umax as i64).wrapping_add(off);
            proof = format!(
                "the maximal bound for a memory access is {}: start {max_start} + access_size {size}, beyond object_size {}",
                max_start.wrapping_add(size),
                mem_size as u32
            );
        }
        let type_name = reg_type_str(reg.typ);
        self.bpf_diag_mem_bounds(regno, &type_name, &proof, off as i32, size as i32, mem_size as u32, reg);
        errno(EACCES)
    }

    /// `check_map_access` of a load or store.
    pub(crate) fn check_map_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        self.check_map_access_ext(regno, reg, off, size, false, true)
    }

    /// `check_map_access`: inside the value, and not over one of its
    /// special fields (`direct`: a load or store, else a helper).
    pub(crate) fn check_map_access_ext(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, zero_size_allowed: bool, direct: bool) -> VResult<()> {
        let Some(m) = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)) else {
            return errno(EFAULT);
        };
        let mem_size = if m.map_type == BPF_MAP_TYPE_INSN_ARRAY { m.max_entries as i64 * 8 } else { m.value_size as i64 };
        let rec = m.record.clone();
        self.check_mem_region_access_ext(regno, reg, off, size, mem_size, zero_size_allowed)?;
        let Some(rec) = rec else { return Ok(()) };
        for f in &rec.fields {
            let (p, fsize) = (f.offset as i64, f.size as i64);
            if reg.s.smin().wrapping_add(off) < p + fsize && p < (reg.s.umax() as i64).wrapping_add(off).wrapping_add(size) {
                let name = btf_field_type_name(f.field_type);
                if matches!(f.field_type, BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_UPTR) {
                    if !direct {
                        self.verbose(&format!("{name} cannot be accessed indirectly by helper\n"));
                        return errno(EACCES);
                    }
                    if !tnum_is_const(reg.s.var_off) {
                        self.verbose(&format!("{name} access cannot have variable offset\n"));
                        return errno(EACCES);
                    }
                    let at = (reg.s.var_off.value as i64).wrapping_add(off);
                    if p != at {
                        self.verbose(&format!("{name} access misaligned expected={p} off={}\n", at as u64));
                        return errno(EACCES);
                    }
                    if size != 8 {
                        self.verbose(&format!("{name} access size must be BPF_DW\n"));
                        return errno(EACCES);
                    }
                    // what a load or store of one does is check_map_kptr_access's
                    continue;
                }
                self.verbose(&format!("{name} cannot be accessed directly by load/store\n"));
                return errno(EACCES);
            }
        }
        Ok(())
    }

    /// `check_packet_access` of a load or store.
    fn check_packet_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        self.check_packet_access_ext(regno, reg, off, size, false)
    }

    /// `check_packet_access`.
    pub(crate) fn check_packet_access_ext(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, zero_size_allowed: bool) -> VResult<()> {
        if reg.range() < 0 {
            self.verbose(&format!("R{regno} offset is outside of the packet\n"));
            return errno(EINVAL);
        }
        self.check_mem_region_access_ext(regno, reg, off, size, reg.range(), zero_size_allowed)
    }

    /// `check_flow_keys_access`: a constant offset inside `struct
    /// bpf_flow_keys`.
    fn check_flow_keys_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} invalid variable offset to flow keys: off={off}, var_off={}\n", tnum_strn(reg.s.var_off)));
            return errno(EACCES);
        }
        let off = off.wrapping_add(reg.s.var_off.value as i64) as i32 as i64;
        if size < 0 || off < 0 || off + size > i64::from(crate::uapi::bpf_flow_keys::SIZE) {
            self.verbose(&format!("invalid access to flow keys off={off} size={size}\n"));
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_tp_buffer_access` (`__check_buffer_access`): a constant,
    /// non-negative offset; the attach point checks the size later.
    fn check_tp_buffer_access(&mut self, regno: usize, reg: &RegState, off: i64) -> VResult<()> {
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} invalid variable buffer offset: off={off}, var_off={}\n", tnum_strn(reg.s.var_off)));
            return errno(EACCES);
        }
        let var = reg.s.var_off.value as i64;
        if var.wrapping_add(off) < 0 {
            self.verbose(&format!("R{regno} invalid negative tracepoint buffer offset: off={off}, var_off={var}\n"));
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_buffer_access` (`__check_buffer_access`): a constant,
    /// non-negative offset; the access end raises `max_rdonly_access` or
    /// `max_rdwr_access`.
    pub(crate) fn check_buffer_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        let rdonly = reg.typ & MEM_RDONLY != 0;
        let buf_info = if rdonly { "rdonly" } else { "rdwr" };
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("R{regno} invalid variable buffer offset: off={off}, var_off={}\n", tnum_strn(reg.s.var_off)));
            return errno(EACCES);
        }
        let var = reg.s.var_off.value as i64;
        let start = var.wrapping_add(off);
        if start < 0 {
            self.verbose(&format!("R{regno} invalid negative {buf_info} buffer offset: off={off}, var_off={var}\n"));
            return errno(EACCES);
        }
        let end = (start + size) as u32;
        let max = if rdonly { &mut self.max_rdonly_access } else { &mut self.max_rdwr_access };
        *max = (*max).max(end);
        Ok(())
    }

    /// `check_ctx_access` and `__check_ptr_off_reg`.
    fn check_ctx_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, write: bool, is_ldsx: bool) -> VResult<ctx::CtxAccess> {
        let pt = self.input.prog_type;
        if pt == ctx::pt::SYSCALL {
            // is_var_ctx_off_allowed: a syscall program's ctx is plain
            // memory of up to U16_MAX bytes
            self.check_mem_region_access(regno, reg, off, size, u16::MAX as i64)?;
        } else {
            self.check_ptr_off_reg_ctx(regno, reg, pt)?;
        }
        let off = off.wrapping_add(reg.s.umax() as i64) as i32 as i64;
        let r = self.__check_ctx_access(off, size, write, is_ldsx);
        if let Err(DoCheckError::Errno(_)) = r {
            self.verbose_linfo(self.insn_idx, "; ");
        }
        r
    }

    /// `__check_ctx_access`: the program type's `is_valid_access`.
    fn __check_ctx_access(&mut self, off: i64, size: i64, write: bool, is_ldsx: bool) -> VResult<ctx::CtxAccess> {
        let pt = self.input.prog_type;
        if pt == ctx::pt::TRACING || pt == ctx::pt::LSM {
            return self.tracing_btf_ctx_access(off, size, write);
        }
        match ctx::is_valid_access(
            pt,
            self.input.expected_attach_type,
            off,
            size,
            write,
            is_ldsx,
            self.bpf_capable(),
            self.input.pt_regs_size,
            self.input.user_pt_regs_size,
        ) {
            Ok(Some(a)) => {
                // __check_ctx_access: what the fixups and the test run need
                let idx = self.insn_idx;
                if let Some(x) = self.aux.get_mut(idx) {
                    x.ctx_field_size = a.ctx_field_size;
                }
                self.max_ctx_offset = self.max_ctx_offset.max((off + size) as u32);
                Ok(a)
            }
            Ok(None) => {
                self.verbose(&format!("invalid bpf_context access off={off} size={size}\n"));
                errno(EACCES)
            }
            Err(what) => Err(DoCheckError::Unsupported(format!("{what} is not modelled yet"))),
        }
    }

    /// `__check_ptr_off_reg` for a ctx pointer: unmodified, or at a fixed
    /// offset for types whose ctx loads are not rewritten.
    fn check_ptr_off_reg_ctx(&mut self, regno: usize, reg: &RegState, pt: u32) -> VResult<()> {
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
        if ctx::has_convert_ctx_access(pt) && reg.s.var_off.value != 0 {
            let s = format!("dereference of modified {} ptr R{regno} off={} disallowed\n", reg_type_str(reg.typ), reg.s.var_off.value as i64);
            self.verbose(&s);
            self.bpf_diag_invalid_deref(regno, reg, DerefKind::ModifiedPtr, reg.s.var_off.value as i64);
            return errno(EACCES);
        }
        Ok(())
    }
}

/// `reg_type_mismatch_ok`: pointer kinds an insn may mix on different paths.
fn reg_type_mismatch_ok(t: RegType) -> bool {
    match base_type(t) {
        PTR_TO_CTX | PTR_TO_SOCKET | PTR_TO_SOCK_COMMON | PTR_TO_TCP_SOCK | PTR_TO_XDP_SOCK | PTR_TO_BTF_ID | PTR_TO_ARENA => false,
        PTR_TO_MEM => !may_fault_on_deref(t),
        _ => true,
    }
}

/// `reg_type_mismatch`.
fn reg_type_mismatch(src: RegType, prev: RegType) -> bool {
    src != prev && (!reg_type_mismatch_ok(src) || !reg_type_mismatch_ok(prev))
}

/// `bpf_may_fault_on_deref`: pointers the fixups turn into probing loads.
fn may_fault_on_deref(t: RegType) -> bool {
    t == PTR_TO_BTF_ID || t & PTR_UNTRUSTED != 0
}

/// `bpf_is_ptr_to_mem_or_btf_id`.
fn is_ptr_to_mem_or_btf_id(t: RegType) -> bool {
    matches!(base_type(t), PTR_TO_MEM | PTR_TO_BTF_ID)
}

/// `merge_ptr_types`: one path's trusted and another's untrusted pointer
/// make a type that keeps the probing rewrite.
fn merge_ptr_types(a: RegType, b: RegType) -> RegType {
    let to_mem = base_type(a) == PTR_TO_MEM || base_type(b) == PTR_TO_MEM;
    let merged = if to_mem { PTR_TO_MEM } else { PTR_TO_BTF_ID };
    if may_fault_on_deref(a) || may_fault_on_deref(b) {
        merged | if to_mem { MEM_RDONLY | PTR_UNTRUSTED } else { PTR_UNTRUSTED }
    } else {
        merged | ((a | b) & MEM_RDONLY)
    }
}

/// `bpf_jit_supports_insn(insn, true)`: the arena atomics the arch's JIT
/// handles. x86-64 has no fetching and/or/xor on arena memory; arm64 needs
/// LSE atomics for the read-modify-write ones, which the profile's CPU has.
pub(crate) fn bpf_jit_supports_arena_insn(arch: crate::target::Arch, insn: &Insn) -> bool {
    let atomic_wdw = insn.code == BPF_STX | BPF_ATOMIC | BPF_W || insn.code == BPF_STX | BPF_ATOMIC | BPF_DW;
    match arch {
        crate::target::Arch::X86_64 => !(atomic_wdw && [BPF_AND, BPF_OR, BPF_XOR].iter().any(|&o| insn.imm == o as i32 | BPF_FETCH)),
        crate::target::Arch::Arm64 => true,
        _ => true,
    }
}
