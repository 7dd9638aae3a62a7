//! The verifier-log goldens of hand-written programs:
//! `expected/linux-7.3/do_check/` (x86_64) and `expected/linux-7.3/calls/`
//! with `expected/linux-7.3/arm64/calls/`. Each `<area>.txt` holds
//! programs with their load options and what 7.3 logged for them at levels
//! 1 and 2:
//!
//! ```text
//! # Linux 7.3.4 x86_64 (QEMU) verifier logs, levels 1 and 2.
//! # <how it was recorded>
//!
//! === <name>
//! type: <program type>
//! opts: <load options: --map NAME:TYPE:KS:VS:MAX[:FLAGS], --unpriv,
//!        --flags F[,F], --attach-type T, --global LABEL, --no-btf, --license L>
//! asm:
//!   <one insn per line>
//! result: accepted verified_insns=N | rejected errno=NAME
//! --- level 1
//! <log>
//! --- level 2
//! <log>
//! ```
//!
//! The inputs live in the files themselves: `record --set do-check|calls`
//! loads every program again (both levels, one boot per arch) and writes
//! the file anew; the tests load them through the model. A new program is
//! a new `=== name`, `type:`, `opts:` and `asm:` block (no result, no
//! logs) in an area file, or a new file with the two header lines; then
//! `record --set ...` fills in what 7.3 does with it. A program's load
//! is the one the goldens were first recorded with: GPL unless `--license`,
//! one BTF `FUNC` per subprogram named `<area>__<name>__l<level>` and after
//! the labels of the others, and in an unprivileged run the maps and the
//! BTF made before the capabilities are dropped.

use std::path::Path;

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::link::{Func, LinkReloc, LinkedProgram};
use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::prog_type::{bpf_attach_type as at, bpf_prog_type as pt};
use crate::target::Arch;
use crate::verifier::errno::errno_name;

/// One recorded program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// From the file's header.
    pub arch: Arch,
    pub area: String,
    pub name: String,
    pub ptype: String,
    pub opts: String,
    /// One insn per line, each ending in `\n`.
    pub asm: String,
    pub result: String,
    pub log1: String,
    pub log2: String,
}

/// One `<area>.txt`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AreaFile {
    pub arch: Arch,
    pub area: String,
    /// The `#` lines at the top.
    pub header: Vec<String>,
    pub cases: Vec<Case>,
}

