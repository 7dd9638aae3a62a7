//! Preprocessing a kernel selftest source the way the selftests' Makefile
//! compiles it for the BPF target, with gcc's `cpp`.
//!
//! The defines are clang's for `--target=bpf -mcpu=v3` (test_progs' default
//! flavour) with the selftests' own: `__TARGET_ARCH_<arch>` (which resolves
//! `#ifdef SPEC_V1`, `CAN_USE_GOTOL`, `bpf_target_*`, ...),
//! `ENABLE_ATOMICS_TESTS`, clang 19 (what the project's CI has), the BPF
//! feature macros clang 19 defines. gcc's own host predefines stay: the
//! system headers need them, and nothing the naked tests depend on reads
//! them.
//!
//! The include path is the Makefile's (libbpf's headers, the selftests
//! directory, the tools UAPI, `libarena/include`, the kernel UAPI; not
//! tools/include, see [`preprocess`]), ahead of
//! it a directory of stand-ins for what a kernel build generates and the
//! source package lacks: `vmlinux.h` (bpftool's dump of the kernel BTF),
//! `bpf_helper_defs.h` (libbpf's generated helper declarations) and
//! `tools/include/linux/filter.h` (the insn-building macros). They are
//! written by this module, not copied from the kernel, and hold only what
//! the importer needs: the types `__imm_const` expressions and map
//! definitions name, and the macros `__imm_insn` operands use.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::target::Arch;

/// `vmlinux.h`: the UAPI types (which the kernel's BTF has too), the
/// kernel's short integer names, and the kernel-internal types that
/// verifier_*.c name in `__imm_const` operands, with their 7.3 layout on
/// 64-bit arches.
const VMLINUX_H: &str = r#"/* Stand-in for bpftool's vmlinux.h, written by bpf-selftest import. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/if_ether.h>
typedef __u8 u8;
typedef __s8 s8;
typedef __u16 u16;
typedef __s16 s16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
#ifndef __bool_true_false_are_defined
typedef _Bool bool;
enum { false = 0, true = 1 };
#endif
struct sk_buff;
struct nf_hook_state;
struct bpf_map;
struct bpf_iter_meta;
/* include/net/netfilter/nf_bpf_link.h */
struct bpf_nf_ctx {
	const struct nf_hook_state *state;
	struct sk_buff *skb;
};
/* the bpf_iter context of map elements (kernel/bpf/map_iter.c) */
struct bpf_iter__bpf_map_elem {
	union { struct bpf_iter_meta *meta; };
	union { struct bpf_map *map; };
	union { void *key; };
	union { void *value; };
};
/* include/linux/skbuff.h, up to frags (MAX_SKB_FRAGS entries follow) */
struct skb_shared_hwtstamps { __u64 hwtstamp; };
struct skb_shared_info {
	__u8 flags;
	__u8 meta_len;
	__u8 nr_frags;
	__u8 tx_flags;
	unsigned short gso_size;
	unsigned short gso_segs;
	struct sk_buff *frag_list;
	union { struct skb_shared_hwtstamps hwtstamps; __u64 xsk_meta[1]; };
	unsigned int gso_type;
	__u32 tskey;
	int dataref;
	unsigned int xdp_frags_size;
	void *destructor_arg;
	struct { void *netmem; unsigned int len; unsigned int offset; } frags[17];
};
#endif
"#;

/// libbpf generates the helper declarations; the naked tests name helpers
/// only in `__imm()` operands, which the importer resolves by name.
const HELPER_DEFS_H: &str = "/* Stand-in for libbpf's generated bpf_helper_defs.h: intentionally empty. */\n";

/// The insn-building macros of `tools/include/linux/filter.h` that
/// `__imm_insn` operands use, as compound literals of `struct bpf_insn`.
const FILTER_H: &str = r#"/* Stand-in for tools/include/linux/filter.h, written by bpf-selftest import. */
#ifndef __TOOLS_LINUX_FILTER_H
#define __TOOLS_LINUX_FILTER_H
#include <linux/bpf.h>
#define MAX_BPF_STACK 512
#define BPF_REG_ARG1 BPF_REG_1
#define BPF_REG_ARG2 BPF_REG_2
#define BPF_REG_ARG3 BPF_REG_3
#define BPF_REG_ARG4 BPF_REG_4
#define BPF_REG_ARG5 BPF_REG_5
#define BPF_REG_CTX BPF_REG_6
#define BPF_REG_FP BPF_REG_10
#define BPF_REG_A BPF_REG_0
#define BPF_REG_X BPF_REG_7
#define BPF_REG_TMP BPF_REG_8
#define BPF_RAW_INSN(CODE, DST, SRC, OFF, IMM) \
	((struct bpf_insn) { .code = CODE, .dst_reg = DST, .src_reg = SRC, .off = OFF, .imm = IMM })
