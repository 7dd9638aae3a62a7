//! The rewrite of a helper or kfunc call by `bpf_do_misc_fixups`
//! (kernel/bpf/fixups.c, from `if (insn->code != (BPF_JMP | BPF_CALL))`
//! on): helpers the JIT inlines stay, tail calls get their JIT form, map
//! helpers become inlined lookups (`map_gen_lookup`) or direct calls of the
//! map type's ops, the helpers the verifier inlines are inlined per arch,
//! and every other call's imm becomes its function's address relative to
//! `__bpf_call_base` (`BPF_CALL_IMM`). Kfuncs: [`kfuncs`].
//!
//! Imm values are those of the 7.3.4+deb13 images ([`kernel_symbols`]):
//! the xlated dump prints such calls as `call unknown` (the imm is no
//! helper id), exactly as 7.3 does, and the raw insns match 7.3's.
//!
//! The model assumes what the recorded 7.3 kernels have: the JIT enabled
//! (`prog->jit_requested`), no constant blinding, and maps created by the
//! loader itself (a map's `bypass_spec_v1` is the loader's).

pub mod build;
pub mod kernel_symbols;
pub mod kfuncs;
pub mod map_gen_lookup;

use bpf_isa::Insn;
use bpf_isa::helper_ids::helper_name;
use bpf_isa::op::*;

use self::build::*;
use self::kernel_symbols::{ProtoPick, call_imm, helper_func, kernel_var_addr, map_ops_func, proto_pick};
use self::map_gen_lookup::{MapView, map_gen_lookup};
use crate::map::MapDef;
use crate::prog_type::bpf_attach_type as attach;
use crate::target::Arch;
use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;
use crate::verifier::errno::{EINVAL, EOPNOTSUPP};
use crate::verifier::helper_call::MapKeyState;
use crate::verifier::helpers::{ProtoCtx, func, get_func_proto, prog};
use crate::verifier::liveness::proto_ctx;

const PHASE: &str = "bpf_do_misc_fixups";

fn unsupported(what: String) -> Fail {
    Fail::unsupported(PHASE, &what)
}

/// What replaces the helper or kfunc call at `idx` (`None`: it stays as
/// it is). `idx` indexes the program as the pass reads it; nothing is
/// changed in `env`.
pub fn fixup_call(env: &mut VerifierEnv<'_>, idx: usize) -> Result<Option<Vec<Insn>>, Fail> {
    let Some(&insn) = env.insns.get(idx) else {
        return Err(unsupported(format!("insn {idx} is past the end of the program")));
    };
    if insn.code != BPF_JMP | BPF_CALL || insn.src == BPF_PSEUDO_CALL {
        return Ok(None);
    }
    let arch = env.input.symbols_arch;
    if !matches!(arch, Arch::X86_64 | Arch::Arm64) {
        return Err(unsupported(format!("the call rewrites of the {arch} image are not modelled (no kernel symbols for it)")));
    }
    if insn.src == BPF_PSEUDO_KFUNC_CALL {
        return kfuncs::fixup_kfunc_call(env, idx);
    }
    if insn.src != 0 {
        return Err(unsupported(format!("insn {idx}: call with src_reg {}", insn.src)));
    }
    fixup_helper_call(env, idx, insn)
}

/// `bpf_jit_inlines_helper_call`: every 7.3 JIT we target but x86-64's
/// emits these itself (x86-64 has the verifier inline them).
fn bpf_jit_inlines_helper_call(arch: Arch, id: i32) -> bool {
    arch != Arch::X86_64 && matches!(id, func::GET_SMP_PROCESSOR_ID | func::GET_CURRENT_TASK | func::GET_CURRENT_TASK_BTF)
}

/// The map a map helper call was verified with (`aux->map_ptr_state`).
fn map_of_call<'e>(env: &'e VerifierEnv<'_>, m: usize) -> Option<&'e MapDef> {
    let n = env.used_maps.len();
    if m < n {
        return Some(&env.input.maps.get(*env.used_maps.get(m)?)?.def);
    }
    // the inner-map metas follow the program's maps, in their order
    env.used_maps.iter().filter_map(|&u| env.input.maps.get(u)?.def.inner.as_deref()).nth(m - n)
}

fn view(env: &VerifierEnv<'_>, d: &MapDef) -> MapView {
    MapView {
        map_type: d.map_type,
        key_size: d.key_size,
        value_size: d.value_size,
        max_entries: d.max_entries,
        map_flags: d.map_flags,
        bypass_spec_v1: env.bypass_spec_v1,
    }
}

fn helper_label(id: i32) -> String {
    helper_name(id).map_or_else(|| format!("helper #{id}"), |n| format!("bpf_{n}"))
}

