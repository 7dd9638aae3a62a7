//! What libbpf's `bpf_object__load()` and test_loader's `run_subtest()` do
//! for one program, written once against [`BpfSys`] so that the kernel
//! backend (this machine) and the vm backend (a QEMU guest) load programs
//! the same way:
//!
//! 1. resolve kfunc and kernel-variable names to vmlinux BTF ids;
//! 2. unprivileged run: clear CAP_SYS_ADMIN/NET_ADMIN/PERFMON/BPF from the
//!    effective set, give back `caps_unpriv`;
//! 3. an object's own BTF ([`BtfMode::Object`]) is loaded first, as libbpf
//!    does (if that fails, everything goes on without it: BTF is optional);
//! 4. create the maps (inner map first for map-in-map; in an unprivileged
//!    run only the types test_loader lets it create, references to the
//!    others poisoned as libbpf does), with the object's BTF type ids,
//!    write initial contents, freeze;
//! 5. patch `ld_imm64` map references with the map fds;
//! 6. load the made-up program BTF of [`BtfMode::FuncInfo`] (optional
//!    too) and the program, with `func_info` and `line_info`; a failed
//!    load at log level 0 is retried at level 1 to get the log;
//! 7. restore the capabilities, then read `verified_insns`, the xlated and
//!    jited images and the map ids, and test-run when asked.
//!
//! Not there yet, because a `LoadRequest` cannot express them: attach
//! targets other than fentry/fexit kernel functions (tp_btf, lsm,
//! freplace), other programs in
//! prog_array initialisers (libbpf's `.values = { [0] = &prog }`; the
//! loaded program itself is put in after the load), inner-map values of
//! an outer map; map BTF (spin locks, timers, kptrs) needs an object's
//! BTF.

use bpf_isa::insn::op::*;
use std::borrow::Cow;

use bpf_isa::{Insn, disasm};

use super::{BtfMode, LoadOutcome, LoadRequest, Unavailable};
use crate::btf::{self, Btf};
use crate::link::LinkReloc;
use crate::map::MapDef;
use crate::object::core::{self, RawBtf};
use crate::sys::{BpfSys, SysError, attr, cap, errno_desc, get_u32};

/// test_loader's log buffer (`TEST_LOADER_LOG_BUF_SZ`).
pub const LOG_BUF_SIZE: u32 = 2 * 1024 * 1024;

/// libbpf's poison for a reference to a map that was not created
/// (`POISON_LDIMM64_MAP_BASE`): the ld_imm64 becomes two calls of helper
/// `2001000000 + map index`, which the verifier rejects if reachable.
pub const POISON_LDIMM64_MAP_BASE: i32 = 2_001_000_000;

/// libbpf retries BPF_PROG_LOAD on EAGAIN this many times.
const PROG_LOAD_ATTEMPTS: usize = 5;

const ESRCH: i32 = 3;
const EAGAIN: i32 = 11;

/// The kernel a request is loaded into.
pub struct Target<'a> {
    /// For messages: `kernel`, `vm`.
    pub backend: &'static str,
    /// The kernel's vmlinux BTF, for kfunc and `__ksym` ids.
    pub vmlinux: Option<&'a Btf>,
    /// The kernel's vmlinux BTF with its blob, for CO-RE relocations
    /// (needed only when the request has some).
    pub core: Option<&'a RawBtf>,
}

/// Where a load departs from libbpf's and test_loader's, for the recorders
/// of sets first recorded by a tool that loaded otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadSettings {
    /// Retry a load that failed at log level 0 at level 1 for its log, as
    /// libbpf does; without the retry the log of such a load is empty.
    pub retry_at_level_1: bool,
}

impl Default for LoadSettings {
    /// libbpf's retry: what [`load`] does.
    fn default() -> LoadSettings {
        LoadSettings { retry_at_level_1: true }
    }
}

/// Loads `req` through `sys`. `Err` means the load could not be attempted
/// or its results not read (transport, capabilities, a malformed request);
/// everything the kernel said is in the `LoadOutcome`.
pub fn load(sys: &mut dyn BpfSys, target: &Target<'_>, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
    load_with(sys, target, req, &LoadSettings::default())
}

/// [`load`] with other [`LoadSettings`].
pub fn load_with(sys: &mut dyn BpfSys, target: &Target<'_>, req: &LoadRequest, how: &LoadSettings) -> Result<LoadOutcome, Unavailable> {
    let mut fds = Vec::new();
    let r = load_fds(sys, target, req, how, &mut fds);
    let closed = if fds.is_empty() { Ok(()) } else { sys.close(&fds) };
    let out = r?;
    closed.map_err(|e| unavailable(target, e))?;
    Ok(out)
}

fn unavailable(target: &Target<'_>, e: SysError) -> Unavailable {
    Unavailable(format!("{}: {e}", target.backend))
}

