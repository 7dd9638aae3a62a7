//! The attribute catalog: each test annotation becomes the tag text the
//! kernel's `bpf_misc.h` would put in a BTF decl tag (the harness's `spec`
//! module interprets them with test_loader's rules). Misuse that test_loader
//! would only notice at run time, or silently ignore, is a compile error
//! here.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::{Error, LitInt, LitStr, Result, Token};

/// The test annotations (everything but `sec`, `subprog`, `map`, `global`).
pub const TEST_ATTRS: &[&str] = &[
    "success",
    "failure",
    "success_unpriv",
    "failure_unpriv",
    "msg",
    "not_msg",
    "msg_unpriv",
    "not_msg_unpriv",
    "xlated",
    "xlated_unpriv",
    "jited",
    "jited_unpriv",
    "arch",
    "retval",
    "retval_unpriv",
    "log_level",
    "flag",
    "description",
    "auxiliary",
    "auxiliary_unpriv",
    "load_if_jited",
    "load_if_no_jited",
    "caps_unpriv",
    "kernel",
    "attach",
    "run_count",
    "recursion_misses",
    "global_init",
    "global_after",
];

/// Names the flag tag accepts, as test_loader's parser does.
const FLAGS: &[&str] = &[
    "BPF_F_STRICT_ALIGNMENT",
    "BPF_F_ANY_ALIGNMENT",
    "BPF_F_TEST_RND_HI32",
    "BPF_F_TEST_STATE_FREQ",
    "BPF_F_SLEEPABLE",
    "BPF_F_XDP_HAS_FRAGS",
    "BPF_F_TEST_REG_INVARIANTS",
];

/// `#[arch(...)]` names and the kernel's `__arch_*` tag values.
const ARCHES: &[(&str, &str)] =
    &[("x86_64", "X86_64"), ("arm64", "ARM64"), ("riscv64", "RISCV64"), ("s390x", "s390x"), ("loongarch64", "LOONGARCH"), ("loongarch", "LOONGARCH")];

const CAPS: &[&str] = &[
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
    "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST",
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    "CAP_IPC_LOCK",
    "CAP_IPC_OWNER",
    "CAP_SYS_MODULE",
    "CAP_SYS_RAWIO",
    "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE",
    "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN",
    "CAP_SYS_BOOT",
    "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE",
    "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG",
    "CAP_MKNOD",
    "CAP_LEASE",
    "CAP_AUDIT_WRITE",
    "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP",
    "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN",
    "CAP_SYSLOG",
    "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND",
    "CAP_AUDIT_READ",
    "CAP_PERFMON",
    "CAP_BPF",
    "CAP_CHECKPOINT_RESTORE",
];

/// errno names for `#[retval(-EFAULT)]` (asm-generic/errno*.h).
const ERRNOS: &[(&str, i32)] = &[
    ("EPERM", 1),
    ("ENOENT", 2),
    ("ESRCH", 3),
    ("EINTR", 4),
    ("EIO", 5),
    ("ENXIO", 6),
    ("E2BIG", 7),
    ("ENOEXEC", 8),
    ("EBADF", 9),
    ("ECHILD", 10),
    ("EAGAIN", 11),
    ("ENOMEM", 12),
    ("EACCES", 13),
    ("EFAULT", 14),
    ("EBUSY", 16),
    ("EEXIST", 17),
    ("EXDEV", 18),
    ("ENODEV", 19),
    ("ENOTDIR", 20),
    ("EISDIR", 21),
    ("EINVAL", 22),
    ("ENFILE", 23),
    ("EMFILE", 24),
    ("ENOTTY", 25),
    ("EFBIG", 27),
    ("ENOSPC", 28),
    ("ESPIPE", 29),
    ("EROFS", 30),
    ("EMLINK", 31),
    ("EPIPE", 32),
    ("EDOM", 33),
    ("ERANGE", 34),
    ("EDEADLK", 35),
    ("ENAMETOOLONG", 36),
    ("ENOLCK", 37),
    ("ENOSYS", 38),
    ("ENOTEMPTY", 39),
    ("ELOOP", 40),
    ("ENOMSG", 42),
    ("ENODATA", 61),
    ("ETIME", 62),
    ("EPROTO", 71),
    ("EBADMSG", 74),
    ("EOVERFLOW", 75),
    ("ENOTSOCK", 88),
    ("EMSGSIZE", 90),
    ("EPROTONOSUPPORT", 93),
    ("EOPNOTSUPP", 95),
    ("EAFNOSUPPORT", 97),
    ("EADDRINUSE", 98),
    ("EADDRNOTAVAIL", 99),
    ("ENETUNREACH", 101),
    ("ENOBUFS", 105),
    ("EISCONN", 106),
    ("ENOTCONN", 107),
    ("ETIMEDOUT", 110),
    ("ECONNREFUSED", 111),
    ("EHOSTUNREACH", 113),
    ("EALREADY", 114),
    ("EINPROGRESS", 115),
    ("ECANCELED", 125),
    ("ENOTSUPP", 524),
];

