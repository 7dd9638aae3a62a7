//! A subprogram's arguments as its BTF prototype declares them
//! (`btf_prepare_func_args` in `kernel/bpf/btf.c`): what each argument
//! register of a global function must hold at a call
//! (`btf_check_func_arg_match`) and holds when the function is verified on
//! its own (`do_check_common`). The FUNC_PROTO's parameter types and the
//! `arg:<tag>` decl tags on them decide: scalars and enums, a pointer to the
//! program type's ctx, a `struct bpf_dynptr *`, a trusted or untrusted
//! kernel object, arena memory, or else memory of the pointee's size.

use super::errno::{EFAULT, EINVAL, EOPNOTSUPP};
use super::helper_protos::{ARG_ANYTHING, ARG_PTR_TO_ARENA, ARG_PTR_TO_BTF_ID, ARG_PTR_TO_CTX, ARG_PTR_TO_DYNPTR, ARG_PTR_TO_MEM, ArgType};
use super::reg::{MEM_RDONLY, PTR_MAYBE_NULL, PTR_TRUSTED, PTR_UNTRUSTED};
use crate::btf::*;
use crate::prog_type::{bpf_attach_type as at, bpf_prog_type as pt};
use crate::target::Arch;
use crate::vmlinux_btf::VmlinuxBtf;

/// `MAX_BPF_FUNC_REG_ARGS`.
pub const MAX_BPF_FUNC_REG_ARGS: usize = 5;

/// `struct bpf_subprog_arg_info`: one argument's expected type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubprogArgInfo {
    pub arg_type: ArgType,
    /// Pointee size of `ARG_PTR_TO_MEM`.
    pub mem_size: u32,
    /// The kernel struct of `ARG_PTR_TO_BTF_ID` (the model's id,
    /// [`super::kfuncs::btf_type_id_interned`]).
    pub btf_id: i64,
}

impl SubprogArgInfo {
    pub const ANYTHING: SubprogArgInfo = SubprogArgInfo { arg_type: ARG_ANYTHING, mem_size: 0, btf_id: 0 };

    fn of(arg_type: ArgType) -> SubprogArgInfo {
        SubprogArgInfo { arg_type, ..SubprogArgInfo::default() }
    }
}

/// Why the arguments could not be prepared: the errno 7.3 returns (after
/// logging), or a case the model does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrepareError {
    Errno(i32),
    Unsupported(String),
}

/// What `btf_prepare_func_args` reads besides the program's BTF.
pub struct PrepareInput<'a> {
    pub btf: &'a Btf,
    /// `func_info[subprog].type_id`.
    pub func_id: u32,
    pub subprog: usize,
    pub is_global: bool,
    pub prog_type: u32,
    pub expected_attach_type: u32,
    pub arch: Arch,
    pub vmlinux: Option<&'a VmlinuxBtf>,
}

/// `enum btf_arg_tag`.
const ARG_TAG_CTX: u32 = 1 << 0;
const ARG_TAG_NONNULL: u32 = 1 << 1;
const ARG_TAG_TRUSTED: u32 = 1 << 2;
const ARG_TAG_UNTRUSTED: u32 = 1 << 3;
const ARG_TAG_NULLABLE: u32 = 1 << 4;
const ARG_TAG_ARENA: u32 = 1 << 5;

fn is_modifier(kind: u32) -> bool {
    matches!(kind, BTF_KIND_TYPEDEF | BTF_KIND_VOLATILE | BTF_KIND_CONST | BTF_KIND_RESTRICT | BTF_KIND_TYPE_TAG)
}

/// The kind of type `id` (0, "UNKNOWN", for void and ids out of range).
fn kind_of(btf: &Btf, id: u32) -> u32 {
    btf.type_by_id(id).map_or(0, |t| t.kind)
}

