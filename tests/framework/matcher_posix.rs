//! The matcher's `{{regex}}` engine (the regex crate, `matcher::Regex`)
//! against the C library's POSIX engine that test_loader uses (`regcomp`
//! with `REG_EXTENDED | REG_NEWLINE`, `regexec`), which lives here and only
//! here, as the reference.
//!
//! Three comparisons, each over (pattern, text) pairs: both engines must
//! accept or refuse the pattern alike and, at every search start looked
//! at, report the same match span or none.
//!
//! - `syntax_corner_cases`: hand-picked EREs at the edges of the POSIX
//!   grammar (bracket expressions, escapes, intervals, anchors, stacked
//!   repetition), at every start of small texts.
//! - `random_eres`: generated EREs, well-formed ones over a small alphabet
//!   where leftmost-longest and leftmost-first disagree often, and raw
//!   strings of ERE metacharacters for the accept/refuse question.
//! - `selftest_patterns`: every `{{`-pattern of 7.3's `verifier_*.c` (the
//!   tags the importer reads, blocked programs included) and of the
//!   project's `progs/`, run against the dumps they are checked against:
//!   the verifier log, xlated and jited text the model gives each subtest
//!   on x86_64 and arm64. The starts are those `validate_msgs` searches
//!   from, replayed with the POSIX engine's matches, and every start of a
//!   sweep over all successive matches in the text. It prints the counts.
//!
//! Back-references are the one planned difference (refused by the matcher);
//! none of the patterns compared here has one.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::CString;

use bpf_selftest::backend::Backend;
use bpf_selftest::import::ImportOptions;
use bpf_selftest::matcher::{EreError, ExpectMsg, ExpectedMsgs, Regex, pattern_to_ere};
use bpf_selftest::require::{self, Component};
use bpf_selftest::runner::{self, Plan, RunOptions};
use bpf_selftest::target::Arch;
// the project's suites, registered for `registry::suites()`
use bpf_selftest_suite as _;

/// glibc's engine, as test_loader calls it.
struct Posix {
    raw: Box<libc::regex_t>,
}

impl Posix {
    /// `None` when `regcomp` refuses the ERE.
    fn new(ere: &str) -> Option<Posix> {
        let c = CString::new(ere).ok()?;
        // SAFETY: regex_t is plain data that regcomp fills in.
        let mut raw: Box<libc::regex_t> = Box::new(unsafe { std::mem::zeroed() });
        // SAFETY: `raw` is writable and `c` NUL-terminated.
        let err = unsafe { libc::regcomp(&mut *raw, c.as_ptr(), libc::REG_EXTENDED | libc::REG_NEWLINE) };
        // a refused regex has nothing to free
        (err == 0).then_some(Posix { raw })
    }

    /// `regexec` on `text + from`; `text` is NUL-terminated.
    fn find(&self, text: &CString, from: usize) -> Option<(usize, usize)> {
        let bytes = text.as_bytes();
        if from > bytes.len() {
            return None;
        }
        let mut m = [libc::regmatch_t { rm_so: 0, rm_eo: 0 }];
        // SAFETY: `from` is within the NUL-terminated text; m holds one match.
        let err = unsafe { libc::regexec(&*self.raw, text.as_ptr().add(from), 1, m.as_mut_ptr(), 0) };
        (err == 0 && m[0].rm_so >= 0).then(|| (from + m[0].rm_so as usize, from + m[0].rm_eo as usize))
    }
}

impl Drop for Posix {
    fn drop(&mut self) {
        // SAFETY: compiled by regcomp, freed once.
        unsafe { libc::regfree(&mut *self.raw) };
    }
}

/// An ERE compiled both ways: `Ok(None)` when both refuse it (or the
/// matcher refuses a back-reference, its one planned difference), `Err`
/// when one refuses what the other takes.
fn compile_both(ere: &str) -> Result<Option<(Regex, Posix)>, String> {
    match (Regex::new(ere), Posix::new(ere)) {
        (Ok(o), Some(t)) => Ok(Some((o, t))),
        (Err(_), None) | (Err(EreError::BackReference(_)), Some(_)) => Ok(None),
        (Ok(_), None) => Err(format!("{ere:?}: regcomp refuses it, the matcher takes it")),
        (Err(e), Some(_)) => Err(format!("{ere:?}: regcomp takes it, the matcher refuses it: {e}")),
    }
}

