//! Instruction sanity and resource resolution (`verifier.c`):
//! `check_and_resolve_insns` with `check_insn_fields` and the opcode table
//! of `core.c` (`bpf_opcode_in_insntable`), map fds turned into map
//! addresses (`add_used_map`, `check_map_prog_compatibility`), and
//! `add_kfuncs`.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::diag::bpf_diag_policy;
use super::env::*;
use super::errno::*;
use super::{Fail, PResult};
use crate::map::types::*;

/// `bpf_opcode_in_insntable`: the opcodes of the UAPI (plus the cBPF
/// carry-overs `LD_ABS`/`LD_IND`, `gotox` and `may_goto`).
pub fn bpf_opcode_in_insntable(code: u8) -> bool {
    const fn table() -> [bool; 256] {
        let mut t = [false; 256];
        let alu_ops = [BPF_ADD, BPF_SUB, BPF_AND, BPF_OR, BPF_LSH, BPF_RSH, BPF_XOR, BPF_MUL, BPF_MOV, BPF_ARSH, BPF_DIV, BPF_MOD];
        let mut i = 0;
        while i < alu_ops.len() {
            let o = alu_ops[i];
            t[(BPF_ALU | o | BPF_X) as usize] = true;
            t[(BPF_ALU | o | BPF_K) as usize] = true;
            t[(BPF_ALU64 | o | BPF_X) as usize] = true;
            t[(BPF_ALU64 | o | BPF_K) as usize] = true;
            i += 1;
        }
        t[(BPF_ALU | BPF_NEG) as usize] = true;
        t[(BPF_ALU | BPF_END | BPF_TO_BE) as usize] = true;
        t[(BPF_ALU | BPF_END | BPF_TO_LE) as usize] = true;
        t[(BPF_ALU64 | BPF_NEG) as usize] = true;
        t[(BPF_ALU64 | BPF_END | BPF_TO_LE) as usize] = true;
        t[(BPF_JMP | BPF_CALL) as usize] = true;
        t[(BPF_JMP | BPF_EXIT) as usize] = true;
        let jmp_ops = [BPF_JEQ, BPF_JNE, BPF_JGT, BPF_JLT, BPF_JGE, BPF_JLE, BPF_JSGT, BPF_JSLT, BPF_JSGE, BPF_JSLE, BPF_JSET];
        let mut i = 0;
        while i < jmp_ops.len() {
            let o = jmp_ops[i];
            t[(BPF_JMP32 | o | BPF_X) as usize] = true;
            t[(BPF_JMP32 | o | BPF_K) as usize] = true;
            t[(BPF_JMP | o | BPF_X) as usize] = true;
            t[(BPF_JMP | o | BPF_K) as usize] = true;
            i += 1;
        }
        t[(BPF_JMP | BPF_JA) as usize] = true;
        t[(BPF_JMP32 | BPF_JA) as usize] = true;
        let sizes = [BPF_B, BPF_H, BPF_W, BPF_DW];
        let mut i = 0;
        while i < sizes.len() {
            let s = sizes[i];
            t[(BPF_STX | BPF_ATOMIC | s) as usize] = true;
            t[(BPF_STX | BPF_MEM | s) as usize] = true;
            t[(BPF_ST | BPF_MEM | s) as usize] = true;
            t[(BPF_LDX | BPF_MEM | s) as usize] = true;
            i += 1;
        }
        t[(BPF_LDX | BPF_MEMSX | BPF_B) as usize] = true;
        t[(BPF_LDX | BPF_MEMSX | BPF_H) as usize] = true;
        t[(BPF_LDX | BPF_MEMSX | BPF_W) as usize] = true;
        t[(BPF_LD | BPF_IMM | BPF_DW) as usize] = true;
        let cbpf = [BPF_B, BPF_H, BPF_W];
        let mut i = 0;
        while i < cbpf.len() {
            t[(BPF_LD | BPF_ABS | cbpf[i]) as usize] = true;
            t[(BPF_LD | BPF_IND | cbpf[i]) as usize] = true;
            i += 1;
        }
        t[(BPF_JMP | BPF_JA | BPF_X) as usize] = true;
        t[(BPF_JMP | BPF_JCOND) as usize] = true;
        t
    }
    static TABLE: [bool; 256] = table();
    TABLE[code as usize]
}

