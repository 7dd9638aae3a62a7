//! String literals with a map back to their source text, so that an
//! assembler error at a byte of the string's value can be placed in the
//! literal as written (escapes and `\` line continuations included).

/// The value of a string literal's source text (`"..."` or `r#"..."#`) and,
/// for each byte of the value plus one past the end, the offset in the
/// source text it came from. `None` for anything else.
pub fn unescape(src: &str) -> Option<(String, Vec<usize>)> {
    let b = src.as_bytes();
    if b.first() == Some(&b'r') {
        let hashes = b[1..].iter().take_while(|&&c| c == b'#').count();
        let open = 1 + hashes;
        if b.get(open) != Some(&b'"') {
            return None;
        }
        let start = open + 1;
        let end = src.len().checked_sub(1 + hashes)?;
        if end < start {
            return None;
        }
        let value = src[start..end].to_string();
        let map = (start..=end).collect();
        return Some((value, map));
    }
    if b.first() != Some(&b'"') || b.len() < 2 || b[b.len() - 1] != b'"' {
        return None;
    }
    let body_end = src.len() - 1;
    let mut value = String::new();
    let mut map = Vec::new();
    let mut i = 1;
    let push = |value: &mut String, map: &mut Vec<usize>, c: char, at: usize| {
        let mut buf = [0u8; 4];
        for _ in c.encode_utf8(&mut buf).bytes() {
            map.push(at);
        }
        value.push(c);
    };
    while i < body_end {
        let c = src[i..].chars().next()?;
        if c != '\\' {
            push(&mut value, &mut map, c, i);
            i += c.len_utf8();
            continue;
        }
        let esc = *b.get(i + 1)?;
        let at = i;
        match esc {
            b'n' => push(&mut value, &mut map, '\n', at),
            b'r' => push(&mut value, &mut map, '\r', at),
            b't' => push(&mut value, &mut map, '\t', at),
            b'0' => push(&mut value, &mut map, '\0', at),
            b'\\' => push(&mut value, &mut map, '\\', at),
            b'\'' => push(&mut value, &mut map, '\'', at),
            b'"' => push(&mut value, &mut map, '"', at),
            b'x' => {
                let v = u8::from_str_radix(src.get(i + 2..i + 4)?, 16).ok()?;
                push(&mut value, &mut map, v as char, at);
                i += 4;
                continue;
            }
            b'u' => {
                let close = src[i..].find('}')? + i;
                let hex: String = src.get(i + 3..close)?.chars().filter(|&c| c != '_').collect();
                let c = char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?;
                push(&mut value, &mut map, c, at);
                i = close + 1;
                continue;
            }
            b'\n' | b'\r' => {
                // Line continuation: the newline and the next line's leading
                // whitespace are not part of the value.
                i += 1;
                while i < body_end && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
                    i += 1;
                }
                continue;
            }
            _ => return None,
        }
        i += 2;
    }
    map.push(body_end);
    Some((value, map))
}

/// 1-based line and column (in characters) of `off` in the literal's source
/// text; the column of the first line does not count the opening quote.
pub fn line_col(src: &str, off: usize) -> (usize, usize) {
    let off = off.min(src.len());
    let before = &src[..off];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let mut col = src[line_start..off].chars().count() + 1;
    if line == 1 {
        let prefix = match src.strip_prefix('r') {
            Some(raw) => 2 + raw.chars().take_while(|&c| c == '#').count(),
            None => 1,
        };
        col = col.saturating_sub(prefix).max(1);
    }
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_escapes() {
        let (v, m) = unescape(r#""a\nb""#).unwrap();
        assert_eq!(v, "a\nb");
        assert_eq!(m, vec![1, 2, 4, 5]);
        let (v, m) = unescape("\"r0 = 0;\\\n     exit;\"").unwrap();
        assert_eq!(v, "r0 = 0;exit;");
        assert_eq!(m[7], 15);
    }

    #[test]
    fn raw() {
        let (v, m) = unescape(r####"r#"x "y""#"####).unwrap();
        assert_eq!(v, r#"x "y""#);
        assert_eq!(m[0], 3);
    }

    #[test]
    fn positions() {
        let src = "\"r0 = 0;\n  bad;\"";
        assert_eq!(line_col(src, 1), (1, 1));
        assert_eq!(line_col(src, 11), (2, 3));
    }
}