/// A test_loader pattern (`text{{ERE}}text`) compiled both ways, as the
/// matcher compiles it (`ExpectMsg`) and as test_loader does (`regcomp`
/// of the same escaped ERE).
fn compile_pattern(pattern: &str) -> Result<Option<(Regex, Posix)>, String> {
    let ere = pattern_to_ere(pattern).map_err(|e| format!("{pattern:?}: {e}"))?;
    let both = compile_both(&ere).map_err(|e| format!("pattern {pattern:?}: {e}"))?;
    if both.is_some() && ExpectMsg::new(pattern, false, false).is_err() {
        return Err(format!("{pattern:?}: ExpectMsg refuses a pattern whose ERE compiles"));
    }
    Ok(both)
}

#[derive(Default)]
struct Tally {
    searches: usize,
    /// Searches that found a match (by POSIX's answer).
    found: usize,
    disagreements: Vec<String>,
}

impl Tally {
    /// One search from `from` with both engines; POSIX's answer.
    fn compare(&mut self, what: &str, ours: &Regex, theirs: &Posix, text: &str, c: &CString, from: usize) -> Option<(usize, usize)> {
        self.searches += 1;
        let want = theirs.find(c, from);
        let got = ours.find(text.as_bytes(), from);
        self.found += usize::from(want.is_some());
        if got != want && self.disagreements.len() < 50 {
            self.disagreements.push(format!("{what:?} on {text:?} from {from}: POSIX {want:?}, matcher {got:?}"));
        }
        want
    }

    fn check(&self, what: &str) {
        assert!(self.disagreements.is_empty(), "{what}: the matcher and POSIX disagree:\n{}", self.disagreements.join("\n"));
    }

    /// Every start of `text`.
    fn everywhere(&mut self, what: &str, ours: &Regex, theirs: &Posix, text: &str) {
        let c = CString::new(text).expect("no NUL in test texts");
        for from in 0..=text.len() {
            self.compare(what, ours, theirs, text, &c, from);
        }
    }
}

/// EREs at the edges of the POSIX grammar as glibc reads it.
#[rustfmt::skip]
const CORNER_ERES: &[&str] = &[
    // bracket expressions
    "[]a]", "[^]a]", "[a-]", "[-a]", "[a\\]", "[\\n]", "[[:alpha:]]+", "[[:foo:]]", "[[.a.]]", "[[.-.]]", "[[.hyphen.]]", "[[.ab.]]", "[[=a=]]",
    "[z-a]", "[a-c-e]", "[[:alpha:]-z]", "[[.a.]-c]", "[--0]", "[a-a]", "[[]", "[[:]", "[[:alpha]", "[abc", "[]", "[^]", "[[:space:]]",
    "[^[:space:]]", "[[:digit:]x]", "[a-[.c.]]", "[[=a=]-c]", "[%--]", "[!--]", "[[:upper:][:digit:]]", "[[.].]]", "[[.^.]]", "[^^]", "[a-z-]",
    "[ -~]", "[a-c-]", "[--]", "[a--]", "[-]", "[^-a]", "[[:digit:]-]", "[---]", "[!---]", "[-a-c]", "[--a]", "[a-]]", "[[:digit:]-a]",
    "[a-[:digit:]]", "[a-[=c=]]", "[[.-.]-0]", "[---a]", "[+--a]", "[[.a.]b]", "[[::]]", "[[..]]", "[[==]]", "[[:ALPHA:]]", "[[=ab=]]", "[a[.-.]z]",
    "[[:word:]]", "[[:blank:][:cntrl:]]", "[[:punct:]]+", "[[:xdigit:]]+", "[[:graph:]]+", "[[:print:]]+", "[[:lower:]]+", "[[:alnum:]]+", "[^\n]",
    "[\n]", "[^[:alpha:]]+", "[]-a]", "[^]-a]", "[[.[.]]", "[[.[.]-a]", "[[=[=]]", "[a-b-]", "[[.a.]-[.c.]]", "[[:alpha:][.-.]]", "[^]]", "[]]",
    "[a]]", "[\\]]", "[.]", "[*+?{}()|$^]",
    // escapes
    "\\w+", "\\W", "\\s", "\\S+", "\\n", "\\t", "\\d", "\\0", "\\.", "\\{", "\\<b", "b\\>", "\\`a", "a\\'", "\\bx", "\\Bx", "a\\b", "\\y", "\\%",
    "\\\\", "\\(", "\\)", "\\|", "\\*", "\\?", "\\+", "\\[", "\\]", "\\^", "\\$", "\\w{2}", "\\W+", "\\s+", "\\-", "\\}", "\\`", "\\'", "\\<", "\\>",
    "\\b", "\\B", "x\\B", "\\<\\>", "\\>a",
    // repetition and intervals
    "*a", "+a", "?a", "{1}a", "a{", "a{x", "a{1", "a{,2}", "a{2,1}", "a{1}}", "a{32767}", "a{32768}", "a{0}", "a{,}", "a{1,2,3}", "a{ 1}", "a{1 }",
    "({1})", "a|{1}", "a{1}?", "x{0,}", "a*{2}", "a{01}", "a{99999999999}", "a{1,32768}", "(a){0}b", "a{1}{2}", "a{-1}", "a{1,x}", "a{1,2", "a**",
    "a+?", "a{2}*", "a?*", "a*?", "a++", "(a*)*", "(a*)+", "a{0,0}", "(){2}", "a{}", "a{,", "{", "{a", "a|{", "({", "^{1}", "a\\{1}", "(ab){1,2}b",
    "a{2}{3}", "(a|ab){2}", "a{,1}b",
    // anchors
    "^*", "a^*", "$*", "a\\b*", "(*a)", "a|*b", "^+", "(^a)", "(^)*", "a(^)", "\\<*", "\\`*", "\\b{2}", "\\B+", "^", "$", "a$", "^b", "\n^", "x*$",
    "^$", "$^", "a^b", "a$b", "^a|b$", "(^|x)b", "a(\n|$)",
    // groups and alternation
    "a)", "(a", "()", "()*", "a|", "|a", "(|a)", "", "a(b|)c", "(((a)))", "a()b", "ab(", ")", "(a))", "a||b", "(a|b)*", "(ab|a)(bc|c)",
    "(a|ab)(c|bcd)", "x(a|ab)*y", "(a*)(ab)*b", "(a|b)*ab", "(ab|abc|a)c?", "(aa|a)*", "(a*|b)*",
    // dots, newlines, other bytes
    ".", ".*", ".?", ".+b", "a.c", "\n", "a\nb", "[^a]*", "[^a\n]+", "(.|\n)+", "\\W+", "}", "]", "a}", "a]", "#", "&&", "~", "-", "a--b", "\t",
];