fn reserved(env: &mut VerifierEnv<'_>, msg: &str) -> PResult<()> {
    env.verbose(msg);
    Err(Fail::Errno(EINVAL))
}

/// `check_alu_fields`.
fn check_alu_fields(env: &mut VerifierEnv<'_>, insn: &Insn) -> PResult<()> {
    let cls = insn.class();
    let opc = op(insn.code);
    let x = src(insn.code) == BPF_X;
    match opc {
        BPF_NEG => {
            if x || insn.src != 0 || insn.off != 0 || insn.imm != 0 {
                return reserved(env, "BPF_NEG uses reserved fields\n");
            }
        }
        BPF_END => {
            if insn.src != 0 || insn.off != 0 || !matches!(insn.imm, 16 | 32 | 64) || (cls == BPF_ALU64 && src(insn.code) != BPF_TO_LE) {
                return reserved(env, "BPF_END uses reserved fields\n");
            }
        }
        BPF_MOV => {
            if x {
                if cls == BPF_ALU {
                    if !matches!(insn.off, 0 | 8 | 16) || insn.imm != 0 {
                        return reserved(env, "BPF_MOV uses reserved fields\n");
                    }
                } else if insn.off == BPF_ADDR_SPACE_CAST {
                    if insn.imm != 1 && insn.imm != 1 << 16 {
                        return reserved(env, "addr_space_cast insn can only convert between address space 1 and 0\n");
                    }
                } else if !matches!(insn.off, 0 | 8 | 16 | 32) || insn.imm != 0 {
                    return reserved(env, "BPF_MOV uses reserved fields\n");
                }
            } else if insn.src != 0 || insn.off != 0 {
                return reserved(env, "BPF_MOV uses reserved fields\n");
            }
        }
        BPF_ADD | BPF_SUB | BPF_AND | BPF_OR | BPF_XOR | BPF_LSH | BPF_RSH | BPF_ARSH | BPF_MUL | BPF_DIV | BPF_MOD => {
            let bad_off = (insn.off != 0 && insn.off != 1) || (insn.off == 1 && opc != BPF_MOD && opc != BPF_DIV);
            let bad = if x { insn.imm != 0 || bad_off } else { insn.src != 0 || bad_off };
            if bad {
                return reserved(env, "BPF_ALU uses reserved fields\n");
            }
        }
        _ => {
            env.verbose(&format!("invalid BPF_ALU opcode {:x}\n", opc));
            return Err(Fail::Errno(EINVAL));
        }
    }
    Ok(())
}

/// `check_jmp_fields`.
fn check_jmp_fields(env: &mut VerifierEnv<'_>, insn: &Insn) -> PResult<()> {
    let cls = insn.class();
    let x = src(insn.code) == BPF_X;
    match op(insn.code) {
        BPF_CALL => {
            let kfunc = insn.src == BPF_PSEUDO_KFUNC_CALL;
            if x || (!kfunc && insn.off != 0) || (insn.src != 0 && insn.src != BPF_PSEUDO_CALL && !kfunc) || insn.dst != 0 || cls == BPF_JMP32 {
                return reserved(env, "BPF_CALL uses reserved fields\n");
            }
        }
        BPF_JA => {
            if x {
                if insn.src != 0 || insn.imm != 0 || insn.off != 0 {
                    return reserved(env, "BPF_JA|BPF_X uses reserved fields\n");
                }
            } else if insn.src != 0 || insn.dst != 0 || (cls == BPF_JMP && insn.imm != 0) || (cls == BPF_JMP32 && insn.off != 0) {
                return reserved(env, "BPF_JA uses reserved fields\n");
            }
        }
        BPF_EXIT => {
            if x || insn.imm != 0 || insn.src != 0 || insn.dst != 0 || cls == BPF_JMP32 {
                return reserved(env, "BPF_EXIT uses reserved fields\n");
            }
        }
        BPF_JCOND => {
            if insn.code != BPF_JMP | BPF_JCOND || insn.src != BPF_MAY_GOTO || insn.dst != 0 || insn.imm != 0 {
                env.verbose(&format!("invalid may_goto imm {}\n", insn.imm));
                return Err(Fail::Errno(EINVAL));
            }
        }
        _ => {
            if (x && insn.imm != 0) || (!x && insn.src != 0) {
                return reserved(env, "BPF_JMP/JMP32 uses reserved fields\n");
            }
        }
    }
    Ok(())
}

