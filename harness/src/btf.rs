//! BTF (`include/uapi/linux/btf.h`): a reader for a kernel's vmlinux BTF, to
//! resolve kfunc and kernel-variable names to type ids as libbpf does, and
//! for an object's `.BTF` (members, arrays, variables and data sections, as
//! libbpf's map definitions need them), and a writer for the minimal program BTF test_loader's objects carry (one `FUNC`
//! per subprogram, described by `func_info`).

use std::collections::HashMap;

pub const BTF_MAGIC: u16 = 0xeb9f;
pub const BTF_VERSION: u8 = 1;

pub const BTF_KIND_INT: u32 = 1;
pub const BTF_KIND_PTR: u32 = 2;
pub const BTF_KIND_ARRAY: u32 = 3;
pub const BTF_KIND_STRUCT: u32 = 4;
pub const BTF_KIND_UNION: u32 = 5;
pub const BTF_KIND_ENUM: u32 = 6;
pub const BTF_KIND_FWD: u32 = 7;
pub const BTF_KIND_TYPEDEF: u32 = 8;
pub const BTF_KIND_VOLATILE: u32 = 9;
pub const BTF_KIND_CONST: u32 = 10;
pub const BTF_KIND_RESTRICT: u32 = 11;
pub const BTF_KIND_FUNC: u32 = 12;
pub const BTF_KIND_FUNC_PROTO: u32 = 13;
pub const BTF_KIND_VAR: u32 = 14;
pub const BTF_KIND_DATASEC: u32 = 15;
pub const BTF_KIND_FLOAT: u32 = 16;
pub const BTF_KIND_DECL_TAG: u32 = 17;
pub const BTF_KIND_TYPE_TAG: u32 = 18;
pub const BTF_KIND_ENUM64: u32 = 19;

/// `enum btf_func_linkage`.
pub const BTF_FUNC_STATIC: u32 = 0;
pub const BTF_FUNC_GLOBAL: u32 = 1;

/// `BTF_INT_SIGNED` in the INT encoding.
const BTF_INT_SIGNED: u32 = 1 << 0;

/// Size of `struct btf_type`.
const TYPE_HDR: usize = 12;

/// A parse error, with the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtfError(pub String);

impl std::fmt::Display for BtfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BtfError {}

/// One type of a parsed BTF: enough to look names up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeEntry {
    pub kind: u32,
    pub name_off: u32,
    pub vlen: u32,
    /// `size` or `type`, depending on the kind.
    pub size_or_type: u32,
}

/// A parsed BTF blob (a base BTF: ids start at 1).
#[derive(Clone, Debug)]
pub struct Btf {
    /// `types[0]` is the implicit void (id 0).
    types: Vec<TypeEntry>,
    strings: Vec<u8>,
    /// The type section, and per type where its kind-specific data starts
    /// in it (`extra[0]` for void is unused).
    type_data: Vec<u8>,
    extra: Vec<usize>,
    /// (kind, name) -> first id with that name, for FUNC and VAR.
    by_name: HashMap<(u32, String), u32>,
}

/// A `struct btf_member` (offset in bits; for a bitfield member of a
/// `kind_flag` struct the bitfield size is in the top 8 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub name_off: u32,
    pub type_id: u32,
    pub offset: u32,
}

/// A `struct btf_array`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Array {
    pub elem_type: u32,
    pub index_type: u32,
    pub nelems: u32,
}

/// A `struct btf_var_secinfo` of a DATASEC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarSecinfo {
    pub type_id: u32,
    pub offset: u32,
    pub size: u32,
}

/// `enum btf_var_linkage` (`BTF_VAR_STATIC` and the rest).
pub const BTF_VAR_STATIC: u32 = 0;
pub const BTF_VAR_GLOBAL_ALLOCATED: u32 = 1;
pub const BTF_VAR_GLOBAL_EXTERN: u32 = 2;

/// How deep [`Btf::resolve_size`] and [`Btf::skip_mods_and_typedefs`]
/// follow references before calling the chain a loop.
const MAX_RESOLVE_DEPTH: usize = 32;

