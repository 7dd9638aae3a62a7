//! Soundness against a real kernel: random programs ([`random_prog`]) through the
//! model and a kernel backend, their verdicts compared. The model must
//! never accept what the kernel rejects; every other disagreement is
//! counted by category.

pub mod random_prog;

use std::collections::BTreeMap;
use std::time::Instant;

use crate::backend::model::ModelBackend;
use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::golden::mask_kernel_pointers;
use crate::isa::assemble;
use crate::link::{Symbols, link};
use crate::map::{MapDef, map_type_by_name};
use crate::prog_type::SOCKET_FILTER;
use crate::target::Arch;
use crate::{
    load::bpf_check,
    verifier::{Verdict, verify},
};

/// The model's answer for one program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelVerdict {
    Accepted,
    /// The main pass accepted it; the rewrites after it are not all
    /// modelled yet (they rarely reject).
    AcceptedUpToFixups,
    Rejected {
        errno: i32,
        log: String,
    },
    /// A phase the model lacks, by name.
    Undecided(String),
}

/// How the model's answer relates to the kernel's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The model accepts what the kernel rejects.
    Unsound,
    /// The model rejects what the kernel accepts.
    TooStrict,
    BothAccept,
    BothRejectSameLog,
    /// Same errno, different log.
    BothRejectLogDiffers,
    BothRejectErrnoDiffers,
    ModelUndecided,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::Unsound => "UNSOUND: model accepts, kernel rejects",
            Category::TooStrict => "model rejects, kernel accepts",
            Category::BothAccept => "both accept",
            Category::BothRejectSameLog => "both reject, same errno and log",
            Category::BothRejectLogDiffers => "both reject, same errno, log differs",
            Category::BothRejectErrnoDiffers => "both reject, errno differs",
            Category::ModelUndecided => "model undecided",
        }
    }
}

/// The map every generated program uses.
pub fn arr_map() -> MapDef {
    MapDef::new("arr", map_type_by_name("array").expect("array"), 4, random_prog::VALUE_SIZE, 4)
}

/// The load request of a generated program.
pub fn request(name: &str, p: &random_prog::GenProg, arch: Arch) -> Result<LoadRequest, String> {
    let prog = assemble(&p.asm).map_err(|e| format!("{name}: {e}"))?;
    let maps = vec![arr_map()];
    let linked = link(name, &prog, &Symbols { maps: &maps, ..Default::default() }).map_err(|e| format!("{name}: {e}"))?;
    Ok(LoadRequest {
        name: name.to_string(),
        prog: linked,
        prog_type: SOCKET_FILTER,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: 0,
        log_level: 1,
        unpriv: p.unpriv,
        // test_loader's default for unprivileged runs: no capabilities
        caps_unpriv: Vec::new(),
        maps,
        btf: BtfMode::FuncInfo,
        test_run: None,
        arch,
        want_jited: false,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: crate::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    })
}

/// The model on one request: its full answer when it has one, else what
/// the verifier proper decided.
pub fn model_verdict(req: &LoadRequest) -> ModelVerdict {
    if let Some(out) = ModelBackend::create_maps(req) {
        return ModelVerdict::Rejected { errno: out.errno, log: out.log };
    }
    let input = match ModelBackend::verifier_input(req) {
        Ok(i) => i,
        Err(u) => return ModelVerdict::Undecided(u.0),
    };
    match bpf_check(&input) {
        Verdict::Decided(d) if d.accepted => ModelVerdict::Accepted,
        Verdict::Decided(d) => ModelVerdict::Rejected { errno: d.errno, log: d.log },
        Verdict::NotModelled { phase, what, .. } => match verify(&input, Instant::now()) {
            // the main pass accepted; the phase that stopped came after it
            Ok(_) => ModelVerdict::AcceptedUpToFixups,
            Err(_) => ModelVerdict::Undecided(format!("{phase}: {what}")),
        },
    }
}

/// The category of one program.
pub fn categorize(model: &ModelVerdict, kernel: &LoadOutcome) -> Category {
    match model {
        ModelVerdict::Undecided(_) => Category::ModelUndecided,
        ModelVerdict::Accepted | ModelVerdict::AcceptedUpToFixups if kernel.accepted => Category::BothAccept,
        ModelVerdict::Accepted | ModelVerdict::AcceptedUpToFixups => Category::Unsound,
        ModelVerdict::Rejected { .. } if kernel.accepted => Category::TooStrict,
        ModelVerdict::Rejected { errno, .. } if *errno != kernel.errno => Category::BothRejectErrnoDiffers,
        ModelVerdict::Rejected { log, .. } if mask_kernel_pointers(log) != mask_kernel_pointers(&kernel.log) => Category::BothRejectLogDiffers,
        ModelVerdict::Rejected { .. } => Category::BothRejectSameLog,
    }
}

