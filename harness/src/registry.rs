//! What the attributes register: one static description per program,
//! subprogram, map and global, collected with `inventory` across the test
//! binary and grouped into suites.
//!
//! A suite is the Rust module the items are declared in (the counterpart of
//! one `progs/*.c` object): its programs run in declaration order, link
//! against its subprograms, and see its maps (declaration order) followed by
//! one internal array map per global-data section, as libbpf creates them.

use std::collections::BTreeMap;

use bpf_isa::{Insn, Operand, Program, Reloc, RelocKind};

use crate::link::{GlobalVar, Subprog};
use crate::map::MapDef;
use crate::map::flags::{BPF_F_MMAPABLE, BPF_F_RDONLY_PROG};
use crate::map::types::BPF_MAP_TYPE_ARRAY;
use crate::uapi::BPF_OBJ_NAME_LEN;

/// Where a declaration is in the source, for ordering and reports.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// `module_path!()`: the suite.
    pub module_path: &'static str,
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
}

/// A `%[name]` operand of an asm body.
#[derive(Clone, Copy, Debug)]
pub enum AsmOperand {
    /// `imm(helper)` (its id), `imm_const(..)` and `imm_insn(..)` values.
    Imm(i64),
    /// `imm(kfunc_or_subprog)`, `imm_addr(map_or_global)`.
    Sym(&'static str),
}

/// A relocation of an asm body assembled at compile time.
#[derive(Clone, Copy, Debug)]
pub struct CompiledReloc {
    pub insn: usize,
    pub kind: RelocKind,
    pub symbol: &'static str,
    pub pos: usize,
}

/// A `bpf_asm!` body. The macro assembles it at compile time; when every
/// operand value was known to the macro the result is embedded in
/// `compiled`. Otherwise (an `imm_const`/`imm_insn` expression the macro
/// cannot evaluate) the source is assembled at first use with the values
/// rustc computed, and an error then fails the test.
#[derive(Clone, Copy, Debug)]
pub struct Asm {
    pub source: &'static str,
    pub operands: &'static [(&'static str, AsmOperand)],
    pub compiled: Option<(&'static [Insn], &'static [CompiledReloc])>,
}

impl Asm {
    pub fn program(&self) -> Result<Program, String> {
        if let Some((insns, relocs)) = self.compiled {
            return Ok(Program {
                insns: insns.to_vec(),
                relocs: relocs.iter().map(|r| Reloc { insn: r.insn, kind: r.kind, symbol: r.symbol.to_string(), pos: r.pos }).collect(),
                labels: Default::default(),
            });
        }
        let ops = self.operands;
        bpf_isa::assemble_with(self.source, &|name| {
            ops.iter().find(|(n, _)| *n == name).map(|(_, op)| match *op {
                AsmOperand::Imm(v) => Operand::Imm(v),
                AsmOperand::Sym(s) => Operand::Sym(s.to_string()),
            })
        })
        .map_err(|e| format!("asm line {}, col {}: {}", e.line, e.col, e.msg))
    }
}

/// `imm_insn(name = insn)`: the slot as `*(long *)&insn` gives it.
pub const fn insn_imm(i: Insn) -> i64 {
    let b0 = i.code as u64;
    let b1 = ((i.dst & 0xf) | (i.src << 4)) as u64;
    let off = i.off as u16 as u64;
    let imm = i.imm as u32 as u64;
    (b0 | (b1 << 8) | (off << 16) | (imm << 32)) as i64
}

/// An entry program: `#[sec(...)]` and its test annotations.
#[derive(Debug)]
pub struct ProgDecl {
    pub name: &'static str,
    pub site: Site,
    pub sec: &'static str,
    /// The annotations as test_loader's tag texts, in source order
    /// (see [`crate::spec`]).
    pub tags: &'static [&'static str],
    /// The source line of the attribute each tag came from (empty when not
    /// known, as for imported programs).
    pub tag_lines: &'static [u32],
    pub asm: Asm,
    /// A program compiled from C: the BPF object file (clang's `.bpf.o`)
    /// holding it under `name`. It loads as libbpf would load it from
    /// there, with the object's maps and license; `asm` is then empty.
    pub object: Option<&'static str>,
}

