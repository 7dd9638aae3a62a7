//! Hash maps (kernel/bpf/hashtab.c): hash, per-CPU hash, LRU hash and LRU
//! per-CPU hash, with their update flags, their size limits and the element
//! reuse a program can observe through pointers it still holds:
//!
//! * preallocated hash: updating an existing key takes the CPU's spare
//!   element and makes the old one the spare, so an earlier lookup's
//!   pointer keeps the old value until the next such update; deleted
//!   elements go back to a LIFO free list;
//! * `BPF_F_NO_PREALLOC`: fresh elements, the old ones stay as they were;
//! * per-CPU kinds update an existing element in place;
//! * LRU kinds take their element from the LRU lists ([`super::lru`]),
//!   which may evict another key, before the flags are even checked.
//!
//! Each element is a region laid out as `struct htab_elem`: the key at
//! [`OFFSETOF_HTAB_ELEM_KEY`], then the value (or, for per-CPU kinds, the
//! per-CPU pointer) after the key rounded up to 8 bytes.

use std::collections::{BTreeMap, HashMap};

use super::lru::Lru;
use super::maps::{BPF_EXIST, BPF_F_LOCK, BPF_NOEXIST, Element, neg};
use super::mem::{Addr, Fault, Memory, RegionKind};
use crate::kernel_layout::OFFSETOF_HTAB_ELEM_KEY;
use crate::map::flags::{BPF_F_NO_COMMON_LRU, BPF_F_NO_PREALLOC};
use crate::verifier::errno::*;

fn round8(n: u32) -> u64 {
    (n as u64).div_ceil(8) * 8
}

#[derive(Clone, Debug)]
struct Entry {
    /// Insertion number: iteration order.
    seq: u64,
    elem: Addr,
    /// The LRU node of the element.
    node: Option<usize>,
}

/// The keys in the table.
#[derive(Clone, Debug, Default)]
struct Table {
    seq: u64,
    order: BTreeMap<u64, Vec<u8>>,
    index: HashMap<Vec<u8>, Entry>,
    /// LRU: the key each node's element holds while it is in the table.
    node_key: Vec<Option<Vec<u8>>>,
}

impl Table {
    fn insert(&mut self, key: &[u8], elem: Addr, node: Option<usize>) {
        self.seq += 1;
        if let Some(old) = self.index.insert(key.to_vec(), Entry { seq: self.seq, elem, node }) {
            self.order.remove(&old.seq);
        }
        self.order.insert(self.seq, key.to_vec());
        if let Some(k) = node.and_then(|n| self.node_key.get_mut(n)) {
            *k = Some(key.to_vec());
        }
    }

    fn remove(&mut self, key: &[u8]) -> Option<Entry> {
        let e = self.index.remove(key)?;
        self.order.remove(&e.seq);
        if let Some(k) = e.node.and_then(|n| self.node_key.get_mut(n)) {
            *k = None;
        }
        Some(e)
    }

    /// `htab_lru_map_delete_node`: unlinks the node's element if it is in
    /// the table.
    fn del_node(&mut self, node: usize) -> bool {
        match self.node_key.get(node).cloned().flatten() {
            Some(k) if self.index.get(&k).is_some_and(|e| e.node == Some(node)) => {
                self.remove(&k);
                true
            }
            _ => false,
        }
    }
}

/// A hash-like map.
#[derive(Clone, Debug)]
pub struct Hash {
    pub percpu: bool,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    prealloc: bool,
    map_index: usize,
    table: Table,
    lru: Option<Lru>,
    /// LRU: each node's element, allocated when the node is first used.
    node_elem: Vec<Option<Addr>>,
    /// Deleted elements (preallocated maps), reused last-in first-out.
    free: Vec<Addr>,
    /// The CPU's spare element (`extra_elems`).
    extra: Option<Addr>,
}

impl Hash {
    pub fn new(map_type: u32, key_size: u32, value_size: u32, max_entries: u32, flags: u32, map_index: usize) -> Hash {
        use crate::map::types::*;
        let percpu = matches!(map_type, BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH);
        let is_lru = matches!(map_type, BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH);
        let n = if is_lru { max_entries.min(1 << 20) as usize } else { 0 };
        Hash {
            percpu,
            key_size,
            value_size,
            max_entries,
            prealloc: flags & BPF_F_NO_PREALLOC == 0,
            map_index,
            table: Table { node_key: vec![None; n], ..Table::default() },
            lru: is_lru.then(|| Lru::new(n, flags & BPF_F_NO_COMMON_LRU != 0)),
            node_elem: vec![None; n],
            free: Vec::new(),
            extra: None,
        }
    }

