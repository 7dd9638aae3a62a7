//! An imported file as the Rust module a user would have written: one
//! `#[map]`/`#[global]` static per map and global, one `#[subprog]` and one
//! `#[sec]` function per naked function, the annotations as attributes in
//! source order. What could not be expressed is a comment at the place of
//! the program, with the reason. A program written in C is an `#[object]`
//! declaration naming clang's object of the file ([`object_decl`]).

use std::fmt::Write as _;

use super::{Blocked, ImportedAsm, ImportedFile, MapSpec, Operand};
use crate::map::MAP_TYPES;

/// Rust keywords a C identifier may be (they cannot name an item).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for",
    "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct",
    "super", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield", "abstract",
];

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn map_expr(m: &MapSpec, inner_name: Option<&str>) -> String {
    let ty = MAP_TYPES.iter().find(|(n, _)| *n == m.map_type).map_or_else(|| m.map_type.to_string(), |(_, t)| format!("BPF_MAP_TYPE_{}", t.to_uppercase()));
    let mut s = format!("Map::new({ty}, {}, {}, {})", m.key_size, m.value_size, m.max_entries);
    if m.map_flags != 0 {
        let _ = write!(s, ".flags({:#x})", m.map_flags);
    }
    if let Some(i) = inner_name {
        let _ = write!(s, ".inner(&{i})");
    }
    if !m.init.is_empty() {
        let bytes = |b: &[u8]| format!("&[{}]", b.iter().map(|x| format!("{x:#04x}")).collect::<Vec<_>>().join(", "));
        let elems: Vec<String> = m.init.iter().map(|(k, v)| format!("({}, {})", bytes(k), bytes(v))).collect();
        let _ = write!(s, "\n    // test_progs writes this before the programs run (pre_execution_cb)\n    .init(&[{}])", elems.join(", "));
    }
    if !m.prog_slots.is_empty() {
        let slots: Vec<String> = m.prog_slots.iter().map(|(k, p)| format!("({k}, {p:?})")).collect();
        let _ = write!(s, "\n    // libbpf puts these programs in after loading them (`.values`)\n    .prog_slots(&[{}])", slots.join(", "));
    }
    s
}

/// The attribute for one test_loader tag, or why there is none.
pub fn attribute(tag: &str) -> Result<String, String> {
    let simple = [
        ("test_expect_success", "success"),
        ("test_expect_failure", "failure"),
        ("test_expect_success_unpriv", "success_unpriv"),
        ("test_expect_failure_unpriv", "failure_unpriv"),
        ("test_auxiliary", "auxiliary"),
        ("test_auxiliary_unpriv", "auxiliary_unpriv"),
        ("load_mode=jited", "load_if_jited"),
        ("load_mode=no_jited", "load_if_no_jited"),
    ];
    if let Some((_, a)) = simple.iter().find(|(t, _)| *t == tag) {
        return Ok(format!("#[{a}]"));
    }
    let strings = [
        ("test_expect_msg=", "msg"),
        ("test_expect_not_msg=", "not_msg"),
        ("test_expect_msg_unpriv=", "msg_unpriv"),
        ("test_expect_not_msg_unpriv=", "not_msg_unpriv"),
        ("test_expect_xlated=", "xlated"),
        ("test_expect_xlated_unpriv=", "xlated_unpriv"),
        ("test_jited=", "jited"),
        ("test_jited_unpriv=", "jited_unpriv"),
        ("test_description=", "description"),
    ];
    for (p, a) in strings {
        if let Some(v) = tag.strip_prefix(p) {
            return Ok(format!("#[{a}({})]", lit(v)));
        }
    }
    let number = |v: &str| {
        let d = v.strip_prefix('-').unwrap_or(v);
        let ok =
            d.strip_prefix("0x").map_or(!d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()), |h| !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit()));
        ok && !(v.starts_with('-') && d.starts_with("0x"))
    };
    for (p, a) in [("test_retval=", "retval"), ("test_retval_unpriv=", "retval_unpriv")] {
        if let Some(v) = tag.strip_prefix(p) {
            return if number(v) || v == "_INT_MIN" { Ok(format!("#[{a}({v})]")) } else { Err(format!("__{a}({v}): not a value the attribute takes")) };
        }
    }
    if let Some(v) = tag.strip_prefix("test_log_level=") {
        return if number(v) && !v.starts_with('-') { Ok(format!("#[log_level({v})]")) } else { Err(format!("__log_level({v})")) };
    }
    if let Some(v) = tag.strip_prefix("test_prog_flags=") {
        let name = v.strip_prefix('!').unwrap_or(v);
        let ok =
            crate::prog_type::PROG_FLAGS.iter().any(|(k, _, _)| *k == name && *k != "BPF_F_XDP_DEV_BOUND_ONLY") || (number(name) && !name.starts_with('-'));
        return if ok { Ok(format!("#[flag({v})]")) } else { Err(format!("__flag({v})")) };
    }
    if let Some(v) = tag.strip_prefix("test_arch=") {
        let a = match v {
            "X86_64" => "x86_64",
            "ARM64" => "arm64",
            "RISCV64" => "riscv64",
            "s390x" => "s390x",
            "LOONGARCH" => "loongarch64",
            _ => return Err(format!("__arch({v})")),
        };
        return Ok(format!("#[arch({a})]"));
    }
    if let Some(v) = tag.strip_prefix("test_caps_unpriv=") {
        let ok = v.split('|').all(|c| c.trim().parse::<u32>().is_ok_and(|n| (1..=40).contains(&n)));
        return if ok {
            Ok(format!("#[caps_unpriv({})]", v.split('|').map(str::trim).collect::<Vec<_>>().join(" | ")))
        } else {
            Err(format!("__caps_unpriv({v})"))
        };
    }
    Err(format!("no attribute for the tag '{tag}'"))
}

