//! A BPF arena's memory (`kernel/bpf/arena.c`) for test runs: 4 GiB of
//! address space of which only the pages `bpf_arena_alloc_pages` handed
//! out exist. Programs reach it with `BPF_PROBE_MEM32` accesses at
//! `kern_vm_start + (u32)ptr + off`: here an offset into the arena, with
//! the JITs' exception-table semantics (a load from a missing page gives
//! 0, a store to one does nothing).
//!
//! Which page offsets are still free is the arena's [`RangeTree`]
//! (`kernel/bpf/range_tree.c`): allocating, reserving and user-space
//! faults clear offsets in it, freeing sets them again. A reserved range
//! is cleared in the tree but has no pages.

use crate::target::PAGE_SIZE;
use std::collections::{BTreeMap, HashMap};

/// 4 GiB: what the lower 32 bits of an arena pointer reach.
const SPAN: i64 = 1 << 32;
/// `NUMA_NO_NODE`.
const NUMA_NO_NODE: i32 = -1;
/// `GUARD_SZ`: an s16 `off` either side of the 4 GiB, in whole pairs of
/// pages; half of it sits below `kern_vm_start`, half above the 4 GiB.
pub const GUARD_SZ: u64 = 1 << 16;

/// `struct range_tree`: a set of page offsets kept as maximal ranges.
/// `range_tree_find` is a best fit through a tree ordered by range size
/// (larger first, a newly inserted range after the ones of its size): the
/// smallest range that fits, of those the one (re)inserted last. Each
/// range carries the stamp of its last insertion to order ties the same
/// way.
#[derive(Clone, Debug, Default)]
pub struct RangeTree {
    /// First offset -> (last offset, inclusive; insertion stamp).
    ranges: BTreeMap<u64, (u64, u64)>,
    stamp: u64,
}

impl RangeTree {
    /// `range_it_insert`: into both trees, as the newest of its size.
    fn range_it_insert(&mut self, start: u64, last: u64) {
        self.stamp += 1;
        self.ranges.insert(start, (last, self.stamp));
    }

    /// `range_it_iter_first`: the lowest range overlapping `[start, last]`.
    fn range_it_iter_first(&self, start: u64, last: u64) -> Option<(u64, u64)> {
        // ranges do not overlap: the one starting at or before `start`, or
        // else the first starting inside
        if let Some((&s, &(l, _))) = self.ranges.range(..=start).next_back()
            && l >= start
        {
            return Some((s, l));
        }
        self.ranges.range(start..=last).next().map(|(&s, &(l, _))| (s, l))
    }

    /// `range_tree_clear`: `[start, start + len)` is no longer in the set.
    pub fn range_tree_clear(&mut self, start: u64, len: u64) {
        if len == 0 {
            return;
        }
        let last = start + len - 1;
        while let Some((s, l)) = self.range_it_iter_first(start, last) {
            self.ranges.remove(&s);
            if s < start && l > last {
                // the cleared range is inside: split
                self.range_it_insert(s, start - 1);
                self.range_it_insert(last + 1, l);
            } else if s < start {
                self.range_it_insert(s, start - 1);
            } else if l > last {
                self.range_it_insert(last + 1, l);
                break;
            }
        }
    }

    /// `is_range_tree_set`: whether all of `[start, start + len)` is in
    /// the set.
    pub fn is_range_tree_set(&self, start: u64, len: u64) -> bool {
        if len == 0 {
            return true;
        }
        let last = start + len - 1;
        self.range_it_iter_first(start, last).is_some_and(|(s, l)| s <= start && l >= last)
    }

    /// `range_tree_set`: `[start, start + len)` joins the set, merged with
    /// the ranges next to it.
    pub fn range_tree_set(&mut self, start: u64, len: u64) {
        if len == 0 || self.is_range_tree_set(start, len) {
            return;
        }
        let last = start + len - 1;
        self.range_tree_clear(start, len);
        let left = start.checked_sub(1).and_then(|p| self.range_it_iter_first(p, p));
        let right = self.range_it_iter_first(last + 1, last + 1);
        match (left, right) {
            (Some((ls, _)), Some((rs, rl))) => {
                self.ranges.remove(&ls);
                self.ranges.remove(&rs);
                self.range_it_insert(ls, rl);
            }
            (Some((ls, _)), None) => {
                self.ranges.remove(&ls);
                self.range_it_insert(ls, last);
            }
            (None, Some((rs, rl))) => {
                self.ranges.remove(&rs);
                self.range_it_insert(start, rl);
            }
            (None, None) => self.range_it_insert(start, last),
        }
    }

