//! Inputs the fuzz targets (fuzz/) found, minimised, each with what Linux
//! 7.3 answered for the same load (`tests/fuzz_regressions/7.3-x86_64.json`,
//! recorded by `bpf-selftest record --set fuzz-regressions`, format in
//! `bpf_selftest::recorded::fuzz_regressions`): the model must give the
//! kernel's verdict, errno, `verified_insns` and the end of the log, in
//! bounded time, not merely not crash.
//!
//! `tests/fuzz_regressions/verify_raw-*.bin` are `verify_raw` inputs (four
//! config bytes, then insns), decoded by the fuzz targets' own code.

#[path = "../../fuzz/fuzz_targets/common.rs"]
mod common;

use std::time::{Duration, Instant};

use bpf_selftest::recorded::fuzz_regressions::{self, tail};
use bpf_selftest::target::Arch;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz_regressions");

#[test]
fn fuzz_regressions_match_7_3() {
    let path = fuzz_regressions::answers_path(std::path::Path::new(DIR), Arch::X86_64);
    let rec = fuzz_regressions::parse(&std::fs::read_to_string(&path).expect("recorded answers")).expect("json");
    let mut names: Vec<_> = std::fs::read_dir(DIR).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).filter(|n| n.ends_with(".bin")).collect();
    names.sort();
    assert!(!names.is_empty());
    let mut failures = Vec::new();
    for name in &names {
        let data = std::fs::read(format!("{DIR}/{name}")).unwrap();
        let stem = name.trim_end_matches(".bin");
        let want = rec.get(stem).unwrap_or_else(|| panic!("{stem}: not recorded"));
        let cfg = [data[0], data[1], data[2], data[3]];
        let body = &data[4..];
        let insns = bpf_isa::insn::decode_all(&body[..body.len() / 8 * 8]).expect("whole insns");
        let input = common::input_from_config(cfg, insns);
        let t0 = Instant::now();
        // what the fuzz target asserts, and no panic
        let Some(d) = common::load_and_check(&input) else {
            failures.push(format!("{stem}: the model has no answer"));
            continue;
        };
        let took = t0.elapsed();
        assert!(took < Duration::from_secs(120), "{stem}: {took:?}");
        let (acc, errno, vi) = (want.accepted, want.errno, want.verified_insns);
        // a rejected load has no program to ask for its verified_insns
        let mvi = if d.accepted { d.verified_insns } else { 0 };
        if (d.accepted, d.errno, mvi) != (acc, errno, vi) {
            failures.push(format!("{stem}: accepted/errno/verified_insns {}/{}/{} (7.3: {acc}/{errno}/{vi})", d.accepted, d.errno, d.verified_insns));
        }
        let lts = want.log_true_size;
        if input.log_size != 0 && d.log_true_size != lts {
            failures.push(format!("{stem}: log_true_size {} (7.3: {lts})", d.log_true_size));
        }
        // the log's last lines (a ring buffer's start depends on where the cut fell)
        let ktail: Vec<&str> = want.log_tail.iter().map(String::as_str).collect();
        if tail(&d.log, ktail.len()) != ktail {
            failures.push(format!("{stem}: log ends\n{}\n(7.3:)\n{}", tail(&d.log, ktail.len()).join("\n"), ktail.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{} of {} regressions differ from 7.3:\n{}", failures.len(), names.len(), failures.join("\n"));
}
