//! The interpreter's corpus and what 7.3 returned for its test runs,
//! `expected/exec/linux-7.3-<arch>.txt` (`name digest: outcome` per line).
//!
//! The corpus is `tests/exec/*.s` (small programs, one per ALU op and width,
//! edge case, memory and atomic form, call, map, helper, kfunc and ctx
//! field) and a seeded random corpus ([`random`]). A corpus file holds
//! cases that start with `@@ name`; `@type`, `@map`, `@flags`, `@data-len`,
//! `@data-hex`, `@ctx-hex` and `@data-out-size` lines set up the run; the
//! rest is asm. `record --set exec` runs every case on 7.3 per arch (one
//! boot each) and writes the goldens, or compares with `--check`.

pub mod random;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::backend::{Backend, LoadOutcome, LoadRequest};
use crate::cli::check::{CheckArgs, request};
use crate::target::Arch;

/// How many random programs the corpus has: ALU/stack ones and map ones.
pub const RANDOM_PROGRAMS: usize = 400;
pub const RANDOM_MAP_PROGRAMS: usize = 200;
pub const RANDOM_SEED: u64 = 0x7_3000;

/// One program of the corpus and how to load and run it.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub prog_type: String,
    pub maps: Vec<String>,
    pub flags: Option<String>,
    pub data_hex: Option<String>,
    pub data_len: Option<usize>,
    pub ctx_hex: Option<String>,
    /// `data_size_out` other than test_loader's (0: no data_out buffer).
    pub data_out_size: Option<u32>,
    pub src: String,
}

impl Case {
    pub fn new(name: &str) -> Case {
        Case {
            name: name.to_string(),
            prog_type: "socket".into(),
            maps: Vec::new(),
            flags: None,
            data_hex: None,
            data_len: None,
            ctx_hex: None,
            data_out_size: None,
            src: String::new(),
        }
    }

    /// The load and test run of this case on `arch`, as `check` makes it.
    pub fn request(&self, arch: Arch) -> Result<LoadRequest, String> {
        let a = CheckArgs {
            maps: self.maps.clone(),
            // recorded with no flags unless the case names some
            flags: Some(self.flags.clone().unwrap_or_else(|| "0".into())),
            log_level: 0,
            run: true,
            data_len: self.data_len,
            data_hex: self.data_hex.clone(),
            ctx_hex: self.ctx_hex.clone(),
            ..CheckArgs::new(&format!("{}.s", self.name), &self.prog_type, arch)
        };
        let mut req = request(&a, &self.src)?;
        if let Some(t) = req.test_run.as_mut() {
            if self.ctx_hex.is_some() && self.data_len.is_none() && self.data_hex.is_none() {
                // a case's run is test_loader's, ctx or not (check runs a
                // ctx alone without packet, data_out or repeat count)
                let d = crate::backend::TestRunInput::test_loader(req.prog_type);
                (t.data, t.data_out_size, t.repeat) = (d.data, d.data_out_size, d.repeat);
            }
            if let Some(n) = self.data_out_size {
                t.data_out_size = n;
            }
        }
        Ok(req)
    }
}

/// The cases of one corpus file.
pub fn parse_corpus(file: &Path) -> Result<Vec<Case>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("@@") {
            out.push(Case::new(name.trim()));
            continue;
        }
        let Some(c) = out.last_mut() else { continue };
        if let Some(d) = t.strip_prefix('@') {
            let (k, v) = d.split_once(char::is_whitespace).unwrap_or((d, ""));
            let v = v.trim().to_string();
            let num = |what: &str| format!("{}: case {}: bad @{what} '{v}'", file.display(), c.name);
            match k {
                "type" => c.prog_type = v,
                "map" => c.maps.push(v),
                "flags" => c.flags = Some(v),
                "data-len" => c.data_len = Some(v.parse().map_err(|_| num("data-len"))?),
                "data-hex" => c.data_hex = Some(v),
                "ctx-hex" => c.ctx_hex = Some(v),
                "data-out-size" => c.data_out_size = Some(v.parse().map_err(|_| num("data-out-size"))?),
                _ => return Err(format!("{}: unknown directive @{k}", file.display())),
            }
        } else {
            c.src.push_str(line);
            c.src.push('\n');
        }
    }
    Ok(out)
}

