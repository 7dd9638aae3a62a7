//! Importing the kernel's own selftests (`tools/testing/selftests/bpf/progs`).
//!
//! A source is preprocessed for the target arch ([`cpp`]), split into its
//! top-level items ([`c_source`]), and read the way libbpf and test_loader
//! read the object clang would make of it:
//!
//! * `SEC("...")` functions are programs; their test annotations are the
//!   `btf_decl_tag("comment:<N>:<tag>")` attributes bpf_misc.h expands to,
//!   ordered by the counter, so the tag texts are exactly test_loader's;
//! * `__naked` functions without a section are subprograms (static, or
//!   global with their parameter count);
//! * `SEC(".maps")` definitions are maps, other file-scope variables are
//!   globals in their data sections;
//! * operands are `__imm` (helper ids by name, kfuncs and subprograms as
//!   symbols), `__imm_addr` (maps, globals, functions, `__ksym` variables),
//!   `__imm_const`/`__imm_insn` (computed by the host C compiler, [`eval`])
//!   and `__imm_ptr` (the register clang would pick, loaded before the
//!   block as clang emits it).
//!
//! What cannot be expressed is kept per program as a [`Blocked`]: programs
//! written in C, sections that need an attach target, annotations the
//! runner lacks, maps the backends cannot create as declared, values the
//! host compiler cannot compute. Nothing is dropped silently.
//!
//! The result, an [`ImportedFile`], is rendered as a Rust module
//! ([`rust::render`]) or turned into a runnable [`crate::registry::Suite`]
//! ([`suite::to_suite`]).

pub mod c_source;
pub mod clang;
pub mod cpp;
pub mod discover;
pub mod eval;
pub mod rust;
pub mod suite;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use bpf_isa::helper_ids::helper_id;

use crate::map::types::*;
use crate::target::Arch;
use c_source::{TopItem, func_head};
use cpp::KernelTree;
use eval::{Answer, Query};

/// Why a program (or what it uses) cannot run: the construct, as a short
/// category for tallies, and the details.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Blocked {
    pub construct: String,
    pub detail: String,
}

impl Blocked {
    pub fn new(construct: impl Into<String>, detail: impl Into<String>) -> Blocked {
        Blocked { construct: construct.into(), detail: detail.into() }
    }
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() { f.write_str(&self.construct) } else { write!(f, "{}: {}", self.construct, self.detail) }
    }
}

/// A map as libbpf would create it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapSpec {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    pub inner: Option<Box<MapSpec>>,
    /// Elements written before the programs run: (key, value).
    pub init: Vec<(Vec<u8>, Vec<u8>)>,
    /// A prog array's `.values` initialiser: (key, program name).
    pub prog_slots: Vec<(u32, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedMap {
    pub name: String,
    pub def: Result<MapSpec, Blocked>,
}

/// A global variable: its data section and initial bytes (little-endian,
/// as the BPF targets of x86_64 and arm64 lay them out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedGlobal {
    pub name: String,
    pub def: Result<GlobalSpec, Blocked>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSpec {
    /// `.data`, `.bss`, `.rodata`, `.data.*`, `.rodata.*`.
    pub section: String,
    pub bytes: Vec<u8>,
    pub align: usize,
}

/// An operand of an imported asm body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A helper, by name (its id is the value).
    Helper(String, i32),
    /// A kfunc or subprogram called by name.
    Sym(String),
    /// The address of a map, global, function or kernel variable: the
    /// symbol the linker resolves (`name__btf` for a `__ksym` variable).
    Addr(String),
    /// An `__imm_const` value.
    Const(i64),
    /// An `__imm_insn`: the insn's 8 bytes as `*(long *)&insn` reads them.
    Insn(i64),
}

/// A naked function's asm body, ready for the assembler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedAsm {
    pub template: String,
    pub operands: Vec<(String, Operand)>,
    /// Notes on what the importer chose (`__imm_ptr` registers).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedSubprog {
    pub name: String,
    pub global: bool,
    pub nargs: u32,
    pub body: Result<ImportedAsm, Blocked>,
}

/// An entry program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedProg {
    pub name: String,
    /// The SEC() name.
    pub sec: String,
    /// test_loader's tag texts in source order.
    pub tags: Vec<String>,
    /// The line of the definition in the source.
    pub line: u32,
    pub body: Option<ImportedAsm>,
    /// A program written in C: clang's object of the file, whose program
    /// of this name is loaded as libbpf would ([`crate::object`]); `body`
    /// is then `None`.
    pub object: Option<PathBuf>,
    /// Everything that keeps it from running; empty when it can run.
    pub blocked: Vec<Blocked>,
}

impl ImportedProg {
    pub fn runnable(&self) -> bool {
        self.blocked.is_empty() && (self.body.is_some() || self.object.is_some())
    }

    /// Written in C: its code is (or would be) an object's.
    pub fn in_c(&self) -> bool {
        self.object.is_some() || self.blocked.iter().any(|b| b.construct == IN_C || b.construct.starts_with(OBJECT_PREFIX))
    }

    /// The `test_description=` text, if any.
    pub fn description(&self) -> Option<&str> {
        self.tags.iter().rev().find_map(|t| t.strip_prefix("test_description="))
    }

    pub fn is_auxiliary(&self) -> bool {
        self.tags.iter().any(|t| t == "test_auxiliary" || t == "test_auxiliary_unpriv")
    }
}

/// One imported source, for one arch.
#[derive(Clone, Debug)]
pub struct ImportedFile {
    pub source: PathBuf,
    /// The object's name (the file stem): test_progs' test name and the
    /// prefix of its internal maps.
    pub suite: String,
    pub arch: Arch,
    pub maps: Vec<ImportedMap>,
    pub globals: Vec<ImportedGlobal>,
    pub subprogs: Vec<ImportedSubprog>,
    pub programs: Vec<ImportedProg>,
    /// `__ksym` variables (linked by BTF id as `name__btf`).
    pub ksyms: Vec<String>,
}

impl ImportedFile {
    pub fn runnable(&self) -> usize {
        self.programs.iter().filter(|p| p.runnable()).count()
    }
}

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub arch: Arch,
    /// The kernel tree whose headers the source includes; by default the
    /// one the file sits in, else the 7.3 source setup fetched.
    pub tree: Option<KernelTree>,
}

/// Imports one selftest source.
pub fn import_file(path: &Path, opts: &ImportOptions) -> Result<ImportedFile, String> {
    let tree = opts.tree.clone().or_else(|| KernelTree::of_file(path)).or_else(cpp::source_tree).ok_or_else(|| {
        format!(
            "{}: no kernel tree for its headers (the file is not in one, and `scripts/setup-vm.sh --source` has not fetched the 7.3 source)",
            path.display()
        )
    })?;
    let pre = cpp::preprocess(path, &tree, opts.arch)?;
    let suite = path.file_stem().map_or_else(|| "imported".to_string(), |s| s.to_string_lossy().into_owned());
    let mut file = import_preprocessed(&pre, &path.display().to_string(), &suite, path, opts.arch)?;
    compile_c_programs(&mut file, path, &tree, opts.arch);
    Ok(file)
}

/// The construct of a program written in C whose object could not be
/// made (no clang, a compile error); its detail says why.
pub const IN_C: &str = "written in C";

