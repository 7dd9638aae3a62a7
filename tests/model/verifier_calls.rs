//! Calls in the main pass (helpers and their argument checks, maps,
//! subprograms, callbacks, iterators and other kfuncs, may_goto, tail
//! calls, references) against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/calls/*.txt` holds what 7.3 did with each program
//! (`bpf-selftest record --set calls`); [`verifier_common`] replays each
//! through `do_check_main` and compares verdict, errno, `verified_insns`
//! and the log at levels 1 and 2.
//!
//! `expected/linux-7.3/map_create.txt` (`bpf-selftest record --set
//! map-create`, format in `bpf_selftest::recorded::map_create`) holds which
//! maps 7.3 creates, compared with `verifier::map_create`.
//!
//! The test prints the pass rate per area and fails when fewer programs
//! match than [`MIN_PASSING`] (a ratchet). `CALLS_VERBOSE=1` prints every
//! mismatch, `CALLS_FILTER=x` keeps the programs whose name (or area)
//! contains `x`.

use crate::verifier_common;

const DIR: &str = "expected/linux-7.3/calls";
/// The same programs on arm64.
const DIR_ARM64: &str = "expected/linux-7.3/arm64/calls";
/// Programs that must match completely.
const MIN_PASSING: usize = 217;
/// Programs that must match with their diagnostics blocks too.
const MIN_STRICT: usize = 217;

#[test]
fn calls_against_linux_7_3() {
    let c = verifier_common::run_suite(DIR, "CALLS_VERBOSE", "CALLS_FILTER");
    if std::env::var("CALLS_FILTER").is_err() {
        assert!(c.pass >= MIN_PASSING, "{}/{} programs match, fewer than {MIN_PASSING}", c.pass, c.total);
        assert!(c.strict >= MIN_STRICT, "{}/{} programs match with diagnostics, fewer than {MIN_STRICT}", c.strict, c.total);
    }
}

#[test]
fn calls_against_linux_7_3_arm64() {
    let c = verifier_common::run_suite(DIR_ARM64, "CALLS_VERBOSE", "CALLS_FILTER");
    if std::env::var("CALLS_FILTER").is_err() {
        assert!(c.pass >= MIN_PASSING, "arm64: {}/{} programs match, fewer than {MIN_PASSING}", c.pass, c.total);
        assert!(c.strict >= MIN_STRICT, "arm64: {}/{} programs match with diagnostics, fewer than {MIN_STRICT}", c.strict, c.total);
    }
}

/// `CALLS_DUMP=name` prints the model's level-2 log of one program.
#[test]
fn dump_one() {
    if let Ok(name) = std::env::var("CALLS_DUMP") {
        verifier_common::dump(DIR, &name, std::env::var("CALLS_LEVEL").ok().and_then(|l| l.parse().ok()).unwrap_or(2));
    }
}

