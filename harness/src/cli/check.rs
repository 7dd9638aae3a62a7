//! `bpf-selftest check FILE.s`: one program through the whole pipeline of a
//! backend, everything it produced printed (or as one JSON object).
//! `check FILE.bpf.o --prog NAME` takes a program of a clang-built object
//! instead ([`crate::object`]): its section gives the type, and its maps
//! and license come from the object. Without `--prog`, every program of the
//! object is checked in turn, each under a heading with its name.

use clap::Args;
use serde_json::json;

use crate::backend::{self, BtfMode, LoadOutcome, LoadRequest, TestRunInput};
use crate::isa::{AsmError, AsmErrorKind, Operand, Program, assemble_bytes_with};
use crate::link::{LinkedProgram, Symbols, link};
use crate::map::MapDef;
use crate::object::BpfObject;
use crate::prog_type::{ProgType, prog_flag, sec_def};
use crate::spec::TESTING_PROG_FLAGS;
use crate::target::Arch;

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The program: LLVM-syntax BPF asm (`-` for stdin), or a BPF object
    /// (ELF, as clang makes of C): every program of it, or the one `--prog`
    /// names.
    pub file: String,
    /// With an object: the program to load (a function with a `SEC()`),
    /// instead of each in turn; `-t` and `--map` do not apply, the object
    /// says.
    #[arg(long)]
    pub prog: Option<String>,
    /// Program type: a kernel name (`socket_filter`, `sched_cls`, `xdp`,
    /// `raw_tracepoint`, ...) or a libbpf SEC name (`socket`, `tc`, `raw_tp`).
    #[arg(long = "prog-type", short = 't', default_value = "socket_filter")]
    pub prog_type: String,
    /// Target arch (x86_64, arm64, riscv64, s390x, loongarch64); default: the host.
    #[arg(long)]
    pub arch: Option<String>,
    /// Backend: model, kernel (the running kernel) or vm (7.3 under QEMU).
    #[arg(long, default_value = "model")]
    pub backend: String,
    /// A map, `NAME:TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES[:FLAGS]`; the i-th
    /// (0-based) is map id i+1 wherever ids are printed. `r1 = NAME ll`
    /// loads it, `r1 = NAME__value ll` the address of its first value.
    #[arg(long = "map", value_name = "SPEC")]
    pub maps: Vec<String>,
    /// prog_flags, all of them: comma-separated names (rnd_hi32,
    /// state_freq, reg_invariants, strict_alignment, any_alignment,
    /// sleepable, xdp_has_frags) or a number. Default: the flags every test
    /// loads with, test_loader's `testing_prog_flags()` (rnd_hi32,
    /// reg_invariants), changed by `--flag`.
    #[arg(long)]
    pub flags: Option<String>,
    /// One flag set on top of those, as `#[flag(F)]` does (`F` a
    /// `BPF_F_*` name, a short name or a number), or cleared with `!F`
    /// (`--flag '!BPF_F_TEST_RND_HI32'`). Repeatable, applied in order.
    #[arg(long = "flag", value_name = "[!]F")]
    pub flag: Vec<String>,
    /// BPF_PROG_LOAD's log_level: 1 (BPF_LOG_LEVEL1), 2 (BPF_LOG_LEVEL2),
    /// plus 4 (BPF_LOG_STATS), 8 (BPF_LOG_FIXED); 0: no log.
    #[arg(long = "log-level", default_value_t = 2)]
    pub log_level: u32,
    /// BPF_PROG_LOAD's log_size: the log buffer's bytes (7.3 takes up to
    /// 2^30 - 1). A log that outgrows it fails the load with ENOSPC.
    #[arg(long = "log-size", default_value_t = crate::backend::loader::LOG_BUF_SIZE)]
    pub log_size: u32,
    /// test_loader's `@unpriv` run.
    #[arg(long)]
    pub unpriv: bool,
    /// Program BTF: `func_info` (one FUNC per subprogram, as clang -g gives
    /// test_loader), `object` (a BPF object's own BTF, with its func_info
    /// and line_info, as libbpf loads it) or `none`. Default (`auto`):
    /// `object` for a BPF object, `func_info` for asm.
    #[arg(long, default_value = "auto")]
    pub btf: String,
    /// `NAME/NARGS`: that subprogram is global, with NARGS int arguments.
    #[arg(long = "global-func", value_name = "NAME/NARGS")]
    pub global_funcs: Vec<String>,
    /// Value of a `%[name]` operand: `name=NUMBER` or `name=SYMBOL`.
    #[arg(long = "imm", value_name = "NAME=VALUE")]
    pub imms: Vec<String>,
    /// Test-run the program (BPF_PROG_TEST_RUN) and report the retval.
    #[arg(long)]
    pub run: bool,
    /// Test-run input: N zero bytes of packet data (default: as test_loader, 64).
    #[arg(long = "data-len")]
    pub data_len: Option<usize>,
    #[arg(long = "data-hex")]
    pub data_hex: Option<String>,
    /// Test-run ctx: N zero bytes, or these bytes.
    #[arg(long = "ctx-len")]
    pub ctx_len: Option<usize>,
    #[arg(long = "ctx-hex")]
    pub ctx_hex: Option<String>,
    /// One JSON object: accepted, errno, log, verified_insns, xlated, jited,
    /// retval. For every program of an object: one per line, each with the
    /// program's name as `prog` (and `error` for one that could not be
    /// checked).
    #[arg(long)]
    pub json: bool,
    /// Also test-run the program in the interpreter (`bpf_selftest::exec`,
    /// the program as loaded, not verified), and on an x86-64 Linux host,
    /// for x86_64, the x86-64 JIT's code natively (`---- native` / JSON key
    /// `native`, same fields): `---- interpreter` / JSON key
    /// `interp` (`retval`, `data_out` hex, or `errno`, or `error`). Implies
    /// `--run`; works even when the backend is unavailable.
    #[arg(long)]
    pub interp: bool,
}

