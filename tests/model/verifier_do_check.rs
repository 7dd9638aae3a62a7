//! The main pass (`verifier::do_check`) against a real Linux 7.3 verifier.
//!
//! `expected/linux-7.3/do_check/*.txt` holds the level-1 and level-2 logs,
//! verdicts and `verified_insns` 7.3 produced for small call-free programs
//! (`bpf-selftest record --set do-check`). Each program is loaded as it
//! was recorded (a GPL program with one BTF `FUNC` named after the case,
//! even unprivileged; maps by fd) and run through the whole model of
//! `bpf_check` at both
//! log levels. A rejected program must match completely: errno and the
//! whole log, "Verification failed:" diagnostics and statistics included.
//! An accepted one, which the model leaves at the fixups (not modelled
//! yet), must have the same `verified_insns` and the kernel's log up to its
//! closing statistics. Kernel pointers are masked as in the goldens of
//! `progs/` (map addresses printed by `ld_imm64`).
//!
//! The driver is [`verifier_common`]'s. The test prints the pass rate per
//! area and fails when fewer programs match completely than
//! [`MIN_PASSING`] (a ratchet: raise it as the model improves).

use crate::verifier_common;

use bpf_selftest::map::MapDef;
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::target::Arch;
use bpf_selftest::{load::bpf_check, verifier::Verdict};

const DIR: &str = "expected/linux-7.3/do_check";
/// Programs that must match completely.
const MIN_PASSING: usize = 226;

#[test]
fn do_check_against_linux_7_3() {
    let c = verifier_common::run_suite(DIR, "DO_CHECK_VERBOSE", "DO_CHECK_FILTER");
    if std::env::var("DO_CHECK_FILTER").is_err() {
        assert!(c.strict >= MIN_PASSING, "{} programs match, fewer than {MIN_PASSING}", c.strict);
    }
}

