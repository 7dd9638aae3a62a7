//! The assembler's limits as a user meets them, on generated inputs: deep
//! nesting, programs over the kernel's insn limit, large texts, bytes that
//! are not UTF-8 and huge tokens, through `bpf-selftest asm` and `check`
//! (whose main thread has 8 MiB of stack) and through the library (the
//! memory it takes, counted by this test's allocator).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;
use std::process::Command;

use bpf_isa::{AsmErrorKind, assemble_bytes};

/// The system allocator, counting the bytes this thread has live and the
/// most it had since [`reset_peak`].
struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // try_with: nothing to count once the thread's locals are gone
    let _ = LIVE.try_with(|l| {
        let v = l.get() + delta;
        l.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The most heap `f` had live at once on this thread, beyond what was live
/// before it, and its result.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    ((PEAK.with(Cell::get) - base).max(0) as usize, r)
}

/// A valid program of about `bytes` bytes: a mix of what programs hold
/// (named and numeric labels, jumps both ways, loads, stores, ld_imm64,
/// helper calls, expressions, comments).
fn big_program(bytes: usize) -> Vec<u8> {
    let mut s = String::with_capacity(bytes + 200);
    let mut k = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "l{k}:\n\
             \tr1 = *(u64 *)(r10 - 8) // load it back\n\
             \t*(u32 *)(r10 - (4 * 2)) = 0x7fff\n\
             1:\tif r1 s> 3 goto 1f /* forward */\n\
             \tr2 = 0x123456789 ll\n\
             \tcall bpf_get_prandom_u32\n\
             \tgoto 1b\n\
             1:\tgoto l{k}\n"
        ));
        k += 1;
    }
    s.push_str("exit\n");
    s.into_bytes()
}

#[test]
fn memory_is_a_few_times_the_text_at_most() {
    let text = big_program(4 << 20);
    let (peak, p) = peak_heap(|| assemble_bytes(&text).map(|p| p.insns.len()));
    let insns = p.expect("assembles");
    assert!(insns > 150_000, "{insns} insns");
    // the program itself (12 bytes a slot), its labels and fixups
    assert!(peak < text.len() * 2, "{peak} bytes of heap for {} bytes of text", text.len());
}

#[test]
fn an_error_on_line_1_is_reported_without_reading_on() {
    for first in ["r0 = = 1\n", "r0 = 1 + ((((1)\n", "\u{7}\n", "exit\n.rept 9999999\n"] {
        let mut text = first.as_bytes().to_vec();
        text.extend_from_slice(&big_program(8 << 20));
        let t = std::time::Instant::now();
        let (peak, r) = peak_heap(|| assemble_bytes(&text));
        let e = r.expect_err(first);
        assert!(e.line <= 2, "{first:?}: {e}");
        assert!(peak < 64 << 10, "{first:?}: {peak} bytes of heap");
        assert!(t.elapsed().as_millis() < 500, "{first:?}: {:?}", t.elapsed());
    }
    // a byte that is not UTF-8 at the end of a long text is found without
    // checking the whole text first
    let mut text = b"r0 = \xff\n".to_vec();
    text.extend_from_slice(&big_program(8 << 20));
    let e = assemble_bytes(&text).expect_err("not UTF-8");
    assert_eq!((e.kind, e.line, e.col), (AsmErrorKind::Encoding, 1, 6));
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bpf-selftest"))
}

