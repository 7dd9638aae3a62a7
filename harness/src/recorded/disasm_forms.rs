//! 7.3's text for every instruction form, `record --set disasm`: the
//! goldens of the project's disassembler, `expected/linux-7.3/disasm/`:
//!
//! * `log.txt`: `hex<TAB>text` per instruction as the verifier log shows it
//!   (`(bf) r6 = r1`), from 7.3's level-2 `Live regs before insn` listing;
//!   the hex is the instruction as loaded (16 digits, 32 for an ld_imm64),
//!   with what the kernel put in before printing: a map's address in its
//!   ld_imm64 (`src_reg` 1 for the map, 2 for its value) and a kfunc's BTF
//!   id in its call;
//! * `xlated.txt`: `hex<TAB>text` per instruction of the xlated programs of
//!   the accepted ones, the text test_loader's (7.3's disasm.c, see
//!   [`super::disasm_c`]).
//!
//! Each file lists a pair once, in the order first met. The programs, on
//! x86_64 in one boot, in this order:
//!
//! 1. `corpus`: every encoding of `expected/isa/llvm-mc-19.txt` (the ISA
//!    set's golden) in one socket filter, made listable: `r6 = r1` first,
//!    then every instruction but jumps, exits, `callx` (7.3: unknown
//!    opcode) and those naming r11 (7.3: R11 is invalid outside
//!    stack-argument programs), then `call bpf_get_prandom_u32` and a move
//!    of r0 into each of r1, r2, r3 and r9 (unknown values, so 7.3 keeps the
//!    comparisons), then the jumps: a conditional one with its offset's sign
//!    alone (`+1`, `-1` or `0`), an unconditional one (`goto`, `gotol`) after
//!    an `if r1 != 0 goto +1` that makes what follows it reachable, back to
//!    that if (`-2`) when its offset was negative, else to the next
//!    instruction (`0`); then `r0 = 0; exit`. Loaded with a 16 MiB log;
//!    rejected, but listed.
//! 2. The programs of `expected/linux-7.3/disasm/progs/*.s` ([`super::oracle_asm`]
//!    options), by file name: `extras` (forms LLVM cannot write, maps,
//!    calls; its listing goes into `log.txt` too), `forms` (32-bit ALU
//!    with `BPF_F_TEST_RND_HI32` poison, 32-bit jumps, swaps, atomics, a
//!    loop, a call), `smp_id` (an inlined helper), `unpriv` (an
//!    unprivileged program's barriers).
//!
//! `--check` compares everything but kernel addresses (the map addresses
//! of `log.txt`) and the random immediates of `BPF_F_TEST_RND_HI32`'s
//! poison (`forms` loads with it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bpf_isa::Insn;

use super::oracle_asm::{AsmProg, Options};
use super::{Tally, disasm_c, mask_hex_pointers, xlated_entries};
use crate::backend::loader::LoadSettings;
use crate::backend::{LoadOutcome, LoadRequest};
use crate::cli::record::RecordArgs;
use crate::link::LinkReloc;
use crate::target::Arch;

/// One of the two files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairsFile {
    /// The `#` lines at the top.
    pub header: Vec<String>,
    /// `(hex, text)`.
    pub pairs: Vec<(String, String)>,
}

impl PairsFile {
    pub fn parse(text: &str) -> Result<PairsFile, String> {
        let mut f = PairsFile::default();
        for l in text.lines() {
            if l.starts_with('#') {
                if f.pairs.is_empty() {
                    f.header.push(l.to_string());
                }
                continue;
            }
            if l.trim().is_empty() {
                continue;
            }
            let (h, t) = l.split_once('\t').ok_or_else(|| format!("no tab in {l:?}"))?;
            f.pairs.push((h.to_string(), t.to_string()));
        }
        Ok(f)
    }

