//! An assembler for the LLVM BPF syntax kernel selftests write in naked asm
//! (`r1 = *(u32 *)(r10 - 4)`, `if w2 s> w3 goto l0_%=`, `call %[helper]`).
//!
//! Encodings follow `llvm-mc -triple bpfel -mcpu=v4`; forms LLVM 19 lacks
//! (`load_acquire`, `store_release`, `gotox`) are encoded as the kernel defines
//! them. What cannot be resolved inside the text (kfunc and subprogram calls,
//! map and global symbols in `ld_imm64`) is kept as a [`Reloc`].

mod lexer;

use std::collections::BTreeMap;
use std::fmt;

use crate::helper_ids::helper_id;
use crate::insn::{Insn, op::*};
use lexer::{Tok, Token};

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

/// An assembly error at a place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// 1-based line and column (in characters).
    pub line: usize,
    pub col: usize,
    /// Byte offset and length of the offending text.
    pub pos: usize,
    pub len: usize,
    pub msg: String,
}

impl AsmError {
    pub(crate) fn at(src: &str, pos: usize, len: usize, msg: String) -> AsmError {
        let pos = pos.min(src.len());
        let before = &src[..pos];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        AsmError { line, col, pos, len, msg }
    }
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl std::error::Error for AsmError {}

/// Assembles `src`, with no `%[...]` operands.
pub fn assemble(src: &str) -> Result<Program, AsmError> {
    assemble_with(src, &|_| None)
}

/// Assembles `src`; `operands` resolves each `%[name]`.
pub fn assemble_with(src: &str, operands: &dyn Fn(&str) -> Option<Operand>) -> Result<Program, AsmError> {
    let toks = lexer::lex(src, operands)?;
    let mut p = Parser { src, toks, i: 0, out: Vec::new(), labels: BTreeMap::new(), numeric: Vec::new(), fixups: Vec::new(), data: Vec::new(), label_names: Default::default() };
    p.label_names = p
        .toks
        .windows(2)
        .filter_map(|w| match (&w[0].tok, &w[1].tok) {
            (Tok::Ident(n), Tok::Punct(":")) => Some(n.clone()),
            _ => None,
        })
        .collect();
    p.parse_all()?;
    p.finish()
}

/// A jump or call target still to be resolved.
enum Target {
    Rel(i64),
    Label(String),
    Local(u64, bool),
}

struct Fixup {
    insn: usize,
    target: Target,
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
    /// `rX = label ll`: BPF_PSEUDO_FUNC, or a reloc when unknown.
    LdImm64,
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    out: Vec<Insn>,
    labels: BTreeMap<String, usize>,
    /// Numeric labels in order: (number, insn index).
    numeric: Vec<(u64, usize)>,
    fixups: Vec<Fixup>,
    /// Bytes of data directives not yet making a whole slot.
    data: Vec<u8>,
    /// Every label the text defines anywhere: `call name` is a call of that
    /// label even when `name` is also a helper's.
    label_names: std::collections::HashSet<String>,
}

/// Bounds that keep `.rept` from making unbounded programs.
const MAX_REPT: i128 = 1 << 20;
const MAX_INSNS: usize = 4 << 20;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Stmt {
    Label,
    Insn,
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

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }
    fn here(&self) -> (usize, usize) {
        match self.toks.get(self.i) {
            Some(t) => (t.pos, t.len),
            None => (self.src.len(), 0),
        }
    }
    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        let (pos, len) = self.here();
        Err(AsmError::at(self.src, pos, len, msg.into()))
    }
    fn err_at<T>(&self, pos: usize, len: usize, msg: impl Into<String>) -> R<T> {
        Err(AsmError::at(self.src, pos, len, msg.into()))
    }
    fn describe(&self) -> String {
        match self.toks.get(self.i) {
            None => "end of input".into(),
            Some(t) if t.tok == Tok::Sep => "end of statement".into(),
            Some(t) => format!("'{}'", &self.src[t.pos..t.pos + t.len]),
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
            self.i += 1;
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
            self.i += 1;
            Ok(())
        } else {
            self.err(format!("expected '{s}', found {}", self.describe()))
        }
    }
    fn at_end(&self) -> bool {
        matches!(self.peek(), None | Some(Tok::Sep))
    }

    fn parse_all(&mut self) -> R<()> {
        self.parse_until(self.toks.len())?;
        if !self.data.is_empty() {
            return self.err_at(self.src.len(), 0, "data directives must fill whole 8-byte instruction slots");
        }
        Ok(())
    }

    fn parse_until(&mut self, end: usize) -> R<()> {
        loop {
            while self.i < end && self.peek() == Some(&Tok::Sep) {
                self.i += 1;
            }
            if self.i >= end {
                return Ok(());
            }
            if self.statement()? == Stmt::Label {
                continue;
            }
            if !self.at_end() {
                return self.err(format!("expected end of statement, found {}", self.describe()));
            }
        }
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
                self.i += 1;
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
        let v = self.expr(1)?;
        let end = self.toks.get(self.i - 1).map_or(pos, |t| t.pos + t.len);
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

    fn expr(&mut self, min_prec: u8) -> R<i64> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec < min_prec {
                break;
            }
            let (opos, olen) = self.here();
            self.i += 1;
            let rhs = self.expr(prec + 1)?;
            let t = |b: bool| if b { -1 } else { 0 };
            lhs = match op {
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
                _ => {
                    if rhs == 0 {
                        return self.err_at(opos, olen, "division by zero in a constant expression");
                    }
                    if op == "/" { lhs.wrapping_div(rhs) } else { lhs.wrapping_rem(rhs) }
                }
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<i64> {
        match self.peek() {
            Some(Tok::Punct("-")) => {
                self.i += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some(Tok::Punct("+")) => {
                self.i += 1;
                self.unary()
            }
            Some(Tok::Punct("~")) => {
                self.i += 1;
                Ok(!self.unary()?)
            }
            Some(Tok::Punct("!")) => {
                self.i += 1;
                Ok((self.unary()? == 0) as i64)
            }
            Some(Tok::Punct("(")) => {
                self.i += 1;
                let v = self.expr(1)?;
                self.expect_punct(")")?;
                Ok(v)
            }
            Some(Tok::Num(v)) => {
                let v = *v as u64 as i64;
                self.i += 1;
                Ok(v)
            }
            _ => self.err(format!("expected a number, found {}", self.describe())),
        }
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
        self.i += 1;
        self.expect_punct("*")?;
        self.expect_punct(")")?;
        Ok(sz)
    }

    /// `rN + off`, `rN - off` or `rN`, without the parentheses.
    fn addr(&mut self) -> R<(u8, i16)> {
        let r = self.reg()?;
        if r.w {
            return self.err_at(self.toks[self.i - 1].pos, 2, "a memory base must be a 64-bit register");
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
        let (sz, signed) = self.size_cast()?;
        if signed {
            return self.err_at(self.toks[self.i - 3].pos, 3, "atomics take unsigned sizes");
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
    fn data_directive(&mut self, width: usize) -> R<()> {
        loop {
            let (v, _, _) = self.number()?;
            self.data.extend_from_slice(&(v as i64).to_le_bytes()[..width]);
            if !self.eat_punct(",") {
                break;
            }
        }
        while self.data.len() >= 8 {
            let slot: [u8; 8] = self.data[..8].try_into().expect("8 bytes");
            self.data.drain(..8);
            self.out.push(Insn::from_bytes(slot));
        }
        Ok(())
    }

    /// `.rept N` ... `.endr`: the body N times.
    fn rept(&mut self, pos: usize) -> R<()> {
        let (n, npos, nlen) = self.number()?;
        if !(0..=MAX_REPT).contains(&n) {
            return self.err_at(npos, nlen, format!(".rept count {n} is out of range (0..={MAX_REPT})"));
        }
        let body = self.i;
        let mut depth = 0;
        let mut end = None;
        for k in body..self.toks.len() {
            match &self.toks[k].tok {
                Tok::Ident(w) if w == ".rept" => depth += 1,
                Tok::Ident(w) if w == ".endr" => {
                    if depth == 0 {
                        end = Some(k);
                        break;
                    }
                    depth -= 1;
                }
                _ => {}
            }
        }
        let Some(end) = end else { return self.err_at(pos, 5, ".rept without .endr") };
        for _ in 0..n {
            self.i = body;
            self.parse_until(end)?;
            if self.out.len() > MAX_INSNS {
                return self.err_at(pos, 5, format!("more than {MAX_INSNS} instructions"));
            }
        }
        self.i = end + 1;
        Ok(())
    }

    fn target(&mut self) -> R<(Target, usize, usize)> {
        let (pos, len) = self.here();
        let t = match self.peek().cloned() {
            Some(Tok::Punct("+" | "-")) | Some(Tok::Num(_)) => {
                let (v, pos, len) = self.number()?;
                return Ok((Target::Rel(v as i64), pos, len));
            }
            Some(Tok::Ident(s)) if s == "pc" && matches!(self.peek_at(1), Some(Tok::Punct("+" | "-"))) => {
                self.i += 1;
                let (v, p2, l2) = self.number()?;
                return Ok((Target::Rel(v as i64), pos, p2 + l2 - pos));
            }
            Some(Tok::Ident(s)) => Target::Label(s),
            Some(Tok::LocalRef(n, back)) => Target::Local(n, back),
            _ => return self.err(format!("expected a jump target (+N, -N or a label), found {}", self.describe())),
        };
        self.i += 1;
        Ok((t, pos, len))
    }

    fn jump(&mut self, insn: Insn, field: Field) -> R<()> {
        let (target, pos, len) = self.target()?;
        let idx = self.emit(insn);
        self.fixups.push(Fixup { insn: idx, target, pos, len, field });
        Ok(())
    }

    fn statement(&mut self) -> R<Stmt> {
        let (pos, _) = self.here();
        // labels: `name:` and `1:`
        match (self.peek().cloned(), self.peek_at(1)) {
            (Some(Tok::Ident(_)), Some(Tok::Punct(":"))) | (Some(Tok::Num(_)), Some(Tok::Punct(":"))) if !self.data.is_empty() => {
                self.err("a label inside an 8-byte slot that data directives are filling")
            }
            (Some(Tok::Ident(name)), Some(Tok::Punct(":"))) => {
                self.i += 2;
                if self.labels.insert(name.clone(), self.out.len()).is_some() {
                    return self.err_at(pos, name.len(), format!("label '{name}' is defined twice"));
                }
                Ok(Stmt::Label)
            }
            (Some(Tok::Num(n)), Some(Tok::Punct(":"))) => {
                self.i += 2;
                self.numeric.push((n as u64, self.out.len()));
                Ok(Stmt::Label)
            }
            _ if !self.data.is_empty() && !self.at_data_directive() => {
                self.err("an instruction inside an 8-byte slot that data directives are filling")
            }
            _ => self.instruction().map(|()| Stmt::Insn),
        }
    }

    fn at_data_directive(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if matches!(w.as_str(), ".byte" | ".short" | ".2byte" | ".hword" | ".long" | ".int" | ".4byte" | ".word" | ".8byte" | ".quad" | ".dword"))
    }

    fn instruction(&mut self) -> R<()> {
        let (pos, _) = self.here();
        let word = match self.peek() {
            Some(Tok::Ident(s)) => s.clone(),
            Some(Tok::Punct("*")) => {
                self.i += 1;
                return self.store();
            }
            _ => return self.err(format!("expected an instruction, found {}", self.describe())),
        };
        if let Some(dst) = Self::reg_of(self.peek()) {
            self.i += 1;
            return self.reg_statement(dst);
        }
        self.i += 1;
        match word.as_str() {
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
            ".byte" => self.data_directive(1),
            ".short" | ".2byte" | ".hword" => self.data_directive(2),
            ".long" | ".int" | ".4byte" | ".word" => self.data_directive(4),
            ".8byte" | ".quad" | ".dword" => self.data_directive(8),
            ".rept" => self.rept(pos),
            w if Self::looks_like_reg(w) => self.err_at(pos, w.len(), format!("'{w}' is not a BPF register (r0-r11, w0-w11)")),
            _ => self.err_at(pos, word.len(), format!("unknown instruction '{word}'")),
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
            Some(Tok::Ident(name)) if helper_id(&name).is_some() && !self.label_names.contains(&name) => {
                self.i += 1;
                let id = helper_id(&name).expect("checked");
                self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, id));
                Ok(())
            }
            Some(Tok::Ident(name)) => {
                self.i += 1;
                let idx = self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
                self.fixups.push(Fixup { insn: idx, target: Target::Label(name), pos, len, field: Field::Call });
                Ok(())
            }
            Some(Tok::LocalRef(n, back)) => {
                self.i += 1;
                let idx = self.emit(Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0));
                self.fixups.push(Fixup { insn: idx, target: Target::Local(n, back), pos, len, field: Field::Call });
                Ok(())
            }
            _ => self.err(format!("expected a helper id, helper name or label after 'call', found {}", self.describe())),
        }
    }

    fn cond_jump(&mut self) -> R<()> {
        let dst = self.reg()?;
        let signed = if self.at_ident("s") {
            self.i += 1;
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
        self.i += 1;
        let class = if dst.w { BPF_JMP32 } else { BPF_JMP };
        let insn = if let Some(src) = Self::reg_of(self.peek()) {
            if src.w != dst.w {
                return self.err("both registers of a comparison must be of the same width");
            }
            self.i += 1;
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
            self.i += 1;
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
        self.i += 1;
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
            self.i += 1;
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
                self.i += 1;
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
        self.i += 1;
        self.alu_operand(dst, class | alu, off)
    }

    fn alu_operand(&mut self, dst: Reg, code: u8, off: i16) -> R<()> {
        if let Some(src) = Self::reg_of(self.peek()) {
            if src.w != dst.w {
                return self.err("both registers must be of the same width (rN with rN, wN with wN)");
            }
            self.i += 1;
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
                self.i += 1;
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
                self.i += 1;
                let src = self.reg()?;
                if src != dst {
                    return self.err_at(self.toks[self.i - 1].pos, 2, "negation must be of the destination register itself");
                }
                self.emit(Insn::new(class | BPF_NEG, dst.n, 0, 0, 0));
                Ok(())
            }
            Some(Tok::Punct("(")) => {
                // movsx: `(s8)rN`
                self.i += 1;
                let bits = match self.peek() {
                    Some(Tok::Ident(s)) if s == "s8" => 8,
                    Some(Tok::Ident(s)) if s == "s16" => 16,
                    Some(Tok::Ident(s)) if s == "s32" => 32,
                    _ => return self.err(format!("expected s8, s16 or s32, found {}", self.describe())),
                };
                self.i += 1;
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
                    self.i += 1;
                    if src.w != dst.w {
                        return self.err_at(self.toks[self.i - 1].pos, 2, "both registers must be of the same width");
                    }
                    self.emit(Insn::new(class | BPF_MOV | BPF_X, dst.n, src.n, 0, 0));
                    return Ok(());
                }
                if let Some((kind, bits)) = endian_word(&word) {
                    self.i += 1;
                    let src = self.reg()?;
                    if src.n != dst.n || src.w || dst.w {
                        return self.err_at(self.toks[self.i - 1].pos, 2, format!("{word} takes the destination register itself, as rN"));
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
                    self.i += 1;
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

    fn ld_imm64_sym(&mut self, dst: Reg, name: String) -> R<()> {
        let (pos, len) = self.here();
        self.i += 1;
        if !self.at_ident("ll") {
            return self.err(format!("expected 'll' after the symbol '{name}', found {}", self.describe()));
        }
        self.i += 1;
        if dst.w {
            return self.err_at(pos, len, "ld_imm64 needs a 64-bit register");
        }
        let idx = self.emit(Insn::new(BPF_LD | BPF_IMM | BPF_DW, dst.n, 0, 0, 0));
        self.emit(Insn::default());
        self.fixups.push(Fixup { insn: idx, target: Target::Label(name), pos, len, field: Field::LdImm64 });
        Ok(())
    }

    /// `r0 = *(SZ *)skb[imm]` / `skb[rN]` / `skb[rN + imm]`
    fn ld_abs_ind(&mut self, dst: Reg, sz: u8, signed: bool) -> R<()> {
        self.i += 1;
        if signed || dst.n != 0 {
            return self.err("packet loads take an unsigned size and load into r0");
        }
        self.expect_punct("[")?;
        let insn = if let Some(src) = Self::reg_of(self.peek()) {
            self.i += 1;
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
        self.i += 2; // name (
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
            _ => self.err_at(pos, len, format!("unknown function '{word}'")),
        }
    }

    fn check_atomic_size(&self, sz: u8, pos: usize, len: usize) -> R<()> {
        if sz != BPF_W && sz != BPF_DW {
            return self.err_at(pos, len, "atomic read-modify-write takes u32 or u64");
        }
        Ok(())
    }

    fn numeric_target(&self, n: u64, back: bool, from: usize) -> Option<usize> {
        // `from` is the index of the insn that refers to the label; a label at
        // the same index as a backward reference's own insn counts as before it.
        if back {
            self.numeric.iter().rev().find(|(m, at)| *m == n && *at <= from).map(|x| x.1)
        } else {
            self.numeric.iter().find(|(m, at)| *m == n && *at > from).map(|x| x.1)
        }
    }

    fn finish(mut self) -> R<Program> {
        let mut relocs = Vec::new();
        let fixups = std::mem::take(&mut self.fixups);
        for f in fixups {
            let target = match &f.target {
                Target::Rel(v) => Err(*v),
                Target::Label(name) => match self.labels.get(name) {
                    Some(&at) => Ok(at),
                    None if matches!(f.field, Field::Call | Field::LdImm64) => {
                        let kind = if f.field == Field::Call { RelocKind::Call } else { RelocKind::LdImm64 };
                        if kind == RelocKind::Call {
                            // Unknown until linked: not a bpf-to-bpf call yet.
                            self.out[f.insn].src = 0;
                        }
                        relocs.push(Reloc { insn: f.insn, kind, symbol: name.clone(), pos: f.pos });
                        continue;
                    }
                    None => return self.err_at(f.pos, f.len, format!("undefined label '{name}'")),
                },
                Target::Local(n, back) => match self.numeric_target(*n, *back, f.insn) {
                    Some(at) => Ok(at),
                    None => {
                        return self.err_at(f.pos, f.len, format!("no label {n}: {}", if *back { "before it" } else { "after it" }));
                    }
                },
            };
            let rel = match target {
                Err(v) => v,
                Ok(at) => at as i64 - (f.insn as i64 + 1),
            };
            match f.field {
                Field::Off => {
                    if rel < i16::MIN as i64 || rel > i16::MAX as i64 {
                        return self.err_at(f.pos, f.len, format!("jump offset {rel} does not fit 16 bits (use gotol)"));
                    }
                    self.out[f.insn].off = rel as i16;
                }
                Field::Imm | Field::Call => {
                    if rel < i32::MIN as i64 || rel > i32::MAX as i64 {
                        return self.err_at(f.pos, f.len, format!("offset {rel} does not fit 32 bits"));
                    }
                    self.out[f.insn].imm = rel as i32;
                }
                Field::LdImm64 => {
                    self.out[f.insn].src = BPF_PSEUDO_FUNC;
                    self.out[f.insn].imm = rel as i32;
                }
            }
        }
        Ok(Program { insns: self.out, relocs, labels: self.labels })
    }
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
