//! Shared by the kernel and vm backend tests: the programs of
//! `tests/oracle_progs/*.s` turned into `LoadRequest`s the way the oracle kit
//! loads them (the `# oracle:` lines give the options), and the comparison
//! with what the kit recorded from real kernels in `expected/oracle/*.json`.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bpf_isa::Insn;
use bpf_selftest::backend::normalize::renumber_maps;
use bpf_selftest::backend::{BtfMode, LoadOutcome, LoadRequest, TestRunInput};
use bpf_selftest::link::{self, Func, Symbols};
use bpf_selftest::map::MapDef;
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::target::Arch;
use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One program of tests/oracle_progs with the request built from it.
pub struct Case {
    pub name: String,
    pub req: LoadRequest,
}

/// The oracle kit's `auto` test run: test_loader's 64 zero bytes, except a
/// 16-byte ctx for raw_tp (which refuses data_in, data_out and repeat).
fn auto_test_run(t: ProgType) -> TestRunInput {
    if t.name() == "raw_tracepoint" {
        TestRunInput { data: Vec::new(), ctx: Some(vec![0; 16]), data_out_size: 0, repeat: 0 }
    } else {
        TestRunInput::test_loader(t)
    }
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len() / 2).filter_map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()).collect()
}

/// Builds the request for one `.s` file, `# oracle:` options applied.
pub fn case(path: &Path, arch: Arch) -> Case {
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let src = std::fs::read_to_string(path).unwrap();
    let opts: Vec<String> = src
        .lines()
        .filter_map(|l| l.trim().strip_prefix("# oracle:"))
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut prog_type = ProgType(1);
    let (mut log_level, mut test_run, mut unpriv, mut btf) = (2, false, false, BtfMode::FuncInfo);
    let mut maps: Vec<MapDef> = Vec::new();
    let mut globals = BTreeSet::new();
    let mut caps_unpriv = Vec::new();
    let mut i = 0;
    while i < opts.len() {
        let arg = |k: usize| opts.get(i + k).cloned().unwrap_or_default();
        match opts[i].as_str() {
            "--type" | "-t" => {
                prog_type = ProgType::from_name(&arg(1)).unwrap_or_else(|| panic!("{name}: prog type {}", arg(1)));
                i += 1;
            }
            "--log-level" => {
                log_level = arg(1).parse().unwrap();
                i += 1;
            }
            "--map" => {
                maps.push(MapDef::parse_cli(&arg(1)).unwrap());
                i += 1;
            }
            "--map-update" => {
                let a = arg(1);
                let p: Vec<&str> = a.split(':').collect();
                let m = maps.iter_mut().find(|m| m.name == p[0]).unwrap();
                m.init.push((hex_bytes(p[1]), hex_bytes(p[2])));
                i += 1;
            }
            "--global" => {
                globals.insert(arg(1));
                i += 1;
            }
            "--test-run" => test_run = true,
            "--no-btf" => btf = BtfMode::None,
            "--unpriv" => {
                unpriv = true;
                if let Some(c) = opts.get(i + 1).filter(|c| !c.starts_with("--")) {
                    caps_unpriv = c.split(',').map(|n| n.parse().unwrap()).collect();
                    i += 1;
                }
            }
            o => panic!("{name}: oracle option {o} not understood by this test"),
        }
        i += 1;
    }

    let prog = bpf_isa::assemble(&src).unwrap_or_else(|e| panic!("{name}: {e}"));
    let syms = Symbols { maps: &maps, ..Symbols::default() };
    let mut linked = link::link(&name, &prog, &syms).unwrap_or_else(|e| panic!("{name}: {e}"));
    // subprograms are the local labels a pseudo call targets (the kit names
    // the main program after the file and a subprogram after its label)
    let starts: BTreeSet<usize> = linked
        .insns
        .iter()
        .enumerate()
        .filter(|(_, i)| i.is_pseudo_call())
        .map(|(at, i)| (at as i64 + 1 + i.imm as i64) as usize)
        .collect();
    for s in starts {
        let label = prog.labels.iter().find(|(_, at)| **at == s).map(|(l, _)| l.clone()).unwrap();
        match linked.funcs.iter_mut().find(|f| f.start == s) {
            // the linker found it already (named by its label)
            Some(f) => f.global = globals.contains(&label),
            None => linked.funcs.push(Func { global: globals.contains(&label), name: label, start: s, nargs: 0 }),
        }
    }
    linked.funcs.sort_by_key(|f| f.start);
    let req = LoadRequest {
        name: format!("oracle_progs/{name}"),
        prog: linked,
        prog_type,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: 0,
        log_level,
        unpriv,
        caps_unpriv,
        maps,
        btf,
        test_run: test_run.then(|| auto_test_run(prog_type)),
        arch,
        want_jited: true,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: bpf_selftest::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
    };
    Case { name, req }
}

/// Every program of tests/oracle_progs, in file-name order (the kit's order).
pub fn cases(arch: Arch) -> Vec<Case> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("tests/oracle_progs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    paths.sort();
    paths.iter().map(|p| case(p, arch)).collect()
}

/// A recording of expected/oracle.
pub struct Truth {
    pub release: String,
    pub doc: Value,
}