/// `btf_type_skip_modifiers`.
pub(crate) fn skip_modifiers(btf: &Btf, mut id: u32) -> u32 {
    for _ in 0..32 {
        match btf.type_by_id(id) {
            Some(t) if is_modifier(t.kind) => id = t.size_or_type,
            _ => break,
        }
    }
    id
}

/// `btf_type_is_struct`: a STRUCT or UNION.
fn is_struct(btf: &Btf, id: u32) -> bool {
    matches!(kind_of(btf, id), BTF_KIND_STRUCT | BTF_KIND_UNION)
}

/// The struct named by `bpf_ctx_convert` for `prog_type` (the uapi ctx of
/// `include/linux/bpf_types.h`), or `None` for the types whose ctx is not a
/// named struct. A typedef's name comes with the struct behind it.
fn canonical_ctx_type(prog_type: u32, arch: Arch) -> (Option<&'static str>, Option<&'static str>) {
    let s = match prog_type {
        pt::SOCKET_FILTER
        | pt::SCHED_CLS
        | pt::SCHED_ACT
        | pt::CGROUP_SKB
        | pt::LWT_IN
        | pt::LWT_OUT
        | pt::LWT_XMIT
        | pt::LWT_SEG6LOCAL
        | pt::SK_SKB
        | pt::FLOW_DISSECTOR => "__sk_buff",
        pt::XDP => "xdp_md",
        pt::CGROUP_SOCK => "bpf_sock",
        pt::CGROUP_SOCK_ADDR => "bpf_sock_addr",
        pt::SOCK_OPS => "bpf_sock_ops",
        pt::SK_MSG => "sk_msg_md",
        pt::PERF_EVENT => "bpf_perf_event_data",
        pt::RAW_TRACEPOINT | pt::RAW_TRACEPOINT_WRITABLE => "bpf_raw_tracepoint_args",
        pt::CGROUP_DEVICE => "bpf_cgroup_dev_ctx",
        pt::CGROUP_SYSCTL => "bpf_sysctl",
        pt::CGROUP_SOCKOPT => "bpf_sockopt",
        pt::SK_REUSEPORT => "sk_reuseport_md",
        pt::SK_LOOKUP => "bpf_sk_lookup",
        pt::NETFILTER => "bpf_nf_ctx",
        pt::KPROBE => return (Some("bpf_user_pt_regs_t"), Some(user_pt_regs_struct(arch))),
        _ => return (None, None),
    };
    (Some(s), Some(s))
}

/// The struct `bpf_user_pt_regs_t` stands for on `arch`.
fn user_pt_regs_struct(arch: Arch) -> &'static str {
    match arch {
        Arch::X86_64 => "pt_regs",
        _ => "user_pt_regs",
    }
}

/// `btf_is_projection_of`.
fn btf_is_projection_of(pname: &str, tname: &str) -> bool {
    (pname == "__sk_buff" && tname == "sk_buff") || (pname == "xdp_md" && tname == "xdp_buff")
}

/// `btf_is_prog_ctx_type`: `ptr` (a PTR) points to the program type's ctx.
fn btf_is_prog_ctx_type(inp: &PrepareInput<'_>, ptr: u32, arg: usize, log: &mut String) -> bool {
    let btf = inp.btf;
    let mut t = btf.type_by_id(ptr).map_or(0, |p| p.size_or_type);
    if inp.prog_type == pt::KPROBE {
        while is_modifier(kind_of(btf, t)) && kind_of(btf, t) != BTF_KIND_TYPEDEF {
            t = btf.type_by_id(t).map_or(0, |x| x.size_or_type);
        }
        if kind_of(btf, t) == BTF_KIND_TYPEDEF && btf.type_name(t) == "bpf_user_pt_regs_t" {
            return true;
        }
    }
    let t = skip_modifiers(btf, t);
    if !is_struct(btf, t) {
        return false;
    }
    let tname = btf.type_name(t);
    if tname.is_empty() {
        log.push_str(&format!("arg#{arg} struct doesn't have a name\n"));
        return false;
    }
    let (outer, inner) = canonical_ctx_type(inp.prog_type, inp.arch);
    let Some(outer) = outer else { return false };
    if btf_is_projection_of(outer, tname) || outer == tname {
        return true;
    }
    // a typedef: the struct behind it
    inner.is_some_and(|i| i != outer && (i == tname || btf_is_projection_of(i, tname)))
}

