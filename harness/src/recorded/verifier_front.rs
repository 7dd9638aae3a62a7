//! The verifier front-end goldens,
//! `expected/linux-7.3/<arch>/verifier-front/<name>.json`: malformed and
//! structural programs (bad opcodes and fields, jumps out of range,
//! subprogram layout, capabilities, log buffer sizes) and programs that get
//! past the front end, each with the load exactly as the kernel saw it and
//! what it answered. One JSON object per file:
//!
//! | key | what |
//! | --- | --- |
//! | `name` | the file's stem; the program and its main function are named after it |
//! | `job` | a one-line description of the load in the options of the tool that first recorded it (informative only) |
//! | `insns` | the instruction slots, 16 hex digits each in memory order |
//! | `fixups` | what the loader writes into them: `[insn, "mapfd", map]`, `[insn, "mapval", map, off]`, `[insn, "kfunc", name]` |
//! | `maps` | `{name, type_id, key_size, value_size, max_entries, flags}`, created in order |
//! | `map_updates` | `"<map>:<key hex>:<value hex>"`, written after the map is created (not frozen) |
//! | `funcs` | `[insn, name, global]`: the program BTF's `FUNC`s and `func_info` |
//! | `btf` | whether the program BTF is loaded at all |
//! | `prog_type`, `prog_flags`, `expected_attach_type`, `log_level`, `log_size`, `license` | BPF_PROG_LOAD's attributes |
//! | `unpriv` | `null`: as root; else an unprivileged run with the comma-separated capability numbers given back (`""`: none) |
//! | `kernel` | `{release, accepted, errno, log, log_true_size, verified_insns}` (`verified_insns` 0 when rejected: no program to ask) |
//!
//! The maps and the program BTF are made before an unprivileged run drops
//! its capabilities (as the first recordings did), then the program is
//! loaded. `record --set verifier-front` loads every file of an arch again
//! (one boot) and writes `kernel` anew; a new program is a new file
//! without `kernel` (or with any), then `record --set verifier-front`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::isa::Insn;
use crate::link::{Func, LinkReloc, LinkedProgram};
use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::target::Arch;

/// One map of a load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapSpec {
    pub name: String,
    pub type_id: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
}

/// What the kernel answered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelAnswer {
    pub release: String,
    pub accepted: bool,
    pub errno: i32,
    pub log: String,
    pub log_true_size: u32,
    pub verified_insns: u32,
}

/// One golden file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub name: String,
    pub job: String,
    pub insns: Vec<String>,
    pub fixups: Vec<Value>,
    pub maps: Vec<MapSpec>,
    pub map_updates: Vec<String>,
    pub funcs: Vec<(u32, String, bool)>,
    pub btf: bool,
    pub prog_type: u32,
    pub prog_flags: u32,
    pub expected_attach_type: u32,
    pub log_level: u32,
    pub log_size: u32,
    pub license: String,
    pub unpriv: Option<String>,
    #[serde(default)]
    pub kernel: KernelAnswer,
}

/// A fixup of an instruction by the loader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fixup {
    /// `BPF_PSEUDO_MAP_FD` of map `map`.
    MapFd { insn: usize, map: usize },
    /// `BPF_PSEUDO_MAP_VALUE` of map `map` at `off`.
    MapValue { insn: usize, map: usize, off: u32 },
    /// The kfunc's BTF id in the running kernel.
    Kfunc { insn: usize, name: String },
}

impl Case {
    pub fn insns(&self) -> Result<Vec<Insn>, String> {
        self.insns.iter().map(|h| crate::isa::insn::from_hex(h).ok_or_else(|| format!("{}: bad insn slot {h:?}", self.name))).collect()
    }