/// A kernel program's tags in an order whose attributes mean what the
/// kernel's annotations do. Each `__arch_*` becomes an `#[arch]` block, and
/// two or more such blocks with `#[xlated]` lines would scope those lines by
/// arch (`spec::xlated_blocks`), where the kernel holds every `__xlated` on
/// every arch: then the xlated tags go above the first `#[arch]`, in their
/// order (`__jited` lines stay in their blocks).
pub fn kernel_meaning_order(tags: &[String]) -> Vec<&str> {
    let as_attributes: Vec<&str> =
        tags.iter().flat_map(|t| if t.starts_with("test_arch=") { vec![crate::spec::ARCH_BLOCK_TAG, t.as_str()] } else { vec![t.as_str()] }).collect();
    let scoped = crate::spec::xlated_blocks(&as_attributes).is_ok_and(|b| !b.is_empty());
    let Some(first_arch) = tags.iter().position(|t| t.starts_with("test_arch=")).filter(|_| scoped) else {
        return tags.iter().map(String::as_str).collect();
    };
    let xlated = |t: &&String| t.starts_with("test_expect_xlated=") || t.starts_with("test_expect_xlated_unpriv=");
    let mut out: Vec<&str> = tags[..first_arch].iter().map(String::as_str).collect();
    out.extend(tags[first_arch..].iter().filter(xlated).map(String::as_str));
    out.extend(tags[first_arch..].iter().filter(|t| !xlated(t)).map(String::as_str));
    out
}

/// `imm_insn` values as the instruction they encode.
fn insn_expr(v: i64) -> String {
    let v = v as u64;
    let code = v & 0xff;
    let regs = (v >> 8) & 0xff;
    let off = (v >> 16) as u16 as i16;
    let imm = (v >> 32) as u32 as i32;
    format!("Insn::new({code:#04x}, {}, {}, {off}, {imm})", regs & 0xf, regs >> 4)
}