impl CheckArgs {
    /// `check FILE -t PROG_TYPE --arch ARCH` with every other option at its
    /// default, for code that builds requests as `check` does.
    pub fn new(file: &str, prog_type: &str, arch: Arch) -> CheckArgs {
        CheckArgs {
            file: file.to_string(),
            prog: None,
            prog_type: prog_type.to_string(),
            arch: Some(arch.name().to_string()),
            backend: "model".into(),
            maps: Vec::new(),
            flags: None,
            flag: Vec::new(),
            log_level: 2,
            log_size: crate::backend::loader::LOG_BUF_SIZE,
            unpriv: false,
            btf: "auto".into(),
            global_funcs: Vec::new(),
            imms: Vec::new(),
            run: false,
            data_len: None,
            data_hex: None,
            ctx_len: None,
            ctx_hex: None,
            json: false,
            interp: false,
        }
    }
}

/// `--data-hex`/`--ctx-hex`: pairs of hex digits, whitespace anywhere
/// between them.
fn hex_bytes(what: &str, s: &str) -> Result<Vec<u8>, String> {
    let mut digits = Vec::with_capacity(s.len());
    for (k, c) in s.chars().enumerate() {
        if c.is_whitespace() {
            continue;
        }
        match c.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None => return Err(format!("{what}: {:?} (character {}) is not a hex digit", c, k + 1)),
        }
    }
    if digits.len() % 2 != 0 {
        return Err(format!("{what}: {} hex digits, an odd number (each byte takes two)", digits.len()));
    }
    Ok(digits.chunks(2).map(|p| (p[0] << 4) | p[1]).collect())
}