#define BPF_ALU64_REG(OP, DST, SRC) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU32_REG(OP, DST, SRC) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_X, DST, SRC, 0, 0)
#define BPF_ALU64_IMM(OP, DST, IMM) BPF_RAW_INSN(BPF_ALU64 | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_ALU32_IMM(OP, DST, IMM) BPF_RAW_INSN(BPF_ALU | BPF_OP(OP) | BPF_K, DST, 0, 0, IMM)
#define BPF_MOV64_REG(DST, SRC) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define BPF_MOV32_REG(DST, SRC) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, DST, SRC, 0, 0)
#define BPF_MOV64_IMM(DST, IMM) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_K, DST, 0, 0, IMM)
#define BPF_MOV32_IMM(DST, IMM) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_K, DST, 0, 0, IMM)
#define BPF_MOVSX64_REG(DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DST, SRC, OFF, 0)
#define BPF_MOVSX32_REG(DST, SRC, OFF) BPF_RAW_INSN(BPF_ALU | BPF_MOV | BPF_X, DST, SRC, OFF, 0)
#define BPF_LD_ABS(SIZE, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_ABS, 0, 0, 0, IMM)
#define BPF_LD_IND(SIZE, SRC, IMM) BPF_RAW_INSN(BPF_LD | BPF_SIZE(SIZE) | BPF_IND, 0, SRC, 0, IMM)
#define BPF_LDX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_LDX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_STX_MEM(SIZE, DST, SRC, OFF) BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_MEM, DST, SRC, OFF, 0)
#define BPF_ST_MEM(SIZE, DST, OFF, IMM) BPF_RAW_INSN(BPF_ST | BPF_SIZE(SIZE) | BPF_MEM, DST, 0, OFF, IMM)
#define BPF_ATOMIC_OP(SIZE, OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_STX | BPF_SIZE(SIZE) | BPF_ATOMIC, DST, SRC, OFF, OP)
#define BPF_JMP_REG(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP32_REG(OP, DST, SRC, OFF) BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_X, DST, SRC, OFF, 0)
#define BPF_JMP_IMM(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_JMP | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP32_IMM(OP, DST, IMM, OFF) BPF_RAW_INSN(BPF_JMP32 | BPF_OP(OP) | BPF_K, DST, 0, OFF, IMM)
#define BPF_JMP_A(OFF) BPF_RAW_INSN(BPF_JMP | BPF_JA, 0, 0, OFF, 0)
#define BPF_EXIT_INSN() BPF_RAW_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define BPF_LD_IMM64_RAW(DST, SRC, IMM) \
	BPF_RAW_INSN(BPF_LD | BPF_DW | BPF_IMM, DST, SRC, 0, (__u32)(IMM)), \
	BPF_RAW_INSN(0, 0, 0, 0, ((__u64)(IMM)) >> 32)
#define BPF_LD_MAP_FD(DST, MAP_FD) BPF_LD_IMM64_RAW(DST, BPF_PSEUDO_MAP_FD, MAP_FD)
#endif
"#;

/// arm64's `asm/bpf_perf_event.h` (the host's asm headers are its own
/// arch's): `struct bpf_perf_event_data` starts with the user pt_regs.
const ARM64_BPF_PERF_EVENT_H: &str = r#"/* Stand-in for arm64's asm/bpf_perf_event.h, written by bpf-selftest import. */
#ifndef _UAPI__ASM_BPF_PERF_EVENT_H__
#define _UAPI__ASM_BPF_PERF_EVENT_H__
struct user_pt_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
typedef struct user_pt_regs bpf_user_pt_regs_t;
#endif
"#;

/// Where the kernel tree's pieces are.
#[derive(Clone, Debug)]
pub struct KernelTree {
    /// The tree's root (`linux-7.3`).
    pub root: PathBuf,
}

