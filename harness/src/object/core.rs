//! CO-RE: the relocation of instructions against the target kernel's BTF,
//! as libbpf does it at load (`bpf_object__relocate_core`, with the rules
//! of `bpf_core_calc_relo_insn` and `bpf_core_patch_insn`).
//!
//! The linker records the `.BTF.ext` CO-RE records of the code it places
//! ([`CoreRelo`], handed on as [`LinkReloc::Core`]); each backend applies
//! them with its kernel's BTF ([`relocate_request`]) before anything else
//! of the load, as libbpf does before it creates maps and loads programs:
//! the model and the vm backend with the recorded BTF of the 7.3 image of
//! the load's arch, the kernel backend with `/sys/kernel/btf/vmlinux`.
//! Module BTFs (libbpf's fallback when vmlinux has no candidate) are not
//! searched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use crate::backend::{BtfMode, LoadRequest};
use crate::btf::*;
use crate::link::LinkReloc;
use crate::target::Arch;

/// `enum bpf_core_relo_kind`.
pub const FIELD_BYTE_OFFSET: u32 = 0;
pub const FIELD_BYTE_SIZE: u32 = 1;
pub const FIELD_EXISTS: u32 = 2;
pub const FIELD_SIGNED: u32 = 3;
pub const FIELD_LSHIFT_U64: u32 = 4;
pub const FIELD_RSHIFT_U64: u32 = 5;
pub const TYPE_ID_LOCAL: u32 = 6;
pub const TYPE_ID_TARGET: u32 = 7;
pub const TYPE_EXISTS: u32 = 8;
pub const TYPE_SIZE: u32 = 9;
pub const ENUMVAL_EXISTS: u32 = 10;
pub const ENUMVAL_VALUE: u32 = 11;
pub const TYPE_MATCHES: u32 = 12;

/// The helper id a failed relocation's instruction calls (libbpf's
/// "bad relo", 0xbad2310): the verifier rejects it if it is reachable.
pub const POISON_CALL_IMM: i32 = 195_896_080;

/// `BPF_CORE_SPEC_MAX_LEN`.
const SPEC_MAX_LEN: usize = 64;
const BTF_INT_SIGNED: u32 = 1;

const E2BIG: i32 = 7;
const EINVAL: i32 = 22;
const ERANGE: i32 = 34;
const EOPNOTSUPP: i32 = 95;
/// libbpf's internal "poison the instruction" answer.
const EUCLEAN: i32 = 117;

/// One `struct bpf_core_relo` of a linked program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreRelo {
    /// The (sub)program the instruction is in, as libbpf names it.
    pub prog: String,
    /// The record's `.BTF.ext` section (in file order) and its index there
    /// (libbpf's `relo #N`): the order libbpf applies them in.
    pub sec: usize,
    pub idx: usize,
    /// The instruction's index in its ELF section (`insn_off / 8`) and in
    /// its (sub)program.
    pub sec_insn: usize,
    pub prog_insn: usize,
    pub type_id: u32,
    /// The access string (`0:1:2`).
    pub access: String,
    pub kind: u32,
}

/// A failed relocation: libbpf's error and its warnings, the load stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreFailure {
    pub errno: i32,
    /// libbpf's `pr_warn` lines, without the `libbpf: ` prefix.
    pub warnings: Vec<String>,
}

/// A BTF with the blob it was parsed from: what [`Btf`] does not expose
/// (kind flags, enumerators, function parameters) is read off the blob.
pub struct RawBtf {
    btf: Btf,
    data: Vec<u8>,
    types_at: usize,
}

impl std::fmt::Debug for RawBtf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawBtf({} types)", self.btf.type_cnt())
    }
}

