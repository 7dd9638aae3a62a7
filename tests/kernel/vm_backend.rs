//! The vm backend: Debian 7.3 booted under QEMU TCG, once per arch, running
//! the programs of tests/oracle_progs in one batch, compared with what the
//! same images answered when recorded (`expected/oracle/vm-<arch>.json`,
//! made by `bpf-selftest record --set backend-truth`).
//! Skipped, with the reason, when QEMU, the images or a guest compiler are
//! missing (`scripts/setup-vm.sh` installs them).

use crate::backend_common;

use std::time::Instant;

use backend_common::{Strictness, cases, compare, truth};
use bpf_selftest::backend::Backend;
use bpf_selftest::backend::vm::VmBackend;
use bpf_selftest::require::{self, Component};
use bpf_selftest::target::Arch;

fn run(arch: Arch, iter_num_jit_len: usize) {
    let vm = VmBackend::from_env();
    if let Err(e) = vm.probe(arch) {
        require::skip(Component::Vm, &e.0);
        return;
    }
    let truth = truth(&format!("vm-{arch}.json"));
    let release = vm.config().release(arch).unwrap();
    if release != truth.release {
        eprintln!("skipped: BPF_SELFTEST_VM_KERNEL selects {release}; the recording is of {}", truth.release);
        return;
    }
    let cases = cases(arch);
    let reqs: Vec<_> = cases.iter().map(|c| c.req.clone()).collect();
    let t0 = Instant::now();
    let outs = vm.load_batch(&reqs);
    let total = t0.elapsed();
    let boots = vm.boots(arch);
    assert_eq!(boots.len(), 1, "one boot for the batch");
    assert_eq!(boots[0].release, truth.release);
    eprintln!("{arch}: boot {:.2} s, {} programs in {:.2} s total", boots[0].boot_time.as_secs_f64(), reqs.len(), total.as_secs_f64());

    // a fresh boot and the recorder's order: even the map ids are the recorded ones
    let strict = Strictness { kernel_details: true, exact_jit: &["ret42", "unpriv_ok"], same_map_ids: true, arch };
    let mut diffs = Vec::new();
    for (c, out) in cases.iter().zip(&outs) {
        let got = out.as_ref().unwrap_or_else(|e| panic!("{}: {}", c.name, e.0));
        let mut want = truth.program(&c.name).unwrap_or_else(|| panic!("{} not recorded", c.name)).clone();
        if c.name == "bad_r0_l0" {
            // libbpf's retry at log level 1; the recording does not retry
            want.log = truth.program("bad_r0").expect("bad_r0 recorded").log.clone();
        }
        diffs.extend(compare(&c.name, got, &want, &strict));
    }
    assert!(diffs.is_empty(), "differences from the kernel's recorded answers:\n{}", diffs.join("\n"));

    // the numbers recorded for iters.c:iter_num_new_inlined
    let i = cases.iter().position(|c| c.name == "iter_num").unwrap();
    let it = outs[i].as_ref().unwrap();
    assert_eq!(it.verified_insns, 18);
    assert_eq!(it.xlated.len(), 36);
    assert_eq!(it.xlated[7], "7: if w2 s> w3 goto pc+8");
    assert_eq!(it.retval, Some(0));
    assert_eq!(it.jited_funcs.iter().map(Vec::len).collect::<Vec<_>>(), [iter_num_jit_len]);
    drop(vm);
}

#[test]
fn linux_7_3_x86_64() {
    run(Arch::X86_64, 165);
}

#[test]
fn linux_7_3_arm64() {
    run(Arch::Arm64, 248);
}

/// The QEMUs of the process `pid` (their command lines name its run
/// directory).
fn qemus_of(pid: u32) -> Vec<u32> {
    let mark = format!("bpf-selftest-vm-{pid}-");
    let Ok(procs) = std::fs::read_dir("/proc") else { return Vec::new() };
    procs
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(&mark)))
        .collect()
}

/// The run directories of the process `pid`.
fn run_dirs_of(pid: u32) -> Vec<std::path::PathBuf> {
    let mark = format!("bpf-selftest-vm-{pid}-");
    [std::env::temp_dir(), "/tmp".into()]
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|r| r.flatten().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&mark)))
        .collect()
}

/// `bpf-selftest check --backend vm` killed while its guest boots (SIGKILL,
/// SIGTERM): its QEMU dies with it, and the run directory it leaves is
/// removed by the next start of the vm backend.
#[test]
fn a_run_killed_mid_boot_leaves_no_qemu_behind() {
    let vm = VmBackend::from_env();
    if let Err(e) = vm.probe(Arch::X86_64) {
        require::skip(Component::Vm, &e.0);
        return;
    }
    let prog = std::env::temp_dir().join(format!("vm-kill-{}.s", std::process::id()));
    std::fs::write(&prog, "r0 = 0\nexit\n").unwrap();
    for sig in [libc::SIGKILL, libc::SIGTERM] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_bpf-selftest"))
            .args(["check", "--backend", "vm", "--arch", "x86_64"])
            .arg(&prog)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        let t0 = Instant::now();
        while qemus_of(pid).is_empty() {
            assert!(t0.elapsed().as_secs() < 60, "no QEMU started by {pid}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // into the boot: QEMU has connected to the loader socket and the
        // guest kernel is running (a QEMU that cannot connect exits anyway)
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be killed");
        // SAFETY: signalling our own child
        assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
        let _ = child.wait();
        let t1 = Instant::now();
        while !qemus_of(pid).is_empty() {
            assert!(t1.elapsed().as_secs() < 10, "signal {sig}: QEMU {:?} outlived its parent {pid}", qemus_of(pid));
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        for d in run_dirs_of(pid).iter().filter_map(|p| p.parent().map(std::path::Path::to_path_buf)) {
            bpf_selftest::backend::vm::remove_stale_run_dirs(&d);
        }
        assert!(run_dirs_of(pid).is_empty(), "signal {sig}: left {:?}", run_dirs_of(pid));
    }
    let _ = std::fs::remove_file(&prog);
}
