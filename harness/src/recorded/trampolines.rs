//! The BPF trampolines 7.3 builds (`arch_prepare_bpf_trampoline`), read
//! back from a running guest: `expected/linux-7.3/<arch>/trampolines/<case>.txt`.
//!
//! A case is a kernel function and the tracing programs attached to it
//! (fentry, fexit, fmod_ret; each `r0 = 0; exit`). The recorder loads them,
//! attaches each with `BPF_LINK_CREATE`, finds the trampoline's image by
//! its ksym (`bpf_trampoline_<key>`; `bpf_trampoline_compute_key` sets bit
//! 31 for a kernel function, `key = (u64)btf_obj_id << 32 | 0x80000000 |
//! btf_id`, vmlinux's BTF object being id 1), and reads
//! it through `/proc/kcore` (the ELF program header that maps its address).
//! The kernel copies the whole allocation (`arch_bpf_trampoline_size`,
//! code plus `BPF_INSN_SAFETY`) from a scratch buffer whose tail is
//! whatever was there, so only the code is kept: up to and with the
//! trampoline's one return (`ret`, and the `int3` after it on x86 with
//! `CONFIG_MITIGATION_SLS`, or a `jmp` to the return thunk).
//!
//! Beside the bytes a golden names every kernel address the image can
//! embed, from `/proc/kallsyms` and the programs' `jited_ksyms`: the image's
//! own address, the traced function, each program's `bpf_func`, the
//! enter/exit functions. Heap pointers (`struct bpf_prog *`, the
//! `struct bpf_tramp_image *`) have no symbol: whoever compares images
//! masks them.
//!
//! File format (`#` lines are the header):
//!
//! ```text
//! case bpf_fentry_test1.fentry+fexit
//! func bpf_fentry_test1 btf_id 61234
//! model nr_args 1 ret_size 4 arg_size 4
//! prog 0 fentry fentry0 cookie 0x0
//! sym image bpf_trampoline_4294968530 ffffffffa0001000
//! sym func bpf_fentry_test1 ffffffff81234560
//! sym prog0 bpf_prog_8e2e0b6a6b2b1c1d_fentry0 ffffffffa0002f48
//! sym __bpf_prog_enter_recur __bpf_prog_enter_recur ffffffff81300000
//! len 171
//! hex 0000 f30f1efa...        (32 bytes a line)
//! jited                        (test_loader's disassembly, to read)
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::btf::{BTF_KIND_FUNC, Btf};
use crate::jit::trampoline::{BpfTrampProgType, BtfFuncModel, RunCtxLayout, TrampAddrs};
use crate::sys::{BpfCall, BpfSys, attr, get_u32, get_u64};
use crate::target::Arch;

/// `BPF_PROG_TYPE_TRACING`.
const BPF_PROG_TYPE_TRACING: u32 = 26;
/// `BPF_LINK_CREATE`.
const BPF_LINK_CREATE: u32 = 28;
const KCORE: &str = "/proc/kcore";
const KALLSYMS: &str = "/proc/kallsyms";
/// More than any trampoline of these cases takes.
const IMAGE_WINDOW: u64 = 4096;

pub use crate::jit::trampoline::BpfTrampProgType as TrampKind;

/// One recorded case: a function and what is attached to it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrampCase {
    pub func: String,
    pub progs: Vec<TrampKind>,
    /// Each program's link cookie (`BPF_LINK_CREATE`'s `tracing.cookie`),
    /// none when empty.
    pub cookies: Vec<u64>,
    /// The programs call `bpf_get_func_ip` (the trampoline stores the
    /// function's address: `BPF_TRAMP_F_IP_ARG`).
    pub func_ip: bool,
    /// The programs are sleepable (`BPF_F_SLEEPABLE`: run between
    /// `__bpf_prog_enter_sleepable` and its exit).
    pub sleepable: bool,
}

impl TrampCase {
    /// `bpf_fentry_test1.fentry+fexit`, then `.cookies`, `.func_ip`,
    /// `.sleepable` for those variants.
    pub fn name(&self) -> String {
        let cookies = if self.cookies.is_empty() { "" } else { ".cookies" };
        let func_ip = if self.func_ip { ".func_ip" } else { "" };
        let sleepable = if self.sleepable { ".sleepable" } else { "" };
        format!("{}.{}{cookies}{func_ip}{sleepable}", self.func, self.progs.iter().map(|k| k.name()).collect::<Vec<_>>().join("+"))
    }
}

