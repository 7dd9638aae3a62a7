//! An object's maps, as `bpf_object__init_maps` makes them: the BTF-defined
//! maps of `.maps` (`parse_btf_map_def`), then an internal array per global
//! data section, then (not yet) `.kconfig`; and the initial slots of a
//! prog array from `.rel.maps`.

use object::elf;
use object::read::elf::Rel;

use super::{BpfObject, Elf, ObjectError, SecType, err};
use crate::btf::{
    BTF_KIND_ARRAY, BTF_KIND_DATASEC, BTF_KIND_ENUM, BTF_KIND_ENUM64, BTF_KIND_FUNC_PROTO, BTF_KIND_PTR, BTF_KIND_STRUCT, BTF_KIND_VAR,
    BTF_VAR_GLOBAL_ALLOCATED, BTF_VAR_STATIC, Btf, Member,
};
use crate::map::MapDef;
use crate::map::flags::{BPF_F_MMAPABLE, BPF_F_RDONLY_PROG};
use crate::map::types::{
    BPF_MAP_TYPE_ARENA, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_ARRAY_OF_MAPS, BPF_MAP_TYPE_HASH_OF_MAPS, BPF_MAP_TYPE_PROG_ARRAY, BPF_MAP_TYPE_RINGBUF,
    BPF_MAP_TYPE_USER_RINGBUF,
};
use crate::registry::internal_map_name;

/// libbpf's `libbpf_map_type`: where a map comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    /// A `.maps` definition.
    User,
    /// `.data` or `.data.*`.
    Data,
    /// `.rodata` or `.rodata.*`.
    Rodata,
    /// `.bss` or `.bss.*`.
    Bss,
}

/// One map of the object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpfMap {
    /// As the kernel gets it (name, type, sizes, flags, initial contents).
    pub def: MapDef,
    pub kind: MapKind,
    /// The variable's name for a `.maps` definition, the ELF section's for
    /// global data (`def.name` is what libbpf derives from it).
    pub real_name: String,
    pub(super) sec_idx: usize,
    /// Where a `.maps` definition starts in its section, and its size.
    pub(super) sec_offset: u64,
    pub(super) sec_size: u64,
    /// What libbpf would do with this map that this reader does not yet:
    /// programs that use the map fail to link with this.
    pub unsupported: Option<String>,
}

pub(super) fn init_maps(obj: &BpfObject, elf: &Elf<'_>, types: &[SecType]) -> Result<Vec<BpfMap>, ObjectError> {
    let mut maps = Vec::new();
    if let Some(idx) = types.iter().position(|t| *t == SecType::Maps) {
        init_user_btf_maps(obj, elf, idx, &mut maps)?;
    }
    init_arena_map_data(elf, types, &mut maps)?;
    for (idx, t) in types.iter().enumerate() {
        let kind = match t {
            SecType::Data => MapKind::Data,
            SecType::Rodata => MapKind::Rodata,
            SecType::Bss => MapKind::Bss,
            _ => continue,
        };
        let size = elf.sec_size(idx);
        if size == 0 {
            continue;
        }
        let real = elf.sec_name(idx).to_string();
        let value_size = u32::try_from(size).map_err(|_| ObjectError(format!("section '{real}' is too large for a map value")))?;
        let mut def = MapDef::new(&internal_map_name(&obj.name, &real), BPF_MAP_TYPE_ARRAY, 4, value_size, 1);
        if kind == MapKind::Rodata {
            def.map_flags |= BPF_F_RDONLY_PROG;
            def.frozen = true;
        }
        // map_fill_btf_type_info: the value is the section's DATASEC (the
        // first type of its name)
        def.btf_value_type_id = obj.btf.as_ref().and_then(|b| b.find_by_name(&real)).unwrap_or(0);
        if obj.btf.as_ref().is_some_and(|b| is_mmapable(b, def.btf_value_type_id)) {
            def.map_flags |= BPF_F_MMAPABLE;
        }
        // libbpf writes `.bss`'s zeros too, into an array whose value is
        // already zeros: the same map without them (and no buffer of the
        // section's claimed size, which the file need not back)
        if kind != MapKind::Bss {
            def.init = vec![(0u32.to_le_bytes().to_vec(), elf.sec_data(idx)?.to_vec())];
        }
        maps.push(BpfMap { def, kind, real_name: real, sec_idx: idx, sec_offset: 0, sec_size: size, unsupported: None });
    }
    Ok(maps)
}

