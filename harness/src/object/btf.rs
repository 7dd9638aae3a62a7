//! The object's BTF as libbpf 1.x hands it to the kernel (BPF_BTF_LOAD),
//! and with each program's `.BTF.ext` records ([`ObjectBtf`]).
//!
//! clang leaves work to the loader; libbpf does it at open and load:
//! - `bpf_object__collect_externs`: a `dummy_ksym` VAR is added when
//!   `.ksyms` lists kfuncs; `.ksyms` entries become 4-byte global
//!   variables (kfunc FUNCs global, their nameless parameters named
//!   `dummy_ksym`, variables typed `int`); `.kconfig` variables get their
//!   offsets in the `.kconfig` map;
//! - `bpf_object_fixup_btf` (`btf_fixup_datasec`): each other DATASEC of
//!   size 0 gets its ELF section's size and its global variables their
//!   symbols' offsets; hidden globals become static; entries are sorted by
//!   offset;
//! - `bpf_object__sanitize_and_load_btf`: the FUNC of a hidden global
//!   subprogram becomes static.
//!
//! libbpf would also rewrite the kinds an older kernel lacks
//! (`bpf_object__sanitize_btf`); the 7.3 kernel has them all, so the BTF
//! goes as it is here.

use std::fmt;
use std::sync::Arc;

use object::elf;

use super::btf_ext::BtfExtRecords;
use super::{ObjectError, SymInfo, err};
use crate::btf::{
    BTF_FUNC_GLOBAL, BTF_FUNC_STATIC, BTF_KIND_ARRAY, BTF_KIND_DATASEC, BTF_KIND_ENUM, BTF_KIND_ENUM64, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_INT,
    BTF_KIND_VAR, BTF_VAR_GLOBAL_ALLOCATED, BTF_VAR_GLOBAL_EXTERN, BTF_VAR_STATIC, Btf, ProgFunc,
};

const KSYMS_SEC: &str = ".ksyms";
const KCONFIG_SEC: &str = ".kconfig";
/// `BTF_FUNC_EXTERN`.
const BTF_FUNC_EXTERN: u32 = 2;
/// `BTF_INT_BOOL` in an INT's encoding.
const BTF_INT_BOOL: u32 = 1 << 2;
/// `sizeof(struct btf_header)` with 7.3's layout fields.
const BTF_HEADER_SIZE: usize = 32;

/// What BPF_BTF_LOAD and BPF_PROG_LOAD get for one program of an object:
/// the object's BTF blob and the program's `func_info` and `line_info`
/// (`None`: the main program has no records of that kind, and none go).
#[derive(Clone, PartialEq, Eq)]
pub struct ObjectBtf {
    pub btf: Arc<Vec<u8>>,
    pub func_info: Option<BtfExtRecords>,
    pub line_info: Option<BtfExtRecords>,
}

/// Sizes only: the blob is binary.
impl fmt::Debug for ObjectBtf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectBtf").field("btf_len", &self.btf.len()).field("func_info", &self.func_info).field("line_info", &self.line_info).finish()
    }
}

impl ObjectBtf {
    /// The functions `func_info` describes, as `btf` (this object's BTF,
    /// parsed) says: each record's FUNC id with its name, global linkage
    /// and argument count.
    pub fn funcs(&self, btf: &Btf) -> Result<Vec<(u32, ProgFunc)>, String> {
        let Some(fi) = &self.func_info else { return Ok(Vec::new()) };
        fi.pairs()
            .map(|(insn_off, type_id)| {
                let f = btf.type_by_id(type_id).filter(|t| t.kind == BTF_KIND_FUNC).ok_or_else(|| format!("func_info: type [{type_id}] is not a FUNC"))?;
                let proto = btf.type_by_id(f.size_or_type).filter(|t| t.kind == BTF_KIND_FUNC_PROTO);
                let proto = proto.ok_or_else(|| format!("func_info: FUNC [{type_id}] has no FUNC_PROTO"))?;
                Ok((type_id, ProgFunc { name: btf.type_name(type_id).to_string(), insn_off, global: f.vlen == BTF_FUNC_GLOBAL, nargs: proto.vlen }))
            })
            .collect()
    }
}

