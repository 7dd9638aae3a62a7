//! Shared driver of the main-pass tests (`verifier_do_check`,
//! `verifier_calls`): goldens recorded from a real Linux 7.3 verifier at
//! log levels 1 and 2 (`scripts/record-*-goldens.py`), replayed through
//! `do_check_main` and compared: verdict, errno, `verified_insns` and the
//! log after the front end's prelude.
//!
//! What the front end computes for the main pass is read from the
//! kernel's own level-2 prelude (subprogram starts, live registers, SCCs,
//! constant-folded branches, per-function-instance stack use/def, kfunc
//! BTF ids) or computed here as `check_cfg` does (prune and jump points).
//! The "Verification failed:" diagnostics blocks are not the main pass's
//! and are cut from both sides.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use bpf_isa::Insn;
use bpf_isa::insn::op::{self, *};
use bpf_selftest::verifier::do_check::*;

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One recorded program.
pub struct Case {
    /// `x86_64` or `arm64`, from the file's header.
    pub arch: String,
    pub area: String,
    pub name: String,
    pub ptype: String,
    pub opts: String,
    pub asm: String,
    pub result: String,
    pub log1: String,
    pub log2: String,
}

/// Every program of `dir` (one `<area>.txt` per area).
pub fn load(dir: &str) -> Vec<Case> {
    let dir = Path::new(ROOT).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("goldens").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let area = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let text = std::fs::read_to_string(&f).expect("read");
        let arch = if text.lines().next().is_some_and(|l| l.contains(" arm64 ")) { "arm64" } else { "x86_64" };
        for chunk in text.split("\n=== ").skip(1) {
            let mut c = Case {
                arch: arch.to_string(),
                area: area.clone(),
                name: String::new(),
                ptype: String::new(),
                opts: String::new(),
                asm: String::new(),
                result: String::new(),
                log1: String::new(),
                log2: String::new(),
            };
            let mut sect = 0;
            for (i, l) in chunk.lines().enumerate() {
                if i == 0 {
                    c.name = l.to_string();
                    continue;
                }
                match sect {
                    0 if l.starts_with("type: ") => c.ptype = l[6..].to_string(),
                    0 if l.starts_with("opts:") => c.opts = l[5..].trim().to_string(),
                    0 if l == "asm:" => sect = 1,
                    1 if l.starts_with("  ") => {
                        c.asm.push_str(l.trim());
                        c.asm.push('\n');
                    }
                    1 if l.starts_with("result: ") => c.result = l[8..].to_string(),
                    _ if l == "--- level 1" => sect = 2,
                    _ if l == "--- level 2" => sect = 3,
                    2 => {
                        c.log1.push_str(l);
                        c.log1.push('\n');
                    }
                    3 => {
                        c.log2.push_str(l);
                        c.log2.push('\n');
                    }
                    _ => {}
                }
            }
            out.push(c);
        }
    }
    out
}

/// The oracle's program type names.
pub fn prog_type(t: &str) -> u32 {
    match t {
        "socket" => 1,
        "kprobe" => 2,
        "tc" => 3,
        "tracepoint" => 5,
        "xdp" => 6,
        "cgroup_skb" => 8,
        "cgroup_sock" => 9,
        "raw_tp" => 17,
        _ => 0,
    }
}