/// The texts each corner ERE is searched in, from every start.
#[rustfmt::skip]
const CORNER_TEXTS: &[&str] = &[
    "", "a", "aa", "aaa", "ab", "abc", "abcd", "abab", "ba", "b b", "ab b", "x ax", "a\nb", "\nab\n", "a{1}", "{", "x}", "-", "/", ",", "0", "]", "[",
    "\\", "^", "$", "%", ".", "_a1-", "a\n-", "ntd", "A9b ", "\t \x0b\x0c\r", "a.b+c", "a--b", "#&~", "x(a)y", "xaaby", "zz\n\naa\n", "ab\nab",
    "aabab", "abcbcd",
];

#[test]
fn syntax_corner_cases() {
    let mut tally = Tally::default();
    let mut compile = Vec::new();
    for ere in CORNER_ERES {
        match compile_both(ere) {
            Err(e) => compile.push(e),
            Ok(None) => {}
            Ok(Some((ours, theirs))) => {
                for text in CORNER_TEXTS {
                    tally.everywhere(ere, &ours, &theirs, text);
                }
            }
        }
    }
    assert!(compile.is_empty(), "compile disagreements:\n{}", compile.join("\n"));
    tally.check("corner cases");
    eprintln!("corner cases: {} EREs on {} texts, {} searches agree", CORNER_ERES.len(), CORNER_TEXTS.len(), tally.searches);
    assert!(tally.searches > 10_000, "{} searches", tally.searches);
    // the one planned difference: regcomp takes these, the matcher refuses
    // them, and ExpectMsg's error names the pattern
    for ere in ["(a)\\1", "(a)(b)\\2", "(a|b)*\\1"] {
        assert!(Posix::new(ere).is_some(), "{ere}");
        assert!(matches!(Regex::new(ere), Err(EreError::BackReference(_))), "{ere}");
        let pattern = format!("x{{{{{ere}}}}}");
        let e = ExpectMsg::new(&pattern, false, false).unwrap_err();
        assert!(e.contains("back-reference") && e.contains(&pattern), "{e}");
    }
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// A well-formed ERE of depth at most `depth`, and whether it has an
/// anchor. A group with an anchor in it is never repeated: glibc gets such
/// repetitions wrong (see `glibc_anchors_in_repeated_groups`).
fn gen_ere(r: &mut Rng, depth: u32) -> (String, bool) {
    let branches = 1 + r.below(if depth > 0 { 3 } else { 1 });
    let mut out = Vec::new();
    let mut anchored = false;
    for _ in 0..branches {
        let mut b = String::new();
        for _ in 0..r.below(4) {
            let (atom, anchor) = match r.below(if depth > 0 { 14 } else { 12 }) {
                0..=3 => (r.pick(&["a", "b", "ab", " "]).to_string(), false),
                4 => (".".to_string(), false),
                5 => (r.pick(&["[ab]", "[^a]", "[^ab ]", "[[:alpha:]]", "[a-]"]).to_string(), false),
                6 => (r.pick(&["\\w", "\\W", "\\s", "\\S"]).to_string(), false),
                7 => (r.pick(&["^", "$", "\\b", "\\B", "\\<", "\\>"]).to_string(), true),
                8 => ("\n".to_string(), false),
                9 => (r.pick(&["\\.", "\\a", "\\n"]).to_string(), false),
                10 | 11 => (r.pick(&["a", "b"]).to_string(), false),
                _ => {
                    // a group holding an anchor is left unrepeated, as an
                    // anchor is
                    let (inner, a) = gen_ere(r, depth - 1);
                    (format!("({inner})"), a)
                }
            };
            b.push_str(&atom);
            anchored |= anchor;
            if !anchor {
                for _ in 0..(if r.below(3) == 0 { 1 + r.below(2) } else { 0 }) {
                    b.push_str(r.pick(&["*", "+", "?", "{2}", "{0,1}", "{1,}", "{,2}"]));
                }
            }
        }
        out.push(b);
    }
    (out.join("|"), anchored)
}

/// glibc's regexec mis-evaluates an anchor inside a group it repeats (it
/// copies the group for an interval or `?`, and the copies lose the
/// anchor's condition): `(x^a){0,2}` can only match the empty string, yet
/// glibc matches `xa`. The matcher gives POSIX's answer. No pattern of
/// 7.3's selftests or of progs/ repeats a group with an anchor in it.
#[test]
fn glibc_anchors_in_repeated_groups() {
    for (ere, text, posix, glibc) in
        [("(x^a){0,2}", "xaxa", (0, 0), (0, 2)), ("(.^a){2}{,2}", "baba", (0, 0), (0, 4)), ("(ab\\<b)?{2}a", "abba", (0, 1), (0, 4))]
    {
        let (ours, theirs) = compile_both(ere).unwrap().unwrap();
        let c = CString::new(text).unwrap();
        assert_eq!(ours.find(text.as_bytes(), 0), Some(posix), "{ere}");
        assert_eq!(theirs.find(&c, 0), Some(glibc), "{ere}: glibc changed");
    }
}

#[test]
fn random_eres() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut tally = Tally::default();
    let mut compile = Vec::new();
    let mut compiled = 0;
    for _ in 0..1500 {
        let (ere, _) = gen_ere(&mut r, 2);
        match compile_both(&ere) {
            Err(e) => compile.push(e),
            Ok(None) => {}
            Ok(Some((ours, theirs))) => {
                compiled += 1;
                for _ in 0..4 {
                    let len = r.below(10);
                    let text: String = (0..len).map(|_| r.pick(&["a", "b", " ", "\n", "a", "b"])).collect();
                    tally.everywhere(&ere, &ours, &theirs, &text);
                }
            }
        }
    }
    // raw metacharacter soup: mostly invalid, a test of accept/refuse
    let soup = ["a", "b", "(", ")", "[", "]", "{", "}", "|", "*", "+", "?", "^", "$", ".", "\\", "-", ":", "=", ",", "1", "2", "0"];
    let mut soup_compiled = 0;
    for _ in 0..6000 {
        let ere: String = (0..1 + r.below(8)).map(|_| r.pick(&soup)).collect();
        match compile_both(&ere) {
            Err(e) => compile.push(e),
            Ok(None) => {}
            Ok(Some((ours, theirs))) => {
                soup_compiled += 1;
                for text in ["", "a", "ab(", "[a]{1}", "a\nb", "\\-:=,"] {
                    tally.everywhere(&ere, &ours, &theirs, text);
                }
            }
        }
    }
    compile.truncate(50);
    assert!(compile.is_empty(), "compile disagreements:\n{}", compile.join("\n"));
    tally.check("random EREs");
    eprintln!("random EREs: {compiled} generated and {soup_compiled} soup EREs compiled, {} searches agree", tally.searches);
    assert!(compiled > 1200 && soup_compiled > 1000, "{compiled} / {soup_compiled}");
}

