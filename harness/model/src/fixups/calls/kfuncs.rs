//! `bpf_fixup_kfunc_call` (and `specialize_kfunc`): the kfunc's imm becomes
//! its address relative to `__bpf_call_base` (neither JIT supports far
//! kfunc calls), and the kfuncs the verifier inlines are replaced.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::build::*;
use super::kernel_symbols::call_imm;
use crate::limits::BPF_MAX_LOOPS;
use crate::prog_type::bpf_attach_type as attach;
use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::errno::{E2BIG, EINVAL};
use crate::verifier::helpers::prog;

const PHASE: &str = "bpf_fixup_kfunc_call";
/// `BPF_TRAMP_IS_RETURN_SHIFT`, `BPF_TRAMP_COOKIE_INDEX_SHIFT`.
const BPF_TRAMP_IS_RETURN_SHIFT: i32 = 63;
const BPF_TRAMP_COOKIE_INDEX_SHIFT: i32 = 8;

/// Kfuncs whose fixup adds kernel pointers the model does not have
/// (`prog->aux` for `__prog` arguments).
fn needs_kernel_pointers(name: &str) -> bool {
    name.ends_with("_impl") && !takes_struct_meta(name) && !inserts_into_graph(name)
}

/// The list pushes and `bpf_rbtree_add` (`is_bpf_list_push_kfunc`,
/// `is_bpf_rbtree_add_kfunc`), whose fixup loads the inserted object's
/// `btf_struct_meta` and the node's offset in it
/// (`__fixup_collection_insert_kfunc`).
fn inserts_into_graph(name: &str) -> bool {
    crate::verifier::graph::is_bpf_list_push_kfunc(name) || crate::verifier::graph::is_bpf_rbtree_add_kfunc(name)
}

/// `bpf_obj_new`, `bpf_percpu_obj_new`, `bpf_obj_drop`,
/// `bpf_percpu_obj_drop`, `bpf_refcount_acquire` and their `_impl` forms,
/// whose fixup loads the local type's `btf_struct_meta` into R2 (NULL for
/// a type without one).
fn takes_struct_meta(name: &str) -> bool {
    matches!(name.strip_suffix("_impl").unwrap_or(name), "bpf_obj_new" | "bpf_percpu_obj_new" | "bpf_obj_drop" | "bpf_percpu_obj_drop" | "bpf_refcount_acquire")
}

/// The register of the `struct bpf_prog_aux *` a `KF_IMPLICIT_ARGS` kfunc
/// takes after its public arguments (`insn_aux->arg_prog`), for the
/// kfuncs the model has.
fn implicit_prog_aux_regno(name: &str) -> Option<u8> {
    match name {
        "bpf_wq_set_callback" => Some(R4),
        "bpf_task_work_schedule_signal" | "bpf_task_work_schedule_resume" | "bpf_stream_vprintk" => Some(R5),
        "bpf_stream_print_stack" => Some(R2),
        _ => None,
    }
}

