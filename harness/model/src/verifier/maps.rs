//! Maps as the verifier sees them: map types and flags, the special
//! fields of a value (`map->record`, from map BTF), map-in-map metas,
//! read-only maps, which helpers may take which map
//! (`check_map_func_compatibility`), access rights (`check_map_access_type`)
//! and the array lookups that need no null check
//! (`can_elide_value_nullness`).

use super::do_check::*;
use super::helpers::{self, func};
use super::reg::*;
use crate::map::flags::{BPF_F_INNER_MAP, BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG};
use crate::map::types::*;

/// The special fields of a map value its BTF declares (`map->record`,
/// from [`super::map_create::map_check_btf`]).
pub type MapRecord = crate::btf::BtfRecord;

/// The maps of a program followed by the inner-map metas of its
/// maps-in-maps (a lookup in an outer map points at its meta).
pub(crate) fn flatten_maps(maps: &[MapInfo]) -> Vec<MapInfo> {
    let mut out: Vec<MapInfo> = maps.to_vec();
    for m in maps {
        if let Some(inner) = &m.inner {
            // bpf_map_meta_alloc: type, sizes and flags, no name
            let meta = MapInfo {
                name: String::new(),
                map_type: inner.map_type,
                key_size: inner.key_size,
                value_size: inner.value_size,
                max_entries: inner.max_entries,
                map_flags: inner.map_flags,
                inner: None,
                frozen: false,
                record: inner.record.clone(),
                data: Vec::new(),
            };
            out.push(meta);
        }
    }
    out
}

/// The flattened index of the inner-map meta of outer map `outer`
/// (`maps` as the program gives them, before [`flatten_maps`]).
pub(crate) fn inner_meta_index(maps: &[MapInfo], outer: usize) -> Option<usize> {
    maps.get(outer)?.inner.as_ref()?;
    let k = maps.iter().take(outer).filter(|m| m.inner.is_some()).count();
    Some(maps.len() + k)
}

/// `can_elide_value_nullness`: a lookup in an array with a known
/// in-range key cannot fail.
pub(crate) fn can_elide_value_nullness(map: &MapInfo) -> bool {
    if map.map_flags & BPF_F_INNER_MAP != 0 {
        return false;
    }
    matches!(map.map_type, BPF_MAP_TYPE_ARRAY | BPF_MAP_TYPE_PERCPU_ARRAY)
}

/// `bpf_map_is_rdonly`: the program cannot write it and user space froze it.
pub fn bpf_map_is_rdonly(map: &MapInfo) -> bool {
    map.map_flags & BPF_F_RDONLY_PROG != 0 && map.frozen
}

/// Map types with `map_direct_value_addr` (values addressable by
/// `BPF_PSEUDO_MAP_VALUE`).
pub fn has_direct_value_addr(map_type: u32) -> bool {
    matches!(map_type, BPF_MAP_TYPE_ARRAY | BPF_MAP_TYPE_PERCPU_ARRAY | BPF_MAP_TYPE_ARENA | BPF_MAP_TYPE_INSN_ARRAY)
}

/// Map types `bpf_for_each_map_elem` can walk.
pub fn has_for_each_callback(map_type: u32) -> bool {
    matches!(
        map_type,
        BPF_MAP_TYPE_ARRAY
            | BPF_MAP_TYPE_PERCPU_ARRAY
            | BPF_MAP_TYPE_HASH
            | BPF_MAP_TYPE_PERCPU_HASH
            | BPF_MAP_TYPE_LRU_HASH
            | BPF_MAP_TYPE_LRU_PERCPU_HASH
            | BPF_MAP_TYPE_RHASH
    )
}

