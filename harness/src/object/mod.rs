//! BPF objects: the `.bpf.o` files clang makes of C programs, opened with
//! libbpf's semantics (`bpf_object__open`, then `bpf_object__relocate` for
//! one program) so that every backend gets what libbpf would hand the
//! kernel.
//!
//! What is read, in libbpf's terms:
//! - programs: each `STT_FUNC` symbol of an executable section; those of
//!   `.text` are subprograms, the rest main programs whose section name
//!   gives their type ([`crate::prog_type::sec_def`], the project's one
//!   copy of libbpf's table);
//! - maps ([`maps`]): the BTF-defined maps of `.maps`, then one internal
//!   array per non-empty `.data*`, `.rodata*` and `.bss*` section; the
//!   `__arena` globals of `.addr_space.1` go at the end of the arena map;
//! - relocations ([`relo`]): map and global-data references, subprogram
//!   calls and addresses, kfunc calls and typed `__ksym` variables; the
//!   linked program is the main program with the subprograms it reaches
//!   appended depth first, then the exception callback its BTF names
//!   (`exception_callback:<name>`), in [`LinkedProgram`]'s shape.
//!
//! - BTF ([`btf`], [`btf_ext`]): the object's `.BTF` finalized as libbpf
//!   does before BPF_BTF_LOAD, and each linked program's `func_info` and
//!   `line_info` from `.BTF.ext`; maps carry their key and value type ids.
//!
//! [`BpfObject::load_request`] puts it all together for one program: what
//! every caller that loads a program of an object goes through.
//!
//! Not supported yet, each an [`ObjectError`] naming the section or symbol
//! (for the object, or for [`BpfObject::link`] of the programs concerned):
//! `.kconfig` and typeless `__ksym` externs, global per-CPU data,
//! struct_ops, jump tables, map pinning, NUMA nodes.

pub mod btf;
pub mod btf_ext;
pub mod core;
mod maps;
mod relo;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;
use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};

use crate::backend::{BtfMode, LoadRequest};
use crate::btf::{BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, Btf};
use crate::link::LinkedProgram;
use crate::map::MapDef;
use crate::prog_type::{SecDef, sec_def};
use crate::target::Arch;

pub use btf::ObjectBtf;
pub use btf_ext::{BtfExt, BtfExtRecords, ProgBtfExt};
pub use maps::{BpfMap, MapKind, adjust_ringbuf_sz};

/// Why an object, or one of its programs, cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectError(pub String);

impl fmt::Display for ObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ObjectError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ObjectError> {
    Err(ObjectError(msg.into()))
}

/// `sizeof(struct bpf_insn)`.
const INSN_SZ: u64 = 8;

/// One function of an executable section: a main program, or (in `.text`)
/// a subprogram.
#[derive(Clone, Debug)]
pub struct BpfProgram {
    /// The function's symbol.
    pub name: String,
    /// Its ELF section (`SEC("...")`), with any `?` kept.
    pub sec_name: String,
    /// Type, expected attach type and flags from the section name; `None`
    /// for a section libbpf does not know (its load would fail).
    pub sec_def: Option<SecDef>,
    /// libbpf's `autoload`: false for a `?`-prefixed section.
    pub autoload: bool,
    /// The instructions as the section holds them, with libbpf's one
    /// rewrite before linking: `ld_imm64` of a subprogram's address marked
    /// `BPF_PSEUDO_FUNC`.
    pub insns: Vec<Insn>,
    /// A global function, as its BTF `FUNC` will say: global or weak
    /// binding and not hidden (libbpf marks hidden ones static).
    pub global: bool,
    /// Number of arguments (its BTF prototype's; 0 without BTF).
    pub nargs: u32,
    /// libbpf's `mark_btf_static`: a global symbol of hidden or internal
    /// visibility, whose BTF FUNC libbpf makes static.
    mark_btf_static: bool,
    sec_idx: usize,
    /// First instruction's index in the section.
    sec_insn_off: usize,
    relos: Vec<relo::Reloc>,
}

