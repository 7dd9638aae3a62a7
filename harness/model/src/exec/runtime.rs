//! The state of a run: memory, maps, the programs tail calls can reach,
//! the fake clock and PRNG, and what the current test run set up (ctx,
//! packet).

use std::collections::HashMap;
use std::rc::Rc;

use super::ctx::RunEnv;
use super::maps::{Map, MapMmap, MmapError, Store};
use super::mem::{Addr, Memory, RegionKind};
use super::{ExecError, ExecOptions, ExecProgram};
use crate::map::MapDef;

/// Callback and subprogram addresses (`BPF_PSEUDO_FUNC`) live in a range of
/// their own, like kernel text: program index and instruction encoded.
const FUNC_BASE: u64 = 0xffff_ffff_a000_0000;
const FUNC_PROG_SHIFT: u32 = 24;

/// Everything one program run (and its callbacks and tail calls) touches.
pub struct Runtime {
    pub mem: Memory,
    pub maps: Vec<Map>,
    /// Index 0 is the program under test once a run starts; tail-call
    /// targets are added with [`Runtime::add_program`].
    pub(crate) progs: Vec<Rc<super::interp::Prepared>>,
    pub(crate) opts: ExecOptions,
    /// Instructions executed so far.
    pub(crate) insns: u64,
    prandom: u64,
    clock: u64,
    pub(crate) env: RunEnv,
    /// `bpf_trace_printk` output.
    pub(crate) trace: String,
    /// Nesting of interpreter loops (callbacks).
    pub(crate) depth: u32,
    /// Tail calls taken in this run (`MAX_TAIL_CALL_CNT` is 33).
    pub(crate) tail_calls: u32,
    /// Kernel variables (`__ksym`) handed out, by name.
    pub(crate) ksyms: HashMap<String, Addr>,
    /// The JIT images of the program when it runs natively.
    pub(crate) native: Option<super::native::NativeImage>,
    /// `repeat` of the test run in progress, and the mean time of one
    /// native run of it (what the kernel reports as `duration`).
    pub(crate) repeat: u32,
    pub(crate) native_ns: Option<u64>,
    /// In a host-memory runtime: the stack native code runs on, where the
    /// interpreter puts its frames too (see [`HostStack`]).
    pub(crate) host_stack: Option<HostStack>,
    /// The arena map's memory, when there is one.
    pub(crate) arena: Option<super::arena::Arena>,
    /// Frame stacks of finished interpreter loops, for reuse.
    pub(crate) frame_pool: Vec<Vec<super::interp::Frame>>,
    /// Bytes held by the program's `BPF_STDOUT` and `BPF_STDERR` streams
    /// (`prog->aux->stream[i].capacity`).
    pub(crate) stream_capacity: [u32; 2],
    /// Attached programs, recursion contexts and run counters.
    pub tracing: super::trampoline::Tracing,
}

/// The stack of a native run, shared by the interpreter run it is compared
/// with: the outermost frame's `r10` is the JITed entry's `rbp` (`top` -
/// 16: return address, saved `rbp`), a bpf2bpf callee's is the caller's
/// minus the caller's frame at the call (`frames`) minus 16, and a tail
/// call keeps `r10`, so stack pointers a program hands out (its retval, a
/// map value, the packet) are the same in both runs. Callbacks get frames
/// of their own in the interpreter (native ones run on the helper's
/// stack, whose depth the interpreter cannot know).
#[derive(Clone, Debug, Default)]
pub(crate) struct HostStack {
    pub top: Addr,
    /// Per program index: (first insn, bytes of its frame below `rbp` at a
    /// call) of each function, by start.
    pub frames: Vec<Vec<(usize, u64)>>,
}

impl HostStack {
    /// `r10` of the outermost frame.
    pub fn entry_fp(&self) -> Addr {
        self.top - 16
    }

    /// `r10` of a function called from insn `pc` of program `prog` whose
    /// frame pointer is `caller_fp`.
    pub fn callee_fp(&self, prog: usize, pc: usize, caller_fp: Addr) -> Option<Addr> {
        let funcs = self.frames.get(prog)?;
        let &(_, bytes) = funcs.iter().rev().find(|(start, _)| *start <= pc)?;
        Some(caller_fp.wrapping_sub(bytes + 16))
    }
}

impl Runtime {
    /// Creates `maps` (in order: map index i is `maps[i]`) with their
    /// initial contents.
    pub fn new(maps: &[MapDef], opts: &ExecOptions) -> Result<Runtime, ExecError> {
        Runtime::new_in(Memory::new(), maps, opts)
    }

