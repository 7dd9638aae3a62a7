//! Every ctx field of the modelled program types loaded (or stored) once,
//! and what 7.3 made of each: `tests/fixups_ctx/probes.txt`, the truth
//! `bpf_convert_ctx_accesses` is held to. `record --set ctx-probes` loads
//! the probes again, one batch per arch.
//!
//! ```text
//! prog NAME PROG_TYPE EXPECTED_ATTACH_TYPE
//! asm STATEMENT; STATEMENT; ...
//! x86_64 HEX HEX ...            the xlated program, 8-byte slots in memory order
//! arm64 rejected MESSAGE        or the log line that said why it was refused
//! ```
//!
//! Probes load with `BPF_F_TEST_RND_HI32` at log level 1. `--check`
//! compares everything but what 7.3 draws at random on each load: the
//! immediates of the `rAX = RND; rAX <<= 32` poison pairs.

use bpf_isa::Insn;
use bpf_isa::insn::BPF_REG_AX;
use bpf_isa::op::*;

use crate::backend::{Backend, LoadOutcome, LoadRequest};
use crate::cli::check::{CheckArgs, request};
use crate::target::Arch;

/// What 7.3 made of a probe on one arch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Xlated(Vec<Insn>),
    /// The log line that said why.
    Rejected(String),
}

/// One probe and its answers, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub name: String,
    pub prog_type: String,
    pub expected_attach_type: u32,
    /// Statements, one per line.
    pub asm: String,
    pub answers: Vec<(Arch, Answer)>,
}

/// The file's header and probes.
#[derive(Clone, Debug, Default)]
pub struct ProbesFile {
    pub header: Vec<String>,
    pub probes: Vec<Probe>,
}

pub fn parse(text: &str) -> Result<ProbesFile, String> {
    let mut f = ProbesFile { header: text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect(), ..Default::default() };
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.is_empty()) {
        let bad = |why: &str| format!("probes.txt:{}: {why}", n + 1);
        let (key, rest) = line.split_once(' ').ok_or_else(|| bad("a key and a value"))?;
        match key {
            "prog" => {
                let w: Vec<&str> = rest.split(' ').collect();
                let [name, ty, attach] = w.as_slice() else { return Err(bad("prog NAME TYPE ATTACH")) };
                let expected_attach_type = attach.parse().map_err(|_| bad("attach type"))?;
                f.probes.push(Probe { name: name.to_string(), prog_type: ty.to_string(), expected_attach_type, asm: String::new(), answers: Vec::new() });
            }
            "asm" => f.probes.last_mut().ok_or_else(|| bad("asm before prog"))?.asm = rest.replace("; ", "\n"),
            arch => {
                let arch: Arch = arch.parse().map_err(|e: String| bad(&e))?;
                let answer = match rest.strip_prefix("rejected ") {
                    Some(msg) => Answer::Rejected(msg.to_string()),
                    None => Answer::Xlated(rest.split(' ').map(|h| bpf_isa::insn::from_hex(h).ok_or_else(|| bad("slot"))).collect::<Result<_, _>>()?),
                };
                f.probes.last_mut().ok_or_else(|| bad("answer before prog"))?.answers.push((arch, answer));
            }
        }
    }
    Ok(f)
}

pub fn render(f: &ProbesFile) -> String {
    let mut s: String = f.header.iter().map(|h| format!("{h}\n")).collect();
    for p in &f.probes {
        s += &format!("\nprog {} {} {}\nasm {}\n", p.name, p.prog_type, p.expected_attach_type, p.asm.replace('\n', "; "));
        for (arch, a) in &p.answers {
            match a {
                Answer::Xlated(insns) => s += &format!("{arch} {}\n", insns.iter().map(|i| bpf_isa::insn::to_hex(*i)).collect::<Vec<_>>().join(" ")),
                Answer::Rejected(msg) => s += &format!("{arch} rejected {msg}\n"),
            }
        }
    }
    s
}

