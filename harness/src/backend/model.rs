//! The model of the 7.3 load pipeline. It loads what a loader like the
//! kernel backend's would pass to `BPF_PROG_LOAD` (maps as fds, kfuncs as
//! vmlinux BTF ids, a func_info BTF) into [`crate::verifier::bpf_check`],
//! and answers with a [`LoadOutcome`] when the verdict came from modelled
//! phases only: for an accepted program its xlated insns (the dump form,
//! with the created maps' ids) and, when asked, the test run's result. Anything else is [`Unavailable`], naming the phase the
//! model does not have yet, so a test is skipped for a stated reason
//! instead of passing or failing on a guess.

use super::{Backend, BtfMode, LoadOutcome, LoadRequest, Unavailable};
use crate::btf::Btf;
use crate::exec::trampoline::AttachKind;
use crate::exec::{ExecError, ExecOptions, ExecProgram, LoadedProg, Resolved, RunPath, RunSetup, TestRunInput, TestRunOutput};
use crate::isa::Insn;
use crate::isa::op::*;
use crate::link::LinkReloc;
use crate::link::LinkedProgram;
use crate::load::bpf_prog_load;
use crate::map::{is_unpriv_capable, map_kaddr};
use crate::object::core;
use crate::target::Arch;
use crate::verifier::env::{Caps, FuncInfo, MapObj, VerifierInput};
use crate::verifier::kfunc_btf_ids;
use crate::verifier::linfo::LineInfoAttr;
use crate::verifier::map_create::{MapBtf, MapCreateAttr, MapCreateCaps, map_create_alloc};
use crate::verifier::maps::MapRecord;
use std::sync::Arc;

/// libbpf's `POISON_LDIMM64_MAP_BASE`: a map that was not created turns
/// its `ld_imm64` into calls of this invalid helper id plus the map index.
pub const POISON_LDIMM64_MAP_BASE: i32 = 2_001_000_000;
/// The fd of the first map (0-2 are the standard streams, 3 the program BTF).
const FIRST_MAP_FD: i32 = 4;

/// The arch whose 7.3 image's symbols (kfunc BTF ids, function addresses)
/// stand in for `arch`'s when no 7.3 image of `arch` exists to record them
/// from (`None`: `arch` has its own).
pub fn symbols_stand_in(arch: Arch) -> Option<Arch> {
    kfunc_btf_ids::table(arch).is_empty().then_some(Arch::X86_64)
}

#[derive(Default)]
pub struct ModelBackend;

impl ModelBackend {
    /// The verifier's input for a request: what `BPF_PROG_LOAD` would get.
    pub fn verifier_input(req: &LoadRequest) -> Result<VerifierInput, Unavailable> {
        Self::verifier_input_with_symbols_of(req, req.arch)
    }

