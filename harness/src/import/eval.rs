//! Values only a C compiler knows: `__imm_const` expressions
//! (`offsetof(struct __sk_buff, data)`), `__imm_insn` encodings, map
//! definitions (`__type(value, struct test_val)` is a size) and the initial
//! bytes of globals. The host's gcc compiles the file's own declarations
//! (function bodies emptied) followed by a `main` that prints every value,
//! and the program is run.
//!
//! The host compiler stands in for clang's BPF target: both are LP64 and
//! little-endian on the hosts this runs on (x86_64, arm64), `char` is made
//! signed as on BPF, and the arch-dependent UAPI types come from the target
//! arch's headers (see [`super::cpp`]). An item gcc rejects (a clang-only
//! construct, a type the stand-in vmlinux.h lacks) is dropped and the
//! compile retried, so one bad declaration only costs the values that need
//! it; those get gcc's error as their reason.
//!
//! Results are cached by content under `BPF_SELFTEST_CACHE` (default
//! `~/.cache/bpf-selftest`)`/import`, so a second import of the same file
//! costs no compile.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::c_source::TopItem;
use super::cpp::fnv64;

/// A value to compute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// An integer constant expression, as `long long`.
    Int(String),
    /// The bytes, size and alignment of a file-scope variable.
    Object(String),
}

/// A computed value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Int(i64),
    Object { bytes: Vec<u8>, align: usize },
}

/// Bumped when the generated program or the answer format changes.
const CACHE_VERSION: &str = "eval-1";

fn cache_dir() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let base = env("BPF_SELFTEST_CACHE")
        .or_else(|| env("XDG_CACHE_HOME").map(|x| x.join("bpf-selftest")))
        .or_else(|| env("HOME").map(|h| h.join(".cache/bpf-selftest")))?;
    Some(base.join("import"))
}

/// The host C compiler (`BPF_SELFTEST_HOST_CC`, default `gcc`).
fn host_cc() -> String {
    std::env::var("BPF_SELFTEST_HOST_CC").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "gcc".into())
}

/// Computes `queries` in the scope of `items` (a preprocessed translation
/// unit). The outer error is for when nothing could be computed at all.
pub fn evaluate(items: &[TopItem], queries: &[Query]) -> Result<Vec<Result<Answer, String>>, String> {
    if queries.is_empty() {
        return Ok(Vec::new());
    }
    let decls: Vec<String> = items.iter().map(declaration_text).collect();
    let key = {
        let mut all = String::from(CACHE_VERSION);
        for d in &decls {
            all.push_str(d);
            all.push('\n');
        }
        for q in queries {
            all.push_str(&format!("{q:?}\n"));
        }
        fnv64(all.as_bytes()) ^ (all.len() as u64).rotate_left(32)
    };
    let cached = cache_dir().map(|d| d.join(format!("{key:016x}.txt")));
    if let Some(text) = cached.as_ref().and_then(|p| std::fs::read_to_string(p).ok())
        && let Some(r) = parse_answers(&text, queries.len())
    {
        return Ok(r);
    }
    let text = compute(&decls, queries)?;
    if let Some(p) = cached {
        if let Some(d) = p.parent() {
            let _ = std::fs::create_dir_all(d);
        }
        let tmp = p.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &text).is_ok() {
            let _ = std::fs::rename(&tmp, &p);
        }
    }
    parse_answers(&text, queries.len()).ok_or_else(|| "evaluation: malformed answers".to_string())
}

/// An item as the host compiler gets it: declarations as they are,
/// function definitions with an empty body (so that the addresses global
/// initialisers take still link) and without `naked`.
fn declaration_text(item: &TopItem) -> String {
    let one_line = |s: &str| s.replace('\n', " ");
    match item.body_at {
        Some(_) => format!("{} {{}}", one_line(&item.head().replace("__attribute__((naked))", ""))),
        None => one_line(&item.text),
    }
}

