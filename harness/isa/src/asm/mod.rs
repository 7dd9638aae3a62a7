//! An assembler for the LLVM BPF syntax kernel selftests write in naked asm
//! (`r1 = *(u32 *)(r10 - 4)`, `if w2 s> w3 goto l0_%=`, `call %[helper]`).
//!
//! Encodings follow `llvm-mc -triple bpfel -mcpu=v4`; forms LLVM 19 lacks
//! (`load_acquire`, `store_release`, `gotox`) are encoded as the kernel defines
//! them. What cannot be resolved inside the text (kfunc and subprogram calls,
//! map and global symbols in `ld_imm64`) is kept as a [`Reloc`].
//!
//! The text is read once, front to back, a statement at a time (`.rept`
//! goes back over its body), so what the assembler holds is the program it
//! makes, never the text as tokens; the first error in the text is the one
//! reported. Nothing recurses with the input: expressions are evaluated
//! with an explicit stack and `.rept` blocks with a list of open ones, so
//! the assembler needs the same small stack whatever it reads (it runs on
//! 2 MiB test threads and inside rustc for the proc macros). Its limits,
//! each an error with a line and column: expressions nest at most
//! [`MAX_NESTING`] deep, and so do `.rept` blocks; a program has at most
//! [`MAX_PROG_INSNS`] slots, the most `BPF_PROG_LOAD` takes; `.rept`
//! repeats at most [`MAX_REPT`] times each and [`MAX_REPT_TOTAL`] times in
//! all.

mod lexer;

use std::borrow::Cow;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

use crate::helper_ids::helper_id;
use crate::insn::{Insn, op::*};
use lexer::{Lexer, Tok, Token};

/// What a `%[name]` operand stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A number: a helper id, a constant, or a whole raw insn for `.8byte`.
    Imm(i64),
    /// A symbol: kfunc, subprogram, map or global.
    Sym(String),
}

/// A reference the assembler leaves to the linker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Index of the insn slot it patches.
    pub insn: usize,
    pub kind: RelocKind,
    pub symbol: String,
    /// Byte offset in the source, for error messages.
    pub pos: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocKind {
    /// `call NAME` where NAME is neither a helper nor a label of this text:
    /// a kfunc or a subprogram defined elsewhere.
    Call,
    /// `rX = NAME ll` where NAME is not a label of this text: a map, a
    /// global, a BTF id or a function defined elsewhere.
    LdImm64,
}

/// An assembled program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub insns: Vec<Insn>,
    pub relocs: Vec<Reloc>,
    /// Named labels and the insn slot they stand before.
    pub labels: BTreeMap<String, usize>,
}

/// The most insn slots a program may have: the kernel's
/// `BPF_COMPLEXITY_LIMIT_INSNS`, past which `BPF_PROG_LOAD` fails with
/// E2BIG even for a privileged loader (an unprivileged one may load
/// `BPF_MAXINSNS`, 4096).
pub const MAX_PROG_INSNS: usize = 1_000_000;

/// How deep parentheses and unary operators may nest in an expression, and
/// `.rept` blocks in each other (kernel selftests nest a few levels).
pub const MAX_NESTING: usize = 256;

/// The largest `.rept` count.
pub const MAX_REPT: i128 = 1 << 20;

/// How many times `.rept` bodies may be gone through in all, nested ones
/// included (bodies that make no insns are not bounded by the insn limit).
pub const MAX_REPT_TOTAL: u64 = 1 << 24;

/// What kind of error an [`AsmError`] is, for callers that answer some
/// differently (the CLI answers a program over [`MAX_PROG_INSNS`] as the
/// kernel would, with E2BIG).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AsmErrorKind {
    /// The text is not a program.
    #[default]
    Syntax,
    /// More than [`MAX_PROG_INSNS`] slots.
    TooManyInsns,
    /// Nested more than [`MAX_NESTING`] deep.
    TooDeep,
    /// A byte outside comments that is not UTF-8.
    Encoding,
}

/// An assembly error at a place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line and column (in characters; a byte that is not UTF-8
    /// counts as one).
    pub line: usize,
    pub col: usize,
    /// Byte offset and length of the offending text.
    pub pos: usize,
    pub len: usize,
    pub msg: String,
    pub kind: AsmErrorKind,
}

impl AsmError {
    pub(crate) fn at(src: &[u8], pos: usize, len: usize, msg: String) -> AsmError {
        let pos = pos.min(src.len());
        let before = &src[..pos];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |k| k + 1);
        let col = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
        AsmError { line, col, pos, len, msg, kind: AsmErrorKind::Syntax }
    }

    fn with_kind(mut self, kind: AsmErrorKind) -> AsmError {
        self.kind = kind;
        self
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for AsmError {}

/// How much of a piece of the text an error message quotes.
const QUOTE_CHARS: usize = 40;

/// `s` as an error message quotes it: the first 40 characters and an
/// ellipsis when there are more (a bad token may be a megabyte long).
pub fn clip(s: &str) -> Cow<'_, str> {
    match s.char_indices().nth(QUOTE_CHARS) {
        None => Cow::Borrowed(s),
        Some((end, _)) => Cow::Owned(format!("{}…", &s[..end])),
    }
}

/// Assembles `src`, with no `%[...]` operands.
pub fn assemble(src: &str) -> Result<Program, AsmError> {
    assemble_with(src, &|_| None)
}

/// Assembles `src`; `operands` resolves each `%[name]`.
pub fn assemble_with(src: &str, operands: &dyn Fn(&str) -> Option<Operand>) -> Result<Program, AsmError> {
    assemble_bytes_with(src.as_bytes(), operands)
}

/// Assembles text that need not be UTF-8 inside comments (llvm-mc takes any
/// bytes there); elsewhere a byte that is not UTF-8 is an error naming its
/// line and column.
pub fn assemble_bytes(src: &[u8]) -> Result<Program, AsmError> {
    assemble_bytes_with(src, &|_| None)
}

/// [`assemble_bytes`] with `%[name]` operands.
pub fn assemble_bytes_with(src: &[u8], operands: &dyn Fn(&str) -> Option<Operand>) -> Result<Program, AsmError> {
    assemble_limited(src, operands, MAX_PROG_INSNS)
}

/// The assembler with another insn limit (tests reach it with less work).
fn assemble_limited(src: &[u8], operands: &dyn Fn(&str) -> Option<Operand>, max_insns: usize) -> Result<Program, AsmError> {
    let mut p = Parser {
        max_insns,
        src,
        lex: Lexer::new(src, operands),
        ahead: VecDeque::with_capacity(2),
        last: (0, 0),
        out: Vec::new(),
        labels: BTreeMap::new(),
        numeric_last: HashMap::new(),
        numeric_fwd: HashMap::new(),
        fixups: Vec::new(),
        data: Vec::new(),
        repts: Vec::new(),
        stacks: (Vec::new(), Vec::new()),
        rept_total: 0,
    };
    p.fill();
    p.parse_all()?;
    p.finish()
}