/// The options that say what a test run is given, which mean nothing
/// without one.
fn test_run_inputs_need_a_run(a: &CheckArgs) -> Result<(), String> {
    if a.run || a.interp {
        return Ok(());
    }
    let given =
        [("--data-len", a.data_len.is_some()), ("--data-hex", a.data_hex.is_some()), ("--ctx-len", a.ctx_len.is_some()), ("--ctx-hex", a.ctx_hex.is_some())];
    match given.iter().find(|(_, g)| *g) {
        Some((opt, _)) => Err(format!("{opt} is an input of the test run: give --run (or --interp) as well")),
        None => Ok(()),
    }
}

/// The longest ctx any 7.3 test run takes is 65,535 bytes (a syscall
/// program's; `bpf_ctx_init` takes at most a page, raw tracepoints 96
/// bytes): a longer run of zeros gets the answer this many bytes get.
const MAX_CTX_FILL: usize = 65_537;
/// No 7.3 test run takes more than 17 pages of packet past its linear part
/// (`MAX_SKB_FRAGS`; xdp's frags likewise): a longer run of zeros gets the
/// answer this many bytes get.
const MAX_DATA_FILL: usize = (1 << 20) + 1;

/// How many zero bytes `--ctx-len`/`--data-len N` become: N, or `max` when
/// N is longer than any 7.3 test run takes (the kernel's answer is the
/// same, and nothing huge is allocated); N must fit the attribute's 32 bits.
fn zero_fill_len(what: &str, n: usize, max: usize) -> Result<usize, String> {
    if u32::try_from(n).is_err() {
        return Err(format!("{what} {n}: BPF_PROG_TEST_RUN's sizes are 32-bit (at most {})", u32::MAX));
    }
    Ok(n.min(max))
}

/// `--flags`: names or a number.
pub fn parse_flags(s: &str) -> Result<u32, String> {
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| format!("--flags '{s}': bad number"));
    }
    if let Ok(n) = s.parse::<u32>() {
        return Ok(n);
    }
    s.split(',')
        .filter(|f| !f.is_empty())
        .map(|f| prog_flag(f.trim()).ok_or_else(|| format!("--flags: unknown flag '{f}'")))
        .try_fold(0, |acc, f| f.map(|f| acc | f))
}

/// The load's prog_flags before libbpf's section flags: `--flags`, else
/// the runner's default ([`TESTING_PROG_FLAGS`]), then each `--flag`.
pub fn prog_flags(a: &CheckArgs) -> Result<u32, String> {
    let mut flags = a.flags.as_deref().map(parse_flags).transpose()?.unwrap_or(TESTING_PROG_FLAGS);
    for f in &a.flag {
        let (clear, name) = match f.strip_prefix('!') {
            Some(rest) => (true, rest.trim()),
            None => (false, f.trim()),
        };
        let bit = parse_flags(name).map_err(|_| format!("--flag '{f}': unknown flag (a BPF_F_* name, a short name or a number)"))?;
        if clear {
            flags &= !bit;
        } else {
            flags |= bit;
        }
    }
    Ok(flags)
}

/// What the options say about the load, before the program is assembled.
struct Target {
    arch: Arch,
    prog_type: ProgType,
    sec_flags: u32,
    attach: Option<u32>,
    maps: Vec<MapDef>,
    imms: Vec<(String, Operand)>,
}

fn target(a: &CheckArgs) -> Result<Target, String> {
    let arch = match &a.arch {
        Some(s) => s.parse::<Arch>()?,
        None => Arch::host().ok_or("the host arch is not one the model targets; give --arch")?,
    };
    let (prog_type, sec_flags, attach) = match sec_def(&a.prog_type) {
        Some(d) => (d.prog_type, d.flags, d.attach_type),
        None => (ProgType::from_name(&a.prog_type).ok_or_else(|| format!("unknown program type '{}'", a.prog_type))?, 0, None),
    };
    test_run_inputs_need_a_run(a)?;
    let maps = a.maps.iter().map(|m| MapDef::parse_cli(m)).collect::<Result<Vec<_>, _>>()?;
    for (k, m) in maps.iter().enumerate() {
        if let Some(first) = maps[..k].iter().position(|o| o.name == m.name) {
            return Err(format!("--map: maps {} and {} are both named '{}' (the program names a map by its name)", first + 1, k + 1, m.name));
        }
    }
    let imms = super::parse_imms(&a.imms)?;
    Ok(Target { arch, prog_type, sec_flags, attach, maps, imms })
}