/// The cases recorded: one-argument, three- and six-argument functions of
/// `net/bpf/test_run.c`, `bpf_modify_return_test` (the fmod_ret target),
/// and functions of the BPF core with arguments past the six registers or
/// structs passed by value (attached, never called by the recording).
pub fn cases(arch: Arch) -> Vec<TrampCase> {
    use BpfTrampProgType::*;
    let c =
        |func: &str, progs: &[TrampKind]| TrampCase { func: func.to_string(), progs: progs.to_vec(), cookies: Vec::new(), func_ip: false, sleepable: false };
    // a system call: ALLOW_ERROR_INJECTION, so sleepable programs may trace it
    let getpgid = if arch == Arch::X86_64 { "__x64_sys_getpgid" } else { "__arm64_sys_getpgid" };
    vec![
        c("bpf_fentry_test1", &[Fentry]),
        c("bpf_fentry_test1", &[Fexit]),
        c("bpf_fentry_test1", &[Fentry, Fexit]),
        c("bpf_fentry_test1", &[Fentry, Fentry]),
        // cookies: one an imm32 can carry, one only a movabs can
        TrampCase { cookies: vec![0x1234_5678, 0x1122_3344_5566_7788], ..c("bpf_fentry_test1", &[Fentry, Fexit]) },
        TrampCase { func_ip: true, ..c("bpf_fentry_test1", &[Fentry, Fexit]) },
        TrampCase { sleepable: true, ..c(getpgid, &[Fentry, Fexit]) },
        c("bpf_fentry_test3", &[Fentry]),
        c("bpf_fentry_test3", &[Fentry, Fexit]),
        c("bpf_fentry_test6", &[Fentry]),
        c("bpf_fentry_test6", &[Fentry, Fexit]),
        c("bpf_fentry_test7", &[Fentry, Fexit]),
        c("bpf_modify_return_test", &[ModifyReturn]),
        c("bpf_modify_return_test", &[ModifyReturn, Fexit]),
        c("bpf_modify_return_test", &[Fentry, ModifyReturn, Fexit]),
        c("bpf_modify_return_test", &[ModifyReturn, ModifyReturn]),
        // seven arguments, the last (an int) on the stack: clean_stack_garbage
        c("bpf_modify_return_test2", &[Fentry]),
        c("bpf_modify_return_test2", &[Fentry, Fexit]),
        c("bpf_modify_return_test2", &[ModifyReturn, Fexit]),
        // eleven arguments, five on the stack
        c("btf_find_field_one", &[Fentry, Fexit]),
        // a 16-byte struct passed by value (bpfptr_t) in two registers
        c("bpf_check_uarg_tail_zero", &[Fentry, Fexit]),
        // 16-byte structs past the registers, an int after them in r9
        c("bpf_log_attr_init", &[Fentry, Fexit]),
        // ten arguments, four on the stack
        c("bpf_diag_mem_bounds", &[Fexit]),
    ]
}

/// The kernel functions a trampoline calls, recorded where kallsyms has them.
pub const HELPER_SYMS: [&str; 9] = [
    "__bpf_prog_enter_recur",
    "__bpf_prog_exit_recur",
    "__bpf_prog_enter",
    "__bpf_prog_exit",
    "__bpf_prog_enter_sleepable_recur",
    "__bpf_prog_exit_sleepable_recur",
    "__bpf_tramp_enter",
    "__bpf_tramp_exit",
    "__x86_return_thunk",
];

/// One attached program of a golden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrampProg {
    pub kind: TrampKind,
    /// Its name (`fentry0`); its ksym is `bpf_prog_<tag>_<name>`.
    pub name: String,
    /// Its link's cookie.
    pub cookie: u64,
    /// It calls `bpf_get_func_ip`.
    pub func_ip: bool,
    /// It is sleepable.
    pub sleepable: bool,
}