/// Checks that every relocation names an insn (and map) that exists.
pub fn validate(req: &LoadRequest) -> Result<(), String> {
    let n = req.prog.insns.len();
    for r in &req.prog.relocs {
        let (insn, map, wide) = match *r {
            LinkReloc::Map { insn, map } => (insn, Some(map), true),
            LinkReloc::MapValue { insn, map, .. } => (insn, Some(map), true),
            LinkReloc::Kfunc { insn, .. } => (insn, None, false),
            LinkReloc::BtfId { insn, .. } => (insn, None, true),
            LinkReloc::Core { insn, .. } => (insn, None, false),
        };
        if insn >= n || (wide && insn + 1 >= n) {
            return Err(format!("relocation {r:?} outside the program ({n} insns)"));
        }
        if wide && !req.prog.insns[insn].is_ld_imm64() {
            return Err(format!("relocation {r:?} is not on an ld_imm64"));
        }
        if let Some(m) = map.filter(|&m| m >= req.maps.len()) {
            return Err(format!("relocation {r:?} names map #{m} of {}", req.maps.len()));
        }
    }
    for m in &req.maps {
        if m.inner.as_ref().is_some_and(|i| i.inner.is_some()) {
            return Err(format!("map '{}': nested map-in-map is not supported", m.name));
        }
    }
    Ok(())
}

/// A load that failed in the loader before or instead of BPF_PROG_LOAD
/// (libbpf's `pr_warn` text goes to the log).
fn loader_failure(errno: i32, msg: String) -> Box<LoadOutcome> {
    Box::new(LoadOutcome { accepted: false, errno, log: format!("libbpf: {msg}\n"), ..LoadOutcome::default() })
}

/// libbpf's failure of a CO-RE relocation: its warnings, and the load
/// stops before `BPF_PROG_LOAD`.
pub(crate) fn core_failure(f: &core::CoreFailure) -> Box<LoadOutcome> {
    let log = f.warnings.iter().map(|w| format!("libbpf: {w}\n")).collect();
    Box::new(LoadOutcome { accepted: false, errno: f.errno, log, ..LoadOutcome::default() })
}

/// An attached program ([`super::Scenario`]) that did not load: the whole
/// load fails with its errno, its log after libbpf's message.
pub(crate) fn attached_load_failure(name: &str, out: &LoadOutcome) -> Box<LoadOutcome> {
    let mut f = loader_failure(out.errno, format!("prog '{name}': failed to load: {}", errno_desc(out.errno)));
    f.log.push_str(&out.log);
    f
}

/// libbpf's failure for a kfunc call whose name the kernel's BTF lacks: the
/// load never reaches `BPF_PROG_LOAD`.
pub(crate) fn kfunc_not_found(name: &str) -> Box<LoadOutcome> {
    loader_failure(ESRCH, format!("extern (func ksym) '{name}': not found in kernel or module BTFs"))
}

fn load_fds(sys: &mut dyn BpfSys, target: &Target<'_>, req: &LoadRequest, how: &LoadSettings, fds: &mut Vec<i32>) -> Result<LoadOutcome, Unavailable> {
    validate(req).map_err(|e| Unavailable(format!("{}: bad request '{}': {e}", target.backend, req.name)))?;
    let (req, mut insns, attach_btf_id) = match prepare_prog(target, req)? {
        Ok(p) => p,
        Err(out) => return Ok(*out),
    };
    let req = req.as_ref();

    let mut caps_old = None;
    let loaded = create_and_load(sys, req, how, &mut insns, fds, attach_btf_id, &mut caps_old);
    if let Some(old) = caps_old {
        sys.cap_effective(!0, old).map_err(|e| unavailable(target, e))?;
    }
    let (mut out, prog_fd, map_fds, obj_btf_fd) = match loaded.map_err(|e| unavailable(target, e))? {
        Loaded::Failed(out) => return Ok(*out),
        Loaded::Prog { out, prog_fd, map_fds, obj_btf_fd } => (out, prog_fd, map_fds, obj_btf_fd),
    };

    for fd in &map_fds {
        out.map_ids.push(match *fd {
            Some(fd) => map_id(sys, fd).map_err(|e| unavailable(target, e))?,
            None => 0,
        });
    }
    let Some(prog_fd) = prog_fd else { return Ok(out) };
    // init_prog_array_slots: after the load, the program's fd goes in at
    // the keys of the prog arrays that name it (the runner loads no other
    // program; the importer blocks programs reaching arrays naming others)
    let self_name = req.prog.funcs.first().map(|f| f.name.as_str());
    for (m, fd) in req.maps.iter().zip(&map_fds) {
        let Some(fd) = *fd else { continue };
        for (key, _) in m.prog_slots.iter().filter(|(_, p)| Some(p.as_str()) == self_name) {
            let r = sys.bpf(&attr::map_update_elem(fd, &key.to_le_bytes(), &prog_fd.to_le_bytes(), 0)).map_err(|e| unavailable(target, e))?;
            if r.ret < 0 {
                let msg =
                    format!("map '{}': failed to initialize slot [{key}] to prog '{}' fd={prog_fd}: {}", m.name, self_name.unwrap_or(""), errno_desc(r.errno));
                return Ok(*loader_failure(r.errno, msg));
            }
        }
    }
    read_prog_info(sys, prog_fd, req.want_jited, &mut out).map_err(|e| unavailable(target, e))?;
    // test_loader's `__jited` text of the image, as its LLVM disassembler prints it
    if req.arch.has_jit() && !out.jited_funcs.is_empty() {
        out.jited = crate::jit_disasm::test_loader_text(req.arch, &out.jited_funcs);
    }
    let attached_fds = if req.scenario.is_empty() {
        Vec::new()
    } else {
        match set_up_scenario(sys, target, req, prog_fd, &map_fds, obj_btf_fd, fds)? {
            Ok(v) => v,
            Err(failed) => return Ok(*failed),
        }
    };
    if let Some(tr) = &req.test_run {
        let (call, data_out) = attr::prog_test_run(prog_fd, &tr.data, tr.data_out_size, tr.ctx.as_deref(), tr.repeat);
        let r = sys.bpf(&call).map_err(|e| unavailable(target, e))?;
        if r.ret < 0 {
            out.test_run_errno = r.errno;
        } else {
            out.retval = Some(get_u32(r.attr(), attr::test_run::RETVAL));
            out.test_run_duration_ns = get_u32(r.attr(), attr::test_run::DURATION);
            if let Some(b) = data_out {
                let n = get_u32(r.attr(), attr::test_run::DATA_SIZE_OUT) as usize;
                out.data_out = r.buf(b)[..n.min(r.buf(b).len())].to_vec();
            }
        }
    }
    if !req.scenario.is_empty() {
        read_scenario(sys, req, prog_fd, &attached_fds, &map_fds, &mut out).map_err(|e| unavailable(target, e))?;
    }
    Ok(out)
}

