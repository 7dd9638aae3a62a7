//! Map definitions as a test declares them (`SEC(".maps")` in the kernel's
//! selftests, `#[map]` and `--map` here).

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
#[derive(Clone, Debug, PartialEq, Eq)]
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
