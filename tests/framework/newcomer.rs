//! A new test written the way the README tells a newcomer to, without a
//! person: a program is written, `bpf-selftest xlated --arch
//! x86_64,arm64,riscv64` prints its blocks, they are pasted under
//! `#[sec]`/`#[success]`/`#[retval]` into one test of a scratch suite, and
//! that test runs through the model for the three arches.
//!
//! The scratch test's attributes become tags through the attribute macro's
//! own code (`macros/src/tags.rs`, compiled in here), so they mean what
//! they would mean in `progs/`; its body is assembled as `bpf_asm!` does.

use std::process::Command;

use bpf_selftest::backend::model::ModelBackend;
use bpf_selftest::registry::{Asm, ProgDecl, Site, Suite};
use bpf_selftest::runner::{self, Plan, RunOptions, Verdict};
use bpf_selftest::spec;
use bpf_selftest::target::Arch;

#[allow(dead_code)]
#[path = "../../macros/src/tags.rs"]
mod tags;

/// The newcomer's program: 32-bit defs read only as 32 bits (poisoned by
/// `BPF_F_TEST_RND_HI32`), then one that exit reads in full (zero-extended
/// on riscv64). Returns 12.
const PROGRAM: &str = "w1 = 5;\nw0 = w1;\nw0 += 7;\nexit;\n";

const ARCHES: [Arch; 3] = [Arch::X86_64, Arch::Arm64, Arch::Riscv64];

fn xlated_blocks(file: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_bpf-selftest"))
        .arg("xlated")
        .arg(file)
        .args(["--arch", "x86_64,arm64,riscv64"])
        .output()
        .expect("run bpf-selftest xlated");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "xlated failed: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The scratch test's tags, as the attribute macro makes them from its
/// attributes (everything but `#[sec]`).
fn tags_of(test_source: &str) -> Vec<String> {
    let item: syn::ItemFn = syn::parse_str(test_source).unwrap_or_else(|e| panic!("the scratch test does not parse: {e}\n{test_source}"));
    let mut state = tags::TagState::default();
    for attr in &item.attrs {
        let name = attr.path().get_ident().expect("a one-word attribute").to_string();
        if name == "sec" {
            continue;
        }
        let args = match &attr.meta {
            syn::Meta::Path(_) => proc_macro2::TokenStream::new(),
            syn::Meta::List(l) => l.tokens.clone(),
            syn::Meta::NameValue(_) => panic!("#[{name} = ...]"),
        };
        let raw = tags::RawAttr { name: name.clone(), args, span: proc_macro2::Span::call_site(), whole: None };
        state.push(&raw).unwrap_or_else(|e| panic!("#[{name}] would not compile: {e}"));
    }
    state.tags
}

fn leak<T: ?Sized>(b: Box<T>) -> &'static T {
    Box::leak(b)
}

/// A scratch suite holding the one test.
fn scratch_suite(tags: &[String]) -> Suite {
    let tags: Vec<&'static str> = tags.iter().map(|t| leak(t.clone().into_boxed_str())).collect();
    let prog = ProgDecl {
        name: "newcomer",
        site: Site { module_path: "scratch", file: "scratch.rs", line: 1, column: 1 },
        sec: "socket",
        tags: leak(tags.into_boxed_slice()),
        tag_lines: &[],
        asm: Asm { source: PROGRAM, operands: &[], compiled: None },
        object: None,
    };
    Suite { module_path: "scratch", name: "scratch".into(), programs: vec![leak(Box::new(prog))], ..Suite::default() }
}

/// Each arch's verdict for the scratch test, and the xlated patterns its
/// spec checks there.
fn run(suite: &Suite) -> Vec<(Arch, Verdict, Vec<String>)> {
    let model = ModelBackend;
    let mut out = Vec::new();
    for arch in ARCHES {
        let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
        let subtests = runner::plan_suites(std::slice::from_ref(suite), &opts, &model);
        assert_eq!(subtests.len(), 1, "{arch}: one subtest (privileged)");
        let st = &subtests[0];
        let patterns = match &st.plan {
            Plan::Load(job) => job.spec.privileged.expect_xlated.patterns.iter().map(|p| p.pattern.clone()).collect(),
            Plan::Skip(why) => panic!("{arch}: skipped before loading: {why}"),
            Plan::Fail(why) => panic!("{arch}: failed before loading: {why}"),
        };
        let (verdict, _) = runner::run_subtest(st, &model, &opts);
        out.push((arch, verdict, patterns));
    }
    out
}

#[test]
fn pasted_xlated_blocks_pass_on_the_three_arches() {
    let dir = std::env::temp_dir().join(format!("bpf-selftest-newcomer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("newcomer.s");
    std::fs::write(&file, PROGRAM).unwrap();
    let blocks = xlated_blocks(&file);
    std::fs::remove_dir_all(&dir).unwrap();

    // x86_64 and arm64 load it alike; riscv64 zero-extends w0 before exit.
    // The load is a test's: BPF_F_TEST_RND_HI32 poisons w1's upper half.
    let arch_lines: Vec<&str> = blocks.lines().filter(|l| l.starts_with("#[arch(")).collect();
    assert_eq!(arch_lines, ["#[arch(x86_64, arm64)]", "#[arch(riscv64)]"], "{blocks}");
    assert!(blocks.contains("#[xlated(\"1: r12 = {{.*}}\")]"), "the poison, masked:\n{blocks}");
    assert!(blocks.contains("#[xlated(\"9: w0 = w0\")]"), "riscv64's zero extension:\n{blocks}");

    let test_source = format!("#[sec(\"socket\")]\n#[success]\n#[retval(12)]\n{blocks}fn newcomer() {{}}\n");
    let tags = tags_of(&test_source);
    assert_eq!(spec::xlated_blocks(&tags.iter().map(String::as_str).collect::<Vec<_>>()).unwrap().len(), 2, "two scoped blocks");
    for (arch, verdict, patterns) in run(&scratch_suite(&tags)) {
        assert_eq!(verdict, Verdict::Ok, "{arch}");
        // each arch checks its own block, not the other's lines
        assert_eq!(patterns.iter().any(|p| p == "9: w0 = w0"), arch == Arch::Riscv64, "{arch}: {patterns:?}");
        assert_eq!(patterns.len(), if arch == Arch::Riscv64 { 11 } else { 10 }, "{arch}: {patterns:?}");
    }

    // The same blocks with their arches swapped fail on every arch: the
    // lines are checked, not passed over.
    let swapped = blocks
        .replace("#[arch(x86_64, arm64)]", "#[arch(SWAP)]")
        .replace("#[arch(riscv64)]", "#[arch(x86_64, arm64)]")
        .replace("#[arch(SWAP)]", "#[arch(riscv64)]");
    let test_source = format!("#[sec(\"socket\")]\n#[success]\n#[retval(12)]\n{swapped}fn newcomer() {{}}\n");
    for (arch, verdict, _) in run(&scratch_suite(&tags_of(&test_source))) {
        assert!(matches!(verdict, Verdict::Fail(_)), "{arch}: {verdict:?}");
    }
}
