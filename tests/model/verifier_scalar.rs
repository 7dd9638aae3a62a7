//! The scalar domain against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/scalar/*.txt` holds the level-2 logs 7.3 printed for
//! 1,937 small programs (`bpf-selftest record --set scalar`). This test
//! replays each program through `bpf_selftest::verifier::scalar` with a
//! small driver that explores paths as `do_check` does (fall-through first,
//! pushed branches last-in first-out) and models just enough of the rest of
//! the verifier to make the printed registers comparable: scalar ids
//! (`rX = rY` links, `rX += const` deltas, `sync_linked_regs`), the dead
//! register cleaning and singular-id clearing `is_state_visited` does at
//! prune points, and the place where the log prints an insn's registers
//! (at the next insn, after that insn's prune point).
//!
//! Every register the kernel printed is compared with the driver's text for
//! it (precision marks `P` aside: they belong to backtracking, not to the
//! domain), and the number of processed insns with `verified_insns`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;
use bpf_selftest::verifier::scalar::alu::adjust_scalar_min_max_vals;
use bpf_selftest::verifier::scalar::branch::scalar_cond_jmp;
use bpf_selftest::verifier::scalar::print::scalar_to_string;
use bpf_selftest::verifier::scalar::{BPF_ADD_CONST, BPF_ADD_CONST32, BPF_ADD_CONST64, Scalar, scalar_mov, sync_linked_scalar};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const GOLDEN_DIR: &str = "expected/linux-7.3/scalar";

/// Programs whose log the driver does not reproduce, with the reason. Empty
/// when everything matches.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

struct Case {
    group: String,
    name: String,
    asm: String,
    verified_insns: Option<usize>,
    log: Vec<String>,
}

fn load_cases() -> Vec<Case> {
    let files = bpf_selftest::recorded::scalar_logs::read_dir(&Path::new(ROOT).join(GOLDEN_DIR)).unwrap_or_else(|e| panic!("{e}"));
    let cases = files.into_iter().flat_map(|f| f.cases);
    cases.map(|c| Case { verified_insns: c.verified_insns(), group: c.group, name: c.name, asm: c.asm, log: c.log }).collect()
}

// ---------------------------------------------------------------------------
// The kernel's log, as events

/// Registers printed on one line: `(regno, text)`.
type Printed = Vec<(usize, String)>;

#[derive(Debug)]
enum KEvent {
    /// `N: (xx) insn  ; R1=...`: the registers insn N changed.
    Insn(usize, Printed),
    /// `N: R1=...`: a state printed apart from its insn line.
    State(usize, Printed),
    /// `from A to B: R1=...`: a pushed branch resumes.
    From(usize, usize, Printed),
    /// `N: safe` / `from A to B: safe`: the state at N was pruned.
    Safe(usize),
}

/// Splits `R0=scalar(...) R6=5 R10=fp0` into registers. Values contain
/// spaces (`var_off=(0x0; 0xff)`) but never ` R<n>=`.
fn parse_regs(s: &str) -> Printed {
    let b = s.as_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'R' && (i == 0 || b[i - 1] == b' ') {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < b.len() && b[j] == b'=' {
                starts.push((i, j));
            }
        }
        i += 1;
    }
    let mut out = Vec::new();
    for (k, &(at, eq)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(s.len(), |&(n, _)| n);
        let regno = s[at + 1..eq].parse().unwrap_or(usize::MAX);
        out.push((regno, s[eq + 1..end].trim_end().to_string()));
    }
    out
}