/// Stack use/def as 4-byte half slots per frame of the instance (bit
/// 2*spi: the half next to the frame pointer, bit 2*spi+1: the other).
fn parse_spis(s: &str, masks: &mut BTreeMap<usize, u128>) {
    for tok in s.split([',', ' ']).filter(|t| !t.is_empty()) {
        let Some(t) = tok.strip_prefix("fp") else { continue };
        let Some(dash) = t.find('-') else { continue };
        let Ok(frame) = t[..dash].parse::<usize>() else { continue };
        let t = &t[dash..];
        let m = masks.entry(frame).or_default();
        let (range, half) = match t.strip_suffix('h') {
            Some(r) => (r, true),
            None => (t, false),
        };
        let parts: Vec<i64> = range.split("..").filter_map(|p| p.parse().ok()).collect();
        let (a, b) = match parts.as_slice() {
            [a] => (*a, *a),
            [a, b] => (*a, *b),
            _ => continue,
        };
        let (hi, lo) = (a.max(b), a.min(b));
        if half {
            // -4h: bytes [-4,-1], slot_type[0..4], the lower half_spi;
            // -8h: bytes [-8,-5], the upper one
            let spi = ((-a - 1) / 8) as u32;
            let upper = (-a) % 8 == 0;
            let bit = spi * 2 + upper as u32;
            if bit < 128 {
                *m |= 1 << bit;
            }
        } else {
            let mut o = hi;
            while o >= lo {
                let spi = ((-o - 1) / 8) as u32;
                if spi < 64 {
                    *m |= 3 << (spi * 2);
                }
                o -= 8;
            }
        }
    }
}

/// One function instance of 7.3's stack liveness (`struct func_instance`,
/// keyed by depth and call site), with its insns' use/def per frame.
#[derive(Default)]
struct Instance {
    depth: usize,
    subprog_start: usize,
    uses: HashMap<(usize, usize), u128>,
    defs: HashMap<(usize, usize), u128>,
    /// (insn, frame) -> live before
    live: HashMap<(usize, usize), u128>,
}

/// What the level-2 prelude says.
pub struct Prelude {
    pub live_regs: Vec<u16>,
    pub scc: Vec<u32>,
    /// Insns the kernel printed as `goto` after constant folding.
    pub folded_ja: Vec<Option<i16>>,
    /// Subprogram starts (`func#N @S`).
    pub subprog_starts: Vec<usize>,
    /// Subprogram names by start.
    pub names: HashMap<usize, String>,
    /// Kfunc BTF ids by name.
    pub kfunc_ids: HashMap<String, u32>,
    /// What `ld_imm64` of a map loads (the front end writes the map's
    /// kernel address into the insn).
    pub ld_imm64: HashMap<usize, u64>,
    instances: HashMap<(usize, usize), Instance>,
}