/// The prefix of the constructs of C programs the object loader cannot
/// load yet (`BPF object: CO-RE relocation`, ...).
pub const OBJECT_PREFIX: &str = "BPF object: ";

/// An [`crate::object::ObjectError`] as a [`Blocked`]: the construct names
/// what the loader lacks (for tallies), the detail is the error.
pub fn object_blocked(e: &str) -> Blocked {
    const KINDS: &[(&str, &str)] = &[
        ("CO-RE relocation", "CO-RE relocation"),
        ("'.kconfig'", ".kconfig extern"),
        ("typeless __ksym", "typeless __ksym"),
        ("address of kfunc", "kfunc address"),
        ("arena", "arena global"),
        ("per-CPU data", "global per-CPU data"),
        ("'.percpu", "global per-CPU data"),
        ("struct_ops", "struct_ops"),
        ("jump tables", "jump tables"),
        ("pinning", "map pinning"),
        ("initial inner maps", "initial inner maps"),
        ("'numa_node'", "map numa_node"),
        ("'map_extra'", "map_extra"),
    ];
    let kind = KINDS.iter().find(|(k, _)| e.contains(k)).map_or("other", |(_, n)| n);
    Blocked::new(format!("{OBJECT_PREFIX}{kind}"), e)
}

/// Programs written in C load from clang's object of the file ([`clang`],
/// [`crate::object`]), when clang is there and the object loader can link
/// them; else they stay blocked, saying why.
fn compile_c_programs(file: &mut ImportedFile, path: &Path, tree: &KernelTree, arch: Arch) {
    let in_c = |p: &ImportedProg| p.blocked.iter().any(|b| b.construct == IN_C);
    if !file.programs.iter().any(in_c) {
        return;
    }
    // no clang or a compile error: still "written in C"; an object the
    // loader cannot open: what it lacks
    let obj = match clang::clang_program() {
        None => Err(Blocked::new(IN_C, "clang-19 is not installed (BPF_SELFTEST_CLANG names another)")),
        Some(_) => clang::compile(path, tree, arch)
            .map_err(|e| Blocked::new(IN_C, e))
            .and_then(|o| crate::object::BpfObject::open(&o).map(|obj| (o, obj)).map_err(|e| object_blocked(&format!("opening clang's object: {e}")))),
    };
    for p in file.programs.iter_mut().filter(|p| in_c(p)) {
        let (o, obj) = match &obj {
            Ok(x) => x,
            Err(why) => {
                for b in p.blocked.iter_mut().filter(|b| b.construct == IN_C) {
                    *b = why.clone();
                }
                continue;
            }
        };
        p.blocked.retain(|b| b.construct != IN_C);
        match obj.link(&p.name) {
            Ok(linked) => {
                p.object = Some(o.clone());
                if let Some(b) = foreign_prog_slots(obj, &p.name, &linked) {
                    p.blocked.push(b);
                }
            }
            Err(e) => p.blocked.insert(0, object_blocked(&e.0)),
        }
    }
}

/// A prog array the linked program uses whose initialiser names another
/// program: the runner loads only the program under test (test_loader
/// loads the others too, as auxiliary programs).
fn foreign_prog_slots(obj: &crate::object::BpfObject, prog: &str, linked: &crate::link::LinkedProgram) -> Option<Blocked> {
    use crate::link::LinkReloc;
    let maps = obj.map_defs();
    linked.relocs.iter().find_map(|r| {
        let (LinkReloc::Map { map, .. } | LinkReloc::MapValue { map, .. }) = r else { return None };
        let m = maps.get(*map)?;
        let (k, other) = m.prog_slots.iter().find(|(_, p)| p != prog)?;
        Some(Blocked::new(
            "map initialiser (.values)",
            format!("{}[{k}] = &{other}: the runner loads only the program under test, not the others a prog array names", m.name),
        ))
    })
}

/// How the tests are referred to across the functions of a file.
#[derive(Default)]
struct FileScope {
    /// Functions defined in the file: name -> naked.
    functions: HashMap<String, bool>,
    /// Function names declared anywhere (kfunc prototypes).
    declared_functions: HashSet<String>,
    /// Maps by name (index into maps).
    maps: HashMap<String, usize>,
    globals: HashMap<String, usize>,
    ksyms: HashSet<String>,
    kconfig: HashSet<String>,
}

/// A map definition before evaluation: the queries for its fields.
struct PendingMap {
    name: String,
    fields: Vec<String>,
    /// `values` element type's fields (map-in-map).
    inner_fields: Vec<String>,
    problem: Option<Blocked>,
    value_struct: Option<String>,
    /// `__array(values, ...)`: a prog array or map of maps.
    has_values: bool,
    /// A prog array's `.values` initialiser: (key, program name).
    prog_slots: Vec<(u32, String)>,
}

struct PendingGlobal {
    name: String,
    section: Option<String>,
    is_const: bool,
    problem: Option<Blocked>,
}

/// A raw asm operand after preprocessing: `[name] "constraint" (expr)`.
struct RawOperand {
    name: String,
    constraint: String,
    expr: String,
}

fn raw_operands(block: &c_source::AsmBlock) -> Vec<RawOperand> {
    use c_source::AsmOperand as A;
    block
        .operands
        .iter()
        .filter_map(|op| match op {
            A::Raw(name, rest) => {
                let rest = rest.trim();
                let b = rest.as_bytes();
                if b.first() != Some(&b'"') {
                    return None;
                }
                let close = rest[1..].find('"')? + 1;
                let constraint = rest[1..close].to_string();
                let expr = rest[close + 1..].trim();
                let expr = expr.strip_prefix('(').and_then(|e| e.strip_suffix(')')).unwrap_or(expr).trim().to_string();
                Some(RawOperand { name: name.trim().to_string(), constraint, expr })
            }
            // Not preprocessed: the bpf_misc.h macro names are still there.
            A::Imm(n) => Some(RawOperand { name: n.clone(), constraint: "i".into(), expr: n.clone() }),
            A::Addr(n) => Some(RawOperand { name: n.clone(), constraint: "i".into(), expr: format!("&{n}") }),
            A::Ptr(n) => Some(RawOperand { name: n.clone(), constraint: "r".into(), expr: format!("&{n}") }),
            A::Const(n, e) => Some(RawOperand { name: n.clone(), constraint: "i".into(), expr: e.clone() }),
            A::Insn(n, e) => Some(RawOperand { name: n.clone(), constraint: "i".into(), expr: format!("*(long *)&({e})") }),
        })
        .collect()
}

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && !b[0].is_ascii_digit() && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A naked function's body, read: its single asm statement's template and
/// operands, with the expressions still to compute.
struct PendingAsm {
    template: String,
    /// (name, operand or the index of the query that computes it)
    operands: Vec<(String, PendingOperand)>,
    notes: Vec<String>,
}

enum PendingOperand {
    Done(Operand),
    Const(usize),
    Insn(usize),
    /// An identifier the file does not declare: an enum constant of a
    /// header, or a kfunc only vmlinux.h would declare.
    ConstOrKfunc(usize, String),
}