fn parse_log(lines: &[String]) -> Result<Vec<KEvent>, String> {
    let mut out = Vec::new();
    for l in lines {
        // Precision propagation at a pruned or finished state (backtrack.c).
        if l.starts_with("frame ") {
            continue;
        }
        if let Some(rest) = l.strip_prefix("from ") {
            let (edge, regs) = rest.split_once(": ").ok_or_else(|| format!("bad line {l:?}"))?;
            let (a, b) = edge.split_once(" to ").ok_or_else(|| format!("bad line {l:?}"))?;
            let a = a.parse().map_err(|_| format!("bad line {l:?}"))?;
            let b = b.parse().map_err(|_| format!("bad line {l:?}"))?;
            if regs == "safe" {
                out.push(KEvent::Safe(b));
            } else {
                out.push(KEvent::From(a, b, parse_regs(regs)));
            }
            continue;
        }
        let Some((n, rest)) = l.split_once(": ") else { return Err(format!("unexpected line {l:?}")) };
        let Ok(idx) = n.parse::<usize>() else { return Err(format!("unexpected line {l:?}")) };
        if rest == "safe" {
            out.push(KEvent::Safe(idx));
        } else if rest.starts_with('(') {
            let regs = rest.split_once(';').map(|(_, r)| parse_regs(r.trim())).unwrap_or_default();
            out.push(KEvent::Insn(idx, regs));
        } else if rest.starts_with('R') {
            out.push(KEvent::State(idx, parse_regs(rest)));
        } else {
            return Err(format!("unexpected line {l:?}"));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// The driver: a minimal do_check over the scalar domain

#[derive(Clone, Debug, PartialEq)]
enum Reg {
    NotInit,
    Ctx,
    Fp,
    Scalar { s: Scalar, id: u32, delta: i32 },
}

impl Reg {
    fn text(&self) -> String {
        match self {
            Reg::NotInit => "<NOT_INIT>".into(),
            Reg::Ctx => "ctx()".into(),
            Reg::Fp => "fp0".into(),
            Reg::Scalar { s, id, delta } => scalar_to_string(s, *id, *delta, false),
        }
    }
    fn scalar(s: Scalar) -> Reg {
        Reg::Scalar { s, id: 0, delta: 0 }
    }
}

type State = [Reg; 11];

#[derive(Debug)]
enum DEvent {
    Start(State),
    /// An insn and the state its log line shows (None: prints nothing).
    Insn(usize, Option<State>),
    From(usize, usize, State),
    /// Pruned at this insn, as the kernel said.
    Safe(usize),
}

/// `live_regs_before` (liveness.c) for the insns the programs use.
fn live_regs(insns: &[Insn]) -> Result<Vec<u16>, String> {
    let n = insns.len();
    let mut use_def = Vec::with_capacity(n);
    let mut succ: Vec<Vec<usize>> = Vec::with_capacity(n);
    for (i, insn) in insns.iter().enumerate() {
        let (dst, src) = (1u16 << insn.dst, 1u16 << insn.src);
        let code = insn.code;
        let (u, d, s) = match class(code) {
            BPF_ALU | BPF_ALU64 => match op(code) {
                BPF_END => (dst, dst, vec![i + 1]),
                BPF_MOV => (if src_of(code) == BPF_X { src } else { 0 }, dst, vec![i + 1]),
                _ => (if src_of(code) == BPF_X { dst | src } else { dst }, dst, vec![i + 1]),
            },
            BPF_LD if code == (BPF_LD | BPF_IMM | BPF_DW) => (0, dst, vec![i + 2]),
            BPF_LD => (0, 0, vec![]),
            BPF_JMP | BPF_JMP32 => match op(code) {
                BPF_JA => (0, 0, vec![jump_target(i, insn)]),
                BPF_EXIT => (1, 0, vec![]),
                // bpf_get_prandom_u32: no arguments.
                BPF_CALL => (0, 0x3f, vec![i + 1]),
                _ => (dst | if src_of(code) == BPF_X { src } else { 0 }, 0, vec![i + 1, jump_target(i, insn)]),
            },
            _ => return Err(format!("insn {i}: class not modelled by the driver")),
        };
        use_def.push((u, d));
        succ.push(s.into_iter().filter(|&t| t < n).collect());
    }
    let mut live_in = vec![0u16; n];
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            let out = succ[i].iter().fold(0u16, |a, &t| a | live_in[t]);
            let new = (out & !use_def[i].1) | use_def[i].0;
            if new != live_in[i] {
                live_in[i] = new;
                changed = true;
            }
        }
        if !changed {
            return Ok(live_in);
        }
    }
}

fn src_of(code: u8) -> u8 {
    code & 0x08
}

fn jump_target(i: usize, insn: &Insn) -> usize {
    let off = if class(insn.code) == BPF_JMP32 && op(insn.code) == BPF_JA { insn.imm as i64 } else { i64::from(insn.off) };
    (i as i64 + off + 1) as usize
}

/// Prune points (cfg.c): branch targets, conditional jumps, insns after calls.
fn prune_points(insns: &[Insn]) -> Vec<bool> {
    let mut p = vec![false; insns.len() + 2];
    for (i, insn) in insns.iter().enumerate() {
        let c = class(insn.code);
        if c != BPF_JMP && c != BPF_JMP32 {
            continue;
        }
        match op(insn.code) {
            BPF_CALL => p[i + 1] = true,
            BPF_EXIT => {}
            BPF_JA => {
                if let Some(x) = p.get_mut(jump_target(i, insn)) {
                    *x = true
                }
            }
            _ => {
                p[i] = true;
                if let Some(x) = p.get_mut(jump_target(i, insn)) {
                    *x = true
                }
            }
        }
    }
    p
}

struct Driver<'a> {
    insns: &'a [Insn],
    live: Vec<u16>,
    prune: Vec<bool>,
    id_gen: u32,
    insn_processed: usize,
    jmps_processed: usize,
    prev_insn_processed: usize,
    prev_jmps_processed: usize,
    /// Prune points where a checkpoint was stored (a revisit could prune).
    checkpoints: Vec<bool>,
    stack: Vec<(State, usize, usize)>,
    events: Vec<DEvent>,
    /// Where the kernel pruned, in order. State equivalence is the verifier's
    /// (states.c), not the domain's: at a revisited checkpoint the driver
    /// prunes exactly when the kernel did. Only forks revisit an insn in
    /// these tree-shaped programs.
    kernel_prunes: std::collections::VecDeque<usize>,
}

