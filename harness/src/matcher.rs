//! test_loader's `validate_msgs`: how `#[msg]`, `#[not_msg]`, `#[xlated]`
//! and `#[jited]` patterns are matched against the verifier log and the
//! xlated/jited dumps, and the failure report.
//!
//! The rules, as the kernel's `test_loader.c` has them:
//!
//! * A pattern is a plain substring unless it contains `{{`; then the text
//!   outside `{{ }}` is escaped and the whole is one POSIX extended regex
//!   compiled with `REG_NEWLINE` (the kernel's runner: glibc `regcomp`).
//!   Here it runs on the regex crate ([`posix`] rewrites the ERE): same
//!   syntax, same `REG_NEWLINE` rules, byte-wise as in the C locale, and
//!   the same match spans (see below).
//! * Positive patterns are searched in order, each once, from the end of the
//!   previous successful match: the first occurrence wins, no backtracking.
//!   The line of a match is the number of `\n` before its start.
//! * Disasm-like lists (xlated, jited) carry a line rule: a pattern must match
//!   on the line after the previous match, unless `...` stood between them.
//!   The first pattern of a list may match anywhere. In `#[msg]` lists `...`
//!   is a literal substring.
//! * A run of negative patterns is searched in the span from the end of the
//!   positive before it to the start of the positive after it (or the end of
//!   the text). If that following positive did not match, no negative of the
//!   run can be flagged.
//! * The first failing pattern ends the check: `EXPECTED` (not found),
//!   `WRONG LINE`, `UNEXPECTED` (a negative was found).
//!
//! Decisions on the quirks of reference §9 that live here:
//!
//! * §9.4 regex syntax and REG_NEWLINE: replicated. Leftmost-longest:
//!   replicated. POSIX picks, among the matches that start leftmost, the
//!   longest; the regex crate alone would pick by its leftmost-first
//!   preference (`ab|abcd` on `abcd` gives `ab`). Only the start and end of
//!   a match matter here (found or not, its line, where the next search
//!   starts), and the start is the same under both rules, so [`Regex::find`]
//!   takes the start from the regex crate and the longest end from an
//!   anchored all-matches DFA: the span is POSIX's, and a verdict cannot
//!   change. Back-references (`\1`..`\9`): **not** replicated, the regex
//!   crate has none; a pattern with one fails its spec at parse time with an
//!   error naming the pattern (no pattern of 7.3's selftests has one). Where
//!   glibc's `regexec` is itself wrong (an anchor in a repeated group, see
//!   [`posix`]) the answer is POSIX's. `regexec` is called without
//!   `REG_NOTBOL`, so `^` also matches at the search start mid-line:
//!   replicated, patterns are written against the kernel's behaviour. The
//!   256-byte limit of the escaped regex is **not** replicated: it is an
//!   artifact of a stack buffer, and a longer pattern is not a mistake of the
//!   test.
//! * §9.5 sequential first occurrence, no backtracking, line of match start:
//!   replicated.
//! * §9.6 `...` only in disasm lists: replicated.
//! * §9.7 in a run of consecutive negatives the kernel (7.3 too) searches only
//!   the first one's pattern and flags the whole run with it: **fixed**, each
//!   negative is searched for itself. With the kernel's code a later
//!   `#[not_msg]` of a run is never looked for, so a test can pass while the
//!   text it forbids is there. Verdicts of the kernel's own framework cases
//!   are unchanged (see the tests).
//! * §9.8 a next-line pattern that is not found at all is reported by the
//!   kernel as `WRONG LINE ... actual match is at line 0`: **fixed**, it is
//!   `EXPECTED`. The verdict (fail) is the same; only the label was wrong.
//! * §9.9 only the first failing pattern is reported: replicated (what comes
//!   after a failure has no well-defined cursor), and the report says how
//!   many patterns were not checked.

use std::fmt::Write as _;
use std::sync::Arc;

pub mod posix;

pub use posix::{EreError, Regex};

