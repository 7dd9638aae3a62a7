//! Linking, as libbpf does it for a test_loader object: subprograms a program
//! calls (or takes the address of) are appended after it in first-reference
//! order, depth first, pseudo calls get their relative offsets, and every other symbol is
//! classified as a map, a global's map value, a BTF id or a kfunc for the
//! backend to resolve.

use std::collections::HashMap;
use std::fmt;

use bpf_isa::insn::op::*;
use bpf_isa::{Insn, Program, RelocKind};

/// One function of the linked program (`func_info` in its BTF).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    /// First insn slot.
    pub start: usize,
    /// A global (non-static) function: verified on its own, with typed args.
    pub global: bool,
    /// Number of (int) arguments of a global function.
    pub nargs: u32,
}

/// A reference the backend resolves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkReloc {
    /// `ld_imm64` of a map: `BPF_PSEUDO_MAP_FD` with the map's fd.
    Map { insn: usize, map: usize },
    /// `ld_imm64` of an address inside a map value: `BPF_PSEUDO_MAP_VALUE`.
    MapValue { insn: usize, map: usize, off: u32 },
    /// `call` of a kernel function: `BPF_PSEUDO_KFUNC_CALL` with its BTF id.
    Kfunc { insn: usize, name: String },
    /// `ld_imm64` of a kernel symbol: `BPF_PSEUDO_BTF_ID`.
    BtfId { insn: usize, name: String },
    /// A CO-RE relocation of the insn, applied with the target kernel's
    /// BTF before everything else ([`crate::object::core`]).
    Core { insn: usize, relo: crate::object::core::CoreRelo },
}

/// A program ready for a backend.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkedProgram {
    pub insns: Vec<Insn>,
    /// Functions in address order; the first is the program itself.
    pub funcs: Vec<Func>,
    pub relocs: Vec<LinkReloc>,
}

/// A subprogram available to link against.
#[derive(Clone, Debug)]
pub struct Subprog {
    pub name: String,
    pub prog: Program,
    pub global: bool,
    pub nargs: u32,
}

/// A global variable: the map of its section and its offset there.
#[derive(Clone, Debug)]
pub struct GlobalVar {
    pub name: String,
    pub map: usize,
    pub off: u32,
}

/// What a program can refer to by name.
#[derive(Clone, Debug, Default)]
pub struct Symbols<'a> {
    pub subprogs: &'a [Subprog],
    pub maps: &'a [crate::map::MapDef],
    pub globals: &'a [GlobalVar],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError(pub String);

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LinkError {}

/// Links `main` (named `name`) against `syms`.
pub fn link(name: &str, main: &Program, syms: &Symbols<'_>) -> Result<LinkedProgram, LinkError> {
    let mut out = LinkedProgram { insns: Vec::new(), funcs: vec![Func { name: name.to_string(), start: 0, global: true, nargs: 0 }], relocs: Vec::new() };
    let mut placed: HashMap<String, usize> = HashMap::new();
    // Every text placed, with its base, for the labels below.
    let mut pending: Vec<(usize, &Program, usize)> = vec![(usize::MAX, main, 0)];
    out.insns.extend_from_slice(&main.insns);
    relocate(main, 0, syms, &mut out, &mut placed, &mut pending)?;
    let labels: Vec<(usize, &str)> = pending.iter().flat_map(|&(_, prog, base)| prog.labels.iter().map(move |(n, &at)| (base + at, n.as_str()))).collect();
    add_local_subprogs(&mut out, &labels);
    Ok(out)
}

/// Resolves the relocations of `prog` (placed at `base`) in insn order. A
/// subprogram is appended at its first reference and its own relocations
/// are resolved right then, before the rest of `prog`'s: libbpf's
/// `bpf_object__reloc_code` recursion, which gives the depth-first layout
/// the kernel's subprogram numbers and insn indices follow.
fn relocate<'a>(
    prog: &'a Program,
    base: usize,
    syms: &'a Symbols<'_>,
    out: &mut LinkedProgram,
    placed: &mut HashMap<String, usize>,
    pending: &mut Vec<(usize, &'a Program, usize)>,
) -> Result<(), LinkError> {
    for r in &prog.relocs {
        let at = base + r.insn;
        let sym = r.symbol.as_str();
        let sub = syms.subprogs.iter().position(|s| s.name == sym);
        match (r.kind, sub) {
            (kind, Some(si)) => {
                let start = match placed.get(sym) {
                    Some(&s) => s,
                    None => {
                        let s = out.insns.len();
                        let sp = &syms.subprogs[si];
                        out.insns.extend_from_slice(&sp.prog.insns);
                        out.funcs.push(Func { name: sp.name.clone(), start: s, global: sp.global, nargs: sp.nargs });
                        placed.insert(sym.to_string(), s);
                        pending.push((si, &sp.prog, s));
                        relocate(&sp.prog, s, syms, out, placed, pending)?;
                        s
                    }
                };
                let rel = start as i64 - (at as i64 + 1);
                let insn = &mut out.insns[at];
                insn.imm = i32::try_from(rel).map_err(|_| LinkError(format!("call to '{sym}' is too far")))?;
                insn.src = if kind == RelocKind::Call { BPF_PSEUDO_CALL } else { BPF_PSEUDO_FUNC };
            }
            (RelocKind::Call, None) => {
                out.insns[at].src = BPF_PSEUDO_KFUNC_CALL;
                out.relocs.push(LinkReloc::Kfunc { insn: at, name: sym.to_string() });
            }
            (RelocKind::LdImm64, None) => out.relocs.push(classify_ld(at, sym, syms)?),
        }
    }
    Ok(())
}