/// `check_insn_fields`: reserved fields must be zero.
fn check_insn_fields(env: &mut VerifierEnv<'_>, insn: &Insn) -> PResult<()> {
    let m = mode(insn.code);
    match insn.class() {
        BPF_ALU | BPF_ALU64 => check_alu_fields(env, insn),
        BPF_LDX => {
            if (m != BPF_MEM && m != BPF_MEMSX) || insn.imm != 0 {
                return reserved(env, "BPF_LDX uses reserved fields\n");
            }
            Ok(())
        }
        BPF_STX => {
            if m == BPF_ATOMIC {
                return Ok(());
            }
            if m != BPF_MEM || insn.imm != 0 {
                return reserved(env, "BPF_STX uses reserved fields\n");
            }
            Ok(())
        }
        BPF_ST => {
            if m != BPF_MEM || insn.src != 0 {
                return reserved(env, "BPF_ST uses reserved fields\n");
            }
            Ok(())
        }
        BPF_JMP | BPF_JMP32 => check_jmp_fields(env, insn),
        _ => {
            // BPF_LD
            if m == BPF_ABS || m == BPF_IND {
                if insn.dst != 0 || insn.off != 0 || size(insn.code) == BPF_DW || (m == BPF_ABS && insn.src != 0) {
                    return reserved(env, "BPF_LD_[ABS|IND] uses reserved fields\n");
                }
                Ok(())
            } else if m != BPF_IMM {
                reserved(env, "invalid BPF_LD mode\n")
            } else {
                Ok(())
            }
        }
    }
}

/// Where `struct bpf_array`'s value area starts after the map's address.
pub(crate) const ARRAY_VALUE_OFFSET: u64 = crate::kernel_layout::OFFSETOF_BPF_ARRAY_VALUE as u64;

/// `check_and_resolve_insns`.
pub fn check_and_resolve_insns(env: &mut VerifierEnv<'_>) -> PResult<()> {
    let n = env.len();
    let mut i = 0;
    while i < n {
        let insn = env.insns[i];
        if insn.dst >= MAX_BPF_REG && !is_stack_arg_st(&insn) && !is_stack_arg_stx(&insn) {
            env.verbose(&format!("R{} is invalid\n", insn.dst));
            return Err(Fail::Errno(EINVAL));
        }
        if insn.src >= MAX_BPF_REG && !is_stack_arg_ldx(&insn) {
            env.verbose(&format!("R{} is invalid\n", insn.src));
            return Err(Fail::Errno(EINVAL));
        }
        if insn.is_ld_imm64() {
            resolve_ld_imm64(env, i)?;
            i += 2;
            continue;
        }
        if !bpf_opcode_in_insntable(insn.code) {
            env.verbose(&format!("unknown opcode {:02x}\n", insn.code));
            return Err(Fail::Errno(EINVAL));
        }
        check_insn_fields(env, &insn)?;
        i += 1;
    }
    Ok(())
}

