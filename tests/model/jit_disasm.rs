//! The jited-code printer against LLVM and the kernel.
//!
//! * Instruction corpora (`jit_disasm/*_corpus.rs`: what the 7.3 JITs emit,
//!   with register/size/immediate variants) were run through llvm-mc-19 and
//!   llvm-objdump-19 (`--print-imm-hex`, arm64 `--mattr=+all`); the checked-in
//!   goldens `expected/jit_disasm/<corpus>.objdump` are its lines, verbatim.
//!   Two more corpora of seeded random bytes / A64 words measure the
//!   printers beyond JIT code; their known mismatches (instructions the
//!   decoder crates lack, ...) are listed with reasons in `<corpus>.known`.
//! * objdump is not what test_loader calls: `tests/jit_disasm/llvm_capi.py` runs
//!   every objdump line through libLLVM-19's C API the way the kernel helper
//!   does; `expected/jit_disasm/<corpus>.capi` is its output, and our text must
//!   equal it. The two LLVM outputs are checked against each other:
//!   [`capi_text`] maps objdump to the C API (comments, `<sym>`, arm64
//!   pc-relative operands), and the remaining differences must be the C
//!   API's own (it fails on SoftFail encodings; it prints decoder comments).
//! * Real 7.3 JIT images and test_loader's exact text for them
//!   (`expected/jit_disasm/oracle-<arch>.json`) are recorded under QEMU by
//!   `bpf-selftest record --set jit-forms` from the programs in
//!   `expected/jit_disasm/progs/` (every ALU/memory/atomic/jump form, calls,
//!   tail calls, more than 32 branch references), the text by libLLVM-19
//!   called as test_loader calls it; a few images of the first recording's
//!   own example programs are kept as recorded, their text made again.
//! * When llvm-objdump-19 / libLLVM-19 are installed, the goldens are
//!   regenerated live and must be unchanged; otherwise that test says it
//!   skipped. `BPF_SELFTEST_BLESS=1` rewrites the corpus goldens (never from
//!   our own output); the oracle images are re-recorded by `record --set
//!   jit-forms`.

mod arm64_corpus;
mod x86_corpus;

use bpf_selftest::jit_disasm::{disasm_insn, test_loader_text};
use bpf_selftest::require::{self, Component};
use bpf_selftest::target::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

const OBJDUMP: &str = "llvm-objdump-19";
const MC: &str = "llvm-mc-19";

/// An instruction corpus and the stem of its goldens in `expected/jit_disasm/`.
#[derive(Clone, Copy, Debug)]
struct Corpus {
    arch: Arch,
    name: &'static str,
}

/// The JIT-form corpora must match LLVM exactly; the random ones measure the
/// printers beyond JIT code, with their known mismatches listed in
/// `<name>.known` (instructions the decoder crates lack, ...).
const CORPORA: [Corpus; 4] = [
    Corpus { arch: Arch::X86_64, name: "x86_64" },
    Corpus { arch: Arch::Arm64, name: "arm64" },
    Corpus { arch: Arch::X86_64, name: "x86_64-random" },
    Corpus { arch: Arch::Arm64, name: "arm64-random" },
];

fn expected_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("expected/jit_disasm")
}

/// One line of llvm-objdump output: address, bytes, instruction text.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ObjdumpLine {
    addr: u64,
    bytes: Vec<u8>,
    text: String,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn golden_path(c: Corpus) -> PathBuf {
    expected_dir().join(format!("{}.objdump", c.name))
}

/// Golden file: `addr<TAB>bytes<TAB>objdump text` per line.
fn read_golden(c: Corpus) -> Vec<ObjdumpLine> {
    let s = std::fs::read_to_string(golden_path(c)).expect("golden file");
    s.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut it = l.splitn(3, '\t');
            let addr = u64::from_str_radix(it.next().unwrap(), 16).unwrap();
            let bytes = unhex(it.next().unwrap());
            ObjdumpLine { addr, bytes, text: it.next().unwrap().to_string() }
        })
        .collect()
}