fn parse_prelude(log2: &str, n: usize) -> Prelude {
    let mut p = Prelude {
        live_regs: vec![0; n],
        scc: vec![0; n],
        folded_ja: vec![None; n],
        subprog_starts: Vec::new(),
        names: HashMap::new(),
        kfunc_ids: HashMap::new(),
        ld_imm64: HashMap::new(),
        instances: HashMap::new(),
    };
    let mut sect = 0;
    let mut cur_inst: Option<(usize, usize)> = None;
    let mut sub_names: HashMap<usize, String> = HashMap::new();
    for l in log2.lines() {
        if let Some(rest) = l.strip_prefix("func#") {
            if let Some((_, at)) = rest.split_once(" @")
                && let Ok(s) = at.trim().parse()
            {
                p.subprog_starts.push(s);
            }
            continue;
        }
        if let Some(rest) = l.strip_prefix("stack use/def subprog#") {
            // "N name (dD,csC):"
            sect = 1;
            let (num, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let n: usize = num.parse().unwrap_or(0);
            let (name, key) = rest.rsplit_once(" (").unwrap_or((rest, ""));
            sub_names.insert(n, name.to_string());
            let key = key.trim_end_matches("):");
            let (d, cs) = key.split_once(',').unwrap_or(("d0", "cs0"));
            let d: usize = d.trim_start_matches('d').parse().unwrap_or(0);
            let cs: usize = cs.trim_start_matches("cs").parse().unwrap_or(0);
            let start = p.subprog_starts.get(n).copied().unwrap_or(0);
            p.instances.insert((d, cs), Instance { depth: d, subprog_start: start, ..Instance::default() });
            cur_inst = Some((d, cs));
            continue;
        }
        if l.starts_with("Live regs before insn:") {
            sect = 2;
            continue;
        }
        if !l.starts_with(' ') {
            if sect == 2 {
                break;
            }
            if sect == 1 {
                sect = 0;
            }
            continue;
        }
        let Some((head, rest)) = l.split_once(": ") else { continue };
        let nums: Vec<&str> = head.split_whitespace().collect();
        let Some(Ok(i)) = nums.last().map(|x| x.parse::<usize>()) else { continue };
        if i >= n {
            continue;
        }
        if sect == 1 {
            let Some(inst) = cur_inst.and_then(|k| p.instances.get_mut(&k)) else { continue };
            if let Some((_, c)) = rest.split_once(';') {
                // "use: a b def: c d"
                let (u, d) = match c.split_once("def:") {
                    Some((u, d)) => (u, d),
                    None => (c, ""),
                };
                let mut um = BTreeMap::new();
                let mut dm = BTreeMap::new();
                if let Some(u) = u.trim().strip_prefix("use:") {
                    parse_spis(u, &mut um);
                }
                parse_spis(d, &mut dm);
                for (f, m) in um {
                    *inst.uses.entry((i, f)).or_default() |= m;
                }
                for (f, m) in dm {
                    *inst.defs.entry((i, f)).or_default() |= m;
                }
            }
        } else if sect == 2 {
            if nums.len() >= 2 {
                p.scc[i] = nums[0].parse().unwrap_or(0);
            }
            let (mask, insn) = rest.split_at(rest.len().min(10));
            let mut m = 0u16;
            for (k, ch) in mask.chars().enumerate() {
                if ch != '.' {
                    m |= 1 << k;
                }
            }
            p.live_regs[i] = m;
            let insn = insn.trim();
            if let Some(g) = insn.strip_prefix("(05) goto pc") {
                p.folded_ja[i] = g.split_whitespace().next().and_then(|x| x.parse().ok());
            }
            if let Some(v) = insn.strip_prefix("(18) ").and_then(|x| x.split_once(" = 0x")).map(|(_, v)| v)
                && let Ok(v) = u64::from_str_radix(v.trim(), 16)
            {
                p.ld_imm64.insert(i, v);
            }
            if let Some(c) = insn.strip_prefix("(85) call ")
                && let Some((name, id)) = c.split_once('#')
                && bpf_isa::helper_ids::helper_id(name).is_none()
                && let Ok(id) = id.trim().parse::<u32>()
            {
                p.kfunc_ids.insert(name.to_string(), id);
            }
        }
    }
    for (i, s) in p.subprog_starts.iter().enumerate() {
        if let Some(n) = sub_names.get(&i) {
            p.names.insert(*s, n.clone());
        }
    }
    p
}

/// Successors as `bpf_insn_successors` sees them (calls fall through).
fn successors(insns: &[Insn], i: usize) -> Vec<usize> {
    let insn = insns[i];
    let class = insn.class();
    let opc = op::op(insn.code);
    let n = insns.len() as i64;
    let mut v = Vec::new();
    let add = |v: &mut Vec<usize>, t: i64| {
        if t >= 0 && t < n {
            v.push(t as usize);
        }
    };
    if class == BPF_JMP || class == BPF_JMP32 {
        if opc == BPF_EXIT {
            return v;
        }
        if opc == BPF_JA {
            let off = if class == BPF_JMP { insn.off as i64 } else { insn.imm as i64 };
            add(&mut v, i as i64 + off + 1);
            return v;
        }
        if opc != BPF_CALL {
            add(&mut v, i as i64 + 1);
            add(&mut v, i as i64 + insn.off as i64 + 1);
            return v;
        }
    }
    add(&mut v, i as i64 + if insn.is_ld_imm64() { 2 } else { 1 });
    v
}

/// `bpf_is_sync_callback_calling_insn` for the helpers.
fn calls_callback(insn: &Insn) -> bool {
    insn.is_helper_call() && matches!(insn.imm, 164 | 180 | 181 | 209)
}

/// 7.3's stack liveness over the recorded function instances
/// (`bpf_stack_slot_alive`).
struct Live {
    instances: HashMap<(usize, usize), Instance>,
    calls_callback: Vec<bool>,
}

impl Live {
    fn new(mut instances: HashMap<(usize, usize), Instance>, insns: &[Insn], starts: &[usize]) -> Live {
        let n = insns.len();
        for inst in instances.values_mut() {
            let start = inst.subprog_start;
            let end = starts.iter().copied().filter(|&s| s > start).min().unwrap_or(n);
            for frame in 0..=inst.depth {
                loop {
                    let mut changed = false;
                    for i in (start..end).rev() {
                        let after = successors(insns, i).iter().fold(0u128, |a, s| a | inst.live.get(&(*s, frame)).copied().unwrap_or(0));
                        let u = inst.uses.get(&(i, frame)).copied().unwrap_or(0);
                        let d = inst.defs.get(&(i, frame)).copied().unwrap_or(0);
                        let b = u | (after & !d);
                        let e = inst.live.entry((i, frame)).or_default();
                        if *e != b {
                            *e = b;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
            }
        }
        Live { instances, calls_callback: insns.iter().map(calls_callback).collect() }
    }

    /// `lookup_instance` for frame `i` of the query.
    fn lookup(&self, q: &LiveQuery, i: usize) -> Option<&Instance> {
        let start = q.subprog_starts.get(i).copied().unwrap_or(0);
        let callsite = if i > 0 { q.callsites.get(i - 1).copied().unwrap_or(0) } else { start };
        let mut depth = i;
        loop {
            let key = if depth > 0 { callsite } else { start };
            if let Some(f) = self.instances.get(&(depth, key)) {
                return Some(f);
            }
            if depth == 0 {
                return None;
            }
            depth -= 1;
        }
    }

    fn live_before(inst: &Instance, insn: usize, frame: usize, half_spi: usize) -> bool {
        half_spi < 128 && inst.live.get(&(insn, frame)).is_some_and(|m| m & (1u128 << half_spi) != 0)
    }
}

impl StackLiveness for Live {
    fn stack_slot_alive(&self, q: &LiveQuery, frameno: usize, half_spi: usize) -> bool {
        let curframe = q.callsites.len();
        let Some(cur) = self.lookup(q, curframe) else { return true };
        let rel = frameno as i64 + cur.depth as i64 - curframe as i64;
        if rel >= 0 && rel as usize <= cur.depth && Self::live_before(cur, q.insn_idx, rel as usize, half_spi) {
            return true;
        }
        for i in frameno..curframe {
            let Some(inst) = self.lookup(q, i) else { return true };
            let rel = frameno as i64 + inst.depth as i64 - i as i64;
            if rel < 0 || rel as usize > inst.depth {
                return true;
            }
            let callsite = q.callsites[i];
            let at = if self.calls_callback.get(callsite).copied().unwrap_or(false) { callsite } else { callsite + 1 };
            if Self::live_before(inst, at, rel as usize, half_spi) {
                return true;
            }
        }
        false
    }
}

/// Cut the prelude (up to the "Live regs" listing) and the diagnostics blocks.
pub fn main_pass(log: &str, level2: bool) -> String {
    let lines: Vec<&str> = log.lines().collect();
    let mut start = 0;
    if level2 && let Some(p) = lines.iter().position(|l| l.starts_with("Live regs before insn:")) {
        start = p + 1;
        while start < lines.len() && lines[start].starts_with(' ') {
            start += 1;
        }
    }
    let mut out = String::new();
    let mut in_diag = false;
    let mut suggestion = false;
    for l in &lines[start..] {
        if l.starts_with("Verification failed:") {
            in_diag = true;
            suggestion = false;
            // drop the blank line before it
            if out.ends_with("\n\n") {
                out.pop();
            }
            continue;
        }
        if in_diag {
            if l.starts_with("Suggestion:") {
                suggestion = true;
                continue;
            }
            if suggestion && l.is_empty() {
                // the block ends with the suggestion's paragraph
                in_diag = false;
                continue;
            }
            if l.starts_with("processed ") {
                in_diag = false;
                if out.ends_with("\n\n") {
                    out.pop();
                }
            } else {
                continue;
            }
        }
        if l.starts_with("processed ") {
            break;
        }
        // a message without its newline runs into the statistics
        if let Some(p) = l.find("processed ").filter(|&p| l[p..].contains(" insns (limit ")) {
            out.push_str(&l[..p]);
            break;
        }
        out.push_str(l);
        out.push('\n');
    }
    // a last message without its newline (the log of a model run ends there)
    if !log.ends_with('\n') && out.ends_with('\n') && lines.last().is_some_and(|l| !l.is_empty() && out.ends_with(&format!("{l}\n"))) {
        out.pop();
    }
    out
}

/// The load options the recorders pass to the oracle.
pub struct Opts {
    pub maps: Vec<MapInfo>,
    pub unpriv: bool,
    pub state_freq: bool,
    pub attach: u32,
    pub globals: Vec<String>,
    pub no_btf: bool,
    pub gpl: bool,
}

fn map_type(name: &str) -> u32 {
    bpf_selftest::map::map_type_by_name(name).unwrap_or(0)
}

pub fn parse_opts(opts: &str) -> Opts {
    let mut o = Opts { maps: Vec::new(), unpriv: false, state_freq: false, attach: 0, globals: Vec::new(), no_btf: false, gpl: true };
    let mut toks = opts.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            "--map" => {
                let spec = toks.next().unwrap_or_default();
                let f: Vec<&str> = spec.split(':').collect();
                if f.len() >= 5 {
                    o.maps.push(MapInfo {
                        name: f[0].to_string(),
                        map_type: map_type(f[1]),
                        key_size: f[2].parse().unwrap_or(4),
                        value_size: f[3].parse().unwrap_or(8),
                        max_entries: f[4].parse().unwrap_or(1),
                        map_flags: f.get(5).and_then(|x| x.parse().ok()).unwrap_or(0),
                        ..MapInfo::default()
                    });
                }
            }
            "--unpriv" => o.unpriv = true,
            "--flags" => o.state_freq = toks.next().is_some_and(|f| f.contains("state_freq")),
            "--attach-type" => {
                o.attach = match toks.next() {
                    Some("cgroup_inet_egress") => 1,
                    _ => 0,
                };
            }
            "--global" => o.globals.extend(toks.next().map(str::to_string)),
            "--no-btf" => o.no_btf = true,
            "--license" => o.gpl = toks.next().is_some_and(|l| l.contains("GPL")),
            _ => {}
        }
    }
    o
}

/// The map addresses the main pass printed for `ld_imm64` insns (each
/// load of a golden is a load of its own, with its own maps).
fn ld_imm64_in_log(log: &str) -> HashMap<usize, u64> {
    let mut m = HashMap::new();
    for l in log.lines() {
        let Some((idx, rest)) = l.split_once(": (18) ") else { continue };
        let Ok(i) = idx.trim().parse::<usize>() else { continue };
        let Some((_, v)) = rest.split_once(" = 0x") else { continue };
        let v = v.split_whitespace().next().unwrap_or("");
        if let Ok(v) = u64::from_str_radix(v, 16) {
            m.insert(i, v);
        }
    }
    m
}

/// The front end rejected the program: no main pass ran.
pub fn rejected_by_front_end(case: &Case) -> bool {
    !case.log2.contains("Live regs before insn:")
}

/// A reference of the program the loader resolves.
pub enum Reloc {
    /// `ld_imm64` of map `map` (of its value when `value`).
    Map { insn: usize, map: usize, value: bool },
    /// A kfunc call by name.
    Kfunc { insn: usize, name: String },
}

/// One program as a loader passed it to 7.3, and what 7.3 logged.
pub struct ProgInput {
    pub insns: Vec<Insn>,
    pub relocs: Vec<Reloc>,
    pub maps: Vec<MapInfo>,
    pub prog_type: u32,
    pub attach: u32,
    pub privs: Privs,
    pub state_freq: bool,
    pub reg_invariants: bool,
    pub strict_alignment: bool,
    /// `sizeof(bpf_user_pt_regs_t)` of the arch: a kprobe's ctx.
    pub pt_regs_size: i64,
    /// Names of the global subprograms.
    pub globals: Vec<String>,
    pub has_btf: bool,
    pub gpl: bool,
    /// 7.3's logs at levels 1 and 2 (the front end's results are read
    /// from the level-2 prelude; map addresses from either).
    pub log1: String,
    pub log2: String,
}

/// The load a golden describes.
pub fn case_input(case: &Case) -> Result<ProgInput, String> {
    let prog = bpf_isa::assemble(&case.asm).map_err(|e| format!("asm: {e}"))?;
    let opts = parse_opts(&case.opts);
    let mut relocs = Vec::new();
    for r in &prog.relocs {
        let (name, value) = match r.symbol.strip_suffix("__value") {
            Some(n) => (n, true),
            None => (r.symbol.as_str(), false),
        };
        if let Some(map) = opts.maps.iter().position(|m| m.name == name) {
            relocs.push(Reloc::Map { insn: r.insn, map, value });
        } else if r.kind == bpf_isa::asm::RelocKind::Call {
            relocs.push(Reloc::Kfunc { insn: r.insn, name: r.symbol.clone() });
        }
    }
    Ok(ProgInput {
        insns: prog.insns.clone(),
        relocs,
        maps: opts.maps,
        prog_type: prog_type(&case.ptype),
        attach: opts.attach,
        privs: if opts.unpriv { Privs::UNPRIV } else { Privs::ROOT },
        state_freq: opts.state_freq && !opts.unpriv,
        reg_invariants: false,
        strict_alignment: false,
        // struct pt_regs (x86_64), struct user_pt_regs (arm64)
        pt_regs_size: if case.arch == "arm64" { 272 } else { 168 },
        globals: opts.globals,
        has_btf: !opts.no_btf,
        gpl: opts.gpl,
        log1: case.log1.clone(),
        log2: case.log2.clone(),
    })
}

/// Runs `case` through `do_check_main` at log `level`.
pub fn run(case: &Case, level: u32) -> Result<(DoCheckOutcome, String), String> {
    Ok(run_input(&case_input(case)?, level))
}

/// `check_cfg`'s prune points, jump points and forced checkpoints of a
/// program (`is_iter_next`: the insn calls an iterator's `_next` kfunc).
pub fn cfg_info(insns: &[Insn], is_iter_next: &dyn Fn(usize) -> bool) -> Vec<InsnInfo> {
    let n = insns.len();
    let mut info = vec![InsnInfo::default(); n];
    let mark = |info: &mut Vec<InsnInfo>, t: i64, jmp: bool| {
        if t >= 0 && (t as usize) < n {
            info[t as usize].prune_point = true;
            if jmp {
                info[t as usize].jmp_point = true;
            }
        }
    };
    let mut i = 0;
    while i < n {
        let insn = insns[i];
        let class = insn.class();
        let opc = op::op(insn.code);
        let sz = if insn.is_ld_imm64() { 2 } else { 1 };
        if insn.is_ld_imm64() && insn.src == BPF_PSEUDO_FUNC {
            mark(&mut info, (i + sz) as i64, true);
            mark(&mut info, i as i64, false);
            mark(&mut info, i as i64 + insn.imm as i64 + 1, true);
        } else if class == BPF_JMP || class == BPF_JMP32 {
            if opc == BPF_CALL {
                if insn.is_helper_call() && insn.imm == 170 {
                    mark(&mut info, i as i64, false);
                }
                if calls_callback(&insn) {
                    info[i].force_checkpoint = true;
                    mark(&mut info, i as i64, true);
                }
                if insn.is_kfunc_call() && is_iter_next(i) {
                    mark(&mut info, i as i64, false);
                    info[i].force_checkpoint = true;
                }
                mark(&mut info, i as i64 + 1, true);
                if insn.is_pseudo_call() {
                    mark(&mut info, i as i64, false);
                    mark(&mut info, i as i64 + insn.imm as i64 + 1, true);
                }
            } else if opc == BPF_JA {
                let off = if class == BPF_JMP { insn.off as i64 } else { insn.imm as i64 };
                mark(&mut info, i as i64 + off + 1, true);
            } else if opc != BPF_EXIT {
                info[i].prune_point = true;
                if insn.code == BPF_JMP | BPF_JCOND {
                    info[i].force_checkpoint = true;
                }
                mark(&mut info, i as i64 + insn.off as i64 + 1, true);
            }
        }
        i += sz;
    }
    info
}

/// Runs a load through `do_check_main` at log `level`.
pub fn run_input(p: &ProgInput, level: u32) -> (DoCheckOutcome, String) {
    let mut insns = p.insns.clone();
    let n = insns.len();
    let pre = parse_prelude(&p.log2, n);
    for (i, f) in pre.folded_ja.iter().enumerate() {
        if let Some(off) = f {
            insns[i] = Insn::new(BPF_JMP | BPF_JA, 0, 0, *off, 0);
        }
    }
    let maps = &p.maps;
    // kfuncs: the BTF ids 7.3 printed
    let mut kfuncs: Vec<(&'static str, u32)> = Vec::new();
    let from_log = ld_imm64_in_log(if level == 1 { &p.log1 } else { &p.log2 });
    for r in &p.relocs {
        match r {
            Reloc::Map { insn, value, .. } => {
                let Some(x) = insns.get_mut(*insn) else { continue };
                x.src = if *value { BPF_PSEUDO_MAP_VALUE } else { BPF_PSEUDO_MAP_FD };
                if let Some(v) = from_log.get(insn).or(pre.ld_imm64.get(insn)) {
                    x.imm = *v as u32 as i32;
                    if insn + 1 < n {
                        insns[insn + 1].imm = (*v >> 32) as u32 as i32;
                    }
                }
            }
            Reloc::Kfunc { insn, name } => {
                let id = pre.kfunc_ids.get(name).copied().unwrap_or(0);
                let Some(x) = insns.get_mut(*insn) else { continue };
                x.src = BPF_PSEUDO_KFUNC_CALL;
                x.imm = id as i32;
                let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
                kfuncs.push((leaked, id));
            }
        }
    }
    // check_cfg saw the branches before constant folding
    let orig: Vec<Insn> = (0..n).map(|i| if pre.folded_ja[i].is_some() { p.insns[i] } else { insns[i] }).collect();
    let is_iter_next = |i: usize| {
        p.relocs.iter().any(|r| matches!(r, Reloc::Kfunc { insn, name } if *insn == i && name.starts_with("bpf_iter_") && name.ends_with("_next")))
    };
    let mut info = cfg_info(&orig, &is_iter_next);
    for i in 0..n {
        info[i].live_regs_before = pre.live_regs[i];
        info[i].scc = pre.scc[i];
    }
    for r in &p.relocs {
        if let Reloc::Map { insn, map, .. } = r
            && *insn < n
        {
            info[*insn].map_index = Some(*map);
        }
    }
    let starts = if pre.subprog_starts.is_empty() { vec![0] } else { pre.subprog_starts.clone() };
    let subprogs: Vec<Subprog> = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let name = pre.names.get(&s).cloned().unwrap_or_default();
            let end = starts.get(k + 1).copied().unwrap_or(n);
            let body = &insns[s..end];
            Subprog {
                start: s,
                global: k > 0 && p.globals.contains(&name),
                name,
                has_tail_call: body.iter().any(|x| x.is_helper_call() && x.imm == 12),
                has_ld_abs: body.iter().any(|x| x.class() == BPF_LD && matches!(op::mode(x.code), BPF_ABS | BPF_IND)),
                changes_pkt_data: body.iter().any(|x| x.is_helper_call() && bpf_selftest::verifier::helpers::bpf_helper_changes_pkt_data(x.imm)),
                ..Subprog::default()
            }
        })
        .collect();
    let live = Live::new(pre.instances, &insns, &starts);
    let input = DoCheckInput {
        insns: &insns,
        info: &info,
        prog_type: p.prog_type,
        expected_attach_type: p.attach,
        privs: p.privs,
        strict_alignment: p.strict_alignment,
        test_state_freq: p.state_freq,
        test_reg_invariants: p.reg_invariants,
        maps,
        liveness: &live,
        pt_regs_size: p.pt_regs_size,
        subprogs: &subprogs,
        has_func_info: p.has_btf,
        gpl: p.gpl,
        sleepable: false,
        jit_requested: true,
        nr_cpu_ids: 1,
        kfuncs: &kfuncs,
    };
    let mut log = StringLog { level, text: String::new() };
    let out = do_check_main(&input, &mut log);
    (out, log.text)
}

pub fn errno_name(e: i32) -> &'static str {
    match e {
        EACCES => "EACCES",
        EINVAL => "EINVAL",
        E2BIG => "E2BIG",
        EFAULT => "EFAULT",
        EPERM => "EPERM",
        ENOTSUPP => "ENOTSUPP",
        ENOENT => "ENOENT",
        ERANGE => "ERANGE",
        _ => "E?",
    }
}

