//! A program's test spec, from its annotations, with test_loader's rules
//! (`parse_test_spec` in `tools/testing/selftests/bpf/test_loader.c`).
//!
//! The attributes are recorded by the macro as an ordered list of raw tags,
//! the texts the kernel's `bpf_misc.h` puts in BTF decl tags:
//!
//! | attribute | tag |
//! |---|---|
//! | `#[success]` / `#[failure]` | `test_expect_success` / `test_expect_failure` |
//! | `#[success_unpriv]` / `#[failure_unpriv]` | `test_expect_success_unpriv` / `test_expect_failure_unpriv` |
//! | `#[msg(s)]` / `#[not_msg(s)]` (`_unpriv`) | `test_expect_msg=s` / `test_expect_not_msg=s` (`test_expect_msg_unpriv=s`, ...) |
//! | `#[xlated(s)]` (`_unpriv`) | `test_expect_xlated=s` (`test_expect_xlated_unpriv=s`) |
//! | `#[jited(s)]` (`_unpriv`) | `test_jited=s` (`test_jited_unpriv=s`) |
//! | `#[retval(v)]` (`_unpriv`) | `test_retval=v` (`test_retval_unpriv=v`), `v` as the C preprocessor leaves it |
//! | `#[description(s)]` | `test_description=s` |
//! | `#[log_level(n)]` | `test_log_level=n` |
//! | `#[flag(F)]`, `#[flag(!F)]` | `test_prog_flags=F`, `test_prog_flags=!F` |
//! | `#[auxiliary]` (`_unpriv`) | `test_auxiliary` (`test_auxiliary_unpriv`) |
//! | `#[arch(x86_64, arm64)]` ... | `test_arch_block` (ours), then `test_arch=X86_64`, `test_arch=ARM64` (`RISCV64`, `s390x`, `LOONGARCH`) |
//! | `#[caps_unpriv(CAP_BPF)]` | `test_caps_unpriv=39` (decimal numbers joined by `\|`) |
//! | `#[load_if_jited]` / `#[load_if_no_jited]` | `load_mode=jited` / `load_mode=no_jited` |
//! | `#[kernel("7.3")]` (ours) | `test_kernel_min=7.3` |
//!
//! Decisions on the quirks of reference §9 that live here:
//!
//! * §9.1 order: the macro emits the tags in attribute order, so there is no
//!   `comment:<N>:` counter to sort by and no legacy encoding to skip. An
//!   unknown tag is an error (the kernel ignores it silently; here only the
//!   macro writes tags, so an unknown one is a bug worth hearing about).
//! * §9.2 inheritance: replicated exactly. The unpriv run inherits the priv
//!   result and retval unless overridden, and each pattern list only when its
//!   unpriv list is empty: one `#[msg_unpriv]` drops every inherited `#[msg]`
//!   and `#[not_msg]`.
//! * §9.3 `#[jited]` needs an earlier `#[arch]` (the macro rejects it at
//!   compile time; here it is a spec error as in the kernel), and only the
//!   block of the target arch is collected and sets the mode bit: replicated.
//! * §9.11 `BPF_F_TEST_RND_HI32 | BPF_F_TEST_REG_INVARIANTS` are in every
//!   spec's flags, as `testing_prog_flags()` gives them on kernels that
//!   accept both (7.3 does); `#[flag(!...)]` clears them.
//! * `#[xlated]` scoped by `#[arch]` (ours, see [`xlated_blocks`]): the
//!   macro opens each `#[arch]` attribute's tags with `test_arch_block`.
//!   When two or more such blocks carry `#[xlated]` lines, each block's
//!   lines hold on its arches only; otherwise every line holds on every
//!   arch, as in test_loader. Kernel tags (the importer's) have no
//!   `test_arch_block` and keep the kernel's meaning.
//! * `parse_int` is replicated (lower-case `0x` hex or decimal, truncated to
//!   a C int, so `0xfffffffe` is -2 and `-0x10` fails); so is `_INT_MIN`.

use std::fmt;

use crate::matcher::ExpectedMsgs;
use crate::prog_type::{self, SecDef};
use crate::target::Arch;

/// The load flags test_loader's `__flag()` tags name.
pub use crate::uapi::prog_flags::{
    BPF_F_ANY_ALIGNMENT, BPF_F_SLEEPABLE, BPF_F_STRICT_ALIGNMENT, BPF_F_TEST_REG_INVARIANTS, BPF_F_TEST_RND_HI32, BPF_F_TEST_STATE_FREQ, BPF_F_XDP_HAS_FRAGS,
};

/// `testing_prog_flags()` on a kernel that accepts both test flags.
pub const TESTING_PROG_FLAGS: u32 = BPF_F_TEST_RND_HI32 | BPF_F_TEST_REG_INVARIANTS;

/// `__retval(POINTER_VALUE)`: run, but do not compare the return value.
pub const POINTER_VALUE: i32 = 0xbadcafe;
/// `TEST_DATA_LEN`: the size of test_loader's `data_in`.
pub const TEST_DATA_LEN: i32 = 64;

