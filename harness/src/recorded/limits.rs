//! The resource-limit goldens, `tests/limits/7.3-<arch>.json`: programs
//! at and past each of the kernel's limits, with what 7.3 answered for
//! them. The programs are built here ([`cases`]); the files hold, by case
//! name, `{accepted, errno, verified_insns, log_true_size, log}`
//! (`verified_insns` 0 when rejected: no program to ask).
//!
//! The limits: `BPF_MAXINSNS` (4096 insns unprivileged) and
//! `BPF_COMPLEXITY_LIMIT_INSNS` (1M insns privileged, and 1M processed
//! insns), `MAX_CALL_FRAMES` (16 in 7.3, not 8), `MAX_BPF_STACK` (512
//! bytes, per frame and combined), `BPF_COMPLEXITY_LIMIT_JMP_SEQ` (8192
//! pending branches), and the log buffer's rules (`bpf_verifier_log_attr_valid`,
//! ring and `BPF_LOG_FIXED` truncation, `ENOSPC`, `log_true_size`).
//!
//! Every load is a socket filter without program BTF, with its own log
//! level and buffer size. `record --set limits` loads every case again,
//! one boot per arch, the [`HEAVY`] ones (about 1M insns processed,
//! minutes under TCG) on x86_64 only and last, and writes the files anew.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::isa::Insn;
use crate::isa::op::*;
use crate::link::{Func, LinkedProgram};
use crate::target::Arch;

/// One load: the program and its attributes.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: &'static str,
    pub insns: Vec<Insn>,
    pub unpriv: bool,
    pub log_level: u32,
    pub log_size: u32,
}

/// Cases that process about 1M insns: tens of seconds in a debug build of
/// the model, minutes in a TCG guest; recorded and checked on x86_64 only
/// (the limits are arch-independent, the cheap cases cover arm64).
pub const HEAVY: [&str; 4] = ["priv_1000000_insns", "processed_limit", "processed_limit_level4", "jmp_seq_8192"];

fn mov(dst: u8, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
}
fn exit() -> Insn {
    Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
}
/// A bpf2bpf call to the insn `off + 1` ahead.
fn call_rel(off: i32) -> Insn {
    Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, off)
}
fn call_helper(id: i32) -> Insn {
    Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, id)
}
/// `*(u64 *)(r10 + off) = 0`
fn st_fp(off: i16) -> Insn {
    Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, off, 0)
}

/// `r0 = 0` repeated, then `exit`: `n` insns in all.
pub fn straight(n: usize) -> Vec<Insn> {
    let mut v = vec![mov(0, 0); n - 1];
    v.push(exit());
    v
}

/// `frames` frames: main calls f1, f1 calls f2, ...; each frame writes
/// the bottom of a `stack`-byte stack.
fn call_chain(frames: usize, stack: i16) -> Vec<Insn> {
    let mut v = Vec::new();
    for f in 0..frames {
        v.push(st_fp(-stack));
        if f + 1 < frames {
            // the next function starts right after this one's exit
            v.push(call_rel(2));
            v.push(mov(0, 0));
        } else {
            v.push(mov(0, 0));
        }
        v.push(exit());
    }
    v
}

/// `n` pending branches: `r0 = bpf_get_prandom_u32()`, then `n` times
/// `if r0 == k goto +1; r1 = k`, each of which pushes its taken branch.
fn jump_sequence(n: usize) -> Vec<Insn> {
    let mut v = vec![call_helper(7)];
    for k in 0..n {
        v.push(Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, k as i32));
        v.push(mov(1, k as i32));
    }
    v.push(mov(0, 0));
    v.push(exit());
    v
}

/// `r1 = 0; l: r1 += 1; if r1 < 2000000 goto l; r0 = 0; exit`: each
/// iteration has a new constant, so nothing prunes and the processed
/// count passes 1M.
fn long_loop() -> Vec<Insn> {
    vec![mov(1, 0), Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 1), Insn::new(BPF_JMP | BPF_JLT | BPF_K, 1, 0, -2, 2_000_000), mov(0, 0), exit()]
}

/// A program the kernel rejects with a short log (`R1 !read_ok`).
fn rejected_small() -> Vec<Insn> {
    vec![Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 0, 2, 0, 0), exit()]
}

/// The level-1 log of an accepted `r0 = 0; exit`: level 1 keeps only the
/// failing path's lines, so an accepted program's log is its stats line.
/// The exact-fit cases size their buffers around it.
pub const SMALL_LEVEL1_LOG: &str = "processed 2 insns (limit 1000000) max_states_per_insn 0 total_states 0 peak_states 0 mark_read 0\n";

