//! BTF for the loaders: the reader is the model's ([`bpf_model::btf`],
//! re-exported here), and this module adds a writer for the minimal program
//! BTF test_loader's objects carry (one `FUNC` per subprogram, described by
//! `func_info`).

use std::collections::HashMap;

pub use bpf_model::btf::*;

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

    #[test]
    fn a_bad_prog_btf_is_an_error() {
        let mut b = prog_btf(&[ProgFunc { name: "f".into(), insn_off: 0, global: false, nargs: 0 }]).blob;
        assert!(Btf::parse(&b).is_ok());
        b[12] = 0xff; // type_len beyond the blob
        assert!(Btf::parse(&b).is_err());
    }
}
