//! The vmlinux BTF ids of kfuncs that the model uses
//! (`harness/isa/src/kfunc_btf_ids.rs`, between its `BEGIN GENERATED`
//! and `END GENERATED` lines): for each name, the id 7.3 prints in a
//! level-2 log for a `raw_tp` program that calls it (`call NAME#ID`).
//!
//! The names are every kfunc of the image: the functions its vmlinux BTF
//! tags `bpf_kfunc` (the decl tag pahole gives each function of a
//! registered kfunc set, `BTF_SET8_KFUNCS`). `record --set kfunc-ids` loads
//! one such program per name and arch and rewrites the tables, or compares
//! with `--check`; each id printed must be the function's id in the image's
//! BTF, which the few kfuncs the verifier refuses before printing the call
//! keep.

use crate::backend::Backend;
use crate::target::Arch;

use super::verifier_logs;

/// One arch's table: `(name, id)`, sorted by name.
pub type Table = Vec<(String, u32)>;

/// The tables of the generated section of `src`, per arch (`X86_64`, `ARM64`).
pub fn parse(src: &str) -> Result<Vec<(Arch, Table)>, String> {
    let generated = section(src)?.1;
    let mut out = Vec::new();
    let mut cur: Option<(Arch, Table)> = None;
    for l in generated.lines() {
        let l = l.trim();
        if let Some(rest) = l.strip_prefix("pub const ") {
            let arch = match rest.split(':').next() {
                Some("X86_64") => Arch::X86_64,
                Some("ARM64") => Arch::Arm64,
                other => return Err(format!("kfunc table {other:?}")),
            };
            cur = Some((arch, Vec::new()));
        } else if l == "];" {
            out.extend(cur.take());
        } else if let Some(row) = l.strip_prefix("(\"").and_then(|r| r.strip_suffix("),")) {
            let (name, id) = row.split_once("\", ").ok_or_else(|| format!("kfunc row {l}"))?;
            let id = id.parse().map_err(|_| format!("kfunc row {l}"))?;
            cur.as_mut().ok_or("a row outside a table")?.1.push((name.to_string(), id));
        }
    }
    Ok(out)
}

/// `(before, generated section, after)` of the source file.
fn section(src: &str) -> Result<(&str, &str, &str), String> {
    let (head, rest) = src.split_once("// BEGIN GENERATED").ok_or("no BEGIN GENERATED line")?;
    let (generated, tail) = rest.split_once("// END GENERATED").ok_or("no END GENERATED line")?;
    Ok((head, generated, tail))
}

/// `src` with its generated section made of `tables`.
pub fn render(src: &str, tables: &[(Arch, Table)]) -> Result<String, String> {
    let (head, _, tail) = section(src)?;
    let mut generated = String::from("// BEGIN GENERATED (`bpf-selftest record --set kfunc-ids`)\n");
    for (arch, t) in tables {
        let name = if *arch == Arch::Arm64 { "ARM64" } else { "X86_64" };
        generated.push_str(&format!("pub const {name}: &[(&str, u32)] = &[\n"));
        for (n, id) in t {
            generated.push_str(&format!("    (\"{n}\", {id}),\n"));
        }
        generated.push_str("];\n");
    }
    Ok(format!("{head}{generated}// END GENERATED{tail}"))
}

/// The kfuncs of `arch`'s 7.3 image with their BTF ids: the `FUNC`s its
/// vmlinux BTF (recorded by setup) carries a `bpf_kfunc` decl tag on,
/// sorted by name.
pub fn image_kfuncs(arch: Arch) -> Result<Table, String> {
    let raw = crate::object::core::recorded_vmlinux_btf(arch)?;
    Ok(tagged_kfuncs(raw.btf()))
}

/// The `FUNC`s of `btf` that a `bpf_kfunc` decl tag (on the function
/// itself, component -1) names, with their ids, sorted by name.
pub fn tagged_kfuncs(btf: &crate::btf::Btf) -> Table {
    use crate::btf::{BTF_KIND_DECL_TAG, BTF_KIND_FUNC};
    let mut out: Table = (1..btf.type_cnt() as u32)
        .filter_map(|id| {
            let t = btf.type_by_id(id)?;
            if t.kind != BTF_KIND_DECL_TAG || btf.name(t.name_off) != Some("bpf_kfunc") || btf.decl_tag_component_idx(id) != Some(-1) {
                return None;
            }
            let f = btf.type_by_id(t.size_or_type).filter(|f| f.kind == BTF_KIND_FUNC)?;
            btf.name(f.name_off).map(|n| (n.to_string(), t.size_or_type))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The id 7.3 prints for each of `names` on `arch`, through `backend`;
/// names the kernel has no BTF function for are left out.
pub fn record(backend: &dyn Backend, arch: Arch, names: &[String]) -> Result<Table, String> {
    let mut reqs = Vec::new();
    for n in names {
        let case = verifier_logs::Case {
            arch,
            area: "kfunc".into(),
            name: n.clone(),
            ptype: "raw_tp".into(),
            opts: String::new(),
            asm: format!("call {n}\nr0 = 0\nexit\n"),
            result: String::new(),
            log1: String::new(),
            log2: String::new(),
        };
        reqs.push(verifier_logs::request(&case, 2).map_err(|e| format!("kfunc {n}: {e}"))?);
    }
    let mut t = Table::new();
    for (n, out) in names.iter().zip(backend.load_batch(&reqs)) {
        let out = out.map_err(|u| format!("kfunc {n}: {}", u.0))?;
        let want = format!("call {n}#");
        let id = out.log.lines().find_map(|l| l.split_once(&want).map(|(_, r)| r.chars().take_while(char::is_ascii_digit).collect::<String>()));
        if let Some(id) = id.and_then(|d| d.parse().ok()) {
            t.push((n.clone(), id));
        }
    }
    t.sort();
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_s_tables_round_trip() {
        let src = include_str!("../../isa/src/kfunc_btf_ids.rs");
        let tables = parse(src).unwrap();
        assert_eq!(tables.iter().map(|(a, _)| *a).collect::<Vec<_>>(), [Arch::X86_64, Arch::Arm64]);
        assert!(tables.iter().all(|(_, t)| t.len() > 100));
        // the same rows again (the header line names the recorder)
        let again = render(src, &tables).unwrap();
        assert_eq!(parse(&again).unwrap(), tables);
    }

    #[test]
    fn the_tables_hold_every_kfunc_of_the_images() {
        let src = include_str!("../../isa/src/kfunc_btf_ids.rs");
        for (arch, table) in parse(src).unwrap() {
            // (a checkout without the images' BTF has nothing to compare)
            let Ok(image) = image_kfuncs(arch) else { continue };
            assert!(image.len() > 300, "{arch}: {} kfuncs", image.len());
            assert_eq!(table, image, "{arch}: the table is not the image's bpf_kfunc-tagged functions with their ids");
        }
    }
}
