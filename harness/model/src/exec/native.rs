//! Native execution of the x86-64 JIT's output (x86-64 Linux hosts only):
//! the bytes `jit::x86_64` emits for the xlated program, in executable
//! memory, run with the same ctx, maps and packet as the interpreter, so
//! that the two can be compared.
//!
//! How the kernel's world is stood in for:
//! * the runtime's memory lives at host addresses ([`Memory::new_host`]),
//!   so map values, the ctx, the packet and the stack the native code
//!   touches are the very bytes the runtime (and the interpreter) see; the
//!   program's stack is a region of the runtime too (the code runs on it),
//!   so a helper given a pointer to the stack finds it;
//! * the JIT runs with a profile whose addresses are real: `__bpf_call_base`
//!   is placed so that every kernel function the program calls
//!   (`__bpf_call_base + imm`) lands on a stub in this mapping, which
//!   enters the runtime (`native_dispatch`) with the call's `imm` as the
//!   key: helpers, kfuncs and the kernel-internal functions of the fixups
//!   are the runtime's, exactly as the interpreter calls them; images are
//!   within ±2 GiB of the stubs so `call rel32` reaches;
//! * `arch_bpf_timed_may_goto` has a stub with its own convention (all
//!   registers kept, the count in and out of AX = r10);
//! * `this_cpu_off` is a zero word in a low page (`gs` is 0 in user space,
//!   so `add reg, gs:[this_cpu_off]` adds 0: one CPU, as the interpreter);
//!   per-CPU kernel variables whose addresses the xlated program holds as
//!   an imm32 (`r0 = &cpu_number` of the inlined
//!   `bpf_get_smp_processor_id`/`bpf_get_current_task`) live in a
//!   per-thread area of host memory below 2 GiB
//!   ([`super::mem::Memory::alloc_low`]), whose address is the imm32;
//! * map addresses and kernel variables in `ld_imm64` are the runtime's;
//! * tail calls are the JIT's inline sequence: prog arrays are laid out as
//!   `struct bpf_array` (`map.max_entries` at 0x44, `ptrs[]` at 0x128), a
//!   slot holding the program points at a stand-in `struct bpf_prog` whose
//!   `bpf_func` (0x48) is the program's image, so a taken tail call jumps
//!   to `bpf_func + X86_TAIL_CALL_OFFSET` and the counter is the JIT's own
//!   (in the frame, `MAX_TAIL_CALL_CNT`);
//! * an arena program's r12 is `kern_vm_start` of the run's arena, whose
//!   4 GiB window plus guards is reserved inaccessible at a host address
//!   with only the allocated pages accessible ([`super::arena::Arena::new_host`]);
//!   an access to any other page faults, and a SIGSEGV handler (installed
//!   once for the process, reading the running image's exception table
//!   from a thread-local) does what `ex_handler_bpf` does: zero the
//!   register the access loads into, if any, and resume after it. The
//!   table is the JIT's own (`bpf_int_jit_compile_extable`), recorded
//!   beside the bytes it emits;
//! * the interpreter's run it is compared with shares the layout
//!   ([`test_run_interp_host`], `prepare_host`): the same regions in the
//!   same order, and its frames where the JIT's are, so even pointers a
//!   program returns or stores are equal.
//!
//! Only programs the verifier accepted run natively, and only after the
//! interpreter ran the same xlated program to its end in the same kind of
//! runtime (a fault there would be a crash here). What cannot run is
//! refused up front ([`ExecError::Unsupported`]): tail calls into other
//! programs than the one under test (no other is loaded), indirect
//! jumps and private stacks. A helper
//! that fails inside a native run cannot unwind through JITed frames: the
//! error is kept, the helper returns 0, and the run reports the error.

use super::{LoadedProg, TestRunInput};
use crate::jit::SubprogFacts;
use bpf_isa::Insn;

use super::{ExecError, ExecOptions, TestRunOutput};
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
pub(crate) use imp::{NativeImage, call_native};

/// Why native runs are not possible on this host, if they are not.
pub fn unavailable() -> Option<&'static str> {
    if cfg!(all(target_arch = "x86_64", target_os = "linux")) { None } else { Some("native runs need an x86-64 Linux host (the x86-64 JIT's code)") }
}

/// `BPF_PROG_TEST_RUN` of the xlated program `xlated` (dump form, with the
/// verifier's `subprogs`) of the load `loaded`, natively.
pub fn test_run_native(
    loaded: &LoadedProg<'_>,
    xlated: &[Insn],
    subprogs: &[SubprogFacts],
    input: &TestRunInput,
    opts: &ExecOptions,
) -> Result<TestRunOutput, ExecError> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        imp::test_run_native(loaded, xlated, subprogs, input, opts)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        let _ = (loaded, xlated, subprogs, input, opts);
        Err(ExecError::Unsupported(unavailable().unwrap_or_default().into()))
    }
}