/// A `#[subprog]`: static (verified in its callers' context) or global.
#[derive(Debug)]
pub struct SubprogDecl {
    pub name: &'static str,
    pub site: Site,
    pub global: bool,
    pub nargs: u32,
    pub asm: Asm,
}

/// A map as a test declares it (`SEC(".maps")` in the kernel's selftests):
///
/// ```ignore
/// #[map]
/// static map_hash_8b: Map = Map::new(BPF_MAP_TYPE_HASH, 8, 8, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Map {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    /// Array/hash of maps: the inner map.
    pub inner: Option<&'static Map>,
    /// Elements written after creation, before the load: (key, value)
    /// bytes, as a test's setup writes them (test_progs' `pre_execution_cb`).
    pub init: &'static [(&'static [u8], &'static [u8])],
    /// A prog array's initialiser (`.values = { [key] = &prog }`): the
    /// programs, by name, libbpf puts at these keys once they are loaded.
    pub prog_slots: &'static [(u32, &'static str)],
}

impl Map {
    pub const fn new(map_type: u32, key_size: u32, value_size: u32, max_entries: u32) -> Map {
        Map { map_type, key_size, value_size, max_entries, map_flags: 0, inner: None, init: &[], prog_slots: &[] }
    }

    pub const fn flags(self, map_flags: u32) -> Map {
        Map { map_flags, ..self }
    }

    pub const fn inner(self, inner: &'static Map) -> Map {
        Map { inner: Some(inner), ..self }
    }

    pub const fn prog_slots(self, prog_slots: &'static [(u32, &'static str)]) -> Map {
        Map { prog_slots, ..self }
    }

    pub const fn init(self, init: &'static [(&'static [u8], &'static [u8])]) -> Map {
        Map { init, ..self }
    }

    pub fn to_def(&self, name: &str) -> MapDef {
        let mut d = MapDef::new(name, self.map_type, self.key_size, self.value_size, self.max_entries);
        d.map_flags = self.map_flags;
        d.inner = self.inner.map(|i| Box::new(i.to_def(&format!("{name}.inner"))));
        d.init = self.init.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect();
        d.prog_slots = self.prog_slots.iter().map(|&(k, p)| (k, p.to_string())).collect();
        d
    }
}

#[derive(Debug)]
pub struct MapDecl {
    pub name: &'static str,
    pub site: Site,
    pub map: &'static Map,
}

/// The global-data section of a `#[global]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalSection {
    /// `.data` if the initial value has a non-zero byte, else `.bss` (where
    /// clang puts zero-initialised variables).
    Auto,
    /// `.data`, `.bss`, `.rodata` or a custom `.data.*` / `.rodata.*`.
    Named(&'static str),
}

/// A global variable: `#[global] static counter: u64 = 0;`.
#[derive(Debug)]
pub struct GlobalDecl {
    pub name: &'static str,
    pub site: Site,
    pub section: GlobalSection,
    pub size: usize,
    pub align: usize,
    pub init: GlobalInit,
}