/// One program's comparison.
pub struct Finding {
    pub name: String,
    pub asm: String,
    pub unpriv: bool,
    pub category: Category,
    pub model: ModelVerdict,
    pub kernel_errno: i32,
    pub kernel_log_tail: String,
    /// Where the logs part (for rejects both sides made).
    pub first_log_difference: Option<(String, String)>,
}

/// The whole run.
#[derive(Default)]
pub struct Report {
    pub counts: BTreeMap<Category, usize>,
    /// Why the model was undecided, by reason.
    pub undecided: BTreeMap<String, usize>,
    /// Every program not in an agreeing category, in order.
    pub findings: Vec<Finding>,
    pub kernel_unavailable: usize,
    /// The kernel's rejections by message (numbers blanked).
    pub kernel_reject_reasons: BTreeMap<String, usize>,
}

/// The verifier's error message in a level-1 log
/// ([`crate::verifier::log::error_message`]), its insn index dropped and
/// numbers blanked.
pub fn reject_reason(log: &str) -> String {
    let line = crate::verifier::log::error_message(log).unwrap_or("");
    let line = line.split_once(": ").filter(|(a, _)| a.bytes().all(|c| c.is_ascii_digit())).map_or(line, |(_, b)| b);
    line.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect::<String>().replace("##", "#").replace("##", "#")
}

/// `count` programs from `seed` through the model and `kernel`.
pub fn run(kernel: &dyn Backend, arch: Arch, seed: u64, count: usize) -> Result<Report, String> {
    let mut rng = random_prog::Rng(seed);
    let progs: Vec<random_prog::GenProg> = (0..count).map(|_| random_prog::generate(&mut rng)).collect();
    let reqs = progs.iter().enumerate().map(|(i, p)| request(&format!("random/{seed}-{i}"), p, arch)).collect::<Result<Vec<_>, String>>()?;
    kernel.probe(arch).map_err(|u| format!("{}: {}", kernel.name(), u.0))?;
    let outs = kernel.load_batch(&reqs);
    let mut report = Report::default();
    for ((p, req), out) in progs.iter().zip(&reqs).zip(outs) {
        let Ok(out) = out else {
            report.kernel_unavailable += 1;
            continue;
        };
        if !out.accepted {
            *report.kernel_reject_reasons.entry(reject_reason(&out.log)).or_default() += 1;
        }
        let model = model_verdict(req);
        let category = categorize(&model, &out);
        *report.counts.entry(category).or_default() += 1;
        if let ModelVerdict::Undecided(why) = &model {
            *report.undecided.entry(why.split(" at insn").next().unwrap_or(why).to_string()).or_default() += 1;
        }
        if !matches!(category, Category::BothAccept | Category::BothRejectSameLog | Category::ModelUndecided) {
            let tail = out.log.lines().rev().find(|l| !l.starts_with("processed ") && !l.trim().is_empty()).unwrap_or("").to_string();
            let first_log_difference = match &model {
                ModelVerdict::Rejected { log, .. } => {
                    let (m, k) = (mask_kernel_pointers(log), mask_kernel_pointers(&out.log));
                    let (mut ml, mut kl) = (m.lines(), k.lines());
                    loop {
                        match (ml.next(), kl.next()) {
                            (Some(a), Some(b)) if a == b => continue,
                            (None, None) => break None,
                            (a, b) => break Some((a.unwrap_or("<end>").to_string(), b.unwrap_or("<end>").to_string())),
                        }
                    }
                }
                _ => None,
            };
            report.findings.push(Finding {
                name: req.name.clone(),
                asm: p.asm.clone(),
                unpriv: p.unpriv,
                category,
                model,
                kernel_errno: out.errno,
                kernel_log_tail: tail,
                first_log_difference,
            });
        }
    }
    Ok(report)
}

impl Report {
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }

    pub fn unsound(&self) -> usize {
        self.counts.get(&Category::Unsound).copied().unwrap_or(0)
    }

    /// The table of categories, with rates.
    pub fn table(&self) -> String {
        let total = self.total().max(1);
        let mut s = String::new();
        for (c, n) in &self.counts {
            s.push_str(&format!("{:<40} {:>6}  {:>6.2}%\n", c.name(), n, 100.0 * *n as f64 / total as f64));
        }
        s.push_str(&format!("{:<40} {:>6}\n", "total", self.total()));
        if self.kernel_unavailable > 0 {
            s.push_str(&format!("{:<40} {:>6}\n", "kernel unavailable (not counted)", self.kernel_unavailable));
        }
        let mut reasons: Vec<_> = self.kernel_reject_reasons.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1));
        for (why, n) in reasons.iter().take(12) {
            s.push_str(&format!("  kernel rejects {n:>5}: {why}\n"));
        }
        for (why, n) in &self.undecided {
            s.push_str(&format!("  undecided {n:>6}: {why}\n"));
        }
        s
    }
}
