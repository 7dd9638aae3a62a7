//! The annotations of BPF test programs: one attribute per annotation of the
//! kernel's `tools/testing/selftests/bpf/progs/bpf_misc.h`, plus `subprog`,
//! `map`, `global` and `kernel`.
//!
//! ```ignore
//! use bpf_selftest::prelude::*;
//!
//! #[sec("socket")]
//! #[description("map ptr: negative offset read")]
//! #[failure]
//! #[msg("invalid negative access: off=-8")]
//! fn neg_read() {
//!     bpf_asm!("r1 = %[m] ll; r6 = *(u64 *)(r1 - 8); r0 = 1; exit;", imm_addr(m))
//! }
//!
//! #[map]
//! static m: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
//! ```
//!
//! Whichever attribute of an item expands first reads all of them, in
//! source order, and removes them. A program becomes a static
//! `registry::ProgDecl` holding its section, its annotations as test_loader
//! tag texts (interpreted by the harness's `spec` module) and its body
//! assembled at compile time; it is registered with `inventory`. Misuse is a
//! compile error: `#[jited]` before any `#[arch]`, unknown flags, arches,
//! capabilities or retval names, values test_loader cannot parse, asm that
//! does not assemble (pointing into the string).

mod asm;
mod expand;
mod strlit;
mod tags;

use proc_macro::TokenStream;

macro_rules! attributes {
    ($($(#[$doc:meta])* $name:ident,)*) => {$(
        $(#[$doc])*
        #[proc_macro_attribute]
        pub fn $name(args: TokenStream, item: TokenStream) -> TokenStream {
            expand::expand(stringify!($name), args.into(), item.into()).into()
        }
    )*};
}

attributes! {
    /// `SEC("...")`: the program's ELF section, which gives its program type,
    /// expected attach type and libbpf flags. `#[sec("?raw_tp")]` as in C.
    sec,
    /// A program written in C: `#[object("bpf/prog.bpf.c")]` (compiled with
    /// clang as the kernel's selftests are, for the arch of the run) or
    /// `#[object("bpf/prog.bpf.o")]` (clang's object as it is). The code is
    /// the object's program of the function's name, loaded as libbpf loads
    /// it, with the object's maps and globals; the function's body is `{}`.
    /// A relative path is the crate's (from `CARGO_MANIFEST_DIR`).
    object,
    /// `__success`: the privileged load must succeed.
    success,
    /// `__failure`: the privileged load must fail.
    failure,
    /// `__success_unpriv`: run unprivileged too; the load must succeed.
    success_unpriv,
    /// `__failure_unpriv`: run unprivileged too; the load must fail.
    failure_unpriv,
    /// `__msg("...")`: a pattern the verifier log must contain (substring,
    /// `{{regex}}` parts), after the previous one.
    msg,
    /// `__not_msg("...")`: a pattern the log must not contain between the
    /// neighbouring `#[msg]` matches.
    not_msg,
    /// `__msg_unpriv("...")`.
    msg_unpriv,
    /// `__not_msg_unpriv("...")`.
    not_msg_unpriv,
    /// `__xlated("...")`: a line of the xlated program, on the line after
    /// the previous one unless `#[xlated("...")]` stands between them.
    xlated,
    /// `__xlated_unpriv("...")`.
    xlated_unpriv,
    /// `__jited("...")`: a line of the JIT disassembly, for the arch of the
    /// `#[arch]` above it (each `#[arch]` starts a new block).
    jited,
    /// `__jited_unpriv("...")`.
    jited_unpriv,
    /// `__arch_x86_64`, ...: `#[arch(x86_64, arm64)]` runs the test on these
    /// arches only (x86_64, arm64, riscv64, s390x, loongarch64), each named
    /// once per test. When two or more `#[arch]` blocks carry `#[xlated]`
    /// lines, each block's lines hold on its arches only.
    arch,
    /// `__retval(v)`: run the program (BPF_PROG_TEST_RUN) and compare its
    /// return value: an integer, `POINTER_VALUE` (run, do not compare),
    /// `TEST_DATA_LEN`, `_INT_MIN` or `-E<errno>`.
    retval,
    /// `__retval_unpriv(v)`.
    retval_unpriv,
    /// `__log_level(n)`: the verifier log level.
    log_level,
    /// `__flag(F)`: OR a load flag (`BPF_F_*` name or number); `!F` clears it.
    flag,
    /// `__description("...")`: the display name.
    description,
    /// `__auxiliary`: not a test; loaded alongside the suite's privileged tests.
    auxiliary,
    /// `__auxiliary_unpriv`.
    auxiliary_unpriv,
    /// `__load_if_JITed()`: skip unless the JIT is on.
    load_if_jited,
    /// `__load_if_no_JITed()`: skip unless the JIT is off.
    load_if_no_jited,
    /// `__caps_unpriv(...)`: capabilities kept in the unprivileged run
    /// (`CAP_*` names or numbers).
    caps_unpriv,
    /// `#[kernel("7.3")]`: the oldest kernel the expectations hold for;
    /// real-kernel backends skip the test on older kernels.
    kernel,
    /// `#[attach]`: the program is attached (fentry, fexit, fmod_ret through
    /// `BPF_LINK_CREATE`, raw_tp through `BPF_RAW_TRACEPOINT_OPEN`) before
    /// its test run; `#[attach(a, b)]`: programs `a` and `b` of the suite
    /// are loaded with the same maps and attached before it.
    attach,
    /// `#[run_count(N)]`, `#[run_count(prog = N)]`: the program (or an
    /// attached one) ran N times (`bpf_prog_info.run_cnt`, stats enabled).
    run_count,
    /// `#[recursion_misses(N)]`, `#[recursion_misses(prog = N)]`: runs the
    /// recursion check refused (`bpf_prog_info.recursion_misses`).
    recursion_misses,
    /// `#[global_init(name = value)]`: the global variable holds `value`
    /// before the test run (written through an mmap of its map).
    global_init,
    /// `#[global_after(name = value)]`: the global variable holds `value`
    /// after the test run (read through an mmap of its map).
    global_after,
    /// A subprogram the suite's programs call (`call name` / `imm(name)`):
    /// static by default, `#[subprog(global, nargs = N)]` for a global one.
    subprog,
    /// A map (`SEC(".maps")`): `#[map] static name: Map = Map::new(BPF_MAP_TYPE_HASH, 8, 8, 1);`
    map,
    /// A global variable in `.data`/`.bss` (by its initial value),
    /// `#[global(rodata)]`, or a named section: becomes part of that
    /// section's single-entry array map, as libbpf does.
    global,
}

/// The body of a BPF program or subprogram; only valid there.
#[proc_macro]
pub fn bpf_asm(_input: TokenStream) -> TokenStream {
    "compile_error!(\"bpf_asm! is the body of a function annotated with #[sec(...)] or #[subprog]\");".parse().unwrap_or_default()
}
