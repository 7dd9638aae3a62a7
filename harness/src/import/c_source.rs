//! Reading kernel selftest C sources (`progs/*.c`) as far as the importer
//! needs: the naked-asm blocks (`asm volatile ("..." : : __imm(x), ...)`),
//! which function each sits in, and their operands.
//!
//! This is not a C parser. It strips comments, joins the string literals of
//! an asm template as the C compiler does, and reads the operand list by the
//! bpf_misc.h macro names. Preprocessor lines inside a template are reported,
//! not guessed at: the importer runs on preprocessed sources.

/// One `asm volatile (...)` statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmBlock {
    /// The function the block is in (the last identifier before a `(` that
    /// opened a top-level definition).
    pub func: String,
    /// The template: the string literals concatenated, escapes decoded.
    pub template: String,
    pub operands: Vec<AsmOperand>,
    /// Byte offset of `asm` in the source.
    pub pos: usize,
    /// Why the block cannot be used as it is (a `#if` inside it, ...).
    pub problem: Option<String>,
}

/// An operand from bpf_misc.h's macros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmOperand {
    /// `__imm(name)`: a helper id, kfunc or subprogram by name.
    Imm(String),
    /// `__imm_const(name, expr)`.
    Const(String, String),
    /// `__imm_addr(name)`: a map or global.
    Addr(String),
    /// `__imm_insn(name, expr)`: a whole raw insn.
    Insn(String, String),
    /// `__imm_ptr(name)`: an address in a register the compiler picks.
    Ptr(String),
    /// `[name] "constraint" (expr)` written out.
    Raw(String, String),
}

impl AsmOperand {
    pub fn name(&self) -> &str {
        match self {
            AsmOperand::Imm(n) | AsmOperand::Addr(n) | AsmOperand::Ptr(n) => n,
            AsmOperand::Const(n, _) | AsmOperand::Insn(n, _) | AsmOperand::Raw(n, _) => n,
        }
    }
}

