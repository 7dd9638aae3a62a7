//! Maps with their kernel behaviour (`kernel/bpf/arraymap.c`, `hashtab.c`,
//! `ringbuf.c`, `queue_stack_maps.c`, `bloom_filter.c`), laid out in memory
//! the way 7.3's own code sees them, so that the verifier's inlined lookups
//! (`r1 += 296` for an array's values, `+ 48 + round_up(key_size, 8)` for a
//! hash element's) run unchanged on the same regions:
//!
//! * every map has an object region (`struct bpf_map`); an array's values
//!   follow its header at
//!   [`crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE`], a per-CPU array
//!   holds there one per-CPU pointer per element;
//! * a hash element is a region laid out as `struct htab_elem` (key at
//!   [`crate::kernel_layout::OFFSETOF_HTAB_ELEM_KEY`], value after the key
//!   rounded up to 8); per-CPU kinds hold the per-CPU pointer there. An
//!   update of an existing key takes a fresh element and keeps the old one
//!   alive (the kernel's per-CPU "extra" element), so a pointer from an
//!   earlier lookup still sees the old value, as on the kernel.
//!
//! * a `BPF_F_MMAPABLE` array's region is lazily populated
//!   ([`super::mem::Memory::alloc_lazy`]): a page of its values exists
//!   once a program, the syscall side or user space through
//!   [`Map::mmap`] writes it, so an array of gigabytes costs what is
//!   written of it ([`Map::resident_value_pages`]).
//!
//! There is one CPU (the 7.3 guests the model is checked against have
//! one), so per-CPU values have one
//! copy and `this_cpu_ptr` is the identity.

use std::collections::{HashMap, HashSet, VecDeque};

use super::mem::{Addr, Fault, Memory, RegionKind};
use crate::kernel_layout::{OFFSETOF_BPF_ARENA_USER_VM_END, OFFSETOF_BPF_ARENA_USER_VM_START, OFFSETOF_BPF_ARRAY_VALUE, OFFSETOF_BPF_MAP_MAX_ENTRIES};
use crate::map::MapDef;
use crate::map::types::*;

pub use super::htab::Hash;
/// The most slots a prog array of the model has.
pub const PROG_ARRAY_MAX_SLOTS: u32 = 1 << 20;
/// The size of a map object region for the map types with no inline data.
const MAP_OBJ_SIZE: usize = 296;
/// `BPF_RINGBUF_HDR_SZ`.
pub const RINGBUF_HDR_SZ: u64 = 8;
const RINGBUF_BUSY_BIT: u32 = 1 << 31;
const RINGBUF_DISCARD_BIT: u32 = 1 << 30;
/// CPUs the model has (`num_possible_cpus()`).
pub const NR_CPUS: u32 = 1;

pub const BPF_ANY: u64 = 0;
pub const BPF_NOEXIST: u64 = 1;
pub const BPF_EXIST: u64 = 2;
pub const BPF_F_LOCK: u64 = 4;

use crate::verifier::errno::*;

/// `-errno` as a helper's u64 return value.
pub fn neg(e: i32) -> u64 {
    (-(e as i64)) as u64
}

fn round8(n: u32) -> u64 {
    (n as u64).div_ceil(8) * 8
}

/// A map element as `bpf_for_each_map_elem` visits it: the key, the
/// address of the key inside the element (hash maps; arrays pass a copy)
/// and the value's address.
pub type Element = (Vec<u8>, Option<Addr>, Addr);

/// One map of a run.
#[derive(Clone, Debug)]
pub struct Map {
    pub def: MapDef,
    /// The map object (`struct bpf_map *`).
    pub addr: Addr,
    pub store: Store,
}

