//! `BPF_MAP_CREATE` as Linux 7.3 validates it: `map_create_alloc()` in
//! `kernel/bpf/syscall.c`, then the map type's `map_alloc_check` and the
//! checks at the top of its `map_alloc` (`array_map_alloc_check`,
//! `htab_map_alloc_check`, `trie_alloc`, `ringbuf_map_alloc`, ...).
//!
//! A loader refuses a load whose maps 7.3 would not create, with
//! the kernel's errno. What is not decided here: memory exhaustion below
//! `kvmalloc`'s `INT_MAX` bound (the allocations themselves), the
//! BTF-only types (the local storages and `struct_ops`, refused as 7.3
//! refuses them without BTF; other maps' BTF is checked, `map_check_btf`),
//! tokens, and `unprivileged_bpf_disabled` (0 on the
//! project's kernels). The sockmap/sockhash/xskmap checks live in
//! `net/`, outside the 7.3 source the project reads; they follow those
//! files' long-stable rules.

use super::errno::*;
use super::maps::MapRecord;
use crate::btf::*;
use crate::kernel_layout::{SIZEOF_BUCKET, SIZEOF_HTAB_ELEM};
use crate::map::MapDef;
use crate::map::flags::*;
use crate::map::types::*;
use crate::target::PAGE_SIZE;
use crate::uapi::{bpf_cgroup_storage_key, bpf_insn_array_value, bpf_stack_build_id};

/// Who creates the map: the capabilities the checks ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MapCreateCaps {
    /// `CAP_BPF` (or `CAP_SYS_ADMIN`, which implies it).
    pub bpf: bool,
    pub net_admin: bool,
    pub sys_admin: bool,
    /// `CAP_PERFMON`: with it arrays are not padded against Spectre v1
    /// (`bpf_bypass_spec_v1`).
    pub perfmon: bool,
}

/// `BPF_F_ACCESS_MASK`.
const BPF_F_ACCESS_MASK: u32 = BPF_F_RDONLY | BPF_F_RDONLY_PROG | BPF_F_WRONLY | BPF_F_WRONLY_PROG;
/// `KMALLOC_MAX_SIZE` with 4K pages and `MAX_PAGE_ORDER` 10 (both arches).
const KMALLOC_MAX_SIZE: u64 = 1 << 22;
/// `PCPU_MIN_UNIT_SIZE`.
const PCPU_MIN_UNIT_SIZE: u64 = 32 << 10;
/// `sysctl_perf_event_max_stack`'s default.
const PERF_EVENT_MAX_STACK: u32 = 127;
/// `kvmalloc` refuses anything larger.
const KVMALLOC_MAX: u64 = i32::MAX as u64;
/// `ARRAY_SIZE(bpf_map_types)`: the last type is `BPF_MAP_TYPE_RHASH`.
const NR_MAP_TYPES: u32 = BPF_MAP_TYPE_RHASH + 1;

/// `bpf_map_flags_access_ok`: a program cannot be both read- and
/// write-only.
fn bpf_map_flags_access_ok(flags: u32) -> bool {
    flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) != BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG
}

fn round_up8(v: u32) -> u64 {
    (v as u64).div_ceil(8) * 8
}

/// The attributes of one `BPF_MAP_CREATE` (the fields the project's
/// loaders set).
#[derive(Clone, Copy, Debug)]
pub struct MapCreateAttr<'a> {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    pub map_extra: u64,
    /// The map behind `inner_map_fd`, already created.
    pub inner: Option<&'a MapDef>,
    /// Whether the arch's JIT supports arenas (`bpf_jit_supports_arena`).
    pub jit_supports_arena: bool,
    /// `NR_CPUS` of the kernel configuration.
    pub nr_cpus: u32,
    /// `btf_fd`'s BTF with `btf_key_type_id` and `btf_value_type_id`
    /// (`None`: created without BTF).
    pub btf: Option<MapBtf<'a>>,
}

/// The BTF a map is created with: `btf_fd`'s BTF and the key's and
/// value's type ids in it (0: none).
#[derive(Clone, Copy, Debug)]
pub struct MapBtf<'a> {
    pub btf: &'a Btf,
    pub key_type_id: u32,
    pub value_type_id: u32,
}

