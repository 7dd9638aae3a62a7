//! Backends: what loads a program and reports what happened. The model, the
//! running kernel and a kernel booted under QEMU all answer a [`LoadRequest`]
//! with the same [`LoadOutcome`]; the runner never knows which one did.

use crate::link::LinkedProgram;
use crate::map::MapDef;
use crate::prog_type::ProgType;
use crate::target::Arch;

/// How the program's BTF is given to the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum BtfMode {
    /// No program BTF.
    None,
    /// A minimal program BTF: one `FUNC` per subprogram with `func_info`, as
    /// clang `-g` gives test_loader. Functions marked global in the linked
    /// program are `BTF_FUNC_GLOBAL` with their int arguments.
    #[default]
    FuncInfo,
    /// A BPF object's own BTF and the program's `.BTF.ext` records, as
    /// libbpf loads them ([`crate::object::BpfObject::load_request`]).
    Object(std::sync::Arc<crate::object::ObjectBtf>),
}

pub use crate::exec::TestRunInput;

/// Everything a backend needs to load one program.
#[derive(Clone, Debug)]
pub struct LoadRequest {
    /// For reports (`suite/prog`).
    pub name: String,
    pub prog: LinkedProgram,
    pub prog_type: ProgType,
    pub expected_attach_type: Option<u32>,
    /// The kernel function a tracing program attaches to (`fentry/<func>`):
    /// loaders pass its vmlinux BTF id as `attach_btf_id`.
    pub attach_func: Option<String>,
    /// `prog_flags` as passed to BPF_PROG_LOAD.
    pub prog_flags: u32,
    pub log_level: u32,
    /// test_loader's unprivileged run: CAP_SYS_ADMIN, CAP_NET_ADMIN,
    /// CAP_PERFMON and CAP_BPF dropped for map creation and load, except
    /// `caps_unpriv` (capability numbers) given back. Maps for which
    /// [`crate::map::is_unpriv_capable`] is false are not created in such a
    /// run (libbpf poisons the instructions that reference them).
    pub unpriv: bool,
    pub caps_unpriv: Vec<u32>,
    pub maps: Vec<MapDef>,
    pub btf: BtfMode,
    pub test_run: Option<TestRunInput>,
    /// Target arch: the model's choice of JIT and zext rules; real-kernel
    /// backends refuse an arch they are not running.
    pub arch: Arch,
    /// Dump the JIT image (needs a JIT for the arch).
    pub want_jited: bool,
    /// BPF_PROG_LOAD's `license` (test_loader's programs are GPL).
    pub license: String,
    /// In an unprivileged run, create the maps and load the program BTF
    /// before the capabilities are dropped (test_loader creates them after:
    /// without CAP_BPF the BTF is refused and the load goes on without it).
    /// The verifier-log goldens of `record --set do-check|calls` were
    /// recorded this way.
    pub privileged_setup: bool,
    /// BPF_PROG_LOAD's `log_size`, the size of the log buffer passed with
    /// a non-zero `log_level`: test_loader's 2 MiB ([`loader::LOG_BUF_SIZE`])
    /// unless a load is about the log buffer itself.
    pub log_size: u32,
    /// In an unprivileged run without `privileged_setup`, try to create
    /// every map after the capabilities are dropped, not only those
    /// test_loader knows the kernel lets it create: what BPF_MAP_CREATE
    /// answers then is the point (`record --set map-create`).
    pub create_every_map: bool,
    /// What happens around the test run: programs attached before it,
    /// global variables written before and read after it.
    pub scenario: Scenario,
}