/// Translates test_loader's pattern syntax (`text{{ERE}}text`) to one ERE.
pub fn pattern_to_ere(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut in_regex = false;
    let mut rest = pattern;
    while let Some(c) = rest.chars().next() {
        if !in_regex && rest.starts_with("{{") {
            in_regex = true;
            rest = &rest[2..];
            continue;
        }
        if in_regex && rest.starts_with("}}") {
            in_regex = false;
            rest = &rest[2..];
            continue;
        }
        if !in_regex && ".[]\\()*+?{}|^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if in_regex {
        return Err(format!("Regexp has open '{{{{' but no closing '}}}}': '{pattern}'"));
    }
    Ok(out)
}

/// One pattern of a list (`struct expect_msg`).
#[derive(Clone)]
pub struct ExpectMsg {
    /// The pattern as written, `{{ }}` included.
    pub pattern: String,
    regex: Option<Arc<Regex>>,
    /// Must match on the line after the previous positive match.
    pub on_next_line: bool,
    /// A `#[not_msg]`.
    pub negative: bool,
}

impl ExpectMsg {
    pub fn new(pattern: &str, on_next_line: bool, negative: bool) -> Result<ExpectMsg, String> {
        let regex = if pattern.contains("{{") {
            let ere = pattern_to_ere(pattern)?;
            let re = Regex::new(&ere).map_err(|e| match e {
                EreError::BackReference(n) => {
                    format!("Regexp '{pattern}' has a back-reference '\\{n}': back-references are not supported (the matcher runs on the regex crate)")
                }
                EreError::Invalid(why) => format!("Regexp compilation error in '{ere}': '{why}'"),
            })?;
            Some(Arc::new(re))
        } else {
            None
        };
        Ok(ExpectMsg { pattern: pattern.to_string(), regex, on_next_line, negative })
    }

    pub fn is_regex(&self) -> bool {
        self.regex.is_some()
    }

    /// ` REGEX` or `SUBSTR`, as the kernel's report prints it.
    fn kind(&self) -> &'static str {
        if self.is_regex() { " REGEX" } else { "SUBSTR" }
    }

    /// The first occurrence in `text` at or after `from` as [`validate_msgs`]
    /// searches it: (start, end) of the substring, or of the regex's
    /// leftmost-longest match in `text[from..]` taken as a string of its own.
    pub fn find(&self, text: &[u8], from: usize) -> Option<(usize, usize)> {
        match &self.regex {
            Some(re) => re.find(text, from),
            None => find_bytes(text, self.pattern.as_bytes(), from).map(|s| (s, s + self.pattern.len())),
        }
    }
}

impl std::fmt::Debug for ExpectMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExpectMsg")
            .field("pattern", &self.pattern)
            .field("regex", &self.is_regex())
            .field("on_next_line", &self.on_next_line)
            .field("negative", &self.negative)
            .finish()
    }
}

fn find_bytes(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    if needle.is_empty() {
        return Some(from);
    }
    let first = needle[0];
    let mut i = from;
    while i + needle.len() <= hay.len() {
        match hay[i..hay.len() - needle.len() + 1].iter().position(|&b| b == first) {
            None => return None,
            Some(k) => {
                i += k;
                if &hay[i..i + needle.len()] == needle {
                    return Some(i);
                }
                i += 1;
            }
        }
    }
    None
}

/// An ordered pattern list (`struct expected_msgs`).
#[derive(Clone, Debug, Default)]
pub struct ExpectedMsgs {
    pub patterns: Vec<ExpectMsg>,
}

impl ExpectedMsgs {
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// A `#[msg]`/`#[not_msg]` pattern: no line rule, `...` is literal.
    pub fn push_msg(&mut self, pattern: &str, negative: bool) -> Result<(), String> {
        self.patterns.push(ExpectMsg::new(pattern, false, negative)?);
        Ok(())
    }

