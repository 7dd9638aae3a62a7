//! Relocations of code, as libbpf records them at open
//! (`bpf_program__record_reloc`) and applies them for one main program
//! (`bpf_object__reloc_code`, then `bpf_object__relocate_data`).

use std::collections::HashMap;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;
use object::elf;
use object::read::elf::Rel;

use super::btf_ext::{Placement, ProgBtfExt};
use super::core::CoreRelo;
use super::{BpfObject, Elf, INSN_SZ, MapKind, ObjectError, SecType, err, is_pseudo_func, is_subprog_call};
use crate::btf::{BTF_KIND_DATASEC, BTF_KIND_FUNC, BTF_KIND_VAR, Btf};
use crate::link::{Func, LinkReloc, LinkedProgram};

/// What one relocated instruction refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RelocKind {
    /// `call` of a `.text` function (`RELO_CALL`): the symbol's offset.
    Call { sym_off: u64 },
    /// `ld_imm64` of a `.text` function's address (`RELO_SUBPROG_ADDR`).
    SubprogAddr { sym_off: u64 },
    /// `ld_imm64` of a map (`RELO_LD64`).
    Ld64 { map: usize },
    /// `ld_imm64` of global data (`RELO_DATA`): the symbol's offset in its
    /// section, added to the instruction's own.
    Data { map: usize, sym_off: u64 },
    /// `call` of a `__ksym` function: a kfunc (`RELO_EXTERN_CALL`).
    KfuncCall { name: String },
    /// `ld_imm64` of a typed `__ksym` variable (`RELO_EXTERN_LD64`).
    Ksym { name: String },
    /// Something libbpf handles that this reader does not yet: linking a
    /// program that uses it fails with this message.
    Unsupported(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Reloc {
    /// Instruction index in its program.
    pub insn: usize,
    pub kind: RelocKind,
}

const SHN_LORESERVE: u16 = 0xff00;

/// `bpf_object__collect_prog_relos` for the relocation section `rel_idx`
/// of code section `target`.
/// `btf` is the object's BTF as clang wrote it (externs not yet rewritten).
pub(super) fn collect_prog_relos(
    obj: &mut BpfObject,
    elf: &Elf<'_>,
    btf: Option<&Btf>,
    types: &[SecType],
    rel_idx: usize,
    target: usize,
) -> Result<(), ObjectError> {
    let sh = elf.header(rel_idx).ok_or_else(|| ObjectError(format!("no section #{rel_idx}")))?;
    let rels: &[elf::Rel64<object::Endianness>] = object::read::elf::SectionHeader::data_as_array(sh, elf.endian, elf.data)
        .map_err(|e| ObjectError(format!("section '{}': {e}", elf.sec_name(rel_idx))))?;
    let sec = elf.sec_name(target).to_string();
    for (i, r) in rels.iter().enumerate() {
        let sym = elf.syms.get(r.r_sym(elf.endian) as usize).ok_or_else(|| ObjectError(format!("section '{sec}': relo #{i}: bad symbol index")))?;
        let insn_idx = (r.r_offset(elf.endian) / INSN_SZ) as usize;
        // a relocation outside every program: an overridden weak function's
        let Some(p) = obj.find_prog_by_sec_insn(target, insn_idx) else { continue };
        let at = insn_idx - obj.progs[p].sec_insn_off;
        let insn = obj.progs[p].insns[at];
        let kind = record_reloc(obj, elf, btf, types, &obj.progs[p].name, insn, sym)?;
        obj.progs[p].relos.push(Reloc { insn: at, kind });
    }
    for p in &mut obj.progs {
        p.relos.sort_by_key(|r| r.insn);
    }
    Ok(())
}

/// The name libbpf resolves an extern by: without a `___flavor` suffix.
fn essential_name(name: &str) -> &str {
    name.find("___").map_or(name, |i| &name[..i])
}

/// The DATASEC (`.ksyms`, `.kconfig`) that has a VAR or FUNC named `name`,
/// and that entry's type id.
fn extern_btf(btf: &Btf, name: &str) -> Option<(String, u32)> {
    for id in 1..btf.type_cnt() as u32 {
        if btf.type_by_id(id).map(|t| t.kind) != Some(BTF_KIND_DATASEC) {
            continue;
        }
        for v in btf.datasec_vars(id) {
            let k = btf.type_by_id(v.type_id).map_or(0, |t| t.kind);
            if (k == BTF_KIND_VAR || k == BTF_KIND_FUNC) && btf.type_name(v.type_id) == name {
                return Some((btf.type_name(id).to_string(), v.type_id));
            }
        }
    }
    None
}

/// `bpf_program__record_reloc`: what `insn` of program `prog` refers to.
fn record_reloc(
    obj: &BpfObject,
    elf: &Elf<'_>,
    btf: Option<&Btf>,
    types: &[SecType],
    prog: &str,
    insn: Insn,
    sym: &super::SymInfo,
) -> Result<RelocKind, ObjectError> {
    let sym_name = elf.sym_name(sym);
    let is_call = insn.is_call();
    if !is_call && !insn.is_ld_imm64() {
        return err(format!("prog '{prog}': invalid relo against '{sym_name}' for an insn of code {:#04x}", insn.code));
    }
    let shndx = sym.shndx;
    let is_extern = matches!(sym.bind, elf::STB_GLOBAL | elf::STB_WEAK) && sym.kind == elf::STT_NOTYPE && shndx == elf::SHN_UNDEF;
    if is_extern {
        let btf = btf.ok_or_else(|| ObjectError(format!("extern '{sym_name}': no BTF to resolve it with")))?;
        let (sec, id) = extern_btf(btf, &sym_name).ok_or_else(|| ObjectError(format!("extern '{sym_name}': not in the BTF's .ksyms or .kconfig")))?;
        if sec != ".ksyms" {
            return Ok(RelocKind::Unsupported(format!("extern '{sym_name}' in '{sec}' is not supported yet")));
        }
        let name = essential_name(&sym_name).to_string();
        let is_func = btf.type_by_id(id).map(|t| t.kind) == Some(BTF_KIND_FUNC);
        return Ok(match (is_call, is_func) {
            (true, true) => RelocKind::KfuncCall { name },
            (false, false) => {
                let ty = btf.skip_mods_and_typedefs(btf.type_by_id(id).map_or(0, |t| t.size_or_type));
                if ty == 0 {
                    RelocKind::Unsupported(format!("typeless __ksym '{sym_name}' (a kallsyms address) is not supported yet"))
                } else {
                    RelocKind::Ksym { name }
                }
            }
            (false, true) => RelocKind::Unsupported(format!("the address of kfunc '{sym_name}' is not supported yet")),
            (true, false) => return err(format!("prog '{prog}': call of extern variable '{sym_name}'")),
        });
    }
    if is_call {
        if insn.src != BPF_PSEUDO_CALL {
            return err(format!("prog '{prog}': incorrect bpf_call opcode (relo against '{sym_name}')"));
        }
        if shndx == 0 || Some(shndx as usize) != obj.text_shndx {
            return err(format!("prog '{prog}': bad call relo against '{sym_name}' in section '{}'", elf.sec_name(shndx as usize)));
        }
        if !sym.value.is_multiple_of(INSN_SZ) {
            return err(format!("prog '{prog}': bad call relo against '{sym_name}' at offset {}", sym.value));
        }
        return Ok(RelocKind::Call { sym_off: sym.value });
    }
    if shndx == 0 || shndx >= SHN_LORESERVE {
        return err(format!("prog '{prog}': invalid relo against '{sym_name}' in special section {shndx:#x}; forgot to initialize global var?"));
    }
    let in_text = Some(shndx as usize) == obj.text_shndx;
    let subprog = in_text
        && ((sym.bind == elf::STB_LOCAL && sym.kind == elf::STT_SECTION) || (matches!(sym.bind, elf::STB_GLOBAL | elf::STB_WEAK) && sym.kind == elf::STT_FUNC));
    if subprog {
        if !sym.value.is_multiple_of(INSN_SZ) || insn.imm % INSN_SZ as i32 != 0 {
            return err(format!("prog '{prog}': bad subprog addr relo against '{sym_name}' at offset {}+{}", sym.value, insn.imm));
        }
        return Ok(RelocKind::SubprogAddr { sym_off: sym.value });
    }
    let sec = elf.sec_name(shndx as usize);
    match types.get(shndx as usize).copied().unwrap_or(SecType::Other) {
        // arena data: an offset into the arena map, moved by where its
        // globals are placed there
        SecType::Arena => {
            let m = obj.maps.iter().position(|m| m.def.map_type == crate::map::types::BPF_MAP_TYPE_ARENA);
            m.map(|map| RelocKind::Data { map, sym_off: sym.value })
                .ok_or_else(|| ObjectError(format!("prog '{prog}': bad arena data relocation against '{sym_name}', no arena maps defined")))
        }
        SecType::Unsupported(what) => Ok(RelocKind::Unsupported(format!("'{sym_name}' is in section '{sec}': {what} are not supported yet"))),
        SecType::Maps => {
            let m = obj.maps.iter().position(|m| m.kind == MapKind::User && m.sec_idx == shndx as usize && m.sec_offset == sym.value);
            m.map(|map| RelocKind::Ld64 { map })
                .ok_or_else(|| ObjectError(format!("prog '{prog}': map relo failed to find map for section '{sec}', off {}", sym.value)))
        }
        SecType::Data | SecType::Rodata | SecType::Bss => {
            let m = obj.maps.iter().position(|m| m.kind != MapKind::User && m.sec_idx == shndx as usize);
            m.map(|map| RelocKind::Data { map, sym_off: sym.value })
                .ok_or_else(|| ObjectError(format!("prog '{prog}': data relo failed to find map for section '{sec}'")))
        }
        _ => err(format!("prog '{prog}': bad relo against '{sym_name}' in section '{sec}'")),
    }
}

/// libbpf's pass before linking: `ld_imm64` of a subprogram's address gets
/// `BPF_PSEUDO_FUNC`, so the call pass recognises it.
pub(super) fn mark_subprog_addrs(obj: &mut BpfObject) {
    for p in &mut obj.progs {
        for r in &p.relos {
            if matches!(r.kind, RelocKind::SubprogAddr { .. }) {
                p.insns[r.insn].src = BPF_PSEUDO_FUNC;
            }
        }
    }
}

struct Linker<'o> {
    obj: &'o BpfObject,
    main: &'o str,
    out: LinkedProgram,
    /// Where each appended program starts (libbpf's `sub_insn_off`).
    placed: HashMap<usize, usize>,
    /// Every relocation of the linked code, at its linked index.
    relos: Vec<(usize, &'o RelocKind)>,
    /// The linked program's `.BTF.ext` records.
    ext: ProgBtfExt,
    /// The CO-RE relocations of the linked code, at their linked index.
    core: Vec<(usize, CoreRelo)>,
}

impl<'o> Linker<'o> {
    /// Appends program `p` at `base` (the main program at 0).
    fn place(&mut self, p: usize, base: usize) -> Result<(), ObjectError> {
        let prog = &self.obj.progs[p];
        self.collect_core(p, base)?;
        self.placed.insert(p, base);
        self.out.insns.extend_from_slice(&prog.insns);
        self.relos.extend(prog.relos.iter().map(|r| (base + r.insn, &r.kind)));
        // reloc_prog_func_and_line_info, first thing bpf_object__reloc_code does
        if let Some(ext) = &self.obj.btf_ext {
            let at = Placement { sec_idx: prog.sec_idx, sec_insn_off: prog.sec_insn_off, sec_insn_cnt: prog.insns.len(), sub_insn_off: base };
            self.ext.add(ext, base == 0, &prog.name, &at).map_err(ObjectError)?;
        }
        self.reloc_code(p, base)
    }

    /// The CO-RE records of program `p` placed at `base` (libbpf's
    /// `bpf_object__relocate_core` finds them by section and insn): kept
    /// for the backend, which has the target kernel's BTF.
    fn collect_core(&mut self, p: usize, base: usize) -> Result<(), ObjectError> {
        let prog = &self.obj.progs[p];
        let (Some(ext), Some(btf)) = (&self.obj.btf_ext, &self.obj.btf) else { return Ok(()) };
        let range = prog.sec_insn_off..prog.sec_insn_off + prog.insns.len();
        let rec_size = (ext.core_relo.rec_size as usize).max(super::btf_ext::CORE_RELO_MIN_REC_SIZE as usize);
        for (sec_no, sec) in ext.core_relo.secs.iter().enumerate().filter(|(_, s)| s.sec_idx == Some(prog.sec_idx)) {
            for (idx, r) in sec.records.chunks_exact(rec_size).enumerate() {
                let word = |i: usize| u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]]);
                let insn_off = word(0) as u64;
                let sec_insn = (insn_off / INSN_SZ) as usize;
                if !range.contains(&sec_insn) {
                    continue;
                }
                if !insn_off.is_multiple_of(INSN_SZ) {
                    return err(format!("prog '{}': relo #{idx}: insn offset {insn_off} is not a multiple of {INSN_SZ}", prog.name));
                }
                let at = sec_insn - prog.sec_insn_off;
                if prog.insns[at].is_ld_imm64() && at + 1 >= prog.insns.len() {
                    return err(format!("prog '{}': relo #{idx}: insn #{at} (LDIMM64) is truncated", prog.name));
                }
                let relo = CoreRelo {
                    prog: prog.name.clone(),
                    sec: sec_no,
                    idx,
                    sec_insn,
                    prog_insn: at,
                    type_id: word(1),
                    access: btf.name(word(2)).unwrap_or("").to_string(),
                    kind: word(3),
                };
                self.core.push((base + at, relo));
            }
        }
        Ok(())
    }

    /// `bpf_object__reloc_code`: calls and subprogram addresses of the
    /// program placed at `base`, appending each callee at its first use
    /// and relocating it at once (so the layout is depth first).
    fn reloc_code(&mut self, p: usize, base: usize) -> Result<(), ObjectError> {
        let obj = self.obj;
        let prog = &obj.progs[p];
        for i in 0..prog.insns.len() {
            let insn = self.out.insns[base + i];
            if !is_subprog_call(&insn) && !is_pseudo_func(&insn) {
                continue;
            }
            let relo = prog.relos.iter().find(|r| r.insn == i).map(|r| &r.kind);
            let sub_insn = match relo {
                Some(RelocKind::KfuncCall { .. }) => continue,
                Some(RelocKind::Call { sym_off }) => (*sym_off / INSN_SZ) as i64 + insn.imm as i64 + 1,
                Some(RelocKind::SubprogAddr { sym_off }) => (*sym_off as i64 + insn.imm as i64) / INSN_SZ as i64,
                Some(other) => return err(format!("prog '{}': unexpected relo for insn #{i} of '{}': {other:?}", self.main, prog.name)),
                None if is_pseudo_func(&insn) => return err(format!("prog '{}': missing subprog addr relo for insn #{i} of '{}'", self.main, prog.name)),
                // a call inside one section: relative to where it is
                None => (prog.sec_insn_off + i) as i64 + insn.imm as i64 + 1,
            };
            let sub =
                obj.text_shndx.zip(usize::try_from(sub_insn).ok()).and_then(|(text, at)| obj.find_prog_by_sec_insn(text, at)).ok_or_else(|| {
                    ObjectError(format!("prog '{}': '{}' insn #{i} calls .text insn {sub_insn}, which is in no function", self.main, prog.name))
                })?;
            let start = match self.placed.get(&sub) {
                Some(&s) => s,
                None => {
                    let s = self.out.insns.len();
                    let sp = &obj.progs[sub];
                    self.out.funcs.push(Func { name: sp.name.clone(), start: s, global: sp.global, nargs: sp.nargs });
                    self.place(sub, s)?;
                    s
                }
            };
            let at = base + i;
            let rel = start as i64 - at as i64 - 1;
            self.out.insns[at].imm =
                i32::try_from(rel).map_err(|_| ObjectError(format!("prog '{}': call to '{}' is too far", self.main, obj.progs[sub].name)))?;
        }
        Ok(())
    }

    /// `bpf_object__relocate_data`: what the backend resolves.
    fn relocate_data(&mut self) -> Result<(), ObjectError> {
        for &(at, kind) in &self.relos {
            if let RelocKind::Ld64 { map } | RelocKind::Data { map, .. } = kind
                && let Some(why) = &self.obj.maps[*map].unsupported
            {
                return err(format!("prog '{}': map '{}': {why}", self.main, self.obj.maps[*map].real_name));
            }
            let r = match kind {
                RelocKind::Call { .. } | RelocKind::SubprogAddr { .. } => continue,
                RelocKind::Ld64 { map } => LinkReloc::Map { insn: at, map: *map },
                RelocKind::Data { map, sym_off } => {
                    let arena_data_off = self.obj.maps[*map].def.arena_data.as_ref().map_or(0, |(off, _)| *off as i64);
                    let off = self.out.insns[at].imm as i64 + *sym_off as i64 + arena_data_off;
                    let off = u32::try_from(off).map_err(|_| ObjectError(format!("prog '{}': global data offset {off} out of range", self.main)))?;
                    LinkReloc::MapValue { insn: at, map: *map, off }
                }
                RelocKind::KfuncCall { name } => {
                    self.out.insns[at].src = BPF_PSEUDO_KFUNC_CALL;
                    LinkReloc::Kfunc { insn: at, name: name.clone() }
                }
                RelocKind::Ksym { name } => LinkReloc::BtfId { insn: at, name: name.clone() },
                RelocKind::Unsupported(msg) => return err(format!("prog '{}': {msg}", self.main)),
            };
            self.out.relocs.push(r);
        }
        Ok(())
    }
}