/// The raw BTF being finalized: its header fields and sections.
struct Raw<'a> {
    orig: &'a [u8],
    hdr_len: usize,
    type_off: usize,
    /// Layout section offset and bytes (7.3 headers), if any.
    layout: Option<(usize, Vec<u8>)>,
    types: Vec<u8>,
    strings: Vec<u8>,
    /// Types or strings were added: libbpf re-serializes the blob.
    grown: bool,
}

impl Raw<'_> {
    fn rd(&self, off: usize) -> u32 {
        self.types.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn wr(&mut self, off: usize, v: u32) {
        if let Some(b) = self.types.get_mut(off..off + 4) {
            b.copy_from_slice(&v.to_le_bytes());
        }
    }

    /// `btf__add_str`: the offset of an equal string already there (at a
    /// string boundary), else of the string appended.
    fn add_str(&mut self, s: &str) -> u32 {
        let mut off = 0;
        while off < self.strings.len() {
            let end = self.strings[off..].iter().position(|&b| b == 0).map_or(self.strings.len(), |e| off + e);
            if &self.strings[off..end] == s.as_bytes() {
                return off as u32;
            }
            off = end + 1;
        }
        let at = self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        self.grown = true;
        at
    }

    /// The blob: the original with its type section rewritten in place,
    /// or, once grown, header, types, layout and strings laid out anew
    /// (`btf_get_raw_data`).
    fn finish(self) -> Vec<u8> {
        if !self.grown {
            let mut out = self.orig.to_vec();
            let at = self.hdr_len + self.type_off;
            out[at..at + self.types.len()].copy_from_slice(&self.types);
            return out;
        }
        let mut hdr = self.orig[..self.hdr_len.min(BTF_HEADER_SIZE)].to_vec();
        hdr.resize(self.hdr_len, 0);
        let type_len = self.types.len() as u32;
        let mut str_off = self.type_off as u32 + type_len;
        if let Some((_, l)) = &self.layout {
            // layout_off, then the strings after the layout
            hdr[24..28].copy_from_slice(&str_off.to_le_bytes());
            str_off += l.len() as u32;
        }
        hdr[12..16].copy_from_slice(&type_len.to_le_bytes());
        hdr[16..20].copy_from_slice(&str_off.to_le_bytes());
        hdr[20..24].copy_from_slice(&(self.strings.len() as u32).to_le_bytes());
        let mut out = hdr;
        out.extend_from_slice(&self.types);
        if let Some((_, l)) = &self.layout {
            out.extend_from_slice(l);
        }
        out.extend_from_slice(&self.strings);
        out
    }
}

/// An extern symbol, as `bpf_object__collect_externs` records it.
struct Extern {
    name: String,
    /// `.kconfig`: (alignment, size); `None` for `.ksyms`.
    kcfg: Option<(u32, u32)>,
    data_off: u32,
}

fn u32_of(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// What of the ELF file finalizing the BTF reads.
pub(super) struct ElfView<'a> {
    pub syms: &'a [SymInfo],
    /// The size of the first section of a name, if there is one.
    pub sec_size: &'a dyn Fn(&str) -> Option<u64>,
}