/// The kernel struct behind a map of this type (`map->ops->map_btf_id`),
/// as `CONST_PTR_TO_MAP` dereferences name it.
pub fn map_btf_name(map_type: u32) -> Option<&'static str> {
    Some(match map_type {
        BPF_MAP_TYPE_ARRAY
        | BPF_MAP_TYPE_PERCPU_ARRAY
        | BPF_MAP_TYPE_PROG_ARRAY
        | BPF_MAP_TYPE_PERF_EVENT_ARRAY
        | BPF_MAP_TYPE_CGROUP_ARRAY
        | BPF_MAP_TYPE_ARRAY_OF_MAPS => "bpf_array",
        BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH | BPF_MAP_TYPE_HASH_OF_MAPS => "bpf_htab",
        BPF_MAP_TYPE_BLOOM_FILTER => "bpf_bloom_filter",
        BPF_MAP_TYPE_SK_STORAGE | BPF_MAP_TYPE_INODE_STORAGE | BPF_MAP_TYPE_TASK_STORAGE | BPF_MAP_TYPE_CGRP_STORAGE => "bpf_local_storage_map",
        BPF_MAP_TYPE_CPUMAP => "bpf_cpu_map",
        BPF_MAP_TYPE_DEVMAP | BPF_MAP_TYPE_DEVMAP_HASH => "bpf_dtab",
        BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => "bpf_cgroup_storage_map",
        BPF_MAP_TYPE_LPM_TRIE => "lpm_trie",
        BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK => "bpf_queue_stack",
        BPF_MAP_TYPE_REUSEPORT_SOCKARRAY => "reuseport_array",
        BPF_MAP_TYPE_RINGBUF => "bpf_ringbuf_map",
        BPF_MAP_TYPE_USER_RINGBUF => "bpf_ringbuf_map",
        BPF_MAP_TYPE_STACK_TRACE => "bpf_stack_map",
        BPF_MAP_TYPE_ARENA => "bpf_arena",
        BPF_MAP_TYPE_SOCKMAP => "bpf_stab",
        BPF_MAP_TYPE_SOCKHASH => "bpf_shtab",
        BPF_MAP_TYPE_XSKMAP => "xsk_map",
        BPF_MAP_TYPE_STRUCT_OPS => "bpf_struct_ops_map",
        BPF_MAP_TYPE_INSN_ARRAY => "bpf_insn_array",
        BPF_MAP_TYPE_RHASH => "bpf_rhtab",
        _ => return None,
    })
}

impl Env<'_, '_> {
    /// `check_map_access_type`: `BPF_F_RDONLY_PROG`/`BPF_F_WRONLY_PROG`.
    pub(crate) fn check_map_access_type(&mut self, reg: &RegState, off: i64, size: i64, write: bool) -> VResult<()> {
        let Some(map) = usize::try_from(reg.aux).ok().and_then(|i| self.maps.get(i)) else { return Ok(()) };
        let flags = map.map_flags & (BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG);
        let (can_read, can_write) = if flags & BPF_F_RDONLY_PROG != 0 {
            (true, false)
        } else if flags & BPF_F_WRONLY_PROG != 0 {
            (false, true)
        } else {
            (true, true)
        };
        let vs = map.value_size;
        if write && !can_write {
            let s = format!("write into map forbidden, value_size={vs} off={} size={size}\n", reg.s.smin().wrapping_add(off));
            self.verbose(&s);
            return errno(EACCES);
        }
        if !write && !can_read {
            let s = format!("read from map forbidden, value_size={vs} off={} size={size}\n", reg.s.smin().wrapping_add(off));
            self.verbose(&s);
            return errno(EACCES);
        }
        Ok(())
    }

    /// `may_update_sockmap`.
    fn may_update_sockmap(&mut self, func_id: i32) -> bool {
        use helpers::prog::*;
        if func_id != func::MAP_UPDATE_ELEM && func_id != func::MAP_DELETE_ELEM {
            return false;
        }
        let ok = match self.input.prog_type {
            TRACING => self.input.expected_attach_type == crate::prog_type::bpf_attach_type::TRACE_ITER,
            SOCK_OPS => func_id == func::MAP_DELETE_ELEM,
            SK_REUSEPORT | SK_LOOKUP => true,
            _ => false,
        };
        if !ok {
            self.verbose("cannot update sockmap in this context\n");
        }
        ok
    }

