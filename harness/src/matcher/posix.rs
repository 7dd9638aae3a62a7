//! POSIX extended regular expressions as test_loader's `regcomp` takes them
//! (`REG_EXTENDED | REG_NEWLINE`, glibc, the C locale a test binary runs
//! in), rewritten into the regex crate's syntax and matched with
//! leftmost-longest spans.
//!
//! What the rewrite keeps, and how:
//!
//! * Bytes, not characters: the C locale is single-byte, so `.` is one byte
//!   and a bracket expression a set of bytes. Both regexes are built with
//!   Unicode off, and every bracket expression is written out as the byte
//!   ranges it stands for.
//! * `REG_NEWLINE`: `.` and a `[^...]` list do not match `\n` (the newline
//!   is taken out of the complemented set), `^` and `$` match at line
//!   boundaries (multi-line mode). `\W` and `\S` are glibc's complemented
//!   word and space sets: `\W` matches a newline, `\S` does not.
//! * Bracket expressions: `]` first is literal, `\` is literal, `-` is
//!   literal first or last, `[:class:]` (the twelve C-locale classes),
//!   `[=c=]` and `[.c.]` (one byte each in the C locale), ranges in byte
//!   order; a reversed range, a class or equivalence class as a range end,
//!   or a `-` that would start a second range are errors, as in glibc.
//! * Escapes: `\1`..`\9` are back-references, which the regex crate cannot
//!   match: an error ([`EreError::BackReference`]). glibc's GNU operators
//!   `\w \W \s \S \b \B \< \> \` \'` keep their meaning; any other escaped
//!   byte is itself (`\n` is the letter `n`, `\.` a dot). A trailing `\` is
//!   an error.
//! * Repetition: `*`, `+`, `?` and intervals `{m}`, `{m,}`, `{m,n}`, `{,n}`
//!   (glibc's `{0,n}`), `{,}`; counts up to 32767 (`RE_DUP_MAX`). Stacked
//!   operators (`a**`, `a+?`, `a{2}*`) repeat the repetition: a later one is
//!   applied to a group around the earlier, so `?` never turns into the
//!   regex crate's non-greedy marker. A `{` that does not start a well-formed
//!   interval is an error (ERE has no literal `{` but `\{`); a repetition
//!   operator with nothing before it (at the start, after `(` or `|`) or
//!   after an anchor is an error. `}` and `]` alone are literal.
//! * Groups: `(` must be closed; a `)` with no open group is literal. Groups
//!   become non-capturing (nothing reads sub-matches). Empty branches and
//!   groups match the empty string.
//!
//! Match spans: POSIX reports the leftmost match and, of the matches that
//! start there, the longest; the regex crate reports the leftmost match
//! and, of those, the one its leftmost-first preference picks (the first
//! alternative that matches, greedy before lazy), which can be shorter
//! (`ab|abcd` on `abcd`). The start is the same in both: the leftmost
//! position where some match begins. [`Regex::find`] takes it from the
//! regex crate, then runs a lazy DFA built with
//! [`regex_automata::MatchKind::All`] (regex-automata is the regex crate's
//! own engine) anchored at that start: it reads on until no match can grow,
//! so it reports the longest end. The span is therefore POSIX's, which
//! matters because the matcher resumes its search where the previous match
//! ended.
//!
//! Where the two engines still part:
//!
//! * Back-references, refused (above).
//! * glibc's `regexec` gets an anchor (`^ $ \< \> \b \B`) inside a repeated
//!   group wrong: `(x^a){0,2}` can only match the empty string, yet glibc
//!   matches `xa` in `xaxa`. This module answers as POSIX defines it.
//! * A pattern whose compiled form passes the regex crate's size limit
//!   (256 MiB here, against glibc's memory) is refused; no test pattern
//!   comes near it.
//!
//! `tests/framework/matcher_posix.rs` compares this module with glibc's `regcomp` and
//! `regexec` on every regex pattern of 7.3's selftests and of progs/, on
//! the dumps they are matched against, and on corner cases and generated
//! EREs.

use std::sync::{Mutex, PoisonError};

use regex_automata::{Anchored, Input, MatchKind, hybrid};

/// glibc's `RE_DUP_MAX`: the largest count an interval may name.
const DUP_MAX: u32 = 0x7fff;

/// How much compiled program either regex may grow to: far above what a
/// test's pattern needs, so that only a runaway repetition is refused.
const SIZE_LIMIT: usize = 256 << 20;