/// A global's initial bytes.
#[derive(Clone, Copy, Debug)]
pub enum GlobalInit {
    /// From the Rust value, little (false) or big (true) endian.
    Value(fn(bool) -> Vec<u8>),
    /// As laid out for the target already (suites built at run time, e.g.
    /// imported from the kernel's C sources).
    Bytes(&'static [u8]),
}

impl GlobalInit {
    pub fn bytes(&self, big_endian: bool) -> Vec<u8> {
        match self {
            GlobalInit::Value(f) => f(big_endian),
            GlobalInit::Bytes(b) => b.to_vec(),
        }
    }
}

/// Values a `#[global]` may hold: integers and arrays of them.
pub trait GlobalValue {
    fn to_bytes(&self, big_endian: bool) -> Vec<u8>;
}

macro_rules! global_ints {
    ($($t:ty),*) => {$(
        impl GlobalValue for $t {
            fn to_bytes(&self, big_endian: bool) -> Vec<u8> {
                if big_endian { self.to_be_bytes().to_vec() } else { self.to_le_bytes().to_vec() }
            }
        }
    )*};
}
global_ints!(u8, i8, u16, i16, u32, i32, u64, i64);

impl<T: GlobalValue, const N: usize> GlobalValue for [T; N] {
    fn to_bytes(&self, big_endian: bool) -> Vec<u8> {
        self.iter().flat_map(|v| v.to_bytes(big_endian)).collect()
    }
}

/// One registered declaration.
#[derive(Debug)]
pub enum Decl {
    Program(&'static ProgDecl),
    Subprog(&'static SubprogDecl),
    Map(&'static MapDecl),
    Global(&'static GlobalDecl),
}

inventory::collect!(Decl);

/// The declarations of one Rust module.
#[derive(Debug, Default)]
pub struct Suite {
    /// `module_path!()`.
    pub module_path: &'static str,
    /// The last path segment (`iters`): the test name test_progs would use.
    pub name: String,
    pub programs: Vec<&'static ProgDecl>,
    pub subprogs: Vec<&'static SubprogDecl>,
    pub maps: Vec<&'static MapDecl>,
    pub globals: Vec<&'static GlobalDecl>,
}

fn order(s: &Site) -> (&'static str, u32, u32) {
    (s.file, s.line, s.column)
}

/// Every suite of the binary, by name, each in declaration order.
pub fn suites() -> Vec<Suite> {
    fn entry<'a>(m: &'a mut BTreeMap<&'static str, Suite>, path: &'static str) -> &'a mut Suite {
        m.entry(path).or_insert_with(|| Suite { module_path: path, name: suite_name(path), ..Suite::default() })
    }
    let mut by_module: BTreeMap<&'static str, Suite> = BTreeMap::new();
    for d in inventory::iter::<Decl> {
        match d {
            Decl::Program(p) => entry(&mut by_module, p.site.module_path).programs.push(p),
            Decl::Subprog(p) => entry(&mut by_module, p.site.module_path).subprogs.push(p),
            Decl::Map(p) => entry(&mut by_module, p.site.module_path).maps.push(p),
            Decl::Global(p) => entry(&mut by_module, p.site.module_path).globals.push(p),
        }
    }
    let mut out: Vec<Suite> = by_module.into_values().collect();
    for s in &mut out {
        s.programs.sort_by_key(|p| order(&p.site));
        s.subprogs.sort_by_key(|p| order(&p.site));
        s.maps.sort_by_key(|p| order(&p.site));
        s.globals.sort_by_key(|p| order(&p.site));
    }
    out.sort_by(|a, b| (a.name.as_str(), a.module_path).cmp(&(b.name.as_str(), b.module_path)));
    out
}

/// `crate::a::iters` -> `iters`; a crate root keeps the crate name.
pub fn suite_name(module_path: &str) -> String {
    module_path.rsplit("::").next().unwrap_or(module_path).to_string()
}

/// libbpf's `internal_map_name`: as much of the object name as fits before
/// the section name in 15 characters (7 reserved for short sections);
/// custom `.data.*` sections keep only their own name.
pub fn internal_map_name(obj: &str, section: &str) -> String {
    let sfx_len = section.len().clamp(7, BPF_OBJ_NAME_LEN - 1);
    let pfx_len = if section.get(1..).is_some_and(|s| s.contains('.')) { 0 } else { (BPF_OBJ_NAME_LEN - sfx_len - 1).min(obj.len()) };
    let name: String = obj.chars().take(pfx_len).chain(section.chars().take(sfx_len)).collect();
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' { c } else { '_' }).collect()
}

/// What a suite's programs link against.
#[derive(Clone, Debug, Default)]
pub struct SuiteSymbols {
    pub subprogs: Vec<Subprog>,
    /// User maps in declaration order, then the global-data maps.
    pub maps: Vec<MapDef>,
    pub globals: Vec<GlobalVar>,
}

impl Suite {
    /// Assembles the subprograms and lays out maps and globals; `big_endian`
    /// for the initial bytes of globals (s390x).
    pub fn symbols(&self, big_endian: bool) -> Result<SuiteSymbols, String> {
        let mut out = SuiteSymbols::default();
        for s in &self.subprogs {
            let prog = s.asm.program().map_err(|e| format!("subprog {}: {e}", s.name))?;
            out.subprogs.push(Subprog { name: s.name.to_string(), prog, global: s.global, nargs: s.nargs });
        }
        for m in &self.maps {
            out.maps.push(m.map.to_def(m.name));
        }
        // Global data: one section map each, in order of first declaration.
        let mut sections: Vec<(String, Vec<u8>)> = Vec::new();
        let mut placed: Vec<(String, String, usize)> = Vec::new();
        for g in &self.globals {
            let bytes = g.init.bytes(big_endian);
            if bytes.len() != g.size {
                return Err(format!("global {}: {} initial bytes for a {}-byte value", g.name, bytes.len(), g.size));
            }
            let sec = match g.section {
                GlobalSection::Named(s) => s.to_string(),
                GlobalSection::Auto if bytes.iter().all(|&b| b == 0) => ".bss".to_string(),
                GlobalSection::Auto => ".data".to_string(),
            };
            if sec == ".bss" && bytes.iter().any(|&b| b != 0) {
                return Err(format!("global {}: a .bss variable must be zero-initialised", g.name));
            }
            let k = match sections.iter().position(|(s, _)| *s == sec) {
                Some(k) => k,
                None => {
                    sections.push((sec.clone(), Vec::new()));
                    sections.len() - 1
                }
            };
            let data = &mut sections[k].1;
            let align = g.align.max(1);
            let off = data.len().div_ceil(align) * align;
            data.resize(off, 0);
            data.extend_from_slice(&bytes);
            placed.push((g.name.to_string(), sec, off));
        }
        let base = out.maps.len();
        for (sec, data) in &sections {
            let mut d = MapDef::new(&internal_map_name(&self.name, sec), BPF_MAP_TYPE_ARRAY, 4, data.len() as u32, 1);
            let rodata = sec.starts_with(".rodata");
            d.map_flags = BPF_F_MMAPABLE | if rodata { BPF_F_RDONLY_PROG } else { 0 };
            d.init = vec![(0u32.to_le_bytes().to_vec(), data.clone())];
            d.frozen = rodata;
            out.maps.push(d);
        }
        for (name, sec, off) in placed {
            let k = sections.iter().position(|(s, _)| *s == sec).expect("section placed");
            out.globals.push(GlobalVar { name, map: base + k, off: off as u32 });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_map_names_as_libbpf() {
        assert_eq!(internal_map_name("verifier_and", ".bss"), "verifier.bss");
        assert_eq!(internal_map_name("my_object_name", ".rodata"), "my_objec.rodata");
        assert_eq!(internal_map_name("my_object_name", ".kconfig"), "my_obje.kconfig");
        assert_eq!(internal_map_name("iters", ".data"), "iters.data");
        assert_eq!(internal_map_name("x", ".rodata.abracadabra"), ".rodata.abracad");
        assert_eq!(internal_map_name("x", ".data.foo"), ".data.foo");
    }

    #[test]
    fn insn_imm_is_the_memory_image() {
        let i = Insn::new(0xe5, 1, 2, 3, -1);
        assert_eq!(insn_imm(i) as u64, i.to_u64());
    }

    #[test]
    fn suite_names() {
        assert_eq!(suite_name("bpf_selftest_suite::iters"), "iters");
        assert_eq!(suite_name("my_crate"), "my_crate");
    }
}
