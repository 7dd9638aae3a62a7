//! A BPF arena's memory (`kernel/bpf/arena.c`) for test runs: 4 GiB of
//! address space of which only the pages `bpf_arena_alloc_pages` handed
//! out exist. Programs reach it with `BPF_PROBE_MEM32` accesses at
//! `kern_vm_start + (u32)ptr + off`: here an offset into the arena, with
//! the JITs' exception-table semantics (a load from a missing page gives
//! 0, a store to one does nothing).

use crate::target::PAGE_SIZE;
use std::collections::HashMap;

/// 4 GiB: what the lower 32 bits of an arena pointer reach.
const SPAN: i64 = 1 << 32;
/// `NUMA_NO_NODE`.
const NUMA_NO_NODE: i32 = -1;
/// `GUARD_SZ`: an s16 `off` either side of the 4 GiB, in whole pairs of
/// pages; half of it sits below `kern_vm_start`, half above the 4 GiB.
pub const GUARD_SZ: u64 = 1 << 16;

/// The arena of a run.
#[derive(Debug)]
pub struct Arena {
    /// `user_vm_start` (the loader's `map_extra`).
    pub user_vm_start: u64,
    /// `max_entries`: the arena's size in pages.
    pub page_cnt_max: u64,
    /// Allocated pages by page offset: their bytes, or (with a host
    /// window) an empty slice, the bytes being in the window.
    pages: HashMap<u64, Box<[u8]>>,
    /// The kernel window at a host address (native runs).
    host: Option<HostWindow>,
}

impl Clone for Arena {
    /// A copy owns its pages (it is no longer at the host address).
    fn clone(&self) -> Arena {
        let pages = self
            .pages
            .keys()
            .map(|&p| {
                let bytes: Vec<u8> = (0..PAGE_SIZE).map(|k| self.byte(p * PAGE_SIZE + k).unwrap_or(0)).collect();
                (p, bytes.into_boxed_slice())
            })
            .collect();
        Arena { user_vm_start: self.user_vm_start, page_cnt_max: self.page_cnt_max, pages, host: None }
    }
}

impl Arena {
    pub fn new(user_vm_start: u64, max_entries: u32) -> Arena {
        Arena { user_vm_start, page_cnt_max: max_entries as u64, pages: HashMap::new(), host: None }
    }

    /// An arena whose kernel window is real host memory, as
    /// `arena_map_alloc`'s `get_vm_area(KERN_VM_SZ)`: 4 GiB plus the guards
    /// reserved inaccessible, the pages `bpf_arena_alloc_pages` hands out
    /// made accessible. The x86-64 JIT's code reaches it at
    /// [`Arena::kern_vm_start`] (r12) and faults where no page is.
    pub fn new_host(user_vm_start: u64, max_entries: u32) -> Result<Arena, String> {
        let host = HostWindow::reserve()?;
        Ok(Arena { host: Some(host), ..Arena::new(user_vm_start, max_entries) })
    }

    /// `bpf_arena_get_kern_vm_start`: the host address of arena offset 0
    /// (0 without a host window).
    pub fn kern_vm_start(&self) -> u64 {
        self.host.as_ref().map_or(0, HostWindow::kern_vm_start)
    }

    /// The arena offset of an access `(u32)ptr + off`, or `None` outside
    /// the 4 GiB window (the guard pages).
    fn offset(ptr: u64, off: i16, n: usize) -> Option<u64> {
        let o = (ptr as u32) as i64 + off as i64;
        (o >= 0 && o + n as i64 <= SPAN).then_some(o as u64)
    }

    /// The page offset (`compute_pgoff`) of window offset `at`, the lower
    /// 32 bits of a user address.
    fn pgoff_of(&self, at: u64) -> u64 {
        u64::from((at as u32).wrapping_sub(self.user_vm_start as u32)) / PAGE_SIZE
    }

    /// The window offset of page `pgoff`: where the kernel maps it
    /// (`kern_vm_start + (u32)(user_vm_start + pgoff * PAGE_SIZE)`).
    fn page_addr(&self, pgoff: u64) -> u64 {
        u64::from((self.user_vm_start as u32).wrapping_add((pgoff * PAGE_SIZE) as u32))
    }