/// `btf_validate_prog_ctx_type`: an `arg:ctx` argument's type is one the
/// program type's ctx may be seen as.
fn btf_validate_prog_ctx_type(inp: &PrepareInput<'_>, ptr: u32, arg: usize, log: &mut String) -> Result<(), ()> {
    let btf = inp.btf;
    if kind_of(btf, ptr) != BTF_KIND_PTR {
        log.push_str(&format!("arg#{arg} type isn't a pointer\n"));
        return Err(());
    }
    let mut t = btf.type_by_id(ptr).map_or(0, |p| p.size_or_type);
    let prog_type = inp.prog_type;
    if prog_type == pt::KPROBE || prog_type == pt::PERF_EVENT {
        while is_modifier(kind_of(btf, t)) && kind_of(btf, t) != BTF_KIND_TYPEDEF {
            t = btf.type_by_id(t).map_or(0, |x| x.size_or_type);
        }
        if kind_of(btf, t) == BTF_KIND_TYPEDEF && btf.type_name(t) == "bpf_user_pt_regs_t" {
            return Ok(());
        }
    }
    let t = skip_modifiers(btf, t);
    if t == 0 {
        return Ok(());
    }
    let tname = btf.type_name(t);
    if tname.is_empty() {
        log.push_str(&format!("arg#{arg} type doesn't have a name\n"));
        return Err(());
    }
    let strct = kind_of(btf, t) == BTF_KIND_STRUCT;
    let u64_int = kind_of(btf, t) == BTF_KIND_INT && btf.type_by_id(t).is_some_and(|x| x.size_or_type == 8);
    match prog_type {
        pt::KPROBE if strct && tname == "pt_regs" => return Ok(()),
        pt::PERF_EVENT if strct && tname == user_pt_regs_struct(inp.arch) => return Ok(()),
        pt::RAW_TRACEPOINT | pt::RAW_TRACEPOINT_WRITABLE | pt::LSM | pt::STRUCT_OPS if u64_int => return Ok(()),
        pt::TRACING => match inp.expected_attach_type {
            at::TRACE_RAW_TP if (strct && tname == "bpf_raw_tracepoint_args") || u64_int => return Ok(()),
            at::TRACE_ITER if strct && tname.starts_with("bpf_iter__") => return Ok(()),
            at::TRACE_FENTRY | at::TRACE_FEXIT | at::MODIFY_RETURN | at::TRACE_FSESSION if u64_int => return Ok(()),
            _ => {}
        },
        pt::TRACEPOINT | pt::SYSCALL | pt::EXT => return Ok(()),
        _ => {}
    }
    let (_, inner) = canonical_ctx_type(prog_type, inp.arch);
    let Some(ctx_tname) = inner else {
        log.push_str(&format!("arg#{arg} should be void pointer\n"));
        return Err(());
    };
    if !strct || ctx_tname != tname {
        log.push_str(&format!("arg#{arg} should be `struct {ctx_tname} *`\n"));
        return Err(());
    }
    Ok(())
}

/// `btf_is_dynptr_ptr`: `ptr` points to `struct bpf_dynptr` (or its
/// forward declaration).
fn btf_is_dynptr_ptr(btf: &Btf, ptr: u32) -> bool {
    let t = skip_modifiers(btf, btf.type_by_id(ptr).map_or(0, |p| p.size_or_type));
    let ok = is_struct(btf, t) || (kind_of(btf, t) == BTF_KIND_FWD && !btf.kind_flag(t));
    ok && btf.type_name(t) == "bpf_dynptr"
}

