//! Shared by the kernel and vm backend tests: the programs of
//! `tests/oracle_progs/*.s` turned into `LoadRequest`s by the library's
//! reader of their `# oracle:` options (`recorded::oracle_asm`, what
//! `record --set backend-truth` loads), and the comparison with what real
//! kernels answered (`expected/oracle/*.json`, read by
//! `recorded::backend_truth`).

use std::path::PathBuf;

use bpf_selftest::backend::normalize::renumber_maps;
use bpf_selftest::backend::{LoadOutcome, LoadRequest};
use bpf_selftest::recorded::backend_truth::{self, Program};
use bpf_selftest::target::Arch;

pub use bpf_selftest::recorded::backend_truth::Truth;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One program of tests/oracle_progs with the request built from it.
pub struct Case {
    pub name: String,
    pub req: LoadRequest,
}

/// Every program of tests/oracle_progs, in file-name order (the recorder's).
pub fn cases(arch: Arch) -> Vec<Case> {
    backend_truth::programs(&root())
        .unwrap()
        .into_iter()
        .map(|p| Case { req: p.request("oracle_progs", arch).unwrap_or_else(|e| panic!("{e}")), name: p.name })
        .collect()
}

/// A recording of expected/oracle.
pub fn truth(file: &str) -> Truth {
    Truth::read(&root().join("expected/oracle").join(file)).unwrap()
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
    /// The arch of the images.
    pub arch: Arch,
}

/// An arm64 image without what follows from kernel addresses: each run of
/// move-wide instructions (a 64-bit `movz`/`movn` and the `movk`s of the
/// same register after it) as one word naming the register, and branches
/// without their offsets. `emit_a64_mov_i64` spends one to four
/// instructions on a constant depending on its 16-bit chunks, so a map's
/// address, which moves between boots, changes the image's length, and
/// with it the offsets of the branches and calls across it.
fn arm64_without_addresses(image: &[u8]) -> Vec<u32> {
    let words: Vec<u32> = image.chunks(4).map(|w| w.iter().rev().fold(0u32, |v, b| v << 8 | *b as u32)).collect();
    let mut out = Vec::with_capacity(words.len());
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        k += 1;
        // b/bl (imm26), b.cond (imm19), cbz/cbnz (imm19), tbz/tbnz (imm14)
        let offset_mask = match w {
            _ if w & 0x7c00_0000 == 0x1400_0000 => 0x03ff_ffff,
            _ if w & 0xff00_0010 == 0x5400_0000 || w & 0x7e00_0000 == 0x3400_0000 => 0x00ff_ffe0,
            _ if w & 0x7e00_0000 == 0x3600_0000 => 0x0007_ffe0,
            _ => 0,
        };
        // 64-bit movn (0x92800000) or movz (0xd2800000)
        if !matches!(w & 0xff80_0000, 0x9280_0000 | 0xd280_0000) {
            out.push(w & !offset_mask);
            continue;
        }
        let reg = w & 31;
        while words.get(k).is_some_and(|&m| m & 0xff80_0000 == 0xf280_0000 && m & 31 == reg) {
            k += 1;
        }
        out.push(0xd280_0000 | reg);
    }
    out
}