/// Runs `case` at both log levels against its goldens.
pub fn check(case: &Case) -> Result<(), String> {
    let mut errs = Vec::new();
    for level in [1u32, 2] {
        let (out, log) = run(case, level)?;
        if let Err(DoCheckError::Unsupported(w)) = &out.result {
            return Err(format!("unsupported: {w}"));
        }
        if level == 2 {
            let got = match &out.result {
                Ok(()) => format!("accepted verified_insns={}", out.stats.insn_processed),
                Err(DoCheckError::Errno(e)) => format!("rejected errno={}", errno_name(*e)),
                Err(DoCheckError::Unsupported(_)) => String::new(),
            };
            if got != case.result {
                errs.push(format!("result: got {got}, want {}", case.result));
            }
        }
        let want = main_pass(if level == 1 { &case.log1 } else { &case.log2 }, level == 2);
        let got = main_pass(&log, false);
        if want != got {
            let diff = want.lines().zip(got.lines()).position(|(a, b)| a != b).unwrap_or(want.lines().count().min(got.lines().count()));
            errs.push(format!(
                "level {level} log differs at line {}:\n  want: {}\n  got:  {}",
                diff + 1,
                want.lines().nth(diff).unwrap_or("<end>"),
                got.lines().nth(diff).unwrap_or("<end>")
            ));
        }
    }
    if errs.is_empty() { Ok(()) } else { Err(errs.join("\n")) }
}

