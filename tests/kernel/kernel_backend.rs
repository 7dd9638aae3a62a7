//! The kernel backend against the running kernel, compared with what a
//! kernel answered for the same programs when recorded
//! (`expected/oracle/live-<arch>.json`, made by `bpf-selftest record --set
//! backend-truth --backend kernel`; another build than the running one is
//! held to verdicts and results). Skipped, with the reason, where bpf(2)
//! may not load programs.

use crate::backend_common;

use backend_common::{Strictness, cases, compare, truth};
use bpf_selftest::backend::kernel::{KernelBackend, unprivileged_bpf_disabled};
use bpf_selftest::backend::{Backend, BtfMode, LoadRequest};
use bpf_selftest::link::{Func, LinkReloc, LinkedProgram};
use bpf_selftest::require::{self, Component};
use bpf_selftest::target::Arch;

fn backend() -> Option<(KernelBackend, Arch)> {
    let Some(arch) = Arch::host() else {
        eprintln!("skipped: host arch {} is not one the project targets", std::env::consts::ARCH);
        return None;
    };
    let kb = KernelBackend::default();
    match kb.probe(arch) {
        Ok(()) => Some((kb, arch)),
        Err(e) => {
            require::skip(Component::Bpf, &e.0);
            None
        }
    }
}