    /// `check_map_func_compatibility`: both ways, which helpers a map type
    /// allows and which map types a helper takes.
    pub(crate) fn check_map_func_compatibility(&mut self, map: Option<usize>, func_id: i32) -> VResult<()> {
        use func::*;
        let Some(m) = map.and_then(|m| self.maps.get(m)) else { return Ok(()) };
        let t = m.map_type;
        let ok_map = match t {
            BPF_MAP_TYPE_PROG_ARRAY => func_id == TAIL_CALL,
            BPF_MAP_TYPE_PERF_EVENT_ARRAY => {
                matches!(func_id, PERF_EVENT_READ | PERF_EVENT_OUTPUT | SKB_OUTPUT | PERF_EVENT_READ_VALUE | XDP_OUTPUT)
            }
            BPF_MAP_TYPE_RINGBUF => {
                matches!(func_id, RINGBUF_OUTPUT | RINGBUF_RESERVE | RINGBUF_QUERY | RINGBUF_RESERVE_DYNPTR | RINGBUF_SUBMIT_DYNPTR | RINGBUF_DISCARD_DYNPTR)
            }
            BPF_MAP_TYPE_USER_RINGBUF => func_id == USER_RINGBUF_DRAIN,
            BPF_MAP_TYPE_STACK_TRACE => func_id == GET_STACKID,
            BPF_MAP_TYPE_CGROUP_ARRAY => matches!(func_id, SKB_UNDER_CGROUP | CURRENT_TASK_UNDER_CGROUP),
            BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE => func_id == GET_LOCAL_STORAGE,
            BPF_MAP_TYPE_DEVMAP | BPF_MAP_TYPE_DEVMAP_HASH => matches!(func_id, REDIRECT_MAP | MAP_LOOKUP_ELEM),
            BPF_MAP_TYPE_CPUMAP => func_id == REDIRECT_MAP,
            BPF_MAP_TYPE_XSKMAP => matches!(func_id, REDIRECT_MAP | MAP_LOOKUP_ELEM),
            BPF_MAP_TYPE_ARRAY_OF_MAPS | BPF_MAP_TYPE_HASH_OF_MAPS => func_id == MAP_LOOKUP_ELEM,
            BPF_MAP_TYPE_SOCKMAP => {
                matches!(func_id, SK_REDIRECT_MAP | SOCK_MAP_UPDATE | MSG_REDIRECT_MAP | SK_SELECT_REUSEPORT | MAP_LOOKUP_ELEM)
                    || self.may_update_sockmap(func_id)
            }
            BPF_MAP_TYPE_SOCKHASH => {
                matches!(func_id, SK_REDIRECT_HASH | SOCK_HASH_UPDATE | MSG_REDIRECT_HASH | SK_SELECT_REUSEPORT | MAP_LOOKUP_ELEM)
                    || self.may_update_sockmap(func_id)
            }
            BPF_MAP_TYPE_REUSEPORT_SOCKARRAY => func_id == SK_SELECT_REUSEPORT,
            BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK => matches!(func_id, MAP_PEEK_ELEM | MAP_POP_ELEM | MAP_PUSH_ELEM),
            BPF_MAP_TYPE_SK_STORAGE => matches!(func_id, SK_STORAGE_GET | SK_STORAGE_DELETE | KPTR_XCHG),
            BPF_MAP_TYPE_INODE_STORAGE => matches!(func_id, INODE_STORAGE_GET | INODE_STORAGE_DELETE | KPTR_XCHG),
            BPF_MAP_TYPE_TASK_STORAGE => matches!(func_id, TASK_STORAGE_GET | TASK_STORAGE_DELETE | KPTR_XCHG),
            BPF_MAP_TYPE_CGRP_STORAGE => matches!(func_id, CGRP_STORAGE_GET | CGRP_STORAGE_DELETE | KPTR_XCHG),
            BPF_MAP_TYPE_BLOOM_FILTER => matches!(func_id, MAP_PEEK_ELEM | MAP_PUSH_ELEM),
            BPF_MAP_TYPE_INSN_ARRAY => false,
            _ => true,
        };
        let ok_func = ok_map
            && match func_id {
                TAIL_CALL => {
                    if t != BPF_MAP_TYPE_PROG_ARRAY {
                        false
                    } else {
                        if self.subprogs.len() > 1 && !self.input.jit_requested {
                            self.verbose("mixing of tail_calls and bpf-to-bpf calls is not supported\n");
                            return errno(EINVAL);
                        }
                        true
                    }
                }
                PERF_EVENT_READ | PERF_EVENT_OUTPUT | PERF_EVENT_READ_VALUE | SKB_OUTPUT | XDP_OUTPUT => t == BPF_MAP_TYPE_PERF_EVENT_ARRAY,
                RINGBUF_OUTPUT | RINGBUF_RESERVE | RINGBUF_QUERY | RINGBUF_RESERVE_DYNPTR | RINGBUF_SUBMIT_DYNPTR | RINGBUF_DISCARD_DYNPTR => {
                    t == BPF_MAP_TYPE_RINGBUF
                }
                USER_RINGBUF_DRAIN => t == BPF_MAP_TYPE_USER_RINGBUF,
                GET_STACKID => t == BPF_MAP_TYPE_STACK_TRACE,
                CURRENT_TASK_UNDER_CGROUP | SKB_UNDER_CGROUP => t == BPF_MAP_TYPE_CGROUP_ARRAY,
                REDIRECT_MAP => matches!(t, BPF_MAP_TYPE_DEVMAP | BPF_MAP_TYPE_DEVMAP_HASH | BPF_MAP_TYPE_CPUMAP | BPF_MAP_TYPE_XSKMAP),
                SK_REDIRECT_MAP | MSG_REDIRECT_MAP | SOCK_MAP_UPDATE => t == BPF_MAP_TYPE_SOCKMAP,
                SK_REDIRECT_HASH | MSG_REDIRECT_HASH | SOCK_HASH_UPDATE => t == BPF_MAP_TYPE_SOCKHASH,
                GET_LOCAL_STORAGE => matches!(t, BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE),
                SK_SELECT_REUSEPORT => matches!(t, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY | BPF_MAP_TYPE_SOCKMAP | BPF_MAP_TYPE_SOCKHASH),
                MAP_POP_ELEM => matches!(t, BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK),
                MAP_PEEK_ELEM | MAP_PUSH_ELEM => matches!(t, BPF_MAP_TYPE_QUEUE | BPF_MAP_TYPE_STACK | BPF_MAP_TYPE_BLOOM_FILTER),
                MAP_LOOKUP_PERCPU_ELEM => matches!(t, BPF_MAP_TYPE_PERCPU_ARRAY | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_LRU_PERCPU_HASH),
                SK_STORAGE_GET | SK_STORAGE_DELETE => t == BPF_MAP_TYPE_SK_STORAGE,
                INODE_STORAGE_GET | INODE_STORAGE_DELETE => t == BPF_MAP_TYPE_INODE_STORAGE,
                TASK_STORAGE_GET | TASK_STORAGE_DELETE => t == BPF_MAP_TYPE_TASK_STORAGE,
                CGRP_STORAGE_GET | CGRP_STORAGE_DELETE => t == BPF_MAP_TYPE_CGRP_STORAGE,
                _ => true,
            };
        if ok_func {
            return Ok(());
        }
        let s = format!("cannot pass map_type {t} into func {}#{func_id}\n", helpers::func_id_name(func_id));
        self.verbose(&s);
        errno(EINVAL)
    }
}

