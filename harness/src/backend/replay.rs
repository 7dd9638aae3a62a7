//! A backend that answers from goldens: what a real kernel did with each
//! program of progs/, as `bpf-selftest record` stored it. It checks the
//! suites' annotations against recorded truth without a kernel, and is the
//! reference side of conformance runs.

use std::path::PathBuf;

use super::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::cli::record::golden_path;
use crate::golden::{Golden, source_hash};
use crate::target::Arch;

pub struct ReplayBackend {
    /// The `expected/` directory.
    pub root: PathBuf,
    /// The kernel series the goldens were recorded from (`7.3`).
    pub series: String,
}

impl ReplayBackend {
    pub fn new(root: PathBuf) -> ReplayBackend {
        ReplayBackend { root, series: "7.3".into() }
    }

    /// The golden of a request (`suite/prog`, privileged or not), if it
    /// was recorded from this very load: a golden of another program (the
    /// test edited since) or without its source is stale.
    pub fn golden(&self, req: &LoadRequest) -> Result<Golden, Unavailable> {
        let name = if req.unpriv { format!("{} @unpriv", req.name) } else { req.name.clone() };
        let path = golden_path(&self.root, &self.series, req.arch, &name);
        let text = std::fs::read_to_string(&path).map_err(|e| Unavailable(format!("replay: no golden {} ({e}); run `bpf-selftest record`", path.display())))?;
        let g = Golden::parse(&text).map_err(|e| Unavailable(format!("replay: {}: {e}", path.display())))?;
        if g.source() != Some(source_hash(req).as_str()) {
            let suite = req.name.split_once('/').map_or(req.name.as_str(), |(s, _)| s);
            return Err(Unavailable(format!(
                "golden of {name} is stale: re-run bpf-selftest record {suite} ({}: {})",
                path.display(),
                match g.source() {
                    Some(_) => "recorded from another program or load",
                    None => "no source recorded",
                }
            )));
        }
        Ok(g)
    }
}

impl Backend for ReplayBackend {
    fn name(&self) -> &'static str {
        "replay"
    }
    fn probe(&self, arch: Arch) -> Result<(), Unavailable> {
        let dir = self.root.join(format!("linux-{}", self.series)).join(arch.name());
        if dir.is_dir() { Ok(()) } else { Err(Unavailable(format!("replay: no goldens in {}", dir.display()))) }
    }
    fn kernel_release(&self) -> String {
        format!("{} (goldens)", self.series)
    }
    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        let g = self.golden(req)?;
        Ok(LoadOutcome {
            accepted: g.accepted,
            errno: g.errno,
            log: g.log,
            verified_insns: g.verified_insns,
            xlated: g.xlated,
            jited: g.jited,
            retval: g.retval,
            test_run_errno: g.test_run_errno,
            prog_stats: g.prog_stats,
            globals: g.globals,
            ..Default::default()
        })
    }
}