/// The object's BTF blob as libbpf finalizes it. `btf` is `raw` parsed;
/// `hidden_subprogs` names the global subprograms with hidden visibility.
pub(super) fn finalize(raw: &[u8], btf: &Btf, elf: &ElfView<'_>, hidden_subprogs: &[&str]) -> Result<Vec<u8>, ObjectError> {
    let hdr_len = u32_of(raw, 4) as usize;
    let field = |o: usize| u32_of(raw, o) as usize;
    let (type_off, type_len, str_off, str_len) = (field(8), field(12), field(16), field(20));
    let part = |off: usize, len: usize| raw.get(hdr_len..).and_then(|b| b.get(off..off.checked_add(len)?)).map(<[u8]>::to_vec);
    let bad = || ObjectError("section '.BTF': a section lies outside the blob".into());
    let layout = if hdr_len >= BTF_HEADER_SIZE && field(28) > 0 { Some((field(24), part(field(24), field(28)).ok_or_else(bad)?)) } else { None };
    let types = part(type_off, type_len).ok_or_else(bad)?;
    let strings = part(str_off, str_len).ok_or_else(bad)?;
    let mut r = Raw { orig: raw, hdr_len, type_off, layout, types, strings, grown: false };
    let has_hdr_extra = raw.get(BTF_HEADER_SIZE.min(hdr_len)..hdr_len).is_some_and(|x| x.iter().any(|&b| b != 0));
    let at = |id: u32| btf.type_offset(id).unwrap_or(usize::MAX / 2);
    let vsi_at = |ds: u32, i: usize| at(ds) + 12 + 12 * i;

    // add_dummy_ksym_var
    let ksyms = btf.find_by_name_kind(KSYMS_SEC, BTF_KIND_DATASEC);
    let int_id = (1..btf.type_cnt() as u32).find(|&id| btf.int_data(id) & 0xff == 32).unwrap_or(0);
    let mut dummy = None;
    if let Some(ks) = ksyms
        && btf.datasec_vars(ks).iter().any(|v| btf.type_by_id(v.type_id).is_some_and(|t| t.kind == BTF_KIND_FUNC))
    {
        if has_hdr_extra {
            return err("the BTF header has fields libbpf does not know: it cannot add the dummy_ksym variable");
        }
        let name_off = r.add_str("dummy_ksym");
        for w in [name_off, BTF_KIND_VAR << 24, int_id, BTF_VAR_GLOBAL_ALLOCATED] {
            r.types.extend_from_slice(&w.to_le_bytes());
        }
        r.grown = true;
        dummy = Some((btf.type_cnt() as u32, name_off));
    }

    let mut externs = collect_externs(btf, elf)?;
    // by kind (.kconfig first), .kconfig by alignment down and size up,
    // then by name
    externs.sort_by(|a, b| {
        let key = |e: &Extern| (e.kcfg.is_none(), std::cmp::Reverse(e.kcfg.map_or(0, |k| k.0)), e.kcfg.map_or(0, |k| k.1));
        key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
    });
    let find = |name: &str, externs: &[Extern]| externs.iter().position(|e| e.name == name);

    if let Some(ks) = ksyms.filter(|_| externs.iter().any(|e| e.kcfg.is_none())) {
        let n = btf.datasec_vars(ks).len();
        for i in 0..n {
            let vs = vsi_at(ks, i);
            let vt = r.rd(vs);
            let name = btf.type_name(vt).to_string();
            if find(&name, &externs).is_none() {
                return err(format!("failed to find extern definition for BTF '{name}'"));
            }
            if btf.type_by_id(vt).is_some_and(|t| t.kind == BTF_KIND_FUNC) {
                let (dummy_id, dummy_name) = dummy.unwrap_or((0, 0));
                let proto = btf.type_by_id(vt).map_or(0, |t| t.size_or_type);
                for j in 0..btf.type_by_id(proto).map_or(0, |t| t.vlen) as usize {
                    let p = at(proto) + 12 + 8 * j;
                    if r.rd(p + 4) != 0 && r.rd(p) == 0 {
                        r.wr(p, dummy_name);
                    }
                }
                r.wr(vs, dummy_id);
                let info = r.rd(at(vt) + 4);
                r.wr(at(vt) + 4, (info & !0xffff) | BTF_FUNC_GLOBAL);
            } else {
                r.wr(at(vt) + 12, BTF_VAR_GLOBAL_ALLOCATED);
                r.wr(at(vt) + 8, int_id);
            }
            r.wr(vs + 4, 4 * i as u32);
            r.wr(vs + 8, 4);
        }
        r.wr(at(ks) + 8, 4 * n as u32);
    }

    if externs.iter().any(|e| e.kcfg.is_some()) {
        let mut off = 0u32;
        for e in externs.iter_mut() {
            if let Some((align, sz)) = e.kcfg {
                e.data_off = off.div_ceil(align) * align;
                off = e.data_off + sz;
            }
        }
        if let Some(ks) = btf.find_by_name_kind(KCONFIG_SEC, BTF_KIND_DATASEC) {
            r.wr(at(ks) + 8, off);
            for i in 0..btf.datasec_vars(ks).len() {
                let vs = vsi_at(ks, i);
                let vt = r.rd(vs);
                let name = btf.type_name(vt);
                let Some(e) = find(name, &externs) else { return err(format!("failed to find extern definition for BTF var '{name}'")) };
                r.wr(at(vt) + 12, BTF_VAR_GLOBAL_ALLOCATED);
                r.wr(vs + 4, externs[e].data_off);
            }
        }
    }

    for id in 1..btf.type_cnt() as u32 {
        if btf.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_DATASEC) {
            fixup_datasec(&mut r, btf, elf, id)?;
        }
    }

    // the FUNC of a hidden global subprogram is static
    for name in hidden_subprogs {
        let f = (1..btf.type_cnt() as u32).find(|&id| {
            btf.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_FUNC) && r.rd(at(id) + 4) & 0xffff == BTF_FUNC_GLOBAL && btf.type_name(id) == *name
        });
        if let Some(f) = f {
            r.wr(at(f) + 4, (BTF_KIND_FUNC << 24) | BTF_FUNC_STATIC);
        }
    }
    Ok(r.finish())
}