/// One attribute as written: its name, arguments and where it is.
pub struct RawAttr {
    pub name: String,
    pub args: TokenStream,
    pub span: Span,
    /// The whole attribute, to underline it in errors (absent for the one
    /// being expanded, whose call-site span covers it already).
    pub whole: Option<TokenStream>,
}

impl RawAttr {
    pub fn error(&self, msg: impl std::fmt::Display) -> Error {
        match &self.whole {
            Some(t) => Error::new_spanned(t, msg),
            None => Error::new(self.span, msg),
        }
    }
}

/// State carried across the attributes of one program.
#[derive(Default)]
pub struct TagState {
    pub tags: Vec<String>,
    /// Per tag, `line!()` spanned at the attribute it came from: the source
    /// line a failure report names.
    pub lines: Vec<TokenStream>,
    arch_seen: bool,
    /// The arches named by the `#[arch]` attributes so far (tag values).
    arches_named: Vec<&'static str>,
}

fn no_args(a: &RawAttr) -> Result<()> {
    if a.args.is_empty() { Ok(()) } else { Err(Error::new_spanned(&a.args, format!("#[{}] takes no arguments", a.name))) }
}

/// One or more adjacent string literals, concatenated (as C concatenates
/// `__msg("a" "b")`).
pub fn strings(a: &RawAttr) -> Result<String> {
    let parser = |input: ParseStream| -> Result<String> {
        let mut s = String::new();
        if input.is_empty() {
            return Err(input.error(format!("#[{}] takes a string literal", a.name)));
        }
        while !input.is_empty() {
            let lit: LitStr = input.parse().map_err(|e| Error::new(e.span(), format!("#[{}] takes a string literal", a.name)))?;
            s.push_str(&lit.value());
        }
        Ok(s)
    };
    let s = parser.parse2(a.args.clone()).map_err(|e| if a.args.is_empty() { a.error(e) } else { e })?;
    if s.contains('\0') {
        return Err(a.error(format!("#[{}]: a pattern cannot contain a NUL byte", a.name)));
    }
    Ok(s)
}

fn pattern(a: &RawAttr) -> Result<String> {
    let s = strings(a)?;
    // test_loader fails the whole spec on an unclosed `{{`.
    let mut in_regex = false;
    let mut rest = s.as_str();
    while !rest.is_empty() {
        if !in_regex && rest.starts_with("{{") {
            in_regex = true;
            rest = &rest[2..];
        } else if in_regex && rest.starts_with("}}") {
            in_regex = false;
            rest = &rest[2..];
        } else {
            rest = &rest[rest.chars().next().map_or(1, char::len_utf8)..];
        }
    }
    if in_regex {
        return Err(Error::new_spanned(&a.args, "pattern has an open '{{' but no closing '}}'"));
    }
    Ok(s)
}

/// test_loader's `parse_int` as a compile-time check of an integer literal:
/// decimal or lower-case `0x` hex, no suffix, no underscores. Returns the
/// text to put in the tag and the value.
fn c_int(lit: &LitInt, what: &str) -> Result<(String, i128)> {
    let text = lit.to_string();
    const TYPES: &[&str] = &["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "i128", "u128", "isize", "usize"];
    if TYPES.contains(&lit.suffix()) {
        return Err(Error::new(lit.span(), format!("{what}: write the number without a type suffix")));
    }
    if !lit.suffix().is_empty() {
        // `0X10` lexes as 0 with suffix X10.
        return Err(Error::new(lit.span(), format!("{what}: test_loader reads only decimal or 0x hex numbers")));
    }
    let value = if let Some(h) = text.strip_prefix("0x") {
        if h.is_empty() || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(Error::new(lit.span(), format!("{what}: test_loader reads only decimal or 0x hex numbers")));
        }
        i128::from_str_radix(h, 16).map_err(|_| Error::new(lit.span(), format!("{what}: number too large")))?
    } else if text.bytes().all(|c| c.is_ascii_digit()) {
        text.parse::<i128>().map_err(|_| Error::new(lit.span(), format!("{what}: number too large")))?
    } else {
        return Err(Error::new(lit.span(), format!("{what}: test_loader reads only decimal or 0x hex numbers")));
    };
    Ok((text, value))
}