impl Target {
    fn assemble(&self, src: &[u8]) -> Result<Program, AsmError> {
        let ops = |name: &str| self.imms.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        assemble_bytes_with(src, &ops)
    }
}

/// Builds the load request `check` describes; `src` is the asm text (any
/// bytes inside comments), or an object's bytes.
pub fn request(a: &CheckArgs, src: &(impl AsRef<[u8]> + ?Sized)) -> Result<LoadRequest, String> {
    if src.as_ref().starts_with(b"\x7fELF") {
        return object_request(a, src.as_ref());
    }
    let t = target(a)?;
    let prog = t.assemble(src.as_ref()).map_err(|e| format!("{}:{e}", a.file))?;
    request_for(a, t, &prog)
}

fn request_for(a: &CheckArgs, t: Target, prog: &Program) -> Result<LoadRequest, String> {
    let linked = link(&file_stem(&a.file), prog, &Symbols { maps: &t.maps, ..Default::default() }).map_err(|e| e.0)?;
    request_linked(a, t, linked, file_stem(&a.file), None, "GPL".into())
}

/// The request for program `--prog` of the object `data`.
fn object_request(a: &CheckArgs, data: &[u8]) -> Result<LoadRequest, String> {
    let obj = open_object(a, data)?;
    let Some(name) = &a.prog else {
        let names: Vec<&str> = obj.programs().map(|p| p.name.as_str()).collect();
        return Err(format!("{}: a BPF object: say which program with --prog (one of: {})", a.file, names.join(", ")));
    };
    let arch = object_arch(a)?;
    object_prog_request(a, &obj, name, arch)
}

fn open_object(a: &CheckArgs, data: &[u8]) -> Result<BpfObject, String> {
    BpfObject::open_bytes(data, &crate::object::object_name(std::path::Path::new(&a.file))).map_err(|e| format!("{}: {e}", a.file))
}

/// The arch of a load from an object, once the options an object decides
/// itself are refused.
fn object_arch(a: &CheckArgs) -> Result<Arch, String> {
    if !a.maps.is_empty() {
        return Err("--map: an object's maps are its own".into());
    }
    if !a.global_funcs.is_empty() {
        return Err("--global-func: an object's BTF says which functions are global".into());
    }
    Ok(target(a)?.arch)
}

/// The object loader's request for program `name` of `obj`, with what the
/// options change.
fn object_prog_request(a: &CheckArgs, obj: &BpfObject, name: &str, arch: Arch) -> Result<LoadRequest, String> {
    let mut req = obj.load_request(name, arch).map_err(|e| format!("{}: {e}", a.file))?;
    match a.btf.as_str() {
        "auto" | "object" => {}
        "func_info" => req.btf = BtfMode::FuncInfo,
        "none" => req.btf = BtfMode::None,
        o => return Err(format!("--btf '{o}': expected object, func_info or none")),
    }
    req.prog_flags |= prog_flags(a)?;
    req.log_level = a.log_level;
    req.log_size = a.log_size;
    req.unpriv = a.unpriv;
    req.test_run = test_run(a, req.prog_type)?;
    req.want_jited = arch.has_jit();
    Ok(req)
}

