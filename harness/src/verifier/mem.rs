//! Loads and stores: `check_load_mem`, `check_store_reg`, `check_atomic`,
//! `check_mem_access` and its per-pointer-type checks (ctx, map values,
//! packet, alignment). Stack accesses are in [`super::stack`].

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::ctx;
use super::do_check::*;
use super::reg::*;
use super::scalar::print::tnum_strn;
use super::scalar::*;
use super::tnum::*;

impl Env<'_, '_> {
    /// `check_load_mem`.
    pub(crate) fn check_load_mem(&mut self, insn: &Insn, is_ldsx: bool) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        self.check_reg_src(src)?;
        self.check_reg_dst(dst, false)?;
        self.check_mem_access_insn(src, insn.off as i64, insn.size(), false, Some(dst), is_ldsx)?;
        self.reg_bounds_sanity_check(dst, "ldx")
    }

    /// `check_store_reg`.
    pub(crate) fn check_store_reg(&mut self, insn: &Insn) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        self.check_reg_src(src)?;
        self.check_reg_src(dst)?;
        self.check_mem_access_insn(dst, insn.off as i64, insn.size(), true, Some(src), false)
    }

    /// `check_atomic`: the read-modify-write forms on stack, map values,
    /// ctx-free memory.
    pub(crate) fn check_atomic(&mut self, insn: &Insn) -> VResult<()> {
        let (src, dst) = (insn.src as usize, insn.dst as usize);
        let imm = insn.imm;
        if imm == BPF_LOAD_ACQ || imm == BPF_STORE_REL {
            return Err(DoCheckError::Unsupported("load_acquire/store_release are not modelled yet".into()));
        }
        if insn.size() != BPF_W && insn.size() != BPF_DW {
            self.verbose("invalid atomic operand size\n");
            return errno(EINVAL);
        }
        self.check_reg_src(src)?;
        self.check_reg_src(dst)?;
        if imm == BPF_CMPXCHG {
            self.check_reg_src(0)?;
        }
        if self.is_pointer_value(src) {
            self.verbose(&format!("R{src} leaks addr into mem\n"));
            return errno(EACCES);
        }
        let t = self.regs()[dst].typ;
        if matches!(base_type(t), PTR_TO_CTX | PTR_TO_PACKET | PTR_TO_PACKET_META | PTR_TO_FLOW_KEYS) || type_is_sk_pointer(t) {
            self.verbose(&format!("BPF_ATOMIC stores into R{dst} {} is not allowed\n", reg_type_str(t)));
            return errno(EACCES);
        }
        let fetch = imm & BPF_FETCH != 0;
        let load_reg = if imm == BPF_CMPXCHG {
            Some(0)
        } else if fetch {
            Some(src)
        } else {
            None
        };
        // the read side, then the write side, both at the insn's size
        self.check_mem_access_insn(dst, insn.off as i64, insn.size(), false, load_reg, false)?;
        self.check_mem_access_insn(dst, insn.off as i64, insn.size(), true, None, false)
    }

    /// `check_mem_access` with the register `regno` as the pointer;
    /// `value_regno` is the loaded register (reads) or the stored one
    /// (writes; `None` for `BPF_ST`).
    pub(crate) fn check_mem_access_insn(&mut self, regno: usize, off: i64, bpf_size: u8, write: bool, value_regno: Option<usize>, is_ldsx: bool) -> VResult<()> {
        let size = size_to_bytes(bpf_size);
        let reg = self.regs()[regno];
        self.check_ptr_alignment(&reg, off, size)?;
        let t = reg.typ;
        if t == PTR_TO_MAP_VALUE {
            if write && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into map\n"));
                return errno(EACCES);
            }
            self.check_map_access(regno, &reg, off, size)?;
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if t == PTR_TO_CTX {
            if write && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into ctx\n"));
                return errno(EACCES);
            }
            let access = self.check_ctx_access(regno, &reg, off, size, write, is_ldsx)?;
            if !write && let Some(v) = value_regno {
                if access.reg_type == SCALAR_VALUE {
                    self.mark_reg_unknown(v);
                } else {
                    let mut r = RegState::ptr(access.reg_type, 0);
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
            if write && let Some(v) = value_regno
                && self.is_pointer_value(v)
            {
                self.verbose(&format!("R{v} leaks addr into packet\n"));
                return errno(EACCES);
            }
            self.check_packet_access(regno, &reg, off, size)?;
            if !write && let Some(v) = value_regno {
                self.mark_reg_unknown(v);
            }
        } else if t == CONST_PTR_TO_MAP || base_type(t) == PTR_TO_MEM || t == PTR_TO_MAP_KEY || base_type(t) == PTR_TO_BTF_ID {
            return Err(DoCheckError::Unsupported(format!("access through {} is not modelled yet", reg_type_str(t))));
        } else {
            self.verbose(&format!("R{regno} invalid mem access '{}'\n", reg_type_str(t)));
            return errno(EACCES);
        }
        if !write && let Some(v) = value_regno
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

    /// `check_ptr_alignment`.
    fn check_ptr_alignment(&mut self, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        let mut strict = self.input.strict_alignment;
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
    fn mem_access_error(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, mem_size: i64) -> bool {
        let size_ok = size > 0;
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
            _ => format!("invalid access to memory, mem_size={mem_size} off={off} size={size}\n"),
        };
        self.verbose(&s);
        false
    }

    /// `check_mem_region_access`.
    fn check_mem_region_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, mem_size: i64) -> VResult<()> {
        let smin = reg.s.smin();
        if smin < 0 && (smin == i64::MIN || (off + smin) != (off + smin) as i32 as i64 || smin + off < 0) {
            self.verbose(&format!("R{regno} min value is negative, either use unsigned index or do a if (index >=0) check.\n"));
            return errno(EACCES);
        }
        if !self.mem_access_error(regno, reg, smin.wrapping_add(off) as i32 as i64, size, mem_size) {
            self.verbose(&format!("R{regno} min value is outside of the allowed memory range\n"));
            return errno(EACCES);
        }
        let umax = reg.s.umax();
        if umax >= BPF_MAX_VAR_OFF as u64 {
            self.verbose(&format!("R{regno} unbounded memory access, make sure to bounds check any such access\n"));
            return errno(EACCES);
        }
        if !self.mem_access_error(regno, reg, (umax as i64).wrapping_add(off) as i32 as i64, size, mem_size) {
            self.verbose(&format!("R{regno} max value is outside of the allowed memory range\n"));
            return errno(EACCES);
        }
        Ok(())
    }

    /// Whether `[off, off+size)` of a map value pointer is inside the value
    /// (`check_map_access` without messages).
    pub(crate) fn map_value_in_range(&self, reg: &RegState, off: i64, size: i64) -> bool {
        let Some(m) = usize::try_from(reg.aux).ok().and_then(|i| self.input.maps.get(i)) else { return false };
        let vs = m.value_size as i64;
        let smin = reg.s.smin();
        let umax = reg.s.umax();
        smin >= 0 && smin.checked_add(off).is_some_and(|lo| lo >= 0 && lo + size <= vs) && umax < BPF_MAX_VAR_OFF as u64 && (umax as i64) + off + size <= vs
    }

    /// `check_map_access` (maps without special fields).
    fn check_map_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        let Some(m) = usize::try_from(reg.aux).ok().and_then(|i| self.input.maps.get(i)) else {
            return errno(EFAULT);
        };
        let vs = m.value_size as i64;
        self.check_mem_region_access(regno, reg, off, size, vs)
    }

    /// `check_packet_access`.
    fn check_packet_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        if reg.range() < 0 {
            self.verbose(&format!("R{regno} offset is outside of the packet\n"));
            return errno(EINVAL);
        }
        self.check_mem_region_access(regno, reg, off, size, reg.range())
    }

    /// `check_ctx_access` and `__check_ptr_off_reg`.
    fn check_ctx_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64, write: bool, is_ldsx: bool) -> VResult<ctx::CtxAccess> {
        let pt = self.input.prog_type;
        if pt == ctx::pt::SYSCALL {
            return Err(DoCheckError::Unsupported("syscall program ctx is not modelled yet".into()));
        }
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
            return errno(EACCES);
        }
        let off = off.wrapping_add(reg.s.umax() as i64) as i32 as i64;
        match ctx::is_valid_access(pt, off, size, write, is_ldsx, self.bpf_capable(), self.input.pt_regs_size) {
            Ok(Some(a)) => Ok(a),
            Ok(None) => {
                self.verbose(&format!("invalid bpf_context access off={off} size={size}\n"));
                errno(EACCES)
            }
            Err(what) => Err(DoCheckError::Unsupported(format!("{what} is not modelled yet"))),
        }
    }
}