    /// `range_tree_find`: the start of the best-fitting range of at least
    /// `len` offsets.
    pub fn range_tree_find(&self, len: u64) -> Option<u64> {
        self.ranges.iter().filter(|&(&s, &(l, _))| l - s + 1 >= len).min_by_key(|&(&s, &(l, stamp))| (l - s + 1, std::cmp::Reverse(stamp))).map(|(&s, _)| s)
    }
}

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
    /// `rt`: the page offsets neither allocated, reserved nor faulted in.
    rt: RangeTree,
    /// `free_spans`: the frees of the non-sleepable
    /// `bpf_arena_free_pages`, (lower 32 bits of the address, pages), in
    /// the order they were queued; `arena_free_worker` does them once the
    /// program has returned.
    free_spans: Vec<(u64, u64)>,
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
        Arena {
            user_vm_start: self.user_vm_start,
            page_cnt_max: self.page_cnt_max,
            pages,
            rt: self.rt.clone(),
            free_spans: self.free_spans.clone(),
            host: None,
        }
    }
}

impl Arena {
    /// `arena_map_alloc`: every page offset free.
    pub fn new(user_vm_start: u64, max_entries: u32) -> Arena {
        let mut rt = RangeTree::default();
        rt.range_tree_set(0, max_entries as u64);
        Arena { user_vm_start, page_cnt_max: max_entries as u64, pages: HashMap::new(), rt, free_spans: Vec::new(), host: None }
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

    /// The window offset of page `pgoff`: where the kernel maps it
    /// (`kern_vm_start + (u32)(user_vm_start + pgoff * PAGE_SIZE)`).
    fn page_addr(&self, pgoff: u64) -> u64 {
        u64::from((self.user_vm_start as u32).wrapping_add((pgoff * PAGE_SIZE) as u32))
    }

    /// libbpf's copy of the global data into the arena through its mmap,
    /// `data` at `off` from `user_vm_start`: each page it touches is
    /// faulted in (`arena_vm_fault` takes its offset out of the range tree
    /// and allocates it), then written.
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
            self.rt.range_tree_clear(p, 1);
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
        let page = self.pages.get(&self.compute_pgoff(at))?;
        Some(match &self.host {
            // SAFETY: an allocated page of the window is readable and writable
            Some(w) => unsafe { std::ptr::read_volatile((w.kern_vm_start() + at) as *const u8) },
            None => page[(at % PAGE_SIZE) as usize],
        })
    }

