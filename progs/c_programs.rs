//! Programs written in C (`progs/bpf/c_programs.bpf.c`), each declared here
//! by `#[object]` with its expectations: the runner compiles the source with
//! clang for the arch of the run, as the kernel's selftests are compiled,
//! and loads each program as libbpf does, with the object's BTF (func_info,
//! line_info, typed global functions), its `.maps` (a hash of a struct),
//! its `.rodata`/`.data`/`.bss` maps and its CO-RE relocations resolved
//! against the 7.3 image's BTF.

use bpf_selftest::prelude::*;

/// A `const volatile` array in `.rodata`, summed by an unrolled loop.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[retval(36)]
fn sum_rodata() {}

/// `.bss` and `.data` written and read back; the test run's skb->len is 50.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[log_level(2)]
#[msg("; runs += 2; @ c_programs.bpf.c:37")]
#[msg("; last_len = skb->len; @ c_programs.bpf.c:38")]
#[retval(52)]
fn count_runs() {}

/// A hash map whose value is a struct (BTF key and value types): update,
/// lookup, increment through the pointer.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[retval(250)]
fn stats_update() {}

/// A load one `__u64` past the 16-byte value.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[failure]
#[msg("10: (79) r0 = *(u64 *)(r1 +16)")]
#[msg("invalid access to map value, value_size=16 off=16 size=8")]
fn stats_past_value() {}

/// The lookup's result dereferenced without a NULL check, with the line
/// of C it came from.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[failure]
#[msg("; return s->packets; @ c_programs.bpf.c:77")]
#[msg("R0 invalid mem access 'map_value_or_null'")]
fn stats_unchecked() {}

/// A global function verified once against its BTF prototype (a pointer
/// to a struct it may be given as NULL), called with a stack struct.
#[sec("tc")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[log_level(2)]
#[msg("Validating pair_sum() func#1...")]
#[retval(42)]
fn global_func_arg() {}

/// The same global function handed the ctx: not the memory its prototype
/// asks for.
#[sec("tc")]
#[object("progs/bpf/c_programs.bpf.c")]
#[failure]
#[msg("R1 type=ctx expected=fp")]
#[msg("Caller passes invalid args into func#1 ('pair_sum')")]
fn global_func_ctx_arg() {}

/// `bpf_core_field_exists` relocated against the image's BTF: constants.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[xlated("0: r1 = 1")]
#[xlated("1: r0 = 1")]
#[retval(3)]
fn core_field_exists() {}

/// An array of maps whose slot 1 libbpf fills with an inner array
/// (`.values = { [1] = &inner_map }`): slot 0 is empty, slot 1's map
/// holds the value the program adds to.
#[sec("socket")]
#[object("progs/bpf/c_programs.bpf.c")]
#[success]
#[retval(42)]
fn inner_map_slot() {}