    /// An `#[xlated]`/`#[jited]` pattern: `...` is not stored but lifts the
    /// line rule of the next pattern; every stored pattern sets it again.
    pub fn push_disasm_msg(&mut self, pattern: &str, on_next_line: &mut bool) -> Result<(), String> {
        if pattern == "..." {
            *on_next_line = false;
            return Ok(());
        }
        self.patterns.push(ExpectMsg::new(pattern, *on_next_line, false)?);
        *on_next_line = true;
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Match {
    start: usize,
    end: usize,
    line: usize,
}

/// Why a pattern failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// A positive pattern was not found.
    Expected,
    /// Found, but not on the line after the previous match.
    WrongLine { expected_line: usize, actual_line: usize },
    /// A negative pattern was found.
    Unexpected,
}

impl Status {
    /// The 10-character field of the kernel's report.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Expected => "EXPECTED  ",
            Status::WrongLine { .. } => "WRONG LINE",
            Status::Unexpected => "UNEXPECTED",
        }
    }
}

/// The first failing pattern of a list, with what is needed to report it.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Index of the failing pattern.
    pub index: usize,
    pub status: Status,
    /// (pattern kind, pattern) of every pattern up to and including the failing one.
    lines: Vec<(&'static str, String)>,
    total: usize,
    /// Lines covered by earlier positive matches.
    matched_lines: Vec<(usize, usize)>,
    /// Where the failure is: (line, note).
    places: Vec<(usize, String)>,
}

/// Which buffer a list was matched against (the dump's title).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dump {
    VerifierLog,
    Xlated,
    Jited,
}

impl Dump {
    pub fn title(self) -> &'static str {
        match self {
            Dump::VerifierLog => "VERIFIER LOG",
            Dump::Xlated => "XLATED",
            Dump::Jited => "JITED",
        }
    }
}

fn line_of(text: &[u8], pos: usize) -> usize {
    text[..pos.min(text.len())].iter().filter(|&&b| b == b'\n').count()
}

/// test_loader's `validate_msgs`: `Ok` when every pattern holds, else the
/// first failing one.
pub fn validate_msgs(log: &str, msgs: &ExpectedMsgs) -> Result<(), Mismatch> {
    let pats = &msgs.patterns;
    // The kernel works on a C string: the text ends at the first NUL.
    let text = log.as_bytes();
    let text = &text[..text.iter().position(|&b| b == 0).unwrap_or(text.len())];

    // Positive patterns, in order, each from the end of the previous match.
    let mut matches: Vec<Option<Match>> = vec![None; pats.len()];
    let mut cursor = 0;
    // Where each positive's search started (for the report).
    let mut search_from = vec![0usize; pats.len()];
    for (i, p) in pats.iter().enumerate() {
        if p.negative {
            continue;
        }
        search_from[i] = cursor;
        if let Some((s, e)) = p.find(text, cursor) {
            matches[i] = Some(Match { start: s, end: e, line: line_of(text, s) });
            cursor = e;
        }
    }

    // Negative patterns, each in its span (see the module docs on §9.7).
    let mut start = 0;
    let mut i = 0;
    while i < pats.len() {
        if !pats[i].negative {
            if let Some(m) = matches[i] {
                start = m.end;
            }
            i += 1;
            continue;
        }
        let mut end = Some(text.len());
        let mut next_positive = pats.len();
        for (j, p) in pats.iter().enumerate().skip(i + 1) {
            if !p.negative {
                end = matches[j].map(|m| m.start);
                next_positive = j;
                break;
            }
        }
        for j in i..next_positive {
            search_from[j] = start;
            let found = pats[j].find(text, start).filter(|&(_, e)| end.is_some_and(|end| e <= end));
            if let Some((s, e)) = found {
                matches[j] = Some(Match { start: s, end: e, line: line_of(text, s) });
            }
        }
        i = next_positive;
    }

    // The verdict: the first failing pattern, in list order.
    let mut prev: Option<Match> = None;
    for (i, p) in pats.iter().enumerate() {
        let m = matches[i];
        let status = if p.negative {
            m.map(|_| Status::Unexpected)
        } else {
            match (m, prev) {
                (None, _) => Some(Status::Expected),
                (Some(m), Some(pm)) if p.on_next_line && pm.line + 1 != m.line => Some(Status::WrongLine { expected_line: pm.line + 1, actual_line: m.line }),
                _ => None,
            }
        };
        let Some(status) = status else {
            if !p.negative {
                prev = m;
            }
            continue;
        };
        let mut places = Vec::new();
        let label = status.label().trim_end();
        let what = format!("{label} {}: '{}'", p.kind(), p.pattern);
        match &status {
            Status::Expected => match prev {
                Some(pm) if p.on_next_line => places.push((pm.line + 1, format!("{what}: expected on this line"))),
                _ => {
                    let from = search_from[i];
                    places.push((line_of(text, from), format!("{what}: not found from here on")));
                }
            },
            Status::WrongLine { expected_line, actual_line } => {
                places.push((*expected_line, format!("{what}: expected on this line")));
                places.push((*actual_line, format!("{what}: found on this line")));
            }
            Status::Unexpected => {
                let m = m.expect("unexpected implies a match");
                places.push((m.line, format!("{what}: found here")));
            }
        }
        let matched_lines =
            (0..i).filter(|&j| !pats[j].negative).filter_map(|j| matches[j]).map(|m| (m.line, line_of(text, m.end.saturating_sub(1).max(m.start)))).collect();
        let lines = pats[..=i].iter().map(|p| (p.kind(), p.pattern.clone())).collect();
        return Err(Mismatch { index: i, status, lines, total: pats.len(), matched_lines, places });
    }
    Ok(())
}