impl BpfProgram {
    fn contains(&self, sec_idx: usize, insn: usize) -> bool {
        self.sec_idx == sec_idx && insn >= self.sec_insn_off && insn < self.sec_insn_off + self.insns.len()
    }
}

/// An opened object.
#[derive(Clone, Debug)]
pub struct BpfObject {
    /// libbpf's object name: the file name up to its first `.`.
    pub name: String,
    /// The `license` section's string ("" without one).
    pub license: String,
    /// The object's BTF (`.BTF`) as libbpf finalizes it ([`btf`]), when it
    /// has one.
    pub btf: Option<Btf>,
    /// That BTF's blob, as BPF_BTF_LOAD gets it.
    btf_blob: Option<Arc<Vec<u8>>>,
    /// `.BTF.ext`, its sections mapped to ELF sections; `None` without
    /// one, or when libbpf would ignore it.
    btf_ext: Option<BtfExt>,
    /// All functions, sorted by section then offset as libbpf keeps them.
    progs: Vec<BpfProgram>,
    maps: Vec<BpfMap>,
    text_shndx: Option<usize>,
}

/// libbpf's object name for a path: the file name up to its first `.`.
pub fn object_name(path: &Path) -> String {
    let base = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    base.split('.').next().unwrap_or("").to_string()
}

/// A symbol, as the parts of libbpf that classify symbols read it.
#[derive(Clone, Debug)]
pub(crate) struct SymInfo {
    pub name: String,
    pub kind: u8,
    pub bind: u8,
    pub visibility: u8,
    pub shndx: u16,
    pub value: u64,
    pub size: u64,
}

/// The ELF side of an object, while it is being opened.
pub(crate) struct Elf<'a> {
    pub data: &'a [u8],
    pub endian: object::Endianness,
    pub sections: object::read::elf::SectionTable<'a, elf::FileHeader64<object::Endianness>>,
    pub syms: Vec<SymInfo>,
    pub sec_names: Vec<String>,
}

impl<'a> Elf<'a> {
    fn parse(data: &'a [u8]) -> Result<Elf<'a>, ObjectError> {
        let bad = |e: object::read::Error| ObjectError(format!("not a BPF ELF object: {e}"));
        let hdr = elf::FileHeader64::<object::Endianness>::parse(data).map_err(bad)?;
        let endian = hdr.endian().map_err(bad)?;
        if hdr.e_machine(endian) != elf::EM_BPF {
            return err(format!("not a BPF object: ELF machine {}", hdr.e_machine(endian)));
        }
        if endian != object::Endianness::Little {
            return err("big-endian BPF objects are not supported");
        }
        let sections = hdr.sections(endian, data).map_err(bad)?;
        let mut sec_names = Vec::new();
        for sh in sections.iter() {
            let n = sections.section_name(endian, sh).map_err(bad)?;
            sec_names.push(String::from_utf8_lossy(n).into_owned());
        }
        let symtab = sections.symbols(endian, data, elf::SHT_SYMTAB).map_err(bad)?;
        if symtab.is_empty() {
            return err("the object has no symbol table");
        }
        let mut syms = Vec::new();
        for s in symtab.symbols() {
            let name = symtab.symbol_name(endian, s).map_err(bad)?;
            syms.push(SymInfo {
                name: String::from_utf8_lossy(name).into_owned(),
                kind: s.st_type(),
                bind: s.st_bind(),
                visibility: s.st_visibility(),
                shndx: s.st_shndx(endian),
                value: s.st_value(endian),
                size: s.st_size(endian),
            });
        }
        Ok(Elf { data, endian, sections, syms, sec_names })
    }

    pub fn header(&self, idx: usize) -> Option<&'a elf::SectionHeader64<object::Endianness>> {
        self.sections.section(object::SectionIndex(idx)).ok()
    }