/// The interpreter's run of the same xlated program in a runtime at host
/// addresses laid out as a native run's (the stack where the JIT's frames
/// are, kernel variables and the ctx at the same addresses): what a native
/// run is compared with.
pub fn test_run_interp_host(
    loaded: &LoadedProg<'_>,
    xlated: &[Insn],
    subprogs: &[SubprogFacts],
    input: &TestRunInput,
    opts: &ExecOptions,
) -> Result<TestRunOutput, ExecError> {
    let prog = super::ExecProgram::from_xlated(xlated, loaded.arch, loaded.prog_type.0).map_err(ExecError::Unsupported)?;
    let mut rt = super::Runtime::new_host(loaded.maps, opts)?;
    prepare_host(&mut rt, loaded, xlated, subprogs, &prog)?;
    rt.test_run(&prog, loaded.prog_type, loaded.expected_attach_type, input)
}

/// A native run next to the interpreter's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Retval, `data_out` and the ctx handed back (or the error) are equal.
    Same,
    /// One side could not run it (not modelled, the budget), with why.
    Skipped(String),
    /// They differ: both results, shown.
    Differs(String),
}

fn show(r: &Result<TestRunOutput, ExecError>) -> String {
    match r {
        Ok(o) => format!("retval {:#x} data_out {:02x?} ctx_out {:02x?}", o.retval, o.data_out, o.ctx_out),
        Err(e) => format!("error: {e}"),
    }
}

/// Runs the xlated program `xlated` of the accepted load `loaded` natively and
/// by the interpreter, each in a fresh host-memory runtime of the same
/// layout: a differential check, as the
/// `exec_native` fuzz target.
pub fn compare_with_interpreter(loaded: &LoadedProg<'_>, xlated: &[Insn], subprogs: &[SubprogFacts], input: &TestRunInput, opts: &ExecOptions) -> Comparison {
    let interp = test_run_interp_host(loaded, xlated, subprogs, input, opts);
    match &interp {
        Err(ExecError::Unsupported(why)) => return Comparison::Skipped(format!("interpreter: {why}")),
        Err(ExecError::Budget(_)) => return Comparison::Skipped("interpreter: budget".into()),
        _ => {}
    }
    let nat = test_run_native(loaded, xlated, subprogs, input, opts);
    if let Err(ExecError::Unsupported(why)) = &nat {
        return Comparison::Skipped(why.clone());
    }
    let same = match (&interp, &nat) {
        // every instruction ran as machine code: the interpreter counted none
        (Ok(a), Ok(b)) => b.insns == 0 && a.retval == b.retval && a.data_out == b.data_out && a.ctx_out == b.ctx_out,
        (Err(a), Err(b)) => a == b,
        _ => false,
    };
    if same { Comparison::Same } else { Comparison::Differs(format!("interpreter {}; native {}", show(&interp), show(&nat))) }
}

/// Bytes of the stack a native run (and the interpreter's run it is
/// compared with) runs on.
const HOST_STACK_SIZE: usize = 4 << 20;

/// Bytes of the stand-in `struct bpf_prog` prog arrays point to.
const BPF_PROG_SIZE: usize = 0x100;