fn resolve_ld_imm64(env: &mut VerifierEnv<'_>, i: usize) -> PResult<()> {
    let insn = env.insns[i];
    let next = env.insns.get(i + 1).copied();
    let Some(next) = next.filter(|x| x.code == 0 && x.dst == 0 && x.src == 0 && x.off == 0) else {
        env.verbose("invalid bpf_ld_imm64 insn\n");
        return Err(Fail::Errno(EINVAL));
    };
    if insn.off != 0 {
        env.verbose("BPF_LD_IMM64 uses reserved fields\n");
        return Err(Fail::Errno(EINVAL));
    }
    match insn.src {
        0 | BPF_PSEUDO_FUNC => return Ok(()),
        BPF_PSEUDO_BTF_ID => return check_pseudo_btf_id(env, i, next),
        BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE => {}
        BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX if next.imm == 0 => {}
        _ => {
            env.verbose("unrecognized bpf_ld_imm64 insn\n");
            return Err(Fail::Errno(EINVAL));
        }
    }
    let map_idx = match insn.src {
        BPF_PSEUDO_MAP_IDX | BPF_PSEUDO_MAP_IDX_VALUE => {
            // fd_array_get_map_idx: our loaders pass no fd_array
            env.verbose("fd_idx without fd_array is invalid\n");
            return Err(Fail::Errno(EPROTO));
        }
        _ => add_used_map(env, insn.imm)?,
    };
    let obj_idx = env.used_maps[map_idx];
    let map = &env.input.maps[obj_idx];
    let addr = if insn.src == BPF_PSEUDO_MAP_FD {
        map.kaddr
    } else {
        let off = next.imm as u32;
        let base = match map.def.map_type {
            BPF_MAP_TYPE_ARRAY => {
                if map.def.max_entries != 1 {
                    Err(ENOTSUPP)
                } else if off >= map.def.value_size {
                    Err(EINVAL)
                } else {
                    Ok(map.kaddr + ARRAY_VALUE_OFFSET)
                }
            }
            BPF_MAP_TYPE_PERCPU_ARRAY => {
                if map.def.max_entries != 1 {
                    Err(EOPNOTSUPP)
                } else if off >= map.def.value_size {
                    Err(EINVAL)
                } else {
                    Ok(map.kaddr + ARRAY_VALUE_OFFSET)
                }
            }
            // arena_map_direct_value_addr: any offset inside the arena, from
            // its user address
            BPF_MAP_TYPE_ARENA => {
                if u64::from(off) >= u64::from(map.def.max_entries) * crate::target::PAGE_SIZE {
                    Err(ERANGE)
                } else {
                    Ok(crate::verifier::map_create::loader_map_extra(&map.def))
                }
            }
            BPF_MAP_TYPE_INSN_ARRAY => {
                return Err(Fail::unsupported("check_and_resolve_insns", "direct value access of insn_array maps is not modelled"));
            }
            _ => {
                env.verbose("no direct value access support for this map type\n");
                return Err(Fail::Errno(EINVAL));
            }
        };
        match base {
            Ok(b) => {
                env.aux[i].map_off = off;
                b.wrapping_add(off as u64)
            }
            Err(e) => {
                let vs = map.def.value_size;
                env.verbose(&format!("invalid access to map value pointer, value_size={vs} off={off}\n"));
                return Err(Fail::Errno(e));
            }
        }
    };
    env.aux[i].map_index = map_idx;
    env.insns[i].imm = addr as u32 as i32;
    env.insns[i + 1].imm = (addr >> 32) as u32 as i32;
    Ok(())
}

/// `check_pseudo_btf_id` of a vmlinux variable: the register type its
/// load gives (`aux->btf_var`). The address `kallsyms_lookup_name` puts in
/// the imm is the fixups' (the verifier keeps the VAR's id there).
fn check_pseudo_btf_id(env: &mut VerifierEnv<'_>, i: usize, next: Insn) -> PResult<()> {
    use super::reg::*;
    use crate::vmlinux_btf::{Kind, VmlinuxBtf};
    const PHASE: &str = "check_pseudo_btf_id";
    if next.imm != 0 {
        return Err(Fail::unsupported(PHASE, "module BTF objects (a btf_fd) are not modelled"));
    }
    let Some(btf) = VmlinuxBtf::for_arch(env.input.symbols_arch) else {
        return Err(Fail::unsupported(PHASE, "no vmlinux BTF is recorded for this arch"));
    };
    let id = env.insns[i].imm as u32;
    let Some(t) = btf.type_by_id(id) else {
        return Err(Fail::unsupported(PHASE, &format!("btf_id {id} is not in the recorded vmlinux BTF")));
    };
    let (type_id, percpu) = match t.kind {
        Kind::Var { type_id, percpu } => (type_id, percpu),
        Kind::Func(_) => return Err(Fail::unsupported(PHASE, "ld_imm64 of a kernel function's BTF id is not modelled")),
        _ => {
            env.verbose(&format!("pseudo btf_id {id} in ldimm64 isn't KIND_VAR or KIND_FUNC\n"));
            return Err(Fail::Errno(EINVAL));
        }
    };
    let inner = btf.skip_modifiers(type_id);
    let is_struct = matches!(btf.type_by_id(inner).map(|t| &t.kind), Some(Kind::Struct { .. }));
    let (reg_type, aux) = if percpu || is_struct {
        let flag = if percpu { MEM_PERCPU } else { 0 };
        (PTR_TO_BTF_ID | flag, super::kfuncs::btf_type_id_interned(btf.name_of(inner)))
    } else {
        let Some(size) = btf.type_size(inner) else {
            return Err(Fail::unsupported(PHASE, &format!("the size of the type of {} is not in the recorded vmlinux BTF", t.name)));
        };
        (PTR_TO_MEM | MEM_RDONLY, i64::from(size))
    };
    env.aux[i].btf_var_type = reg_type;
    env.aux[i].btf_var_aux = aux;
    Ok(())
}