/// `bpf_object__collect_externs`' checks: each extern symbol has a VAR or
/// FUNC of extern linkage in `.ksyms` or `.kconfig`, a `.kconfig` one of a
/// type libbpf can fill.
fn collect_externs(btf: &Btf, elf: &ElfView<'_>) -> Result<Vec<Extern>, ObjectError> {
    let mut out = Vec::new();
    for s in elf.syms {
        let is_extern = s.shndx == elf::SHN_UNDEF && matches!(s.bind, elf::STB_GLOBAL | elf::STB_WEAK) && s.kind == elf::STT_NOTYPE;
        if !is_extern || s.name.is_empty() {
            continue;
        }
        let id = (1..btf.type_cnt() as u32)
            .find(|&id| btf.type_by_id(id).is_some_and(|t| matches!(t.kind, BTF_KIND_VAR | BTF_KIND_FUNC)) && btf.type_name(id) == s.name);
        let t = id.and_then(|id| btf.type_by_id(id));
        let ok = match t {
            Some(t) if t.kind == BTF_KIND_VAR => btf.var_linkage(id.unwrap_or(0)) == Some(BTF_VAR_GLOBAL_EXTERN),
            Some(t) => t.vlen == BTF_FUNC_EXTERN,
            None => false,
        };
        let (Some(id), Some(t), true) = (id, t, ok) else { return err(format!("failed to find BTF for extern '{}'", s.name)) };
        let sec = (1..btf.type_cnt() as u32)
            .find(|&d| btf.type_by_id(d).is_some_and(|t| t.kind == BTF_KIND_DATASEC) && btf.datasec_vars(d).iter().any(|v| v.type_id == id));
        let Some(sec) = sec else { return err(format!("failed to find BTF for extern '{}' [{id}] section", s.name)) };
        let kcfg = match btf.type_name(sec) {
            KCONFIG_SEC => {
                if t.kind == BTF_KIND_FUNC {
                    return err(format!("extern function {} is unsupported under {KCONFIG_SEC} section", s.name));
                }
                let sz = btf.resolve_size(t.size_or_type).ok().filter(|&z| z > 0);
                let sz = sz.ok_or_else(|| ObjectError(format!("failed to resolve size of extern (kcfg) '{}'", s.name)))?;
                let align = btf.align_of(t.size_or_type).ok().filter(|&a| a > 0);
                let align = align.ok_or_else(|| ObjectError(format!("failed to determine alignment of extern (kcfg) '{}'", s.name)))?;
                if !kcfg_type_known(btf, t.size_or_type) {
                    return err(format!("extern (kcfg) '{}': type is unsupported", s.name));
                }
                Some((align, sz as u32))
            }
            KSYMS_SEC => None,
            other => return err(format!("unrecognized extern section '{other}'")),
        };
        out.push(Extern { name: btf.type_name(id).to_string(), kcfg, data_off: 0 });
    }
    Ok(out)
}