    /// [`Self::verifier_input`] with the symbols (kfunc BTF ids, kernel
    /// addresses) of `ids_arch`'s 7.3 image. Debian has no 7.3 image for
    /// riscv64, s390x or loongarch64, so theirs are unknown: `check`
    /// borrows x86_64's for them (see [`symbols_stand_in`]) and says so.
    pub fn verifier_input_with_symbols_of(req: &LoadRequest, ids_arch: Arch) -> Result<VerifierInput, Unavailable> {
        if core::has_core(req) {
            let r = Self::core_relocated(req, ids_arch)?.map_err(|f| Unavailable(format!("model: CO-RE relocation failed: {}", f.warnings.join("; "))))?;
            return Self::verifier_input_with_symbols_of(&r, ids_arch);
        }
        let mut insns = req.prog.insns.clone();
        let mut maps = Vec::new();
        let mut created = Vec::with_capacity(req.maps.len());
        let map_btf = map_btf(req);
        let map_caps = map_create_caps(req);
        for (i, m) in req.maps.iter().enumerate() {
            let ok = !req.unpriv || req.privileged_setup || req.create_every_map || is_unpriv_capable(m);
            created.push(ok);
            if ok {
                // (a map 7.3 refuses is not loaded: `create_maps` said so)
                let record = |d: &crate::map::MapDef| map_create_as_libbpf(d, map_btf.as_ref(), req.arch, map_caps).ok().flatten();
                let inner_record = m.inner.as_deref().and_then(record);
                let (fd, id, kaddr) = (FIRST_MAP_FD + i as i32, i as u32 + 1, map_kaddr(req.arch, i));
                maps.push(MapObj { fd, def: m.clone(), id, kaddr, record: record(m), inner_record });
            }
        }
        for r in &req.prog.relocs {
            match r {
                LinkReloc::Map { insn, map } | LinkReloc::MapValue { insn, map, .. } => {
                    let (insn, map) = (*insn, *map);
                    if insn + 1 >= insns.len() || map >= req.maps.len() {
                        return Err(Unavailable(format!("model: relocation of map {map} at insn {insn} is out of range")));
                    }
                    if created[map] {
                        let off = if let LinkReloc::MapValue { off, .. } = r { Some(*off) } else { None };
                        insns[insn].src = if off.is_some() { BPF_PSEUDO_MAP_VALUE } else { BPF_PSEUDO_MAP_FD };
                        insns[insn].imm = FIRST_MAP_FD + map as i32;
                        insns[insn + 1].imm = off.unwrap_or(0) as i32;
                    } else {
                        let poison = Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, POISON_LDIMM64_MAP_BASE + map as i32);
                        insns[insn] = poison;
                        insns[insn + 1] = poison;
                    }
                }
                LinkReloc::Kfunc { insn, name } => {
                    let Some(id) = kfunc_btf_ids::btf_id(ids_arch, name) else {
                        return Err(Unavailable(format!("model: kfunc {name} has no recorded 7.3 BTF id for {ids_arch}")));
                    };
                    if let Some(i) = insns.get_mut(*insn) {
                        i.imm = id as i32;
                    }
                }
                LinkReloc::BtfId { insn, name } => {
                    // a typed `__ksym` variable, by its VAR in vmlinux BTF (as
                    // libbpf finds it); a name outside the recorded subset is
                    // not known to be absent from 7.3
                    let Some(id) = crate::vmlinux_btf::VmlinuxBtf::for_arch(ids_arch).and_then(|b| b.var_by_name(name)) else {
                        return Err(Unavailable(format!("model: ld_imm64 of kernel symbol {name}: its VAR is not in the recorded vmlinux BTF of {ids_arch}")));
                    };
                    if *insn + 1 >= insns.len() {
                        return Err(Unavailable(format!("model: ksym {name} at insn {insn} is out of range")));
                    }
                    insns[*insn].src = BPF_PSEUDO_BTF_ID;
                    insns[*insn].imm = id as i32;
                    insns[*insn + 1].imm = 0;
                }
                // applied above
                LinkReloc::Core { .. } => {}
            }
        }
        let caps = if req.unpriv { Caps::from_numbers(&req.caps_unpriv) } else { Caps::ALL };
        let (func_info, prog_btf, line_info) = match &req.btf {
            BtfMode::None => (None, None, None),
            // BPF_BTF_LOAD needs CAP_BPF: the loader goes on without BTF
            _ if !caps.bpf_capable() && !req.privileged_setup => (None, None, None),
            // the minimal BTF the loader makes: `int (int, ...)` prototypes
            BtfMode::FuncInfo => {
                let funcs = super::loader::prog_funcs(req);
                let pb = crate::btf::prog_btf(&funcs);
                let btf = Btf::parse(&pb.blob).map_err(|e| Unavailable(format!("model: the program BTF: {e}")))?;
                let type_ids = pb.func_info.chunks_exact(8).map(|r| u32::from_le_bytes([r[4], r[5], r[6], r[7]]));
                let recs = funcs.iter().zip(type_ids).map(|(f, type_id)| FuncInfo {
                    insn_off: f.insn_off,
                    type_id,
                    name: f.name.clone(),
                    global: f.global,
                    nargs: f.nargs,
                });
                (Some(recs.collect()), Some(Arc::new(btf)), None)
            }
            BtfMode::Object(ob) => {
                let btf = Btf::parse(&ob.btf).map_err(|e| Unavailable(format!("model: the object's BTF: {e}")))?;
                let recs = match &ob.func_info {
                    None => None,
                    Some(_) => Some(
                        ob.funcs(&btf)
                            .map_err(|e| Unavailable(format!("model: {e}")))?
                            .into_iter()
                            .map(|(type_id, f)| FuncInfo { insn_off: f.insn_off, type_id, name: f.name, global: f.global, nargs: f.nargs })
                            .collect(),
                    ),
                };
                // the records as the loader passes them to BPF_PROG_LOAD
                let line_info = ob.line_info.as_ref().map(|li| LineInfoAttr { rec_size: li.rec_size, cnt: li.cnt(), data: li.data.clone() });
                (recs, Some(Arc::new(btf)), line_info)
            }
        };
        // tracing and LSM programs: the target's id in the recorded vmlinux
        // BTF, found as libbpf finds it (`find_attach_btf_id`); a name
        // outside the recorded subset is not known to be absent from 7.3
        let attach_btf_id = match &req.attach_func {
            None => 0,
            Some(f) => {
                let (prefix, kind) = crate::prog_type::btf_get_kernel_prefix_kind(req.expected_attach_type.unwrap_or(0));
                let name = format!("{prefix}{f}");
                crate::vmlinux_btf::VmlinuxBtf::for_arch(ids_arch)
                    .and_then(|b| b.find_by_name_kind(&name, kind))
                    .ok_or_else(|| Unavailable(format!("model: attach target {name} is not in the recorded vmlinux BTF of {ids_arch}")))?
            }
        };
        Ok(VerifierInput {
            insns,
            prog_type: req.prog_type,
            expected_attach_type: req.expected_attach_type.unwrap_or(0),
            attach_btf_id,
            prog_flags: req.prog_flags,
            log_level: req.log_level,
            log_size: if req.log_level != 0 { req.log_size } else { 0 },
            caps,
            maps,
            func_info,
            prog_btf,
            line_info,
            gpl: license_is_gpl_compatible(&req.license),
            arch: req.arch,
            symbols_arch: ids_arch,
            verification_time_usec: None,
        })
    }

    /// `BPF_MAP_CREATE` of each map the loaders would create (inner map
    /// first), in the run's capabilities: the outcome of the failed load
    /// when 7.3 refuses one, as the loaders report it.
    pub fn create_maps(req: &LoadRequest) -> Option<LoadOutcome> {
        let caps = map_create_caps(req);
        let btf = map_btf(req);
        let fail = |m: &crate::map::MapDef, what: &str, errno: i32| {
            let log = format!("libbpf: map '{}': failed to {what}: {}\n", m.name, crate::sys::errno_desc(errno));
            Some(LoadOutcome { accepted: false, errno, log, ..LoadOutcome::default() })
        };
        for m in req.maps.iter().filter(|m| !req.unpriv || req.privileged_setup || req.create_every_map || is_unpriv_capable(m)) {
            if let Some(inner) = &m.inner
                && let Err(e) = map_create_as_libbpf(inner, btf.as_ref(), req.arch, caps)
            {
                return fail(m, "create inner map", e);
            }
            if let Err(e) = map_create_as_libbpf(m, btf.as_ref(), req.arch, caps) {
                return fail(m, "create", e);
            }
        }
        None
    }

    /// One `BPF_PROG_LOAD` of `input` through the model.
    pub fn load_input(input: &VerifierInput) -> Result<LoadOutcome, Unavailable> {
        Self::load_input_with_jit(input, false)
    }

    /// One `BPF_PROG_LOAD`, and for an accepted program with `want_jited`
    /// the JIT images of the target arch (`jit_subprogs` on the xlated
    /// program) and their test_loader text.
    pub fn load_input_with_jit(input: &VerifierInput, want_jited: bool) -> Result<LoadOutcome, Unavailable> {
        Self::load_input_in_slots(input, want_jited, None)
    }

    /// [`Self::load_input_with_jit`] for the program called `prog_name`,
    /// which the loader puts in the prog array slots that name it after
    /// the load (`init_prog_array_slots`): the direct tail calls through
    /// them are patched into jumps before the image is read.
    pub fn load_input_in_slots(input: &VerifierInput, want_jited: bool, prog_name: Option<&str>) -> Result<LoadOutcome, Unavailable> {
        Self::load_input_as_run(input, want_jited, prog_name).map(|(out, _)| out)
    }

    /// [`Self::load_input_in_slots`], with an accepted program's xlated
    /// insns as they run ([`crate::verifier::Decision::xlated_as_run`]: the
    /// modes the dump does not show), for its test run.
    pub fn load_input_as_run(input: &VerifierInput, want_jited: bool, prog_name: Option<&str>) -> Result<(LoadOutcome, Vec<bpf_isa::Insn>), Unavailable> {
        let load = bpf_prog_load(input, want_jited, prog_name).map_err(|e| Unavailable(format!("model: {e}")))?;
        let d = load.decision;
        let xlated = if d.accepted { bpf_isa::disasm::xlated_dump(&d.xlated).lines().map(str::to_string).collect() } else { Vec::new() };
        // the ids of the maps created, by the request's map index
        let mut map_ids = Vec::new();
        for m in &input.maps {
            let k = (m.fd - FIRST_MAP_FD) as usize;
            if map_ids.len() <= k {
                map_ids.resize(k + 1, 0);
            }
            map_ids[k] = m.id;
        }
        let jited = if load.jited_funcs.is_empty() { Vec::new() } else { crate::jit_disasm::test_loader_text(input.arch, &load.jited_funcs) };
        let out = LoadOutcome {
            accepted: d.accepted,
            errno: d.errno,
            log: d.log,
            log_true_size: d.log_true_size,
            verified_insns: d.verified_insns,
            xlated,
            xlated_insns: d.xlated,
            map_ids,
            jited_funcs: load.jited_funcs,
            jited,
            load_ns: load.load_ns,
            ..LoadOutcome::default()
        };
        Ok((out, load.as_run))
    }
}