impl<'a> MapCreateAttr<'a> {
    /// The attributes a loader passes for `def`.
    pub fn from_def(def: &'a MapDef, arch: crate::target::Arch) -> MapCreateAttr<'a> {
        use crate::target::Arch;
        MapCreateAttr {
            map_type: def.map_type,
            key_size: def.key_size,
            value_size: def.value_size,
            max_entries: def.max_entries,
            map_flags: def.map_flags,
            map_extra: loader_map_extra(def),
            inner: def.inner.as_deref(),
            jit_supports_arena: matches!(arch, Arch::X86_64 | Arch::Arm64 | Arch::Riscv64),
            nr_cpus: if arch == Arch::X86_64 { 8192 } else { 512 },
            btf: None,
        }
    }
}

/// `map_create_alloc`: `Ok` when 7.3 creates the map, else its errno
/// (positive).
pub fn map_create(attr: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    map_create_alloc(attr, caps).map(|_| ())
}

/// [`map_create`], with the map's record: `None` for a map without BTF,
/// else what [`map_check_btf`] found.
pub fn map_create_alloc(attr: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<Option<MapRecord>, i32> {
    // BPF_F_TOKEN_FD is taken off before the per-type checks
    let token_flag = attr.map_flags & BPF_F_TOKEN_FD != 0;
    let attr = &MapCreateAttr { map_flags: attr.map_flags & !BPF_F_TOKEN_FD, ..*attr };
    if !matches!(attr.map_type, BPF_MAP_TYPE_BLOOM_FILTER | BPF_MAP_TYPE_ARENA | BPF_MAP_TYPE_RHASH) && attr.map_extra != 0 {
        // "Invalid map_extra."
        return Err(EINVAL);
    }
    if attr.map_type >= NR_MAP_TYPES || attr.map_type == 0 {
        // "Invalid map_type.", or no ops for BPF_MAP_TYPE_UNSPEC
        return Err(EINVAL);
    }
    map_alloc_check(attr, caps)?;
    if token_flag {
        // the loaders pass no token: fd 0 is not one
        return Err(EINVAL);
    }
    map_type_capable(attr.map_type, caps)?;
    map_alloc(attr, caps)?;
    let record = match attr.btf {
        // (a key type without a value type: BTF kept, nothing checked)
        Some(b) if b.value_type_id == 0 => Some(MapRecord::default()),
        Some(b) => Some(map_check_btf(attr, b, caps)?),
        None => None,
    };
    // bpf_get_file_flag, after the map exists
    if attr.map_flags & BPF_F_RDONLY != 0 && attr.map_flags & BPF_F_WRONLY != 0 {
        return Err(EINVAL);
    }
    Ok(record)
}

/// `map_create` for a map of a load: its inner map first, as the loaders
/// create it.
pub fn map_create_def(def: &MapDef, arch: crate::target::Arch, caps: MapCreateCaps) -> Result<(), i32> {
    if let Some(inner) = &def.inner {
        map_create(&MapCreateAttr::from_def(inner, arch), caps)?;
    }
    map_create(&MapCreateAttr::from_def(def, arch), caps)
}

/// The special fields a map value may hold (`map_check_btf`'s mask).
const MAP_VALUE_FIELDS: u32 =
    BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK | BPF_TIMER | BPF_KPTR | BPF_LIST_HEAD | BPF_RB_ROOT | BPF_REFCOUNT | BPF_WORKQUEUE | BPF_UPTR | BPF_TASK_WORK;

/// `map_check_btf`: the key and value types must have the map's sizes;
/// the value's special fields (`btf_parse_fields`) must suit the map type
/// and its flags; then the type's own `map_check_btf`. A value whose
/// fields do not parse leaves the map created with no usable record (the
/// kernel keeps the error as the record and checks nothing more of it).
/// `btf_parse_kptr`'s lookup of a kptr's type in the kernel's BTF and its
/// destructor is taken to succeed.
pub fn map_check_btf(attr: &MapCreateAttr<'_>, b: MapBtf<'_>, caps: MapCreateCaps) -> Result<MapRecord, i32> {
    let btf = b.btf;
    let key_type = if b.key_type_id != 0 {
        match btf.btf_type_id_size(b.key_type_id) {
            Some((id, size)) if size == attr.key_size => Some(id),
            _ => return Err(EINVAL),
        }
    } else {
        if !has_map_check_btf(attr.map_type) {
            return Err(EINVAL);
        }
        None
    };
    let value_type = match btf.btf_type_id_size(b.value_type_id) {
        Some((id, size)) if size == attr.value_size => id,
        _ => return Err(EINVAL),
    };
    let record = btf.btf_parse_fields(value_type, MAP_VALUE_FIELDS, attr.value_size).ok().flatten();
    if let Some(rec) = &record {
        if !(caps.bpf || caps.sys_admin) {
            return Err(EPERM);
        }
        if attr.map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) != 0 {
            return Err(EACCES);
        }
        for bit in 0..32 {
            let field = rec.field_mask & (1 << bit);
            if field != 0 && !map_may_hold_field(attr.map_type, field) {
                return Err(EOPNOTSUPP);
            }
        }
        btf_check_and_fixup_fields(btf, rec)?;
    }
    map_type_check_btf(attr, btf, key_type, value_type)?;
    Ok(record.unwrap_or_default())
}

/// `map_check_btf`'s table of which map types may hold which fields.
fn map_may_hold_field(map_type: u32, field: u32) -> bool {
    match field {
        BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK => matches!(
            map_type,
            BPF_MAP_TYPE_HASH
                | BPF_MAP_TYPE_RHASH
                | BPF_MAP_TYPE_ARRAY
                | BPF_MAP_TYPE_CGROUP_STORAGE
                | BPF_MAP_TYPE_SK_STORAGE
                | BPF_MAP_TYPE_INODE_STORAGE
                | BPF_MAP_TYPE_TASK_STORAGE
                | BPF_MAP_TYPE_CGRP_STORAGE
        ),
        BPF_TIMER | BPF_WORKQUEUE | BPF_TASK_WORK => {
            matches!(map_type, BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_RHASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_ARRAY)
        }
        BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_REFCOUNT => matches!(
            map_type,
            BPF_MAP_TYPE_HASH
                | BPF_MAP_TYPE_RHASH
                | BPF_MAP_TYPE_PERCPU_HASH
                | BPF_MAP_TYPE_LRU_HASH
                | BPF_MAP_TYPE_LRU_PERCPU_HASH
                | BPF_MAP_TYPE_ARRAY
                | BPF_MAP_TYPE_PERCPU_ARRAY
                | BPF_MAP_TYPE_SK_STORAGE
                | BPF_MAP_TYPE_INODE_STORAGE
                | BPF_MAP_TYPE_TASK_STORAGE
                | BPF_MAP_TYPE_CGRP_STORAGE
        ),
        BPF_UPTR => map_type == BPF_MAP_TYPE_TASK_STORAGE,
        BPF_LIST_HEAD | BPF_RB_ROOT => matches!(map_type, BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_ARRAY),
        _ => false,
    }
}

/// `btf_check_and_fixup_fields`: a uptr's pointee must be a sized struct
/// of the program's BTF no larger than a page. (A graph root's element
/// struct has a record of its own, with the node `btf_parse_fields`
/// found in it.)
fn btf_check_and_fixup_fields(btf: &Btf, rec: &MapRecord) -> Result<(), i32> {
    for f in rec.fields.iter().filter(|f| f.field_type == BPF_UPTR) {
        let size = btf.type_by_id(f.kptr_type_id).map_or(0, |t| t.size_or_type);
        if size == 0 {
            return Err(EINVAL);
        }
        if size as u64 > PAGE_SIZE {
            return Err(E2BIG);
        }
    }
    Ok(())
}

/// Whether the map type's ops have a `map_check_btf` (a keyless BTF is
/// refused without one).
fn has_map_check_btf(map_type: u32) -> bool {
    !matches!(
        map_type,
        BPF_MAP_TYPE_PROG_ARRAY
            | BPF_MAP_TYPE_QUEUE
            | BPF_MAP_TYPE_STACK
            | BPF_MAP_TYPE_RINGBUF
            | BPF_MAP_TYPE_USER_RINGBUF
            | BPF_MAP_TYPE_SOCKMAP
            | BPF_MAP_TYPE_SOCKHASH
            | BPF_MAP_TYPE_XSKMAP
            | BPF_MAP_TYPE_REUSEPORT_SOCKARRAY
            | BPF_MAP_TYPE_STRUCT_OPS
    )
}

/// The map type's `map_check_btf` (`key_type`: the sized key type, `None`
/// for a keyless BTF).
fn map_type_check_btf(attr: &MapCreateAttr<'_>, btf: &Btf, key_type: Option<u32>, value_type: u32) -> Result<(), i32> {
    let is_i32 = |id: Option<u32>| id.is_some_and(|id| btf.btf_type_is_i32(id));
    let kind_of = |id: u32| btf.type_by_id(id).map_or(0, |t| t.kind);
    match attr.map_type {
        // array_map_check_btf: a u32 key, or keyless for global data
        BPF_MAP_TYPE_ARRAY | BPF_MAP_TYPE_PERCPU_ARRAY => match key_type {
            None if attr.max_entries != 1 || kind_of(value_type) != BTF_KIND_DATASEC => Err(EINVAL),
            None => Ok(()),
            Some(_) if !is_i32(key_type) => Err(EINVAL),
            Some(_) => Ok(()),
        },
        // map_check_no_btf
        BPF_MAP_TYPE_PERF_EVENT_ARRAY
        | BPF_MAP_TYPE_CGROUP_ARRAY
        | BPF_MAP_TYPE_ARRAY_OF_MAPS
        | BPF_MAP_TYPE_HASH_OF_MAPS
        | BPF_MAP_TYPE_DEVMAP
        | BPF_MAP_TYPE_DEVMAP_HASH
        | BPF_MAP_TYPE_STACK_TRACE
        | BPF_MAP_TYPE_CPUMAP => Err(ENOTSUPP),
        // htab_map_check_btf, rhtab_map_check_btf
        BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH | BPF_MAP_TYPE_RHASH => {
            if key_type.is_none() {
                Err(EINVAL)
            } else {
                Ok(())
            }
        }
        // bloom_map_check_btf: keyless
        BPF_MAP_TYPE_BLOOM_FILTER => {
            if key_type.is_none() {
                Ok(())
            } else {
                Err(EINVAL)
            }
        }
        // trie_check_btf: the key embeds struct bpf_lpm_trie_key_u8
        BPF_MAP_TYPE_LPM_TRIE => {
            if key_type.is_some_and(|k| kind_of(k) == BTF_KIND_STRUCT) {
                Ok(())
            } else {
                Err(EINVAL)
            }
        }
        // bpf_local_storage_map_check_btf
        BPF_MAP_TYPE_SK_STORAGE | BPF_MAP_TYPE_INODE_STORAGE | BPF_MAP_TYPE_TASK_STORAGE | BPF_MAP_TYPE_CGRP_STORAGE => {
            if is_i32(key_type) {
                Ok(())
            } else {
                Err(EINVAL)
            }
        }
        // insn_array_check_btf: u32 keys, u64 values
        BPF_MAP_TYPE_INSN_ARRAY => {
            let is_i64 = btf.type_by_id(value_type).is_some_and(|t| t.kind == BTF_KIND_INT && t.size_or_type == 8);
            if is_i32(key_type) && is_i64 { Ok(()) } else { Err(EINVAL) }
        }
        // cgroup_storage_check_btf: the key is a u64 cgroup id, or with the
        // attach type (struct bpf_cgroup_storage_key)
        BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => {
            let Some(k) = key_type else { return Err(EINVAL) };
            let reg_int = |m: Option<&Member>, off: u32, size: u32| {
                m.is_some_and(|m| {
                    let id = btf.skip_mods_and_typedefs(m.type_id);
                    let bits = if btf.kind_flag(k) { m.offset & 0xff_ffff } else { m.offset };
                    bits == off * 8
                        && btf.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_INT && t.size_or_type == size)
                        && btf.int_data(id) & 0xff == size * 8
                })
            };
            if attr.key_size == bpf_cgroup_storage_key::SIZE as u32 {
                let members = btf.members(k);
                if kind_of(k) != BTF_KIND_STRUCT || members.len() != 2 || !reg_int(members.first(), 0, 8) || !reg_int(members.get(1), 8, 4) {
                    return Err(EINVAL);
                }
                Ok(())
            } else if btf.type_by_id(k).is_some_and(|t| t.kind == BTF_KIND_INT && t.size_or_type == 8) {
                Ok(())
            } else {
                Err(EINVAL)
            }
        }
        // arena_map_check_btf, and the types without one
        _ => Ok(()),
    }
}

