//! `map->ops->map_gen_lookup`: the insns 7.3 inlines for
//! `bpf_map_lookup_elem` per map type (kernel/bpf/arraymap.c, hashtab.c
//! with the resizable hash's `rhtab_map_gen_lookup`,
//! net/xdp/xskmap.c).
//! On entry r1 is the map, r2 the key; r0 gets the value or NULL.

use crate::map::types::*;
use bpf_isa::Insn;
use bpf_isa::op::*;

use super::build::*;
use crate::kernel_layout::{
    OFFSETOF_BPF_ARRAY_VALUE, OFFSETOF_HTAB_ELEM_KEY, OFFSETOF_HTAB_ELEM_LRU_NODE_REF, OFFSETOF_RHTAB_ELEM_DATA, OFFSETOF_XSK_MAP_XSK_MAP,
};
use crate::map::flags::BPF_F_INNER_MAP;
use crate::verifier::Fail;

/// The fields of `struct bpf_map` (and `struct bpf_array`) a lookup is
/// generated from.
#[derive(Clone, Copy, Debug)]
pub struct MapView {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    /// `map->bypass_spec_v1`: the creator had CAP_PERFMON.
    pub bypass_spec_v1: bool,
}

/// `array->elem_size`.
fn elem_size(m: &MapView) -> u32 {
    m.value_size.div_ceil(8).saturating_mul(8)
}

/// `array->index_mask`: the next power of two minus one.
fn index_mask(m: &MapView) -> i32 {
    let bits = 32 - m.max_entries.saturating_sub(1).leading_zeros();
    ((1u64 << bits) - 1) as u32 as i32
}

/// `r0 <<= ilog2(size)` or `r0 *= size`.
fn scale(size: u32) -> Insn {
    if size.is_power_of_two() { alu64_imm(BPF_LSH, R0, size.trailing_zeros() as i32) } else { alu64_imm(BPF_MUL, R0, size as i32) }
}

/// The bounds check of an array index: with index masking when the map's
/// creator could not bypass Spectre v1. `skip` is the jump over the rest
/// without the mask.
fn array_bounds(m: &MapView, skip: i16, out: &mut Vec<Insn>) {
    if !m.bypass_spec_v1 {
        out.push(jmp_imm(BPF_JGE, R0, m.max_entries as i32, skip + 1));
        out.push(alu32_imm(BPF_AND, R0, index_mask(m)));
    } else {
        out.push(jmp_imm(BPF_JGE, R0, m.max_entries as i32, skip));
    }
}

/// `offsetof(struct htab_elem, key) + round_up(key_size, 8)`.
fn htab_value_off(m: &MapView) -> i32 {
    (OFFSETOF_HTAB_ELEM_KEY as u32 + m.key_size.div_ceil(8) * 8) as i32
}