/// Where a map keeps its elements.
#[derive(Clone, Debug)]
pub enum Store {
    /// Values inline in the map region after [`OFFSETOF_BPF_ARRAY_VALUE`].
    Array {
        elem_size: u64,
    },
    /// Per-CPU pointers inline; values in one region of `elem_size` each.
    PercpuArray {
        elem_size: u64,
        values: Addr,
    },
    Hash(Box<Hash>),
    Ringbuf(Ringbuf),
    /// Queue (FIFO) or stack (LIFO) of values.
    Queue {
        items: VecDeque<Vec<u8>>,
        lifo: bool,
    },
    /// Exact membership (the kernel's may also answer "maybe" for absent
    /// values; the model never has false positives).
    Bloom {
        values: HashSet<Vec<u8>>,
    },
    /// Program indexes of the run (see [`super::Runtime::add_program`]).
    ProgArray {
        slots: Vec<Option<usize>>,
    },
    /// The storage of the test run's cgroup (`bpf_get_local_storage`).
    CgroupStorage {
        value: Addr,
    },
    /// Inner maps' pointers by key, for array/hash of maps (libbpf's
    /// initial slots; nothing else inserts one).
    MapOfMaps {
        slots: HashMap<Vec<u8>, Addr>,
    },
    /// A type the model creates but does not run yet.
    Unmodelled,
}

/// A BPF ring buffer with no consumer: records accumulate until full.
#[derive(Clone, Debug)]
pub struct Ringbuf {
    /// The data area (twice the ring so a record never wraps).
    pub data: Addr,
    pub size: u64,
    pub prod_pos: u64,
    pub cons_pos: u64,
    pub pending_pos: u64,
}

impl Map {
    /// Creates `def` in `mem` with its initial contents.
    pub fn create(mem: &mut Memory, def: &MapDef, index: usize) -> Result<Map, Fault> {
        let readonly = def.map_flags & crate::map::flags::BPF_F_RDONLY_PROG != 0;
        let (size, store) = match def.map_type {
            BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => {
                // a test run gives the program fresh, zeroed storage
                let value = mem.alloc(RegionKind::MapValues(index), vec![0; checked_len(round8(def.value_size))?], false)?;
                (MAP_OBJ_SIZE as u64, Store::CgroupStorage { value })
            }
            BPF_MAP_TYPE_ARRAY => {
                let elem_size = round8(def.value_size);
                let total = OFFSETOF_BPF_ARRAY_VALUE as u64 + elem_size * def.max_entries as u64;
                (total, Store::Array { elem_size })
            }
            BPF_MAP_TYPE_PERCPU_ARRAY => {
                let elem_size = round8(def.value_size);
                let values = mem.alloc(RegionKind::MapValues(index), vec![0; checked_len(elem_size * def.max_entries as u64)?], false)?;
                (OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * def.max_entries as u64, Store::PercpuArray { elem_size, values })
            }
            BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH => {
                let h = Hash::new(def.map_type, def.key_size, def.value_size, def.max_entries, def.map_flags, index);
                (MAP_OBJ_SIZE as u64, Store::Hash(Box::new(h)))
            }
            BPF_MAP_TYPE_RINGBUF => {
                let size = def.max_entries as u64;
                if !size.is_power_of_two() || size < 4096 {
                    // the kernel refuses to create it (EINVAL)
                    return Err(Fault { addr: 0, len: size, write: true, why: "ring buffer size is not a power-of-2 multiple of the page size" });
                }
                let data = mem.alloc(RegionKind::MapValues(index), vec![0; checked_len(2 * size)?], false)?;
                (MAP_OBJ_SIZE as u64, Store::Ringbuf(Ringbuf { data, size, prod_pos: 0, cons_pos: 0, pending_pos: 0 }))
            }
            BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK => (MAP_OBJ_SIZE as u64, Store::Queue { items: VecDeque::new(), lifo: def.map_type == BPF_MAP_TYPE_STACK }),
            BPF_MAP_TYPE_BLOOM_FILTER => (MAP_OBJ_SIZE as u64, Store::Bloom { values: HashSet::new() }),
            // laid out as `struct bpf_array`: `ptrs[]` where an array's
            // values are, read by the x86-64 JIT's inline tail call (the
            // runtime fills them for native runs)
            BPF_MAP_TYPE_PROG_ARRAY => (
                OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * u64::from(def.max_entries.min(PROG_ARRAY_MAX_SLOTS)),
                Store::ProgArray { slots: vec![None; def.max_entries.min(PROG_ARRAY_MAX_SLOTS) as usize] },
            ),
            // an array of maps keeps its inner maps' pointers (NULL but for
            // libbpf's initial slots) where an array keeps values, which
            // the inlined lookup (`array_of_map_gen_lookup`) reads
            BPF_MAP_TYPE_ARRAY_OF_MAPS => (OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * def.max_entries as u64, Store::MapOfMaps { slots: HashMap::new() }),
            BPF_MAP_TYPE_HASH_OF_MAPS => (MAP_OBJ_SIZE as u64, Store::MapOfMaps { slots: HashMap::new() }),
            _ => (MAP_OBJ_SIZE as u64, Store::Unmodelled),
        };
        let addr = if matches!(store, Store::Array { .. }) && def.map_flags & crate::map::flags::BPF_F_MMAPABLE != 0 {
            // what user space maps of it (7.3: a page at a time, as it is
            // touched) exists once written
            if size > super::mem::MAX_LAZY_REGION as u64 {
                return Err(Fault { addr: 0, len: size, write: true, why: "map larger than the model allows" });
            }
            mem.alloc_lazy(RegionKind::Map(index), size as usize, OFFSETOF_BPF_ARRAY_VALUE, readonly)?
        } else {
            mem.alloc(RegionKind::Map(index), vec![0; checked_len(size)?], readonly)?
        };
        let mut map = Map { def: def.clone(), addr, store };
        // every map's struct bpf_map has its max_entries (the tail call
        // bound, and what programs read of a map pointer)
        if size >= OFFSETOF_BPF_MAP_MAX_ENTRIES as u64 + 4 {
            mem.store_kernel(addr + OFFSETOF_BPF_MAP_MAX_ENTRIES as u64, 4, u64::from(def.max_entries))?;
        }
        // an arena's user address range (`arena_base()` reads the start)
        if def.map_type == crate::map::types::BPF_MAP_TYPE_ARENA && size >= OFFSETOF_BPF_ARENA_USER_VM_END as u64 + 8 {
            let start = crate::verifier::map_create::loader_map_extra(def);
            mem.store_kernel(addr + OFFSETOF_BPF_ARENA_USER_VM_START as u64, 8, start)?;
            mem.store_kernel(addr + OFFSETOF_BPF_ARENA_USER_VM_END as u64, 8, start + u64::from(def.max_entries) * crate::target::PAGE_SIZE)?;
        }
        if let Store::PercpuArray { elem_size, values } = map.store {
            for i in 0..def.max_entries as u64 {
                mem.store_kernel(addr + OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * i, 8, values + elem_size * i)?;
            }
        }
        for (k, v) in &def.init {
            // initial contents come from the syscall side; a failed update
            // (bad key) is the loader's business, not the run's
            let _ = map.update_from_syscall(mem, k, v);
        }
        Ok(map)
    }