impl Backend for ModelBackend {
    fn name(&self) -> &'static str {
        "model"
    }
    fn probe(&self, _arch: Arch) -> Result<(), Unavailable> {
        Ok(())
    }
    fn kernel_release(&self) -> String {
        "7.3.4+deb13 (model)".into()
    }
    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        // no 7.3 image of riscv64, s390x or loongarch64 to take kfunc BTF
        // ids and kernel addresses from: x86_64's stand in, said once. No
        // expectation of progs/ prints them (only the kfunc names of logs
        // and `call unknown` of xlated dumps), so a verdict, log, xlated
        // or retval does not depend on the borrowed numbers.
        let ids_arch = symbols_stand_in(req.arch).unwrap_or(req.arch);
        if ids_arch != req.arch {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("model: {} has no 7.3 image: the kfunc BTF ids and kernel addresses of {}'s stand in", req.arch, ids_arch));
        }
        self.load_with_symbols_of(req, ids_arch)
    }
}

impl ModelBackend {
    /// `req` with its CO-RE relocations applied as libbpf applies them on
    /// a 7.3 image of `ids_arch` (with its recorded vmlinux BTF).
    fn core_relocated(req: &LoadRequest, ids_arch: Arch) -> Result<Result<LoadRequest, core::CoreFailure>, Unavailable> {
        let btf = core::recorded_vmlinux_btf(ids_arch).map_err(|e| Unavailable(format!("model: CO-RE: {e}")))?;
        Ok(core::relocate_request(req, &btf))
    }

