//! The ISA against outside truth: encodings against llvm-mc-19, both
//! disassembly forms against what a real Linux 7.3 kernel printed
//! (`bpf-selftest record --set disasm`), and the round trip through both.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use bpf_isa::disasm::{InsnCallbacks, VerifierCallbacks, print_bpf_insn, xlated_text};
use bpf_isa::insn::{Insn, decode_all};
use bpf_selftest::recorded::disasm_forms::PairsFile;
use bpf_selftest::require::{self, Component};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `(first column, second column)` pairs of a golden file, comments
/// skipped: the library's reader of the disasm set's files
/// (`recorded::disasm_forms`), which reads `llvm-mc-19.txt` as well.
fn pairs(rel: &str) -> Vec<(String, String)> {
    let path = Path::new(ROOT).join(rel);
    PairsFile::read(&path).unwrap_or_else(|e| panic!("{e}")).pairs
}

fn hex_to_insns(hex: &str) -> Vec<Insn> {
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect();
    decode_all(&bytes).expect("whole slots")
}

fn insns_to_hex(insns: &[Insn]) -> String {
    insns.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect()
}

/// BTF ids of the 7.3 amd64 vmlinux for the kfuncs in the golden listing,
/// as that kernel printed them (`call bpf_iter_num_new#70246`).
fn kfunc_name(id: i32, _off: i16) -> Option<String> {
    match id {
        70246 => Some("bpf_iter_num_new".into()),
        70244 => Some("bpf_iter_num_destroy".into()),
        _ => None,
    }
}

fn log_text(insns: &[Insn]) -> String {
    let cbs = VerifierCallbacks { kfunc_name: &kfunc_name };
    print_bpf_insn(&cbs as &dyn InsnCallbacks, &insns[0], insns.get(1), true)
}

#[test]
fn encodings_match_llvm_mc_19() {
    let golden = pairs("expected/isa/llvm-mc-19.txt");
    assert!(golden.len() > 400, "the corpus covers every form");
    let mut bad = Vec::new();
    for (line, hex) in &golden {
        match bpf_isa::assemble(line) {
            Ok(p) if insns_to_hex(&p.insns) == *hex => {}
            Ok(p) => bad.push(format!("{line}: llvm-mc-19 {hex}, ours {}", insns_to_hex(&p.insns))),
            Err(e) => bad.push(format!("{line}: llvm-mc-19 {hex}, ours: error {e}")),
        }
    }
    assert!(bad.is_empty(), "{} of {} forms differ:\n{}", bad.len(), golden.len(), bad.join("\n"));
}

/// Re-runs llvm-mc-19 over the corpus: the checked-in goldens must still be
/// what LLVM says.
#[test]
fn llvm_mc_19_live_recheck() {
    if Command::new("llvm-mc-19").arg("--version").output().is_err() {
        require::skip(Component::Llvm, "llvm-mc-19 is not installed (apt-get install llvm-19); the checked-in goldens were still checked");
        return;
    }
    let corpus = Path::new(ROOT).join("expected/isa/corpus.s");
    let lines = bpf_selftest::recorded::isa_encodings::corpus_lines(&corpus).unwrap();
    let live = bpf_selftest::recorded::isa_encodings::encode(&lines).unwrap_or_else(|e| panic!("{e}"));
    let golden: Vec<String> = pairs("expected/isa/llvm-mc-19.txt").into_iter().map(|p| p.1).collect();
    assert_eq!(live, golden, "llvm-mc-19 now encodes the corpus differently: re-run bpf-selftest record --set isa");
}

#[test]
fn log_form_matches_7_3() {
    let golden = pairs("expected/linux-7.3/disasm/log.txt");
    assert!(golden.len() > 400);
    let mut bad = Vec::new();
    for (hex, text) in &golden {
        let ours = log_text(&hex_to_insns(hex));
        if ours != *text {
            bad.push(format!("{hex}: kernel {text:?}, ours {ours:?}"));
        }
    }
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), golden.len(), bad.join("\n"));
}

