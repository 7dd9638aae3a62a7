//! Programs written in C: the source is compiled with clang 19 as the
//! selftests' Makefile does (`CLANG_BPF_BUILD_RULE` with test_progs'
//! `TRUNNER_BPF_CFLAGS`: `BPF_CFLAGS`, `CLANG_SYS_INCLUDES` and
//! `-DENABLE_ATOMICS_TESTS`, then `-O2 --target=bpfel -mcpu=v3`), against
//! the recorded `vmlinux.h` of the 7.3 image for the arch and libbpf's
//! generated `bpf_helper_defs.h` (`scripts/setup-vm.sh --source` makes it
//! with the tree's `scripts/bpf_doc.py`). The object is then opened by
//! [`crate::object`], as libbpf would.
//!
//! Objects are cached in the temp directory under a hash of the source,
//! the command line and the generated headers. Without clang
//! (`BPF_SELFTEST_CLANG`, default `clang-19`) C programs stay blocked as
//! "written in C", saying clang is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use super::cpp::{KernelTree, fnv64};
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

/// `SRCARCH` as `-D__TARGET_ARCH_$(SRCARCH)` spells it, the Debian arch
/// of the image, and the GNU triple whose system headers a cross build
/// (`CROSS_COMPILE`) of the selftests reads.
fn arch_names(arch: Arch) -> Result<(&'static str, &'static str, &'static str), String> {
    match arch {
        Arch::X86_64 => Ok(("x86", "amd64", "x86_64-linux-gnu")),
        Arch::Arm64 => Ok(("arm64", "arm64", "aarch64-linux-gnu")),
        other => Err(format!("compiling for {other} is not supported (no recorded vmlinux.h)")),
    }
}

/// The Makefile's `get_sys_includes`: clang's own `<...>` search list for
/// the target, each as `-idirafter`.
fn sys_includes(clang: &str, triple: &str) -> Vec<String> {
    let host = (cfg!(target_arch = "x86_64") && triple.starts_with("x86_64")) || (cfg!(target_arch = "aarch64") && triple.starts_with("aarch64"));
    let mut cmd = Command::new(clang);
    if !host {
        cmd.arg(format!("--target={triple}"));
    }
    let out = cmd.args(["-v", "-E", "-"]).stdin(Stdio::null()).stdout(Stdio::null()).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).unwrap_or_default();
    let mut dirs = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if l.starts_with("#include <...> search starts here:") {
            inside = true;
        } else if l.starts_with("End of search list.") {
            break;
        } else if inside && let Some(d) = l.strip_prefix(' ') {
            dirs.push("-idirafter".to_string());
            dirs.push(d.trim().to_string());
        }
    }
    dirs
}

/// The recorded `vmlinux.h` of the 7.3 image for `arch` (setup's
/// `$cache/btf/<release>/`).
fn vmlinux_h_dir(arch: Arch) -> Result<PathBuf, String> {
    let cfg = crate::backend::vm::VmConfig::from_env();
    let rel = cfg.release(arch).ok_or_else(|| format!("no 7.3 image for {arch}"))?;
    let dir = cfg.cache_dir.join("btf").join(&rel);
    if dir.join("vmlinux.h").is_file() { Ok(dir) } else { Err(format!("{}: no vmlinux.h (run scripts/setup-vm.sh --source)", dir.display())) }
}

/// The clang command line for `file` (without `-o`), as the Makefile runs it.
pub fn command_line(file: &Path, tree: &KernelTree, arch: Arch) -> Result<Vec<String>, String> {
    let clang = clang_program().ok_or("clang-19 is not installed")?;
    let (srcarch, _, triple) = arch_names(arch)?;
    let helper_defs = tree.root.join("tools/lib/bpf/bpf_helper_defs.h");
    if !helper_defs.is_file() {
        return Err(format!("{}: missing (scripts/setup-vm.sh --source generates it with scripts/bpf_doc.py)", helper_defs.display()));
    }
    let st = tree.selftests();
    let p = |d: PathBuf| d.display().to_string();
    let mut v: Vec<String> = ["-g", "-Wall", "-Werror"].map(String::from).to_vec();
    v.push(format!("-D__TARGET_ARCH_{srcarch}"));
    v.push("-mlittle-endian".into());
    // INCLUDE_DIR (vmlinux.h and libbpf's headers as bpf/*.h), CURDIR,
    // APIDIR, TOOLSINCDIR, libarena
    for d in [
        vmlinux_h_dir(arch)?,
        tree.root.join("tools/lib"),
        st.clone(),
        tree.root.join("tools/include/uapi"),
        tree.root.join("tools/include"),
        st.join("libarena/include"),
    ] {
        v.push(format!("-I{}", p(d)));
    }
    v.extend(
        [
            "-std=gnu11",
            "-fno-strict-aliasing",
            "-Wno-microsoft-anon-tag",
            "-fms-extensions",
            "-Wno-compare-distinct-pointer-types",
            "-Wno-initializer-overrides",
        ]
        .map(String::from),
    );
    // asked once per target
    static SYS_X86_64: OnceLock<Vec<String>> = OnceLock::new();
    static SYS_ARM64: OnceLock<Vec<String>> = OnceLock::new();
    let cell = if arch == Arch::Arm64 { &SYS_ARM64 } else { &SYS_X86_64 };
    let dirs = cell.get_or_init(|| sys_includes(clang, triple)).clone();
    v.extend(dirs);
    v.push("-DENABLE_ATOMICS_TESTS".into());
    v.extend(["-O2", "--target=bpfel", "-c"].map(String::from));
    v.push(p(file.to_path_buf()));
    v.push("-mcpu=v3".into());
    Ok(v)
}