    /// [`Backend::load`] with the symbols of `ids_arch`'s image
    /// ([`Self::verifier_input_with_symbols_of`]).
    pub fn load_with_symbols_of(&self, req: &LoadRequest, ids_arch: Arch) -> Result<LoadOutcome, Unavailable> {
        // libbpf resolves kfunc names before it creates the maps: a name
        // 7.3 has no kfunc of fails there
        for r in &req.prog.relocs {
            if let LinkReloc::Kfunc { name, .. } = r
                && kfunc_btf_ids::btf_id(ids_arch, name).is_none()
            {
                return Ok(*super::loader::kfunc_not_found(name));
            }
        }
        if let Some(out) = Self::create_maps(req) {
            return Ok(out);
        }
        // then CO-RE, against the recorded BTF of the 7.3 image
        let relocated;
        let req = if core::has_core(req) {
            match Self::core_relocated(req, ids_arch)? {
                Ok(r) => {
                    relocated = r;
                    &relocated
                }
                Err(f) => return Ok(*super::loader::core_failure(&f)),
            }
        } else {
            req
        };
        let mut input = Self::verifier_input_with_symbols_of(req, ids_arch)?;
        // (a test run finds the program in the prog array slots that name
        // it: `exec::test_run_program` fills them as the loader does)
        let prog_name = req.prog.funcs.first().map(|f| f.name.as_str());
        let (mut out, as_run) = Self::load_input_as_run(&input, req.want_jited && req.arch.has_jit(), prog_name)?;
        if !out.accepted && input.log_level == 0 {
            // libbpf retries a failed load at level 1 to show what failed
            input.log_level = 1;
            input.log_size = if req.log_size != 0 { req.log_size } else { super::loader::LOG_BUF_SIZE };
            return Self::load_input(&input);
        }
        if out.accepted && req.test_run.is_some() {
            // the xlated program, as 7.3 runs it (the program as loaded
            // where the runtime cannot run the xlated one yet: see
            // `exec::fill_outcome_model`)
            let setup = match Self::run_setup(req, ids_arch)? {
                Ok(setup) => setup,
                Err(failed) => return Ok(*failed),
            };
            fill_outcome_model_with(req, &as_run, &mut out, &setup).map_err(|e| Unavailable(format!("model: test run: {e}")))?;
        }
        Ok(out)
    }

