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
    if s.kernel_details {
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