impl Btf {
    /// Parses a BTF blob as `/sys/kernel/btf/vmlinux` holds it. Kinds newer
    /// than this reader are skipped using the blob's layout section (7.3
    /// headers have one); without it they are an error.
    pub fn parse(data: &[u8]) -> Result<Btf, BtfError> {
        let u16_at = |o: usize| data.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
        let u32_at = |o: usize| data.get(o..o + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if u16_at(0) != Some(BTF_MAGIC) {
            return Err(BtfError("not BTF: bad magic (big-endian BTF is not supported)".into()));
        }
        if data.get(2) != Some(&BTF_VERSION) {
            return Err(BtfError(format!("unsupported BTF version {}", data.get(2).copied().unwrap_or(0))));
        }
        let hdr_len = u32_at(4).ok_or_else(|| BtfError("truncated BTF header".into()))? as usize;
        if hdr_len < 24 || hdr_len > data.len() {
            return Err(BtfError(format!("bad BTF header length {hdr_len}")));
        }
        let field = |o: usize| u32_at(o).unwrap_or(0) as usize;
        let (type_off, type_len, str_off, str_len) = (field(8), field(12), field(16), field(20));
        let (layout_off, layout_len) = if hdr_len >= 32 { (field(24), field(28)) } else { (0, 0) };
        let body = &data[hdr_len..];
        let section = |off: usize, len: usize, what: &str| {
            off.checked_add(len).and_then(|end| body.get(off..end)).ok_or_else(|| BtfError(format!("BTF {what} section out of bounds")))
        };
        let types_sec = section(type_off, type_len, "type")?;
        let strings = section(str_off, str_len, "string")?.to_vec();
        let layout = if layout_len > 0 { section(layout_off, layout_len, "layout")? } else { &[][..] };

        let mut types = vec![TypeEntry { kind: 0, name_off: 0, vlen: 0, size_or_type: 0 }];
        let mut extras = vec![0];
        let mut by_name = HashMap::new();
        let mut off = 0;
        while off < types_sec.len() {
            let hdr = types_sec.get(off..off + TYPE_HDR).ok_or_else(|| BtfError(format!("truncated type at {off}")))?;
            let w = |i: usize| u32::from_le_bytes([hdr[4 * i], hdr[4 * i + 1], hdr[4 * i + 2], hdr[4 * i + 3]]);
            let (name_off, info, size_or_type) = (w(0), w(1), w(2));
            let kind = (info >> 24) & 0x7f;
            let vlen = info & 0xff_ffff;
            let extra = match kind_extra(kind, vlen) {
                Some(n) => n,
                None => {
                    // struct btf_layout { u8 info_sz; u8 elem_sz; u16 flags; } per kind
                    let l = layout
                        .get(kind as usize * 4..kind as usize * 4 + 4)
                        .ok_or_else(|| BtfError(format!("unknown BTF kind {kind} at type id {} and no layout for it", types.len())))?;
                    l[0] as usize + l[1] as usize * vlen as usize
                }
            };
            let id = types.len() as u32;
            types.push(TypeEntry { kind, name_off, vlen, size_or_type });
            extras.push(off + TYPE_HDR);
            if let (BTF_KIND_FUNC | BTF_KIND_VAR, Some(name)) = (kind, str_at(&strings, name_off)) {
                by_name.entry((kind, name.to_string())).or_insert(id);
            }
            off += TYPE_HDR + extra;
        }
        if off != types_sec.len() {
            return Err(BtfError("BTF type section ends inside a type".into()));
        }
        Ok(Btf { types, strings, type_data: types_sec.to_vec(), extra: extras, by_name })
    }

    /// The `i`th u32 of type `id`'s kind-specific data (0 when out of range,
    /// which the kinds' layouts checked in [`Btf::parse`] rule out).
    fn extra_u32(&self, id: u32, i: usize) -> u32 {
        let at = self.extra.get(id as usize).copied().unwrap_or(usize::MAX).saturating_add(4 * i);
        self.type_data.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The type's name ("" for anonymous types and unknown ids).
    pub fn type_name(&self, id: u32) -> &str {
        self.type_by_id(id).and_then(|t| self.name(t.name_off)).unwrap_or("")
    }

    /// The members of a STRUCT or UNION (empty for other kinds).
    pub fn members(&self, id: u32) -> Vec<Member> {
        match self.type_by_id(id) {
            Some(t) if t.kind == BTF_KIND_STRUCT || t.kind == BTF_KIND_UNION => (0..t.vlen as usize)
                .map(|i| Member { name_off: self.extra_u32(id, 3 * i), type_id: self.extra_u32(id, 3 * i + 1), offset: self.extra_u32(id, 3 * i + 2) })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// An ARRAY's element type and length.
    pub fn array(&self, id: u32) -> Option<Array> {
        let t = self.type_by_id(id)?;
        (t.kind == BTF_KIND_ARRAY).then(|| Array { elem_type: self.extra_u32(id, 0), index_type: self.extra_u32(id, 1), nelems: self.extra_u32(id, 2) })
    }

    /// An INT's `u32` after its `struct btf_type` (encoding, offset, bits).
    pub fn int_data(&self, id: u32) -> u32 {
        if self.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_INT) { self.extra_u32(id, 0) } else { 0 }
    }

    /// A VAR's linkage (`BTF_VAR_*`).
    pub fn var_linkage(&self, id: u32) -> Option<u32> {
        let t = self.type_by_id(id)?;
        (t.kind == BTF_KIND_VAR).then(|| self.extra_u32(id, 0))
    }

    /// The variables of a DATASEC (empty for other kinds).
    pub fn datasec_vars(&self, id: u32) -> Vec<VarSecinfo> {
        match self.type_by_id(id) {
            Some(t) if t.kind == BTF_KIND_DATASEC => (0..t.vlen as usize)
                .map(|i| VarSecinfo { type_id: self.extra_u32(id, 3 * i), offset: self.extra_u32(id, 3 * i + 1), size: self.extra_u32(id, 3 * i + 2) })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// `id` with modifiers (const, volatile, restrict, type tags) and
    /// typedefs skipped, as libbpf's `skip_mods_and_typedefs`.
    pub fn skip_mods_and_typedefs(&self, mut id: u32) -> u32 {
        for _ in 0..MAX_RESOLVE_DEPTH {
            match self.type_by_id(id) {
                Some(t) if matches!(t.kind, BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_TYPE_TAG) => {
                    id = t.size_or_type
                }
                _ => return id,
            }
        }
        id
    }

    /// The size in bytes of a value of type `id`, as libbpf's
    /// `btf__resolve_size` (pointers are 8 bytes: BPF objects are 64-bit).
    pub fn resolve_size(&self, id: u32) -> Result<u64, BtfError> {
        let mut id = id;
        let mut nelems: u64 = 1;
        for _ in 0..MAX_RESOLVE_DEPTH {
            let t = self.type_by_id(id).ok_or_else(|| BtfError(format!("no BTF type [{id}]")))?;
            let size = match t.kind {
                BTF_KIND_INT | BTF_KIND_STRUCT | BTF_KIND_UNION | BTF_KIND_ENUM | BTF_KIND_ENUM64 | BTF_KIND_DATASEC | BTF_KIND_FLOAT => {
                    u64::from(t.size_or_type)
                }
                BTF_KIND_PTR => 8,
                BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_VAR | BTF_KIND_DECL_TAG | BTF_KIND_TYPE_TAG => {
                    id = t.size_or_type;
                    continue;
                }
                BTF_KIND_ARRAY => {
                    let a = self.array(id).unwrap_or(Array { elem_type: 0, index_type: 0, nelems: 0 });
                    nelems = nelems.checked_mul(u64::from(a.nelems)).ok_or_else(|| BtfError(format!("BTF type [{id}]: array size overflows")))?;
                    id = a.elem_type;
                    continue;
                }
                k => return Err(BtfError(format!("BTF type [{id}] of kind {k} has no size"))),
            };
            return nelems.checked_mul(size).filter(|&s| s <= u64::from(u32::MAX)).ok_or_else(|| BtfError(format!("BTF type [{id}]: size overflows")));
        }
        Err(BtfError(format!("BTF type [{id}]: reference chain too deep")))
    }

    /// Where type `id`'s `struct btf_type` starts in the type section.
    pub fn type_offset(&self, id: u32) -> Option<usize> {
        (id != 0).then(|| self.extra.get(id as usize).map(|e| e - TYPE_HDR)).flatten()
    }

    /// The id of the first type named `name`, of any kind
    /// (`btf__find_by_name`).
    pub fn find_by_name(&self, name: &str) -> Option<u32> {
        self.types.iter().enumerate().skip(1).find(|(_, t)| self.name(t.name_off) == Some(name)).map(|(i, _)| i as u32)
    }

    /// The alignment of a value of type `id`, as libbpf's `btf__align_of`
    /// with 8-byte pointers (packed structs and unions align to 1).
    pub fn align_of(&self, id: u32) -> Result<u32, BtfError> {
        let mut id = id;
        for _ in 0..MAX_RESOLVE_DEPTH {
            let t = self.type_by_id(id).ok_or_else(|| BtfError(format!("no BTF type [{id}]")))?;
            match t.kind {
                BTF_KIND_INT | BTF_KIND_ENUM | BTF_KIND_ENUM64 | BTF_KIND_FLOAT => return Ok(t.size_or_type.min(8)),
                BTF_KIND_PTR => return Ok(8),
                BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_TYPE_TAG => id = t.size_or_type,
                BTF_KIND_ARRAY => id = self.array(id).map_or(0, |a| a.elem_type),
                BTF_KIND_STRUCT | BTF_KIND_UNION => {
                    let kind_flag = self.kind_flag(id);
                    let mut max_align = 1;
                    for m in self.members(id) {
                        let align = self.align_of(m.type_id)?;
                        if align == 0 {
                            return Err(BtfError(format!("BTF type [{}] has no alignment", m.type_id)));
                        }
                        max_align = max_align.max(align);
                        let bitfield = kind_flag && m.offset >> 24 != 0;
                        let bit_off = if kind_flag { m.offset & 0xff_ffff } else { m.offset };
                        if !bitfield && bit_off % (8 * align) != 0 {
                            return Ok(1);
                        }
                    }
                    return Ok(if t.size_or_type % max_align != 0 { 1 } else { max_align });
                }
                k => return Err(BtfError(format!("BTF type [{id}] of kind {k} has no alignment"))),
            }
        }
        Err(BtfError(format!("BTF type [{id}]: reference chain too deep")))
    }

    /// The `kind_flag` bit of type `id`'s info.
    fn kind_flag(&self, id: u32) -> bool {
        let at = self.type_offset(id).map_or(usize::MAX, |o| o + 4);
        self.type_data.get(at..at + 4).is_some_and(|b| b[3] & 0x80 != 0)
    }

    /// Number of types including void.
    pub fn type_cnt(&self) -> usize {
        self.types.len()
    }

    pub fn type_by_id(&self, id: u32) -> Option<&TypeEntry> {
        self.types.get(id as usize)
    }

    pub fn name(&self, name_off: u32) -> Option<&str> {
        str_at(&self.strings, name_off)
    }

    /// The id of the first type of `kind` named `name` (FUNC and VAR are
    /// indexed; other kinds are searched).
    pub fn find_by_name_kind(&self, name: &str, kind: u32) -> Option<u32> {
        if kind == BTF_KIND_FUNC || kind == BTF_KIND_VAR {
            return self.by_name.get(&(kind, name.to_string())).copied();
        }
        self.types.iter().enumerate().skip(1).find(|(_, t)| t.kind == kind && self.name(t.name_off) == Some(name)).map(|(i, _)| i as u32)
    }

    /// A kfunc's BTF id: the `FUNC` of that name (what libbpf puts in a
    /// `BPF_PSEUDO_KFUNC_CALL`'s imm).
    pub fn kfunc_id(&self, name: &str) -> Option<u32> {
        self.find_by_name_kind(name, BTF_KIND_FUNC)
    }

    /// A kernel variable's BTF id (`BPF_PSEUDO_BTF_ID` of a typed `__ksym`).
    pub fn var_id(&self, name: &str) -> Option<u32> {
        self.find_by_name_kind(name, BTF_KIND_VAR)
    }
}

/// Bytes that follow `struct btf_type` for the kinds this reader knows.
fn kind_extra(kind: u32, vlen: u32) -> Option<usize> {
    let v = vlen as usize;
    Some(match kind {
        BTF_KIND_INT => 4,
        BTF_KIND_PTR | BTF_KIND_FWD | BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_FUNC | BTF_KIND_FLOAT
        | BTF_KIND_TYPE_TAG => 0,
        BTF_KIND_ARRAY => 12,
        BTF_KIND_STRUCT | BTF_KIND_UNION => 12 * v,
        BTF_KIND_ENUM => 8 * v,
        BTF_KIND_FUNC_PROTO => 8 * v,
        BTF_KIND_VAR => 4,
        BTF_KIND_DATASEC => 12 * v,
        BTF_KIND_DECL_TAG => 4,
        BTF_KIND_ENUM64 => 12 * v,
        _ => return None,
    })
}

fn str_at(strings: &[u8], off: u32) -> Option<&str> {
    let s = strings.get(off as usize..)?;
    let end = s.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&s[..end]).ok()
}

/// A function of the program BTF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgFunc {
    pub name: String,
    /// First insn (`bpf_func_info.insn_off`).
    pub insn_off: u32,
    pub global: bool,
    /// Number of `int` arguments (named `arg1`..; the kernel rejects
    /// anonymous arguments of a FUNC's prototype).
    pub nargs: u32,
}

/// The program BTF blob and its `func_info` records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgBtf {
    pub blob: Vec<u8>,
    /// `struct bpf_func_info { u32 insn_off; u32 type_id; }` records.
    pub func_info: Vec<u8>,
    pub func_info_cnt: u32,
}

/// `sizeof(struct bpf_func_info)`.
pub const FUNC_INFO_REC_SIZE: u32 = 8;

/// Builds the program BTF clang `-g` would give these functions, reduced to
/// what the verifier reads: `[1] INT int`, one `FUNC_PROTO` per distinct
/// argument count (`int (void)`, `int (int arg1, ...)`) and one `FUNC` per
/// function with its linkage.
pub fn prog_btf(funcs: &[ProgFunc]) -> ProgBtf {
    let mut w = BtfWriter::default();
    let int = w.add_int("int", 4, true);
    let mut protos: HashMap<u32, u32> = HashMap::new();
    let mut func_info = Vec::new();
    for f in funcs {
        let proto = match protos.get(&f.nargs) {
            Some(&p) => p,
            None => {
                let args: Vec<String> = (1..=f.nargs).map(|i| format!("arg{i}")).collect();
                let p = w.add_func_proto(int, &args.iter().map(|a| (a.as_str(), int)).collect::<Vec<_>>());
                protos.insert(f.nargs, p);
                p
            }
        };
        let linkage = if f.global { BTF_FUNC_GLOBAL } else { BTF_FUNC_STATIC };
        let id = w.add_func(&sanitize_ident(&f.name), proto, linkage);
        func_info.extend_from_slice(&f.insn_off.to_le_bytes());
        func_info.extend_from_slice(&id.to_le_bytes());
    }
    ProgBtf { blob: w.finish(), func_info, func_info_cnt: funcs.len() as u32 }
}

/// A name the kernel accepts as a BTF identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn sanitize_ident(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// Appends types to a new base BTF.
#[derive(Default)]
pub struct BtfWriter {
    types: Vec<u8>,
    strings: Vec<u8>,
    next_id: u32,
}

impl BtfWriter {
    fn add_str(&mut self, s: &str) -> u32 {
        if self.strings.is_empty() {
            self.strings.push(0);
        }
        if s.is_empty() {
            return 0;
        }
        let off = self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    fn add_type(&mut self, name: &str, kind: u32, vlen: u32, size_or_type: u32, extra: &[u32]) -> u32 {
        let name_off = self.add_str(name);
        for w in [name_off, (kind << 24) | (vlen & 0xff_ffff), size_or_type].iter().chain(extra) {
            self.types.extend_from_slice(&w.to_le_bytes());
        }
        self.next_id += 1;
        self.next_id
    }

    pub fn add_int(&mut self, name: &str, size: u32, signed: bool) -> u32 {
        let enc = if signed { BTF_INT_SIGNED } else { 0 };
        // encoding << 24 | offset << 16 | bits
        self.add_type(name, BTF_KIND_INT, 0, size, &[(enc << 24) | (size * 8)])
    }

    pub fn add_func_proto(&mut self, ret: u32, args: &[(&str, u32)]) -> u32 {
        let mut extra = Vec::with_capacity(args.len() * 2);
        for &(name, ty) in args {
            extra.push(self.add_str(name));
            extra.push(ty);
        }
        self.add_type("", BTF_KIND_FUNC_PROTO, args.len() as u32, ret, &extra)
    }

    pub fn add_func(&mut self, name: &str, proto: u32, linkage: u32) -> u32 {
        self.add_type(name, BTF_KIND_FUNC, linkage, proto, &[])
    }

    /// The blob: a 24-byte header (no layout section, which every kernel
    /// with BTF accepts), types, strings.
    pub fn finish(mut self) -> Vec<u8> {
        if self.strings.is_empty() {
            self.strings.push(0);
        }
        let mut out = Vec::with_capacity(24 + self.types.len() + self.strings.len());
        out.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        out.push(BTF_VERSION);
        out.push(0);
        for w in [24u32, 0, self.types.len() as u32, self.types.len() as u32, self.strings.len() as u32] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.types);
        out.extend_from_slice(&self.strings);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prog_btf_round_trips() {
        let b = prog_btf(&[
            ProgFunc { name: "main".into(), insn_off: 0, global: true, nargs: 0 },
            ProgFunc { name: "sub".into(), insn_off: 5, global: false, nargs: 0 },
            ProgFunc { name: "glob".into(), insn_off: 9, global: true, nargs: 2 },
        ]);
        let p = Btf::parse(&b.blob).unwrap();
        // int, proto(0), main, sub, proto(2), glob
        assert_eq!(p.type_cnt(), 7);
        assert_eq!(p.kfunc_id("main"), Some(3));
        assert_eq!(p.kfunc_id("sub"), Some(4));
        assert_eq!(p.kfunc_id("glob"), Some(6));
        assert_eq!(p.type_by_id(4).unwrap().vlen, BTF_FUNC_STATIC);
        assert_eq!(p.type_by_id(5).unwrap().vlen, 2);
        assert_eq!(b.func_info_cnt, 3);
        assert_eq!(&b.func_info[8..16], &[5, 0, 0, 0, 4, 0, 0, 0]);
    }

    /// A writer for the kinds map definitions use, to test the accessors.
    fn push(types: &mut Vec<u8>, words: &[u32]) {
        for w in words {
            types.extend_from_slice(&w.to_le_bytes());
        }
    }

    #[test]
    fn members_arrays_vars_and_sizes() {
        // strings: "\0int\0type\0key\0m\0.maps"
        let strings = b"\0int\0type\0key\0m\0.maps\0".to_vec();
        let mut t = Vec::new();
        push(&mut t, &[1, BTF_KIND_INT << 24, 4, 32]); // [1] int
        push(&mut t, &[0, BTF_KIND_ARRAY << 24, 0, 1, 1, 9]); // [2] int[9]
        push(&mut t, &[0, BTF_KIND_PTR << 24, 2]); // [3] int (*)[9]
        push(&mut t, &[0, BTF_KIND_CONST << 24, 1]); // [4] const int
        push(&mut t, &[0, BTF_KIND_PTR << 24, 4]); // [5] const int *
        push(&mut t, &[0, (BTF_KIND_STRUCT << 24) | 2, 16, 5, 3, 0, 10, 5, 64]); // [6] { type; key; }
        push(&mut t, &[14, BTF_KIND_VAR << 24, 6, BTF_VAR_GLOBAL_ALLOCATED]); // [7] m
        push(&mut t, &[16, (BTF_KIND_DATASEC << 24) | 1, 16, 7, 0, 16]); // [8] .maps
        let mut blob = Vec::new();
        blob.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        blob.extend_from_slice(&[BTF_VERSION, 0]);
        for w in [24u32, 0, t.len() as u32, t.len() as u32, strings.len() as u32] {
            blob.extend_from_slice(&w.to_le_bytes());
        }
        blob.extend_from_slice(&t);
        blob.extend_from_slice(&strings);
        let b = Btf::parse(&blob).unwrap();
        assert_eq!(b.array(2), Some(Array { elem_type: 1, index_type: 1, nelems: 9 }));
        assert_eq!(b.array(1), None);
        let m = b.members(6);
        assert_eq!(m.len(), 2);
        assert_eq!((b.name(m[1].name_off), m[1].type_id, m[1].offset), (Some("key"), 5, 64));
        assert_eq!(b.var_linkage(7), Some(BTF_VAR_GLOBAL_ALLOCATED));
        assert_eq!(b.datasec_vars(8), vec![VarSecinfo { type_id: 7, offset: 0, size: 16 }]);
        assert_eq!(b.find_by_name_kind(".maps", BTF_KIND_DATASEC), Some(8));
        assert_eq!(b.skip_mods_and_typedefs(4), 1);
        assert_eq!(b.resolve_size(2), Ok(36));
        assert_eq!(b.resolve_size(5), Ok(8));
        assert_eq!(b.resolve_size(7), Ok(16));
        assert_eq!(b.type_name(7), "m");
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(Btf::parse(&[]).is_err());
        assert!(Btf::parse(&[0x9f, 0xeb, 1, 0, 24, 0, 0, 0]).is_err());
        let mut b = prog_btf(&[ProgFunc { name: "f".into(), insn_off: 0, global: false, nargs: 0 }]).blob;
        b[12] = 0xff; // type_len beyond the blob
        assert!(Btf::parse(&b).is_err());
    }
}
