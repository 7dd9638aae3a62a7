//! The part of the Debian 7.3.4 kernels' vmlinux BTF the model reads: the
//! structs programs walk through `PTR_TO_BTF_ID` pointers
//! (`btf_struct_access`), the verifier's `<struct>__safe_*` allow lists and
//! the functions tracing programs attach to. Written from the kernel images
//! by `scripts/record-vmlinux-btf.py` into `harness/model/data/vmlinux_btf/` (the
//! format is described there); type ids are the kernel's own.
//!
//! A struct kept only by name (`opaque`: the target of a pointer no test
//! walks further) has no members: walking into it is reported as not
//! modelled rather than answered wrongly.

use crate::target::Arch;
use std::collections::HashMap;
use std::sync::OnceLock;

/// `BTF_KIND_*`, with what the model needs of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Int {
        size: u32,
        bits: u32,
    },
    Ptr(u32),
    Array {
        elem: u32,
        nelems: u32,
    },
    /// A struct or union; `members` is `None` when only its name was kept.
    Struct {
        union: bool,
        size: u32,
        members: Option<Vec<Member>>,
    },
    Enum {
        size: u32,
    },
    Fwd,
    Typedef(u32),
    Volatile(u32),
    Const(u32),
    Restrict(u32),
    TypeTag(u32),
    Float {
        size: u32,
    },
    Func(u32),
    /// A kernel variable (`BTF_KIND_VAR`) and whether it is one of the
    /// per-CPU section's (`.data..percpu`, `find_btf_percpu_datasec`).
    Var {
        type_id: u32,
        percpu: bool,
    },
    /// `None` params: a function pointer's target, kept by name only.
    FuncProto {
        ret: u32,
        params: Option<Vec<(String, u32)>>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub type_id: u32,
    pub bit_off: u32,
    /// 0 when not a bitfield.
    pub bitfield_size: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtfType {
    pub name: String,
    pub kind: Kind,
}

/// One arch's subset.
#[derive(Debug, Default)]
pub struct VmlinuxBtf {
    types: HashMap<u32, BtfType>,
    structs: HashMap<String, u32>,
    funcs: HashMap<String, u32>,
    typedefs: HashMap<String, u32>,
    vars: HashMap<String, u32>,
}

const X86_64: &str = include_str!("../data/vmlinux_btf/x86_64.txt");
const ARM64: &str = include_str!("../data/vmlinux_btf/arm64.txt");

impl VmlinuxBtf {
    /// The recorded subset of `arch`'s 7.3 kernel; `None` for arches no
    /// image was recorded for.
    pub fn for_arch(arch: Arch) -> Option<&'static VmlinuxBtf> {
        static X: OnceLock<VmlinuxBtf> = OnceLock::new();
        static A: OnceLock<VmlinuxBtf> = OnceLock::new();
        let (cell, text) = match arch {
            Arch::X86_64 => (&X, X86_64),
            Arch::Arm64 => (&A, ARM64),
            _ => return None,
        };
        // the data is checked in and parsed by a unit test: a parse error
        // here is a broken checkout
        Some(cell.get_or_init(|| VmlinuxBtf::parse(text).unwrap_or_default()))
    }

    /// Reads the format `scripts/record-vmlinux-btf.py` writes.
    pub fn parse(text: &str) -> Result<VmlinuxBtf, String> {
        let mut btf = VmlinuxBtf::default();
        let mut cur: Option<u32> = None;
        for (n, line) in text.lines().enumerate() {
            let err = |what: &str| format!("vmlinux BTF line {}: {what}: {line:?}", n + 1);
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| -> Result<u32, String> { f.get(i).and_then(|s| s.parse().ok()).ok_or_else(|| err("bad number")) };
            let name = |i: usize| -> String { f.get(i).filter(|s| **s != "-").map_or(String::new(), |s| s.to_string()) };
            if line.starts_with('\t') {
                let id = cur.ok_or_else(|| err("member outside a type"))?;
                let t = btf.types.get_mut(&id).ok_or_else(|| err("member outside a type"))?;
                match &mut t.kind {
                    Kind::Struct { members: Some(m), .. } => {
                        m.push(Member { name: name(0), type_id: num(1)?, bit_off: num(2)?, bitfield_size: if f.len() > 3 { num(3)? } else { 0 } })
                    }
                    Kind::FuncProto { params: Some(p), .. } => p.push((name(0), num(1)?)),
                    _ => return Err(err("member of a type without members")),
                }
                continue;
            }
            let id = num(0)?;
            let opaque = f.last() == Some(&"opaque");
            let (tname, kind) = match *f.get(1).ok_or_else(|| err("no kind"))? {
                "int" => (name(2), Kind::Int { size: num(4)?, bits: num(6)? }),
                "ptr" => (String::new(), Kind::Ptr(num(2)?)),
                "array" => (String::new(), Kind::Array { elem: num(2)?, nelems: num(3)? }),
                k @ ("struct" | "union") => {
                    let members = if opaque { None } else { Some(Vec::new()) };
                    (name(2), Kind::Struct { union: k == "union", size: num(4)?, members })
                }
                "enum" | "enum64" => (name(2), Kind::Enum { size: num(4)? }),
                "float" => (name(2), Kind::Float { size: num(4)? }),
                "fwd" => (name(2), Kind::Fwd),
                "typedef" => (name(2), Kind::Typedef(num(3)?)),
                "volatile" => (String::new(), Kind::Volatile(num(3)?)),
                "const" => (String::new(), Kind::Const(num(3)?)),
                "restrict" => (String::new(), Kind::Restrict(num(3)?)),
                "type_tag" => (name(2), Kind::TypeTag(num(3)?)),
                "func" => (name(2), Kind::Func(num(3)?)),
                "var" => (name(2), Kind::Var { type_id: num(3)?, percpu: f.get(4) == Some(&"percpu") }),
                "func_proto" => (String::new(), Kind::FuncProto { ret: num(2)?, params: if opaque { None } else { Some(Vec::new()) } }),
                _ => return Err(err("unknown kind")),
            };
            match kind {
                Kind::Struct { .. } if !tname.is_empty() => {
                    btf.structs.entry(tname.clone()).or_insert(id);
                }
                Kind::Func(_) => {
                    btf.funcs.insert(tname.clone(), id);
                }
                Kind::Typedef(_) => {
                    btf.typedefs.entry(tname.clone()).or_insert(id);
                }
                Kind::Var { .. } => {
                    btf.vars.entry(tname.clone()).or_insert(id);
                }
                _ => {}
            }
            btf.types.insert(id, BtfType { name: tname, kind });
            cur = Some(id);
        }
        Ok(btf)
    }

    /// The same view of a program's own BTF (its local types, which
    /// `btf_struct_walk` walks for allocated objects); kinds the walk
    /// never meets are left out.
    pub fn from_prog_btf(btf: &crate::btf::Btf) -> VmlinuxBtf {
        use crate::btf::*;
        let mut out = VmlinuxBtf::default();
        for id in 1..btf.type_cnt() as u32 {
            let Some(&t) = btf.type_by_id(id) else { continue };
            let kind = match t.kind {
                BTF_KIND_INT => Kind::Int { size: t.size_or_type, bits: btf.int_data(id) & 0xff },
                BTF_KIND_PTR => Kind::Ptr(t.size_or_type),
                BTF_KIND_ARRAY => match btf.array(id) {
                    Some(a) => Kind::Array { elem: a.elem_type, nelems: a.nelems },
                    None => continue,
                },
                BTF_KIND_STRUCT | BTF_KIND_UNION => {
                    let kflag = btf.kind_flag(id);
                    let members = btf
                        .members(id)
                        .iter()
                        .map(|m| crate::vmlinux_btf::Member {
                            name: btf.name(m.name_off).unwrap_or("").to_string(),
                            type_id: m.type_id,
                            bit_off: if kflag { m.offset & 0xff_ffff } else { m.offset },
                            bitfield_size: if kflag { m.offset >> 24 } else { 0 },
                        })
                        .collect();
                    Kind::Struct { union: t.kind == BTF_KIND_UNION, size: t.size_or_type, members: Some(members) }
                }
                BTF_KIND_ENUM | BTF_KIND_ENUM64 => Kind::Enum { size: t.size_or_type },
                BTF_KIND_FWD => Kind::Fwd,
                BTF_KIND_TYPEDEF => Kind::Typedef(t.size_or_type),
                BTF_KIND_VOLATILE => Kind::Volatile(t.size_or_type),
                BTF_KIND_CONST => Kind::Const(t.size_or_type),
                BTF_KIND_RESTRICT => Kind::Restrict(t.size_or_type),
                BTF_KIND_TYPE_TAG => Kind::TypeTag(t.size_or_type),
                BTF_KIND_FLOAT => Kind::Float { size: t.size_or_type },
                BTF_KIND_FUNC_PROTO => Kind::FuncProto { ret: t.size_or_type, params: None },
                _ => continue,
            };
            out.types.insert(id, BtfType { name: btf.type_name(id).to_string(), kind });
        }
        out
    }

    /// `btf_type_by_id`; `None` for an id outside the subset.
    pub fn type_by_id(&self, id: u32) -> Option<&BtfType> {
        self.types.get(&id)
    }

    /// `btf_find_by_name_kind(..., BTF_KIND_STRUCT/UNION)`.
    pub fn struct_by_name(&self, name: &str) -> Option<u32> {
        self.structs.get(name).copied()
    }

    /// `btf_find_by_name_kind(..., BTF_KIND_FUNC)`: what `attach_btf_id`
    /// names for fentry/fexit.
    pub fn func_by_name(&self, name: &str) -> Option<u32> {
        self.funcs.get(name).copied()
    }

    /// `btf_find_by_name_kind(..., BTF_KIND_VAR)`: what libbpf puts in a
    /// typed `__ksym`'s `BPF_PSEUDO_BTF_ID` load.
    pub fn var_by_name(&self, name: &str) -> Option<u32> {
        self.vars.get(name).copied()
    }

    /// `btf_find_by_name_kind` for the kinds an attach target is looked up
    /// by (FUNC, TYPEDEF, STRUCT); `None` for other kinds or names outside
    /// the subset.
    pub fn find_by_name_kind(&self, name: &str, kind: u32) -> Option<u32> {
        use crate::btf::{BTF_KIND_FUNC, BTF_KIND_STRUCT, BTF_KIND_TYPEDEF};
        match kind {
            BTF_KIND_FUNC => self.func_by_name(name),
            BTF_KIND_TYPEDEF => self.typedefs.get(name).copied(),
            BTF_KIND_STRUCT => self.struct_by_name(name),
            _ => None,
        }
    }

    /// `btf_type_skip_modifiers`: past typedefs, cv-qualifiers and type
    /// tags; returns the id reached (0: void, or outside the subset).
    pub fn skip_modifiers(&self, mut id: u32) -> u32 {
        // bounded: BTF chains are short, a loop in bad data must not hang
        for _ in 0..64 {
            match self.types.get(&id).map(|t| &t.kind) {
                Some(Kind::Typedef(n) | Kind::Volatile(n) | Kind::Const(n) | Kind::Restrict(n) | Kind::TypeTag(n)) => id = *n,
                _ => return id,
            }
        }
        id
    }

    /// The size of a sized type (`btf_type_size` after modifiers).
    pub fn type_size(&self, id: u32) -> Option<u32> {
        match &self.types.get(&self.skip_modifiers(id))?.kind {
            Kind::Int { size, .. } | Kind::Enum { size } | Kind::Float { size } | Kind::Struct { size, .. } => Some(*size),
            Kind::Ptr(_) => Some(8),
            Kind::Array { elem, nelems } => self.type_size(*elem)?.checked_mul(*nelems),
            _ => None,
        }
    }

    /// The size of the first sized type (int, enum, float, struct) named
    /// `name`, past typedefs: what a name the model keeps for a
    /// non-struct type (`int`) resolves to.
    pub fn named_type_size(&self, name: &str) -> Option<u32> {
        let mut ids: Vec<&u32> =
            self.types.iter().filter(|(_, t)| t.name == name && !matches!(t.kind, Kind::Func(_) | Kind::Var { .. })).map(|(id, _)| id).collect();
        ids.sort();
        ids.into_iter().find_map(|id| self.type_size(*id))
    }

    /// The name of a struct or union id, as the verifier prints
    /// `ptr_<name>`.
    pub fn name_of(&self, id: u32) -> &str {
        self.types.get(&id).map_or("", |t| t.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_arches_parse() {
        for (arch, text) in [(Arch::X86_64, X86_64), (Arch::Arm64, ARM64)] {
            let btf = VmlinuxBtf::parse(text).unwrap_or_else(|e| panic!("{arch}: {e}"));
            let skb = btf.struct_by_name("sk_buff").expect("sk_buff");
            // the 7.3 layout: len at 112, 232 bytes
            let Some(BtfType { kind: Kind::Struct { size, members: Some(m), .. }, .. }) = btf.type_by_id(skb) else {
                panic!("{arch}: sk_buff is not a full struct")
            };
            assert_eq!(*size, 232);
            assert!(m.iter().any(|m| m.name == "len" && m.bit_off == 112 * 8));
            assert!(btf.func_by_name("bpf_fentry_test1").is_some());
            // a typed ksym of the tests: per-CPU, of type int
            let v = btf.var_by_name("bpf_prog_active").expect("bpf_prog_active");
            let Some(BtfType { kind: Kind::Var { type_id, percpu: true }, .. }) = btf.type_by_id(v) else {
                panic!("{arch}: bpf_prog_active is not a per-CPU var")
            };
            assert_eq!(btf.type_size(*type_id), Some(4));
        }
    }

    #[test]
    fn bad_text_is_an_error() {
        assert!(VmlinuxBtf::parse("1 frob x").is_err());
        assert!(VmlinuxBtf::parse("\tx 1 2").is_err());
        assert!(VmlinuxBtf::parse("1 int").is_err());
    }

    #[test]
    fn fentry_ids_are_the_kernels() {
        // bpf_cast_to_kern_ctx is 69617 / 79366 in the recorded logs; the
        // fentry targets sit in the same numbering
        let x = VmlinuxBtf::for_arch(Arch::X86_64).unwrap();
        assert_eq!(x.func_by_name("bpf_fentry_test1"), Some(69927));
    }
}