/// `add_used_map`: the map behind `fd`, recorded once; returns its index
/// in `used_maps`. The loader's fds 0-2 are open files that are not maps;
/// other fds without a map are not open.
fn add_used_map(env: &mut VerifierEnv<'_>, fd: i32) -> PResult<usize> {
    let Some(obj) = env.input.map_by_fd(fd) else {
        env.verbose(&format!("fd {fd} is not pointing to valid bpf_map\n"));
        return Err(Fail::Errno(if (0..=2).contains(&fd) { EINVAL } else { EBADF }));
    };
    if let Some(k) = env.used_maps.iter().position(|&m| m == obj) {
        return Ok(k);
    }
    if env.used_maps.len() >= MAX_USED_MAPS {
        env.verbose(&format!("The total number of maps per program has reached the limit of {MAX_USED_MAPS}\n"));
        return Err(Fail::Errno(E2BIG));
    }
    check_map_prog_compatibility(env, obj)?;
    env.used_maps.push(obj);
    Ok(env.used_maps.len() - 1)
}

/// `is_tracing_prog_type`.
fn is_tracing_prog_type(prog_type: u32) -> bool {
    use crate::prog_type::bpf_prog_type::*;
    matches!(prog_type, KPROBE | TRACEPOINT | PERF_EVENT | RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE)
}

/// `check_map_prog_compatibility`.
fn check_map_prog_compatibility(env: &mut VerifierEnv<'_>, obj: usize) -> PResult<()> {
    use crate::btf::{BPF_LIST_HEAD, BPF_RB_ROOT, BPF_RES_SPIN_LOCK, BPF_SPIN_LOCK};
    let prog_type = env.input.prog_type.0;
    let mask = env.input.maps[obj].record.as_ref().map_or(0, |r| r.field_mask);
    if mask & (BPF_LIST_HEAD | BPF_RB_ROOT) != 0 && is_tracing_prog_type(prog_type) {
        env.verbose("tracing progs cannot use bpf_{list_head,rb_root} yet\n");
        return Err(Fail::Errno(EINVAL));
    }
    if mask & (BPF_SPIN_LOCK | BPF_RES_SPIN_LOCK) != 0 && prog_type == crate::prog_type::bpf_prog_type::SOCKET_FILTER {
        env.verbose("socket filter progs cannot use bpf_spin_lock yet\n");
        return Err(Fail::Errno(EINVAL));
    }
    if mask & BPF_SPIN_LOCK != 0 && is_tracing_prog_type(prog_type) {
        env.verbose("tracing progs cannot use bpf_spin_lock yet\n");
        return Err(Fail::Errno(EINVAL));
    }
    let def = &env.input.maps[obj].def;
    let ty = def.map_type;
    if ty == BPF_MAP_TYPE_STRUCT_OPS {
        env.verbose("bpf_struct_ops map cannot be used in prog\n");
        return Err(Fail::Errno(EINVAL));
    }
    let sleepable = env.input.prog_flags & crate::uapi::prog_flags::BPF_F_SLEEPABLE != 0;
    if sleepable {
        let ok = matches!(
            ty,
            BPF_MAP_TYPE_HASH
                | BPF_MAP_TYPE_RHASH
                | BPF_MAP_TYPE_LRU_HASH
                | BPF_MAP_TYPE_ARRAY
                | BPF_MAP_TYPE_PERCPU_HASH
                | BPF_MAP_TYPE_PERCPU_ARRAY
                | BPF_MAP_TYPE_LRU_PERCPU_HASH
                | BPF_MAP_TYPE_LPM_TRIE
                | BPF_MAP_TYPE_ARRAY_OF_MAPS
                | BPF_MAP_TYPE_HASH_OF_MAPS
                | BPF_MAP_TYPE_RINGBUF
                | BPF_MAP_TYPE_USER_RINGBUF
                | BPF_MAP_TYPE_INODE_STORAGE
                | BPF_MAP_TYPE_SK_STORAGE
                | BPF_MAP_TYPE_TASK_STORAGE
                | BPF_MAP_TYPE_CGRP_STORAGE
                | BPF_MAP_TYPE_QUEUE
                | BPF_MAP_TYPE_STACK
                | BPF_MAP_TYPE_ARENA
                | BPF_MAP_TYPE_INSN_ARRAY
                | BPF_MAP_TYPE_PROG_ARRAY
        );
        if !ok {
            env.verbose("Sleepable programs can only use array, hash, ringbuf and local storage maps\n");
            return Err(Fail::Errno(EINVAL));
        }
    }
    if matches!(ty, BPF_MAP_TYPE_CGROUP_STORAGE | BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE) {
        // bpf_cgroup_storage_assign: one map per storage type
        let clash = env.used_maps.iter().any(|&m| m != obj && env.input.maps[m].def.map_type == ty);
        if clash {
            env.verbose("only one cgroup storage of each type is allowed\n");
            return Err(Fail::Errno(EBUSY));
        }
    }
    if ty == BPF_MAP_TYPE_ARENA {
        // `prog->aux->arena`: the arena among the maps already used
        if env.used_maps.iter().any(|&m| m != obj && env.input.maps[m].def.map_type == BPF_MAP_TYPE_ARENA) {
            env.verbose("Only one arena per program\n");
            return Err(Fail::Errno(EBUSY));
        }
        if !env.allow_ptr_leaks || !env.bpf_capable {
            env.verbose("CAP_BPF and CAP_PERFMON are required to use arena\n");
            return Err(Fail::Errno(EPERM));
        }
        let arch = env.input.arch;
        if !arch.kernel_jits() {
            env.verbose("JIT is required to use arena\n");
            return Err(Fail::Errno(EOPNOTSUPP));
        }
        if !matches!(arch, crate::target::Arch::X86_64 | crate::target::Arch::Arm64 | crate::target::Arch::Riscv64) {
            env.verbose("JIT doesn't support arena\n");
            return Err(Fail::Errno(EOPNOTSUPP));
        }
        // the project's loaders set the user address at creation
        if crate::verifier::map_create::loader_map_extra(&env.input.maps[obj].def) == 0 {
            env.verbose("arena's user address must be set via map_extra or mmap()\n");
            return Err(Fail::Errno(EINVAL));
        }
    }
    if ty == BPF_MAP_TYPE_INSN_ARRAY {
        return Err(Fail::unsupported("check_map_prog_compatibility", "insn_array maps are not modelled"));
    }
    Ok(())
}

