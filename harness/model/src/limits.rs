//! The kernel's fixed limits on what a program may be and do, by their
//! names in `include/linux/bpf.h` and `include/linux/bpf_verifier.h` of
//! 7.3; the verifier checks them, the fixups and JITs compile them into
//! the program, and a test run enforces them.
//!
//! `MAX_BPF_STACK` is the instruction set's ([`bpf_isa::insn::MAX_BPF_STACK`]).

/// `BPF_COMPLEXITY_LIMIT_INSNS`: the most insns a privileged program may
/// have, and the most the verifier processes before it gives up.
pub const BPF_COMPLEXITY_LIMIT_INSNS: u32 = 1_000_000;

/// `MAX_CALL_FRAMES`: how deep BPF-to-BPF calls nest (16 in 7.3, 8 before).
pub const MAX_CALL_FRAMES: usize = 16;

/// `BPF_MAX_LOOPS`: the most iterations of `bpf_loop`, of the inlined
/// iterator kfuncs, and the count an untimed `may_goto` loop starts with.
pub const BPF_MAX_LOOPS: u32 = 8 * 1024 * 1024;

/// `BPF_MAX_TIMED_LOOPS`: the turns of a timed `may_goto` loop between two
/// looks at the clock.
pub const BPF_MAX_TIMED_LOOPS: u32 = 0xffff;

/// `MAX_TAIL_CALL_CNT`: the most tail calls one run makes.
pub const MAX_TAIL_CALL_CNT: u32 = 33;