/// `check FILE.bpf.o` without `--prog`: each program of the object, in the
/// object's order, under a heading with its name, through one backend (one
/// guest for vm). A program that cannot be checked is reported in its
/// place and the rest still are; then the whole fails, naming them.
fn run_every_program(a: &CheckArgs, data: &[u8]) -> Result<(), String> {
    let obj = open_object(a, data)?;
    let arch = object_arch(a)?;
    let progs: Vec<(String, String)> = obj.programs().map(|p| (p.name.clone(), p.sec_name.clone())).collect();
    if progs.is_empty() {
        return Err(format!("{}: the object has no programs (no function in a SEC() other than .text)", a.file));
    }
    let be = backend::by_name(&a.backend)?;
    let mut failed = Vec::new();
    for (k, (name, sec)) in progs.iter().enumerate() {
        if !a.json {
            if k > 0 {
                println!();
            }
            println!("#### {name} (SEC(\"{sec}\"), program {} of {})", k + 1, progs.len());
        }
        let checked = object_prog_request(a, &obj, name, arch).and_then(|req| report(a, &*be, &req, Some(name)));
        if let Err(e) = checked {
            if a.json {
                println!("{}", json!({ "prog": name, "error": e }));
            } else {
                println!("error: {e}");
            }
            failed.push(name.as_str());
        }
    }
    match failed.len() {
        0 => Ok(()),
        n => Err(format!("{}: {n} of {} programs could not be checked: {}", a.file, progs.len(), failed.join(", "))),
    }
}

/// The test run `--run` and its input options ask for.
fn test_run(a: &CheckArgs, prog_type: ProgType) -> Result<Option<TestRunInput>, String> {
    if !a.run {
        return Ok(None);
    }
    let mut t = TestRunInput::test_loader(prog_type);
    if let Some(n) = a.data_len {
        t.data = vec![0; zero_fill_len("--data-len", n, MAX_DATA_FILL)?];
    }
    if let Some(h) = &a.data_hex {
        t.data = hex_bytes("--data-hex", h)?;
    }
    if let Some(n) = a.ctx_len {
        t.ctx = Some(vec![0; zero_fill_len("--ctx-len", n, MAX_CTX_FILL)?]);
    }
    if let Some(h) = &a.ctx_hex {
        t.ctx = Some(hex_bytes("--ctx-hex", h)?);
    }
    if t.ctx.is_some() && a.data_len.is_none() && a.data_hex.is_none() {
        // a ctx alone, as bpf_prog_test_run_opts with only ctx_in makes
        // it: no packet, no data_out, no repeat count
        t.data = Vec::new();
        t.data_out_size = 0;
        t.repeat = 0;
    }
    Ok(Some(t))
}

fn request_linked(
    a: &CheckArgs,
    t: Target,
    mut linked: LinkedProgram,
    name: String,
    attach_func: Option<String>,
    license: String,
) -> Result<LoadRequest, String> {
    let Target { arch, prog_type, sec_flags, attach, maps, .. } = t;
    for g in &a.global_funcs {
        let (name, n) = g.split_once('/').ok_or_else(|| format!("--global-func '{g}': expected NAME/NARGS"))?;
        let nargs = n.parse().map_err(|_| format!("--global-func '{g}': bad NARGS"))?;
        let f = linked.funcs.iter_mut().find(|f| f.name == name).ok_or_else(|| format!("--global-func: no subprogram '{name}'"))?;
        f.global = true;
        f.nargs = nargs;
    }
    let btf = match a.btf.as_str() {
        "auto" | "func_info" => BtfMode::FuncInfo,
        "none" => BtfMode::None,
        "object" => return Err("--btf object: only a BPF object has its own BTF".into()),
        o => return Err(format!("--btf '{o}': expected func_info or none")),
    };
    let flags = prog_flags(a)? | sec_flags;
    Ok(LoadRequest {
        name,
        prog: linked,
        prog_type,
        expected_attach_type: attach,
        attach_func,
        prog_flags: flags,
        log_level: a.log_level,
        unpriv: a.unpriv,
        caps_unpriv: Vec::new(),
        maps,
        btf,
        test_run: test_run(a, prog_type)?,
        arch,
        want_jited: arch.has_jit(),
        license,
        privileged_setup: false,
        log_size: a.log_size,
        create_every_map: false,
        scenario: Default::default(),
    })
}