/// The template as one string literal per statement, runs of blanks made
/// one space (what the assembler reads is the same; a newline that ends a
/// `//` comment is kept).
pub fn template_pieces(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut blank = false;
    for c in t.chars() {
        if c == ' ' || c == '\t' {
            blank = true;
            continue;
        }
        if blank && !cur.is_empty() && !cur.ends_with('\n') {
            cur.push(' ');
        }
        blank = false;
        cur.push(c);
        if c == ';' || c == '\n' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    // a piece that is only a newline joins the previous one
    let mut merged: Vec<String> = Vec::new();
    for p in out {
        match merged.last_mut() {
            Some(last) if p == "\n" => last.push('\n'),
            _ => merged.push(p),
        }
    }
    merged
}

fn body(a: &ImportedAsm, indent: &str) -> String {
    let mut s = format!("{indent}bpf_asm!(\n");
    let pieces = template_pieces(&a.template);
    for p in &pieces {
        let _ = writeln!(s, "{indent}    {}", lit(p));
    }
    if pieces.is_empty() {
        let _ = writeln!(s, "{indent}    \"\"");
    }
    let n = a.operands.len();
    if n > 0 {
        // the strings end with a comma before the operands
        s.pop();
        s.push_str(",\n");
    }
    for (name, op) in &a.operands {
        let o = match op {
            Operand::Helper(h, _) => format!("imm({h})"),
            Operand::Sym(sym) => format!("imm({sym})"),
            Operand::Addr(sym) if sym == name => format!("imm_addr({sym})"),
            // the operand renamed to its symbol (a __ksym variable): the
            // template uses the symbol's name, see `renamed`
            Operand::Addr(sym) => format!("imm_addr({sym})"),
            Operand::Const(v) => format!("imm_const({name} = {v})"),
            Operand::Insn(v) => format!("imm_insn({name} = {})", insn_expr(*v)),
        };
        let _ = writeln!(s, "{indent}    {o},");
    }
    let _ = writeln!(s, "{indent})");
    s
}

/// The template with operands whose symbol differs from their name
/// renamed (the macro takes the symbol from the operand's name).
/// Operands named by a Rust keyword get a trailing `_`.
fn renamed(a: &ImportedAsm) -> ImportedAsm {
    let mut out = a.clone();
    for (name, op) in &mut out.operands {
        let new = match op {
            Operand::Addr(sym) if sym != name => sym.clone(),
            _ if RUST_KEYWORDS.contains(&name.as_str()) => format!("{name}_"),
            _ => continue,
        };
        out.template = out.template.replace(&format!("%[{name}]"), &format!("%[{new}]"));
        *name = new;
    }
    out
}

fn blocked_comment(s: &mut String, what: &str, name: &str, why: &[Blocked]) {
    let _ = writeln!(s, "// {what} `{name}` is not imported:");
    for b in why {
        let _ = writeln!(s, "//   - {b}");
    }
    s.push('\n');
}

/// A program written in C: declared by `#[object]` with the C source, which
/// the runner compiles for the arch of the run as the importer did; it loads
/// the object's program of that name as libbpf does, with the object's
/// maps and globals.
fn object_decl(s: &mut String, name: &str, source: &std::path::Path, sec: &str, attrs: &[String]) {
    let _ = writeln!(s, "// written in C: program `{name}` of clang's object of the file");
    let _ = writeln!(s, "#[sec({})]", lit(sec));
    let _ = writeln!(s, "#[object({})]", lit(&source.display().to_string()));
    for at in attrs {
        let _ = writeln!(s, "{at}");
    }
    let _ = writeln!(s, "fn {name}() {{}}\n");
}

/// The module for `f`.
pub fn render(f: &ImportedFile) -> String {
    let mut s = String::new();
    let src = f.source.display();
    let _ = writeln!(s, "//! `{}`, imported from `{src}` for {} by `bpf-selftest import`.", f.suite, f.arch);
    let _ = writeln!(s, "//!");
    let _ = writeln!(s, "//! Generated from the kernel's GPL-2.0 sources: keep it out of this repository.");
    let _ = writeln!(s, "//! `#ifdef` choices are resolved for {}; __imm_const values computed for it.", f.arch);
    let objects = f.programs.iter().filter(|p| p.runnable() && p.object.is_some()).count();
    let _ = writeln!(s, "//! {} of {} programs imported ({objects} written in C, loaded from clang's object).", f.runnable(), f.programs.len());
    s.push('\n');
    let _ = writeln!(s, "#![allow(non_upper_case_globals, unused_imports, dead_code, clippy::all)]\n");
    let _ = writeln!(s, "use bpf_selftest::prelude::*;\n");

    for m in &f.maps {
        match &m.def {
            Ok(def) => {
                let inner_name = def.inner.as_ref().map(|_| format!("{}__inner", m.name));
                if let (Some(i), Some(inner)) = (&inner_name, &def.inner) {
                    let _ = writeln!(s, "static {i}: Map = {};", map_expr(inner, None));
                }
                let _ = writeln!(s, "#[map]\nstatic {}: Map = {};\n", m.name, map_expr(def, inner_name.as_deref()));
            }
            Err(b) => blocked_comment(&mut s, "map", &m.name, std::slice::from_ref(b)),
        }
    }
    for g in &f.globals {
        match &g.def {
            Ok(def) => {
                let (ty, w) = match def.align {
                    8 => ("u64", 8),
                    4 => ("u32", 4),
                    2 => ("u16", 2),
                    _ => ("u8", 1),
                };
                let w = if def.bytes.len() % w == 0 { w } else { 1 };
                let ty = if w == 1 { "u8" } else { ty };
                let vals: Vec<String> = def
                    .bytes
                    .chunks(w)
                    .map(|c| {
                        let mut b = [0u8; 8];
                        b[..c.len()].copy_from_slice(c);
                        format!("{:#x}", u64::from_le_bytes(b))
                    })
                    .collect();
                let section = match def.section.as_str() {
                    ".data" => "data".to_string(),
                    ".bss" => "bss".to_string(),
                    ".rodata" => "rodata".to_string(),
                    other => lit(other),
                };
                let (t, v) =
                    if vals.len() == 1 { (ty.to_string(), vals[0].clone()) } else { (format!("[{ty}; {}]", vals.len()), format!("[{}]", vals.join(", "))) };
                let _ = writeln!(s, "#[global({section})]\nstatic {}: {t} = {v};\n", g.name);
            }
            Err(b) => blocked_comment(&mut s, "global", &g.name, std::slice::from_ref(b)),
        }
    }
    for k in &f.ksyms {
        let _ = writeln!(s, "/// `{k}`: a kernel variable (`__ksym`), linked by its BTF id.\nstatic {k}__btf: () = ();\n");
    }
    for sp in &f.subprogs {
        if RUST_KEYWORDS.contains(&sp.name.as_str()) {
            blocked_comment(&mut s, "subprog", &sp.name, &[Blocked::new("name", "a Rust keyword")]);
            continue;
        }
        match &sp.body {
            Ok(a) => {
                let attr = if sp.global { format!("#[subprog(global, nargs = {})]", sp.nargs) } else { "#[subprog]".to_string() };
                let _ = writeln!(s, "{attr}\nfn {}() {{\n{}}}\n", sp.name, body(&renamed(a), "    "));
            }
            Err(b) => blocked_comment(&mut s, "subprog", &sp.name, std::slice::from_ref(b)),
        }
    }
    for p in &f.programs {
        let mut why = p.blocked.clone();
        let mut attrs = Vec::new();
        for t in kernel_meaning_order(&p.tags) {
            match attribute(t) {
                Ok(a) => attrs.push(a),
                Err(e) => why.push(Blocked::new("annotation", e)),
            }
        }
        if RUST_KEYWORDS.contains(&p.name.as_str()) {
            why.push(Blocked::new("name", "a Rust keyword"));
        }
        if let (Some(_), true) = (&p.object, why.is_empty()) {
            object_decl(&mut s, &p.name, &f.source, &p.sec, &attrs);
            continue;
        }
        let Some(a) = p.body.as_ref().filter(|_| why.is_empty()) else {
            blocked_comment(&mut s, "program", &p.name, &why);
            continue;
        };
        for n in &a.notes {
            let _ = writeln!(s, "// {n}");
        }
        let _ = writeln!(s, "#[sec({})]", lit(&p.sec));
        for at in attrs {
            let _ = writeln!(s, "{at}");
        }
        let _ = writeln!(s, "fn {}() {{\n{}}}\n", p.name, body(&renamed(a), "    "));
    }
    s
}