    /// `bpf_map_update_elem(2)` from user space (initial contents).
    fn update_from_syscall(&mut self, mem: &mut Memory, key: &[u8], value: &[u8]) -> Result<(), Fault> {
        match self.store {
            Store::Array { .. } | Store::PercpuArray { .. } => {
                if let Some(at) = self.array_value(mem, key)? {
                    let n = value.len().min(self.def.value_size as usize);
                    mem.write_kernel(at, &value[..n])?;
                }
                Ok(())
            }
            _ => self.update(mem, key, value, BPF_ANY).map(|_| ()),
        }
    }

    fn key_index(key: &[u8]) -> u32 {
        let mut b = [0u8; 4];
        let n = key.len().min(4);
        b[..n].copy_from_slice(&key[..n]);
        u32::from_le_bytes(b)
    }

    /// The value address of an array element, `None` when out of range.
    fn array_value(&self, mem: &Memory, key: &[u8]) -> Result<Option<Addr>, Fault> {
        let i = Self::key_index(key) as u64;
        if i >= self.def.max_entries as u64 {
            return Ok(None);
        }
        Ok(match self.store {
            Store::Array { elem_size } => Some(self.addr + OFFSETOF_BPF_ARRAY_VALUE as u64 + elem_size * i),
            Store::PercpuArray { .. } => Some(mem.load(self.addr + OFFSETOF_BPF_ARRAY_VALUE as u64 + 8 * i, 8)?),
            _ => None,
        })
    }

    /// `map_lookup_elem`: the value's address or 0.
    pub fn lookup(&mut self, mem: &mut Memory, key: &[u8]) -> Result<Addr, Fault> {
        match &mut self.store {
            Store::Array { .. } | Store::PercpuArray { .. } => Ok(self.array_value(mem, key)?.unwrap_or(0)),
            Store::Hash(h) => h.lookup(mem, key),
            // array_of_map_lookup_elem reads the slot's pointer; a hash of
            // maps answers from its initial slots
            Store::MapOfMaps { slots } => Ok(slots.get(key).copied().unwrap_or(0)),
            _ => Ok(0),
        }
    }