/// A file of this test's own under the target directory.
fn write(name: &str, text: &[u8]) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("asm_limits");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Exit code, stdout and stderr of `bpf-selftest ARGS FILE`.
fn run(args: &[&str], file: &PathBuf) -> (i32, String, String) {
    let out = bin().args(args).arg(file).output().expect("run bpf-selftest");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn deep(open: &str, n: usize, middle: &str, close: &str) -> String {
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

#[test]
fn deep_nesting_is_an_error_with_its_place_in_asm_and_check() {
    let cases = [
        ("parens", format!("r0 = 1 + {}\nexit\n", deep("(", 40_000, "1", ")")), "1:266", "expression nested too deep"),
        ("data", format!(".8byte {}\n", deep("(", 100_000, "1", ")")), "1:264", "expression nested too deep"),
        ("offset", format!("*(u64 *)(r10 - {}) = 0\n", deep("(", 100_000, "8", ")")), "1:271", "expression nested too deep"),
        ("minus", format!("r0 = {}1\nexit\n", "-".repeat(100_000)), "1:262", "expression nested too deep"),
        ("rept", deep(".rept 1\n", 10_000, "exit\n", ".endr\n"), "257:1", ".rept nested too deep"),
    ];
    for (name, text, place, what) in cases {
        let file = write(&format!("deep_{name}.s"), text.as_bytes());
        for cmd in ["asm", "check"] {
            let (code, _, stderr) = run(&[cmd], &file);
            assert_eq!(code, 1, "{cmd} {name}: {stderr}");
            let want = format!("{}:{place}: {what} (more than 256 levels)", file.display());
            assert!(stderr.contains(&want), "{cmd} {name}: {stderr}");
        }
    }
}

#[test]
fn a_program_over_the_kernel_limit_is_refused_as_the_kernel_does() {
    // 1,000,001 slots and more: the kernel's BPF_PROG_LOAD answers E2BIG
    let file = write("too_many.s", b"r0 = 0\n.rept 500000\nr1 = 1 ll\n.endr\nexit\n");
    let (code, stdout, stderr) = run(&["check"], &file);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("rejected: errno 7 (E2BIG)"), "{stdout}");
    assert!(stderr.contains("more than 1000000 instructions"), "{stderr}");
    let (code, stdout, _) = run(&["check", "--json"], &file);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!((v["accepted"].as_bool(), v["errno"].as_i64()), (Some(false), Some(7)), "{stdout}");
    let (code, stdout, stderr) = run(&["asm"], &file);
    assert_eq!((code, stdout.as_str()), (1, ""));
    // the last round of the body makes the slot past the limit
    assert!(stderr.contains(":3:1: the program has more than 1000000 instructions") && stderr.contains("E2BIG"), "{stderr}");
}

#[test]
fn bytes_that_are_not_utf8_are_named_by_line_and_column() {
    // in comments: taken, as llvm-mc-19 takes them
    let file = write("latin1_comments.s", b"r0 = 1 # caf\xe9\n// \xff\xfe\nr0 = 2 /* \xe9\n */\nexit\n");
    let (code, stdout, stderr) = run(&["asm"], &file);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 3);
    let (code, stdout, stderr) = run(&["check"], &file);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("accepted"), "{stdout}");
    // elsewhere: an error naming the line and the byte's column
    let file = write("latin1_code.s", b"r0 = 1\nr0 = 2 \xe9\nexit\n");
    for cmd in ["asm", "check"] {
        let (code, _, stderr) = run(&[cmd], &file);
        assert_eq!(code, 1);
        assert!(stderr.contains(&format!("{}:2:8: byte 0xe9 is not UTF-8 (byte column 8", file.display())), "{cmd}: {stderr}");
    }
}

#[test]
fn a_huge_bad_token_is_not_echoed_whole() {
    let mut text = b"r0 = 1\n".to_vec();
    text.extend(std::iter::repeat_n(b'z', 1 << 20));
    text.extend_from_slice(b" = 1\nexit\n");
    let file = write("huge_token.s", &text);
    for cmd in ["asm", "check"] {
        let (code, _, stderr) = run(&[cmd], &file);
        assert_eq!(code, 1);
        assert!(stderr.len() < 400, "{cmd}: {} bytes on stderr", stderr.len());
        assert!(stderr.contains(&format!("2:1: unknown instruction '{}…'", "z".repeat(40))), "{cmd}: {stderr}");
    }
}