/// A jump or call target still to be resolved.
enum Target<'a> {
    Rel(i64),
    Label(Cow<'a, str>),
    /// `Nb` (true) or `Nf`: the nearest numeric label `N:` before or after.
    Local(u64, bool),
}

/// An `Nf` reference before its label.
struct Pending {
    insn: usize,
    pos: usize,
    len: usize,
    field: Field,
}

/// A reference resolved at the end: a name not yet defined where it is used
/// (or a symbol for the linker), or an `Nb` without a label before it.
struct Fixup<'a> {
    insn: usize,
    target: Target<'a>,
    pos: usize,
    len: usize,
    field: Field,
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    /// Jump offset in `off` (16 bits).
    Off,
    /// `gotol`: offset in `imm`.
    Imm,
    /// `call label`: pseudo call, offset in `imm`, or a reloc when unknown.
    Call,
    /// `call name` of a helper's name: the helper with this id, unless the
    /// text defines a label of that name (then a pseudo call to it).
    Helper(i32),
    /// `rX = label ll`: BPF_PSEUDO_FUNC, or a reloc when unknown.
    LdImm64,
}

/// An operator of an expression still waiting for its operands.
#[derive(Clone, Copy)]
enum ExprOp {
    Prefix(&'static str),
    Paren,
    /// The operator, its precedence and where it stands.
    Binary(&'static str, u8, (usize, usize)),
}

/// A `.rept` whose body is being gone through.
struct Rept {
    /// Where `.rept` stands, for errors.
    pos: usize,
    /// Byte offset of the body's first token.
    body: usize,
    /// How many more times the body is gone through after this time.
    left: u64,
    /// The count of the `.rept`.
    count: u64,
    /// How many more times the body around this `.rept` starts (each
    /// starts this `.rept` again), and the same summed over all the bodies
    /// around it: fixed while this one is being gone through.
    outer_future: u64,
    outer_sum: u64,
}

struct Parser<'a> {
    /// [`MAX_PROG_INSNS`], or less in tests.
    max_insns: usize,
    src: &'a [u8],
    lex: Lexer<'a>,
    /// The next tokens: two, fewer only at the end of the text.
    ahead: VecDeque<Token<'a>>,
    /// Byte offset and length of the last token taken.
    last: (usize, usize),
    out: Vec<Insn>,
    labels: BTreeMap<String, usize>,
    /// Each numeric label's latest slot so far.
    numeric_last: HashMap<u64, usize>,
    /// The `Nf` references waiting for label `N`.
    numeric_fwd: HashMap<u64, Vec<Pending>>,
    fixups: Vec<Fixup<'a>>,
    /// Bytes of data directives not yet making a whole slot.
    data: Vec<u8>,
    /// The `.rept` bodies being gone through, innermost last.
    repts: Vec<Rept>,
    /// The operand and operator stacks of [`Self::expr`].
    stacks: (Vec<i64>, Vec<ExprOp>),
    /// How many times `.rept` bodies have been started.
    rept_total: u64,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Stmt {
    Label,
    Insn,
    /// `.endr`: the end of the innermost `.rept` body.
    Endr,
}

#[derive(Clone, Copy, PartialEq, Debug)]
struct Reg {
    n: u8,
    /// `wN`: the 32-bit subregister.
    w: bool,
}

type R<T> = Result<T, AsmError>;

const SIZES: &[(&str, u8)] = &[("u8", BPF_B), ("u16", BPF_H), ("u32", BPF_W), ("u64", BPF_DW)];
const SSIZES: &[(&str, u8)] = &[("s8", BPF_B), ("s16", BPF_H), ("s32", BPF_W)];

impl<'a> Parser<'a> {
    /// Lexes until two tokens are ahead or the text ends.
    fn fill(&mut self) {
        while self.ahead.len() < 2 {
            match self.lex.next_token() {
                Some(t) => self.ahead.push_back(t),
                None => break,
            }
        }
    }
    /// Takes the next token.
    fn bump(&mut self) {
        if let Some(t) = self.ahead.pop_front() {
            self.last = (t.pos, t.len);
        }
        self.fill();
    }
    /// Goes on from byte `pos`, a token's start.
    fn seek(&mut self, pos: usize) {
        self.ahead.clear();
        self.lex.seek(pos);
        self.fill();
    }
    fn peek(&self) -> Option<&Tok<'a>> {
        self.ahead.front().map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok<'a>> {
        self.ahead.get(k).map(|t| &t.tok)
    }
    fn here(&self) -> (usize, usize) {
        match self.ahead.front() {
            Some(t) => (t.pos, t.len),
            None => (self.src.len(), 0),
        }
    }
    /// The error at the next token; if that token is text that does not
    /// lex, its own error.
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        if let Some(Tok::Bad(e)) = self.peek() {
            return Err((**e).clone());
        }
        let (pos, len) = self.here();
        Err(AsmError::at(self.src, pos, len, msg.into()))
    }
    fn err_at<T>(&self, pos: usize, len: usize, msg: impl Into<String>) -> R<T> {
        Err(AsmError::at(self.src, pos, len, msg.into()))
    }
    fn describe(&self) -> String {
        match self.ahead.front() {
            None => "end of input".into(),
            Some(t) if t.tok == Tok::Sep => "end of statement".into(),
            Some(t) => {
                let text = self.src.get(t.pos..t.pos + t.len).unwrap_or_default();
                format!("'{}'", clip(&String::from_utf8_lossy(text)))
            }
        }
    }
    fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }
    fn at_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == s)
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.at_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, p: &str) -> R<()> {
        if self.eat_punct(p) { Ok(()) } else { self.err(format!("expected '{p}', found {}", self.describe())) }
    }
    fn expect_ident(&mut self, s: &str) -> R<()> {
        if self.at_ident(s) {
            self.bump();
            Ok(())
        } else {
            self.err(format!("expected '{s}', found {}", self.describe()))
        }
    }
    fn at_end(&self) -> bool {
        matches!(self.peek(), None | Some(Tok::Sep))
    }

    fn parse_all(&mut self) -> R<()> {
        loop {
            while self.peek() == Some(&Tok::Sep) {
                self.bump();
            }
            if self.peek().is_none() {
                if let Some(r) = self.repts.last() {
                    return self.err_at(r.pos, 5, ".rept without .endr");
                }
                break;
            }
            let (pos, len) = self.here();
            match self.statement()? {
                Stmt::Label => continue,
                Stmt::Insn => {}
                Stmt::Endr => {
                    if !self.at_end() {
                        return self.err(format!("expected end of statement, found {}", self.describe()));
                    }
                    let Some(r) = self.repts.last_mut() else {
                        return self.err_at(pos, len, ".endr without .rept");
                    };
                    if r.left > 0 {
                        r.left -= 1;
                        let (rpos, body) = (r.pos, r.body);
                        self.count_rept(rpos)?;
                        self.seek(body);
                    } else {
                        self.repts.pop();
                    }
                    continue;
                }
            }
            self.check_size(pos, len)?;
            if !self.at_end() {
                return self.err(format!("expected end of statement, found {}", self.describe()));
            }
        }
        if !self.data.is_empty() {
            return self.err_at(self.src.len(), 0, "data directives must fill whole 8-byte instruction slots");
        }
        Ok(())
    }

    /// The error once the program has more slots than `BPF_PROG_LOAD` takes.
    fn check_size(&self, pos: usize, len: usize) -> R<()> {
        if self.out.len() > self.max_insns {
            let e = AsmError::at(
                self.src,
                pos,
                len,
                format!(
                    "the program has more than {} instructions, the most BPF_PROG_LOAD takes \
                     (BPF_COMPLEXITY_LIMIT_INSNS; the kernel answers E2BIG)",
                    self.max_insns
                ),
            );
            return Err(e.with_kind(AsmErrorKind::TooManyInsns));
        }
        Ok(())
    }

    fn count_rept(&mut self, pos: usize) -> R<()> {
        self.rept_total += 1;
        if self.rept_total > MAX_REPT_TOTAL {
            return self.err_at(pos, 5, format!(".rept bodies repeat more than {MAX_REPT_TOTAL} times in all"));
        }
        Ok(())
    }

    fn reg_of(tok: Option<&Tok>) -> Option<Reg> {
        let Some(Tok::Ident(s)) = tok else { return None };
        let (w, num) = match s.as_bytes().first() {
            Some(b'r') => (false, &s[1..]),
            Some(b'w') => (true, &s[1..]),
            _ => return None,
        };
        if num.is_empty() || num.len() > 2 || !num.bytes().all(|c| c.is_ascii_digit()) || (num.len() == 2 && num.starts_with('0')) {
            return None;
        }
        let n: u8 = num.parse().ok()?;
        (n <= 11).then_some(Reg { n, w })
    }

    fn looks_like_reg(w: &str) -> bool {
        w.len() > 1 && (w.starts_with('r') || w.starts_with('w')) && w[1..].bytes().all(|c| c.is_ascii_digit())
    }

    fn reg(&mut self) -> R<Reg> {
        match Self::reg_of(self.peek()) {
            Some(r) => {
                self.bump();
                Ok(r)
            }
            None => self.err(format!("expected a register (r0-r11 or w0-w11), found {}", self.describe())),
        }
    }

    /// A constant expression as LLVM's assembler evaluates it (64-bit,
    /// wrapping; GNU operator precedence; comparisons give -1 for true);
    /// returns the value and the span it came from.
    fn number(&mut self) -> R<(i128, usize, usize)> {
        let (pos, _) = self.here();
        let v = self.expr()?;
        let end = self.last.0 + self.last.1;
        Ok((v as i128, pos, end.saturating_sub(pos)))
    }

    fn binop(&self) -> Option<(&'static str, u8)> {
        let Some(Tok::Punct(p)) = self.peek() else { return None };
        let prec = match *p {
            "||" => 1,
            "&&" => 2,
            "==" | "!=" | "<" | "<=" | ">" | ">=" => 3,
            "+" | "-" => 4,
            "|" | "&" | "^" => 5,
            "*" | "/" | "%" | "<<" | ">>" => 6,
            _ => return None,
        };
        Some((p, prec))
    }

    /// The expression's value, evaluated with an explicit stack rather than
    /// by recursion (the operator-precedence method): the operands so far,
    /// and the operators still waiting for theirs. Prefix operators and
    /// open parentheses are the nesting, at most [`MAX_NESTING`] at a time.
    fn expr(&mut self) -> R<i64> {
        // the stacks are kept from one expression to the next
        let (mut vals, mut ops) = std::mem::take(&mut self.stacks);
        vals.clear();
        ops.clear();
        let r = self.expr_with(&mut vals, &mut ops);
        self.stacks = (vals, ops);
        r
    }

    fn expr_with(&mut self, vals: &mut Vec<i64>, ops: &mut Vec<ExprOp>) -> R<i64> {
        let mut nesting = 0;
        loop {
            // an operand: prefix operators and parentheses, then a number
            loop {
                let op = match self.peek() {
                    Some(Tok::Num(v)) => {
                        vals.push(*v as u64 as i64);
                        self.bump();
                        break;
                    }
                    Some(Tok::Punct("(")) => ExprOp::Paren,
                    Some(Tok::Punct(p @ ("-" | "+" | "~" | "!"))) => ExprOp::Prefix(p),
                    _ => return self.err(format!("expected a number, found {}", self.describe())),
                };
                nesting += 1;
                if nesting > MAX_NESTING {
                    let (pos, len) = self.here();
                    let e = AsmError::at(self.src, pos, len, format!("expression nested too deep (more than {MAX_NESTING} levels)"));
                    return Err(e.with_kind(AsmErrorKind::TooDeep));
                }
                ops.push(op);
                self.bump();
            }
            // what follows an operand: a binary operator, `)` or the end
            loop {
                // the prefix operators before a whole operand apply to it
                while let Some(&ExprOp::Prefix(p)) = ops.last() {
                    ops.pop();
                    nesting -= 1;
                    let v = vals.last_mut().expect("an operand");
                    *v = match p {
                        "-" => v.wrapping_neg(),
                        "~" => !*v,
                        "!" => (*v == 0) as i64,
                        _ => *v,
                    };
                }
                if let Some((op, prec)) = self.binop() {
                    // left to right within a precedence, higher ones first
                    while let Some(&ExprOp::Binary(_, p, _)) = ops.last()
                        && p >= prec
                    {
                        self.reduce(vals, ops)?;
                    }
                    ops.push(ExprOp::Binary(op, prec, self.here()));
                    self.bump();
                    break;
                }
                while let Some(ExprOp::Binary(..)) = ops.last() {
                    self.reduce(vals, ops)?;
                }
                match ops.last() {
                    None => return Ok(vals[0]),
                    Some(ExprOp::Paren) => {
                        self.expect_punct(")")?;
                        ops.pop();
                        nesting -= 1;
                    }
                    Some(_) => unreachable!("prefix operators were applied"),
                }
            }
        }
    }

    /// Applies the binary operator on top of `ops` to the last two operands.
    fn reduce(&self, vals: &mut Vec<i64>, ops: &mut Vec<ExprOp>) -> R<()> {
        let Some(ExprOp::Binary(op, _, (pos, len))) = ops.pop() else { unreachable!("a binary operator") };
        let rhs = vals.pop().expect("two operands");
        let lhs = vals.pop().expect("two operands");
        match binary(op, lhs, rhs) {
            Some(v) => vals.push(v),
            None => return self.err_at(pos, len, "division by zero in a constant expression"),
        }
        Ok(())
    }

    /// A 32-bit immediate as LLVM takes it: the low 32 bits of the value
    /// (LLVM 19 truncates without a word, and kernel selftests rely on it).
    fn imm32(&mut self) -> R<i32> {
        let (v, _, _) = self.number()?;
        Ok(v as i64 as i32)
    }

    /// `(SZ *)` after the opening `(`; returns the size bits and signedness.
    fn size_cast(&mut self) -> R<(u8, bool)> {
        let name = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            _ => return self.err(format!("expected u8, u16, u32 or u64, found {}", self.describe())),
        };
        let sz = if let Some(&(_, sz)) = SIZES.iter().find(|(n, _)| *n == name) {
            (sz, false)
        } else if let Some(&(_, sz)) = SSIZES.iter().find(|(n, _)| *n == name) {
            (sz, true)
        } else {
            return self.err(format!("expected u8, u16, u32 or u64, found {}", self.describe()));
        };
        self.bump();
        self.expect_punct("*")?;
        self.expect_punct(")")?;
        Ok(sz)
    }

    /// `rN + off`, `rN - off` or `rN`, without the parentheses.
    fn addr(&mut self) -> R<(u8, i16)> {
        let r = self.reg()?;
        if r.w {
            return self.err_at(self.last.0, 2, "a memory base must be a 64-bit register");
        }
        // `(r1 - 8)`, `(r1 + 8)`, and `(r1 -8)` as a template operand
        // holding a negative number expands to
        let off = if self.at_punct("+") || self.at_punct("-") || matches!(self.peek(), Some(Tok::Num(_))) {
            let (v, pos, len) = self.number()?;
            if v < i16::MIN as i128 || v > i16::MAX as i128 {
                return self.err_at(pos, len, format!("offset {v} does not fit 16 bits signed"));
            }
            v as i16
        } else {
            0
        };
        Ok((r.n, off))
    }

    /// `*(SZ *)(rN + off)` after the leading `*`; returns (size, signed, base, off).
    fn mem(&mut self) -> R<(u8, bool, u8, i16)> {
        self.expect_punct("(")?;
        let (sz, signed) = self.size_cast()?;
        self.expect_punct("(")?;
        let (base, off) = self.addr()?;
        self.expect_punct(")")?;
        Ok((sz, signed, base, off))
    }

    /// `(SZ *)(rN + off)` as the first argument of the atomic functions.
    fn typed_addr(&mut self) -> R<(u8, u8, i16)> {
        self.expect_punct("(")?;
        let (spos, _) = self.here();
        let (sz, signed) = self.size_cast()?;
        if signed {
            return self.err_at(spos, 3, "atomics take unsigned sizes");
        }
        self.expect_punct("(")?;
        let (base, off) = self.addr()?;
        self.expect_punct(")")?;
        Ok((sz, base, off))
    }

    fn emit(&mut self, insn: Insn) -> usize {
        self.out.push(insn);
        self.out.len() - 1
    }

    /// `.byte`/`.short`/`.long`/`.quad` with a comma-separated list: raw
    /// bytes (little endian) that become instruction slots 8 at a time.
    fn data_directive(&mut self, pos: usize, len: usize, width: usize) -> R<()> {
        loop {
            let (v, _, _) = self.number()?;
            self.data.extend_from_slice(&(v as i64).to_le_bytes()[..width]);
            if self.data.len() >= 8 {
                let slot: [u8; 8] = self.data[..8].try_into().expect("8 bytes");
                self.data.drain(..8);
                self.out.push(Insn::from_bytes(slot));
                self.check_size(pos, len)?;
            }
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(())
    }

    /// `.rept N`: the body up to the matching `.endr` N times. The body is
    /// gone through as it is read; each `.endr` goes back to its start
    /// until the count is used up ([`Self::parse_all`]).
    fn rept(&mut self, pos: usize) -> R<()> {
        if self.repts.len() >= MAX_NESTING {
            let e = AsmError::at(self.src, pos, 5, format!(".rept nested too deep (more than {MAX_NESTING} levels)"));
            return Err(e.with_kind(AsmErrorKind::TooDeep));
        }
        let (n, npos, nlen) = self.number()?;
        if !(0..=MAX_REPT).contains(&n) {
            return self.err_at(npos, nlen, format!(".rept count {n} is out of range (0..={MAX_REPT})"));
        }
        if n > 0 {
            let n = n as u64;
            // how many times bodies will start at least, this one and those
            // around it: past the bound, known now rather than after the work
            let (outer_future, outer_sum) = match self.repts.last() {
                None => (0, 0),
                Some(r) => {
                    let f = r.left.saturating_add(r.count.saturating_mul(r.outer_future));
                    (f, r.outer_sum.saturating_add(f))
                }
            };
            let mine = (n - 1).saturating_add(n.saturating_mul(outer_future));
            if self.rept_total.saturating_add(1).saturating_add(outer_sum).saturating_add(mine) > MAX_REPT_TOTAL {
                return self.err_at(pos, 5, format!(".rept bodies repeat more than {MAX_REPT_TOTAL} times in all"));
            }
            self.count_rept(pos)?;
            let (body, _) = self.here();
            self.repts.push(Rept { pos, body, left: n - 1, count: n, outer_future, outer_sum });
            return Ok(());
        }
        // Nothing of a body gone through no times is assembled: on to the
        // token after its `.endr`.
        let mut depth = self.repts.len() + 1;
        loop {
            match self.peek() {
                None => return self.err_at(pos, 5, ".rept without .endr"),
                Some(Tok::Bad(e)) => return Err((**e).clone()),
                Some(Tok::Ident(w)) if w == ".rept" => {
                    if depth >= MAX_NESTING {
                        let (p, l) = self.here();
                        let e = AsmError::at(self.src, p, l, format!(".rept nested too deep (more than {MAX_NESTING} levels)"));
                        return Err(e.with_kind(AsmErrorKind::TooDeep));
                    }
                    depth += 1;
                }
                Some(Tok::Ident(w)) if w == ".endr" => {
                    depth -= 1;
                    if depth == self.repts.len() {
                        self.bump();
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn target(&mut self) -> R<(Target<'a>, usize, usize)> {
        let (pos, len) = self.here();
        let t = match self.peek().cloned() {
            Some(Tok::Punct("+" | "-")) | Some(Tok::Num(_)) => {
                let (v, pos, len) = self.number()?;
                return Ok((Target::Rel(v as i64), pos, len));
            }
            Some(Tok::Ident(s)) if s == "pc" && matches!(self.peek_at(1), Some(Tok::Punct("+" | "-"))) => {
                self.bump();
                let (v, p2, l2) = self.number()?;
                return Ok((Target::Rel(v as i64), pos, p2 + l2 - pos));
            }
            Some(Tok::Ident(s)) => Target::Label(s),
            Some(Tok::LocalRef(n, back)) => Target::Local(n, back),
            _ => return self.err(format!("expected a jump target (+N, -N or a label), found {}", self.describe())),
        };
        self.bump();
        Ok((t, pos, len))
    }

    /// Resolves what `insn` refers to now when that is known (offsets,
    /// labels already defined, `Nb`: the latest `N:` so far), else keeps
    /// it: `Nf` until `N:` comes, names until the end.
    fn fixup(&mut self, insn: usize, target: Target<'a>, pos: usize, len: usize, field: Field) -> R<()> {
        let to = |at: usize| at as i64 - (insn as i64 + 1);
        match target {
            Target::Rel(v) => self.patch(insn, field, v, pos, len),
            // a label at the same slot as the reference counts as before it
            Target::Local(n, true) => match self.numeric_last.get(&n) {
                Some(&at) => self.patch(insn, field, to(at), pos, len),
                None => {
                    self.fixups.push(Fixup { insn, target, pos, len, field });
                    Ok(())
                }
            },
            Target::Local(n, false) => {
                self.numeric_fwd.entry(n).or_default().push(Pending { insn, pos, len, field });
                Ok(())
            }
            Target::Label(name) => match self.labels.get(name.as_ref()) {
                Some(&at) => self.patch(insn, field, to(at), pos, len),
                None => {
                    self.fixups.push(Fixup { insn, target: Target::Label(name), pos, len, field });
                    Ok(())
                }
            },
        }
    }

    /// Writes the offset `rel` of a resolved reference into its insn.
    fn patch(&mut self, insn: usize, field: Field, rel: i64, pos: usize, len: usize) -> R<()> {
        match field {
            Field::Off => {
                if rel < i16::MIN as i64 || rel > i16::MAX as i64 {
                    return self.err_at(pos, len, format!("jump offset {rel} does not fit 16 bits (use gotol)"));
                }
                self.out[insn].off = rel as i16;
            }
            Field::Imm | Field::Call | Field::Helper(_) => {
                if rel < i32::MIN as i64 || rel > i32::MAX as i64 {
                    return self.err_at(pos, len, format!("offset {rel} does not fit 32 bits"));
                }
                if let Field::Helper(_) = field {
                    // `call name` of a label that has a helper's name
                    self.out[insn].src = BPF_PSEUDO_CALL;
                }
                self.out[insn].imm = rel as i32;
            }
            Field::LdImm64 => {
                self.out[insn].src = BPF_PSEUDO_FUNC;
                self.out[insn].imm = rel as i32;
            }
        }
        Ok(())
    }

    fn jump(&mut self, insn: Insn, field: Field) -> R<()> {
        let (target, pos, len) = self.target()?;
        let idx = self.emit(insn);
        self.fixup(idx, target, pos, len, field)
    }

    fn statement(&mut self) -> R<Stmt> {
        let (pos, _) = self.here();
        // labels: `name:` and `1:`
        match (self.peek().cloned(), self.peek_at(1)) {
            (Some(Tok::Ident(_)), Some(Tok::Punct(":"))) | (Some(Tok::Num(_)), Some(Tok::Punct(":"))) if !self.data.is_empty() => {
                self.err("a label inside an 8-byte slot that data directives are filling")
            }
            (Some(Tok::Ident(name)), Some(Tok::Punct(":"))) => {
                self.bump();
                self.bump();
                match self.labels.entry(name.into_owned()) {
                    Entry::Vacant(v) => {
                        v.insert(self.out.len());
                        Ok(Stmt::Label)
                    }
                    Entry::Occupied(o) => {
                        let name = o.key();
                        Err(AsmError::at(self.src, pos, name.len(), format!("label '{}' is defined twice", clip(name))))
                    }
                }
            }
            (Some(Tok::Num(n)), Some(Tok::Punct(":"))) => {
                self.bump();
                self.bump();
                let (n, at) = (n as u64, self.out.len());
                self.numeric_last.insert(n, at);
                for p in self.numeric_fwd.remove(&n).unwrap_or_default() {
                    self.patch(p.insn, p.field, at as i64 - (p.insn as i64 + 1), p.pos, p.len)?;
                }
                Ok(Stmt::Label)
            }
            (Some(Tok::Ident(w)), _) if w == ".endr" => {
                self.bump();
                Ok(Stmt::Endr)
            }
            _ if !self.data.is_empty() && !self.at_data_directive() => self.err("an instruction inside an 8-byte slot that data directives are filling"),
            _ => self.instruction().map(|()| Stmt::Insn),
        }
    }

    fn at_data_directive(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if matches!(w.as_ref(), ".byte" | ".short" | ".2byte" | ".hword" | ".long" | ".int" | ".4byte" | ".word" | ".8byte" | ".quad" | ".dword"))
    }

    fn instruction(&mut self) -> R<()> {
        let (pos, len) = self.here();
        let word = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            Some(Tok::Punct("*")) => {
                self.bump();
                return self.store();
            }
            _ => return self.err(format!("expected an instruction, found {}", self.describe())),
        };
        if let Some(dst) = Self::reg_of(self.peek()) {
            self.bump();
            return self.reg_statement(dst);
        }
        self.bump();
        match word.as_ref() {
            "exit" => {
                self.emit(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
                Ok(())
            }
            "goto" => self.jump(Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0), Field::Off),
            "gotol" => self.jump(Insn::new(BPF_JMP32 | BPF_JA, 0, 0, 0, 0), Field::Imm),
            "may_goto" => self.jump(Insn::new(BPF_JMP | BPF_JCOND, 0, BPF_MAY_GOTO, 0, 0), Field::Off),
            "gotox" => {
                let r = self.reg()?;
                self.emit(Insn::new(BPF_JMP | BPF_JA | BPF_X, r.n, 0, 0, 0));
                Ok(())
            }
            "callx" => {
                let r = self.reg()?;
                self.emit(Insn::new(BPF_JMP | BPF_CALL | BPF_X, r.n, 0, 0, 0));
                Ok(())
            }
            "call" => self.call(),
            "if" => self.cond_jump(),
            "lock" => self.lock(),
            "store_release" => self.store_release(),
            ".byte" => self.data_directive(pos, len, 1),
            ".short" | ".2byte" | ".hword" => self.data_directive(pos, len, 2),
            ".long" | ".int" | ".4byte" | ".word" => self.data_directive(pos, len, 4),
            ".8byte" | ".quad" | ".dword" => self.data_directive(pos, len, 8),
            ".rept" => self.rept(pos),
            w if Self::looks_like_reg(w) => self.err_at(pos, w.len(), format!("'{}' is not a BPF register (r0-r11, w0-w11)", clip(w))),
            _ => self.err_at(pos, word.len(), format!("unknown instruction '{}'", clip(&word))),
        }
    }

    fn call(&mut self) -> R<()> {
        let (pos, len) = self.here();
        match self.peek().cloned() {
            Some(Tok::Num(_)) | Some(Tok::Punct("-")) => {
                let imm = self.imm32()?;
                self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, imm));
                Ok(())
            }
            // a helper, unless the text defines a label of its name (known at the end)
            Some(Tok::Ident(name)) if helper_id(&name).is_some() => {
                self.bump();
                let id = helper_id(&name).expect("checked");
                let idx = self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, id));
                self.fixup(idx, Target::Label(name), pos, len, Field::Helper(id))
            }
            Some(Tok::Ident(name)) => {
                self.bump();
                let idx = self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
                self.fixup(idx, Target::Label(name), pos, len, Field::Call)
            }
            Some(Tok::LocalRef(n, back)) => {
                self.bump();
                let idx = self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
                self.fixup(idx, Target::Local(n, back), pos, len, Field::Call)
            }
            _ => self.err(format!("expected a helper id, helper name or label after 'call', found {}", self.describe())),
        }
    }

    fn cond_jump(&mut self) -> R<()> {
        let dst = self.reg()?;
        let signed = if self.at_ident("s") {
            self.bump();
            true
        } else {
            false
        };
        let (op, oppos) = match self.peek() {
            Some(Tok::Punct(p)) => (*p, self.here()),
            _ => return self.err(format!("expected a comparison, found {}", self.describe())),
        };
        let code = match (op, signed) {
            ("==", false) => BPF_JEQ,
            ("!=", false) => BPF_JNE,
            (">", false) => BPF_JGT,
            (">=", false) => BPF_JGE,
            ("<", false) => BPF_JLT,
            ("<=", false) => BPF_JLE,
            ("&", false) => BPF_JSET,
            (">", true) => BPF_JSGT,
            (">=", true) => BPF_JSGE,
            ("<", true) => BPF_JSLT,
            ("<=", true) => BPF_JSLE,
            _ => return self.err_at(oppos.0, oppos.1, format!("unknown comparison '{}{op}'", if signed { "s" } else { "" })),
        };
        self.bump();
        let class = if dst.w { BPF_JMP32 } else { BPF_JMP };
        let insn = if let Some(src) = Self::reg_of(self.peek()) {
            if src.w != dst.w {
                return self.err("both registers of a comparison must be of the same width");
            }
            self.bump();
            Insn::new(class | code | BPF_X, dst.n, src.n, 0, 0)
        } else {
            let imm = self.imm32()?;
            Insn::new(class | code | BPF_K, dst.n, 0, 0, imm)
        };
        self.expect_ident("goto")?;
        self.jump(insn, Field::Off)
    }

    /// `*(SZ *)(rN + off) = rS | imm`
    fn store(&mut self) -> R<()> {
        let (sz, signed, base, off) = self.mem()?;
        if signed {
            return self.err("stores take unsigned sizes");
        }
        self.expect_punct("=")?;
        if let Some(src) = Self::reg_of(self.peek()) {
            self.bump();
            self.emit(Insn::new(BPF_STX | BPF_MEM | sz, base, src.n, off, 0));
        } else {
            let imm = self.imm32()?;
            self.emit(Insn::new(BPF_ST | BPF_MEM | sz, base, 0, off, imm));
        }
        Ok(())
    }

    /// `lock *(SZ *)(rN + off) OP= rS`
    fn lock(&mut self) -> R<()> {
        self.expect_punct("*")?;
        let (sz, signed, base, off) = self.mem()?;
        if signed || (sz != BPF_W && sz != BPF_DW) {
            return self.err("atomic operations take u32 or u64");
        }
        let imm = match self.peek() {
            Some(Tok::Punct("+=")) => BPF_ADD,
            Some(Tok::Punct("&=")) => BPF_AND,
            Some(Tok::Punct("|=")) => BPF_OR,
            Some(Tok::Punct("^=")) => BPF_XOR,
            _ => return self.err(format!("expected +=, &=, |= or ^=, found {}", self.describe())),
        };
        self.bump();
        let src = self.reg()?;
        self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, base, src.n, off, imm as i32));
        Ok(())
    }

    /// `store_release((SZ *)(rN + off), rS)`
    fn store_release(&mut self) -> R<()> {
        self.expect_punct("(")?;
        let (sz, base, off) = self.typed_addr()?;
        self.expect_punct(",")?;
        let src = self.reg()?;
        self.expect_punct(")")?;
        self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, base, src.n, off, BPF_STORE_REL));
        Ok(())
    }

    /// Statements that start with a register.
    fn reg_statement(&mut self, dst: Reg) -> R<()> {
        let class = if dst.w { BPF_ALU } else { BPF_ALU64 };
        let signed = if self.at_ident("s") {
            self.bump();
            true
        } else {
            false
        };
        let (op, oppos) = match self.peek() {
            Some(Tok::Punct(p)) => (*p, self.here()),
            _ => return self.err(format!("expected an operator after the register, found {}", self.describe())),
        };
        let (alu, off) = match (op, signed) {
            ("=", false) => {
                self.bump();
                return self.assign(dst);
            }
            ("+=", false) => (BPF_ADD, 0),
            ("-=", false) => (BPF_SUB, 0),
            ("*=", false) => (BPF_MUL, 0),
            ("/=", false) => (BPF_DIV, 0),
            ("%=", false) => (BPF_MOD, 0),
            ("|=", false) => (BPF_OR, 0),
            ("&=", false) => (BPF_AND, 0),
            ("^=", false) => (BPF_XOR, 0),
            ("<<=", false) => (BPF_LSH, 0),
            (">>=", false) => (BPF_RSH, 0),
            (">>=", true) => (BPF_ARSH, 0),
            ("/=", true) => (BPF_DIV, 1),
            ("%=", true) => (BPF_MOD, 1),
            _ => return self.err_at(oppos.0, oppos.1, format!("unknown operator '{}{op}'", if signed { "s" } else { "" })),
        };
        self.bump();
        self.alu_operand(dst, class | alu, off)
    }

    fn alu_operand(&mut self, dst: Reg, code: u8, off: i16) -> R<()> {
        if let Some(src) = Self::reg_of(self.peek()) {
            if src.w != dst.w {
                return self.err("both registers must be of the same width (rN with rN, wN with wN)");
            }
            self.bump();
            self.emit(Insn::new(code | BPF_X, dst.n, src.n, off, 0));
        } else {
            let imm = self.imm32()?;
            self.emit(Insn::new(code | BPF_K, dst.n, 0, off, imm));
        }
        Ok(())
    }

    /// `dst = ...`
    fn assign(&mut self, dst: Reg) -> R<()> {
        let class = if dst.w { BPF_ALU } else { BPF_ALU64 };
        match self.peek().cloned() {
            Some(Tok::Punct("*")) => {
                self.bump();
                self.expect_punct("(")?;
                let (sz, signed) = self.size_cast()?;
                if self.at_ident("skb") {
                    return self.ld_abs_ind(dst, sz, signed);
                }
                self.expect_punct("(")?;
                let (base, off) = self.addr()?;
                self.expect_punct(")")?;
                let mode = if signed { BPF_MEMSX } else { BPF_MEM };
                self.emit(Insn::new(BPF_LDX | mode | sz, dst.n, base, off, 0));
                Ok(())
            }
            Some(Tok::Punct("-")) if Self::reg_of(self.peek_at(1)).is_some() => {
                self.bump();
                let src = self.reg()?;
                if src != dst {
                    return self.err_at(self.last.0, 2, "negation must be of the destination register itself");
                }
                self.emit(Insn::new(class | BPF_NEG, dst.n, 0, 0, 0));
                Ok(())
            }
            Some(Tok::Punct("(")) => {
                // movsx: `(s8)rN`
                self.bump();
                let bits = match self.peek() {
                    Some(Tok::Ident(s)) if s == "s8" => 8,
                    Some(Tok::Ident(s)) if s == "s16" => 16,
                    Some(Tok::Ident(s)) if s == "s32" => 32,
                    _ => return self.err(format!("expected s8, s16 or s32, found {}", self.describe())),
                };
                self.bump();
                self.expect_punct(")")?;
                let src = self.reg()?;
                if src.w != dst.w {
                    return self.err("both registers must be of the same width");
                }
                self.emit(Insn::new(class | BPF_MOV | BPF_X, dst.n, src.n, bits, 0));
                Ok(())
            }
            Some(Tok::Ident(word)) => {
                if let Some(src) = Self::reg_of(self.peek()) {
                    self.bump();
                    if src.w != dst.w {
                        return self.err_at(self.last.0, 2, "both registers must be of the same width");
                    }
                    self.emit(Insn::new(class | BPF_MOV | BPF_X, dst.n, src.n, 0, 0));
                    return Ok(());
                }
                if let Some((kind, bits)) = endian_word(&word) {
                    self.bump();
                    let src = self.reg()?;
                    if src.n != dst.n || src.w || dst.w {
                        return self.err_at(self.last.0, 2, format!("{word} takes the destination register itself, as rN"));
                    }
                    let code = match kind {
                        "le" => BPF_ALU | BPF_END | BPF_TO_LE,
                        "be" => BPF_ALU | BPF_END | BPF_TO_BE,
                        _ => BPF_ALU64 | BPF_END | BPF_TO_LE,
                    };
                    self.emit(Insn::new(code, dst.n, 0, 0, bits));
                    return Ok(());
                }
                if self.at_punct_at(1, "(") {
                    return self.call_form(dst, &word);
                }
                // `rX = symbol ll`
                self.ld_imm64_sym(dst, word)
            }
            Some(Tok::Num(_)) | Some(Tok::Punct("-" | "+")) => {
                let (v, pos, len) = self.number()?;
                if self.at_ident("ll") {
                    self.bump();
                    if dst.w {
                        return self.err_at(pos, len, "ld_imm64 needs a 64-bit register");
                    }
                    let v = v as i64 as u64;
                    self.emit(Insn::new(BPF_LD | BPF_IMM | BPF_DW, dst.n, 0, 0, v as u32 as i32));
                    self.emit(Insn::new(0, 0, 0, 0, (v >> 32) as u32 as i32));
                    return Ok(());
                }
                let _ = (pos, len);
                self.emit(Insn::new(class | BPF_MOV | BPF_K, dst.n, 0, 0, v as i64 as i32));
                Ok(())
            }
            _ => self.err(format!("expected a value after '=', found {}", self.describe())),
        }
    }

    fn at_punct_at(&self, k: usize, p: &str) -> bool {
        matches!(self.peek_at(k), Some(Tok::Punct(q)) if *q == p)
    }

    fn ld_imm64_sym(&mut self, dst: Reg, name: Cow<'a, str>) -> R<()> {
        let (pos, len) = self.here();
        self.bump();
        if !self.at_ident("ll") {
            return self.err(format!("expected 'll' after the symbol '{}', found {}", clip(&name), self.describe()));
        }
        self.bump();
        if dst.w {
            return self.err_at(pos, len, "ld_imm64 needs a 64-bit register");
        }
        let idx = self.emit(Insn::new(BPF_LD | BPF_IMM | BPF_DW, dst.n, 0, 0, 0));
        self.emit(Insn::default());
        self.fixup(idx, Target::Label(name), pos, len, Field::LdImm64)
    }

    /// `r0 = *(SZ *)skb[imm]` / `skb[rN]` / `skb[rN + imm]`
    fn ld_abs_ind(&mut self, dst: Reg, sz: u8, signed: bool) -> R<()> {
        self.bump();
        if signed || dst.n != 0 {
            return self.err("packet loads take an unsigned size and load into r0");
        }
        self.expect_punct("[")?;
        let insn = if let Some(src) = Self::reg_of(self.peek()) {
            self.bump();
            let imm = if self.eat_punct("+") { self.imm32()? } else { 0 };
            Insn::new(BPF_LD | BPF_IND | sz, 0, src.n, 0, imm)
        } else {
            let imm = self.imm32()?;
            Insn::new(BPF_LD | BPF_ABS | sz, 0, 0, 0, imm)
        };
        self.expect_punct("]")?;
        self.emit(insn);
        Ok(())
    }

    /// `dst = name(...)`: atomics, load_acquire, addr_space_cast.
    fn call_form(&mut self, dst: Reg, word: &str) -> R<()> {
        let (pos, len) = self.here();
        self.bump(); // name
        self.bump(); // (
        let fetch_op = match word {
            "atomic_fetch_add" => Some(BPF_ADD),
            "atomic_fetch_and" => Some(BPF_AND),
            "atomic_fetch_or" => Some(BPF_OR),
            "atomic_fetch_xor" => Some(BPF_XOR),
            _ => None,
        };
        if let Some(op) = fetch_op {
            let (sz, base, off) = self.typed_addr()?;
            self.expect_punct(",")?;
            let src = self.reg()?;
            self.expect_punct(")")?;
            if src.n != dst.n {
                return self.err_at(pos, len, format!("{word} returns into its source register"));
            }
            self.check_atomic_size(sz, pos, len)?;
            self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, base, src.n, off, op as i32 | BPF_FETCH));
            return Ok(());
        }
        match word {
            "xchg_64" | "xchg32_32" => {
                let sz = if word == "xchg_64" { BPF_DW } else { BPF_W };
                let (base, off) = self.addr()?;
                self.expect_punct(",")?;
                let src = self.reg()?;
                self.expect_punct(")")?;
                if src.n != dst.n {
                    return self.err_at(pos, len, "xchg returns into its source register");
                }
                self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, base, src.n, off, BPF_XCHG));
                Ok(())
            }
            "cmpxchg_64" | "cmpxchg32_32" => {
                let sz = if word == "cmpxchg_64" { BPF_DW } else { BPF_W };
                let (base, off) = self.addr()?;
                self.expect_punct(",")?;
                let old = self.reg()?;
                self.expect_punct(",")?;
                let src = self.reg()?;
                self.expect_punct(")")?;
                if dst.n != 0 || old.n != 0 {
                    return self.err_at(pos, len, "cmpxchg compares with and returns into r0");
                }
                self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, base, src.n, off, BPF_CMPXCHG));
                Ok(())
            }
            "load_acquire" => {
                let (sz, base, off) = self.typed_addr()?;
                self.expect_punct(")")?;
                self.emit(Insn::new(BPF_STX | BPF_ATOMIC | sz, dst.n, base, off, BPF_LOAD_ACQ));
                Ok(())
            }
            "addr_space_cast" => {
                let src = self.reg()?;
                self.expect_punct(",")?;
                let (a, p1, l1) = self.number()?;
                self.expect_punct(",")?;
                let (b, p2, l2) = self.number()?;
                self.expect_punct(")")?;
                if !(0..=0xffff).contains(&a) {
                    return self.err_at(p1, l1, "address space must be 0..65535");
                }
                if !(0..=0xffff).contains(&b) {
                    return self.err_at(p2, l2, "address space must be 0..65535");
                }
                if dst.w || src.w {
                    return self.err_at(pos, len, "addr_space_cast works on 64-bit registers");
                }
                self.emit(Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, dst.n, src.n, BPF_ADDR_SPACE_CAST, ((a << 16) | b) as i32));
                Ok(())
            }
            _ => self.err_at(pos, len, format!("unknown function '{}'", clip(word))),
        }
    }

    fn check_atomic_size(&self, sz: u8, pos: usize, len: usize) -> R<()> {
        if sz != BPF_W && sz != BPF_DW {
            return self.err_at(pos, len, "atomic read-modify-write takes u32 or u64");
        }
        Ok(())
    }

    fn finish(mut self) -> R<Program> {
        // the first reference without a label in the text is the error
        let missing_fwd = self.numeric_fwd.iter().flat_map(|(&n, v)| v.iter().map(move |p| (p.insn, p.pos, p.len, n))).min();
        let no_label_after = |(_, pos, len, n): (usize, usize, usize, u64)| Err(AsmError::at(self.src, pos, len, format!("no label {n}: after it")));
        let mut relocs = Vec::new();
        let fixups = std::mem::take(&mut self.fixups);
        for f in fixups {
            if let Some(m) = missing_fwd.filter(|m| m.0 < f.insn) {
                return no_label_after(m);
            }
            let at = match f.target {
                Target::Label(name) => match self.labels.get(name.as_ref()) {
                    Some(&at) => at,
                    // a helper's name that is no label of this text: the helper
                    None if matches!(f.field, Field::Helper(_)) => continue,
                    None if matches!(f.field, Field::Call | Field::LdImm64) => {
                        let kind = if f.field == Field::Call { RelocKind::Call } else { RelocKind::LdImm64 };
                        if kind == RelocKind::Call {
                            // Unknown until linked: not a bpf-to-bpf call yet.
                            self.out[f.insn].src = 0;
                        }
                        relocs.push(Reloc { insn: f.insn, kind, symbol: name.into_owned(), pos: f.pos });
                        continue;
                    }
                    None => return self.err_at(f.pos, f.len, format!("undefined label '{}'", clip(&name))),
                },
                Target::Local(n, _) => return self.err_at(f.pos, f.len, format!("no label {n}: before it")),
                Target::Rel(_) => unreachable!("resolved when read"),
            };
            self.patch(f.insn, f.field, at as i64 - (f.insn as i64 + 1), f.pos, f.len)?;
        }
        if let Some(m) = missing_fwd {
            return no_label_after(m);
        }
        Ok(Program { insns: self.out, relocs, labels: self.labels })
    }
}