/// A golden as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampGolden {
    pub header: Vec<String>,
    pub case: String,
    pub func: String,
    pub btf_id: u32,
    /// `struct btf_func_model` as `btf_distill_func_proto` fills it.
    pub nr_args: u8,
    pub ret_size: u8,
    pub arg_size: Vec<u8>,
    /// The traced function's first 16 bytes, as the attach patched them
    /// (x86-64: `endbr64` under IBT, then the `call` of the trampoline).
    pub func_head: Vec<u8>,
    /// `sizeof(struct bpf_tramp_run_ctx)` and `offsetof(.., bpf_cookie)`,
    /// from the image's BTF.
    pub run_ctx_size: u32,
    pub run_ctx_cookie_off: u32,
    /// The attached programs, in attach order.
    pub progs: Vec<TrampProg>,
    /// `(role, symbol, address)`: `image`, `func`, `prog<i>`, or a helper's name.
    pub syms: Vec<(String, String, u64)>,
    pub image: Vec<u8>,
    /// test_loader's disassembly of `image`.
    pub jited: Vec<String>,
}

impl TrampGolden {
    /// The address of `role`.
    pub fn sym(&self, role: &str) -> Option<u64> {
        self.syms.iter().find(|(r, _, _)| r == role).map(|s| s.2)
    }

    /// The recorded `struct btf_func_model`.
    pub fn func_model(&self) -> Result<BtfFuncModel, String> {
        let m = BtfFuncModel { ret_size: self.ret_size, arg_size: self.arg_size.clone(), ..BtfFuncModel::default() };
        if m.nr_args() != self.nr_args as usize {
            return Err(format!("{}: nr_args {} but {} argument sizes", self.case, self.nr_args, self.arg_size.len()));
        }
        Ok(m)
    }

    /// The recorded `struct bpf_tramp_run_ctx` layout.
    pub fn run_ctx(&self) -> RunCtxLayout {
        RunCtxLayout { size: self.run_ctx_size, bpf_cookie: self.run_ctx_cookie_off }
    }

    /// The kernel addresses an arch's `arch_prepare_bpf_trampoline` is
    /// given, as recorded, with the `struct bpf_tramp_image *` (`im`, which
    /// has no symbol) and whether the traced function starts with `endbr64`.
    pub fn tramp_addrs(&self, im: u64, func_endbr: bool) -> Result<TrampAddrs, String> {
        let sym = |role: &str| self.sym(role).ok_or_else(|| format!("{}: no address of {role}", self.case));
        Ok(TrampAddrs {
            image: sym("image")?,
            func: sym("func")?,
            func_endbr,
            im,
            bpf_prog_enter_recur: sym("__bpf_prog_enter_recur")?,
            bpf_prog_exit_recur: sym("__bpf_prog_exit_recur")?,
            bpf_prog_enter: sym("__bpf_prog_enter")?,
            bpf_prog_exit: sym("__bpf_prog_exit")?,
            bpf_prog_enter_sleepable_recur: sym("__bpf_prog_enter_sleepable_recur")?,
            bpf_prog_exit_sleepable_recur: sym("__bpf_prog_exit_sleepable_recur")?,
            bpf_tramp_enter: sym("__bpf_tramp_enter")?,
            bpf_tramp_exit: sym("__bpf_tramp_exit")?,
        })
    }
}

pub fn dir(root: &Path, arch: Arch) -> PathBuf {
    root.join("linux-7.3").join(arch.name()).join("trampolines")
}

pub fn render(g: &TrampGolden) -> String {
    let mut s = String::new();
    for h in &g.header {
        s.push_str(&format!("# {h}\n"));
    }
    s.push_str(&format!("case {}\nfunc {} btf_id {}\n", g.case, g.func, g.btf_id));
    let sizes: Vec<String> = g.arg_size.iter().map(|a| a.to_string()).collect();
    s.push_str(&format!("model nr_args {} ret_size {} arg_size {}\n", g.nr_args, g.ret_size, sizes.join(",")));
    s.push_str(&format!("func_head {}\n", hex(&g.func_head)));
    s.push_str(&format!("layout bpf_tramp_run_ctx size {} bpf_cookie {}\n", g.run_ctx_size, g.run_ctx_cookie_off));
    for (i, p) in g.progs.iter().enumerate() {
        let func_ip = if p.func_ip { " func_ip" } else { "" };
        let sleepable = if p.sleepable { " sleepable" } else { "" };
        s.push_str(&format!("prog {i} {} {} cookie {:#x}{func_ip}{sleepable}\n", p.kind.name(), p.name, p.cookie));
    }
    for (role, name, addr) in &g.syms {
        s.push_str(&format!("sym {role} {name} {addr:016x}\n"));
    }
    s.push_str(&format!("len {}\n", g.image.len()));
    for (k, chunk) in g.image.chunks(32).enumerate() {
        s.push_str(&format!("hex {:04x} {}\n", k * 32, hex(chunk)));
    }
    s.push_str("jited\n");
    for l in &g.jited {
        s.push_str(l);
        s.push('\n');
    }
    s
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    h.len().is_multiple_of(2).then_some(())?;
    (0..h.len() / 2).map(|k| u8::from_str_radix(h.get(2 * k..2 * k + 2)?, 16).ok()).collect()
}