fn retval(a: &RawAttr) -> Result<String> {
    let parser = |input: ParseStream| -> Result<String> {
        let neg = input.parse::<Option<Token![-]>>()?.is_some();
        let (text, value) = if input.peek(LitInt) {
            let lit: LitInt = input.parse()?;
            let (text, v) = c_int(&lit, &format!("#[{}]", a.name))?;
            if neg && text.starts_with("0x") {
                return Err(Error::new(lit.span(), format!("#[{}]: test_loader cannot read a negative hex value (-{text}); write it in decimal", a.name)));
            }
            (text, v)
        } else if input.peek(syn::Ident) {
            let id: syn::Ident = input.parse()?;
            let name = id.to_string();
            match name.as_str() {
                "POINTER_VALUE" if !neg => ("0xbadcafe".to_string(), 0xbadcafe),
                "TEST_DATA_LEN" if !neg => ("64".to_string(), 64),
                "_INT_MIN" if !neg => return Ok("_INT_MIN".to_string()),
                _ => match ERRNOS.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => (v.to_string(), *v as i128),
                    None => {
                        return Err(Error::new(
                            id.span(),
                            format!("#[{}]: unknown value '{name}' (an integer, POINTER_VALUE, TEST_DATA_LEN, _INT_MIN or -E<errno>)", a.name),
                        ));
                    }
                },
            }
        } else {
            return Err(input.error(format!("#[{}] takes an integer, POINTER_VALUE, TEST_DATA_LEN, _INT_MIN or -E<errno>", a.name)));
        };
        if !input.is_empty() {
            return Err(input.error(format!("#[{}] takes one value (test_loader cannot evaluate expressions)", a.name)));
        }
        let v = if neg { -value } else { value };
        if v < i32::MIN as i128 || v > u32::MAX as i128 {
            return Err(a.error(format!("#[{}]: {v} does not fit 32 bits", a.name)));
        }
        Ok(if neg { format!("-{text}") } else { text })
    };
    parser.parse2(a.args.clone()).map_err(|e| if a.args.is_empty() { a.error(e.to_string()) } else { e })
}

fn flag(a: &RawAttr) -> Result<String> {
    let parser = |input: ParseStream| -> Result<String> {
        let clear = input.parse::<Option<Token![!]>>()?.is_some();
        let bang = if clear { "!" } else { "" };
        let text = if input.peek(LitInt) {
            let lit: LitInt = input.parse()?;
            c_int(&lit, "#[flag]")?.0
        } else {
            let id: syn::Ident = input.parse().map_err(|e| Error::new(e.span(), "#[flag] takes a BPF_F_* name or a number"))?;
            let name = id.to_string();
            if !FLAGS.contains(&name.as_str()) {
                return Err(Error::new(id.span(), format!("#[flag]: unknown flag '{name}' (test_loader knows {})", FLAGS.join(", "))));
            }
            name
        };
        if !input.is_empty() {
            return Err(input.error("#[flag] takes one flag; repeat the attribute for more"));
        }
        Ok(format!("{bang}{text}"))
    };
    parser.parse2(a.args.clone()).map_err(|e| if a.args.is_empty() { a.error(e.to_string()) } else { e })
}

fn log_level(a: &RawAttr) -> Result<String> {
    let lit: LitInt = syn::parse2(a.args.clone()).map_err(|_| a.error("#[log_level] takes an integer (1, 2, 4 or a sum)"))?;
    Ok(c_int(&lit, "#[log_level]")?.0)
}

fn caps(a: &RawAttr) -> Result<String> {
    let mut nums = Vec::new();
    for tt in a.args.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' || p.as_char() == '|' => {}
            TokenTree::Ident(id) => {
                let name = id.to_string();
                match CAPS.iter().position(|c| *c == name) {
                    Some(0) => return Err(Error::new(id.span(), "#[caps_unpriv]: test_loader cannot give back CAP_CHOWN (0)")),
                    Some(n) => nums.push(n),
                    None => return Err(Error::new(id.span(), format!("#[caps_unpriv]: unknown capability '{name}'"))),
                }
            }
            TokenTree::Literal(_) => {
                let lit: LitInt = syn::parse2(tt.clone().into()).map_err(|e| Error::new(e.span(), "#[caps_unpriv] takes CAP_* names or numbers"))?;
                let n: usize = lit.base10_parse().map_err(|e| Error::new(e.span(), "#[caps_unpriv]: not a capability number"))?;
                if n == 0 || n >= CAPS.len() {
                    return Err(Error::new(lit.span(), format!("#[caps_unpriv]: capability {n} is out of range (1-{})", CAPS.len() - 1)));
                }
                nums.push(n);
            }
            other => return Err(Error::new(other.span(), "#[caps_unpriv] takes CAP_* names or numbers")),
        }
    }
    if nums.is_empty() {
        return Err(a.error("#[caps_unpriv] takes at least one capability"));
    }
    Ok(nums.iter().map(|n| n.to_string()).collect::<Vec<_>>().join("|"))
}