    fn value_off(&self) -> u64 {
        OFFSETOF_HTAB_ELEM_KEY as u64 + round8(self.key_size)
    }

    /// A new element region (with its per-CPU value region).
    fn alloc_elem(&self, mem: &mut Memory) -> Result<Addr, Fault> {
        let size = self.value_off() + if self.percpu { 8 } else { round8(self.value_size) };
        let elem = mem.alloc(RegionKind::MapElem(self.map_index), vec![0; size as usize], false)?;
        if self.percpu {
            let pcpu = mem.alloc(RegionKind::MapValues(self.map_index), vec![0; round8(self.value_size) as usize], false)?;
            mem.store_kernel(elem + self.value_off(), 8, pcpu)?;
        }
        Ok(elem)
    }

    fn lru_elem(&mut self, mem: &mut Memory, node: usize) -> Result<Addr, Fault> {
        if let Some(Some(e)) = self.node_elem.get(node) {
            return Ok(*e);
        }
        let e = self.alloc_elem(mem)?;
        if let Some(slot) = self.node_elem.get_mut(node) {
            *slot = Some(e);
        }
        Ok(e)
    }

    /// The value's address in an element.
    pub fn value_addr(&self, mem: &Memory, elem: Addr) -> Result<Addr, Fault> {
        let at = elem + self.value_off();
        if self.percpu { mem.load(at, 8) } else { Ok(at) }
    }

    /// Writes key and value into an element.
    fn fill(&self, mem: &mut Memory, elem: Addr, key: &[u8], value: &[u8]) -> Result<(), Fault> {
        mem.write_kernel(elem + OFFSETOF_HTAB_ELEM_KEY as u64, key)?;
        let v = self.value_addr(mem, elem)?;
        mem.write_kernel(v, value)
    }

    /// `map_lookup_elem` from a program: the value's address or 0; an LRU
    /// element gets its reference bit.
    pub fn lookup(&mut self, mem: &Memory, key: &[u8]) -> Result<Addr, Fault> {
        let Some(e) = self.table.index.get(key) else {
            return Ok(0);
        };
        let (elem, node) = (e.elem, e.node);
        if let (Some(lru), Some(n)) = (self.lru.as_mut(), node) {
            lru.set_ref(n);
        }
        self.value_addr(mem, elem)
    }

    /// `__htab_map_lookup_elem`: the element of `key` or 0 (no reference
    /// bit: the inlined LRU lookup sets it itself).
    pub fn elem_of(&self, key: &[u8]) -> Addr {
        self.table.index.get(key).map_or(0, |e| e.elem)
    }

    /// `__htab_map_lookup_elem` followed by the inlined LRU lookup's
    /// `bpf_lru_node_set_ref` (`htab_lru_map_gen_lookup` sets the node's
    /// `ref` byte, which the model keeps in its LRU lists, not in the
    /// element's bytes): what an xlated program's lookup does.
    pub fn elem_of_touched(&mut self, key: &[u8]) -> Addr {
        let Some(e) = self.table.index.get(key) else { return 0 };
        let (elem, node) = (e.elem, e.node);
        if let (Some(lru), Some(n)) = (self.lru.as_mut(), node) {
            lru.set_ref(n);
        }
        elem
    }

    /// `map_update_elem`: 0 or a negative errno.
    pub fn update(&mut self, mem: &mut Memory, key: &[u8], value: &[u8], flags: u64) -> Result<u64, Fault> {
        if self.lru.is_some() {
            return self.lru_update(mem, key, value, flags);
        }
        if (flags & !BPF_F_LOCK) > BPF_EXIST || (self.percpu && flags > BPF_EXIST) {
            return Ok(neg(EINVAL));
        }
        // no map BTF in the model, so never a spin lock in the value
        if flags & BPF_F_LOCK != 0 {
            return Ok(neg(EINVAL));
        }
        let old = self.table.index.get(key).map(|e| e.elem);
        if let Some(e) = check_flags(old.is_some(), flags) {
            return Ok(e);
        }
        if let Some(elem) = old.filter(|_| self.percpu) {
            // per-CPU values are updated in place
            let v = self.value_addr(mem, elem)?;
            mem.write_kernel(v, value)?;
            return Ok(0);
        }
        if old.is_none() && self.table.index.len() >= self.max_entries as usize {
            return Ok(neg(E2BIG));
        }
        let elem = match (self.prealloc, old) {
            (true, Some(_)) => match self.extra.take() {
                Some(e) => e,
                None => self.alloc_elem(mem)?,
            },
            (true, None) => match self.free.pop() {
                Some(e) => e,
                None => self.alloc_elem(mem)?,
            },
            (false, _) => self.alloc_elem(mem)?,
        };
        self.fill(mem, elem, key, value)?;
        self.table.insert(key, elem, None);
        if self.prealloc {
            self.extra = old.or(self.extra);
        }
        Ok(0)
    }

