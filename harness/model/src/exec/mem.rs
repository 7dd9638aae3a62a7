//! The address space a program runs in: regions of bytes (stack frames, the
//! ctx, the packet, map objects and values, hash elements, kernel objects)
//! at synthetic kernel-looking addresses, with every access bounds-checked.
//!
//! No address is a Rust pointer. Regions get page-aligned addresses from a
//! bump allocator with guard pages between them, so pointer arithmetic,
//! spills of pointers to the stack and comparisons of pointers into the same
//! region behave as on a real kernel, and an access outside every live
//! region is a [`Fault`] (which, for a program the verifier accepted, is a
//! verifier bug, or a BPF_PROBE_MEM load that reads zero).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

/// A program-visible address.
pub type Addr = u64;

/// The first region sits here (the start of x86-64's direct map, so that
/// pointers look like the kernel's in dumps and retvals).
const BASE: u64 = 0xffff_8880_0000_0000;
/// Regions are page-aligned with at least one unmapped page between them,
/// so a small overrun faults instead of landing in a neighbour.
const PAGE: u64 = 4096;
/// The largest region (and so the largest map) a run may create.
pub const MAX_REGION: usize = 1 << 30;
/// The largest lazily populated region ([`Memory::alloc_lazy`]): a map
/// object and 4 GiB of values.
pub const MAX_LAZY_REGION: usize = (4 << 30) + PAGE as usize;

/// What a region holds: decides special behaviour (ctx fields, read-only
/// maps) and is what faults and callers report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// One call frame's stack (`r10` points to its end).
    Stack,
    /// The program's context (`__sk_buff`, `xdp_md`, a syscall ctx).
    Ctx,
    /// Packet data with its head- and tailroom.
    Packet,
    /// A map object (`struct bpf_map`), and for arrays the values after it.
    Map(usize),
    /// Values of a map kept apart from its object (per-CPU values).
    MapValues(usize),
    /// One element of a hash-like map (`struct htab_elem`) of that map.
    MapElem(usize),
    /// A kernel object a helper hands out (socket, task, cgroup...).
    Object,
    /// Memory a helper or kfunc owns (dynptr data, allocated objects).
    Scratch,
}

/// The bytes of a region: owned, a slice of the thread's arena at a fixed
/// host address (host memory), or pages populated on first write
/// ([`Memory::alloc_lazy`]).
pub struct RegionBytes {
    backing: Backing,
}

enum Backing {
    Owned(Vec<u8>),
    /// (pointer, length) into the arena.
    Arena(*mut u8, usize),
    Lazy(LazyBytes),
}

/// The bytes of a lazily populated region: an anonymous mapping whose host
/// pages exist once written (a read of one never written gives zeros
/// without creating it), or in host memory its slice of the arena, whose
/// pages the host populates the same way.
struct LazyBytes {
    /// The region's first byte, `lead` bytes into the first page.
    ptr: *mut u8,
    len: usize,
    lead: usize,
    /// The bytes from `ptr` to the end of the last page (what a user-space
    /// mapping of the region reaches, [`Memory::read_mapped`]).
    cap: usize,
    /// The mapping the region owns and unmaps when dropped (its start and
    /// length); `None` in host memory.
    mapping: Option<(*mut u8, usize)>,
    /// The pages written, one bit per page from the first (owned mapping:
    /// the model's count of what exists; host memory asks the host).
    written: Vec<u64>,
}

impl LazyBytes {
    /// `len` zero bytes in a mapping of their own, placed so that region
    /// offset `aligned_at` starts a page.
    fn new(len: usize, aligned_at: usize) -> Option<LazyBytes> {
        let lead = (PAGE as usize - aligned_at % PAGE as usize) % PAGE as usize;
        let map_len = (lead + len).div_ceil(PAGE as usize).max(1) * PAGE as usize;
        let base = os::map_zeroed(map_len)?;
        // SAFETY: `lead` < PAGE <= map_len, inside the fresh mapping
        let ptr = unsafe { base.add(lead) };
        Some(LazyBytes { ptr, len, lead, cap: map_len - lead, mapping: Some((base, map_len)), written: vec![0; (map_len / PAGE as usize).div_ceil(64)] })
    }

    /// Notes that `[off, off + len)` was written.
    #[inline]
    fn touch(&mut self, off: usize, len: usize) {
        if len == 0 || self.mapping.is_none() {
            return;
        }
        let first = (self.lead + off) / PAGE as usize;
        let last = (self.lead + off + len - 1) / PAGE as usize;
        for p in first..=last {
            self.written[p / 64] |= 1 << (p % 64);
        }
    }

    /// Whether page `p` (counted from the first) exists.
    fn present(&self, p: usize) -> bool {
        match self.mapping {
            Some(_) => self.written.get(p / 64).is_some_and(|w| w & (1 << (p % 64)) != 0),
            // SAFETY: page `p` lies inside the region's arena slice
            None => os::resident(unsafe { self.ptr.sub(self.lead).add(p * PAGE as usize) }),
        }
    }