fn arches(a: &RawAttr) -> Result<Vec<&'static str>> {
    let mut out = Vec::new();
    for tt in a.args.clone() {
        let (name, span) = match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => continue,
            TokenTree::Ident(id) => (id.to_string(), id.span()),
            TokenTree::Literal(_) => match syn::parse2::<LitStr>(tt.clone().into()) {
                Ok(s) => (s.value(), s.span()),
                Err(e) => return Err(Error::new(e.span(), "#[arch] takes arch names")),
            },
            other => return Err(Error::new(other.span(), "#[arch] takes arch names")),
        };
        match ARCHES.iter().find(|(n, _)| *n == name) {
            Some((_, tag)) => out.push(*tag),
            None => {
                return Err(Error::new(span, format!("#[arch]: unknown arch '{name}' (x86_64, arm64, riscv64, s390x, loongarch64)")));
            }
        }
    }
    if out.is_empty() {
        return Err(a.error("#[arch] takes at least one arch, e.g. #[arch(x86_64)]"));
    }
    Ok(out)
}

fn kernel(a: &RawAttr) -> Result<String> {
    let s = strings(a)?;
    let parts: Vec<&str> = s.split('.').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit())) {
        return Err(Error::new_spanned(&a.args, "#[kernel] takes a version such as \"7.3\" or \"7.3.4\""));
    }
    Ok(s)
}

/// `#[attach]` (the program itself: no tags' value) or `#[attach(a, b)]`
/// (other programs of the suite): one tag value per program named.
fn attach_names(a: &RawAttr) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for tt in a.args.clone() {
        match &tt {
            TokenTree::Punct(p) if p.as_char() == ',' => {}
            TokenTree::Ident(id) => {
                let name = id.to_string();
                if out.contains(&name) {
                    return Err(Error::new(id.span(), format!("#[attach]: '{name}' is named twice")));
                }
                out.push(name);
            }
            other => return Err(Error::new(other.span(), "#[attach] takes the names of programs of the suite")),
        }
    }
    Ok(out)
}

/// An integer, optionally negative, in the range of a u64 or an i64.
fn int_value(input: ParseStream, what: &str) -> Result<String> {
    let neg = input.parse::<Option<Token![-]>>()?.is_some();
    let lit: LitInt = input.parse().map_err(|e| Error::new(e.span(), format!("{what} takes an integer")))?;
    let (text, v) = c_int(&lit, what)?;
    if neg && text.starts_with("0x") {
        return Err(Error::new(lit.span(), format!("{what}: write a negative value in decimal")));
    }
    let v = if neg { -v } else { v };
    if v < i64::MIN as i128 || v > u64::MAX as i128 {
        return Err(Error::new(lit.span(), format!("{what}: {v} does not fit 64 bits")));
    }
    Ok(if neg { format!("-{text}") } else { text })
}

/// `#[run_count(N)]` / `#[run_count(prog = N)]` (and `#[recursion_misses]`):
/// `N` for the program itself, `prog=N` for another.
fn counter(a: &RawAttr) -> Result<String> {
    let what = format!("#[{}]", a.name);
    let parser = |input: ParseStream| -> Result<String> {
        let prog = if input.peek(syn::Ident) {
            let id: syn::Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some(id.to_string())
        } else {
            None
        };
        let n = int_value(input, &what)?;
        if n.starts_with('-') {
            return Err(input.error(format!("{what}: a count is not negative")));
        }
        if !input.is_empty() {
            return Err(input.error(format!("{what} takes one count; repeat the attribute for other programs")));
        }
        Ok(match prog {
            Some(p) => format!("{p}={n}"),
            None => n,
        })
    };
    parser.parse2(a.args.clone()).map_err(|e| if a.args.is_empty() { a.error(format!("{what} takes a count, or prog = count")) } else { e })
}