impl KernelTree {
    pub fn new(root: impl Into<PathBuf>) -> KernelTree {
        KernelTree { root: root.into() }
    }

    /// `tools/testing/selftests/bpf`.
    pub fn selftests(&self) -> PathBuf {
        self.root.join("tools/testing/selftests/bpf")
    }

    pub fn progs(&self) -> PathBuf {
        self.selftests().join("progs")
    }

    /// The tree a selftest source lives in: the directory three levels up
    /// from `progs/` must hold `tools/testing/selftests/bpf`.
    pub fn of_file(file: &Path) -> Option<KernelTree> {
        let progs = file.parent()?;
        let root = progs.parent()?.parent()?.parent()?.parent()?.parent()?;
        let t = KernelTree::new(root);
        t.selftests().join("progs").is_dir().then_some(t)
    }
}

/// The 7.3 tree the importer reads by default ([`super::kernel_source_dir`]).
pub fn source_tree() -> Option<KernelTree> {
    super::kernel_source_dir().map(KernelTree::new)
}

/// The directory of stand-in headers (written on first use, shared by the
/// process's imports).
fn stub_dir() -> Result<PathBuf, String> {
    let key = fnv64([VMLINUX_H, HELPER_DEFS_H, FILTER_H, ARM64_BPF_PERF_EVENT_H].concat().as_bytes());
    let base = std::env::temp_dir().join(format!("bpf-selftest-import-{key:016x}"));
    let files: &[(&str, &str)] = &[
        ("include/vmlinux.h", VMLINUX_H),
        ("include/bpf_helper_defs.h", HELPER_DEFS_H),
        // `"../../../include/linux/filter.h"` from the selftests directory
        // and `<../../../tools/include/linux/filter.h>` from tools/include/uapi
        ("S/tools/include/linux/filter.h", FILTER_H),
        ("S/tools/testing/selftests/bpf/.keep", ""),
        ("S/tools/include/uapi/.keep", ""),
        ("arm64/asm/bpf_perf_event.h", ARM64_BPF_PERF_EVENT_H),
    ];
    for (rel, text) in files {
        let p = base.join(rel);
        if std::fs::read_to_string(&p).is_ok_and(|t| t == *text) {
            continue;
        }
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
        }
        // write and rename so that concurrent imports never see half a file
        let tag = format!("{}{:?}", std::process::id(), std::thread::current().id()).replace(|c: char| !c.is_ascii_alphanumeric(), "");
        let tmp = p.with_extension(format!("tmp{tag}"));
        std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, &p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(base)
}

/// FNV-1a, for cache keys.
pub fn fnv64(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The `-D` flags for `arch`.
pub fn defines(arch: Arch) -> Result<Vec<String>, String> {
    let target = match arch {
        Arch::X86_64 => "x86",
        Arch::Arm64 => "arm64",
        other => return Err(format!("importing for {other} is not supported (x86_64, arm64)")),
    };
    Ok([
        format!("-D__TARGET_ARCH_{target}"),
        "-DENABLE_ATOMICS_TESTS".into(),
        "-D__clang__=1".into(),
        "-D__clang_major__=19".into(),
        "-D__clang_minor__=1".into(),
        "-D__BPF_CPU_VERSION__=3".into(),
        "-D__BPF_FEATURE_ADDR_SPACE_CAST=1".into(),
        "-D__BPF_FEATURE_MAY_GOTO=1".into(),
        // clang -target bpf's own (the arena headers test it; `__bpf__`,
        // which libbpf's tail call helper tests, stays out)
        "-D__BPF__=1".into(),
    ]
    .into())
}

/// The C preprocessor (`BPF_SELFTEST_CPP`, default `cpp`).
fn cpp_program() -> String {
    std::env::var("BPF_SELFTEST_CPP").ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "cpp".into())
}

/// How long the preprocessor may run and how much it may write. A selftest
/// source takes it well under a second and a few MB; a macro that expands
/// exponentially would run, and grow, until killed.
#[derive(Clone, Debug)]
pub struct CppBounds {
    pub time: Duration,
    pub output: usize,
}