/// Why a section's attach target cannot be given to the load, for the
/// sections that need one (the vmlinux BTF targets of tracing and LSM
/// sections it can: `LoadRequest::attach_func`).
fn attach_target_section(sec: &str) -> Option<&'static str> {
    let s = sec.strip_prefix('?').unwrap_or(sec);
    let head = s.split('/').next().unwrap_or(s);
    match head {
        "freplace" => Some("the load needs attach_prog_fd (the program to replace), which test_loader does not give"),
        "struct_ops" | "struct_ops.s" => {
            Some("the load needs a struct_ops map (attach_btf_id of the struct, the member index as expected_attach_type), which the runner does not create")
        }
        "fentry" | "fexit" | "fmod_ret" | "fentry.s" | "fexit.s" | "fmod_ret.s" | "fsession" | "fsession.s" | "tp_btf" | "tp_btf.s" | "lsm" | "lsm.s"
        | "lsm_cgroup" | "iter" | "iter.s"
            if crate::prog_type::sec_attach_target(sec).is_none() =>
        {
            Some("no BTF-based attach target is specified (libbpf wants bpf_program__set_attach_target())")
        }
        _ => None,
    }
}

/// Tags test_loader knows that the runner does not support yet.
fn unsupported_tag(tag: &str) -> Option<&'static str> {
    [
        ("test_btf_path=", "__btf_path"),
        ("test_btf_func_path=", "__btf_func_path"),
        ("test_expect_stderr=", "__stderr"),
        ("test_expect_stderr_unpriv=", "__stderr_unpriv"),
        ("test_expect_stdout=", "__stdout"),
        ("test_expect_stdout_unpriv=", "__stdout_unpriv"),
        ("test_linear_size=", "__linear_size"),
    ]
    .into_iter()
    .find(|(p, _)| tag.starts_with(p))
    .map(|(_, m)| m)
}

/// Value types libbpf only creates with map BTF (the kernel needs it to
/// find these fields).
const BTF_FIELDS: &[&str] = &[
    "bpf_spin_lock",
    "bpf_res_spin_lock",
    "bpf_timer",
    "bpf_wq",
    "bpf_task_work",
    "bpf_list_head",
    "bpf_rb_root",
    "bpf_refcount",
    "btf_type_tag(\"kptr",
    "btf_type_tag(\"percpu_kptr",
    "btf_type_tag(\"uptr",
];

fn map_type_needs_btf(t: u32) -> bool {
    matches!(t, BPF_MAP_TYPE_SK_STORAGE | BPF_MAP_TYPE_INODE_STORAGE | BPF_MAP_TYPE_TASK_STORAGE | BPF_MAP_TYPE_CGRP_STORAGE | BPF_MAP_TYPE_STRUCT_OPS)
}

/// Imports preprocessed text (`main_file` as the line markers name the
/// source).
pub fn import_preprocessed(pre: &str, main_file: &str, suite: &str, source: &Path, arch: Arch) -> Result<ImportedFile, String> {
    let items = c_source::top_level_items(pre);
    let main: Vec<usize> = (0..items.len()).filter(|&k| items[k].file == main_file).collect();
    if main.is_empty() {
        return Err(format!("{main_file}: nothing of the file itself in the preprocessed text"));
    }
    let struct_defs = struct_definitions(&items);

    let mut scope = FileScope::default();
    let proto_attrs = read_prototypes(&items, main_file, &mut scope);
    let decls = read_declarations(&items, &main, &proto_attrs, &struct_defs, &mut scope);

    // What the host compiler computes: the maps' fields, the globals, the
    // operands of the functions' asm.
    let mut queries: Vec<Query> = Vec::new();
    let map_q = queue_map_queries(&decls.maps, &mut queries);
    let global_q = queue_global_queries(&decls.globals, &mut queries);
    let pfuncs = read_functions(decls.funcs, &items, &scope, &mut queries);
    let answers = eval::evaluate(&items, &queries)?;
    let int_of = |q: usize| int_answer(&answers, q);

    let maps = build_maps(decls.maps, map_q, &int_of, suite, &struct_defs);
    let globals = build_globals(decls.globals, global_q, &answers);
    let (subprogs, programs) = build_functions(pfuncs, &items, &int_of);

    let mut file = ImportedFile {
        source: source.to_path_buf(),
        suite: suite.to_string(),
        arch,
        maps,
        globals,
        subprogs,
        programs,
        ksyms: scope.ksyms.iter().cloned().collect(),
    };
    file.ksyms.sort();
    resolve_references(&mut file, &scope);
    Ok(file)
}

/// Declarations everywhere give the names of declared functions; the
/// attributes of the file's own prototypes (`SEC()` and test tags before
/// a `BPF_PROG()` definition) belong to the function: they are returned
/// by its name.
fn read_prototypes(items: &[TopItem], main_file: &str, scope: &mut FileScope) -> HashMap<String, Vec<String>> {
    let mut proto_attrs: HashMap<String, Vec<String>> = HashMap::new();
    for it in items {
        if !it.is_function()
            && let Some(n) = prototype_name(&it.text)
        {
            if it.file == main_file {
                let (_, attrs) = c_source::split_attributes(&it.text);
                proto_attrs.entry(n.clone()).or_default().extend(attrs);
            }
            scope.declared_functions.insert(n);
        }
    }
    proto_attrs
}

/// The file's own definitions: its functions, and the maps and globals
/// still to compute.
#[derive(Default)]
struct Declarations {
    funcs: Vec<(usize, c_source::FuncHead)>,
    maps: Vec<PendingMap>,
    globals: Vec<PendingGlobal>,
}

/// Reads the file's own top-level items (`main`) into `scope` and the
/// definitions still to compute.
fn read_declarations(
    items: &[TopItem],
    main: &[usize],
    proto_attrs: &HashMap<String, Vec<String>>,
    struct_defs: &HashMap<String, String>,
    scope: &mut FileScope,
) -> Declarations {
    let mut decls = Declarations::default();
    for &k in main {
        let it = &items[k];
        if it.is_function() {
            if let Some(h) = function_head(it, proto_attrs) {
                scope.functions.insert(h.name.clone(), c_source::has_attribute(&h.attrs, "naked"));
                decls.funcs.push((k, h));
            }
            continue;
        }
        read_variable(it, items, main, struct_defs, scope, &mut decls);
    }
    decls
}

/// A function definition's head, the attributes of its prototypes first.
fn function_head(it: &TopItem, proto_attrs: &HashMap<String, Vec<String>>) -> Option<c_source::FuncHead> {
    let mut h = func_head(it.head())?;
    if let Some(extra) = proto_attrs.get(&h.name) {
        let mut attrs = extra.clone();
        attrs.append(&mut h.attrs);
        h.attrs = attrs;
    }
    Some(h)
}