fn u32_at(d: &[u8], off: usize) -> u32 {
    d.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A member of a STRUCT or UNION, its offset split as the kind flag says.
#[derive(Clone, Copy)]
struct Member {
    name_off: u32,
    type_id: u32,
    bit_off: u32,
    bitfield_sz: u32,
}

impl RawBtf {
    pub fn new(data: Vec<u8>) -> Result<RawBtf, String> {
        let btf = Btf::parse(&data).map_err(|e| e.to_string())?;
        let types_at = u32_at(&data, 4) as usize + u32_at(&data, 8) as usize;
        Ok(RawBtf { btf, data, types_at })
    }

    pub fn btf(&self) -> &Btf {
        &self.btf
    }

    fn t(&self, id: u32) -> Option<&TypeEntry> {
        self.btf.type_by_id(id)
    }

    fn kind(&self, id: u32) -> u32 {
        self.t(id).map_or(0, |t| t.kind)
    }

    fn vlen(&self, id: u32) -> u32 {
        self.t(id).map_or(0, |t| t.vlen)
    }

    /// The `i`th u32 of type `id`'s record (1: info, 3 on: kind data).
    fn word(&self, id: u32, i: usize) -> u32 {
        match self.btf.type_offset(id) {
            Some(o) => u32_at(&self.data, self.types_at + o + 4 * i),
            None => 0,
        }
    }

    fn kflag(&self, id: u32) -> bool {
        self.word(id, 1) >> 31 == 1
    }

    fn extra(&self, id: u32, i: usize) -> u32 {
        self.word(id, 3 + i)
    }

    fn name(&self, off: u32) -> &str {
        self.btf.name(off).unwrap_or("")
    }

    fn type_name(&self, id: u32) -> &str {
        self.btf.type_name(id)
    }

    /// `skip_mods_and_typedefs`: the id reached, if it is a type.
    fn skip(&self, id: u32) -> Option<u32> {
        let id = self.btf.skip_mods_and_typedefs(id);
        self.t(id).map(|_| id)
    }

    fn member(&self, id: u32, i: u32) -> Member {
        let i = i as usize;
        let off = self.extra(id, 3 * i + 2);
        let (bit_off, bitfield_sz) = if self.kflag(id) { (off & 0xff_ffff, off >> 24) } else { (off, 0) };
        Member { name_off: self.extra(id, 3 * i), type_id: self.extra(id, 3 * i + 1), bit_off, bitfield_sz }
    }

    /// An ENUM's or ENUM64's enumerator: name and value (an ENUM's
    /// sign-extended, as libbpf's `__s32` to `__u64`).
    fn enumerator(&self, id: u32, i: u32) -> (u32, u64) {
        let i = i as usize;
        if self.kind(id) == BTF_KIND_ENUM64 {
            (self.extra(id, 3 * i), u64::from(self.extra(id, 3 * i + 1)) | (u64::from(self.extra(id, 3 * i + 2)) << 32))
        } else {
            (self.extra(id, 2 * i), self.extra(id, 2 * i + 1) as i32 as i64 as u64)
        }
    }

    /// A FUNC_PROTO's parameter types.
    fn param(&self, id: u32, i: u32) -> u32 {
        self.extra(id, 2 * i as usize + 1)
    }

    fn int_encoding(&self, id: u32) -> u32 {
        (self.btf.int_data(id) >> 24) & 0xf
    }

    fn int_offset(&self, id: u32) -> u32 {
        (self.btf.int_data(id) >> 16) & 0xff
    }

    fn size(&self, id: u32) -> Result<u64, i32> {
        self.btf.resolve_size(id).map_err(|_| EINVAL)
    }

    fn size_or_type(&self, id: u32) -> u32 {
        self.t(id).map_or(0, |t| t.size_or_type)
    }

    fn array(&self, id: u32) -> Array {
        self.btf.array(id).unwrap_or(Array { elem_type: 0, index_type: 0, nelems: 0 })
    }
}

/// libbpf's `btf_kind_str`.
fn kind_str(kind: u32) -> &'static str {
    match kind {
        0 => "void",
        BTF_KIND_INT => "int",
        BTF_KIND_PTR => "ptr",
        BTF_KIND_ARRAY => "array",
        BTF_KIND_STRUCT => "struct",
        BTF_KIND_UNION => "union",
        BTF_KIND_ENUM => "enum",
        BTF_KIND_FWD => "fwd",
        BTF_KIND_TYPEDEF => "typedef",
        BTF_KIND_VOLATILE => "volatile",
        BTF_KIND_CONST => "const",
        BTF_KIND_RESTRICT => "restrict",
        BTF_KIND_FUNC => "func",
        BTF_KIND_FUNC_PROTO => "func_proto",
        BTF_KIND_VAR => "var",
        BTF_KIND_DATASEC => "datasec",
        BTF_KIND_FLOAT => "float",
        BTF_KIND_DECL_TAG => "decl_tag",
        BTF_KIND_TYPE_TAG => "type_tag",
        BTF_KIND_ENUM64 => "enum64",
        _ => "unknown",
    }
}

/// libbpf's names of the relocation kinds.
fn relo_kind_str(kind: u32) -> &'static str {
    match kind {
        FIELD_BYTE_OFFSET => "byte_off",
        FIELD_BYTE_SIZE => "byte_sz",
        FIELD_EXISTS => "field_exists",
        FIELD_SIGNED => "signed",
        FIELD_LSHIFT_U64 => "lshift_u64",
        FIELD_RSHIFT_U64 => "rshift_u64",
        TYPE_ID_LOCAL => "local_type_id",
        TYPE_ID_TARGET => "target_type_id",
        TYPE_EXISTS => "type_exists",
        TYPE_MATCHES => "type_matches",
        TYPE_SIZE => "type_size",
        ENUMVAL_EXISTS => "enumval_exists",
        ENUMVAL_VALUE => "enumval_value",
        _ => "unknown",
    }
}

/// libbpf's `errstr` for the codes relocation returns.
fn errstr(errno: i32) -> String {
    match errno {
        E2BIG => "-E2BIG".into(),
        EINVAL => "-EINVAL".into(),
        ERANGE => "-ERANGE".into(),
        EOPNOTSUPP => "-EOPNOTSUPP".into(),
        n => format!("-{n}"),
    }
}

fn is_field_based(kind: u32) -> bool {
    kind <= FIELD_RSHIFT_U64
}

fn is_type_based(kind: u32) -> bool {
    matches!(kind, TYPE_ID_LOCAL | TYPE_ID_TARGET | TYPE_EXISTS | TYPE_MATCHES | TYPE_SIZE)
}

fn is_enumval_based(kind: u32) -> bool {
    matches!(kind, ENUMVAL_EXISTS | ENUMVAL_VALUE)
}

fn is_composite(kind: u32) -> bool {
    kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION
}

fn is_any_enum(kind: u32) -> bool {
    kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64
}

/// `btf_kind_core_compat`.
fn kinds_compat(a: u32, b: u32) -> bool {
    a == b || (is_any_enum(a) && is_any_enum(b))
}

/// The length of `name` without its flavor: what comes before the last
/// `___` that has no underscore on either side (`bpf_core_essential_name_len`).
pub fn essential_name_len(name: &str) -> usize {
    let b = name.as_bytes();
    (0..b.len().saturating_sub(4)).rev().find(|&i| b[i] != b'_' && &b[i + 1..i + 4] == b"___" && b[i + 4] != b'_').map_or(b.len(), |i| i + 1)
}

fn essential_names_equal(a: &str, b: &str) -> bool {
    let (la, lb) = (essential_name_len(a), essential_name_len(b));
    la == lb && a.as_bytes()[..la] == b.as_bytes()[..lb]
}

/// One step of an access: a named field (`name`), an array element or the
/// root's index; an enumerator for enum relocations.
#[derive(Clone, Debug, Default)]
struct Acc {
    type_id: u32,
    idx: u32,
    name: Option<String>,
}

/// `struct bpf_core_spec`: the high-level accessors, the low-level access
/// indices and the bit offset they add up to.
#[derive(Clone, Debug, Default)]
struct Spec {
    root: u32,
    accs: Vec<Acc>,
    raw: Vec<u32>,
    bit_offset: u64,
}

/// Collects libbpf's warnings of one relocation.
struct Ctx<'a> {
    local: &'a RawBtf,
    target: &'a RawBtf,
    relo: &'a CoreRelo,
    warnings: Vec<String>,
}