impl Mismatch {
    /// The kernel's per-pattern lines: `MATCHED    SUBSTR: 'aaa'` for every
    /// pattern before the failing one, then the failing one's status, and for
    /// a wrong line the `expecting match at line ...` line.
    pub fn pattern_report(&self) -> String {
        let mut out = String::new();
        for (j, (kind, pat)) in self.lines.iter().enumerate() {
            let status = if j < self.index { "MATCHED   " } else { self.status.label() };
            let _ = writeln!(out, "{status} {kind}: '{pat}'");
        }
        if let Status::WrongLine { expected_line, actual_line } = self.status {
            let _ = writeln!(out, "expecting match at line {expected_line}, actual match is at line {actual_line}");
        }
        let rest = self.total - self.index - 1;
        if rest > 0 {
            let _ = writeln!(out, "({rest} more pattern{} not checked)", if rest == 1 { "" } else { "s" });
        }
        out
    }

    /// The whole report: test_loader's `validate_msgs:FAIL` line, the dump
    /// framed as the kernel frames it with the failing place marked (`>>>`;
    /// `  +` for lines earlier patterns matched), then the pattern lines.
    pub fn report(&self, dump: Dump, buf: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "validate_msgs:FAIL: expect_msg ({})", dump.title());
        let _ = writeln!(out, "{}:\n=============", dump.title());
        let mut lines: Vec<&str> = buf.split('\n').collect();
        if buf.ends_with('\n') {
            lines.pop();
        }
        for (n, l) in lines.iter().enumerate() {
            let failing = self.places.iter().any(|(pl, _)| *pl == n);
            let matched = self.matched_lines.iter().any(|&(a, b)| a <= n && n <= b);
            let gutter = if failing {
                ">>> "
            } else if matched {
                "  + "
            } else {
                "    "
            };
            let _ = writeln!(out, "{gutter}{l}");
            for (pl, note) in &self.places {
                if *pl == n {
                    let _ = writeln!(out, "    ^^^ {note}");
                }
            }
        }
        for (pl, note) in &self.places {
            if *pl >= lines.len() {
                let _ = writeln!(out, ">>> (end of {})\n    ^^^ {note}", dump.title());
            }
        }
        let _ = writeln!(out, "=============");
        out.push_str(&self.pattern_report());
        if self.status == Status::Expected
            && let (Some((_, pat)), Some((n, line))) =
                (self.lines.last(), closest_line(&self.lines.last().map_or(String::new(), |(_, p)| literal_text(p)), &lines))
        {
            let _ = writeln!(out, "closest {} line to '{pat}': line {n}: {line}", dump.title());
        }
        out
    }
}