/// `btf_scan_decl_tags`: the `arg:<tag>` decl tags of argument `arg`.
fn btf_scan_decl_tags(inp: &PrepareInput<'_>, arg: usize, tags: &mut u32, log: &mut String) -> Result<(), PrepareError> {
    let btf = inp.btf;
    for id in 1..btf.type_cnt() as u32 {
        let Some(t) = btf.type_by_id(id) else { continue };
        if t.kind != BTF_KIND_DECL_TAG || t.size_or_type != inp.func_id || btf.decl_tag_component_idx(id) != Some(arg as i32) {
            continue;
        }
        let Some(tag) = btf.type_name(id).strip_prefix("arg:") else { continue };
        if !inp.is_global {
            log.push_str(&format!("arg#{arg} type tag is not supported in static functions\n"));
            return Err(PrepareError::Errno(EOPNOTSUPP));
        }
        *tags |= match tag {
            "ctx" => ARG_TAG_CTX,
            "trusted" => ARG_TAG_TRUSTED,
            "untrusted" => ARG_TAG_UNTRUSTED,
            "nonnull" => ARG_TAG_NONNULL,
            "nullable" => ARG_TAG_NULLABLE,
            "arena" => ARG_TAG_ARENA,
            _ => {
                log.push_str(&format!("arg#{arg} has unsupported set of tags\n"));
                return Err(PrepareError::Errno(EOPNOTSUPP));
            }
        };
    }
    Ok(())
}

/// `btf_scan_type_tags`: the `arena` type tag on a pointer's target.
fn btf_scan_type_tags(btf: &Btf, type_id: u32) -> u32 {
    let t = skip_modifiers(btf, type_id);
    if kind_of(btf, t) != BTF_KIND_PTR {
        return 0;
    }
    let mut id = btf.type_by_id(t).map_or(0, |p| p.size_or_type);
    let mut tags = 0;
    while let Some(x) = btf.type_by_id(id).filter(|x| is_modifier(x.kind)) {
        if x.kind == BTF_KIND_TYPE_TAG && btf.type_name(id) == "arena" {
            tags |= ARG_TAG_ARENA;
        }
        id = x.size_or_type;
    }
    tags
}

/// `btf_get_ptr_to_btf_id`: the kernel struct a pointer argument names
/// (its essential name, without a `___flavor` suffix, found once among
/// vmlinux's types).
fn btf_get_ptr_to_btf_id(inp: &PrepareInput<'_>, arg: usize, ptr: u32, log: &mut String) -> Result<i64, PrepareError> {
    let btf = inp.btf;
    let t = skip_modifiers(btf, btf.type_by_id(ptr).map_or(0, |p| p.size_or_type));
    let name = btf.type_name(t);
    let essential = name.find("___").map_or(name, |i| &name[..i]);
    if kind_of(btf, t) != BTF_KIND_STRUCT {
        return Err(PrepareError::Unsupported(format!("arg#{arg}: candidates of a {} for a kernel pointer are not modelled", btf_kind_str(kind_of(btf, t)))));
    }
    match inp.vmlinux.and_then(|v| v.struct_by_name(essential)) {
        Some(_) => Ok(super::kfuncs::btf_type_id_interned(essential)),
        None if inp.vmlinux.is_none() => Err(PrepareError::Unsupported(format!("arg#{arg}: no recorded vmlinux BTF for {}", inp.arch))),
        None => {
            let _ = log;
            Err(PrepareError::Unsupported(format!("arg#{arg}: struct {essential} is not in the recorded vmlinux BTF")))
        }
    }
}