fn write_golden(c: Corpus, lines: &[ObjdumpLine]) {
    let mut s = format!(
        "# llvm-objdump-19 -d --print-imm-hex{} of the {} corpus (tests/jit_disasm/), verbatim.\n",
        if c.arch == Arch::Arm64 { " --mattr=+all" } else { "" },
        c.name
    );
    for l in lines {
        s.push_str(&format!("{:x}\t{}\t{}\n", l.addr, hex(&l.bytes), l.text));
    }
    std::fs::create_dir_all(expected_dir()).unwrap();
    std::fs::write(golden_path(c), s).unwrap();
}

fn have_llvm() -> bool {
    [OBJDUMP, MC].iter().all(|t| Command::new(t).arg("--version").output().is_ok_and(|o| o.status.success()))
}

/// Assembles the corpus as raw bytes into an object with llvm-mc and
/// disassembles it with llvm-objdump. Returns objdump's lines.
fn run_objdump(arch: Arch, corpus: &[Vec<u8>]) -> Vec<ObjdumpLine> {
    let dir = std::env::temp_dir().join(format!("jit_disasm_{}_{}", arch.name(), std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, obj) = (dir.join("c.s"), dir.join("c.o"));
    let mut s = String::from(".text\n");
    for insn in corpus {
        match arch {
            // `.inst` keeps the words code (a `.byte` would start a data mapping symbol).
            Arch::Arm64 => {
                for w in insn.chunks(4) {
                    s.push_str(&format!(".inst 0x{:08x}\n", u32::from_le_bytes(w.try_into().unwrap())));
                }
            }
            _ => {
                let b: Vec<String> = insn.iter().map(|x| format!("0x{x:02x}")).collect();
                s.push_str(&format!(".byte {}\n", b.join(",")));
            }
        }
    }
    std::fs::write(&src, s).unwrap();
    let triple = if arch == Arch::Arm64 { "aarch64" } else { "x86_64" };
    let st = Command::new(MC).args([&format!("-triple={triple}"), "-filetype=obj", "-o"]).arg(&obj).arg(&src).status().unwrap();
    assert!(st.success(), "llvm-mc failed");
    let mut cmd = Command::new(OBJDUMP);
    cmd.args(["-d", "--print-imm-hex"]);
    if arch == Arch::Arm64 {
        cmd.arg("--mattr=+all");
    }
    let out = cmd.arg(&obj).output().unwrap();
    assert!(out.status.success(), "llvm-objdump failed");
    let _ = std::fs::remove_dir_all(&dir);
    parse_objdump(arch, &String::from_utf8(out.stdout).unwrap())
}

fn parse_objdump(arch: Arch, out: &str) -> Vec<ObjdumpLine> {
    let mut v = Vec::new();
    for line in out.lines() {
        let Some((addr, rest)) = line.split_once(": ") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let Some((bytes, text)) = rest.split_once('\t') else {
            continue;
        };
        let bytes: Vec<u8> = match arch {
            Arch::Arm64 => bytes.split_whitespace().flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes()).collect(),
            _ => bytes.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect(),
        };
        v.push(ObjdumpLine { addr, bytes, text: text.to_string() });
    }
    v
}