/// `BPF_MAP_CREATE` per type, size and flag, as root and unprivileged.
#[test]
fn map_create_against_linux_7_3() {
    use bpf_selftest::recorded::map_create;
    use bpf_selftest::verifier::errno::errno_name;
    use bpf_selftest::verifier::map_create::{MapCreateCaps, map_create_def};
    let path = std::path::Path::new(verifier_common::ROOT).join("expected/linux-7.3/map_create.txt");
    let file = map_create::parse(&std::fs::read_to_string(path).expect("map_create goldens")).expect("map_create.txt");
    let mut bad = Vec::new();
    let total = file.cases.len();
    for c in &file.cases {
        let root = !c.unpriv;
        let caps = MapCreateCaps { bpf: root, net_admin: root, sys_admin: root, perfmon: root };
        let got = match map_create_def(&c.def(), bpf_selftest::target::Arch::X86_64, caps) {
            Ok(()) => "ok".to_string(),
            Err(e) => errno_name(e).to_string(),
        };
        if got != c.result {
            bad.push(format!("{}: got {got}, want {}", c.args(), c.result));
        }
    }
    println!("map_create: {}/{total}", total - bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Random programs with calls of every kind through `bpf_check`: no
/// panic, bounded time. `CALLS_FUZZ_ROUNDS` (default 300) and
/// `CALLS_FUZZ_SEED` set the run; `CALLS_FUZZ_VERBOSE` lists the most
/// frequent last log lines.
#[test]
fn random_programs_with_calls() {
    use bpf_selftest::prog_type::ProgType;
    use bpf_selftest::target::Arch;
    use bpf_selftest::verifier::env::{Caps, FuncInfo, MapObj, VerifierInput};
    use bpf_selftest::{
        load::bpf_check,
        verifier::{Verdict, kfunc_btf_ids},
    };
    let rounds: u64 = std::env::var("CALLS_FUZZ_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    let seed: u64 = std::env::var("CALLS_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed);
    let maps: Vec<MapObj> = fuzz::maps()
        .into_iter()
        .enumerate()
        .map(|(i, def)| MapObj { fd: 4 + i as i32, def, id: i as u32 + 1, kaddr: 0xffff_8880_05e7_c000 + 0x1000 * i as u64, record: None, inner_record: None })
        .collect();
    let start = std::time::Instant::now();
    let (mut main_pass, mut accepted, mut unsupported) = (0, 0, 0);
    let mut why: std::collections::BTreeMap<String, usize> = Default::default();
    let mut slowest = std::time::Duration::ZERO;
    for round in 0..rounds {
        let mut rng = fuzz::Rng(seed ^ round.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let (mut insns, starts) = fuzz::program(&mut rng, maps.len());
        for x in insns.iter_mut() {
            if x.is_ld_imm64() && matches!(x.src, 1 | 2) {
                x.imm += 4;
            }
            if x.is_kfunc_call() {
                x.imm = fuzz::KFUNCS.get(x.imm as usize).and_then(|n| kfunc_btf_ids::btf_id(Arch::X86_64, n)).unwrap_or(0) as i32;
            }
        }
        let pt = [1u32, 3, 6, 17, 2][rng.below(5) as usize];
        let mut input = VerifierInput::new(insns, ProgType(pt), Arch::X86_64);
        input.maps = maps.clone();
        input.func_info = Some(starts.iter().map(|&s| FuncInfo { insn_off: s as u32, type_id: 0, name: format!("f{s}"), global: false, nargs: 0 }).collect());
        input.log_level = [0, 1, 1, 2][(round % 4) as usize];
        input.log_size = if input.log_level == 0 { 0 } else { 1 << 22 };
        if rng.below(4) == 0 {
            input.caps = Caps::NONE;
        }
        if rng.below(4) == 0 {
            input.prog_flags |= 1 << 3; // BPF_F_TEST_STATE_FREQ
        }
        let t0 = std::time::Instant::now();
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bpf_check(&input)));
        let Ok(v) = out else {
            panic!("round {round} (seed {seed}) panicked on:\n{}", input.insns.iter().map(|i| format!("{i:?}")).collect::<Vec<_>>().join("\n"));
        };
        slowest = slowest.max(t0.elapsed());
        assert!(t0.elapsed().as_secs() < 20, "round {round}: {:?} for one program", t0.elapsed());
        let (log, reached) = match &v {
            Verdict::Decided(d) => (d.log.clone(), d.verified_insns > 0),
            Verdict::NotModelled { log_so_far, verified_insns, phase, what } => {
                if *phase == "fixups" {
                    accepted += 1;
                } else {
                    unsupported += 1;
                    *why.entry(format!("{phase}: {what}")).or_insert(0) += 1;
                }
                (log_so_far.clone(), *verified_insns > 0)
            }
        };
        main_pass += reached as usize;
        if let Verdict::Decided(_) = v {
            let last = log.lines().rev().find(|l| !l.is_empty() && !l.starts_with("processed") && !l.starts_with(' ')).unwrap_or_default();
            let key: String = last.chars().filter(|c| !c.is_ascii_digit()).take(60).collect();
            *why.entry(key).or_insert(0) += 1;
        }
    }
    eprintln!(
        "{rounds} random programs in {:?} (slowest {slowest:?}): {main_pass} reached the main pass, {accepted} accepted, {unsupported} not modelled",
        start.elapsed()
    );
    if std::env::var("CALLS_FUZZ_VERBOSE").is_ok() {
        let mut v: Vec<_> = why.into_iter().collect();
        v.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        for (w, n) in v.iter().take(30) {
            eprintln!("{n:6} {w}");
        }
    }
    assert!(main_pass as u64 * 3 > rounds, "the generator should reach the main pass ({main_pass})");
}

/// The random program generator of [`random_programs_with_calls`].
mod fuzz {
    use bpf_isa::Insn;
    use bpf_isa::insn::op::*;
    use bpf_selftest::map::MapDef;

    pub const KFUNCS: &[&str] = &[
        "bpf_iter_num_new",
        "bpf_iter_num_next",
        "bpf_iter_num_destroy",
        "bpf_cast_to_kern_ctx",
        "bpf_rdonly_cast",
        "bpf_rcu_read_lock",
        "bpf_rcu_read_unlock",
        "bpf_preempt_disable",
        "bpf_preempt_enable",
    ];

    pub struct Rng(pub u64);

    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    pub fn maps() -> Vec<MapDef> {
        let mut aom = MapDef::new("aom", 12, 4, 4, 1);
        aom.inner = Some(Box::new(MapDef::new("inner", 2, 4, 8, 1)));
        vec![
            MapDef::new("arr", 2, 4, 48, 4),
            MapDef::new("hash", 1, 8, 16, 16),
            MapDef::new("rb", 27, 0, 0, 4096),
            MapDef::new("pa", 3, 4, 4, 4),
            MapDef::new("pcpu", 6, 4, 8, 1),
            MapDef::new("q", 22, 0, 8, 4),
            aom,
        ]
    }

    fn mov(dst: u8, imm: i32) -> Insn {
        Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm)
    }
    fn movr(dst: u8, src: u8) -> Insn {
        Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
    }
    fn fp(dst: u8, off: i32) -> [Insn; 2] {
        [movr(dst, 10), Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, off)]
    }

    /// One block of the body: insns, with `None` for a jump to patch
    /// (forward, to a later block start).
    fn block(rng: &mut Rng, nmaps: usize, cb_start_rel: &mut Vec<usize>, out: &mut Vec<(Insn, u8)>) {
        // (insn, kind): 0 plain, 1 forward jump to patch, 2 call to subprog 1,
        // 3 pseudo func of subprog 2, 4 kfunc by index in imm, 5 may_goto
        let r = |rng: &mut Rng| rng.below(10) as u8;
        match rng.below(16) {
            0 => out.push((mov(r(rng), rng.next() as i32 % 100), 0)),
            1 => out.push((movr(r(rng), r(rng)), 0)),
            2 => {
                let op = [BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_LSH, BPF_RSH, BPF_MUL, BPF_XOR][rng.below(8) as usize];
                let cls = if rng.below(2) == 0 { BPF_ALU64 } else { BPF_ALU };
                if rng.below(2) == 0 {
                    out.push((Insn::new(cls | op | BPF_K, r(rng), 0, 0, (rng.below(64)) as i32), 0));
                } else {
                    out.push((Insn::new(cls | op | BPF_X, r(rng), r(rng), 0, 0), 0));
                }
            }
            3 => {
                let off = -8 * (1 + rng.below(8) as i16);
                out.push((Insn::new(BPF_STX | BPF_MEM | BPF_DW, 10, r(rng), off, 0), 0));
            }
            4 => {
                let off = -8 * (1 + rng.below(8) as i16);
                out.push((Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, off, rng.below(8) as i32), 0));
            }
            5 => {
                let off = -8 * (1 + rng.below(8) as i16);
                out.push((Insn::new(BPF_LDX | BPF_MEM | BPF_DW, r(rng), 10, off, 0), 0));
            }
            6 => {
                // ld_imm64 of a map or a map value
                let m = rng.below(nmaps as u64) as i32;
                // direct value access: arrays only (map 0)
                let src = if m == 0 && rng.below(2) == 0 { 2 } else { 1 };
                out.push((Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1 + rng.below(3) as u8, src, 0, m), 0));
                out.push((Insn::new(0, 0, 0, 0, 0), 0));
            }
            7 | 8 => {
                // a map helper with a key on the stack
                let [a, b] = fp(2, -8);
                out.push((Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 0), 0));
                out.push((a, 0));
                out.push((b, 0));
                out.push((Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 1, 0, rng.below(nmaps as u64) as i32), 0));
                out.push((Insn::new(0, 0, 0, 0, 0), 0));
                if rng.below(2) == 0 {
                    let [a, b] = fp(3, -16);
                    out.push((Insn::new(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 0), 0));
                    out.push((a, 0));
                    out.push((b, 0));
                    out.push((mov(4, 0), 0));
                }
                let id = [1, 2, 3, 12, 87, 88, 130, 131, 132, 133, 164][rng.below(11) as usize];
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, id), 0));
                if rng.below(2) == 0 {
                    out.push((Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0, 0), 1));
                    out.push((Insn::new(BPF_ST | BPF_MEM | BPF_DW, 0, 0, 0, 1), 0));
                }
            }
            9 => {
                // any helper with random arguments
                for a in 1..=5u8 {
                    match rng.below(4) {
                        0 => out.push((mov(a, rng.below(16) as i32), 0)),
                        1 => {
                            let [x, y] = fp(a, -8 * (1 + rng.below(4) as i32));
                            out.push((x, 0));
                            out.push((y, 0));
                        }
                        _ => {}
                    }
                }
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, rng.below(215) as i32), 0));
            }
            10 => out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0), 2)),
            11 => {
                // a callback helper: bpf_loop or for_each
                out.push((mov(1, rng.below(1 << 20) as i32), 0));
                out.push((Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_FUNC, 0, 0), 3));
                out.push((Insn::new(0, 0, 0, 0, 0), 0));
                cb_start_rel.push(0);
                out.push((mov(3, 0), 0));
                out.push((mov(4, 0), 0));
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 181), 0));
            }
            12 => {
                // an open-coded iterator
                let [a, b] = fp(1, -24);
                out.push((a, 0));
                out.push((b, 0));
                out.push((mov(2, 0), 0));
                out.push((mov(3, rng.below(1000) as i32), 0));
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 0), 4));
                let [a, b] = fp(1, -24);
                out.push((a, 0));
                out.push((b, 0));
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 1), 4));
                if rng.below(2) == 0 {
                    let [a, b] = fp(1, -24);
                    out.push((a, 0));
                    out.push((b, 0));
                    out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 2), 4));
                }
            }
            13 => out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, rng.below(KFUNCS.len() as u64) as i32), 4)),
            14 => out.push((Insn::new(BPF_JMP | BPF_JCOND, 0, 0, 0, 0), 5)),
            _ => {
                let op = [BPF_JEQ, BPF_JGT, BPF_JSGT, BPF_JNE, BPF_JSET][rng.below(5) as usize];
                out.push((Insn::new(BPF_JMP | op | BPF_K, r(rng), 0, 0, rng.below(8) as i32), 1));
            }
        }
    }

    /// A program: main body, a static subprogram and a callback. Returns
    /// the insns (maps by index, kfuncs by index into [`KFUNCS`]) and the
    /// subprogram starts.
    pub fn program(rng: &mut Rng, nmaps: usize) -> (Vec<Insn>, Vec<usize>) {
        let mut bodies = Vec::new();
        for (k, len) in [(0, 4 + rng.below(20)), (1, rng.below(8)), (2, rng.below(3))] {
            let mut out = Vec::new();
            let mut cbs = Vec::new();
            // defined registers: the body reads any of them
            for r in 0..10u8 {
                if k == 0 && r == 6 {
                    out.push((movr(6, 1), 0));
                } else if k == 0 || r == 0 || r > 5 {
                    out.push((mov(r, rng.below(4) as i32), 0));
                }
            }
            if k == 0 {
                // both subprograms are reached: a call, and a callback
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 0), 2));
                out.push((mov(1, 1 + rng.below(8) as i32), 0));
                out.push((Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_FUNC, 0, 0), 3));
                out.push((Insn::new(0, 0, 0, 0, 0), 0));
                out.push((mov(3, 0), 0));
                out.push((mov(4, 0), 0));
                out.push((Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 181), 0));
                for r in 1..=5u8 {
                    out.push((mov(r, 0), 0));
                }
            }
            for _ in 0..len {
                if k == 2 && rng.below(2) == 0 {
                    break;
                }
                // no recursion: only the main program calls the subprogram,
                // the callback calls nothing back
                let before = out.len();
                block(rng, nmaps, &mut cbs, &mut out);
                if (k != 0 && out[before..].iter().any(|(_, kind)| *kind == 2)) || (k == 2 && out[before..].iter().any(|(_, kind)| *kind == 3)) {
                    out.truncate(before);
                }
                // calls clobber r1-r5: define them again, mostly
                if out.last().is_some_and(|(x, _)| x.code == BPF_JMP | BPF_CALL) && rng.below(4) != 0 {
                    for r in 1..=5u8 {
                        out.push((mov(r, rng.below(4) as i32), 0));
                    }
                }
            }
            out.push((mov(0, rng.below(2) as i32), 0));
            out.push((Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0), 0));
            bodies.push(out);
        }
        let starts = vec![0, bodies[0].len(), bodies[0].len() + bodies[1].len()];
        let mut insns = Vec::new();
        for (k, body) in bodies.iter().enumerate() {
            let base = starts[k];
            let end = base + body.len();
            for (j, (insn, kind)) in body.iter().enumerate() {
                let i = base + j;
                let mut x = *insn;
                match kind {
                    1 | 5 => {
                        // forward to an insn start of this body, before its exit
                        let room = (end - 1).saturating_sub(i + 1);
                        let mut t = i + 1 + rng.below(room as u64 + 1) as usize;
                        while t > i + 1 && j + (t - i) < body.len() && t - base > 0 && body[t - base - 1].0.is_ld_imm64() {
                            t -= 1;
                        }
                        let off = (t - i - 1) as i16;
                        x.off = off;
                    }
                    2 => x.imm = (starts[1] as i64 - i as i64 - 1) as i32,
                    3 => x.imm = (starts[2] as i64 - i as i64 - 1) as i32,
                    4 => {}
                    _ => {}
                }
                insns.push(x);
            }
        }
        (insns, starts)
    }
}