/// The whole corpus: the files of `dir` (`tests/exec`) by name, then the
/// random programs.
pub fn corpus(dir: &Path) -> Result<Vec<Case>, String> {
    let files = super::files_in(dir, "s")?;
    let mut cases = Vec::new();
    for f in &files {
        cases.extend(parse_corpus(f)?);
    }
    for (i, src) in random::programs(RANDOM_SEED, RANDOM_PROGRAMS).into_iter().enumerate() {
        let mut c = Case::new(&format!("random_{i:04}"));
        c.src = src;
        cases.push(c);
    }
    for i in 0..RANDOM_MAP_PROGRAMS {
        let (map, src) = random::map_program(RANDOM_SEED, i as u64);
        let mut c = Case::new(&format!("random_map_{i:04}"));
        c.maps.push(map);
        c.src = src;
        cases.push(c);
    }
    let mut seen = std::collections::HashSet::new();
    for c in &cases {
        if !seen.insert(c.name.clone()) {
            return Err(format!("duplicate case name {}", c.name));
        }
    }
    Ok(cases)
}

/// What a run gave, as recorded: `rejected <errno>`, or the test run's
/// `retval <v>` or `errno <e>`, then `data <hex>` when there is a packet.
pub fn outcome_line(o: &LoadOutcome) -> String {
    let mut s = String::new();
    if !o.accepted {
        let _ = write!(s, "rejected {}", o.errno);
        return s;
    }
    match o.retval {
        Some(r) if o.test_run_errno == 0 => {
            let _ = write!(s, "retval {r:#x}");
        }
        _ => {
            let _ = write!(s, "errno {}", o.test_run_errno);
        }
    }
    if !o.data_out.is_empty() {
        s.push_str(" data ");
        for b in &o.data_out {
            let _ = write!(s, "{b:02x}");
        }
    }
    s
}

/// A digest of the program, its maps, type and input, so that a golden
/// recorded from an older version of a case is noticed.
pub fn digest(req: &LoadRequest) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for i in &req.prog.insns {
        for b in i.to_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    for m in &req.maps {
        for b in format!("{m:?}").bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    // the run's input too: a case with other data or ctx is another case
    for b in format!("{:?}{:?}", req.prog_type, req.test_run).bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    format!("{:08x}", h as u32)
}

/// `expected/exec/linux-7.3-<arch>.txt` under `expected`.
pub fn golden_path(expected: &Path, arch: Arch) -> PathBuf {
    expected.join(format!("exec/linux-7.3-{arch}.txt"))
}

/// The golden text of `cases` run through `backend` on `arch`, and the
/// cases it rejected (the corpus is meant to load: each with its log's
/// last lines).
pub fn record(backend: &dyn Backend, arch: Arch, cases: &[Case]) -> Result<(String, Vec<String>), String> {
    let reqs = cases.iter().map(|c| c.request(arch).map_err(|e| format!("{}: {e}", c.name))).collect::<Result<Vec<_>, _>>()?;
    let outs = backend.load_batch(&reqs);
    let mut text = format!(
        "# What 7.3 ({}) returned for the test runs of the interpreter's corpus.\n# Recorded by `bpf-selftest record --set exec`; `name digest: outcome`.\n",
        backend.kernel_release()
    );
    let mut rejected = Vec::new();
    for ((c, req), out) in cases.iter().zip(&reqs).zip(outs) {
        let out = out.map_err(|u| format!("{}: {}", c.name, u.0))?;
        if !out.accepted {
            let tail: Vec<&str> = out.log.lines().rev().take(4).collect();
            rejected.push(format!("{}: errno {}: {}", c.name, out.errno, tail.into_iter().rev().collect::<Vec<_>>().join(" | ")));
        }
        let _ = writeln!(text, "{} {}: {}", c.name, digest(req), outcome_line(&out));
    }
    Ok((text, rejected))
}