    /// The pages of `[off, off + len)` that exist.
    fn resident(&self, off: usize, len: usize) -> u64 {
        if len == 0 {
            return 0;
        }
        let first = (self.lead + off) / PAGE as usize;
        let last = (self.lead + off + len - 1) / PAGE as usize;
        if self.mapping.is_none() {
            return (first..=last).filter(|&p| self.present(p)).count() as u64;
        }
        // the bits of pages first..=last, a word at a time
        let mut n = 0;
        for w in first / 64..=last / 64 {
            let lo = if w == first / 64 { first % 64 } else { 0 };
            let hi = if w == last / 64 { last % 64 } else { 63 };
            let mask = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
            n += u64::from((self.written[w] & mask).count_ones());
        }
        n
    }
}

impl Drop for LazyBytes {
    fn drop(&mut self) {
        if let Some((base, len)) = self.mapping {
            os::unmap(base, len);
        }
    }
}

impl RegionBytes {
    fn owned(v: Vec<u8>) -> RegionBytes {
        RegionBytes { backing: Backing::Owned(v) }
    }

    /// Notes a write of `[off, off + len)` (a lazy region's pages).
    #[inline]
    fn touch(&mut self, off: usize, len: usize) {
        if let Backing::Lazy(l) = &mut self.backing {
            l.touch(off, len);
        }
    }

    /// How many bytes from the start a user-space mapping reaches: a lazy
    /// region's up to the end of its last page, others' their length.
    fn mapped_len(&self) -> usize {
        match &self.backing {
            Backing::Lazy(l) => l.cap,
            _ => self.len(),
        }
    }

    /// Whether the pages are populated on first write.
    pub fn is_lazy(&self) -> bool {
        matches!(self.backing, Backing::Lazy(_))
    }
}

impl std::ops::Deref for RegionBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.backing {
            Backing::Owned(v) => v,
            // SAFETY: a live slice of the arena that only this region uses
            // (the arena outlives the memory that hands it out)
            Backing::Arena(p, n) => unsafe { std::slice::from_raw_parts(*p, *n) },
            // SAFETY: the region's bytes in its own mapping (or arena
            // slice), alive as long as it is
            Backing::Lazy(l) => unsafe { std::slice::from_raw_parts(l.ptr, l.len) },
        }
    }
}

impl std::ops::DerefMut for RegionBytes {
    /// (Writes through this are not counted as populating a lazy region's
    /// pages: [`Memory`]'s own writes are.)
    fn deref_mut(&mut self) -> &mut [u8] {
        match &mut self.backing {
            Backing::Owned(v) => v,
            // SAFETY: as for Deref; &mut self makes the access exclusive
            Backing::Arena(p, n) => unsafe { std::slice::from_raw_parts_mut(*p, *n) },
            // SAFETY: as for Deref; &mut self makes the access exclusive
            Backing::Lazy(l) => unsafe { std::slice::from_raw_parts_mut(l.ptr, l.len) },
        }
    }
}

impl Clone for RegionBytes {
    /// A copy owns its bytes (it is no longer at the host address); a lazy
    /// region's copy is lazy too, with the pages that exist copied.
    fn clone(&self) -> RegionBytes {
        let Backing::Lazy(l) = &self.backing else { return RegionBytes::owned(self.to_vec()) };
        let Some(mut c) = LazyBytes::new(l.len, l.lead.wrapping_neg() % PAGE as usize) else { return RegionBytes::owned(self.to_vec()) };
        let pages = (l.lead + l.cap) / PAGE as usize;
        for p in (0..pages).filter(|&p| l.present(p)) {
            let from = (p * PAGE as usize).saturating_sub(l.lead);
            let to = ((p + 1) * PAGE as usize - l.lead).min(l.len);
            if from < to {
                // SAFETY: both ranges lie inside the two regions' bytes
                unsafe { std::ptr::copy_nonoverlapping(l.ptr.add(from), c.ptr.add(from), to - from) };
                c.touch(from, to - from);
            }
        }
        RegionBytes { backing: Backing::Lazy(c) }
    }
}

impl fmt::Debug for RegionBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.backing {
            Backing::Lazy(l) if l.mapping.is_some() => write!(f, "{} bytes, {} pages resident", self.len(), l.resident(0, l.len)),
            Backing::Lazy(_) => write!(f, "{} bytes, lazily populated", self.len()),
            _ => write!(f, "{} bytes", self.len()),
        }
    }
}

/// One region of memory.
#[derive(Clone, Debug)]
pub struct Region {
    pub kind: RegionKind,
    pub data: RegionBytes,
    /// Stores fault (frozen `.rodata`, `BPF_F_RDONLY_PROG` maps, the read-only
    /// parts of kernel objects).
    pub readonly: bool,
}