/// A file-scope declaration other than a function, by its section: maps
/// (`.maps`, `.struct_ops`), `__ksym` and `__kconfig` variables, globals.
/// Typedefs, externs, the license and the version are left out.
fn read_variable(it: &TopItem, items: &[TopItem], main: &[usize], struct_defs: &HashMap<String, String>, scope: &mut FileScope, decls: &mut Declarations) {
    let (plain, attrs) = c_source::split_attributes(&it.text);
    let section = attrs.iter().flat_map(|a| c_source::attribute_strings(a, "section")).next();
    let words: Vec<&str> = plain.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    if words.first() == Some(&"typedef") {
        return;
    }
    let is_extern = words.contains(&"extern");
    match section.as_deref() {
        Some(".maps") => {
            for (name, _) in c_source::declarators(&it.text) {
                scope.maps.insert(name.clone(), decls.maps.len());
                decls.maps.push(pending_map(&name, &it.text, struct_defs));
            }
            return;
        }
        Some(s) if s.starts_with(".struct_ops") => {
            for (name, _) in c_source::declarators(&it.text) {
                scope.maps.insert(name.clone(), decls.maps.len());
                decls.maps.push(PendingMap {
                    name,
                    fields: Vec::new(),
                    inner_fields: Vec::new(),
                    problem: Some(Blocked::new("struct_ops map", "a SEC(\".struct_ops\") map needs its struct's BTF and programs")),
                    value_struct: None,
                    has_values: false,
                    prog_slots: Vec::new(),
                });
            }
            return;
        }
        Some("license") | Some("version") => return,
        Some(".ksyms") => {
            for (name, _) in c_source::declarators(&it.text) {
                scope.ksyms.insert(name);
            }
            return;
        }
        Some(".kconfig") => {
            for (name, _) in c_source::declarators(&it.text) {
                scope.kconfig.insert(name);
            }
            return;
        }
        _ => {}
    }
    if is_extern {
        return;
    }
    let is_static = words.contains(&"static");
    let is_const = words.contains(&"const");
    for (name, decl) in c_source::declarators(&it.text) {
        let problem = match section.as_deref() {
            Some(s) if s.starts_with(".addr_space") => Some(Blocked::new("arena global", format!("{name} lives in the arena ({s})"))),
            Some(s) if !(s == ".data" || s == ".bss" || s == ".rodata" || s.starts_with(".data.") || s.starts_with(".rodata.") || s.starts_with(".bss.")) => {
                Some(Blocked::new("global in an unknown section", format!("{name} in {s}")))
            }
            _ => c_source::initializer(&decl)
                .filter(|init| init.contains('&'))
                .map(|_| Blocked::new("global with an address initialiser", format!("{name} is initialised with addresses (relocations)"))),
        };
        if is_static && !mentioned_in_asm(items, main, &name) {
            // clang drops a static variable only C code used; the
            // runnable programs never see it either way
            continue;
        }
        scope.globals.insert(name.clone(), decls.globals.len());
        decls.globals.push(PendingGlobal { name, section: section.clone(), is_const, problem });
    }
}

/// Queues the queries of the maps' fields: per map, (field, query).
fn queue_map_queries(maps: &[PendingMap], queries: &mut Vec<Query>) -> Vec<Vec<(String, usize)>> {
    let mut map_q: Vec<Vec<(String, usize)>> = Vec::new();
    for m in maps {
        let mut qs = Vec::new();
        if m.problem.is_none() {
            for f in &m.fields {
                let e = match f.as_str() {
                    "key" | "value" => format!("sizeof(*{}.{f})", m.name),
                    "values" => continue,
                    _ => format!("sizeof(*{}.{f}) / sizeof(int)", m.name),
                };
                qs.push((f.clone(), queries.len()));
                queries.push(Query::Int(e));
            }
            for f in &m.inner_fields {
                let e = match f.as_str() {
                    "key" | "value" => format!("sizeof(*{}.values[0]->{f})", m.name),
                    _ => format!("sizeof(*{}.values[0]->{f}) / sizeof(int)", m.name),
                };
                qs.push((format!("inner.{f}"), queries.len()));
                queries.push(Query::Int(e));
            }
        }
        map_q.push(qs);
    }
    map_q
}

/// Queues the queries of the globals' bytes: per global, its query.
fn queue_global_queries(globals: &[PendingGlobal], queries: &mut Vec<Query>) -> Vec<usize> {
    let mut global_q = Vec::new();
    for g in globals {
        global_q.push(queries.len());
        queries.push(Query::Object(g.name.clone()));
    }
    global_q
}

/// A function with its body read and its operand values queued.
struct PendingFunc {
    item: usize,
    head: c_source::FuncHead,
    naked: bool,
    section: Option<String>,
    asm: Result<PendingAsm, Blocked>,
}

/// Reads the functions' bodies (a naked function's asm; the others are
/// written in C) and queues their operand values.
fn read_functions(funcs: Vec<(usize, c_source::FuncHead)>, items: &[TopItem], scope: &FileScope, queries: &mut Vec<Query>) -> Vec<PendingFunc> {
    let mut pfuncs = Vec::new();
    for (k, head) in funcs {
        let naked = c_source::has_attribute(&head.attrs, "naked");
        let section = head.attrs.iter().flat_map(|a| c_source::attribute_strings(a, "section")).next();
        let asm = if naked { read_asm(items[k].body(), scope, queries) } else { Err(Blocked::new(IN_C, "")) };
        pfuncs.push(PendingFunc { item: k, head, naked, section, asm });
    }
    pfuncs
}

/// The integer the host compiler computed for query `q`.
fn int_answer(answers: &[Result<Answer, String>], q: usize) -> Result<i64, String> {
    match answers.get(q) {
        Some(Ok(Answer::Int(v))) => Ok(*v),
        Some(Ok(_)) => Err("not an integer".into()),
        Some(Err(e)) => Err(e.clone()),
        None => Err("not computed".into()),
    }
}

/// The maps, from their fields' values.
fn build_maps(
    pending: Vec<PendingMap>,
    map_q: Vec<Vec<(String, usize)>>,
    int_of: &dyn Fn(usize) -> Result<i64, String>,
    suite: &str,
    struct_defs: &HashMap<String, String>,
) -> Vec<ImportedMap> {
    let mut maps = Vec::new();
    for (m, qs) in pending.into_iter().zip(map_q) {
        let def = match m.problem {
            Some(b) => Err(b),
            None => build_map(&m.name, &qs, int_of, m.value_struct.as_deref(), struct_defs, m.has_values).map(|mut d| {
                d.init.extend(test_progs_setup(suite, &m.name, d.value_size));
                d.prog_slots = m.prog_slots.clone();
                d
            }),
        };
        maps.push(ImportedMap { name: m.name, def });
    }
    maps
}

/// The globals, from their bytes; one without a section goes where
/// clang puts it.
fn build_globals(pending: Vec<PendingGlobal>, global_q: Vec<usize>, answers: &[Result<Answer, String>]) -> Vec<ImportedGlobal> {
    let mut globals = Vec::new();
    for (g, q) in pending.into_iter().zip(global_q) {
        let def = match g.problem {
            Some(b) => Err(b),
            None => match answers.get(q) {
                Some(Ok(Answer::Object { bytes, align })) => {
                    let section = g.section.clone().unwrap_or_else(|| {
                        if g.is_const {
                            ".rodata".into()
                        } else if bytes.iter().all(|&b| b == 0) {
                            ".bss".into()
                        } else {
                            ".data".into()
                        }
                    });
                    let section = if let Some(rest) = section.strip_prefix(".bss.") { format!(".data.{rest}") } else { section };
                    Ok(GlobalSpec { section, bytes: bytes.clone(), align: (*align).max(1) })
                }
                Some(Err(e)) => Err(Blocked::new("global not computable", format!("{}: {e}", g.name))),
                _ => Err(Blocked::new("global not computable", g.name.clone())),
            },
        };
        globals.push(ImportedGlobal { name: g.name, def });
    }
    globals
}