/// The layout every host-memory run of `xlated` shares, set up before the
/// ctx: the prog array slots naming the program (libbpf's
/// `init_prog_array_slots`) with `ptrs[]` pointing at a `struct bpf_prog`
/// of it (whose `bpf_func` a native run fills in), the kernel variables it
/// loads (in program order) and the stack with the JIT's frame sizes
/// ([`super::runtime::HostStack`]). The JIT's view of the program, with
/// the verifier's facts, and the `struct bpf_prog`, if a slot holds it.
fn prepare_host(
    rt: &mut super::Runtime,
    loaded: &LoadedProg<'_>,
    xlated: &[Insn],
    subprogs: &[SubprogFacts],
    prog: &super::ExecProgram,
) -> Result<(crate::jit::JitProgram, Option<super::Addr>), ExecError> {
    let not_here = |what: String| ExecError::Unsupported(format!("native run: {what}"));
    if let Some(name) = loaded.name {
        rt.fill_self_slots(loaded.maps, name);
    }
    let mut prog_obj = None;
    for m in 0..rt.maps.len() {
        let (addr, max_entries) = (rt.maps[m].addr, rt.maps[m].def.max_entries);
        let super::maps::Store::ProgArray { slots } = &rt.maps[m].store else { continue };
        if max_entries as usize > slots.len() {
            // the JIT's bounds check reads max_entries: ptrs[] must be whole
            return Err(not_here(format!("a prog array of {max_entries} slots")));
        }
        let filled: Vec<(usize, usize)> = slots.iter().enumerate().filter_map(|(k, p)| p.map(|p| (k, p))).collect();
        for (k, p) in filled {
            if p != 0 {
                return Err(not_here("tail calls into another program".into()));
            }
            let obj = match prog_obj {
                Some(o) => o,
                None => {
                    let o =
                        rt.mem.alloc(super::mem::RegionKind::Object, vec![0; BPF_PROG_SIZE], true).map_err(|f| not_here(format!("struct bpf_prog: {f}")))?;
                    prog_obj = Some(o);
                    o
                }
            };
            rt.mem
                .store_kernel(addr + crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * k as u64, 8, obj)
                .map_err(|f| not_here(format!("prog array slot: {f}")))?;
        }
    }
    // per-CPU variables held as an imm32 first (low memory), then the rest
    for (pc, k) in prog.imm64.iter().enumerate() {
        if let Some(super::Imm64::Ksym(name)) = k
            && !prog.insns.get(pc).is_some_and(|i| i.is_ld_imm64())
        {
            rt.ksym_low(name)?;
        }
    }
    for k in prog.imm64.iter().flatten() {
        if let super::Imm64::Ksym(name) = k {
            rt.ksym(name)?;
        }
    }
    let jp = crate::jit::JitProgram::from_xlated_with_facts(xlated, subprogs, loaded.prog_type.0).map_err(not_here)?;
    let stack = rt.mem.alloc(super::mem::RegionKind::Stack, vec![0; HOST_STACK_SIZE], false).map_err(|f| not_here(format!("stack: {f}")))?;
    // an arena program's frames hold r12 too
    let arena = uses_arena(rt, prog);
    let frames = jp.funcs.iter().map(|f| (f.start, crate::jit::x86_64::frame_bytes_at_call(f, arena))).collect();
    rt.host_stack = Some(super::runtime::HostStack { top: (stack + HOST_STACK_SIZE as u64) & !15, frames: vec![frames] });
    Ok((jp, prog_obj))
}

/// Whether the program refers to the run's arena map (`prog->aux->arena`,
/// which gives its JITed code r12 = `kern_vm_start`).
fn uses_arena(rt: &super::Runtime, prog: &super::ExecProgram) -> bool {
    let is_arena = |m: usize| rt.maps.get(m).is_some_and(|m| m.def.map_type == crate::map::types::BPF_MAP_TYPE_ARENA);
    rt.arena.is_some()
        && prog.imm64.iter().flatten().any(|k| match k {
            super::Imm64::Map(m) | super::Imm64::MapValue { map: m, .. } => is_arena(*m),
            _ => false,
        })
}