/// A bad access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub addr: Addr,
    pub len: u64,
    pub write: bool,
    pub why: &'static str,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rw = if self.write { "write" } else { "read" };
        write!(f, "{rw} of {} bytes at {:#x}: {}", self.len, self.addr, self.why)
    }
}

/// One slot of [`Memory::slots`]: a region at `base`, or (`region` empty)
/// the address range of a freed one, kept for reuse by a region of the same
/// size together with its bytes.
#[derive(Debug)]
struct Slot {
    base: Addr,
    region: Option<Region>,
    /// The bytes of the freed region (owned memory only), zeroed and handed
    /// to the next region of its size at `base`.
    spare: Vec<u8>,
}

/// The largest freed region whose bytes are kept for the next region of
/// its size (stack frames and hash elements are far smaller).
const MAX_SPARE: usize = 64 << 10;

/// Entries of [`Memory::recent`]: a direct-mapped cache by page number.
const RECENT: usize = 8;

/// All regions of one run, by base address.
#[derive(Debug)]
pub struct Memory {
    /// Base address -> index in `slots`, for live regions and for freed
    /// ranges that wait for reuse (whose slot has no region).
    index: BTreeMap<Addr, usize>,
    slots: Vec<Slot>,
    /// Slots no address range uses any more (host memory: freed regions'
    /// ranges are never reused).
    free_slots: Vec<usize>,
    /// The slot last found for an address, by that address's page: a hint
    /// that [`Memory::find`] checks (the region is live and holds the
    /// address) before it trusts it, so nothing has to invalidate it.
    recent: [Cell<u32>; RECENT],
    /// Where the next region goes.
    next: Addr,
    /// Freed address ranges (base, size, slot) for reuse by same-sized regions:
    /// stack frames of a loop of calls, elements of a hash map. A dangling
    /// pointer then sees the new owner, as with reused kernel memory.
    free: Vec<(Addr, usize, usize)>,
    /// Regions live at their host addresses, in this arena (native runs;
    /// see [`Memory::new_host`]).
    host: Option<arena::Lease>,
    /// Where the next region of the arena's low area goes
    /// ([`Memory::alloc_low`]).
    low_next: Addr,
}

impl Default for Memory {
    fn default() -> Memory {
        Memory::new()
    }
}

impl Memory {
    pub fn new() -> Memory {
        Memory {
            index: BTreeMap::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            recent: std::array::from_fn(|_| Cell::new(u32::MAX)),
            next: BASE,
            free: Vec::new(),
            host: None,
            low_next: 0,
        }
    }

    /// A memory whose regions' addresses are the host addresses of their
    /// bytes, so that native code (the x86-64 JIT's output) and the
    /// interpreter share one address space: the interpreter still checks
    /// every access against the regions. Addresses then depend on the host
    /// allocator (a program that returns a pointer gets another value).
    ///
    /// The regions are laid out in a per-thread arena from its start, the
    /// same way as the interpreter's synthetic addresses (page-aligned, a
    /// page between regions), so two runs of one program on one thread see
    /// the same addresses: a native run and the interpreter's run it is
    /// compared with agree even on pointer values.
    pub fn new_host() -> Result<Memory, Fault> {
        let lease = arena::Lease::take().ok_or(Fault { addr: 0, len: 0, write: true, why: "no host memory for a native run" })?;
        Ok(Memory { next: lease.base(), low_next: lease.low_base().unwrap_or(0), host: Some(lease), ..Memory::new() })
    }