/// The subprograms (naked functions without a section) and the programs
/// (functions with one). Functions in C without a section are not kept.
fn build_functions(pfuncs: Vec<PendingFunc>, items: &[TopItem], int_of: &dyn Fn(usize) -> Result<i64, String>) -> (Vec<ImportedSubprog>, Vec<ImportedProg>) {
    let mut subprogs = Vec::new();
    let mut programs = Vec::new();
    for f in pfuncs {
        let it = &items[f.item];
        match &f.section {
            None => {
                if !f.naked {
                    continue; // a C helper; programs calling it are blocked below
                }
                subprogs.push(imported_subprog(&f.head, f.asm, int_of));
            }
            Some(sec) => programs.push(imported_prog(&f.head, sec, it.line, f.asm, int_of)),
        }
    }
    (subprogs, programs)
}

/// A naked function without a section: a subprogram, static or global
/// (with its parameter count).
fn imported_subprog(head: &c_source::FuncHead, asm: Result<PendingAsm, Blocked>, int_of: &dyn Fn(usize) -> Result<i64, String>) -> ImportedSubprog {
    let global = !head.is_static;
    let mut body = finish_asm(asm, int_of);
    if global && let Some(b) = global_args_problem(head) {
        body = Err(b);
    }
    ImportedSubprog { name: head.name.clone(), global, nargs: c_source::param_count(&head.params).min(5) as u32, body }
}

/// A function with a section: a program, with its test tags and what
/// keeps it from running.
fn imported_prog(
    head: &c_source::FuncHead,
    sec: &str,
    line: u32,
    asm: Result<PendingAsm, Blocked>,
    int_of: &dyn Fn(usize) -> Result<i64, String>,
) -> ImportedProg {
    let tags = test_tags(&head.attrs);
    let mut blocked = Vec::new();
    let body = match finish_asm(asm, int_of) {
        Ok(a) => Some(a),
        Err(b) => {
            blocked.push(b);
            None
        }
    };
    if let Some(why) = attach_target_section(sec) {
        blocked.push(Blocked::new("SEC needs an attach target", format!("SEC(\"{sec}\"): {why}")));
    } else if crate::prog_type::sec_def(sec).is_none() {
        blocked.push(Blocked::new("SEC unknown to the runner", format!("SEC(\"{sec}\")")));
    }
    for t in &tags {
        if let Some(m) = unsupported_tag(t) {
            blocked.push(Blocked::new(format!("annotation {m}"), format!("{m} is not supported by the runner")));
        }
    }
    ImportedProg { name: head.name.clone(), sec: sec.to_string(), tags, line, body, object: None, blocked }
}

/// test_loader's tag texts: the `btf_decl_tag("comment:<N>:<tag>")`
/// attributes, ordered by the counter.
fn test_tags(attrs: &[String]) -> Vec<String> {
    let mut tagged: Vec<(u64, String)> = Vec::new();
    for a in attrs {
        for t in c_source::attribute_strings(a, "btf_decl_tag") {
            if let Some(rest) = t.strip_prefix("comment:")
                && let Some((n, text)) = rest.split_once(':')
                && let Ok(n) = n.parse::<u64>()
            {
                tagged.push((n, text.to_string()));
            }
        }
    }
    tagged.sort_by_key(|(n, _)| *n);
    tagged.into_iter().map(|(_, t)| t).collect()
}

/// An asm body with its operands' values.
fn finish_asm(p: Result<PendingAsm, Blocked>, int_of: &dyn Fn(usize) -> Result<i64, String>) -> Result<ImportedAsm, Blocked> {
    let p = p?;
    let mut operands = Vec::new();
    for (name, op) in p.operands {
        let op = match op {
            PendingOperand::Done(o) => o,
            PendingOperand::Const(q) => Operand::Const(int_of(q).map_err(|e| Blocked::new("__imm_const not computable", format!("{name}: {e}")))?),
            PendingOperand::Insn(q) => Operand::Insn(int_of(q).map_err(|e| Blocked::new("__imm_insn not computable", format!("{name}: {e}")))?),
            PendingOperand::ConstOrKfunc(q, sym) => match int_of(q) {
                Ok(v) => Operand::Const(v),
                Err(e) if e.contains("undeclared") && p.template.contains(&format!("call %[{name}]")) => Operand::Sym(sym),
                Err(e) => return Err(Blocked::new("__imm_const not computable", format!("{name}: {e}"))),
            },
        };
        operands.push((name, op));
    }
    // A constant glued to other text (`*(u%[size] *)`) is pasted in as
    // the compiler pastes it, so that the assembler sees one token; if
    // the text still does not assemble with the constants as operands,
    // they are all pasted in.
    let glued = paste_constants(&p.template, &operands, true);
    let asm = if assemble(&glued).is_ok() { glued } else { paste_constants(&p.template, &operands, false) };
    Ok(ImportedAsm { notes: p.notes, ..asm })
}

/// The body with `Const` operands pasted into the text: only where glued
/// to a preceding identifier character, or everywhere.
fn paste_constants(template: &str, operands: &[(String, Operand)], only_glued: bool) -> ImportedAsm {
    let mut template = template.to_string();
    let mut kept = Vec::new();
    for (name, op) in operands {
        let Operand::Const(v) = op else {
            kept.push((name.clone(), op.clone()));
            continue;
        };
        let pat = format!("%[{name}]");
        let mut out = String::with_capacity(template.len());
        let mut rest = template.as_str();
        while let Some(at) = rest.find(&pat) {
            let glued = rest[..at].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            out.push_str(&rest[..at]);
            if glued || !only_glued {
                out.push_str(&v.to_string())
            } else {
                out.push_str(&pat)
            }
            rest = &rest[at + pat.len()..];
        }
        out.push_str(rest);
        template = out;
        if template.contains(&pat) {
            kept.push((name.clone(), op.clone()));
        }
    }
    ImportedAsm { template, operands: kept, notes: Vec::new() }
}

/// Assembles an imported body (symbols stay relocations).
pub fn assemble(asm: &ImportedAsm) -> Result<bpf_isa::Program, bpf_isa::AsmError> {
    let ops = &asm.operands;
    bpf_isa::assemble_with(&asm.template, &|name| {
        ops.iter().find(|(n, _)| n == name).map(|(_, o)| match o {
            Operand::Helper(_, id) => bpf_isa::Operand::Imm(*id as i64),
            Operand::Sym(s) | Operand::Addr(s) => bpf_isa::Operand::Sym(s.clone()),
            Operand::Const(v) | Operand::Insn(v) => bpf_isa::Operand::Imm(*v),
        })
    })
}

/// Whether `name` appears as an asm operand expression of the file.
fn mentioned_in_asm(items: &[TopItem], main: &[usize], name: &str) -> bool {
    main.iter().any(|&k| {
        let it = &items[k];
        it.is_function() && it.body().contains("asm") && it.body().contains(&format!("&{name})"))
    })
}

/// The name a function prototype declares (`int f(int);`,
/// `extern void g(void) __ksym;`), if the declaration is one.
fn prototype_name(decl: &str) -> Option<String> {
    let (plain, _) = c_source::split_attributes(decl.trim_end_matches(';'));
    let t = plain.trim();
    if t.starts_with("typedef") || t.contains('{') || t.contains('=') {
        return None;
    }
    let open = t.find('(')?;
    let before = t[..open].trim_end();
    if t[open + 1..].trim_start().starts_with('*') {
        return None; // function pointer variable
    }
    let start = c_source::ident_suffix_start(before);
    let name = &before[start..];
    (is_identifier(name) && start > 0).then(|| name.to_string())
}