/// A dump's lines as one text, as the runner builds it.
fn lines_text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Which dump a tag's patterns are matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Log,
    Xlated,
    Jited,
}

/// The regex patterns of a program's tags (test_loader's tag texts), with
/// the dump each is checked against.
fn tag_patterns<'a>(tags: impl IntoIterator<Item = &'a str>) -> Vec<(Kind, &'a str)> {
    const KEYS: [(&str, Kind); 8] = [
        ("test_expect_msg=", Kind::Log),
        ("test_expect_not_msg=", Kind::Log),
        ("test_expect_msg_unpriv=", Kind::Log),
        ("test_expect_not_msg_unpriv=", Kind::Log),
        ("test_expect_xlated=", Kind::Xlated),
        ("test_expect_xlated_unpriv=", Kind::Xlated),
        ("test_jited=", Kind::Jited),
        ("test_jited_unpriv=", Kind::Jited),
    ];
    tags.into_iter().filter_map(|t| KEYS.iter().find_map(|(k, kind)| t.strip_prefix(k).map(|p| (*kind, p)))).filter(|(_, p)| p.contains("{{")).collect()
}

#[derive(Default)]
struct Corpus {
    tally: Tally,
    compile: Vec<String>,
    /// Each regex pattern compiled both ways, once.
    engines: HashMap<String, Option<(Regex, Posix)>>,
    /// (pattern, its own subtest's dump) pairs, per pattern.
    own: HashMap<String, usize>,
    /// (pattern, any dump of its suite) pairs.
    cross: usize,
    /// The patterns with at least one of those.
    crossed: BTreeSet<String>,
}