/// The privileged map types of `map_create_alloc`: most need `CAP_BPF`,
/// the networking ones `CAP_NET_ADMIN`.
fn map_type_capable(map_type: u32, caps: MapCreateCaps) -> Result<(), i32> {
    let bpf = caps.bpf || caps.sys_admin;
    let ok = match map_type {
        BPF_MAP_TYPE_ARRAY
        | BPF_MAP_TYPE_PERCPU_ARRAY
        | BPF_MAP_TYPE_PROG_ARRAY
        | BPF_MAP_TYPE_PERF_EVENT_ARRAY
        | BPF_MAP_TYPE_CGROUP_ARRAY
        | BPF_MAP_TYPE_ARRAY_OF_MAPS
        | BPF_MAP_TYPE_HASH
        | BPF_MAP_TYPE_RHASH
        | BPF_MAP_TYPE_PERCPU_HASH
        | BPF_MAP_TYPE_HASH_OF_MAPS
        | BPF_MAP_TYPE_RINGBUF
        | BPF_MAP_TYPE_USER_RINGBUF
        | BPF_MAP_TYPE_CGROUP_STORAGE
        | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => true,
        BPF_MAP_TYPE_SOCKMAP | BPF_MAP_TYPE_SOCKHASH | BPF_MAP_TYPE_DEVMAP | BPF_MAP_TYPE_DEVMAP_HASH | BPF_MAP_TYPE_XSKMAP => caps.net_admin,
        _ => bpf,
    };
    if ok { Ok(()) } else { Err(EPERM) }
}

