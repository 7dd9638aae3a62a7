//! The special fields of a value type (`btf_parse_fields` and the
//! `btf_find_*` walk beneath it in `kernel/bpf/btf.c`): locks, timers,
//! work items, graph roots and nodes, refcounts and tagged pointers, found
//! by their struct's name (or, for pointers, their type tags) in a struct
//! or data section, through nested structs and arrays.

use super::*;

/// `enum btf_field_type`, one bit per kind of special field.
pub const BPF_SPIN_LOCK: u32 = 1 << 0;
pub const BPF_TIMER: u32 = 1 << 1;
pub const BPF_KPTR_UNREF: u32 = 1 << 2;
pub const BPF_KPTR_REF: u32 = 1 << 3;
pub const BPF_KPTR_PERCPU: u32 = 1 << 4;
pub const BPF_KPTR: u32 = BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU;
pub const BPF_LIST_HEAD: u32 = 1 << 5;
pub const BPF_LIST_NODE: u32 = 1 << 6;
pub const BPF_RB_ROOT: u32 = 1 << 7;
pub const BPF_RB_NODE: u32 = 1 << 8;
pub const BPF_GRAPH_NODE: u32 = BPF_RB_NODE | BPF_LIST_NODE;
pub const BPF_GRAPH_ROOT: u32 = BPF_RB_ROOT | BPF_LIST_HEAD;
pub const BPF_REFCOUNT: u32 = 1 << 9;
pub const BPF_WORKQUEUE: u32 = 1 << 10;
pub const BPF_UPTR: u32 = 1 << 11;
pub const BPF_RES_SPIN_LOCK: u32 = 1 << 12;
pub const BPF_TASK_WORK: u32 = 1 << 13;

/// `BTF_FIELDS_MAX`: how many special fields one value may hold.
pub const BTF_FIELDS_MAX: usize = 11;

/// `btf_field_type_size`: the size of the uapi struct (or pointer) of
/// each kind.
pub fn btf_field_type_size(field_type: u32) -> u32 {
    match field_type {
        // `struct bpf_res_spin_lock` is the kernel's `{ u32 val; }` (4 bytes
        // in the 7.3 vmlinux BTF)
        BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK | BPF_REFCOUNT => 4,
        BPF_TASK_WORK | BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_UPTR => 8,
        BPF_TIMER | BPF_WORKQUEUE | BPF_LIST_HEAD | BPF_RB_ROOT => 16,
        BPF_LIST_NODE => 24,
        BPF_RB_NODE => 32,
        _ => 0,
    }
}

/// `btf_field_type_align`.
pub fn btf_field_type_align(field_type: u32) -> u32 {
    match field_type {
        BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK | BPF_REFCOUNT => 4,
        0 => 0,
        _ => 8,
    }
}

/// `btf_field_type_name`: how the verifier's messages name each kind.
pub fn btf_field_type_name(field_type: u32) -> &'static str {
    match field_type {
        BPF_SPIN_LOCK => "bpf_spin_lock",
        BPF_RES_SPIN_LOCK => "bpf_res_spin_lock",
        BPF_TIMER => "bpf_timer",
        BPF_WORKQUEUE => "bpf_wq",
        BPF_TASK_WORK => "bpf_task_work",
        BPF_KPTR_UNREF | BPF_KPTR_REF => "kptr",
        BPF_KPTR_PERCPU => "percpu_kptr",
        BPF_UPTR => "uptr",
        BPF_LIST_HEAD => "bpf_list_head",
        BPF_LIST_NODE => "bpf_list_node",
        BPF_RB_ROOT => "bpf_rb_root",
        BPF_RB_NODE => "bpf_rb_node",
        BPF_REFCOUNT => "bpf_refcount",
        _ => "unknown",
    }
}

/// Why [`Btf::btf_parse_fields`] found no record: the kernel's errno,
/// by name (the caller turns it into a number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldsError {
    Inval,
    TooBig,
    Exist,
    NoEnt,
    Fault,
}

