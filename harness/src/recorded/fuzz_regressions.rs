//! The fuzz regressions, `tests/fuzz_regressions/`: inputs the fuzz
//! targets found (`verify_raw-<what>.bin`: four config bytes, then the
//! insns), each with what Linux 7.3 answered for the same load in
//! `7.3-x86_64.json`, by file stem: `{accepted, errno, verified_insns,
//! log_true_size, log_tail}` (the log's last 8 lines; `verified_insns` 0
//! when rejected: no program to ask).
//!
//! The config bytes choose the load ([`Config`], the one decoding the fuzz
//! targets use too). The kernel's load has no program BTF and no maps: an
//! input that loads a map by fd (the model's fuzz input has two, at fds 4
//! and 5) cannot be recorded. `record --set fuzz-regressions` loads every
//! input again (one boot) and writes the file anew; a new regression is a
//! new `.bin`, then `record --set fuzz-regressions`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::isa::Insn;
use crate::link::{Func, LinkedProgram};
use crate::prog_type::ProgType;
use crate::target::Arch;

/// The program types of the first config byte (modulo their number): those
/// whose ctx the model knows, and one no kernel has (`0x7fff`).
pub const PROG_TYPES: [u32; 12] = [1, 2, 3, 4, 5, 6, 8, 17, 26, 30, 31, 0x7fff];

/// The log buffer of the config's levels 0-9 (test_loader's).
const LOG_BUF: u32 = 2 * 1024 * 1024;

/// Who loads the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Privilege {
    Root,
    /// Without CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF.
    Unprivileged,
    /// Without CAP_SYS_ADMIN and CAP_NET_ADMIN: CAP_BPF and CAP_PERFMON kept.
    BpfPerfmon,
}

/// The load attributes four config bytes choose:
///
/// | byte | bits | what |
/// | --- | --- | --- |
/// | 0 | all | program type: [`PROG_TYPES`]`[b % 12]` |
/// | 1 | 0-3 | log level (`0xff`: level 15 with the undefined bit 8 too) |
/// | 1 | 4-7 | log buffer: 0-9 2 MiB, 10 1 byte, 11 16, 12 128, 13 1000, 14 none, 15 `u32::MAX` bytes (level 0 has none but with 15) |
/// | 2 | 0-7 | `prog_flags` bits 0-7, bit 6 standing for the undefined bit 20 |
/// | 3 | 0 | arch: x86_64, else arm64 |
/// | 3 | 1-2 | 0, 1 root; 2 unprivileged; 3 CAP_BPF and CAP_PERFMON only |
/// | 3 | 7 | a license that is not GPL |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub arch: Arch,
    pub prog_type: ProgType,
    pub log_level: u32,
    pub log_size: u32,
    pub prog_flags: u32,
    pub privilege: Privilege,
    pub gpl: bool,
}

impl Config {
    pub fn from_bytes(cfg: [u8; 4]) -> Config {
        let log_level = u32::from(cfg[1] & 0x0f) | if cfg[1] == 0xff { 0x100 } else { 0 };
        let log_size = match cfg[1] >> 4 {
            _ if log_level == 0 && cfg[1] >> 4 != 15 => 0,
            0..=9 => LOG_BUF,
            10 => 1,
            11 => 16,
            12 => 128,
            13 => 1000,
            14 => 0,
            _ => u32::MAX,
        };
        Config {
            arch: if cfg[3] & 1 == 0 { Arch::X86_64 } else { Arch::Arm64 },
            prog_type: ProgType(PROG_TYPES[cfg[0] as usize % PROG_TYPES.len()]),
            log_level,
            log_size,
            prog_flags: u32::from(cfg[2] & 0xbf) | if cfg[2] & 0x40 != 0 { 1 << 20 } else { 0 },
            privilege: match (cfg[3] >> 1) & 3 {
                0 | 1 => Privilege::Root,
                2 => Privilege::Unprivileged,
                _ => Privilege::BpfPerfmon,
            },
            gpl: cfg[3] & 0x80 == 0,
        }
    }
}

/// One input: its config and insns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The file's stem.
    pub name: String,
    pub config: Config,
    pub insns: Vec<Insn>,
}

impl Input {
    /// A `.bin`: the config bytes, then the insns (a trailing part of an
    /// insn is left out, as the fuzz target does).
    pub fn from_bytes(name: &str, data: &[u8]) -> Result<Input, String> {
        let [a, b, c, d, body @ ..] = data else { return Err(format!("{name}: fewer than 4 config bytes")) };
        let insns = crate::isa::insn::decode_all(&body[..body.len() / 8 * 8]).ok_or_else(|| format!("{name}: not whole insns"))?;
        Ok(Input { name: name.to_string(), config: Config::from_bytes([*a, *b, *c, *d]), insns })
    }

