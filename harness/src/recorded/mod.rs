//! Sets of kernel truth besides the goldens of `progs/`, each with its
//! format and its recorder (`bpf-selftest record --set NAME`).

pub mod exec_corpus;
pub mod fuzz_regressions;
pub mod isa_encodings;
pub mod kfunc_ids;
pub mod limits;
pub mod map_create;
pub mod scalar_logs;
pub mod test_run_sizes;
pub mod verifier_front;
pub mod verifier_logs;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// The files of `dir` whose name ends in `.ext`, sorted by name.
pub fn files_in(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    Ok(files)
}

/// The JSON text the JSON goldens are kept in: keys sorted, one space of
/// indent per level, every non-ASCII character escaped (`\u00e9`, a pair
/// for characters past U+FFFF), a final newline. It is the form the
/// first recordings were written in, so a file recorded again differs
/// only where the kernel's answer does.
pub fn json_text<T: Serialize>(v: &T) -> Result<String, String> {
    // through a Value: its maps are ordered by key
    let v = serde_json::to_value(v).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, serde_json::ser::PrettyFormatter::with_indent(b" "));
    v.serialize(&mut ser).map_err(|e| e.to_string())?;
    let text = String::from_utf8(buf).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out.push('\n');
    Ok(out)
}

/// A log without what moves from boot to boot: kernel pointers
/// ([`crate::golden::mask_kernel_pointers`]) and level 4's
/// `verification time N usec` (`N` becomes `<t>`).
pub fn stable_log(log: &str) -> String {
    let log = crate::golden::mask_kernel_pointers(log);
    const TIME: &str = "verification time ";
    let mut out = String::with_capacity(log.len());
    let mut rest = log.as_str();
    while let Some(p) = rest.find(TIME) {
        let (head, tail) = rest.split_at(p + TIME.len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("<t>");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// `log_true_size` without what moves from boot to boot: at a log level
/// with statistics (4) the whole log holds the verification time, whose
/// number of digits changes the size. When the kept log shows the time,
/// its digits are taken off; when the buffer cut it away, the size cannot
/// be told apart from the time's and is `None` (not compared).
pub fn stable_log_true_size(log_level: u32, log: &str, log_true_size: u32) -> Option<u32> {
    if log_level & 4 == 0 || log_true_size == 0 {
        return Some(log_true_size);
    }
    let at = log.find("verification time ")? + "verification time ".len();
    let digits = log[at..].bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && log[at + digits..].starts_with(" usec")).then(|| log_true_size.saturating_sub(digits as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_is_sorted_one_space_ascii() {
        let v = serde_json::json!({"b": [1, {"z": null, "a": "é\u{1F600}"}], "a": [], "c": true});
        assert_eq!(json_text(&v).unwrap(), "{\n \"a\": [],\n \"b\": [\n  1,\n  {\n   \"a\": \"\\u00e9\\ud83d\\ude00\",\n   \"z\": null\n  }\n ],\n \"c\": true\n}\n");
    }

    #[test]
    fn boot_values_masked() {
        let log = "0: (18) r1 = 0xffff888005e81a00\nverification time 433476 usec\nstack depth 0\n";
        assert_eq!(stable_log(log), "0: (18) r1 = 0xPTR\nverification time <t> usec\nstack depth 0\n");
        assert_eq!(stable_log_true_size(4, log, 100), Some(94));
        assert_eq!(stable_log_true_size(4, "es 0 peak_states 0 mark_read 0\n", 205), None);
        assert_eq!(stable_log_true_size(2, "x", 205), Some(205));
    }
}