/// `add_kfuncs`: unprivileged programs may not call kernel functions;
/// every kfunc must be a known function of the target's vmlinux BTF.
pub fn add_kfuncs(env: &mut VerifierEnv<'_>) -> PResult<()> {
    for i in 0..env.len() {
        let insn = env.insns[i];
        if !bpf_pseudo_kfunc_call(&insn) {
            continue;
        }
        if !env.bpf_capable {
            if insn.off == 0 && insn.imm != 0 && env.kfunc_name(insn.imm).is_none() {
                // the policy block prints the kfunc's name
                return Err(Fail::unsupported("add_kfuncs", &format!("kfunc btf_id {} is not in the model's 7.3 table", insn.imm)));
            }
            env.verbose("loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN\n");
            bpf_diag_policy(
                env,
                i,
                "kernel function call",
                "calling kernel functions requires CAP_BPF or CAP_SYS_ADMIN",
                "Load this program with the required capability, or avoid kernel function calls in unprivileged programs.",
            );
            return Err(Fail::Errno(EPERM));
        }
        bpf_add_kfunc_call(env, insn.imm, insn.off)?;
    }
    Ok(())
}

/// `bpf_add_kfunc_call`, for vmlinux kfuncs the model's table names.
fn bpf_add_kfunc_call(env: &mut VerifierEnv<'_>, func_id: i32, offset: i16) -> PResult<()> {
    if !env.input.gpl {
        env.verbose("cannot call kernel function from non-GPL compatible program\n");
        return Err(Fail::Errno(EINVAL));
    }
    // id 0 with no module: left for dead code elimination to judge
    if func_id == 0 && offset == 0 {
        return Ok(());
    }
    if offset != 0 {
        return Err(Fail::unsupported("add_kfuncs", "module kfuncs (BTF fd in off) are not modelled"));
    }
    if func_id <= 0 {
        env.verbose(&format!("invalid kernel function btf_id {func_id}\n"));
        return Err(Fail::Errno(EINVAL));
    }
    if env.kfunc_name(func_id).is_none() {
        return Err(Fail::unsupported("add_kfuncs", &format!("kfunc btf_id {func_id} is not in the model's 7.3 table")));
    }
    Ok(())
}
