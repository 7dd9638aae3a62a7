//! Sets of kernel truth besides the goldens of `progs/`, each with its
//! format and its recorder (`bpf-selftest record --set NAME`).

pub mod backend_truth;
pub mod ctx_probes;
pub mod disasm_c;
pub mod disasm_forms;
pub mod exec_corpus;
pub mod fixup_programs;
pub mod fuzz_regressions;
pub mod isa_encodings;
pub mod jit_forms;
pub mod kfunc_ids;
pub mod limits;
pub mod linfo_logs;
pub mod llvm_text;
pub mod map_create;
pub mod oracle_asm;
pub mod scalar_logs;
pub mod test_run_sizes;
pub mod trampolines;
pub mod verifier_front;
pub mod verifier_logs;

use std::path::{Path, PathBuf};

use bpf_isa::Insn;
use serde::Serialize;

use crate::backend::vm::{VmBackend, VmConfig};
use crate::target::Arch;

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
    to_json(&serde_json::to_value(v).map_err(|e| e.to_string())?, true)
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

/// Bytes as lowercase hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Hex as bytes.
pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd hex '{s}'"));
    }
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| format!("bad hex '{s}'"))).collect()
}

/// The xlated slots as instruction entries: 16 hex digits each, 32 for an
/// `ld_imm64` with its second slot.
pub fn xlated_entries(slots: &[Insn]) -> Vec<String> {
    disasm_c::instructions(slots).iter().map(|i| i.iter().map(|s| bpf_isa::insn::to_hex(*s)).collect()).collect()
}

/// [`xlated_entries`] read back as slots.
pub fn slots_of_entries<S: AsRef<str>>(entries: &[S]) -> Result<Vec<Insn>, String> {
    let mut out = Vec::new();
    for e in entries {
        let e = e.as_ref();
        for k in (0..e.len()).step_by(16) {
            out.push(bpf_isa::insn::from_hex(e.get(k..k + 16).unwrap_or("")).ok_or_else(|| format!("bad xlated entry '{e}'"))?);
        }
    }
    Ok(out)
}

/// The xlated slots with what moves from boot to boot zeroed: the value
/// of an `ld_imm64` (`src_reg` 0) of a kernel address.
pub fn mask_xlated_pointers(slots: &[Insn]) -> Vec<Insn> {
    let mut v = slots.to_vec();
    let mut k = 0;
    while k + 1 < v.len() {
        if v[k].is_ld_imm64() {
            let value = (v[k + 1].imm as u32 as u64) << 32 | v[k].imm as u32 as u64;
            if v[k].src == 0 && value >> 52 == 0xfff {
                v[k].imm = 0;
                v[k + 1].imm = 0;
            }
            k += 2;
        } else {
            k += 1;
        }
    }
    v
}

/// What must not drift in a program's JIT images: test_loader's text of
/// them (LLVM's) without pcs, bytes and per-load kernel addresses, and the
/// number of bytes besides those addresses (see
/// [`crate::cli::record::mask_jited_addresses`]).
pub fn comparable_images(arch: Arch, funcs: &[Vec<u8>]) -> Result<(Vec<String>, usize), String> {
    let text = llvm_text::test_loader_text(arch, funcs)?;
    let (masked, address_bytes) = crate::cli::record::mask_jited_addresses(&text);
    let total: usize = funcs.iter().map(Vec::len).sum();
    Ok((masked, total - address_bytes.min(total)))
}

/// A vm backend whose guest for `arch` runs on QEMU CPU `cpu` (the
/// configured one when `None`).
pub fn vm_with_cpu(arch: Arch, cpu: Option<&str>) -> VmBackend {
    let mut cfg = VmConfig::from_env();
    if let Some(c) = cpu {
        if arch == Arch::Arm64 {
            cfg.cpu_arm64 = c.to_string();
        } else {
            cfg.cpu_x86_64 = c.to_string();
        }
    }
    VmBackend::new(cfg)
}

/// How a vm backend is described in headers.
pub fn describe_vm(vm: &VmBackend, arch: Arch) -> String {
    format!("vm (QEMU TCG, -cpu {})", vm.config().cpu(arch))
}

/// The count of a `--check` or a recording, for its summary line.
#[derive(Debug, Default)]
pub struct Tally {
    pub unchanged: usize,
    pub drifted: Vec<String>,
    pub written: usize,
}

impl Tally {
    /// One entry compared: unchanged, or drifted with a report (the first
    /// drift's in full on stderr, the others by name).
    pub fn compare<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, stored: &T, now: &T) {
        if stored == now {
            self.unchanged += 1;
            return;
        }
        if self.drifted.is_empty() {
            let (a, b) = (format!("{stored:#?}"), format!("{now:#?}"));
            eprintln!("{what}: stored (-) and now (+):\n{}", similar::TextDiff::from_lines(&a, &b).unified_diff().context_radius(3));
        }
        self.drifted.push(what.to_string());
    }

    /// The summary line, and an error listing the drift.
    pub fn finish(&self, set: &str, check: bool, secs: f64) -> Result<(), String> {
        if check {
            println!("record --set {set}: {} unchanged, {} drifted ({secs:.0} s)", self.unchanged, self.drifted.len());
        } else {
            println!("record --set {set}: {} written ({secs:.0} s)", self.written);
        }
        if self.drifted.is_empty() { Ok(()) } else { Err(format!("drifted:\n{}", self.drifted.join("\n"))) }
    }
}

/// `value` as JSON the way the recorded files are laid out (Python's
/// `json.dump(indent=1)`: one-space indents, `", "`-free, ASCII).
pub fn to_json<T: serde::Serialize>(value: &T, trailing_newline: bool) -> Result<String, String> {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    value.serialize(&mut ser).map_err(|e| e.to_string())?;
    let mut s = String::from_utf8(buf).map_err(|e| e.to_string())?;
    // Python escapes what is not ASCII
    if !s.is_ascii() {
        s = s.chars().map(|c| if c.is_ascii() { c.to_string() } else { c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect() }).collect();
    }
    if trailing_newline {
        s.push('\n');
    }
    Ok(s)
}

/// Kernel addresses in a text (`0x` and 16 hex digits from `0xfff`) as
/// `0xPTR`, for comparing texts that show them.
pub fn mask_hex_pointers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("0x") {
        out.push_str(&rest[..p + 2]);
        rest = &rest[p + 2..];
        let n = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if n == 16 && rest[..3].eq_ignore_ascii_case("fff") {
            out.push_str("PTR");
            rest = &rest[16..];
        }
    }
    out.push_str(rest);
    out
}

/// The repository root of the goldens directory `out` (`expected`).
pub fn root_of(out: &std::path::Path) -> std::path::PathBuf {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_is_sorted_one_space_ascii() {
        let v = serde_json::json!({"b": [1, {"z": null, "a": "é\u{1F600}"}], "a": [], "c": true});
        assert_eq!(
            json_text(&v).unwrap(),
            "{\n \"a\": [],\n \"b\": [\n  1,\n  {\n   \"a\": \"\\u00e9\\ud83d\\ude00\",\n   \"z\": null\n  }\n ],\n \"c\": true\n}\n"
        );
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
