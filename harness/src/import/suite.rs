//! An imported file as a runnable [`Suite`], built at run time: the same
//! declarations the attribute macros would register for the rendered Rust
//! module (programs written in C as [`ProgDecl::object`]s), with their strings leaked to get the `'static` lifetimes the
//! registry's types have (a test binary imports once, so the leak is
//! bounded by the sources).

use crate::registry::{Asm, AsmOperand, GlobalDecl, GlobalInit, GlobalSection, Map, MapDecl, ProgDecl, Site, SubprogDecl, Suite};

use super::{ImportedAsm, ImportedFile, MapSpec, Operand};

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

fn leak_slice<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn map_of(m: &MapSpec) -> Map {
    let mut map = Map::new(m.map_type, m.key_size, m.value_size, m.max_entries).flags(m.map_flags);
    if let Some(inner) = &m.inner {
        map = map.inner(Box::leak(Box::new(map_of(inner))));
    }
    if !m.init.is_empty() {
        let init: Vec<(&'static [u8], &'static [u8])> = m.init.iter().map(|(k, v)| (leak_slice(k.clone()), leak_slice(v.clone()))).collect();
        map = map.init(leak_slice(init));
    }
    if !m.prog_slots.is_empty() {
        let slots: Vec<(u32, &'static str)> = m.prog_slots.iter().map(|(k, p)| (*k, leak(p))).collect();
        map = map.prog_slots(leak_slice(slots));
    }
    map
}

fn asm_of(a: &ImportedAsm) -> Asm {
    let operands: Vec<(&'static str, AsmOperand)> = a
        .operands
        .iter()
        .map(|(name, op)| {
            let v = match op {
                Operand::Helper(_, id) => AsmOperand::Imm(*id as i64),
                Operand::Sym(s) | Operand::Addr(s) => AsmOperand::Sym(leak(s)),
                Operand::Const(v) | Operand::Insn(v) => AsmOperand::Imm(*v),
            };
            (leak(name), v)
        })
        .collect();
    Asm { source: leak(&a.template), operands: leak_slice(operands), compiled: None }
}

/// The suite of `f`'s runnable programs, with every map, global and
/// subprogram that could be expressed (in declaration order).
pub fn to_suite(f: &ImportedFile) -> Suite {
    let module_path = leak(&format!("imported::{}", f.suite));
    let file = leak(&f.source.display().to_string());
    let site = |line: u32| Site { module_path, file, line, column: 0 };
    let mut suite = Suite { module_path, name: f.suite.clone(), ..Suite::default() };
    for (k, m) in f.maps.iter().enumerate() {
        let Ok(def) = &m.def else { continue };
        let map: &'static Map = Box::leak(Box::new(map_of(def)));
        suite.maps.push(Box::leak(Box::new(MapDecl { name: leak(&m.name), site: site(k as u32), map })));
    }
    for (k, g) in f.globals.iter().enumerate() {
        let Ok(def) = &g.def else { continue };
        suite.globals.push(Box::leak(Box::new(GlobalDecl {
            name: leak(&g.name),
            site: site(k as u32),
            section: GlobalSection::Named(leak(&def.section)),
            size: def.bytes.len(),
            align: def.align,
            init: GlobalInit::Bytes(leak_slice(def.bytes.clone())),
        })));
    }
    for (k, s) in f.subprogs.iter().enumerate() {
        let Ok(body) = &s.body else { continue };
        suite.subprogs.push(Box::leak(Box::new(SubprogDecl {
            name: leak(&s.name),
            site: site(k as u32),
            global: s.global,
            nargs: s.nargs,
            asm: asm_of(body),
        })));
    }
    for p in f.programs.iter().filter(|p| p.runnable()) {
        let tags: Vec<&'static str> = p.tags.iter().map(|t| leak(t)).collect();
        let (asm, object) = match (&p.body, &p.object) {
            (Some(body), _) => (asm_of(body), None),
            (None, Some(o)) => (Asm { source: "", operands: &[], compiled: None }, Some(leak(&o.display().to_string()))),
            (None, None) => continue,
        };
        suite.programs.push(Box::leak(Box::new(ProgDecl {
            name: leak(&p.name),
            site: site(p.line),
            sec: leak(&p.sec),
            tags: leak_slice(tags),
            tag_lines: &[],
            asm,
            object,
        })));
    }
    suite
}