/// The bytes of an mmap of array map `m`: its values, page-aligned.
fn mmap_len(m: &MapDef) -> u64 {
    let elem = u64::from(m.value_size).div_ceil(8) * 8;
    (elem * u64::from(m.max_entries)).div_ceil(crate::target::PAGE_SIZE).max(1) * crate::target::PAGE_SIZE
}

/// A request's [`super::Scenario`] before its test run: each attached
/// program loaded with the request's maps and attached (`BPF_LINK_CREATE`
/// for trampolines and tp_btf, `BPF_RAW_TRACEPOINT_OPEN` for raw
/// tracepoints), the program itself attached when asked, run statistics
/// enabled, globals written through an mmap. The attached programs' fds,
/// or the outcome of a step that failed, in libbpf's words.
#[allow(clippy::too_many_arguments)]
fn set_up_scenario(
    sys: &mut dyn BpfSys,
    target: &Target<'_>,
    req: &LoadRequest,
    prog_fd: i32,
    map_fds: &[Option<i32>],
    obj_btf_fd: Option<i32>,
    fds: &mut Vec<i32>,
) -> Result<Result<Vec<i32>, Box<LoadOutcome>>, Unavailable> {
    let un = |e| unavailable(target, e);
    let sc = &req.scenario;
    let mut attached = Vec::with_capacity(sc.attached.len());
    for a in &sc.attached {
        let (sub, mut insns, attach_btf_id) = match prepare_prog(target, &req.attached_request(a))? {
            Ok((sub, insns, id)) => (sub.into_owned(), insns, id),
            Err(out) => return Ok(Err(out)),
        };
        let mut caps = None;
        match load_prog(sys, &sub, &LoadSettings::default(), &mut insns, fds, attach_btf_id, obj_btf_fd, map_fds.to_vec(), &mut caps).map_err(un)? {
            Loaded::Prog { prog_fd: Some(fd), .. } => attached.push(fd),
            Loaded::Prog { out, .. } => return Ok(Err(attached_load_failure(&a.name, &out))),
            Loaded::Failed(out) => return Ok(Err(attached_load_failure(&a.name, &out))),
        }
    }
    let mut to_attach: Vec<(&str, i32, crate::prog_type::ProgType, Option<u32>, &str)> = sc
        .attached
        .iter()
        .zip(&attached)
        .map(|(a, &fd)| (a.name.as_str(), fd, a.prog_type, a.expected_attach_type, a.attach_func.as_deref().unwrap_or("")))
        .collect();
    if let Some(t) = &sc.attach_self {
        let name = req.prog.funcs.first().map_or(req.name.as_str(), |f| f.name.as_str());
        to_attach.push((name, prog_fd, req.prog_type, req.expected_attach_type, t.as_str()));
    }
    for (name, fd, ty, at, tp) in to_attach {
        let call = if crate::prog_type::btf_attach_target_kind(ty, at) { attr::link_create(fd, at.unwrap_or(0)) } else { attr::raw_tracepoint_open(tp, fd) };
        let r = sys.bpf(&call).map_err(un)?;
        match r.fd() {
            Ok(link) => fds.push(link),
            Err(e) => return Ok(Err(loader_failure(e, format!("prog '{name}': failed to attach: {}", errno_desc(e))))),
        }
    }
    // run_cnt is kept only with stats enabled
    match sys.bpf(&attr::enable_stats()).map_err(un)?.fd() {
        Ok(fd) => fds.push(fd),
        Err(e) => return Ok(Err(loader_failure(e, format!("failed to enable run statistics: {}", errno_desc(e))))),
    }
    for (m, off, bytes) in &sc.global_init {
        let (Some(def), Some(Some(fd))) = (req.maps.get(*m), map_fds.get(*m)) else { continue };
        let errno = sys.map_mmap_write(*fd, 0, mmap_len(def), u64::from(*off), bytes).map_err(un)?;
        if errno != 0 {
            return Ok(Err(loader_failure(errno, format!("map '{}': failed to mmap: {}", def.name, errno_desc(errno)))));
        }
    }
    Ok(Ok(attached))
}

