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
    /// The clobber list (`"r0", "memory"` -> r0, memory).
    pub clobbers: Vec<String>,
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
            clobbers: parse_clobbers(ops_text),
            pos: at,
            problem,
        });
    }
    out
}

/// Where the identifier that ends `s` starts (`s.len()` if none does).
pub fn ident_suffix_start(s: &str) -> usize {
    s.char_indices().rev().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_')).map_or(0, |(i, c)| i + c.len_utf8())
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
    for section in split_sections(text).into_iter().take(3) {
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

/// The clobbers: string literals of the third `:` section (the text
/// starts at the first `:`).
fn parse_clobbers(text: &str) -> Vec<String> {
    let Some(section) = split_sections(text).into_iter().nth(3) else { return Vec::new() };
    let b = section.as_bytes();
    let mut out = Vec::new();
    let mut j = 0;
    while j < b.len() {
        if b[j] == b'"' {
            match c_string(b, j) {
                Some((s, n)) => {
                    out.push(s);
                    j = n;
                }
                None => break,
            }
        } else {
            j += 1;
        }
    }
    out
}

/// Splits an asm statement's operand text at its top-level `:`s (outside
/// strings and parentheses, so `a ? b : c` in an operand stays whole).
fn split_sections(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut depth, mut start, mut j) = (0i32, 0, 0);
    while j < b.len() {
        match b[j] {
            b'"' => {
                j += 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b':' if depth == 0 => {
                out.push(&text[start..j]);
                start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    out.push(&text[start.min(text.len())..]);
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
    let name_start = ident_suffix_start(&head[..name_end]);
    head[name_start..name_end].to_string()
}

// ---------------------------------------------------------------------
// Preprocessed translation units
// ---------------------------------------------------------------------

/// One top-level item of a preprocessed translation unit: a function
/// definition or a declaration (up to its `;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopItem {
    /// The item's text, preprocessor lines (line markers, `#pragma`)
    /// blanked out.
    pub text: String,
    /// For a function definition: the byte length of its head (everything
    /// before the body's `{`).
    pub body_at: Option<usize>,
    /// The file the item starts in (from the line markers).
    pub file: String,
    /// Its line there.
    pub line: u32,
}

impl TopItem {
    pub fn is_function(&self) -> bool {
        self.body_at.is_some()
    }

    /// The head of a function definition, or the whole declaration.
    pub fn head(&self) -> &str {
        &self.text[..self.body_at.unwrap_or(self.text.len())]
    }

    /// The body of a function definition, braces included.
    pub fn body(&self) -> &str {
        self.body_at.map_or("", |b| &self.text[b..])
    }
}

/// Reads `# N "file" ...` (a line marker) or `#line N "file"`.
fn line_marker(line: &str) -> Option<(u32, String)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let n = rest[..end].parse().ok()?;
    let q = rest[end..].trim_start();
    let file = if q.starts_with('"') { c_string(q.as_bytes(), 0).map(|(s, _)| s)? } else { return Some((n, String::new())) };
    Some((n, file))
}

/// Splits preprocessor output (gcc `cpp`, line markers kept) into its
/// top-level items. A `{` at file scope opens a function body when what
/// precedes it, attributes aside, ends with a parameter list; otherwise it
/// is an aggregate or an initializer and the item goes on to its `;`.
pub fn top_level_items(pre: &str) -> Vec<TopItem> {
    // Blank the directive lines, remembering where each line starts and
    // which file/line it is.
    let mut clean = String::with_capacity(pre.len());
    let mut origin: Vec<(usize, String, u32)> = Vec::new(); // (offset, file, line) of each source line
    let (mut file, mut line) = (String::new(), 1u32);
    for l in pre.split_inclusive('\n') {
        if l.trim_start().starts_with('#') {
            if let Some((n, f)) = line_marker(l) {
                line = n;
                if !f.is_empty() {
                    file = f;
                }
            }
            clean.extend(l.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            continue;
        }
        origin.push((clean.len(), file.clone(), line));
        clean.push_str(l);
        line += 1;
    }
    let where_is = |off: usize| -> (String, u32) {
        let k = origin.partition_point(|(o, _, _)| *o <= off);
        origin.get(k.wrapping_sub(1)).map_or((String::new(), 0), |(_, f, l)| (f.clone(), *l))
    };

    let b = clean.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0i32; // (), [] and {} together
    let mut j = 0;
    while j < b.len() {
        match b[j] {
            b'"' | b'\'' => {
                let q = b[j];
                j += 1;
                while j < b.len() && b[j] != q && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 && is_function_head(&clean[start..j]) => {
                let (_, end) = balanced_braces(&clean, j + 1);
                push_item(&mut out, &clean, start, end, Some(j - start), &where_is);
                start = end;
                j = end;
                continue;
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b';' if depth == 0 => {
                push_item(&mut out, &clean, start, j + 1, None, &where_is);
                start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    out
}

fn push_item(out: &mut Vec<TopItem>, clean: &str, start: usize, end: usize, body: Option<usize>, where_is: &dyn Fn(usize) -> (String, u32)) {
    let text = &clean[start..end.min(clean.len())];
    let lead = text.len() - text.trim_start().len();
    let text = text.trim();
    if text.is_empty() || text == ";" {
        return;
    }
    let (file, line) = where_is(start + lead);
    out.push(TopItem { text: text.to_string(), body_at: body.map(|b| b - lead), file, line });
}

/// From just inside a `{`: the text up to its matching `}` and the index
/// after it.
fn balanced_braces(s: &str, from: usize) -> (&str, usize) {
    let b = s.as_bytes();
    let mut depth = 1;
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'"' | b'\'' => {
                let q = b[j];
                j += 1;
                while j < b.len() && b[j] != q && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => depth += 1,
            b'}' => {
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

/// Whether `head` (the text before a file-scope `{`) is a function
/// declarator: attributes removed, it ends with `)` and has no `=`.
fn is_function_head(head: &str) -> bool {
    let (plain, _) = split_attributes(head);
    let t = plain.trim_end();
    t.ends_with(')') && !plain.contains('=') && !t.starts_with("typedef")
}

/// `head` without its `__attribute__((...))` groups, and the inside of each
/// group (`section("socket"), used`).
pub fn split_attributes(head: &str) -> (String, Vec<String>) {
    let mut plain = String::with_capacity(head.len());
    let mut attrs = Vec::new();
    let mut rest = head;
    while let Some(p) = find_word(rest, &["__attribute__", "__attribute"]) {
        plain.push_str(&rest[..p.0]);
        let after = rest[p.0 + p.1..].trim_start();
        let Some(inner) = after.strip_prefix('(') else {
            plain.push_str(&rest[p.0..p.0 + p.1]);
            rest = &rest[p.0 + p.1..];
            continue;
        };
        let offset = rest.len() - inner.len();
        let (text, end) = balanced(rest, offset);
        let text = text.trim();
        let text = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(text);
        attrs.push(text.trim().to_string());
        plain.push(' ');
        rest = &rest[end..];
    }
    plain.push_str(rest);
    (plain, attrs)
}

/// The first occurrence of one of `words` as a whole identifier: (offset, length).
fn find_word(s: &str, words: &[&str]) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let mut best: Option<(usize, usize)> = None;
    for w in words {
        let mut from = 0;
        while let Some(p) = s[from..].find(w) {
            let at = from + p;
            let end = at + w.len();
            let ok_before = at == 0 || !is_ident(b[at - 1]);
            let ok_after = end >= b.len() || !is_ident(b[end]);
            if ok_before && ok_after {
                if best.is_none_or(|(bp, _)| at < bp) {
                    best = Some((at, w.len()));
                }
                break;
            }
            from = at + 1;
        }
    }
    best
}

/// The string literals of an attribute's argument (`section("socket")`,
/// `btf_decl_tag("comment:" "3" ":" "x")`), each group of adjacent ones
/// joined, for the attribute named `name`; None if `attr` has no such
/// entry.
pub fn attribute_strings(attr: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in split_top(attr) {
        let Some(rest) = item.strip_prefix(name) else { continue };
        let rest = rest.trim_start();
        if !rest.starts_with('(') {
            continue;
        }
        let b = rest.as_bytes();
        let mut j = 1;
        let mut s = String::new();
        while j < b.len() {
            match b[j] {
                b'"' => match c_string(b, j) {
                    Some((t, n)) => {
                        s.push_str(&t);
                        j = n;
                    }
                    None => break,
                },
                _ => j += 1,
            }
        }
        out.push(s);
    }
    out
}

/// Whether one of `attrs` (insides of `__attribute__((...))`) has the bare
/// word `name` (`naked`, `weak`).
pub fn has_attribute(attrs: &[String], name: &str) -> bool {
    attrs.iter().any(|a| {
        split_top(a).iter().any(|item| {
            let w = item.trim();
            let w = w.strip_prefix("__").and_then(|x| x.strip_suffix("__")).unwrap_or(w);
            w == name || w.starts_with(&format!("{name}("))
        })
    })
}

/// A function definition's head, read: its name, whether it is `static`,
/// its parameter list text and its attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncHead {
    pub name: String,
    pub is_static: bool,
    pub params: String,
    pub attrs: Vec<String>,
}

pub fn func_head(head: &str) -> Option<FuncHead> {
    let (plain, attrs) = split_attributes(head);
    let t = plain.trim_end();
    let close = t.len().checked_sub(1)?;
    if !t.ends_with(')') {
        return None;
    }
    // back to the matching '('
    let b = t.as_bytes();
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
        p = p.checked_sub(1)?;
    }
    let params = t[p + 1..close].trim().to_string();
    let before = t[..p].trim_end();
    let start = ident_suffix_start(before);
    let name = before[start..].to_string();
    if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let is_static = find_word(&before[..start], &["static"]).is_some();
    Some(FuncHead { name, is_static, params, attrs })
}

/// Number of parameters of a parameter list (`void` is none).
pub fn param_count(params: &str) -> usize {
    let p = params.trim();
    if p.is_empty() || p == "void" { 0 } else { split_top(p).len() }
}

/// The names a declaration declares (`int a, b[2] = {1}` -> a, b), with the
/// text of each declarator. Type definitions without a declarator give
/// nothing.
pub fn declarators(decl: &str) -> Vec<(String, String)> {
    let (plain, _) = split_attributes(decl.trim_end_matches(';'));
    let plain = plain.trim();
    // Skip a leading aggregate body (`struct {...} name`).
    let body_end = match plain.find('{') {
        Some(open) if !plain[..open].contains('=') => {
            let (_, end) = balanced_braces(plain, open + 1);
            end
        }
        _ => 0,
    };
    let tail = &plain[body_end..];
    let mut out = Vec::new();
    for (k, d) in split_top(tail).into_iter().enumerate() {
        let d_no_init = match top_level_eq(d) {
            Some(e) => &d[..e],
            None => d,
        };
        // remove bracket groups (array sizes) and typeof(...) groups
        let mut simplified = String::new();
        let mut depth = 0;
        for c in d_no_init.chars() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ if depth == 0 => simplified.push(c),
                _ => {}
            }
        }
        let simplified = strip_call_groups(&simplified, &["typeof", "__typeof__", "__typeof"]);
        // A function prototype: identifier followed by '(' that is not '(*'
        if k == 0
            && body_end == 0
            && let Some(open) = simplified.find('(')
            && !simplified[open + 1..].trim_start().starts_with('*')
        {
            return Vec::new();
        }
        // a pointer to function or array: the name is inside `(* ...)`
        let simplified = match simplified.find('(').filter(|&o| simplified[o + 1..].trim_start().starts_with('*')) {
            Some(open) => {
                let (inner, _) = balanced(&simplified, open + 1);
                format!("{} {inner}", &simplified[..open])
            }
            None => simplified,
        };
        let idents: Vec<&str> =
            simplified.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty() && !w.as_bytes()[0].is_ascii_digit()).collect();
        let tagged_type = matches!(idents.first(), Some(&("struct" | "union" | "enum")));
        if k == 0 && body_end == 0 && (idents.len() < 2 || (tagged_type && idents.len() == 2)) {
            // only a type (`struct foo;`, `enum x;`)
            continue;
        }
        if let Some(name) = idents.last()
            && !C_KEYWORDS.contains(name)
        {
            out.push((name.to_string(), d.to_string()));
        }
    }
    out
}

const C_KEYWORDS: &[&str] = &[
    "int", "char", "long", "short", "unsigned", "signed", "void", "struct", "union", "enum", "const", "volatile", "static", "extern", "float", "double",
    "_Bool", "bool", "typedef", "inline", "restrict",
];

/// Offset of the first `=` at depth 0 of `s` (an initializer).
fn top_level_eq(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 && b.get(k + 1) != Some(&b'=') && k > 0 && !b"!<>=".contains(&b[k - 1]) => return Some(k),
            _ => {}
        }
    }
    None
}

/// The initializer text of a declarator (`x = {1, 2}` -> `{1, 2}`).
pub fn initializer(declarator: &str) -> Option<&str> {
    top_level_eq(declarator).map(|e| declarator[e + 1..].trim())
}

/// Removes `word(...)` groups.
fn strip_call_groups(s: &str, words: &[&str]) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some((at, len)) = find_word(rest, words) {
        out.push_str(&rest[..at]);
        let after = &rest[at + len..];
        let trimmed = after.trim_start();
        if let Some(inner) = trimmed.strip_prefix('(') {
            let off = at + len + (after.len() - trimmed.len()) + 1;
            let (_, end) = balanced(rest, off);
            let _ = inner;
            out.push(' ');
            rest = &rest[end..];
        } else {
            out.push_str(&rest[at..at + len]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The fields of a `struct { ... }` body: (name, text of the member).
pub fn struct_fields(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let b = body.as_bytes();
    let (mut depth, mut start) = (0i32, 0);
    for (k, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b';' if depth == 0 => {
                let member = body[start..k].trim();
                start = k + 1;
                let (plain, _) = split_attributes(member);
                let mut simplified = String::new();
                let mut d = 0;
                for ch in plain.chars() {
                    match ch {
                        '[' => d += 1,
                        ']' => d -= 1,
                        _ if d == 0 => simplified.push(ch),
                        _ => {}
                    }
                }
                let simplified = strip_call_groups(&simplified, &["typeof", "__typeof__", "__typeof"]);
                if let Some(name) =
                    simplified.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).rfind(|w| !w.is_empty() && !w.as_bytes()[0].is_ascii_digit())
                {
                    out.push((name.to_string(), member.to_string()));
                }
            }
            _ => {}
        }
    }
    out
}

/// The body of the first `{...}` of `s` (without the braces).
pub fn first_brace_body(s: &str) -> Option<&str> {
    let open = s.find('{')?;
    let (body, _) = balanced_braces(s, open + 1);
    Some(body)
}

/// A prog array's initialiser, `{ .values = { [0] = (void *)&prog, ... } }`,
/// as libbpf reads it: the program named at each key (designated or, as
/// in C, positional after the previous one). `Err` names what is not that
/// shape (a map of maps' `&inner_map` reads the same, so the caller checks
/// the map type).
pub fn prog_array_slots(init: &str) -> Result<Vec<(u32, String)>, String> {
    let at = init.find(".values").ok_or("no .values")?;
    let after = &init[at + ".values".len()..];
    let eq = after.find('=').ok_or("no '=' after .values")?;
    if !after[..eq].trim().is_empty() {
        return Err(format!("unexpected '{}' after .values", after[..eq].trim()));
    }
    let body = first_brace_body(&after[eq..]).ok_or(".values is not a braced list")?;
    let mut slots = Vec::new();
    let mut next: u32 = 0;
    for entry in body.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let (key, expr) = match entry.strip_prefix('[') {
            Some(rest) => {
                let (k, rest) = rest.split_once(']').ok_or_else(|| format!("'{entry}': no ']'"))?;
                let k = k.trim();
                let key = match k.strip_prefix("0x").or_else(|| k.strip_prefix("0X")) {
                    Some(h) => u32::from_str_radix(h, 16),
                    None => k.parse::<u32>(),
                }
                .map_err(|_| format!("'{entry}': key '{k}' is not a number"))?;
                let rest = rest.trim_start().strip_prefix('=').ok_or_else(|| format!("'{entry}': no '='"))?;
                (key, rest.trim())
            }
            None => (next, entry),
        };
        // `(void *)&prog`, `(void *) &prog`, `&prog`
        let mut e = expr;
        if let Some(rest) = e.strip_prefix('(') {
            let (cast, rest) = rest.split_once(')').ok_or_else(|| format!("'{entry}': unbalanced cast"))?;
            if cast.split_whitespace().collect::<String>() != "void*" {
                return Err(format!("'{entry}': cast to '{}'", cast.trim()));
            }
            e = rest.trim_start();
        }
        let name = e.strip_prefix('&').map(str::trim).ok_or_else(|| format!("'{entry}': not the address of a program"))?;
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("'{entry}': not the address of a program"));
        }
        slots.push((key, name.to_string()));
        next = key.checked_add(1).ok_or_else(|| format!("'{entry}': key out of range"))?;
    }
    Ok(slots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_prog_array_slots() {
        let init = "{ .values = { [0] = (void *) &main, [0x7] = (void *)&b, &c, }, }";
        assert_eq!(prog_array_slots(init), Ok(vec![(0, "main".into()), (7, "b".into()), (8, "c".into())]));
        assert!(prog_array_slots("{ .values = { [0] = (int *)&x } }").is_err());
        assert!(prog_array_slots("{ .values = { [N] = &x } }").is_err());
        assert!(prog_array_slots("{ .key = 1 }").is_err());
    }

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