    /// `map_update_elem`: 0 or a negative errno.
    pub fn update(&mut self, mem: &mut Memory, key: &[u8], value: &[u8], flags: u64) -> Result<u64, Fault> {
        let vsize = self.def.value_size as usize;
        let value = &value[..value.len().min(vsize)];
        if let Store::Queue { .. } | Store::Bloom { .. } = self.store {
            return self.push(value, flags);
        }
        if let Store::Hash(h) = &mut self.store {
            return h.update(mem, key, value, flags);
        }
        if (flags & !BPF_F_LOCK) > BPF_EXIST {
            return Ok(neg(EINVAL));
        }
        // no map BTF in the model, so never a spin lock in the value
        if flags & BPF_F_LOCK != 0 && matches!(self.store, Store::Array { .. } | Store::PercpuArray { .. } | Store::Hash(_)) {
            return Ok(neg(EINVAL));
        }
        match self.store {
            Store::Array { .. } | Store::PercpuArray { .. } => {
                let Some(at) = self.array_value(mem, key)? else {
                    return Ok(neg(E2BIG));
                };
                if flags & BPF_NOEXIST != 0 {
                    return Ok(neg(EEXIST));
                }
                mem.write_kernel(at, value)?;
                Ok(0)
            }
            Store::MapOfMaps { .. } | Store::ProgArray { .. } => Ok(neg(EOPNOTSUPP)),
            _ => Ok(neg(EOPNOTSUPP)),
        }
    }

    /// `map_delete_elem`: 0 or a negative errno.
    pub fn delete(&mut self, key: &[u8]) -> u64 {
        match &mut self.store {
            Store::Array { .. } | Store::PercpuArray { .. } => neg(EINVAL),
            Store::Hash(h) => h.delete(key),
            Store::MapOfMaps { slots } => {
                if slots.remove(key).is_some() {
                    0
                } else {
                    neg(ENOENT)
                }
            }
            _ => neg(EINVAL),
        }
    }

    /// `map_push_elem` (queue, stack, bloom filter).
    pub fn push(&mut self, value: &[u8], flags: u64) -> Result<u64, Fault> {
        let max = self.def.max_entries as usize;
        match &mut self.store {
            Store::Queue { items, .. } => {
                if flags & BPF_NOEXIST != 0 || flags > BPF_EXIST {
                    return Ok(neg(EINVAL));
                }
                if items.len() >= max {
                    if flags & BPF_EXIST == 0 {
                        return Ok(neg(E2BIG));
                    }
                    // BPF_EXIST overwrites the oldest, for queues and stacks
                    items.pop_front();
                }
                items.push_back(value.to_vec());
                Ok(0)
            }
            Store::Bloom { values } => {
                if flags != BPF_ANY {
                    return Ok(neg(EINVAL));
                }
                values.insert(value.to_vec());
                Ok(0)
            }
            _ => Ok(neg(EINVAL)),
        }
    }

    /// `map_pop_elem` / `map_peek_elem`: the value, or the negative errno.
    pub fn pop(&mut self, peek: bool) -> Result<Vec<u8>, u64> {
        match &mut self.store {
            Store::Queue { items, lifo } => {
                let v = if *lifo {
                    if peek { items.back().cloned() } else { items.pop_back() }
                } else if peek {
                    items.front().cloned()
                } else {
                    items.pop_front()
                };
                v.ok_or(neg(ENOENT))
            }
            _ => Err(neg(EINVAL)),
        }
    }

    /// Bloom filter `map_peek_elem`: 0 when maybe present, else -ENOENT.
    pub fn bloom_check(&self, value: &[u8]) -> u64 {
        match &self.store {
            Store::Bloom { values } if values.contains(value) => 0,
            _ => neg(ENOENT),
        }
    }