    /// A section's bytes (empty for `SHT_NOBITS`).
    pub fn sec_data(&self, idx: usize) -> Result<&'a [u8], ObjectError> {
        let sh = self.header(idx).ok_or_else(|| ObjectError(format!("no section #{idx}")))?;
        sh.data(self.endian, self.data).map_err(|e| ObjectError(format!("section '{}': {e}", self.sec_name(idx))))
    }

    pub fn sec_size(&self, idx: usize) -> u64 {
        self.header(idx).map_or(0, |sh| sh.sh_size(self.endian))
    }

    pub fn sec_name(&self, idx: usize) -> &str {
        self.sec_names.get(idx).map_or("<?>", String::as_str)
    }

    /// The name libbpf uses for a symbol: a section symbol's section name.
    pub fn sym_name(&self, s: &SymInfo) -> String {
        if s.kind == elf::STT_SECTION { self.sec_name(s.shndx as usize).to_string() } else { s.name.clone() }
    }
}

/// What `bpf_object__elf_collect` makes of each section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SecType {
    Other,
    Progs,
    Data,
    Rodata,
    Bss,
    Maps,
    Arena,
    /// A section libbpf uses that this reader does not yet (struct_ops,
    /// jump tables, per-CPU data): references to it fail with this.
    Unsupported(&'static str),
    /// Relocations for the section of that index.
    Relo(usize),
}

fn is_prefixed(name: &str, base: &str) -> bool {
    name == base || name.strip_prefix(base).is_some_and(|r| r.starts_with('.'))
}

impl BpfObject {
    /// Opens the object at `path` (its name as libbpf derives it).
    pub fn open(path: &Path) -> Result<BpfObject, ObjectError> {
        let data = std::fs::read(path).map_err(|e| ObjectError(format!("{}: {e}", path.display())))?;
        BpfObject::open_bytes(&data, &object_name(path)).map_err(|e| ObjectError(format!("{}: {e}", path.display())))
    }

