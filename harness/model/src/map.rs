//! Map definitions as a test declares them (`SEC(".maps")` in the kernel's
//! selftests, `#[map]` and `--map` here).

use crate::target::Arch;

/// `enum bpf_map_type` names and numbers.
pub const MAP_TYPES: &[(u32, &str)] = &[
    (1, "hash"),
    (2, "array"),
    (3, "prog_array"),
    (4, "perf_event_array"),
    (5, "percpu_hash"),
    (6, "percpu_array"),
    (7, "stack_trace"),
    (8, "cgroup_array"),
    (9, "lru_hash"),
    (10, "lru_percpu_hash"),
    (11, "lpm_trie"),
    (12, "array_of_maps"),
    (13, "hash_of_maps"),
    (14, "devmap"),
    (15, "sockmap"),
    (16, "cpumap"),
    (17, "xskmap"),
    (18, "sockhash"),
    (19, "cgroup_storage"),
    (20, "reuseport_sockarray"),
    (21, "percpu_cgroup_storage"),
    (22, "queue"),
    (23, "stack"),
    (24, "sk_storage"),
    (25, "devmap_hash"),
    (26, "struct_ops"),
    (27, "ringbuf"),
    (28, "inode_storage"),
    (29, "task_storage"),
    (30, "bloom_filter"),
    (31, "user_ringbuf"),
    (32, "cgrp_storage"),
    (33, "arena"),
    (34, "insn_array"),
    (35, "rhash"),
];

pub fn map_type_by_name(name: &str) -> Option<u32> {
    let n = name.strip_prefix("BPF_MAP_TYPE_").map(|s| s.to_ascii_lowercase());
    let name = n.as_deref().unwrap_or(name);
    MAP_TYPES.iter().find(|(_, t)| *t == name).map(|t| t.0)
}

pub fn map_type_name(ty: u32) -> &'static str {
    MAP_TYPES.iter().find(|(n, _)| *n == ty).map_or("unknown", |t| t.1)
}

/// One map a program may reference, in the order the object declares it.
#[derive(Clone, PartialEq, Eq)]
pub struct MapDef {
    /// The symbol the asm refers to (`r1 = NAME ll`).
    pub name: String,
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    /// For array/hash of maps: the inner map's definition.
    pub inner: Option<Box<MapDef>>,
    /// Initial contents (`.data`/`.rodata` sections, static initialisers):
    /// (key bytes, value bytes).
    pub init: Vec<(Vec<u8>, Vec<u8>)>,
    /// `.rodata`: frozen after its contents are written.
    pub frozen: bool,
    /// A prog array's `.values = { [key] = &prog }`: libbpf writes each
    /// named program's fd at its key after loading the object's programs.
    pub prog_slots: Vec<(u32, String)>,
    /// An array or hash of maps' `.values = { [key] = &map }`: libbpf
    /// writes each named map's fd at its key once the maps are created
    /// (`init_map_in_map_slots`).
    pub inner_slots: Vec<(u32, String)>,
    /// BPF_MAP_CREATE's `btf_key_type_id` and `btf_value_type_id`: types of
    /// the BTF the program is loaded with (0: none), passed with its fd.
    pub btf_key_type_id: u32,
    pub btf_value_type_id: u32,
    /// BPF_MAP_CREATE's `map_extra` as the object declares it (`__ulong(map_extra,
    /// ...)`); 0 when it does not (see
    /// [`crate::verifier::map_create::loader_map_extra`] for arenas).
    pub map_extra: u64,
    /// An arena's global data (`__arena` variables, libbpf's `arena_data`):
    /// its offset in the arena (`arena_data_off`) and its bytes, which
    /// libbpf copies in through an mmap of the arena after creating it.
    pub arena_data: Option<(u64, Vec<u8>)>,
}

/// As derived, but `prog_slots` and `inner_slots` only when there are some and the BTF type
/// ids only when set: the text of a map without them is what it was before
/// they existed (hashes of recorded programs are taken over it).
impl std::fmt::Debug for MapDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("MapDef");
        d.field("name", &self.name)
            .field("map_type", &self.map_type)
            .field("key_size", &self.key_size)
            .field("value_size", &self.value_size)
            .field("max_entries", &self.max_entries)
            .field("map_flags", &self.map_flags)
            .field("inner", &self.inner)
            .field("init", &self.init)
            .field("frozen", &self.frozen);
        if !self.prog_slots.is_empty() {
            d.field("prog_slots", &self.prog_slots);
        }
        if !self.inner_slots.is_empty() {
            d.field("inner_slots", &self.inner_slots);
        }
        if self.btf_key_type_id != 0 || self.btf_value_type_id != 0 {
            d.field("btf_key_type_id", &self.btf_key_type_id).field("btf_value_type_id", &self.btf_value_type_id);
        }
        if self.map_extra != 0 {
            d.field("map_extra", &self.map_extra);
        }
        if let Some((off, data)) = &self.arena_data {
            d.field("arena_data_off", off).field("arena_data_len", &data.len());
        }
        d.finish()
    }
}