/// After the test run: the run statistics of the program and of each
/// attached one, and the globals asked for, read through an mmap.
fn read_scenario(
    sys: &mut dyn BpfSys,
    req: &LoadRequest,
    prog_fd: i32,
    attached: &[i32],
    map_fds: &[Option<i32>],
    out: &mut LoadOutcome,
) -> Result<(), SysError> {
    use attr::prog_info as pi;
    for fd in std::iter::once(prog_fd).chain(attached.iter().copied()) {
        let r = sys.bpf(&attr::obj_get_info(fd, vec![0; pi::SIZE]))?;
        if r.ret < 0 {
            return Err(SysError::Errno { what: "BPF_OBJ_GET_INFO_BY_FD", errno: r.errno });
        }
        let info = r.buf(1);
        out.prog_stats
            .push(super::ProgRunStats { run_cnt: crate::sys::get_u64(info, pi::RUN_CNT), recursion_misses: crate::sys::get_u64(info, pi::RECURSION_MISSES) });
    }
    for (m, off, len) in &req.scenario.global_read {
        let (Some(def), Some(Some(fd))) = (req.maps.get(*m), map_fds.get(*m)) else {
            out.globals.push(Vec::new());
            continue;
        };
        match sys.map_mmap_read(*fd, mmap_len(def), u64::from(*off), u64::from(*len))? {
            Ok(b) => out.globals.push(b),
            Err(errno) => return Err(SysError::Errno { what: "mmap of a global's map", errno }),
        }
    }
    Ok(())
}

/// What libbpf does to one program before `BPF_PROG_LOAD`: CO-RE
/// relocations against the kernel's BTF, kfunc and ksym ids, the attach
/// target's BTF id. The request (relocated when it had CO-RE), its
/// instructions and `attach_btf_id`, or the outcome of a failed step.
#[allow(clippy::type_complexity)]
fn prepare_prog<'r>(target: &Target<'_>, req: &'r LoadRequest) -> Result<Result<(Cow<'r, LoadRequest>, Vec<Insn>, u32), Box<LoadOutcome>>, Unavailable> {
    let req = if core::has_core(req) {
        let btf = target.core.ok_or_else(|| Unavailable(format!("{}: no vmlinux BTF for the CO-RE relocations of '{}'", target.backend, req.name)))?;
        match core::relocate_request(req, btf) {
            Ok(r) => Cow::Owned(r),
            Err(f) => return Ok(Err(core_failure(&f))),
        }
    } else {
        Cow::Borrowed(req)
    };
    let mut insns = req.prog.insns.clone();
    if let Err(out) = resolve_ksyms(target, &req, &mut insns) {
        return Ok(Err(out));
    }
    match find_attach_btf_id(target, &req) {
        Ok(id) => Ok(Ok((req, insns, id))),
        Err(out) => Ok(Err(out)),
    }
}

/// Tracing and LSM programs: libbpf finds the attach target in vmlinux BTF
/// (`find_kernel_btf_id`); 0 for other programs.
fn find_attach_btf_id(target: &Target<'_>, req: &LoadRequest) -> Result<u32, Box<LoadOutcome>> {
    let Some(f) = &req.attach_func else { return Ok(0) };
    let (prefix, kind) = crate::prog_type::btf_get_kernel_prefix_kind(req.expected_attach_type.unwrap_or(0));
    target
        .vmlinux
        .and_then(|b| b.find_by_name_kind(&format!("{prefix}{f}"), kind))
        .ok_or_else(|| loader_failure(ESRCH, format!("prog '{}': failed to find kernel BTF type ID of '{f}': -ESRCH", req.name)))
}

/// libbpf's `init_map_in_map_slots`, right after the last of `map_fds`
/// was created: each slot of its `.values` gets the fd of the map it
/// names (-1 for a map not created yet, which the kernel refuses).
fn init_map_in_map_slots(sys: &mut dyn BpfSys, req: &LoadRequest, map_fds: &[Option<i32>]) -> Result<Option<Box<LoadOutcome>>, SysError> {
    let (Some(m), Some(Some(outer))) = (req.maps.get(map_fds.len() - 1), map_fds.last()) else { return Ok(None) };
    let mut slots = m.inner_slots.clone();
    slots.sort();
    for (key, name) in &slots {
        let fd = req.maps.iter().position(|x| &x.name == name).and_then(|j| map_fds.get(j).copied().flatten()).unwrap_or(-1);
        let r = sys.bpf(&attr::map_update_elem(*outer, &key.to_le_bytes(), &fd.to_le_bytes(), 0))?;
        if r.ret < 0 {
            let msg = format!("map '{}': failed to initialize slot [{key}] to map '{name}' fd={fd}: {}", m.name, errno_desc(r.errno));
            return Ok(Some(loader_failure(r.errno, msg)));
        }
    }
    Ok(None)
}