pub fn truth(file: &str) -> Truth {
    let text = std::fs::read_to_string(root().join("expected/oracle").join(file)).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    Truth { release: doc["release"].as_str().unwrap().to_string(), doc }
}

impl Truth {
    pub fn program(&self, name: &str) -> &Value {
        self.doc["programs"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name} not recorded"))
    }
}

/// The xlated insns of a recording (ld_imm64 hex is 32 digits, two slots).
fn recorded_xlated(p: &Value) -> Vec<Insn> {
    let mut out = Vec::new();
    for h in p["xlated_hex"].as_array().unwrap() {
        let h = h.as_str().unwrap();
        for k in 0..h.len() / 16 {
            out.push(bpf_isa::insn::from_hex(&h[16 * k..16 * k + 16]).unwrap());
        }
    }
    out
}

fn ids(v: &Value) -> Vec<u32> {
    v.as_array().map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0) as u32).collect()).unwrap_or_default()
}

/// What to hold a backend to.
pub struct Strictness {
    /// Compare the verifier log and verified_insns (same kernel build).
    pub kernel_details: bool,
    /// JIT images to compare byte for byte (programs without addresses in
    /// their machine code); the rest compare function lengths.
    pub exact_jit: &'static [&'static str],
    /// Map ids must be the recorded ones (a fresh boot, same order).
    pub same_map_ids: bool,
}

/// Compares one outcome with its recording; returns the differences.
pub fn compare(name: &str, got: &LoadOutcome, want: &Value, s: &Strictness) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ok: bool, detail: String| {
        if !ok {
            diffs.push(format!("{name}: {what}: {detail}"));
        }
    };
    let accepted = want["accepted"].as_bool().unwrap();
    check("accepted", got.accepted == accepted, format!("got {} want {accepted}", got.accepted));
    let errno = want["errno"].as_i64().unwrap() as i32;
    check("errno", got.errno == errno, format!("got {} want {errno}", got.errno));
    if s.kernel_details {
        let log = want["log"].as_str().unwrap();
        check("log", got.log == log, format!("got\n{}\nwant\n{log}", got.log));
        // a rejected program has no verified_insns to read back: the count is
        // the recorded log's `processed N insns`
        let vi = match want["verified_insns"].as_u64() {
            Some(v) => v as u32,
            None => bpf_selftest::backend::loader::processed_insns(log).unwrap_or(0),
        };
        check("verified_insns", got.verified_insns == vi, format!("got {} want {vi}", got.verified_insns));
    }
    let want_ids = ids(&want["map_ids"]);
    if s.same_map_ids {
        check("map ids", got.map_ids == want_ids, format!("got {:?} want {want_ids:?}", got.map_ids));
    }
    // xlated: raw insns and test_loader text, map ids replaced by map indexes
    let rec = recorded_xlated(want);
    let canon = |k: usize| 1000 + k as u32;
    let want_x = renumber_maps(&rec, &want_ids, &canon);
    let got_x = renumber_maps(&got.xlated_insns, &got.map_ids, &canon);
    if s.kernel_details {
        check("xlated insns", got_x == want_x, format!("got {got_x:?}\nwant {want_x:?}"));
    } else {
        check("xlated length", got_x.len() == want_x.len(), format!("got {} want {}", got_x.len(), want_x.len()));
    }
    let want_text: Vec<String> = bpf_isa::disasm::xlated_dump(&want_x).lines().map(str::to_string).collect();
    let got_text: Vec<String> = bpf_isa::disasm::xlated_dump(&got_x).lines().map(str::to_string).collect();
    if s.kernel_details {
        check("xlated text", got_text == want_text, format!("got {got_text:?}\nwant {want_text:?}"));
    }
    // the text the backend returns is test_loader's rendering of what it read
    let recorded_text = want["xlated_text"].as_str().unwrap();
    if s.same_map_ids && s.kernel_details {
        let mine = got.xlated.iter().map(|l| format!("{l}\n")).collect::<String>();
        check("xlated text as recorded", mine == recorded_text, format!("got\n{mine}want\n{recorded_text}"));
    }
    let lens: Vec<usize> = want["func_lens"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
    let got_lens: Vec<usize> = got.jited_funcs.iter().map(Vec::len).collect();
    // the JIT's prologue depends on the kernel build too (CFI, call depth
    // tracking): another kernel is held to having an image per function
    if s.kernel_details {
        check("JIT function lengths", got_lens == lens, format!("got {got_lens:?} want {lens:?}"));
    } else {
        check("JIT functions", got_lens.len() == lens.len(), format!("got {got_lens:?} want {lens:?}"));
    }
    if s.exact_jit.contains(&name) {
        let hex: String = got.jited_funcs.concat().iter().map(|b| format!("{b:02x}")).collect();
        let want_hex = want["jited_hex"].as_str().unwrap();
        check("JIT image", hex == want_hex, format!("got {hex} want {want_hex}"));
    }
    let retval = want["retval"].as_u64().map(|v| v as u32);
    check("retval", got.retval == retval, format!("got {:?} want {retval:?}", got.retval));
    let tr_errno = want["test_run_errno"].as_i64().unwrap_or(0) as i32;
    check("test run errno", got.test_run_errno == tr_errno, format!("got {} want {tr_errno}", got.test_run_errno));
    diffs
}
