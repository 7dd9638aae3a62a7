//! Programs in asm (or as hex words) with their load options on `# oracle:`
//! lines, the form of the inputs of several recorded sets:
//! `tests/oracle_progs/*.s` (backend truth), `expected/jit_disasm/progs/*.s`,
//! `tests/jit_forms/arm64/` (`.s` files and the `.jobs` files that list
//! them) and the programs of `expected/jit/x86_64-forms.json`. The options
//! are those of the reference tool these sets were first recorded with, and
//! load a program as it did:
//!
//! | option | meaning |
//! |---|---|
//! | `--type T` | program type (`socket_filter`, `raw_tp`, `tc`, `tracing`, ...; socket_filter by default) |
//! | `--log-level N` | verifier log level (2 by default) |
//! | `--map NAME:TYPE:KS:VS:MAX[:FLAGS]` | a map the asm names |
//! | `--map-update NAME:KEYHEX:VALUEHEX` | an initial element |
//! | `--tail-call-self NAME:KEY` | the program itself in prog array NAME at KEY, once loaded |
//! | `--global LABEL` | the subprogram at LABEL is global (`BTF_FUNC_GLOBAL`) |
//! | `--no-btf` | no program BTF (no `func_info`) |
//! | `--unpriv [CAPS]` | test_loader's unprivileged run, capability numbers given back |
//! | `--attach-type T --attach-btf FUNC` | a tracing program's attach point |
//! | `--test-run` | a test run: test_loader's input, a 16-byte ctx for raw_tp |
//! | `--hex "WORDS"` | the program as 16-hex-digit words instead of asm |
//! | `--asm FILE` | (job lines) the asm file, whose `# oracle:` lines add options |
//!
//! The main program is named after the file (or job); a subprogram after
//! its label. Maps and BTF are made in the capability state of the run, as
//! test_loader makes them.

use std::collections::BTreeSet;
use std::path::Path;

use bpf_isa::Insn;

use crate::backend::{BtfMode, LoadRequest, TestRunInput};
use crate::link::{self, Func, Symbols};
use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::prog_type::bpf_attach_type as at;
use crate::target::Arch;

/// A program and how to load it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmProg {
    pub name: String,
    /// The asm, `# oracle:` lines included (empty for a hex program).
    pub asm: String,
    pub hex: Option<Vec<Insn>>,
    pub opts: Options,
}

/// The options of one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub prog_type: ProgType,
    pub log_level: u32,
    pub maps: Vec<MapDef>,
    pub tail_call_self: Vec<(String, u32)>,
    pub globals: BTreeSet<String>,
    pub btf: BtfMode,
    pub unpriv: bool,
    pub caps_unpriv: Vec<u32>,
    pub attach_type: Option<u32>,
    pub attach_btf: Option<String>,
    pub test_run: bool,
    /// `prog_flags` (`--flags rnd_hi32,...`).
    pub prog_flags: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            prog_type: crate::prog_type::SOCKET_FILTER,
            log_level: 2,
            maps: Vec::new(),
            tail_call_self: Vec::new(),
            globals: BTreeSet::new(),
            btf: BtfMode::FuncInfo,
            unpriv: false,
            caps_unpriv: Vec::new(),
            attach_type: None,
            attach_btf: None,
            test_run: false,
            prog_flags: 0,
        }
    }
}

/// Words of an option line: whitespace-separated, `"..."` kept together.
pub fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The words of the `# oracle:` lines of `src`.
pub fn oracle_words(src: &str) -> Vec<String> {
    src.lines().filter_map(|l| l.trim().strip_prefix("# oracle:")).flat_map(split_words).collect()
}

/// `bpf_attach_type` of the names the options use.
fn attach_type(name: &str) -> Option<u32> {
    Some(match name {
        "cgroup_inet_ingress" => at::CGROUP_INET_INGRESS,
        "cgroup_inet_egress" => at::CGROUP_INET_EGRESS,
        "trace_raw_tp" => at::TRACE_RAW_TP,
        "trace_fentry" => at::TRACE_FENTRY,
        "trace_fexit" => at::TRACE_FEXIT,
        "modify_return" => at::MODIFY_RETURN,
        "lsm_mac" => at::LSM_MAC,
        "trace_iter" => at::TRACE_ITER,
        "sk_lookup" => at::SK_LOOKUP,
        _ => return None,
    })
}

/// Hex words (16 digits each, whitespace between) as instructions.
pub fn hex_insns(words: &str) -> Result<Vec<Insn>, String> {
    words.split_whitespace().map(|w| bpf_isa::insn::from_hex(w).ok_or_else(|| format!("bad instruction word '{w}'"))).collect()
}