/// Stand-ins for the native run on other hosts (never built: `native` is
/// only set by the x86-64 path).
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod imp_stub {
    use super::super::{Addr, ExecError, Runtime};
    pub(crate) struct NativeImage;
    impl NativeImage {
        pub(crate) fn is_func(&self, _a: Addr) -> bool {
            false
        }
        pub(crate) fn entry(&self) -> Addr {
            0
        }
    }
    pub(crate) fn call_native(_rt: &mut Runtime, _f: Addr, _a: [u64; 5]) -> Result<u64, ExecError> {
        Err(ExecError::Unsupported("native runs on this host".into()))
    }
}
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
pub(crate) use imp_stub::{NativeImage, call_native};

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod imp {
    use std::cell::Cell;
    use std::collections::HashMap;
    use std::sync::OnceLock;

    use bpf_isa::Insn;
    use bpf_isa::insn::op::*;

    use super::super::interp::Flow;
    use super::super::{Addr, CallTarget, ExecError, ExecOptions, ExecProgram, Imm64, Internal, Runtime, TestRunOutput, helpers, kfuncs};
    use super::super::{LoadedProg, TestRunInput};
    use crate::jit::x86_64::encoder::Reg;
    use crate::jit::x86_64::{ExTableEntry, IndirectJump, X86Profile, bpf_int_jit_compile_extable};
    use crate::jit::{JitProgram, SubprogFacts};
    use crate::target::Arch;

    /// Span of the call stubs: every imm of the kallsyms table lands in it.
    const STUB_SPAN: u64 = 0x100_0000;
    /// `__bpf_call_base` within the mapping (the table's imms run from
    /// about -0x22_0000 to 0xbd_0000).
    const CALL_BASE_OFF: u64 = 0x40_0000;
    /// The trampolines' page, after the stubs.
    const TRAMP_OFF: u64 = STUB_SPAN;
    const ENTRY_OFF: u64 = TRAMP_OFF;
    const DISPATCH_OFF: u64 = TRAMP_OFF + 0x40;
    const TIMED_OFF: u64 = TRAMP_OFF + 0x80;
    /// Function images, one per stride.
    const IMAGES_OFF: u64 = TRAMP_OFF + 0x1_0000;
    const IMAGE_STRIDE: u64 = crate::jit::arm64::IMAGE_STRIDE;
    /// One call stub: `mov r11d, imm32; jmp rel32`.
    const STUB_LEN: u64 = 11;

    /// An executable mapping, unmapped on drop.
    struct Mapping {
        base: *mut u8,
        len: usize,
    }

    impl Mapping {
        fn new(len: usize) -> Result<Mapping, ExecError> {
            // SAFETY: an anonymous private mapping that nothing else uses
            let p = unsafe {
                libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0)
            };
            if p == libc::MAP_FAILED {
                return Err(ExecError::Unsupported("native run: mmap failed".into()));
            }
            Ok(Mapping { base: p as *mut u8, len })
        }

        fn addr(&self) -> u64 {
            self.base as u64
        }

        fn write(&mut self, off: u64, bytes: &[u8]) {
            assert!(off as usize + bytes.len() <= self.len, "write inside the mapping");
            // SAFETY: in bounds (checked), the mapping is writable until sealed
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.base.add(off as usize), bytes.len()) }
        }

        fn seal(&mut self) -> Result<(), ExecError> {
            // SAFETY: our own mapping
            let r = unsafe { libc::mprotect(self.base as *mut libc::c_void, self.len, libc::PROT_READ | libc::PROT_EXEC) };
            if r != 0 {
                return Err(ExecError::Unsupported("native run: mprotect(PROT_EXEC) failed".into()));
            }
            Ok(())
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            // SAFETY: our own mapping, no code runs from it any more
            unsafe {
                libc::munmap(self.base as *mut libc::c_void, self.len);
            }
        }
    }

    /// The JITed program in its mapping.
    pub(crate) struct NativeImage {
        map: Mapping,
        funcs: Vec<u64>,
        /// The images' exception tables at host addresses, by address.
        extable: Box<[(u64, ExTableEntry)]>,
        /// Call stub key (the call's imm) -> what the runtime runs.
        targets: HashMap<u32, CallTarget>,
        /// Top of the stack region the code runs on.
        stack_top: u64,
        /// Native frames active (callbacks nest inside helpers).
        depth: Cell<u32>,
        /// The first error a helper met inside the run.
        error: Option<ExecError>,
    }

    impl NativeImage {
        pub(crate) fn is_func(&self, a: Addr) -> bool {
            self.funcs.contains(&a)
        }
        pub(crate) fn entry(&self) -> Addr {
            self.funcs[0]
        }
    }

    thread_local! {
        /// The runtime of the native run on this thread.
        static CURRENT: Cell<*mut Runtime> = const { Cell::new(std::ptr::null_mut()) };
    }

    thread_local! {
        /// The exception table of the native code running on this thread
        /// (read by the SIGSEGV handler: const-initialised, no destructor).
        static EXTABLE: Cell<*const [(u64, ExTableEntry)]> =
            const { Cell::new(std::ptr::slice_from_raw_parts(std::ptr::null(), 0)) };
    }

    /// The SIGSEGV action before ours, which faults that are not an arena
    /// access of native code go to.
    static PREV_SIGSEGV: OnceLock<Option<libc::sigaction>> = OnceLock::new();

    /// Installs [`on_sigsegv`] once for the process; whether it is.
    fn install_fault_handler() -> bool {
        PREV_SIGSEGV
            .get_or_init(|| {
                // SAFETY: plain sigaction calls with initialised structs
                unsafe {
                    let mut act: libc::sigaction = std::mem::zeroed();
                    act.sa_sigaction = on_sigsegv as *const () as usize;
                    act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut act.sa_mask);
                    let mut old: libc::sigaction = std::mem::zeroed();
                    (libc::sigaction(libc::SIGSEGV, &act, &mut old) == 0).then_some(old)
                }
            })
            .is_some()
    }

    /// `mcontext_t.gregs` index of an x86-64 register.
    fn greg(r: Reg) -> usize {
        const BY_NUM: [i32; 16] = [
            libc::REG_RAX,
            libc::REG_RCX,
            libc::REG_RDX,
            libc::REG_RBX,
            libc::REG_RSP,
            libc::REG_RBP,
            libc::REG_RSI,
            libc::REG_RDI,
            libc::REG_R8,
            libc::REG_R9,
            libc::REG_R10,
            libc::REG_R11,
            libc::REG_R12,
            libc::REG_R13,
            libc::REG_R14,
            libc::REG_R15,
        ];
        BY_NUM[r.num() as usize & 15] as usize
    }

    /// A fault in native code: at an instruction of this thread's
    /// exception table it is fixed up as `ex_handler_bpf` does (the loaded
    /// register zeroed, execution resumes after the instruction); any other
    /// goes to the previous handler.
    extern "C" fn on_sigsegv(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut libc::c_void) {
        let table = EXTABLE.try_with(|c| c.get()).unwrap_or(std::ptr::slice_from_raw_parts(std::ptr::null(), 0));
        if !table.is_null() && !uctx.is_null() {
            // SAFETY: the kernel's ucontext for this signal; the table is
            // the running image's (set around the native call on this thread)
            unsafe {
                let gregs = &mut (*(uctx as *mut libc::ucontext_t)).uc_mcontext.gregs;
                let rip = gregs[libc::REG_RIP as usize] as u64;
                let table = &*table;
                if let Ok(k) = table.binary_search_by_key(&rip, |(at, _)| *at) {
                    let x = table[k].1;
                    if let Some(r) = x.clear {
                        gregs[greg(r)] = 0;
                    }
                    gregs[libc::REG_RIP as usize] = (rip + x.len as u64) as i64;
                    return;
                }
            }
        }
        // not ours
        // SAFETY: the previous action as sigaction returned it
        unsafe {
            match PREV_SIGSEGV.get().copied().flatten() {
                Some(p) if p.sa_sigaction != libc::SIG_DFL && p.sa_sigaction != libc::SIG_IGN => {
                    if p.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(p.sa_sigaction);
                        f(sig, info, uctx);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(p.sa_sigaction);
                        f(sig);
                    }
                }
                _ => {
                    // the default action: the access faults again and kills
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(sig, &dfl, std::ptr::null_mut());
                }
            }
        }
    }

    /// A zero word at a low address for `gs:[this_cpu_off]`.
    fn this_cpu_off() -> Option<u64> {
        static P: OnceLock<Option<u64>> = OnceLock::new();
        *P.get_or_init(|| {
            for hint in [0x2000_0000u64, 0x3000_0000, 0x4000_0000, 0x5000_0000] {
                // SAFETY: a fresh anonymous page at a free address (NOREPLACE)
                let p = unsafe {
                    libc::mmap(hint as *mut libc::c_void, 4096, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE, -1, 0)
                };
                if p != libc::MAP_FAILED && p as u64 == hint {
                    return Some(hint);
                }
            }
            None
        })
    }

    fn unsupported(what: impl Into<String>) -> ExecError {
        ExecError::Unsupported(format!("native run: {}", what.into()))
    }

    pub(crate) fn test_run_native(
        loaded: &LoadedProg<'_>,
        xlated: &[Insn],
        subprogs: &[SubprogFacts],
        input: &TestRunInput,
        opts: &ExecOptions,
    ) -> Result<TestRunOutput, ExecError> {
        if loaded.arch != Arch::X86_64 {
            return Err(unsupported(format!("the x86-64 JIT's code only, not {}", loaded.arch)));
        }
        let prog = ExecProgram::from_xlated(xlated, loaded.arch, loaded.prog_type.0).map_err(unsupported)?;
        // the interpreter first, in the same kind of runtime: a run that
        // faults or cannot finish there would crash or hang natively
        {
            let mut rt = Runtime::new_host(loaded.maps, opts)?;
            super::prepare_host(&mut rt, loaded, xlated, subprogs, &prog)?;
            match rt.test_run(&prog, loaded.prog_type, loaded.expected_attach_type, input) {
                Ok(_) | Err(ExecError::TestRun(_)) => {}
                Err(e) => return Err(unsupported(format!("the interpreter's run fails ({e})"))),
            }
        }
        let mut rt = Runtime::new_host(loaded.maps, opts)?;
        let (_, prog_obj) = super::prepare_host(&mut rt, loaded, xlated, subprogs, &prog)?;
        let image = build(&mut rt, xlated, subprogs, &prog, loaded.prog_type.0, prog_obj)?;
        rt.native = Some(image);
        let out = rt.test_run(&prog, loaded.prog_type, loaded.expected_attach_type, input);
        // keep the run's error over a result computed from a stand-in 0
        match rt.native.take().and_then(|n| n.error) {
            Some(e) => Err(e),
            None => out,
        }
    }

    /// JITs `xlated` for this runtime's addresses and maps it.
    fn build(
        rt: &mut Runtime,
        xlated: &[Insn],
        subprogs: &[SubprogFacts],
        prog: &ExecProgram,
        prog_type: u32,
        prog_obj: Option<Addr>,
    ) -> Result<NativeImage, ExecError> {
        if subprogs.iter().any(|s| s.priv_stack) {
            return Err(unsupported("private stacks"));
        }
        // the dump form with the runtime's addresses in its ld_imm64s
        let mut insns = xlated.to_vec();
        let mut targets = HashMap::new();
        let mut uses_percpu = false;
        for (pc, insn) in xlated.iter().enumerate() {
            let class = insn.class();
            if insn.code == BPF_JMP | 0xf0 || (insn.is_call() && insn.src == 0 && insn.imm == bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL) {
                // the JIT's inline tail call through the prog array's ptrs[]
                continue;
            }
            if matches!(class, BPF_JMP | BPF_JMP32) && op(insn.code) == BPF_JA && src(insn.code) == BPF_X {
                return Err(unsupported("indirect jumps"));
            }
            if class == BPF_ALU64 && insn.code & 0xf0 == BPF_MOV && insn.off == BPF_ADDR_PERCPU {
                uses_percpu = true;
            }
            match prog.calls.get(pc).cloned().flatten() {
                Some(CallTarget::Subprog(_)) | None => {}
                Some(t) => {
                    if matches!(t, CallTarget::Helper(id) if id == insn.imm) {
                        return Err(unsupported("a helper call the JIT inlines"));
                    }
                    targets.insert(insn.imm as u32, t);
                }
            }
            if !insn.is_ld_imm64()
                && let Some(Some(Imm64::Ksym(name))) = prog.imm64.get(pc)
            {
                // `r0 = &cpu_number`: the runtime's variable is in low
                // memory, whose address fits the imm32; `this_cpu_ptr()`
                // then adds this CPU's offset, 0 (gs:[this_cpu_off])
                let a = rt.ksym_low(name)?;
                if a > i32::MAX as u64 {
                    return Err(unsupported(format!("{name} at {a:#x}, beyond an imm32")));
                }
                insns[pc].imm = a as i32;
            }
            if insn.is_ld_imm64() {
                let addr = match prog.imm64.get(pc).cloned().flatten() {
                    Some(Imm64::Map(m)) => Some(rt.maps.get(m).ok_or_else(|| unsupported(format!("no map {m}")))?.addr),
                    Some(Imm64::MapValue { map, off }) => {
                        Some(rt.map_value_addr(map, off).ok_or_else(|| unsupported(format!("map {map} has no direct value")))?)
                    }
                    Some(Imm64::Ksym(name)) => Some(rt.ksym(&name)?),
                    Some(Imm64::Func(_)) | None => None,
                };
                if let Some(a) = addr {
                    insns[pc].src = 0;
                    insns[pc].imm = a as u32 as i32;
                    if let Some(hi) = insns.get_mut(pc + 1) {
                        hi.imm = (a >> 32) as u32 as i32;
                    }
                }
            }
        }
        let percpu = match (uses_percpu, this_cpu_off()) {
            (true, None) => return Err(unsupported("no low page for this_cpu_off")),
            (_, p) => p.unwrap_or(0),
        };
        let mut jp = JitProgram::from_xlated_with_facts(&insns, subprogs, prog_type).map_err(unsupported)?;
        if super::uses_arena(rt, prog)
            && let Some(a) = &rt.arena
        {
            // r12 = the arena's host window; its faults go through the extable
            if !install_fault_handler() {
                return Err(unsupported("no SIGSEGV handler for the arena's faults"));
            }
            jp.arena_vm_start = a.kern_vm_start();
            jp.user_vm_start = a.user_vm_start;
            if jp.arena_vm_start == 0 {
                return Err(unsupported("an arena without a host window"));
            }
        }
        let nfuncs = jp.funcs.len() as u64;
        let mut map = Mapping::new((IMAGES_OFF + nfuncs * IMAGE_STRIDE) as usize)?;
        let base = map.addr();
        let profile = X86Profile {
            ibt: true,
            rethunk: false,
            sls: true,
            indirect_jump: IndirectJump::Plain,
            bpf_call_base: base + CALL_BASE_OFF,
            image_base: base + IMAGES_OFF,
            image_stride: IMAGE_STRIDE,
            this_cpu_off: percpu,
            // nothing jumps through them (no tail calls, no gotox)
            return_thunk: base + TRAMP_OFF,
            indirect_thunk_array: base + TRAMP_OFF,
            modules_vaddr: base + IMAGES_OFF,
            // every region is a host (user) address: the probe range check
            // must let them through
            task_size_max: 0,
            priv_stack_ptr: 0,
            // shlx/shrx/sarx only where the host has them
            bmi2: std::arch::is_x86_feature_detected!("bmi2"),
        };
        let (images, extables) = bpf_int_jit_compile_extable(&jp, &profile).map_err(|e| unsupported(format!("x86_64 JIT: {e}")))?;
        let mut funcs = Vec::new();
        let mut extable = Vec::new();
        for (i, img) in images.iter().enumerate() {
            if img.len() as u64 > IMAGE_STRIDE {
                return Err(unsupported(format!("image of func #{i} is {} bytes", img.len())));
            }
            let off = IMAGES_OFF + i as u64 * IMAGE_STRIDE;
            map.write(off, img);
            funcs.push(base + off);
            extable.extend(extables[i].iter().map(|x| (base + off + x.insn as u64, *x)));
        }
        extable.sort_by_key(|(at, _)| *at);
        write_trampolines(&mut map);
        // the call stubs, each at __bpf_call_base + imm
        let mut keys: Vec<u32> = targets.keys().copied().collect();
        keys.sort_by_key(|&k| k as i32);
        for w in keys.windows(2) {
            if ((w[1] as i32) as i64 - (w[0] as i32) as i64) < STUB_LEN as i64 {
                return Err(unsupported("two called kernel functions closer than a stub"));
            }
        }
        for &k in &keys {
            let at = (CALL_BASE_OFF as i64 + k as i32 as i64) as u64;
            if at + STUB_LEN > STUB_SPAN {
                return Err(unsupported(format!("call imm {k:#x} outside the stubs' span")));
            }
            let dest = if targets[&k] == CallTarget::Internal(Internal::TimedMayGoto) { TIMED_OFF } else { DISPATCH_OFF };
            let mut stub = vec![0x41, 0xbb];
            stub.extend_from_slice(&k.to_le_bytes());
            stub.push(0xe9);
            let rel = dest as i64 - (at + STUB_LEN) as i64;
            stub.extend_from_slice(&(rel as i32).to_le_bytes());
            map.write(at, &stub);
        }
        map.seal()?;
        if let Some(obj) = prog_obj {
            // tail calls enter the program's own image
            rt.mem
                .store_kernel(obj + crate::kernel_layout::OFFSETOF_BPF_PROG_BPF_FUNC as u64, 8, base + IMAGES_OFF)
                .map_err(|f| unsupported(format!("struct bpf_prog: {f}")))?;
        }
        let stack_top = rt.host_stack.as_ref().map(|h| h.top).ok_or_else(|| unsupported("no stack"))?;
        Ok(NativeImage { map, funcs, extable: extable.into_boxed_slice(), targets, stack_top, depth: Cell::new(0), error: None })
    }

    fn write_trampolines(map: &mut Mapping) {
        // entry(ctx: rdi, func: rsi, stack_top: rdx): runs func(ctx) on the
        // runtime's stack
        let entry = [
            0x55, // push rbp
            0x48, 0x89, 0xe5, // mov rbp, rsp
            0x48, 0x89, 0xd4, // mov rsp, rdx
            0xff, 0xd6, // call rsi
            0x48, 0x89, 0xec, // mov rsp, rbp
            0x5d, // pop rbp
            0xc3, // ret
        ];
        map.write(ENTRY_OFF, &entry);
        // from a call stub (r11 = the call's imm, r1-r5 in rdi..r8): calls
        // native_dispatch(r1, .., r5, r9, key) on a 16-byte aligned stack
        let mut d = vec![
            0x55, // push rbp
            0x48, 0x89, 0xe5, // mov rbp, rsp
            0x48, 0x83, 0xe4, 0xf0, // and rsp, -16
            0x48, 0x83, 0xec, 0x08, // sub rsp, 8
            0x41, 0x53, // push r11 (7th argument)
            0x48, 0xb8, // movabs rax, native_dispatch
        ];
        d.extend_from_slice(&(native_dispatch as *const () as usize as u64).to_le_bytes());
        d.extend_from_slice(&[
            0xff, 0xd0, // call rax
            0x48, 0x89, 0xec, // mov rsp, rbp
            0x5d, // pop rbp
            0xc3, // ret
        ]);
        map.write(DISPATCH_OFF, &d);
        // arch_bpf_timed_may_goto: AX (r10) = stack offset of the loop's
        // struct bpf_timed_may_goto from the BPF frame pointer (rbp) in,
        // the new count out; every other register kept
        let mut t = vec![
            0x55, // push rbp
            0x48, 0x89, 0xe5, // mov rbp, rsp
            0x50, 0x57, 0x56, 0x52, 0x51, // push rax, rdi, rsi, rdx, rcx
            0x41, 0x50, 0x41, 0x51, 0x41, 0x53, // push r8, r9, r11
            0x48, 0x8b, 0x7d, 0x00, // mov rdi, [rbp] (the caller's rbp)
            0x4c, 0x01, 0xd7, // add rdi, r10
            0x48, 0x83, 0xe4, 0xf0, // and rsp, -16
            0x48, 0xb8, // movabs rax, native_timed_may_goto
        ];
        t.extend_from_slice(&(native_timed_may_goto as *const () as usize as u64).to_le_bytes());
        t.extend_from_slice(&[
            0xff, 0xd0, // call rax
            0x49, 0x89, 0xc2, // mov r10, rax
            0x48, 0x8d, 0x65, 0xc0, // lea rsp, [rbp - 64]
            0x41, 0x5b, 0x41, 0x59, 0x41, 0x58, // pop r11, r9, r8
            0x59, 0x5a, 0x5e, 0x5f, 0x58, // pop rcx, rdx, rsi, rdi, rax
            0x5d, // pop rbp
            0xc3, // ret
        ]);
        map.write(TIMED_OFF, &t);
    }

    /// Runs native function `func` with `args`: the program's entry (on
    /// the runtime's stack) or, inside a run, a callback.
    pub(crate) fn call_native(rt: &mut Runtime, func: Addr, args: [u64; 5]) -> Result<u64, ExecError> {
        let Some(img) = rt.native.as_ref() else {
            return Err(unsupported("no image"));
        };
        if !img.is_func(func) {
            return Err(unsupported(format!("{func:#x} is not a function of the image")));
        }
        let outer = img.depth.get() == 0;
        img.depth.set(img.depth.get() + 1);
        let (entry, stack_top) = (img.map.addr() + ENTRY_OFF, img.stack_top);
        let extable = &*img.extable as *const [(u64, ExTableEntry)];
        let prev_extable = EXTABLE.with(|c| c.replace(extable));
        let prev = CURRENT.with(|c| c.replace(rt as *mut Runtime));
        let r0 = if outer {
            // SAFETY: the entry trampoline of our sealed mapping, which
            // switches to the runtime's stack region and calls the JITed
            // function; the runtime outlives the call (CURRENT)
            let f: extern "C" fn(u64, u64, u64) -> u64 = unsafe { std::mem::transmute(entry as usize) };
            f(args[0], func, stack_top)
        } else {
            // already on the runtime's stack (a helper calling a callback)
            // SAFETY: a JITed function of the image, C calling convention
            let f: extern "C" fn(u64, u64, u64, u64, u64) -> u64 = unsafe { std::mem::transmute(func as usize) };
            f(args[0], args[1], args[2], args[3], args[4])
        };
        CURRENT.with(|c| c.set(prev));
        EXTABLE.with(|c| c.set(prev_extable));
        if let Some(img) = rt.native.as_ref() {
            img.depth.set(img.depth.get() - 1);
        }
        if let Some(e) = rt.native.as_ref().and_then(|n| n.error.clone()) {
            return Err(e);
        }
        Ok(r0)
    }

    fn with_runtime(f: impl FnOnce(&mut Runtime) -> Result<u64, ExecError>) -> u64 {
        let p = CURRENT.with(|c| c.get());
        if p.is_null() {
            return 0;
        }
        // SAFETY: set by call_native for the duration of the native call,
        // which holds the only live borrow of the runtime
        let rt = unsafe { &mut *p };
        if rt.native.as_ref().is_some_and(|n| n.error.is_some()) {
            return 0;
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *rt)));
        match r {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                if let Some(n) = rt.native.as_mut() {
                    n.error.get_or_insert(e);
                }
                0
            }
            Err(_) => {
                if let Some(n) = rt.native.as_mut() {
                    n.error.get_or_insert(ExecError::Unsupported("native run: a call panicked".into()));
                }
                0
            }
        }
    }

    /// Where every call stub goes: the runtime's function for the key.
    extern "C" fn native_dispatch(a1: u64, a2: u64, a3: u64, a4: u64, a5: u64, _a6: u64, key: u64) -> u64 {
        with_runtime(|rt| {
            let target =
                rt.native.as_ref().and_then(|n| n.targets.get(&(key as u32)).cloned()).ok_or_else(|| unsupported(format!("call of unknown stub {key:#x}")))?;
            let args = [a1, a2, a3, a4, a5];
            rt.kview_writeback()?;
            let flow = match target {
                CallTarget::Helper(id) => helpers::call(rt, id, args)?,
                CallTarget::Kfunc(k) => kfuncs::call(rt, &k, args)?,
                CallTarget::Internal(i) => rt.call_internal(i, args)?,
                CallTarget::Subprog(_) => return Err(unsupported("a subprogram through a stub")),
            };
            rt.kview_refresh()?;
            match flow {
                Flow::Ret(v) => Ok(v),
                Flow::Keep | Flow::TailCall(_) => Err(unsupported("tail calls")),
            }
        })
    }

    extern "C" fn native_timed_may_goto(at: u64) -> u64 {
        with_runtime(|rt| rt.timed_may_goto(at).map_err(|f| ExecError::Fault { pc: 0, fault: f }))
    }
}