pub fn parse(text: &str) -> Result<TrampGolden, String> {
    let mut g = TrampGolden::default();
    let mut lines = text.lines().enumerate();
    let mut len = None;
    for (n, l) in lines.by_ref() {
        let bad = || format!("line {}: cannot read '{l}'", n + 1);
        if let Some(h) = l.strip_prefix('#') {
            g.header.push(h.trim_start().to_string());
            continue;
        }
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["case", c] => g.case = c.to_string(),
            ["func", f, "btf_id", id] => {
                g.func = f.to_string();
                g.btf_id = id.parse().map_err(|_| bad())?;
            }
            ["model", "nr_args", n, "ret_size", r, "arg_size", a] => {
                g.nr_args = n.parse().map_err(|_| bad())?;
                g.ret_size = r.parse().map_err(|_| bad())?;
                g.arg_size = a.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
            }
            ["model", "nr_args", n, "ret_size", r, "arg_size"] => {
                g.nr_args = n.parse().map_err(|_| bad())?;
                g.ret_size = r.parse().map_err(|_| bad())?;
            }
            ["func_head", h] => g.func_head = unhex(h).ok_or_else(bad)?,
            ["layout", "bpf_tramp_run_ctx", "size", n, "bpf_cookie", o] => {
                g.run_ctx_size = n.parse().map_err(|_| bad())?;
                g.run_ctx_cookie_off = o.parse().map_err(|_| bad())?;
            }
            ["prog", _, k, name, "cookie", c, rest @ ..] if rest.iter().all(|w| ["func_ip", "sleepable"].contains(w)) => g.progs.push(TrampProg {
                kind: TrampKind::parse(k).ok_or_else(bad)?,
                name: name.to_string(),
                cookie: u64::from_str_radix(c.trim_start_matches("0x"), 16).map_err(|_| bad())?,
                func_ip: rest.contains(&"func_ip"),
                sleepable: rest.contains(&"sleepable"),
            }),
            ["sym", role, name, addr] => g.syms.push((role.to_string(), name.to_string(), u64::from_str_radix(addr, 16).map_err(|_| bad())?)),
            ["len", n] => len = Some(n.parse::<usize>().map_err(|_| bad())?),
            ["hex", _, h] => g.image.extend(unhex(h).ok_or_else(bad)?),
            ["jited"] => break,
            _ => return Err(bad()),
        }
    }
    g.jited = lines.map(|(_, l)| l.to_string()).collect();
    if len != Some(g.image.len()) {
        return Err(format!("len {len:?} but {} image bytes", g.image.len()));
    }
    Ok(g)
}

/// What must not drift between two recordings: everything but the header
/// and where things landed (the image, the programs, heap pointers): the
/// disassembly with kernel addresses masked as the JIT goldens mask them.
pub fn stable(g: &TrampGolden) -> Vec<String> {
    let mut out = vec![format!("case {} func {} btf_id {}", g.case, g.func, g.btf_id)];
    out.push(format!("model {} {} {:?}", g.nr_args, g.ret_size, g.arg_size));
    out.push(format!("layout {} {}", g.run_ctx_size, g.run_ctx_cookie_off));
    out.extend(g.progs.iter().map(|p| format!("prog {} {} {:#x} {} {}", p.kind.name(), p.name, p.cookie, p.func_ip, p.sleepable)));
    out.extend(g.syms.iter().filter(|(r, _, _)| r != "image" && !r.starts_with("prog")).map(|(r, n, a)| format!("sym {r} {n} {a:x}")));
    let (masked, _) = crate::cli::record::mask_jited_addresses(&g.jited);
    out.extend(masked);
    out
}