/// The source with comments replaced by spaces (string and char literals
/// kept), so byte offsets stay valid.
pub fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for o in out.iter_mut().take(end).skip(i) {
                    if *o != b'\n' {
                        *o = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Decodes one C string literal starting at `b[i] == '"'`; returns the text
/// and the index after the closing quote.
fn c_string(b: &[u8], mut i: usize) -> Option<(String, usize)> {
    let mut s = Vec::new();
    i += 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some((String::from_utf8_lossy(&s).into_owned(), i + 1)),
            b'\\' => {
                let c = *b.get(i + 1)?;
                i += 2;
                match c {
                    b'n' => s.push(b'\n'),
                    b't' => s.push(b'\t'),
                    b'\\' => s.push(b'\\'),
                    b'"' => s.push(b'"'),
                    b'\'' => s.push(b'\''),
                    b'\n' => {}
                    b'0'..=b'7' => {
                        let mut v = (c - b'0') as u32;
                        let mut k = 0;
                        while k < 2 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                            v = v * 8 + (b[i] - b'0') as u32;
                            i += 1;
                            k += 1;
                        }
                        s.push(v as u8);
                    }
                    other => s.push(other),
                }
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    None
}

/// Every `asm volatile (...)` / `asm (...)` / `__asm__ (...)` block of `src`.
pub fn asm_blocks(src: &str) -> Vec<AsmBlock> {
    let clean = strip_comments(src);
    let b = clean.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(rel) = clean[i..].find("asm") {
        let at = i + rel;
        i = at + 3;
        let before_ok = at == 0 || !is_ident(b[at - 1]) || clean[..at].ends_with("__");
        let mut j = at + 3;
        if clean[j..].starts_with("__") {
            j += 2;
        }
        if !before_ok || b.get(j).is_some_and(|&c| is_ident(c)) {
            continue;
        }
        j = skip_ws(b, j);
        for q in ["volatile", "__volatile__", "goto", "inline"] {
            if clean[j..].starts_with(q) && !b.get(j + q.len()).is_some_and(|&c| is_ident(c)) {
                j = skip_ws(b, j + q.len());
            }
        }
        if b.get(j) != Some(&b'(') {
            continue;
        }
        j += 1;
        let mut template = String::new();
        let mut problem = None;
        // the template: string literals, whitespace and stray preprocessor lines
        loop {
            j = skip_ws(b, j);
            match b.get(j) {
                Some(b'"') => match c_string(b, j) {
                    Some((s, next)) => {
                        template.push_str(&s);
                        j = next;
                    }
                    None => break,
                },
                Some(b'#') => {
                    let end = clean[j..].find('\n').map_or(b.len(), |e| j + e);
                    problem.get_or_insert_with(|| format!("preprocessor line inside the asm: {}", clean[j..end].trim()));
                    j = end;
                }
                _ => break,
            }
        }
        // the operand lists, up to the matching ')'
        let (ops_text, end) = balanced(&clean, j);
        i = end.max(i);
        out.push(AsmBlock {
            func: enclosing_function(&clean, at),
            template,
            operands: parse_operands(ops_text),
            pos: at,
            problem,
        });
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Skips whitespace and backslash line continuations.
fn skip_ws(b: &[u8], mut j: usize) -> usize {
    while j < b.len() && (b[j].is_ascii_whitespace() || (b[j] == b'\\' && b.get(j + 1) == Some(&b'\n'))) {
        j += 1;
    }
    j
}

/// From just inside an open `(`: the text up to its matching `)` and the
/// index after it (string literals skipped).
fn balanced(s: &str, from: usize) -> (&str, usize) {
    let b = s.as_bytes();
    let mut depth = 1;
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'"' => {
                j += 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[from..j], j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    (&s[from.min(s.len())..], s.len())
}

/// Splits `a, b(c, d), e` at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

fn parse_operands(text: &str) -> Vec<AsmOperand> {
    let mut out = Vec::new();
    // `: outputs : inputs : clobbers` — operands come from the first two.
    for section in text.split(':').take(3) {
        for item in split_top(section) {
            let (name, args) = match item.find('(') {
                Some(p) if item.ends_with(')') => (item[..p].trim(), &item[p + 1..item.len() - 1]),
                _ => (item, ""),
            };
            let args = split_top(args);
            let first = args.first().map(|s| s.to_string()).unwrap_or_default();
            let rest = args.get(1..).map(|r| r.join(", ")).unwrap_or_default();
            match name {
                "__imm" => out.push(AsmOperand::Imm(first)),
                "__imm_const" => out.push(AsmOperand::Const(first, rest)),
                "__imm_addr" => out.push(AsmOperand::Addr(first)),
                "__imm_insn" => out.push(AsmOperand::Insn(first, rest)),
                "__imm_ptr" => out.push(AsmOperand::Ptr(first)),
                _ if item.starts_with('[') => {
                    if let Some(close) = item.find(']') {
                        out.push(AsmOperand::Raw(item[1..close].to_string(), item[close + 1..].trim().to_string()));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The name of the function whose body contains `at`: the identifier before
/// the `(` of the last top-level declarator that opened a `{` before `at`.
fn enclosing_function(s: &str, at: usize) -> String {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut last_open = None;
    let mut k = 0;
    while k < at {
        match b[k] {
            b'"' => {
                k += 1;
                while k < at && b[k] != b'"' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => {
                if depth == 0 {
                    last_open = Some(k);
                }
                depth += 1;
            }
            b'}' => depth -= 1,
            _ => {}
        }
        k += 1;
    }
    let Some(open) = last_open else { return String::new() };
    // back to the parameter list's '(' then the identifier before it
    let head = &s[..open];
    let Some(close) = head.rfind(')') else { return String::new() };
    let mut depth = 0;
    let mut p = close;
    loop {
        match b[p] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        if p == 0 {
            return String::new();
        }
        p -= 1;
    }
    let name_end = head[..p].trim_end().len();
    let name_start = head[..name_end].rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(0, |x| x + 1);
    head[name_start..name_end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_naked_test() {
        let src = r#"
/* comment with asm volatile ( */
SEC("socket")
__naked void neg_read(void)
{
	asm volatile ("r1 = %[m] ll;"		\
"	r6 = *(u64 *)(r1 - 8); // x\n"
	"1: r0 = %[k]; exit;"
	:
	: __imm_addr(m), __imm_const(k, offsetof(struct a, b)), __imm(bpf_map_lookup_elem),
	  __imm_insn(ins, BPF_RAW_INSN(1, 2, 3, 4, 5))
	: __clobber_all);
}
"#;
        let blocks = asm_blocks(src);
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.func, "neg_read");
        assert_eq!(b.template, "r1 = %[m] ll;\tr6 = *(u64 *)(r1 - 8); // x\n1: r0 = %[k]; exit;");
        assert_eq!(
            b.operands,
            vec![
                AsmOperand::Addr("m".into()),
                AsmOperand::Const("k".into(), "offsetof(struct a, b)".into()),
                AsmOperand::Imm("bpf_map_lookup_elem".into()),
                AsmOperand::Insn("ins".into(), "BPF_RAW_INSN(1, 2, 3, 4, 5)".into()),
            ]
        );
        assert_eq!(b.problem, None);
    }
}