    /// Opens an object's bytes, named `name` (libbpf's `object_name`).
    pub fn open_bytes(data: &[u8], name: &str) -> Result<BpfObject, ObjectError> {
        let elf = Elf::parse(data)?;
        let mut license = String::new();
        let mut btf_raw = None;
        let mut btf_ext_raw = None;
        let mut types = vec![SecType::Other; elf.sec_names.len()];
        let mut text_shndx = None;
        for (idx, sh) in elf.sections.iter().enumerate().skip(1) {
            let name = elf.sec_name(idx);
            let (sh_type, flags) = (sh.sh_type(elf.endian), sh.sh_flags(elf.endian));
            let size = sh.sh_size(elf.endian);
            if name == "license" {
                let d = elf.sec_data(idx)?;
                license = String::from_utf8_lossy(d.split(|&b| b == 0).next().unwrap_or(&[])).into_owned();
            } else if name == ".BTF" {
                btf_raw = Some(elf.sec_data(idx)?);
            } else if name == ".BTF.ext" {
                btf_ext_raw = Some(elf.sec_data(idx)?);
            } else if name == ".maps" {
                types[idx] = SecType::Maps;
            } else if name == "maps" {
                return err("section 'maps': legacy map definitions are not supported (libbpf 1.0 refuses them too)");
            } else if name == "version" || name.starts_with(".debug_") || name.starts_with(".rel.debug_") {
                // the kernel version and DWARF: nothing the kernel is given
            } else if sh_type == elf::SHT_PROGBITS && size > 0 {
                if flags & u64::from(elf::SHF_EXECINSTR) != 0 {
                    if name == ".text" {
                        text_shndx = Some(idx);
                    }
                    types[idx] = SecType::Progs;
                } else if is_prefixed(name, ".data") {
                    types[idx] = SecType::Data;
                } else if is_prefixed(name, ".rodata") {
                    types[idx] = SecType::Rodata;
                } else if name == maps::ARENA_SEC {
                    types[idx] = SecType::Arena;
                } else if name.starts_with(".struct_ops") {
                    types[idx] = SecType::Unsupported("struct_ops maps");
                } else if name == ".jumptables" {
                    types[idx] = SecType::Unsupported("jump tables (gotox)");
                } else if name == ".percpu" {
                    types[idx] = SecType::Unsupported("global per-CPU data");
                }
            } else if sh_type == elf::SHT_REL {
                let target = sh.sh_info(elf.endian) as usize;
                if sh.sh_entsize(elf.endian) != 16 || target >= elf.sec_names.len() {
                    return err(format!("section '{name}': malformed relocation section"));
                }
                types[idx] = SecType::Relo(target);
            } else if sh_type == elf::SHT_NOBITS && is_prefixed(name, ".bss") {
                types[idx] = SecType::Bss;
            }
        }
        // relocation sections libbpf keeps: those of code, and of .maps
        for t in types.iter_mut() {
            if let SecType::Relo(target) = *t
                && !relo_target_kept(&elf, target)
            {
                *t = SecType::Other;
            }
        }
        let btf = btf_raw.map(|d| Btf::parse(d).map_err(|e| ObjectError(format!("section '.BTF': {e}")))).transpose()?;
        // libbpf_needs_btf: a .BTF.ext it cannot read is then an error, and
        // ignored otherwise
        let needs_btf = types.contains(&SecType::Maps)
            || elf.sec_names.iter().any(|n| n.starts_with(".struct_ops"))
            || elf.syms.iter().any(|s| s.shndx == elf::SHN_UNDEF && matches!(s.bind, elf::STB_GLOBAL | elf::STB_WEAK) && s.kind == elf::STT_NOTYPE);
        let btf_ext = match (btf_ext_raw, &btf) {
            (Some(d), Some(b)) => match BtfExt::parse(d) {
                Ok(mut ext) => {
                    let names = &elf.sec_names;
                    ext.map_sections(|off| b.name(off).map(str::to_string), |n| names.iter().skip(1).position(|s| s == n).map(|i| i + 1));
                    Some(ext)
                }
                Err(e) if needs_btf => return err(format!("section '.BTF.ext': {e}; BTF is required, but is missing or corrupted")),
                Err(_) => None,
            },
            _ => None,
        };
        let mut obj = BpfObject { name: name.to_string(), license, btf, btf_blob: None, btf_ext, progs: Vec::new(), maps: Vec::new(), text_shndx };
        for (idx, t) in types.iter().enumerate() {
            if *t == SecType::Progs {
                obj.add_programs(&elf, idx)?;
            }
        }
        obj.progs.sort_by_key(|p| (p.sec_idx, p.sec_insn_off));
        // externs are classified by the BTF as clang wrote it, maps and
        // the kernel get it finalized
        let mut clang_btf = None;
        if let (Some(raw), Some(parsed)) = (btf_raw, &obj.btf) {
            let hidden: Vec<&str> = obj.progs.iter().filter(|p| p.mark_btf_static && obj.is_subprog(p)).map(|p| p.name.as_str()).collect();
            let sec_size = |n: &str| elf.sec_names.iter().skip(1).position(|s| s == n).map(|i| elf.sec_size(i + 1));
            let view = btf::ElfView { syms: &elf.syms, sec_size: &sec_size };
            let blob = btf::finalize(raw, parsed, &view, &hidden).map_err(|e| ObjectError(format!("section '.BTF': {e}")))?;
            let finalized = Btf::parse(&blob).map_err(|e| ObjectError(format!("section '.BTF' as finalized: {e}")))?;
            clang_btf = obj.btf.replace(finalized);
            obj.btf_blob = Some(Arc::new(blob));
        }
        obj.maps = maps::init_maps(&obj, &elf, &types)?;
        for (idx, t) in types.iter().enumerate() {
            if let SecType::Relo(target) = *t {
                if types[target] == SecType::Maps {
                    maps::collect_map_relos(&mut obj, &elf, idx, target)?;
                } else {
                    relo::collect_prog_relos(&mut obj, &elf, clang_btf.as_ref(), &types, idx, target)?;
                }
            }
        }
        relo::mark_subprog_addrs(&mut obj);
        Ok(obj)
    }