/// One special field (`struct btf_field`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BtfField {
    pub offset: u32,
    pub size: u32,
    /// One of the `BPF_*` kinds above.
    pub field_type: u32,
    /// A tagged pointer's pointee (a struct of this BTF), 0 otherwise.
    pub kptr_type_id: u32,
    /// The pointee's name (what `btf_parse_kptr` looks up in the kernel's
    /// BTF), empty for other fields.
    pub kptr_name: String,
    /// A list head's or rbtree root's element struct (this BTF) and where
    /// its node lies in it, 0 otherwise.
    pub graph_value_type_id: u32,
    pub graph_node_offset: u32,
}

/// The special fields of a value (`struct btf_record`), by offset, with
/// the unique ones' offsets cached. The default (no fields) is also what a
/// map with BTF but without a usable record looks like to the verifier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BtfRecord {
    pub fields: Vec<BtfField>,
    pub field_mask: u32,
    pub spin_lock_off: Option<u32>,
    pub res_spin_lock_off: Option<u32>,
    pub timer_off: Option<u32>,
    pub wq_off: Option<u32>,
    pub refcount_off: Option<u32>,
    pub task_work_off: Option<u32>,
}

/// `btf_record_find`: the field of a kind in `mask` at exactly `offset`.
pub fn btf_record_find(rec: &BtfRecord, offset: i64, mask: u32) -> Option<&BtfField> {
    rec.fields.iter().find(|f| i64::from(f.offset) == offset && f.field_type & mask != 0)
}

impl BtfRecord {
    /// `btf_record_has_field`: any of the kinds in `mask`.
    pub fn has_field(&self, mask: u32) -> bool {
        self.field_mask & mask != 0
    }
}

/// What `btf_find_field` collects of one field before the record is made
/// (`struct btf_field_info`).
#[derive(Clone, Copy, Debug)]
struct FieldInfo {
    field_type: u32,
    off: u32,
    kptr_type_id: u32,
    graph_value_type_id: u32,
    /// Where the `contains:` tag's node name starts in the string section.
    graph_node_name_off: u32,
    graph_node_name_len: u32,
}

impl FieldInfo {
    fn new(field_type: u32, off: u32) -> FieldInfo {
        FieldInfo { field_type, off, kptr_type_id: 0, graph_value_type_id: 0, graph_node_name_off: 0, graph_node_name_len: 0 }
    }
}

/// The walk's state: the fields found so far (at most `BTF_FIELDS_MAX`)
/// and the unique kinds seen.
struct FieldWalk {
    info: Vec<FieldInfo>,
    seen_mask: u32,
    field_mask: u32,
}

fn is_struct(t: &TypeEntry) -> bool {
    t.kind == BTF_KIND_STRUCT || t.kind == BTF_KIND_UNION
}

fn is_modifier(kind: u32) -> bool {
    matches!(kind, BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_TYPE_TAG)
}

/// The unique kinds, of which a value may hold one each.
const UNIQUE_FIELDS: u32 = BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK | BPF_TIMER | BPF_WORKQUEUE | BPF_TASK_WORK | BPF_REFCOUNT;

/// The struct name of each kind `btf_get_field_type` looks for.
const FIELD_TYPE_NAMES: &[(u32, &str)] = &[
    (BPF_SPIN_LOCK, "bpf_spin_lock"),
    (BPF_RES_SPIN_LOCK, "bpf_res_spin_lock"),
    (BPF_TIMER, "bpf_timer"),
    (BPF_WORKQUEUE, "bpf_wq"),
    (BPF_TASK_WORK, "bpf_task_work"),
    (BPF_LIST_HEAD, "bpf_list_head"),
    (BPF_LIST_NODE, "bpf_list_node"),
    (BPF_RB_ROOT, "bpf_rb_root"),
    (BPF_RB_NODE, "bpf_rb_node"),
    (BPF_REFCOUNT, "bpf_refcount"),
];