/// Whether a flexible array: the last member of its struct, of no length.
fn is_flex_arr(btf: &RawBtf, parent: Option<&Acc>, nelems: u32) -> bool {
    match parent {
        Some(acc) if acc.name.is_some() && nelems == 0 => acc.idx + 1 == btf.vlen(acc.type_id),
        _ => false,
    }
}

impl Ctx<'_> {
    fn warn(&mut self, msg: String) {
        self.warnings.push(msg);
    }

    fn parse_access(&self) -> Result<Vec<u32>, i32> {
        let s = &self.relo.access;
        if s.is_empty() || s.starts_with(':') {
            return Err(EINVAL);
        }
        let mut raw = Vec::new();
        for part in s.split(':') {
            let v: i64 = part.parse().map_err(|_| EINVAL)?;
            if !(0..=i64::from(i32::MAX)).contains(&v) {
                return Err(EINVAL);
            }
            if raw.len() == SPEC_MAX_LEN {
                return Err(E2BIG);
            }
            raw.push(v as u32);
        }
        Ok(raw)
    }

    /// `bpf_core_parse_spec` of the local side.
    fn parse_spec(&mut self) -> Result<Spec, i32> {
        let (l, relo) = (self.local, self.relo);
        let mut spec = Spec { root: relo.type_id, ..Spec::default() };
        if is_type_based(relo.kind) {
            return if relo.access == "0" { Ok(spec) } else { Err(EINVAL) };
        }
        if relo.access.is_empty() || relo.access.starts_with(':') {
            return Err(EINVAL);
        }
        spec.raw = self.parse_access()?;
        let mut id = l.skip(relo.type_id).ok_or(EINVAL)?;
        let first = spec.raw[0];
        if is_enumval_based(relo.kind) {
            if !is_any_enum(l.kind(id)) || spec.raw.len() > 1 || first >= l.vlen(id) {
                return Err(EINVAL);
            }
            let name = l.name(l.enumerator(id, first).0).to_string();
            spec.accs.push(Acc { type_id: id, idx: first, name: Some(name) });
            return Ok(spec);
        }
        spec.accs.push(Acc { type_id: id, idx: first, name: None });
        if !is_field_based(relo.kind) {
            return Err(EINVAL);
        }
        spec.bit_offset = u64::from(first) * l.size(id)? * 8;
        for i in 1..spec.raw.len() {
            id = l.skip(id).ok_or(EINVAL)?;
            let idx = spec.raw[i];
            let kind = l.kind(id);
            if is_composite(kind) {
                if idx >= l.vlen(id) {
                    return Err(EINVAL);
                }
                let m = l.member(id, idx);
                spec.bit_offset += u64::from(m.bit_off);
                if m.name_off != 0 {
                    let name = l.name(m.name_off);
                    if name.is_empty() {
                        return Err(EINVAL);
                    }
                    spec.accs.push(Acc { type_id: id, idx, name: Some(name.to_string()) });
                }
                id = m.type_id;
            } else if kind == BTF_KIND_ARRAY {
                let a = l.array(id);
                id = l.skip(a.elem_type).ok_or(EINVAL)?;
                if !is_flex_arr(l, spec.accs.last(), a.nelems) && idx >= a.nelems {
                    return Err(EINVAL);
                }
                spec.accs.push(Acc { type_id: id, idx, name: None });
                spec.bit_offset += u64::from(idx) * l.size(id)? * 8;
            } else {
                let msg = format!(
                    "prog '{}': relo for [{}] {} (at idx {i}) captures type [{id}] of unexpected kind {}",
                    relo.prog,
                    relo.type_id,
                    relo.access,
                    kind_str(kind)
                );
                self.warn(msg);
                return Err(EINVAL);
            }
        }
        Ok(spec)
    }
}

/// `__bpf_core_types_are_compat`.
fn types_are_compat(w: &mut Vec<String>, l: &RawBtf, mut lid: u32, t: &RawBtf, mut tid: u32, level: i32) -> Result<bool, i32> {
    if !kinds_compat(l.kind(lid), t.kind(tid)) {
        return Ok(false);
    }
    for _ in 0..32 {
        lid = l.skip(lid).ok_or(EINVAL)?;
        tid = t.skip(tid).ok_or(EINVAL)?;
        let (lk, tk) = (l.kind(lid), t.kind(tid));
        if !kinds_compat(lk, tk) {
            return Ok(false);
        }
        match lk {
            0 | BTF_KIND_STRUCT | BTF_KIND_UNION | BTF_KIND_ENUM | BTF_KIND_FWD | BTF_KIND_ENUM64 => return Ok(true),
            BTF_KIND_INT => return Ok(l.int_offset(lid) == 0 && t.int_offset(tid) == 0),
            BTF_KIND_PTR => {
                lid = l.size_or_type(lid);
                tid = t.size_or_type(tid);
            }
            BTF_KIND_ARRAY => {
                lid = l.array(lid).elem_type;
                tid = t.array(tid).elem_type;
            }
            BTF_KIND_FUNC_PROTO => {
                if l.vlen(lid) != t.vlen(tid) {
                    return Ok(false);
                }
                for i in 0..l.vlen(lid) {
                    if level <= 0 {
                        return Err(EINVAL);
                    }
                    let lp = l.btf.skip_mods_and_typedefs(l.param(lid, i));
                    let tp = t.btf.skip_mods_and_typedefs(t.param(tid, i));
                    if !types_are_compat(w, l, lp, t, tp, level - 1)? {
                        return Ok(false);
                    }
                }
                lid = l.btf.skip_mods_and_typedefs(l.size_or_type(lid));
                tid = t.btf.skip_mods_and_typedefs(t.size_or_type(tid));
            }
            _ => {
                w.push(format!("unexpected kind {} relocated, local [{lid}], target [{tid}]", kind_str(lk)));
                return Ok(false);
            }
        }
    }
    Err(EINVAL)
}