    /// Maps `data` as a new region in the host memory's low area, below 2
    /// GiB, so that its address fits a sign-extended imm32: the per-CPU
    /// kernel variables whose addresses the xlated program holds in a
    /// `mov` (`r0 = &cpu_number`), which native code then uses as they
    /// are. Only in host memory; its base address.
    pub fn alloc_low(&mut self, kind: RegionKind, data: Vec<u8>, readonly: bool) -> Result<Addr, Fault> {
        let fault = |why| Fault { addr: 0, len: data.len() as u64, write: true, why };
        let Some(lease) = &self.host else { return Err(fault("no low memory outside a native run")) };
        let Some(low) = lease.low_base() else { return Err(fault("no host memory below 2 GiB")) };
        let base = self.low_next;
        let span = (data.len() as u64).div_ceil(PAGE).max(1) * PAGE + PAGE;
        if base + span > low + arena::LOW_SIZE as u64 {
            return Err(fault("low host memory exhausted"));
        }
        self.low_next = base + span;
        let ptr = base as *mut u8;
        // SAFETY: [base, base + len) is inside the thread's low area, leased
        // with the arena, and in no other region (the bump pointer only
        // moves forward)
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), ptr, data.len()) };
        let bytes = RegionBytes { backing: Backing::Arena(ptr, data.len()) };
        self.map_new(base, Region { kind, data: bytes, readonly });
        Ok(base)
    }

    /// Whether regions live at their host addresses.
    pub fn is_host(&self) -> bool {
        self.host.is_some()
    }

    /// Puts a region at a base address no slot has.
    fn map_new(&mut self, base: Addr, region: Region) {
        let slot = Slot { base, region: Some(region), spare: Vec::new() };
        let k = match self.free_slots.pop() {
            Some(k) => {
                self.slots[k] = slot;
                k
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        self.index.insert(base, k);
    }

    /// Maps `data` as a new region; its base address.
    pub fn alloc(&mut self, kind: RegionKind, data: Vec<u8>, readonly: bool) -> Result<Addr, Fault> {
        self.alloc_with(kind, data.len(), readonly, |_| data)
    }

    /// Maps `len` zeroed bytes as a new region (a stack frame); its base
    /// address. The same as [`Memory::alloc`] of `vec![0; len]`, reusing
    /// the bytes of a freed region of that size.
    pub fn alloc_zeroed(&mut self, kind: RegionKind, len: usize, readonly: bool) -> Result<Addr, Fault> {
        self.alloc_with(kind, len, readonly, |spare| match spare {
            Some(mut v) if v.len() == len => {
                v.fill(0);
                v
            }
            _ => vec![0; len],
        })
    }

    /// [`Memory::alloc`] of the `len` bytes `data` gives (from the spare
    /// bytes of the freed region it reuses, if any).
    fn alloc_with(&mut self, kind: RegionKind, len: usize, readonly: bool, data: impl FnOnce(Option<Vec<u8>>) -> Vec<u8>) -> Result<Addr, Fault> {
        if len > MAX_REGION {
            return Err(Fault { addr: 0, len: len as u64, write: true, why: "region larger than the model allows" });
        }
        if let Some(lease) = &self.host {
            let base = self.next;
            let span = (len as u64).div_ceil(PAGE).max(1) * PAGE + PAGE;
            if base + span > lease.base() + arena::SIZE as u64 {
                return Err(Fault { addr: base, len: len as u64, write: true, why: "host arena exhausted" });
            }
            self.next = base + span;
            let ptr = base as *mut u8;
            // SAFETY: [base, base + len) is inside the leased arena and in
            // no other region (the bump pointer only moves forward)
            unsafe { std::ptr::copy_nonoverlapping(data(None).as_ptr(), ptr, len) };
            let bytes = RegionBytes { backing: Backing::Arena(ptr, len) };
            self.map_new(base, Region { kind, data: bytes, readonly });
            return Ok(base);
        }
        if let Some(k) = self.free.iter().rposition(|&(_, cap, _)| cap == len) {
            let (base, _, k) = self.free.swap_remove(k);
            let slot = &mut self.slots[k];
            let spare = std::mem::take(&mut slot.spare);
            slot.region = Some(Region { kind, data: RegionBytes::owned(data(Some(spare))), readonly });
            return Ok(base);
        }
        let base = self.next;
        let span = (len as u64).div_ceil(PAGE).max(1) * PAGE + PAGE;
        self.next = base.checked_add(span).ok_or(Fault { addr: base, len: len as u64, write: true, why: "address space exhausted" })?;
        self.map_new(base, Region { kind, data: RegionBytes::owned(data(None)), readonly });
        Ok(base)
    }

    /// Maps `len` zero bytes as a new region whose pages exist only once
    /// written (a `BPF_F_MMAPABLE` array, which 7.3 maps into user space a
    /// page at a time as it is touched): a read of a page never written
    /// gives zeros and creates nothing, so a region of gigabytes costs what
    /// is written of it. Region offset `aligned_at` starts a page (an
    /// mmap-able array's values, page-aligned in the kernel's vmalloc area
    /// as user space maps them), so pages are counted as the kernel's are.
    /// Its address is the one [`Memory::alloc`] of `len` bytes would give;
    /// in host memory it is that of the arena, whose pages the host
    /// populates the same way. Up to [`MAX_LAZY_REGION`] bytes.
    pub fn alloc_lazy(&mut self, kind: RegionKind, len: usize, aligned_at: usize, readonly: bool) -> Result<Addr, Fault> {
        let fault = |why| Fault { addr: 0, len: len as u64, write: true, why };
        if len > MAX_LAZY_REGION {
            return Err(fault("region larger than the model allows"));
        }
        let (base, reused) = if let Some(lease) = &self.host {
            // the arena's pages are zero until written: nothing to copy
            let base = self.next;
            let span = (len as u64).div_ceil(PAGE).max(1) * PAGE + PAGE;
            if base + span > lease.base() + arena::SIZE as u64 {
                return Err(Fault { addr: base, ..fault("host arena exhausted") });
            }
            self.next = base + span;
            let lead = 0;
            let cap = if len > aligned_at {
                aligned_at + (len - aligned_at).div_ceil(PAGE as usize) * PAGE as usize
            } else {
                len.div_ceil(PAGE as usize) * PAGE as usize
            };
            let bytes = LazyBytes { ptr: base as *mut u8, len, lead, cap, mapping: None, written: Vec::new() };
            self.map_new(base, Region { kind, data: RegionBytes { backing: Backing::Lazy(bytes) }, readonly });
            return Ok(base);
        } else if let Some(i) = self.free.iter().rposition(|&(_, cap, _)| cap == len) {
            let (base, _, k) = self.free.swap_remove(i);
            (base, Some(k))
        } else {
            let base = self.next;
            let span = (len as u64).div_ceil(PAGE).max(1) * PAGE + PAGE;
            self.next = base.checked_add(span).ok_or(Fault { addr: base, ..fault("address space exhausted") })?;
            (base, None)
        };
        let bytes = LazyBytes::new(len, aligned_at).ok_or(fault("no host memory for a lazily populated region"))?;
        let region = Region { kind, data: RegionBytes { backing: Backing::Lazy(bytes) }, readonly };
        match reused {
            Some(k) => {
                self.slots[k].spare = Vec::new();
                self.slots[k].region = Some(region);
            }
            None => self.map_new(base, region),
        }
        Ok(base)
    }

    /// How many pages of `[addr, addr + len)` exist: of a lazy region
    /// ([`Memory::alloc_lazy`]) those written (in host memory those the
    /// host has, which counts pages only read too), of any other region
    /// every page the range spans. `None` when the range is not in one
    /// region.
    pub fn resident_pages(&self, addr: Addr, len: u64) -> Option<u64> {
        let (k, off) = self.check(addr, len, false).ok()?;
        let data = self.bytes(k);
        Some(match &data.backing {
            Backing::Lazy(l) => l.resident(off, len as usize),
            _ => len.div_ceil(PAGE),
        })
    }

    /// What user space reads through a shared mapping of the region
    /// holding `addr` (`mmap(2)` of a map): the bytes up to the end of the
    /// region's last page are there (a lazy region's past its end read as
    /// zero), a page never written reads as zeros without being created.
    pub fn read_mapped(&self, addr: Addr, len: usize) -> Result<Vec<u8>, Fault> {
        let (k, off) = self.check_mapped(addr, len as u64, false)?;
        let data = self.bytes(k);
        let mut out = vec![0; len];
        let inside = data.len().saturating_sub(off).min(len);
        out[..inside].copy_from_slice(&data[off..off + inside]);
        if let Backing::Lazy(l) = &data.backing
            && inside < len
        {
            // SAFETY: [off + inside, off + len) lies within the pages the
            // region's bytes are in (`cap`)
            unsafe { std::ptr::copy_nonoverlapping(l.ptr.add(off + inside), out[inside..].as_mut_ptr(), len - inside) };
        }
        Ok(out)
    }

    /// What user space writes through a shared mapping of the region
    /// holding `addr`: as [`Memory::read_mapped`] reads, creating the pages
    /// written; read-only protection is the mapping's (a `BPF_F_RDONLY_PROG`
    /// map's region is read-only to programs only).
    pub fn write_mapped(&mut self, addr: Addr, bytes: &[u8]) -> Result<(), Fault> {
        let (k, off) = self.check_mapped(addr, bytes.len() as u64, true)?;
        let data = &mut self.slots[k].region.as_mut().expect("checked").data;
        let inside = data.len().saturating_sub(off).min(bytes.len());
        data[off..off + inside].copy_from_slice(&bytes[..inside]);
        if let Backing::Lazy(l) = &mut data.backing {
            if inside < bytes.len() {
                // SAFETY: as in read_mapped
                unsafe { std::ptr::copy_nonoverlapping(bytes[inside..].as_ptr(), l.ptr.add(off + inside), bytes.len() - inside) };
            }
            l.touch(off, bytes.len());
        }
        Ok(())
    }

    /// [`Memory::check`] against what a user-space mapping of the region
    /// reaches.
    fn check_mapped(&self, addr: Addr, len: u64, write: bool) -> Result<(usize, usize), Fault> {
        let fault = |why| Fault { addr, len, write, why };
        let k = self.find_slot(addr).ok_or_else(|| fault("not a mapped address"))?;
        let s = &self.slots[k];
        let off = addr - s.base;
        let r = s.region.as_ref().expect("found");
        if off.checked_add(len).is_none_or(|end| end > r.data.mapped_len() as u64) {
            return Err(fault("out of bounds of its mapping"));
        }
        Ok((k, off as usize))
    }

    /// Unmaps the region at `base`.
    pub fn free(&mut self, base: Addr) {
        // (the region that holds its base, if it starts there)
        let Some(k) = self.find_slot(base).filter(|&k| self.slots[k].base == base) else { return };
        let Some(r) = self.slots[k].region.take() else { return };
        if self.host.is_none() {
            // the range waits for a region of its size
            self.free.push((base, r.data.len(), k));
            if let Backing::Owned(v) = r.data.backing
                && v.len() <= MAX_SPARE
            {
                self.slots[k].spare = v;
            }
        } else {
            self.index.remove(&base);
            self.free_slots.push(k);
        }
    }

    /// The slot of the region containing `addr` (one past its end still
    /// names it: a pointer to the end).
    fn find_slot(&self, addr: Addr) -> Option<usize> {
        let holds = |k: usize| {
            let s = &self.slots[k];
            s.region.as_ref().is_some_and(|r| addr.checked_sub(s.base).is_some_and(|off| off <= r.data.len() as u64))
        };
        // regions are page-aligned with a page between them, so the region
        // that holds an address is the only one that can: a hint that holds
        // it is the answer
        let hint = &self.recent[(addr / PAGE) as usize % RECENT];
        let k = hint.get() as usize;
        if k < self.slots.len() && holds(k) {
            return Some(k);
        }
        let (_, &k) = self.index.range(..=addr).next_back()?;
        if !holds(k) {
            return None;
        }
        hint.set(k as u32);
        Some(k)
    }

    fn find(&self, addr: Addr) -> Option<(Addr, &Region)> {
        let s = &self.slots[self.find_slot(addr)?];
        Some((s.base, s.region.as_ref()?))
    }

    /// The region containing `addr` and the offset of `addr` in it.
    pub fn region(&self, addr: Addr) -> Option<(&Region, usize)> {
        let (base, r) = self.find(addr)?;
        Some((r, (addr - base) as usize))
    }

    pub fn region_mut(&mut self, addr: Addr) -> Option<(&mut Region, usize)> {
        let k = self.find_slot(addr)?;
        let s = &mut self.slots[k];
        Some((s.region.as_mut()?, (addr - s.base) as usize))
    }

    /// The base address of the region containing `addr`.
    pub fn base_of(&self, addr: Addr) -> Option<Addr> {
        self.find(addr).map(|(b, _)| b)
    }

    /// The slot and offset of an access of `len` bytes at `addr`.
    fn check(&self, addr: Addr, len: u64, write: bool) -> Result<(usize, usize), Fault> {
        let fault = |why| Fault { addr, len, write, why };
        if addr < PAGE {
            return Err(fault("NULL pointer dereference"));
        }
        let k = self.find_slot(addr).ok_or_else(|| fault("not a mapped address"))?;
        let s = &self.slots[k];
        let r = s.region.as_ref().expect("found");
        let off = addr - s.base;
        if off.checked_add(len).is_none_or(|end| end > r.data.len() as u64) {
            return Err(fault("out of bounds of its region"));
        }
        if write && r.readonly {
            return Err(fault("read-only memory"));
        }
        Ok((k, off as usize))
    }

    fn bytes(&self, k: usize) -> &RegionBytes {
        &self.slots[k].region.as_ref().expect("checked").data
    }

    pub fn read(&self, addr: Addr, len: usize) -> Result<&[u8], Fault> {
        let (k, off) = self.check(addr, len as u64, false)?;
        Ok(&self.bytes(k)[off..off + len])
    }

    fn bytes_mut(&mut self, addr: Addr, len: usize, honour_readonly: bool) -> Result<&mut [u8], Fault> {
        let (k, off) = self.check(addr, len as u64, honour_readonly)?;
        let r = self.slots[k].region.as_mut().expect("checked");
        r.data.touch(off, len);
        Ok(&mut r.data[off..off + len])
    }

    pub fn write(&mut self, addr: Addr, bytes: &[u8]) -> Result<(), Fault> {
        self.bytes_mut(addr, bytes.len(), true)?.copy_from_slice(bytes);
        Ok(())
    }

    /// Writes even to a read-only region (the kernel's own stores: initial
    /// contents, map updates from the syscall side).
    pub fn write_kernel(&mut self, addr: Addr, bytes: &[u8]) -> Result<(), Fault> {
        self.bytes_mut(addr, bytes.len(), false)?.copy_from_slice(bytes);
        Ok(())
    }

    /// A little-endian load of 1, 2, 4 or 8 bytes, zero-extended.
    pub fn load(&self, addr: Addr, size: usize) -> Result<u64, Fault> {
        let b = self.read(addr, size.min(8))?;
        let mut v = [0u8; 8];
        v[..b.len()].copy_from_slice(b);
        Ok(u64::from_le_bytes(v))
    }

    /// A little-endian store of the low `size` bytes of `v`.
    pub fn store(&mut self, addr: Addr, size: usize, v: u64) -> Result<(), Fault> {
        self.write(addr, &v.to_le_bytes()[..size.min(8)])
    }

    /// A store that ignores read-only protection (see [`Self::write_kernel`]).
    pub fn store_kernel(&mut self, addr: Addr, size: usize, v: u64) -> Result<(), Fault> {
        self.write_kernel(addr, &v.to_le_bytes()[..size.min(8)])
    }

    /// Fills `len` bytes at `addr` with zero.
    pub fn zero(&mut self, addr: Addr, len: usize) -> Result<(), Fault> {
        self.bytes_mut(addr, len, true)?.fill(0);
        Ok(())
    }

    /// Copies `len` bytes (the ranges may overlap, as with memmove).
    pub fn copy(&mut self, dst: Addr, src: Addr, len: usize) -> Result<(), Fault> {
        let bytes = self.read(src, len)?.to_vec();
        self.write(dst, &bytes)
    }

    /// The bytes from `addr` up to a NUL, at most `max`; whether a NUL
    /// was found. Faults only if `addr` itself is not readable.
    pub fn read_cstr(&self, addr: Addr, max: usize) -> Result<(Vec<u8>, bool), Fault> {
        let (k, off) = self.check(addr, 1, false)?;
        let data = self.bytes(k);
        let s = &data[off..data.len().min(off.saturating_add(max))];
        match s.iter().position(|&c| c == 0) {
            Some(n) => Ok((s[..n].to_vec(), true)),
            None => Ok((s.to_vec(), false)),
        }
    }
}

/// Anonymous memory of lazily populated regions.
mod os {
    /// `len` zero bytes (a whole number of pages) whose pages the host
    /// creates when they are first written.
    #[cfg(unix)]
    pub fn map_zeroed(len: usize) -> Option<*mut u8> {
        // SAFETY: a fresh anonymous private mapping
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0)
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        // one written page costs one page, not a transparent huge page
        #[cfg(target_os = "linux")]
        // SAFETY: the mapping just made
        unsafe {
            libc::madvise(p, len, libc::MADV_NOHUGEPAGE);
        }
        Some(p.cast())
    }

    #[cfg(unix)]
    pub fn unmap(p: *mut u8, len: usize) {
        // SAFETY: a mapping of map_zeroed, which nothing uses any more
        unsafe { libc::munmap(p.cast(), len) };
    }

    /// Whether the host has the page at `p` (page-aligned).
    #[cfg(unix)]
    pub fn resident(p: *mut u8) -> bool {
        let mut v = 0u8;
        // SAFETY: one page of a live mapping; mincore writes one byte
        let r = unsafe { libc::mincore(p.cast(), super::PAGE as usize, &mut v) };
        r == 0 && v & 1 != 0
    }

    #[cfg(not(unix))]
    pub fn map_zeroed(len: usize) -> Option<*mut u8> {
        Some(Box::into_raw(vec![0u8; len].into_boxed_slice()).cast())
    }

    #[cfg(not(unix))]
    pub fn unmap(p: *mut u8, len: usize) {
        // SAFETY: the box map_zeroed made of `len` bytes
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, len)) });
    }

    #[cfg(not(unix))]
    pub fn resident(_p: *mut u8) -> bool {
        true
    }
}