impl Btf {
    /// `btf_type_id_size`: the sized type behind `id` (modifiers and
    /// typedefs skipped; an array keeps its own id) and its size; `None`
    /// for void, functions, variables and other unsized kinds.
    pub fn btf_type_id_size(&self, id: u32) -> Option<(u32, u32)> {
        let mut id = id;
        for _ in 0..MAX_RESOLVE_DEPTH {
            let t = self.type_by_id(id)?;
            match t.kind {
                k if is_modifier(k) => id = t.size_or_type,
                BTF_KIND_INT | BTF_KIND_STRUCT | BTF_KIND_UNION | BTF_KIND_ENUM | BTF_KIND_ENUM64 | BTF_KIND_DATASEC | BTF_KIND_FLOAT => {
                    return Some((id, t.size_or_type));
                }
                BTF_KIND_PTR => return Some((id, 8)),
                BTF_KIND_ARRAY => {
                    let a = self.array(id)?;
                    let (_, elem) = self.btf_type_id_size(a.elem_type)?;
                    return Some((id, elem.checked_mul(a.nelems)?));
                }
                _ => return None,
            }
        }
        None
    }

    /// `btf_type_is_i32`: an INT of 4 bytes.
    pub fn btf_type_is_i32(&self, id: u32) -> bool {
        self.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_INT && t.size_or_type == 4)
    }

    /// `btf_parse_fields`: the record of the special fields of `kinds`
    /// (`BPF_*` bits) in value type `id` (a struct, union or data section;
    /// as `btf_type_id_size` resolved it) of `value_size` bytes. `Ok(None)`
    /// when it has none. Tagged pointers are taken as found: what
    /// `btf_parse_kptr` looks up in the kernel's BTF is the caller's.
    pub fn btf_parse_fields(&self, id: u32, kinds: u32, value_size: u32) -> Result<Option<BtfRecord>, FieldsError> {
        let mut walk = FieldWalk { info: Vec::new(), seen_mask: 0, field_mask: kinds };
        self.btf_find_field(id, &mut walk)?;
        if walk.info.is_empty() {
            return Ok(None);
        }
        let mut rec = BtfRecord::default();
        let mut next_off = 0u32;
        for info in &walk.info {
            let size = btf_field_type_size(info.field_type);
            if u64::from(info.off) + u64::from(size) > u64::from(value_size) {
                return Err(FieldsError::Fault);
            }
            if info.off < next_off {
                return Err(FieldsError::Exist);
            }
            next_off = info.off + size;
            rec.field_mask |= info.field_type;
            let mut field = BtfField {
                offset: info.off,
                size,
                field_type: info.field_type,
                kptr_type_id: 0,
                kptr_name: String::new(),
                graph_value_type_id: 0,
                graph_node_offset: 0,
            };
            let slot = match info.field_type {
                BPF_SPIN_LOCK => Some(&mut rec.spin_lock_off),
                BPF_RES_SPIN_LOCK => Some(&mut rec.res_spin_lock_off),
                BPF_TIMER => Some(&mut rec.timer_off),
                BPF_WORKQUEUE => Some(&mut rec.wq_off),
                BPF_TASK_WORK => Some(&mut rec.task_work_off),
                BPF_REFCOUNT => Some(&mut rec.refcount_off),
                BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_UPTR => {
                    field.kptr_type_id = info.kptr_type_id;
                    field.kptr_name = self.type_by_id(info.kptr_type_id).and_then(|t| self.name(t.name_off)).unwrap_or("").to_string();
                    None
                }
                BPF_LIST_HEAD => {
                    field.graph_node_offset = self.btf_parse_graph_root(info, "bpf_list_node", 8)?;
                    field.graph_value_type_id = info.graph_value_type_id;
                    None
                }
                BPF_RB_ROOT => {
                    field.graph_node_offset = self.btf_parse_graph_root(info, "bpf_rb_node", 8)?;
                    field.graph_value_type_id = info.graph_value_type_id;
                    None
                }
                BPF_LIST_NODE | BPF_RB_NODE => None,
                _ => return Err(FieldsError::Fault),
            };
            if let Some(slot) = slot {
                *slot = Some(info.off);
            }
            rec.fields.push(field);
        }
        if rec.spin_lock_off.is_some() && rec.res_spin_lock_off.is_some() {
            return Err(FieldsError::Inval);
        }
        // graph roots need a lock beside them
        if rec.has_field(BPF_GRAPH_ROOT) && rec.spin_lock_off.is_none() && rec.res_spin_lock_off.is_none() {
            return Err(FieldsError::Inval);
        }
        // an object in both a list and an rbtree needs a refcount
        if rec.refcount_off.is_none() && rec.has_field(BPF_LIST_NODE) && rec.has_field(BPF_RB_NODE) {
            return Err(FieldsError::Inval);
        }
        rec.fields.sort_by_key(|f| f.offset);
        Ok(Some(rec))
    }

    /// `btf_find_struct_meta` over what `btf_parse_struct_metas` builds
    /// when the program's BTF is loaded: the record of a struct with a
    /// member whose type is one of the graph, lock or refcount structs
    /// (the first of that name) or a tagged kernel pointer; `Ok(None)`
    /// when the struct has no such member (no meta).
    pub fn btf_find_struct_meta(&self, id: u32) -> Result<Option<BtfRecord>, FieldsError> {
        const ALLOC_OBJ_FIELDS: &[&str] = &["bpf_spin_lock", "bpf_list_head", "bpf_list_node", "bpf_rb_root", "bpf_rb_node", "bpf_refcount"];
        let t = self.type_by_id(id).ok_or(FieldsError::Inval)?;
        if t.kind != BTF_KIND_STRUCT {
            return Ok(None);
        }
        let special = |m: u32| -> Result<bool, FieldsError> {
            if ALLOC_OBJ_FIELDS.iter().any(|n| self.find_by_name_kind(n, BTF_KIND_STRUCT) == Some(m)) {
                return Ok(true);
            }
            // a type btf_find_kptr refuses is no kptr
            Ok(matches!(self.btf_find_kptr(m, 0, BPF_KPTR), Ok(Some(_))))
        };
        let mut has = false;
        for m in self.members(id) {
            if special(m.type_id)? {
                has = true;
                break;
            }
        }
        if !has {
            return Ok(None);
        }
        let kinds = BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK | BPF_LIST_HEAD | BPF_LIST_NODE | BPF_RB_ROOT | BPF_RB_NODE | BPF_REFCOUNT | BPF_KPTR;
        // the record cannot be unset once the type has a meta
        self.btf_parse_fields(id, kinds, t.size_or_type)?.ok_or(FieldsError::Fault).map(Some)
    }

    /// `btf_find_field`: a struct's members or a data section's variables.
    fn btf_find_field(&self, id: u32, walk: &mut FieldWalk) -> Result<(), FieldsError> {
        let t = self.type_by_id(id).ok_or(FieldsError::Inval)?;
        if is_struct(t) {
            self.btf_find_struct_field(id, walk, 0)
        } else if t.kind == BTF_KIND_DATASEC {
            self.btf_find_datasec_var(id, walk)
        } else {
            Err(FieldsError::Inval)
        }
    }

    /// `btf_find_struct_field`.
    fn btf_find_struct_field(&self, id: u32, walk: &mut FieldWalk, level: u32) -> Result<(), FieldsError> {
        let kflag = self.kind_flag(id);
        for (i, m) in self.members(id).iter().enumerate() {
            let bits = if kflag { m.offset & 0xff_ffff } else { m.offset };
            if bits % 8 != 0 {
                return Err(FieldsError::Inval);
            }
            self.btf_find_field_one(id, m.type_id, i as i32, bits / 8, 0, walk, level)?;
        }
        Ok(())
    }

    /// `btf_find_datasec_var`: each variable at its section offset, of the
    /// size the section gives it.
    fn btf_find_datasec_var(&self, id: u32, walk: &mut FieldWalk) -> Result<(), FieldsError> {
        for v in self.datasec_vars(id) {
            let var_type = self.type_by_id(v.type_id).map_or(0, |t| t.size_or_type);
            self.btf_find_field_one(v.type_id, var_type, -1, v.offset, v.size, walk, 0)?;
        }
        Ok(())
    }

    /// `btf_get_field_type`: the kind a member's type names (by the
    /// type's own name, modifiers not skipped), or a pointer candidate.
    fn btf_get_field_type(&self, var_type: u32, walk: &mut FieldWalk) -> Result<u32, FieldsError> {
        let Some(t) = self.type_by_id(var_type) else { return Ok(0) };
        let name = self.name(t.name_off).unwrap_or("");
        for &(kind, kind_name) in FIELD_TYPE_NAMES {
            if walk.field_mask & kind == 0 || name != kind_name {
                continue;
            }
            if kind & UNIQUE_FIELDS != 0 {
                if walk.seen_mask & kind != 0 {
                    return Err(FieldsError::TooBig);
                }
                walk.seen_mask |= kind;
            }
            return Ok(kind);
        }
        if walk.field_mask & (BPF_KPTR | BPF_UPTR) != 0 && !is_struct(t) {
            return Ok(BPF_KPTR_REF);
        }
        Ok(0)
    }

    /// `btf_find_field_one`: one member (or variable) `var_type` at `off`
    /// of container `var` (`var_idx`: its member index, -1 for a
    /// variable), arrays of it flattened.
    #[allow(clippy::too_many_arguments)]
    fn btf_find_field_one(
        &self,
        var: u32,
        var_type: u32,
        var_idx: i32,
        off: u32,
        expected_size: u32,
        walk: &mut FieldWalk,
        level: u32,
    ) -> Result<(), FieldsError> {
        let mut var_type = var_type;
        let mut nelems: u32 = 1;
        let mut depth = 0;
        while let Some(a) = self.array(var_type) {
            if depth == MAX_RESOLVE_DEPTH {
                return Err(FieldsError::TooBig);
            }
            nelems = nelems.wrapping_mul(a.nelems);
            var_type = a.elem_type;
            depth += 1;
        }
        if nelems == 0 {
            return Ok(());
        }
        let field_type = self.btf_get_field_type(var_type, walk)?;
        let Some(t) = self.type_by_id(var_type).copied() else { return Ok(()) };
        if field_type == 0 && is_struct(&t) {
            if expected_size != 0 && u64::from(expected_size) != u64::from(t.size_or_type) * u64::from(nelems) {
                return Ok(());
            }
            return self.btf_find_nested_struct(var_type, off, nelems, walk, level);
        }
        if field_type == 0 {
            return Ok(());
        }
        let sz = btf_field_type_size(field_type);
        if expected_size != 0 && u64::from(expected_size) != u64::from(sz) * u64::from(nelems) {
            return Ok(());
        }
        if !off.is_multiple_of(btf_field_type_align(field_type)) {
            return Ok(());
        }
        let found = match field_type {
            BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_UPTR => self.btf_find_kptr(var_type, off, walk.field_mask)?,
            BPF_LIST_HEAD | BPF_RB_ROOT => self.btf_find_graph_root(var, &t, var_idx, off, sz, field_type)?,
            // btf_find_struct: a struct of the kind's size
            _ => (is_struct(&t) && t.size_or_type == sz).then(|| FieldInfo::new(field_type, off)),
        };
        let Some(info) = found else { return Ok(()) };
        if walk.info.len() >= BTF_FIELDS_MAX {
            return Err(FieldsError::TooBig);
        }
        let first = walk.info.len();
        walk.info.push(info);
        if nelems > 1 {
            btf_repeat_fields(walk, first, nelems - 1, sz)?;
        }
        Ok(())
    }

    /// `btf_find_nested_struct`: the fields of a struct member, moved to
    /// its offset and repeated for each element of an array of it.
    fn btf_find_nested_struct(&self, id: u32, off: u32, nelems: u32, walk: &mut FieldWalk, level: u32) -> Result<(), FieldsError> {
        let level = level + 1;
        if level as usize >= MAX_RESOLVE_DEPTH {
            return Err(FieldsError::TooBig);
        }
        let first = walk.info.len();
        self.btf_find_struct_field(id, walk, level)?;
        if walk.info.len() == first {
            return Ok(());
        }
        for info in &mut walk.info[first..] {
            info.off = info.off.wrapping_add(off);
        }
        if nelems > 1 {
            let size = self.type_by_id(id).map_or(0, |t| t.size_or_type);
            btf_repeat_fields(walk, first, nelems - 1, size)?;
        }
        Ok(())
    }

    /// `btf_find_kptr`: a pointer (perhaps volatile) whose type tags say
    /// which kind of kptr it is; one tag at most, to a struct.
    fn btf_find_kptr(&self, var_type: u32, off: u32, field_mask: u32) -> Result<Option<FieldInfo>, FieldsError> {
        let mut id = var_type;
        if self.type_by_id(id).is_some_and(|t| t.kind == BTF_KIND_VOLATILE) {
            id = self.type_by_id(id).map_or(0, |t| t.size_or_type);
        }
        if self.type_by_id(id).is_none_or(|t| t.kind != BTF_KIND_PTR) {
            return Ok(None);
        }
        // btf_type_tag_walk: the modifiers after the pointer
        let mut res = 0u32;
        let mut t = *self.type_by_id(id).ok_or(FieldsError::Inval)?;
        loop {
            id = t.size_or_type;
            t = *self.type_by_id(id).ok_or(FieldsError::Inval)?;
            if !is_modifier(t.kind) {
                break;
            }
            if t.kind != BTF_KIND_TYPE_TAG || self.kind_flag(id) {
                continue;
            }
            let flag = match self.name(t.name_off).unwrap_or("") {
                "kptr_untrusted" => BPF_KPTR_UNREF,
                "kptr" => BPF_KPTR_REF,
                "percpu_kptr" => BPF_KPTR_PERCPU,
                "uptr" => BPF_UPTR,
                _ => 0,
            };
            res |= flag;
        }
        if res.count_ones() > 1 {
            return Err(FieldsError::Inval);
        }
        if res & field_mask == 0 {
            return Ok(None);
        }
        if !is_struct(&t) {
            return Err(FieldsError::Inval);
        }
        Ok(Some(FieldInfo { kptr_type_id: id, ..FieldInfo::new(res, off) }))
    }

    /// `btf_find_graph_root`: a list head or rbtree root, with the
    /// `contains:Type:node` decl tag of its member (or variable) naming
    /// the element struct and its node.
    fn btf_find_graph_root(&self, pt: u32, t: &TypeEntry, comp_idx: i32, off: u32, sz: u32, head_type: u32) -> Result<Option<FieldInfo>, FieldsError> {
        if !is_struct(t) || t.size_or_type != sz {
            return Ok(None);
        }
        const KEY: &str = "contains:";
        let tags: Vec<u32> = (1..self.type_cnt() as u32)
            .filter(|&i| {
                self.type_by_id(i).is_some_and(|d| {
                    d.kind == BTF_KIND_DECL_TAG
                        && d.size_or_type == pt
                        && self.decl_tag_component_idx(i) == Some(comp_idx)
                        && self.name(d.name_off).is_some_and(|n| n.starts_with(KEY))
                })
            })
            .collect();
        // none, or two for the same member
        let [tag] = tags[..] else { return Err(FieldsError::Inval) };
        let name_off = self.type_by_id(tag).map_or(0, |d| d.name_off);
        let value = &self.name(name_off).unwrap_or("")[KEY.len()..];
        let Some(colon) = value.find(':') else { return Err(FieldsError::Inval) };
        let value_id = self.find_by_name_kind(&value[..colon], BTF_KIND_STRUCT).ok_or(FieldsError::NoEnt)?;
        let node = &value[colon + 1..];
        if node.is_empty() {
            return Err(FieldsError::Inval);
        }
        Ok(Some(FieldInfo {
            graph_value_type_id: value_id,
            graph_node_name_off: name_off + (KEY.len() + colon + 1) as u32,
            graph_node_name_len: node.len() as u32,
            ..FieldInfo::new(head_type, off)
        }))
    }

    /// `btf_parse_graph_root`: where the element struct holds its node
    /// (`node_type_name`, aligned to `node_align`).
    fn btf_parse_graph_root(&self, info: &FieldInfo, node_type_name: &str, node_align: u32) -> Result<u32, FieldsError> {
        let whole = self.name(info.graph_node_name_off).unwrap_or("");
        let node_name = &whole[..(info.graph_node_name_len as usize).min(whole.len())];
        let mut found = None;
        for m in self.members(info.graph_value_type_id) {
            if self.name(m.name_off).unwrap_or("") != node_name {
                continue;
            }
            if found.is_some() {
                return Err(FieldsError::Inval);
            }
            let n = *self.type_by_id(m.type_id).ok_or(FieldsError::Inval)?;
            if !is_struct(&n) || self.name(n.name_off).unwrap_or("") != node_type_name {
                return Err(FieldsError::Inval);
            }
            // (the kernel reads the bit offset by the node type's kind_flag)
            let bits = if self.kind_flag(m.type_id) { m.offset & 0xff_ffff } else { m.offset };
            if bits % 8 != 0 || (bits / 8) % node_align != 0 {
                return Err(FieldsError::Inval);
            }
            found = Some(bits / 8);
        }
        found.ok_or(FieldsError::NoEnt)
    }
}