/// `btf_distill_func_proto` for the sizes the trampoline needs: the
/// return value's size (0 for void) and each argument's.
pub fn func_model(btf: &Btf, func_id: u32) -> Result<(u8, Vec<u8>), String> {
    let proto = btf.type_by_id(func_id).ok_or_else(|| format!("no BTF type [{func_id}]"))?.size_or_type;
    let ret = btf.type_by_id(proto).ok_or_else(|| format!("no BTF type [{proto}]"))?.size_or_type;
    let size = |t: u32| -> Result<u8, String> {
        let s = btf.resolve_size(btf.skip_mods_and_typedefs(t)).map_err(|e| e.0)?;
        u8::try_from(s).map_err(|_| format!("argument of {s} bytes"))
    };
    let ret_size = if ret == 0 { 0 } else { size(ret)? };
    let args = btf.params(proto).iter().map(|p| size(p.type_id)).collect::<Result<Vec<_>, _>>()?;
    Ok((ret_size, args))
}

/// `/proc/kallsyms` as `(address, name)`, in its order.
fn kallsyms(sys: &mut dyn BpfSys) -> Result<Vec<(u64, String)>, String> {
    let data = read(sys, KALLSYMS, 0, 1 << 28)?;
    let text = String::from_utf8_lossy(&data);
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let addr = u64::from_str_radix(w.next()?, 16).ok()?;
            let name = w.nth(1)?;
            Some((addr, name.to_string()))
        })
        .collect())
}

fn read(sys: &mut dyn BpfSys, path: &str, off: u64, len: u64) -> Result<Vec<u8>, String> {
    match sys.read_range(path, off, len).map_err(|e| e.to_string())? {
        Ok(d) => Ok(d),
        Err(errno) => Err(format!("reading {path} at {off:#x}: {}", crate::sys::errno_desc(errno))),
    }
}

/// `len` bytes of kernel memory at `addr`, through `/proc/kcore`'s
/// `PT_LOAD` headers.
fn read_kernel(sys: &mut dyn BpfSys, addr: u64, len: u64) -> Result<Vec<u8>, String> {
    let ehdr = read(sys, KCORE, 0, 64)?;
    if ehdr.get(..4) != Some(b"\x7fELF") {
        return Err("/proc/kcore is not ELF".into());
    }
    let phoff = get_u64(&ehdr, 0x20);
    let phentsize = u64::from(u16::from_le_bytes([ehdr[0x36], ehdr[0x37]]));
    let phnum = u64::from(u16::from_le_bytes([ehdr[0x38], ehdr[0x39]]));
    let phdrs = read(sys, KCORE, phoff, phentsize * phnum)?;
    for k in 0..phnum as usize {
        let ph = &phdrs[k * phentsize as usize..];
        let (p_type, p_offset, p_vaddr, p_memsz) = (get_u32(ph, 0), get_u64(ph, 8), get_u64(ph, 16), get_u64(ph, 40));
        if p_type == 1 && addr >= p_vaddr && addr.wrapping_sub(p_vaddr) < p_memsz {
            let n = len.min(p_memsz - (addr - p_vaddr));
            return read(sys, KCORE, p_offset + (addr - p_vaddr), n);
        }
    }
    Err(format!("/proc/kcore maps no {addr:#x}"))
}

/// `AARCH64_BREAK_FAULT` (`brk #0x100`), what arm64's `jit_fill_hole`
/// fills the rest of an allocation with.
const ARM64_FILL: u32 = 0xd420_2000;

/// The code of a trampoline image: up to and with its return.
///
/// x86-64 copies its scratch buffer's tail (`BPF_INSN_SAFETY` bytes) after
/// the code: the code ends at the one `ret` (with the `int3` of
/// `CONFIG_MITIGATION_SLS`) or `jmp` to the return thunk. arm64 copies
/// exactly the code into an allocation padded with `AARCH64_BREAK_FAULT`;
/// its trampoline also returns into the traced function's body to call it
/// (`adr x30, #8; ret x10`), so the code ends at the first other `ret`
/// that the padding or the end of a 64-byte chunk follows.
fn code_len(arch: Arch, window: &[u8], base: u64, return_thunk: Option<u64>) -> Result<usize, String> {
    let mut off = 0;
    let mut prev_adr_lr = false;
    while off < window.len() {
        let i = crate::jit_disasm::disasm_insn(arch, &window[off..], base + off as u64, &|_| None)
            .ok_or_else(|| format!("undecodable instruction at +{off:#x} of the image"))?;
        off += i.len;
        let op = i.text.split_whitespace().next().unwrap_or("");
        match arch {
            Arch::X86_64 => {
                let thunk_jump = op.starts_with("jmp") && i.branch_target.is_some() && i.branch_target == return_thunk;
                if op.starts_with("ret") || thunk_jump {
                    if op.starts_with("ret") && window.get(off) == Some(&0xcc) {
                        off += 1;
                    }
                    return Ok(off);
                }
            }
            _ => {
                let next = get_u32(window, off);
                if op == "ret" && !prev_adr_lr && (off % 64 == 0 || next == ARM64_FILL) {
                    return Ok(off);
                }
                prev_adr_lr = i.text.trim_start().starts_with("adr\tx30, #8");
            }
        }
    }
    Err("no return in the image window".into())
}