/// Compiles `file` for `arch` (or finds it compiled); the object's path.
/// The cache key covers the file itself and the generated headers, which is
/// enough for the kernel's selftests (their other headers are the tree's).
pub fn compile(file: &Path, tree: &KernelTree, arch: Arch) -> Result<PathBuf, String> {
    let clang = clang_program().ok_or("clang-19 is not installed")?;
    let args = command_line(file, tree, arch)?;
    let source = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let defs = std::fs::read(tree.root.join("tools/lib/bpf/bpf_helper_defs.h")).unwrap_or_default();
    let vmlinux = vmlinux_h_dir(arch)?.join("vmlinux.h");
    let vm_meta = std::fs::metadata(&vmlinux).map(|m| format!("{}:{:?}", m.len(), m.modified().ok())).unwrap_or_default();
    let key = fnv64(&[source.as_slice(), args.join(" ").as_bytes(), &defs, vm_meta.as_bytes()].concat());
    compile_keyed(clang, None, file, &args, key, arch)
}

/// [`compile`] for a test's own C source (`#[object("x.bpf.c")]`), whose
/// headers may be the user's and change: the cache key is the preprocessed
/// translation unit, so an edited header recompiles. The selftests'
/// `progs/` directory is searched after the file's own (its `bpf_misc.h`).
///
/// clang runs in the file's directory on its bare name, with that directory
/// mapped to `.` in the debug info: the object's BTF (`line_info` file
/// names, the compilation directory) is then the same wherever the checkout
/// is, and so are the loads recorded from it.
pub fn compile_tracking_includes(file: &Path, tree: &KernelTree, arch: Arch) -> Result<PathBuf, String> {
    let clang = clang_program().ok_or("clang-19 is not installed")?;
    let file = file.canonicalize().map_err(|e| format!("{}: {e}", file.display()))?;
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
        return Err(format!("{}: not a file", file.display()));
    };
    let whole = file.display().to_string();
    let mut args: Vec<String> =
        command_line(&file, tree, arch)?.into_iter().map(|a| if a == whole { name.to_string_lossy().into_owned() } else { a }).collect();
    args.push(format!("-idirafter{}", tree.progs().display()));
    args.push(format!("-fdebug-prefix-map={}=.", dir.display()));
    let pre = Command::new(clang)
        .current_dir(dir)
        .args(args.iter().filter(|a| *a != "-c"))
        .args(["-E", "-o", "-"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("running {clang}: {e}"))?;
    if !pre.status.success() {
        return Err(clang_error(&pre.stderr));
    }
    let key = fnv64(&[pre.stdout.as_slice(), args.join(" ").as_bytes()].concat());
    compile_keyed(clang, Some(dir), &file, &args, key, arch)
}

/// The first error line of clang's stderr, as a compile failure.
fn clang_error(stderr: &[u8]) -> String {
    let err = String::from_utf8_lossy(stderr);
    let first = err.lines().find(|l| l.contains("error")).unwrap_or_else(|| err.lines().next().unwrap_or(""));
    format!("clang failed: {first}")
}

/// Runs `clang args -o OUT` (in `cwd`, if given) unless the object of `key`
/// is in the cache.
fn compile_keyed(clang: &str, cwd: Option<&Path>, file: &Path, args: &[String], key: u64, arch: Arch) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join("bpf-selftest-objects");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("prog");
    let out = dir.join(format!("{stem}.{}.{key:016x}.bpf.o", arch.name()));
    if out.is_file() {
        return Ok(out);
    }
    let tag = format!("{}{:?}", std::process::id(), std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let tmp = out.with_extension(format!("tmp{tag}"));
    let mut cmd = Command::new(clang);
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let r = cmd.args(args).arg("-o").arg(&tmp).output().map_err(|e| format!("running {clang}: {e}"))?;
    if !r.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(clang_error(&r.stderr));
    }
    std::fs::rename(&tmp, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}