    pub fn fixups(&self) -> Result<Vec<Fixup>, String> {
        let bad = |f: &Value| format!("{}: bad fixup {f}", self.name);
        self.fixups
            .iter()
            .map(|f| {
                let num = |i: usize| f.get(i).and_then(Value::as_u64).ok_or_else(|| bad(f));
                let insn = num(0)? as usize;
                match f.get(1).and_then(Value::as_str) {
                    Some("mapfd") => Ok(Fixup::MapFd { insn, map: num(2)? as usize }),
                    Some("mapval") => Ok(Fixup::MapValue { insn, map: num(2)? as usize, off: num(3)? as u32 }),
                    Some("kfunc") => Ok(Fixup::Kfunc { insn, name: f.get(2).and_then(Value::as_str).ok_or_else(|| bad(f))?.to_string() }),
                    _ => Err(bad(f)),
                }
            })
            .collect()
    }

    /// The capabilities an unprivileged run gives back; `None` as root.
    pub fn caps_unpriv(&self) -> Option<Vec<u32>> {
        self.unpriv.as_ref().map(|s| s.split(',').filter_map(|c| c.trim().parse().ok()).collect())
    }

    /// The maps with their initial contents.
    pub fn map_defs(&self) -> Result<Vec<MapDef>, String> {
        let hex = |s: &str| -> Result<Vec<u8>, String> {
            if !s.len().is_multiple_of(2) {
                return Err(format!("{}: odd hex {s:?}", self.name));
            }
            (0..s.len()).step_by(2).map(|k| u8::from_str_radix(&s[k..k + 2], 16).map_err(|e| format!("{}: {s:?}: {e}", self.name))).collect()
        };
        let mut defs = Vec::new();
        for m in &self.maps {
            let mut d = MapDef::new(&m.name, m.type_id, m.key_size, m.value_size, m.max_entries);
            d.map_flags = m.flags;
            for u in &self.map_updates {
                let parts: Vec<&str> = u.split(':').collect();
                let [map, key, value] = parts[..] else { return Err(format!("{}: bad map update {u:?}", self.name)) };
                if map == m.name {
                    d.init.push((hex(key)?, hex(value)?));
                }
            }
            defs.push(d);
        }
        Ok(defs)
    }

    /// The load on `arch`.
    pub fn request(&self, arch: Arch) -> Result<LoadRequest, String> {
        let insns = self.insns()?;
        let relocs = self
            .fixups()?
            .into_iter()
            .map(|f| match f {
                Fixup::MapFd { insn, map } => LinkReloc::Map { insn, map },
                Fixup::MapValue { insn, map, off } => LinkReloc::MapValue { insn, map, off },
                Fixup::Kfunc { insn, name } => LinkReloc::Kfunc { insn, name },
            })
            .collect();
        let funcs = self.funcs.iter().map(|(start, name, global)| Func { name: name.clone(), start: *start as usize, global: *global, nargs: 0 }).collect();
        Ok(LoadRequest {
            name: format!("verifier-front/{}", self.name),
            prog: LinkedProgram { insns, funcs, relocs },
            prog_type: ProgType(self.prog_type),
            expected_attach_type: Some(self.expected_attach_type),
            attach_func: None,
            prog_flags: self.prog_flags,
            log_level: self.log_level,
            unpriv: self.unpriv.is_some(),
            caps_unpriv: self.caps_unpriv().unwrap_or_default(),
            maps: self.map_defs()?,
            btf: if self.btf { BtfMode::FuncInfo } else { BtfMode::None },
            test_run: None,
            arch,
            want_jited: false,
            license: self.license.clone(),
            privileged_setup: true,
            log_size: self.log_size,
            create_every_map: false,
            scenario: Default::default(),
        })
    }
}

/// What a load gave, in the form the files keep.
pub fn answer(release: &str, out: &LoadOutcome) -> KernelAnswer {
    KernelAnswer {
        release: release.to_string(),
        accepted: out.accepted,
        errno: out.errno,
        log: out.log.clone(),
        log_true_size: out.log_true_size,
        verified_insns: if out.accepted { out.verified_insns } else { 0 },
    }
}