impl AsmProg {
    /// A program from asm source: its `# oracle:` lines, then `extra` (a
    /// job line's words, which may name the asm file with `--asm`,
    /// resolved against `dir`, or give `--hex`).
    pub fn parse(name: &str, src: &str, extra: &[String], dir: &Path) -> Result<AsmProg, String> {
        let mut words = oracle_words(src);
        words.extend_from_slice(extra);
        let mut p = AsmProg { name: name.to_string(), asm: src.to_string(), hex: None, opts: Options::default() };
        let mut i = 0;
        while i < words.len() {
            let w = words[i].clone();
            let value = |i: &mut usize| -> Result<String, String> {
                *i += 1;
                words.get(*i).cloned().ok_or_else(|| format!("{name}: {w} needs a value"))
            };
            let o = &mut p.opts;
            match w.as_str() {
                "--type" | "-t" => {
                    let t = value(&mut i)?;
                    o.prog_type = ProgType::from_name(&t).ok_or_else(|| format!("{name}: program type {t}"))?;
                }
                "--log-level" => o.log_level = value(&mut i)?.parse().map_err(|_| format!("{name}: bad --log-level"))?,
                "--map" => o.maps.push(MapDef::parse_cli(&value(&mut i)?)?),
                "--map-update" => {
                    let a = value(&mut i)?;
                    let f: Vec<&str> = a.split(':').collect();
                    let [m, k, v] = f[..] else { return Err(format!("{name}: --map-update {a}")) };
                    let map = o.maps.iter_mut().find(|x| x.name == m).ok_or_else(|| format!("{name}: --map-update of unknown map {m}"))?;
                    map.init.push((super::unhex(k)?, super::unhex(v)?));
                }
                "--tail-call-self" => {
                    let a = value(&mut i)?;
                    let (m, k) = a.split_once(':').ok_or_else(|| format!("{name}: --tail-call-self {a}"))?;
                    o.tail_call_self.push((m.to_string(), k.parse().map_err(|_| format!("{name}: --tail-call-self {a}"))?));
                }
                "--global" => {
                    o.globals.insert(value(&mut i)?);
                }
                "--no-btf" => o.btf = BtfMode::None,
                "--flags" => {
                    for f in value(&mut i)?.split(',') {
                        o.prog_flags |= crate::prog_type::prog_flag(f).ok_or_else(|| format!("{name}: prog flag {f}"))?;
                    }
                }
                "--test-run" => o.test_run = true,
                "--unpriv" => {
                    o.unpriv = true;
                    if let Some(c) = words.get(i + 1).filter(|c| !c.starts_with("--")) {
                        o.caps_unpriv = c.split(',').map(|n| n.parse().map_err(|_| format!("{name}: --unpriv {c}"))).collect::<Result<_, _>>()?;
                        i += 1;
                    }
                }
                "--attach-type" => {
                    let t = value(&mut i)?;
                    o.attach_type = Some(attach_type(&t).ok_or_else(|| format!("{name}: attach type {t}"))?);
                }
                "--attach-btf" => o.attach_btf = Some(value(&mut i)?),
                "--hex" => p.hex = Some(hex_insns(&value(&mut i)?)?),
                "--asm" => {
                    let f = dir.join(value(&mut i)?);
                    p.asm = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
                    // the file's own options come next
                    let own = oracle_words(&p.asm);
                    words.splice(i + 1..i + 1, own);
                }
                other => return Err(format!("{name}: option {other} not understood")),
            }
            i += 1;
        }
        Ok(p)
    }

    /// The program of `path` (named after the file).
    pub fn read(path: &Path) -> Result<AsmProg, String> {
        let name = path.file_stem().and_then(|s| s.to_str()).ok_or_else(|| format!("{}: no name", path.display()))?;
        let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        AsmProg::parse(name, &src, &[], path.parent().unwrap_or(Path::new(".")))
    }