impl MapDef {
    pub fn new(name: &str, map_type: u32, key_size: u32, value_size: u32, max_entries: u32) -> MapDef {
        MapDef {
            name: name.to_string(),
            map_type,
            key_size,
            value_size,
            max_entries,
            map_flags: 0,
            inner: None,
            init: Vec::new(),
            frozen: false,
            prog_slots: Vec::new(),
            inner_slots: Vec::new(),
            btf_key_type_id: 0,
            btf_value_type_id: 0,
            map_extra: 0,
            arena_data: None,
        }
    }

    /// `NAME:TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES[:FLAGS]` as `check --map` takes it.
    pub fn parse_cli(spec: &str) -> Result<MapDef, String> {
        let parts: Vec<&str> = spec.split(':').collect();
        if parts.len() != 5 && parts.len() != 6 {
            return Err(format!("--map '{spec}': expected NAME:TYPE:KEY_SIZE:VALUE_SIZE:MAX_ENTRIES[:FLAGS]"));
        }
        let num = |s: &str, what: &str| -> Result<u32, String> {
            let v = if let Some(h) = s.strip_prefix("0x") { u32::from_str_radix(h, 16) } else { s.parse() };
            v.map_err(|_| format!("--map '{spec}': bad {what} '{s}'"))
        };
        let map_type = map_type_by_name(parts[1]).ok_or_else(|| format!("--map '{spec}': unknown map type '{}'", parts[1]))?;
        let mut m = MapDef::new(parts[0], map_type, num(parts[2], "key size")?, num(parts[3], "value size")?, num(parts[4], "max_entries")?);
        if let Some(f) = parts.get(5) {
            m.map_flags = num(f, "flags")?;
        }
        Ok(m)
    }
}

/// `enum bpf_map_type`, by the kernel's names (for `#[map]` declarations).
pub mod types {
    pub const BPF_MAP_TYPE_HASH: u32 = 1;
    pub const BPF_MAP_TYPE_ARRAY: u32 = 2;
    pub const BPF_MAP_TYPE_PROG_ARRAY: u32 = 3;
    pub const BPF_MAP_TYPE_PERF_EVENT_ARRAY: u32 = 4;
    pub const BPF_MAP_TYPE_PERCPU_HASH: u32 = 5;
    pub const BPF_MAP_TYPE_PERCPU_ARRAY: u32 = 6;
    pub const BPF_MAP_TYPE_STACK_TRACE: u32 = 7;
    pub const BPF_MAP_TYPE_CGROUP_ARRAY: u32 = 8;
    pub const BPF_MAP_TYPE_LRU_HASH: u32 = 9;
    pub const BPF_MAP_TYPE_LRU_PERCPU_HASH: u32 = 10;
    pub const BPF_MAP_TYPE_LPM_TRIE: u32 = 11;
    pub const BPF_MAP_TYPE_ARRAY_OF_MAPS: u32 = 12;
    pub const BPF_MAP_TYPE_HASH_OF_MAPS: u32 = 13;
    pub const BPF_MAP_TYPE_DEVMAP: u32 = 14;
    pub const BPF_MAP_TYPE_SOCKMAP: u32 = 15;
    pub const BPF_MAP_TYPE_CPUMAP: u32 = 16;
    pub const BPF_MAP_TYPE_XSKMAP: u32 = 17;
    pub const BPF_MAP_TYPE_SOCKHASH: u32 = 18;
    pub const BPF_MAP_TYPE_CGROUP_STORAGE: u32 = 19;
    pub const BPF_MAP_TYPE_REUSEPORT_SOCKARRAY: u32 = 20;
    pub const BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE: u32 = 21;
    pub const BPF_MAP_TYPE_QUEUE: u32 = 22;
    pub const BPF_MAP_TYPE_STACK: u32 = 23;
    pub const BPF_MAP_TYPE_SK_STORAGE: u32 = 24;
    pub const BPF_MAP_TYPE_DEVMAP_HASH: u32 = 25;
    pub const BPF_MAP_TYPE_STRUCT_OPS: u32 = 26;
    pub const BPF_MAP_TYPE_RINGBUF: u32 = 27;
    pub const BPF_MAP_TYPE_INODE_STORAGE: u32 = 28;
    pub const BPF_MAP_TYPE_TASK_STORAGE: u32 = 29;
    pub const BPF_MAP_TYPE_BLOOM_FILTER: u32 = 30;
    pub const BPF_MAP_TYPE_USER_RINGBUF: u32 = 31;
    pub const BPF_MAP_TYPE_CGRP_STORAGE: u32 = 32;
    pub const BPF_MAP_TYPE_ARENA: u32 = 33;
    pub const BPF_MAP_TYPE_INSN_ARRAY: u32 = 34;
    pub const BPF_MAP_TYPE_RHASH: u32 = 35;
}