/// `lhs op rhs` as LLVM's assembler evaluates it: 64-bit, wrapping,
/// comparisons -1 for true; `None` for a division by zero.
fn binary(op: &str, lhs: i64, rhs: i64) -> Option<i64> {
    let t = |b: bool| if b { -1 } else { 0 };
    Some(match op {
        "||" => (lhs != 0 || rhs != 0) as i64,
        "&&" => (lhs != 0 && rhs != 0) as i64,
        "==" => t(lhs == rhs),
        "!=" => t(lhs != rhs),
        "<" => t(lhs < rhs),
        "<=" => t(lhs <= rhs),
        ">" => t(lhs > rhs),
        ">=" => t(lhs >= rhs),
        "+" => lhs.wrapping_add(rhs),
        "-" => lhs.wrapping_sub(rhs),
        "|" => lhs | rhs,
        "&" => lhs & rhs,
        "^" => lhs ^ rhs,
        "*" => lhs.wrapping_mul(rhs),
        "<<" => lhs.wrapping_shl(rhs as u32),
        ">>" => lhs.wrapping_shr(rhs as u32),
        "/" | "%" if rhs == 0 => return None,
        "/" => lhs.wrapping_div(rhs),
        _ => lhs.wrapping_rem(rhs),
    })
}

/// `le16`, `be32`, `bswap64`, ...: the kind and the width.
fn endian_word(w: &str) -> Option<(&'static str, i32)> {
    let (kind, bits) = if let Some(b) = w.strip_prefix("bswap") {
        ("bswap", b)
    } else if let Some(b) = w.strip_prefix("le") {
        ("le", b)
    } else if let Some(b) = w.strip_prefix("be") {
        ("be", b)
    } else {
        return None;
    };
    match bits {
        "16" => Some((kind, 16)),
        "32" => Some((kind, 32)),
        "64" => Some((kind, 64)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
