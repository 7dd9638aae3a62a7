//! A BPF arena's memory (`kernel/bpf/arena.c`) for test runs: 4 GiB of
//! address space of which only the pages `bpf_arena_alloc_pages` handed
//! out exist. Programs reach it with `BPF_PROBE_MEM32` accesses at
//! `kern_vm_start + (u32)ptr + off`: here an offset into the arena, with
//! the JITs' exception-table semantics (a load from a missing page gives
//! 0, a store to one does nothing).

use std::collections::HashMap;

const PAGE_SIZE: u64 = 4096;
/// 4 GiB: what the lower 32 bits of an arena pointer reach.
const SPAN: i64 = 1 << 32;
/// `NUMA_NO_NODE`.
const NUMA_NO_NODE: i32 = -1;

/// The arena of a run.
#[derive(Clone, Debug)]
pub struct Arena {
    /// `user_vm_start` (the loader's `map_extra`).
    pub user_vm_start: u64,
    /// `max_entries`: the arena's size in pages.
    pub page_cnt_max: u64,
    /// Allocated pages by page offset.
    pages: HashMap<u64, Box<[u8]>>,
}

impl Arena {
    pub fn new(user_vm_start: u64, max_entries: u32) -> Arena {
        Arena { user_vm_start, page_cnt_max: max_entries as u64, pages: HashMap::new() }
    }

    /// The arena offset of an access `(u32)ptr + off`, or `None` outside
    /// the 4 GiB window (the guard pages).
    fn offset(ptr: u64, off: i16, n: usize) -> Option<u64> {
        let o = (ptr as u32) as i64 + off as i64;
        (o >= 0 && o + n as i64 <= SPAN).then_some(o as u64)
    }

    fn byte(&self, at: u64) -> Option<u8> {
        self.pages.get(&(at / PAGE_SIZE)).map(|p| p[(at % PAGE_SIZE) as usize])
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
        (0..n as u64).all(|k| self.pages.contains_key(&((o + k) / PAGE_SIZE)))
    }

    /// A `BPF_PROBE_MEM32` store; a faulting one is skipped. Returns
    /// whether it happened.
    pub fn store(&mut self, ptr: u64, off: i16, n: usize, v: u64) -> bool {
        let Some(o) = Self::offset(ptr, off, n) else { return false };
        if !self.mapped(o, n) {
            return false;
        }
        for k in 0..n as u64 {
            let at = o + k;
            if let Some(p) = self.pages.get_mut(&(at / PAGE_SIZE)) {
                p[(at % PAGE_SIZE) as usize] = (v >> (8 * k)) as u8;
            }
        }
        true
    }

    /// A `BPF_PROBE_ATOMIC` read-modify-write: `f(old)` gives the new
    /// value; returns the old one, or `None` when it faulted (nothing is
    /// written, the fetch register keeps its value as the JIT's fixup
    /// leaves it).
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
        for p in pgoff..pgoff + cnt {
            self.pages.insert(p, vec![0u8; PAGE_SIZE as usize].into_boxed_slice());
        }
        let uaddr32 = (self.user_vm_start.wrapping_add(pgoff * PAGE_SIZE)) as u32;
        (self.user_vm_start & !0xffff_ffff) + uaddr32 as u64
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
    }
}