    pub fn read(path: &Path) -> Result<PairsFile, String> {
        PairsFile::parse(&std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        for h in &self.header {
            s.push_str(h);
            s.push('\n');
        }
        for (h, t) in &self.pairs {
            s.push_str(&format!("{h}\t{t}\n"));
        }
        s
    }
}

/// The instructions of `expected/isa/llvm-mc-19.txt` made into the
/// `corpus` program (see the module comment).
pub fn corpus(llvm_mc: &str) -> Result<Vec<Insn>, String> {
    let mut encodings = Vec::new();
    for l in llvm_mc.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (_, h) = l.split_once('\t').ok_or_else(|| format!("llvm-mc-19.txt: no tab in {l:?}"))?;
        let slots = super::slots_of_entries(&[h])?;
        encodings.push(slots);
    }
    let (mut straight, mut jumps) = (Vec::new(), Vec::new());
    for e in encodings {
        let i = e[0];
        if i.dst == 11 || i.src == 11 || i.code == 0x8d || i.code == 0x95 {
            continue;
        }
        let class = i.code & 7;
        // BPF_JMP and BPF_JMP32, calls aside
        if (class == 5 || class == 6) && i.code != 0x85 {
            jumps.push(i);
        } else {
            straight.extend(e);
        }
    }
    let mut prog = vec![Insn::new(0xbf, 6, 1, 0, 0)];
    prog.extend(straight);
    for r in [1, 2, 3, 9] {
        prog.push(Insn::new(0x85, 0, 0, 0, 7));
        prog.push(Insn::new(0xbf, r, 0, 0, 0));
    }
    for mut j in jumps {
        match j.code {
            0x05 | 0x06 => {
                prog.push(Insn::new(0x55, 1, 0, 1, 0));
                let back = if j.code == 0x05 { j.off < 0 } else { j.imm < 0 };
                if j.code == 0x05 {
                    j.off = if back { -2 } else { 0 };
                } else {
                    j.imm = if back { -2 } else { 0 };
                }
            }
            _ => j.off = j.off.signum(),
        }
        prog.push(j);
    }
    prog.push(Insn::new(0xb7, 0, 0, 0, 0));
    prog.push(Insn::new(0x95, 0, 0, 0, 0));
    Ok(prog)
}

/// Insn index -> text of the `Live regs before insn` listing of a level-2
/// log (`      7: .12345.... (85) call pc+2`), the first listing of an
/// index winning, without the `; zext` note.
pub fn listing(log: &str) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    for l in log.lines() {
        let t = l.trim_start();
        let Some((idx, rest)) = t.split_once(": ") else { continue };
        // an optional number before the index
        let idx = idx.rsplit(' ').next().unwrap_or(idx);
        let Ok(idx) = idx.parse::<usize>() else { continue };
        if !t
            .split_once(": ")
            .is_some_and(|(head, _)| head.split_whitespace().count() <= 2 && head.split_whitespace().all(|w| w.bytes().all(|c| c.is_ascii_digit())))
        {
            continue;
        }
        let (live, text) = match (rest.get(..10), rest.get(10..)) {
            (Some(live), Some(text)) if text.starts_with(' ') => (live, &text[1..]),
            _ => continue,
        };
        if !live.bytes().all(|c| c == b'.' || c.is_ascii_digit()) {
            continue;
        }
        let text = text.trim_end();
        let text = text.strip_suffix("; zext").map_or(text, str::trim_end);
        out.entry(idx).or_insert_with(|| text.to_string());
    }
    out
}

/// The `log.txt` pairs of a loaded program: each instruction of the
/// request with the listing's text, as the kernel had it when printing.
fn log_pairs(req: &LoadRequest, out: &LoadOutcome) -> Result<Vec<(String, String)>, String> {
    let text = listing(&out.log);
    let insns = &req.prog.insns;
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < insns.len() {
        let n = if insns[i].is_ld_imm64() { 2 } else { 1 };
        let t = text.get(&i).ok_or_else(|| format!("{}: insn {i} is not in 7.3's listing", req.name))?;
        let mut slots = insns[i..(i + n).min(insns.len())].to_vec();
        for r in req.prog.relocs.iter() {
            match *r {
                LinkReloc::Map { insn, .. } | LinkReloc::MapValue { insn, .. } if insn == i && n == 2 => {
                    let v = t
                        .rsplit_once(" = 0x")
                        .and_then(|(_, v)| u64::from_str_radix(v, 16).ok())
                        .ok_or_else(|| format!("{}: no address in {t:?}", req.name))?;
                    slots[0].src = if matches!(r, LinkReloc::Map { .. }) { 1 } else { 2 };
                    slots[0].imm = v as u32 as i32;
                    slots[1].imm = (v >> 32) as u32 as i32;
                }
                LinkReloc::Kfunc { insn, .. } if insn == i => {
                    let id = t.rsplit_once('#').and_then(|(_, v)| v.parse::<i32>().ok()).ok_or_else(|| format!("{}: no BTF id in {t:?}", req.name))?;
                    slots[0].imm = id;
                }
                _ => {}
            }
        }
        pairs.push((slots.iter().map(|s| bpf_isa::insn::to_hex(*s)).collect(), t.clone()));
        i += n;
    }
    Ok(pairs)
}