/// `find_kcfg_type` is not `KCFG_UNKNOWN`: a bool, char, 1/2/4/8-byte
/// integer, `enum libbpf_tristate` or char array.
fn kcfg_type_known(btf: &Btf, id: u32) -> bool {
    kcfg_char_or_known(btf, id).is_some()
}

/// `Some(true)` for a char, `Some(false)` for another kcfg type.
fn kcfg_char_or_known(btf: &Btf, id: u32) -> Option<bool> {
    let id = btf.skip_mods_and_typedefs(id);
    let t = btf.type_by_id(id)?;
    match t.kind {
        BTF_KIND_INT => {
            let enc = (btf.int_data(id) >> 24) & 0x0f;
            if enc & BTF_INT_BOOL != 0 {
                return (t.size_or_type == 1).then_some(false);
            }
            match t.size_or_type {
                1 => Some(true),
                2 | 4 | 8 => Some(false),
                _ => None,
            }
        }
        BTF_KIND_ENUM => (t.size_or_type == 4 && btf.type_name(id) == "libbpf_tristate").then_some(false),
        BTF_KIND_ENUM64 => (btf.type_name(id) == "libbpf_tristate").then_some(false),
        BTF_KIND_ARRAY => {
            let a = btf.array(id)?;
            (a.nelems != 0 && kcfg_char_or_known(btf, a.elem_type) == Some(true)).then_some(false)
        }
        _ => None,
    }
}

