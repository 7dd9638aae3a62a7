//! `bpf-selftest veristat OBJ...`: the kernel's veristat
//! (`tools/testing/selftests/bpf/veristat.c`) on the project's backends.
//! Every program of every object is loaded on its own, as veristat loads
//! it: the object opened with libbpf's semantics ([`crate::object`], the
//! same path as `check FILE.bpf.o`), no test flags (only those the section
//! implies), `log_level` `BPF_LOG_STATS` into veristat's 64 KiB buffer.
//! The statistics are read off the log's last lines as veristat reads them
//! (`parse_verif_log`): `verification time N usec` and `processed N insns
//! ... total_states N peak_states N`.
//!
//! With one backend the table is veristat's default table with peak
//! states in place of the program sizes; with two (`--backend model,vm`)
//! it is veristat's comparison (`veristat -C`): per statistic an (A), a (B)
//! and a (DIFF) column, `MATCH`/`MISMATCH` for the verdict.

use std::fmt::Write as _;
use std::path::Path;

use clap::Args;
use serde_json::json;

use super::check;
use crate::backend::{self, LoadRequest};
use crate::object::{BpfObject, object_name};
use crate::target::Arch;
use crate::verifier::log::BPF_LOG_STATS;

#[derive(Args, Debug, Clone)]
pub struct VeristatArgs {
    /// BPF objects (ELF, as clang makes of C).
    #[arg(required = true)]
    pub files: Vec<String>,
    /// A backend (model, kernel or vm), or two comma-separated
    /// (`model,vm`): then the two side by side with their differences, as
    /// `veristat -C` compares two runs.
    #[arg(long, default_value = "model")]
    pub backend: String,
    /// Target arch (default: the host).
    #[arg(long)]
    pub arch: Option<String>,
    /// One JSON object per program: `file`, `prog`, and per backend its
    /// `verdict`, `errno`, `duration_us`, `insns`, `states`, `peak_states`.
    #[arg(long)]
    pub json: bool,
}

/// veristat's log buffer when it is not asked for the log itself.
const VERIF_LOG_BUF_SIZE: u32 = 64 * 1024;

/// One program's numbers on one backend (veristat's `struct verif_stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifStats {
    /// The object's file name (its path's last component).
    pub file_name: String,
    pub prog_name: String,
    /// The load succeeded.
    pub verdict: bool,
    /// errno of a failed load (0 when it succeeded).
    pub errno: i32,
    pub duration_us: u64,
    pub total_insns: u64,
    pub total_states: u64,
    pub peak_states: u64,
    /// Why nothing was loaded (the object or the backend refused before
    /// BPF_PROG_LOAD), for the report; the verdict is then a failure.
    pub error: Option<String>,
}