/// `struct NAME { ... }` definitions of the translation unit, by name.
fn struct_definitions(items: &[TopItem]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for it in items {
        if it.is_function() {
            continue;
        }
        let mut rest = it.text.as_str();
        while let Some(p) = rest.find("struct ") {
            let after = &rest[p + 7..];
            let name_end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            let name = &after[..name_end];
            let tail = after[name_end..].trim_start();
            if !name.is_empty()
                && tail.starts_with('{')
                && let Some(body) = c_source::first_brace_body(tail)
            {
                out.entry(name.to_string()).or_insert_with(|| body.to_string());
            }
            rest = &rest[p + 7..];
        }
    }
    out
}

fn pending_map(name: &str, text: &str, structs: &HashMap<String, String>) -> PendingMap {
    let body = c_source::first_brace_body(text).unwrap_or("");
    let fields = c_source::struct_fields(body);
    let mut names: Vec<String> = fields.iter().map(|(n, _)| n.clone()).collect();
    let known = ["type", "max_entries", "key_size", "value_size", "key", "value", "map_flags", "values", "map_extra", "pinning", "numa_node"];
    let mut problem = None;
    if let Some((n, _)) = fields.iter().find(|(n, _)| !known.contains(&n.as_str())) {
        problem = Some(Blocked::new("map definition", format!("{name}: unknown field '{n}'")));
    }
    for f in ["map_extra", "pinning", "numa_node"] {
        if names.iter().any(|n| n == f) {
            problem.get_or_insert_with(|| Blocked::new("map definition", format!("{name}: field '{f}' is not supported")));
        }
    }
    // a prog array's programs: the loader puts them in after the load, as
    // libbpf does (a map of maps' inner maps: not yet)
    let mut prog_slots = Vec::new();
    if let Some(init) = c_source::declarators(text).iter().find_map(|(_, d)| c_source::initializer(d).map(str::to_string)) {
        let parsed = if body.contains("BPF_MAP_TYPE_PROG_ARRAY") {
            c_source::prog_array_slots(&init)
        } else {
            Err("only a prog array's initialiser is supported".to_string())
        };
        match parsed {
            Ok(s) => prog_slots = s,
            Err(e) => {
                problem.get_or_insert_with(|| Blocked::new("map initialiser (.values)", format!("{name}: {e}")));
            }
        }
    }
    let mut inner_fields = Vec::new();
    if let Some((_, member)) = fields.iter().find(|(n, _)| n == "values") {
        // typeof(struct { ... }) *values[] or typeof(struct name) *values[]
        let inner_body = c_source::first_brace_body(member).map(str::to_string).or_else(|| {
            let p = member.find("struct ")?;
            let after = &member[p + 7..];
            let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            structs.get(&after[..end]).cloned()
        });
        let is_struct = member.contains("struct");
        match inner_body {
            None if !is_struct => {} // `__array(values, void (void))`: a prog array's programs
            Some(b) => inner_fields = c_source::struct_fields(&b).into_iter().map(|(n, _)| n).filter(|n| n != "values").collect(),
            None => {
                problem.get_or_insert_with(|| Blocked::new("map definition", format!("{name}: inner map type not found")));
            }
        }
    }
    // the value's struct, for the map-BTF check
    let value_struct = fields.iter().find(|(n, _)| n == "value").and_then(|(_, m)| {
        let p = m.find("struct ")?;
        let after = &m[p + 7..];
        let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        Some(after[..end].to_string())
    });
    let has_values = names.iter().any(|n| n == "values");
    names.retain(|n| n != "values");
    PendingMap { name: name.to_string(), fields: names, inner_fields, problem, value_struct, has_values, prog_slots }
}

/// Whether a struct (recursively, through the struct members it embeds)
/// holds a field the kernel only finds through map BTF.
fn btf_field(struct_name: &str, structs: &HashMap<String, String>, depth: u32) -> Option<String> {
    let body = structs.get(struct_name)?;
    if let Some(f) = BTF_FIELDS.iter().find(|f| body.contains(*f)) {
        return Some(f.trim_start_matches("btf_type_tag(\"").to_string());
    }
    if depth > 4 {
        return None;
    }
    let mut rest = body.as_str();
    while let Some(p) = rest.find("struct ") {
        let after = &rest[p + 7..];
        let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        if let Some(f) = btf_field(&after[..end], structs, depth + 1) {
            return Some(f);
        }
        rest = after;
    }
    None
}

fn build_map(
    name: &str,
    qs: &[(String, usize)],
    int_of: &dyn Fn(usize) -> Result<i64, String>,
    value_struct: Option<&str>,
    structs: &HashMap<String, String>,
    has_values: bool,
) -> Result<MapSpec, Blocked> {
    let mut vals: BTreeMap<&str, i64> = BTreeMap::new();
    for (f, q) in qs {
        let v = int_of(*q).map_err(|e| Blocked::new("map definition not computable", format!("{name}.{f}: {e}")))?;
        vals.insert(f.as_str(), v);
    }
    let get = |k: &str| vals.get(k).copied().unwrap_or(0) as u32;
    let spec_of = |prefix: &str| -> MapSpec {
        let g = |k: &str| get(&format!("{prefix}{k}"));
        let key_size = if vals.contains_key(format!("{prefix}key").as_str()) { g("key") } else { g("key_size") };
        let value_size = if vals.contains_key(format!("{prefix}value").as_str()) { g("value") } else { g("value_size") };
        MapSpec {
            map_type: g("type"),
            key_size,
            value_size,
            max_entries: g("max_entries"),
            map_flags: g("map_flags"),
            inner: None,
            init: Vec::new(),
            prog_slots: Vec::new(),
        }
    };
    let mut spec = spec_of("");
    if qs.iter().any(|(f, _)| f.starts_with("inner.")) {
        spec.inner = Some(Box::new(spec_of("inner.")));
    }
    if has_values {
        // libbpf: the values of a prog array or map of maps are fds
        spec.value_size = 4;
    }
    if matches!(spec.map_type, BPF_MAP_TYPE_RINGBUF | BPF_MAP_TYPE_USER_RINGBUF) {
        spec.max_entries = crate::object::adjust_ringbuf_sz(spec.max_entries);
    }
    if map_type_needs_btf(spec.map_type) {
        return Err(Blocked::new("map needs BTF", format!("{name}: {} maps are created with key/value BTF", crate::map::map_type_name(spec.map_type))));
    }
    if let Some(f) = value_struct.and_then(|s| btf_field(s, structs, 0)) {
        return Err(Blocked::new("map needs BTF", format!("{name}: its value holds {f}")));
    }
    Ok(spec)
}

