//! Finds the suites: every `progs/<suite>.rs` but the crate's own `lib.rs`
//! and `main.rs` is a module of the library, so a suite file is compiled
//! and run by being there, with nothing else to list (`progs/lib.rs`
//! includes the module declarations written here).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let progs = Path::new(&root).join("progs");
    println!("cargo:rerun-if-changed={}", progs.display());
    let mut files: Vec<_> = std::fs::read_dir(&progs)
        .unwrap_or_else(|e| panic!("{}: {e}", progs.display()))
        .map(|e| e.expect("progs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter(|p| !matches!(p.file_name().and_then(|n| n.to_str()), Some("lib.rs" | "main.rs")))
        .collect();
    files.sort();
    let mut out = String::new();
    for path in &files {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let ident = !stem.is_empty() && !stem.starts_with(|c: char| c.is_ascii_digit()) && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ident {
            let _ = writeln!(out, "#[path = {:?}]\npub mod {stem};", path.display().to_string());
        } else {
            let msg = format!("progs/{stem}.rs: a suite's file name is its module name and must be a Rust identifier");
            let _ = writeln!(out, "::core::compile_error!({msg:?});");
        }
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("suites.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