    /// `htab_lru_map_update_elem` and `__htab_lru_percpu_map_update_elem`.
    fn lru_update(&mut self, mem: &mut Memory, key: &[u8], value: &[u8], flags: u64) -> Result<u64, Fault> {
        if flags > BPF_EXIST {
            return Ok(neg(EINVAL));
        }
        let Some(mut lru) = self.lru.take() else {
            return Ok(neg(EINVAL));
        };
        let r = self.lru_update_with(&mut lru, mem, key, value, flags);
        self.lru = Some(lru);
        r
    }

    fn lru_update_with(&mut self, lru: &mut Lru, mem: &mut Memory, key: &[u8], value: &[u8], flags: u64) -> Result<u64, Fault> {
        // the node is taken (maybe evicting) before the flags are checked,
        // except that a per-CPU update of an existing key takes none
        let new = if self.percpu && flags == BPF_EXIST {
            None
        } else {
            let table = &mut self.table;
            match lru.pop_free(&mut |n| table.del_node(n)) {
                Some(n) => Some(n),
                None => return Ok(neg(ENOMEM)),
            }
        };
        let new_elem = match new {
            Some(n) => {
                let e = self.lru_elem(mem, n)?;
                mem.write_kernel(e + OFFSETOF_HTAB_ELEM_KEY as u64, key)?;
                if !self.percpu {
                    mem.write_kernel(e + self.value_off(), value)?;
                }
                Some(e)
            }
            None => None,
        };
        let old = self.table.index.get(key).map(|e| (e.elem, e.node));
        if let Some(e) = check_flags(old.is_some(), flags) {
            if let Some(n) = new {
                lru.push_free(n);
            }
            return Ok(e);
        }
        match (old, new, new_elem) {
            (Some((elem, Some(n))), _, _) if self.percpu => {
                lru.set_ref(n);
                let v = self.value_addr(mem, elem)?;
                mem.write_kernel(v, value)?;
                if let Some(unused) = new {
                    lru.push_free(unused);
                }
            }
            (old, Some(n), Some(e)) => {
                if self.percpu {
                    let v = self.value_addr(mem, e)?;
                    mem.write_kernel(v, value)?;
                }
                self.table.insert(key, e, Some(n));
                if let Some((_, Some(old_node))) = old {
                    lru.set_ref(n);
                    if let Some(k) = self.table.node_key.get_mut(old_node) {
                        *k = None;
                    }
                    lru.push_free(old_node);
                }
            }
            _ => {}
        }
        Ok(0)
    }

    /// `map_delete_elem`: 0 or -ENOENT.
    pub fn delete(&mut self, key: &[u8]) -> u64 {
        let Some(e) = self.table.remove(key) else {
            return neg(ENOENT);
        };
        match (self.lru.as_mut(), e.node) {
            (Some(lru), Some(n)) => lru.push_free(n),
            _ if self.prealloc => self.free.push(e.elem),
            _ => {}
        }
        0
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.table.index.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.table.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.index.is_empty()
    }

    /// The elements in iteration order.
    pub fn elements(&self, mem: &Memory) -> Result<Vec<Element>, Fault> {
        self.table
            .order
            .values()
            .filter_map(|k| self.table.index.get(k).map(|e| (k, e.elem)))
            .map(|(k, elem)| Ok((k.clone(), Some(elem + OFFSETOF_HTAB_ELEM_KEY as u64), self.value_addr(mem, elem)?)))
            .collect()
    }
}

/// `check_flags`: the errno of an update that the key's presence refuses.
fn check_flags(exists: bool, flags: u64) -> Option<u64> {
    match flags & !BPF_F_LOCK {
        BPF_NOEXIST if exists => Some(neg(EEXIST)),
        BPF_EXIST if !exists => Some(neg(ENOENT)),
        _ => None,
    }
}
