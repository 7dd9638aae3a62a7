//! Making real-kernel outcomes comparable: map ids are whatever the kernel
//! handed out (per boot in the VM, arbitrary on a live host), so goldens and
//! comparisons name a map by its index in the request instead.
//!
//! In the xlated program the kernel shows a map reference as an `ld_imm64`
//! with `src_reg` `BPF_PSEUDO_MAP_FD` and the map's id in `imm`, or
//! `BPF_PSEUDO_MAP_VALUE` with the id in `imm` and the value offset in the
//! second slot (test_loader prints `r1 = 0x<id>` and `(off << 32) | id`).

use bpf_isa::Insn;
use bpf_isa::insn::op::{BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE};

use super::LoadOutcome;

/// The index of the request's map with this id.
pub fn map_index(map_ids: &[u32], id: u32) -> Option<usize> {
    if id == 0 {
        return None;
    }
    map_ids.iter().position(|&m| m == id)
}

/// `insns` with each map id replaced by `canon(index)`; ids of maps not in
/// `map_ids` are left as they are.
pub fn renumber_maps(insns: &[Insn], map_ids: &[u32], canon: &dyn Fn(usize) -> u32) -> Vec<Insn> {
    let mut out = insns.to_vec();
    let mut i = 0;
    while i < out.len() {
        let insn = out[i];
        let is_map = insn.is_ld_imm64() && (insn.src == BPF_PSEUDO_MAP_FD || insn.src == BPF_PSEUDO_MAP_VALUE);
        if let Some(idx) = map_index(map_ids, insn.imm as u32).filter(|_| is_map) {
            out[i].imm = canon(idx) as i32;
        }
        i += if insn.is_ld_imm64() { 2 } else { 1 };
    }
    out
}

/// The xlated dump with maps numbered by index (map #k shows as id k), the
/// form goldens store. Falls back to the outcome's text when it carries no
/// instructions.
pub fn xlated_by_map_index(out: &LoadOutcome) -> Vec<String> {
    if out.xlated_insns.is_empty() {
        return out.xlated.clone();
    }
    let insns = renumber_maps(&out.xlated_insns, &out.map_ids, &|k| k as u32);
    bpf_isa::disasm::xlated_dump(&insns).lines().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bpf_isa::insn::op::*;

    #[test]
    fn renumbers_map_fd_and_value() {
        let insns = [
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, 17),
            Insn::new(0, 0, 0, 0, 0),
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_MAP_VALUE, 0, 18),
            Insn::new(0, 0, 0, 0, 8),
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 3, BPF_PSEUDO_MAP_FD, 0, 99),
            Insn::new(0, 0, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let r = renumber_maps(&insns, &[18, 17], &|k| k as u32 + 1);
        assert_eq!((r[0].imm, r[2].imm, r[3].imm, r[4].imm), (2, 1, 8, 99));
    }
}