/// Loads `r0 = 0; exit` (after `call bpf_get_func_ip` with `func_ip`) as
/// a tracing program of `kind` on `btf_id`.
fn load_prog(sys: &mut dyn BpfSys, kind: TrampKind, btf_id: u32, name: &str, func_ip: bool, sleepable: bool) -> Result<i32, String> {
    let mut insns = Vec::new();
    if func_ip {
        // call bpf_get_func_ip (BPF_FUNC_get_func_ip = 173), r1 being the ctx
        insns.extend([0x85u8, 0, 0, 0, 173, 0, 0, 0]);
    }
    insns.extend([0xb7u8, 0, 0, 0, 0, 0, 0, 0, 0x95, 0, 0, 0, 0, 0, 0, 0]);
    let mut p = attr::ProgLoad {
        // BPF_F_SLEEPABLE
        prog_flags: if sleepable { 1 << 4 } else { 0 },
        prog_type: BPF_PROG_TYPE_TRACING,
        insns: &insns,
        license: "GPL",
        name,
        expected_attach_type: kind.attach_type(),
        attach_btf_id: btf_id,
        ..Default::default()
    };
    let (call, _) = attr::prog_load(&p);
    let r = sys.bpf(&call).map_err(|e| e.to_string())?;
    if let Ok(fd) = r.fd() {
        return Ok(fd);
    }
    p.log_level = 1;
    p.log_size = 1 << 16;
    let (call, log) = attr::prog_load(&p);
    let r = sys.bpf(&call).map_err(|e| e.to_string())?;
    let text = log.map(|b| String::from_utf8_lossy(r.buf(b)).trim_end_matches('\0').to_string()).unwrap_or_default();
    Err(format!("loading {name} failed: {}\n{text}", crate::sys::errno_desc(r.errno)))
}

/// The program's `bpf_func` and its ksym name (`bpf_prog_<tag>_<name>`).
fn prog_ksym(sys: &mut dyn BpfSys, fd: i32, name: &str) -> Result<(u64, String), String> {
    use attr::prog_info::*;
    let mut info = vec![0u8; SIZE];
    info[NR_JITED_KSYMS..NR_JITED_KSYMS + 4].copy_from_slice(&1u32.to_le_bytes());
    let mut call = attr::obj_get_info(fd, info);
    let ksyms = call.ptr_in_buf(1, JITED_KSYMS, vec![0; 8], true);
    let r = sys.bpf(&call).map_err(|e| e.to_string())?;
    if r.ret < 0 {
        return Err(format!("BPF_OBJ_GET_INFO_BY_FD: {}", crate::sys::errno_desc(r.errno)));
    }
    let tag = hex(r.buf(1).get(TAG..TAG + 8).unwrap_or(&[]));
    Ok((get_u64(r.buf(ksyms), 0), format!("bpf_prog_{tag}_{name}")))
}

/// `BPF_LINK_CREATE` of a tracing program: its attach type, no target fd
/// and so no `target_btf_id` (`bpf_tracing_prog_attach` wants both or
/// neither; the program's `attach_btf_id` names the function).
fn link_create(sys: &mut dyn BpfSys, prog_fd: i32, kind: TrampKind, cookie: u64) -> Result<i32, String> {
    let mut c = BpfCall::new(BPF_LINK_CREATE, 32);
    c.put_u32(0, prog_fd as u32);
    c.put_u32(8, kind.attach_type());
    // tracing.cookie, after the (zero) target_btf_id it overlays
    c.put_u64(24, cookie);
    let r = sys.bpf(&c).map_err(|e| e.to_string())?;
    r.fd().map_err(|e| format!("BPF_LINK_CREATE ({}): {}", kind.name(), crate::sys::errno_desc(e)))
}