/// What test_progs' `prog_tests/verifier.c` does to a suite's maps before
/// its programs run (`pre_execution_cb`): `verifier_array_access` and
/// `verifier_value_ptr_arith` get a `struct test_val` with `index = 7 *
/// sizeof(int)` and `foo[6] = 0xabcdef12` at key 0 of one map. Written at
/// creation here, which is the same for the verifier: the maps are not
/// frozen, so it never reads their contents.
pub fn test_progs_setup(suite: &str, map: &str, value_size: u32) -> Option<(Vec<u8>, Vec<u8>)> {
    let target = match suite {
        "verifier_array_access" => "map_array_ro",
        "verifier_value_ptr_arith" => "map_array_48b",
        _ => return None,
    };
    if map != target || value_size != 48 {
        return None;
    }
    let mut v = vec![0u8; 48];
    v[0..4].copy_from_slice(&28u32.to_le_bytes());
    v[4 + 6 * 4..4 + 7 * 4].copy_from_slice(&0xabcd_ef12u32.to_le_bytes());
    Some((0u32.to_le_bytes().to_vec(), v))
}

/// A global subprogram's parameters must be integers: the program BTF the
/// runner writes gives them `int` types.
fn global_args_problem(h: &c_source::FuncHead) -> Option<Blocked> {
    if h.params.trim().is_empty() || h.params.trim() == "void" {
        return None;
    }
    for p in c_source_params(&h.params) {
        let (plain, attrs) = c_source::split_attributes(&p);
        if !attrs.is_empty() || plain.contains('*') || plain.contains("struct") || plain.contains('[') {
            return Some(Blocked::new(
                "global subprog with typed arguments",
                format!("{}({}): needs the argument types in BTF", h.name, h.params.split_whitespace().collect::<Vec<_>>().join(" ")),
            ));
        }
    }
    None
}

fn c_source_params(params: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in params.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(params[start..k].trim().to_string());
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(params[start..].trim().to_string());
    out
}

/// clang's order for allocating BPF registers to an "r" operand
/// (`GPR` in BPFRegisterInfo.td): r1-r5, r0, then the callee-saved r6-r9.
const REG_ORDER: [u8; 10] = [1, 2, 3, 4, 5, 0, 6, 7, 8, 9];

fn read_asm(body: &str, scope: &FileScope, queries: &mut Vec<Query>) -> Result<PendingAsm, Blocked> {
    let blocks = c_source::asm_blocks(body);
    let block = match blocks.as_slice() {
        [b] => b,
        [] => return Err(Blocked::new("naked function without asm", "")),
        _ => return Err(Blocked::new("several asm statements", format!("{} asm statements in one naked function", blocks.len()))),
    };
    if let Some(p) = &block.problem {
        return Err(Blocked::new("asm statement", p.clone()));
    }
    if block.template.contains(".pushsection") {
        return Err(Blocked::new("asm section directives", "a jump table (.pushsection .jumptables) needs libbpf's insn_array maps"));
    }
    let mut operands = Vec::new();
    let mut prelude = String::new();
    let mut template = block.template.clone();
    let mut used_regs: Vec<u8> = Vec::new();
    let mut notes = Vec::new();
    for op in raw_operands(block) {
        let expr = op.expr.trim();
        let addr_of = expr.strip_prefix('&').map(str::trim).filter(|n| is_identifier(n));
        let pending = match op.constraint.as_str() {
            "r" => {
                let Some(target) = addr_of else {
                    return Err(Blocked::new("__imm_ptr operand", format!("[{}] \"r\" ({expr})", op.name)));
                };
                let clobbered = |r: u8| block.clobbers.iter().any(|c| c == &format!("r{r}"));
                let Some(reg) = REG_ORDER.into_iter().find(|&r| !clobbered(r) && !used_regs.contains(&r)) else {
                    return Err(Blocked::new("__imm_ptr operand", format!("{}: no register left for it", op.name)));
                };
                used_regs.push(reg);
                // clang loads the address before the block; the operand is the register
                prelude.push_str(&format!("r{reg} = %[{}] ll;\n", op.name));
                template = template.replace(&format!("%[{}]", op.name), &format!("r{reg}"));
                notes.push(format!("__imm_ptr({target}): loaded into r{reg} before the block, as clang allocates it"));
                PendingOperand::Done(Operand::Addr(symbol_for_addr(target, scope)))
            }
            "i" | "n" => {
                if let Some(target) = addr_of {
                    PendingOperand::Done(Operand::Addr(symbol_for_addr(target, scope)))
                } else if let Some(id) = helper_id(expr).filter(|_| is_identifier(expr)) {
                    PendingOperand::Done(Operand::Helper(expr.to_string(), id))
                } else if is_identifier(expr) && (scope.functions.contains_key(expr) || scope.declared_functions.contains(expr)) {
                    PendingOperand::Done(Operand::Sym(expr.to_string()))
                } else if is_identifier(expr) {
                    queries.push(Query::Int(expr.to_string()));
                    PendingOperand::ConstOrKfunc(queries.len() - 1, expr.to_string())
                } else if expr.starts_with("*(long *)&") || expr.starts_with("*(long*)&") {
                    queries.push(Query::Int(expr.to_string()));
                    PendingOperand::Insn(queries.len() - 1)
                } else {
                    queries.push(Query::Int(expr.to_string()));
                    PendingOperand::Const(queries.len() - 1)
                }
            }
            other => return Err(Blocked::new("asm operand constraint", format!("[{}] \"{other}\"", op.name))),
        };
        operands.push((op.name, pending));
    }
    template.insert_str(0, &prelude);
    Ok(PendingAsm { template, operands, notes })
}

/// The symbol the linker resolves for `&name`: a `__ksym` variable is
/// linked by BTF id under `name__btf`.
fn symbol_for_addr(name: &str, scope: &FileScope) -> String {
    if scope.ksyms.contains(name) { format!("{name}__btf") } else { name.to_string() }
}