impl Corpus {
    fn engines(&mut self, pattern: &str) -> Option<&(Regex, Posix)> {
        if !self.engines.contains_key(pattern) {
            let both = compile_pattern(pattern).unwrap_or_else(|e| {
                self.compile.push(e);
                None
            });
            self.engines.insert(pattern.to_string(), both);
        }
        self.engines[pattern].as_ref()
    }

    /// Every successive match of `pattern` in `text`, each search from the
    /// end of the match before (one past an empty one).
    fn sweep(tally: &mut Tally, pattern: &str, ours: &Regex, theirs: &Posix, text: &str, c: &CString) {
        let mut from = 0;
        while let Some((s, e)) = tally.compare(pattern, ours, theirs, text, c, from) {
            from = if e > s { e } else { s + 1 };
        }
    }

    /// One list against its subtest's dump: the starts `validate_msgs`
    /// searches from (replayed with POSIX's matches), and a sweep.
    fn own_dump(&mut self, msgs: &ExpectedMsgs, text: &str) {
        let text = &text[..text.find('\0').unwrap_or(text.len())];
        let c = CString::new(text).unwrap();
        for p in msgs.patterns.iter().filter(|p| p.is_regex()) {
            self.engines(&p.pattern);
        }
        let Corpus { tally, engines, own, .. } = self;
        let compiled: Vec<_> = msgs.patterns.iter().map(|p| engines.get(&p.pattern).and_then(Option::as_ref)).collect();
        // a positive from the end of the previous positive match, a
        // negative from the end of the positive match before it
        let mut starts = vec![0; msgs.patterns.len()];
        let mut cursor = 0;
        for (i, p) in msgs.patterns.iter().enumerate() {
            starts[i] = cursor;
            if p.negative {
                continue;
            }
            let m = match compiled[i] {
                Some((ours, theirs)) => tally.compare(&p.pattern, ours, theirs, text, &c, cursor),
                None => p.find(text.as_bytes(), cursor),
            };
            if let Some((_, e)) = m {
                cursor = e;
            }
        }
        for (i, p) in msgs.patterns.iter().enumerate() {
            let Some((ours, theirs)) = compiled[i] else { continue };
            *own.entry(p.pattern.clone()).or_default() += 1;
            if p.negative {
                tally.compare(&p.pattern, ours, theirs, text, &c, starts[i]);
            }
            Corpus::sweep(tally, &p.pattern, ours, theirs, text, &c);
        }
    }

