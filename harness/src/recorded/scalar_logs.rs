//! The scalar-domain goldens, `expected/linux-7.3/scalar/<group>.txt`:
//! privileged `socket_filter` programs that exercise the ALU and branch
//! transfer functions on scalars of many shapes, with the main pass of
//! 7.3's level-2 log for each (the insn lines with the registers they
//! changed and the `from A to B:` states; the prelude, `mark_precise`
//! lines, indented lines, blank lines and the statistics left out):
//!
//! ```text
//! # <two header lines>
//!
//! === <name>
//! asm: <the program on one line, insns separated by `; `>
//! result: accepted verified_insns=N | rejected errno=NAME
//! <main pass, one line each>
//! ```
//!
//! `record --set scalar` loads every program again from its `asm:` line
//! (one boot) and writes the files anew; a new program is a new `=== name`
//! and `asm:` line.

use std::path::Path;

use crate::backend::{Backend, LoadOutcome};
use crate::target::Arch;

use super::verifier_logs;

/// One recorded program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub group: String,
    pub name: String,
    pub asm: String,
    pub result: String,
    pub log: Vec<String>,
}

impl Case {
    /// `verified_insns` of an accepted program.
    pub fn verified_insns(&self) -> Option<usize> {
        self.result.strip_prefix("accepted verified_insns=").and_then(|n| n.parse().ok())
    }
}

/// One `<group>.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupFile {
    pub group: String,
    pub header: Vec<String>,
    pub cases: Vec<Case>,
}

pub fn parse(text: &str, group: &str) -> GroupFile {
    let header = text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect();
    let mut cases = Vec::new();
    for chunk in text.split("\n=== ").skip(1) {
        let mut lines = chunk.lines();
        let name = lines.next().unwrap_or_default().to_string();
        let asm = lines.next().and_then(|l| l.strip_prefix("asm: ")).unwrap_or_default().to_string();
        let result = lines.next().and_then(|l| l.strip_prefix("result: ")).unwrap_or_default().to_string();
        let log = lines.filter(|l| !l.is_empty()).map(str::to_string).collect();
        cases.push(Case { group: group.to_string(), name, asm, result, log });
    }
    GroupFile { group: group.to_string(), header, cases }
}

pub fn render(f: &GroupFile) -> String {
    let mut s = String::new();
    for h in &f.header {
        s.push_str(h);
        s.push('\n');
    }
    for c in &f.cases {
        s.push_str(&format!("\n=== {}\nasm: {}\nresult: {}\n", c.name, c.asm, c.result));
        for l in &c.log {
            s.push_str(l);
            s.push('\n');
        }
    }
    s
}

pub fn read_dir(dir: &Path) -> Result<Vec<GroupFile>, String> {
    super::files_in(dir, "txt")?
        .iter()
        .map(|f| {
            let group = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            Ok(parse(&text, group))
        })
        .collect()
}

/// The main pass of a level-2 log: what follows the last `Live regs
/// before insn:` listing up to the statistics, without blank, indented and
/// `mark_precise:` lines.
pub fn main_pass(log: &str) -> Vec<String> {
    let lines: Vec<&str> = log.split('\n').collect();
    let start = lines.iter().rposition(|l| l.starts_with("Live regs before insn:")).map_or(0, |i| i + 1);
    lines[start..]
        .iter()
        .take_while(|l| !l.starts_with("processed "))
        .filter(|l| !l.trim().is_empty() && !l.starts_with(' ') && !l.starts_with("mark_precise:"))
        .map(|l| l.to_string())
        .collect()
}

/// `file` recorded again through `backend` on `arch`, in one batch.
pub fn record(backend: &dyn Backend, arch: Arch, file: &GroupFile, header: &[String]) -> Result<GroupFile, String> {
    let mut reqs = Vec::new();
    for c in &file.cases {
        let load = verifier_logs::Case {
            arch,
            area: file.group.clone(),
            name: c.name.clone(),
            ptype: "socket".into(),
            opts: String::new(),
            asm: c.asm.clone(),
            result: String::new(),
            log1: String::new(),
            log2: String::new(),
        };
        reqs.push(verifier_logs::request(&load, 2).map_err(|e| format!("scalar/{}/{}: {e}", file.group, c.name))?);
    }
    let outs = backend.load_batch(&reqs);
    let mut cases = Vec::new();
    for (c, out) in file.cases.iter().zip(outs) {
        let out: LoadOutcome = out.map_err(|u| format!("scalar/{}/{}: {}", file.group, c.name, u.0))?;
        cases.push(Case { result: verifier_logs::result_line(&out), log: main_pass(&out.log), ..c.clone() });
    }
    Ok(GroupFile { group: file.group.clone(), header: header.to_vec(), cases })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_pass_keeps_the_walk_only() {
        let log = "func#0 @0\nLive regs before insn:\n  0: .......... (b7) r0 = 0\n0: R1=ctx() R10=fp0\n0: (b7) r0 = 0 ; R0=0\nmark_precise: frame0: last_idx 1\n\n1: (95) exit\nprocessed 2 insns\n";
        assert_eq!(main_pass(log), ["0: R1=ctx() R10=fp0", "0: (b7) r0 = 0 ; R0=0", "1: (95) exit"]);
    }

    #[test]
    fn render_is_parse_s_inverse() {
        let text = "# a\n# b\n\n=== x\nasm: r0 = 0; exit;\nresult: accepted verified_insns=2\n0: R1=ctx() R10=fp0\n1: (95) exit\n";
        assert_eq!(render(&parse(text, "g")), text);
    }
}