/// The section of `__arena` globals.
pub(super) const ARENA_SEC: &str = ".addr_space.1";

/// The one arena map of `.maps` gets the `__arena` globals
/// (`init_arena_map_data`), placed at the end of the arena as libbpf does
/// for kernels with full-range `ld_imm64` offsets (7.3's): `arena_data_off`
/// is the arena's size less the data's, rounded up to pages.
fn init_arena_map_data(elf: &Elf<'_>, types: &[SecType], maps: &mut [BpfMap]) -> Result<(), ObjectError> {
    let mut arena = None;
    for (i, m) in maps.iter().enumerate().filter(|(_, m)| m.def.map_type == BPF_MAP_TYPE_ARENA) {
        if let Some(first) = arena {
            let first: &BpfMap = &maps[first];
            return err(format!("map '{}': only single ARENA map is supported (map '{}' is also ARENA)", m.real_name, first.real_name));
        }
        arena = Some(i);
    }
    let Some(sec) = types.iter().position(|t| *t == SecType::Arena) else { return Ok(()) };
    let Some(arena) = arena else {
        return err(format!("elf: sec '{ARENA_SEC}': to use global __arena variables the ARENA map should be explicitly declared in SEC(\".maps\")"));
    };
    let data = elf.sec_data(sec)?;
    let page = u64::from(PAGE_SIZE);
    let mmap_sz = page * u64::from(maps[arena].def.max_entries);
    let alloc_sz = (data.len() as u64).div_ceil(page) * page;
    if alloc_sz > mmap_sz {
        return err(format!(
            "elf: sec '{ARENA_SEC}': declared ARENA map size ({mmap_sz}) is too small to hold global __arena variables of size {}",
            data.len()
        ));
    }
    maps[arena].def.arena_data = Some((mmap_sz - alloc_sz, data.to_vec()));
    Ok(())
}

/// `map_is_mmapable`: the map's value type is a DATASEC with a variable
/// that is not static (in the finalized BTF, where hidden ones are).
fn is_mmapable(btf: &Btf, value_type_id: u32) -> bool {
    if btf.type_by_id(value_type_id).is_none_or(|t| t.kind != BTF_KIND_DATASEC) || value_type_id == 0 {
        return false;
    }
    btf.datasec_vars(value_type_id).iter().any(|v| btf.var_linkage(v.type_id).is_some_and(|l| l != BTF_VAR_STATIC))
}

fn init_user_btf_maps(obj: &BpfObject, elf: &Elf<'_>, shndx: usize, maps: &mut Vec<BpfMap>) -> Result<(), ObjectError> {
    let btf = obj.btf.as_ref().ok_or_else(|| ObjectError("section '.maps' needs BTF, and the object has none".into()))?;
    let ds = btf.find_by_name_kind(".maps", BTF_KIND_DATASEC).ok_or_else(|| ObjectError("section '.maps': no DATASEC '.maps' in the BTF".into()))?;
    for vi in btf.datasec_vars(ds) {
        let var = btf.type_by_id(vi.type_id).filter(|t| t.kind == BTF_KIND_VAR);
        let Some(var) = var else { return err(format!("section '.maps': entry [{}] is not a VAR", vi.type_id)) };
        let name = btf.type_name(vi.type_id).to_string();
        let linkage = btf.var_linkage(vi.type_id).unwrap_or(u32::MAX);
        if linkage != BTF_VAR_GLOBAL_ALLOCATED && linkage != BTF_VAR_STATIC {
            return err(format!("map '{name}': unsupported map linkage {linkage}"));
        }
        let def_id = btf.skip_mods_and_typedefs(var.size_or_type);
        if btf.type_by_id(def_id).map(|t| t.kind) != Some(BTF_KIND_STRUCT) {
            return err(format!("map '{name}': its definition is not a struct"));
        }
        // where the definition is: its symbol (what libbpf's BTF fixup
        // writes into the DATASEC), else the DATASEC's own offset
        let sym = elf.syms.iter().find(|s| s.shndx as usize == shndx && s.name == name && s.kind == elf::STT_OBJECT);
        let sec_offset = sym.map_or(u64::from(vi.offset), |s| s.value);
        let mut unsupported = None;
        let mut def = parse_btf_map_def(&name, btf, def_id, false, &mut unsupported)?;
        if matches!(def.map_type, BPF_MAP_TYPE_RINGBUF | BPF_MAP_TYPE_USER_RINGBUF) {
            def.max_entries = adjust_ringbuf_sz(def.max_entries);
        }
        maps.push(BpfMap { def, kind: MapKind::User, real_name: name, sec_idx: shndx, sec_offset, sec_size: u64::from(vi.size), unsupported });
    }
    Ok(())
}