/// A test run's surroundings, as a skeleton-based test sets them up: other
/// programs of the suite loaded with the same maps and attached (fentry,
/// fexit, fmod_ret through `BPF_LINK_CREATE`, raw tracepoints through
/// `BPF_RAW_TRACEPOINT_OPEN`), the program itself attached, run statistics
/// enabled (`BPF_ENABLE_STATS`), global variables written through an mmap
/// of their map before the run and read the same way after it.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    pub attached: Vec<AttachedProg>,
    /// Attach the program under test too (after the others), to this
    /// kernel function or tracepoint.
    pub attach_self: Option<String>,
    /// (map index, offset, bytes) written before the test run.
    pub global_init: Vec<(usize, u32, Vec<u8>)>,
    /// (map index, offset, length) read after it, into
    /// [`LoadOutcome::globals`].
    pub global_read: Vec<(usize, u32, u32)>,
}

impl Scenario {
    /// Whether anything beyond a plain load and test run is asked for.
    pub fn is_empty(&self) -> bool {
        self.attached.is_empty() && self.attach_self.is_none() && self.global_init.is_empty() && self.global_read.is_empty()
    }
}

impl LoadRequest {
    /// Whether loading this request needs the kernel's vmlinux BTF: an
    /// attach target, kfunc calls or typed ksyms, in the program or in one
    /// it attaches.
    pub fn needs_vmlinux_btf(&self) -> bool {
        let uses = |attach_func: &Option<String>, prog: &LinkedProgram| {
            attach_func.is_some() || prog.relocs.iter().any(|r| matches!(r, crate::link::LinkReloc::Kfunc { .. } | crate::link::LinkReloc::BtfId { .. }))
        };
        uses(&self.attach_func, &self.prog) || self.scenario.attached.iter().any(|a| uses(&a.attach_func, &a.prog))
    }

    /// The load of attached program `a` beside this request: privileged,
    /// with the same maps, no dumps and no test run of its own.
    pub fn attached_request(&self, a: &AttachedProg) -> LoadRequest {
        LoadRequest {
            name: format!("{} (attached {})", self.name, a.name),
            prog: a.prog.clone(),
            prog_type: a.prog_type,
            expected_attach_type: a.expected_attach_type,
            attach_func: crate::prog_type::btf_attach_target_kind(a.prog_type, a.expected_attach_type).then(|| a.attach_func.clone()).flatten(),
            prog_flags: a.prog_flags,
            btf: a.btf.clone(),
            log_level: 0,
            unpriv: false,
            caps_unpriv: Vec::new(),
            test_run: None,
            want_jited: false,
            log_size: loader::LOG_BUF_SIZE,
            create_every_map: false,
            privileged_setup: false,
            scenario: Scenario::default(),
            ..self.clone()
        }
    }
}

/// A program loaded beside the one under test and attached before its
/// test run (privileged, with the request's maps).
#[derive(Clone, Debug)]
pub struct AttachedProg {
    /// Its name in the suite.
    pub name: String,
    pub prog: LinkedProgram,
    pub prog_type: ProgType,
    pub expected_attach_type: Option<u32>,
    /// The kernel function (fentry/fexit/fmod_ret, `attach_btf_id`) or the
    /// tracepoint (raw_tp) it attaches to.
    pub attach_func: Option<String>,
    pub prog_flags: u32,
    /// Its program BTF (an object's program has its own `func_info`).
    pub btf: BtfMode,
}

/// What `bpf_prog_info` says of a program after the test run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgRunStats {
    pub run_cnt: u64,
    pub recursion_misses: u64,
}

