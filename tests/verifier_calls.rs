//! Calls in the main pass (helpers and their argument checks, maps,
//! subprograms, callbacks, iterators and other kfuncs, may_goto, tail
//! calls, references) against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/calls/*.txt` holds what 7.3 did with each program
//! (`scripts/record-calls-goldens.py`); [`verifier_common`] replays each
//! through `do_check_main` and compares verdict, errno, `verified_insns`
//! and the log at levels 1 and 2.
//!
//! `expected/linux-7.3/map_create.txt` (`scripts/record-map-create-goldens.py`)
//! holds which maps 7.3 creates, compared with `verifier::map_create`.
//!
//! The test prints the pass rate per area and fails when fewer programs
//! match than [`MIN_PASSING`] (a ratchet). `CALLS_VERBOSE=1` prints every
//! mismatch, `CALLS_FILTER=x` keeps the programs whose name (or area)
//! contains `x`.

mod verifier_common;

const DIR: &str = "expected/linux-7.3/calls";
/// Programs that must match completely.
const MIN_PASSING: usize = 209;

#[test]
fn calls_against_linux_7_3() {
    let (pass, total) = verifier_common::run_suite(DIR, "CALLS_VERBOSE", "CALLS_FILTER");
    if std::env::var("CALLS_FILTER").is_err() {
        assert!(pass >= MIN_PASSING, "{pass}/{total} programs match, fewer than {MIN_PASSING}");
    }
}

/// `CALLS_DUMP=name` prints the model's level-2 log of one program.
#[test]
fn dump_one() {
    if let Ok(name) = std::env::var("CALLS_DUMP") {
        verifier_common::dump(DIR, &name, std::env::var("CALLS_LEVEL").ok().and_then(|l| l.parse().ok()).unwrap_or(2));
    }
}

/// `BPF_MAP_CREATE` per type, size and flag, as root and unprivileged.
#[test]
fn map_create_against_linux_7_3() {
    use bpf_selftest::map::MapDef;
    use bpf_selftest::verifier::errno::errno_name;
    use bpf_selftest::verifier::map_create::{MapCreateCaps, map_create_def};
    let path = std::path::Path::new(verifier_common::ROOT).join("expected/linux-7.3/map_create.txt");
    let text = std::fs::read_to_string(path).expect("map_create goldens");
    let mut bad = Vec::new();
    let mut total = 0;
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (args, want) = l.split_once(" => ").expect("golden line");
        let f: Vec<&str> = args.split_whitespace().collect();
        let num = |i: usize| -> u32 {
            let v = f[i];
            v.strip_prefix("0x").map_or_else(|| v.parse().expect("number"), |h| u32::from_str_radix(h, 16).expect("hex"))
        };
        let mut def = MapDef::new("m", num(0), num(1), num(2), num(3));
        def.map_flags = num(4);
        let root = f[5] == "root";
        let caps = MapCreateCaps { bpf: root, net_admin: root, sys_admin: root, perfmon: root };
        let got = match map_create_def(&def, bpf_selftest::target::Arch::X86_64, caps) {
            Ok(()) => "ok".to_string(),
            Err(e) => errno_name(e).to_string(),
        };
        total += 1;
        if got != want {
            bad.push(format!("{args}: got {got}, want {want}"));
        }
    }
    println!("map_create: {}/{total}", total - bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