/// Assembles every body, and blocks programs on what they reference:
/// C functions, blocked subprograms, maps and globals, `__kconfig`
/// variables, unknown symbols.
fn resolve_references(file: &mut ImportedFile, scope: &FileScope) {
    let map_block: HashMap<String, Option<Blocked>> = file.maps.iter().map(|m| (m.name.clone(), m.def.as_ref().err().cloned())).collect();
    let global_block: HashMap<String, Option<Blocked>> = file.globals.iter().map(|g| (g.name.clone(), g.def.as_ref().err().cloned())).collect();
    // Symbols each naked body references.
    let refs = |asm: &ImportedAsm| -> Result<Vec<String>, Blocked> {
        let prog = assemble(asm).map_err(|e| Blocked::new("asm error", format!("line {}, col {}: {}", e.line, e.col, e.msg)))?;
        Ok(prog.relocs.into_iter().map(|r| r.symbol).collect())
    };
    // Identifiers called through `__imm()` that nothing declares are kfuncs
    // (the real vmlinux.h declares them).
    let mut kfuncs: HashSet<String> = HashSet::new();
    for a in file.programs.iter().filter_map(|p| p.body.as_ref()).chain(file.subprogs.iter().filter_map(|s| s.body.as_ref().ok())) {
        for (_, op) in &a.operands {
            if let Operand::Sym(s) = op {
                kfuncs.insert(s.clone());
            }
        }
    }
    let subprog_refs: HashMap<String, Result<Vec<String>, Blocked>> =
        file.subprogs.iter().map(|s| (s.name.clone(), s.body.clone().and_then(|b| refs(&b)))).collect();
    let classify = |sym: &str| -> Option<Blocked> {
        if let Some(b) = map_block.get(sym) {
            return b.clone();
        }
        if let Some(b) = global_block.get(sym) {
            return b.clone();
        }
        if sym.ends_with("__btf") || subprog_refs.contains_key(sym) {
            return None;
        }
        if scope.kconfig.contains(sym) {
            return Some(Blocked::new("__kconfig variable", sym.to_string()));
        }
        match scope.functions.get(sym) {
            Some(false) => return Some(Blocked::new("calls a C function", sym.to_string())),
            Some(true) => return None,
            None => {}
        }
        if scope.declared_functions.contains(sym) || kfuncs.contains(sym) {
            return None; // a kfunc
        }
        Some(Blocked::new("unknown symbol", format!("'{sym}' is not a map, global, function or kfunc of the file")))
    };
    // Walk a body's references, through the subprograms it reaches.
    let walk = |start: Vec<String>| -> Vec<Blocked> {
        let mut out = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo = start;
        while let Some(sym) = todo.pop() {
            if !seen.insert(sym.clone()) {
                continue;
            }
            if let Some(b) = classify(&sym) {
                out.push(b);
            }
            if let Some(r) = subprog_refs.get(&sym) {
                match r {
                    Ok(more) => todo.extend(more.iter().cloned()),
                    Err(b) => out.push(Blocked::new(format!("subprog: {}", b.construct), format!("{sym}: {}", b.detail))),
                }
            }
        }
        out
    };
    // A subprogram that references something blocked is blocked itself (it
    // could not be declared on its own).
    let sub_blocks: Vec<Option<Blocked>> = file
        .subprogs
        .iter()
        .map(|s| match &s.body {
            Ok(b) => refs(b).map_or_else(Some, |syms| walk(syms).into_iter().next()),
            Err(_) => None,
        })
        .collect();
    for (s, b) in file.subprogs.iter_mut().zip(sub_blocks) {
        if let Some(b) = b {
            s.body = Err(b);
        }
    }
    // Prog arrays whose initialiser names programs: the loader fills in
    // only the program it loads (test_loader would load the others too,
    // as auxiliary programs), so a program reaching a map that names
    // another program cannot run as the kernel's test does.
    let foreign_slots = |prog: &str, syms: &[String]| -> Option<Blocked> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut todo: Vec<String> = syms.to_vec();
        while let Some(sym) = todo.pop() {
            if !seen.insert(sym.clone()) {
                continue;
            }
            if let Some(Ok(d)) = file.maps.iter().find(|m| m.name == sym).map(|m| &m.def)
                && let Some((k, other)) = d.prog_slots.iter().find(|(_, p)| p != prog)
            {
                return Some(Blocked::new(
                    "map initialiser (.values)",
                    format!("{sym}[{k}] = &{other}: the runner loads only the program under test, not the others a prog array names"),
                ));
            }
            if let Some(Ok(more)) = subprog_refs.get(&sym) {
                todo.extend(more.iter().cloned());
            }
        }
        None
    };
    let mut extra: Vec<Option<Blocked>> = Vec::new();
    for p in &mut file.programs {
        let Some(body) = &p.body else {
            extra.push(None);
            continue;
        };
        match refs(body) {
            Ok(syms) => {
                for b in walk(syms.clone()) {
                    if !p.blocked.contains(&b) {
                        p.blocked.push(b);
                    }
                }
                extra.push(Some(syms).and_then(|s| foreign_slots(&p.name, &s)));
            }
            Err(b) => {
                p.blocked.push(b);
                extra.push(None);
            }
        }
    }
    for (p, b) in file.programs.iter_mut().zip(extra) {
        if let Some(b) = b.filter(|b| !p.blocked.contains(b)) {
            p.blocked.push(b);
        }
    }
}

/// Imports every `verifier_*.c` of `tree` (sorted by name) for `arch`,
/// two files at a time. A file that fails to import as a whole is
/// returned as the error of its slot.
pub fn import_verifier_suites(tree: &KernelTree, arch: Arch, filter: &dyn Fn(&str) -> bool) -> Vec<(PathBuf, Result<ImportedFile, String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(tree.progs())
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    n.starts_with("verifier_") && n.ends_with(".c") && filter(n.trim_end_matches(".c"))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    import_files(&files, &ImportOptions { arch, tree: Some(tree.clone()) })
}

/// Imports every test_loader suite of `tree` ([`discover::test_loader_suites`]:
/// the `verifier_*.c` files first, then the others test_progs runs
/// through test_loader) whose name passes `filter`, for `arch`.
pub fn import_kernel_suites(tree: &KernelTree, arch: Arch, filter: &dyn Fn(&str) -> bool) -> Vec<(PathBuf, Result<ImportedFile, String>)> {
    let files: Vec<PathBuf> = discover::test_loader_suites(tree).into_iter().filter(|p| p.file_stem().is_some_and(|s| filter(&s.to_string_lossy()))).collect();
    import_files(&files, &ImportOptions { arch, tree: Some(tree.clone()) })
}

/// Imports `files` with a few threads (the work is mostly gcc).
pub fn import_files(files: &[PathBuf], opts: &ImportOptions) -> Vec<(PathBuf, Result<ImportedFile, String>)> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, 4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Result<ImportedFile, String>>>> = std::sync::Mutex::new(vec![None; files.len()]);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = files.get(k) else { break };
                    let r = import_file(f, opts);
                    if let Ok(mut all) = results.lock() {
                        all[k] = Some(r);
                    }
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_default();
    files.iter().cloned().zip(results.into_iter().map(|r| r.unwrap_or_else(|| Err("not imported".into())))).collect()
}

/// The 7.3 source tree the importer reads (never committed here: the
/// kernel's sources are GPL): `$BPF_SELFTEST_KERNEL_SRC`, else what
/// `scripts/setup-vm.sh --source` fetched into the project's cache.
pub fn kernel_source_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var("BPF_SELFTEST_KERNEL_SRC").ok().map(PathBuf::from),
        Some(Path::new(&std::env::var("BPF_SELFTEST_CACHE").unwrap_or_else(|_| "/var/cache/bpf-selftest".into())).join("linux-7.3")),
    ];
    candidates.into_iter().flatten().find(|d| d.join("tools/testing/selftests/bpf/progs").is_dir())
}

/// The entries of a list of known failures of the kernel's selftests
/// (`expected/KERNEL_SELFTESTS_KNOWN`, `expected/KERNEL_SELFTESTS_MODEL`)
/// that apply to `arch`, in file order. A line is
/// `<arch|*> <suite>/<prog>[ @unpriv] <reason>`; blank lines and `#`
/// comments are skipped, and so is a line without a reason. Each entry is
/// the subtest's name as the runner spells it (`suite/prog` or
/// `suite/prog @unpriv`) and the reason.
pub fn known_failures(text: &str, arch: Arch) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((which, rest)) = line.split_once(' ') else { continue };
        if which != "*" && which != arch.name() {
            continue;
        }
        let Some((prog, reason)) = rest.trim().split_once(' ') else { continue };
        // the unprivileged run is named with a space: it stays in the name
        let (name, reason) = match reason.strip_prefix("@unpriv ") {
            Some(r) => (format!("{prog} @unpriv"), r),
            None => (prog.to_string(), reason),
        };
        out.push((name, reason.trim().to_string()));
    }
    out
}

#[cfg(test)]
mod tests;