/// The host memory of native runs: one large reservation per thread,
/// leased to one [`Memory`] at a time and handed out from its start, so
/// that runs on a thread see the same addresses.
mod arena {
    use std::cell::Cell;

    /// Address space reserved per thread (pages are only backed when used).
    pub const SIZE: usize = 8 << 30;
    /// The per-thread low area (below 2 GiB): addresses that fit an imm32.
    pub const LOW_SIZE: usize = 64 << 10;
    /// Where low areas are looked for, one `LOW_SIZE` step at a time.
    const LOW_FROM: u64 = 0x2100_0000;
    const LOW_TO: u64 = 0x7000_0000;

    thread_local! {
        /// (base, in use) of this thread's arena.
        static ARENA: Cell<(u64, bool)> = const { Cell::new((0, false)) };
        /// This thread's low area (0: not reserved yet, 1: none to be had).
        static LOW: Cell<u64> = const { Cell::new(0) };
    }

    /// The use of the thread's arena by one memory.
    #[derive(Debug)]
    pub struct Lease {
        base: u64,
    }

    impl Lease {
        /// The thread's arena, wiped, if no other memory holds it.
        pub fn take() -> Option<Lease> {
            let (mut base, busy) = ARENA.with(Cell::get);
            if busy {
                return None;
            }
            if base == 0 {
                base = reserve()?;
            }
            ARENA.with(|a| a.set((base, true)));
            Some(Lease { base })
        }