    /// A runtime whose memory lives at host addresses
    /// ([`Memory::new_host`]), for native runs and the interpreter runs
    /// they are compared with.
    pub fn new_host(maps: &[MapDef], opts: &ExecOptions) -> Result<Runtime, ExecError> {
        let mem = Memory::new_host().map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        let mut rt = Runtime::new_in(mem, maps, opts)?;
        // the arena's kernel window at a host address too (r12 of native code)
        if let Some(d) = maps.iter().find(|d| d.map_type == crate::map::types::BPF_MAP_TYPE_ARENA) {
            let mut a = super::arena::Arena::new_host(crate::verifier::map_create::loader_map_extra(d), d.max_entries).map_err(ExecError::Unsupported)?;
            if let Some((off, data)) = &d.arena_data {
                a.write_user(*off, data).map_err(ExecError::Unsupported)?;
            }
            rt.arena = Some(a);
        }
        Ok(rt)
    }

    fn new_in(mut mem: Memory, maps: &[MapDef], opts: &ExecOptions) -> Result<Runtime, ExecError> {
        let mut out = Vec::with_capacity(maps.len());
        for (i, d) in maps.iter().enumerate() {
            let m = Map::create(&mut mem, d, i).map_err(|f| ExecError::Unsupported(format!("map '{}': {f}", d.name)))?;
            out.push(m);
        }
        init_map_in_map_slots(&mut mem, &mut out)?;
        let mut arena = None;
        if let Some(d) = maps.iter().find(|d| d.map_type == crate::map::types::BPF_MAP_TYPE_ARENA) {
            let mut a = super::arena::Arena::new(crate::verifier::map_create::loader_map_extra(d), d.max_entries);
            if let Some((off, data)) = &d.arena_data {
                a.write_user(*off, data).map_err(ExecError::Unsupported)?;
            }
            arena = Some(a);
        }
        Ok(Runtime {
            mem,
            maps: out,
            progs: vec![Rc::new(super::interp::Prepared::default())],
            opts: opts.clone(),
            insns: 0,
            prandom: opts.prandom_seed,
            clock: opts.clock_start_ns,
            env: RunEnv::default(),
            trace: String::new(),
            depth: 0,
            tail_calls: 0,
            ksyms: HashMap::new(),
            native: None,
            repeat: 0,
            native_ns: None,
            host_stack: None,
            frame_pool: Vec::new(),
            stream_capacity: [0; 2],
            tracing: super::trampoline::Tracing::default(),
            arena,
        })
    }

    /// Adds a program tail calls can reach; its index for
    /// [`Runtime::set_prog_array_slot`].
    pub fn add_program(&mut self, p: ExecProgram) -> usize {
        self.progs.push(Rc::new(super::interp::Prepared::new(p)));
        self.progs.len() - 1
    }

    /// Puts program `prog` in slot `slot` of prog array `map`.
    pub fn set_prog_array_slot(&mut self, map: usize, slot: u32, prog: Option<usize>) -> Result<(), String> {
        match self.maps.get_mut(map).map(|m| &mut m.store) {
            Some(Store::ProgArray { slots }) => {
                let s = slots.get_mut(slot as usize).ok_or_else(|| format!("slot {slot} out of range"))?;
                *s = prog;
                Ok(())
            }
            _ => Err(format!("map {map} is not a prog array")),
        }
    }

    /// libbpf's `init_prog_array_slots` for the program under test (program
    /// 0) called `name`: the slots of `maps`' prog arrays that name it (no
    /// other program of its object is loaded).
    pub fn fill_self_slots(&mut self, maps: &[MapDef], name: &str) {
        for (i, d) in maps.iter().enumerate() {
            for (key, _) in d.prog_slots.iter().filter(|(_, p)| p == name) {
                // a key outside the array fails the kernel's update: no slot
                let _ = self.set_prog_array_slot(i, *key, Some(0));
            }
        }
    }

    /// User space's `mmap(2)` of map `map` ([`Map::mmap`]): what a test
    /// reads and writes of an mmap-able array (`.data`, `.bss`, arrays
    /// created with `BPF_F_MMAPABLE`) before and after a run goes through
    /// the [`MapMmap`] (`view.read(&rt.mem, off, len)`,
    /// `view.write(&mut rt.mem, off, bytes)`), touching only the pages it
    /// reads or writes.
    pub fn map_mmap(&self, map: usize, pgoff: u64, len: u64, writable: bool) -> Result<MapMmap, MmapError> {
        self.maps.get(map).ok_or(MmapError::Errno(crate::verifier::errno::EBADF))?.mmap(pgoff, len, writable)
    }

    /// How many pages of the maps' values exist ([`Map::resident_value_pages`]):
    /// an mmap-able array's are those programs, the syscall side and user
    /// space have written.
    pub fn resident_map_pages(&self) -> u64 {
        self.maps.iter().map(|m| m.resident_value_pages(&self.mem)).sum()
    }