/// What `LLVMDisasmInstruction` prints for an objdump line, without labels
/// (the symbol callback names nothing), or `None` where it fails to decode.
///
/// llvm-objdump differs from the C API in: comments (`# imm = ...`,
/// `// =...`, rip-relative `# 0x...`), `<.text+0x..>` after addresses, and on
/// arm64 the literal `ldr xN`, `adr` and `adrp` operands, which objdump
/// prints as absolute addresses and the C API as `#0x<off>`, `#<decimal off>`
/// and `<decimal pages> // 0x<page>`.
fn capi_text(arch: Arch, l: &ObjdumpLine) -> Option<String> {
    let mut t = l.text.as_str();
    if t == "<unknown>" {
        return None;
    }
    let comment = if arch == Arch::Arm64 { "//" } else { "#" };
    if let Some(i) = t.find(&format!(" {comment} ")).or_else(|| t.find(&format!("\t{comment} "))) {
        t = &t[..i];
    }
    let mut t = t.trim_end().to_string();
    if let Some(i) = t.find(" <")
        && t.ends_with('>')
    {
        t.truncate(i);
    }
    if arch == Arch::Arm64 {
        let word = u32::from_le_bytes(l.bytes[..4].try_into().unwrap());
        let rel = |t: &mut String, dec: bool| {
            let (head, tail) = t.rsplit_once(", ").unwrap();
            let target = u64::from_str_radix(tail.trim_start_matches("0x"), 16).unwrap();
            let off = target.wrapping_sub(l.addr) as i64;
            let s = if dec {
                format!("#{off}")
            } else if off < 0 {
                format!("#-0x{:x}", off.unsigned_abs())
            } else {
                format!("#0x{off:x}")
            };
            *t = format!("{head}, {s}");
        };
        if word & 0xff00_0000 == 0x5800_0000 {
            rel(&mut t, false); // LDR Xt, literal
        } else if word & 0x9f00_0000 == 0x1000_0000 {
            rel(&mut t, true); // ADR
        } else if word & 0x9f00_0000 == 0x9000_0000 {
            // ADRP: the C API's symbolizer prints the page delta in decimal and
            // comments the page address.
            let (head, tail) = t.rsplit_once(", ").unwrap();
            let page = u64::from_str_radix(tail.trim_start_matches("0x"), 16).unwrap();
            let pages = (page.wrapping_sub(l.addr & !0xfff) as i64) >> 12;
            t = format!("{head}, {pages} // 0x{page:x}");
        }
    }
    Some(format!("\t{t}"))
}

fn capi_path(c: Corpus) -> PathBuf {
    expected_dir().join(format!("{}.capi", c.name))
}

/// Runs `jit_disasm/llvm_capi.py` on the objdump lines; `None` when python3
/// or libLLVM-19 is missing.
fn run_capi(arch: Arch, lines: &[ObjdumpLine]) -> Option<String> {
    use std::io::Write;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jit_disasm/llvm_capi.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(arch.name())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let input: String = lines.iter().map(|l| format!("{:x}\t{}\n", l.addr, hex(&l.bytes))).collect();
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status.success().then(|| String::from_utf8(out.stdout).unwrap())
}

/// The C API golden: per line, its text (with the leading tab) or `None`
/// where it fails to decode.
fn read_capi(c: Corpus) -> Vec<(u64, Vec<u8>, Option<String>)> {
    parse_capi(&std::fs::read_to_string(capi_path(c)).expect("capi golden"))
}

/// Addresses of the known mismatches of a corpus (`<name>.known`: `addr<TAB>why`).
fn known(c: Corpus) -> std::collections::BTreeMap<u64, String> {
    let Ok(s) = std::fs::read_to_string(expected_dir().join(format!("{}.known", c.name))) else {
        return Default::default();
    };
    s.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, why)| (u64::from_str_radix(a, 16).unwrap(), why.to_string()))
        .collect()
}

fn parse_capi(s: &str) -> Vec<(u64, Vec<u8>, Option<String>)> {
    s.lines()
        .map(|l| {
            let mut it = l.splitn(3, '\t');
            let addr = u64::from_str_radix(it.next().unwrap(), 16).unwrap();
            let bytes = unhex(it.next().unwrap());
            let text = it.next().unwrap();
            (addr, bytes, (text != "<fail>").then(|| format!("\t{text}")))
        })
        .collect()
}

fn bless() -> bool {
    std::env::var("BPF_SELFTEST_BLESS").is_ok_and(|v| v == "1")
}

/// Compares our text with the C API golden; returns the mismatches.
/// Like the kernel helper, each instruction is decoded with the rest of the
/// stream after it (a lone prefix byte decodes differently from one followed
/// by an instruction).
fn mismatches(arch: Arch, golden: &[(u64, Vec<u8>, Option<String>)]) -> Vec<(u64, String)> {
    let stream: Vec<u8> = golden.iter().flat_map(|g| g.1.iter().copied()).collect();
    let mut bad = Vec::new();
    let mut off = 0;
    for (addr, bytes, want) in golden {
        let code = &stream[off..(off + 32).min(stream.len())];
        off += bytes.len();
        let got = disasm_insn(arch, code, *addr, &|_| None);
        let ok = match (want, &got) {
            (None, None) => true,
            (Some(w), Some(g)) => *w == g.text && g.len == bytes.len(),
            _ => false,
        };
        if !ok {
            bad.push((*addr, format!("{addr:x}: {}\n   llvm: {want:?}\n   ours: {:?}", hex(bytes), got.map(|g| (g.len, g.text)))));
        }
    }
    bad
}