fn file_stem(f: &str) -> String {
    let stem = std::path::Path::new(f).file_stem().and_then(|s| s.to_str()).unwrap_or("prog");
    let s: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() || s == "_" { "prog".into() } else { s }
}

/// The program's bytes: asm text or an object, or a C source (`.c`)
/// compiled for the run's arch as `#[object("x.bpf.c")]` compiles it.
fn read_input(a: &CheckArgs) -> Result<Vec<u8>, String> {
    if !a.file.ends_with(".c") {
        return super::read_asm_input(&a.file);
    }
    let arch = target(a)?.arch;
    let obj = crate::runner::compile_object_source(std::path::Path::new(&a.file), arch).map_err(|e| e.to_string())?;
    std::fs::read(&obj).map_err(|e| format!("{}: {e}", obj.display()))
}

pub fn run(a: &CheckArgs) -> Result<(), String> {
    if a.interp && !a.run {
        let mut a = a.clone();
        a.run = true;
        return run(&a);
    }
    let src = read_input(a)?;
    if src.starts_with(b"\x7fELF") {
        if a.prog.is_none() {
            return run_every_program(a, &src);
        }
        let req = object_request(a, &src)?;
        drop(src);
        return load_and_report(a, req);
    }
    if a.prog.is_some() {
        return Err(format!("--prog: {} is not a BPF object", a.file));
    }
    let t = target(a)?;
    let prog = match t.assemble(&src) {
        Ok(p) => p,
        Err(e) if e.kind == AsmErrorKind::TooManyInsns => return too_large(a, &t, &e),
        Err(e) => return Err(format!("{}:{e}", a.file)),
    };
    drop(src);
    let req = request_for(a, t, &prog)?;
    drop(prog);
    load_and_report(a, req)
}

fn load_and_report(a: &CheckArgs, req: LoadRequest) -> Result<(), String> {
    let be = backend::by_name(&a.backend)?;
    report(a, &*be, &req, None)
}

/// `req` loaded on `be` and everything it produced printed; with `prog`
/// (one program of several) its JSON object says which.
fn report(a: &CheckArgs, be: &dyn backend::Backend, req: &LoadRequest, prog: Option<&str>) -> Result<(), String> {
    let named = |mut v: serde_json::Value| {
        if let Some(p) = prog {
            v["prog"] = json!(p);
        }
        v
    };
    let loaded = load(be, req);
    if !a.interp {
        let out = loaded?;
        if a.json {
            println!("{}", named(to_json(&out)));
        } else {
            print!("{}", human(req, &out, &be.kernel_release()));
        }
        return Ok(());
    }
    let input = req.test_run.clone().unwrap_or_else(|| TestRunInput::test_loader(req.prog_type));
    let interp = crate::backend::model::test_run(req, &input);
    let native = native_run(req, &input);
    if a.json {
        let mut v = match &loaded {
            Ok(out) => to_json(out),
            Err(e) => json!({ "backend_error": e }),
        };
        v["interp"] = interp_json(&interp);
        if let Some(n) = &native {
            v["native"] = interp_json(n);
        }
        println!("{}", named(v));
    } else {
        match &loaded {
            Ok(out) => print!("{}", human(req, out, &be.kernel_release())),
            Err(e) => println!("== {} ({}, {}): backend {}: {e}", req.name, req.prog_type.name(), req.arch, a.backend),
        }
        print!("---- interpreter\n{}", interp_text(&interp));
        if let Some(n) = &native {
            print!("---- native (the x86-64 JIT's code of the model's xlated program)\n{}", interp_text(n));
        }
    }
    Ok(())
}