/// Main program `p` with its subprograms, as libbpf hands it to the kernel
/// (before map fds, kfunc and BTF ids: the backend's part), and its
/// `.BTF.ext` records.
pub(super) fn link(obj: &BpfObject, p: usize) -> Result<(LinkedProgram, ProgBtfExt), ObjectError> {
    let prog = &obj.progs[p];
    let mut l = Linker {
        obj,
        main: &prog.name,
        out: LinkedProgram { insns: Vec::new(), funcs: vec![Func { name: prog.name.clone(), start: 0, global: true, nargs: 0 }], relocs: Vec::new() },
        placed: HashMap::new(),
        relos: Vec::new(),
        ext: ProgBtfExt::default(),
        core: Vec::new(),
    };
    l.place(p, 0)?;
    // the exception callback the main program names: appended (and
    // relocated) after the code its calls reach, unless one of them is it
    if let Some(cb) = exception_cb_of(obj, &prog.name)
        && !l.placed.contains_key(&cb)
    {
        let s = l.out.insns.len();
        let sp = &obj.progs[cb];
        l.out.funcs.push(Func { name: sp.name.clone(), start: s, global: sp.global, nargs: sp.nargs });
        l.place(cb, s)?;
    }
    l.relocate_data()?;
    l.core.sort_by_key(|(_, r)| (r.sec, r.idx));
    l.out.relocs.extend(l.core.drain(..).map(|(insn, relo)| LinkReloc::Core { insn, relo }));
    Ok((l.out, l.ext))
}

/// `bpf_prog_assign_exc_cb` for main program `main`: the subprogram its
/// BTF `FUNC`'s `exception_callback:<name>` decl tag names. Two such tags
/// leave it without one (the kernel then refuses the program).
fn exception_cb_of(obj: &BpfObject, main: &str) -> Option<usize> {
    use crate::btf::BTF_KIND_DECL_TAG;
    const TAG_KEY: &str = "exception_callback:";
    let btf = obj.btf.as_ref()?;
    let func = btf.find_by_name_kind(main, BTF_KIND_FUNC)?;
    let mut tags = (1..btf.type_cnt() as u32).filter_map(|id| {
        let t = btf.type_by_id(id)?;
        if t.kind != BTF_KIND_DECL_TAG || t.size_or_type != func || btf.decl_tag_component_idx(id) != Some(-1) {
            return None;
        }
        btf.name(t.name_off)?.strip_prefix(TAG_KEY)
    });
    let name = tags.next()?;
    if tags.next().is_some() {
        return None;
    }
    obj.progs.iter().position(|p| p.name == name && obj.is_subprog(p))
}