fn names_match(l: &RawBtf, lname_off: u32, t: &RawBtf, tname_off: u32) -> bool {
    let (ln, tn) = (l.name(lname_off), t.name(tname_off));
    if tn.is_empty() {
        return ln.is_empty();
    }
    essential_names_equal(ln, tn)
}

/// `__bpf_core_types_match`.
fn types_match(w: &mut Vec<String>, l: &RawBtf, mut lid: u32, t: &RawBtf, mut tid: u32, mut behind_ptr: bool, level: i32) -> Result<bool, i32> {
    if level <= 0 {
        return Err(EINVAL);
    }
    for _ in 0..32 {
        lid = l.skip(lid).ok_or(EINVAL)?;
        tid = t.skip(tid).ok_or(EINVAL)?;
        let (lt, tt) = (*l.t(lid).ok_or(EINVAL)?, *t.t(tid).ok_or(EINVAL)?);
        if !names_match(l, lt.name_off, t, tt.name_off) {
            return Ok(false);
        }
        let (lk, tk) = (lt.kind, tt.kind);
        match lk {
            0 => return Ok(lk == tk),
            BTF_KIND_FWD => {
                let lf = l.kflag(lid);
                if behind_ptr {
                    if lk == tk {
                        return Ok(lf == t.kflag(tid));
                    }
                    return Ok((tk == BTF_KIND_STRUCT && !lf) || (tk == BTF_KIND_UNION && lf));
                }
                return Ok(lk == tk && lf == t.kflag(tid));
            }
            BTF_KIND_ENUM | BTF_KIND_ENUM64 => {
                if !is_any_enum(tk) || lt.size_or_type != tt.size_or_type || lt.vlen > tt.vlen {
                    return Ok(false);
                }
                let all = (0..lt.vlen).all(|i| {
                    let ln = l.enumerator(lid, i).0;
                    (0..tt.vlen).any(|j| names_match(l, ln, t, t.enumerator(tid, j).0))
                });
                return Ok(all);
            }
            BTF_KIND_STRUCT | BTF_KIND_UNION => {
                if behind_ptr {
                    if lk == tk {
                        return Ok(true);
                    }
                    if tk != BTF_KIND_FWD {
                        return Ok(false);
                    }
                    return Ok((lk == BTF_KIND_UNION) == t.kflag(tid));
                }
                if lk != tk || lt.vlen > tt.vlen {
                    return Ok(false);
                }
                for i in 0..lt.vlen {
                    let lm = l.member(lid, i);
                    let mut matched = false;
                    for j in 0..tt.vlen {
                        let tm = t.member(tid, j);
                        if !names_match(l, lm.name_off, t, tm.name_off) {
                            continue;
                        }
                        if types_match(w, l, lm.type_id, t, tm.type_id, behind_ptr, level - 1)? {
                            matched = true;
                            break;
                        }
                    }
                    if !matched {
                        return Ok(false);
                    }
                }
                return Ok(true);
            }
            BTF_KIND_INT => {
                let signed = |b: &RawBtf, id| b.int_encoding(id) & BTF_INT_SIGNED;
                return Ok(lk == tk && lt.size_or_type == tt.size_or_type && signed(l, lid) == signed(t, tid));
            }
            BTF_KIND_PTR => {
                if lk != tk {
                    return Ok(false);
                }
                behind_ptr = true;
                lid = lt.size_or_type;
                tid = tt.size_or_type;
            }
            BTF_KIND_ARRAY => {
                if lk != tk {
                    return Ok(false);
                }
                let (la, ta) = (l.array(lid), t.array(tid));
                if la.nelems != ta.nelems {
                    return Ok(false);
                }
                lid = la.elem_type;
                tid = ta.elem_type;
            }
            BTF_KIND_FUNC_PROTO => {
                if lk != tk || lt.vlen != tt.vlen {
                    return Ok(false);
                }
                for i in 0..lt.vlen {
                    if !types_match(w, l, l.param(lid, i), t, t.param(tid, i), behind_ptr, level - 1)? {
                        return Ok(false);
                    }
                }
                lid = lt.size_or_type;
                tid = tt.size_or_type;
            }
            _ => {
                w.push(format!("unexpected kind {} relocated, local [{lid}], target [{tid}]", kind_str(lk)));
                return Ok(false);
            }
        }
    }
    Err(EINVAL)
}

/// `bpf_core_fields_are_compat`.
fn fields_are_compat(l: &RawBtf, mut lid: u32, t: &RawBtf, mut tid: u32) -> Result<bool, i32> {
    loop {
        lid = l.skip(lid).ok_or(EINVAL)?;
        tid = t.skip(tid).ok_or(EINVAL)?;
        let (lk, tk) = (l.kind(lid), t.kind(tid));
        if is_composite(lk) && is_composite(tk) {
            return Ok(true);
        }
        if !kinds_compat(lk, tk) {
            return Ok(false);
        }
        match lk {
            BTF_KIND_PTR | BTF_KIND_FLOAT => return Ok(true),
            BTF_KIND_FWD | BTF_KIND_ENUM | BTF_KIND_ENUM64 => {
                let (ln, tn) = (l.type_name(lid), t.type_name(tid));
                return Ok(essential_name_len(ln) == 0 || essential_name_len(tn) == 0 || essential_names_equal(ln, tn));
            }
            BTF_KIND_INT => return Ok(l.int_offset(lid) == 0 && t.int_offset(tid) == 0),
            BTF_KIND_ARRAY => {
                lid = l.array(lid).elem_type;
                tid = t.array(tid).elem_type;
            }
            _ => return Ok(false),
        }
    }
}