/// `patch_call_imm`: the call of the helper's prototype function.
/// The prototype is the one the verifier checked the call against
/// (`env->ops->get_func_proto`, [`get_func_proto`]); where it names its
/// `.func` that is the function, else the table's walk through the
/// `*_func_proto` functions ([`proto_pick`]) names it.
fn patch_call_imm(env: &VerifierEnv<'_>, mut insn: Insn) -> Result<Option<Vec<Insn>>, Fail> {
    let arch = env.input.symbols_arch;
    let id = insn.imm;
    let pctx = proto_ctx(env);
    // the prototype's walk through the `*_func_proto` fallbacks costs a few
    // string-keyed lookups per level: a program with many calls of one
    // helper (a 1.5k-call pyperf) resolves it once per thread
    thread_local! {
        static RESOLVED: std::cell::RefCell<std::collections::HashMap<(Arch, ProtoCtx, i32), i32>> = std::cell::RefCell::new(std::collections::HashMap::new());
    }
    let key = (arch, pctx, id);
    if let Some(imm) = RESOLVED.with_borrow(|r| r.get(&key).copied()) {
        insn.imm = imm;
        return Ok(Some(vec![insn]));
    }
    let name = helper_name(id).ok_or_else(|| unsupported(format!("helper #{id} has no name")))?;
    let f = match get_func_proto(id, &pctx).map(|p| p.func).filter(|f| !f.is_empty()) {
        Some(f) => f,
        None => match proto_pick(pctx.prog_type, name) {
            ProtoPick::Func(f) => f,
            // bpf_base_func_proto: a sleepable program's bpf_get_task_stack
            // may fault its stack in
            ProtoPick::Conditional("bpf_base_func_proto") if name == "get_task_stack" => {
                if pctx.sleepable {
                    "bpf_get_task_stack_sleepable"
                } else {
                    "bpf_get_task_stack"
                }
            }
            // kprobe_prog_func_proto: a sleepable program's bpf_get_stack may
            // fault its stack in (tests/fixups_calls/get_stack_kprobe*.s)
            ProtoPick::Conditional("kprobe_prog_func_proto") if name == "get_stack" => {
                if pctx.sleepable {
                    "bpf_get_stack_sleepable"
                } else {
                    "bpf_get_stack"
                }
            }
            ProtoPick::Conditional(by) => {
                return Err(unsupported(format!("{by} picks bpf_{name}'s prototype by a condition the model does not have")));
            }
            ProtoPick::NotListed => helper_func(name)
                .ok_or_else(|| unsupported(format!("which of bpf_{name}'s prototypes (and functions) 7.3 gives this program type is not modelled")))?,
        },
    };
    insn.imm = imm_of(arch, f)?;
    RESOLVED.with_borrow_mut(|r| r.insert(key, insn.imm));
    Ok(Some(vec![insn]))
}

fn imm_of(arch: Arch, f: &str) -> Result<i32, Fail> {
    call_imm(arch, f).ok_or_else(|| unsupported(format!("the address of {f} on the {arch} image is not known to the model")))
}

