//! Tokens of the LLVM BPF assembly that kernel selftests write in naked asm.

use super::{AsmError, Operand};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifiers, register names, mnemonics; `%=` is kept inside labels such
    /// as `l0_%=` (one asm block is one unique-label scope).
    Ident(String),
    Num(i128),
    /// `1b` / `1f`: the nearest numeric label backwards / forwards.
    LocalRef(u64, bool),
    Punct(&'static str),
    /// `;` or a newline.
    Sep,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    /// Byte offset and length in the source text.
    pub pos: usize,
    pub len: usize,
}

/// Longest first: the lexer takes the first that matches.
const PUNCTS: &[&str] = &[
    "<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "==", "!=", ">=", "<=", "<<", ">>",
    "&&", "||", ">", "<", "&", "=", "(", ")", "*", "+", "-", ",", "[", "]", ":", "|", "^", "/", "%",
    "!", "~",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$'
}

fn is_ident_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'$'
}

/// Splits `src` into tokens; `%[name]` operands are replaced by what
/// `operands` says they are, keeping the operand's position for errors.
pub fn lex(src: &str, operands: &dyn Fn(&str) -> Option<Operand>) -> Result<Vec<Token>, AsmError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |pos: usize, len: usize, msg: String| Err(AsmError::at(src, pos, len, msg));
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b'\n' | b';' => {
                out.push(Token { tok: Tok::Sep, pos: i, len: 1 });
                i += 1;
            }
            b' ' | b'\t' | b'\r' | b'\\' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                match src[i + 2..].find("*/") {
                    Some(end) => {
                        // A block comment spanning lines still separates statements.
                        if src[i..i + 2 + end].contains('\n') {
                            out.push(Token { tok: Tok::Sep, pos: i, len: 2 });
                        }
                        i += 2 + end + 2;
                    }
                    None => return err(i, 2, "unterminated /* comment".into()),
                }
            }
            b'%' if b.get(i + 1) == Some(&b'[') => {
                let Some(close) = src[i..].find(']') else {
                    return err(i, 2, "unterminated %[ operand".into());
                };
                let name = &src[i + 2..i + close];
                let len = close + 1;
                match operands(name) {
                    // as its decimal text would lex: a sign, then the digits
                    Some(Operand::Imm(v)) if v < 0 => {
                        out.push(Token { tok: Tok::Punct("-"), pos: i, len });
                        out.push(Token { tok: Tok::Num(-(v as i128)), pos: i, len });
                    }
                    Some(Operand::Imm(v)) => out.push(Token { tok: Tok::Num(v as i128), pos: i, len }),
                    Some(Operand::Sym(s)) => out.push(Token { tok: Tok::Ident(s), pos: i, len }),
                    None => return err(i, len, format!("unknown operand %[{name}]")),
                }
                i += len;
            }
            // `%%` is a literal `%` in a GCC asm template (`w0 %%= w1`).
            b'%' if b[i..].starts_with(b"%%=") => {
                out.push(Token { tok: Tok::Punct("%="), pos: i, len: 3 });
                i += 3;
            }
            b'%' if b.get(i + 1) == Some(&b'%') => {
                out.push(Token { tok: Tok::Punct("%"), pos: i, len: 2 });
                i += 2;
            }
            b'0'..=b'9' => {
                let (v, n) = lex_number(&b[i..]).map_err(|m| AsmError::at(src, start, 1, m))?;
                i += n;
                // C integer suffixes (`0xffffffff00000000LL`), skipped as LLVM does
                let suffix = b[i..].iter().take_while(|c| matches!(c, b'u' | b'U' | b'l' | b'L')).count();
                if suffix > 0 && !b.get(i + suffix).is_some_and(|&c| is_ident_cont(c)) {
                    i += suffix;
                }
                let next = b.get(i).copied();
                if matches!(next, Some(b'b' | b'f'))
                    && !b.get(i + 1).is_some_and(|&c| is_ident_cont(c))
                    && !src[start..i].starts_with("0x")
                {
                    out.push(Token { tok: Tok::LocalRef(v as u64, next == Some(b'b')), pos: start, len: i + 1 - start });
                    i += 1;
                } else if next.is_some_and(is_ident_cont) {
                    return err(start, i + 1 - start, format!("malformed number '{}'", &src[start..=i]));
                } else {
                    out.push(Token { tok: Tok::Num(v), pos: start, len: i - start });
                }
            }
            c if is_ident_start(c) => {
                loop {
                    if i < b.len() && is_ident_cont(b[i]) {
                        i += 1;
                    } else if b[i..].starts_with(b"%=")
                        && &src[start..i] != "s"
                        && !b.get(i + 2).is_some_and(|&c| is_ident_cont(c))
                    {
                        // `l0_%=`: GCC's per-asm unique number; one block is one scope.
                        i += 2;
                    } else {
                        break;
                    }
                }
                out.push(Token { tok: Tok::Ident(src[start..i].to_string()), pos: start, len: i - start });
            }
            _ => {
                let rest = &src[i..];
                match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                    Some(p) => {
                        out.push(Token { tok: Tok::Punct(p), pos: i, len: p.len() });
                        i += p.len();
                    }
                    None => {
                        let ch = rest.chars().next().unwrap_or('?');
                        return err(i, ch.len_utf8(), format!("unexpected character '{ch}'"));
                    }
                }
            }
        }
    }
    Ok(out)
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