    /// Each pattern of a suite against every dump of the suite of the kind
    /// it is checked on (its own included): the patterns of programs the
    /// importer cannot run get dumps too.
    fn cross(&mut self, patterns: &BTreeSet<String>, dumps: &[String]) {
        for pattern in patterns {
            self.engines(pattern);
        }
        let Corpus { tally, engines, cross, crossed, .. } = self;
        for text in dumps {
            let c = CString::new(text.as_str()).unwrap();
            for pattern in patterns {
                let Some(Some((ours, theirs))) = engines.get(pattern) else { continue };
                *cross += 1;
                crossed.insert(pattern.clone());
                Corpus::sweep(tally, pattern, ours, theirs, text, &c);
            }
        }
    }
}

#[test]
fn selftest_patterns() {
    let Some(tree) = bpf_selftest::import::cpp::source_tree() else {
        require::skip(Component::Source, "no Linux 7.3 source (set BPF_SELFTEST_KERNEL_SRC, or run scripts/setup-vm.sh --source)");
        return;
    };
    if std::process::Command::new("gcc").arg("--version").output().is_err() {
        require::skip(Component::Source, "gcc is not installed (its cpp imports the C sources)");
        return;
    }
    // the files with a `{{` anywhere: the others have no regex pattern
    let progs = tree.progs();
    let has_regex = |name: &str| std::fs::read_to_string(progs.join(format!("{name}.c"))).is_ok_and(|s| s.contains("{{"));
    let model = bpf_selftest::backend::model::ModelBackend;
    let mut corpus = Corpus::default();
    let mut kernel_patterns = BTreeSet::new();
    let mut project_patterns = BTreeSet::new();
    let (mut subtests, mut dumps) = (0, 0);
    // the other selftests of progs/ with a regex pattern: the project does
    // not import them (no subtest of theirs runs here), so their patterns
    // are checked against every x86_64 dump of their kind
    let other_files: Vec<std::path::PathBuf> = std::fs::read_dir(&progs)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "c") && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("verifier_")))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|s| s.contains("{{")))
        .collect();
    let mut others: BTreeMap<Kind, BTreeSet<String>> = BTreeMap::new();
    for (path, res) in bpf_selftest::import::import_files(&other_files, &ImportOptions { arch: Arch::X86_64, tree: Some(tree.clone()) }) {
        let f = res.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for p in &f.programs {
            for (kind, pat) in tag_patterns(p.tags.iter().map(String::as_str)) {
                others.entry(kind).or_default().insert(pat.to_string());
            }
        }
    }
    let other_patterns: BTreeSet<String> = others.values().flatten().cloned().collect();
    for arch in [Arch::X86_64, Arch::Arm64] {
        // (suite, kind) -> the patterns of its tags, all programs included
        let mut patterns: BTreeMap<(String, Kind), BTreeSet<String>> = BTreeMap::new();
        let mut suites = Vec::new();
        let mut kernel_suites = BTreeSet::new();
        for (path, res) in bpf_selftest::import::import_verifier_suites(&tree, arch, &has_regex) {
            let f = res.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            kernel_suites.insert(f.suite.clone());
            for p in &f.programs {
                for (kind, pat) in tag_patterns(p.tags.iter().map(String::as_str)) {
                    kernel_patterns.insert(pat.to_string());
                    patterns.entry((f.suite.clone(), kind)).or_default().insert(pat.to_string());
                }
            }
            suites.push(bpf_selftest::import::suite::to_suite(&f));
        }
        for s in bpf_selftest::registry::suites() {
            for p in &s.programs {
                for (kind, pat) in tag_patterns(p.tags.iter().copied()) {
                    project_patterns.insert(pat.to_string());
                    patterns.entry((s.name.clone(), kind)).or_default().insert(pat.to_string());
                }
            }
            suites.push(s);
        }
        // (suite, kind) -> the dumps its subtests gave
        let mut suite_dumps: BTreeMap<(String, Kind), Vec<String>> = BTreeMap::new();
        let opts = RunOptions { arch, backend: "model".into(), verbosity: 0, filters: Vec::new() };
        for st in runner::plan_suites(&suites, &opts, &model) {
            let Plan::Load(job) = st.plan else { continue };
            let sub = job.spec.subspec(job.unpriv);
            // the kernel's suites whole (their dumps serve the patterns of
            // programs that cannot run), of progs/ what has a regex
            let regex = [&sub.expect_msgs, &sub.expect_xlated, &sub.jited].iter().any(|l| l.patterns.iter().any(|p| p.is_regex()));
            if !regex && !kernel_suites.contains(&st.suite) {
                continue;
            }
            let Ok(out) = model.load(&job.request) else { continue };
            subtests += 1;
            let lists = [
                (Kind::Log, &sub.expect_msgs, out.log),
                (Kind::Xlated, &sub.expect_xlated, lines_text(&out.xlated)),
                (Kind::Jited, &sub.jited, lines_text(&out.jited)),
            ];
            for (kind, list, text) in lists {
                if !text.is_empty() {
                    suite_dumps.entry((st.suite.clone(), kind)).or_default().push(text.clone());
                }
                if list.patterns.iter().any(|p| p.is_regex()) {
                    dumps += 1;
                    corpus.own_dump(list, &text);
                }
            }
        }
        // a suite without a dump of a kind (all its programs with such
        // patterns are blocked) borrows every suite's dumps of that kind
        let mut of_kind: BTreeMap<Kind, Vec<String>> = BTreeMap::new();
        for ((_, kind), texts) in &suite_dumps {
            of_kind.entry(*kind).or_default().extend(texts.iter().cloned());
        }
        for (key, pats) in &patterns {
            let texts = suite_dumps.get(key).or_else(|| of_kind.get(&key.1));
            corpus.cross(pats, texts.map_or(&[][..], Vec::as_slice));
        }
        if arch == Arch::X86_64 {
            for (kind, pats) in &others {
                corpus.cross(pats, of_kind.get(kind).map_or(&[][..], Vec::as_slice));
            }
        }
    }
    // every pattern compiles alike, with or without a dump to match
    for p in kernel_patterns.iter().chain(&other_patterns).chain(&project_patterns) {
        corpus.engines(p);
    }
    let own = |set: &BTreeSet<String>| set.iter().filter_map(|p| corpus.own.get(p)).fold((0, 0), |(n, pairs), k| (n + 1, pairs + k));
    let (kernel_run, kernel_pairs) = own(&kernel_patterns);
    let (project_run, project_pairs) = own(&project_patterns);
    let all = || kernel_patterns.iter().chain(&other_patterns).chain(&project_patterns);
    let dumpless: Vec<&String> = all().filter(|p| !corpus.own.contains_key(*p) && !corpus.crossed.contains(*p)).collect();
    let distinct: BTreeSet<&String> = all().collect();
    eprintln!(
        "selftest patterns, the matcher against POSIX:\n\
         \x20 7.3 verifier_*.c: {} distinct, {kernel_run} checked on their own subtests' dumps ({kernel_pairs} pairs)\n\
         \x20 7.3's other progs/*.c: {} distinct (not imported: checked on the dumps of their kind)\n\
         \x20 progs/: {} distinct, {project_run} checked on their own subtests' dumps ({project_pairs} pairs)\n\
         \x20 {} distinct in all, {} without any dump {dumpless:?}\n\
         \x20 {subtests} subtests loaded by the model (x86_64, arm64), {dumps} dumps checked by their own patterns, \
         {} more (pattern, dump of its suite or kind) pairs\n\
         \x20 {} searches ({} found a match), {} disagreements",
        kernel_patterns.len(),
        other_patterns.len(),
        project_patterns.len(),
        distinct.len(),
        dumpless.len(),
        corpus.cross,
        corpus.tally.searches,
        corpus.tally.found,
        corpus.tally.disagreements.len(),
    );
    assert!(corpus.compile.is_empty(), "compile disagreements:\n{}", corpus.compile.join("\n"));
    corpus.tally.check("selftest patterns");
    // 7.3's verifier_*.c have some 300 distinct regex patterns, its other
    // selftests 40, progs/ some 20: floors against comparing nothing
    assert!(kernel_patterns.len() > 250 && kernel_run > 200, "{} / {kernel_run}", kernel_patterns.len());
    assert!(other_patterns.len() > 30, "{}", other_patterns.len());
    assert!(project_patterns.len() > 15 && project_run > 15, "{} / {project_run}", project_patterns.len());
}