/// Reads one area file.
pub fn parse(text: &str, area: &str) -> AreaFile {
    let arch = if text.lines().next().is_some_and(|l| l.contains(" arm64 ")) { Arch::Arm64 } else { Arch::X86_64 };
    let header = text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect();
    let mut cases = Vec::new();
    for chunk in text.split("\n=== ").skip(1) {
        let mut c = Case {
            arch,
            area: area.to_string(),
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
        cases.push(c);
    }
    AreaFile { arch, area: area.to_string(), header, cases }
}

/// Writes one area file in the form [`parse`] reads.
pub fn render(f: &AreaFile) -> String {
    let mut s = String::new();
    for h in &f.header {
        s.push_str(h);
        s.push('\n');
    }
    for c in &f.cases {
        s.push_str(&format!("\n=== {}\ntype: {}\nopts: {}\nasm:\n", c.name, c.ptype, c.opts));
        for l in c.asm.lines() {
            s.push_str(&format!("  {l}\n"));
        }
        s.push_str(&format!("result: {}\n--- level 1\n{}\n", c.result, c.log1.trim_end_matches('\n')));
        s.push_str(&format!("--- level 2\n{}\n", c.log2.trim_end_matches('\n')));
    }
    s
}

/// Every area file of `dir`, by name.
pub fn read_dir(dir: &Path) -> Result<Vec<AreaFile>, String> {
    super::files_in(dir, "txt")?
        .iter()
        .map(|f| {
            let area = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            Ok(parse(&text, area))
        })
        .collect()
}

/// The program type names of the `type:` lines.
pub fn prog_type(t: &str) -> Option<ProgType> {
    let id = match t {
        "socket" => pt::SOCKET_FILTER,
        "kprobe" => pt::KPROBE,
        "tc" => pt::SCHED_CLS,
        "tracepoint" => pt::TRACEPOINT,
        "xdp" => pt::XDP,
        "cgroup_skb" => pt::CGROUP_SKB,
        "cgroup_sock" => pt::CGROUP_SOCK,
        "raw_tp" => pt::RAW_TRACEPOINT,
        "sk_lookup" => pt::SK_LOOKUP,
        "syscall" => pt::SYSCALL,
        other => return ProgType::from_name(other),
    };
    Some(ProgType(id))
}

/// The attach types of `--attach-type`.
fn attach_type(t: Option<&str>) -> Result<u32, String> {
    match t {
        Some("cgroup_inet_ingress") => Ok(at::CGROUP_INET_INGRESS),
        Some("cgroup_inet_egress") => Ok(at::CGROUP_INET_EGRESS),
        Some("sk_lookup") => Ok(at::SK_LOOKUP),
        other => Err(format!("attach type {other:?}")),
    }
}

/// The load of `case` at log `level`.
pub fn request(case: &Case, level: u32) -> Result<LoadRequest, String> {
    let mut prog = crate::isa::assemble(&case.asm).map_err(|e| format!("asm: {e}"))?;
    let mut maps = Vec::new();
    let (mut unpriv, mut flags, mut attach) = (false, 0, None);
    let (mut globals, mut no_btf, mut license) = (Vec::new(), false, "GPL".to_string());
    let mut toks = case.opts.split_whitespace();
    while let Some(t) = toks.next() {
        match t {
            "--map" => {
                let f: Vec<&str> = toks.next().unwrap_or_default().split(':').collect();
                let num = |i: usize| f.get(i).and_then(|v| v.parse().ok()).ok_or(format!("bad --map in {:?}", case.opts));
                let ty = crate::map::map_type_by_name(f.get(1).copied().unwrap_or_default()).ok_or("bad map type")?;
                let mut m = MapDef::new(f[0], ty, num(2)?, num(3)?, num(4)?);
                if f.len() > 5 {
                    m.map_flags = num(5)?;
                }
                maps.push(m);
            }
            "--unpriv" => unpriv = true,
            "--flags" => {
                for f in toks.next().unwrap_or_default().split(',') {
                    flags |= crate::prog_type::prog_flag(f).ok_or(format!("flag {f}"))?;
                }
            }
            "--attach-type" => attach = Some(attach_type(toks.next())?),
            "--global" => globals.extend(toks.next().map(str::to_string)),
            "--no-btf" => no_btf = true,
            "--license" => license = toks.next().unwrap_or_default().to_string(),
            other => return Err(format!("option {other}")),
        }
    }
    let mut relocs = Vec::new();
    for r in &prog.relocs {
        let (name, value) = match r.symbol.strip_suffix("__value") {
            Some(n) => (n, true),
            None => (r.symbol.as_str(), false),
        };
        if let Some(map) = maps.iter().position(|m| m.name == name) {
            relocs.push(if value { LinkReloc::MapValue { insn: r.insn, map, off: 0 } } else { LinkReloc::Map { insn: r.insn, map } });
        } else if r.kind == bpf_isa::asm::RelocKind::Call {
            // a call of a name that is no helper: a kfunc
            if let Some(x) = prog.insns.get_mut(r.insn) {
                x.src = bpf_isa::insn::op::BPF_PSEUDO_KFUNC_CALL;
            }
            relocs.push(LinkReloc::Kfunc { insn: r.insn, name: r.symbol.clone() });
        } else {
            return Err(format!("symbol {}", r.symbol));
        }
    }
    // one function per bpf-to-bpf call or callback target, named by its label
    let name = format!("{}__{}__l{level}", case.area, case.name);
    let mut funcs = vec![Func { name: name.clone(), start: 0, global: false, nargs: 0 }];
    for (i, insn) in prog.insns.iter().enumerate() {
        let is_target = insn.is_pseudo_call() || (insn.is_ld_imm64() && insn.src == bpf_isa::insn::op::BPF_PSEUDO_FUNC);
        let t = i as i64 + insn.imm as i64 + 1;
        if !is_target || t <= 0 || funcs.iter().any(|f| f.start as i64 == t) {
            continue;
        }
        let label = prog.labels.iter().find(|(_, at)| **at as i64 == t).map_or_else(|| format!("f{t}"), |(l, _)| l.clone());
        funcs.push(Func { global: globals.contains(&label), name: label, start: t as usize, nargs: 0 });
    }
    funcs.sort_by_key(|f| f.start);
    Ok(LoadRequest {
        prog: LinkedProgram { insns: prog.insns, funcs, relocs },
        name,
        prog_type: prog_type(&case.ptype).ok_or_else(|| format!("program type {}", case.ptype))?,
        expected_attach_type: attach,
        attach_func: None,
        prog_flags: flags,
        log_level: level,
        unpriv,
        caps_unpriv: Vec::new(),
        maps,
        btf: if no_btf { BtfMode::None } else { BtfMode::FuncInfo },
        test_run: None,
        arch: case.arch,
        want_jited: false,
        license,
        privileged_setup: true,
        log_size: crate::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    })
}

/// The `result:` line of a level-2 outcome.
pub fn result_line(out: &LoadOutcome) -> String {
    if out.accepted { format!("accepted verified_insns={}", out.verified_insns) } else { format!("rejected errno={}", errno_name(out.errno)) }
}

/// `file` recorded again through `backend` (a real kernel): every program
/// at levels 1 and 2, in one batch.
pub fn record(backend: &dyn Backend, file: &AreaFile, header: &[String]) -> Result<AreaFile, String> {
    let mut reqs = Vec::new();
    for c in &file.cases {
        for level in [1, 2] {
            reqs.push(request(c, level).map_err(|e| format!("{}/{}: {e}", c.area, c.name))?);
        }
    }
    let outs = backend.load_batch(&reqs);
    let mut cases = Vec::new();
    for (c, pair) in file.cases.iter().zip(outs.chunks(2)) {
        let [l1, l2] = pair else { return Err(format!("{}/{}: the backend answered {} loads of 2", c.area, c.name, pair.len())) };
        let l1 = l1.as_ref().map_err(|u| format!("{}/{}: {}", c.area, c.name, u.0))?;
        let l2 = l2.as_ref().map_err(|u| format!("{}/{}: {}", c.area, c.name, u.0))?;
        cases.push(Case { result: result_line(l2), log1: l1.log.clone(), log2: l2.log.clone(), ..c.clone() });
    }
    Ok(AreaFile { arch: file.arch, area: file.area.clone(), header: header.to_vec(), cases })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_parse_s_inverse() {
        let text = "# Linux 7.3.4 arm64 (QEMU) verifier logs, levels 1 and 2.\n# h2\n\n=== a\ntype: socket\nopts: --map m:array:4:8:1\nasm:\n  r0 = 0\n  exit\nresult: accepted verified_insns=2\n--- level 1\nprocessed 2 insns\n--- level 2\n0: R1=ctx() R10=fp0\nprocessed 2 insns\n\n=== b\ntype: tc\nopts: \nasm:\n  exit\nresult: rejected errno=EACCES\n--- level 1\nR0 !read_ok\n--- level 2\nR0 !read_ok\n";
        let f = parse(text, "x");
        assert_eq!(f.arch, Arch::Arm64);
        assert_eq!(f.cases.len(), 2);
        assert_eq!(f.cases[1].opts, "");
        assert_eq!(render(&f), text);
    }
}