/// Targets of pseudo calls and pseudo funcs inside one text start
/// subprograms too (as `add_subprogs` finds them); each gets a function,
/// named by its label, for func_info.
fn add_local_subprogs(out: &mut LinkedProgram, labels: &[(usize, &str)]) {
    let mut starts = Vec::new();
    let mut i = 0;
    while i < out.insns.len() {
        let insn = out.insns[i];
        let local = insn.is_pseudo_call() || (insn.is_ld_imm64() && insn.src == BPF_PSEUDO_FUNC);
        if local {
            let t = i as i64 + insn.imm as i64 + 1;
            if (0..out.insns.len() as i64).contains(&t) {
                starts.push(t as usize);
            }
        }
        i += if insn.is_ld_imm64() { 2 } else { 1 };
    }
    for s in starts {
        if out.funcs.iter().any(|f| f.start == s) {
            continue;
        }
        // BTF names are C identifiers: `l0_%=` becomes `l0__`
        let name = labels
            .iter()
            .find(|(at, _)| *at == s)
            .map_or_else(|| format!("func_{s}"), |(_, n)| n.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect());
        out.funcs.push(Func { name, start: s, global: false, nargs: 0 });
    }
    out.funcs.sort_by_key(|f| f.start);
}

fn classify_ld(insn: usize, sym: &str, syms: &Symbols<'_>) -> Result<LinkReloc, LinkError> {
    if let Some(map) = syms.maps.iter().position(|m| m.name == sym) {
        return Ok(LinkReloc::Map { insn, map });
    }
    if let Some(g) = syms.globals.iter().find(|g| g.name == sym) {
        return Ok(LinkReloc::MapValue { insn, map: g.map, off: g.off });
    }
    if let Some(base) = sym.strip_suffix("__value")
        && let Some(map) = syms.maps.iter().position(|m| m.name == base)
    {
        return Ok(LinkReloc::MapValue { insn, map, off: 0 });
    }
    if let Some(base) = sym.strip_suffix("__btf") {
        return Ok(LinkReloc::BtfId { insn, name: base.to_string() });
    }
    Err(LinkError(format!("unknown symbol '{sym}': not a map, global, subprogram or label")))
}

/// Writes map ids into `insns` the way the kernel's xlated dump shows them:
/// `BPF_PSEUDO_MAP_FD` with the id, or `BPF_PSEUDO_MAP_VALUE` with the id and
/// the offset in the second slot. `id_of` gives a map index's id.
pub fn apply_map_ids(prog: &LinkedProgram, id_of: &dyn Fn(usize) -> u32) -> Vec<Insn> {
    let mut insns = prog.insns.clone();
    for r in &prog.relocs {
        match *r {
            LinkReloc::Map { insn, map } => {
                insns[insn].src = BPF_PSEUDO_MAP_FD;
                insns[insn].imm = id_of(map) as i32;
            }
            LinkReloc::MapValue { insn, map, off } => {
                insns[insn].src = BPF_PSEUDO_MAP_VALUE;
                insns[insn].imm = id_of(map) as i32;
                if let Some(next) = insns.get_mut(insn + 1) {
                    next.imm = off as i32;
                }
            }
            _ => {}
        }
    }
    insns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(name: &str, text: &str) -> Subprog {
        Subprog { name: name.into(), prog: bpf_isa::assemble(text).expect("assembles"), global: false, nargs: 0 }
    }

    /// libbpf appends a subprogram at its first call and relocates it at
    /// once, so a callee's callees come before the caller's next callee:
    /// verifier_live_stack's test_merge_nonlocal_live (main -> wrapper_a,
    /// wrapper_b; each -> shared_mid -> leaf_read) has leaf_read at insn 17
    /// in the 7.3 verifier log.
    #[test]
    fn subprograms_are_appended_depth_first() {
        let main = bpf_isa::assemble(
            "r1 = 0; *(u64 *)(r10 - 8) = r1; *(u64 *)(r10 - 16) = r1; r1 = r10; r1 += -8; call wrapper_a; r1 = r10; r1 += -16; call wrapper_b; r0 = 0; exit;",
        )
        .expect("main");
        let subs = vec![
            sub("wrapper_a", "call shared_mid; r0 = 0; exit;"),
            sub("wrapper_b", "call shared_mid; r0 = 0; exit;"),
            sub("shared_mid", "call leaf_read; r0 = 0; exit;"),
            sub("leaf_read", "r0 = *(u64 *)(r1 + 0); r0 = 0; exit;"),
        ];
        let l = link("test_merge_nonlocal_live", &main, &Symbols { subprogs: &subs, maps: &[], globals: &[] }).expect("links");
        let starts: Vec<(&str, usize)> = l.funcs.iter().map(|f| (f.name.as_str(), f.start)).collect();
        assert_eq!(starts, vec![("test_merge_nonlocal_live", 0), ("wrapper_a", 11), ("shared_mid", 14), ("leaf_read", 17), ("wrapper_b", 20)]);
        // wrapper_b's call goes back to shared_mid
        assert_eq!(l.insns[20].imm, 14 - 21);
    }
}