fn corpus(c: Corpus) -> Vec<Vec<u8>> {
    match c.name {
        "arm64" => arm64_corpus::corpus(),
        "x86_64" => x86_corpus::corpus(),
        "arm64-random" => random_arm64(6000),
        _ => random_bytes(16000),
    }
}

/// xorshift64: a fixed pseudo-random sequence, so the random corpora are reproducible.
fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Random bytes, in 16-byte items (objdump splits the stream into instructions).
fn random_bytes(n: usize) -> Vec<Vec<u8>> {
    let mut st = 0x9e37_79b9_7f4a_7c15;
    let bytes: Vec<u8> = (0..n).map(|_| xorshift(&mut st) as u8).collect();
    bytes.chunks(16).map(<[u8]>::to_vec).collect()
}

/// Random A64 words, steered into the integer, load/store and branch
/// encoding groups (op0 = bits 28:25) where JIT code lives.
fn random_arm64(n: usize) -> Vec<Vec<u8>> {
    const GROUPS: [u32; 10] = [0b1000, 0b1001, 0b1010, 0b1011, 0b0101, 0b1101, 0b0100, 0b0110, 0b1100, 0b1110];
    let mut st = 0x2545_f491_4f6c_dd1d;
    (0..n)
        .map(|_| {
            let r = xorshift(&mut st);
            let w = (r as u32 & !(0xf << 25)) | GROUPS[(r >> 40) as usize % GROUPS.len()] << 25;
            w.to_le_bytes().to_vec()
        })
        .collect()
}

/// With `BPF_SELFTEST_BLESS=1`, rewrites both corpus goldens of both arches
/// once, before any test reads them.
fn blessed() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if !bless() {
            return;
        }
        if !have_llvm() {
            require::skip(Component::Llvm, &format!("BPF_SELFTEST_BLESS=1, but {OBJDUMP} / {MC} not installed; goldens not rewritten"));
            return;
        }
        for c in CORPORA {
            let lines = run_objdump(c.arch, &corpus(c));
            write_golden(c, &lines);
            let capi = run_capi(c.arch, &lines).expect("python3 with libLLVM.so.19.1 to bless");
            std::fs::write(capi_path(c), capi).unwrap();
        }
    });
}