/// One `main` statement per query, printing `<k> i <value>` or
/// `<k> o <align> <hex bytes>`.
fn query_line(k: usize, q: &Query) -> String {
    match q {
        Query::Int(e) => {
            let e = e.replace('\n', " ");
            format!("__p(\"{k} i %lld %zu\\n\", (long long)({e}), (__SIZE_TYPE__)sizeof({e}));")
        }
        Query::Object(n) => format!(
            "{{ const unsigned char *__b = (const unsigned char *)&({n}); __p(\"{k} o %zu \", (__SIZE_TYPE__)__alignof__({n})); \
             for (__SIZE_TYPE__ __i = 0; __i < sizeof({n}); __i++) __p(\"%02x\", __b[__i]); __p(\"\\n\"); }}"
        ),
    }
}

/// Compiles and runs the program, dropping what gcc rejects, and returns
/// the answer text: the program's output plus `<k> e <reason>` lines.
fn compute(decls: &[String], queries: &[Query]) -> Result<String, String> {
    let mut dropped: Vec<Option<String>> = vec![None; decls.len()];
    let mut failed: Vec<Option<String>> = vec![None; queries.len()];
    let dir = std::env::temp_dir().join(format!("bpf-selftest-eval-{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = dir.join("eval");
    let result = (|| {
        for _round in 0..12 {
            // a BPF program may be called `main` (verifier_tailcall_jit's
            // is): renamed for the evaluator's own
            let mut src = String::from("int printf(const char *, ...);\n#define __p printf\n#define main __bpf_prog_main\n");
            let mut item_line = Vec::with_capacity(decls.len());
            let mut line = 4usize;
            for (k, d) in decls.iter().enumerate() {
                item_line.push(line);
                if dropped[k].is_none() {
                    src.push_str(d);
                }
                src.push('\n');
                line += 1;
            }
            src.push_str("#undef main\nint main(void) {\n");
            line += 2;
            let first_query_line = line;
            for (k, q) in queries.iter().enumerate() {
                if failed[k].is_none() {
                    src.push_str(&query_line(k, q));
                }
                src.push('\n');
            }
            src.push_str("return 0; }\n");
            let mut child = Command::new(host_cc())
                .args([
                    "-std=gnu11",
                    "-w",
                    "-fno-strict-aliasing",
                    "-fsigned-char",
                    "-fms-extensions",
                    "-O0",
                    "-Wl,--unresolved-symbols=ignore-all",
                    "-x",
                    "c",
                    "-",
                    "-o",
                ])
                .arg(&exe)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("running {}: {e} (a host C compiler is needed to compute __imm_const values)", host_cc()))?;
            {
                use std::io::Write;
                let mut stdin = child.stdin.take().ok_or("no stdin")?;
                stdin.write_all(src.as_bytes()).map_err(|e| format!("writing to {}: {e}", host_cc()))?;
            }
            let out = child.wait_with_output().map_err(|e| format!("{}: {e}", host_cc()))?;
            if out.status.success() {
                let run = Command::new(&exe).output().map_err(|e| format!("running the evaluation program: {e}"))?;
                if !run.status.success() {
                    return Err("the evaluation program failed".to_string());
                }
                let mut text = String::from_utf8_lossy(&run.stdout).into_owned();
                for (k, f) in failed.iter().enumerate() {
                    if let Some(why) = f {
                        text.push_str(&format!("{k} e {why}\n"));
                    }
                }
                return Ok(text);
            }
            let err = String::from_utf8_lossy(&out.stderr);
            let mut progress = false;
            for l in err.lines() {
                let Some(rest) = l.strip_prefix("<stdin>:") else { continue };
                let mut parts = rest.splitn(3, ':');
                let Some(n) = parts.next().and_then(|n| n.parse::<usize>().ok()) else { continue };
                let msg = parts.nth(1).unwrap_or("").trim();
                let Some(msg) = msg.strip_prefix("error:") else { continue };
                let msg = msg.trim().to_string();
                if n >= first_query_line && n < first_query_line + queries.len() {
                    let k = n - first_query_line;
                    if failed[k].is_none() {
                        failed[k] = Some(msg);
                        progress = true;
                    }
                } else if let Some(k) = item_line.iter().position(|&l| l == n)
                    && dropped[k].is_none()
                {
                    dropped[k] = Some(msg);
                    progress = true;
                }
            }
            if !progress {
                let first = err.lines().find(|l| l.contains("error")).unwrap_or("").to_string();
                return Err(format!("the host compiler rejected the evaluation program: {first}"));
            }
        }
        Err("the host compiler kept rejecting the evaluation program".to_string())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn parse_answers(text: &str, n: usize) -> Option<Vec<Result<Answer, String>>> {
    let mut out: Vec<Option<Result<Answer, String>>> = vec![None; n];
    for l in text.lines() {
        let mut parts = l.splitn(3, ' ');
        let k: usize = parts.next()?.parse().ok()?;
        let kind = parts.next()?;
        let rest = parts.next().unwrap_or("");
        let slot = out.get_mut(k)?;
        *slot = Some(match kind {
            "i" => {
                // clang prints an "i" operand sign-extended from its type's
                // width (LowerAsmOperandForConstraint), as gcc does.
                let (v, size) = rest.trim().split_once(' ')?;
                let v: i64 = v.parse().ok()?;
                let bits = size.parse::<u32>().ok()?.saturating_mul(8);
                Ok(Answer::Int(if (1..64).contains(&bits) { (v << (64 - bits)) >> (64 - bits) } else { v }))
            }
            "o" => {
                let (align, hex) = rest.split_once(' ').unwrap_or((rest, ""));
                let hex = hex.trim();
                let bytes = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)).collect::<Result<Vec<u8>, _>>().ok()?;
                Ok(Answer::Object { bytes, align: align.trim().parse().ok()? })
            }
            "e" => Err(rest.to_string()),
            _ => return None,
        });
    }
    out.into_iter().map(|a| a.or(Some(Err("not computed".into())))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::c_source::top_level_items;

    #[test]
    fn computes_offsets_sizes_and_bytes() {
        if Command::new(host_cc()).arg("--version").output().is_err() {
            crate::require::skip(crate::require::Component::Source, "no host C compiler");
            return;
        }
        let tu = "struct v { unsigned int index; int foo[11]; };\n\
                  struct { int (*type)[2]; typeof(struct v) *value; } m __attribute__((section(\".maps\")));\n\
                  __attribute__((naked)) void f(void) { asm volatile (\"exit;\"); }\n\
                  const volatile long g = 42;\n\
                  struct broken x = { 1 };\n";
        let items = top_level_items(tu);
        let q = vec![
            Query::Int("__builtin_offsetof(struct v, foo)".into()),
            Query::Int("sizeof(*m.type) / sizeof(int)".into()),
            Query::Int("sizeof(*m.value)".into()),
            Query::Object("g".into()),
            Query::Int("sizeof(struct nope)".into()),
            Query::Int("-1 - 0x7fffffff".into()),
            Query::Int("0xffffffff - 1".into()),
            Query::Int("(unsigned long)-3".into()),
        ];
        let a = evaluate(&items, &q).expect("evaluates");
        assert_eq!(a[0], Ok(Answer::Int(4)));
        assert_eq!(a[1], Ok(Answer::Int(2)));
        assert_eq!(a[2], Ok(Answer::Int(48)));
        assert_eq!(a[3], Ok(Answer::Object { bytes: vec![42, 0, 0, 0, 0, 0, 0, 0], align: 8 }));
        assert!(a[4].as_ref().is_err_and(|e| e.contains("incomplete") || e.contains("nope")), "{:?}", a[4]);
        assert_eq!(a[5], Ok(Answer::Int(i32::MIN as i64)));
        // an unsigned int operand is printed sign-extended, as clang does
        assert_eq!(a[6], Ok(Answer::Int(-2)));
        assert_eq!(a[7], Ok(Answer::Int(-3)));
    }
}
