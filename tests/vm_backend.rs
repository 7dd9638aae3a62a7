//! The vm backend: Debian 7.3 booted under QEMU TCG, once per arch, running
//! the programs of tests/oracle_progs in one batch, compared with what the
//! same images answered when recorded (`expected/oracle/vm-<arch>.json`,
//! made by `bpf-selftest record --set backend-truth`).
//! Skipped, with the reason, when QEMU, the images or a guest compiler are
//! missing (`scripts/setup-vm.sh` installs them).

mod backend_common;

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
    eprintln!(
        "{arch}: boot {:.2} s, {} programs in {:.2} s total",
        boots[0].boot_time.as_secs_f64(),
        reqs.len(),
        total.as_secs_f64()
    );

    // a fresh boot and the recorder's order: even the map ids are the recorded ones
    let strict = Strictness { kernel_details: true, exact_jit: &["ret42", "unpriv_ok"], same_map_ids: true };
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