    /// The kernel's load: no program BTF, no maps.
    pub fn request(&self) -> Result<LoadRequest, String> {
        let c = &self.config;
        if c.log_size == u32::MAX {
            return Err(format!("{}: a log buffer of u32::MAX bytes cannot be passed", self.name));
        }
        if self.insns.iter().any(|i| i.is_ld_imm64() && matches!(i.src, 1 | 2)) {
            return Err(format!("{}: loads a map by fd, and the kernel's load has no maps", self.name));
        }
        let (unpriv, caps_unpriv) = match c.privilege {
            Privilege::Root => (false, Vec::new()),
            Privilege::Unprivileged => (true, Vec::new()),
            Privilege::BpfPerfmon => (true, vec![crate::sys::cap::CAP_BPF, crate::sys::cap::CAP_PERFMON]),
        };
        Ok(LoadRequest {
            name: format!("fuzz-regressions/{}", self.name),
            prog: LinkedProgram { insns: self.insns.clone(), funcs: vec![Func { name: "fuzz".into(), start: 0, global: true, nargs: 0 }], relocs: Vec::new() },
            prog_type: c.prog_type,
            expected_attach_type: None,
            attach_func: None,
            prog_flags: c.prog_flags,
            log_level: c.log_level,
            unpriv,
            caps_unpriv,
            maps: Vec::new(),
            btf: BtfMode::None,
            test_run: None,
            arch: c.arch,
            want_jited: false,
            license: if c.gpl { "GPL" } else { "Proprietary" }.into(),
            privileged_setup: true,
            log_size: c.log_size,
            create_every_map: false,
            scenario: Default::default(),
        })
    }
}

/// The number of a log's last lines kept.
pub const TAIL_LINES: usize = 8;

/// What 7.3 answered for one input.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub accepted: bool,
    pub errno: i32,
    pub verified_insns: u32,
    pub log_true_size: u32,
    pub log_tail: Vec<String>,
}

/// The last `n` lines of a log.
pub fn tail(log: &str, n: usize) -> Vec<&str> {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(n)..].to_vec()
}

impl Answer {
    pub fn of(out: &LoadOutcome) -> Answer {
        Answer {
            accepted: out.accepted,
            errno: out.errno,
            verified_insns: if out.accepted { out.verified_insns } else { 0 },
            log_true_size: out.log_true_size,
            log_tail: tail(&out.log, TAIL_LINES).into_iter().map(str::to_string).collect(),
        }
    }

    /// The answer as text, without what moves from boot to boot
    /// ([`super::stable_log`], [`super::stable_log_true_size`]).
    pub fn stable(&self, log_level: u32) -> String {
        let log = self.log_tail.join("\n");
        let size = super::stable_log_true_size(log_level, &log, self.log_true_size);
        format!(
            "accepted {}, errno {}, verified_insns {}\nlog_true_size{}\n{}\n",
            self.accepted,
            self.errno,
            self.verified_insns,
            size.map_or(": depends on the verification time".to_string(), |n| if log_level & 4 != 0 {
                format!(" without the time's digits {n}")
            } else {
                format!(" {n}")
            }),
            super::stable_log(&log)
        )
    }
}

/// A file: the answers by input name.
pub type Answers = BTreeMap<String, Answer>;

/// The file of the answers for `arch` in `dir`.
pub fn answers_path(dir: &Path, arch: Arch) -> PathBuf {
    dir.join(format!("7.3-{}.json", arch.name()))
}

pub fn parse(text: &str) -> Result<Answers, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

pub fn render(a: &Answers) -> Result<String, String> {
    super::json_text(a)
}

/// Every `.bin` of `dir`, by name.
pub fn read_inputs(dir: &Path) -> Result<Vec<Input>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.extension().is_some_and(|e| e == "bin"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let data = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
            Input::from_bytes(f.file_stem().and_then(|s| s.to_str()).unwrap_or_default(), &data)
        })
        .collect()
}

/// `inputs` loaded through `backend`, in one batch.
pub fn record(backend: &dyn Backend, inputs: &[Input]) -> Result<Answers, String> {
    let reqs = inputs.iter().map(Input::request).collect::<Result<Vec<_>, _>>()?;
    let outs = backend.load_batch(&reqs);
    inputs
        .iter()
        .zip(outs)
        .map(|(i, out)| {
            let out = out.map_err(|u| format!("fuzz-regressions/{}: {}", i.name, u.0))?;
            Ok((i.name.clone(), Answer::of(&out)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_bytes() {
        let c = Config::from_bytes([4, 0x01, 0, 0]);
        assert_eq!((c.prog_type, c.log_level, c.log_size, c.prog_flags, c.privilege, c.gpl), (ProgType(5), 1, LOG_BUF, 0, Privilege::Root, true));
        let c = Config::from_bytes([11, 0xff, 0x41, 0x87]);
        assert_eq!(
            (c.prog_type, c.log_level, c.log_size, c.prog_flags, c.arch, c.privilege, c.gpl),
            (ProgType(0x7fff), 0x10f, u32::MAX, 1 | 1 << 20, Arch::Arm64, Privilege::BpfPerfmon, false)
        );
        assert_eq!(Config::from_bytes([0, 0x20, 0, 4]).log_size, 0);
        let i = Input::from_bytes("x", &[0, 0xa2, 0, 4, 0xb7, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0, 1]).unwrap();
        assert_eq!(i.insns.len(), 2);
        let r = i.request().unwrap();
        assert_eq!((r.log_level, r.log_size, r.unpriv), (2, 1, true));
        assert_eq!(tail("a\nb\nc\n", 2), ["b", "c"]);
    }
}
