//! Tokens of the LLVM BPF assembly that kernel selftests write in naked asm.
//!
//! The lexer works on bytes and hands out one token at a time, so the parser
//! holds two tokens of lookahead, never the whole text as tokens. As
//! llvm-mc does, it takes any bytes inside comments; elsewhere a byte that
//! is not part of valid UTF-8 is an error that names its place.

use std::borrow::Cow;

use super::{AsmError, AsmErrorKind, Operand, clip};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    /// Identifiers, register names, mnemonics; `%=` is kept inside labels such
    /// as `l0_%=` (one asm block is one unique-label scope). Borrowed from the
    /// text, or owned when a `%[name]` operand stands for a symbol.
    Ident(Cow<'a, str>),
    Num(i128),
    /// `1b` / `1f`: the nearest numeric label backwards / forwards.
    LocalRef(u64, bool),
    Punct(&'static str),
    /// `;` or a newline.
    Sep,
    /// Text that does not lex; the parser reports it when it gets there.
    Bad(Box<AsmError>),
}

#[derive(Clone, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// Byte offset and length in the source text.
    pub pos: usize,
    pub len: usize,
}

/// Longest first: the lexer takes the first that matches.
const PUNCTS: &[&str] = &[
    "<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "==", "!=", ">=", "<=", "<<", ">>", "&&", "||", ">", "<", "&", "=", "(", ")", "*", "+", "-",
    ",", "[", "]", ":", "|", "^", "/", "%", "!", "~",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$'
}

fn is_ident_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// The first offset of `needle` (two bytes) in `hay`.
fn find2(hay: &[u8], needle: [u8; 2]) -> Option<usize> {
    hay.windows(2).position(|w| w == needle)
}