/// Records one case in the guest behind `sys`.
pub fn record_case(sys: &mut dyn BpfSys, btf: &Btf, arch: Arch, case: &TrampCase) -> Result<TrampGolden, String> {
    let btf_id = btf.find_by_name_kind(&case.func, BTF_KIND_FUNC).ok_or_else(|| format!("{}: not in vmlinux BTF", case.func))?;
    let (ret_size, arg_size) = func_model(btf, btf_id).map_err(|e| format!("{}: {e}", case.func))?;
    let mut fds = Vec::new();
    let r = record_with(sys, arch, case, btf_id, &mut fds);
    let _ = sys.close(&fds);
    let mut g = r?;
    let run_ctx = btf.find_by_name_kind("bpf_tramp_run_ctx", crate::btf::BTF_KIND_STRUCT).ok_or("no struct bpf_tramp_run_ctx in vmlinux BTF")?;
    g.run_ctx_size = btf.type_by_id(run_ctx).map_or(0, |t| t.size_or_type);
    let cookie = btf.members(run_ctx).into_iter().find(|m| btf.name(m.name_off) == Some("bpf_cookie")).ok_or("no bpf_tramp_run_ctx.bpf_cookie")?;
    g.run_ctx_cookie_off = (cookie.offset & 0xff_ffff) / 8;
    g.nr_args = arg_size.len() as u8;
    g.ret_size = ret_size;
    g.arg_size = arg_size;
    Ok(g)
}

fn record_with(sys: &mut dyn BpfSys, arch: Arch, case: &TrampCase, btf_id: u32, fds: &mut Vec<i32>) -> Result<TrampGolden, String> {
    let mut g = TrampGolden { case: case.name(), func: case.func.clone(), btf_id, ..Default::default() };
    let mut prog_syms = Vec::new();
    for (i, &kind) in case.progs.iter().enumerate() {
        let name = format!("{}{i}", kind.name().replace('_', ""));
        let fd = load_prog(sys, kind, btf_id, &name, case.func_ip, case.sleepable)?;
        fds.push(fd);
        prog_syms.push(prog_ksym(sys, fd, &name)?);
        g.progs.push(TrampProg { kind, name, cookie: case.cookies.get(i).copied().unwrap_or(0), func_ip: case.func_ip, sleepable: case.sleepable });
    }
    for (i, &kind) in case.progs.iter().enumerate() {
        let link = link_create(sys, fds[i], kind, g.progs[i].cookie)?;
        fds.push(link);
    }
    let syms = kallsyms(sys)?;
    let key = 1u64 << 32 | 0x8000_0000 | u64::from(btf_id);
    let tramp_name = format!("bpf_trampoline_{key}");
    // an image replaced by a later attach stays listed until it is freed;
    // the newest is added last
    let image = syms.iter().rev().find(|(_, n)| *n == tramp_name).map(|s| s.0).ok_or_else(|| {
        let bpf: Vec<&str> = syms.iter().rev().take(4).map(|s| s.1.as_str()).collect();
        format!("no {tramp_name} in /proc/kallsyms (of {} symbols; the last: {})", syms.len(), bpf.join(" "))
    })?;
    let lookup = |name: &str| syms.iter().find(|(_, n)| n == name).map(|s| s.0);
    g.syms.push(("image".into(), tramp_name, image));
    g.syms.push(("func".into(), case.func.clone(), lookup(&case.func).ok_or_else(|| format!("no {} in /proc/kallsyms", case.func))?));
    for (i, (addr, name)) in prog_syms.into_iter().enumerate() {
        g.syms.push((format!("prog{i}"), name, addr));
    }
    for h in HELPER_SYMS {
        if let Some(a) = lookup(h) {
            g.syms.push((h.to_string(), h.to_string(), a));
        }
    }
    // the image ends before the next BPF image the kernel names
    let next = syms.iter().map(|s| s.0).filter(|&a| a > image && a - image < IMAGE_WINDOW).min();
    g.func_head = read_kernel(sys, g.sym("func").unwrap_or(0), 16)?;
    let window = read_kernel(sys, image, next.map_or(IMAGE_WINDOW, |a| a - image))?;
    let len = code_len(arch, &window, image, lookup("__x86_return_thunk"))?;
    g.image = window[..len].to_vec();
    g.jited = crate::jit_disasm::test_loader_text(arch, std::slice::from_ref(&g.image));
    Ok(g)
}

