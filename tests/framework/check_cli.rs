//! `bpf-selftest check` as a user runs it: the seed program through the
//! model's whole pipeline for x86_64, arm64 and riscv64, `--json` parsed.
//! x86_64 and arm64 are held to what 7.3 recorded for the same program
//! (`expected/linux-7.3/<arch>/iters/iter_num_new_inlined.txt`); riscv64,
//! which Debian has no 7.3 image of, to the same program plus the
//! zero extensions its JIT needs (`bpf_jit_needs_zext`), with every jump
//! still landing where 7.3's x86_64 xlated program lands. And `check` on a
//! clang-built object without `--prog`: every program, as its annotations
//! say the kernel decides.

use std::process::Command;

use serde_json::Value;

const SEED: &str = "tests/check_cli/iter_num_new_inlined.s";

fn check(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bpf-selftest")).arg("check").args(args).output().expect("run bpf-selftest");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn seed_json(arch: &str) -> (Value, String) {
    let (ok, stdout, stderr) = check(&[SEED, "--prog-type", "raw_tp", "--arch", arch, "--json"]);
    assert!(ok, "check --arch {arch} failed: {stderr}");
    (serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("--json of {arch} does not parse: {e}\n{stdout}")), stderr)
}

/// A section of a golden, one entry per line.
fn golden_section(arch: &str, section: &str) -> Vec<String> {
    let path = format!("expected/linux-7.3/{arch}/iters/iter_num_new_inlined.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let head = format!("== {section}\n");
    let start = text.find(&head).unwrap_or_else(|| panic!("{path} has no {section}")) + head.len();
    text[start..].lines().take_while(|l| !l.starts_with("== ")).map(str::to_string).collect()
}

fn lines(v: &Value) -> Vec<String> {
    v.as_array().expect("a list").iter().map(|l| l.as_str().expect("a string").to_string()).collect()
}

#[test]
fn json_has_exactly_the_documented_keys_and_the_7_3_xlated_program() {
    for arch in ["x86_64", "arm64"] {
        let (v, _) = seed_json(arch);
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(keys, ["accepted", "errno", "jited", "log", "retval", "verified_insns", "xlated"]);
        assert_eq!(v["accepted"], true);
        assert_eq!(v["errno"], 0);
        assert_eq!(v["retval"], Value::Null, "no --run, no retval");
        assert_eq!(lines(&v["xlated"]), golden_section(arch, "xlated"), "{arch}: xlated");
        let verified: u64 = golden_section(arch, "verified_insns")[0].parse().unwrap();
        assert_eq!(v["verified_insns"], verified, "{arch}: verified_insns");
        let jited = lines(&v["jited"]);
        assert!(jited.first().is_some_and(|l| l == "func #0:"), "{arch}: jited starts with its function header: {jited:?}");
    }
}

/// `(index, text without the "N: " prefix)` of each xlated line.
fn parse_xlated(lines: &[String]) -> Vec<(usize, String)> {
    lines
        .iter()
        .map(|l| {
            let (n, t) = l.split_once(": ").unwrap_or_else(|| panic!("not an xlated line: {l}"));
            (n.parse().unwrap(), t.to_string())
        })
        .collect()
}

/// `goto pc+K` / `... goto pc-K`: the text before the offset and K.
fn jump(text: &str) -> Option<(&str, i64)> {
    let at = text.find("goto pc")?;
    Some((&text[..at], text[at + "goto pc".len()..].parse().ok()?))
}

fn is_zext(text: &str) -> bool {
    let (d, s) = text.split_once(" = ").unwrap_or(("", "-"));
    d.starts_with('w') && d == s
}

#[test]
fn riscv64_is_the_7_3_program_plus_zero_extensions() {
    let (v, stderr) = seed_json("riscv64");
    assert!(stderr.contains("no 7.3 image for riscv64"), "the stand-in symbols are announced: {stderr}");
    assert_eq!(v["accepted"], true);
    assert!(lines(&v["jited"]).is_empty(), "the model has no riscv64 JIT");
    let rv = parse_xlated(&lines(&v["xlated"]));
    let x86 = parse_xlated(&golden_section("x86_64", "xlated"));
    // riscv64 index -> index in 7.3's x86_64 program, for the kept insns
    let kept: Vec<usize> = (0..rv.len()).filter(|&i| !is_zext(&rv[i].1)).collect();
    assert_eq!(kept.len(), x86.len(), "riscv64 without its zexts has x86_64's length");
    assert!(rv.len() > x86.len(), "riscv64 zero-extends the 32-bit defs the program reads in full");
    let to_x86 = |i: usize| kept.iter().position(|&k| k == i);
    for (j, &i) in kept.iter().enumerate() {
        let (r, x) = (&rv[i].1, &x86[j].1);
        match (jump(r), jump(x)) {
            (Some((rp, rk)), Some((xp, xk))) => {
                assert_eq!(rp, xp, "insn {i}: {r} vs {x}");
                let target = usize::try_from(i as i64 + 1 + rk).unwrap();
                assert_eq!(to_x86(target), Some((j as i64 + 1 + xk) as usize), "insn {i} ({r}) lands where 7.3's {j} ({x}) does");
            }
            _ => assert_eq!(r, x, "insn {i}"),
        }
    }
    for i in (0..rv.len()).filter(|&i| is_zext(&rv[i].1)) {
        // a zext follows the 32-bit def of its own register
        let w = rv[i].1.split_once(" = ").unwrap().0;
        let prev = &rv[i - 1].1;
        let r = w.replacen('w', "r", 1);
        assert!(prev.starts_with(&format!("{w} ")) || prev.starts_with(&format!("{r} = *(u32 *)")), "insn {i}: {w} = {w} after {prev}");
    }
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let (ok, stdout, stderr) = check(&[SEED, "--arch", "mips"]);
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("bpf-selftest: error:"), "{stderr}");
    let (ok, _, stderr) = check(&["tests/check_cli/no-such-file.s"]);
    assert!(!ok && stderr.trim_end().lines().count() == 1, "{stderr}");
}