/// kfunc calls get the FUNC's BTF id, `BPF_PSEUDO_BTF_ID` loads the VAR's
/// (or a FUNC's); a name the kernel does not have fails the load with ESRCH,
/// as libbpf's extern resolution does.
fn resolve_ksyms(target: &Target<'_>, req: &LoadRequest, insns: &mut [Insn]) -> Result<(), Box<LoadOutcome>> {
    for r in &req.prog.relocs {
        match r {
            LinkReloc::Kfunc { insn, name } => {
                let id = target.vmlinux.and_then(|b| b.kfunc_id(name)).ok_or_else(|| kfunc_not_found(name))?;
                let i = &mut insns[*insn];
                i.src = BPF_PSEUDO_KFUNC_CALL;
                i.imm = id as i32;
                i.off = 0;
            }
            LinkReloc::BtfId { insn, name } => {
                // a typed `__ksym` variable, else a kernel function's address
                let id = target
                    .vmlinux
                    .and_then(|b| b.var_id(name).or_else(|| b.kfunc_id(name)))
                    .ok_or_else(|| loader_failure(ESRCH, format!("extern (var ksym) '{name}': not found in kernel BTF")))?;
                insns[*insn].src = BPF_PSEUDO_BTF_ID;
                insns[*insn].imm = id as i32;
                insns[*insn + 1].imm = 0;
            }
            _ => {}
        }
    }
    Ok(())
}

#[allow(clippy::large_enum_variant)] // one short-lived value per load
enum Loaded {
    /// The load failed (the outcome says how).
    Failed(Box<LoadOutcome>),
    /// BPF_PROG_LOAD ran; `prog_fd` is set when it succeeded.
    Prog { out: LoadOutcome, prog_fd: Option<i32>, map_fds: Vec<Option<i32>>, obj_btf_fd: Option<i32> },
}

/// Maps, BTF and the program, in the capability state of the run.
/// test_loader's unprivileged run: CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_PERFMON
/// and CAP_BPF leave the effective set, `caps_unpriv` come back. The set
/// before is kept in `saved` for the caller to restore, whatever fails.
fn drop_caps(sys: &mut dyn BpfSys, req: &LoadRequest, saved: &mut Option<u64>) -> Result<(), SysError> {
    let old = sys.cap_effective(cap::UNPRIV_DROP, 0)?;
    *saved = Some(old);
    let give_back = cap::mask(&req.caps_unpriv);
    if give_back != 0 {
        sys.cap_effective(0, give_back)?;
    }
    Ok(())
}

fn create_and_load(
    sys: &mut dyn BpfSys,
    req: &LoadRequest,
    how: &LoadSettings,
    insns: &mut [Insn],
    fds: &mut Vec<i32>,
    attach_btf_id: u32,
    caps_saved: &mut Option<u64>,
) -> Result<Loaded, SysError> {
    if req.unpriv && !req.privileged_setup {
        drop_caps(sys, req, caps_saved)?;
    }
    // bpf_object__sanitize_and_load_btf comes before the maps
    let obj_btf_fd = match &req.btf {
        BtfMode::Object(ob) => {
            // libbpf retries a failed load with a log, only to print it,
            // then goes on without BTF ("BTF is optional, ignoring")
            let r = sys.bpf(&attr::btf_load(&ob.btf))?;
            r.fd().ok().inspect(|&fd| fds.push(fd))
        }
        _ => None,
    };
    let mut map_fds = Vec::with_capacity(req.maps.len());
    for m in &req.maps {
        if req.unpriv && !req.privileged_setup && !req.create_every_map && !crate::map::is_unpriv_capable(m) {
            map_fds.push(None);
            continue;
        }
        match create_map(sys, m, obj_btf_fd, fds)? {
            Ok(fd) => map_fds.push(Some(fd)),
            Err(out) => return Ok(Loaded::Failed(out)),
        }
        if let Some(out) = init_map_in_map_slots(sys, req, &map_fds)? {
            return Ok(Loaded::Failed(out));
        }
    }
    load_prog(sys, req, how, insns, fds, attach_btf_id, obj_btf_fd, map_fds, caps_saved)
}