/// `bpf_core_match_member`: the target field of `local_acc`'s name in
/// composite `tid`, anonymous members searched through.
fn match_member(l: &RawBtf, local_acc: &Acc, t: &RawBtf, tid: u32, spec: &mut Spec, next: &mut u32) -> Result<bool, i32> {
    let tid = t.skip(tid).ok_or(EINVAL)?;
    if !is_composite(t.kind(tid)) {
        return Ok(false);
    }
    let lm = l.member(local_acc.type_id, local_acc.idx);
    let lname = l.name(lm.name_off);
    for i in 0..t.vlen(tid) {
        let m = t.member(tid, i);
        if spec.raw.len() == SPEC_MAX_LEN {
            return Err(E2BIG);
        }
        spec.bit_offset += u64::from(m.bit_off);
        spec.raw.push(i);
        let tname = t.name(m.name_off);
        if tname.is_empty() {
            if match_member(l, local_acc, t, m.type_id, spec, next)? {
                return Ok(true);
            }
        } else if lname == tname {
            spec.accs.push(Acc { type_id: tid, idx: i, name: Some(tname.to_string()) });
            *next = m.type_id;
            let found = fields_are_compat(l, lm.type_id, t, m.type_id)?;
            if !found {
                spec.accs.pop();
            }
            // (libbpf leaves the speculated index in place either way)
            return Ok(found);
        }
        spec.bit_offset -= u64::from(m.bit_off);
        spec.raw.pop();
    }
    Ok(false)
}

/// `bpf_core_spec_match`: the target spec of candidate `tid`, if it matches.
fn spec_match(w: &mut Vec<String>, local: &Spec, kind: u32, l: &RawBtf, t: &RawBtf, mut tid: u32) -> Result<Option<Spec>, i32> {
    let mut ts = Spec { root: tid, ..Spec::default() };
    if is_type_based(kind) {
        let ok = if kind == TYPE_MATCHES { types_match(w, l, local.root, t, tid, false, 32)? } else { types_are_compat(w, l, local.root, t, tid, 32)? };
        return Ok(ok.then_some(ts));
    }
    if is_enumval_based(kind) {
        let Some(id) = t.skip(tid).filter(|&id| is_any_enum(t.kind(id))) else { return Ok(None) };
        let lname = local.accs[0].name.as_deref().unwrap_or("");
        for i in 0..t.vlen(id) {
            let tname = t.name(t.enumerator(id, i).0);
            if essential_names_equal(lname, tname) {
                ts.accs.push(Acc { type_id: id, idx: i, name: Some(tname.to_string()) });
                ts.raw.push(i);
                return Ok(Some(ts));
            }
        }
        return Ok(None);
    }
    if !is_field_based(kind) {
        return Err(EINVAL);
    }
    for (i, la) in local.accs.iter().enumerate() {
        tid = t.skip(tid).ok_or(EINVAL)?;
        if la.name.is_some() {
            let mut next = tid;
            if !match_member(l, la, t, tid, &mut ts, &mut next)? {
                return Ok(None);
            }
            tid = next;
        } else {
            if i > 0 {
                if t.kind(tid) != BTF_KIND_ARRAY {
                    return Ok(None);
                }
                let a = t.array(tid);
                if !is_flex_arr(t, ts.accs.last(), a.nelems) && la.idx >= a.nelems {
                    return Ok(None);
                }
                tid = t.skip(a.elem_type).ok_or(EINVAL)?;
            }
            if ts.raw.len() == SPEC_MAX_LEN {
                return Err(E2BIG);
            }
            ts.accs.push(Acc { type_id: tid, idx: la.idx, name: None });
            ts.raw.push(la.idx);
            ts.bit_offset += u64::from(la.idx) * t.size(tid)? * 8;
        }
    }
    Ok(Some(ts))
}

/// `struct bpf_core_relo_res`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Res {
    orig_val: u64,
    new_val: u64,
    poison: bool,
    validate: bool,
    fail_memsz_adjust: bool,
    orig_sz: u32,
    new_sz: u32,
    orig_type_id: u32,
    new_type_id: u32,
}

/// One side's value of a field relocation.
#[derive(Default)]
struct FieldVal {
    val: u64,
    sz: u32,
    type_id: u32,
    validate: bool,
}

/// The element type under any arrays of `id` and its size.
fn elem_size(b: &RawBtf, id: u32) -> Result<u32, i32> {
    let mut e = b.skip(id).ok_or(EINVAL)?;
    while b.kind(e) == BTF_KIND_ARRAY {
        e = b.skip(b.array(e).elem_type).ok_or(EINVAL)?;
    }
    b.size(e).map(|s| s as u32)
}