/// `BPF_PROG_TEST_RUN`'s size rules: every case of
/// `expected/linux-7.3/test_run_sizes.txt` (packets and ctxs of many sizes,
/// per program type, as 7.3 answered them) through the model.
#[test]
fn test_run_sizes_are_7_3_s() {
    use bpf_selftest::backend::Backend;
    use bpf_selftest::recorded::test_run_sizes;
    let text = std::fs::read_to_string("expected/linux-7.3/test_run_sizes.txt").unwrap();
    let cases = test_run_sizes::parse(&text).unwrap();
    assert!(cases.len() >= 50);
    let model = bpf_selftest::backend::model::ModelBackend;
    let mut bad = Vec::new();
    for c in &cases {
        let out = model.load(&c.request().unwrap()).unwrap_or_else(|u| panic!("{}: {}", c.key(), u.0));
        let got = test_run_sizes::outcome(&out);
        if got != c.outcome {
            bad.push(format!("{}: 7.3 {}, model {got}", c.key(), c.outcome));
        }
    }
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), cases.len(), bad.join("\n"));
}

fn xlated(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bpf-selftest")).arg("xlated").args(args).output().expect("run bpf-selftest");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A rejected load is quoted the same way by `check` and `xlated`: its
/// errno and the verifier's message, the ones 7.3 gave for the same
/// program (`expected/oracle/vm-x86_64.json`, bad_r0).
#[test]
fn a_rejection_quotes_the_verifiers_message() {
    use bpf_selftest::recorded::backend_truth::Truth;
    let truth = Truth::read(std::path::Path::new("expected/oracle/vm-x86_64.json")).unwrap();
    let p = truth.program("bad_r0").expect("bad_r0 recorded");
    assert!(!p.accepted);
    let message = bpf_selftest::verifier::log::error_message(&p.log).expect("a message");
    let want = format!("errno {} ({}): {}", p.errno, bpf_selftest::verifier::errno::errno_name(p.errno), message.trim());
    for level in ["1", "2"] {
        let args = ["tests/oracle_progs/bad_r0.s", "--arch", "x86_64", "--log-level", level];
        let (ok, stdout, _) = check(&args);
        assert!(ok);
        assert!(stdout.lines().any(|l| l == format!("rejected: {want}")), "level {level}: want {want:?} in\n{stdout}");
        let (ok, _, stderr) = xlated(&args);
        assert!(!ok);
        assert_eq!(stderr.trim_end(), format!("bpf-selftest: error: bad_r0: rejected: {want}"), "level {level}");
    }
}

/// Loads 7.3 fails for the log's sake (tests/limits, recorded from 7.3:
/// a log outgrowing its buffer, ENOSPC; a log level with a bit 7.3 does not
/// know, EINVAL with an empty log): the kernel's answer, and a hint saying
/// what to change.
#[test]
fn log_failures_keep_the_kernels_answer_and_say_what_to_change() {
    use bpf_selftest::recorded::limits;
    let answers = limits::parse(&std::fs::read_to_string("tests/limits/7.3-x86_64.json").unwrap()).unwrap();
    let case = |name: &str| limits::cases().into_iter().find(|c| c.name == name).expect(name);
    for (name, hint) in [
        ("log_ring_64", "hint: --log-level 0 loads without a log; or give the log room with --log-size"),
        ("log_level_bad_bit", "hint: BPF_PROG_LOAD refuses log_level 17"),
    ] {
        let c = case(name);
        assert_eq!(c.insns.len(), 2, "{name}: r0 = 0; exit");
        let a = &answers[name];
        let (level, size) = (c.log_level.to_string(), c.log_size.to_string());
        for cmd in [check as fn(&[&str]) -> (bool, String, String), xlated] {
            let (_, stdout, stderr) = cmd(&["tests/check_cli/r0_0.s", "--arch", "x86_64", "--log-level", &level, "--log-size", &size]);
            let text = format!("{stdout}{stderr}");
            let errno = format!("rejected: errno {} ({})", a.errno, bpf_selftest::verifier::errno::errno_name(a.errno));
            assert!(text.contains(&errno), "{name}: want {errno:?} in\n{text}");
            assert!(text.lines().any(|l| l.starts_with(hint)), "{name}: want a hint in\n{text}");
        }
    }
    assert!(answers["log_level_bad_bit"].log.is_empty());
}

/// Test-run inputs are hex digits in pairs: the first character that is
/// not one is named, with its place; the options are refused without a
/// test run, and so are two maps of one name.
#[test]
fn bad_test_run_input_and_maps_are_named() {
    let ok = "tests/check_cli/r0_0.s";
    for opt in ["--data-hex", "--ctx-hex"] {
        let (good, stdout, stderr) = check(&[ok, "--run", opt, "00 1z"]);
        assert!(!good && stdout.is_empty());
        assert_eq!(stderr.trim_end(), format!("bpf-selftest: error: {opt}: 'z' (character 5) is not a hex digit"));
        let (good, _, stderr) = check(&[ok, "--run", opt, "abc"]);
        assert!(!good && stderr.contains("3 hex digits, an odd number"), "{stderr}");
    }
    for (opt, v) in [("--data-hex", "00"), ("--data-len", "3"), ("--ctx-hex", "00"), ("--ctx-len", "3")] {
        let (good, _, stderr) = check(&[ok, opt, v]);
        assert!(!good, "{opt} without --run");
        assert!(stderr.contains(&format!("{opt} is an input of the test run: give --run")), "{stderr}");
        let (good, _, stderr) = check(&[ok, opt, v, "--interp"]);
        assert!(good, "{opt} with --interp: {stderr}");
    }
    let (good, _, stderr) = check(&[ok, "--map", "m:array:4:8:1", "--map", "m:hash:4:8:1"]);
    assert!(!good);
    assert!(stderr.contains("maps 1 and 2 are both named 'm'"), "{stderr}");
}

/// `check -t raw_tp --run --ctx-len 16`: a ctx alone, no packet, runs and
/// returns what 7.3 returned (`expected/linux-7.3/test_run_sizes.txt`,
/// `raw_tp data=- ctx=16`), on both arches.
#[test]
fn raw_tp_test_run_with_a_ctx_alone_returns_7_3_s_retval() {
    let text = std::fs::read_to_string("expected/linux-7.3/test_run_sizes.txt").unwrap();
    let dir = std::env::temp_dir().join(format!("bpf-selftest-check-ctx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("ret0.s");
    // the program of test_run_sizes.txt
    std::fs::write(&prog, "r0 = 0\nexit\n").unwrap();
    for arch in ["x86_64", "arm64"] {
        let key = format!("{arch} raw_tp data=- ctx=16: ");
        let line = text.lines().find_map(|l| l.strip_prefix(&key)).unwrap_or_else(|| panic!("no '{key}' line"));
        let want: i64 = line.strip_prefix("retval ").and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        let p = prog.display().to_string();
        let (ok, stdout, stderr) = check(&[&p, "-t", "raw_tp", "--run", "--ctx-len", "16", "--arch", arch, "--json"]);
        assert!(ok, "{arch}: {stderr}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(v["retval"], want, "{arch}: {stdout}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A called name that is no kfunc of 7.3 (here a misspelled one) fails the
/// load the way libbpf fails it, before `BPF_PROG_LOAD`: ESRCH and its
/// extern message, never a skip.
#[test]
fn an_unknown_kfunc_fails_with_libbpf_s_message() {
    for arch in ["x86_64", "arm64"] {
        let (_, stdout, stderr) = check(&["tests/check_cli/misspelled_kfunc.s", "--prog-type", "raw_tp", "--arch", arch, "--json"]);
        let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{arch}: --json does not parse: {e}\n{stdout}\n{stderr}"));
        assert_eq!(v["accepted"], false, "{arch}");
        assert_eq!(v["errno"], 3, "{arch}: ESRCH");
        assert_eq!(v["log"], "libbpf: extern (func ksym) 'bpf_rcu_read_lok': not found in kernel or module BTFs\n", "{arch}");
    }
}

/// A reader that stops early (`check big.s | head`) ends the CLI as it
/// ends other command-line tools, by SIGPIPE, not with a panic.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("bpf-selftest-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("long.s");
    std::fs::write(&prog, "r0 = 0\n".repeat(20_000) + "exit\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bpf-selftest"))
        .args(["check", &prog.display().to_string(), "--arch", "x86_64"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two socket filters annotated as the kernel's selftests annotate theirs
/// (bpf_misc.h's `__success`, `__failure`, `__msg`: BTF decl tags on the
/// function, in the object): `checked` tests the lookup's result for NULL,
/// `unchecked` reads through it, which 7.3 (and every kernel since map
/// values became nullable) refuses. With `ODD`, a third program in a
/// section libbpf does not know, which cannot be loaded at all.
const TWO_PROGRAMS: &str = r#"
#define SEC(n) __attribute__((section(n), used))
#define __success __attribute__((btf_decl_tag("comment:test_expect_success")))
#define __failure __attribute__((btf_decl_tag("comment:test_expect_failure")))
#define __msg(m) __attribute__((btf_decl_tag("comment:test_expect_msg=" m)))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
struct {
    __uint(type, 1);
    __uint(max_entries, 1);
    __type(key, int);
    __type(value, long);
} vals SEC(".maps");
SEC("socket") __success
int checked(void *ctx) { int k = 0; long *v = bpf_map_lookup_elem(&vals, &k); return v ? *v : 0; }
SEC("socket") __failure __msg("R0 invalid mem access 'map_value_or_null'")
int unchecked(void *ctx) { int k = 0; long *v = bpf_map_lookup_elem(&vals, &k); return *v; }
#ifdef ODD
SEC("no_such_section") int odd(void *ctx) { return 0; }
#endif
char _license[] SEC("license") = "GPL";
"#;

/// What a program's annotations expect: accepted, or refused with these
/// messages in its log.
#[derive(Debug)]
struct Expected {
    success: bool,
    msgs: Vec<String>,
}

/// The `comment:` decl tags of each main program of `obj`, read from its
/// BTF as test_loader reads them.
fn annotations(obj: &bpf_selftest::object::BpfObject) -> Vec<(String, Expected)> {
    use bpf_selftest::btf::{BTF_KIND_DECL_TAG, BTF_KIND_FUNC};
    let btf = obj.btf.as_ref().expect("the object has BTF");
    obj.programs()
        .map(|p| {
            let func = btf.find_by_name_kind(&p.name, BTF_KIND_FUNC).unwrap_or_else(|| panic!("no BTF FUNC {}", p.name));
            let tags: Vec<&str> = (1..btf.type_cnt() as u32)
                .filter(|&id| btf.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_DECL_TAG && t.size_or_type == func))
                .filter_map(|id| btf.type_name(id).strip_prefix("comment:"))
                .collect();
            let success = tags.contains(&"test_expect_success");
            assert!(success != tags.contains(&"test_expect_failure"), "{}: one of __success, __failure: {tags:?}", p.name);
            let msgs = tags.iter().filter_map(|t| t.strip_prefix("test_expect_msg=")).map(str::to_string).collect();
            (p.name.clone(), Expected { success, msgs })
        })
        .collect()
}

/// `check FILE.bpf.o` without `--prog` checks every program of the object,
/// each under a heading with its name and each as its annotations (what the
/// kernel decides) say, on the model and, where bpf(2) works, the running
/// kernel; a program that cannot be loaded is reported in its place, the
/// others still checked, and the exit status says so.
#[test]
fn an_object_without_prog_checks_every_program() {
    use bpf_selftest::backend::Backend;
    use bpf_selftest::require::{self, Component};
    let Some(clang) = bpf_selftest::import::clang::clang_program() else {
        require::skip(Component::Clang, "clang-19 compiles the test object");
        return;
    };
    let dir = std::env::temp_dir().join(format!("bpf-selftest-check-object-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("two.c");
    std::fs::write(&c, TWO_PROGRAMS).unwrap();
    let compile = |out: &std::path::Path, defs: &[&str]| {
        let cc = Command::new(clang).args(["-g", "-O2", "--target=bpfel", "-mcpu=v3", "-c"]).args(defs).arg(&c).arg("-o").arg(out).output().expect("run clang");
        assert!(cc.status.success(), "clang: {}", String::from_utf8_lossy(&cc.stderr));
        out.display().to_string()
    };
    let two = compile(&dir.join("two.bpf.o"), &[]);
    let odd = compile(&dir.join("odd.bpf.o"), &["-DODD"]);
    let obj = bpf_selftest::object::BpfObject::open(std::path::Path::new(&two)).unwrap_or_else(|e| panic!("{e}"));
    let expected = annotations(&obj);
    assert_eq!(expected.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["checked", "unchecked"]);
    assert!(expected[0].1.success && !expected[1].1.success && expected[1].1.msgs.len() == 1, "the annotations were read: {expected:?}");

    let mut backends = vec!["model"];
    let host = bpf_selftest::target::Arch::host();
    if let Some(arch) = host {
        match bpf_selftest::backend::kernel::KernelBackend::default().probe(arch) {
            Ok(()) => backends.push("kernel"),
            Err(e) => eprintln!("kernel backend not checked: {}", e.0),
        }
    }
    let arch = host.map_or("x86_64", |a| a.name());
    for be in backends {
        let (ok, stdout, stderr) = check(&[&two, "--backend", be, "--arch", arch]);
        assert!(ok, "{be}: {stderr}");
        let heads: Vec<&str> = stdout.lines().filter(|l| l.starts_with("#### ")).collect();
        assert_eq!(heads, ["#### checked (SEC(\"socket\"), program 1 of 2)", "#### unchecked (SEC(\"socket\"), program 2 of 2)"], "{be}:\n{stdout}");
        for (name, want) in &expected {
            // the program's own output follows its heading, as `--prog` gives it
            let own = stdout.split("#### ").find(|s| s.starts_with(&format!("{name} "))).unwrap();
            let verdict = if want.success { "accepted" } else { "rejected" };
            assert!(own.contains(&format!("\n== {name} (socket_filter, {arch}")), "{be} {name}:\n{own}");
            assert!(own.lines().nth(2).is_some_and(|l| l.starts_with(verdict)), "{be} {name}: {verdict}:\n{own}");
        }

        let (ok, stdout, stderr) = check(&[&two, "--backend", be, "--arch", arch, "--json"]);
        assert!(ok, "{be}: {stderr}");
        let rows: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{be}: {e}: {l}"))).collect();
        assert_eq!(rows.len(), expected.len(), "{be}:\n{stdout}");
        for (row, (name, want)) in rows.iter().zip(&expected) {
            assert_eq!(row["prog"], name.as_str(), "{be}");
            assert_eq!(row["accepted"], want.success, "{be} {name}: {row}");
            let log = row["log"].as_str().unwrap_or_default();
            for m in &want.msgs {
                assert!(log.contains(m.as_str()), "{be} {name}: the log lacks {m:?}:\n{log}");
            }
        }

        let (ok, stdout, stderr) = check(&[&odd, "--backend", be, "--arch", arch, "--log-level", "0"]);
        assert!(!ok, "{be}: a program that cannot be loaded fails the check:\n{stdout}");
        let heads = stdout.lines().filter(|l| l.starts_with("#### ")).count();
        assert_eq!(heads, 3, "{be}: every program is reported:\n{stdout}");
        assert!(stdout.contains("\nerror: ") && stdout.contains("'no_such_section'"), "{be}:\n{stdout}");
        assert_eq!(stdout.matches("\naccepted, ").count() + stdout.matches("\nrejected: ").count(), 2, "{be}: the others are checked:\n{stdout}");
        assert!(stderr.contains("1 of 3 programs could not be checked: odd"), "{be}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