    /// The runtime's [`RunSetup`] of a request's [`super::Scenario`]: each
    /// attached program loaded through the model (its xlated program is
    /// what runs), the globals to write and read. A program that fails to
    /// load fails the whole load, as the loader's attach step does.
    fn run_setup(req: &LoadRequest, ids_arch: Arch) -> Result<Result<RunSetup, Box<LoadOutcome>>, Unavailable> {
        let sc = &req.scenario;
        let mut setup = RunSetup { global_init: sc.global_init.clone(), global_read: sc.global_read.clone(), ..RunSetup::default() };
        let kind_of = |ty, at, name: &str| {
            AttachKind::of(ty, at)
                .ok_or_else(|| Unavailable(format!("model: attaching '{name}': not a program that attaches to a kernel function or tracepoint")))
        };
        for a in &sc.attached {
            let sub = req.attached_request(a);
            let relocated;
            let sub = if core::has_core(&sub) {
                match Self::core_relocated(&sub, ids_arch)? {
                    Ok(r) => {
                        relocated = r;
                        &relocated
                    }
                    Err(f) => return Ok(Err(super::loader::core_failure(&f))),
                }
            } else {
                &sub
            };
            let input = Self::verifier_input_with_symbols_of(sub, ids_arch)?;
            let (aout, as_run) = Self::load_input_as_run(&input, false, Some(a.name.as_str()))?;
            if !aout.accepted {
                return Ok(Err(super::loader::attached_load_failure(&a.name, &aout)));
            }
            // the xlated program, or as loaded where it cannot run (an arch
            // without kernel symbols of its own), as for the program under test
            let p = ExecProgram::from_xlated(&as_run, req.arch, a.prog_type.0).unwrap_or_else(|_| exec_program_as_loaded(&sub.prog));
            setup.attached.push((p, kind_of(a.prog_type, a.expected_attach_type, &a.name)?, a.attach_func.clone().unwrap_or_default()));
        }
        if let Some(target) = &sc.attach_self {
            setup.attach_self = Some((kind_of(req.prog_type, req.expected_attach_type, &req.name)?, target.clone()));
        }
        Ok(Ok(setup))
    }
}

