//! The xlated program (after every fixup, in the dump form
//! `bpf_insn_prepare_dump` gives and `Decision::xlated` holds) as an
//! [`ExecProgram`]: what the JITs compile, so inlined map lookups, helper
//! inlines, ctx conversions and the div/mod guards really run.
//!
//! Resolved before the run:
//! * calls by kernel address (`imm` = function - `__bpf_call_base`, the
//!   7.3.4 images' `kallsyms` through [`kernel_symbols`]): a helper's
//!   function or a map type's `bpf_map_ops` function becomes the helper it
//!   implements (the runtime dispatches on the map's type as the ops do),
//!   the kernel-internal functions the rewrites call become [`Internal`],
//!   kfuncs their [`Kfunc`]; an address that names none of these makes the
//!   program unrunnable (an error, never a guess);
//! * tail calls (dumped as `call bpf_tail_call`), pseudo calls (dumped in
//!   the legacy layout: `off` is the pc-relative target) and callbacks;
//! * map loads (dumped as map ids: the model's map `i` has id `i + 1`) and
//!   loads of kernel variables' addresses (`ld_imm64`, or a sign-extended
//!   `mov` for per-CPU ones such as `cpu_number`), which become
//!   [`Imm64::Ksym`] objects of the runtime (zeroed: CPU 0, no task).
//!
//! The ctx an xlated program reads is the kernel's object (`struct
//! sk_buff`, `struct xdp_buff`); the runtime builds that view when
//! [`ExecProgram::kernel_ctx`] is set (see `ctx.rs`).

use std::collections::HashMap;
use std::sync::OnceLock;

use bpf_isa::Insn;
use bpf_isa::insn::op::*;

use super::{CallTarget, ExecProgram, Imm64, Internal, Kfunc, MAX_BPF_STACK};
use crate::fixups::calls::kernel_symbols::{ProtoPick, all_call_imms, all_var_addrs, helper_func, map_ops_func, proto_pick};
use crate::target::Arch;
use crate::verifier::helpers::{ProtoCtx, get_func_proto};

use bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL;

/// The `bpf_map_ops` fields a fixup calls directly, and the helper each
/// one implements.
const MAP_OPS: &[(&str, &str)] = &[
    ("map_lookup_elem", "bpf_map_lookup_elem"),
    ("map_update_elem", "bpf_map_update_elem"),
    ("map_delete_elem", "bpf_map_delete_elem"),
    ("map_push_elem", "bpf_map_push_elem"),
    ("map_pop_elem", "bpf_map_pop_elem"),
    ("map_peek_elem", "bpf_map_peek_elem"),
    ("map_redirect", "bpf_redirect_map"),
    ("map_for_each_callback", "bpf_for_each_map_elem"),
    ("map_lookup_percpu_elem", "bpf_map_lookup_percpu_elem"),
];

fn slot(arch: Arch) -> Option<usize> {
    match arch {
        Arch::X86_64 => Some(0),
        Arch::Arm64 => Some(1),
        _ => None,
    }
}

/// imm -> kernel function, per arch slot.
fn funcs_by_imm(arch: Arch) -> Option<&'static HashMap<i32, &'static str>> {
    static T: OnceLock<[HashMap<i32, &'static str>; 2]> = OnceLock::new();
    let t = T.get_or_init(|| {
        let mut t = [HashMap::new(), HashMap::new()];
        for (f, imms) in all_call_imms() {
            for (k, imm) in imms.iter().enumerate() {
                if let Some(imm) = imm {
                    t[k].insert(*imm, f);
                }
            }
        }
        t
    });
    Some(&t[slot(arch)?])
}

/// kernel variable address -> name, per arch slot.
fn vars_by_addr(arch: Arch) -> Option<&'static HashMap<u64, &'static str>> {
    static T: OnceLock<[HashMap<u64, &'static str>; 2]> = OnceLock::new();
    let t = T.get_or_init(|| {
        let mut t = [HashMap::new(), HashMap::new()];
        for (v, addrs) in all_var_addrs() {
            for (k, a) in addrs.iter().enumerate() {
                if let Some(a) = a {
                    t[k].insert(*a, v);
                }
            }
        }
        t
    });
    Some(&t[slot(arch)?])
}

/// kernel function -> the helper whose prototype names it as its `.func`
/// ([`crate::verifier::helper_protos::FuncProto::func`]), over every program type, attach type and
/// sleepability the prototypes are picked by.
fn helpers_by_proto_func() -> &'static HashMap<&'static str, i32> {
    static T: OnceLock<HashMap<&'static str, i32>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = HashMap::new();
        for prog_type in 0..=32 {
            for expected_attach_type in 0..=61 {
                for sleepable in [false, true] {
                    let p = ProtoCtx { prog_type, expected_attach_type, sleepable, cap_bpf: true, cap_perfmon: true, cap_sys_admin: true, attach_func: "" };
                    for id in 1..bpf_isa::helper_ids::BPF_FUNC_MAX_ID {
                        if let Some(f) = get_func_proto(id, &p).map(|p| p.func).filter(|f| !f.is_empty()) {
                            t.insert(f, id);
                        }
                    }
                }
            }
        }
        t
    })
}

/// The helper whose prototype (for `prog_type`) or map ops a kernel
/// function is.
fn helper_of_func(prog_type: u32, func: &str) -> Option<i32> {
    for id in 1..bpf_isa::helper_ids::BPF_FUNC_MAX_ID {
        let Some(name) = bpf_isa::helper_ids::helper_name(id) else { continue };
        let f = match helper_func(name) {
            Some(f) => Some(f),
            None => match proto_pick(prog_type, name) {
                ProtoPick::Func(f) => Some(f),
                _ => None,
            },
        };
        if f == Some(func) {
            return Some(id);
        }
    }
    if let Some(&id) = helpers_by_proto_func().get(func) {
        return Some(id);
    }
    for (op, helper) in MAP_OPS {
        for ty in 0..64u32 {
            if map_ops_func(ty, op) == Some(func) {
                return bpf_isa::helper_ids::helper_id(helper);
            }
        }
    }
    None
}