/// The type's `map_alloc_check` (those that have one).
fn map_alloc_check(attr: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    match attr.map_type {
        BPF_MAP_TYPE_ARRAY | BPF_MAP_TYPE_PERCPU_ARRAY => array_map_alloc_check(attr),
        BPF_MAP_TYPE_PROG_ARRAY | BPF_MAP_TYPE_PERF_EVENT_ARRAY | BPF_MAP_TYPE_CGROUP_ARRAY | BPF_MAP_TYPE_ARRAY_OF_MAPS => fd_array_map_alloc_check(attr),
        BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH => htab_map_alloc_check(attr, caps),
        BPF_MAP_TYPE_HASH_OF_MAPS => fd_htab_map_alloc_check(attr, caps),
        BPF_MAP_TYPE_RHASH => rhtab_map_alloc_check(attr, caps),
        BPF_MAP_TYPE_REUSEPORT_SOCKARRAY => reuseport_array_alloc_check(attr),
        BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK => queue_stack_map_alloc_check(attr),
        BPF_MAP_TYPE_BLOOM_FILTER => bloom_map_alloc_check(attr),
        BPF_MAP_TYPE_DEVMAP | BPF_MAP_TYPE_DEVMAP_HASH => dev_map_alloc_check(attr),
        BPF_MAP_TYPE_SK_STORAGE | BPF_MAP_TYPE_INODE_STORAGE | BPF_MAP_TYPE_TASK_STORAGE | BPF_MAP_TYPE_CGRP_STORAGE => bpf_local_storage_map_alloc_check(attr),
        BPF_MAP_TYPE_INSN_ARRAY => insn_array_alloc_check(attr),
        // bpf_struct_ops_map_alloc_check: needs btf_vmlinux_value_type_id
        BPF_MAP_TYPE_STRUCT_OPS => Err(EINVAL),
        _ => Ok(()),
    }
}

/// The type's `map_alloc`, as far as it checks attributes.
fn map_alloc(attr: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    let bypass_spec_v1 = caps.perfmon || caps.sys_admin;
    match attr.map_type {
        BPF_MAP_TYPE_ARRAY | BPF_MAP_TYPE_PERCPU_ARRAY | BPF_MAP_TYPE_PROG_ARRAY | BPF_MAP_TYPE_PERF_EVENT_ARRAY | BPF_MAP_TYPE_CGROUP_ARRAY => {
            array_map_alloc(attr, bypass_spec_v1)
        }
        BPF_MAP_TYPE_ARRAY_OF_MAPS => {
            bpf_map_meta_alloc(attr.inner)?;
            array_map_alloc(attr, bypass_spec_v1)
        }
        BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH => htab_map_alloc(attr),
        BPF_MAP_TYPE_HASH_OF_MAPS => {
            bpf_map_meta_alloc(attr.inner)?;
            htab_map_alloc(attr)
        }
        BPF_MAP_TYPE_RHASH => {
            if attr.max_entries > 1 << 31 {
                return Err(E2BIG);
            }
            Ok(())
        }
        BPF_MAP_TYPE_LPM_TRIE => trie_alloc(attr),
        BPF_MAP_TYPE_RINGBUF | BPF_MAP_TYPE_USER_RINGBUF => ringbuf_map_alloc(attr),
        BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK => {
            let size = (attr.max_entries as u64 + 1) * attr.value_size as u64;
            if size > KVMALLOC_MAX { Err(ENOMEM) } else { Ok(()) }
        }
        BPF_MAP_TYPE_BLOOM_FILTER => bloom_map_alloc(attr),
        BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => cgroup_storage_map_alloc(attr),
        BPF_MAP_TYPE_STACK_TRACE => stack_map_alloc(attr),
        BPF_MAP_TYPE_CPUMAP => cpu_map_alloc(attr),
        BPF_MAP_TYPE_SOCKMAP => sock_map_alloc(attr),
        BPF_MAP_TYPE_SOCKHASH => sock_hash_alloc(attr),
        BPF_MAP_TYPE_XSKMAP => xsk_map_alloc(attr),
        BPF_MAP_TYPE_ARENA => arena_map_alloc(attr),
        _ => Ok(()),
    }
}