    /// `bpf_object__add_programs`: one program per `STT_FUNC` symbol of the
    /// section.
    fn add_programs(&mut self, elf: &Elf<'_>, idx: usize) -> Result<(), ObjectError> {
        let data = elf.sec_data(idx)?;
        let sec_name = elf.sec_name(idx).to_string();
        for s in &elf.syms {
            if s.shndx as usize != idx || s.kind != elf::STT_FUNC {
                continue;
            }
            if s.value % INSN_SZ != 0 || s.size % INSN_SZ != 0 {
                return err(format!("section '{sec_name}': program '{}' is not made of whole instructions", s.name));
            }
            let code = s.value.checked_add(s.size).and_then(|end| data.get(s.value as usize..end as usize));
            let Some(code) = code else {
                return err(format!("section '{sec_name}': program '{}' lies outside its section", s.name));
            };
            if Some(idx) != self.text_shndx && s.bind == elf::STB_LOCAL {
                return err(format!("section '{sec_name}': program '{}' is static, which libbpf does not support", s.name));
            }
            let mark_btf_static = s.bind != elf::STB_LOCAL && matches!(s.visibility, elf::STV_HIDDEN | elf::STV_INTERNAL);
            let global = matches!(s.bind, elf::STB_GLOBAL | elf::STB_WEAK) && !mark_btf_static;
            let nargs = self.btf.as_ref().and_then(|b| func_nargs(b, &s.name)).unwrap_or(0);
            let sd = if Some(idx) == self.text_shndx { None } else { sec_def(&sec_name) };
            self.progs.push(BpfProgram {
                name: s.name.clone(),
                autoload: !sec_name.starts_with('?'),
                sec_name: sec_name.clone(),
                sec_def: sd,
                insns: code.chunks_exact(8).map(|c| Insn::from_bytes(c.try_into().unwrap_or_default())).collect(),
                global,
                nargs,
                mark_btf_static,
                sec_idx: idx,
                sec_insn_off: (s.value / INSN_SZ) as usize,
                relos: Vec::new(),
            });
        }
        Ok(())
    }

    fn is_subprog(&self, p: &BpfProgram) -> bool {
        Some(p.sec_idx) == self.text_shndx
    }

    /// The main programs, in section then offset order.
    pub fn programs(&self) -> impl Iterator<Item = &BpfProgram> {
        self.progs.iter().filter(|p| !self.is_subprog(p))
    }

    /// The subprograms (`.text` functions).
    pub fn subprograms(&self) -> impl Iterator<Item = &BpfProgram> {
        self.progs.iter().filter(|p| self.is_subprog(p))
    }

    /// A main program by name.
    pub fn program(&self, name: &str) -> Option<&BpfProgram> {
        self.programs().find(|p| p.name == name)
    }

    /// The maps, in libbpf's order: `.maps` definitions, then global data.
    pub fn maps(&self) -> &[BpfMap] {
        &self.maps
    }

    /// The maps as a [`crate::backend::LoadRequest`] takes them (indices as
    /// in [`LinkedProgram`]'s relocations).
    pub fn map_defs(&self) -> Vec<MapDef> {
        self.maps.iter().map(|m| m.def.clone()).collect()
    }

    /// The main program `name` linked as libbpf relocates it.
    pub fn link(&self, name: &str) -> Result<LinkedProgram, ObjectError> {
        self.link_with_btf_ext(name).map(|(l, _)| l)
    }