/// veristat's `parse_verif_log`: the statistics lines of a
/// `BPF_LOG_STATS` log, wherever they are.
pub fn parse_verif_log(log: &str, s: &mut VerifStats) {
    for line in log.lines() {
        if let Some(n) = line.strip_prefix("verification time ").and_then(|r| r.strip_suffix(" usec")) {
            if let Ok(n) = n.parse() {
                s.duration_us = n;
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("processed ") else { continue };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let num = |key: &str| words.iter().position(|w| *w == key).and_then(|i| words.get(i + 1)).and_then(|v| v.parse::<u64>().ok());
        if let (Some(insns), Some(states), Some(peak)) = (words.first().and_then(|w| w.parse().ok()), num("total_states"), num("peak_states")) {
            s.total_insns = insns;
            s.total_states = states;
            s.peak_states = peak;
        }
    }
}

/// A program's name and its request, or why it cannot be made.
type ProgRequest = (String, Result<LoadRequest, String>);

/// The request for each program of the object at `path`, in the object's
/// order: the object opened once, each request the object loader's
/// ([`BpfObject::load_request`]) with veristat's changes: `log_level`
/// `BPF_LOG_STATS` into its buffer, no test flags (the section's only).
fn requests(path: &str, arch: Arch) -> Result<Vec<ProgRequest>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let obj = BpfObject::open_bytes(&data, &object_name(Path::new(path))).map_err(|e| format!("{path}: {e}"))?;
    drop(data);
    Ok(obj
        .programs()
        .map(|p| {
            let req = obj.load_request(&p.name, arch).map_err(|e| format!("{path}: {e}")).map(|mut r| {
                r.log_level = BPF_LOG_STATS;
                r.log_size = VERIF_LOG_BUF_SIZE;
                // the JIT runs as for `check`, though its code is not shown
                r.want_jited = arch.has_jit();
                r
            });
            (p.name.clone(), req)
        })
        .collect())
}

/// Every program of `files` through backend `name`.
fn run_backend(name: &str, files: &[String], arch: Arch) -> Result<Vec<VerifStats>, String> {
    let be = backend::by_name(name)?;
    let mut rows = Vec::new();
    let mut reqs = Vec::new();
    let mut slots = Vec::new();
    for f in files {
        let file_name = Path::new(f).file_name().map_or_else(|| f.clone(), |s| s.to_string_lossy().into_owned());
        for (prog, req) in requests(f, arch)? {
            let mut s = VerifStats { file_name: file_name.clone(), prog_name: prog, ..VerifStats::default() };
            match req {
                Ok(r) => {
                    slots.push(rows.len());
                    reqs.push(r);
                }
                Err(e) => s.error = Some(e),
            }
            rows.push(s);
        }
    }
    let outcomes: Vec<Result<_, String>> = if be.name() == "model" {
        reqs.iter().map(|r| check::load(&*be, r)).collect()
    } else {
        match be.probe(arch) {
            Ok(()) => be.load_batch(&reqs).into_iter().map(|o| o.map_err(|u| u.0)).collect(),
            Err(u) => return Err(format!("backend {name}: {}", u.0)),
        }
    };
    for (k, out) in slots.into_iter().zip(outcomes) {
        let s = &mut rows[k];
        match out {
            Ok(o) => {
                s.verdict = o.accepted;
                s.errno = o.errno;
                parse_verif_log(&o.log, s);
            }
            Err(e) => s.error = Some(e),
        }
    }
    rows.sort_by(|a, b| (&a.file_name, &a.prog_name).cmp(&(&b.file_name, &b.prog_name)));
    Ok(rows)
}

/// A column of the table: its header, left-aligned (text) or not.
struct Column {
    header: &'static str,
    text: bool,
}

const COLUMNS: [Column; 7] = [
    Column { header: "File", text: true },
    Column { header: "Program", text: true },
    Column { header: "Verdict", text: true },
    Column { header: "Duration (us)", text: false },
    Column { header: "Insns", text: false },
    Column { header: "States", text: false },
    Column { header: "Peak states", text: false },
];

/// The file and program name columns, common to both runs of a comparison.
const KEY_COLUMNS: usize = 2;

/// A program's cells; `N/A` (veristat's mark for a missing run) for every
/// statistic of a program nothing was loaded of.
fn cells(s: &VerifStats) -> [String; 7] {
    let stat = |v: String| if s.error.is_some() { "N/A".to_string() } else { v };
    [
        s.file_name.clone(),
        s.prog_name.clone(),
        stat(if s.verdict { "success" } else { "failure" }.to_string()),
        stat(s.duration_us.to_string()),
        stat(s.total_insns.to_string()),
        stat(s.total_states.to_string()),
        stat(s.peak_states.to_string()),
    ]
}

/// veristat's DIFF cell of two numbers: `+N (+P.PP%)`, a change from 0
/// counting as 100%.
fn diff_cell(a: u64, b: u64) -> String {
    let d = b as i64 - a as i64;
    let p = if a == 0 { if b == 0 { 0.0 } else { 100.0 } } else { d as f64 * 100.0 / a as f64 };
    format!("{d:+} ({p:+.2}%)")
}

/// Lays out rows of cells as veristat's table: two spaces between
/// columns, a dashed line under the header and under the last row. Text
/// cells (`headers[k].1`) are left-aligned, numbers right-aligned; headers
/// as their cells, or all left-aligned (`headers_left`, as in a comparison).
fn table(headers: &[(String, bool)], headers_left: bool, rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = headers.iter().map(|(h, _)| h.len()).collect();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            w[k] = w[k].max(c.len());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = (&str, bool)>| {
        let mut s = String::new();
        for (k, (c, text)) in cells.enumerate() {
            if k > 0 {
                s.push_str("  ");
            }
            if text {
                let _ = write!(s, "{c:<0$}", w[k]);
            } else {
                let _ = write!(s, "{c:>0$}", w[k]);
            }
        }
        s.push('\n');
        s
    };
    let rule: String = w.iter().map(|n| "-".repeat(*n)).collect::<Vec<_>>().join("  ") + "\n";
    let mut out = line(&mut headers.iter().map(|(h, t)| (h.as_str(), *t || headers_left)));
    out.push_str(&rule);
    for r in rows {
        out.push_str(&line(&mut r.iter().zip(headers).map(|(c, (_, t))| (c.as_str(), *t))));
    }
    out.push_str(&rule);
    out
}

/// The table of one backend's run.
pub fn render(rows: &[VerifStats]) -> String {
    let headers: Vec<(String, bool)> = COLUMNS.iter().map(|c| (c.header.to_string(), c.text)).collect();
    let cells: Vec<Vec<String>> = rows.iter().map(|s| cells(s).to_vec()).collect();
    table(&headers, false, &cells)
}

/// The comparison table of two runs over the same programs (`veristat -C`).
pub fn render_comparison(a: &[VerifStats], b: &[VerifStats]) -> String {
    let mut headers = Vec::new();
    for (k, c) in COLUMNS.iter().enumerate() {
        if k < KEY_COLUMNS {
            headers.push((c.header.to_string(), true));
        } else {
            for sfx in [" (A)", " (B)", " (DIFF)"] {
                headers.push((format!("{}{sfx}", c.header), c.text));
            }
        }
    }
    let rows: Vec<Vec<String>> = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            let (cx, cy) = (cells(x), cells(y));
            let missing = x.error.is_some() || y.error.is_some();
            let mut r = vec![cx[0].clone(), cx[1].clone()];
            let verdict_diff = match () {
                _ if missing => "N/A",
                _ if cx[2] == cy[2] => "MATCH",
                _ => "MISMATCH",
            };
            r.extend([cx[2].clone(), cy[2].clone(), verdict_diff.to_string()]);
            let nums = [(x.duration_us, y.duration_us), (x.total_insns, y.total_insns), (x.total_states, y.total_states), (x.peak_states, y.peak_states)];
            for (k, (p, q)) in nums.into_iter().enumerate() {
                r.extend([cx[3 + k].clone(), cy[3 + k].clone(), if missing { "N/A".to_string() } else { diff_cell(p, q) }]);
            }
            r
        })
        .collect();
    table(&headers, true, &rows)
}

