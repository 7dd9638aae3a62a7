//! Every naked-asm block of the 7.3 kernel's own BPF selftests, assembled by
//! us and by llvm-mc-19: the bytes must agree. Needs the 7.3 source (the
//! oracle cache, or BPF_SELFTEST_KERNEL_SRC) and llvm-mc-19; skips saying
//! which is missing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use bpf_isa::{Operand, assemble_with, helper_ids::helper_id};
use bpf_selftest::import::c_source::{AsmBlock, AsmOperand, asm_blocks};
use bpf_selftest::require::{self, Component};
use object::{Object, ObjectSection};

fn progs_dir() -> Option<PathBuf> {
    bpf_selftest::import::kernel_source_dir().map(|d| d.join("tools/testing/selftests/bpf/progs"))
}

/// The value both assemblers get for an operand.
fn operand(op: &AsmOperand) -> Option<Operand> {
    match op {
        AsmOperand::Imm(n) => Some(match helper_id(n) {
            Some(id) => Operand::Imm(id as i64),
            None => Operand::Sym(n.clone()),
        }),
        AsmOperand::Const(..) => Some(Operand::Imm(8)),
        AsmOperand::Addr(n) => Some(Operand::Sym(n.clone())),
        AsmOperand::Insn(..) => Some(Operand::Imm(0x95)),
        AsmOperand::Ptr(_) | AsmOperand::Raw(..) => None,
    }
}

/// The template as GCC would hand it to the assembler.
fn expand(b: &AsmBlock, unique: usize) -> Option<String> {
    let t = &b.template;
    let mut out = String::new();
    let mut i = 0;
    while let Some(p) = t[i..].find('%') {
        out.push_str(&t[i..i + p]);
        let r = &t[i + p..];
        if r.starts_with("%%") {
            out.push('%');
            i += p + 2;
        } else if r.starts_with("%=") {
            out.push_str(&unique.to_string());
            i += p + 2;
        } else if r.starts_with("%[") {
            let close = r.find(']')?;
            let name = &r[2..close];
            let op = b.operands.iter().find(|o| o.name() == name)?;
            match operand(op)? {
                Operand::Imm(v) => out.push_str(&v.to_string()),
                Operand::Sym(s) => out.push_str(&s),
            }
            i += p + close + 1;
        } else {
            return None;
        }
    }
    out.push_str(&t[i..]);
    Some(out)
}

/// Per section `bN`: its bytes, and the byte offsets relocated in it.
type Sections = BTreeMap<usize, (Vec<u8>, Vec<u64>)>;