    fn set_byte(&mut self, at: u64, b: u8) {
        let pgoff = self.compute_pgoff(at);
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
        (0..n as u64).all(|k| self.pages.contains_key(&self.compute_pgoff(o + k)))
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

    /// `compute_pgoff`: the page offset of a user address, or of a window
    /// offset (only the lower 32 bits count).
    fn compute_pgoff(&self, uaddr: u64) -> u64 {
        u64::from((uaddr as u32).wrapping_sub(self.user_vm_start as u32)) / PAGE_SIZE
    }

    /// Makes pages `[pgoff, pgoff + cnt)` exist, fresh and zeroed; whether
    /// the host window let it.
    fn map_pages(&mut self, pgoff: u64, cnt: u64) -> bool {
        if let Some(w) = &self.host
            && !(pgoff..pgoff + cnt).all(|p| w.protect(self.page_addr(p), PAGE_SIZE, true))
        {
            return false;
        }
        for p in pgoff..pgoff + cnt {
            let bytes = if self.host.is_some() { Vec::new() } else { vec![0u8; PAGE_SIZE as usize] };
            self.pages.insert(p, bytes.into_boxed_slice());
        }
        true
    }

    /// Drops the pages of `[pgoff, pgoff + cnt)` that exist
    /// (`apply_range_clear_cb`): accesses to them fault again.
    fn unmap_pages(&mut self, pgoff: u64, cnt: u64) {
        for p in pgoff..pgoff + cnt {
            if self.pages.remove(&p).is_some()
                && let Some(w) = &self.host
            {
                w.protect(self.page_addr(p), PAGE_SIZE, false);
            }
        }
    }

    /// `arena_alloc_pages(arena, uaddr, page_cnt, node_id)`: the user
    /// address of `page_cnt` fresh zeroed pages, at `uaddr` if given (all
    /// of that range free in the range tree), else where `range_tree_find`
    /// fits them; 0 when that fails. The project's kernels have one NUMA
    /// node. (`bpf_arena_alloc_pages` has rejected `page_cnt` 0.)
    pub fn arena_alloc_pages(&mut self, uaddr: u64, page_cnt: u32, node_id: i32) -> u64 {
        if node_id != NUMA_NO_NODE && node_id != 0 {
            return 0;
        }
        let cnt = page_cnt as u64;
        if cnt > self.page_cnt_max || cnt == 0 {
            return 0;
        }
        let pgoff = if uaddr != 0 {
            if uaddr & (PAGE_SIZE - 1) != 0 {
                return 0;
            }
            let pgoff = self.compute_pgoff(uaddr);
            // outside of the user VMA
            if pgoff > self.page_cnt_max - cnt || !self.rt.is_range_tree_set(pgoff, cnt) {
                return 0;
            }
            pgoff
        } else {
            match self.rt.range_tree_find(cnt) {
                Some(p) => p,
                None => return 0,
            }
        };
        self.rt.range_tree_clear(pgoff, cnt);
        if !self.map_pages(pgoff, cnt) {
            self.unmap_pages(pgoff, cnt);
            self.rt.range_tree_set(pgoff, cnt);
            return 0;
        }
        let uaddr32 = (self.user_vm_start.wrapping_add(pgoff * PAGE_SIZE)) as u32;
        (self.user_vm_start & !0xffff_ffff) + uaddr32 as u64
    }

    /// `arena_free_pages(arena, uaddr, page_cnt, sleepable)`: the part of
    /// `[uaddr, uaddr + page_cnt pages)` inside the arena (aligned lower 32
    /// bits) goes back to the range tree and its pages are unmapped
    /// (accesses fault again; a later allocation gets fresh zeroed pages),
    /// whether they were allocated or only reserved. Not sleepable (the
    /// `_non_sleepable` kfunc), the free is queued for
    /// `arena_free_worker`, which runs after the program: until then the
    /// pages stay mapped and their offsets taken.
    pub fn arena_free_pages(&mut self, uaddr: u64, page_cnt: u32, sleepable: bool) {
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
        if !sleepable {
            self.free_spans.push((lo, cnt));
            return;
        }
        let pgoff = self.compute_pgoff(lo);
        self.rt.range_tree_set(pgoff, cnt);
        self.unmap_pages(pgoff, cnt);
    }

    /// `arena_free_worker`: the queued frees, the last queued first
    /// (`llist_del_all` hands them back in that order).
    pub fn arena_free_worker(&mut self) {
        while let Some((lo, cnt)) = self.free_spans.pop() {
            let pgoff = self.compute_pgoff(lo);
            self.unmap_pages(pgoff, cnt);
            self.rt.range_tree_set(pgoff, cnt);
        }
    }

    /// `arena_reserve_pages(arena, uaddr, page_cnt)`: takes the free range
    /// `[uaddr, uaddr + page_cnt pages)` out of the range tree without
    /// pages, so allocations cannot hand it out. 0, or `-EINVAL` past the
    /// arena's end, `-EBUSY` when any of it is not free; an unaligned
    /// address gives 0 and reserves nothing. (`bpf_arena_reserve_pages` has
    /// answered `page_cnt` 0.)
    pub fn arena_reserve_pages(&mut self, uaddr: u64, page_cnt: u32) -> i64 {
        use crate::verifier::errno::{EBUSY, EINVAL};
        if uaddr & (PAGE_SIZE - 1) != 0 {
            return 0;
        }
        let pgoff = self.compute_pgoff(uaddr);
        let cnt = page_cnt as u64;
        if pgoff + cnt > self.page_cnt_max {
            return -(EINVAL as i64);
        }
        if !self.rt.is_range_tree_set(pgoff, cnt) {
            return -(EBUSY as i64);
        }
        self.rt.range_tree_clear(pgoff, cnt);
        0
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
        let u = a.arena_alloc_pages(0, 1, -1);
        assert_eq!(u, 0x7f00_0000_0000);
        assert!(a.store(u, 8, 8, 0x1234));
        assert_eq!(a.load(u, 8, 4), 0x1234);
        // the second allocation takes the next page; a fixed address
        // already in use fails
        assert_eq!(a.arena_alloc_pages(0, 2, -1), 0x7f00_0000_1000);
        assert_eq!(a.arena_alloc_pages(0x7f00_0000_1000, 1, -1), 0);
        assert_eq!(a.arena_alloc_pages(0, 2, -1), 0, "one page left");
        assert_eq!(a.arena_alloc_pages(0, 1, 3), 0, "no such node");
        // an access across the end of a page into a missing one faults
        assert_eq!(a.load(u, 0x2ffc, 8), 0);
        assert_eq!(a.cast_user(0), 0);
        assert_eq!(a.cast_user(0x1000), 0x7f00_0000_1000);
        assert_eq!(a.rmw(u, 8, 8, |o| o + 1), Some(0x1234));
        assert_eq!(a.load(u, 8, 8), 0x1235);
        assert_eq!(a.rmw(0x10_0000, 0, 8, |o| o + 1), None);
        assert_eq!(a.load(u, -8, 8), 0, "below the arena");
        // freed pages fault again, and come back zeroed
        a.arena_free_pages(u, 1, true);
        assert_eq!(a.load(u, 8, 8), 0);
        assert!(!a.store(u, 8, 8, 1));
        assert_eq!(a.arena_alloc_pages(0, 1, -1), u);
        assert_eq!(a.load(u, 8, 8), 0);
    }

    /// `range_tree_find` is a best fit, the newest of equal ranges first;
    /// set and clear split and merge.
    #[test]
    fn range_tree_best_fit() {
        let mut rt = RangeTree::default();
        rt.range_tree_set(0, 100);
        assert_eq!(rt.range_tree_find(1), Some(0));
        rt.range_tree_clear(0, 10);
        assert!(!rt.is_range_tree_set(9, 1));
        assert!(rt.is_range_tree_set(10, 90));
        // holes of 1 at 2 and 5 and of 2 at 7..9: one page goes to the
        // newest hole of 1, two pages to the hole of 2
        rt.range_tree_set(2, 1);
        rt.range_tree_set(5, 1);
        rt.range_tree_set(7, 2);
        assert_eq!(rt.range_tree_find(1), Some(5));
        assert_eq!(rt.range_tree_find(2), Some(7));
        assert_eq!(rt.range_tree_find(3), Some(10));
        // merging 6 joins 5..9 into one range, re-inserted: the newest
        rt.range_tree_set(6, 1);
        assert!(rt.is_range_tree_set(5, 4));
        assert_eq!(rt.range_tree_find(4), Some(5));
        // clearing from the middle splits
        rt.range_tree_clear(50, 10);
        assert!(rt.is_range_tree_set(10, 40) && rt.is_range_tree_set(60, 40) && !rt.is_range_tree_set(49, 2));
        assert_eq!(rt.range_tree_find(41), None);
    }

    /// Reserved pages stay out of allocations and fault like missing
    /// ones; freeing them makes them allocatable again. A non-sleepable
    /// free only happens once the worker runs.
    #[test]
    fn reserve_and_deferred_free() {
        use crate::verifier::errno::{EBUSY, EINVAL};
        let base = 0x1_ffff_e000;
        let mut a = Arena::new(base, 2);
        assert_eq!(a.arena_reserve_pages(0, 3), -(EINVAL as i64), "NULL: page offset 2");
        assert_eq!(a.arena_reserve_pages(base, 3), -(EINVAL as i64));
        assert_eq!(a.arena_reserve_pages(base + 1, 1), 0, "unaligned: nothing to do");
        assert_eq!(a.arena_reserve_pages(base, 1), 0);
        assert_eq!(a.arena_reserve_pages(base, 1), -(EBUSY as i64));
        assert!(!a.store(base, 0, 1, 0x5a));
        assert_eq!(a.arena_alloc_pages(base, 1, -1), 0);
        let u = a.arena_alloc_pages(0, 1, -1);
        assert_eq!(u, base + 0x1000);
        assert_eq!(a.arena_alloc_pages(0, 1, -1), 0);
        assert_eq!(a.arena_reserve_pages(u, 1), -(EBUSY as i64), "allocated");
        a.arena_free_pages(base, 2, true);
        assert_eq!(a.load(u, 0, 1), 0);
        assert_eq!(a.arena_alloc_pages(0, 2, -1), base);
        assert!(a.store(u, 0, 1, 7));
        a.arena_free_pages(u, 1, false);
        assert_eq!(a.load(u, 0, 1), 7, "still mapped until the worker runs");
        assert_eq!(a.arena_alloc_pages(u, 1, -1), 0);
        a.arena_free_worker();
        assert_eq!(a.load(u, 0, 1), 0);
        assert_eq!(a.arena_alloc_pages(u, 1, -1), u);
    }

    /// The same with the pages in a host window: the bytes are at
    /// `kern_vm_start + offset`, and only allocated pages are accessible.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn host_window_holds_the_pages() {
        let mut a = Arena::new_host(0x7f00_0000_0000, 4).unwrap();
        let k = a.kern_vm_start();
        assert_ne!(k, 0);
        let u = a.arena_alloc_pages(0, 2, -1);
        assert!(a.store(u, 0x1008, 8, 0x1122_3344_5566_7788));
        // SAFETY: an allocated page of the window
        assert_eq!(unsafe { std::ptr::read((k + 0x1008) as *const u64) }, 0x1122_3344_5566_7788);
        assert_eq!(a.clone().load(u, 0x1008, 8), 0x1122_3344_5566_7788, "a copy keeps the bytes");
        a.arena_free_pages(u + 0x1000, 1, true);
        assert_eq!(a.load(u, 0x1008, 8), 0);
        assert_eq!(a.arena_alloc_pages(0, 1, -1), u + 0x1000);
        // SAFETY: allocated again: a fresh zero page
        assert_eq!(unsafe { std::ptr::read((k + 0x1008) as *const u64) }, 0);
    }
}