#[test]
fn matches_the_oracle_on_the_running_kernel() {
    let Some((kb, arch)) = backend() else { return };
    let file = format!("live-{arch}.json");
    if !backend_common::root().join("expected/oracle").join(&file).is_file() {
        eprintln!("skipped: no oracle recording expected/oracle/{file} for this arch");
        return;
    }
    let truth = truth(&file);
    let release = kb.kernel_release();
    // verifier logs, verified_insns and xlated code belong to one kernel
    // build; another kernel is held to verdicts and results only
    let same_kernel = release == truth.release;
    if !same_kernel {
        eprintln!("note: running {release}, recorded on {}: comparing verdicts and results only", truth.release);
    }
    let strict = Strictness { kernel_details: same_kernel, exact_jit: &[], same_map_ids: false, arch };
    let mut diffs = Vec::new();
    let mut loaded = 0;
    for c in cases(arch) {
        let Some(want) = truth.program(&c.name).cloned() else {
            // a program added since the running kernel was recorded
            eprintln!("note: {} is not in {file}: `bpf-selftest record --set backend-truth --backend kernel` records it", c.name);
            continue;
        };
        let got = kb.load(&c.req);
        if c.req.unpriv {
            match unprivileged_bpf_disabled() {
                Some(0) => eprintln!("{}: unprivileged BPF is enabled here; the recording has none to compare", c.name),
                v => {
                    // the recording loads anyway and keeps the kernel's
                    // EPERM; the backend skips as test_loader does, saying why
                    assert_eq!(want.errno, 1, "{}: recorded unprivileged load", c.name);
                    let msg = got.expect_err("unprivileged load must be skipped").0;
                    assert!(msg.contains(&format!("unprivileged_bpf_disabled={}", v.unwrap_or(99))), "{msg}");
                    assert!(msg.contains("EPERM"), "{msg}");
                }
            }
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{}: {}", c.name, e.0));
        let mut want = want;
        if c.name == "bad_r0_l0" {
            // a load failing at log level 0 is retried at level 1 (libbpf);
            // the recording does not retry, so its level-1 log is bad_r0's
            want.log = truth.program("bad_r0").expect("bad_r0 recorded").log.clone();
            assert_eq!(truth.program("bad_r0_l0").map(|p| p.log.as_str()), Some(""));
        }
        diffs.extend(compare(&c.name, &got, &want, &strict));
        loaded += 1;
    }
    assert!(loaded >= 6, "only {loaded} programs loaded");
    assert!(diffs.is_empty(), "differences from the kernel's recorded answers:\n{}", diffs.join("\n"));
}

#[test]
fn probe_names_the_arch_it_cannot_serve() {
    let Some(host) = Arch::host() else { return };
    let other = if host == Arch::Arm64 { Arch::X86_64 } else { Arch::Arm64 };
    let e = KernelBackend::default().probe(other).unwrap_err().0;
    assert!(e.contains(other.name()) && e.contains(host.name()), "{e}");
}

#[test]
fn unknown_kfunc_fails_like_libbpf() {
    let Some((kb, arch)) = backend() else { return };
    let insns = bpf_isa::assemble("call no_such_kfunc_here; r0 = 0; exit").unwrap().insns;
    let req = LoadRequest {
        name: "kernel_backend/unknown_kfunc".into(),
        prog: LinkedProgram {
            insns,
            funcs: vec![Func { name: "unknown_kfunc".into(), start: 0, global: true, nargs: 0 }],
            relocs: vec![LinkReloc::Kfunc { insn: 0, name: "no_such_kfunc_here".into() }],
        },
        prog_type: bpf_selftest::prog_type::SOCKET_FILTER,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: 0,
        log_level: 1,
        unpriv: false,
        caps_unpriv: Vec::new(),
        maps: Vec::new(),
        btf: BtfMode::FuncInfo,
        test_run: None,
        arch,
        want_jited: false,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: bpf_selftest::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    };
    let out = kb.load(&req).unwrap();
    assert!(!out.accepted);
    assert_eq!(out.errno, 3, "ESRCH");
    assert!(out.log.contains("'no_such_kfunc_here': not found"), "{}", out.log);
}

/// A request built by hand, for what tests/oracle_progs cannot express.
fn request(name: &str, asm: &str, funcs: Vec<Func>, relocs: Vec<LinkReloc>, arch: Arch) -> LoadRequest {
    LoadRequest {
        name: format!("kernel_backend/{name}"),
        prog: LinkedProgram { insns: bpf_isa::assemble(asm).unwrap().insns, funcs, relocs },
        prog_type: bpf_selftest::prog_type::SOCKET_FILTER,
        expected_attach_type: None,
        attach_func: None,
        prog_flags: 0,
        log_level: 2,
        unpriv: false,
        caps_unpriv: Vec::new(),
        maps: Vec::new(),
        btf: BtfMode::FuncInfo,
        test_run: Some(bpf_selftest::backend::TestRunInput::test_loader(bpf_selftest::prog_type::SOCKET_FILTER)),
        arch,
        want_jited: true,
        license: "GPL".into(),
        privileged_setup: false,
        log_size: bpf_selftest::backend::loader::LOG_BUF_SIZE,
        create_every_map: false,
        scenario: Default::default(),
    }
}

fn main_func(name: &str) -> Func {
    Func { name: name.into(), start: 0, global: true, nargs: 0 }
}

/// `BPF_PSEUDO_BTF_ID` of names found in /sys/kernel/btf/vmlinux. The oracle
/// kit resolves no VAR names, so these have no recording; what the kernel
/// says about the id it was given is the check.
#[test]
fn ksyms_resolve_in_vmlinux_btf() {
    let Some((kb, arch)) = backend() else { return };
    // a kernel function: read-only memory at its address
    let relocs = vec![LinkReloc::BtfId { insn: 0, name: "bpf_iter_num_new".into() }];
    let req = request("ksym_func", "r1 = 0 ll; r0 = 3; exit", vec![main_func("ksym_func")], relocs, arch);
    let out = kb.load(&req).unwrap();
    assert!(out.accepted, "{}", out.log);
    assert!(out.log.contains("R1=rdonly_mem(sz=0)"), "{}", out.log);
    assert_eq!(out.retval, Some(3));
    // a per-CPU variable: without CONFIG_KALLSYMS_ALL the kernel cannot
    // find its address, but it names the VAR our BTF id points at
    let relocs = vec![LinkReloc::BtfId { insn: 0, name: "runqueues".into() }];
    let req = request("ksym_var", "r1 = 0 ll; r0 = 3; exit", vec![main_func("ksym_var")], relocs, arch);
    let out = kb.load(&req).unwrap();
    if out.accepted {
        assert!(out.log.contains("R1_w=percpu_ptr_rq()"), "{}", out.log);
    } else {
        assert!(out.log.contains("failed to find the address for kernel symbol 'runqueues'"), "{}", out.log);
    }
}

/// A global function with an `int` argument: the program BTF gives it a
/// named parameter, and the kernel verifies it on its own.
#[test]
fn global_function_with_arguments() {
    let Some((kb, arch)) = backend() else { return };
    let funcs = vec![main_func("caller"), Func { name: "add_two".into(), start: 3, global: true, nargs: 1 }];
    let asm = "r1 = 40\ncall add_two\nexit\nadd_two:\nr0 = r1\nr0 += 2\nexit";
    let req = request("global_args", asm, funcs, Vec::new(), arch);
    let out = kb.load(&req).unwrap();
    assert!(out.accepted, "{}", out.log);
    assert!(out.log.contains("Validating add_two() func#1..."), "{}", out.log);
    assert!(out.log.contains("Func#1 ('add_two') is safe for any args that match its prototype"), "{}", out.log);
    assert_eq!(out.retval, Some(42));
    assert_eq!(out.jited_funcs.len(), 2);
}