    /// libbpf's copy of the global data into the arena through its mmap,
    /// `data` at `off` from `user_vm_start`: each page it touches is
    /// faulted in (`arena_vm_fault` allocates it), then written.
    pub fn write_user(&mut self, off: u64, data: &[u8]) -> Result<(), String> {
        let end = off.checked_add(data.len() as u64).filter(|&e| e <= self.page_cnt_max * PAGE_SIZE);
        let Some(end) = end else { return Err(format!("arena: {} bytes at offset {off} are outside the arena", data.len())) };
        if data.is_empty() {
            return Ok(());
        }
        for p in off / PAGE_SIZE..=(end - 1) / PAGE_SIZE {
            if self.pages.contains_key(&p) {
                continue;
            }
            if let Some(w) = &self.host
                && !w.protect(self.page_addr(p), PAGE_SIZE, true)
            {
                return Err("arena: mapping a page of the host window failed".into());
            }
            let bytes = if self.host.is_some() { Vec::new() } else { vec![0u8; PAGE_SIZE as usize] };
            self.pages.insert(p, bytes.into_boxed_slice());
        }
        let base = self.page_addr(0);
        for (i, &b) in data.iter().enumerate() {
            self.set_byte(u64::from((base as u32).wrapping_add((off + i as u64) as u32)), b);
        }
        Ok(())
    }

    fn byte(&self, at: u64) -> Option<u8> {
        let page = self.pages.get(&self.pgoff_of(at))?;
        Some(match &self.host {
            // SAFETY: an allocated page of the window is readable and writable
            Some(w) => unsafe { std::ptr::read_volatile((w.kern_vm_start() + at) as *const u8) },
            None => page[(at % PAGE_SIZE) as usize],
        })
    }

    fn set_byte(&mut self, at: u64, b: u8) {
        let pgoff = self.pgoff_of(at);
        let Some(page) = self.pages.get_mut(&pgoff) else { return };
        match &self.host {
            // SAFETY: as for `byte`
            Some(w) => unsafe { std::ptr::write_volatile((w.kern_vm_start() + at) as *mut u8, b) },
            None => page[(at % PAGE_SIZE) as usize] = b,
        }
    }

    /// A `BPF_PROBE_MEM32` load: little-endian, 0 when any byte faults.
    pub fn load(&self, ptr: u64, off: i16, n: usize) -> u64 {
        let Some(o) = Self::offset(ptr, off, n) else { return 0 };
        let mut v = 0u64;
        for k in (0..n as u64).rev() {
            match self.byte(o + k) {
                Some(b) => v = v << 8 | b as u64,
                None => return 0,
            }
        }
        v
    }

    /// Whether all of `[o, o + n)` is backed by pages.
    fn mapped(&self, o: u64, n: usize) -> bool {
        (0..n as u64).all(|k| self.pages.contains_key(&self.pgoff_of(o + k)))
    }

    /// A `BPF_PROBE_MEM32` store; a faulting one is skipped (an x86 store
    /// that faults on any of its bytes writes none). Returns whether it
    /// happened.
    pub fn store(&mut self, ptr: u64, off: i16, n: usize, v: u64) -> bool {
        let Some(o) = Self::offset(ptr, off, n) else { return false };
        if !self.mapped(o, n) {
            return false;
        }
        for k in 0..n as u64 {
            self.set_byte(o + k, (v >> (8 * k)) as u8);
        }
        true
    }

    /// A `BPF_PROBE_ATOMIC` read-modify-write: `f(old)` gives the new
    /// value; returns the old one, or `None` when it faulted (nothing is
    /// written; `ex_handler_bpf` zeroes the register the op loads into).
    pub fn rmw(&mut self, ptr: u64, off: i16, n: usize, f: impl FnOnce(u64) -> u64) -> Option<u64> {
        let o = Self::offset(ptr, off, n)?;
        if !self.mapped(o, n) {
            return None;
        }
        let old = self.load(ptr, off, n);
        self.store(ptr, off, n, f(old));
        Some(old)
    }