/// What came of a load, from any backend.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOutcome {
    pub accepted: bool,
    /// Positive errno of the failed load, 0 when accepted.
    pub errno: i32,
    /// The verifier log (empty at log level 0 unless the load failed and the
    /// loader retried at level 1, as libbpf does).
    pub log: String,
    /// The length the whole log would have had, its NUL included (the
    /// kernel's `log_true_size`): more than the buffer when it was cut.
    pub log_true_size: u32,
    pub verified_insns: u32,
    /// The xlated dump as test_loader renders it, one `N: text` per line.
    pub xlated: Vec<String>,
    /// The jited dump as test_loader renders it (`func #i:` headers, labels),
    /// one line per element; empty when there is no JIT image.
    pub jited: Vec<String>,
    /// Raw JIT image per function (for byte comparisons).
    pub jited_funcs: Vec<Vec<u8>>,
    /// `BPF_PROG_TEST_RUN`'s return value, when run.
    pub retval: Option<u32>,
    /// errno of a failed test run (0 if it ran or was not asked for).
    pub test_run_errno: i32,
    /// `data_out` of the test run.
    pub data_out: Vec<u8>,
    /// The id of each map of the request, by index (0: not created), for
    /// turning the ids in `xlated` into map indexes ([`normalize`]).
    pub map_ids: Vec<u32>,
    /// The xlated program itself (what `xlated` renders).
    pub xlated_insns: Vec<bpf_isa::Insn>,
    /// Wall time of the BPF_PROG_LOAD call that gave this outcome, in ns
    /// (the model's: its verification and JIT image, without the text
    /// dumps; 0 when the backend does not measure it), for benchmarks.
    pub load_ns: u64,
    /// The kernel's `duration` of the test run: mean ns per repetition.
    pub test_run_duration_ns: u32,
    /// With a [`Scenario`]: the run statistics of the program under test,
    /// then of each attached program in order.
    pub prog_stats: Vec<ProgRunStats>,
    /// With a [`Scenario`]: the bytes of each `global_read`, in order.
    pub globals: Vec<Vec<u8>>,
}

/// Why a backend cannot run a request at all (the runner turns it into a skip).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable(pub String);

/// A loader of programs.
pub trait Backend: Send + Sync {
    /// `model`, `kernel` or `vm`.
    fn name(&self) -> &'static str;
    /// Whether this backend can run requests for `arch` at all, and why not.
    fn probe(&self, arch: Arch) -> Result<(), Unavailable>;
    /// What from outside the project this backend needs to run requests
    /// for an arch: when [`Backend::probe`] fails for it, that is what is
    /// missing, and the runner asks [`crate::require`] whether its skips are
    /// failures. `None` (the default): nothing, or the arch is one this
    /// backend cannot serve at all, which no setup changes.
    fn requires(&self, _arch: Arch) -> Option<crate::require::Component> {
        None
    }
    /// The kernel release this backend answers for (`7.3.4+deb13-amd64`), for
    /// version gates and golden headers.
    fn kernel_release(&self) -> String;
    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable>;
    /// Whether programs for `arch` are JITed (`bpf_jit_enable` on a real
    /// kernel): test_loader's `__load_if_JITed`/`__load_if_no_JITed` gate.
    fn jit_enabled(&self, arch: Arch) -> bool {
        arch.has_jit()
    }
    /// test_loader's `can_execute_unpriv` for this backend: a real kernel
    /// says no when `kernel.unprivileged_bpf_disabled` is set or CPU
    /// mitigations are off; the unpriv subtests are then skipped.
    fn can_execute_unpriv(&self) -> Result<(), Unavailable> {
        Ok(())
    }
    /// Many requests at once (one QEMU boot for the vm backend).
    fn load_batch(&self, reqs: &[LoadRequest]) -> Vec<Result<LoadOutcome, Unavailable>> {
        reqs.iter().map(|r| self.load(r)).collect()
    }
}

pub mod kernel;
pub mod loader;
pub mod model;
pub mod normalize;
pub mod replay;
pub mod vm;

/// The backend named by `BPF_SELFTEST_BACKEND` (or `--backend`).
pub fn by_name(name: &str) -> Result<Box<dyn Backend>, String> {
    match name {
        "model" => Ok(Box::new(model::ModelBackend)),
        "kernel" => Ok(Box::new(kernel::KernelBackend::default())),
        "vm" => Ok(Box::new(vm::VmBackend::from_env())),
        _ => Err(format!("unknown backend '{name}' (model, kernel, vm)")),
    }
}