/// llvm-mc-19's bytes per section `bN`, and the byte offsets it relocates.
fn llvm_assemble(text: &str) -> Result<Sections, String> {
    let dir = std::env::temp_dir().join(format!("bpf-kasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let (s, o) = (dir.join("in.s"), dir.join("out.o"));
    std::fs::write(&s, text).map_err(|e| e.to_string())?;
    let out = Command::new("llvm-mc-19").args(["-triple", "bpfel", "-mcpu=v4", "-filetype=obj", "-o"]).arg(&o).arg(&s).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let data = std::fs::read(&o).map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    let data = data?;
    let file = object::File::parse(&*data).map_err(|e| e.to_string())?;
    let mut res = BTreeMap::new();
    for sec in file.sections() {
        let Some(n) = sec.name().ok().and_then(|n| n.strip_prefix('b')).and_then(|n| n.parse::<usize>().ok()) else { continue };
        let bytes = sec.data().map_err(|e| e.to_string())?.to_vec();
        let relocs = sec.relocations().map(|(off, _)| off).collect();
        res.insert(n, (bytes, relocs));
    }
    Ok(res)
}

#[test]
fn kernel_selftest_asm_matches_llvm_mc_19() {
    let Some(dir) = progs_dir() else {
        require::skip(Component::Source, "the 7.3 selftest sources are not here (run scripts/setup-vm.sh --source or set BPF_SELFTEST_KERNEL_SRC)");
        return;
    };
    if Command::new("llvm-mc-19").arg("--version").output().is_err() {
        require::skip(Component::Llvm, "llvm-mc-19 is not installed (apt-get install llvm-19)");
        return;
    }
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "c")).collect();
    files.sort();
    let (mut blocks_seen, mut compared, mut insns_compared, mut llvm_rejects, mut skipped) = (0, 0, 0, 0, 0);
    let mut bad = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        let blocks: Vec<AsmBlock> = asm_blocks(&src);
        if blocks.is_empty() {
            continue;
        }
        let fname = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut text = String::new();
        let mut usable = Vec::new();
        for (k, b) in blocks.iter().enumerate() {
            blocks_seen += 1;
            let expanded = if b.problem.is_none() { expand(b, k) } else { None };
            match expanded {
                Some(e) => {
                    text.push_str(&format!(".section b{k},\"ax\"\n{e}\n"));
                    usable.push(k);
                }
                None => skipped += 1,
            }
        }
        // one llvm-mc run per file; per block when the file as a whole fails
        let mut llvm = BTreeMap::new();
        match llvm_assemble(&text) {
            Ok(m) => llvm = m,
            Err(_) => {
                for &k in &usable {
                    let one = format!(".section b{k},\"ax\"\n{}\n", expand(&blocks[k], k).unwrap());
                    if let Ok(m) = llvm_assemble(&one) {
                        llvm.extend(m);
                    }
                }
            }
        }
        for &k in &usable {
            let b = &blocks[k];
            let Some((bytes, relocs)) = llvm.get(&k) else {
                llvm_rejects += 1;
                continue;
            };
            let ops = |name: &str| b.operands.iter().find(|o| o.name() == name).and_then(operand);
            let ours = match assemble_with(&b.template, &ops) {
                Ok(p) => p,
                Err(e) => {
                    bad.push(format!("{fname}:{} ({}): llvm-mc-19 assembles it, we say {e}", b.pos, b.func));
                    continue;
                }
            };
            compared += 1;
            let our_bytes = bpf_isa::insn::encode_all(&ours.insns);
            if our_bytes.len() != bytes.len() {
                bad.push(format!("{fname} ({}): {} bytes from llvm-mc-19, {} from us", b.func, bytes.len(), our_bytes.len()));
                continue;
            }
            for slot in 0..bytes.len() / 8 {
                let off = (slot * 8) as u64;
                // relocated by LLVM: a symbol or a function address the
                // linker fills in; we keep a reloc or a BPF_PSEUDO_FUNC there
                let reloc = relocs.iter().any(|&r| r == off || (slot > 0 && r + 8 == off && bytes[(slot - 1) * 8] == 0x18));
                insns_compared += 1;
                if reloc {
                    let ours_marked = ours.relocs.iter().any(|r| r.insn == slot || r.insn + 1 == slot)
                        || ours.insns[slot].src == 4
                        || (slot > 0 && ours.insns[slot - 1].src == 4);
                    if !ours_marked {
                        bad.push(format!("{fname} ({}): slot {slot} is relocated by LLVM but not by us", b.func));
                    }
                    continue;
                }
                if bytes[slot * 8..slot * 8 + 8] != our_bytes[slot * 8..slot * 8 + 8] {
                    bad.push(format!(
                        "{fname} ({}): slot {slot}: llvm-mc-19 {:02x?}, ours {:02x?}",
                        b.func,
                        &bytes[slot * 8..slot * 8 + 8],
                        &our_bytes[slot * 8..slot * 8 + 8]
                    ));
                }
            }
        }
    }
    eprintln!(
        "{} files, {blocks_seen} asm blocks: {compared} compared ({insns_compared} insn slots), {llvm_rejects} rejected by llvm-mc-19, {skipped} not assemblable as written",
        files.len()
    );
    assert!(bad.is_empty(), "{} mismatches:\n{}", bad.len(), bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n"));
    assert!(compared > 1000, "only {compared} blocks compared");
}