/// A member of `struct bpf_map` as vmlinux BTF describes it (7.3, with
/// `CONFIG_SECURITY` and `CONFIG_MEMCG`).
enum MapMember {
    /// An integer, or an array of them.
    Scalar,
    /// A pointer to the named struct.
    Ptr(&'static str),
    /// A pointer to something else (`void *`).
    PtrOther,
}

/// `struct bpf_map` up to `name`: (name, offset, size, kind).
const BPF_MAP_MEMBERS: &[(&str, i64, i64, MapMember)] = &[
    ("sha", 0, 32, MapMember::Scalar),
    ("ops", 32, 8, MapMember::Ptr("bpf_map_ops")),
    ("inner_map_meta", 40, 8, MapMember::Ptr("bpf_map")),
    ("security", 48, 8, MapMember::PtrOther),
    ("map_type", 56, 4, MapMember::Scalar),
    ("key_size", 60, 4, MapMember::Scalar),
    ("value_size", 64, 4, MapMember::Scalar),
    ("max_entries", 68, 4, MapMember::Scalar),
    ("map_extra", 72, 8, MapMember::Scalar),
    ("map_flags", 80, 4, MapMember::Scalar),
    ("id", 84, 4, MapMember::Scalar),
    ("record", 88, 8, MapMember::Ptr("btf_record")),
    ("numa_node", 96, 4, MapMember::Scalar),
    ("btf_key_type_id", 100, 4, MapMember::Scalar),
    ("btf_value_type_id", 104, 4, MapMember::Scalar),
    ("btf_vmlinux_value_type_id", 108, 4, MapMember::Scalar),
    ("btf", 112, 8, MapMember::Ptr("btf")),
    ("objcg", 120, 8, MapMember::Ptr("obj_cgroup")),
    ("name", 128, 16, MapMember::Scalar),
];

/// What a read through a map pointer yields (`btf_struct_access`).
pub(crate) enum MapFieldRead {
    Scalar,
    /// `PTR_TO_BTF_ID` of the named struct.
    Ptr(&'static str),
    /// `WALK_PTR_UNTRUSTED`: read-only untrusted memory of size 0.
    UntrustedMem,
}

/// The members of `struct bpf_arena` after its `struct bpf_map` that the
/// model describes: (name, offset, size).
const BPF_ARENA_MEMBERS: &[(&str, i64, i64)] = &[
    ("user_vm_start", crate::kernel_layout::OFFSETOF_BPF_ARENA_USER_VM_START as i64, 8),
    ("user_vm_end", crate::kernel_layout::OFFSETOF_BPF_ARENA_USER_VM_END as i64, 8),
];

/// `btf_struct_walk` of `struct bpf_arena` past its `struct bpf_map`, as
/// [`bpf_map_struct_walk`] (scalar members only).
pub(crate) fn bpf_arena_struct_walk(off: i64, size: i64) -> Result<MapFieldRead, Option<String>> {
    for (name, moff, msize) in BPF_ARENA_MEMBERS {
        if off < *moff || off >= moff + msize {
            continue;
        }
        if off + size > moff + msize {
            return Err(Some(format!("access beyond the end of member {name} (mend:{}) in struct bpf_arena with off {off} size {size}\n", moff + msize)));
        }
        return Ok(MapFieldRead::Scalar);
    }
    Err(None)
}

/// `btf_struct_walk` of `struct bpf_map`, the first member of every map
/// type's struct, for a read of `size` bytes at `off` (non-negative):
/// `Err(Some(message))` is the kernel's refusal, `Err(None)` an offset
/// past the members the model describes.
pub(crate) fn bpf_map_struct_walk(off: i64, size: i64) -> Result<MapFieldRead, Option<String>> {
    for (name, moff, msize, kind) in BPF_MAP_MEMBERS {
        if off + size <= *moff || off < *moff {
            break;
        }
        let mtrue_end = moff + msize;
        if off >= mtrue_end {
            continue;
        }
        return match kind {
            MapMember::Ptr(_) | MapMember::PtrOther if *msize != size || off != *moff => {
                Err(Some(format!("cannot access ptr member {name} with moff {moff} in struct bpf_map with off {off} size {size}\n")))
            }
            MapMember::Ptr(t) => Ok(MapFieldRead::Ptr(t)),
            MapMember::PtrOther => Ok(MapFieldRead::UntrustedMem),
            MapMember::Scalar if off + size > mtrue_end => {
                Err(Some(format!("access beyond the end of member {name} (mend:{mtrue_end}) in struct bpf_map with off {off} size {size}\n")))
            }
            MapMember::Scalar => Ok(MapFieldRead::Scalar),
        };
    }
    Err(None)
}