#[test]
fn xlated_form_matches_7_3() {
    let golden = pairs("expected/linux-7.3/disasm/xlated.txt");
    assert!(golden.len() > 100);
    let mut bad = Vec::new();
    for (hex, text) in &golden {
        let insns = hex_to_insns(hex);
        let ours = xlated_text(&insns[0], insns.get(1));
        if ours != *text {
            bad.push(format!("{hex}: kernel {text:?}, ours {ours:?}"));
        }
    }
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), golden.len(), bad.join("\n"));
}

/// The recorder brings jump offsets into range; the kernel's text for the
/// corpus line is that text with the line's own offset.
fn listable(insn: Insn) -> (Insn, Option<i64>) {
    let mut i = insn;
    match insn.code {
        0x05 => {
            i.off = if insn.off < 0 { -2 } else { 0 };
            (i, Some(insn.off as i64))
        }
        0x06 => {
            i.imm = if insn.imm < 0 { -2 } else { 0 };
            (i, Some(insn.imm as i64))
        }
        c if matches!(c & 7, 5 | 6) && c != 0x85 && c != 0x95 && c != 0x8d => {
            i.off = insn.off.signum();
            (i, Some(insn.off as i64))
        }
        _ => (i, None),
    }
}

#[test]
fn round_trip_corpus_through_kernel_text() {
    let kernel: HashMap<String, String> = pairs("expected/linux-7.3/disasm/log.txt").into_iter().collect();
    let corpus = pairs("expected/isa/llvm-mc-19.txt");
    let (mut checked, mut bad, mut missing) = (0, Vec::new(), Vec::new());
    for (line, _) in &corpus {
        let p = bpf_isa::assemble(line).expect("the corpus assembles");
        let (shown, real_off) = listable(p.insns[0]);
        let mut key = vec![shown];
        key.extend_from_slice(&p.insns[1..]);
        let Some(text) = kernel.get(&insns_to_hex(&key)) else {
            missing.push(line.clone());
            continue;
        };
        let expect = match real_off {
            Some(off) => {
                let at = text.rfind("pc").expect("jump text");
                format!("{}pc{off:+}", &text[..at])
            }
            None => text.clone(),
        };
        let ours = log_text(&p.insns);
        checked += 1;
        if ours != expect {
            bad.push(format!("{line}: kernel {expect:?}, ours {ours:?}"));
        }
    }
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad.join("\n"));
    // The kernel cannot list `callx` ("unknown opcode 8d") nor r11 outside
    // stack-argument programs ("R11 is invalid").
    let expected_missing = ["callx r3", "r11 = 1", "*(u64 *)(r11 - 8) = r1"];
    assert_eq!(missing, expected_missing, "not in the kernel's listing");
    assert_eq!(checked, corpus.len() - expected_missing.len());
}

#[test]
fn kernel_only_forms_decode_as_the_kernel_printed() {
    // load_acquire / store_release: LLVM 19 cannot write them; our assembler
    // must give the bytes the kernel printed as that text.
    let kernel: HashMap<String, String> = pairs("expected/linux-7.3/disasm/log.txt").into_iter().collect();
    for (src, hex) in [
        ("r2 = load_acquire((u8 *)(r10 - 8))", "d3a2f8ff00010000"),
        ("r2 = load_acquire((u64 *)(r10 - 8))", "dba2f8ff00010000"),
        ("store_release((u16 *)(r10 - 16), r2)", "cb2af0ff10010000"),
        ("store_release((u64 *)(r10 - 8), r2)", "db2af8ff10010000"),
    ] {
        let p = bpf_isa::assemble(src).expect(src);
        assert_eq!(insns_to_hex(&p.insns), hex, "{src}");
        assert!(kernel.contains_key(hex), "{hex} is in the kernel's listing");
        assert_eq!(log_text(&p.insns), kernel[hex]);
    }
}
