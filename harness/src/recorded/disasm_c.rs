//! test_loader's xlated text, made by the 7.3 kernel's own `disasm.c`: the
//! recorders' source of the xlated text in the goldens, which the project's
//! disassembler ([`bpf_isa::disasm`]) is checked against and so must not
//! write.
//!
//! `harness/host/xlated_text.c` (the project's) is compiled with
//! `kernel/bpf/disasm.c` of the 7.3 source tree that `scripts/setup-vm.sh
//! --source` fetched, once per source and compiler (cached), and given the
//! instructions on stdin; see that file for test_loader's callbacks.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bpf_isa::Insn;

const DRIVER_C: &str = include_str!("../../host/xlated_text.c");

/// The built helper: from the cache, else compiled now.
fn helper() -> Result<PathBuf, String> {
    let src = crate::import::kernel_source_dir().ok_or("no Linux 7.3 source tree for disasm.c (scripts/setup-vm.sh --source, or BPF_SELFTEST_KERNEL_SRC)")?;
    let disasm_c = src.join("kernel/bpf/disasm.c");
    let disasm_h = src.join("kernel/bpf/disasm.h");
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let cc = std::env::var("CC").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| "gcc".into());
    let key = crate::import::cpp::fnv64(&[DRIVER_C.as_bytes(), &read(&disasm_c)?, &read(&disasm_h)?, cc.as_bytes()].concat());
    let dir = crate::backend::vm::VmConfig::from_env().cache_dir.join("host");
    let bin = dir.join(format!("xlated_text-{key:016x}"));
    if bin.is_file() {
        return Ok(bin);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let driver = dir.join(format!("xlated_text-{key:016x}.c"));
    std::fs::write(&driver, DRIVER_C).map_err(|e| format!("{}: {e}", driver.display()))?;
    let tmp = dir.join(format!("xlated_text-{key:016x}.{}", std::process::id()));
    let out = Command::new(&cc)
        .args(["-O2", "-Wall", "-o"])
        .arg(&tmp)
        .arg(&driver)
        .arg(&disasm_c)
        .arg("-I")
        .arg(src.join("kernel/bpf"))
        .arg("-I")
        .arg(src.join("tools/include"))
        .arg("-I")
        .arg(src.join("tools/include/uapi"))
        .output()
        .map_err(|e| format!("running {cc} for the disasm.c helper: {e}"))?;
    if !out.status.success() {
        return Err(format!("building the disasm.c helper with {cc} failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::rename(&tmp, &bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    Ok(bin)
}

/// One instruction as the helper reads it: 16 hex digits, 32 for an ld_imm64
/// with its second slot.
fn hex_of(insns: &[Insn]) -> String {
    insns.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect()
}

/// test_loader's text of each instruction (an `ld_imm64` with the slot
/// after it), without the `N: ` index.
pub fn texts(insns: &[Vec<Insn>]) -> Result<Vec<String>, String> {
    if insns.is_empty() {
        return Ok(Vec::new());
    }
    let bin = helper()?;
    let mut child =
        Command::new(&bin).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
    let input: String = insns.iter().map(|i| hex_of(i) + "\n").collect();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    // the helper answers line by line; a writer thread keeps both pipes moving
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| format!("{}: {e}", bin.display()))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!("{} failed: {}", bin.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    if lines.len() != insns.len() {
        return Err(format!("{}: {} lines for {} instructions", bin.display(), lines.len(), insns.len()));
    }
    Ok(lines)
}

/// The slots of an xlated program grouped into instructions (an `ld_imm64`
/// with its second slot).
pub fn instructions(slots: &[Insn]) -> Vec<Vec<Insn>> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < slots.len() {
        let n = if slots[k].is_ld_imm64() && k + 1 < slots.len() { 2 } else { 1 };
        out.push(slots[k..k + n].to_vec());
        k += n;
    }
    out
}

/// test_loader's xlated dump of a program: `N: text` per instruction, N
/// its first slot.
pub fn xlated_dump(slots: &[Insn]) -> Result<Vec<String>, String> {
    let insns = instructions(slots);
    let texts = texts(&insns)?;
    let mut at = 0;
    Ok(insns
        .iter()
        .zip(texts)
        .map(|(i, t)| {
            let line = format!("{at}: {t}");
            at += i.len();
            line
        })
        .collect())
}