/// The pairs once each (one `r12 = RND` whatever its random immediate),
/// in the order first met.
fn dedup(pairs: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut seen = std::collections::HashSet::new();
    pairs.into_iter().filter(|p| seen.insert(if is_rnd_poison(&p.0) { masked(p) } else { p.clone() })).collect()
}

/// `r12 = imm`: in the set's programs only `BPF_F_TEST_RND_HI32`'s
/// poison, a fresh random immediate on every load.
fn is_rnd_poison(hex: &str) -> bool {
    hex.len() == 16 && hex.starts_with("b70c0000")
}

/// A pair with a kernel address masked (in the hex of an ld_imm64 too),
/// and the random immediate of a `BPF_F_TEST_RND_HI32` poison (`r12 =
/// RND`, the only move of an immediate into r12 the set's programs have).
fn masked(p: &(String, String)) -> (String, String) {
    if is_rnd_poison(&p.0) {
        return ("b70c0000<rnd>".into(), "r12 = <rnd>".into());
    }
    let mut h = p.0.clone();
    if h.len() == 32 && h.starts_with("18") {
        // the high half of the value, little endian in the second slot's imm
        let hi = u32::from_str_radix(&h[24..32], 16).unwrap_or(0).swap_bytes();
        if hi >> 20 == 0xfff {
            h = format!("{}<addr>{}<addr>", &h[..8], &h[16..24]);
        }
    }
    (h, mask_hex_pointers(&p.1))
}

/// The programs whose log listing `log.txt` holds; the others add xlated
/// forms only.
const LISTED: [&str; 2] = ["corpus", "extras"];