/// The page size libbpf rounds ring buffers to: the host's, 4 KiB on the
/// hosts the model's kernels run on (as its map creation assumes).
const PAGE_SIZE: u32 = crate::target::PAGE_SIZE as u32;

/// A ring buffer's size as libbpf passes it (`adjust_ringbuf_sz`, for the
/// object loader and the importer alike): the
/// smallest power-of-two number of pages above a size that is not one
/// already; 0, and sizes no such number fits, unchanged.
pub fn adjust_ringbuf_sz(sz: u32) -> u32 {
    if sz == 0 || (sz.is_multiple_of(PAGE_SIZE) && (sz / PAGE_SIZE).is_power_of_two()) {
        return sz;
    }
    let mut mul: u32 = 1;
    while mul <= u32::MAX / PAGE_SIZE {
        if mul * PAGE_SIZE > sz {
            return mul * PAGE_SIZE;
        }
        mul <<= 1;
    }
    sz
}

/// `get_map_field_int`: `__uint(name, N)` is a pointer to an array of N.
fn field_int(map: &str, btf: &Btf, m: &Member, field: &str) -> Result<u32, ObjectError> {
    let t = btf.type_by_id(btf.skip_mods_and_typedefs(m.type_id));
    let Some(t) = t.filter(|t| t.kind == BTF_KIND_PTR) else { return err(format!("map '{map}': attr '{field}': expected a pointer")) };
    btf.array(t.size_or_type).map(|a| a.nelems).ok_or_else(|| ObjectError(format!("map '{map}': attr '{field}': expected a pointer to an array")))
}

/// `get_map_field_long`: `__ulong(name, N)` is an enum whose one constant
/// is N (or, as `__uint`, a pointer to an array of N).
fn field_long(map: &str, btf: &Btf, m: &Member, field: &str) -> Result<u64, ObjectError> {
    let id = btf.skip_mods_and_typedefs(m.type_id);
    let kind = btf.type_by_id(id).map_or(0, |t| t.kind);
    if kind == BTF_KIND_PTR {
        return field_int(map, btf, m, field).map(u64::from);
    }
    if kind != BTF_KIND_ENUM && kind != BTF_KIND_ENUM64 {
        return err(format!("map '{map}': attr '{field}': expected ENUM or ENUM64"));
    }
    if btf.type_by_id(id).map(|t| t.vlen) != Some(1) {
        return err(format!("map '{map}': attr '{field}': invalid __ulong"));
    }
    btf.enum_value(id, 0).ok_or_else(|| ObjectError(format!("map '{map}': attr '{field}': invalid __ulong")))
}

/// The size and type id of the type a `__type(key, T)` member points to.
fn field_type(map: &str, btf: &Btf, m: &Member, field: &str) -> Result<(u32, u32), ObjectError> {
    let t = btf.type_by_id(m.type_id).filter(|t| t.kind == BTF_KIND_PTR);
    let Some(t) = t else { return err(format!("map '{map}': {field} spec is not a pointer")) };
    let sz =
        btf.resolve_size(t.size_or_type).map_err(|e| ObjectError(format!("map '{map}': can't determine {field} size for type [{}]: {e}", t.size_or_type)))?;
    Ok((sz as u32, t.size_or_type))
}