/// `array_map_alloc_check`.
fn array_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const ARRAY_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_MMAPABLE | BPF_F_ACCESS_MASK | BPF_F_PRESERVE_ELEMS | BPF_F_INNER_MAP;
    let percpu = a.map_type == BPF_MAP_TYPE_PERCPU_ARRAY;
    if a.max_entries == 0
        || a.key_size != 4
        || a.value_size == 0
        || a.map_flags & !ARRAY_CREATE_FLAG_MASK != 0
        || !bpf_map_flags_access_ok(a.map_flags)
        || (percpu && a.map_flags & BPF_F_NUMA_NODE != 0)
    {
        return Err(EINVAL);
    }
    if a.map_type != BPF_MAP_TYPE_ARRAY && a.map_flags & (BPF_F_MMAPABLE | BPF_F_INNER_MAP) != 0 {
        return Err(EINVAL);
    }
    if a.map_type != BPF_MAP_TYPE_PERF_EVENT_ARRAY && a.map_flags & BPF_F_PRESERVE_ELEMS != 0 {
        return Err(EINVAL);
    }
    if a.value_size > i32::MAX as u32 {
        return Err(E2BIG);
    }
    if percpu && round_up8(a.value_size) > PCPU_MIN_UNIT_SIZE {
        return Err(E2BIG);
    }
    Ok(())
}

/// `fd_array_map_alloc_check`: the values are file descriptors.
fn fd_array_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.value_size != 4 || a.map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG) != 0 {
        return Err(EINVAL);
    }
    array_map_alloc_check(a)
}

/// `array_map_alloc`: without `bpf_bypass_spec_v1` the entries round up
/// to a power of two (the CPU speculates within the index mask), which
/// overflows above 2^31; then `kvmalloc`'s size bound.
fn array_map_alloc(a: &MapCreateAttr<'_>, bypass_spec_v1: bool) -> Result<(), i32> {
    let mut entries = a.max_entries as u64;
    if !bypass_spec_v1 {
        let rounded = entries.max(1).next_power_of_two();
        if rounded > u32::MAX as u64 {
            return Err(E2BIG);
        }
        entries = rounded;
    }
    let size = if a.map_type == BPF_MAP_TYPE_PERCPU_ARRAY {
        entries * 8
    } else if a.map_flags & BPF_F_MMAPABLE != 0 {
        (entries * round_up8(a.value_size)).div_ceil(PAGE_SIZE) * PAGE_SIZE + PAGE_SIZE
    } else {
        entries * round_up8(a.value_size)
    };
    if size > KVMALLOC_MAX { Err(ENOMEM) } else { Ok(()) }
}

/// `htab_map_alloc_check`.
fn htab_map_alloc_check(a: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    const HTAB_CREATE_FLAG_MASK: u32 = BPF_F_NO_PREALLOC | BPF_F_NO_COMMON_LRU | BPF_F_NUMA_NODE | BPF_F_ACCESS_MASK | BPF_F_ZERO_SEED;
    let percpu = matches!(a.map_type, BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH);
    let lru = matches!(a.map_type, BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH);
    let percpu_lru = a.map_flags & BPF_F_NO_COMMON_LRU != 0;
    let prealloc = a.map_flags & BPF_F_NO_PREALLOC == 0;
    if a.map_flags & BPF_F_ZERO_SEED != 0 && !caps.sys_admin {
        return Err(EPERM);
    }
    if a.map_flags & !HTAB_CREATE_FLAG_MASK != 0 || !bpf_map_flags_access_ok(a.map_flags) {
        return Err(EINVAL);
    }
    if !lru && percpu_lru {
        return Err(EINVAL);
    }
    if lru && !prealloc {
        return Err(ENOTSUPP);
    }
    if a.map_flags & BPF_F_NUMA_NODE != 0 && (percpu || percpu_lru) {
        return Err(EINVAL);
    }
    if a.max_entries == 0 || a.key_size == 0 || a.value_size == 0 {
        return Err(EINVAL);
    }
    if a.key_size as u64 + a.value_size as u64 >= KMALLOC_MAX_SIZE - SIZEOF_HTAB_ELEM as u64 {
        return Err(E2BIG);
    }
    if percpu && round_up8(a.value_size) > PCPU_MIN_UNIT_SIZE {
        return Err(E2BIG);
    }
    Ok(())
}