/// `btf_validate_return_type`: void, a scalar or enum, or (for a
/// subprogram other than the main one) an arena pointer.
fn btf_validate_return_type(inp: &PrepareInput<'_>, ret: u32) -> bool {
    let btf = inp.btf;
    let tags = btf_scan_type_tags(btf, ret);
    let t = skip_modifiers(btf, ret);
    if inp.subprog != 0 && tags & ARG_TAG_ARENA != 0 && kind_of(btf, t) == BTF_KIND_PTR {
        return true;
    }
    t == 0 || matches!(kind_of(btf, t), BTF_KIND_INT | BTF_KIND_ENUM | BTF_KIND_ENUM64)
}

/// `btf_prepare_func_args`: each argument's expected type from the
/// function's prototype; what the kernel logs goes to `log`.
pub fn btf_prepare_func_args(inp: &PrepareInput<'_>, log: &mut String) -> Result<Vec<SubprogArgInfo>, PrepareError> {
    let btf = inp.btf;
    let (i, is_global) = (inp.subprog, inp.is_global);
    let fn_t = inp.func_id;
    if btf.type_by_id(fn_t).is_none_or(|t| t.kind != BTF_KIND_FUNC) || fn_t == 0 {
        log.push_str(&format!("BTF of func#{i} doesn't point to KIND_FUNC\n"));
        return Err(PrepareError::Errno(EFAULT));
    }
    let tname = btf.type_name(fn_t);
    let proto = btf.type_by_id(fn_t).map_or(0, |t| t.size_or_type);
    if kind_of(btf, proto) != BTF_KIND_FUNC_PROTO {
        log.push_str(&format!("Invalid type of function {tname}()\n"));
        return Err(PrepareError::Errno(EFAULT));
    }
    let params = btf.params(proto);
    if params.len() > MAX_BPF_FUNC_REG_ARGS {
        return Err(PrepareError::Unsupported(format!("{tname}() has {} arguments: stack arguments are not modelled", params.len())));
    }
    let ret = btf.type_by_id(proto).map_or(0, |t| t.size_or_type);
    if !btf_validate_return_type(inp, ret) {
        if is_global {
            log.push_str(&format!("Global function {tname}() return value not void or scalar. Only those are supported.\n"));
        }
        return Err(PrepareError::Errno(EOPNOTSUPP));
    }
    let invalid_combination = |log: &mut String, a: usize| {
        log.push_str(&format!("arg#{a} has invalid combination of tags\n"));
        Err(PrepareError::Errno(EINVAL))
    };
    let mut args = Vec::with_capacity(params.len());
    for (a, p) in params.iter().enumerate() {
        let mut tags = 0;
        btf_scan_decl_tags(inp, a, &mut tags, log)?;
        tags |= btf_scan_type_tags(btf, p.type_id);
        let t = skip_modifiers(btf, p.type_id);
        if kind_of(btf, t) == BTF_KIND_PTR {
            if tags & ARG_TAG_CTX != 0 || btf_is_prog_ctx_type(inp, t, a, log) {
                if tags & !ARG_TAG_CTX != 0 {
                    return invalid_combination(log, a);
                }
                if tags & ARG_TAG_CTX != 0 && btf_validate_prog_ctx_type(inp, t, a, log).is_err() {
                    return Err(PrepareError::Errno(EINVAL));
                }
                args.push(SubprogArgInfo::of(ARG_PTR_TO_CTX));
                continue;
            }
            if btf_is_dynptr_ptr(btf, t) {
                if tags != 0 {
                    return invalid_combination(log, a);
                }
                args.push(SubprogArgInfo::of(ARG_PTR_TO_DYNPTR));
                continue;
            }
            if tags & ARG_TAG_TRUSTED != 0 {
                if tags & ARG_TAG_NONNULL != 0 {
                    return invalid_combination(log, a);
                }
                let btf_id = btf_get_ptr_to_btf_id(inp, a, t, log)?;
                let null = if tags & ARG_TAG_NULLABLE != 0 { PTR_MAYBE_NULL } else { 0 };
                args.push(SubprogArgInfo { arg_type: ARG_PTR_TO_BTF_ID | PTR_TRUSTED | null, mem_size: 0, btf_id });
                continue;
            }
            if tags & ARG_TAG_UNTRUSTED != 0 {
                if tags & !ARG_TAG_UNTRUSTED != 0 {
                    log.push_str(&format!("arg#{a} untrusted cannot be combined with any other tags\n"));
                    return Err(PrepareError::Errno(EINVAL));
                }
                let r = skip_modifiers(btf, btf.type_by_id(t).map_or(0, |x| x.size_or_type));
                if r == 0 || matches!(kind_of(btf, r), BTF_KIND_INT | BTF_KIND_ENUM | BTF_KIND_ENUM64 | BTF_KIND_FLOAT) {
                    args.push(SubprogArgInfo::of(ARG_PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED));
                    continue;
                }
                let btf_id = btf_get_ptr_to_btf_id(inp, a, t, log)?;
                args.push(SubprogArgInfo { arg_type: ARG_PTR_TO_BTF_ID | PTR_UNTRUSTED, mem_size: 0, btf_id });
                continue;
            }
            if tags & ARG_TAG_ARENA != 0 {
                if tags & !ARG_TAG_ARENA != 0 {
                    log.push_str(&format!("arg#{a} arena cannot be combined with any other tags\n"));
                    return Err(PrepareError::Errno(EINVAL));
                }
                args.push(SubprogArgInfo::of(ARG_PTR_TO_ARENA));
                continue;
            }
            if is_global {
                if tags & ARG_TAG_NULLABLE != 0 {
                    return invalid_combination(log, a);
                }
                let r = skip_modifiers(btf, btf.type_by_id(t).map_or(0, |x| x.size_or_type));
                let size = match kind_of(btf, r) {
                    // the kernel's size walk stops at the first VAR,
                    // DECL_TAG, FUNC or void; the model's reader would go on
                    BTF_KIND_VAR | BTF_KIND_DECL_TAG | BTF_KIND_FUNC | BTF_KIND_FUNC_PROTO | BTF_KIND_FWD | BTF_KIND_DATASEC | 0 => None,
                    _ => btf.resolve_size(r).ok().and_then(|s| u32::try_from(s).ok()),
                };
                let Some(size) = size else {
                    let s = format!("arg#{a} reference type('{} {}') size cannot be determined: -{EINVAL}\n", btf_kind_str(kind_of(btf, r)), btf.type_name(r));
                    log.push_str(&s);
                    return Err(PrepareError::Errno(EINVAL));
                };
                let null = if tags & ARG_TAG_NONNULL != 0 { 0 } else { PTR_MAYBE_NULL };
                args.push(SubprogArgInfo { arg_type: ARG_PTR_TO_MEM | null, mem_size: size, btf_id: 0 });
                continue;
            }
        }
        if tags != 0 {
            log.push_str(&format!("arg#{a} has pointer tag, but is not a pointer type\n"));
            return Err(PrepareError::Errno(EINVAL));
        }
        if matches!(kind_of(btf, t), BTF_KIND_INT | BTF_KIND_ENUM | BTF_KIND_ENUM64) {
            args.push(SubprogArgInfo::ANYTHING);
            continue;
        }
        if !is_global {
            return Err(PrepareError::Errno(EINVAL));
        }
        log.push_str(&format!("Arg#{a} type {} in {tname}() is not supported yet.\n", btf_kind_str(kind_of(btf, t))));
        return Err(PrepareError::Errno(EINVAL));
    }
    Ok(args)
}

/// `subprog_returns_void`: the prototype of `func_id` returns void.
pub fn subprog_returns_void(btf: &Btf, func_id: u32) -> bool {
    let Some(f) = btf.type_by_id(func_id).filter(|t| t.kind == BTF_KIND_FUNC) else { return false };
    let Some(proto) = btf.type_by_id(f.size_or_type).filter(|t| t.kind == BTF_KIND_FUNC_PROTO) else { return false };
    skip_modifiers(btf, proto.size_or_type) == 0
}