/// `map_flags` of BPF_MAP_CREATE, by the kernel's names.
pub mod flags {
    pub const BPF_F_NO_PREALLOC: u32 = 1 << 0;
    pub const BPF_F_NO_COMMON_LRU: u32 = 1 << 1;
    pub const BPF_F_NUMA_NODE: u32 = 1 << 2;
    pub const BPF_F_RDONLY: u32 = 1 << 3;
    pub const BPF_F_WRONLY: u32 = 1 << 4;
    pub const BPF_F_STACK_BUILD_ID: u32 = 1 << 5;
    pub const BPF_F_ZERO_SEED: u32 = 1 << 6;
    pub const BPF_F_RDONLY_PROG: u32 = 1 << 7;
    pub const BPF_F_WRONLY_PROG: u32 = 1 << 8;
    pub const BPF_F_CLONE: u32 = 1 << 9;
    pub const BPF_F_MMAPABLE: u32 = 1 << 10;
    pub const BPF_F_PRESERVE_ELEMS: u32 = 1 << 11;
    pub const BPF_F_INNER_MAP: u32 = 1 << 12;
    pub const BPF_F_LINK: u32 = 1 << 13;
    pub const BPF_F_PATH_FD: u32 = 1 << 14;
    pub const BPF_F_VTYPE_BTF_OBJ_FD: u32 = 1 << 15;
    pub const BPF_F_TOKEN_FD: u32 = 1 << 16;
    pub const BPF_F_SEGV_ON_FAULT: u32 = 1 << 17;
    pub const BPF_F_NO_USER_CONV: u32 = 1 << 18;
    pub const BPF_F_RB_OVERWRITE: u32 = 1 << 19;
}

/// test_loader's `is_unpriv_capable_map`: the maps an unprivileged run
/// still creates (libbpf poisons references to the others).
pub fn is_unpriv_capable(m: &MapDef) -> bool {
    use types::*;
    match m.map_type {
        BPF_MAP_TYPE_HASH | BPF_MAP_TYPE_PERCPU_HASH | BPF_MAP_TYPE_HASH_OF_MAPS => m.map_flags & flags::BPF_F_ZERO_SEED == 0,
        BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE
        | BPF_MAP_TYPE_ARRAY
        | BPF_MAP_TYPE_RINGBUF
        | BPF_MAP_TYPE_PROG_ARRAY
        | BPF_MAP_TYPE_CGROUP_ARRAY
        | BPF_MAP_TYPE_PERCPU_ARRAY
        | BPF_MAP_TYPE_USER_RINGBUF
        | BPF_MAP_TYPE_ARRAY_OF_MAPS
        | BPF_MAP_TYPE_CGROUP_STORAGE
        | BPF_MAP_TYPE_PERF_EVENT_ARRAY => true,
        _ => false,
    }
}

/// Where the model's maps live: stable addresses in the arch's direct map,
/// as 7.3 shows them to root (`0xffff888005e7c800` on x86_64,
/// `0xfff0000004d50200` on arm64), 16 MB apart so that no map's value
/// (an array's `value` follows its `struct bpf_array`) reaches into the
/// next map's: `bpf_map_from_imm` names a value address by the map whose
/// value holds it.
pub fn map_kaddr(arch: Arch, index: usize) -> u64 {
    let base: u64 = match arch {
        Arch::X86_64 => 0xffff_8880_05e7_c000,
        Arch::Arm64 => 0xfff0_0000_04d5_0000,
        Arch::Riscv64 => 0xff60_0000_8200_0000,
        Arch::S390x => 0x0000_0000_8200_0000,
        Arch::Loongarch64 => 0x9000_0000_0420_0000,
    };
    base.wrapping_add(0x100_0000u64.wrapping_mul(index as u64))
}

/// Where the model's `struct bpf_prog_aux` lives, the pointer the fixups
/// load for `bpf_timer_set_callback` and the kfuncs that take it
/// implicitly: a stand-in address in the arch's direct map, below the
/// maps' pages. 7.3 allocates it per load, so no address is the kernel's:
/// what compares loads masks an `ld_imm64` of a kernel pointer.
pub fn prog_aux_kaddr(arch: Arch) -> u64 {
    map_kaddr(arch, 0) - 0x10_0000
}

/// Where the model's `btf_struct_meta` of a local type lives, the
/// pointer the fixups load for `bpf_obj_new`, `bpf_obj_drop` and
/// `bpf_refcount_acquire` of a type that has one: a stand-in below the
/// program's aux (7.3 allocates the metas when it loads the program's BTF;
/// what compares loads masks the address).
pub fn btf_struct_meta_kaddr(arch: Arch) -> u64 {
    prog_aux_kaddr(arch) - 0x10_0000
}

#[cfg(test)]
mod consts_tests {
    #[test]
    fn type_constants_follow_the_table() {
        for (n, name) in super::MAP_TYPES {
            assert_eq!(super::map_type_by_name(&format!("BPF_MAP_TYPE_{}", name.to_uppercase())), Some(*n));
        }
        assert_eq!(super::types::BPF_MAP_TYPE_INSN_ARRAY, 34);
        assert_eq!(super::types::BPF_MAP_TYPE_RINGBUF, 27);
    }
}