/// `fd_htab_map_alloc_check`.
fn fd_htab_map_alloc_check(a: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    if a.value_size != 4 {
        return Err(EINVAL);
    }
    htab_map_alloc_check(a, caps)
}

/// `rhtab_map_alloc_check`: never preallocated; `map_extra` is the
/// element count hint.
fn rhtab_map_alloc_check(a: &MapCreateAttr<'_>, caps: MapCreateCaps) -> Result<(), i32> {
    if a.map_flags & BPF_F_NO_PREALLOC == 0 || a.map_flags & BPF_F_ZERO_SEED != 0 {
        return Err(EINVAL);
    }
    if a.key_size > u16::MAX as u32 {
        return Err(E2BIG);
    }
    if a.map_extra >> 32 != 0 {
        return Err(EINVAL);
    }
    if a.map_extra as u32 > u16::MAX as u32 {
        return Err(E2BIG);
    }
    if a.map_extra as u32 > a.max_entries {
        return Err(EINVAL);
    }
    htab_map_alloc_check(a, caps)
}

/// `htab_map_alloc`: the bucket count is a power of two; preallocated
/// elements come in one `kvmalloc`.
fn htab_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.max_entries > 1 << 31 {
        return Err(E2BIG);
    }
    let n_buckets = (a.max_entries as u64).next_power_of_two();
    if n_buckets > u32::MAX as u64 / SIZEOF_BUCKET as u64 {
        return Err(E2BIG);
    }
    if n_buckets * SIZEOF_BUCKET as u64 > KVMALLOC_MAX {
        return Err(ENOMEM);
    }
    let percpu = matches!(a.map_type, BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH);
    let elem_size = SIZEOF_HTAB_ELEM as u64 + round_up8(a.key_size) + if percpu { 8 } else { round_up8(a.value_size) };
    if a.map_flags & BPF_F_NO_PREALLOC == 0 && elem_size * a.max_entries as u64 > KVMALLOC_MAX {
        return Err(ENOMEM);
    }
    Ok(())
}

/// `bpf_map_meta_alloc`: the inner map of a map-in-map is one level deep
/// and of a type that can compare metas (`map_meta_equal`).
fn bpf_map_meta_alloc(inner: Option<&MapDef>) -> Result<(), i32> {
    // no inner map fd: fd 0 is not a map
    let Some(inner) = inner else { return Err(EINVAL) };
    if inner.inner.is_some() || matches!(inner.map_type, BPF_MAP_TYPE_ARRAY_OF_MAPS | BPF_MAP_TYPE_HASH_OF_MAPS) {
        return Err(EINVAL);
    }
    match inner.map_type {
        BPF_MAP_TYPE_PROG_ARRAY
        | BPF_MAP_TYPE_CGROUP_STORAGE
        | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE
        | BPF_MAP_TYPE_CPUMAP
        | BPF_MAP_TYPE_STRUCT_OPS
        | BPF_MAP_TYPE_INSN_ARRAY
        | BPF_MAP_TYPE_SK_STORAGE => Err(ENOTSUPP),
        _ => Ok(()),
    }
}

/// `trie_alloc`: keys carry a 4-byte prefix length and 1..256 data bytes.
fn trie_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const LPM_CREATE_FLAG_MASK: u32 = BPF_F_NO_PREALLOC | BPF_F_NUMA_NODE | BPF_F_ACCESS_MASK;
    const LPM_DATA_SIZE_MAX: u32 = 256;
    let val_max = KMALLOC_MAX_SIZE - LPM_DATA_SIZE_MAX as u64 - crate::kernel_layout::SIZEOF_LPM_TRIE_NODE as u64;
    if a.max_entries == 0
        || a.map_flags & BPF_F_NO_PREALLOC == 0
        || a.map_flags & !LPM_CREATE_FLAG_MASK != 0
        || !bpf_map_flags_access_ok(a.map_flags)
        || a.key_size < 4 + 1
        || a.key_size > 4 + LPM_DATA_SIZE_MAX
        || a.value_size < 1
        || a.value_size as u64 > val_max
    {
        return Err(EINVAL);
    }
    Ok(())
}

/// `ringbuf_map_alloc`: no key or value, a power-of-two number of pages.
fn ringbuf_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const RINGBUF_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_RB_OVERWRITE;
    if a.map_flags & !RINGBUF_CREATE_FLAG_MASK != 0 {
        return Err(EINVAL);
    }
    if a.map_flags & BPF_F_RB_OVERWRITE != 0 && a.map_type != BPF_MAP_TYPE_RINGBUF {
        return Err(EINVAL);
    }
    if a.key_size != 0 || a.value_size != 0 || !a.max_entries.is_power_of_two() || !(a.max_entries as u64).is_multiple_of(PAGE_SIZE) {
        return Err(EINVAL);
    }
    Ok(())
}

/// `queue_stack_map_alloc_check`.
fn queue_stack_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const QUEUE_STACK_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_ACCESS_MASK;
    if a.max_entries == 0 || a.key_size != 0 || a.value_size == 0 || a.map_flags & !QUEUE_STACK_CREATE_FLAG_MASK != 0 || !bpf_map_flags_access_ok(a.map_flags) {
        return Err(EINVAL);
    }
    if a.value_size as u64 > KMALLOC_MAX_SIZE {
        return Err(E2BIG);
    }
    if a.max_entries >= u32::MAX / a.value_size {
        return Err(E2BIG);
    }
    Ok(())
}

/// `bloom_map_alloc_check`.
fn bloom_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.value_size as u64 > KMALLOC_MAX_SIZE { Err(E2BIG) } else { Ok(()) }
}