    /// [`BpfObject::link`], with the linked program's `.BTF.ext` records.
    pub fn link_with_btf_ext(&self, name: &str) -> Result<(LinkedProgram, ProgBtfExt), ObjectError> {
        let idx = self.progs.iter().position(|p| p.name == name && !self.is_subprog(p)).ok_or_else(|| {
            ObjectError(format!(
                "object '{}' has no program '{name}' (it has: {})",
                self.name,
                self.programs().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })?;
        relo::link(self, idx)
    }

    /// Everything loading program `name` takes, as libbpf's
    /// `bpf_object__load` hands it to the kernel: the linked program; the
    /// object's maps with their BTF type ids; type, expected attach type,
    /// flags and attach target from its section; the object's license; and
    /// [`BtfMode::Object`] with the object's finalized BTF and the
    /// program's `func_info` and `line_info` ([`BtfMode::None`] without
    /// `.BTF`). The rest are libbpf's defaults (log level 0 with
    /// test_loader's log buffer size, privileged, no test run, no JIT
    /// dump) for the caller to change; `prog_flags` are the section's,
    /// which test_loader adds its own to.
    ///
    /// The one way to load a program of an object: `check FILE.bpf.o`
    /// and every other caller go through it.
    pub fn load_request(&self, name: &str, arch: Arch) -> Result<LoadRequest, ObjectError> {
        let (prog, ext) = self.link_with_btf_ext(name)?;
        let p = self.program(name).ok_or_else(|| ObjectError(format!("no program '{name}'")))?;
        let d = p.sec_def.ok_or_else(|| ObjectError(format!("program '{name}': section '{}' is not one libbpf knows", p.sec_name)))?;
        let btf = match &self.btf_blob {
            Some(blob) => BtfMode::Object(Arc::new(ObjectBtf { btf: Arc::clone(blob), func_info: ext.func_info, line_info: ext.line_info })),
            None => BtfMode::None,
        };
        Ok(LoadRequest {
            name: name.to_string(),
            prog,
            prog_type: d.prog_type,
            expected_attach_type: d.attach_type,
            attach_func: crate::prog_type::sec_attach_target(&p.sec_name).map(str::to_string),
            prog_flags: d.flags,
            log_level: 0,
            unpriv: false,
            caps_unpriv: Vec::new(),
            maps: self.map_defs(),
            btf,
            test_run: None,
            arch,
            want_jited: false,
            license: self.license.clone(),
            privileged_setup: false,
            log_size: crate::backend::loader::LOG_BUF_SIZE,
            create_every_map: false,
            scenario: Default::default(),
        })
    }

    fn find_prog_by_sec_insn(&self, sec_idx: usize, insn: usize) -> Option<usize> {
        self.progs.iter().position(|p| p.contains(sec_idx, insn))
    }
}

/// Whether libbpf keeps the relocations of section `idx`: those of code
/// and of `.maps`.
fn relo_target_kept(elf: &Elf<'_>, idx: usize) -> bool {
    elf.sec_name(idx) == ".maps" || elf.header(idx).is_some_and(|sh| sh.sh_flags(elf.endian) & u64::from(elf::SHF_EXECINSTR) != 0)
}

/// The argument count of the BTF `FUNC` named `name`.
fn func_nargs(btf: &Btf, name: &str) -> Option<u32> {
    let f = btf.find_by_name_kind(name, BTF_KIND_FUNC)?;
    let proto = btf.type_by_id(btf.type_by_id(f)?.size_or_type)?;
    (proto.kind == BTF_KIND_FUNC_PROTO).then_some(proto.vlen)
}

/// `insn_is_subprog_call`.
fn is_subprog_call(i: &Insn) -> bool {
    i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL && i.dst == 0 && i.off == 0
}

/// `insn_is_pseudo_func`.
fn is_pseudo_func(i: &Insn) -> bool {
    i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC
}