/// Random call-free programs never panic the main pass and always end
/// (with a verdict or a named phase): ALU of every kind, stack, ctx,
/// packet and map-value traffic, atomics, forward and backward jumps,
/// may_goto, privileged and not, at log levels 0-2.
/// `BPF_MAIN_PASS_FUZZ_ROUNDS=200000` for a long run.
#[test]
fn main_pass_no_panic() {
    use bpf_selftest::isa::Insn;
    use bpf_selftest::verifier::env::{Caps, MapObj, VerifierInput};

    let rounds: u64 = std::env::var("BPF_MAIN_PASS_FUZZ_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let map = MapDef::new("m", 2, 4, 16, 1);
    let mut decided = 0u64;
    let mut slowest = std::time::Duration::ZERO;
    for round in 0..rounds {
        let len = 4 + (next() % 28) as usize;
        let mut insns: Vec<Insn> = Vec::with_capacity(len + 4);
        // registers that point somewhere useful
        insns.push(Insn::new(0xbf, 6, 1, 0, 0)); // r6 = r1 (ctx)
        insns.push(Insn::new(0x18, 7, 2, 0, 4)); // r7 = map value (fd 4)
        insns.push(Insn::new(0, 0, 0, 0, 0));
        insns.push(Insn::new(0xbf, 8, 10, 0, 0)); // r8 = r10
        while insns.len() < len {
            let at = insns.len() as i64;
            let r = (next() % 10) as u8;
            let q = (next() % 11) as u8;
            let k = [0, 1, -1, 4, 7, 8, 63, 255, -8, -16, 0x7fff_ffff, i32::MIN][(next() % 12) as usize];
            let off = [-8i16, -16, -4, -1, 0, 2, 4, 8, -512, 12][(next() % 10) as usize];
            // mostly short forward jumps (to real insns); sometimes back
            // to a loop head after the setup
            let target = |n: u64| {
                let to = if n.is_multiple_of(5) { 4 + (n / 5) as i64 % (at - 3) } else { (at + 1 + (n / 5) as i64 % 3).min(len as i64 + 1) };
                to - at - 1
            };
            let insn = match next() % 16 {
                0..=3 => {
                    let op = [0x00u8, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0][(next() % 14) as usize];
                    let class = if next() % 3 == 0 { 0x04 } else { 0x07 };
                    let x = next() % 2 == 0;
                    let imm = if op == 0xd0 {
                        [16, 32, 64][(next() % 3) as usize]
                    } else if x || op == 0x80 {
                        0
                    } else {
                        k
                    };
                    let x = x && op != 0x80;
                    let mut i = Insn::new(class | op | if x { 0x08 } else { 0 }, r, if x { q } else { 0 }, 0, imm);
                    if op == 0xb0 && x && next() % 4 == 0 {
                        i.off = [8, 16, 32][(next() % 3) as usize]; // movsx
                    }
                    if matches!(op, 0x30 | 0x90) && next() % 4 == 0 {
                        i.off = 1; // sdiv/smod
                    }
                    i
                }
                4 => Insn::new(0x7b | [0x00, 0x08, 0x10, 0x18][(next() % 4) as usize] & 0x18, [10, 6, 7, 8, r][(next() % 5) as usize], q, off, 0),
                5 => Insn::new(0x61 | [0x00, 0x08, 0x10, 0x18][(next() % 4) as usize], r, [10, 6, 7, 8, q][(next() % 5) as usize], off, 0),
                6 => Insn::new(0x62 | [0x00, 0x08, 0x10, 0x18][(next() % 4) as usize], [10, 7, 8, r][(next() % 4) as usize], 0, off, k),
                7 => {
                    let imm = [0x00, 0x01, 0x40, 0x41, 0x50, 0xa0, 0xe1, 0xf1, 0x100, 0x110][(next() % 10) as usize];
                    Insn::new(0xc3 | if next() % 2 == 0 { 0x18 } else { 0 }, [10, 7, 8, r][(next() % 4) as usize], q, off, imm)
                }
                8..=10 => {
                    let op = [0x10u8, 0x20, 0x30, 0x40, 0x50, 0x60, 0xa0, 0xb0, 0xc0, 0xd0][(next() % 10) as usize];
                    let class = if next() % 3 == 0 { 0x06 } else { 0x05 };
                    let x = next() % 2 == 0;
                    Insn::new(class | op | if x { 0x08 } else { 0 }, r, if x { q } else { 0 }, target(next()) as i16, if x { 0 } else { k })
                }
                11 if next() % 4 == 0 => Insn::new(0x05, 0, 0, target(next()) as i16, 0),
                12 if next() % 2 == 0 => Insn::new(0xe5, 0, 0, target(next()) as i16, 0), // may_goto
                13 => Insn::new(0x61, r, 6, [0, 4, 8, 12, 16, 76, 80][(next() % 7) as usize], 0), // ctx fields
                14 => Insn::new(0xb7, r, 0, 0, k),
                _ => Insn::new(0x0f, r, q, 0, 0),
            };
            insns.push(insn);
        }
        insns.push(Insn::new(0xb7, 0, 0, 0, 0));
        insns.push(Insn::new(0x95, 0, 0, 0, 0));
        let pt = [1u32, 3, 6, 2, 17, 8][(round % 6) as usize];
        let mut input = VerifierInput::new(insns, ProgType(pt), Arch::X86_64);
        input.maps = vec![MapObj { fd: 4, def: map.clone(), id: 1, kaddr: 0xffff_8880_05e7_c000, record: None, inner_record: None }];
        input.log_level = [0, 1, 2][(round % 3) as usize];
        input.log_size = if input.log_level == 0 { 0 } else { 1 << 20 };
        if round % 4 == 3 {
            input.caps = Caps::NONE;
        }
        input.prog_flags = if round % 5 == 0 { 1 << 3 } else { 0 }; // BPF_F_TEST_STATE_FREQ
        let t = std::time::Instant::now();
        let v = bpf_check(&input);
        slowest = slowest.max(t.elapsed());
        // decided by the main pass: some insn processed
        match v {
            Verdict::Decided(d) if d.verified_insns > 0 => decided += 1,
            Verdict::NotModelled { verified_insns, .. } if verified_insns > 0 => decided += 1,
            _ => {}
        }
    }
    eprintln!("{decided} of {rounds} random programs reached the main pass; slowest {slowest:?}");
    assert!(decided * 4 > rounds, "the generator should reach the main pass ({decided})");
}