/// `bloom_map_alloc`: values only; `map_extra`'s low 4 bits are the
/// number of hash functions.
fn bloom_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const BLOOM_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_ZERO_SEED | BPF_F_ACCESS_MASK;
    if a.key_size != 0
        || a.value_size == 0
        || a.max_entries == 0
        || a.map_flags & !BLOOM_CREATE_FLAG_MASK != 0
        || !bpf_map_flags_access_ok(a.map_flags)
        || a.map_extra & !0xf != 0
    {
        return Err(EINVAL);
    }
    Ok(())
}

/// `cgroup_storage_map_alloc`: the key is a cgroup id, with or without
/// the attach type; `max_entries` must be 0.
fn cgroup_storage_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const LOCAL_STORAGE_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_ACCESS_MASK;
    let mut max_value_size = BPF_LOCAL_STORAGE_MAX_VALUE_SIZE;
    if a.map_type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE {
        max_value_size = max_value_size.min(PCPU_MIN_UNIT_SIZE);
    }
    if a.key_size != bpf_cgroup_storage_key::SIZE as u32 && a.key_size != 8 {
        return Err(EINVAL);
    }
    if a.value_size == 0 {
        return Err(EINVAL);
    }
    if a.value_size as u64 > max_value_size {
        return Err(E2BIG);
    }
    if a.map_flags & !LOCAL_STORAGE_CREATE_FLAG_MASK != 0 || !bpf_map_flags_access_ok(a.map_flags) {
        return Err(EINVAL);
    }
    if a.max_entries != 0 {
        return Err(EINVAL);
    }
    Ok(())
}

/// `BPF_LOCAL_STORAGE_MAX_VALUE_SIZE`: U16_MAX less the cacheline-aligned
/// `struct bpf_local_storage_elem` (128 bytes).
const BPF_LOCAL_STORAGE_MAX_VALUE_SIZE: u64 = u16::MAX as u64 - 128;

/// `bpf_local_storage_map_alloc_check`: no preallocation, no
/// `max_entries`, an `int` key, and BTF for the key and value (for
/// dumping sockets' storage from user space).
fn bpf_local_storage_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const BPF_LOCAL_STORAGE_CREATE_FLAG_MASK: u32 = BPF_F_NO_PREALLOC | crate::map::flags::BPF_F_CLONE;
    let (key_id, value_id) = a.btf.map_or((0, 0), |b| (b.key_type_id, b.value_type_id));
    if a.map_flags & !BPF_LOCAL_STORAGE_CREATE_FLAG_MASK != 0
        || a.map_flags & BPF_F_NO_PREALLOC == 0
        || a.max_entries != 0
        || a.key_size != 4
        || a.value_size == 0
        || key_id == 0
        || value_id == 0
    {
        return Err(EINVAL);
    }
    if a.value_size as u64 > BPF_LOCAL_STORAGE_MAX_VALUE_SIZE {
        return Err(E2BIG);
    }
    Ok(())
}

/// `reuseport_array_alloc_check`.
fn reuseport_array_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.value_size != 4 && a.value_size != 8 {
        return Err(EINVAL);
    }
    array_map_alloc_check(a)
}

/// `dev_map_alloc_check`: values are an ifindex, optionally with a
/// program fd.
fn dev_map_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const DEV_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY;
    if a.max_entries == 0 || a.key_size != 4 || (a.value_size != 4 && a.value_size != 8) || a.map_flags & !DEV_CREATE_FLAG_MASK != 0 {
        return Err(EINVAL);
    }
    if a.map_type == BPF_MAP_TYPE_DEVMAP_HASH && a.max_entries > 1 << 31 {
        return Err(EINVAL);
    }
    Ok(())
}

/// `cpu_map_alloc`: values are a queue size, optionally with a program fd.
fn cpu_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.max_entries == 0 || a.key_size != 4 || (a.value_size != 4 && a.value_size != 8) || a.map_flags & !BPF_F_NUMA_NODE != 0 {
        return Err(EINVAL);
    }
    if a.max_entries > a.nr_cpus {
        return Err(E2BIG);
    }
    Ok(())
}

/// `stack_map_alloc`: values are arrays of u64 addresses or of build ids.
fn stack_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const STACK_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY | BPF_F_STACK_BUILD_ID;
    if a.map_flags & !STACK_CREATE_FLAG_MASK != 0 {
        return Err(EINVAL);
    }
    if a.max_entries == 0 || a.key_size != 4 || a.value_size < 8 || !a.value_size.is_multiple_of(8) {
        return Err(EINVAL);
    }
    if a.map_flags & BPF_F_STACK_BUILD_ID != 0 {
        if !a.value_size.is_multiple_of(bpf_stack_build_id::SIZE as u32) || a.value_size / bpf_stack_build_id::SIZE as u32 > PERF_EVENT_MAX_STACK {
            return Err(EINVAL);
        }
    } else if a.value_size / 8 > PERF_EVENT_MAX_STACK {
        return Err(EINVAL);
    }
    if a.max_entries > 1 << 31 {
        return Err(E2BIG);
    }
    Ok(())
}

/// `sock_map_alloc` (net/core/sock_map.c).
fn sock_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const SOCK_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY;
    if a.max_entries == 0 || a.key_size != 4 || (a.value_size != 4 && a.value_size != 8) || a.map_flags & !SOCK_CREATE_FLAG_MASK != 0 {
        return Err(EINVAL);
    }
    Ok(())
}