/// What replaces the kfunc call at `idx`: at least the call with its imm
/// turned into the function's address.
pub fn fixup_kfunc_call(env: &VerifierEnv<'_>, idx: usize) -> Result<Option<Vec<Insn>>, Fail> {
    let insn = env.insns[idx];
    if insn.imm == 0 {
        return Err(Fail::unsupported(PHASE, "a kfunc call with imm 0 (rejected by 7.3 with EINVAL) reached the fixups"));
    }
    if insn.off != 0 {
        return Err(Fail::unsupported(PHASE, &format!("insn {idx}: kfuncs of module BTF (off {}) are not modelled", insn.off)));
    }
    let Some(&(name, _)) = env.kfuncs.iter().find(|(_, id)| *id as i32 == insn.imm) else {
        return Err(Fail::unsupported(PHASE, &format!("insn {idx}: kfunc BTF id {} is not in the model's table", insn.imm)));
    };
    if needs_kernel_pointers(name) {
        return Err(Fail::unsupported(PHASE, &format!("the fixup of kfunc {name} (BTF records or prog->aux loads) is not modelled yet")));
    }
    let non_sleepable = env.pass_aux.get(idx).is_some_and(|a| a.non_sleepable);
    // specialize_kfunc: the function actually called
    let func = match name {
        // a program that may not write packet data gets the read-only
        // constructor
        "bpf_dynptr_from_skb" if !crate::verifier::ctx::may_access_direct_pkt_data(env.input.prog_type.0, true) => "bpf_dynptr_from_skb_rdonly",
        "bpf_set_dentry_xattr" | "bpf_remove_dentry_xattr" => {
            return Err(Fail::unsupported(PHASE, &format!("specialize_kfunc of {name} (LSM hooks with the inode locked) is not modelled yet")));
        }
        "bpf_dynptr_from_file" if !non_sleepable => "bpf_dynptr_from_file_sleepable",
        "bpf_arena_alloc_pages" if non_sleepable => "bpf_arena_alloc_pages_non_sleepable",
        "bpf_arena_free_pages" if non_sleepable => "bpf_arena_free_pages_non_sleepable",
        n => n,
    };
    let arch = env.input.symbols_arch;
    let Some(imm) = call_imm(arch, func) else {
        return Err(Fail::unsupported(PHASE, &format!("the address of kfunc {func} on {arch} is not known to the model")));
    };
    let mut call = insn;
    call.imm = imm;

    let eatype = env.input.expected_attach_type;
    let fsession = env.input.prog_type.0 == prog::TRACING && matches!(eatype, attach::TRACE_FSESSION | attach::TRACE_FSESSION_MULTI);
    let patch = match name {
        "bpf_cast_to_kern_ctx" | "bpf_rdonly_cast" => vec![mov64_reg(R0, R1)],
        // R1 becomes the object's size, R2 its type's struct meta
        n if takes_struct_meta(n) => {
            let aux = env.pass_aux.get(idx);
            let percpu = n.starts_with("bpf_percpu_obj_");
            let meta = aux.is_some_and(|a| a.kptr_struct_meta);
            if percpu && meta {
                return Err(Fail::unsupported(PHASE, &format!("insn {idx}: verifier bug: NULL kptr_struct_meta expected")));
            }
            if n.starts_with("bpf_refcount_acquire") && !meta {
                return Err(Fail::unsupported(PHASE, &format!("insn {idx}: verifier bug: kptr_struct_meta expected")));
            }
            let addr = if meta { crate::map::btf_struct_meta_kaddr(env.input.arch) } else { 0 };
            let [lo, hi] = ld_imm64(R2, addr);
            if n.contains("obj_new") { vec![mov64_imm(R1, aux.map_or(0, |a| a.obj_new_size) as i32), lo, hi, call] } else { vec![lo, hi, call] }
        }
        // the meta and the node offset follow the public arguments
        n if inserts_into_graph(n) => {
            let aux = env.pass_aux.get(idx);
            if !aux.is_some_and(|a| a.kptr_struct_meta) {
                return Err(Fail::unsupported(PHASE, &format!("insn {idx}: verifier bug: kptr_struct_meta expected")));
            }
            let (meta_reg, off_reg) = if n == "bpf_list_add" || crate::verifier::graph::is_bpf_rbtree_add_kfunc(n) { (R4, R5) } else { (R3, R4) };
            let [lo, hi] = ld_imm64(meta_reg, crate::map::btf_struct_meta_kaddr(env.input.arch));
            vec![lo, hi, mov64_imm(off_reg, aux.map_or(0, |a| a.insert_off) as i32), call]
        }
        "bpf_session_is_return" if fsession => {
            vec![ldx_mem(BPF_DW, R0, R1, -8), alu64_imm(BPF_RSH, R0, BPF_TRAMP_IS_RETURN_SHIFT), alu64_imm(BPF_AND, R0, 1)]
        }
        "bpf_session_cookie" if fsession => vec![
            ldx_mem(BPF_DW, R0, R1, -8),
            alu64_imm(BPF_RSH, R0, BPF_TRAMP_COOKIE_INDEX_SHIFT),
            alu64_imm(BPF_AND, R0, 0xff),
            alu64_imm(BPF_LSH, R0, 3),
            alu64_reg(BPF_SUB, R0, R1),
            alu64_imm(BPF_NEG, R0, 0),
        ],
        // bpf_iter_num_new: r1 points at the iterator, r2 holds the first
        // value and r3 the bound it stops before
        "bpf_iter_num_new" => vec![
            jmp32_reg(BPF_JSGT, R2, R3, 8),
            mov32_reg(R0, R3),
            alu32_reg(BPF_SUB, R0, R2),
            jmp_imm(BPF_JGT, R0, BPF_MAX_LOOPS as i32, 8),
            alu32_imm(BPF_ADD, R2, -1),
            stx_mem(BPF_W, R1, R2, 0),
            stx_mem(BPF_W, R1, R3, 4),
            mov64_imm(R0, 0),
            ja(5),
            st_mem(BPF_DW, R1, 0, 0),
            mov64_imm(R0, -EINVAL),
            ja(2),
            st_mem(BPF_DW, R1, 0, 0),
            mov64_imm(R0, -E2BIG),
        ],
        // bpf_iter_num_next: while cur + 1 is below the bound, store it and
        // hand back r1 (cur is the first field); else zero the iterator and
        // return NULL
        "bpf_iter_num_next" => vec![
            ldx_mem(BPF_W, R0, R1, 0),
            alu32_imm(BPF_ADD, R0, 1),
            ldx_mem(BPF_W, R2, R1, 4),
            jmp32_reg(BPF_JSGE, R0, R2, 3),
            stx_mem(BPF_W, R1, R0, 0),
            mov64_reg(R0, R1),
            ja(2),
            st_mem(BPF_DW, R1, 0, 0),
            mov64_imm(R0, 0),
        ],
        // destroying a numeric iterator does nothing: the call turns into
        // `goto +0`
        "bpf_iter_num_destroy" => vec![ja(0)],
        _ => vec![call],
    };
    if let Some(regno) = implicit_prog_aux_regno(name) {
        let mut out = ld_imm64(regno, crate::map::prog_aux_kaddr(env.input.arch)).to_vec();
        out.extend(patch);
        return Ok(Some(out));
    }
    Ok(Some(patch))
}