/// The map type's `map_gen_lookup`: `Ok(None)` when it has none or it
/// declines (`-EOPNOTSUPP`), and the call goes to `map_lookup_elem`.
/// `call_imm(func)` is `BPF_CALL_IMM(func)` (`__htab_map_lookup_elem`,
/// `rhtab_lookup_elem`).
pub fn map_gen_lookup(m: &MapView, call_imm: impl Fn(&str) -> Result<i32, Fail>) -> Result<Option<Vec<Insn>>, Fail> {
    let htab_lookup = || call_imm("__htab_map_lookup_elem");
    let mut out = Vec::with_capacity(12);
    match m.map_type {
        BPF_MAP_TYPE_ARRAY => {
            if m.map_flags & BPF_F_INNER_MAP != 0 {
                return Ok(None);
            }
            out.push(alu64_imm(BPF_ADD, R1, OFFSETOF_BPF_ARRAY_VALUE as i32));
            out.push(ldx_mem(BPF_W, R0, R2, 0));
            array_bounds(m, 3, &mut out);
            out.push(scale(elem_size(m)));
            out.push(alu64_reg(BPF_ADD, R0, R1));
            out.push(ja(1));
            out.push(mov64_imm(R0, 0));
        }
        BPF_MAP_TYPE_PERCPU_ARRAY => {
            // both JITs support BPF_MOV64_PERCPU_REG
            if m.map_flags & BPF_F_INNER_MAP != 0 {
                return Ok(None);
            }
            out.push(alu64_imm(BPF_ADD, R1, OFFSETOF_BPF_ARRAY_VALUE as i32));
            out.push(ldx_mem(BPF_W, R0, R2, 0));
            array_bounds(m, 5, &mut out);
            out.push(alu64_imm(BPF_LSH, R0, 3));
            out.push(alu64_reg(BPF_ADD, R0, R1));
            out.push(ldx_mem(BPF_DW, R0, R0, 0));
            out.push(mov64_percpu_reg(R0, R0));
            out.push(ja(1));
            out.push(mov64_imm(R0, 0));
        }
        BPF_MAP_TYPE_ARRAY_OF_MAPS => {
            out.push(alu64_imm(BPF_ADD, R1, OFFSETOF_BPF_ARRAY_VALUE as i32));
            out.push(ldx_mem(BPF_W, R0, R2, 0));
            array_bounds(m, 5, &mut out);
            out.push(scale(elem_size(m)));
            out.push(alu64_reg(BPF_ADD, R0, R1));
            out.push(ldx_mem(BPF_DW, R0, R0, 0));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 1));
            out.push(ja(1));
            out.push(mov64_imm(R0, 0));
        }
        BPF_MAP_TYPE_HASH => {
            out.push(emit_call(htab_lookup()?));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 1));
            out.push(alu64_imm(BPF_ADD, R0, htab_value_off(m)));
        }
        BPF_MAP_TYPE_LRU_HASH => {
            out.push(emit_call(htab_lookup()?));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 4));
            out.push(ldx_mem(BPF_B, R1, R0, OFFSETOF_HTAB_ELEM_LRU_NODE_REF as i16));
            out.push(jmp_imm(BPF_JNE, R1, 0, 1));
            out.push(st_mem(BPF_B, R0, OFFSETOF_HTAB_ELEM_LRU_NODE_REF as i16, 1));
            out.push(alu64_imm(BPF_ADD, R0, htab_value_off(m)));
        }
        BPF_MAP_TYPE_PERCPU_HASH => {
            out.push(emit_call(htab_lookup()?));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 3));
            out.push(alu64_imm(BPF_ADD, R0, htab_value_off(m)));
            out.push(ldx_mem(BPF_DW, R0, R0, 0));
            out.push(mov64_percpu_reg(R0, R0));
        }
        BPF_MAP_TYPE_HASH_OF_MAPS => {
            out.push(emit_call(htab_lookup()?));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 2));
            out.push(alu64_imm(BPF_ADD, R0, htab_value_off(m)));
            out.push(ldx_mem(BPF_DW, R0, R0, 0));
        }
        BPF_MAP_TYPE_XSKMAP => {
            // xsk_map_gen_lookup: the socket pointer of the slot, or NULL
            out.push(ldx_mem(BPF_W, R0, R2, 0));
            out.push(jmp32_imm(BPF_JGE, R0, m.max_entries as i32, 5));
            out.push(alu64_imm(BPF_LSH, R0, 3));
            out.push(alu64_imm(BPF_ADD, R1, OFFSETOF_XSK_MAP_XSK_MAP as i32));
            out.push(alu64_reg(BPF_ADD, R0, R1));
            out.push(ldx_mem(BPF_DW, R0, R0, 0));
            out.push(ja(1));
            out.push(mov64_imm(R0, 0));
        }
        BPF_MAP_TYPE_RHASH => {
            // rhtab_map_gen_lookup: the element's data is its key, then
            // (8-aligned) its value
            out.push(emit_call(call_imm("rhtab_lookup_elem")?));
            out.push(jmp_imm(BPF_JEQ, R0, 0, 1));
            out.push(alu64_imm(BPF_ADD, R0, (OFFSETOF_RHTAB_ELEM_DATA as u32 + m.key_size.div_ceil(8) * 8) as i32));
        }
        _ => return Ok(None),
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(map_type: u32, value_size: u32, max_entries: u32, bypass_spec_v1: bool) -> MapView {
        MapView { map_type, key_size: 4, value_size, max_entries, map_flags: 0, bypass_spec_v1 }
    }

    #[test]
    fn index_mask_is_the_next_power_of_two_minus_one() {
        assert_eq!(index_mask(&view(BPF_MAP_TYPE_ARRAY, 8, 1, false)), 0);
        assert_eq!(index_mask(&view(BPF_MAP_TYPE_ARRAY, 8, 2, false)), 1);
        assert_eq!(index_mask(&view(BPF_MAP_TYPE_ARRAY, 8, 5, false)), 7);
        assert_eq!(index_mask(&view(BPF_MAP_TYPE_ARRAY, 8, 0x8000_0001, false)), -1);
    }

    #[test]
    fn odd_value_sizes_scale_by_multiplication() {
        let ins = map_gen_lookup(&view(BPF_MAP_TYPE_ARRAY, 12, 4, true), |_| unreachable!()).unwrap().unwrap();
        assert_eq!(ins[3], alu64_imm(BPF_LSH, R0, 4), "12 rounds up to 16");
        let ins = map_gen_lookup(&view(BPF_MAP_TYPE_ARRAY, 20, 4, true), |_| unreachable!()).unwrap().unwrap();
        assert_eq!(ins[3], alu64_imm(BPF_MUL, R0, 24));
    }
}