fn scalar_of(st: &State, r: usize) -> Result<(Scalar, u32, i32), String> {
    match &st[r] {
        Reg::Scalar { s, id, delta } => Ok((*s, *id, *delta)),
        other => Err(format!("R{r} is {other:?}, not a scalar")),
    }
}

fn clear_id(st: &mut State, r: usize) {
    if let Reg::Scalar { id, delta, .. } = &mut st[r] {
        *id = 0;
        *delta = 0;
    }
}

impl<'a> Driver<'a> {
    fn new(insns: &'a [Insn], kernel_prunes: Vec<usize>) -> Result<Driver<'a>, String> {
        Ok(Driver {
            insns,
            live: live_regs(insns)?,
            prune: prune_points(insns),
            id_gen: 0,
            insn_processed: 0,
            jmps_processed: 0,
            prev_insn_processed: 0,
            prev_jmps_processed: 0,
            checkpoints: vec![false; insns.len()],
            stack: Vec::new(),
            events: Vec::new(),
            kernel_prunes: kernel_prunes.into(),
        })
    }

    /// `is_state_visited` for tree-shaped programs: clean dead registers,
    /// and when a checkpoint is stored, clear singular ids. True: pruned.
    fn is_state_visited(&mut self, st: &mut State, idx: usize) -> Result<bool, String> {
        let add_new_state = self.jmps_processed - self.prev_jmps_processed >= 2 && self.insn_processed - self.prev_insn_processed >= 8;
        let live = self.live[idx];
        for (r, reg) in st.iter_mut().enumerate().take(10) {
            if live & (1 << r) == 0 {
                *reg = Reg::NotInit;
            }
        }
        if self.checkpoints[idx] && self.kernel_prunes.front() == Some(&idx) {
            self.kernel_prunes.pop_front();
            return Ok(true);
        }
        if !add_new_state {
            return Ok(false);
        }
        self.checkpoints[idx] = true;
        let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
        for reg in st.iter() {
            match reg {
                Reg::Scalar { id, .. } if *id != 0 => *counts.entry(id & !BPF_ADD_CONST).or_default() += 1,
                _ => {}
            }
        }
        for r in 0..st.len() {
            if matches!(&st[r], Reg::Scalar { id, .. } if *id != 0 && counts.get(&(id & !BPF_ADD_CONST)) == Some(&1)) {
                clear_id(st, r);
            }
        }
        self.prev_jmps_processed = self.jmps_processed;
        self.prev_insn_processed = self.insn_processed;
        Ok(false)
    }

    /// `assign_scalar_id_before_mov`.
    fn assign_scalar_id_before_mov(&mut self, st: &mut State, r: usize) {
        if let Reg::Scalar { s, id, delta } = &mut st[r] {
            if *id & BPF_ADD_CONST != 0 {
                *id = 0;
                *delta = 0;
            }
            if *id == 0 && !s.is_const() {
                self.id_gen += 1;
                *id = self.id_gen;
            }
        }
    }

    fn run(&mut self) -> Result<(), String> {
        let mut st: State = std::array::from_fn(|r| match r {
            1 => Reg::Ctx,
            10 => Reg::Fp,
            _ => Reg::NotInit,
        });
        self.events.push(DEvent::Start(st.clone()));
        let mut idx = 0usize;
        let mut popped_from: Option<usize> = None;
        let mut pending: Option<usize> = None;
        loop {
            self.insn_processed += 1;
            if self.insn_processed > 100_000 {
                return Err("too many insns".into());
            }
            let insn = *self.insns.get(idx).ok_or_else(|| format!("fell off at {idx}"))?;
            if self.prune.get(idx).copied().unwrap_or(false) && self.is_state_visited(&mut st, idx)? {
                // The previous insn's line was printed, its registers never are.
                if let Some(n) = pending.take() {
                    self.events.push(DEvent::Insn(n, None));
                }
                self.events.push(DEvent::Safe(idx));
                let Some((s, i, from)) = self.stack.pop() else { return Ok(()) };
                st = s;
                idx = i;
                popped_from = Some(from);
                continue;
            }
            if let Some(from) = popped_from.take() {
                self.events.push(DEvent::From(from, idx, st.clone()));
            }
            if let Some(n) = pending.take() {
                self.events.push(DEvent::Insn(n, Some(st.clone())));
            }
            let code = insn.code;
            match class(code) {
                BPF_ALU | BPF_ALU64 => {
                    self.alu(&mut st, idx, &insn)?;
                    pending = Some(idx);
                    idx += 1;
                }
                BPF_LD if code == (BPF_LD | BPF_IMM | BPF_DW) => {
                    let hi = self.insns.get(idx + 1).ok_or("truncated ld_imm64")?.imm;
                    let v = u64::from(insn.imm as u32) | (u64::from(hi as u32) << 32);
                    st[insn.dst as usize] = Reg::scalar(Scalar::known(v));
                    pending = Some(idx);
                    idx += 2;
                }
                BPF_JMP | BPF_JMP32 => {
                    self.jmps_processed += 1;
                    match op(code) {
                        BPF_CALL => {
                            st[0] = Reg::scalar(Scalar::unknown());
                            for reg in st.iter_mut().take(6).skip(1) {
                                *reg = Reg::NotInit;
                            }
                            pending = Some(idx);
                            idx += 1;
                        }
                        BPF_EXIT => {
                            self.events.push(DEvent::Insn(idx, None));
                            let Some((s, i, from)) = self.stack.pop() else { return Ok(()) };
                            st = s;
                            idx = i;
                            popped_from = Some(from);
                        }
                        BPF_JA => {
                            self.events.push(DEvent::Insn(idx, None));
                            idx = jump_target(idx, &insn);
                        }
                        _ => {
                            idx = self.cond_jmp(&mut st, idx, &insn)?;
                        }
                    }
                }
                _ => return Err(format!("insn {idx}: class not modelled")),
            }
        }
    }

    fn alu(&mut self, st: &mut State, idx: usize, insn: &Insn) -> Result<(), String> {
        let code = insn.code;
        let alu64 = class(code) == BPF_ALU64;
        let alu32 = !alu64;
        let (d, s) = (insn.dst as usize, insn.src as usize);
        let is_x = src_of(code) == BPF_X;
        match op(code) {
            BPF_MOV => {
                if !is_x {
                    let v = if alu64 { insn.imm as i64 as u64 } else { u64::from(insn.imm as u32) };
                    st[d] = Reg::scalar(Scalar::known(v));
                    return Ok(());
                }
                let (src, ..) = scalar_of(st, s)?;
                let link = if alu64 && insn.off == 0 {
                    true
                } else if insn.off == 0 {
                    src.reg_width() <= 32
                } else {
                    src.umax() < (1u64 << (insn.off - 1))
                };
                if link {
                    self.assign_scalar_id_before_mov(st, s);
                }
                st[d] = st[s].clone();
                if !link {
                    clear_id(st, d);
                }
                if let Reg::Scalar { s: v, .. } = &mut st[d] {
                    *v = scalar_mov(v, alu64, insn.off);
                }
                Ok(())
            }
            BPF_NEG | BPF_END => {
                let (mut v, id, delta) = scalar_of(st, d)?;
                let copy = v;
                let out = adjust_scalar_min_max_vals(&mut v, &copy, insn);
                let (id, delta) = if out.id_cleared { (0, 0) } else { (id, delta) };
                st[d] = Reg::Scalar { s: v, id, delta };
                Ok(())
            }
            opc => {
                let (mut v, mut id, _) = scalar_of(st, d)?;
                let src = if is_x { scalar_of(st, s)?.0 } else { Scalar::known(insn.imm as i64 as u64) };
                let dst_umax = v.umax();
                let before = st.clone();
                let out = adjust_scalar_min_max_vals(&mut v, &src, insn);
                if out.id_cleared || out.marked_unknown {
                    id = 0;
                }
                if let Some(f) = out.fork {
                    let mut other = before;
                    if let Reg::Scalar { s: ov, id: oid, delta: odelta } = &mut other[d] {
                        *ov = f.dst;
                        if f.id_cleared {
                            (*oid, *odelta) = (0, 0);
                        }
                    }
                    self.stack.push((other, idx, idx));
                }
                // adjust_reg_min_max_vals: `rX += const` keeps a link.
                let mut link = None;
                if (opc == BPF_ADD || opc == BPF_SUB) && id != 0 && src.is_reg_const(alu32) && !(is_x && s == d) {
                    let val = src.reg_const_value(alu32);
                    let mut off = val as i32;
                    let ok = !(alu64 && ((val as i64) < i64::from(i32::MIN) || (val as i64) > i64::from(i32::MAX)))
                        && !(alu32 && dst_umax > u64::from(u32::MAX))
                        && !(opc == BPF_SUB && off == i32::MIN)
                        && id & BPF_ADD_CONST == 0;
                    if ok {
                        if opc == BPF_SUB {
                            off = -off;
                        }
                        link = Some((id | if alu32 { BPF_ADD_CONST32 } else { BPF_ADD_CONST64 }, off));
                    }
                }
                let (id, delta) = link.unwrap_or((0, 0));
                st[d] = Reg::Scalar { s: v, id, delta };
                Ok(())
            }
        }
    }

    /// Base-id-linked live scalars (`collect_linked_regs`).
    fn collect_linked_regs(&self, st: &State, idx: usize, base: u32, out: &mut Vec<usize>) {
        for (r, reg) in st.iter().enumerate().take(10) {
            if self.live[idx] & (1 << r) == 0 {
                continue;
            }
            if matches!(reg, Reg::Scalar { id, .. } if id & !BPF_ADD_CONST == base) {
                out.push(r);
            }
        }
    }

    fn cond_jmp(&mut self, st: &mut State, idx: usize, insn: &Insn) -> Result<usize, String> {
        let code = insn.code;
        let is_jmp32 = class(code) == BPF_JMP32;
        let is_x = src_of(code) == BPF_X;
        let (d, s) = (insn.dst as usize, insn.src as usize);
        let (dv, did, _) = scalar_of(st, d)?;
        let (sv, sid) = if is_x {
            let (v, id, _) = scalar_of(st, s)?;
            (v, id)
        } else {
            (Scalar::known(insn.imm as i64 as u64), 0)
        };
        let mut linked = Vec::new();
        if is_x && sid != 0 {
            self.collect_linked_regs(st, idx, sid & !BPF_ADD_CONST, &mut linked);
        }
        if did != 0 {
            self.collect_linked_regs(st, idx, did & !BPF_ADD_CONST, &mut linked);
        }
        let (taken, br) = scalar_cond_jmp(&dv, &sv, is_x && s == d, op(code), is_jmp32);
        let target = jump_target(idx, insn);
        let set = |st: &mut State, r: usize, v: Scalar| {
            if let Reg::Scalar { s, .. } = &mut st[r] {
                *s = v;
            }
        };
        match taken {
            Some(t) => {
                self.events.push(DEvent::Insn(idx, Some(st.clone())));
                Ok(if t { target } else { idx + 1 })
            }
            None => {
                let mut other = st.clone();
                set(st, d, br.false_reg1);
                set(&mut other, d, br.true_reg1);
                if is_x {
                    set(st, s, br.false_reg2);
                    set(&mut other, s, br.true_reg2);
                }
                if is_x && scalar_of(st, s)?.1 != 0 {
                    sync_linked_regs(st, s, &linked);
                    sync_linked_regs(&mut other, s, &linked);
                }
                if scalar_of(st, d)?.1 != 0 {
                    sync_linked_regs(st, d, &linked);
                    sync_linked_regs(&mut other, d, &linked);
                }
                self.stack.push((other, target, idx));
                self.events.push(DEvent::Insn(idx, Some(st.clone())));
                Ok(idx + 1)
            }
        }
    }
}

/// `sync_linked_regs`.
fn sync_linked_regs(st: &mut State, known_r: usize, linked: &[usize]) {
    let Reg::Scalar { s: ks, id: kid, delta: kdelta } = st[known_r].clone() else { return };
    for &r in linked {
        if r == known_r {
            continue;
        }
        let Reg::Scalar { id, delta, .. } = st[r].clone() else { continue };
        if id & !BPF_ADD_CONST != kid & !BPF_ADD_CONST {
            continue;
        }
        if (id ^ kid) & BPF_ADD_CONST == BPF_ADD_CONST {
            continue;
        }
        if (id & BPF_ADD_CONST == 0 && kid & BPF_ADD_CONST == 0) || delta == kdelta {
            st[r] = st[known_r].clone();
        } else {
            let v = sync_linked_scalar(&ks, i64::from(delta) - i64::from(kdelta), (id | kid) & BPF_ADD_CONST32 != 0);
            st[r] = Reg::Scalar { s: v, id, delta };
        }
    }
}

// ---------------------------------------------------------------------------
// Comparison

struct Outcome {
    checks: usize,
    mismatches: Vec<String>,
}

fn strip_precise(t: &str) -> &str {
    t.strip_prefix('P').unwrap_or(t)
}

fn compare(case: &Case) -> Outcome {
    let mut o = Outcome { checks: 0, mismatches: Vec::new() };
    let prog = match bpf_isa::assemble(&case.asm) {
        Ok(p) => p,
        Err(e) => {
            o.mismatches.push(format!("asm: {e}"));
            return o;
        }
    };
    let kev = match parse_log(&case.log) {
        Ok(k) => k,
        Err(e) => {
            o.mismatches.push(e);
            return o;
        }
    };
    let prunes = kev.iter().filter_map(|e| if let KEvent::Safe(i) = e { Some(*i) } else { None }).collect();
    let mut drv = match Driver::new(&prog.insns, prunes) {
        Ok(d) => d,
        Err(e) => {
            o.mismatches.push(e);
            return o;
        }
    };
    let run = drv.run();
    let mut cursor = 0usize;
    let mut current: Option<&State> = None;
    let mut current_idx = 0usize;
    let check = |o: &mut Outcome, at: &str, printed: &Printed, st: Option<&State>| {
        for (r, text) in printed {
            o.checks += 1;
            let ours = st.and_then(|s| s.get(*r)).map_or_else(|| "<nothing>".to_string(), Reg::text);
            if strip_precise(text) != ours {
                o.mismatches.push(format!("{at} R{r}: kernel {text} / model {ours}"));
            }
        }
    };
    for ev in &kev {
        match ev {
            KEvent::Insn(idx, regs) => {
                // Skip the initial state the driver records.
                while let Some(DEvent::Start(_)) = drv.events.get(cursor) {
                    cursor += 1;
                }
                match drv.events.get(cursor) {
                    Some(DEvent::Insn(n, s)) if n == idx => {
                        current = s.as_ref();
                        current_idx = *n;
                        cursor += 1;
                        check(&mut o, &format!("insn {idx}"), regs, current);
                    }
                    other => {
                        o.mismatches.push(format!("path: kernel at insn {idx}, model at {}", describe(other)));
                        break;
                    }
                }
            }
            KEvent::State(idx, regs) => {
                if let Some(DEvent::Start(s)) = drv.events.get(cursor) {
                    current = Some(s);
                    current_idx = 0;
                    cursor += 1;
                }
                if current_idx != *idx {
                    o.mismatches.push(format!("path: kernel state at {idx}, model at {current_idx}"));
                    break;
                }
                check(&mut o, &format!("state {idx}"), regs, current);
            }
            KEvent::Safe(idx) => match drv.events.get(cursor) {
                Some(DEvent::Safe(n)) if n == idx => cursor += 1,
                other => {
                    o.mismatches.push(format!("path: kernel pruned at {idx}, model at {}", describe(other)));
                    break;
                }
            },
            KEvent::From(a, b, regs) => match drv.events.get(cursor) {
                Some(DEvent::From(x, y, s)) if x == a && y == b => {
                    current = Some(s);
                    current_idx = *b;
                    cursor += 1;
                    check(&mut o, &format!("from {a} to {b}"), regs, current);
                }
                other => {
                    o.mismatches.push(format!("path: kernel from {a} to {b}, model at {}", describe(other)));
                    break;
                }
            },
        }
    }
    if let Err(e) = run {
        o.mismatches.push(format!("driver: {e}"));
    } else if cursor < drv.events.len() {
        o.mismatches.push(format!("path: model continues at {}", describe(drv.events.get(cursor))));
    }
    o.checks += 1;
    if case.verified_insns != Some(drv.insn_processed) {
        o.mismatches.push(format!("verified_insns: kernel {:?} / model {}", case.verified_insns, drv.insn_processed));
    }
    o
}

fn describe(e: Option<&DEvent>) -> String {
    match e {
        Some(DEvent::Start(_)) => "start".into(),
        Some(DEvent::Insn(n, _)) => format!("insn {n}"),
        Some(DEvent::From(a, b, _)) => format!("from {a} to {b}"),
        Some(DEvent::Safe(n)) => format!("pruned at {n}"),
        None => "end".into(),
    }
}

#[test]
fn scalar_domain_matches_linux_7_3() {
    let cases = load_cases();
    assert!(cases.len() > 1000, "goldens missing: {} cases", cases.len());
    let mut per_group: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let (mut checks, mut bad_checks, mut failed) = (0usize, 0usize, Vec::new());
    let mut report = String::new();
    for case in &cases {
        let o = compare(case);
        checks += o.checks;
        bad_checks += o.mismatches.len();
        let g = per_group.entry(&case.group).or_default();
        g.0 += 1;
        let known = KNOWN_FAILURES.iter().any(|(n, _)| *n == format!("{}/{}", case.group, case.name));
        if o.mismatches.is_empty() {
            g.1 += 1;
            if known {
                let _ = writeln!(report, "{}/{}: listed as a known failure but passes", case.group, case.name);
                failed.push(format!("{}/{}", case.group, case.name));
            }
        } else if !known {
            failed.push(format!("{}/{}", case.group, case.name));
            let _ = writeln!(report, "--- {}/{}\n    asm: {}", case.group, case.name, case.asm);
            for m in o.mismatches.iter().take(6) {
                let _ = writeln!(report, "    {m}");
            }
        }
    }
    let passed: usize = per_group.values().map(|g| g.1).sum();
    eprintln!("scalar domain vs Linux 7.3: {passed}/{} programs, {}/{checks} register checks", cases.len(), checks - bad_checks);
    for (g, (n, p)) in &per_group {
        eprintln!("  {g:12} {p}/{n}");
    }
    if !failed.is_empty() {
        let cut: String = report.chars().take(60_000).collect();
        panic!("{} programs differ from 7.3:\n{cut}", failed.len());
    }
}