/// BPF_PROG_LOAD of `req` with its maps created (`map_fds`) and the
/// object's BTF loaded (`obj_btf_fd`): the made-up program BTF first, then
/// the program, retried as libbpf retries.
#[allow(clippy::too_many_arguments)]
fn load_prog(
    sys: &mut dyn BpfSys,
    req: &LoadRequest,
    how: &LoadSettings,
    insns: &mut [Insn],
    fds: &mut Vec<i32>,
    attach_btf_id: u32,
    obj_btf_fd: Option<i32>,
    map_fds: Vec<Option<i32>>,
    caps_saved: &mut Option<u64>,
) -> Result<Loaded, SysError> {
    patch_maps(req, insns, &map_fds);

    let btf = match req.btf {
        BtfMode::None | BtfMode::Object(_) => None,
        BtfMode::FuncInfo => {
            let pb = btf::prog_btf(&prog_funcs(req));
            let r = sys.bpf(&attr::btf_load(&pb.blob))?;
            match r.fd() {
                Ok(fd) => {
                    fds.push(fd);
                    Some((fd, pb))
                }
                // libbpf: "Error loading .BTF into kernel ... BTF is optional, ignoring."
                Err(_) => None,
            }
        }
    };

    if req.unpriv && req.privileged_setup {
        drop_caps(sys, req, caps_saved)?;
    }
    let code = bpf_isa::insn::encode_all(insns);
    let name = req.prog.funcs.first().map_or(req.name.as_str(), |f| f.name.as_str());
    let mut p = attr::ProgLoad {
        prog_type: req.prog_type.0,
        insns: &code,
        license: &req.license,
        log_level: req.log_level,
        log_size: req.log_size,
        prog_flags: req.prog_flags,
        name,
        expected_attach_type: req.expected_attach_type.unwrap_or(0),
        attach_btf_id,
        ..attr::ProgLoad::default()
    };
    if let Some((fd, pb)) = &btf {
        p.prog_btf_fd = Some(*fd);
        p.func_info = &pb.func_info;
        p.func_info_rec_size = btf::FUNC_INFO_REC_SIZE;
        p.func_info_cnt = pb.func_info_cnt;
    }
    if let (BtfMode::Object(ob), Some(fd)) = (&req.btf, obj_btf_fd) {
        p.prog_btf_fd = Some(fd);
        if let Some(fi) = &ob.func_info {
            (p.func_info, p.func_info_rec_size, p.func_info_cnt) = (&fi.data, fi.rec_size, fi.cnt());
        }
        if let Some(li) = &ob.line_info {
            (p.line_info, p.line_info_rec_size, p.line_info_cnt) = (&li.data, li.rec_size, li.cnt());
        }
    }
    loop {
        let (call, log_buf) = attr::prog_load(&p);
        let mut t0 = std::time::Instant::now();
        let mut r = sys.bpf(&call)?;
        for _ in 1..PROG_LOAD_ATTEMPTS {
            if !(r.ret < 0 && r.errno == EAGAIN) {
                break;
            }
            t0 = std::time::Instant::now();
            r = sys.bpf(&call)?;
        }
        let load_ns = t0.elapsed().as_nanos() as u64;
        let log = log_buf.map(|b| c_string(r.buf(b))).unwrap_or_default();
        let log_true_size = get_u32(r.attr(), attr::prog_load::LOG_TRUE_SIZE);
        match r.fd() {
            Ok(fd) => {
                fds.push(fd);
                let out = LoadOutcome { accepted: true, log, log_true_size, load_ns, ..LoadOutcome::default() };
                return Ok(Loaded::Prog { out, prog_fd: Some(fd), map_fds, obj_btf_fd });
            }
            // libbpf: retry at log level 1 to show what failed
            Err(_) if p.log_level == 0 && how.retry_at_level_1 => {
                p.log_level = 1;
                if p.log_size == 0 {
                    p.log_size = LOG_BUF_SIZE;
                }
            }
            Err(errno) => {
                // a rejected program has no fd to ask; the log's last
                // `processed N insns` line says how far the verifier got
                let verified_insns = processed_insns(&log).unwrap_or(0);
                let out = LoadOutcome { accepted: false, errno, log, log_true_size, verified_insns, load_ns, ..LoadOutcome::default() };
                return Ok(Loaded::Prog { out, prog_fd: None, map_fds, obj_btf_fd });
            }
        }
    }
}

/// The functions of the program BTF; a program without a function list is
/// one function named after the request.
pub(crate) fn prog_funcs(req: &LoadRequest) -> Vec<btf::ProgFunc> {
    if req.prog.funcs.is_empty() {
        let name = req.name.rsplit('/').next().unwrap_or("prog");
        return vec![btf::ProgFunc { name: name.to_string(), insn_off: 0, global: true, nargs: 0 }];
    }
    req.prog.funcs.iter().map(|f| btf::ProgFunc { name: f.name.clone(), insn_off: f.start as u32, global: f.global, nargs: f.nargs }).collect()
}

/// The BTF type ids libbpf passes when it creates `m`: none for the map
/// types whose BTF it leaves out (`bpf_object__create_map`).
pub(crate) fn map_btf_type_ids(m: &MapDef) -> (u32, u32) {
    use crate::map::types::*;
    match m.map_type {
        BPF_MAP_TYPE_PERF_EVENT_ARRAY
        | BPF_MAP_TYPE_CGROUP_ARRAY
        | BPF_MAP_TYPE_STACK_TRACE
        | BPF_MAP_TYPE_ARRAY_OF_MAPS
        | BPF_MAP_TYPE_HASH_OF_MAPS
        | BPF_MAP_TYPE_DEVMAP
        | BPF_MAP_TYPE_DEVMAP_HASH
        | BPF_MAP_TYPE_CPUMAP
        | BPF_MAP_TYPE_XSKMAP
        | BPF_MAP_TYPE_SOCKMAP
        | BPF_MAP_TYPE_SOCKHASH
        | BPF_MAP_TYPE_QUEUE
        | BPF_MAP_TYPE_STACK
        | BPF_MAP_TYPE_ARENA => (0, 0),
        BPF_MAP_TYPE_STRUCT_OPS => (m.btf_key_type_id, 0),
        _ => (m.btf_key_type_id, m.btf_value_type_id),
    }
}