/// A program over `BPF_COMPLEXITY_LIMIT_INSNS` slots: `BPF_PROG_LOAD`
/// refuses it with E2BIG whatever else the load asks for (its flags aside,
/// which the kernel checks first), so the assembler stopped at the slot
/// past the limit and nothing is loaded; the answer is the kernel's.
fn too_large(a: &CheckArgs, t: &Target, e: &AsmError) -> Result<(), String> {
    let be = backend::by_name(&a.backend)?;
    let out = LoadOutcome { errno: crate::verifier::errno::E2BIG, ..LoadOutcome::default() };
    eprintln!("note: {}:{e}; not loaded", a.file);
    let not_run = "the program was not loaded (E2BIG)";
    if a.json {
        let mut v = to_json(&out);
        if a.interp {
            v["interp"] = json!({ "error": not_run });
        }
        println!("{v}");
    } else {
        let release = be.kernel_release();
        print!(
            "== {} ({}, {}, {})\nrejected: errno {} ({})\n",
            file_stem(&a.file),
            t.prog_type.name(),
            t.arch,
            if release.is_empty() { "?" } else { release.as_str() },
            out.errno,
            errno_name(out.errno)
        );
        if a.interp {
            println!("---- interpreter\nerror: {not_run}");
        }
    }
    Ok(())
}

/// One load on `be` as a user asks for it: on an arch Debian has no 7.3
/// image of, the model borrows x86_64's kernel symbols, and says so.
pub fn load(be: &dyn backend::Backend, req: &LoadRequest) -> Result<LoadOutcome, String> {
    let stand_in = if be.name() == "model" { crate::backend::model::symbols_stand_in(req.arch) } else { None };
    match stand_in {
        Some(ids) => {
            eprintln!(
                "note: Debian has no 7.3 image for {}: kfunc BTF ids and kernel function addresses are {ids}'s \
                 (in the log's `call NAME#ID` and the raw call immediates; everything else is {}'s)",
                req.arch, req.arch
            );
            crate::backend::model::ModelBackend.load_with_symbols_of(req, ids)
        }
        None => be.probe(req.arch).and_then(|()| be.load(req)),
    }
    .map_err(|u| u.0)
}

/// On an x86-64 Linux host, for an x86_64 request the model accepts: the
/// test run of the x86-64 JIT's code, natively (`exec::native`).
fn native_run(req: &LoadRequest, input: &TestRunInput) -> Option<Result<crate::exec::TestRunOutput, crate::exec::ExecError>> {
    if req.arch != crate::target::Arch::X86_64 || crate::exec::native::unavailable().is_some() {
        return None;
    }
    let vin = crate::backend::model::ModelBackend::verifier_input(req).ok()?;
    let crate::verifier::Verdict::Decided(d) = crate::load::bpf_check(&vin) else { return None };
    if !d.accepted {
        return None;
    }
    let opts = crate::exec::ExecOptions { arch: req.arch, ..crate::exec::ExecOptions::default() };
    Some(crate::exec::native::test_run_native(&crate::backend::model::loaded_prog(req), &d.xlated_as_run(), &d.subprogs, input, &opts))
}

fn interp_json(r: &Result<crate::exec::TestRunOutput, crate::exec::ExecError>) -> serde_json::Value {
    match r {
        Ok(o) => json!({ "retval": o.retval, "data_out": hex(&o.data_out), "insns": o.insns, "trace": o.trace }),
        Err(crate::exec::ExecError::TestRun(e)) => json!({ "errno": e }),
        Err(e) => json!({ "error": e.to_string() }),
    }
}