fn fixup_helper_call(env: &VerifierEnv<'_>, idx: usize, insn: Insn) -> Result<Option<Vec<Insn>>, Fail> {
    let arch = env.input.arch;
    // kernel addresses come from the image the model has symbols of
    let syms = env.input.symbols_arch;
    let id = insn.imm;
    let aux = env.pass_aux.get(idx).cloned().unwrap_or_default();
    if bpf_jit_inlines_helper_call(arch, id) {
        return Ok(None);
    }
    match id {
        func::TAIL_CALL => return fixup_tail_call(env, idx, insn),
        func::LOOP if aux.loop_inline.fit_for_inline => {
            // bpf_optimize_bpf_loop always inlines these before this pass
            return Err(unsupported(format!("insn {idx}: a bpf_loop call fit for inlining reached bpf_do_misc_fixups (bpf_optimize_bpf_loop did not run)")));
        }
        func::TIMER_SET_CALLBACK => {
            // the callback's program: R3 = prog->aux
            let mut out = ld_imm64(R3, crate::map::prog_aux_kaddr(env.input.arch)).to_vec();
            out.extend(patch_call_imm(env, insn)?.unwrap_or(vec![insn]));
            return Ok(Some(out));
        }
        _ => {}
    }
    if aux.call_with_percpu_alloc_ptr {
        // the percpu allocation's pointer is a pointer to the percpu pointer
        let mut out = vec![ldx_mem(BPF_DW, R1, R1, 0)];
        out.extend(patch_call_imm(env, insn)?.unwrap_or_default());
        return Ok(Some(out));
    }
    let op = match id {
        func::MAP_LOOKUP_ELEM => Some("map_lookup_elem"),
        func::MAP_UPDATE_ELEM => Some("map_update_elem"),
        func::MAP_DELETE_ELEM => Some("map_delete_elem"),
        func::MAP_PUSH_ELEM => Some("map_push_elem"),
        func::MAP_POP_ELEM => Some("map_pop_elem"),
        func::MAP_PEEK_ELEM => Some("map_peek_elem"),
        func::REDIRECT_MAP => Some("map_redirect"),
        func::FOR_EACH_MAP_ELEM => Some("map_for_each_callback"),
        func::MAP_LOOKUP_PERCPU_ELEM => Some("map_lookup_percpu_elem"),
        _ => None,
    };
    if let Some(op) = op {
        if aux.map_ptr_poison {
            return patch_call_imm(env, insn);
        }
        let m = aux.map_ptr.map(|m| m as usize).ok_or_else(|| unsupported(format!("insn {idx}: {} without a recorded map", helper_label(id))))?;
        let def = map_of_call(env, m).ok_or_else(|| unsupported(format!("insn {idx}: map {m} of the call is unknown")))?;
        if id == func::MAP_LOOKUP_ELEM
            && let Some(seq) = map_gen_lookup(&view(env, def), |f| imm_of(syms, f))?
        {
            return Ok(Some(seq));
        }
        let Some(f) = map_ops_func(def.map_type, op) else {
            return Err(unsupported(format!("map type {} has no {op} in the model's table", def.map_type)));
        };
        let mut call = insn;
        call.imm = imm_of(syms, f)?;
        return Ok(Some(vec![call]));
    }
    let tracing = env.input.prog_type.0 == prog::TRACING;
    let eatype = env.input.expected_attach_type;
    let seq = match id {
        func::JIFFIES64 => {
            let addr = kernel_var_addr(syms, "jiffies").ok_or_else(|| unsupported(format!("&jiffies on {arch}")))?;
            let [lo, hi] = ld_imm64(R0, addr);
            vec![lo, hi, ldx_mem(BPF_DW, R0, R0, 0)]
        }
        func::GET_SMP_PROCESSOR_ID | func::GET_CURRENT_TASK | func::GET_CURRENT_TASK_BTF if arch == Arch::X86_64 => {
            // a per-CPU variable read through BPF_MOV64_PERCPU_REG
            let (var, size) = if id == func::GET_SMP_PROCESSOR_ID { ("cpu_number", BPF_W) } else { ("current_task", BPF_DW) };
            let addr = kernel_var_addr(syms, var).ok_or_else(|| unsupported(format!("&{var} on {arch}")))?;
            vec![mov64_imm(R0, addr as u32 as i32), mov64_percpu_reg(R0, R0), ldx_mem(size, R0, R0, 0)]
        }
        func::GET_FUNC_ARG if tracing => {
            if eatype == attach::TRACE_RAW_TP {
                return Err(unsupported("bpf_get_func_arg in a raw_tp tracing program needs the attach function's BTF".into()));
            }
            vec![
                ldx_mem(BPF_DW, R0, R1, -8),
                alu64_imm(BPF_AND, R0, 0xff),
                jmp32_reg(BPF_JGE, R2, R0, 6),
                alu64_imm(BPF_LSH, R2, 3),
                alu64_reg(BPF_ADD, R2, R1),
                ldx_mem(BPF_DW, R0, R2, 0),
                stx_mem(BPF_DW, R3, R0, 0),
                mov64_imm(R0, 0),
                ja(1),
                mov64_imm(R0, -EINVAL),
            ]
        }
        func::GET_FUNC_RET if tracing => {
            let has_ret = matches!(
                eatype,
                attach::TRACE_FEXIT | attach::TRACE_FSESSION | attach::TRACE_FEXIT_MULTI | attach::TRACE_FSESSION_MULTI | attach::MODIFY_RETURN
            );
            if has_ret {
                vec![
                    ldx_mem(BPF_DW, R0, R1, -8),
                    alu64_imm(BPF_AND, R0, 0xff),
                    alu64_imm(BPF_LSH, R0, 3),
                    alu64_reg(BPF_ADD, R0, R1),
                    ldx_mem(BPF_DW, R3, R0, 0),
                    stx_mem(BPF_DW, R2, R3, 0),
                    mov64_imm(R0, 0),
                ]
            } else {
                vec![mov64_imm(R0, -EOPNOTSUPP)]
            }
        }
        func::GET_FUNC_ARG_CNT if tracing => {
            if eatype == attach::TRACE_RAW_TP {
                return Err(unsupported("bpf_get_func_arg_cnt in a raw_tp tracing program needs the attach function's BTF".into()));
            }
            vec![ldx_mem(BPF_DW, R0, R1, -8), alu64_imm(BPF_AND, R0, 0xff)]
        }
        func::GET_FUNC_IP if tracing => vec![ldx_mem(BPF_DW, R0, R1, -16)],
        func::GET_BRANCH_SNAPSHOT => {
            return Err(unsupported("bpf_get_branch_snapshot calls the perf_snapshot_branch_stack static call, whose target the model does not know".into()));
        }
        func::KPTR_XCHG => vec![mov64_reg(R0, R2), atomic_dw(BPF_XCHG, R1, R0, 0)],
        _ => return patch_call_imm(env, insn),
    };
    Ok(Some(seq))
}

