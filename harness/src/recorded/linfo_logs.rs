//! The verifier-log goldens of C programs, whose loads carry `line_info`:
//! `expected/linux-7.3/linfo/`. Each `<area>.c` is compiled with clang 19
//! (`-g -O2 --target=bpfel -mcpu=v3`), and `<area>.txt` holds what 7.3
//! logged for every program of the object at levels 1 and 2, loaded as
//! `check FILE.bpf.o --prog NAME` loads it (the object's BTF, `func_info`
//! and `line_info`):
//!
//! ```text
//! # Linux 7.3.4 x86_64 ... verifier logs of <area>.c, levels 1 and 2; ...
//! # Recorded by `bpf-selftest record --set linfo` on <date>; do not edit.
//!
//! === <program>
//! result: accepted verified_insns=N | rejected errno=NAME
//! --- level 1
//! <log>
//! --- level 2
//! <log>
//! ```
//!
//! A new program is a new function in an area's source (or a new
//! `<area>.c`); `record --set linfo` then writes the area's file anew.
//! The logs quote the source (`; <line> @ <file>:<n>`, the diagnostics'
//! `Source context:`), so the goldens hold only as long as clang 19 makes
//! the same object of it.

use std::path::Path;

use crate::backend::{Backend, LoadRequest};
use crate::object::BpfObject;
use crate::target::Arch;

/// The arguments clang is run with.
pub const CLANG_ARGS: [&str; 5] = ["-g", "-O2", "--target=bpfel", "-mcpu=v3", "-c"];

/// One program's recorded loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub result: String,
    pub log1: String,
    pub log2: String,
}

/// One `<area>.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AreaFile {
    pub area: String,
    pub header: Vec<String>,
    pub cases: Vec<Case>,
}

/// Reads one area file.
pub fn parse(text: &str, area: &str) -> AreaFile {
    let header = text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect();
    let mut cases = Vec::new();
    for chunk in text.split("\n=== ").skip(1) {
        let mut c = Case { name: String::new(), result: String::new(), log1: String::new(), log2: String::new() };
        let mut sect = 0;
        for (i, l) in chunk.lines().enumerate() {
            match sect {
                _ if i == 0 => c.name = l.to_string(),
                0 if l.starts_with("result: ") => c.result = l[8..].to_string(),
                _ if l == "--- level 1" => sect = 1,
                _ if l == "--- level 2" => sect = 2,
                1 => {
                    c.log1.push_str(l);
                    c.log1.push('\n');
                }
                2 => {
                    c.log2.push_str(l);
                    c.log2.push('\n');
                }
                _ => {}
            }
        }
        cases.push(c);
    }
    AreaFile { area: area.to_string(), header, cases }
}

/// Writes one area file in the form [`parse`] reads (logs without their
/// trailing newlines).
pub fn render(f: &AreaFile) -> String {
    let mut s = String::new();
    for h in &f.header {
        s.push_str(h);
        s.push('\n');
    }
    for c in &f.cases {
        s.push_str(&format!("\n=== {}\nresult: {}\n", c.name, c.result));
        s.push_str(&format!("--- level 1\n{}\n", c.log1.trim_end_matches('\n')));
        s.push_str(&format!("--- level 2\n{}\n", c.log2.trim_end_matches('\n')));
    }
    s
}

/// The areas of `dir`: each `<area>.c` with its `<area>.txt` (empty of
/// cases before the first recording).
pub fn read_dir(dir: &Path) -> Result<Vec<AreaFile>, String> {
    super::files_in(dir, "c")?
        .iter()
        .map(|c| {
            let area = c.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let txt = c.with_extension("txt");
            let text = if txt.exists() { std::fs::read_to_string(&txt).map_err(|e| format!("{}: {e}", txt.display()))? } else { String::new() };
            Ok(parse(&text, area))
        })
        .collect()
}

/// The object clang 19 makes of `src`; `None` without clang.
pub fn compile(src: &Path) -> Result<Option<BpfObject>, String> {
    let Some(clang) = crate::import::clang::clang_program() else {
        return Ok(None);
    };
    let area = src.file_stem().and_then(|s| s.to_str()).unwrap_or("linfo");
    let dir = std::env::temp_dir().join(format!("bpf-selftest-linfo-{}-{area}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let o = dir.join(format!("{area}.bpf.o"));
    let out = std::process::Command::new(clang).args(CLANG_ARGS).arg(src).arg("-o").arg(&o).output().map_err(|e| format!("{clang}: {e}"))?;
    let bytes = std::fs::read(&o);
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        return Err(format!("{}: clang failed: {}", src.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let bytes = bytes.map_err(|e| format!("{}: {e}", o.display()))?;
    BpfObject::open_bytes(&bytes, area).map(Some).map_err(|e| format!("{}: {e}", src.display()))
}

/// The load of program `name` of `obj` at `level`, as `check FILE.bpf.o`
/// makes it.
pub fn request(obj: &BpfObject, name: &str, arch: Arch, level: u32) -> Result<LoadRequest, String> {
    let mut req = obj.load_request(name, arch).map_err(|e| format!("{name}: {e}"))?;
    req.log_level = level;
    Ok(req)
}

/// The programs of `obj`, in the object's order.
pub fn program_names(obj: &BpfObject) -> Vec<String> {
    obj.programs().map(|p| p.name.clone()).collect()
}

/// Every program of `obj` loaded through `backend` (a real kernel) at
/// levels 1 and 2, in one batch.
pub fn record(backend: &dyn Backend, obj: &BpfObject, area: &str, arch: Arch, header: &[String]) -> Result<AreaFile, String> {
    let names = program_names(obj);
    let mut reqs = Vec::new();
    for n in &names {
        for level in [1, 2] {
            reqs.push(request(obj, n, arch, level).map_err(|e| format!("{area}/{e}"))?);
        }
    }
    let outs = backend.load_batch(&reqs);
    let mut cases = Vec::new();
    for (n, pair) in names.iter().zip(outs.chunks(2)) {
        let [l1, l2] = pair else { return Err(format!("{area}/{n}: the backend answered {} loads of 2", pair.len())) };
        let l1 = l1.as_ref().map_err(|u| format!("{area}/{n}: {}", u.0))?;
        let l2 = l2.as_ref().map_err(|u| format!("{area}/{n}: {}", u.0))?;
        cases.push(Case { name: n.clone(), result: super::verifier_logs::result_line(l2), log1: l1.log.clone(), log2: l2.log.clone() });
    }
    Ok(AreaFile { area: area.to_string(), header: header.to_vec(), cases })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_parse_s_inverse() {
        let text = "# h1\n# h2\n\n=== a\nresult: accepted verified_insns=2\n--- level 1\n; x @ t.c:1\nprocessed 2 insns\n--- level 2\n0: R1=ctx() R10=fp0\n\n=== b\nresult: rejected errno=EACCES\n--- level 1\nR0 !read_ok\n--- level 2\nR0 !read_ok\n";
        let f = parse(text, "x");
        assert_eq!(f.cases.len(), 2);
        assert_eq!(f.cases[0].log1, "; x @ t.c:1\nprocessed 2 insns\n");
        assert_eq!(render(&f), text);
    }
}
