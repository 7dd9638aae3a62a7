//! LLVM's encodings of every instruction form, `expected/isa/llvm-mc-19.txt`:
//! each line of `expected/isa/corpus.s` with the bytes llvm-mc-19 encodes it
//! to (`asm<TAB>hex`, hex in memory order). The goldens come from LLVM,
//! never from the project's assembler; `record --set isa` makes them again.

use std::path::Path;
use std::process::Command;

/// The corpus's instruction lines (comments left out).
pub fn corpus_lines(corpus: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    Ok(text.lines().filter(|l| !l.starts_with('#')).map(str::to_string).collect())
}

/// llvm-mc-19's version line (`LLVM 19.1.7`).
pub fn llvm_version() -> Result<String, String> {
    let out = Command::new("llvm-mc-19").arg("--version").output().map_err(|e| format!("llvm-mc-19: {e} (apt-get install llvm-19)"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| l.split_once("LLVM version ").map(|(_, v)| format!("LLVM {}", v.trim()))).ok_or_else(|| "llvm-mc-19 --version: no version".into())
}

/// The hex encoding of each line of `lines`, by llvm-mc-19.
pub fn encode(lines: &[String]) -> Result<Vec<String>, String> {
    let src = std::env::temp_dir().join(format!("bpf-selftest-isa-{}.s", std::process::id()));
    std::fs::write(&src, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).map_err(|e| format!("{}: {e}", src.display()))?;
    let out = Command::new("llvm-mc-19").args(["-triple", "bpfel", "-mcpu=v4", "-show-encoding"]).arg(&src).output();
    let _ = std::fs::remove_file(&src);
    let out = out.map_err(|e| format!("llvm-mc-19: {e} (apt-get install llvm-19)"))?;
    if !out.status.success() {
        return Err(format!("llvm-mc-19 failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let hex: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once("# encoding: [").map(|(_, e)| e.trim_end_matches(']').replace("0x", "").replace(',', "")))
        .collect();
    if hex.len() != lines.len() {
        return Err(format!("llvm-mc-19 encoded {} of {} lines", hex.len(), lines.len()));
    }
    Ok(hex)
}

/// The golden file's text for `lines` and their encodings.
pub fn render(version: &str, lines: &[String], hex: &[String]) -> String {
    let mut s = format!("# Encodings of expected/isa/corpus.s by {version} (-triple bpfel -mcpu=v4).\n");
    for (l, h) in lines.iter().zip(hex) {
        s.push_str(&format!("{l}\t{h}\n"));
    }
    s
}