/// `#[global_init(name = value)]` / `#[global_after(name = value)]`.
fn global_value(a: &RawAttr) -> Result<String> {
    let what = format!("#[{}]", a.name);
    let parser = |input: ParseStream| -> Result<String> {
        let id: syn::Ident = input.parse().map_err(|e| Error::new(e.span(), format!("{what} takes name = value")))?;
        input.parse::<Token![=]>()?;
        let v = int_value(input, &what)?;
        if !input.is_empty() {
            return Err(input.error(format!("{what} takes one name = value; repeat the attribute for more")));
        }
        Ok(format!("{id}={v}"))
    };
    parser.parse2(a.args.clone()).map_err(|e| if a.args.is_empty() { a.error(format!("{what} takes name = value")) } else { e })
}

impl TagState {
    /// Adds the tags of one test attribute.
    pub fn push(&mut self, a: &RawAttr) -> Result<()> {
        let simple = |t: &str| -> Result<Vec<String>> {
            no_args(a)?;
            Ok(vec![t.to_string()])
        };
        let tags = match a.name.as_str() {
            "success" => simple("test_expect_success")?,
            "failure" => simple("test_expect_failure")?,
            "success_unpriv" => simple("test_expect_success_unpriv")?,
            "failure_unpriv" => simple("test_expect_failure_unpriv")?,
            "auxiliary" => simple("test_auxiliary")?,
            "auxiliary_unpriv" => simple("test_auxiliary_unpriv")?,
            "load_if_jited" => simple("load_mode=jited")?,
            "load_if_no_jited" => simple("load_mode=no_jited")?,
            "msg" => vec![format!("test_expect_msg={}", pattern(a)?)],
            "not_msg" => vec![format!("test_expect_not_msg={}", pattern(a)?)],
            "msg_unpriv" => vec![format!("test_expect_msg_unpriv={}", pattern(a)?)],
            "not_msg_unpriv" => vec![format!("test_expect_not_msg_unpriv={}", pattern(a)?)],
            "xlated" => vec![format!("test_expect_xlated={}", pattern(a)?)],
            "xlated_unpriv" => vec![format!("test_expect_xlated_unpriv={}", pattern(a)?)],
            "jited" | "jited_unpriv" => {
                if !self.arch_seen {
                    return Err(
                        a.error(format!("#[{}] before any #[arch(...)]: JIT patterns belong to an arch, put #[arch(x86_64)] (or another) above them", a.name))
                    );
                }
                let key = if a.name == "jited" { "test_jited" } else { "test_jited_unpriv" };
                vec![format!("{key}={}", pattern(a)?)]
            }
            "description" => vec![format!("test_description={}", strings(a)?)],
            "retval" => vec![format!("test_retval={}", retval(a)?)],
            "retval_unpriv" => vec![format!("test_retval_unpriv={}", retval(a)?)],
            "log_level" => vec![format!("test_log_level={}", log_level(a)?)],
            "flag" => vec![format!("test_prog_flags={}", flag(a)?)],
            "caps_unpriv" => vec![format!("test_caps_unpriv={}", caps(a)?)],
            "kernel" => vec![format!("test_kernel_min={}", kernel(a)?)],
            "attach" if a.args.is_empty() => vec!["test_attach".to_string()],
            "attach" => attach_names(a)?.into_iter().map(|n| format!("test_attach_prog={n}")).collect(),
            "run_count" => vec![format!("test_run_count={}", counter(a)?)],
            "recursion_misses" => vec![format!("test_recursion_misses={}", counter(a)?)],
            "global_init" => vec![format!("test_global_init={}", global_value(a)?)],
            "global_after" => vec![format!("test_global_after={}", global_value(a)?)],
            "arch" => {
                self.arch_seen = true;
                let named = arches(a)?;
                for (k, t) in named.iter().enumerate() {
                    if self.arches_named.contains(t) || named[..k].contains(t) {
                        let name = ARCHES.iter().find(|(_, v)| v == t).map_or(*t, |(n, _)| *n);
                        return Err(a.error(format!(
                            "#[arch]: {name} is named twice; each arch belongs to one #[arch] block, which holds its #[xlated] and #[jited] lines"
                        )));
                    }
                }
                self.arches_named.extend(&named);
                // the block tag marks where this attribute's arches start
                // (`spec::ARCH_BLOCK_TAG`), then the kernel's tags
                std::iter::once("test_arch_block".to_string()).chain(named.into_iter().map(|t| format!("test_arch={t}"))).collect()
            }
            other => return Err(a.error(format!("#[{other}] is not a test annotation"))),
        };
        let span = a.span;
        self.lines.extend(tags.iter().map(|_| quote::quote_spanned!(span=> ::core::line!())));
        self.tags.extend(tags);
        Ok(())
    }
}