fn interp_text(r: &Result<crate::exec::TestRunOutput, crate::exec::ExecError>) -> String {
    match r {
        Ok(o) => {
            let mut s = format!("retval {} ({:#x}), {} insns\n", o.retval as i32, o.retval, o.insns);
            if !o.data_out.is_empty() {
                s.push_str(&format!("data_out {}\n", hex(&o.data_out)));
            }
            for l in o.trace.lines() {
                s.push_str(&format!("trace: {l}\n"));
            }
            s
        }
        Err(crate::exec::ExecError::TestRun(e)) => format!("failed: errno {e} ({})\n", errno_name(*e)),
        Err(e) => format!("error: {e}\n"),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The `--json` object, with exactly the documented keys.
pub fn to_json(o: &LoadOutcome) -> serde_json::Value {
    json!({
        "accepted": o.accepted,
        "errno": o.errno,
        "log": o.log,
        "verified_insns": o.verified_insns,
        "xlated": o.xlated,
        "jited": o.jited,
        "retval": o.retval,
    })
}

fn human(req: &LoadRequest, o: &LoadOutcome, release: &str) -> String {
    let mut s = format!("== {} ({}, {}, {})\n", req.name, req.prog_type.name(), req.arch, if release.is_empty() { "?" } else { release });
    if o.accepted {
        s.push_str(&format!("accepted, verified_insns {}\n", o.verified_insns));
    } else {
        s.push_str(&format!("rejected: {}\n", rejection(req, o)));
    }
    if !o.log.is_empty() {
        s.push_str("---- verifier log\n");
        s.push_str(&o.log);
        if !o.log.ends_with('\n') {
            s.push('\n');
        }
    }
    if !o.xlated.is_empty() {
        s.push_str("---- xlated\n");
        for l in &o.xlated {
            s.push_str(l);
            s.push('\n');
        }
    }
    if !o.jited.is_empty() {
        s.push_str("---- jited\n");
        for l in &o.jited {
            s.push_str(l);
            s.push('\n');
        }
    }
    if let Some(r) = o.retval {
        s.push_str(&format!("---- test run\nretval {} ({:#x})\n", r as i32, r));
    } else if o.test_run_errno != 0 {
        s.push_str(&format!("---- test run\nfailed: errno {} ({})\n", o.test_run_errno, errno_name(o.test_run_errno)));
    }
    s
}

/// A rejected load for a person: `errno N (NAME)` and the verifier's error
/// message, then a `hint:` line where the kernel's answer alone misleads
/// (`check` prints it after `rejected: `, `xlated` in its error).
pub fn rejection(req: &LoadRequest, o: &LoadOutcome) -> String {
    use crate::verifier::errno::{EINVAL, ENOSPC};
    use crate::verifier::log::{BPF_LOG_MASK, bpf_verifier_log_attr_valid};
    let mut s = format!("errno {} ({})", o.errno, errno_name(o.errno));
    let level = req.log_level;
    // the log did not fit: its last line is no message, and ENOSPC is the
    // answer whatever the verifier decided (bpf_vlog_finalize's error
    // replaces its verdict)
    let overflowed = o.errno == ENOSPC && level != 0 && level & BPF_LOG_MASK == level && o.log_true_size > req.log_size;
    if overflowed {
        s.push_str(&format!(
            ": the verifier log needed {} bytes, more than its buffer's {}: 7.3 then fails the load with ENOSPC, whatever the verifier decided\n\
             hint: --log-level 0 loads without a log; or give the log room with --log-size (up to {})",
            o.log_true_size,
            req.log_size,
            u32::MAX >> 2
        ));
        return s;
    }
    // the buffer goes with a level (the backends pass none at level 0)
    let size = if level != 0 { req.log_size } else { 0 };
    if o.errno == EINVAL && !bpf_verifier_log_attr_valid(level, size != 0, size) {
        s.push_str(&format!(
            "\nhint: BPF_PROG_LOAD refuses log_level {level} with log_size {} before the verifier runs (EINVAL, empty log): \
             the level is 0 (no log) or a sum of 1 (BPF_LOG_LEVEL1), 2 (BPF_LOG_LEVEL2), 4 (BPF_LOG_STATS) and 8 (BPF_LOG_FIXED), \
             not 0 with a buffer; log_size is at most {}",
            req.log_size,
            u32::MAX >> 2
        ));
        return s;
    }
    if let Some(m) = crate::verifier::log::error_message(&o.log) {
        s.push_str(": ");
        s.push_str(m.trim());
    }
    s
}

/// The symbolic name of a positive errno (`OK` for 0, `E?` without one).
pub fn errno_name(e: i32) -> &'static str {
    crate::verifier::errno::errno_name(e)
}