fn check_corpus(c: Corpus) {
    blessed();
    let golden = read_capi(c);
    let bad = mismatches(c.arch, &golden);
    // JIT_DISASM_DUMP=FILE writes every mismatch, for working on the printer.
    if let Ok(p) = std::env::var("JIT_DISASM_DUMP") {
        std::fs::write(p, bad.iter().map(|b| b.1.as_str()).collect::<Vec<_>>().join("\n")).unwrap();
    }
    let known = known(c);
    let unexpected: Vec<&String> = bad.iter().filter(|b| !known.contains_key(&b.0)).map(|b| &b.1).collect();
    let fixed = known.len() - (bad.len() - unexpected.len());
    eprintln!(
        "{}: {}/{} instructions print as LLVM's C API does ({} known mismatches{})",
        c.name,
        golden.len() - bad.len(),
        golden.len(),
        known.len(),
        if fixed > 0 { format!(", {fixed} of them now match: prune {}.known", c.name) } else { String::new() }
    );
    assert!(
        unexpected.is_empty(),
        "{}: {} lines differ from LLVM; first ones:\n{}",
        c.name,
        unexpected.len(),
        unexpected.iter().take(40).map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn x86_64_corpus_matches_llvm() {
    check_corpus(CORPORA[0]);
}

#[test]
fn arm64_corpus_matches_llvm() {
    check_corpus(CORPORA[1]);
}

#[test]
fn x86_64_random_bytes_vs_llvm() {
    check_corpus(CORPORA[2]);
}

#[test]
fn arm64_random_words_vs_llvm() {
    check_corpus(CORPORA[3]);
}

/// The two LLVM goldens agree up to [`capi_text`] and the C API's own
/// behaviour: it fails on SoftFail (unpredictable) encodings that objdump
/// prints, and prints the decoder's comments (`// acquire semantics dropped
/// ...`) that objdump does not. Anything else would mean the mapping (or a
/// golden) is wrong.
fn check_goldens_agree(c: Corpus) {
    blessed();
    let arch = c.arch;
    let (objdump, capi) = (read_golden(c), read_capi(c));
    assert_eq!(objdump.len(), capi.len(), "{}: goldens out of step", c.name);
    let (mut same, mut softfail, mut comment, mut other) = (0, 0, 0, Vec::new());
    for (o, (addr, bytes, c)) in objdump.iter().zip(&capi) {
        assert!(o.addr == *addr && o.bytes == *bytes, "{}: goldens out of step at {addr:x}", arch.name());
        let mapped = capi_text(arch, o);
        match (&mapped, c) {
            (m, c) if m == c => same += 1,
            (Some(_), None) => softfail += 1,
            (Some(m), Some(c)) if c.starts_with(&format!("{m} // ")) => comment += 1,
            _ => other.push(format!("{addr:x} {}: objdump {:?} -> {mapped:?}, C API {c:?}", hex(bytes), o.text)),
        }
    }
    eprintln!("{}: objdump == C API on {same} lines; C API fails on {softfail} SoftFail encodings, adds a comment on {comment}", c.name);
    assert!(other.is_empty(), "{}", other[..other.len().min(20)].join("\n"));
}

#[test]
fn goldens_agree() {
    for c in CORPORA {
        check_goldens_agree(c);
    }
}

/// Re-runs llvm-mc/llvm-objdump-19 and libLLVM-19 on the corpora: the
/// goldens must still be what LLVM prints.
#[test]
fn live_llvm() {
    if !have_llvm() {
        require::skip(Component::Llvm, &format!("{OBJDUMP} / {MC} not installed; checked-in goldens only"));
        return;
    }
    blessed();
    for c in CORPORA {
        let live = run_objdump(c.arch, &corpus(c));
        assert!(live == read_golden(c), "{}: objdump golden is stale; rerun with BPF_SELFTEST_BLESS=1", c.name);
        match run_capi(c.arch, &live) {
            Some(capi) => assert!(parse_capi(&capi) == read_capi(c), "{}: C API golden is stale", c.name),
            None => require::skip(Component::Llvm, "python3 with libLLVM.so.19.1 not available; C API golden not re-checked"),
        }
    }
}

/// A real JIT image and test_loader's text for it (recorded by `bpf-selftest
/// record --set jit-forms`, read by the library's `recorded::jit_forms`).
struct Image {
    name: String,
    funcs: Vec<Vec<u8>>,
    tl: String,
}

fn oracle_images(arch: Arch) -> Vec<Image> {
    let path = expected_dir().join(format!("oracle-{}.json", arch.name()));
    let doc = bpf_selftest::recorded::jit_forms::read_oracle_images(&path).unwrap();
    doc.programs.into_iter().map(|p| Image { funcs: p.images().unwrap(), name: p.name, tl: p.tl }).collect()
}

fn check_images(arch: Arch) {
    let images = oracle_images(arch);
    let mut bad = Vec::new();
    for img in &images {
        let mut got = test_loader_text(arch, &img.funcs).join("\n");
        got.push('\n');
        if got != img.tl {
            let diff = similar_lines(&img.tl, &got);
            bad.push(format!("{}:\n{diff}", img.name));
        }
    }
    eprintln!("{}: {}/{} oracle images match test_loader text", arch.name(), images.len() - bad.len(), images.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn similar_lines(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut s = String::new();
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i).copied().unwrap_or("<none>"), g.get(i).copied().unwrap_or("<none>"));
        if a != b {
            s.push_str(&format!("  kernel: {a:?}\n  ours:   {b:?}\n"));
        }
    }
    s
}

#[test]
fn x86_64_oracle_images() {
    check_images(Arch::X86_64);
}

#[test]
fn arm64_oracle_images() {
    check_images(Arch::Arm64);
}