/// BPF_MAP_CREATE of `m` (with `inner_fd` and, given the object's BTF fd,
/// its type ids); a map the kernel refuses with BTF type ids is tried again
/// without, as libbpf does.
fn map_create_call(sys: &mut dyn BpfSys, m: &MapDef, inner_fd: Option<i32>, btf_fd: Option<i32>) -> Result<Result<i32, i32>, SysError> {
    let mut c = attr::map_create(m.map_type, m.key_size, m.value_size, m.max_entries, m.map_flags, inner_fd, &m.name);
    // an arena's user address: set here instead of by an mmap (see
    // `ARENA_USER_VM_START`)
    let map_extra = crate::verifier::map_create::loader_map_extra(m);
    if map_extra != 0 {
        c.put_u64(64, map_extra);
    }
    let (key, value) = map_btf_type_ids(m);
    let Some(btf_fd) = btf_fd.filter(|_| key != 0 || value != 0) else { return Ok(sys.bpf(&c)?.fd()) };
    let mut with_btf = c.clone();
    attr::map_create_btf(&mut with_btf, btf_fd, key, value);
    match sys.bpf(&with_btf)?.fd() {
        Ok(fd) => Ok(Ok(fd)),
        // "Error in bpf_create_map_xattr(...). Retrying without BTF."
        Err(_) => Ok(sys.bpf(&c)?.fd()),
    }
}

/// Creates one map (and its inner map), fills it and freezes it. The inner
/// result is `Err` with the outcome of a failed load when the kernel refused.
fn create_map(sys: &mut dyn BpfSys, m: &MapDef, btf_fd: Option<i32>, fds: &mut Vec<i32>) -> Result<Result<i32, Box<LoadOutcome>>, SysError> {
    let fail = |what: &str, errno: i32| Err(loader_failure(errno, format!("map '{}': failed to {what}: {}", m.name, errno_desc(errno))));
    let inner_fd = match &m.inner {
        Some(inner) => match map_create_call(sys, inner, None, btf_fd)? {
            Ok(fd) => {
                fds.push(fd);
                Some(fd)
            }
            Err(e) => return Ok(fail("create inner map", e)),
        },
        None => None,
    };
    let fd = match map_create_call(sys, m, inner_fd, btf_fd)? {
        Ok(fd) => fd,
        Err(e) => return Ok(fail("create", e)),
    };
    fds.push(fd);
    for (k, v) in &m.init {
        let r = sys.bpf(&attr::map_update_elem(fd, k, v, 0))?;
        if r.ret < 0 {
            return Ok(fail("set initial contents", r.errno));
        }
    }
    if m.frozen {
        let r = sys.bpf(&attr::map_freeze(fd))?;
        if r.ret < 0 {
            return Ok(fail("freeze", r.errno));
        }
    }
    // an arena's global data, copied in through an mmap of it
    if let Some((off, data)) = &m.arena_data {
        let addr = crate::verifier::map_create::loader_map_extra(m);
        let len = u64::from(m.max_entries) * crate::target::PAGE_SIZE;
        let errno = sys.map_mmap_write(fd, addr, len, *off, data)?;
        if errno != 0 {
            return Ok(fail("mmap arena", errno));
        }
    }
    Ok(Ok(fd))
}

/// `BPF_PSEUDO_MAP_FD` / `BPF_PSEUDO_MAP_VALUE` with the fds; references to
/// maps not created are poisoned.
fn patch_maps(req: &LoadRequest, insns: &mut [Insn], map_fds: &[Option<i32>]) {
    for r in &req.prog.relocs {
        let (insn, map, off) = match *r {
            LinkReloc::Map { insn, map } => (insn, map, None),
            LinkReloc::MapValue { insn, map, off } => (insn, map, Some(off)),
            _ => continue,
        };
        match map_fds.get(map).copied().flatten() {
            Some(fd) => {
                insns[insn].src = if off.is_some() { BPF_PSEUDO_MAP_VALUE } else { BPF_PSEUDO_MAP_FD };
                insns[insn].imm = fd;
                insns[insn + 1].imm = off.unwrap_or(0) as i32;
            }
            None => {
                let poison = Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, POISON_LDIMM64_MAP_BASE + map as i32);
                insns[insn] = poison;
                insns[insn + 1] = poison;
            }
        }
    }
}

fn map_id(sys: &mut dyn BpfSys, fd: i32) -> Result<u32, SysError> {
    let r = sys.bpf(&attr::obj_get_info(fd, vec![0; attr::map_info::SIZE]))?;
    Ok(if r.ret < 0 { 0 } else { get_u32(r.buf(1), attr::map_info::ID) })
}

