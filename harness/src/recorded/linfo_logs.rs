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
//! `<area>.c`); `record --set linfo` then writes the area's file anew. A
//! case `=== <program>:<edit>` (added by hand, without result and logs)
//! loads the program with its `line_info` edited ([`EDITS`]), for the
//! checks at load.
//! The logs quote the source (`; <line> @ <file>:<n>`, the diagnostics'
//! `Source context:`), so the goldens hold only as long as clang 19 makes
//! the same object of it.

use std::path::Path;

use std::sync::Arc;

use crate::backend::{Backend, BtfMode, LoadRequest};
use crate::object::{BpfObject, BtfExtRecords, ObjectBtf};
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

/// The edits of a program's `line_info` a case may name after a `:`
/// (`=== <program>:<edit>`), for `check_btf_line`'s checks: records out of
/// order, an `insn_off` past the end, no record at insn 0, string offsets
/// outside the BTF, 20-byte records with a nonzero or zero tail, 12-byte
/// records, no record at the start of the second subprogram, a record on
/// the second half of the first `ld_imm64`; `unpriv`
/// keeps the records and loads without privileges (the maps and BTF made
/// before the capabilities are dropped).
pub const EDITS: [&str; 11] = [
    "unordered",
    "past_end",
    "not_at_start",
    "bad_line_off",
    "bad_file_name_off",
    "nonzero_tail",
    "zero_tail",
    "rec_size_12",
    "subprog_start",
    "ldimm64_half",
    "unpriv",
];

/// `recs` (16-byte records) with `edit` applied, for a program of
/// `prog_len` insns whose subprograms start at `starts` and whose first
/// `ld_imm64` is at `ldimm64`.
fn edit_line_info(recs: &BtfExtRecords, edit: &str, prog_len: usize, starts: &[usize], ldimm64: Option<usize>) -> Result<BtfExtRecords, String> {
    let mut r: Vec<[u32; 4]> = recs
        .data
        .chunks_exact(recs.rec_size as usize)
        .map(|c| std::array::from_fn(|i| u32::from_le_bytes([c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]])))
        .collect();
    let need = |n: usize| if r.len() < n { Err(format!("line_info edit {edit}: {} records, fewer than {n}", r.len())) } else { Ok(()) };
    let mut rec_size = 16usize;
    let mut tail = None;
    match edit {
        "unordered" => {
            need(3)?;
            r.swap(1, 2);
        }
        "past_end" => {
            need(1)?;
            let last = r.len() - 1;
            r[last][0] = prog_len as u32;
        }
        "not_at_start" => {
            need(2)?;
            r.remove(0);
        }
        "bad_line_off" => {
            need(1)?;
            r[0][2] = 0x7fff_ffff;
        }
        "bad_file_name_off" => {
            need(2)?;
            r[1][1] = 0x7fff_ffff;
        }
        "nonzero_tail" => (rec_size, tail) = (20, Some(1u32)),
        "zero_tail" => (rec_size, tail) = (20, Some(0)),
        "rec_size_12" => rec_size = 12,
        "subprog_start" => {
            let Some(&start) = starts.get(1) else { return Err(format!("line_info edit {edit}: the program has one function")) };
            let i = r.iter().position(|x| x[0] as usize == start).ok_or_else(|| format!("line_info edit {edit}: no record at insn {start}"))?;
            r.remove(i);
        }
        "ldimm64_half" => {
            let k = ldimm64.ok_or_else(|| format!("line_info edit {edit}: the program has no ld_imm64"))? + 1;
            // a copy of the record that covers it, moved onto it
            let at = r.partition_point(|x| x[0] as usize <= k);
            if at == 0 || r[at - 1][0] as usize == k {
                return Err(format!("line_info edit {edit}: a record is already at insn {k}"));
            }
            let mut x = r[at - 1];
            x[0] = k as u32;
            r.insert(at, x);
        }
        other => return Err(format!("unknown line_info edit '{other}' ({})", EDITS.join(", "))),
    }
    let mut data = Vec::new();
    for (i, x) in r.iter().enumerate() {
        let mut rec: Vec<u8> = x.iter().flat_map(|w| w.to_le_bytes()).collect();
        rec.resize(rec_size.max(16), 0);
        // the tail of the second record (or the only one)
        if let Some(t) = tail.filter(|_| i == 1.min(r.len() - 1)) {
            rec[16..20].copy_from_slice(&t.to_le_bytes());
        }
        rec.truncate(rec_size);
        data.extend_from_slice(&rec);
    }
    Ok(BtfExtRecords { rec_size: rec_size as u32, data })
}

/// The load of case `case` (`<program>` or `<program>:<edit>`) of `obj` at
/// `level`, as `check FILE.bpf.o` makes it, with its `line_info` edited.
pub fn request(obj: &BpfObject, case: &str, arch: Arch, level: u32) -> Result<LoadRequest, String> {
    let (name, edit) = case.split_once(':').map_or((case, None), |(n, e)| (n, Some(e)));
    let mut req = obj.load_request(name, arch).map_err(|e| format!("{name}: {e}"))?;
    req.log_level = level;
    if edit == Some("unpriv") {
        (req.unpriv, req.privileged_setup) = (true, true);
    } else if let Some(edit) = edit {
        let BtfMode::Object(ob) = &req.btf else { return Err(format!("{case}: the object has no BTF")) };
        let li = ob.line_info.as_ref().ok_or_else(|| format!("{case}: the program has no line_info"))?;
        let starts: Vec<usize> = req.prog.funcs.iter().map(|f| f.start).collect();
        let ldimm64 = req.prog.insns.iter().position(|i| i.is_ld_imm64());
        let li = edit_line_info(li, edit, req.prog.insns.len(), &starts, ldimm64).map_err(|e| format!("{case}: {e}"))?;
        req.btf = BtfMode::Object(Arc::new(ObjectBtf { btf: Arc::clone(&ob.btf), func_info: ob.func_info.clone(), line_info: Some(li) }));
    }
    Ok(req)
}

/// The cases of an area: the object's programs, then the stored cases
/// that edit a program's `line_info`.
pub fn case_names(obj: &BpfObject, file: &AreaFile) -> Vec<String> {
    let mut names = program_names(obj);
    names.extend(file.cases.iter().filter(|c| c.name.contains(':')).map(|c| c.name.clone()));
    names
}

/// The programs of `obj`, in the object's order.
pub fn program_names(obj: &BpfObject) -> Vec<String> {
    obj.programs().map(|p| p.name.clone()).collect()
}

/// Every program of `obj` loaded through `backend` (a real kernel) at
/// levels 1 and 2, in one batch.
pub fn record(backend: &dyn Backend, obj: &BpfObject, file: &AreaFile, arch: Arch, header: &[String]) -> Result<AreaFile, String> {
    let area = file.area.as_str();
    let names = case_names(obj, file);
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
