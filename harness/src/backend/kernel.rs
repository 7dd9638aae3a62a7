//! The running kernel, through bpf(2): the programs are loaded the way
//! test_loader loads them ([`super::loader`]) on this machine.
//!
//! It answers only for the arch it runs on. Unprivileged runs need
//! `kernel.unprivileged_bpf_disabled=0`; otherwise they are skipped, as
//! test_loader's `can_execute_unpriv()` skips them.

use std::sync::{Arc, OnceLock};

use super::loader::{self, Target};
use super::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::btf::Btf;
use crate::sys::{LocalSys, attr, errno_desc};
use crate::target::Arch;

/// Where the running kernel exposes its BTF.
pub const VMLINUX_BTF: &str = "/sys/kernel/btf/vmlinux";

#[derive(Default)]
pub struct KernelBackend {
    /// Whether bpf(2) may load a program here (asked once).
    permitted: OnceLock<Result<(), String>>,
    vmlinux: OnceLock<Result<Arc<Btf>, String>>,
}

impl KernelBackend {
    /// The running kernel's BTF, parsed once.
    pub fn vmlinux_btf(&self) -> Result<Arc<Btf>, String> {
        self.vmlinux
            .get_or_init(|| {
                let data = std::fs::read(VMLINUX_BTF).map_err(|e| format!("kernel: cannot read {VMLINUX_BTF}: {e}"))?;
                Btf::parse(&data).map(Arc::new).map_err(|e| format!("kernel: {VMLINUX_BTF}: {e}"))
            })
            .clone()
    }

    /// Loads `req` with other [`loader::LoadSettings`] than test_loader's,
    /// and an unprivileged request even where unprivileged BPF is disabled
    /// (the kernel's EPERM is then the answer): what a recorder of another
    /// tool's recordings needs.
    pub fn load_with(&self, req: &LoadRequest, how: &loader::LoadSettings) -> Result<LoadOutcome, Unavailable> {
        self.probe(req.arch)?;
        let needs_btf = req.needs_vmlinux_btf();
        let vmlinux = if needs_btf { Some(self.vmlinux_btf().map_err(Unavailable)?) } else { None };
        // CO-RE: libbpf reads the running kernel's BTF
        let core = if crate::object::core::has_core(req) {
            Some(crate::object::core::target_btf_file(std::path::Path::new(VMLINUX_BTF)).map_err(|e| Unavailable(format!("kernel: {e}")))?)
        } else {
            None
        };
        let target = Target { backend: "kernel", vmlinux: vmlinux.as_deref(), core: core.as_deref() };
        loader::load_with(&mut LocalSys, &target, req, how)
    }

    fn permitted(&self) -> Result<(), String> {
        self.permitted.get_or_init(probe_bpf).clone()
    }
}

/// Loads `r0 = 0; exit` as a socket filter: the cheapest question that tells
/// whether this process may load programs at all.
fn probe_bpf() -> Result<(), String> {
    use crate::sys::BpfSys;
    let code = bpf_isa::insn::encode_all(&[
        bpf_isa::Insn::new(0xb7, 0, 0, 0, 0), // r0 = 0
        bpf_isa::Insn::new(0x95, 0, 0, 0, 0), // exit
    ]);
    let p = attr::ProgLoad { prog_type: 1, insns: &code, license: "GPL", name: "probe", ..attr::ProgLoad::default() };
    let (call, _) = attr::prog_load(&p);
    let mut sys = LocalSys;
    let r = sys.bpf(&call).map_err(|e| format!("kernel: {e}"))?;
    match r.fd() {
        Ok(fd) => {
            let _ = sys.close(&[fd]);
            Ok(())
        }
        Err(errno) => {
            let why = match errno {
                1 => "not permitted: run as root, or with CAP_BPF and CAP_PERFMON",
                38 => "bpf(2) is not available (CONFIG_BPF_SYSCALL off, or blocked by seccomp)",
                _ => "the running kernel refused a trivial program",
            };
            Err(format!("kernel: bpf(BPF_PROG_LOAD) failed with {}: {why}", errno_desc(errno)))
        }
    }
}

/// `uname -r`.
pub fn uname_release() -> String {
    // SAFETY: uname(2) fills the zeroed struct; the fields are NUL-terminated.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return String::new();
        }
        std::ffi::CStr::from_ptr(u.release.as_ptr()).to_string_lossy().into_owned()
    }
}

/// `kernel.unprivileged_bpf_disabled` (0: allowed, 1/2: disabled), if readable.
pub fn unprivileged_bpf_disabled() -> Option<u32> {
    std::fs::read_to_string("/proc/sys/kernel/unprivileged_bpf_disabled").ok()?.trim().parse().ok()
}

impl Backend for KernelBackend {
    fn name(&self) -> &'static str {
        "kernel"
    }

    fn probe(&self, arch: Arch) -> Result<(), Unavailable> {
        match Arch::host() {
            Some(h) if h == arch => {}
            Some(h) => {
                return Err(Unavailable(format!("kernel: the running kernel is {h}, not {arch} (use BPF_SELFTEST_BACKEND=vm for another arch)")));
            }
            None => return Err(Unavailable(format!("kernel: this host's arch ({}) is not one of ours", std::env::consts::ARCH))),
        }
        self.permitted().map_err(Unavailable)
    }

    /// bpf(2) on the running kernel, for its own arch (another arch is not
    /// something the setup can give it).
    fn requires(&self, arch: Arch) -> Option<crate::require::Component> {
        (Arch::host() == Some(arch)).then_some(crate::require::Component::Bpf)
    }

    fn kernel_release(&self) -> String {
        uname_release()
    }

    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        self.probe(req.arch)?;
        if req.unpriv {
            match unprivileged_bpf_disabled() {
                Some(0) => {}
                v => {
                    let v = v.map_or("unreadable".to_string(), |v| v.to_string());
                    return Err(Unavailable(format!(
                        "kernel: unprivileged BPF is disabled (kernel.unprivileged_bpf_disabled={v}), so unprivileged loads fail \
                         with {}; test_loader skips @unpriv runs then",
                        errno_desc(1)
                    )));
                }
            }
        }
        self.load_with(req, &loader::LoadSettings::default())
    }
}