/// Checks every case of `dir`, prints the pass rate per area, and returns
/// how many matched. `$VERBOSE_VAR` set prints each failure; `$FILTER_VAR`
/// keeps only names containing it.
pub fn run_suite(dir: &str, verbose_var: &str, filter_var: &str) -> (usize, usize) {
    let mut cases = load(dir);
    assert!(!cases.is_empty());
    if let Ok(f) = std::env::var(filter_var) {
        cases.retain(|c| c.name.contains(&f) || c.area == f);
    }
    let mut per_area: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut pass = 0;
    let verbose = std::env::var(verbose_var).is_ok();
    let front: Vec<&str> = cases.iter().filter(|c| rejected_by_front_end(c)).map(|c| c.name.as_str()).collect();
    if !front.is_empty() {
        eprintln!("not the main pass's (rejected by the front end): {}", front.join(" "));
    }
    cases.retain(|c| !rejected_by_front_end(c));
    for c in &cases {
        let r = std::panic::catch_unwind(|| check(c)).unwrap_or_else(|_| Err("panic".into()));
        let e = per_area.entry(c.area.clone()).or_default();
        e.1 += 1;
        match r {
            Ok(()) => {
                e.0 += 1;
                pass += 1;
            }
            Err(m) => {
                if verbose {
                    eprintln!("FAIL {}/{}: {m}", c.area, c.name);
                }
            }
        }
    }
    for (a, (p, t)) in &per_area {
        eprintln!("{a}: {p}/{t}");
    }
    eprintln!("total: {pass}/{}", cases.len());
    (pass, cases.len())
}

/// Prints the model's level-`level` log of the program named `name` (debugging aid).
pub fn dump(dir: &str, name: &str, level: u32) {
    for c in load(dir) {
        if c.name == name {
            match run(&c, level) {
                Ok((out, log)) => eprintln!("{log}\n=> {:?}", out.result),
                Err(e) => eprintln!("{e}"),
            }
        }
    }
}