/// The capabilities the loader creates maps with.
fn map_create_caps(req: &LoadRequest) -> MapCreateCaps {
    let c = if req.unpriv && !req.privileged_setup { Caps::from_numbers(&req.caps_unpriv) } else { Caps::ALL };
    MapCreateCaps { bpf: c.bpf, net_admin: c.net_admin, sys_admin: c.sys_admin, perfmon: c.perfmon }
}

/// The BTF the loader creates maps with: an object's own, when
/// `BPF_BTF_LOAD` (which needs CAP_BPF) takes it.
fn map_btf(req: &LoadRequest) -> Option<Btf> {
    let BtfMode::Object(ob) = &req.btf else { return None };
    let capable = !req.unpriv || req.privileged_setup || Caps::from_numbers(&req.caps_unpriv).bpf_capable();
    capable.then(|| Btf::parse(&ob.btf).ok()).flatten()
}

/// `BPF_MAP_CREATE` of `m` as the loader does it: with `btf` and the
/// map's type ids when it has them, and when 7.3 refuses that, again
/// without ("Retrying without BTF."). The map's record (`None`: created
/// without BTF), or 7.3's errno.
fn map_create_as_libbpf(m: &crate::map::MapDef, btf: Option<&Btf>, arch: Arch, caps: MapCreateCaps) -> Result<Option<MapRecord>, i32> {
    let attr = MapCreateAttr::from_def(m, arch);
    let (key_type_id, value_type_id) = super::loader::map_btf_type_ids(m);
    if let Some(btf) = btf.filter(|_| key_type_id != 0 || value_type_id != 0) {
        let with_btf = MapCreateAttr { btf: Some(MapBtf { btf, key_type_id, value_type_id }), ..attr };
        if let Ok(record) = map_create_alloc(&with_btf, caps) {
            return Ok(record);
        }
    }
    map_create_alloc(&attr, caps)
}

/// The licenses the kernel counts as GPL-compatible (`license_is_gpl_compatible`):
/// only such programs may call gpl_only helpers.
pub fn license_is_gpl_compatible(license: &str) -> bool {
    matches!(license, "GPL" | "GPL v2" | "GPL and additional rights" | "Dual BSD/GPL" | "Dual MIT/GPL" | "Dual MPL/GPL")
}

/// The loaded program of a request, as `BPF_PROG_TEST_RUN` finds it: the
/// first function's name fills the prog array slots that name it.
pub fn loaded_prog(req: &LoadRequest) -> LoadedProg<'_> {
    LoadedProg {
        arch: req.arch,
        prog_type: req.prog_type,
        expected_attach_type: req.expected_attach_type,
        maps: &req.maps,
        name: req.prog.funcs.first().map(|f| f.name.as_str()),
    }
}