/// Why an ERE was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EreError {
    /// A back-reference `\N` (`N` is 1-9): valid POSIX, but the regex crate
    /// cannot match it.
    BackReference(u8),
    /// Not a valid ERE (glibc's `regcomp` refuses it too), or one the regex
    /// crate would not build: what is wrong.
    Invalid(String),
}

impl std::fmt::Display for EreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EreError::BackReference(n) => write!(f, "back-reference '\\{n}' is not supported"),
            EreError::Invalid(why) => f.write_str(why),
        }
    }
}

/// A compiled ERE.
pub struct Regex {
    /// Leftmost-first: finds where the leftmost match starts.
    first: regex::bytes::Regex,
    /// A lazy DFA of all matches, run anchored at a match's start: how far
    /// a match from there can reach.
    all: hybrid::dfa::DFA,
    cache: Mutex<hybrid::dfa::Cache>,
}

impl Regex {
    /// Compiles `ere` with `REG_EXTENDED | REG_NEWLINE` semantics.
    pub fn new(ere: &str) -> Result<Regex, EreError> {
        let translated = translate(ere)?;
        let refused = |e: &dyn std::fmt::Display| EreError::Invalid(format!("the regex crate refused '{translated}': {e}"));
        let first = regex::bytes::RegexBuilder::new(&translated).unicode(false).multi_line(true).size_limit(SIZE_LIMIT).build().map_err(|e| refused(&e))?;
        let all = hybrid::dfa::DFA::builder()
            .syntax(regex_automata::util::syntax::Config::new().unicode(false).utf8(false).multi_line(true))
            .thompson(regex_automata::nfa::thompson::Config::new().utf8(false).nfa_size_limit(Some(SIZE_LIMIT)))
            // with the capacity check off a large NFA still builds, and the
            // cache is cleared and refilled as often as the search needs
            .configure(hybrid::dfa::DFA::config().match_kind(MatchKind::All).skip_cache_capacity_check(true))
            .build(&translated)
            .map_err(|e| refused(&e))?;
        let cache = Mutex::new(all.create_cache());
        Ok(Regex { first, all, cache })
    }

    /// The leftmost-longest match in `text[from..]`, as absolute (start,
    /// end). The search sees `text[from..]` as a whole string, as `regexec`
    /// on a pointer into the text does: `^` matches at `from` even mid-line
    /// (no `REG_NOTBOL`), and nothing before `from` is context.
    pub fn find(&self, text: &[u8], from: usize) -> Option<(usize, usize)> {
        let hay = text.get(from..)?;
        let m = self.first.find(hay)?;
        let input = Input::new(hay).range(m.start()..).anchored(Anchored::Yes);
        let longest = {
            // a panic elsewhere while holding the lock leaves a cache that
            // is only ever reset or refilled: still good to use
            let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            self.all.try_search_fwd(&mut cache, &input)
        };
        // The DFA has no quit bytes (Unicode is off, so no Unicode word
        // boundary) and no give-up threshold, so the search cannot fail; and
        // as a match starts at m.start() it finds one. Were either not so,
        // the leftmost-first end is still the end of a real match.
        debug_assert!(matches!(longest, Ok(Some(_))), "{longest:?}");
        let end = match longest {
            Ok(Some(l)) => l.offset().max(m.end()),
            _ => m.end(),
        };
        Some((from + m.start(), from + end))
    }
}

/// One element of a bracket expression.
enum Elem {
    /// A byte, plain or as a collating symbol `[.c.]`: may bound a range.
    Byte(u8),
    /// An equivalence class `[=c=]`: one byte, but not a range bound.
    Equiv(u8),
    /// A character class `[:name:]`.
    Class(&'static str),
}

/// The C locale's classes: whether `b` is in `name`, `None` for an unknown
/// name.
fn in_class(name: &str, b: u8) -> Option<bool> {
    Some(match name {
        "alpha" => b.is_ascii_alphabetic(),
        "upper" => b.is_ascii_uppercase(),
        "lower" => b.is_ascii_lowercase(),
        "digit" => b.is_ascii_digit(),
        "xdigit" => b.is_ascii_hexdigit(),
        "alnum" => b.is_ascii_alphanumeric(),
        // \t \n \v \f \r and the space (Rust's is_ascii_whitespace lacks \v)
        "space" => matches!(b, b'\t'..=b'\r' | b' '),
        "blank" => matches!(b, b'\t' | b' '),
        "punct" => b.is_ascii_punctuation(),
        "graph" => b.is_ascii_graphic(),
        "print" => b.is_ascii_graphic() || b == b' ',
        "cntrl" => b.is_ascii_control(),
        _ => return None,
    })
}

const CLASSES: [&str; 12] = ["alpha", "upper", "lower", "digit", "xdigit", "alnum", "space", "blank", "punct", "graph", "print", "cntrl"];

/// A set of bytes.
#[derive(Clone)]
struct ByteSet([bool; 256]);

impl ByteSet {
    fn empty() -> ByteSet {
        ByteSet([false; 256])
    }