fn set_size(map: &str, what: &str, slot: &mut u32, sz: u32) -> Result<(), ObjectError> {
    if *slot != 0 && *slot != sz {
        return err(format!("map '{map}': conflicting {what} size {} != {sz}", *slot));
    }
    *slot = sz;
    Ok(())
}

/// `parse_btf_map_def`, for the fields the kernel gets; a field this reader
/// cannot give the kernel yet goes to `unsupported`.
fn parse_btf_map_def(name: &str, btf: &Btf, def_id: u32, is_inner: bool, unsupported: &mut Option<String>) -> Result<MapDef, ObjectError> {
    let mut def = MapDef::new(name, 0, 0, 0, 0);
    let members = btf.members(def_id);
    for (i, m) in members.iter().enumerate() {
        let field = btf.name(m.name_off).unwrap_or("");
        match field {
            "" => return err(format!("map '{name}': invalid field #{i}")),
            "type" => def.map_type = field_int(name, btf, m, field)?,
            "max_entries" => def.max_entries = field_int(name, btf, m, field)?,
            "map_flags" => def.map_flags = field_int(name, btf, m, field)?,
            "key_size" => set_size(name, "key", &mut def.key_size, field_int(name, btf, m, field)?)?,
            "value_size" => set_size(name, "value", &mut def.value_size, field_int(name, btf, m, field)?)?,
            "key" => {
                let (sz, id) = field_type(name, btf, m, "key")?;
                set_size(name, "key", &mut def.key_size, sz)?;
                def.btf_key_type_id = id;
            }
            "value" => {
                let (sz, id) = field_type(name, btf, m, "value")?;
                set_size(name, "value", &mut def.value_size, sz)?;
                def.btf_value_type_id = id;
            }
            "values" => {
                let mim = matches!(def.map_type, BPF_MAP_TYPE_ARRAY_OF_MAPS | BPF_MAP_TYPE_HASH_OF_MAPS);
                let prog_array = def.map_type == BPF_MAP_TYPE_PROG_ARRAY;
                if is_inner {
                    return err(format!("map '{name}': multi-level inner maps are not supported"));
                }
                if i != members.len() - 1 {
                    return err(format!("map '{name}': 'values' member should be last"));
                }
                if !mim && !prog_array {
                    return err(format!("map '{name}': 'values' needs a map-in-map or a prog array"));
                }
                set_size(name, "value", &mut def.value_size, 4)?;
                let arr = btf.type_by_id(m.type_id).filter(|t| t.kind == BTF_KIND_ARRAY).and_then(|_| btf.array(m.type_id)).filter(|a| a.nelems == 0);
                let Some(arr) = arr else { return err(format!("map '{name}': 'values' spec is not a zero-sized array")) };
                let ptr = btf.type_by_id(btf.skip_mods_and_typedefs(arr.elem_type)).filter(|t| t.kind == BTF_KIND_PTR);
                let Some(ptr) = ptr else { return err(format!("map '{name}': 'values' elements are not pointers")) };
                let target = btf.skip_mods_and_typedefs(ptr.size_or_type);
                let kind = btf.type_by_id(target).map_or(0, |t| t.kind);
                if prog_array {
                    if kind != BTF_KIND_FUNC_PROTO {
                        return err(format!("map '{name}': prog-array values must point to functions"));
                    }
                    continue;
                }
                if kind != BTF_KIND_STRUCT {
                    return err(format!("map '{name}': map-in-map inner definition is not a struct"));
                }
                def.inner = Some(Box::new(parse_btf_map_def(&format!("{name}.inner"), btf, target, true, unsupported)?));
            }
            "pinning" => {
                if field_int(name, btf, m, field)? != 0 {
                    *unsupported = Some("pinning is not supported yet".into());
                }
            }
            "map_extra" => def.map_extra = field_long(name, btf, m, field)?,
            "numa_node" => *unsupported = Some(format!("'{field}' is not supported yet")),
            other => return err(format!("map '{name}': unknown field '{other}'")),
        }
    }
    Ok(def)
}