    /// `bpf_get_prandom_u32`: splitmix64 of a seeded counter.
    pub fn prandom_u32(&mut self) -> u32 {
        self.prandom = self.prandom.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.prandom;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as u32
    }

    /// A reading of the fake clock (ns), which advances on every read.
    pub fn now_ns(&mut self) -> u64 {
        let t = self.clock;
        self.clock = self.clock.wrapping_add(self.opts.clock_step_ns);
        t
    }

    /// Moves the fake clock on by `ns`.
    pub(crate) fn advance_clock(&mut self, ns: u64) {
        self.clock = self.clock.wrapping_add(ns);
    }

    /// The address a `BPF_PSEUDO_FUNC` load of `pc` in program `prog` gives.
    pub fn func_addr(prog: usize, pc: usize) -> Addr {
        FUNC_BASE.wrapping_add((prog as u64) << FUNC_PROG_SHIFT).wrapping_add((pc as u64).wrapping_mul(8))
    }

    /// The program and instruction of a callback address.
    pub fn decode_func_addr(&self, addr: Addr) -> Option<(usize, usize)> {
        let rel = addr.checked_sub(FUNC_BASE)?;
        let prog = (rel >> FUNC_PROG_SHIFT) as usize;
        let off = rel & ((1 << FUNC_PROG_SHIFT) - 1);
        if !off.is_multiple_of(8) {
            return None;
        }
        let pc = (off / 8) as usize;
        (self.progs.get(prog)?.insns.len() > pc).then_some((prog, pc))
    }

    /// The map whose object is at `addr` (a `struct bpf_map *` argument).
    pub fn map_at(&self, addr: Addr) -> Option<usize> {
        match self.mem.region(addr) {
            Some((r, 0)) => match r.kind {
                RegionKind::Map(i) if i < self.maps.len() => Some(i),
                _ => None,
            },
            _ => None,
        }
    }

    /// `copy_from_kernel_nofault_allowed(addr)`: x86-64 refuses user and
    /// non-canonical addresses up front (-ERANGE); arm64 lets the access
    /// fault (-EFAULT).
    pub(crate) fn kernel_addr_ok(&self, addr: Addr) -> bool {
        if self.mem.is_host() && self.mem.region(addr).is_some() {
            // host addresses stand in for kernel ones
            return true;
        }
        match self.opts.arch {
            crate::target::Arch::X86_64 => addr >= 0xffff_8000_0000_0000,
            _ => true,
        }
    }

    /// [`Runtime::ksym`] of a per-CPU kernel variable whose address the
    /// xlated program holds as an imm32 (`r0 = &cpu_number`), in host memory
    /// below 2 GiB, so that native code can hold the same address.
    pub(crate) fn ksym_low(&mut self, name: &str) -> Result<Addr, ExecError> {
        if let Some(&a) = self.ksyms.get(name) {
            return Ok(a);
        }
        let a = self.mem.alloc_low(RegionKind::Object, vec![0; 4096], true).map_err(|f| ExecError::Unsupported(format!("ksym {name}: {f}")))?;
        self.ksyms.insert(name.to_string(), a);
        Ok(a)
    }

    /// A zeroed kernel variable for a `__ksym` load (one page, readable).
    pub(crate) fn ksym(&mut self, name: &str) -> Result<Addr, ExecError> {
        if let Some(&a) = self.ksyms.get(name) {
            return Ok(a);
        }
        let a = self.mem.alloc(RegionKind::Object, vec![0; 4096], true).map_err(|f| ExecError::Unsupported(format!("ksym {name}: {f}")))?;
        self.ksyms.insert(name.to_string(), a);
        Ok(a)
    }
}

/// libbpf's `init_map_in_map_slots`: each `.values` slot of an array or
/// hash of maps holds the map it names (an array of maps keeps the inner
/// map's pointer where an array keeps values, which the inlined lookup
/// reads).
fn init_map_in_map_slots(mem: &mut Memory, maps: &mut [Map]) -> Result<(), ExecError> {
    for i in 0..maps.len() {
        for (key, name) in maps[i].def.inner_slots.clone() {
            let Some(j) = maps.iter().position(|m| m.def.name == name) else { continue };
            let inner = maps[j].addr;
            let outer = &mut maps[i];
            if outer.def.map_type == crate::map::types::BPF_MAP_TYPE_ARRAY_OF_MAPS {
                if key >= outer.def.max_entries {
                    continue;
                }
                let slot = outer.addr + crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * u64::from(key);
                mem.write_kernel(slot, &inner.to_le_bytes()).map_err(|f| ExecError::Unsupported(format!("map '{}': {f}", outer.def.name)))?;
            }
            if let Store::MapOfMaps { slots } = &mut outer.store {
                slots.insert(key.to_le_bytes().to_vec(), inner);
            }
        }
    }
    Ok(())
}