/// Reads `bpf_prog_info` twice (lengths, then contents), as
/// `get_xlated_program()` and `get_jited_program_text()` do.
fn read_prog_info(sys: &mut dyn BpfSys, prog_fd: i32, want_jited: bool, out: &mut LoadOutcome) -> Result<(), SysError> {
    use attr::prog_info as pi;
    let r = sys.bpf(&attr::obj_get_info(prog_fd, vec![0; pi::SIZE]))?;
    if r.ret < 0 {
        return Err(SysError::Errno { what: "BPF_OBJ_GET_INFO_BY_FD", errno: r.errno });
    }
    let info = r.buf(1);
    out.verified_insns = get_u32(info, pi::VERIFIED_INSNS);
    let xlated_len = get_u32(info, pi::XLATED_PROG_LEN);
    let (jited_len, nr_lens) = if want_jited { (get_u32(info, pi::JITED_PROG_LEN), get_u32(info, pi::NR_JITED_FUNC_LENS)) } else { (0, 0) };
    if xlated_len == 0 && jited_len == 0 {
        return Ok(());
    }
    let mut c = attr::obj_get_info(prog_fd, vec![0; pi::SIZE]);
    let info_buf = 1;
    c.bufs[1].data[pi::XLATED_PROG_LEN..pi::XLATED_PROG_LEN + 4].copy_from_slice(&xlated_len.to_le_bytes());
    let xb = c.ptr_in_buf(info_buf, pi::XLATED_PROG_INSNS, vec![0; xlated_len as usize], true);
    let (mut image_buf, mut lens_buf) = (None, None);
    if jited_len > 0 {
        c.bufs[1].data[pi::JITED_PROG_LEN..pi::JITED_PROG_LEN + 4].copy_from_slice(&jited_len.to_le_bytes());
        image_buf = Some(c.ptr_in_buf(info_buf, pi::JITED_PROG_INSNS, vec![0; jited_len as usize], true));
        if nr_lens > 0 {
            c.bufs[1].data[pi::NR_JITED_FUNC_LENS..pi::NR_JITED_FUNC_LENS + 4].copy_from_slice(&nr_lens.to_le_bytes());
            lens_buf = Some(c.ptr_in_buf(info_buf, pi::JITED_FUNC_LENS, vec![0; nr_lens as usize * 4], true));
        }
    }
    let r = sys.bpf(&c)?;
    if r.ret < 0 && r.errno == libc::ENOMEM {
        // bpf_insn_prepare_dump copies the program with kmemdup: programs
        // past a few MiB (~500k insns) cannot be dumped at all. The load
        // stands; its dumps stay empty.
        return Ok(());
    }
    if r.ret < 0 {
        return Err(SysError::Errno { what: "BPF_OBJ_GET_INFO_BY_FD", errno: r.errno });
    }
    let xl = r.buf(xb);
    let n = (get_u32(r.buf(1), pi::XLATED_PROG_LEN) as usize).min(xl.len());
    if let Some(insns) = bpf_isa::insn::decode_all(&xl[..n - n % 8]) {
        out.xlated = disasm::xlated_dump(&insns).lines().map(str::to_string).collect();
        out.xlated_insns = insns;
    }
    if let Some(image_buf) = image_buf {
        let image = r.buf(image_buf);
        let lens: Vec<usize> = match lens_buf {
            Some(b) => r.buf(b).chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize).collect(),
            None => vec![image.len()],
        };
        let mut at = 0;
        for len in lens {
            let end = (at + len).min(image.len());
            out.jited_funcs.push(image[at..end].to_vec());
            at = end;
        }
    }
    Ok(())
}

/// N of the last `processed N insns` line of a verifier log.
pub fn processed_insns(log: &str) -> Option<u32> {
    // a message printed without its newline runs into the statistics
    // ("expected prog array map for tail callprocessed 3 insns ...")
    log.lines().rev().find_map(|l| {
        let at = l.rfind("processed ").filter(|&p| l[p..].contains(" insns (limit "))?;
        l[at + "processed ".len()..].split(' ').next()?.parse().ok()
    })
}

/// The log up to its NUL.
fn c_string(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::{Func, LinkedProgram};
    use crate::target::Arch;

    fn req(insns: Vec<Insn>, relocs: Vec<LinkReloc>, maps: Vec<MapDef>) -> LoadRequest {
        LoadRequest {
            name: "t/p".into(),
            prog: LinkedProgram { insns, funcs: vec![Func { name: "p".into(), start: 0, global: true, nargs: 0 }], relocs },
            prog_type: crate::prog_type::SOCKET_FILTER,
            expected_attach_type: None,
            attach_func: None,
            prog_flags: 0,
            log_level: 0,
            unpriv: false,
            caps_unpriv: Vec::new(),
            maps,
            btf: BtfMode::FuncInfo,
            test_run: None,
            arch: Arch::X86_64,
            want_jited: false,
            license: "GPL".into(),
            privileged_setup: false,
            log_size: LOG_BUF_SIZE,
            create_every_map: false,
            scenario: Default::default(),
        }
    }

    #[test]
    fn validate_rejects_bad_relocs() {
        let ld = Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, 0);
        let exit = Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
        let m = MapDef::new("m", 2, 4, 8, 1);
        assert!(validate(&req(vec![ld, Insn::default(), exit], vec![LinkReloc::Map { insn: 0, map: 0 }], vec![m.clone()])).is_ok());
        assert!(validate(&req(vec![ld, Insn::default(), exit], vec![LinkReloc::Map { insn: 0, map: 1 }], vec![m.clone()])).is_err());
        assert!(validate(&req(vec![exit, ld], vec![LinkReloc::Map { insn: 1, map: 0 }], vec![m.clone()])).is_err());
        assert!(validate(&req(vec![exit, exit], vec![LinkReloc::Map { insn: 0, map: 0 }], vec![m])).is_err());
        // an empty program is the kernel's to refuse (EINVAL)
        assert!(validate(&req(vec![], vec![], vec![])).is_ok());
    }

    #[test]
    fn poisons_maps_not_created() {
        let ld = Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, 0);
        let r = req(vec![ld, Insn::default()], vec![LinkReloc::Map { insn: 0, map: 0 }], vec![MapDef::new("m", 7, 4, 8, 1)]);
        let mut insns = r.prog.insns.clone();
        patch_maps(&r, &mut insns, &[None]);
        assert!(insns[0].is_helper_call() && insns[1].is_helper_call());
        assert_eq!(insns[0].imm, 2_001_000_000);
    }
}