/// Splits the text into tokens on demand; `%[name]` operands are replaced by
/// what `operands` says they are, keeping the operand's position for errors.
pub struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    operands: &'a dyn Fn(&str) -> Option<Operand>,
    /// The digits of a negative number operand, after its `-`.
    pending: Option<Token<'a>>,
    /// Past the end, or past a token that does not lex.
    done: bool,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8], operands: &'a dyn Fn(&str) -> Option<Operand>) -> Lexer<'a> {
        Lexer { src, pos: 0, operands, pending: None, done: false }
    }

    /// Lexes on from byte `pos`, the start of a token this lexer gave out
    /// (`.rept` goes back to its body this way).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.src.len());
        self.pending = None;
        self.done = false;
    }

    /// The next token; `None` at the end. A [`Tok::Bad`] is the last.
    pub fn next_token(&mut self) -> Option<Token<'a>> {
        if let Some(t) = self.pending.take() {
            return Some(t);
        }
        if self.done {
            return None;
        }
        match self.lex_one() {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                let (pos, len) = (e.pos, e.len);
                Some(Token { tok: Tok::Bad(Box::new(e)), pos, len })
            }
        }
    }

    fn err<T>(&self, pos: usize, len: usize, msg: String) -> Result<T, AsmError> {
        Err(AsmError::at(self.src, pos, len, msg))
    }

    /// A byte at `i` that starts no token: a character out of place, or a
    /// byte that is not UTF-8 at all.
    fn stray(&self, i: usize) -> AsmError {
        let b = self.src;
        let width = match b[i] {
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => 1,
        };
        let ch = b.get(i..i + width).and_then(|s| std::str::from_utf8(s).ok()).and_then(|s| s.chars().next());
        match ch {
            Some(ch) => {
                let shown = if ch.is_control() { ch.escape_debug().to_string() } else { ch.to_string() };
                AsmError::at(self.src, i, ch.len_utf8(), format!("unexpected character '{shown}'"))
            }
            None => {
                let line_start = b[..i].iter().rposition(|&c| c == b'\n').map_or(0, |k| k + 1);
                let mut e = AsmError::at(
                    self.src,
                    i,
                    1,
                    format!("byte 0x{:02x} is not UTF-8 (byte column {}; only comments may hold such bytes)", b[i], i - line_start + 1),
                );
                e.kind = AsmErrorKind::Encoding;
                e
            }
        }
    }

    fn lex_one(&mut self) -> Result<Option<Token<'a>>, AsmError> {
        let b = self.src;
        let mut i = self.pos;
        // blanks and comments
        loop {
            match b.get(i) {
                None => {
                    self.pos = i;
                    return Ok(None);
                }
                Some(b' ' | b'\t' | b'\r' | b'\\') => i += 1,
                Some(b'#') => i = line_end(b, i),
                Some(b'/') if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
                Some(b'/') if b.get(i + 1) == Some(&b'*') => match find2(&b[i + 2..], *b"*/") {
                    Some(end) => {
                        let next = i + 2 + end + 2;
                        // A block comment spanning lines still separates statements.
                        if b[i..next].contains(&b'\n') {
                            self.pos = next;
                            return Ok(Some(Token { tok: Tok::Sep, pos: i, len: 2 }));
                        }
                        i = next;
                    }
                    None => return self.err(i, 2, "unterminated /* comment".into()),
                },
                Some(_) => break,
            }
        }
        let t = match b[i] {
            b'\n' | b';' => Token { tok: Tok::Sep, pos: i, len: 1 },
            b'%' if b.get(i + 1) == Some(&b'[') => self.operand(i)?,
            // `%%` is a literal `%` in a GCC asm template (`w0 %%= w1`).
            b'%' if b[i..].starts_with(b"%%=") => Token { tok: Tok::Punct("%="), pos: i, len: 3 },
            b'%' if b.get(i + 1) == Some(&b'%') => Token { tok: Tok::Punct("%"), pos: i, len: 2 },
            b'0'..=b'9' => self.number(i)?,
            c if is_ident_start(c) => self.ident(i),
            c => match PUNCTS.iter().find(|p| p.as_bytes()[0] == c && b[i..].starts_with(p.as_bytes())) {
                Some(p) => Token { tok: Tok::Punct(p), pos: i, len: p.len() },
                None => return Err(self.stray(i)),
            },
        };
        self.pos = t.pos + t.len;
        Ok(Some(t))
    }

    /// `%[name]` at `i`: what the operand stands for (a negative number is a
    /// `-` now and its digits next).
    fn operand(&mut self, i: usize) -> Result<Token<'a>, AsmError> {
        let b = self.src;
        let Some(close) = b[i..].iter().position(|&c| c == b']') else {
            return self.err(i, 2, "unterminated %[ operand".into());
        };
        let len = close + 1;
        let name = match std::str::from_utf8(&b[i + 2..i + close]) {
            Ok(n) => n,
            Err(e) => return Err(self.stray(i + 2 + e.valid_up_to())),
        };
        let tok = |tok| Token { tok, pos: i, len };
        match (self.operands)(name) {
            // as its decimal text would lex: a sign, then the digits
            Some(Operand::Imm(v)) if v < 0 => {
                self.pending = Some(tok(Tok::Num(-(v as i128))));
                Ok(tok(Tok::Punct("-")))
            }
            Some(Operand::Imm(v)) => Ok(tok(Tok::Num(v as i128))),
            Some(Operand::Sym(s)) => Ok(tok(Tok::Ident(Cow::Owned(s)))),
            None => self.err(i, len, format!("unknown operand %[{}]", clip(name))),
        }
    }

    /// A number, or `1b` / `1f`, at `start`.
    fn number(&self, start: usize) -> Result<Token<'a>, AsmError> {
        let b = self.src;
        let (v, n) = lex_number(&b[start..]).map_err(|m| AsmError::at(b, start, 1, m))?;
        let mut i = start + n;
        // C integer suffixes (`0xffffffff00000000LL`), skipped as LLVM does
        let suffix = b[i..].iter().take_while(|c| matches!(c, b'u' | b'U' | b'l' | b'L')).count();
        if suffix > 0 && !b.get(i + suffix).is_some_and(|&c| is_ident_cont(c)) {
            i += suffix;
        }
        let next = b.get(i).copied();
        if matches!(next, Some(b'b' | b'f')) && !b.get(i + 1).is_some_and(|&c| is_ident_cont(c)) && !b[start..i].starts_with(b"0x") {
            Ok(Token { tok: Tok::LocalRef(v as u64, next == Some(b'b')), pos: start, len: i + 1 - start })
        } else if next.is_some_and(is_ident_cont) {
            let text = String::from_utf8_lossy(&b[start..=i]);
            self.err(start, i + 1 - start, format!("malformed number '{}'", clip(&text)))
        } else {
            Ok(Token { tok: Tok::Num(v), pos: start, len: i - start })
        }
    }

    /// An identifier at `start`.
    fn ident(&self, start: usize) -> Token<'a> {
        let b = self.src;
        let mut i = start;
        loop {
            if i < b.len() && is_ident_cont(b[i]) {
                i += 1;
            } else if b[i..].starts_with(b"%=") && &b[start..i] != b"s" && !b.get(i + 2).is_some_and(|&c| is_ident_cont(c)) {
                // `l0_%=`: GCC's per-asm unique number; one block is one scope.
                i += 2;
            } else {
                break;
            }
        }
        let s = std::str::from_utf8(&b[start..i]).expect("identifiers are ASCII");
        Token { tok: Tok::Ident(Cow::Borrowed(s)), pos: start, len: i - start }
    }
}

/// Where the line that `i` is on ends: its newline, or the end of the text.
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k)
}

/// A decimal or `0x` hexadecimal literal; returns its value and length.
fn lex_number(b: &[u8]) -> Result<(i128, usize), String> {
    if b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        let n = b[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        if n == 0 {
            return Err("hexadecimal literal without digits".into());
        }
        let s = std::str::from_utf8(&b[2..2 + n]).expect("ascii");
        let v = u128::from_str_radix(s, 16).map_err(|_| "number too large".to_string())?;
        if v > u64::MAX as u128 {
            return Err("number does not fit 64 bits".into());
        }
        Ok((v as i128, 2 + n))
    } else {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let s = std::str::from_utf8(&b[..n]).expect("ascii");
        let v = s.parse::<u128>().map_err(|_| "number too large".to_string())?;
        if v > u64::MAX as u128 {
            return Err("number does not fit 64 bits".into());
        }
        Ok((v as i128, n))
    }
}