    /// What `bpf_for_each_map_elem` visits, in order: each key, the
    /// address of the key inside the element (hash maps) and of the value.
    pub fn elements(&self, mem: &Memory) -> Result<Vec<Element>, Fault> {
        match &self.store {
            Store::Array { .. } | Store::PercpuArray { .. } => (0..self.def.max_entries)
                .map(|i| {
                    let k = i.to_le_bytes().to_vec();
                    let v = self.array_value(mem, &k)?.unwrap_or(0);
                    Ok((k, None, v))
                })
                .collect(),
            Store::Hash(h) => h.elements(mem),
            _ => Ok(Vec::new()),
        }
    }

    /// Whether `key` is still in a hash map (for_each skips deleted ones).
    pub fn contains(&self, key: &[u8]) -> bool {
        match &self.store {
            Store::Hash(h) => h.contains(key),
            _ => true,
        }
    }

    /// `bpf_ringbuf_reserve`: the record's data address, or 0.
    pub fn ringbuf_reserve(&mut self, mem: &mut Memory, size: u64) -> Result<Addr, Fault> {
        let Store::Ringbuf(rb) = &mut self.store else {
            return Ok(0);
        };
        if size > (u32::MAX / 4) as u64 {
            return Ok(0);
        }
        let len = (size + RINGBUF_HDR_SZ).div_ceil(8) * 8;
        if len > rb.size {
            return Ok(0);
        }
        // skip committed records at the pending position
        while rb.prod_pos > rb.pending_pos {
            let hdr = mem.load(rb.data + (rb.pending_pos & (rb.size - 1)), 4)? as u32;
            if hdr & RINGBUF_BUSY_BIT != 0 {
                break;
            }
            rb.pending_pos += ((hdr & !(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT)) as u64 + RINGBUF_HDR_SZ).div_ceil(8) * 8;
        }
        let mask = rb.size - 1;
        let new_prod = rb.prod_pos + len;
        if new_prod - rb.pending_pos > mask || new_prod - rb.cons_pos > mask {
            return Ok(0);
        }
        let hdr = rb.data + (rb.prod_pos & mask);
        mem.store_kernel(hdr, 4, (size as u32 | RINGBUF_BUSY_BIT) as u64)?;
        mem.store_kernel(hdr + 4, 4, 0)?;
        rb.prod_pos = new_prod;
        Ok(hdr + RINGBUF_HDR_SZ)
    }

    /// `bpf_ringbuf_query`.
    pub fn ringbuf_query(&self, flags: u64) -> u64 {
        let Store::Ringbuf(rb) = &self.store else {
            return 0;
        };
        match flags {
            0 => rb.prod_pos - rb.cons_pos,
            1 => rb.size,
            2 => rb.cons_pos,
            3 => rb.prod_pos,
            _ => 0,
        }
    }
}

/// Why user space cannot map a map ([`Map::mmap`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MmapError {
    /// The errno `mmap(2)` fails with on 7.3.
    Errno(i32),
    /// A map 7.3 maps that the model does not (ring buffers, arenas).
    NotModelled(&'static str),
}

/// User space's shared mapping of a map's values (`mmap(2)` of the map
/// fd, as libbpf maps `.data`/`.bss` and skeletons an mmap-able array):
/// byte 0 is the first byte of value page `pgoff`. Reads and writes go
/// to the map's own memory ([`Memory::read_mapped`],
/// [`Memory::write_mapped`]), so programs see what user space wrote and
/// the other way round; a page is created when written, a page never
/// written reads as zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapMmap {
    /// The address of the mapping's first byte.
    pub addr: Addr,
    /// Its length, whole pages.
    pub len: u64,
    pub writable: bool,
}

impl MapMmap {
    fn range(&self, off: u64, len: u64, write: bool) -> Result<Addr, Fault> {
        let fault = |why| Fault { addr: self.addr.wrapping_add(off), len, write, why };
        if off.checked_add(len).is_none_or(|end| end > self.len) {
            // user space would take SIGBUS/SIGSEGV
            return Err(fault("outside the mapping"));
        }
        if write && !self.writable {
            return Err(fault("write to a read-only mapping"));
        }
        Ok(self.addr + off)
    }

    /// `len` bytes at offset `off` of the mapping.
    pub fn read(&self, mem: &Memory, off: u64, len: usize) -> Result<Vec<u8>, Fault> {
        mem.read_mapped(self.range(off, len as u64, false)?, len)
    }