/// The program as loaded, with what the linker resolved: map loads by the
/// request's map index, kfunc calls and ksyms by name.
pub fn exec_program_as_loaded(prog: &LinkedProgram) -> ExecProgram {
    use crate::exec::{CallTarget, Imm64, Kfunc};
    let resolved = prog.relocs.iter().filter_map(|r| match r {
        LinkReloc::Map { insn, map } => Some((*insn, Resolved::Imm64(Imm64::Map(*map)))),
        LinkReloc::MapValue { insn, map, off } => Some((*insn, Resolved::Imm64(Imm64::MapValue { map: *map, off: *off }))),
        LinkReloc::BtfId { insn, name } => Some((*insn, Resolved::Imm64(Imm64::Ksym(name.clone())))),
        LinkReloc::Kfunc { insn, name } => Some((*insn, Resolved::Call(CallTarget::Kfunc(Kfunc::as_loaded(name))))),
        // (a request is CO-RE relocated before it runs)
        LinkReloc::Core { .. } => None,
    });
    ExecProgram::from_loaded(&prog.insns, resolved)
}

/// `BPF_PROG_TEST_RUN` of the program a request loads, as loaded (before
/// the verifier's rewrites), with the request's maps and their contents.
pub fn test_run(req: &LoadRequest, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
    let opts = ExecOptions { arch: req.arch, ..ExecOptions::default() };
    crate::exec::test_run_program(&loaded_prog(req), &exec_program_as_loaded(&req.prog), input, &opts)
}

/// The test-run part of an outcome (`retval`, `data_out`,
/// `test_run_errno`) from a run's result.
fn record_test_run(out: &mut LoadOutcome, run: Result<TestRunOutput, i32>) {
    match run {
        Ok(o) => {
            out.retval = Some(o.retval);
            out.data_out = o.data_out;
            out.test_run_errno = 0;
        }
        Err(e) => {
            out.retval = None;
            out.test_run_errno = e;
        }
    }
}

/// Fills the test-run part of the outcome of an accepted load whose
/// request asks for a test run, running `prog`, as a kernel backend does.
/// An `Err` is a run the model cannot answer (not modelled, a fault, the
/// budget).
pub fn fill_outcome(req: &LoadRequest, prog: &ExecProgram, out: &mut LoadOutcome) -> Result<(), ExecError> {
    let Some(input) = req.test_run.as_ref().filter(|_| out.accepted) else {
        return Ok(());
    };
    let opts = ExecOptions { arch: req.arch, ..ExecOptions::default() };
    let run = match crate::exec::test_run_program(&loaded_prog(req), prog, input, &opts) {
        Err(ExecError::TestRun(e)) => Err(e),
        r => Ok(r?),
    };
    record_test_run(out, run);
    Ok(())
}

/// The model backend's test run of an accepted load: the xlated program
/// (`xlated`, as it runs) when the runtime can run it, else the program as
/// loaded ([`crate::exec::test_run_accepted`]).
pub fn fill_outcome_model(req: &LoadRequest, xlated: &[bpf_isa::Insn], out: &mut LoadOutcome) -> Result<RunPath, ExecError> {
    fill_outcome_model_with(req, xlated, out, &RunSetup::default())
}

/// [`fill_outcome_model`] with the run's surroundings; with a scenario,
/// the counters and globals read after the run go to the outcome.
pub fn fill_outcome_model_with(req: &LoadRequest, xlated: &[bpf_isa::Insn], out: &mut LoadOutcome, setup: &RunSetup) -> Result<RunPath, ExecError> {
    let Some(input) = req.test_run.as_ref().filter(|_| out.accepted) else {
        return Ok(RunPath::Xlated);
    };
    let (run, path, report) = crate::exec::test_run_accepted_with(&loaded_prog(req), xlated, &exec_program_as_loaded(&req.prog), input, setup)?;
    record_test_run(out, run);
    if !req.scenario.is_empty() {
        out.prog_stats = report.stats.iter().map(|s| super::ProgRunStats { run_cnt: s.run_cnt, recursion_misses: s.recursion_misses }).collect();
        out.globals = report.globals;
    }
    Ok(path)
}
