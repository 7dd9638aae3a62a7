#![allow(dead_code)] // each target uses its own part
//! What every verifier target checks on one `BPF_PROG_LOAD` through the
//! model: no panic (libFuzzer catches those), a verdict that is
//! consistent with itself, the log within the buffer rules of
//! `kernel/bpf/log.c`, and for an accepted program the JIT of its arch.

use bpf_selftest::map::{MapDef, map_type_by_name};
use bpf_selftest::prog_type::ProgType;
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::env::{Caps, MapObj, VerifierInput};
use bpf_selftest::verifier::{Decision, Verdict, bpf_check};

/// Program types whose ctx the model knows (issue 6's list), plus one it
/// does not (an unknown type must be an error, not a panic).
pub const PROG_TYPES: [u32; 12] = [1, 2, 3, 4, 5, 6, 8, 17, 26, 30, 31, 0x7fff];

/// One array map at fd 4 and one hash map at fd 5, so that `ld_imm64`
/// with src 1 or 2 can find a map.
pub fn maps(arch: Arch) -> Vec<MapObj> {
    let array = MapDef::new("arr", map_type_by_name("array").unwrap(), 4, 48, 4);
    let hash = MapDef::new("h", map_type_by_name("hash").unwrap(), 8, 16, 8);
    let kaddr = |i: u64| bpf_selftest::backend::model::map_kaddr(arch, i as usize);
    vec![
        MapObj { fd: 4, def: array, id: 1, kaddr: kaddr(0) },
        MapObj { fd: 5, def: hash, id: 2, kaddr: kaddr(1) },
    ]
}

/// The load attributes chosen by four config bytes.
pub fn input_from_config(cfg: [u8; 4], insns: Vec<bpf_isa::Insn>) -> VerifierInput {
    let arch = if cfg[3] & 1 == 0 { Arch::X86_64 } else { Arch::Arm64 };
    let prog_type = ProgType(PROG_TYPES[cfg[0] as usize % PROG_TYPES.len()]);
    let mut input = VerifierInput::new(insns, prog_type, arch);
    // levels 0-15: 1, 2, 4 (stats) and 8 (fixed); the rare invalid ones too
    input.log_level = u32::from(cfg[1] & 0x0f) | if cfg[1] == 0xff { 0x100 } else { 0 };
    // a buffer with any level: test_loader's 2 MiB, or a small one that
    // truncates, or none at all (EINVAL with a level)
    input.log_size = match cfg[1] >> 4 {
        _ if input.log_level == 0 && cfg[1] >> 4 != 15 => 0,
        0..=9 => 2 * 1024 * 1024,
        10 => 1,
        11 => 16,
        12 => 128,
        13 => 1000,
        14 => 0,
        _ => u32::MAX,
    };
    // BPF_F_STRICT_ALIGNMENT, ANY_ALIGNMENT, TEST_RND_HI32, TEST_STATE_FREQ,
    // SLEEPABLE, XDP_HAS_FRAGS, TEST_REG_INVARIANTS (0x80), and an
    // undefined bit now and then
    input.prog_flags = u32::from(cfg[2] & 0xbf) | if cfg[2] & 0x40 != 0 { 1 << 20 } else { 0 };
    input.caps = match (cfg[3] >> 1) & 3 {
        0 | 1 => Caps::ALL,
        2 => Caps::NONE,
        _ => Caps { bpf: true, perfmon: true, ..Caps::NONE },
    };
    input.maps = maps(arch);
    input.gpl = cfg[3] & 0x80 == 0;
    input.verification_time_usec = Some(0);
    input
}

/// The whole pipeline on `input`, with its properties asserted; the
/// decision when the model has one.
pub fn load_and_check(input: &VerifierInput) -> Option<Decision> {
    let d = match bpf_check(input) {
        Verdict::Decided(d) => d,
        // a phase the model does not have: an answer, not a crash
        Verdict::NotModelled { .. } => return None,
    };
    assert_eq!(d.accepted, d.errno == 0, "accepted iff errno 0: errno {}", d.errno);
    assert!(d.errno >= 0, "errno is positive: {}", d.errno);
    // the user's buffer holds at most size - 1 bytes and the NUL
    if input.log_size == 0 || input.log_level == 0 {
        assert!(d.log.is_empty() || !d.accepted, "a log without a buffer");
    } else {
        assert!(d.log.len() < input.log_size as usize, "log of {} bytes in a {}-byte buffer", d.log.len(), input.log_size);
        // a log that did not fit fails the load with ENOSPC
        if d.accepted {
            assert!(d.log_true_size <= input.log_size, "accepted with a truncated log ({} > {})", d.log_true_size, input.log_size);
        }
    }
    if d.accepted {
        assert!(!d.xlated.is_empty(), "accepted without insns");
        if input.arch.has_jit() {
            // the xlated program through the arch's JIT (both JITs over a run)
            if let Err(e) = bpf_selftest::jit::jit_xlated_dump(input.arch, &d.xlated, &d.subprogs, input.prog_type.0) {
                panic!("JIT of an accepted program: {e}");
            }
        }
    }
    Some(d)
}