    /// `addr_space_cast(r, 0x1, 0x0)` as the JITs do it: 0 stays 0, other
    /// values get the upper half of `user_vm_start`.
    pub fn cast_user(&self, v: u64) -> u64 {
        let lo = v as u32 as u64;
        if lo == 0 { 0 } else { (self.user_vm_start & !0xffff_ffff) | lo }
    }

    /// `bpf_arena_alloc_pages(map, addr, page_cnt, node_id, flags)`: the
    /// user address of `page_cnt` fresh zeroed pages (at `addr` if given,
    /// else the lowest free range), or 0. The project's kernels have one
    /// NUMA node.
    pub fn alloc_pages(&mut self, uaddr: u64, page_cnt: u32, node_id: i32) -> u64 {
        if node_id != NUMA_NO_NODE && node_id != 0 {
            return 0;
        }
        let cnt = page_cnt as u64;
        if cnt > self.page_cnt_max || cnt == 0 {
            return 0;
        }
        let free = |a: &Arena, at: u64| (at..at + cnt).all(|p| !a.pages.contains_key(&p));
        let pgoff = if uaddr != 0 {
            if uaddr & (PAGE_SIZE - 1) != 0 {
                return 0;
            }
            // compute_pgoff
            let pgoff = ((uaddr as u32).wrapping_sub(self.user_vm_start as u32) as u64) / PAGE_SIZE;
            if pgoff > self.page_cnt_max - cnt || !free(self, pgoff) {
                return 0;
            }
            pgoff
        } else {
            match (0..=self.page_cnt_max - cnt).find(|&at| free(self, at)) {
                Some(p) => p,
                None => return 0,
            }
        };
        if let Some(w) = &self.host
            && !(pgoff..pgoff + cnt).all(|p| w.protect(self.page_addr(p), PAGE_SIZE, true))
        {
            return 0;
        }
        for p in pgoff..pgoff + cnt {
            let bytes = if self.host.is_some() { Vec::new() } else { vec![0u8; PAGE_SIZE as usize] };
            self.pages.insert(p, bytes.into_boxed_slice());
        }
        let uaddr32 = (self.user_vm_start.wrapping_add(pgoff * PAGE_SIZE)) as u32;
        (self.user_vm_start & !0xffff_ffff) + uaddr32 as u64
    }

    /// `bpf_arena_free_pages(map, ptr, page_cnt)` (`arena_free_pages`): the
    /// pages of `[ptr, ptr + page_cnt pages)` inside the arena are unmapped
    /// (accesses fault again) and their offsets free for reuse, as fresh
    /// zeroed pages. The non-sleepable variant defers the unmapping to an
    /// irq_work in the kernel; here it is immediate.
    pub fn free_pages(&mut self, uaddr: u64, page_cnt: u32) {
        if page_cnt == 0 || uaddr == 0 {
            return;
        }
        // only the aligned lower 32 bits count
        let lo = (uaddr as u32 as u64) & !(PAGE_SIZE - 1);
        let full = (self.user_vm_start & !0xffff_ffff) + lo;
        let user_vm_end = self.user_vm_start + self.page_cnt_max * PAGE_SIZE;
        if full < self.user_vm_start {
            return;
        }
        let end = user_vm_end.min(full.saturating_add(page_cnt as u64 * PAGE_SIZE));
        if full >= end {
            return;
        }
        let cnt = (end - full) / PAGE_SIZE;
        let pgoff = ((lo as u32).wrapping_sub(self.user_vm_start as u32) as u64) / PAGE_SIZE;
        for p in pgoff..pgoff + cnt {
            if self.pages.remove(&p).is_some()
                && let Some(w) = &self.host
            {
                w.protect(self.page_addr(p), PAGE_SIZE, false);
            }
        }
    }
}

/// The reserved kernel window of a host-backed arena, unmapped on drop.
#[derive(Debug)]
struct HostWindow {
    base: u64,
    len: usize,
}