/// `btf_fixup_datasec` for DATASEC `id`.
fn fixup_datasec(r: &mut Raw<'_>, btf: &Btf, elf: &ElfView<'_>, id: u32) -> Result<(), ObjectError> {
    let sec = btf.type_name(id).to_string();
    let at = btf.type_offset(id).unwrap_or(0);
    let n = btf.type_by_id(id).map_or(0, |t| t.vlen) as usize;
    if sec != KCONFIG_SEC && sec != KSYMS_SEC {
        let mut fixup_offsets = false;
        if r.rd(at + 8) == 0 {
            let size = (elf.sec_size)(&sec).unwrap_or(0);
            if size == 0 || size > u64::from(u32::MAX) {
                return err(format!("sec '{sec}': failed to determine size from ELF"));
            }
            r.wr(at + 8, size as u32);
            fixup_offsets = true;
        }
        for i in 0..n {
            let vs = at + 12 + 12 * i;
            let var = r.rd(vs);
            let Some(var_at) = btf.type_by_id(var).filter(|t| t.kind == BTF_KIND_VAR).and_then(|_| btf.type_offset(var)) else {
                return err(format!("sec '{sec}': unexpected non-VAR type found"));
            };
            let linkage = r.rd(var_at + 12);
            if linkage == BTF_VAR_STATIC || linkage == BTF_VAR_GLOBAL_EXTERN {
                continue;
            }
            let name = btf.type_name(var);
            let sym = elf.syms.iter().find(|s| s.kind == elf::STT_OBJECT && matches!(s.bind, elf::STB_GLOBAL | elf::STB_WEAK) && s.name == name);
            let Some(sym) = sym else { return err(format!("sec '{sec}': failed to find ELF symbol for VAR '{name}'")) };
            if fixup_offsets {
                r.wr(vs + 4, sym.value as u32);
            }
            if matches!(sym.visibility, elf::STV_HIDDEN | elf::STV_INTERNAL) {
                r.wr(var_at + 12, BTF_VAR_STATIC);
            }
        }
    }
    let mut vsis: Vec<[u8; 12]> = (0..n).map(|i| r.types[at + 12 + 12 * i..at + 24 + 12 * i].try_into().unwrap_or([0; 12])).collect();
    vsis.sort_by_key(|v| u32_of(v, 4));
    for (i, v) in vsis.iter().enumerate() {
        r.types[at + 12 + 12 * i..at + 24 + 12 * i].copy_from_slice(v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::btf::{BTF_MAGIC, BTF_VERSION};

    fn blob(types: &[u32], strings: &[u8]) -> Vec<u8> {
        let t: Vec<u8> = types.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut b = BTF_MAGIC.to_le_bytes().to_vec();
        b.extend_from_slice(&[BTF_VERSION, 0]);
        for w in [24u32, 0, t.len() as u32, t.len() as u32, strings.len() as u32] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend(t);
        b.extend_from_slice(strings);
        b
    }

    fn sym(name: &str, kind: u8, bind: u8, visibility: u8, shndx: u16, value: u64) -> SymInfo {
        SymInfo { name: name.into(), kind, bind, visibility, shndx, value, size: 4 }
    }

    /// clang's `.data` of `int g = 1; static int s = 2; int h
    /// __hidden = 3;` (globals at offset 0 in the DATASEC, size 0) and
    /// `.ksyms` of one kfunc and one typed variable.
    #[test]
    fn datasecs_and_externs_as_libbpf_fixes_them() {
        // strings: 1 int, 5 g, 7 s, 9 h, 11 .data, 17 .ksyms, 24 kf, 27 kv, 30 a
        let strings = b"\0int\0g\0s\0h\0.data\0.ksyms\0kf\0kv\0a\0";
        #[rustfmt::skip]
        let types = [
            1, BTF_KIND_INT << 24, 4, 32,                       // [1] int
            5, BTF_KIND_VAR << 24, 1, BTF_VAR_GLOBAL_ALLOCATED, // [2] g
            7, BTF_KIND_VAR << 24, 1, BTF_VAR_STATIC,           // [3] s
            9, BTF_KIND_VAR << 24, 1, BTF_VAR_GLOBAL_ALLOCATED, // [4] h
            11, (BTF_KIND_DATASEC << 24) | 3, 0, 2, 0, 4, 3, 8, 4, 4, 0, 4, // [5] .data
            0, (BTF_KIND_FUNC_PROTO << 24) | 1, 0, 0, 1,        // [6] void (int)
            24, (BTF_KIND_FUNC << 24) | BTF_FUNC_EXTERN, 6,     // [7] kf
            27, BTF_KIND_VAR << 24, 6, BTF_VAR_GLOBAL_EXTERN,   // [8] kv
            17, (BTF_KIND_DATASEC << 24) | 2, 0, 8, 0, 0, 7, 0, 0, // [9] .ksyms
        ];
        let raw = blob(&types, strings);
        let btf = Btf::parse(&raw).expect("parses");
        let syms = [
            sym("g", elf::STT_OBJECT, elf::STB_GLOBAL, elf::STV_DEFAULT, 3, 0),
            sym("s", elf::STT_OBJECT, elf::STB_LOCAL, elf::STV_DEFAULT, 3, 8),
            sym("h", elf::STT_OBJECT, elf::STB_GLOBAL, elf::STV_HIDDEN, 3, 4),
            sym("kf", elf::STT_NOTYPE, elf::STB_GLOBAL, elf::STV_DEFAULT, 0, 0),
            sym("kv", elf::STT_NOTYPE, elf::STB_GLOBAL, elf::STV_DEFAULT, 0, 0),
        ];
        let sizes = |n: &str| (n == ".data").then_some(12);
        let out = finalize(&raw, &btf, &ElfView { syms: &syms, sec_size: &sizes }, &[]).expect("finalizes");
        let f = Btf::parse(&out).expect("the result parses");
        // .data: its section's size, g at its symbol's 0, h at 4 and now
        // static (hidden), s (static) where clang put it; sorted
        assert_eq!(f.type_by_id(5).map(|t| t.size_or_type), Some(12));
        let vars: Vec<(u32, u32)> = f.datasec_vars(5).iter().map(|v| (v.type_id, v.offset)).collect();
        assert_eq!(vars, vec![(2, 0), (4, 4), (3, 8)]);
        assert_eq!((f.var_linkage(2), f.var_linkage(4)), (Some(BTF_VAR_GLOBAL_ALLOCATED), Some(BTF_VAR_STATIC)));
        // a dummy_ksym VAR was added: .ksyms is 4-byte slots, the kfunc's
        // slot the dummy, the kfunc global with its parameter named
        assert_eq!(f.type_cnt(), 11);
        assert_eq!((f.type_name(10), f.var_linkage(10), f.type_by_id(10).map(|t| t.size_or_type)), ("dummy_ksym", Some(1), Some(1)));
        let ks: Vec<(u32, u32, u32)> = f.datasec_vars(9).iter().map(|v| (v.type_id, v.offset, v.size)).collect();
        assert_eq!(ks, vec![(8, 0, 4), (10, 4, 4)]);
        assert_eq!(f.type_by_id(9).map(|t| t.size_or_type), Some(8));
        assert_eq!(f.type_by_id(7).map(|t| t.vlen), Some(BTF_FUNC_GLOBAL));
        assert_eq!((f.var_linkage(8), f.type_by_id(8).map(|t| t.size_or_type)), (Some(BTF_VAR_GLOBAL_ALLOCATED), Some(1)));
        // the header says where the grown sections are
        assert_eq!(out.len(), 24 + (types.len() + 4) * 4 + strings.len() + "dummy_ksym\0".len());

        // without the section, or without a global's symbol: libbpf's errors
        let none = |_: &str| None;
        assert!(finalize(&raw, &btf, &ElfView { syms: &syms, sec_size: &none }, &[]).is_err());
        assert!(finalize(&raw, &btf, &ElfView { syms: &syms[1..], sec_size: &sizes }, &[]).is_err());
        // an extern the BTF lacks
        let extra = [&syms[..], &[sym("nope", elf::STT_NOTYPE, elf::STB_GLOBAL, elf::STV_DEFAULT, 0, 0)]].concat();
        assert!(finalize(&raw, &btf, &ElfView { syms: &extra, sec_size: &sizes }, &[]).is_err());
    }

    #[test]
    fn a_hidden_subprogram_is_static_and_nothing_grows() {
        // [1] int, [2] int (void), [3] FUNC f global
        let strings = b"\0int\0f\0";
        let types = [1, BTF_KIND_INT << 24, 4, 32, 0, BTF_KIND_FUNC_PROTO << 24, 1, 5, (BTF_KIND_FUNC << 24) | BTF_FUNC_GLOBAL, 2];
        let raw = blob(&types, strings);
        let btf = Btf::parse(&raw).expect("parses");
        let none = |_: &str| None;
        let view = ElfView { syms: &[], sec_size: &none };
        assert_eq!(finalize(&raw, &btf, &view, &[]).expect("as is"), raw);
        let out = finalize(&raw, &btf, &view, &["f"]).expect("finalizes");
        assert_eq!(out.len(), raw.len());
        assert_eq!(Btf::parse(&out).expect("parses").type_by_id(3).map(|t| t.vlen), Some(BTF_FUNC_STATIC));
    }
}