/// Tail calls: `BPF_JMP | BPF_TAIL_CALL`, either a direct (poked) tail
/// call numbered by its poke descriptor, or the indirect one, with the
/// index bounded and masked for unprivileged loaders.
fn fixup_tail_call(env: &VerifierEnv<'_>, idx: usize, insn: Insn) -> Result<Option<Vec<Insn>>, Fail> {
    let aux = env.pass_aux.get(idx).cloned().unwrap_or_default();
    let poked = |a: &crate::verifier::do_check::PassAux| env.bpf_capable && a.map_key != MapKeyState::Poison && !a.map_ptr_poison && !a.map_ptr_unpriv;
    let mut call = insn;
    call.code = BPF_JMP | BPF_TAIL_CALL;
    call.imm = 0;
    if poked(&aux) {
        // bpf_jit_add_poke_descriptor numbers the direct tail calls in order
        let before = env.insns[..idx]
            .iter()
            .zip(&env.pass_aux)
            .filter(|(i, a)| i.code == BPF_JMP | BPF_CALL && i.src == 0 && i.imm == func::TAIL_CALL && poked(a))
            .count();
        call.imm = before as i32 + 1;
        return Ok(Some(vec![call]));
    }
    if !aux.map_ptr_unpriv {
        return Ok(Some(vec![call]));
    }
    if aux.map_ptr_poison {
        return Err(unsupported("tail_call abusing map_ptr (EINVAL in 7.3) reached the model's fixups".into()));
    }
    let m = aux.map_ptr.and_then(|m| map_of_call(env, m as usize)).ok_or_else(|| unsupported(format!("insn {idx}: tail call without a recorded map")))?;
    let mask = {
        let bits = 32 - m.max_entries.saturating_sub(1).leading_zeros();
        ((1u64 << bits) - 1) as u32 as i32
    };
    Ok(Some(vec![jmp_imm(BPF_JGE, R3, m.max_entries as i32, 2), alu32_imm(BPF_AND, R3, mask), call]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prog_type::ProgType;
    use crate::verifier::env::VerifierInput;

    fn fixed(arch: Arch, helper: i32) -> Result<Option<Vec<Insn>>, Fail> {
        let insns =
            vec![Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, helper), Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
        let mut input = VerifierInput::new(insns, ProgType(1), arch);
        input.verification_time_usec = Some(0);
        let Ok(mut env) = crate::verifier::verify(&input, std::time::Instant::now()) else { panic!("the verifier refused the program") };
        fixup_call(&mut env, 0)
    }

    #[test]
    fn helper_calls_get_the_image_imm_or_stay_or_are_undecided() {
        let imm = call_imm(Arch::X86_64, "bpf_user_rnd_u32").unwrap();
        assert_eq!(fixed(Arch::X86_64, func::GET_PRANDOM_U32).unwrap(), Some(vec![emit_call(imm)]));
        // the arm64 JIT inlines it: the call keeps its helper id
        assert_eq!(fixed(Arch::Arm64, func::GET_SMP_PROCESSOR_ID).unwrap(), None);
        assert_eq!(fixed(Arch::X86_64, func::GET_SMP_PROCESSOR_ID).unwrap().map(|v| v.len()), Some(3));
        assert!(matches!(fixed(Arch::Riscv64, func::GET_PRANDOM_U32), Err(Fail::Unsupported { .. })));
    }

    #[test]
    fn non_calls_and_out_of_range_indexes_are_left_alone_or_refused() {
        let insns = vec![Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
        let input = VerifierInput::new(insns, ProgType(1), Arch::X86_64);
        let Ok(mut env) = crate::verifier::verify(&input, std::time::Instant::now()) else { panic!() };
        assert_eq!(fixup_call(&mut env, 0).unwrap(), None);
        assert!(fixup_call(&mut env, 7).is_err());
    }
}