/// What a call to kernel function `func` is, as the runtime runs it.
fn call_target(prog_type: u32, func: &str) -> Option<CallTarget> {
    let internal = match func {
        "__htab_map_lookup_elem" => Some(Internal::HtabLookupElem),
        "arch_bpf_timed_may_goto" => Some(Internal::TimedMayGoto),
        "bpf_skb_load_helper_8_no_cache" => Some(Internal::SkbLoadNoCache(1)),
        "bpf_skb_load_helper_16_no_cache" => Some(Internal::SkbLoadNoCache(2)),
        "bpf_skb_load_helper_32_no_cache" => Some(Internal::SkbLoadNoCache(4)),
        _ => None,
    };
    if let Some(i) = internal {
        return Some(CallTarget::Internal(i));
    }
    if let Some(id) = helper_of_func(prog_type, func) {
        return Some(CallTarget::Helper(id));
    }
    match Kfunc::by_name(func) {
        Kfunc::Unknown(_) => None,
        k => Some(CallTarget::Kfunc(k)),
    }
}

/// The kernel function a call's imm names on `arch`, if the table has it.
pub fn kernel_func_of_imm(arch: Arch, imm: i32) -> Option<&'static str> {
    funcs_by_imm(arch)?.get(&imm).copied()
}

impl ExecProgram {
    /// The xlated program (as it runs: [`crate::verifier::Decision::xlated_as_run`]) of an accepted load of type
    /// `prog_type` on `arch`, ready to run. `Err` names what cannot be
    /// resolved (a call to a kernel function the runtime does not have).
    pub fn from_xlated(xlated: &[Insn], arch: Arch, prog_type: u32) -> Result<ExecProgram, String> {
        let n = xlated.len();
        let mut insns = xlated.to_vec();
        let mut calls = vec![None; n];
        let mut imm64 = vec![None; n];
        let mut pc = 0;
        while pc < n {
            let insn = xlated[pc];
            if insn.is_call() {
                calls[pc] = Some(match insn.src {
                    BPF_PSEUDO_CALL => {
                        // relative in imm, as the interpreter reads it; the
                        // callee's index in off is not needed
                        insns[pc].off = 0;
                        let t = pc as i64 + 1 + insn.imm as i64;
                        if !(0..n as i64).contains(&t) {
                            // a callee the verifier removed as dead (a callback
                            // of a zero-trip inlined bpf_loop): never reached
                            pc += 1;
                            continue;
                        }
                        CallTarget::Subprog(t as usize)
                    }
                    0 if insn.imm == BPF_FUNC_TAIL_CALL => CallTarget::Helper(BPF_FUNC_TAIL_CALL),
                    // a helper the JIT inlines itself keeps its id
                    // (`bpf_jit_inlines_helper_call`: arm64's
                    // bpf_get_smp_processor_id, ...)
                    0 if (1..bpf_isa::helper_ids::BPF_FUNC_MAX_ID).contains(&insn.imm) => CallTarget::Helper(insn.imm),
                    0 | BPF_PSEUDO_KFUNC_CALL => {
                        let func =
                            kernel_func_of_imm(arch, insn.imm).ok_or_else(|| format!("insn {pc}: call of an unknown kernel address (imm {:#x})", insn.imm))?;
                        call_target(prog_type, func).ok_or_else(|| format!("insn {pc}: call of kernel function {func}, which the runtime does not have"))?
                    }
                    s => return Err(format!("insn {pc}: call with src {s}")),
                });
            } else if insn.code == BPF_ALU64 | BPF_MOV | BPF_K && insn.off == 0 {
                // the address of a per-CPU kernel variable as an imm32
                // (`r0 = &cpu_number` of the inlined bpf_get_smp_processor_id)
                let v = insn.imm as i64 as u64;
                if v >> 32 == 0xffff_ffff
                    && let Some(name) = vars_by_addr(arch).and_then(|t| t.get(&v))
                {
                    imm64[pc] = Some(Imm64::Ksym(name.to_string()));
                }
            } else if insn.is_ld_imm64() {
                let hi = xlated.get(pc + 1).map_or(0, |i| i.imm);
                imm64[pc] = match insn.src {
                    BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE if insn.imm >= 1 => {
                        let map = insn.imm as usize - 1;
                        Some(if insn.src == BPF_PSEUDO_MAP_FD { Imm64::Map(map) } else { Imm64::MapValue { map, off: hi as u32 } })
                    }
                    BPF_PSEUDO_FUNC => {
                        // out of the program: a callback removed as dead,
                        // whose address nothing uses
                        let t = pc as i64 + 1 + insn.imm as i64;
                        (0..n as i64).contains(&t).then_some(Imm64::Func(t as usize))
                    }
                    0 => {
                        let v = (insn.imm as u32 as u64) | ((hi as u32 as u64) << 32);
                        vars_by_addr(arch).and_then(|t| t.get(&v)).map(|name| Imm64::Ksym(name.to_string()))
                    }
                    s => return Err(format!("insn {pc}: ld_imm64 with src {s}")),
                };
                pc += 2;
                continue;
            }
            pc += 1;
        }
        Ok(ExecProgram {
            insns,
            calls,
            imm64,
            // the fixups' extra stack slots (timed may_goto, inlined
            // bpf_loop) fit in the frame the runtime gives every function
            frame_size: MAX_BPF_STACK + 64,
            kernel_ctx: true,
        })
    }
}