/// Which runs a spec asks for (`enum mode`).
pub const PRIV: u8 = 1;
pub const UNPRIV: u8 = 2;

/// `enum load_mode`.
pub const JITED: u8 = 1 << 0;
pub const NO_JITED: u8 = 1 << 1;

/// The name test_loader's `__arch_*` tags give an arch.
pub fn arch_tag(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "X86_64",
        Arch::Arm64 => "ARM64",
        Arch::Riscv64 => "RISCV64",
        Arch::S390x => "s390x",
        Arch::Loongarch64 => "LOONGARCH",
    }
}

fn arch_from_tag(s: &str) -> Option<Arch> {
    Arch::ALL.into_iter().find(|a| arch_tag(*a) == s)
}

/// A kernel version, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KernelVersion(pub u32, pub u32, pub u32);

impl KernelVersion {
    /// From `7.3`, `7.3.4`, or a release string such as `6.18.0-1-amd64` or
    /// `7.3.4+deb13-amd64` (the leading numbers count).
    pub fn parse(s: &str) -> Option<KernelVersion> {
        let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
        let mut parts = s[..end].split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some("") | None => 0,
            Some(p) => p.parse().ok()?,
        };
        Some(KernelVersion(major, minor, patch))
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.2 == 0 { write!(f, "{}.{}", self.0, self.1) } else { write!(f, "{}.{}.{}", self.0, self.1, self.2) }
    }
}

/// One run of a program (`struct test_subspec`).
#[derive(Clone, Debug, Default)]
pub struct Subspec {
    /// `prog` or `prog @unpriv`.
    pub name: String,
    pub description: Option<String>,
    pub expect_failure: bool,
    pub expect_msgs: ExpectedMsgs,
    pub expect_xlated: ExpectedMsgs,
    pub jited: ExpectedMsgs,
    pub retval: i32,
    pub execute: bool,
    /// Capabilities given back in the unpriv run (bit n = capability n).
    pub caps: u64,
}

impl Subspec {
    /// The capability numbers of `caps`.
    pub fn cap_numbers(&self) -> Vec<u32> {
        (0..64).filter(|n| self.caps & (1u64 << n) != 0).collect()
    }
}

/// A program's spec (`struct test_spec`) for one target arch.
#[derive(Clone, Debug)]
pub struct TestSpec {
    pub prog_name: String,
    /// The SEC() name and what libbpf makes of it.
    pub sec: String,
    pub sec_def: SecDef,
    pub privileged: Subspec,
    pub unpriv: Subspec,
    pub log_level: i32,
    /// `testing_prog_flags()` with the `#[flag]`s applied (libbpf's SEC
    /// flags are added at load time).
    pub prog_flags: u32,
    /// `PRIV | UNPRIV`.
    pub mode_mask: u8,
    /// The arches named by `#[arch]`; empty = all.
    pub arches: Vec<Arch>,
    /// `JITED | NO_JITED`.
    pub load_mask: u8,
    pub auxiliary: bool,
    /// `#[kernel("7.3")]`: the oldest kernel the test is meant for.
    pub min_kernel: Option<KernelVersion>,
    /// What surrounds the privileged test run (ours; see [`RunExpect`]).
    pub run: RunExpect,
}

/// The attributes of a test run's surroundings (ours, no test_loader
/// counterpart): attached programs, run counters, global variables. They
/// ask for a test run of the privileged load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunExpect {
    /// `#[attach]`: the program itself is attached.
    pub attach_self: bool,
    /// `#[attach(a, b)]`: programs of the suite attached before the run.
    pub attach: Vec<String>,
    /// `#[run_count]`: (the program, `None` for itself; runs).
    pub run_counts: Vec<(Option<String>, u64)>,
    /// `#[recursion_misses]`: (the program; misses).
    pub recursion_misses: Vec<(Option<String>, u64)>,
    /// `#[global_init(name = value)]`.
    pub global_init: Vec<(String, i128)>,
    /// `#[global_after(name = value)]`.
    pub global_after: Vec<(String, i128)>,
}

impl RunExpect {
    pub fn is_empty(&self) -> bool {
        *self == RunExpect::default()
    }
}

/// `N` or `prog=N` of `#[run_count]` / `#[recursion_misses]`.
fn parse_counter(v: &str, what: &str) -> Result<(Option<String>, u64), SpecError> {
    let (prog, n) = match v.split_once('=') {
        Some((p, n)) => (Some(p.to_string()), n),
        None => (None, v),
    };
    let n = parse_u64(n).ok_or_else(|| SpecError(format!("failed to parse {what} from '{v}'")))?;
    Ok((prog, n))
}

/// A decimal or `0x` hex value, optionally negative, for a global.
fn parse_value(v: &str) -> Option<i128> {
    let (neg, t) = match v.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, v),
    };
    let n = parse_u64(t)? as i128;
    Some(if neg { -n } else { n })
}

