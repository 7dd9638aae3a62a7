#![allow(dead_code)] // each target uses its own part
//! Large and deeply nested asm texts from small fuzz inputs, which
//! libFuzzer's length limit (4 KiB by default) would never reach: an input
//! that starts with the byte 0xfe is a recipe, not a text.
//!
//! `0xfe, n_lo, n_hi, PREFIX 0 OPEN 0 MIDDLE 0 CLOSE 0 SUFFIX` makes
//! `PREFIX + OPEN * N + MIDDLE + CLOSE * N + SUFFIX` with `N = n * 16`
//! (up to about a million), at most [`MAX_TEXT`] bytes: 100,000 nested
//! parentheses, unary minuses or `.rept` blocks, a million-insn program, a
//! program with an error on line 1 and megabytes after it. Missing parts
//! are empty. `fuzz/seed.sh` writes such recipes as seeds.

use std::borrow::Cow;

/// The largest text a recipe makes.
pub const MAX_TEXT: usize = 8 << 20;

/// The text `data` stands for, and whether it came from a recipe.
pub fn text(data: &[u8]) -> (Cow<'_, [u8]>, bool) {
    if data.len() < 3 || data[0] != 0xfe {
        return (Cow::Borrowed(data), false);
    }
    let n = usize::from(u16::from_le_bytes([data[1], data[2]])) * 16;
    let mut parts = data[3..].splitn(5, |&b| b == 0);
    let mut part = || parts.next().unwrap_or_default();
    let (prefix, open, middle, close, suffix) = (part(), part(), part(), part(), part());
    let fixed = prefix.len() + middle.len() + suffix.len();
    let per = open.len() + close.len();
    let n = if per == 0 { 0 } else { n.min(MAX_TEXT.saturating_sub(fixed) / per) };
    let mut out = Vec::with_capacity(fixed + per * n);
    out.extend_from_slice(prefix);
    for _ in 0..n {
        out.extend_from_slice(open);
    }
    out.extend_from_slice(middle);
    for _ in 0..n {
        out.extend_from_slice(close);
    }
    out.extend_from_slice(suffix);
    (Cow::Owned(out), true)
}

/// Runs `f` on a thread with a 2 MiB stack, the smallest the assembler
/// runs on (a test thread's), so that deep input that needs more is found.
pub fn on_small_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new().stack_size(2 << 20).spawn_scoped(s, f).expect("spawn").join().unwrap_or_else(|e| std::panic::resume_unwind(e))
    })
}

/// What every assembly of fuzz input must satisfy besides not panicking.
pub fn check_error(text: &[u8], e: &bpf_isa::AsmError) {
    // messages quote little of the text, however long a token is
    assert!(e.msg.len() < 400, "a {}-byte message: {}…", e.msg.len(), &e.msg[..200]);
    assert!(e.pos <= text.len(), "error past the end: {e:?}");
    if e.kind == bpf_isa::AsmErrorKind::Encoding {
        // the byte named is where UTF-8 breaks
        assert!(std::str::from_utf8(&text[e.pos..]).is_err_and(|u| u.valid_up_to() == 0), "{e}");
    }
}