impl Ctx<'_> {
    /// `bpf_core_calc_field_relo` of one side (`None`: no target found).
    fn field_relo(&mut self, b: &RawBtf, spec: Option<&Spec>) -> Result<FieldVal, i32> {
        let kind = self.relo.kind;
        let mut out = FieldVal { validate: true, ..FieldVal::default() };
        if kind == FIELD_EXISTS {
            out.val = u64::from(spec.is_some());
            return Ok(out);
        }
        let Some(spec) = spec else { return Err(EUCLEAN) };
        let acc = spec.accs.last().ok_or(EINVAL)?;
        if acc.name.is_none() {
            match kind {
                FIELD_BYTE_OFFSET => {
                    out.val = spec.bit_offset / 8;
                    out.sz = elem_size(b, acc.type_id)?;
                    out.type_id = acc.type_id;
                }
                FIELD_BYTE_SIZE => out.val = b.size(acc.type_id)?,
                _ => {
                    let msg = format!("prog '{}': relo {kind} at insn #{} can't be applied to array access", self.relo.prog, self.relo.sec_insn);
                    self.warn(msg);
                    return Err(EINVAL);
                }
            }
            return Ok(out);
        }
        let m = b.member(acc.type_id, acc.idx);
        let ftid = b.skip(m.type_id).ok_or(EINVAL)?;
        let bit_off = spec.bit_offset;
        let mut bit_sz = u64::from(m.bitfield_sz);
        let bitfield = bit_sz > 0;
        let (byte_off, byte_sz);
        if bitfield {
            let mut sz = u64::from(b.size_or_type(ftid));
            if sz == 0 {
                return Err(EINVAL);
            }
            let mut off = bit_off / 8 / sz * sz;
            while bit_off + bit_sz - off * 8 > sz * 8 {
                if sz >= 8 {
                    let msg = format!("prog '{}': relo {kind} at insn #{} can't be satisfied for bitfield", self.relo.prog, self.relo.sec_insn);
                    self.warn(msg);
                    return Err(E2BIG);
                }
                sz *= 2;
                off = bit_off / 8 / sz * sz;
            }
            (byte_off, byte_sz) = (off, sz);
        } else {
            byte_sz = b.size(ftid)?;
            byte_off = bit_off / 8;
            bit_sz = byte_sz * 8;
        }
        out.validate = !bitfield;
        match kind {
            FIELD_BYTE_OFFSET => {
                out.val = byte_off;
                if !bitfield {
                    out.sz = elem_size(b, ftid)?;
                    out.type_id = ftid;
                }
            }
            FIELD_BYTE_SIZE => out.val = byte_sz,
            FIELD_SIGNED => {
                let k = b.kind(ftid);
                out.val = u64::from((is_any_enum(k) && b.kflag(ftid)) || (k == BTF_KIND_INT && b.int_encoding(ftid) & BTF_INT_SIGNED != 0));
                out.validate = true;
            }
            FIELD_LSHIFT_U64 => out.val = 64u64.wrapping_sub(bit_off + bit_sz - byte_off * 8) & 0xffff_ffff,
            FIELD_RSHIFT_U64 => {
                out.val = 64u64.wrapping_sub(bit_sz) & 0xffff_ffff;
                out.validate = true;
            }
            _ => return Err(EOPNOTSUPP),
        }
        Ok(out)
    }

    /// `bpf_core_calc_relo`: local and target values, or the poison.
    fn calc_relo(&mut self, local: &Spec, targ: Option<&Spec>) -> Result<Res, i32> {
        let kind = self.relo.kind;
        let (l, t) = (self.local, self.target);
        let mut res = Res { validate: true, ..Res::default() };
        let r: Result<(), i32> = if is_field_based(kind) {
            (|| {
                let o = self.field_relo(l, Some(local))?;
                res.orig_val = o.val;
                res.orig_sz = o.sz;
                res.orig_type_id = o.type_id;
                res.validate = o.validate;
                let n = self.field_relo(t, targ)?;
                res.new_val = n.val;
                res.new_sz = n.sz;
                res.new_type_id = n.type_id;
                if res.orig_sz != res.new_sz {
                    let (ok, nk) = (l.kind(res.orig_type_id), t.kind(res.new_type_id));
                    let unsigned_int = |b: &RawBtf, id| b.int_encoding(id) != BTF_INT_SIGNED;
                    let fine = (ok == BTF_KIND_PTR && nk == BTF_KIND_PTR)
                        || (ok == BTF_KIND_INT && nk == BTF_KIND_INT && unsigned_int(l, res.orig_type_id) && unsigned_int(t, res.new_type_id));
                    res.fail_memsz_adjust = !fine;
                }
                Ok(())
            })()
        } else if is_type_based(kind) {
            let side = |spec: Option<&Spec>, b: &RawBtf| -> Result<(u64, bool), i32> {
                let Some(spec) = spec else { return Ok((0, true)) };
                match kind {
                    TYPE_ID_TARGET => Ok((u64::from(spec.root), false)),
                    TYPE_EXISTS | TYPE_MATCHES => Ok((1, true)),
                    TYPE_SIZE => Ok((b.size(spec.root)?, true)),
                    _ => Err(EOPNOTSUPP),
                }
            };
            side(Some(local), l).and_then(|(v, validate)| {
                res.orig_val = v;
                res.validate = validate;
                res.new_val = side(targ, t)?.0;
                Ok(())
            })
        } else if is_enumval_based(kind) {
            let side = |spec: Option<&Spec>, b: &RawBtf| -> Result<u64, i32> {
                match (kind, spec) {
                    (ENUMVAL_EXISTS, s) => Ok(u64::from(s.is_some())),
                    (_, None) => Err(EUCLEAN),
                    (_, Some(s)) => Ok(b.enumerator(s.accs[0].type_id, s.accs[0].idx).1),
                }
            };
            side(Some(local), l).and_then(|v| {
                res.orig_val = v;
                res.new_val = side(targ, t)?;
                Ok(())
            })
        } else {
            Err(EOPNOTSUPP)
        };
        match r {
            Ok(()) => Ok(res),
            Err(EUCLEAN) => {
                res.poison = true;
                Ok(res)
            }
            Err(e) => {
                if e == EOPNOTSUPP {
                    let msg = format!(
                        "prog '{}': relo #{}: unrecognized CO-RE relocation {} ({kind}) at insn #{}",
                        self.relo.prog,
                        self.relo.idx,
                        relo_kind_str(kind),
                        self.relo.sec_insn
                    );
                    self.warn(msg);
                }
                Err(e)
            }
        }
    }

    /// `bpf_core_find_cands`: the target types of the local root's kind and
    /// essential name.
    fn find_cands(&self) -> Result<Vec<u32>, i32> {
        let (l, t) = (self.local, self.target);
        let lt = l.t(self.relo.type_id).ok_or(EINVAL)?;
        let lname = l.name(lt.name_off);
        if lname.is_empty() {
            return Err(EINVAL);
        }
        let len = essential_name_len(lname);
        let want = &lname.as_bytes()[..len];
        let mut out = Vec::new();
        for id in 1..t.btf.type_cnt() as u32 {
            let tt = t.t(id).ok_or(EINVAL)?;
            if !kinds_compat(tt.kind, lt.kind) {
                continue;
            }
            let tname = t.name(tt.name_off);
            if !tname.is_empty() && essential_name_len(tname) == len && &tname.as_bytes()[..len] == want {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// `bpf_core_resolve_relo` with `bpf_core_calc_relo_insn`.
    fn resolve(&mut self, cache: &mut HashMap<u32, Vec<u32>>) -> Result<Res, i32> {
        let (l, relo) = (self.local, self.relo);
        let lt = *l.t(relo.type_id).ok_or(EINVAL)?;
        let lname = l.name(lt.name_off).to_string();
        if relo.kind != TYPE_ID_LOCAL && !cache.contains_key(&relo.type_id) {
            match self.find_cands() {
                Ok(c) => {
                    cache.insert(relo.type_id, c);
                }
                Err(e) => {
                    let msg = format!(
                        "prog '{}': relo #{}: target candidate search failed for [{}] {} {lname}: -{e}",
                        relo.prog,
                        relo.idx,
                        relo.type_id,
                        kind_str(lt.kind)
                    );
                    self.warn(msg);
                    return Err(e);
                }
            }
        }
        let local = match self.parse_spec() {
            Ok(s) => s,
            Err(e) => {
                let name = if lname.is_empty() { "<anon>" } else { &lname };
                let msg =
                    format!("prog '{}': relo #{}: parsing [{}] {} {name} + {} failed: -{e}", relo.prog, relo.idx, relo.type_id, kind_str(lt.kind), relo.access);
                self.warn(msg);
                return Err(EINVAL);
            }
        };
        if relo.kind == TYPE_ID_LOCAL {
            let v = u64::from(local.root);
            return Ok(Res { orig_val: v, new_val: v, ..Res::default() });
        }
        if lname.is_empty() {
            let msg =
                format!("prog '{}': relo #{}: <{}> ({}) relocation doesn't support anonymous types", relo.prog, relo.idx, relo_kind_str(relo.kind), relo.kind);
            self.warn(msg);
            return Err(EOPNOTSUPP);
        }
        let cands = cache.get(&relo.type_id).cloned().unwrap_or_default();
        let mut kept = Vec::new();
        let mut best: Option<(Res, Spec)> = None;
        for (i, &cand) in cands.iter().enumerate() {
            let m = spec_match(&mut self.warnings, &local, relo.kind, l, self.target, cand);
            let cs = match m {
                Err(e) => {
                    let msg = format!("prog '{}': relo #{}: error matching candidate #{i} [{cand}]: -{e}", relo.prog, relo.idx);
                    self.warn(msg);
                    return Err(e);
                }
                Ok(None) => continue,
                Ok(Some(s)) => s,
            };
            let cr = self.calc_relo(&local, Some(&cs))?;
            match &best {
                None => best = Some((cr, cs)),
                Some((br, bs)) => {
                    if cs.bit_offset != bs.bit_offset {
                        let msg = format!("prog '{}': relo #{}: field offset ambiguity: {} != {}", relo.prog, relo.idx, cs.bit_offset, bs.bit_offset);
                        self.warn(msg);
                        return Err(EINVAL);
                    }
                    if cr.poison != br.poison || cr.new_val != br.new_val {
                        let word = |p: bool| if p { "failure" } else { "success" };
                        let msg = format!(
                            "prog '{}': relo #{}: relocation decision ambiguity: {} {} != {} {}",
                            relo.prog,
                            relo.idx,
                            word(cr.poison),
                            cr.new_val,
                            word(br.poison),
                            br.new_val
                        );
                        self.warn(msg);
                        return Err(EINVAL);
                    }
                }
            }
            kept.push(cand);
        }
        match best {
            Some((res, _)) => {
                cache.insert(relo.type_id, kept);
                Ok(res)
            }
            None => self.calc_relo(&local, None),
        }
    }

    /// `bpf_core_patch_insn` of the instruction at `at` of `insns`.
    fn patch(&mut self, insns: &mut [Insn], at: usize, res: &Res) -> Result<(), i32> {
        let (prog, ri, ii) = (self.relo.prog.clone(), self.relo.idx, self.relo.prog_insn);
        let insn = insns[at];
        let (orig, new) = (res.orig_val, res.new_val);
        match insn.code & 0x07 {
            BPF_ALU | BPF_ALU64 if insn.code & BPF_X == 0 => {
                if res.poison {
                    return poison(insns, at);
                }
                if res.validate && insn.imm as i64 as u64 != orig {
                    self.warn(format!("prog '{prog}': relo #{ri}: unexpected insn #{ii} (ALU/ALU64) value: got {}, exp {orig} -> {new}", insn.imm));
                    return Err(EINVAL);
                }
                insns[at].imm = new as i32;
            }
            BPF_LDX | BPF_ST | BPF_STX => {
                if res.poison {
                    return poison(insns, at);
                }
                if res.validate && insn.off as i64 as u64 != orig {
                    self.warn(format!("prog '{prog}': relo #{ri}: unexpected insn #{ii} (LDX/ST/STX) value: got {}, exp {orig} -> {new}", insn.off));
                    return Err(EINVAL);
                }
                if new > i16::MAX as u64 {
                    self.warn(format!("prog '{prog}': relo #{ri}: insn #{ii} (LDX/ST/STX) value too big: {new}"));
                    return Err(ERANGE);
                }
                if res.fail_memsz_adjust {
                    self.warn(format!(
                        "prog '{prog}': relo #{ri}: insn #{ii} (LDX/ST/STX) accesses field incorrectly. Make sure you are accessing pointers, unsigned integers, or fields of matching type and size."
                    ));
                    return poison(insns, at);
                }
                insns[at].off = new as i16;
                if res.new_sz != res.orig_sz {
                    let bytes = match insn.code & 0x18 {
                        BPF_DW => 8,
                        BPF_W => 4,
                        BPF_H => 2,
                        _ => 1,
                    };
                    if bytes != res.orig_sz {
                        self.warn(format!("prog '{prog}': relo #{ri}: insn #{ii} (LDX/ST/STX) unexpected mem size: got {bytes}, exp {}", res.orig_sz));
                        return Err(EINVAL);
                    }
                    let size = match res.new_sz {
                        8 => BPF_DW,
                        4 => BPF_W,
                        2 => BPF_H,
                        1 => BPF_B,
                        n => {
                            self.warn(format!("prog '{prog}': relo #{ri}: insn #{ii} (LDX/ST/STX) invalid new mem size: {n}"));
                            return Err(EINVAL);
                        }
                    };
                    insns[at].code = (insn.code & 0xe0) | size | (insn.code & 0x07);
                }
            }
            BPF_LD => {
                let next = insns.get(at + 1).copied();
                let plain = insn.is_ld_imm64() && insn.src == 0 && insn.off == 0 && next.is_some_and(|n| n.code == 0 && n.dst == 0 && n.src == 0 && n.off == 0);
                let Some(next) = next.filter(|_| plain) else {
                    self.warn(format!("prog '{prog}': relo #{ri}: insn #{ii} (LDIMM64) has unexpected form"));
                    return Err(EINVAL);
                };
                if res.poison {
                    return poison(insns, at);
                }
                let imm = u64::from(insn.imm as u32) | (u64::from(next.imm as u32) << 32);
                if res.validate && imm != orig {
                    self.warn(format!("prog '{prog}': relo #{ri}: unexpected insn #{ii} (LDIMM64) value: got {imm}, exp {orig} -> {new}"));
                    return Err(EINVAL);
                }
                insns[at].imm = new as u32 as i32;
                insns[at + 1].imm = (new >> 32) as u32 as i32;
            }
            _ => {
                self.warn(format!(
                    "prog '{prog}': relo #{ri}: trying to relocate unrecognized insn #{ii}, code:{:#x}, src:{:#x}, dst:{:#x}, off:{:#x}, imm:{:#x}",
                    insn.code, insn.src, insn.dst, insn.off as i32 as u32, insn.imm as u32
                ));
                return Err(EINVAL);
            }
        }
        Ok(())
    }
}

/// `bpf_core_poison_insn`: the instruction (both halves of an `ld_imm64`)
/// becomes a call of helper [`POISON_CALL_IMM`].
fn poison(insns: &mut [Insn], at: usize) -> Result<(), i32> {
    let n = if insns[at].is_ld_imm64() { 2 } else { 1 };
    for i in insns.iter_mut().skip(at).take(n) {
        *i = Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, POISON_CALL_IMM);
    }
    Ok(())
}

/// Applies the CO-RE relocations among `relocs` to `insns` (the linked
/// program) against `target`, in libbpf's order; `local` is the object's
/// BTF. The first failure stops it, as it stops libbpf's load.
pub fn relocate(insns: &mut [Insn], relocs: &[LinkReloc], local: &RawBtf, target: &RawBtf) -> Result<(), CoreFailure> {
    let mut core: Vec<(usize, &CoreRelo)> = relocs
        .iter()
        .filter_map(|r| match r {
            LinkReloc::Core { insn, relo } => Some((*insn, relo)),
            _ => None,
        })
        .collect();
    core.sort_by_key(|(_, r)| (r.sec, r.idx));
    let mut cache = HashMap::new();
    for (at, relo) in core {
        let mut cx = Ctx { local, target, relo, warnings: Vec::new() };
        if at >= insns.len() {
            return Err(CoreFailure { errno: EINVAL, warnings: vec![format!("prog '{}': relo #{}: insn #{at} is outside the program", relo.prog, relo.idx)] });
        }
        let res = match cx.resolve(&mut cache) {
            Ok(r) => r,
            Err(e) => {
                cx.warn(format!("prog '{}': relo #{}: failed to relocate: {}", relo.prog, relo.idx, errstr(e)));
                return Err(CoreFailure { errno: e, warnings: cx.warnings });
            }
        };
        if let Err(e) = cx.patch(insns, at, &res) {
            cx.warn(format!("prog '{}': relo #{}: failed to patch insn #{}: {}", relo.prog, relo.idx, relo.prog_insn, errstr(e)));
            return Err(CoreFailure { errno: e, warnings: cx.warnings });
        }
    }
    Ok(())
}

/// Whether loading `req` takes CO-RE relocation.
pub fn has_core(req: &LoadRequest) -> bool {
    req.prog.relocs.iter().any(|r| matches!(r, LinkReloc::Core { .. }))
}

/// [`relocate`] for a request: its object's BTF is the local one. The
/// relocated request has no [`LinkReloc::Core`] left.
pub fn relocate_request(req: &LoadRequest, target: &RawBtf) -> Result<LoadRequest, CoreFailure> {
    let BtfMode::Object(ob) = &req.btf else {
        return Err(CoreFailure { errno: EINVAL, warnings: vec![format!("prog '{}': CO-RE relocations without the object's BTF", req.name)] });
    };
    let local = RawBtf::new(ob.btf.to_vec()).map_err(|e| CoreFailure { errno: EINVAL, warnings: vec![format!("the object's BTF: {e}")] })?;
    let mut out = req.clone();
    relocate(&mut out.prog.insns, &req.prog.relocs, &local, target)?;
    out.prog.relocs.retain(|r| !matches!(r, LinkReloc::Core { .. }));
    Ok(out)
}

/// A kernel's BTF read from `path`, parsed once per path.
pub fn target_btf_file(path: &Path) -> Result<Arc<RawBtf>, String> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<RawBtf>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(b) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return Ok(Arc::clone(b));
    }
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let b = Arc::new(RawBtf::new(data).map_err(|e| format!("{}: {e}", path.display()))?);
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), Arc::clone(&b));
    Ok(b)
}

/// Where setup recorded the full vmlinux BTF of the 7.3 image of `arch`
/// (`$cache/btf/<release>/vmlinux.btf`).
pub fn recorded_vmlinux_btf_path(arch: Arch) -> Result<PathBuf, String> {
    let cfg = crate::backend::vm::VmConfig::from_env();
    let rel = cfg.release(arch).ok_or_else(|| format!("no 7.3 image for {arch}"))?;
    let p = cfg.cache_dir.join("btf").join(rel).join("vmlinux.btf");
    if p.is_file() { Ok(p) } else { Err(format!("{}: no recorded vmlinux BTF (run scripts/setup-vm.sh)", p.display())) }
}

/// The recorded 7.3 vmlinux BTF of `arch`, parsed once.
pub fn recorded_vmlinux_btf(arch: Arch) -> Result<Arc<RawBtf>, String> {
    target_btf_file(&recorded_vmlinux_btf_path(arch)?)
}