fn stats_json(s: &VerifStats) -> serde_json::Value {
    let mut v = json!({
        "verdict": if s.verdict { "success" } else { "failure" },
        "errno": s.errno,
        "duration_us": s.duration_us,
        "insns": s.total_insns,
        "states": s.total_states,
        "peak_states": s.peak_states,
    });
    if let Some(e) = &s.error {
        v["error"] = json!(e);
    }
    v
}

pub fn run(a: &VeristatArgs) -> Result<(), String> {
    let arch = match &a.arch {
        Some(s) => s.parse::<Arch>()?,
        None => Arch::host().ok_or("the host arch is not one the model targets; give --arch")?,
    };
    let names: Vec<&str> = a.backend.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if names.is_empty() || names.len() > 2 {
        return Err(format!("--backend '{}': one backend, or two to compare", a.backend));
    }
    let runs = names.iter().map(|n| run_backend(n, &a.files, arch)).collect::<Result<Vec<_>, _>>()?;
    for (n, rows) in names.iter().zip(&runs) {
        for s in rows {
            if let Some(e) = &s.error {
                eprintln!("{n}: failed to load program {}: {e}", s.prog_name);
            }
        }
    }
    let rows = &runs[0];
    if a.json {
        for (k, s) in rows.iter().enumerate() {
            let mut v = json!({ "file": s.file_name, "prog": s.prog_name });
            for (n, run) in names.iter().zip(&runs) {
                v[*n] = stats_json(&run[k]);
            }
            println!("{v}");
        }
        return Ok(());
    }
    let body = match &runs[..] {
        [one] => render(one),
        [x, y] => render_comparison(x, y),
        _ => unreachable!("one or two backends"),
    };
    let legend = match &names[..] {
        [x, y] => format!(" (A: {x}, B: {y})"),
        [x] => format!(" ({x})"),
        _ => String::new(),
    };
    print!("{body}");
    println!("Done. Processed {} files, {} programs{legend}.", a.files.len(), rows.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_come_from_the_last_lines_of_a_stats_log() {
        let log = "func#0 @0\nverification time 17 usec\nstack depth max 8\nsubprog 0 (f) main insns_self 3 insns_total 3 stack 8\n\
                   processed 12 insns (limit 1000000) max_states_per_insn 1 total_states 3 peak_states 2 mark_read 1\n";
        let mut s = VerifStats::default();
        parse_verif_log(log, &mut s);
        assert_eq!((s.duration_us, s.total_insns, s.total_states, s.peak_states), (17, 12, 3, 2));
    }

    #[test]
    fn diff_cells_are_veristats() {
        assert_eq!(diff_cell(10, 15), "+5 (+50.00%)");
        assert_eq!(diff_cell(10, 5), "-5 (-50.00%)");
        assert_eq!(diff_cell(0, 0), "+0 (+0.00%)");
        assert_eq!(diff_cell(0, 3), "+3 (+100.00%)");
    }

    #[test]
    fn tables_align_text_left_and_numbers_right() {
        let s = VerifStats { file_name: "a.bpf.o".into(), prog_name: "p".into(), verdict: true, duration_us: 5, total_insns: 120, ..VerifStats::default() };
        let t = render(std::slice::from_ref(&s));
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "File     Program  Verdict  Duration (us)  Insns  States  Peak states");
        assert_eq!(lines[1], "-------  -------  -------  -------------  -----  ------  -----------");
        assert_eq!(lines[2], "a.bpf.o  p        success              5    120       0            0");
        let c = render_comparison(std::slice::from_ref(&s), &[VerifStats { verdict: false, total_insns: 60, ..s.clone() }]);
        let row = c.lines().nth(2).unwrap();
        assert!(row.contains("success      failure      MISMATCH"), "{c}");
        assert!(row.contains("-60 (-50.00%)"), "{c}");
        let gone = VerifStats { error: Some("no such kfunc".into()), ..s.clone() };
        let c = render_comparison(&[s], &[gone]);
        let row = c.lines().nth(2).unwrap();
        assert!(row.contains("success      N/A          N/A"), "{c}");
        assert!(!row.contains('%'), "{c}");
    }
}