    /// The load of this program on `arch`, named `<group>/<name>` in reports.
    pub fn request(&self, group: &str, arch: Arch) -> Result<LoadRequest, String> {
        let o = &self.opts;
        let name = &self.name;
        let mut maps = o.maps.clone();
        for (m, key) in &o.tail_call_self {
            let map = maps.iter_mut().find(|x| &x.name == m).ok_or_else(|| format!("{name}: --tail-call-self of unknown map {m}"))?;
            map.prog_slots.push((*key, name.clone()));
        }
        let linked = match &self.hex {
            Some(insns) => {
                link::LinkedProgram { insns: insns.clone(), funcs: vec![Func { name: name.clone(), start: 0, global: true, nargs: 0 }], relocs: Vec::new() }
            }
            None => {
                let prog = bpf_isa::assemble(&self.asm).map_err(|e| format!("{name}: {e}"))?;
                let syms = Symbols { maps: &maps, ..Symbols::default() };
                let mut linked = link::link(name, &prog, &syms).map_err(|e| format!("{name}: {e}"))?;
                for f in linked.funcs.iter_mut().skip(1) {
                    f.global = o.globals.contains(&f.name);
                }
                linked
            }
        };
        let test_run = o.test_run.then(|| {
            if o.prog_type == crate::prog_type::RAW_TRACEPOINT {
                // raw_tp refuses data in and out and a repeat count
                TestRunInput { data: Vec::new(), ctx: Some(vec![0; 16]), data_out_size: 0, repeat: 0 }
            } else {
                TestRunInput::test_loader(o.prog_type)
            }
        });
        Ok(LoadRequest {
            name: format!("{group}/{name}"),
            prog: linked,
            prog_type: o.prog_type,
            expected_attach_type: o.attach_type,
            attach_func: o.attach_btf.clone(),
            prog_flags: o.prog_flags,
            log_level: o.log_level,
            unpriv: o.unpriv,
            caps_unpriv: o.caps_unpriv.clone(),
            maps,
            btf: o.btf.clone(),
            test_run,
            arch,
            want_jited: arch.has_jit(),
            license: "GPL".into(),
            privileged_setup: false,
            log_size: crate::backend::loader::LOG_BUF_SIZE,
            create_every_map: false,
            scenario: Default::default(),
        })
    }
}

/// The loads of `progs`, in order, and for each program the index of the
/// load whose outcome is its own. An unprivileged program with maps is
/// loaded privileged first: in the first recording of these sets (boot of
/// `tests/jit_forms/arm64/lse.jobs`) the map of the unprivileged `nospec`
/// program has id 3, not 2, so one more map had been made before its own,
/// and a privileged load first, as test_loader's privileged run of the same
/// program would make, gives the recorded ids.
pub fn requests(progs: &[&AsmProg], group: &str, arch: Arch) -> Result<(Vec<LoadRequest>, Vec<usize>), String> {
    let (mut reqs, mut at) = (Vec::new(), Vec::new());
    for p in progs {
        let r = p.request(group, arch)?;
        if r.unpriv && !r.maps.is_empty() {
            reqs.push(LoadRequest { unpriv: false, caps_unpriv: Vec::new(), ..r.clone() });
        }
        at.push(reqs.len());
        reqs.push(r);
    }
    Ok((reqs, at))
}

/// A `.jobs` file: `# cpu: MODEL` on the first line, `# ...` comments, and
/// `name: OPTIONS` per program (`--asm FILE` relative to the file).
#[derive(Clone, Debug)]
pub struct Jobs {
    pub cpu: Option<String>,
    pub progs: Vec<AsmProg>,
}

impl Jobs {
    pub fn read(path: &Path) -> Result<Jobs, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut jobs = Jobs { cpu: None, progs: Vec::new() };
        for l in text.lines() {
            if let Some(c) = l.strip_prefix("# cpu:") {
                jobs.cpu = Some(c.trim().to_string());
                continue;
            }
            if l.starts_with('#') || l.trim().is_empty() {
                continue;
            }
            let (name, opts) = l.split_once(':').ok_or_else(|| format!("{}: not `name: options`: {l}", path.display()))?;
            jobs.progs.push(AsmProg::parse(name.trim(), "", &split_words(opts), dir).map_err(|e| format!("{}: {e}", path.display()))?);
        }
        Ok(jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_quoted_runs() {
        assert_eq!(split_words(r#" --type socket_filter --hex "b7 95" x"#), ["--type", "socket_filter", "--hex", "b7 95", "x"]);
        assert_eq!(split_words(""), Vec::<String>::new());
    }

    #[test]
    fn options_and_request() {
        let src = "# oracle: --type raw_tp --test-run --map m:array:4:8:1 --tail-call-self m:0 --log-level 1\nr0 = 0\nexit\n";
        let mut p = AsmProg::parse("x", src, &[], Path::new(".")).unwrap();
        assert_eq!(p.opts.prog_type, crate::prog_type::RAW_TRACEPOINT);
        assert_eq!(p.opts.log_level, 1);
        p.opts.maps[0].map_type = 3;
        let r = p.request("g", Arch::X86_64).unwrap();
        assert_eq!(r.name, "g/x");
        assert_eq!(r.maps[0].prog_slots, [(0, "x".to_string())]);
        assert_eq!(r.test_run.unwrap().ctx, Some(vec![0; 16]));
        let h = AsmProg::parse("h", "", &split_words(r#"--type socket_filter --hex "b700000000000000 9500000000000000 ""#), Path::new(".")).unwrap();
        assert_eq!(h.request("g", Arch::Arm64).unwrap().prog.insns.len(), 2);
        assert!(AsmProg::parse("y", "# oracle: --frobnicate\n", &[], Path::new(".")).is_err());
    }
}