/// The programs of the set after `corpus`.
pub fn programs(root: &Path) -> Result<Vec<AsmProg>, String> {
    let dir = root.join("expected/linux-7.3/disasm/progs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "s"))
        .collect();
    paths.sort();
    paths.iter().map(|p| AsmProg::read(p)).collect()
}

/// `record --set disasm`.
pub fn record(a: &RecordArgs) -> Result<(), String> {
    if a.backend != "vm" {
        return Err("the disasm set is recorded from 7.3 under QEMU: --backend vm".into());
    }
    let t0 = Instant::now();
    let arch = Arch::X86_64;
    let root = super::root_of(&a.out);
    let isa = root.join("expected/isa/llvm-mc-19.txt");
    let corpus = corpus(&std::fs::read_to_string(&isa).map_err(|e| format!("{}: {e}", isa.display()))?)?;
    let mut progs = vec![AsmProg { name: "corpus".into(), asm: String::new(), hex: Some(corpus), opts: Options::default() }];
    progs.extend(programs(&root)?);
    let (mut reqs, at) = super::oracle_asm::requests(&progs.iter().collect::<Vec<_>>(), "disasm", arch)?;
    // the corpus's level-2 listing needs a large log buffer
    for r in &mut reqs {
        r.log_size = 16 << 20;
    }
    let vm = super::vm_with_cpu(arch, None);
    crate::backend::Backend::probe(&vm, arch).map_err(|u| format!("{arch}: {}", u.0))?;
    eprintln!("disasm: {} programs in one {arch} boot", progs.len());
    let outs = vm.load_batch_with(&reqs, &LoadSettings::default());
    let mut log = Vec::new();
    let mut xlated = Vec::new();
    for (p, k) in progs.iter().zip(at) {
        let out = outs[k].as_ref().map_err(|u| format!("disasm/{}: {}", p.name, u.0))?;
        let req = &reqs[k];
        if LISTED.contains(&p.name.as_str()) {
            log.extend(log_pairs(req, out)?);
        }
        if out.accepted {
            let insns = disasm_c::instructions(&out.xlated_insns);
            xlated.extend(xlated_entries(&out.xlated_insns).into_iter().zip(disasm_c::texts(&insns)?));
        } else if p.name != "corpus" {
            return Err(format!("disasm/{}: rejected ({}):\n{}", p.name, out.errno, out.log));
        }
    }
    let (log, xlated) = (dedup(log), dedup(xlated));
    let release = vm.config().release(arch).unwrap_or_default();
    let backend = super::describe_vm(&vm, arch);
    let recorded = format!("# Recorded by `bpf-selftest record --set disasm` on {}; do not edit.", crate::cli::record::today());
    let dir = a.out.join("linux-7.3/disasm");
    let mut tally = Tally::default();

    // log.txt
    let path = dir.join("log.txt");
    let stored = PairsFile::read(&path)?;
    let now = PairsFile {
        header: vec![
            format!(
                "# Linux {release} {arch}: the verifier log's text of every instruction of the disasm set's programs (level-2 listing); backend {backend}."
            ),
            recorded.clone(),
            "# hex (memory order; 32 digits for ld_imm64)<TAB>the verifier log's text".into(),
        ],
        pairs: log,
    };
    compare_pairs(&mut tally, &path, &stored.pairs, &now.pairs, a.check);
    if !a.check {
        std::fs::write(&path, now.render()).map_err(|e| format!("{}: {e}", path.display()))?;
        tally.written += now.pairs.len();
    }

    // xlated.txt
    let path = dir.join("xlated.txt");
    let stored = PairsFile::read(&path)?;
    compare_pairs(&mut tally, &path, &stored.pairs, &xlated, a.check);
    let now = PairsFile {
        header: vec![
            format!(
                "# Linux {release} {arch}: test_loader's text (7.3's disasm.c) of every xlated instruction of the disasm set's accepted programs; backend {backend}."
            ),
            recorded,
            "# hex of the xlated insn<TAB>test_loader's xlated text".into(),
        ],
        pairs: xlated,
    };
    if !a.check {
        std::fs::write(&path, now.render()).map_err(|e| format!("{}: {e}", path.display()))?;
        tally.written += now.pairs.len();
    }
    tally.finish("disasm", a.check, t0.elapsed().as_secs_f64())
}

/// Pair by pair, kernel addresses masked.
fn compare_pairs(tally: &mut Tally, path: &Path, stored: &[(String, String)], now: &[(String, String)], check: bool) {
    if !check {
        return;
    }
    for k in 0..stored.len().max(now.len()) {
        let what = format!("{} pair {}", path.display(), k + 1);
        match (stored.get(k), now.get(k)) {
            (Some(s), Some(n)) => tally.compare(&what, &masked(s), &masked(n)),
            (Some(s), None) => tally.drifted.push(format!("{what}: {s:?} no longer recorded")),
            (None, Some(n)) => tally.drifted.push(format!("{what}: {n:?} new")),
            (None, None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_lines() {
        let log = "Live regs before insn:\n      0: .1........ (bf) r6 = r1\n      1: ......6... (18) r1 = 0xffff888005add200\n  3 12: 0......... (95) exit\n0: R1=ctx() R10=fp0\n0: (bf) r6 = r1 ; R6=ctx()\n";
        let l = listing(log);
        assert_eq!(l[&0], "(bf) r6 = r1");
        assert_eq!(l[&1], "(18) r1 = 0xffff888005add200");
        assert_eq!(l[&12], "(95) exit");
        assert_eq!(l.len(), 3);
    }

    #[test]
    fn pairs_file_round_trip() {
        let text = "# a\nbf16000000000000\t(bf) r6 = r1\n9500000000000000\texit\n";
        let f = PairsFile::parse(text).unwrap();
        assert_eq!(f.pairs.len(), 2);
        assert_eq!(f.render(), text);
        let rnd = masked(&("b70c00003fd69553".into(), "r12 = 1402328639".into()));
        assert_eq!(rnd, ("b70c0000<rnd>".into(), "r12 = <rnd>".into()));
        let m = masked(&("1811000000d2ad05000000008088ffff".into(), "(18) r1 = 0xffff888005add200".into()));
        assert_eq!(m, ("18110000<addr>00000000<addr>".into(), "(18) r1 = 0xPTR".into()));
    }

    #[test]
    fn corpus_jumps_stay_in_range() {
        let mc = "# h\nr0 += r1\t0f10000000000000\ngoto -100\t05009cff00000000\nif r1 > r2 goto +7\t2d21070000000000\ncallx r3\t8d03000000000000\n";
        let p = corpus(mc).unwrap();
        let hex: Vec<String> = p.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect();
        assert_eq!(hex[..2], ["bf16000000000000", "0f10000000000000"]);
        assert_eq!(hex[10..], ["5501010000000000", "0500feff00000000", "2d21010000000000", "b700000000000000", "9500000000000000"]);
    }
}