/// A pattern's literal text: the parts outside `{{ }}`.
fn literal_text(pattern: &str) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(p) = rest.find("{{") {
        out.push_str(&rest[..p]);
        match rest[p..].find("}}") {
            Some(e) => rest = &rest[p + e + 2..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// The line (index, text) of `lines` most like `text`: the most of its
/// characters in order, then the fewest other characters.
fn closest_line<'a>(text: &str, lines: &[&'a str]) -> Option<(usize, &'a str)> {
    if text.trim().is_empty() {
        return None;
    }
    // bounded work on huge logs: the first lines, each cut to a few times
    // the pattern's length
    const MAX_LINES: usize = 50_000;
    let width = 4 * text.len() + 64;
    let mut best: Option<(usize, usize, usize)> = None;
    for (n, l) in lines.iter().enumerate().take(MAX_LINES) {
        let l = l.char_indices().nth(width).map_or(*l, |(i, _)| &l[..i]);
        let diff = similar::TextDiff::from_chars(text, l);
        let same: usize = diff.ops().iter().filter(|o| o.tag() == similar::DiffTag::Equal).map(|o| o.old_range().len()).sum();
        let extra = l.chars().count().saturating_sub(same);
        if best.is_none_or(|(_, s, e)| same > s || (same == s && extra < e)) {
            best = Some((n, same, extra));
        }
    }
    best.filter(|(_, same, _)| *same > 0).map(|(n, _, _)| (n, lines[n]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs(p: &[(&str, bool)]) -> ExpectedMsgs {
        let mut m = ExpectedMsgs::default();
        for (s, neg) in p {
            m.push_msg(s, *neg).unwrap();
        }
        m
    }

    fn disasm(p: &[&str]) -> ExpectedMsgs {
        let mut m = ExpectedMsgs::default();
        let mut next = true;
        for s in p {
            m.push_disasm_msg(s, &mut next).unwrap();
        }
        m
    }

    /// The report lines the kernel's `test_prog_tests_framework_expected_msgs`
    /// looks for, or "" for a pass.
    fn verdict(log: &str, m: &ExpectedMsgs) -> String {
        match validate_msgs(log, m) {
            Ok(()) => String::new(),
            Err(e) => e.pattern_report(),
        }
    }

    // prog_tests/prog_tests_framework.c, with the kernel's expected output.
    #[test]
    fn framework_simple_ok() {
        assert_eq!(verdict("aaabbbccc", &msgs(&[("aaa", false), ("ccc", false)])), "");
    }

    #[test]
    fn framework_simple_fail() {
        let r = verdict("aaabbbddd", &msgs(&[("aaa", false), ("ccc", false)]));
        assert!(r.starts_with("MATCHED    SUBSTR: 'aaa'\nEXPECTED   SUBSTR: 'ccc'\n"), "{r}");
    }

    #[test]
    fn framework_negative_ok_mid() {
        let m = msgs(&[("aaa", false), ("foo", true), ("bar", true), ("ccc", false)]);
        assert_eq!(verdict("aaabbbccc", &m), "");
    }

    #[test]
    fn framework_negative_ok_tail() {
        assert_eq!(verdict("aaabbbccc", &msgs(&[("aaa", false), ("foo", true)])), "");
    }

    #[test]
    fn framework_negative_ok_head() {
        assert_eq!(verdict("aaabbbccc", &msgs(&[("foo", true), ("ccc", false)])), "");
    }

    #[test]
    fn framework_negative_fail_head() {
        let r = verdict("aaabbbccc", &msgs(&[("aaa", true), ("bbb", false)]));
        assert!(r.starts_with("UNEXPECTED SUBSTR: 'aaa'\n"), "{r}");
    }

    #[test]
    fn framework_negative_fail_tail() {
        let r = verdict("aaabbbccc", &msgs(&[("bbb", false), ("ccc", true)]));
        assert!(r.contains("UNEXPECTED SUBSTR: 'ccc'\n"), "{r}");
    }

    #[test]
    fn framework_negative_fail_mid_1() {
        let r = verdict("aaabbbccc", &msgs(&[("aaa", false), ("bbb", true), ("ccc", false)]));
        assert!(r.contains("UNEXPECTED SUBSTR: 'bbb'\n"), "{r}");
    }

    #[test]
    fn framework_negative_fail_mid_2() {
        let m = msgs(&[("aaa", false), ("222", true), ("bbb", true), ("ccc", false)]);
        let r = verdict("aaabbb222ccc", &m);
        assert!(r.contains("UNEXPECTED SUBSTR: '222'\n"), "{r}");
    }

    /// §9.7 fixed: the second negative of a run is searched too (the kernel
    /// would only search "foo" and pass).
    #[test]
    fn every_negative_of_a_run_is_searched() {
        let m = msgs(&[("aaa", false), ("foo", true), ("bbb", true), ("ccc", false)]);
        let r = verdict("aaabbbccc", &m);
        assert!(r.contains("MATCHED    SUBSTR: 'foo'\nUNEXPECTED SUBSTR: 'bbb'\n"), "{r}");
    }

    /// A negative whose span ends at a positive that did not match is never
    /// flagged; the positive's own failure is reported.
    #[test]
    fn negative_before_unmatched_positive() {
        let r = verdict("aaabbbccc", &msgs(&[("bbb", true), ("zzz", false)]));
        assert!(r.starts_with("MATCHED    SUBSTR: 'bbb'\nEXPECTED   SUBSTR: 'zzz'\n"), "{r}");
    }

    /// A negative match must end inside its span.
    #[test]
    fn negative_span_end_is_inclusive_of_match_end() {
        // "bbbc" ends past the start of "ccc" (at 6): not flagged.
        assert_eq!(verdict("aaabbbccc", &msgs(&[("aaa", false), ("bbbc", true), ("ccc", false)])), "");
        // "bbb" ends exactly at it: flagged.
        assert!(!verdict("aaabbbccc", &msgs(&[("aaa", false), ("bbb", true), ("ccc", false)])).is_empty());
    }

    #[test]
    fn first_occurrence_no_backtracking() {
        // "b" takes the first b; "x" is searched after it and found, and the
        // line rule then fails although a later "b" would have fit.
        let m = disasm(&["a", "b", "x"]);
        let log = "a\nc\nb\nb\nx\n";
        let r = verdict(log, &m);
        assert!(r.contains("WRONG LINE SUBSTR: 'b'\nexpecting match at line 1, actual match is at line 2\n"), "{r}");
    }

    #[test]
    fn line_rule_consecutive_lines() {
        let log = "0: r1 = 1\n1: r2 = 2\n2: r3 = 3\n3: exit\n";
        assert_eq!(verdict(log, &disasm(&["r1 = 1", "r2 = 2", "r3 = 3"])), "");
        let r = verdict(log, &disasm(&["r1 = 1", "r3 = 3"]));
        assert!(r.contains("WRONG LINE SUBSTR: 'r3 = 3'\nexpecting match at line 1, actual match is at line 2\n"), "{r}");
    }

    #[test]
    fn line_rule_first_pattern_anywhere() {
        let log = "0: r1 = 1\n1: r2 = 2\n2: r3 = 3\n";
        assert_eq!(verdict(log, &disasm(&["r2 = 2", "r3 = 3"])), "");
    }

    #[test]
    fn ellipsis_lifts_the_line_rule_once() {
        let log = "0: a\n1: b\n2: c\n3: d\n4: e\n";
        assert_eq!(verdict(log, &disasm(&["a", "...", "d", "e"])), "");
        let r = verdict(log, &disasm(&["a", "...", "c", "e"]));
        assert!(r.contains("WRONG LINE SUBSTR: 'e'"), "{r}");
        // `...` at the start changes nothing (the first pattern is free).
        assert_eq!(verdict(log, &disasm(&["...", "c", "d"])), "");
    }

    #[test]
    fn next_line_pattern_cannot_match_on_the_same_line() {
        let log = "0: r1 = r2\n1: exit\n";
        let r = verdict(log, &disasm(&["r1", "r2"]));
        assert!(r.contains("WRONG LINE SUBSTR: 'r2'\nexpecting match at line 1, actual match is at line 0\n"), "{r}");
        assert_eq!(verdict(log, &disasm(&["r1", "...", "r2"])), "");
    }

    /// §9.8 fixed: not found is EXPECTED even under the line rule.
    #[test]
    fn not_found_next_line_pattern_is_expected() {
        let r = verdict("0: a\n1: b\n", &disasm(&["a", "zzz"]));
        assert!(r.starts_with("MATCHED    SUBSTR: 'a'\nEXPECTED   SUBSTR: 'zzz'\n"), "{r}");
    }

    #[test]
    fn ellipsis_is_literal_in_msg_lists() {
        assert!(!verdict("abc", &msgs(&[("...", false)])).is_empty());
        assert_eq!(verdict("a...b", &msgs(&[("...", false)])), "");
    }

    #[test]
    fn multiline_pattern_then_next_line() {
        // A 2-line match starting at line 0: the next pattern must be on line 1
        // (start line + 1), which is inside the match: it cannot be found there.
        let log = "a\nb\nc\n";
        let r = verdict(log, &disasm(&["a\nb", "c"]));
        assert!(r.contains("WRONG LINE SUBSTR: 'c'\nexpecting match at line 1, actual match is at line 2\n"), "{r}");
        assert_eq!(verdict(log, &disasm(&["a\nb", "...", "c"])), "");
    }

    #[test]
    fn regex_patterns() {
        let m = msgs(&[("R0={{[0-9]+}}", false)]);
        assert!(m.patterns[0].is_regex());
        assert_eq!(verdict("r0 = 1; R0=42 R1=x", &m), "");
        // Text outside {{ }} is literal: '.' and '(' escaped.
        assert_eq!(verdict("call f(x).y", &msgs(&[("f(x).{{y}}", false)])), "");
        assert!(!verdict("call fax y", &msgs(&[("f(x).{{y}}", false)])).is_empty());
        let r = verdict("nothing", &msgs(&[("x{{[0-9]+}}", false)]));
        assert!(r.starts_with("EXPECTED    REGEX: 'x{{[0-9]+}}'\n"), "{r}");
    }

    #[test]
    fn regex_newline_semantics() {
        // '.' does not cross lines under REG_NEWLINE.
        assert!(!verdict("ab\ncd", &msgs(&[("{{a.*d}}", false)])).is_empty());
        // '^' matches after a newline.
        assert_eq!(verdict("xx\nfoo", &msgs(&[("{{^foo}}", false)])), "");
        // ... and at the search start mid-line (no REG_NOTBOL): replicated.
        assert_eq!(verdict("abfoo", &msgs(&[("ab", false), ("{{^foo}}", false)])), "");
    }

    #[test]
    fn regex_leftmost_longest() {
        // POSIX: the longest alternative wins, so the match ends after "abcd"
        // and the following pattern must come after it (leftmost-first would
        // stop after "ab" and find "cd").
        let m = msgs(&[("{{(ab|abcd)}}", false), ("cd", false)]);
        assert!(!verdict("abcd", &m).is_empty());
        let m = msgs(&[("{{(ab|abcd)}}", false), ("x", false)]);
        assert_eq!(verdict("abcdx", &m), "");
        // a lazy-looking `+?` is `(a+)?`: greedy, all of "aaa"
        assert_eq!(m_span("{{a+?}}", "aaa", 0), Some((0, 3)));
        // greedy-first would take "a" for `a?` and then need "ab"
        assert_eq!(m_span("{{a?(ab)?}}", "ab", 0), Some((0, 2)));
        assert_eq!(m_span("{{(a|ab)(c|bcd)}}", "abcd", 0), Some((0, 4)));
    }

    /// (start, end) of one pattern's search from `from`.
    fn m_span(pattern: &str, text: &str, from: usize) -> Option<(usize, usize)> {
        ExpectMsg::new(pattern, false, false).unwrap().find(text.as_bytes(), from)
    }

    #[test]
    fn backrefs_are_rejected_naming_the_pattern() {
        let e = ExpectMsg::new("lock {{([0-9]) = \\1}}", false, false).unwrap_err();
        assert_eq!(e, "Regexp 'lock {{([0-9]) = \\1}}' has a back-reference '\\1': back-references are not supported (the matcher runs on the regex crate)");
        // outside {{ }} a backslash is escaped: a literal, no back-reference
        assert_eq!(m_span("a\\1{{b}}", "a\\1b", 0), Some((0, 4)));
    }

    #[test]
    fn posix_syntax_details() {
        // bracket expressions: `]` first, `\` literal, classes, ranges
        assert_eq!(m_span("{{[]a]+}}", "x]a]", 0), Some((1, 4)));
        assert_eq!(m_span("{{[a\\]+}}", "x\\a", 0), Some((1, 3)));
        assert_eq!(m_span("{{[[:digit:][:upper:]]+}}", "xA9b", 0), Some((1, 3)));
        assert_eq!(m_span("{{[[.-.]a]+}}", "x-a", 0), Some((1, 3)));
        assert_eq!(m_span("{{[--/]+}}", "x-./", 0), Some((1, 4)));
        // REG_NEWLINE: `[^...]` skips the newline, `\W` does not
        assert_eq!(m_span("{{[^a]}}", "a\nb", 0), Some((2, 3)));
        assert_eq!(m_span("{{\\W}}", "a\nb", 0), Some((1, 2)));
        // escapes of ordinary characters are the characters
        assert_eq!(m_span("{{\\n\\t\\d}}", "ntd", 0), Some((0, 3)));
        // intervals, glibc's `{,n}`, stacked repetition
        assert_eq!(m_span("{{a{,2}b}}", "aaab", 0), Some((1, 4)));
        assert_eq!(m_span("{{(ab){2}a}}", "ababab", 0), Some((0, 5)));
        assert_eq!(m_span("{{a**}}", "aa", 0), Some((0, 2)));
        // `)` with no group and `}` are literal
        assert_eq!(m_span("{{a)}}", "(a)", 0), Some((1, 3)));
        // `^` at the search start, mid-line (no REG_NOTBOL), and GNU anchors
        assert_eq!(m_span("{{^b}}", "ab", 1), Some((1, 2)));
        assert_eq!(m_span("{{\\<b}}", "ab b", 0), Some((3, 4)));
        // bytes, not UTF-8 characters: `.` is one byte in the C locale
        assert_eq!(m_span("{{x.y}}", "x\u{e9}y x.y", 0), Some((5, 8)));
        assert_eq!(m_span("{{x..y}}", "x\u{e9}y", 0), Some((0, 4)));
        for bad in [
            "{{*a}}",
            "{{a|+b}}",
            "{{(?a)}}",
            "{{^*}}",
            "{{a{}b}}",
            "{{a{2,1}b}}",
            "{{a{1}}",
            "{{a{32768}b}}",
            "{{[z-a]}}",
            "{{[a-c-e]}}",
            "{{[[:word:]]}}",
            "{{[[.ab.]]}}",
            "{{[a}}",
            "{{\\}}",
        ] {
            assert!(ExpectMsg::new(bad, false, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_regexes_are_errors() {
        let mut m = ExpectedMsgs::default();
        let e = m.push_msg("a{{b", false).unwrap_err();
        assert_eq!(e, "Regexp has open '{{' but no closing '}}': 'a{{b'");
        let e = m.push_msg("{{(}}", false).unwrap_err();
        assert!(e.starts_with("Regexp compilation error in '('"), "{e}");
        // No 256-byte limit (§9.4 decision).
        let long = format!("{}{{{{x}}}}", "a.".repeat(200));
        m.push_msg(&long, false).unwrap();
    }

    #[test]
    fn text_ends_at_nul() {
        assert!(!verdict("abc\0def", &msgs(&[("def", false)])).is_empty());
        assert!(!verdict("abc\0def", &msgs(&[("{{def}}", false)])).is_empty());
    }

    #[test]
    fn report_marks_the_failing_place() {
        let log = "0: a\n1: b\n2: c\n3: d\n";
        let e = validate_msgs(log, &disasm(&["a", "b", "d"])).unwrap_err();
        let r = e.report(Dump::Xlated, log);
        let expect = "validate_msgs:FAIL: expect_msg (XLATED)\n\
XLATED:\n=============\n  + 0: a\n  + 1: b\n>>> 2: c\n    ^^^ WRONG LINE SUBSTR: 'd': expected on this line\n\
>>> 3: d\n    ^^^ WRONG LINE SUBSTR: 'd': found on this line\n=============\n\
MATCHED    SUBSTR: 'a'\nMATCHED    SUBSTR: 'b'\nWRONG LINE SUBSTR: 'd'\nexpecting match at line 2, actual match is at line 3\n";
        assert_eq!(r, expect);
    }
}