    /// Stores `bytes` at offset `off` of the mapping (a writable one).
    pub fn write(&self, mem: &mut Memory, off: u64, bytes: &[u8]) -> Result<(), Fault> {
        mem.write_mapped(self.range(off, bytes.len() as u64, true)?, bytes)
    }
}

impl Map {
    /// `mmap(2)` of the map's fd, shared, `len` bytes from value page
    /// `pgoff`, with `PROT_WRITE` when `writable`: `bpf_map_mmap`'s and
    /// `array_map_mmap`'s checks (only `BPF_F_MMAPABLE` arrays; not
    /// writable once frozen or when `BPF_F_RDONLY_PROG`; within the values
    /// rounded up to a page). A map whose value BTF has special fields
    /// (`map->record`: spin locks, timers, kptrs) is refused by 7.3 with
    /// `ENOTSUPP`; the model's runtime does not hold that record, so the
    /// caller must not ask for such a map. The mapping populates nothing:
    /// pages come into being as they are written.
    pub fn mmap(&self, pgoff: u64, len: u64, writable: bool) -> Result<MapMmap, MmapError> {
        const ENOTSUPP: i32 = 524;
        const EOVERFLOW: i32 = 75;
        let page = crate::target::PAGE_SIZE;
        // do_mmap: no empty mapping, an offset in pages that fits
        let len = len.div_ceil(page) * page;
        if len == 0 {
            return Err(MmapError::Errno(EINVAL));
        }
        let start = pgoff.checked_mul(page).filter(|s| s.checked_add(len).is_some()).ok_or(MmapError::Errno(EOVERFLOW))?;
        let elem_size = match self.store {
            Store::Array { elem_size } => elem_size,
            Store::Ringbuf(_) => return Err(MmapError::NotModelled("mmap of a ring buffer")),
            _ if self.def.map_type == BPF_MAP_TYPE_ARENA || self.def.map_type == BPF_MAP_TYPE_USER_RINGBUF => {
                return Err(MmapError::NotModelled("mmap of an arena or user ring buffer"));
            }
            // no map_mmap op
            _ => return Err(MmapError::Errno(ENOTSUPP)),
        };
        if writable {
            if self.def.frozen {
                return Err(MmapError::Errno(EPERM));
            }
            if self.def.map_flags & crate::map::flags::BPF_F_RDONLY_PROG != 0 {
                return Err(MmapError::Errno(EACCES));
            }
        }
        // array_map_mmap
        if self.def.map_flags & crate::map::flags::BPF_F_MMAPABLE == 0 {
            return Err(MmapError::Errno(EINVAL));
        }
        let values = (u64::from(self.def.max_entries) * elem_size).div_ceil(page) * page;
        if start + len > values {
            return Err(MmapError::Errno(EINVAL));
        }
        Ok(MapMmap { addr: self.addr + OFFSETOF_BPF_ARRAY_VALUE as u64 + start, len, writable })
    }

    /// How many pages of the map's values exist: of an mmap-able array
    /// those written so far (its object's page, the `struct bpf_array`
    /// before the values, is not counted), of any other array all of
    /// them; 0 for other maps.
    pub fn resident_value_pages(&self, mem: &Memory) -> u64 {
        match self.store {
            Store::Array { elem_size } => {
                let values = elem_size * u64::from(self.def.max_entries);
                mem.resident_pages(self.addr + OFFSETOF_BPF_ARRAY_VALUE as u64, values).unwrap_or(0)
            }
            _ => 0,
        }
    }
}

/// `bpf_ringbuf_submit` / `discard` of the record whose data is at `sample`.
pub fn ringbuf_commit(mem: &mut Memory, sample: Addr, discard: bool) -> Result<(), Fault> {
    let hdr = sample.wrapping_sub(RINGBUF_HDR_SZ);
    let len = mem.load(hdr, 4)? as u32;
    let mut new_len = len ^ RINGBUF_BUSY_BIT;
    if discard {
        new_len |= RINGBUF_DISCARD_BIT;
    }
    mem.store_kernel(hdr, 4, new_len as u64)
}

fn checked_len(n: u64) -> Result<usize, Fault> {
    if n > super::mem::MAX_REGION as u64 {
        return Err(Fault { addr: 0, len: n, write: true, why: "map larger than the model allows" });
    }
    Ok(n as usize)
}