impl CppBounds {
    /// 20 s (`BPF_SELFTEST_CPP_TIMEOUT`, seconds, overrides it) and 256 MiB.
    pub fn get() -> CppBounds {
        let secs = std::env::var("BPF_SELFTEST_CPP_TIMEOUT").ok().and_then(|v| v.parse::<f64>().ok()).filter(|s| s.is_finite() && *s > 0.0).unwrap_or(20.0);
        CppBounds { time: Duration::from_secs_f64(secs), output: 256 << 20 }
    }
}

/// Why a bounded run gave no output.
#[derive(Debug)]
pub enum Bounded {
    Spawn(std::io::Error),
    /// Killed at the time bound.
    Time(Duration),
    /// Killed when its output passed the bound.
    Output(usize),
}

impl std::fmt::Display for Bounded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bounded::Spawn(e) => write!(f, "{e}"),
            Bounded::Time(t) => write!(
                f,
                "the C preprocessor was still running after {:.1} s and was stopped (a macro that expands exponentially?); \
                 BPF_SELFTEST_CPP_TIMEOUT=SECONDS gives it longer",
                t.as_secs_f64()
            ),
            Bounded::Output(n) => write!(f, "the C preprocessor's output passed {} MiB and it was stopped (a macro that expands exponentially?)", n >> 20),
        }
    }
}

/// Runs `cmd` (stdin closed) with its output read as it comes, killed
/// with its process group (SIGKILL, then reaped) at the time or output
/// bound; killed too if this process dies first (the group's leader; its
/// children then write into a pipe nobody reads, and die of SIGPIPE).
/// Its stderr is kept up to a MiB.
pub fn run_bounded(mut cmd: Command, bounds: &CppBounds) -> Result<std::process::Output, Bounded> {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::sync::mpsc;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // its own process group: `cpp` is a driver, the preprocessing is its
    // child's (`cc1 -E`), and the kill must reach both
    cmd.process_group(0);
    // SAFETY: only prctl, async-signal-safe, between fork and exec
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(Bounded::Spawn)?;
    // stdout is read up to the bound (then the reader says so and stops);
    // stderr up to a MiB, the rest drained
    let (over_tx, over_rx) = mpsc::channel();
    let mut out_pipe = child.stdout.take();
    let cap = bounds.output;
    let out_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let Some(p) = out_pipe.as_mut() else { return buf };
        let mut chunk = vec![0u8; 64 << 10];
        while let Ok(n @ 1..) = p.read(&mut chunk) {
            if buf.len() + n > cap {
                let _ = over_tx.send(());
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        buf
    });
    let mut err_pipe = child.stderr.take();
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let Some(p) = err_pipe.as_mut() else { return buf };
        let mut chunk = vec![0u8; 16 << 10];
        while let Ok(n @ 1..) = p.read(&mut chunk) {
            let room = (1usize << 20).saturating_sub(buf.len());
            buf.extend_from_slice(&chunk[..n.min(room)]);
        }
        buf
    });
    let start = Instant::now();
    let mut stopped = None;
    let status = loop {
        if let Ok(Some(st)) = child.try_wait() {
            break st;
        }
        let left = bounds.time.saturating_sub(start.elapsed()).min(Duration::from_millis(50));
        let over = match over_rx.recv_timeout(left) {
            Ok(()) => true,
            Err(mpsc::RecvTimeoutError::Timeout) => false,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // stdout closed: the child is about to exit
                std::thread::sleep(left.min(Duration::from_millis(5)));
                false
            }
        };
        if over || start.elapsed() >= bounds.time {
            // SAFETY: a signal to the group this child leads
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let st = child.wait().map_err(Bounded::Spawn)?;
            stopped = Some(if over { Bounded::Output(bounds.output) } else { Bounded::Time(bounds.time) });
            break st;
        }
    };
    let stdout = out_thread.join().unwrap_or_default();
    let stderr = err_thread.join().unwrap_or_default();
    match stopped {
        Some(why) => Err(why),
        None => Ok(std::process::Output { status, stdout, stderr }),
    }
}