/// Compares one outcome with its recording; returns the differences.
pub fn compare(name: &str, got: &LoadOutcome, want: &Program, s: &Strictness) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ok: bool, detail: String| {
        if !ok {
            diffs.push(format!("{name}: {what}: {detail}"));
        }
    };
    check("accepted", got.accepted == want.accepted, format!("got {} want {}", got.accepted, want.accepted));
    check("errno", got.errno == want.errno, format!("got {} want {}", got.errno, want.errno));
    if s.kernel_details {
        // map addresses move from boot to boot
        let mask = bpf_selftest::golden::mask_kernel_pointers;
        check("log", mask(&got.log) == mask(&want.log), format!("got\n{}\nwant\n{}", got.log, want.log));
        // a rejected program has no verified_insns to read back: the count is
        // the recorded log's `processed N insns`
        let vi = match want.verified_insns {
            Some(v) => v,
            None => bpf_selftest::backend::loader::processed_insns(&want.log).unwrap_or(0),
        };
        check("verified_insns", got.verified_insns == vi, format!("got {} want {vi}", got.verified_insns));
    }
    if s.same_map_ids {
        check("map ids", got.map_ids == want.map_ids, format!("got {:?} want {:?}", got.map_ids, want.map_ids));
    }
    // xlated: raw insns and test_loader text, map ids replaced by map indexes
    let rec = want.xlated().unwrap();
    let canon = |k: usize| 1000 + k as u32;
    let want_x = renumber_maps(&rec, &want.map_ids, &canon);
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
    if s.same_map_ids && s.kernel_details {
        let mine = got.xlated.iter().map(|l| format!("{l}\n")).collect::<String>();
        check("xlated text as recorded", mine == want.xlated_text, format!("got\n{mine}want\n{}", want.xlated_text));
    }
    let got_lens: Vec<usize> = got.jited_funcs.iter().map(Vec::len).collect();
    // the JIT's prologue depends on the kernel build too (CFI, call depth
    // tracking): another kernel is held to having an image per function
    if s.kernel_details && s.arch == Arch::Arm64 && !s.exact_jit.contains(&name) {
        // the same kernel build: every instruction but what follows from
        // the kernel addresses in the image (see arm64_without_addresses)
        let want_image: Vec<u8> = (0..want.jited_hex.len() / 2).filter_map(|i| u8::from_str_radix(&want.jited_hex[2 * i..2 * i + 2], 16).ok()).collect();
        let (g, w) = (arm64_without_addresses(&got.jited_funcs.concat()), arm64_without_addresses(&want_image));
        let first = g.iter().zip(&w).position(|(a, b)| a != b);
        check("JIT image but its addresses", g == w, format!("got {} words want {}, first difference at word {first:?}", g.len(), w.len()));
        check("JIT functions", got_lens.len() == want.func_lens.len(), format!("got {got_lens:?} want {:?}", want.func_lens));
    } else if s.kernel_details {
        check("JIT function lengths", got_lens == want.func_lens, format!("got {got_lens:?} want {:?}", want.func_lens));
    } else {
        check("JIT functions", got_lens.len() == want.func_lens.len(), format!("got {got_lens:?} want {:?}", want.func_lens));
    }
    if s.exact_jit.contains(&name) {
        let hex: String = got.jited_funcs.concat().iter().map(|b| format!("{b:02x}")).collect();
        check("JIT image", hex == want.jited_hex, format!("got {hex} want {}", want.jited_hex));
    }
    check("retval", got.retval == want.retval, format!("got {:?} want {:?}", got.retval, want.retval));
    let tr_errno = want.test_run_errno.unwrap_or(0);
    check("test run errno", got.test_run_errno == tr_errno, format!("got {} want {tr_errno}", got.test_run_errno));
    diffs
}

/// Images that differ only in a constant's move-wide sequence and the
/// branch offsets after it are the same; any other instruction counts.
#[test]
fn arm64_images_compare_without_addresses() {
    let image = |words: &[u32]| words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    // mov x1, #0x1234; movk x1, #0x5678, lsl #16 / mov x1, #0x1234; b.eq +8; bl +16; add x0, x0, #1
    let a = image(&[0xd282_4681, 0xf2aa_cf01, 0x5400_0040, 0x9400_0004, 0x9100_0400]);
    let b = image(&[0xd282_4681, 0x5400_0060, 0x9400_0005, 0x9100_0400]);
    let c = image(&[0xd282_4681, 0x5400_0060, 0x9400_0005, 0x9100_0800]);
    assert_eq!(arm64_without_addresses(&a), arm64_without_addresses(&b));
    assert_ne!(arm64_without_addresses(&a), arm64_without_addresses(&c));
}
