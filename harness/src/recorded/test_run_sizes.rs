//! What 7.3's `BPF_PROG_TEST_RUN` answers for packets and ctxs of many
//! sizes, per program type: `expected/linux-7.3/test_run_sizes.txt`, one
//! case a line:
//!
//! ```text
//! <arch> <program type> data=<N|-> ctx=<N|->: <outcome>
//! ```
//!
//! The program is `r0 = 0; exit`; `data=N` and `ctx=N` are N zero bytes as
//! `check --data-len N --ctx-len N` passes them (`-`: none; a ctx alone is
//! a run without packet, data_out or repeat count). The outcome is
//! `rejected E`, `errno E` (the test run failed) or `retval V data_out N`.
//! `record --set test-run-sizes` runs every line again on 7.3.

use crate::backend::{Backend, LoadOutcome, LoadRequest};
use crate::cli::check::{CheckArgs, request};
use crate::target::Arch;
use crate::verifier::errno::errno_name;

/// One line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub arch: Arch,
    pub prog_type: String,
    pub data: Option<usize>,
    pub ctx: Option<usize>,
    pub outcome: String,
}

impl Case {
    /// The line's left side.
    pub fn key(&self) -> String {
        let n = |v: Option<usize>| v.map_or("-".to_string(), |n| n.to_string());
        format!("{} {} data={} ctx={}", self.arch, self.prog_type, n(self.data), n(self.ctx))
    }

    pub fn request(&self) -> Result<LoadRequest, String> {
        let a = CheckArgs {
            // recorded with no flags
            flags: Some("0".into()),
            log_level: 0,
            run: true,
            data_len: self.data,
            ctx_len: self.ctx,
            ..CheckArgs::new(&format!("{}.s", self.prog_type), &self.prog_type, self.arch)
        };
        request(&a, "r0 = 0\nexit\n")
    }
}

/// The outcome column for what a backend answered.
pub fn outcome(o: &LoadOutcome) -> String {
    if !o.accepted {
        format!("rejected {}", errno_name(o.errno))
    } else if o.test_run_errno != 0 {
        format!("errno {}", errno_name(o.test_run_errno))
    } else {
        format!("retval {} data_out {}", o.retval.unwrap_or(0), o.data_out.len())
    }
}

pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    let mut v = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (key, outcome) = l.split_once(": ").ok_or_else(|| format!("test-run sizes: bad line {l:?}"))?;
        let f: Vec<&str> = key.split_whitespace().collect();
        let [arch, ty, data, ctx] = f.as_slice() else { return Err(format!("test-run sizes: bad line {l:?}")) };
        let size = |s: &str, what: &str| -> Result<Option<usize>, String> {
            match s.strip_prefix(what).ok_or_else(|| format!("test-run sizes: {l:?}: no {what}"))? {
                "-" => Ok(None),
                n => n.parse().map(Some).map_err(|_| format!("test-run sizes: {l:?}: bad {what}")),
            }
        };
        v.push(Case { arch: arch.parse()?, prog_type: ty.to_string(), data: size(data, "data=")?, ctx: size(ctx, "ctx=")?, outcome: outcome.to_string() });
    }
    Ok(v)
}

pub fn render(header: &[String], cases: &[Case]) -> String {
    let mut s: String = header.iter().map(|h| format!("{h}\n")).collect();
    for c in cases {
        s.push_str(&format!("{}: {}\n", c.key(), c.outcome));
    }
    s
}

/// `cases` of `arch` run again through `backend` (one batch).
pub fn record(backend: &dyn Backend, arch: Arch, cases: &[Case]) -> Result<Vec<Case>, String> {
    let mine: Vec<&Case> = cases.iter().filter(|c| c.arch == arch).collect();
    let reqs = mine.iter().map(|c| c.request().map_err(|e| format!("{}: {e}", c.key()))).collect::<Result<Vec<_>, _>>()?;
    let outs = backend.load_batch(&reqs);
    mine.into_iter().zip(outs).map(|(c, o)| o.map(|o| Case { outcome: outcome(&o), ..c.clone() }).map_err(|u| format!("{}: {}", c.key(), u.0))).collect()
}