/// `sock_hash_alloc` (net/core/sock_map.c): keys live on the BPF stack.
fn sock_hash_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    const SOCK_CREATE_FLAG_MASK: u32 = BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY;
    if a.max_entries == 0 || a.key_size == 0 || (a.value_size != 4 && a.value_size != 8) || a.map_flags & !SOCK_CREATE_FLAG_MASK != 0 {
        return Err(EINVAL);
    }
    if a.key_size > 512 {
        return Err(E2BIG);
    }
    Ok(())
}

/// `xsk_map_alloc` (net/xdp/xskmap.c).
fn xsk_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.max_entries == 0 || a.key_size != 4 || a.value_size != 4 || a.map_flags & !(BPF_F_NUMA_NODE | BPF_F_RDONLY | BPF_F_WRONLY) != 0 {
        return Err(EINVAL);
    }
    Ok(())
}

/// The user address the project's loaders give an arena in `map_extra`.
/// libbpf instead mmaps the arena where the kernel likes after creating
/// it; the guest loader has no mmap, and a fixed address (4 GiB aligned, so
/// any size fits below the next 32-bit boundary) makes the upper half of
/// user pointers reproducible. The verifier only needs it to be set.
pub const ARENA_USER_VM_START: u64 = 0x7f00_0000_0000;

/// `map_extra` as the project's loaders pass it for `def`: the object's
/// own, else [`ARENA_USER_VM_START`] for an arena.
pub fn loader_map_extra(def: &MapDef) -> u64 {
    if def.map_extra != 0 {
        def.map_extra
    } else if def.map_type == BPF_MAP_TYPE_ARENA {
        ARENA_USER_VM_START
    } else {
        0
    }
}

/// `arena_map_alloc`: pages mapped into both address spaces.
fn arena_map_alloc(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if !a.jit_supports_arena {
        return Err(EOPNOTSUPP);
    }
    if a.key_size != 0
        || a.value_size != 0
        || a.max_entries == 0
        || a.map_flags & BPF_F_MMAPABLE == 0
        || a.map_flags & !(BPF_F_SEGV_ON_FAULT | BPF_F_MMAPABLE | BPF_F_NO_USER_CONV) != 0
    {
        return Err(EINVAL);
    }
    if a.map_extra & (PAGE_SIZE - 1) != 0 {
        return Err(EINVAL);
    }
    let vm_range = a.max_entries as u64 * PAGE_SIZE;
    if vm_range > 1 << 32 {
        return Err(E2BIG);
    }
    if a.map_extra >> 32 != (a.map_extra.wrapping_add(vm_range).wrapping_sub(1)) >> 32 {
        return Err(ERANGE);
    }
    Ok(())
}

/// `insn_array_alloc_check`.
fn insn_array_alloc_check(a: &MapCreateAttr<'_>) -> Result<(), i32> {
    if a.max_entries == 0 || a.key_size != 4 || a.value_size != bpf_insn_array_value::SIZE as u32 || a.map_flags != 0 {
        return Err(EINVAL);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: MapCreateCaps = MapCreateCaps { bpf: true, net_admin: true, sys_admin: true, perfmon: true };
    const NOBODY: MapCreateCaps = MapCreateCaps { bpf: false, net_admin: false, sys_admin: false, perfmon: false };

    fn create(t: u32, ks: u32, vs: u32, max: u32, flags: u32, caps: MapCreateCaps) -> Result<(), i32> {
        let mut def = MapDef::new("m", t, ks, vs, max);
        def.map_flags = flags;
        map_create_def(&def, crate::target::Arch::X86_64, caps)
    }

    #[test]
    fn common_shapes() {
        assert_eq!(create(BPF_MAP_TYPE_ARRAY, 4, 8, 1, 0, ROOT), Ok(()));
        assert_eq!(create(BPF_MAP_TYPE_ARRAY, 8, 8, 1, 0, ROOT), Err(EINVAL));
        assert_eq!(create(BPF_MAP_TYPE_HASH, 4, 8, 0, 0, ROOT), Err(EINVAL));
        assert_eq!(create(BPF_MAP_TYPE_LRU_HASH, 4, 8, 1, BPF_F_NO_PREALLOC, ROOT), Err(ENOTSUPP));
        assert_eq!(create(BPF_MAP_TYPE_RINGBUF, 0, 0, 4095, 0, ROOT), Err(EINVAL));
        assert_eq!(create(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0, NOBODY), Ok(()));
        assert_eq!(create(BPF_MAP_TYPE_LPM_TRIE, 8, 8, 1, 0, ROOT), Err(EINVAL));
        assert_eq!(create(BPF_MAP_TYPE_LPM_TRIE, 8, 8, 1, BPF_F_NO_PREALLOC, NOBODY), Err(EPERM));
        assert_eq!(create(BPF_MAP_TYPE_HASH_OF_MAPS, 4, 4, 1, 0, ROOT), Err(EINVAL));
    }

    #[test]
    fn no_panic_on_extremes() {
        for t in 0..40 {
            for &(ks, vs, max) in &[(0, 0, 0), (u32::MAX, u32::MAX, u32::MAX), (4, 1, u32::MAX), (4, u32::MAX, 1)] {
                for flags in [0, u32::MAX, BPF_F_NO_PREALLOC, BPF_F_MMAPABLE] {
                    let _ = create(t, ks, vs, max, flags, ROOT);
                }
            }
        }
    }
}