/// `bpf_object__collect_map_relos`: `.values = { [i] = &prog }` of a prog
/// array, and `.values = { [i] = &map }` of an array or hash of maps,
/// become its initial slots.
pub(super) fn collect_map_relos(obj: &mut BpfObject, elf: &Elf<'_>, rel_idx: usize, maps_idx: usize) -> Result<(), ObjectError> {
    let sh = elf.header(rel_idx).ok_or_else(|| ObjectError("no .rel.maps".into()))?;
    let rels: &[elf::Rel64<object::Endianness>] = object::read::elf::SectionHeader::data_as_array(sh, elf.endian, elf.data)
        .map_err(|e| ObjectError(format!("section '{}': {e}", elf.sec_name(rel_idx))))?;
    for (i, r) in rels.iter().enumerate() {
        let off = r.r_offset(elf.endian);
        let sym = elf.syms.get(r.r_sym(elf.endian) as usize).ok_or_else(|| ObjectError(format!(".rel.maps #{i}: bad symbol")))?;
        let mi = obj.maps.iter().position(|m| m.kind == MapKind::User && m.sec_idx == maps_idx && m.sec_offset <= off && off + 8 <= m.sec_offset + m.sec_size);
        let Some(mi) = mi else { return err(format!(".rel.maps #{i}: no map definition at offset {off}")) };
        let map = &obj.maps[mi];
        let mname = map.real_name.clone();
        let of_maps = matches!(map.def.map_type, BPF_MAP_TYPE_ARRAY_OF_MAPS | BPF_MAP_TYPE_HASH_OF_MAPS);
        if of_maps {
            if sym.shndx as usize != maps_idx || !obj.maps.iter().any(|m| m.kind == MapKind::User && m.real_name == sym.name) {
                return err(format!("map '{mname}': inner map '{}' is not a map of '.maps'", sym.name));
            }
        } else if map.def.map_type != BPF_MAP_TYPE_PROG_ARRAY {
            return err(format!("map '{mname}': initial values need a map-in-map or a prog array"));
        } else {
            let target = obj.progs.iter().find(|p| p.name == sym.name);
            let main = target
                .is_some_and(|p| Some(p.sec_idx) != obj.text_shndx && p.sec_idx == sym.shndx as usize && p.sec_insn_off as u64 * super::INSN_SZ == sym.value);
            if !main {
                return err(format!("map '{mname}': slot value '{}' is not a main program", sym.name));
            }
        }
        let btf = obj.btf.as_ref().ok_or_else(|| ObjectError(format!("map '{mname}': no BTF")))?;
        let ds = btf.find_by_name_kind(".maps", BTF_KIND_DATASEC).unwrap_or(0);
        let vi = btf.datasec_vars(ds).into_iter().find(|v| btf.type_name(v.type_id) == mname);
        let def_id = vi.and_then(|v| btf.type_by_id(v.type_id)).map_or(0, |t| btf.skip_mods_and_typedefs(t.size_or_type));
        let last = btf.members(def_id).last().copied().filter(|m| btf.name(m.name_off) == Some("values"));
        let Some(last) = last else { return err(format!("map '{mname}': initial values without a 'values' member")) };
        let moff = u64::from(last.offset / 8);
        let rel = off - map.sec_offset;
        if rel < moff || !(rel - moff).is_multiple_of(8) {
            return err(format!("map '{mname}': initial value at a bad offset {rel}"));
        }
        let slot = ((rel - moff) / 8) as u32;
        let def = &mut obj.maps[mi].def;
        if of_maps { def.inner_slots.push((slot, sym.name.clone())) } else { def.prog_slots.push((slot, sym.name.clone())) }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn ring_buffers_round_up_to_a_power_of_two_pages() {
        use super::adjust_ringbuf_sz;
        assert_eq!(adjust_ringbuf_sz(0), 0);
        assert_eq!(adjust_ringbuf_sz(8), 4096);
        assert_eq!(adjust_ringbuf_sz(4096), 4096);
        assert_eq!(adjust_ringbuf_sz(4097), 8192);
        assert_eq!(adjust_ringbuf_sz(3 * 4096), 4 * 4096);
        assert_eq!(adjust_ringbuf_sz(1 << 20), 1 << 20);
        assert_eq!(adjust_ringbuf_sz(u32::MAX - 1), u32::MAX - 1);
    }
}
