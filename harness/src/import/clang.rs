//! Programs written in C: the source is compiled with clang 19 for the BPF
//! target the way the selftests' Makefile does (`-target bpf -O2
//! -mcpu=v4 -D__TARGET_ARCH_<arch>`, the same include path as [`super::cpp`]
//! with a helper-declaration stand-in), and each program's instructions are
//! read from its section of the object (the `object` crate).
//!
//! Only self-contained programs are taken: a function whose code carries a
//! relocation (maps, globals, subprogram or kfunc calls: what libbpf would
//! patch) stays blocked with that reason. Without clang
//! (`BPF_SELFTEST_CLANG`, default `clang-19`) C programs stay blocked as
//! "written in C", saying clang is missing.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};

use super::cpp::KernelTree;
use crate::target::Arch;

/// The clang to use, if it runs.
pub fn clang_program() -> Option<&'static str> {
    static CLANG: OnceLock<Option<String>> = OnceLock::new();
    CLANG
        .get_or_init(|| {
            let c = std::env::var("BPF_SELFTEST_CLANG").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "clang-19".into());
            Command::new(&c).arg("--version").output().ok().filter(|o| o.status.success()).map(|_| c)
        })
        .as_deref()
}

/// libbpf's generated `bpf_helper_defs.h`, reduced to what C bodies need to
/// compile: every helper as a constant function pointer to its id (an
/// unprototyped declaration; the tests' bodies call helpers with their
/// natural arguments).
fn helper_defs_h() -> String {
    let mut s = String::from("/* Stand-in for libbpf's bpf_helper_defs.h, written by bpf-selftest import (clang). */\n");
    for (id, name) in bpf_isa::helper_ids::HELPER_NAMES.iter().enumerate().skip(1) {
        s.push_str(&format!("static long (* const bpf_{name})() = (void *) {id};\n"));
    }
    s
}

/// Compiles `file` for `arch`; the object's bytes.
pub fn compile(file: &Path, tree: &KernelTree, arch: Arch) -> Result<Vec<u8>, String> {
    let clang = clang_program().ok_or("clang-19 is not installed")?;
    let target = match arch {
        Arch::X86_64 => "x86",
        Arch::Arm64 => "arm64",
        other => return Err(format!("compiling for {other} is not supported")),
    };
    let defs = helper_defs_h();
    let dir = std::env::temp_dir().join(format!("bpf-selftest-clang-{:016x}", super::cpp::fnv64(defs.as_bytes())));
    let inc = dir.join("include");
    std::fs::create_dir_all(&inc).map_err(|e| format!("{}: {e}", inc.display()))?;
    let h = inc.join("bpf_helper_defs.h");
    if std::fs::read_to_string(&h).ok().as_deref() != Some(defs.as_str()) {
        let tmp = inc.join(format!("bpf_helper_defs.h.{}", std::process::id()));
        std::fs::write(&tmp, &defs).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &h).map_err(|e| format!("{}: {e}", h.display()))?;
    }
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("prog");
    let out = dir.join(format!("{stem}.{target}.{}.o", std::process::id()));
    let mut cmd = Command::new(clang);
    cmd.args(["-O2", "-target", "bpf", "-mcpu=v4", "-std=gnu11", "-Wno-int-conversion", "-Wno-incompatible-pointer-types"]);
    cmd.arg(format!("-D__TARGET_ARCH_{target}")).arg("-DENABLE_ATOMICS_TESTS");
    // our helper declarations first, then the stand-ins and the tree's
    cmd.arg("-I").arg(&inc);
    for d in super::cpp::include_dirs(tree, arch)? {
        cmd.arg("-I").arg(d);
    }
    // the Makefile's CLANG_SYS_INCLUDES: the host's multiarch headers
    // (asm/types.h) after everything else
    for d in ["/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu"] {
        if Path::new(d).is_dir() {
            cmd.arg("-idirafter").arg(d);
            break;
        }
    }
    cmd.arg("-c").arg(file).arg("-o").arg(&out);
    let r = cmd.output().map_err(|e| format!("running {clang}: {e}"))?;
    if !r.status.success() {
        let err = String::from_utf8_lossy(&r.stderr);
        let first = err.lines().find(|l| l.contains("error")).unwrap_or_else(|| err.lines().next().unwrap_or(""));
        let _ = std::fs::remove_file(&out);
        return Err(format!("clang failed: {first}"));
    }
    let bytes = std::fs::read(&out).map_err(|e| format!("{}: {e}", out.display()));
    let _ = std::fs::remove_file(&out);
    bytes
}

/// The programs of an object by function name: their raw instructions (as
/// the 64-bit little-endian words `.8byte` takes), or why they cannot be
/// taken.
pub fn functions(obj: &[u8]) -> Result<HashMap<String, Result<Vec<u64>, String>>, String> {
    let file = object::File::parse(obj).map_err(|e| format!("reading the object: {e}"))?;
    let mut out = HashMap::new();
    for sym in file.symbols() {
        if sym.kind() != SymbolKind::Text || sym.size() == 0 {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        let Some(idx) = sym.section_index() else { continue };
        let Ok(sec) = file.section_by_index(idx) else { continue };
        let (start, end) = (sym.address(), sym.address() + sym.size());
        let body = (|| {
            if sec.relocations().any(|(off, _)| off >= start && off < end) {
                return Err("its code has relocations (maps, globals, calls) libbpf would patch".to_string());
            }
            let data = sec.data().map_err(|e| e.to_string())?;
            let code = data.get(start as usize..end as usize).ok_or("the symbol lies outside its section")?;
            if code.len() % 8 != 0 {
                return Err("code size not a multiple of 8".into());
            }
            Ok(code.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())).collect())
        })();
        out.insert(name.to_string(), body);
    }
    Ok(out)
}

/// The `.8byte` template of raw instructions.
pub fn raw_template(words: &[u64]) -> String {
    words.iter().map(|w| format!(".8byte {w:#018x};\n")).collect()
}