        pub fn base(&self) -> u64 {
            // the first page stays unused so no region starts at the base
            self.base + super::PAGE
        }

        /// The thread's low area, reserved on first use (`None`: no free
        /// address range below 2 GiB).
        pub fn low_base(&self) -> Option<u64> {
            let mut low = LOW.with(Cell::get);
            if low == 0 {
                low = reserve_low().unwrap_or(1);
                LOW.with(|l| l.set(low));
            }
            (low != 1).then_some(low)
        }
    }

    impl Drop for Lease {
        fn drop(&mut self) {
            // give the pages back (zeroed on next use)
            wipe(self.base, SIZE);
            let low = LOW.with(Cell::get);
            if low > 1 {
                wipe(low, LOW_SIZE);
            }
            ARENA.with(|a| a.set((self.base, false)));
        }
    }

    #[cfg(unix)]
    fn reserve() -> Option<u64> {
        // SAFETY: a fresh anonymous private mapping
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), SIZE, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0)
        };
        (p != libc::MAP_FAILED).then_some(p as u64)
    }

    #[cfg(target_os = "linux")]
    fn reserve_low() -> Option<u64> {
        let mut at = LOW_FROM;
        while at + LOW_SIZE as u64 <= LOW_TO {
            // SAFETY: a fresh anonymous mapping at a free address (NOREPLACE
            // never clobbers an existing one)
            let p = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    LOW_SIZE,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                if p as u64 == at {
                    return Some(at);
                }
                // an old kernel ignoring NOREPLACE put it elsewhere
                // SAFETY: the mapping just made
                unsafe { libc::munmap(p, LOW_SIZE) };
            }
            at += LOW_SIZE as u64;
        }
        None
    }

    #[cfg(not(target_os = "linux"))]
    fn reserve_low() -> Option<u64> {
        None
    }

    #[cfg(unix)]
    fn wipe(base: u64, len: usize) {
        // SAFETY: the thread's own arena, which no region uses any more
        unsafe {
            libc::madvise(base as *mut libc::c_void, len, libc::MADV_DONTNEED);
        }
    }

    #[cfg(not(unix))]
    fn reserve() -> Option<u64> {
        None
    }

    #[cfg(not(unix))]
    fn wipe(_base: u64, _len: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_reuse() {
        let mut m = Memory::new();
        let a = m.alloc(RegionKind::Stack, vec![0; 16], false).unwrap();
        m.store(a + 8, 8, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(m.load(a + 8, 4).unwrap(), 0x5566_7788);
        assert!(m.load(a + 12, 8).is_err());
        assert!(m.load(a.wrapping_sub(1), 1).is_err());
        assert!(m.load(0, 1).is_err());
        assert!(m.load(u64::MAX - 3, 8).is_err());
        let r = m.alloc(RegionKind::Object, vec![1; 4], true).unwrap();
        assert!(m.store(r, 1, 0).is_err());
        assert!(m.store_kernel(r, 1, 0).is_ok());
        m.free(a);
        assert!(m.load(a, 1).is_err());
        let b = m.alloc(RegionKind::Stack, vec![0; 16], false).unwrap();
        assert_eq!(a, b);
        assert_eq!(m.base_of(b + 16), Some(b));
        assert!(m.load(b + 16, 1).is_err());
    }

    #[test]
    fn lazy_regions() {
        let mut m = Memory::new();
        let before = m.alloc(RegionKind::Object, vec![0; 8], false).unwrap();
        // 296 bytes of header, then 3 pages and a bit of values
        let len = 296 + 3 * 4096 + 100;
        let a = m.alloc_lazy(RegionKind::Map(0), len, 296, false).unwrap();
        // the address an eager region of that size would have had
        assert_eq!(a, before + 2 * PAGE);
        assert_eq!(m.resident_pages(a, len as u64), Some(0));
        assert_eq!(m.load(a + 296 + 4096, 8).unwrap(), 0);
        assert_eq!(m.resident_pages(a, len as u64), Some(0));
        // a store across two value pages creates both
        m.store(a + 296 + 4096 - 4, 8, u64::MAX).unwrap();
        assert_eq!(m.resident_pages(a + 296, len as u64 - 296), Some(2));
        assert_eq!(m.resident_pages(a + 296 + 2 * 4096, 4096), Some(0));
        // user space reaches the rest of the last page, past the region
        assert!(m.load(a + len as u64, 1).is_err());
        m.write_mapped(a + len as u64, &[5; 8]).unwrap();
        assert_eq!(m.read_mapped(a + len as u64, 9).unwrap(), [5, 5, 5, 5, 5, 5, 5, 5, 0]);
        assert!(m.read_mapped(a + 296 + 4 * 4096 - 1, 2).is_err());
        assert_eq!(m.resident_pages(a + 296, len as u64 - 296), Some(3));
        // a copy is lazy too, with the same bytes
        let (r, _) = m.region(a).unwrap();
        let c = r.clone();
        assert!(c.data.is_lazy());
        assert_eq!(&c.data[..], &r.data[..]);
        // freed, its range goes to the next region of its size
        m.free(a);
        assert!(m.load(a + 296, 1).is_err());
        assert_eq!(m.alloc_lazy(RegionKind::Map(0), len, 296, false).unwrap(), a);
        assert_eq!(m.load(a + 296 + 4096 - 4, 4).unwrap(), 0);
        assert!(m.alloc_lazy(RegionKind::Map(0), MAX_LAZY_REGION + 1, 296, false).is_err());
    }
}