/// `record --set trampolines`: every case on each arch, one guest per arch.
pub fn record(a: &crate::cli::record::RecordArgs) -> Result<(), String> {
    use crate::backend::Backend;
    if a.backend != "vm" {
        return Err("record --set trampolines reads the images from a vm guest (--backend vm)".into());
    }
    let vm = crate::backend::vm::VmBackend::from_env();
    let arches = a.arch.split(',').map(|s| s.trim().parse::<Arch>()).collect::<Result<Vec<_>, _>>()?;
    let (mut written, mut same, mut drift) = (0, 0, Vec::new());
    for arch in arches {
        vm.probe(arch).map_err(|u| format!("{arch}: {}", u.0))?;
        let release = crate::cli::record::release_of(&vm, arch);
        let backend = crate::cli::record::describe_backend(&vm, arch);
        let dir = dir(&a.out, arch);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let t0 = Instant::now();
        let picked: Vec<TrampCase> =
            cases(arch).into_iter().filter(|c| a.filters.is_empty() || a.filters.iter().any(|f| c.name().contains(f.as_str()))).collect();
        let goldens = vm
            .with_sys(arch, |sys, btf| {
                picked.iter().map(|c| record_case(sys, btf, arch, c).map_err(|e| format!("{arch} {}: {e}", c.name()))).collect::<Vec<_>>()
            })
            .map_err(|u| format!("{arch}: {}", u.0))?;
        for g in goldens {
            let mut g = g?;
            let path = dir.join(format!("{}.txt", g.case));
            if a.check {
                let stored = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let stored = parse(&stored).map_err(|e| format!("{}: {e}", path.display()))?;
                if stable(&stored) == stable(&g) {
                    same += 1;
                } else {
                    if drift.is_empty() {
                        eprintln!(
                            "{arch} {}: stored (-) and now (+):\n{}",
                            g.case,
                            similar::TextDiff::from_lines(&stable(&stored).join("\n"), &stable(&g).join("\n")).unified_diff()
                        );
                    }
                    drift.push(format!("{arch} {}: differs from {}", g.case, path.display()));
                }
                continue;
            }
            g.header = vec![
                format!("trampoline of {}: 7.3's arch_prepare_bpf_trampoline, read through /proc/kcore", g.case),
                format!("kernel {release}, arch {}, backend {backend}, recorded {}", arch.name(), crate::cli::record::today()),
            ];
            std::fs::write(&path, render(&g)).map_err(|e| format!("{}: {e}", path.display()))?;
            written += 1;
        }
        eprintln!("record --set trampolines {arch}: {} cases in {:.0} s", picked.len(), t0.elapsed().as_secs_f64());
        vm.shutdown(arch);
    }
    if a.check {
        println!("record --set trampolines: {same} images unchanged, {} drifted", drift.len());
        return if drift.is_empty() { Ok(()) } else { Err(drift.join("\n")) };
    }
    println!("record --set trampolines: {written} images written");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_round_trips() {
        let g = TrampGolden {
            header: vec!["h".into()],
            case: "f.fentry".into(),
            func: "f".into(),
            btf_id: 7,
            nr_args: 2,
            ret_size: 4,
            arg_size: vec![4, 8],
            func_head: vec![0xf3, 0x0f, 0x1e, 0xfa],
            run_ctx_size: 16,
            run_ctx_cookie_off: 0,
            progs: vec![TrampProg { kind: TrampKind::Fentry, name: "fentry0".into(), cookie: 0x1122_3344_5566_7788, func_ip: true, sleepable: false }],
            syms: vec![("image".into(), "bpf_trampoline_4294967303".into(), 0xffff_ffff_a000_1000)],
            image: (0..40).collect(),
            jited: vec!["\tpushq\t%rbp".into()],
        };
        assert_eq!(parse(&render(&g)), Ok(g));
    }

    #[test]
    fn case_names() {
        let names: Vec<String> = cases(Arch::X86_64).iter().map(TrampCase::name).collect();
        assert!(names.contains(&"bpf_modify_return_test.fmod_ret+fexit".to_string()));
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