impl HostWindow {
    fn reserve() -> Result<HostWindow, String> {
        let len = (SPAN as u64 + GUARD_SZ) as usize;
        #[cfg(unix)]
        {
            // SAFETY: a fresh anonymous inaccessible reservation nothing else uses
            let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0) };
            if p == libc::MAP_FAILED {
                return Err("arena: reserving the 4 GiB kernel window failed".into());
            }
            Ok(HostWindow { base: p as u64, len })
        }
        #[cfg(not(unix))]
        {
            let _ = len;
            Err("arena: host windows need a unix host".into())
        }
    }

    fn kern_vm_start(&self) -> u64 {
        self.base + GUARD_SZ / 2
    }

    /// Makes `[off, off + len)` of the arena accessible (fresh zero pages)
    /// or inaccessible again (its pages dropped). Whether it worked.
    fn protect(&self, off: u64, len: u64, accessible: bool) -> bool {
        #[cfg(unix)]
        {
            let at = (self.kern_vm_start() + off) as *mut libc::c_void;
            // SAFETY: inside our own reservation (off + len <= 4 GiB)
            unsafe {
                if accessible {
                    libc::mprotect(at, len as usize, libc::PROT_READ | libc::PROT_WRITE) == 0
                } else {
                    libc::madvise(at, len as usize, libc::MADV_DONTNEED) == 0 && libc::mprotect(at, len as usize, libc::PROT_NONE) == 0
                }
            }
        }
        #[cfg(not(unix))]
        {
            let _ = (off, len, accessible);
            false
        }
    }
}

impl Drop for HostWindow {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: our own reservation; no code runs on it any more
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_fault_until_allocated() {
        let mut a = Arena::new(0x7f00_0000_0000, 4);
        assert_eq!(a.load(0, 0, 8), 0);
        assert!(!a.store(0, 0, 8, 1));
        let u = a.alloc_pages(0, 1, -1);
        assert_eq!(u, 0x7f00_0000_0000);
        assert!(a.store(u, 8, 8, 0x1234));
        assert_eq!(a.load(u, 8, 4), 0x1234);
        // the second allocation takes the next page; a fixed address
        // already in use fails
        assert_eq!(a.alloc_pages(0, 2, -1), 0x7f00_0000_1000);
        assert_eq!(a.alloc_pages(0x7f00_0000_1000, 1, -1), 0);
        assert_eq!(a.alloc_pages(0, 2, -1), 0, "one page left");
        assert_eq!(a.alloc_pages(0, 1, 3), 0, "no such node");
        // an access across the end of a page into a missing one faults
        assert_eq!(a.load(u, 0x2ffc, 8), 0);
        assert_eq!(a.cast_user(0), 0);
        assert_eq!(a.cast_user(0x1000), 0x7f00_0000_1000);
        assert_eq!(a.rmw(u, 8, 8, |o| o + 1), Some(0x1234));
        assert_eq!(a.load(u, 8, 8), 0x1235);
        assert_eq!(a.rmw(0x10_0000, 0, 8, |o| o + 1), None);
        assert_eq!(a.load(u, -8, 8), 0, "below the arena");
        // freed pages fault again, and come back zeroed
        a.free_pages(u, 1);
        assert_eq!(a.load(u, 8, 8), 0);
        assert!(!a.store(u, 8, 8, 1));
        assert_eq!(a.alloc_pages(0, 1, -1), u);
        assert_eq!(a.load(u, 8, 8), 0);
    }

    /// The same with the pages in a host window: the bytes are at
    /// `kern_vm_start + offset`, and only allocated pages are accessible.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn host_window_holds_the_pages() {
        let mut a = Arena::new_host(0x7f00_0000_0000, 4).unwrap();
        let k = a.kern_vm_start();
        assert_ne!(k, 0);
        let u = a.alloc_pages(0, 2, -1);
        assert!(a.store(u, 0x1008, 8, 0x1122_3344_5566_7788));
        // SAFETY: an allocated page of the window
        assert_eq!(unsafe { std::ptr::read((k + 0x1008) as *const u64) }, 0x1122_3344_5566_7788);
        assert_eq!(a.clone().load(u, 0x1008, 8), 0x1122_3344_5566_7788, "a copy keeps the bytes");
        a.free_pages(u + 0x1000, 1);
        assert_eq!(a.load(u, 0x1008, 8), 0);
        assert_eq!(a.alloc_pages(0, 1, -1), u + 0x1000);
        // SAFETY: allocated again: a fresh zero page
        assert_eq!(unsafe { std::ptr::read((k + 0x1008) as *const u64) }, 0);
    }
}
