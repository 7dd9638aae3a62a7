//! BTF (`include/uapi/linux/btf.h`) as raw bytes hold it: a reader for a
//! kernel's vmlinux BTF (kfunc and kernel-variable names to type ids, as
//! libbpf resolves them) and for a program's BTF as `BPF_BTF_LOAD` takes it
//! (members, arrays, variables and data sections as libbpf's map
//! definitions need them; function prototypes and their `arg:` decl tags
//! as the verifier reads them, `btf_prepare_func_args`).

use std::collections::HashMap;

mod fields;
pub use fields::*;

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
pub const BTF_INT_SIGNED: u32 = 1 << 0;

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

/// A `struct btf_param` of a FUNC_PROTO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name_off: u32,
    pub type_id: u32,
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

    /// The value of the `i`th constant of an ENUM (its `__s32 val`, sign
    /// extended) or ENUM64 (`val_lo32 | val_hi32 << 32`); `None` for other
    /// kinds or `i` out of range.
    pub fn enum_value(&self, id: u32, i: usize) -> Option<u64> {
        let t = self.type_by_id(id)?;
        if i >= t.vlen as usize {
            return None;
        }
        match t.kind {
            BTF_KIND_ENUM => Some(self.extra_u32(id, 2 * i + 1) as i32 as i64 as u64),
            BTF_KIND_ENUM64 => Some(u64::from(self.extra_u32(id, 3 * i + 1)) | u64::from(self.extra_u32(id, 3 * i + 2)) << 32),
            _ => None,
        }
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

    /// The parameters of a FUNC_PROTO (empty for other kinds).
    pub fn params(&self, id: u32) -> Vec<Param> {
        match self.type_by_id(id) {
            Some(t) if t.kind == BTF_KIND_FUNC_PROTO => {
                (0..t.vlen as usize).map(|i| Param { name_off: self.extra_u32(id, 2 * i), type_id: self.extra_u32(id, 2 * i + 1) }).collect()
            }
            _ => Vec::new(),
        }
    }

    /// A DECL_TAG's `component_idx` (-1: the tag is on the type itself).
    pub fn decl_tag_component_idx(&self, id: u32) -> Option<i32> {
        let t = self.type_by_id(id)?;
        (t.kind == BTF_KIND_DECL_TAG).then(|| self.extra_u32(id, 0) as i32)
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
    pub fn kind_flag(&self, id: u32) -> bool {
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

    /// `hdr.str_len`: offsets below it name a string (`btf_str_by_offset`).
    pub fn str_len(&self) -> usize {
        self.strings.len()
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

/// `btf_type_str`: the kind's name as the kernel's log prints it.
pub fn btf_kind_str(kind: u32) -> &'static str {
    const NAMES: [&str; 20] = [
        "UNKNOWN",
        "INT",
        "PTR",
        "ARRAY",
        "STRUCT",
        "UNION",
        "ENUM",
        "FWD",
        "TYPEDEF",
        "VOLATILE",
        "CONST",
        "RESTRICT",
        "FUNC",
        "FUNC_PROTO",
        "VAR",
        "DATASEC",
        "FLOAT",
        "DECL_TAG",
        "TYPE_TAG",
        "ENUM64",
    ];
    NAMES.get(kind as usize).copied().unwrap_or("UNKNOWN")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw BTF blob: the 24-byte header, then the types and strings.
    fn raw_btf(types: &[u8], strings: &[u8]) -> Vec<u8> {
        let mut blob = Vec::new();
        blob.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        blob.extend_from_slice(&[BTF_VERSION, 0]);
        for w in [24u32, 0, types.len() as u32, types.len() as u32, strings.len() as u32] {
            blob.extend_from_slice(&w.to_le_bytes());
        }
        blob.extend_from_slice(types);
        blob.extend_from_slice(strings);
        blob
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
        let blob = raw_btf(&t, &strings);
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
        let mut b = Vec::new();
        b.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        b.extend_from_slice(&[BTF_VERSION, 0]);
        for w in [24u32, 0, 0, 0, 1] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.push(0);
        assert!(Btf::parse(&b).is_ok());
        b[12] = 0xff; // type_len beyond the blob
        assert!(Btf::parse(&b).is_err());
    }

    #[test]
    fn prototypes_and_decl_tags() {
        let strings = b"\0int\0p\0arg:ctx\0f\0".to_vec();
        let mut t = Vec::new();
        push(&mut t, &[1, BTF_KIND_INT << 24, 4, 32]); // [1] int
        push(&mut t, &[0, BTF_KIND_PTR << 24, 1]); // [2] int *
        push(&mut t, &[0, (BTF_KIND_FUNC_PROTO << 24) | 1, 1, 5, 2]); // [3] int (int *p)
        push(&mut t, &[15, (BTF_KIND_FUNC << 24) | BTF_FUNC_GLOBAL, 3]); // [4] f
        push(&mut t, &[7, BTF_KIND_DECL_TAG << 24, 4, 0]); // [5] arg:ctx on f's p
        let blob = raw_btf(&t, &strings);
        let b = Btf::parse(&blob).unwrap();
        assert_eq!(b.params(3), vec![Param { name_off: 5, type_id: 2 }]);
        assert_eq!(b.params(4), vec![]);
        assert_eq!(b.decl_tag_component_idx(5), Some(0));
        assert_eq!(b.type_name(5), "arg:ctx");
        assert_eq!(btf_kind_str(BTF_KIND_FUNC_PROTO), "FUNC_PROTO");
        assert_eq!(btf_kind_str(0), "UNKNOWN");
    }
}