/// `BPF_F_TEST_RND_HI32`, as the probes load.
const BPF_F_TEST_RND_HI32: &str = "BPF_F_TEST_RND_HI32";

impl Probe {
    pub fn request(&self, arch: Arch) -> Result<LoadRequest, String> {
        let a = CheckArgs { log_level: 1, flags: Some(BPF_F_TEST_RND_HI32.into()), ..CheckArgs::new(&self.name, &self.prog_type, arch) };
        let mut req = request(&a, &self.asm)?;
        req.expected_attach_type = Some(self.expected_attach_type);
        Ok(req)
    }

    /// The answer stored for `arch`.
    pub fn answer(&self, arch: Arch) -> Option<&Answer> {
        self.answers.iter().find(|(a, _)| *a == arch).map(|(_, x)| x)
    }
}

/// The answer column for what a kernel did with a probe.
pub fn answer(o: &LoadOutcome) -> Answer {
    if o.accepted {
        return Answer::Xlated(o.xlated_insns.clone());
    }
    // the reason is the last line before 7.3's "Verification failed:"
    // report (or, without one, before the `processed N insns` summary)
    let why = o
        .log
        .lines()
        .take_while(|l| !l.starts_with("Verification failed:") && !l.starts_with("processed "))
        .filter(|l| !l.is_empty())
        .last()
        .unwrap_or_default();
    Answer::Rejected(why.to_string())
}

/// `a` without the immediates 7.3 draws at random: those of the
/// `rAX = RND; rAX <<= 32` pairs that poison upper halves.
pub fn without_random_imms(a: &Answer) -> Answer {
    let Answer::Xlated(insns) = a else { return a.clone() };
    let mut out = insns.clone();
    for k in 0..out.len().saturating_sub(1) {
        let (x, next) = (out[k], out[k + 1]);
        let poison = x.code == BPF_ALU64 | BPF_MOV | BPF_K
            && x.dst == BPF_REG_AX
            && next.code == BPF_ALU64 | BPF_LSH | BPF_K
            && next.dst == BPF_REG_AX
            && next.imm == 32;
        if poison {
            out[k].imm = 0;
        }
    }
    Answer::Xlated(out)
}

/// The probes loaded again on `arch` through `backend`, in one batch.
pub fn record(backend: &dyn Backend, arch: Arch, probes: &[Probe]) -> Result<Vec<Answer>, String> {
    let reqs = probes.iter().map(|p| p.request(arch).map_err(|e| format!("{}: {e}", p.name))).collect::<Result<Vec<_>, _>>()?;
    backend.load_batch(&reqs).into_iter().zip(probes).map(|(o, p)| o.map(|o| answer(&o)).map_err(|u| format!("{arch} {}: {}", p.name, u.0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_render_round_trip() {
        let text = "# head\n\nprog p1 sched_cls 0\nasm r0 = 0; exit\nx86_64 b700000000000000 9500000000000000\narm64 rejected invalid bpf_context access off=68 size=4\n";
        let f = parse(text).unwrap();
        assert_eq!(f.probes.len(), 1);
        assert_eq!(f.probes[0].asm, "r0 = 0\nexit");
        assert_eq!(f.probes[0].answer(Arch::Arm64), Some(&Answer::Rejected("invalid bpf_context access off=68 size=4".into())));
        assert_eq!(render(&f), text);
    }

    #[test]
    fn only_the_poison_immediates_are_masked() {
        let slots = ["b70c00005a7b7b8e", "670c000020000000", "4fc0000000000000", "b700000001000000"];
        let insns: Vec<Insn> = slots.iter().map(|h| bpf_isa::insn::from_hex(h).unwrap()).collect();
        let Answer::Xlated(m) = without_random_imms(&Answer::Xlated(insns.clone())) else { unreachable!() };
        assert_eq!(m[0].imm, 0);
        assert_eq!(m[1..], insns[1..]);
    }
}