/// Every case, in the order they are recorded (the heavy ones last).
pub fn cases() -> Vec<Case> {
    let c = |name, insns, unpriv, log_level, log_size| Case { name, insns, unpriv, log_level, log_size };
    let small = || vec![mov(0, 0), exit()];
    vec![
        // BPF_MAXINSNS and BPF_COMPLEXITY_LIMIT_INSNS on insn_cnt (E2BIG,
        // before any log)
        c("unpriv_4096_insns", straight(4096), true, 0, 0),
        c("unpriv_4097_insns", straight(4097), true, 1, 4096),
        c("priv_4097_insns", straight(4097), false, 4, 4096),
        // MAX_CALL_FRAMES
        c("call_frames_16", call_chain(16, 8), false, 1, 65536),
        c("call_frames_17", call_chain(17, 8), false, 1, 65536),
        // MAX_BPF_STACK, one frame and combined
        c("stack_512", call_chain(1, 512), false, 1, 65536),
        c("stack_520", call_chain(1, 520), false, 1, 65536),
        c("stack_8x64", call_chain(8, 64), false, 1, 65536),
        c(
            "stack_8x64_plus8",
            {
                let mut p = call_chain(8, 64);
                p[0] = st_fp(-72);
                p
            },
            false,
            1,
            65536,
        ),
        c("stack_16x32", call_chain(16, 32), false, 1, 65536),
        c("stack_16x40", call_chain(16, 40), false, 1, 65536),
        // BPF_COMPLEXITY_LIMIT_JMP_SEQ
        c("jmp_seq_8193", jump_sequence(8193), false, 1, 4096),
        // the log buffer
        c("log_level_bad_bit", small(), false, 16 | 1, 4096),
        c("log_size_1", small(), false, 2, 1),
        c("log_ring_64", small(), false, 2, 64),
        c("log_fixed_64", small(), false, 2 | 8, 64),
        c("log_stats_32", small(), false, 4, 32),
        c("log_rejected_ring_40", rejected_small(), false, 1, 40),
        c("log_rejected_fixed_40", rejected_small(), false, 1 | 8, 40),
        c("log_rejected_size_1", rejected_small(), false, 2, 1),
        // a level-1 log of exactly the buffer's size (with its NUL), and one
        // byte short of that: accepted, and ENOSPC
        c("log_exact_fit", small(), false, 1, SMALL_LEVEL1_LOG.len() as u32 + 1),
        c("log_one_short", small(), false, 1, SMALL_LEVEL1_LOG.len() as u32),
        // the heavy ones
        c("jmp_seq_8192", jump_sequence(8192), false, 4, 4096),
        // the processed-insn limit, at level 1 (the log keeps the tail)
        c("processed_limit", long_loop(), false, 1, 4096),
        c("processed_limit_level4", long_loop(), false, 4, 4096),
        c("priv_1000000_insns", straight(1_000_000), false, 4, 4096),
    ]
}

/// The cases recorded for `arch`: all on x86_64, all but [`HEAVY`] elsewhere.
pub fn cases_for(arch: Arch) -> Vec<Case> {
    cases().into_iter().filter(|c| arch == Arch::X86_64 || !HEAVY.contains(&c.name)).collect()
}

impl Case {
    /// The load: a socket filter without program BTF, as root or in an
    /// unprivileged run, with the case's log level and buffer.
    pub fn request(&self, arch: Arch) -> LoadRequest {
        LoadRequest {
            name: format!("limits/{}", self.name),
            prog: LinkedProgram {
                insns: self.insns.clone(),
                funcs: vec![Func { name: self.name.into(), start: 0, global: true, nargs: 0 }],
                relocs: Vec::new(),
            },
            prog_type: crate::prog_type::SOCKET_FILTER,
            expected_attach_type: None,
            attach_func: None,
            prog_flags: 0,
            log_level: self.log_level,
            unpriv: self.unpriv,
            caps_unpriv: Vec::new(),
            maps: Vec::new(),
            btf: BtfMode::None,
            test_run: None,
            arch,
            want_jited: false,
            license: "GPL".into(),
            privileged_setup: true,
            log_size: self.log_size,
            create_every_map: false,
            scenario: Default::default(),
        }
    }
}

/// What 7.3 answered for one case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub accepted: bool,
    pub errno: i32,
    pub verified_insns: u32,
    pub log_true_size: u32,
    pub log: String,
}

impl Answer {
    pub fn of(out: &LoadOutcome) -> Answer {
        Answer {
            accepted: out.accepted,
            errno: out.errno,
            verified_insns: if out.accepted { out.verified_insns } else { 0 },
            log_true_size: out.log_true_size,
            log: out.log.clone(),
        }
    }

    /// The answer as text, without what moves from boot to boot
    /// ([`super::stable_log`], [`super::stable_log_true_size`]).
    pub fn stable(&self, log_level: u32) -> String {
        let size = super::stable_log_true_size(log_level, &self.log, self.log_true_size);
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
            super::stable_log(&self.log)
        )
    }
}

/// A file: the answers by case name.
pub type Answers = BTreeMap<String, Answer>;

/// `tests/limits/7.3-<arch>.json` under `root` (the project's top).
pub fn path(root: &std::path::Path, arch: Arch) -> std::path::PathBuf {
    root.join("tests/limits").join(format!("7.3-{}.json", arch.name()))
}

pub fn parse(text: &str) -> Result<Answers, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

pub fn render(a: &Answers) -> Result<String, String> {
    super::json_text(a)
}

/// `cases` loaded through `backend` on `arch`, in one batch.
pub fn record(backend: &dyn Backend, arch: Arch, cases: &[Case]) -> Result<Answers, String> {
    let reqs: Vec<LoadRequest> = cases.iter().map(|c| c.request(arch)).collect();
    let outs = backend.load_batch(&reqs);
    cases
        .iter()
        .zip(outs)
        .map(|(c, out)| {
            let out = out.map_err(|u| format!("{arch} limits/{}: {}", c.name, u.0))?;
            Ok((c.name.to_string(), Answer::of(&out)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_heavy_cases_last() {
        let all = cases();
        let names: std::collections::BTreeSet<_> = all.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), all.len());
        assert!(all[all.len() - HEAVY.len()..].iter().all(|c| HEAVY.contains(&c.name)));
        assert_eq!(cases_for(Arch::Arm64).len(), all.len() - HEAVY.len());
        let text = "{\n \"a\": {\n  \"accepted\": false,\n  \"errno\": 28,\n  \"log\": \"\",\n  \"log_true_size\": 431,\n  \"verified_insns\": 0\n }\n}\n";
        assert_eq!(render(&parse(text).unwrap()).unwrap(), text);
    }
}