fn parse_u64(t: &str) -> Option<u64> {
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

/// `name=value` of `#[global_init]` / `#[global_after]`.
fn parse_global(v: &str, what: &str) -> Result<(String, i128), SpecError> {
    let bad = || SpecError(format!("failed to parse {what} from '{v}'"));
    let (name, value) = v.split_once('=').ok_or_else(bad)?;
    Ok((name.to_string(), parse_value(value).ok_or_else(bad)?))
}

impl TestSpec {
    pub fn runs_on(&self, arch: Arch) -> bool {
        self.arches.is_empty() || self.arches.contains(&arch)
    }

    pub fn subspec(&self, unpriv: bool) -> &Subspec {
        if unpriv { &self.unpriv } else { &self.privileged }
    }
}

/// Why a spec could not be parsed (the kernel's "Can't parse test spec").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// `parse_int`: lower-case `0x` hex or decimal (sign and leading blanks
/// allowed, as strtol takes them), the whole text, truncated to a C int.
pub fn parse_int(s: &str, name: &str) -> Result<i32, SpecError> {
    let fail = || SpecError(format!("failed to parse {name} from '{s}'"));
    let (digits, radix) = match s.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    let t = digits.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if t.is_empty() || !t.chars().all(|c| c.is_digit(radix)) {
        return Err(fail());
    }
    // strtol into a 64-bit long: out of range is ERANGE.
    let v = i128::from_str_radix(t, radix).map_err(|_| fail())?;
    let v = if neg { -v } else { v };
    if v < i64::MIN as i128 || v > i64::MAX as i128 {
        return Err(fail());
    }
    Ok(v as i64 as i32)
}

/// `parse_retval`: `_INT_MIN`, else `parse_int`.
pub fn parse_retval(s: &str, name: &str) -> Result<i32, SpecError> {
    if s == "_INT_MIN" { Ok(i32::MIN) } else { parse_int(s, name) }
}

fn parse_caps(s: &str) -> Result<u64, SpecError> {
    let mut caps = 0u64;
    for tok in s.split('|') {
        if tok.starts_with("CAP_") {
            return Err(SpecError(format!("caps_unpriv: unknown capability {tok}")));
        }
        match tok.trim().parse::<u32>() {
            Ok(n) if n > 0 && n < 64 => caps |= 1u64 << n,
            _ => return Err(SpecError(format!("failed to parse caps from '{s}'"))),
        }
    }
    Ok(caps)
}

fn prog_flag_by_tag(name: &str) -> Option<u32> {
    Some(match name {
        "BPF_F_STRICT_ALIGNMENT" => BPF_F_STRICT_ALIGNMENT,
        "BPF_F_ANY_ALIGNMENT" => BPF_F_ANY_ALIGNMENT,
        "BPF_F_TEST_RND_HI32" => BPF_F_TEST_RND_HI32,
        "BPF_F_TEST_STATE_FREQ" => BPF_F_TEST_STATE_FREQ,
        "BPF_F_SLEEPABLE" => BPF_F_SLEEPABLE,
        "BPF_F_XDP_HAS_FRAGS" => BPF_F_XDP_HAS_FRAGS,
        "BPF_F_TEST_REG_INVARIANTS" => BPF_F_TEST_REG_INVARIANTS,
        _ => return None,
    })
}

/// The tag an `#[arch(...)]` attribute starts with: the `test_arch=` tags
/// after it, up to the next other tag, are the arches that block names.
pub const ARCH_BLOCK_TAG: &str = "test_arch_block";

fn is_xlated_tag(tag: &str) -> bool {
    tag.starts_with("test_expect_xlated=") || tag.starts_with("test_expect_xlated_unpriv=")
}

/// An `#[arch]` block's arches and the indexes of its xlated tags.
pub type XlatedBlock = (Vec<Arch>, Vec<usize>);

/// The `#[arch]` blocks of a tag list that carry `#[xlated]` or
/// `#[xlated_unpriv]` lines, when there are two or more of them: for each,
/// the arches it names and the indexes of its xlated tags. Empty when the
/// list's xlated lines are not scoped by arch: none or one carrying block,
/// or kernel tags. This project's extension of test_loader, which scopes
/// only `__jited` by `__arch_*`.
pub fn xlated_blocks(tags: &[&str]) -> Result<Vec<XlatedBlock>, SpecError> {
    let mut blocks: Vec<XlatedBlock> = Vec::new();
    let mut naming = false;
    for (k, t) in tags.iter().enumerate() {
        if *t == ARCH_BLOCK_TAG {
            blocks.push((Vec::new(), Vec::new()));
            naming = true;
            continue;
        }
        match t.strip_prefix("test_arch=") {
            Some(v) if naming => {
                let a = arch_from_tag(v).ok_or_else(|| SpecError(format!("bad arch spec: '{v}'")))?;
                blocks.last_mut().expect("naming follows a block tag").0.push(a);
                continue;
            }
            _ => naming = false,
        }
        if is_xlated_tag(t)
            && let Some(b) = blocks.last_mut()
        {
            b.1.push(k);
        }
    }
    blocks.retain(|b| !b.1.is_empty());
    if blocks.len() < 2 {
        blocks.clear();
    }
    for (i, b) in blocks.iter().enumerate() {
        if let Some(a) = b.0.iter().find(|a| blocks[..i].iter().any(|o| o.0.contains(a))) {
            return Err(SpecError(format!("arch {a} is named by two #[arch] blocks with #[xlated] lines")));
        }
    }
    Ok(blocks)
}

/// Parses the spec of program `prog_name` in section `sec` from its tags,
/// for a run on `arch` (which selects the `#[jited]` block and, where
/// `#[arch]` blocks scope them, the `#[xlated]` lines: [`xlated_blocks`]).
pub fn parse_test_spec(prog_name: &str, sec: &str, tags: &[&str], arch: Arch) -> Result<TestSpec, SpecError> {
    let sec_def = prog_type::sec_def(sec).ok_or_else(|| SpecError(format!("SEC(\"{sec}\"): libbpf knows no such section")))?;
    let mut spec = TestSpec {
        prog_name: prog_name.to_string(),
        sec: sec.to_string(),
        sec_def,
        privileged: Subspec::default(),
        unpriv: Subspec::default(),
        log_level: 0,
        prog_flags: TESTING_PROG_FLAGS,
        mode_mask: 0,
        arches: Vec::new(),
        load_mask: 0,
        auxiliary: false,
        min_kernel: None,
        run: RunExpect::default(),
    };
    let mut description: Option<&str> = None;
    let mut has_unpriv_result = false;
    let mut has_unpriv_retval = false;
    let mut xlated_on_next_line = true;
    let mut unpriv_xlated_on_next_line = true;
    let mut jit_on_next_line = true;
    let mut unpriv_jit_on_next_line = true;
    let mut collect_jit = false;
    let e = |r: Result<(), String>| r.map_err(SpecError);
    let off_arch: Vec<usize> = xlated_blocks(tags)?.into_iter().filter(|(arches, _)| !arches.contains(&arch)).flat_map(|(_, lines)| lines).collect();

    for (k, tag) in tags.iter().enumerate() {
        let s = *tag;
        if off_arch.contains(&k) {
            // another arch's #[xlated] block
            continue;
        }
        if s == ARCH_BLOCK_TAG {
            // the test_arch= tags after it do the gating and `#[jited]` blocks
        } else if let Some(v) = s.strip_prefix("test_description=") {
            description = Some(v);
        } else if s == "test_expect_failure" {
            spec.privileged.expect_failure = true;
            spec.mode_mask |= PRIV;
        } else if s == "test_expect_success" {
            spec.privileged.expect_failure = false;
            spec.mode_mask |= PRIV;
        } else if s == "test_expect_failure_unpriv" {
            spec.unpriv.expect_failure = true;
            spec.mode_mask |= UNPRIV;
            has_unpriv_result = true;
        } else if s == "test_expect_success_unpriv" {
            spec.unpriv.expect_failure = false;
            spec.mode_mask |= UNPRIV;
            has_unpriv_result = true;
        } else if s == "test_auxiliary" {
            spec.auxiliary = true;
            spec.mode_mask |= PRIV;
        } else if s == "test_auxiliary_unpriv" {
            spec.auxiliary = true;
            spec.mode_mask |= UNPRIV;
        } else if let Some(m) = s.strip_prefix("test_expect_msg=") {
            e(spec.privileged.expect_msgs.push_msg(m, false))?;
            spec.mode_mask |= PRIV;
        } else if let Some(m) = s.strip_prefix("test_expect_not_msg=") {
            e(spec.privileged.expect_msgs.push_msg(m, true))?;
            spec.mode_mask |= PRIV;
        } else if let Some(m) = s.strip_prefix("test_expect_msg_unpriv=") {
            e(spec.unpriv.expect_msgs.push_msg(m, false))?;
            spec.mode_mask |= UNPRIV;
        } else if let Some(m) = s.strip_prefix("test_expect_not_msg_unpriv=") {
            e(spec.unpriv.expect_msgs.push_msg(m, true))?;
            spec.mode_mask |= UNPRIV;
        } else if let Some(m) = s.strip_prefix("test_jited=") {
            if spec.arches.is_empty() {
                return Err(SpecError("__jited used before __arch_*".into()));
            }
            if collect_jit {
                e(spec.privileged.jited.push_disasm_msg(m, &mut jit_on_next_line))?;
                spec.mode_mask |= PRIV;
            }
        } else if let Some(m) = s.strip_prefix("test_jited_unpriv=") {
            if spec.arches.is_empty() {
                return Err(SpecError("__jited_unpriv used before __arch_*".into()));
            }
            if collect_jit {
                e(spec.unpriv.jited.push_disasm_msg(m, &mut unpriv_jit_on_next_line))?;
                spec.mode_mask |= UNPRIV;
            }
        } else if let Some(m) = s.strip_prefix("test_expect_xlated=") {
            e(spec.privileged.expect_xlated.push_disasm_msg(m, &mut xlated_on_next_line))?;
            spec.mode_mask |= PRIV;
        } else if let Some(m) = s.strip_prefix("test_expect_xlated_unpriv=") {
            e(spec.unpriv.expect_xlated.push_disasm_msg(m, &mut unpriv_xlated_on_next_line))?;
            spec.mode_mask |= UNPRIV;
        } else if let Some(v) = s.strip_prefix("test_retval=") {
            spec.privileged.retval = parse_retval(v, "__retval")?;
            spec.privileged.execute = true;
            spec.mode_mask |= PRIV;
        } else if let Some(v) = s.strip_prefix("test_retval_unpriv=") {
            spec.unpriv.retval = parse_retval(v, "__retval_unpriv")?;
            spec.unpriv.execute = true;
            spec.mode_mask |= UNPRIV;
            has_unpriv_retval = true;
        } else if let Some(v) = s.strip_prefix("test_log_level=") {
            spec.log_level = parse_int(v, "test log level")?;
        } else if let Some(v) = s.strip_prefix("test_prog_flags=") {
            let (clear, v) = match v.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, v),
            };
            let flag = match prog_flag_by_tag(v) {
                Some(f) => f,
                None => parse_int(v, "test prog flags")? as u32,
            };
            if clear {
                spec.prog_flags &= !flag;
            } else {
                spec.prog_flags |= flag;
            }
        } else if let Some(v) = s.strip_prefix("test_arch=") {
            let a = arch_from_tag(v).ok_or_else(|| SpecError(format!("bad arch spec: '{v}'")))?;
            if !spec.arches.contains(&a) {
                spec.arches.push(a);
            }
            collect_jit = a == arch;
            jit_on_next_line = true;
            unpriv_jit_on_next_line = true;
        } else if let Some(v) = s.strip_prefix("test_caps_unpriv=") {
            spec.unpriv.caps |= parse_caps(v)?;
            spec.mode_mask |= UNPRIV;
        } else if let Some(v) = s.strip_prefix("load_mode=") {
            spec.load_mask = match v {
                "jited" => JITED,
                "no_jited" => NO_JITED,
                _ => return Err(SpecError(format!("bad load spec: '{v}'"))),
            };
        } else if let Some(v) = s.strip_prefix("test_kernel_min=") {
            spec.min_kernel = Some(KernelVersion::parse(v).ok_or_else(|| SpecError(format!("bad kernel version: '{v}'")))?);
        } else if s == "test_attach" {
            spec.run.attach_self = true;
        } else if let Some(v) = s.strip_prefix("test_attach_prog=") {
            spec.run.attach.push(v.to_string());
        } else if let Some(v) = s.strip_prefix("test_run_count=") {
            spec.run.run_counts.push(parse_counter(v, "run count")?);
        } else if let Some(v) = s.strip_prefix("test_recursion_misses=") {
            spec.run.recursion_misses.push(parse_counter(v, "recursion misses")?);
        } else if let Some(v) = s.strip_prefix("test_global_init=") {
            spec.run.global_init.push(parse_global(v, "global_init")?);
        } else if let Some(v) = s.strip_prefix("test_global_after=") {
            spec.run.global_after.push(parse_global(v, "global_after")?);
        } else {
            return Err(SpecError(format!("unknown test tag '{s}'")));
        }
    }

    if spec.load_mask == 0 {
        spec.load_mask = JITED | NO_JITED;
    }
    if spec.mode_mask == 0 {
        spec.mode_mask = PRIV;
    }
    if !spec.run.is_empty() {
        // the surroundings are of the privileged run's test run; without
        // a #[retval] its return value is not compared
        spec.mode_mask |= PRIV;
        if !spec.privileged.execute {
            spec.privileged.execute = true;
            spec.privileged.retval = POINTER_VALUE;
        }
    }
    spec.privileged.name = prog_name.to_string();
    spec.privileged.description = description.map(str::to_string);
    spec.unpriv.name = format!("{prog_name} @unpriv");
    spec.unpriv.description = description.map(|d| format!("{d} @unpriv"));

    if !has_unpriv_result {
        spec.unpriv.expect_failure = spec.privileged.expect_failure;
    }
    if !has_unpriv_retval {
        spec.unpriv.retval = spec.privileged.retval;
        spec.unpriv.execute = spec.privileged.execute;
    }
    let p = &spec.privileged;
    let u = &mut spec.unpriv;
    if u.expect_msgs.is_empty() {
        u.expect_msgs = p.expect_msgs.clone();
    }
    if u.expect_xlated.is_empty() {
        u.expect_xlated = p.expect_xlated.clone();
    }
    if u.jited.is_empty() {
        u.jited = p.jited.clone();
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(tags: &[&str]) -> TestSpec {
        parse_test_spec("p", "socket", tags, Arch::X86_64).unwrap()
    }

    fn err(tags: &[&str]) -> String {
        parse_test_spec("p", "socket", tags, Arch::X86_64).unwrap_err().0
    }

    #[test]
    fn defaults() {
        let s = spec(&[]);
        assert_eq!(s.mode_mask, PRIV);
        assert_eq!(s.load_mask, JITED | NO_JITED);
        assert!(s.arches.is_empty() && s.runs_on(Arch::Riscv64));
        assert_eq!(s.prog_flags, BPF_F_TEST_RND_HI32 | BPF_F_TEST_REG_INVARIANTS);
        assert_eq!(s.privileged.name, "p");
        assert_eq!(s.unpriv.name, "p @unpriv");
        assert!(!s.privileged.expect_failure && !s.privileged.execute);
        assert_eq!(s.sec_def.prog_type, prog_type::SOCKET_FILTER);
    }

    #[test]
    fn run_surroundings() {
        let s = spec(&[
            "test_attach",
            "test_attach_prog=a",
            "test_run_count=2",
            "test_run_count=a=1",
            "test_recursion_misses=a=0x1",
            "test_global_init=x=-5",
            "test_global_after=y=0xff",
        ]);
        assert!(s.run.attach_self);
        assert_eq!(s.run.attach, ["a"]);
        assert_eq!(s.run.run_counts, [(None, 2), (Some("a".to_string()), 1)]);
        assert_eq!(s.run.recursion_misses, [(Some("a".to_string()), 1)]);
        assert_eq!(s.run.global_init, [("x".to_string(), -5)]);
        assert_eq!(s.run.global_after, [("y".to_string(), 255)]);
        // a run without a retval to compare
        assert!(s.privileged.execute && s.privileged.retval == POINTER_VALUE);
        assert!(err(&["test_run_count=a=x"]).contains("run count"));
        assert!(err(&["test_global_after=y"]).contains("global_after"));
    }

    #[test]
    fn modes() {
        assert_eq!(spec(&["test_expect_failure"]).mode_mask, PRIV);
        assert_eq!(spec(&["test_expect_failure_unpriv"]).mode_mask, UNPRIV);
        assert_eq!(spec(&["test_expect_success", "test_expect_success_unpriv"]).mode_mask, PRIV | UNPRIV);
        assert_eq!(spec(&["test_caps_unpriv=39"]).mode_mask, UNPRIV);
        assert_eq!(spec(&["test_expect_msg_unpriv=x"]).mode_mask, UNPRIV);
        // description, flags, log level, arch ask for no run: priv by default.
        assert_eq!(spec(&["test_description=d", "test_log_level=2", "test_arch=X86_64"]).mode_mask, PRIV);
    }

    #[test]
    fn unpriv_inherits_result_retval_and_lists() {
        let s = spec(&["test_expect_failure"]);
        assert!(s.unpriv.expect_failure);
        let s = spec(&["test_expect_failure", "test_expect_success_unpriv", "test_retval=3", "test_expect_msg=a", "test_expect_not_msg=b"]);
        assert!(s.privileged.expect_failure && !s.unpriv.expect_failure);
        assert_eq!((s.unpriv.retval, s.unpriv.execute), (3, true));
        assert_eq!(s.unpriv.expect_msgs.len(), 2);
        assert!(s.unpriv.expect_msgs.patterns[1].negative);
    }

    #[test]
    fn one_unpriv_msg_drops_every_inherited_msg() {
        let s = spec(&["test_expect_msg=a", "test_expect_not_msg=b", "test_expect_msg_unpriv=c"]);
        let u: Vec<_> = s.unpriv.expect_msgs.patterns.iter().map(|p| p.pattern.as_str()).collect();
        assert_eq!(u, ["c"]);
        assert_eq!(s.privileged.expect_msgs.len(), 2);
    }

    #[test]
    fn unpriv_retval_overrides() {
        let s = spec(&["test_retval=1", "test_retval_unpriv=2"]);
        assert_eq!((s.privileged.retval, s.unpriv.retval), (1, 2));
    }

    #[test]
    fn description_suffix() {
        let s = spec(&["test_description=first", "test_description=last"]);
        assert_eq!(s.privileged.description.as_deref(), Some("last"));
        assert_eq!(s.unpriv.description.as_deref(), Some("last @unpriv"));
    }

    #[test]
    fn xlated_line_rule() {
        let s = spec(&["test_expect_xlated=a", "test_expect_xlated=...", "test_expect_xlated=b", "test_expect_xlated=c"]);
        let l: Vec<_> = s.privileged.expect_xlated.patterns.iter().map(|p| (p.pattern.as_str(), p.on_next_line)).collect();
        assert_eq!(l, [("a", true), ("b", false), ("c", true)]);
    }

    #[test]
    fn jited_needs_arch_and_collects_the_running_block() {
        assert_eq!(err(&["test_jited=x"]), "__jited used before __arch_*");
        let tags = ["test_arch=X86_64", "test_jited=x86 a", "test_jited=...", "test_jited=x86 b", "test_arch=ARM64", "test_jited=arm a"];
        let x = parse_test_spec("p", "socket", &tags, Arch::X86_64).unwrap();
        let l: Vec<_> = x.privileged.jited.patterns.iter().map(|p| (p.pattern.as_str(), p.on_next_line)).collect();
        assert_eq!(l, [("x86 a", true), ("x86 b", false)]);
        let a = parse_test_spec("p", "socket", &tags, Arch::Arm64).unwrap();
        let l: Vec<_> = a.privileged.jited.patterns.iter().map(|p| (p.pattern.as_str(), p.on_next_line)).collect();
        assert_eq!(l, [("arm a", true)]);
        assert_eq!(a.arches, [Arch::X86_64, Arch::Arm64]);
        // On another arch nothing is collected; the arch mask skips it anyway.
        let r = parse_test_spec("p", "socket", &tags, Arch::Riscv64).unwrap();
        assert!(r.privileged.jited.is_empty() && !r.runs_on(Arch::Riscv64));
        // A jited pattern outside the running block does not ask for a run.
        let t = ["test_arch=ARM64", "test_jited_unpriv=x"];
        assert_eq!(parse_test_spec("p", "socket", &t, Arch::X86_64).unwrap().mode_mask, PRIV);
        assert_eq!(parse_test_spec("p", "socket", &t, Arch::Arm64).unwrap().mode_mask, UNPRIV);
    }

    fn xlated_of(tags: &[&str], arch: Arch) -> Vec<(String, bool)> {
        let s = parse_test_spec("p", "socket", tags, arch).unwrap();
        s.privileged.expect_xlated.patterns.iter().map(|p| (p.pattern.clone(), p.on_next_line)).collect()
    }

    fn texts(l: &[(String, bool)]) -> Vec<&str> {
        l.iter().map(|(p, _)| p.as_str()).collect()
    }

    #[test]
    fn xlated_lines_in_one_arch_block_hold_on_every_arch() {
        // iters::iter_num_new_inlined: #[arch(x86_64)] #[arch(arm64)] then its lines
        let b = ARCH_BLOCK_TAG;
        let tags = [b, "test_arch=X86_64", b, "test_arch=ARM64", "test_expect_xlated=a", "test_expect_xlated=b"];
        for arch in [Arch::X86_64, Arch::Arm64] {
            assert_eq!(texts(&xlated_of(&tags, arch)), ["a", "b"], "{arch}");
        }
        // #[arch(x86_64, arm64)] is one block naming both
        let tags = [b, "test_arch=X86_64", "test_arch=ARM64", "test_expect_xlated=a"];
        assert_eq!(texts(&xlated_of(&tags, Arch::X86_64)), ["a"]);
        // lines outside any block, with one carrying block
        let tags = ["test_expect_xlated=a", b, "test_arch=RISCV64", "test_expect_xlated=b"];
        assert_eq!(texts(&xlated_of(&tags, Arch::X86_64)), ["a", "b"]);
        assert!(xlated_blocks(&tags).unwrap().is_empty());
    }

    #[test]
    fn two_arch_blocks_with_xlated_lines_scope_them() {
        let b = ARCH_BLOCK_TAG;
        let tags = [
            "test_expect_xlated=0: common",
            b,
            "test_arch=X86_64",
            "test_arch=ARM64",
            "test_expect_xlated=1: both",
            "test_expect_xlated=...",
            "test_expect_xlated=3: exit",
            b,
            "test_arch=RISCV64",
            "test_expect_xlated=1: rv",
            "test_expect_xlated=2: w0 = w0",
        ];
        let x = xlated_of(&tags, Arch::X86_64);
        assert_eq!(x, [("0: common".into(), true), ("1: both".into(), true), ("3: exit".into(), false)]);
        assert_eq!(xlated_of(&tags, Arch::Arm64), x);
        let r = xlated_of(&tags, Arch::Riscv64);
        assert_eq!(r, [("0: common".into(), true), ("1: rv".into(), true), ("2: w0 = w0".into(), true)]);
        // the test runs only on the arches the blocks name
        let s = parse_test_spec("p", "socket", &tags, Arch::S390x).unwrap();
        assert_eq!(s.arches, [Arch::X86_64, Arch::Arm64, Arch::Riscv64]);
        assert!(!s.runs_on(Arch::S390x));
        // an unpriv line in another arch's block asks for no unpriv run here
        let tags = [b, "test_arch=X86_64", "test_expect_xlated=a", b, "test_arch=ARM64", "test_expect_xlated_unpriv=b"];
        assert_eq!(parse_test_spec("p", "socket", &tags, Arch::X86_64).unwrap().mode_mask, PRIV);
        assert_eq!(parse_test_spec("p", "socket", &tags, Arch::Arm64).unwrap().mode_mask, UNPRIV);
    }

    #[test]
    fn kernel_arch_tags_do_not_scope_xlated_lines() {
        // __arch_x86_64 __xlated(a) __arch_arm64 __xlated(b): both hold everywhere
        let tags = ["test_arch=X86_64", "test_expect_xlated=a", "test_arch=ARM64", "test_expect_xlated=b"];
        assert!(xlated_blocks(&tags).unwrap().is_empty());
        for arch in [Arch::X86_64, Arch::Arm64] {
            assert_eq!(texts(&xlated_of(&tags, arch)), ["a", "b"], "{arch}");
        }
    }

    #[test]
    fn an_arch_in_two_xlated_blocks_is_an_error() {
        let b = ARCH_BLOCK_TAG;
        let tags = [b, "test_arch=X86_64", "test_expect_xlated=a", b, "test_arch=ARM64", "test_arch=X86_64", "test_expect_xlated=b"];
        assert_eq!(err(&tags), "arch x86_64 is named by two #[arch] blocks with #[xlated] lines");
    }

    #[test]
    fn arch_tags() {
        assert_eq!(err(&["test_arch=x86_64"]), "bad arch spec: 'x86_64'");
        let s = spec(&["test_arch=RISCV64", "test_arch=s390x", "test_arch=LOONGARCH"]);
        assert_eq!(s.arches, [Arch::Riscv64, Arch::S390x, Arch::Loongarch64]);
        assert!(!s.runs_on(Arch::X86_64));
    }

    #[test]
    fn flags() {
        let s = spec(&["test_prog_flags=BPF_F_TEST_STATE_FREQ", "test_prog_flags=!BPF_F_TEST_RND_HI32", "test_prog_flags=0x100"]);
        assert_eq!(s.prog_flags, BPF_F_TEST_STATE_FREQ | BPF_F_TEST_REG_INVARIANTS | 0x100);
        assert_eq!(err(&["test_prog_flags=BPF_F_XDP_DEV_BOUND_ONLY"]), "failed to parse test prog flags from 'BPF_F_XDP_DEV_BOUND_ONLY'");
    }

    #[test]
    fn retval_parsing() {
        assert_eq!(parse_retval("_INT_MIN", "r"), Ok(i32::MIN));
        assert_eq!(parse_retval("0xfffffffe", "r"), Ok(-2));
        assert_eq!(parse_retval("0xbadcafe", "r"), Ok(POINTER_VALUE));
        assert_eq!(parse_retval("-14", "r"), Ok(-14));
        assert_eq!(parse_retval("0x3FD", "r"), Ok(0x3fd));
        assert!(parse_retval("-0x10", "r").is_err());
        assert!(parse_retval("0X10", "r").is_err());
        assert!(parse_retval("(1<<3)", "r").is_err());
        assert!(parse_retval("", "r").is_err());
        assert_eq!(parse_retval(" 7", "r"), Ok(7));
        // strtol into long, then truncated to int.
        assert_eq!(parse_retval("4294967297", "r"), Ok(1));
        assert!(parse_retval("99999999999999999999", "r").is_err());
        assert_eq!(err(&["test_retval=x"]), "failed to parse __retval from 'x'");
    }

    #[test]
    fn caps_load_mode_log_level_kernel() {
        let s = spec(&["test_caps_unpriv=12|39", "load_mode=jited", "test_log_level=0x6", "test_kernel_min=7.3"]);
        assert_eq!(s.unpriv.cap_numbers(), [12, 39]);
        assert!(s.privileged.caps == 0);
        assert_eq!(s.load_mask, JITED);
        assert_eq!(s.log_level, 6);
        assert_eq!(s.min_kernel, Some(KernelVersion(7, 3, 0)));
        assert!(err(&["test_caps_unpriv=0"]).starts_with("failed to parse caps"));
        assert!(err(&["test_caps_unpriv=CAP_BPF"]).contains("CAP_BPF"));
        assert_eq!(err(&["load_mode=sometimes"]), "bad load spec: 'sometimes'");
    }

    #[test]
    fn unknown_tag_and_sec() {
        assert_eq!(err(&["test_expect_stuff"]), "unknown test tag 'test_expect_stuff'");
        assert!(parse_test_spec("p", "no_such_sec", &[], Arch::X86_64).is_err());
        let s = parse_test_spec("p", "?raw_tp", &[], Arch::X86_64).unwrap();
        assert_eq!(s.sec_def.prog_type, prog_type::RAW_TRACEPOINT);
    }

    #[test]
    fn kernel_versions() {
        assert_eq!(KernelVersion::parse("6.18.0-1-amd64"), Some(KernelVersion(6, 18, 0)));
        assert_eq!(KernelVersion::parse("7.3.4+deb13-amd64"), Some(KernelVersion(7, 3, 4)));
        assert_eq!(KernelVersion::parse("7.3.4+deb13 (model)"), Some(KernelVersion(7, 3, 4)));
        assert_eq!(KernelVersion::parse("7.3"), Some(KernelVersion(7, 3, 0)));
        assert_eq!(KernelVersion::parse("7"), None);
        assert!(KernelVersion(6, 18, 0) < KernelVersion(7, 3, 0));
    }
}