    fn of(f: impl Fn(u8) -> bool) -> ByteSet {
        let mut s = ByteSet::empty();
        for b in 0..=255u8 {
            s.0[b as usize] = f(b);
        }
        s
    }

    fn complement(&self) -> ByteSet {
        ByteSet::of(|b| !self.0[b as usize])
    }

    /// The set as a regex-crate class of byte ranges (`\xHH` escapes, read
    /// as bytes with Unicode off).
    fn to_class(&self) -> String {
        let mut out = String::from("[");
        let mut b = 0usize;
        let mut any = false;
        while b < 256 {
            if !self.0[b] {
                b += 1;
                continue;
            }
            let lo = b;
            while b + 1 < 256 && self.0[b + 1] {
                b += 1;
            }
            any = true;
            if lo == b {
                out.push_str(&format!("\\x{lo:02X}"));
            } else {
                out.push_str(&format!("\\x{lo:02X}-\\x{b:02X}"));
            }
            b += 1;
        }
        if !any {
            // nothing can match: an intersection of two disjoint bytes
            return "[\\x00&&\\x01]".to_string();
        }
        out.push(']');
        out
    }
}

/// The word bytes of glibc's `\w` in the C locale: `[_[:alnum:]]`.
fn word_set() -> ByteSet {
    ByteSet::of(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn space_set() -> ByteSet {
    ByteSet::of(|b| matches!(b, b'\t'..=b'\r' | b' '))
}

/// One byte as a regex-crate literal.
fn literal(b: u8) -> String {
    match b {
        b'0'..=b'9' | b'A'..=b'Z' | b'a'..=b'z' | b' ' | b'_' | b'<' | b'>' | b'"' | b'\'' | b'/' | b',' | b';' | b':' | b'=' | b'%' | b'@' | b'!' | b'`' => {
            (b as char).to_string()
        }
        b if b.is_ascii_punctuation() => format!("\\{}", b as char),
        b => format!("\\x{b:02X}"),
    }
}

/// Rewrites a POSIX ERE into the regex crate's syntax, to be compiled with
/// Unicode off and multi-line on (see the module docs).
pub fn translate(ere: &str) -> Result<String, EreError> {
    if ere.contains('\0') {
        return Err(EreError::Invalid("regex contains a NUL byte".to_string()));
    }
    let mut p = Parser { s: ere.as_bytes(), i: 0, depth: 0 };
    let out = p.alternation()?;
    // alternation() stops only at the end or at a ')' closing a group
    debug_assert_eq!(p.i, p.s.len());
    Ok(out)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    /// Open groups around the current position.
    depth: usize,
}

fn invalid(why: &str) -> EreError {
    EreError::Invalid(why.to_string())
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    /// Branches separated by `|`, up to the end or a `)` that closes an open
    /// group (not consumed).
    fn alternation(&mut self) -> Result<String, EreError> {
        let mut out = self.branch()?;
        while self.peek() == Some(b'|') {
            self.i += 1;
            out.push('|');
            out.push_str(&self.branch()?);
        }
        Ok(out)
    }

    /// Pieces up to `|`, the end, or a `)` closing an open group.
    fn branch(&mut self) -> Result<String, EreError> {
        let mut out = String::new();
        loop {
            match self.peek() {
                None | Some(b'|') => return Ok(out),
                Some(b')') if self.depth > 0 => return Ok(out),
                Some(b'*' | b'+' | b'?' | b'{') => return Err(invalid("repetition operator with nothing to repeat")),
                Some(_) => out.push_str(&self.piece()?),
            }
        }
    }

    /// An atom and the repetition operators after it.
    fn piece(&mut self) -> Result<String, EreError> {
        let (mut out, repeatable) = self.atom()?;
        let mut repeated = false;
        while let Some(op @ (b'*' | b'+' | b'?' | b'{')) = self.peek() {
            if !repeatable {
                return Err(invalid("repetition operator after an anchor"));
            }
            self.i += 1;
            let suffix = match op {
                b'{' => self.interval()?,
                op => (op as char).to_string(),
            };
            if repeated {
                out = format!("(?:{out})");
            }
            out.push_str(&suffix);
            repeated = true;
        }
        Ok(out)
    }

    /// The rest of an interval after its `{`, as a regex-crate repetition.
    fn interval(&mut self) -> Result<String, EreError> {
        let min = self.number()?;
        let max = if self.peek() == Some(b',') {
            self.i += 1;
            Some(self.number()?)
        } else {
            None
        };
        match self.bump() {
            Some(b'}') => {}
            None => return Err(invalid("interval '{' is not closed")),
            Some(_) => return Err(invalid("invalid interval")),
        }
        Ok(match (min, max) {
            (None, None) => return Err(invalid("empty interval '{}'")),
            (Some(m), None) => format!("{{{m}}}"),
            (min, Some(None)) => format!("{{{},}}", min.unwrap_or(0)),
            (min, Some(Some(n))) => {
                let m = min.unwrap_or(0);
                if m > n {
                    return Err(invalid("interval minimum is above its maximum"));
                }
                format!("{{{m},{n}}}")
            }
        })
    }

    /// A decimal count, if digits come next.
    fn number(&mut self) -> Result<Option<u32>, EreError> {
        let start = self.i;
        let mut n: u32 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            self.i += 1;
            n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
        }
        if self.i == start {
            return Ok(None);
        }
        if n > DUP_MAX {
            return Err(invalid("repetition count above 32767"));
        }
        Ok(Some(n))
    }

    /// One atom: (its regex-crate text, whether a repetition may follow).
    fn atom(&mut self) -> Result<(String, bool), EreError> {
        let b = self.bump().expect("atom() is called before a byte");
        Ok(match b {
            b'(' => {
                self.depth += 1;
                let inner = self.alternation()?;
                if self.bump() != Some(b')') {
                    return Err(invalid("'(' is not closed"));
                }
                self.depth -= 1;
                (format!("(?:{inner})"), true)
            }
            b'.' => (".".to_string(), true),
            b'^' => ("^".to_string(), false),
            b'$' => ("$".to_string(), false),
            b'[' => (self.bracket()?, true),
            b'\\' => match self.bump() {
                None => return Err(invalid("trailing backslash")),
                Some(n @ b'1'..=b'9') => return Err(EreError::BackReference(n - b'0')),
                Some(b'w') => (word_set().to_class(), true),
                Some(b'W') => (word_set().complement().to_class(), true),
                Some(b's') => (space_set().to_class(), true),
                Some(b'S') => (space_set().complement().to_class(), true),
                Some(b'b') => ("\\b".to_string(), false),
                Some(b'B') => ("\\B".to_string(), false),
                Some(b'<') => ("\\b{start}".to_string(), false),
                Some(b'>') => ("\\b{end}".to_string(), false),
                Some(b'`') => ("\\A".to_string(), false),
                Some(b'\'') => ("\\z".to_string(), false),
                Some(c) => (literal(c), true),
            },
            // everything else, `)` with no open group, `]` and `}` included,
            // is itself
            c => (literal(c), true),
        })
    }

    /// The rest of a bracket expression after its `[`, as a byte class.
    fn bracket(&mut self) -> Result<String, EreError> {
        let unclosed = || invalid("'[' is not closed");
        let negated = self.peek() == Some(b'^');
        if negated {
            self.i += 1;
        }
        let mut set = ByteSet::empty();
        let mut first = true;
        loop {
            match self.peek() {
                None => return Err(unclosed()),
                Some(b']') if !first => {
                    self.i += 1;
                    break;
                }
                Some(_) => {}
            }
            let start = self.bracket_elem(first)?;
            first = false;
            // `-` makes a range unless `]` follows it
            let range = self.peek() == Some(b'-') && self.peek_at(1).is_some_and(|b| b != b']');
            if !range {
                match start {
                    Elem::Byte(b) | Elem::Equiv(b) => set.0[b as usize] = true,
                    Elem::Class(name) => {
                        for b in 0..=255u8 {
                            if in_class(name, b) == Some(true) {
                                set.0[b as usize] = true;
                            }
                        }
                    }
                }
                continue;
            }
            self.i += 1;
            let end = self.bracket_elem(true)?;
            match (start, end) {
                (Elem::Byte(lo), Elem::Byte(hi)) if lo <= hi => {
                    for b in lo..=hi {
                        set.0[b as usize] = true;
                    }
                }
                (Elem::Byte(_), Elem::Byte(_)) => return Err(invalid("range end before range start")),
                _ => return Err(invalid("a class or equivalence class cannot bound a range")),
            }
        }
        if negated {
            set = set.complement();
            // REG_NEWLINE: a complemented list never matches a newline
            set.0[b'\n' as usize] = false;
        }
        Ok(set.to_class())
    }

    /// One element of a bracket expression. `hyphen_ok`: a `-` here is a
    /// byte even with more than `]` after it (the first element, or a
    /// range's end).
    fn bracket_elem(&mut self, hyphen_ok: bool) -> Result<Elem, EreError> {
        let unclosed = || invalid("'[' is not closed");
        let b = self.bump().ok_or_else(unclosed)?;
        if b == b'['
            && let Some(delim @ (b'.' | b'=' | b':')) = self.peek()
        {
            self.i += 1;
            let name_start = self.i;
            loop {
                match self.peek() {
                    None => return Err(unclosed()),
                    Some(c) if c == delim && self.peek_at(1) == Some(b']') => break,
                    Some(_) => self.i += 1,
                }
            }
            let name = &self.s[name_start..self.i];
            self.i += 2;
            return match delim {
                b':' => {
                    let name = std::str::from_utf8(name).unwrap_or("");
                    CLASSES.iter().find(|c| **c == name).map(|c| Elem::Class(c)).ok_or_else(|| invalid("unknown character class"))
                }
                _ if name.len() != 1 => Err(invalid("a collating element is one byte in the C locale")),
                b'.' => Ok(Elem::Byte(name[0])),
                _ => Ok(Elem::Equiv(name[0])),
            };
        }
        if b == b'-' && !hyphen_ok && self.peek() != Some(b']') {
            return Err(invalid("'-' can only end a bracket expression here"));
        }
        Ok(Elem::Byte(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_regex(re: &str) -> regex::bytes::Regex {
        regex::bytes::RegexBuilder::new(re).unicode(false).multi_line(true).build().unwrap()
    }

    #[test]
    fn every_byte_is_its_own_literal() {
        for b in 1..=255u8 {
            let re = bytes_regex(&format!("^{}$", literal(b)));
            for other in 0..=255u8 {
                assert_eq!(re.is_match(&[other]), other == b, "literal {b:#04x} against {other:#04x}: {}", literal(b));
            }
        }
    }

    #[test]
    fn byte_sets_become_exact_classes() {
        let empty = bytes_regex(&ByteSet::empty().to_class());
        assert!((0..=255u8).all(|b| !empty.is_match(&[b])));
        let some = ByteSet::of(|b| b == 0 || b == b']' || b == b'^' || b == b'-' || b >= 0xfe);
        let re = bytes_regex(&some.to_class());
        for b in 0..=255u8 {
            assert_eq!(re.is_match(&[b]), some.0[b as usize], "{b:#04x}");
        }
    }

    #[test]
    fn translations() {
        assert_eq!(translate("a+?").unwrap(), "(?:a+)?");
        assert_eq!(translate("a{,2}{3}").unwrap(), "(?:a{0,2}){3}");
        assert_eq!(translate("(ab|)c").unwrap(), "(?:ab|)c");
        assert_eq!(translate("a)").unwrap(), "a\\)");
        assert_eq!(translate("\\.\\n").unwrap(), "\\.n");
        // the complement loses the newline
        assert_eq!(translate("[^a]").unwrap(), "[\\x00-\\x09\\x0B-\\x60\\x62-\\xFF]");
        assert_eq!(translate("[]a-c]").unwrap(), "[\\x5D\\x61-\\x63]");
        assert_eq!(translate("\\<x\\>").unwrap(), "\\b{start}x\\b{end}");
    }

    #[test]
    fn refusals() {
        assert_eq!(translate("(a)\\2").unwrap_err(), EreError::BackReference(2));
        for bad in [
            "*",
            "a|?",
            "(+)",
            "^*",
            "\\b{2}",
            "a{",
            "a{1,2",
            "a{x}",
            "a{3,2}",
            "a{40000}",
            "(a",
            "[a",
            "[b-a]",
            "[a-c-e]",
            "[[:nope:]]",
            "[[.ab.]]",
            "[[=a=]-z]",
            "\\",
        ] {
            assert!(matches!(translate(bad), Err(EreError::Invalid(_))), "{bad}");
        }
    }
}
