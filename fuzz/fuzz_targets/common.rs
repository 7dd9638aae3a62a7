#![allow(dead_code)] // each target uses its own part
//! What every verifier target checks on one `BPF_PROG_LOAD` through the
//! model: no panic (libFuzzer catches those), a verdict that is
//! consistent with itself, the log within the buffer rules of
//! `kernel/bpf/log.c`, and for an accepted program the JIT of its arch.

use bpf_selftest::load::bpf_check;
use bpf_selftest::map::{MapDef, map_type_by_name};
use bpf_selftest::target::Arch;
use bpf_selftest::verifier::env::{Caps, MapObj, VerifierInput};
use bpf_selftest::verifier::{Decision, Verdict};

/// One array map at fd 4 and one hash map at fd 5, so that `ld_imm64`
/// with src 1 or 2 can find a map.
pub fn maps(arch: Arch) -> Vec<MapObj> {
    let array = MapDef::new("arr", map_type_by_name("array").unwrap(), 4, 48, 4);
    let hash = MapDef::new("h", map_type_by_name("hash").unwrap(), 8, 16, 8);
    let kaddr = |i: u64| bpf_selftest::map::map_kaddr(arch, i as usize);
    vec![
        MapObj { fd: 4, def: array, id: 1, kaddr: kaddr(0), record: None, inner_record: None },
        MapObj { fd: 5, def: hash, id: 2, kaddr: kaddr(1), record: None, inner_record: None },
    ]
}

/// The load attributes chosen by four config bytes
/// ([`bpf_selftest::recorded::fuzz_regressions::Config`], which the
/// recorder of the fuzz regressions reads the same way).
pub fn input_from_config(cfg: [u8; 4], insns: Vec<bpf_isa::Insn>) -> VerifierInput {
    use bpf_selftest::recorded::fuzz_regressions::{Config, Privilege};
    let c = Config::from_bytes(cfg);
    let mut input = VerifierInput::new(insns, c.prog_type, c.arch);
    // levels 0-15: 1, 2, 4 (stats) and 8 (fixed); the rare invalid ones too
    input.log_level = c.log_level;
    // a buffer with any level: test_loader's 2 MiB, or a small one that
    // truncates, or none at all (EINVAL with a level)
    input.log_size = c.log_size;
    // BPF_F_STRICT_ALIGNMENT, ANY_ALIGNMENT, TEST_RND_HI32, TEST_STATE_FREQ,
    // SLEEPABLE, XDP_HAS_FRAGS, TEST_REG_INVARIANTS (0x80), and an
    // undefined bit now and then
    input.prog_flags = c.prog_flags;
    input.caps = match c.privilege {
        Privilege::Root => Caps::ALL,
        Privilege::Unprivileged => Caps::NONE,
        Privilege::BpfPerfmon => Caps { bpf: true, perfmon: true, ..Caps::NONE },
    };
    input.maps = maps(c.arch);
    input.gpl = c.gpl;
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
            if let Err(e) = bpf_selftest::jit::jit_xlated(input.arch, &d.xlated_as_run(), &d.subprogs, input.prog_type.0) {
                panic!("JIT of an accepted program: {e}");
            }
        }
    }
    Some(d)
}