/// The include path: the stand-ins, then the Makefile's directories.
pub fn include_dirs(tree: &KernelTree, arch: Arch) -> Result<Vec<PathBuf>, String> {
    let stubs = stub_dir()?;
    let st = tree.selftests();
    let mut v = Vec::new();
    if arch == Arch::Arm64 {
        v.push(stubs.join("arm64"));
    }
    v.push(stubs.join("include"));
    v.push(tree.root.join("tools/lib"));
    v.push(stubs.join("S/tools/testing/selftests/bpf"));
    v.push(st.clone());
    v.push(stubs.join("S/tools/include/uapi"));
    // The Makefile's APIDIR (tools/include/uapi) and TOOLSINCDIR
    // (tools/include) are left out: their `asm/` headers reach into
    // `tools/arch` and `<uapi/asm-generic/...>` by paths that only the
    // kernel's own build sets up, and the UAPI headers the tests need are
    // the same in include/uapi (below; filter.h is a stand-in).
    v.push(stubs.join("S/tools/include"));
    v.push(st.join("libarena/include"));
    v.push(tree.root.join("include/uapi"));
    // a source outside the tree still finds bpf_misc.h and its neighbours
    v.push(tree.progs());
    Ok(v)
}

/// Preprocesses `file` (a selftest source of `tree`) for `arch`; the output
/// keeps line markers so items can be traced to the file they come from.
pub fn preprocess(file: &Path, tree: &KernelTree, arch: Arch) -> Result<String, String> {
    preprocess_within(file, tree, arch, &CppBounds::get())
}

/// [`preprocess`] within `bounds`.
pub fn preprocess_within(file: &Path, tree: &KernelTree, arch: Arch, bounds: &CppBounds) -> Result<String, String> {
    let mut cmd = Command::new(cpp_program());
    cmd.arg("-std=gnu11").args(defines(arch)?);
    for d in include_dirs(tree, arch)? {
        cmd.arg("-I").arg(d);
    }
    cmd.arg(file);
    let out = match run_bounded(cmd, bounds) {
        Ok(out) => out,
        Err(Bounded::Spawn(e)) => return Err(format!("running {}: {e} (gcc's cpp is needed to import C sources)", cpp_program())),
        Err(over) => return Err(format!("{}: {over}", file.display())),
    };
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().find(|l| l.contains("error")).unwrap_or_else(|| err.lines().next().unwrap_or(""));
        return Err(format!("{}: the C preprocessor failed: {first}", file.display()));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("{}: the preprocessed text is not UTF-8", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2^40 tokens from 41 lines: stopped at the bound, in seconds, saying
    /// why (the headers need no kernel tree: a missing include directory
    /// is no error to cpp, and the file includes nothing).
    #[test]
    fn an_exponential_macro_is_stopped_at_the_bound() {
        if Command::new(cpp_program()).arg("--version").output().is_err() {
            eprintln!("skipped: no {}", cpp_program());
            return;
        }
        let dir = std::env::temp_dir().join(format!("bpf-selftest-cpp-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("expo.c");
        let mut src = String::from("#define A0 x\n");
        for i in 1..=40 {
            src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
        }
        src.push_str("A40\n");
        std::fs::write(&file, src).unwrap();
        let t0 = Instant::now();
        let r = preprocess_within(&file, &KernelTree::new(dir.join("no-tree")), Arch::X86_64, &CppBounds { time: Duration::from_secs(2), output: 64 << 20 });
        let took = t0.elapsed();
        let _ = std::fs::remove_dir_all(&dir);
        let e = r.expect_err("2^40 tokens");
        assert!(e.contains("expo.c: the C preprocessor") && e.contains("was stopped"), "{e}");
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn a_run_past_its_time_is_killed_and_reaped() {
        let t0 = Instant::now();
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let r = run_bounded(cmd, &CppBounds { time: Duration::from_millis(300), output: 1 << 20 });
        assert!(matches!(r, Err(Bounded::Time(_))), "{r:?}");
        assert!(t0.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_run_past_its_output_is_killed() {
        let mut cmd = Command::new("yes");
        cmd.arg("0123456789");
        let r = run_bounded(cmd, &CppBounds { time: Duration::from_secs(20), output: 1 << 20 });
        assert!(matches!(r, Err(Bounded::Output(_))), "{r:?}");
        // within both bounds: everything it wrote
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let o = run_bounded(cmd, &CppBounds { time: Duration::from_secs(20), output: 1 << 20 }).unwrap();
        assert_eq!((o.stdout.as_slice(), o.stderr.as_slice(), o.status.code()), (&b"out\n"[..], &b"err\n"[..], Some(3)));
    }
}
