//! What 7.3 does to a program after the main pass accepted it (`bpf_check`
//! from `skip_full_check:` on, kernel/bpf/fixups.c): every rewrite is a pass
//! that queues patches on one engine ([`patch`]), in the kernel's order;
//! then the dump of the result as `BPF_OBJ_GET_INFO_BY_FD` hands it out
//! ([`bpf_insn_prepare_dump`]).

pub mod arena;
pub mod bpf_loop;
pub mod call_args;
pub mod calls;
pub mod ctx_access;
pub mod dead_code;
pub mod fastcall;
pub mod misc;
pub mod patch;
pub mod zext;

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::verifier::env::VerifierEnv;
use crate::verifier::{Fail, subprogs};

/// The rewrites of an accepted program, in `bpf_check`'s order.
pub fn bpf_fixups(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    ksym_addresses(env)?;
    // runs first: dropping fastcall spills and fills can shrink the frame,
    // and the passes after it reserve stack slots of their own
    fastcall::bpf_remove_fastcall_spills_fills(env)?;
    subprogs::check_max_stack_depth(env)?;
    // the passes from here on patch the program's code
    bpf_loop::bpf_optimize_bpf_loop(env)?;
    if env.bpf_capable {
        dead_code::bpf_opt_hard_wire_dead_code_branches(env);
        dead_code::bpf_opt_remove_dead_code(env)?;
        dead_code::bpf_opt_remove_nops(env)?;
    } else {
        dead_code::sanitize_dead_code(env);
    }
    ctx_access::bpf_convert_ctx_accesses(env)?;
    misc::bpf_do_misc_fixups(env)?;
    zext::bpf_opt_subreg_zext_lo32_rnd_hi32(env, zext::RND_HI32_SEED)?;
    call_args::bpf_fixup_call_args(env)?;
    Ok(())
}

/// The address `check_pseudo_btf_id` gives an `ld_imm64` of a kernel
/// variable (`kallsyms_lookup_name` of the VAR's name, recorded per image);
/// `convert_pseudo_ld_imm64` then drops its `src_reg`. The verifier kept
/// the VAR's BTF id in the imm until here.
fn ksym_addresses(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let arch = env.input.symbols_arch;
    let mut i = 0;
    while i + 1 < env.insns.len() {
        let insn = env.insns[i];
        if insn.code == BPF_LD | BPF_IMM | BPF_DW && insn.src == BPF_PSEUDO_BTF_ID {
            let btf = crate::vmlinux_btf::VmlinuxBtf::for_arch(arch);
            let name = btf.map_or("", |b| b.name_of(insn.imm as u32));
            let Some(addr) = calls::kernel_symbols::kernel_var_addr(arch, name) else {
                return Err(Fail::unsupported("check_pseudo_btf_id", &format!("the address of kernel variable {name} on {arch} is not known to the model")));
            };
            env.insns[i].src = 0;
            env.insns[i].imm = addr as u32 as i32;
            env.insns[i + 1].imm = (addr >> 32) as u32 as i32;
        }
        i += if insn.code == BPF_LD | BPF_IMM | BPF_DW { 2 } else { 1 };
    }
    Ok(())
}

/// `bpf_insn_is_ld_imm64` of a map, as the verifier's end
/// (`convert_pseudo_ld_imm64`) and `bpf_map_from_imm` see it: the address
/// is a used map's (`BPF_PSEUDO_MAP_FD`) or inside the value of a
/// single-element array (`BPF_PSEUDO_MAP_VALUE`, with the offset).
fn bpf_map_from_imm(env: &VerifierEnv<'_>, addr: u64) -> Option<(u8, u32, u32)> {
    for &m in &env.used_maps {
        let map = &env.input.maps[m];
        if addr == map.kaddr {
            return Some((BPF_PSEUDO_MAP_FD, map.id, 0));
        }
        let d = &map.def;
        let direct = matches!(d.map_type, crate::map::types::BPF_MAP_TYPE_ARRAY | crate::map::types::BPF_MAP_TYPE_PERCPU_ARRAY) && d.max_entries == 1;
        // array->value, as check_and_resolve_insns placed it
        let base = map.kaddr + crate::verifier::resolve::ARRAY_VALUE_OFFSET;
        let elem_size = (d.value_size as u64).div_ceil(8) * 8;
        if direct && addr >= base && addr < base + elem_size {
            return Some((BPF_PSEUDO_MAP_VALUE, map.id, (addr - base) as u32));
        }
    }
    None
}

use bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL;

/// The loads and stores whose kernel-internal mode `bpf_insn_prepare_dump`
/// shows as `BPF_MEM` (`BPF_PROBE_MEM(SX)`, `BPF_PROBE_MEM32(SX)`): (insn,
/// code), what the JIT and a run need back.
pub fn dump_hidden_modes(env: &VerifierEnv<'_>, dumped: &[Insn]) -> Vec<(usize, u8)> {
    env.insns
        .iter()
        .zip(dumped)
        .enumerate()
        .filter(|(_, (i, shown))| i.code != shown.code && matches!(i.code & 0x07, BPF_LDX | BPF_ST | BPF_STX))
        .map(|(k, (i, _))| (k, i.code))
        .collect()
}

/// The opcodes `bpf_insn_prepare_dump` may change: calls (tail, pseudo),
/// probing loads and stores, `ld_imm64`; the others it copies as they are.
const DUMP_CANDIDATES: [bool; 256] = {
    let mut t = [false; 256];
    let mut code = 0;
    while code < 256 {
        let c = code as u8;
        let (class, mode) = (c & 0x07, c & 0xe0);
        t[code] = c == BPF_JMP | BPF_TAIL_CALL
            || c == BPF_JMP | BPF_CALL
            || c == BPF_LD | BPF_IMM | BPF_DW
            || (class == BPF_LDX && mode == BPF_PROBE_MEM)
            || (matches!(class, BPF_LDX | BPF_STX | BPF_ST) && mode == BPF_PROBE_MEM32);
        code += 1;
    }
    t
};

/// `bpf_insn_prepare_dump` (for a reader allowed raw dumps, as
/// test_loader is): the xlated insns as `BPF_OBJ_GET_INFO_BY_FD` returns
/// them: tail calls as helper calls, pseudo calls in the legacy layout
/// (`off` the pc-relative offset, `imm` the callee's index), probe loads
/// and stores as plain ones, map addresses back to map ids.
pub fn bpf_insn_prepare_dump(env: &VerifierEnv<'_>) -> Vec<Insn> {
    let mut insns = env.insns.clone();
    let mut i = 0;
    // from one insn it changes to the next, in one scan
    while let Some(k) = insns[i..].iter().position(|x| DUMP_CANDIDATES[x.code as usize]) {
        i += k;
        let code = insns[i].code;
        let class = code & 0x07;
        if code == BPF_JMP | BPF_TAIL_CALL {
            insns[i].code = BPF_JMP | BPF_CALL;
            insns[i].imm = BPF_FUNC_TAIL_CALL;
        }
        if insns[i].code == BPF_JMP | BPF_CALL {
            if insns[i].src == BPF_PSEUDO_CALL {
                let call_off = insns[i].imm;
                insns[i].imm = insns[i].off as i32;
                insns[i].off = i16::try_from(call_off).unwrap_or(0);
            }
        } else if class == BPF_LDX && code & 0xe0 == BPF_PROBE_MEM {
            insns[i].code = BPF_LDX | (code & 0x18) | BPF_MEM;
        } else if matches!(class, BPF_LDX | BPF_STX | BPF_ST) && code & 0xe0 == BPF_PROBE_MEM32 {
            insns[i].code = class | (code & 0x18) | BPF_MEM;
        } else if code == BPF_LD | BPF_IMM | BPF_DW && i + 1 < insns.len() {
            // convert_pseudo_ld_imm64: only pseudo funcs keep their src
            if insns[i].src != BPF_PSEUDO_FUNC {
                insns[i].src = 0;
                let addr = (insns[i + 1].imm as u32 as u64) << 32 | insns[i].imm as u32 as u64;
                if let Some((src, id, off)) = bpf_map_from_imm(env, addr) {
                    insns[i].src = src;
                    insns[i].imm = id as i32;
                    insns[i + 1].imm = off as i32;
                }
            }
            i += 2;
            continue;
        }
        i += 1;
    }
    insns
}

/// `bpf_insn_def32(prog, &insns[i]) >= 0`: what `adjust_insn_aux_data`
/// stores as a patched insn's `zext_dst`.
pub fn insn_def32(insns: &[Insn], i: usize) -> bool {
    zext::bpf_insn_def32(&insns[i]).is_some()
}