/// `btf_repeat_fields`: the fields from `first` on, repeated `repeat`
/// more times `elem_size` apart (only pointers and graph roots may be).
fn btf_repeat_fields(walk: &mut FieldWalk, first: usize, repeat: u32, elem_size: u32) -> Result<(), FieldsError> {
    let group: Vec<FieldInfo> = walk.info[first..].to_vec();
    if group.iter().any(|f| !matches!(f.field_type, BPF_KPTR_UNREF | BPF_KPTR_REF | BPF_KPTR_PERCPU | BPF_UPTR | BPF_LIST_HEAD | BPF_RB_ROOT)) {
        return Err(FieldsError::Inval);
    }
    let total = (group.len() as u64) * (u64::from(repeat) + 1);
    if first as u64 + total > BTF_FIELDS_MAX as u64 {
        return Err(FieldsError::TooBig);
    }
    for i in 0..repeat {
        for f in &group {
            walk.info.push(FieldInfo { off: f.off.wrapping_add((i + 1).wrapping_mul(elem_size)), ..*f });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(types: &[&[u32]], strings: &[u8]) -> Btf {
        let t: Vec<u8> = types.iter().flat_map(|w| w.iter()).flat_map(|w| w.to_le_bytes()).collect();
        let mut b = Vec::new();
        b.extend_from_slice(&BTF_MAGIC.to_le_bytes());
        b.extend_from_slice(&[BTF_VERSION, 0]);
        for w in [24u32, 0, t.len() as u32, t.len() as u32, strings.len() as u32] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&t);
        b.extend_from_slice(strings);
        Btf::parse(&b).unwrap()
    }

    #[test]
    fn timers_found_nested_and_refused_repeated_or_twice() {
        // "" int bpf_timer x t elem u
        let strings = b"\0int\0bpf_timer\0x\0t\0elem\0u\0";
        let b = blob(
            &[
                &[1, BTF_KIND_INT << 24, 4, 32],                             // [1] int
                &[5, (BTF_KIND_STRUCT << 24) | 1, 16, 15, 1, 0],             // [2] struct bpf_timer
                &[19, (BTF_KIND_STRUCT << 24) | 2, 24, 15, 1, 0, 17, 2, 64], // [3] struct elem { x; t at 8 }
                &[0, BTF_KIND_ARRAY << 24, 0, 3, 1, 2],                      // [4] struct elem[2]
                &[24, (BTF_KIND_STRUCT << 24) | 1, 48, 17, 4, 0],            // [5] { elem[2] }
                &[0, (BTF_KIND_STRUCT << 24) | 2, 32, 17, 2, 0, 15, 2, 128], // [6] two timers
                &[0, (BTF_KIND_STRUCT << 24) | 2, 40, 15, 1, 0, 17, 3, 128], // [7] { x; elem at 16 }
            ],
            strings,
        );
        let all = BPF_SPIN_LOCK | BPF_TIMER | BPF_KPTR | BPF_UPTR | BPF_GRAPH_ROOT | BPF_REFCOUNT | BPF_WORKQUEUE;
        let rec = b.btf_parse_fields(3, all, 24).unwrap().unwrap();
        assert_eq!((rec.timer_off, rec.field_mask, rec.fields.len(), rec.fields[0].size), (Some(8), BPF_TIMER, 1, 16));
        assert_eq!(b.btf_parse_fields(7, all, 40).unwrap().unwrap().timer_off, Some(24));
        assert_eq!(b.btf_parse_fields(5, all, 48), Err(FieldsError::Inval));
        assert_eq!(b.btf_parse_fields(6, all, 32), Err(FieldsError::TooBig));
        assert_eq!(b.btf_parse_fields(1, all, 4), Err(FieldsError::Inval));
        assert_eq!(b.btf_parse_fields(3, BPF_SPIN_LOCK, 24), Ok(None));
        assert_eq!(b.btf_parse_fields(3, all, 20), Err(FieldsError::Fault));
        assert_eq!(b.btf_type_id_size(4), Some((4, 48)));
        assert!(b.btf_type_is_i32(1));
    }

    #[test]
    fn struct_metas_only_for_direct_special_members() {
        let strings = b"\0int\0bpf_refcount\0node\0x\0r\0plain\0outer\0n\0";
        let b = blob(
            &[
                &[1, BTF_KIND_INT << 24, 4, 32],                            // [1] int
                &[5, (BTF_KIND_STRUCT << 24) | 1, 4, 23, 1, 0],             // [2] struct bpf_refcount
                &[18, (BTF_KIND_STRUCT << 24) | 2, 8, 23, 1, 0, 25, 2, 32], // [3] node { x; r at 4 }
                &[27, (BTF_KIND_STRUCT << 24) | 1, 4, 23, 1, 0],            // [4] plain { x }
                &[33, (BTF_KIND_STRUCT << 24) | 1, 8, 39, 3, 0],            // [5] outer { node n }
            ],
            strings,
        );
        let rec = b.btf_find_struct_meta(3).unwrap().unwrap();
        assert_eq!((rec.refcount_off, rec.field_mask, rec.fields.len()), (Some(4), BPF_REFCOUNT, 1));
        assert_eq!(b.btf_find_struct_meta(4), Ok(None));
        // a special field nested in a member struct gives the outer one no meta
        assert_eq!(b.btf_find_struct_meta(5), Ok(None));
        assert_eq!(b.btf_find_struct_meta(1), Ok(None));
    }
}
