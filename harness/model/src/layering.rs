//! The model's layers, checked on its own source: every module uses only
//! the layers above it in the crate's table (tests may use anything), and
//! no file speaks of the test framework built on top.

use std::path::{Path, PathBuf};

/// The crate's top modules by layer, from the bottom.
const LAYERS: &[&[&str]] = &[
    &["isa"],
    &["target", "prog_type", "map", "btf", "vmlinux_btf", "uapi", "kernel_layout", "limits"],
    &["verifier"],
    &["fixups"],
    &["jit", "jit_disasm"],
    &["exec"],
    &["load"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source of a file without its test module (the last item of a file,
/// as clippy keeps it) and without comments; `None` for a file of tests.
fn non_test_code(path: &Path, text: &str) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name == "tests.rs" || name == "layering.rs" || path.components().any(|c| c.as_os_str() == "tests") {
        return None;
    }
    let body = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    Some(body.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n"))
}

#[test]
fn each_layer_uses_only_the_layers_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_str().unwrap().trim_end_matches(".rs");
        let Some(own) = layer_of(top) else { continue };
        let Some(code) = non_test_code(f, &std::fs::read_to_string(f).unwrap()) else { continue };
        checked += 1;
        for (at, _) in code.match_indices("crate::") {
            let used: String = code[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            match layer_of(&used) {
                Some(l) if l <= own => {}
                Some(_) => wrong.push(format!("{}: uses crate::{used} (a later layer)", rel.display())),
                None => wrong.push(format!("{}: uses crate::{used} (no layer)", rel.display())),
            }
        }
    }
    assert!(checked > 80, "{checked} files checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn nothing_names_the_framework() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let words = ["backend", "runner", "golden", "bpf_selftest", "oracle", "expected/", "progs/"];
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("layering.rs")) {
        let text = std::fs::read_to_string(f).unwrap().to_lowercase();
        for w in words {
            if text.contains(w) {
                found.push(format!("{}: {w}", f.strip_prefix(&src).unwrap().display()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