/// The file as text, its answer without what moves from boot to boot
/// ([`super::stable_log`], [`super::stable_log_true_size`]).
pub fn stable(case: &Case) -> Result<String, String> {
    let k = &case.kernel;
    let size = super::stable_log_true_size(case.log_level, &k.log, k.log_true_size);
    let mut c = case.clone();
    c.kernel.log = super::stable_log(&k.log);
    c.kernel.log_true_size = 0;
    let size = size.map_or("depends on the verification time".to_string(), |n| n.to_string());
    Ok(format!("{}log_true_size (without the time's digits at level 4): {size}\n", render(&c)?))
}

pub fn parse(text: &str) -> Result<Case, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

pub fn render(case: &Case) -> Result<String, String> {
    super::json_text(case)
}

/// `<root>/linux-7.3/<arch>/verifier-front`.
pub fn dir(root: &Path, arch: Arch) -> PathBuf {
    root.join("linux-7.3").join(arch.name()).join("verifier-front")
}

/// Every golden file of `dir`, by name.
pub fn read_dir(dir: &Path) -> Result<Vec<(PathBuf, Case)>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
            let case = parse(&text).map_err(|e| format!("{}: {e}", f.display()))?;
            Ok((f, case))
        })
        .collect()
}

/// `cases` loaded again through `backend` on `arch`, in one batch: each
/// with its `kernel` answered anew.
pub fn record(backend: &dyn Backend, arch: Arch, release: &str, cases: &[Case]) -> Result<Vec<Case>, String> {
    let reqs = cases.iter().map(|c| c.request(arch)).collect::<Result<Vec<_>, _>>()?;
    let outs = backend.load_batch(&reqs);
    cases
        .iter()
        .zip(outs)
        .map(|(c, out)| {
            let out = out.map_err(|u| format!("{arch} verifier-front/{}: {}", c.name, u.0))?;
            Ok(Case { kernel: answer(release, &out), ..c.clone() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_parse_s_inverse_and_fixups_read() {
        let text = "{\n \"btf\": true,\n \"expected_attach_type\": 0,\n \"fixups\": [\n  [\n   0,\n   \"mapval\",\n   0,\n   8\n  ]\n ],\n \"funcs\": [\n  [\n   0,\n   \"p\",\n   true\n  ]\n ],\n \"insns\": [\n  \"18210000ffffffff\",\n  \"0000000008000000\",\n  \"9500000000000000\"\n ],\n \"job\": \"j\",\n \"kernel\": {\n  \"accepted\": false,\n  \"errno\": 13,\n  \"log\": \"x\\n\",\n  \"log_true_size\": 3,\n  \"release\": \"7.3.4+deb13-amd64\",\n  \"verified_insns\": 0\n },\n \"license\": \"GPL\",\n \"log_level\": 1,\n \"log_size\": 16777216,\n \"map_updates\": [\n  \"a:00000000:0700000000000000\"\n ],\n \"maps\": [\n  {\n   \"flags\": 0,\n   \"key_size\": 4,\n   \"max_entries\": 1,\n   \"name\": \"a\",\n   \"type_id\": 2,\n   \"value_size\": 8\n  }\n ],\n \"name\": \"p\",\n \"prog_flags\": 0,\n \"prog_type\": 1,\n \"unpriv\": \"39,38\"\n}\n";
        let c = parse(text).unwrap();
        assert_eq!(render(&c).unwrap(), text);
        assert_eq!(c.fixups().unwrap(), [Fixup::MapValue { insn: 0, map: 0, off: 8 }]);
        assert_eq!(c.caps_unpriv(), Some(vec![39, 38]));
        let r = c.request(Arch::X86_64).unwrap();
        assert_eq!(r.maps[0].init, [(vec![0, 0, 0, 0], vec![7, 0, 0, 0, 0, 0, 0, 0])]);
        assert!(r.unpriv && r.privileged_setup && r.log_size == 16 << 20);
    }
}
