//! Kernel functions (`check_kfunc_call`, `check_kfunc_args`): the kfuncs
//! this model knows, with prototypes and `KF_*` flags as 7.3 registers
//! them; open-coded iterators (`process_iter_arg`,
//! `process_iter_next_call`: iterator state lives in stack slots, a
//! `bpf_for` loop converges at its `_next` call); `bpf_cast_to_kern_ctx`,
//! `bpf_rdonly_cast`; dynptrs (`process_dynptr_func` and the stack-slot
//! bookkeeping helpers share); a small table of kernel struct types
//! standing in for vmlinux BTF (`PTR_TO_BTF_ID` registers name one).
//!
//! A kfunc call names the function by its BTF id in the target kernel;
//! [`DoCheckInput::kfuncs`] maps ids to names.

use bpf_isa::Insn;

use super::diag::CtxKind;
use super::do_check::*;
use super::helper_call::{BPF_MAX_VAR_SIZ, CallArgMeta, MapField, reg_arg_name};
use super::helper_protos::*;
use super::reg::*;
use super::state::*;
use super::tnum::*;

/// `KF_*` kfunc flags.
pub mod kf {
    pub const ACQUIRE: u32 = 1 << 0;
    pub const RELEASE: u32 = 1 << 1;
    pub const RET_NULL: u32 = 1 << 2;
    pub const SLEEPABLE: u32 = 1 << 5;
    pub const DESTRUCTIVE: u32 = 1 << 6;
    pub const RCU: u32 = 1 << 7;
    pub const ITER_NEW: u32 = 1 << 8;
    pub const ITER_NEXT: u32 = 1 << 9;
    pub const ITER_DESTROY: u32 = 1 << 10;
    pub const RCU_PROTECTED: u32 = 1 << 11;
    pub const FASTCALL: u32 = 1 << 12;
    pub const SPINLOCK_SAFE: u32 = 1 << 14;
    pub const PERFMON: u32 = 1 << 17;
}

/// `enum bpf_dynptr_type`.
pub mod dynptr {
    pub const INVALID: u32 = 0;
    pub const LOCAL: u32 = 1;
    pub const RINGBUF: u32 = 2;
    pub const SKB: u32 = 3;
    pub const XDP: u32 = 4;
    pub const SKB_META: u32 = 5;
    pub const FILE: u32 = 6;
}

/// `enum bpf_iter_state`.
pub const BPF_ITER_STATE_ACTIVE: u32 = 1;
pub const BPF_ITER_STATE_DRAINED: u32 = 2;

/// `BPF_DYNPTR_NR_SLOTS`.
const BPF_DYNPTR_NR_SLOTS: usize = 2;

/// Kernel struct types the model names (a stand-in for vmlinux BTF):
/// `(name, size)`, the id of a type is its index + 1.
/// The sizes are the x86_64 image's; arm64's differ where `NR_CPUS` does
/// (`cpumask` 64 and `bpf_cpumask` 72 bytes there, read from its BTF). Only
/// liveness reads them, for kfunc arguments that may point to the stack,
/// which struct pointers never do.
pub const BTF_TYPES: &[(&str, u32)] = &[
    ("sk_buff", 232),
    ("xdp_buff", 56),
    ("pt_regs", 168),
    ("sock", 760),
    ("bpf_sock_addr_kern", 48),
    ("bpf_sock_ops_kern", 96),
    ("sk_msg", 472),
    ("bpf_flow_dissector", 32),
    ("bpf_perf_event_data_kern", 24),
    ("bpf_cgroup_dev_ctx", 12),
    ("bpf_sysctl_kern", 64),
    ("bpf_sockopt_kern", 56),
    ("sk_reuseport_kern", 48),
    ("bpf_sk_lookup_kern", 64),
    ("bpf_nf_ctx", 16),
    ("task_struct", 9792),
    ("sock_common", 136),
    ("tcp_sock", 2400),
    ("tcp6_sock", 2560),
    ("udp6_sock", 1472),
    ("tcp_request_sock", 320),
    ("tcp_timewait_sock", 256),
    ("unix_sock", 1088),
    ("mptcp_sock", 2880),
    ("socket", 128),
    ("file", 232),
    ("inode", 616),
    ("path", 16),
    ("cgroup", 2048),
    ("seq_file", 136),
    ("linux_binprm", 416),
    ("vm_area_struct", 176),
    ("bpf_iter_num", 8),
    ("bpf_iter_bits", 16),
    ("bpf_cpumask", 1032),
    ("cpumask", 1024),
    ("kmem_cache", 0),
    // what struct bpf_map points to (sizes unused: reads through them are
    // not modelled)
    ("bpf_map_ops", 0),
    ("bpf_map", 0),
    ("btf_record", 0),
    ("btf", 0),
    ("obj_cgroup", 0),
    // what bpf_lookup_user_key and bpf_lookup_system_key return
    ("bpf_key", 16),
];

/// Whether `name` is a kernel struct the model knows of without the
/// recorded vmlinux BTF: one of [`BTF_TYPES`], or one a kfunc of
/// [`KFUNCS`] takes or returns (a kptr to it is the kernel's, not a local
/// one of the program's BTF).
pub fn is_kfunc_struct(name: &str) -> bool {
    btf_type_by_name(name).is_some()
        || KFUNCS.iter().any(|k| {
            matches!(k.ret, KfRet::BtfId(t) if t == name) || k.args.iter().any(|a| matches!(a, KfArg::BtfId(t) | KfArg::NullableBtfId(t) if *t == name))
        })
}

/// The id of a named kernel struct in [`BTF_TYPES`].
pub fn btf_type_by_name(name: &str) -> Option<u32> {
    BTF_TYPES.iter().position(|(n, _)| *n == name).map(|i| i as u32 + 1)
}

/// The size of the kernel struct `name`: its [`BTF_TYPES`] entry, else
/// the recorded vmlinux BTF's.
pub fn kernel_struct_size(btf: Option<&crate::vmlinux_btf::VmlinuxBtf>, name: &str) -> Option<u32> {
    if let Some(id) = btf_type_by_name(name) {
        return Some(BTF_TYPES[id as usize - 1].1);
    }
    let btf = btf?;
    btf.type_size(btf.struct_by_name(name)?)
}

/// `btf_type_name` of a [`BTF_TYPES`] id, or of an id
/// [`btf_type_id_interned`] gave.
pub fn btf_type_name(id: i64) -> &'static str {
    if let Some(i) = usize::try_from(id).ok().and_then(|i| i.checked_sub(LOCAL_BASE)) {
        return LOCAL_TYPES.lock().map_or("", |v| v.get(i).map_or("", |t| t.1));
    }
    if let Some(i) = usize::try_from(id).ok().and_then(|i| i.checked_sub(INTERNED_BASE)) {
        return INTERNED.lock().map_or("", |v| v.get(i).copied().unwrap_or(""));
    }
    usize::try_from(id).ok().and_then(|i| i.checked_sub(1)).and_then(|i| BTF_TYPES.get(i)).map_or("", |t| t.0)
}

/// Where the model's ids of program-BTF (local) structs start: a
/// `PTR_TO_BTF_ID | MEM_ALLOC` register's `btf` is the program's BTF, not
/// vmlinux.
const LOCAL_BASE: usize = 1 << 40;
/// The local structs registers have named: (BTF id in the program's BTF,
/// name).
static LOCAL_TYPES: std::sync::Mutex<Vec<(u32, &'static str)>> = std::sync::Mutex::new(Vec::new());

/// The model's id of struct `btf_id` (named `name`) of the program's BTF.
pub fn btf_local_type_id(btf_id: u32, name: &str) -> i64 {
    let Ok(mut v) = LOCAL_TYPES.lock() else { return 0 };
    let i = match v.iter().position(|&(id, n)| id == btf_id && n == name) {
        Some(i) => i,
        None => {
            v.push((btf_id, Box::leak(name.to_string().into_boxed_str())));
            v.len() - 1
        }
    };
    (LOCAL_BASE + i) as i64
}

/// The program-BTF id behind a model id [`btf_local_type_id`] gave.
pub fn btf_local_type(id: i64) -> Option<u32> {
    let i = usize::try_from(id).ok()?.checked_sub(LOCAL_BASE)?;
    LOCAL_TYPES.lock().ok()?.get(i).map(|&(id, _)| id)
}

/// Where ids of vmlinux structs outside [`BTF_TYPES`] start.
const INTERNED_BASE: usize = 1 << 20;
/// Names of vmlinux structs a `btf_struct_access` walk reached (bounded
/// by the recorded subset's struct names).
static INTERNED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// The model's id of the kernel struct `name`: its [`BTF_TYPES`] id, or a
/// stable id for a struct only the vmlinux BTF knows.
pub fn btf_type_id_interned(name: &str) -> i64 {
    if let Some(id) = btf_type_by_name(name) {
        return id as i64;
    }
    let Ok(mut v) = INTERNED.lock() else { return 0 };
    let i = match v.iter().position(|n| *n == name) {
        Some(i) => i,
        None => {
            v.push(Box::leak(name.to_string().into_boxed_str()));
            v.len() - 1
        }
    };
    (INTERNED_BASE + i) as i64
}

/// The kernel-side context struct of a program type (`bpf_ctx_convert`,
/// `get_kern_ctx_btf_id`).
fn kern_ctx_type(prog_type: u32) -> Option<&'static str> {
    use super::helpers::prog::*;
    Some(match prog_type {
        SOCKET_FILTER | SCHED_CLS | SCHED_ACT | CGROUP_SKB | LWT_IN | LWT_OUT | LWT_XMIT | LWT_SEG6LOCAL | SK_SKB => "sk_buff",
        XDP => "xdp_buff",
        CGROUP_SOCK => "sock",
        CGROUP_SOCK_ADDR => "bpf_sock_addr_kern",
        SOCK_OPS => "bpf_sock_ops_kern",
        SK_MSG => "sk_msg",
        FLOW_DISSECTOR => "bpf_flow_dissector",
        KPROBE => "pt_regs",
        PERF_EVENT => "bpf_perf_event_data_kern",
        CGROUP_DEVICE => "bpf_cgroup_dev_ctx",
        CGROUP_SYSCTL => "bpf_sysctl_kern",
        CGROUP_SOCKOPT => "bpf_sockopt_kern",
        SK_REUSEPORT => "sk_reuseport_kern",
        SK_LOOKUP => "bpf_sk_lookup_kern",
        NETFILTER => "bpf_nf_ctx",
        _ => return None,
    })
}

/// How a kfunc argument is checked (`enum kfunc_ptr_arg_type` and the
/// scalar kinds of `check_kfunc_args`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KfArg {
    /// `KF_ARG_ANYTHING`: any scalar.
    Scalar,
    /// `__k`: a known constant.
    Const,
    /// `__ign`: not checked (a `void *` or a non-pointer).
    Ignore,
    /// `__ign` on a pointer to a type of this many bytes (what liveness
    /// sees it read).
    IgnoreSized(u32),
    /// `KF_ARG_PTR_TO_BTF_ID`: a pointer to the named kernel struct.
    BtfId(&'static str),
    /// `__nullable` `KF_ARG_PTR_TO_BTF_ID`: a pointer to the named kernel
    /// struct, or NULL.
    NullableBtfId(&'static str),
    /// `KF_ARG_PTR_TO_DYNPTR`: an initialised dynptr of any type.
    Dynptr,
    /// `__nullable` `KF_ARG_PTR_TO_DYNPTR`: an initialised dynptr, or NULL.
    NullableDynptr,
    /// `KF_ARG_PTR_TO_CTX`.
    Ctx,
    /// `KF_ARG_PTR_TO_ITER` of the named iterator struct.
    Iter(&'static str),
    /// `KF_ARG_PTR_TO_IRQ_FLAG` (`__irq_flag`): an `unsigned long` stack
    /// slot holding saved IRQ state.
    IrqFlag,
    /// `__map`: a `struct bpf_map *` (`KF_ARG_PTR_TO_BTF_ID` of
    /// `CONST_PTR_TO_MAP`'s BTF type); only a map pointer is modelled.
    Map,
    /// A pointer to a program context struct named by its uapi name
    /// (`struct __sk_buff *`): `KF_ARG_PTR_TO_CTX` where it is the
    /// program type's ctx (`btf_is_prog_ctx_type`), else
    /// `KF_ARG_PTR_TO_BTF_ID` taking the kernel struct it is a projection
    /// of (`btf_is_projection_of`).
    CtxProjection(&'static str),
    /// `__uninit` dynptr (`KF_ARG_PTR_TO_DYNPTR | MEM_UNINIT`), of the
    /// type the kfunc constructs.
    DynptrUninit,
    /// `KF_ARG_PTR_TO_MEM` paired with the size argument after it;
    /// `nullable` for `__nullable`/`__opt`.
    Mem { nullable: bool },
    /// `__sz`: `KF_ARG_MEM_SIZE`, the size of the memory argument before.
    MemSize,
    /// `__szk`: `KF_ARG_CONST_MEM_SIZE`, a known-constant size.
    ConstMemSize,
    /// `__str`: `KF_ARG_PTR_TO_CONST_STR`.
    ConstStr,
    /// `__const_map`: `KF_ARG_CONST_MAP_PTR`, a map pointer matched
    /// against the map the field argument before it lives in.
    ConstMap,
    /// `KF_ARG_PTR_TO_WORKQUEUE`: a `struct bpf_wq` in a map value.
    Wq,
    /// `KF_ARG_PTR_TO_TIMER`: a `struct bpf_timer` in a map value.
    Timer,
    /// `KF_ARG_PTR_TO_MEM | MEM_FIXED_SIZE`: a pointer to a scalar (no
    /// size argument after it) the kfunc reads and writes, of this many
    /// bytes (`btf_resolve_size` of the pointed-to type).
    FixedMem(u32),
    /// `KF_ARG_PTR_TO_TASK_WORK`: a `struct bpf_task_work` in a map value.
    TaskWork,
    /// `KF_ARG_PTR_TO_CALLBACK`: a pointer to a BPF subprogram.
    Callback,
    /// `KF_ARG_PTR_TO_RES_SPIN_LOCK`: a `struct bpf_res_spin_lock` in a map
    /// value or an allocated object.
    ResSpinLock,
    /// `__alloc`: `KF_ARG_PTR_TO_ALLOC_BTF_ID`, an object `bpf_obj_new`
    /// (or `bpf_percpu_obj_new`) allocated.
    AllocBtfId,
    /// `__refcounted_kptr`: `KF_ARG_PTR_TO_REFCOUNTED_KPTR`, an owning or
    /// non-owning reference to a local object with a `bpf_refcount`.
    RefcountedKptr,
    /// A parameter the verifier supplies (`KF_IMPLICIT_ARGS`): one of the
    /// `_impl` prototype's (the one 7.3 checks and counts) beyond the
    /// public ones, neither read nor checked; liveness takes its stack
    /// access bytes as given (`i64::MIN` for `void *`, 0 for a scalar).
    Implicit(i64),
    /// `KF_ARG_PTR_TO_LIST_HEAD`: a `struct bpf_list_head` in a map value
    /// or an allocated object, its lock held.
    ListHead,
    /// `KF_ARG_PTR_TO_LIST_NODE`: the `struct bpf_list_node` of an owned
    /// object; `nonown_allowed` (`__nonown_allowed`) also takes a
    /// non-owning reference.
    ListNode { nonown_allowed: bool },
    /// `KF_ARG_PTR_TO_RB_ROOT`: a `struct bpf_rb_root`, as a list head.
    RbRoot,
    /// `KF_ARG_PTR_TO_RB_NODE`: the `struct bpf_rb_node` of an object.
    RbNode,
}

/// `btf_is_projection_of`: the kernel struct behind a uapi ctx struct.
fn kern_struct_of_projection(uapi: &str) -> Option<&'static str> {
    match uapi {
        "__sk_buff" => Some("sk_buff"),
        "xdp_md" => Some("xdp_buff"),
        _ => None,
    }
}

/// The uapi ctx struct of a program type (`find_canonical_prog_ctx_type`)
/// for the ctx structs kfunc prototypes name.
fn uapi_ctx_type(prog_type: u32) -> Option<&'static str> {
    use super::helpers::prog::*;
    Some(match prog_type {
        SOCKET_FILTER | SCHED_CLS | SCHED_ACT | CGROUP_SKB | LWT_IN | LWT_OUT | LWT_XMIT | LWT_SEG6LOCAL | SK_SKB | FLOW_DISSECTOR => "__sk_buff",
        XDP => "xdp_md",
        _ => return None,
    })
}

/// `__btf_type_is_scalar_struct`: a struct of integers, enums, nested such
/// structs (three levels deep at most) and sized arrays of integers or
/// enums; `None` where the recorded vmlinux BTF does not hold the members.
fn btf_type_is_scalar_struct(btf: &crate::vmlinux_btf::VmlinuxBtf, id: u32, rec: u32) -> Option<bool> {
    use crate::vmlinux_btf::Kind;
    let Kind::Struct { members, .. } = &btf.type_by_id(id)?.kind else { return Some(false) };
    let is_scalar = |t: u32| btf.type_by_id(t).map(|t| matches!(t.kind, Kind::Int { .. } | Kind::Enum { .. }));
    for m in members.as_ref()? {
        let t = btf.skip_modifiers(m.type_id);
        match &btf.type_by_id(t)?.kind {
            Kind::Struct { .. } => {
                // "max struct nesting depth exceeded" is logged there
                if rec >= 3 {
                    return None;
                }
                if !btf_type_is_scalar_struct(btf, t, rec + 1)? {
                    return Some(false);
                }
            }
            Kind::Array { elem, nelems } => {
                if *nelems == 0 || !is_scalar(btf.skip_modifiers(*elem))? {
                    return Some(false);
                }
            }
            _ => {
                if !is_scalar(t)? {
                    return Some(false);
                }
            }
        }
    }
    Some(true)
}

/// `BPF_GLOBAL_PERCPU_MA_MAX_SIZE`: the largest percpu object.
const BPF_GLOBAL_PERCPU_MA_MAX_SIZE: u32 = 512;

/// `__btf_type_is_scalar_struct` over the program's BTF; `Err` where
/// structs nest deeper than three levels.
fn local_btf_type_is_scalar_struct(btf: &crate::btf::Btf, id: u32, rec: u32) -> Result<bool, ()> {
    use crate::btf::*;
    let is_struct = |t: u32| btf.type_by_id(t).is_some_and(|t| t.kind == BTF_KIND_STRUCT || t.kind == BTF_KIND_UNION);
    let is_scalar = |t: u32| btf.type_by_id(t).is_some_and(|t| t.kind == BTF_KIND_INT || t.kind == BTF_KIND_ENUM);
    if !is_struct(id) {
        return Ok(false);
    }
    for m in btf.members(id) {
        let t = btf.skip_mods_and_typedefs(m.type_id);
        if is_struct(t) {
            if rec >= 3 {
                return Err(());
            }
            if !local_btf_type_is_scalar_struct(btf, t, rec + 1)? {
                return Ok(false);
            }
        } else if let Some(a) = btf.array(t) {
            if a.nelems == 0 || !is_scalar(btf.skip_mods_and_typedefs(a.elem_type)) {
                return Ok(false);
            }
        } else if !is_scalar(t) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `irq.kfunc_class` of an IRQ flag slot (kept in its `spilled_ptr.aux`):
/// saved by `bpf_local_irq_save` or by `bpf_res_spin_lock_irqsave`.
const IRQ_NATIVE_KFUNC: i64 = 0;
const IRQ_LOCK_KFUNC: i64 = 1;

/// What a kfunc returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KfRet {
    Void,
    Scalar,
    /// A pointer to a non-struct of this size (`PTR_TO_MEM`, read-only).
    Mem(u32),
    /// Handled by `check_special_kfunc`.
    Special,
    /// A pointer to the named kernel struct (`PTR_TO_BTF_ID`, trusted).
    BtfId(&'static str),
    /// A `struct bpf_list_node *` or `struct bpf_rb_node *`: the node of
    /// an element of the graph root argument (`check_special_kfunc`'s
    /// `mark_reg_graph_node`).
    GraphNode,
}

/// The kfunc id sets (`BTF_KFUNCS_START`) the model's kfuncs belong to,
/// with the program types 7.3 registers each for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KfuncSet {
    /// `common_btf_ids`: registered for `BPF_PROG_TYPE_UNSPEC`, i.e.
    /// `BTF_KFUNC_HOOK_COMMON`, every program type.
    Common,
    /// `generic_btf_ids` (helpers.c): tracing, tc, xdp, struct_ops,
    /// syscall, cgroup hooks.
    Generic,
    /// `cpumask_kfunc_btf_ids` (cpumask.c): tracing, struct_ops, syscall.
    Cpumask,
    /// `bpf_kfunc_set_skb` (net/core/filter.c, not in the source the model
    /// reads): 7.3 allows it from tc, cgroup, tracing and netfilter
    /// programs (its selftests load such programs); the other hooks are
    /// not known to the model.
    Skb,
    /// `bpf_kfunc_set_xdp` (net/core/filter.c): XDP programs; other hooks
    /// are not known to the model.
    Xdp,
    /// `bpf_kfunc_set_skb_meta` (net/core/filter.c): tc programs; other
    /// hooks are not known to the model.
    SkbMeta,
    /// `bpf_fs_kfunc_set` (fs/bpf_fs_kfuncs.c): registered for
    /// `BPF_PROG_TYPE_LSM` (the tracing hook), where `bpf_fs_kfuncs_filter`
    /// turns away every program type but LSM.
    Fs,
    /// `crypt_kfunc_btf_ids` (crypto.c): tc (cls and act) and XDP.
    Crypto,
    /// `crypt_init_kfunc_btf_ids` (crypto.c): syscall programs.
    CryptoInit,
    /// A set registered in a file the model does not read: `set` names
    /// its id set as the images' symbols do, `prog_types` are the program types 7.3's own selftests load
    /// programs calling its kfuncs from (7.3 allows them there); whether
    /// 7.3 registers it for other hooks is not known to the model.
    Unread { set: &'static str, prog_types: &'static [u32] },
}

/// `enum btf_kfunc_hook`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KfuncHook {
    Xdp,
    Tc,
    StructOps,
    Tracing,
    Syscall,
    Cgroup,
    Netfilter,
    SchedAct,
    Other,
}

/// `bpf_prog_type_to_kfunc_hook` (hooks no set of the model is
/// registered for fold into `Other`).
fn bpf_prog_type_to_kfunc_hook(prog_type: u32) -> KfuncHook {
    use super::helpers::prog::*;
    match prog_type {
        XDP => KfuncHook::Xdp,
        SCHED_CLS => KfuncHook::Tc,
        STRUCT_OPS => KfuncHook::StructOps,
        TRACING | TRACEPOINT | RAW_TRACEPOINT | PERF_EVENT | LSM => KfuncHook::Tracing,
        SYSCALL => KfuncHook::Syscall,
        CGROUP_SKB | CGROUP_SOCK | CGROUP_DEVICE | CGROUP_SOCK_ADDR | CGROUP_SOCKOPT | CGROUP_SYSCTL | SOCK_OPS => KfuncHook::Cgroup,
        NETFILTER => KfuncHook::Netfilter,
        SCHED_ACT => KfuncHook::SchedAct,
        _ => KfuncHook::Other,
    }
}

/// `btf_kfunc_is_allowed`: the kfunc's set is registered for the common
/// hook or for the program type's hook.
pub fn btf_kfunc_is_allowed(k: &KfuncProto, prog_type: u32) -> bool {
    use KfuncHook::*;
    let hook = bpf_prog_type_to_kfunc_hook(prog_type);
    match k.set {
        KfuncSet::Common => true,
        KfuncSet::Generic => matches!(hook, Tracing | Tc | Xdp | StructOps | Syscall | Cgroup),
        KfuncSet::Cpumask => matches!(hook, Tracing | StructOps | Syscall),
        KfuncSet::Skb => matches!(hook, Tc | Cgroup | Tracing | Netfilter),
        KfuncSet::Xdp => hook == Xdp,
        KfuncSet::SkbMeta => hook == Tc,
        KfuncSet::Fs => hook == Tracing && prog_type == super::helpers::prog::LSM,
        KfuncSet::Crypto => matches!(hook, Tc | SchedAct | Xdp),
        KfuncSet::CryptoInit => hook == Syscall,
        KfuncSet::Unread { prog_types, .. } => prog_types.contains(&prog_type),
    }
}

/// Whether the model knows if the kfunc's set is registered for the
/// program type's hook: `None` when it does, else what it does not know.
/// The sets of net/core/filter.c are known where 7.3 allows them and where
/// 7.3's own selftests see them refused (dynptr_fail.c: the skb set from
/// XDP, the xdp and skb_meta sets from tracing programs).
pub fn kfunc_hook_unknown(k: &KfuncProto, prog_type: u32) -> Option<String> {
    use KfuncHook::*;
    let hook = bpf_prog_type_to_kfunc_hook(prog_type);
    let (set, refused_on) = match k.set {
        KfuncSet::Skb => ("bpf_kfunc_set_skb", &[Xdp][..]),
        KfuncSet::Xdp => ("bpf_kfunc_set_xdp", &[Tracing][..]),
        KfuncSet::SkbMeta => ("bpf_kfunc_set_skb_meta", &[Tracing][..]),
        KfuncSet::Unread { set, .. } => (set, &[][..]),
        _ => return None,
    };
    if btf_kfunc_is_allowed(k, prog_type) || refused_on.contains(&hook) {
        return None;
    }
    Some(format!("whether 7.3 registers {set} (kfunc {}) for program type {prog_type} is not modelled", k.name))
}

/// `KF_IMPLICIT_ARGS`' `void *meta__ign` of the `_impl` prototype.
const IMPLICIT_VOID_PTR: KfArg = KfArg::Implicit(i64::MIN);
/// `KF_IMPLICIT_ARGS`' `u64 off`.
const IMPLICIT_SCALAR: KfArg = KfArg::Implicit(0);
/// `sizeof(struct btf_struct_meta)` (7.3's BTF), what `bpf_list_add_impl`'s
/// `struct btf_struct_meta *meta` points to.
const SIZEOF_BTF_STRUCT_META: i64 = 16;

/// Whether the `filter` of the kfunc's set turns the program away
/// (`__btf_kfunc_is_allowed`), for the filters the model knows: the socket
/// iterator set's allows only iterator programs (sock_destroy_prog_fail.c
/// sees 7.3 refuse a `tp_btf` program).
fn kfunc_set_filter_refuses(k: &KfuncProto, prog_type: u32, expected_attach_type: u32) -> bool {
    match k.set {
        KfuncSet::Unread { set: "bpf_sk_iter_kfunc_ids", .. } => {
            !(prog_type == super::helpers::prog::TRACING && expected_attach_type == crate::prog_type::bpf_attach_type::TRACE_ITER)
        }
        _ => false,
    }
}

/// A kfunc prototype as `bpf_fetch_kfunc_arg_meta` and
/// `gen_kfunc_arg_proto` give it.
#[derive(Clone, Copy, Debug)]
pub struct KfuncProto {
    pub name: &'static str,
    pub flags: u32,
    pub args: &'static [KfArg],
    pub ret: KfRet,
    pub set: KfuncSet,
}

/// The kfuncs the model knows, with the set 7.3 registers each in.
pub const KFUNCS: &[KfuncProto] = &[
    KfuncProto {
        name: "bpf_iter_num_new",
        flags: kf::ITER_NEW | kf::SPINLOCK_SAFE,
        args: &[KfArg::Iter("bpf_iter_num"), KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_num_next",
        flags: kf::ITER_NEXT | kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::Iter("bpf_iter_num")],
        ret: KfRet::Mem(4),
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_num_destroy",
        flags: kf::ITER_DESTROY | kf::SPINLOCK_SAFE,
        args: &[KfArg::Iter("bpf_iter_num")],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_cast_to_kern_ctx", flags: kf::FASTCALL, args: &[KfArg::Ctx], ret: KfRet::Special, set: KfuncSet::Common },
    KfuncProto { name: "bpf_rdonly_cast", flags: kf::FASTCALL | kf::PERFMON, args: &[KfArg::Ignore, KfArg::Const], ret: KfRet::Special, set: KfuncSet::Common },
    KfuncProto { name: "bpf_rcu_read_lock", flags: 0, args: &[], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "bpf_rcu_read_unlock", flags: 0, args: &[], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "bpf_preempt_disable", flags: 0, args: &[], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "bpf_preempt_enable", flags: 0, args: &[], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "__bpf_trap", flags: 0, args: &[], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "bpf_local_irq_save", flags: 0, args: &[KfArg::IrqFlag], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto { name: "bpf_local_irq_restore", flags: 0, args: &[KfArg::IrqFlag], ret: KfRet::Void, set: KfuncSet::Common },
    // `void *bpf_arena_alloc_pages(void *p__map, void *addr__ign, u32
    // page_cnt, int node_id, u64 flags)`: a `void *` return is a scalar
    KfuncProto {
        name: "bpf_arena_alloc_pages",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::Map, KfArg::Ignore, KfArg::Scalar, KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // `void bpf_arena_free_pages(void *p__map, void __arena *ptr__ign, u32
    // page_cnt)`
    KfuncProto {
        name: "bpf_arena_free_pages",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::Map, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // `int bpf_arena_reserve_pages(void *p__map, void __arena *ptr__ign,
    // u32 page_cnt)`
    KfuncProto {
        name: "bpf_arena_reserve_pages",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::Map, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // `int bpf_iter_bits_new(struct bpf_iter_bits *it, const u64
    // *unsafe_ptr__ign, u32 nr_words)`
    KfuncProto {
        name: "bpf_iter_bits_new",
        flags: kf::ITER_NEW | kf::PERFMON,
        args: &[KfArg::Iter("bpf_iter_bits"), KfArg::IgnoreSized(8), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_bits_next",
        flags: kf::ITER_NEXT | kf::RET_NULL,
        args: &[KfArg::Iter("bpf_iter_bits")],
        ret: KfRet::Mem(4),
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_iter_bits_destroy", flags: kf::ITER_DESTROY, args: &[KfArg::Iter("bpf_iter_bits")], ret: KfRet::Void, set: KfuncSet::Common },
    // the object iterators of common_btf_ids (task_iter.c, cgroup_iter.c,
    // kmem_cache_iter.c, dmabuf_iter.c): `int bpf_iter_task_vma_new(struct
    // bpf_iter_task_vma *it, struct task_struct *task, u64 addr)`
    KfuncProto {
        name: "bpf_iter_task_vma_new",
        flags: kf::ITER_NEW | kf::RCU,
        args: &[KfArg::Iter("bpf_iter_task_vma"), KfArg::BtfId("task_struct"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_task_vma_next",
        flags: kf::ITER_NEXT | kf::RET_NULL,
        args: &[KfArg::Iter("bpf_iter_task_vma")],
        ret: KfRet::BtfId("vm_area_struct"),
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_task_vma_destroy",
        flags: kf::ITER_DESTROY,
        args: &[KfArg::Iter("bpf_iter_task_vma")],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // `int bpf_iter_css_task_new(struct bpf_iter_css_task *it, struct
    // cgroup_subsys_state *css, unsigned int flags)`
    KfuncProto {
        name: "bpf_iter_css_task_new",
        flags: kf::ITER_NEW,
        args: &[KfArg::Iter("bpf_iter_css_task"), KfArg::BtfId("cgroup_subsys_state"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_css_task_next",
        flags: kf::ITER_NEXT | kf::RET_NULL,
        args: &[KfArg::Iter("bpf_iter_css_task")],
        ret: KfRet::BtfId("task_struct"),
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_css_task_destroy",
        flags: kf::ITER_DESTROY,
        args: &[KfArg::Iter("bpf_iter_css_task")],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // `int bpf_iter_css_new(struct bpf_iter_css *it, struct
    // cgroup_subsys_state *start, unsigned int flags)`
    KfuncProto {
        name: "bpf_iter_css_new",
        flags: kf::ITER_NEW | kf::RCU_PROTECTED,
        args: &[KfArg::Iter("bpf_iter_css"), KfArg::BtfId("cgroup_subsys_state"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_css_next",
        flags: kf::ITER_NEXT | kf::RET_NULL,
        args: &[KfArg::Iter("bpf_iter_css")],
        ret: KfRet::BtfId("cgroup_subsys_state"),
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_iter_css_destroy", flags: kf::ITER_DESTROY, args: &[KfArg::Iter("bpf_iter_css")], ret: KfRet::Void, set: KfuncSet::Common },
    // `int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct
    // *task__nullable, unsigned int flags)`
    KfuncProto {
        name: "bpf_iter_task_new",
        flags: kf::ITER_NEW | kf::RCU_PROTECTED,
        args: &[KfArg::Iter("bpf_iter_task"), KfArg::NullableBtfId("task_struct"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_task_next",
        flags: kf::ITER_NEXT | kf::RET_NULL,
        args: &[KfArg::Iter("bpf_iter_task")],
        ret: KfRet::BtfId("task_struct"),
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_iter_task_destroy", flags: kf::ITER_DESTROY, args: &[KfArg::Iter("bpf_iter_task")], ret: KfRet::Void, set: KfuncSet::Common },
    // `int bpf_iter_kmem_cache_new(struct bpf_iter_kmem_cache *it)`
    KfuncProto {
        name: "bpf_iter_kmem_cache_new",
        flags: kf::ITER_NEW | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_kmem_cache")],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_kmem_cache_next",
        flags: kf::ITER_NEXT | kf::RET_NULL | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_kmem_cache")],
        ret: KfRet::BtfId("kmem_cache"),
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_kmem_cache_destroy",
        flags: kf::ITER_DESTROY | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_kmem_cache")],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // `int bpf_iter_dmabuf_new(struct bpf_iter_dmabuf *it)`
    KfuncProto {
        name: "bpf_iter_dmabuf_new",
        flags: kf::ITER_NEW | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_dmabuf")],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_dmabuf_next",
        flags: kf::ITER_NEXT | kf::RET_NULL | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_dmabuf")],
        ret: KfRet::BtfId("dma_buf"),
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_iter_dmabuf_destroy",
        flags: kf::ITER_DESTROY | kf::SLEEPABLE,
        args: &[KfArg::Iter("bpf_iter_dmabuf")],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // the string kfuncs (common_btf_ids, all KF_PERFMON): their `const
    // char *` arguments are `__ign`, unchecked, read by the kfunc one byte
    // at a time with faults caught; `size_t` lengths, `char c` (`int c`
    // for bpf_strrchr) are scalars
    KfuncProto { name: "bpf_strcmp", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strcasecmp", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto {
        name: "bpf_strncasecmp",
        flags: kf::PERFMON,
        args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_strchr", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strchrnul", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto {
        name: "bpf_strnchr",
        flags: kf::PERFMON,
        args: &[KfArg::IgnoreSized(1), KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_strrchr", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strlen", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strnlen", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strspn", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strcspn", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strstr", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_strcasestr", flags: kf::PERFMON, args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1)], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto {
        name: "bpf_strnstr",
        flags: kf::PERFMON,
        args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_strncasestr",
        flags: kf::PERFMON,
        args: &[KfArg::IgnoreSized(1), KfArg::IgnoreSized(1), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // dynptr accessors and clone (common_btf_ids): `int bpf_dynptr_adjust(struct
    // bpf_dynptr *p, u64 start, u64 end)`, `bool bpf_dynptr_is_null(const
    // struct bpf_dynptr *p)`, `bool bpf_dynptr_is_rdonly(..)`, `u64
    // bpf_dynptr_size(..)`
    KfuncProto { name: "bpf_dynptr_adjust", flags: 0, args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_dynptr_is_null", flags: 0, args: &[KfArg::Dynptr], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_dynptr_is_rdonly", flags: 0, args: &[KfArg::Dynptr], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_dynptr_size", flags: 0, args: &[KfArg::Dynptr], ret: KfRet::Scalar, set: KfuncSet::Common },
    // `int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr
    // *clone__uninit)`
    KfuncProto { name: "bpf_dynptr_clone", flags: 0, args: &[KfArg::Dynptr, KfArg::DynptrUninit], ret: KfRet::Scalar, set: KfuncSet::Common },
    // `int bpf_copy_from_user_str(void *dst, u32 dst__sz, const void __user
    // *unsafe_ptr__ign, u64 flags)`
    KfuncProto {
        name: "bpf_copy_from_user_str",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Mem { nullable: false }, KfArg::MemSize, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // generic_btf_ids
    KfuncProto {
        name: "bpf_task_acquire",
        flags: kf::ACQUIRE | kf::RCU | kf::RET_NULL,
        args: &[KfArg::BtfId("task_struct")],
        ret: KfRet::BtfId("task_struct"),
        set: KfuncSet::Generic,
    },
    // `void *bpf_obj_new(u64 local_type_id__k, struct btf_struct_meta
    // *meta)` and its percpu twin (`KF_IMPLICIT_ARGS`: the program passes
    // the type id only); the `_impl` forms take `void *meta__ign`
    KfuncProto {
        name: "bpf_obj_new",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Const, IMPLICIT_VOID_PTR],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_obj_new_impl",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Const, KfArg::Ignore],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_percpu_obj_new",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Const, IMPLICIT_VOID_PTR],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_percpu_obj_new_impl",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Const, KfArg::Ignore],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    // `void bpf_obj_drop(void *p__alloc, struct btf_struct_meta *meta)`
    KfuncProto { name: "bpf_obj_drop", flags: kf::RELEASE, args: &[KfArg::AllocBtfId, IMPLICIT_VOID_PTR], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_obj_drop_impl", flags: kf::RELEASE, args: &[KfArg::AllocBtfId, KfArg::Ignore], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_percpu_obj_drop", flags: kf::RELEASE, args: &[KfArg::AllocBtfId, IMPLICIT_VOID_PTR], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_percpu_obj_drop_impl", flags: kf::RELEASE, args: &[KfArg::AllocBtfId, KfArg::Ignore], ret: KfRet::Void, set: KfuncSet::Generic },
    // `void *bpf_refcount_acquire(void *p__refcounted_kptr, struct
    // btf_struct_meta *meta)`
    KfuncProto {
        name: "bpf_refcount_acquire",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::RCU | kf::SPINLOCK_SAFE,
        args: &[KfArg::RefcountedKptr, IMPLICIT_VOID_PTR],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_refcount_acquire_impl",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::RCU | kf::SPINLOCK_SAFE,
        args: &[KfArg::RefcountedKptr, KfArg::Ignore],
        ret: KfRet::Special,
        set: KfuncSet::Generic,
    },
    KfuncProto { name: "bpf_task_release", flags: kf::RELEASE, args: &[KfArg::BtfId("task_struct")], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto {
        name: "bpf_task_from_pid",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Scalar],
        ret: KfRet::BtfId("task_struct"),
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_task_from_vpid",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Scalar],
        ret: KfRet::BtfId("task_struct"),
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_cgroup_acquire",
        flags: kf::ACQUIRE | kf::RCU | kf::RET_NULL,
        args: &[KfArg::BtfId("cgroup")],
        ret: KfRet::BtfId("cgroup"),
        set: KfuncSet::Generic,
    },
    KfuncProto { name: "bpf_cgroup_release", flags: kf::RELEASE, args: &[KfArg::BtfId("cgroup")], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_cgroup_from_id", flags: kf::ACQUIRE | kf::RET_NULL, args: &[KfArg::Scalar], ret: KfRet::BtfId("cgroup"), set: KfuncSet::Generic },
    // cpumask_kfunc_btf_ids, in its order, with the prototypes of the 7.3
    // BTF: a `struct bpf_cpumask *` the kfunc writes, a `const struct
    // cpumask *` it reads (a `struct bpf_cpumask` leads with one); `u32`,
    // `bool` and `int` returns are scalars; `int bpf_cpumask_populate(struct
    // bpf_cpumask *cpumask, void *src, size_t src__sz)`
    KfuncProto { name: "bpf_cpumask_create", flags: kf::ACQUIRE | kf::RET_NULL, args: &[], ret: KfRet::BtfId("bpf_cpumask"), set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_release", flags: kf::RELEASE, args: &[KfArg::BtfId("bpf_cpumask")], ret: KfRet::Void, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_acquire",
        flags: kf::ACQUIRE,
        args: &[KfArg::BtfId("bpf_cpumask")],
        ret: KfRet::BtfId("bpf_cpumask"),
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_first", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_first_zero", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_first_and",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_set_cpu", flags: kf::RCU, args: &[KfArg::Scalar, KfArg::BtfId("bpf_cpumask")], ret: KfRet::Void, set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_clear_cpu", flags: kf::RCU, args: &[KfArg::Scalar, KfArg::BtfId("bpf_cpumask")], ret: KfRet::Void, set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_test_cpu", flags: kf::RCU, args: &[KfArg::Scalar, KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_test_and_set_cpu",
        flags: kf::RCU,
        args: &[KfArg::Scalar, KfArg::BtfId("bpf_cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_test_and_clear_cpu",
        flags: kf::RCU,
        args: &[KfArg::Scalar, KfArg::BtfId("bpf_cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_setall", flags: kf::RCU, args: &[KfArg::BtfId("bpf_cpumask")], ret: KfRet::Void, set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_clear", flags: kf::RCU, args: &[KfArg::BtfId("bpf_cpumask")], ret: KfRet::Void, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_and",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_cpumask"), KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_or",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_cpumask"), KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Void,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_xor",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_cpumask"), KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Void,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_equal",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_intersects",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto {
        name: "bpf_cpumask_subset",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_empty", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto { name: "bpf_cpumask_full", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_copy",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Void,
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_any_distribute", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_any_and_distribute",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cpumask"), KfArg::BtfId("cpumask")],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    KfuncProto { name: "bpf_cpumask_weight", flags: kf::RCU, args: &[KfArg::BtfId("cpumask")], ret: KfRet::Scalar, set: KfuncSet::Cpumask },
    KfuncProto {
        name: "bpf_cpumask_populate",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_cpumask"), KfArg::Mem { nullable: false }, KfArg::MemSize],
        ret: KfRet::Scalar,
        set: KfuncSet::Cpumask,
    },
    // `struct kmem_cache *bpf_get_kmem_cache(u64 addr)`: untrusted
    KfuncProto { name: "bpf_get_kmem_cache", flags: kf::PERFMON, args: &[KfArg::Scalar], ret: KfRet::BtfId("kmem_cache"), set: KfuncSet::Common },
    // `int bpf_probe_read_kernel_dynptr(const struct bpf_dynptr *dptr, u64
    // off, u64 size, const void *unsafe_ptr__ign)`
    KfuncProto {
        name: "bpf_probe_read_kernel_dynptr",
        flags: kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // `void *bpf_dynptr_slice(const struct bpf_dynptr *p, u64 offset, void
    // *buffer__nullable, u64 buffer__szk)` and its `_rdwr` twin
    KfuncProto {
        name: "bpf_dynptr_slice",
        flags: kf::RET_NULL,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Mem { nullable: true }, KfArg::ConstMemSize],
        ret: KfRet::Special,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_dynptr_slice_rdwr",
        flags: kf::RET_NULL,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Mem { nullable: true }, KfArg::ConstMemSize],
        ret: KfRet::Special,
        set: KfuncSet::Common,
    },
    // `int bpf_stream_vprintk(int stream_id, const char *fmt__str, const
    // void *args, u32 len__sz)` (`KF_IMPLICIT_ARGS`: the `prog->aux`
    // argument is not the program's)
    KfuncProto {
        name: "bpf_stream_vprintk",
        flags: kf::SPINLOCK_SAFE | kf::PERFMON,
        args: &[KfArg::Scalar, KfArg::ConstStr, KfArg::Mem { nullable: false }, KfArg::MemSize],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // `int bpf_stream_print_stack(int stream_id)` (`KF_IMPLICIT_ARGS`, as
    // bpf_stream_vprintk)
    KfuncProto { name: "bpf_stream_print_stack", flags: kf::SPINLOCK_SAFE | kf::PERFMON, args: &[KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    // bpf_kfunc_set_skb: `int bpf_dynptr_from_skb(struct __sk_buff *s, u64
    // flags, struct bpf_dynptr *ptr__uninit)`
    KfuncProto {
        name: "bpf_dynptr_from_skb",
        flags: 0,
        args: &[KfArg::CtxProjection("__sk_buff"), KfArg::Scalar, KfArg::DynptrUninit],
        ret: KfRet::Scalar,
        set: KfuncSet::Skb,
    },
    // bpf_kfunc_set_xdp: `int bpf_dynptr_from_xdp(struct xdp_md *x, u64
    // flags, struct bpf_dynptr *ptr__uninit)`, `int bpf_xdp_pull_data(struct
    // xdp_md *x, u32 len)`
    KfuncProto {
        name: "bpf_dynptr_from_xdp",
        flags: 0,
        args: &[KfArg::CtxProjection("xdp_md"), KfArg::Scalar, KfArg::DynptrUninit],
        ret: KfRet::Scalar,
        set: KfuncSet::Xdp,
    },
    // bpf_kfunc_set_skb_meta: `int bpf_dynptr_from_skb_meta(struct
    // __sk_buff *skb_, u64 flags, struct bpf_dynptr *ptr__uninit)`
    KfuncProto {
        name: "bpf_dynptr_from_skb_meta",
        flags: 0,
        args: &[KfArg::CtxProjection("__sk_buff"), KfArg::Scalar, KfArg::DynptrUninit],
        ret: KfRet::Scalar,
        set: KfuncSet::SkbMeta,
    },
    KfuncProto { name: "bpf_xdp_pull_data", flags: 0, args: &[KfArg::CtxProjection("xdp_md"), KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Xdp },
    // bpf_fs_kfunc_set_ids (fs/bpf_fs_kfuncs.c): `struct file
    // *bpf_get_task_exe_file(struct task_struct *task)`, `void
    // bpf_put_file(struct file *file)`, `int bpf_path_d_path(const struct
    // path *path, char *buf, size_t buf__sz)`, `int bpf_sock_read_xattr(struct
    // socket *sock, const char *name__str, struct bpf_dynptr *value_p)`
    KfuncProto {
        name: "bpf_get_task_exe_file",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::BtfId("task_struct")],
        ret: KfRet::BtfId("file"),
        set: KfuncSet::Fs,
    },
    KfuncProto { name: "bpf_put_file", flags: kf::RELEASE, args: &[KfArg::BtfId("file")], ret: KfRet::Void, set: KfuncSet::Fs },
    KfuncProto {
        name: "bpf_path_d_path",
        flags: 0,
        args: &[KfArg::BtfId("path"), KfArg::Mem { nullable: false }, KfArg::MemSize],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    KfuncProto {
        name: "bpf_sock_read_xattr",
        flags: kf::RCU,
        args: &[KfArg::BtfId("socket"), KfArg::ConstStr, KfArg::Dynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    // common_btf_ids: `int bpf_dynptr_from_file(struct file *file, u32 flags,
    // struct bpf_dynptr *ptr__uninit)`, `int bpf_dynptr_file_discard(struct
    // bpf_dynptr *dynptr)`
    KfuncProto {
        name: "bpf_dynptr_from_file",
        flags: 0,
        args: &[KfArg::BtfId("file"), KfArg::Scalar, KfArg::DynptrUninit],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_dynptr_file_discard", flags: kf::RELEASE, args: &[KfArg::Dynptr], ret: KfRet::Scalar, set: KfuncSet::Common },
    // common_btf_ids: `int bpf_cgroup_read_xattr(struct cgroup *cgroup,
    // const char *name__str, struct bpf_dynptr *value_p)`
    KfuncProto {
        name: "bpf_cgroup_read_xattr",
        flags: kf::RCU,
        args: &[KfArg::BtfId("cgroup"), KfArg::ConstStr, KfArg::Dynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // generic_btf_ids: `struct cgroup *bpf_cgroup_ancestor(struct cgroup
    // *cgrp, int level)`
    KfuncProto {
        name: "bpf_cgroup_ancestor",
        flags: kf::ACQUIRE | kf::RCU | kf::RET_NULL,
        args: &[KfArg::BtfId("cgroup"), KfArg::Scalar],
        ret: KfRet::BtfId("cgroup"),
        set: KfuncSet::Generic,
    },
    // generic_btf_ids (CONFIG_KEYS): `struct bpf_key *bpf_lookup_user_key(s32
    // serial, u64 flags)`, `struct bpf_key *bpf_lookup_system_key(u64 id)`,
    // `void bpf_key_put(struct bpf_key *bkey)`, `int
    // bpf_verify_pkcs7_signature(const struct bpf_dynptr *data_p, const
    // struct bpf_dynptr *sig_p, struct bpf_key *trusted_keyring)`
    KfuncProto {
        name: "bpf_lookup_user_key",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SLEEPABLE,
        args: &[KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::BtfId("bpf_key"),
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_lookup_system_key",
        flags: kf::ACQUIRE | kf::RET_NULL,
        args: &[KfArg::Scalar],
        ret: KfRet::BtfId("bpf_key"),
        set: KfuncSet::Generic,
    },
    KfuncProto { name: "bpf_key_put", flags: kf::RELEASE, args: &[KfArg::BtfId("bpf_key")], ret: KfRet::Void, set: KfuncSet::Generic },
    KfuncProto {
        name: "bpf_verify_pkcs7_signature",
        flags: kf::SLEEPABLE,
        args: &[KfArg::Dynptr, KfArg::Dynptr, KfArg::BtfId("bpf_key")],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // async callbacks (helpers.c, common_btf_ids): `int bpf_wq_init(struct
    // bpf_wq *wq, void *p__const_map, unsigned int flags)`, `int
    // bpf_wq_set_callback(struct bpf_wq *wq, int (callback_fn)(void *map,
    // int *key, void *value), unsigned int flags)`, `int bpf_wq_start(struct
    // bpf_wq *wq, unsigned int flags)`, `int
    // bpf_task_work_schedule_{signal,resume}(struct task_struct *task,
    // struct bpf_task_work *tw, void *map__const_map,
    // bpf_task_work_callback_t callback)` (`KF_IMPLICIT_ARGS`: the
    // trailing `struct bpf_prog_aux *` of the `_impl` prototype is not the
    // program's to pass)
    KfuncProto { name: "bpf_wq_init", flags: 0, args: &[KfArg::Wq, KfArg::ConstMap, KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_wq_set_callback", flags: 0, args: &[KfArg::Wq, KfArg::Callback, KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_wq_start", flags: 0, args: &[KfArg::Wq, KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto {
        name: "bpf_task_work_schedule_signal",
        flags: 0,
        args: &[KfArg::BtfId("task_struct"), KfArg::TaskWork, KfArg::ConstMap, KfArg::Callback],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_task_work_schedule_resume",
        flags: 0,
        args: &[KfArg::BtfId("task_struct"), KfArg::TaskWork, KfArg::ConstMap, KfArg::Callback],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // rqspinlock_kfunc_ids (rqspinlock.c, every program type, all
    // KF_SPINLOCK_SAFE and the locking two KF_RET_NULL on their `int`
    // return): `int bpf_res_spin_lock(struct bpf_res_spin_lock *lock)`, `void
    // bpf_res_spin_unlock(struct bpf_res_spin_lock *lock)`, `int
    // bpf_res_spin_lock_irqsave(struct bpf_res_spin_lock *lock, unsigned long
    // *flags__irq_flag)`, `void bpf_res_spin_unlock_irqrestore(struct
    // bpf_res_spin_lock *lock, unsigned long *flags__irq_flag)`
    KfuncProto { name: "bpf_res_spin_lock", flags: kf::RET_NULL | kf::SPINLOCK_SAFE, args: &[KfArg::ResSpinLock], ret: KfRet::Scalar, set: KfuncSet::Common },
    KfuncProto { name: "bpf_res_spin_unlock", flags: kf::SPINLOCK_SAFE, args: &[KfArg::ResSpinLock], ret: KfRet::Void, set: KfuncSet::Common },
    KfuncProto {
        name: "bpf_res_spin_lock_irqsave",
        flags: kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::ResSpinLock, KfArg::IrqFlag],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_res_spin_unlock_irqrestore",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ResSpinLock, KfArg::IrqFlag],
        ret: KfRet::Void,
        set: KfuncSet::Common,
    },
    // graph kfuncs (helpers.c, generic_btf_ids, all KF_SPINLOCK_SAFE): the
    // linked list's and the rbtree's. `KF_IMPLICIT_ARGS` forms take the
    // struct meta and the node's offset from the verifier (the program
    // passes the public arguments only; 7.3 reads the prototype of the
    // `_impl` BTF function, `bpf_list_add_impl` among them); the legacy
    // `_impl` kfuncs take `void *meta__ign, u64 off` from the program.
    // `int bpf_list_push_front(struct bpf_list_head *head, struct
    // bpf_list_node *node)`, `bpf_list_push_back` alike
    KfuncProto {
        name: "bpf_list_push_front",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: false }, IMPLICIT_VOID_PTR, IMPLICIT_SCALAR],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_list_push_front_impl",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: false }, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_list_push_back",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: false }, IMPLICIT_VOID_PTR, IMPLICIT_SCALAR],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_list_push_back_impl",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: false }, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // `int bpf_list_add(struct bpf_list_head *head, struct bpf_list_node
    // *new, struct bpf_list_node *prev__nonown_allowed)`
    KfuncProto {
        name: "bpf_list_add",
        flags: kf::SPINLOCK_SAFE,
        args: &[
            KfArg::ListHead,
            KfArg::ListNode { nonown_allowed: false },
            KfArg::ListNode { nonown_allowed: true },
            KfArg::Implicit(SIZEOF_BTF_STRUCT_META),
            IMPLICIT_SCALAR,
        ],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // `struct bpf_list_node *bpf_list_pop_front(struct bpf_list_head *head)`
    KfuncProto {
        name: "bpf_list_pop_front",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_list_pop_back",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    // `struct bpf_list_node *bpf_list_del(struct bpf_list_head *head, struct
    // bpf_list_node *node__nonown_allowed)`
    KfuncProto {
        name: "bpf_list_del",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: true }],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    // `struct bpf_list_node *bpf_list_front(struct bpf_list_head *head)`
    KfuncProto { name: "bpf_list_front", flags: kf::RET_NULL | kf::SPINLOCK_SAFE, args: &[KfArg::ListHead], ret: KfRet::GraphNode, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_list_back", flags: kf::RET_NULL | kf::SPINLOCK_SAFE, args: &[KfArg::ListHead], ret: KfRet::GraphNode, set: KfuncSet::Generic },
    // `bool bpf_list_is_first(struct bpf_list_head *head, struct
    // bpf_list_node *node__nonown_allowed)`, `bpf_list_is_last` alike
    KfuncProto {
        name: "bpf_list_is_first",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: true }],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_list_is_last",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::ListHead, KfArg::ListNode { nonown_allowed: true }],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // `bool bpf_list_empty(struct bpf_list_head *head)`
    KfuncProto { name: "bpf_list_empty", flags: kf::SPINLOCK_SAFE, args: &[KfArg::ListHead], ret: KfRet::Scalar, set: KfuncSet::Generic },
    // `struct bpf_rb_node *bpf_rbtree_remove(struct bpf_rb_root *root,
    // struct bpf_rb_node *node)`
    KfuncProto {
        name: "bpf_rbtree_remove",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::RbRoot, KfArg::RbNode],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    // `int bpf_rbtree_add(struct bpf_rb_root *root, struct bpf_rb_node
    // *node, bool (less)(struct bpf_rb_node *a, const struct bpf_rb_node *b))`
    KfuncProto {
        name: "bpf_rbtree_add",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::RbRoot, KfArg::RbNode, KfArg::Callback, IMPLICIT_VOID_PTR, IMPLICIT_SCALAR],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_rbtree_add_impl",
        flags: kf::SPINLOCK_SAFE,
        args: &[KfArg::RbRoot, KfArg::RbNode, KfArg::Callback, KfArg::Ignore, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // `struct bpf_rb_node *bpf_rbtree_first(struct bpf_rb_root *root)`,
    // `bpf_rbtree_root` alike; `bpf_rbtree_left(root, node)` and
    // `bpf_rbtree_right`
    KfuncProto { name: "bpf_rbtree_first", flags: kf::RET_NULL | kf::SPINLOCK_SAFE, args: &[KfArg::RbRoot], ret: KfRet::GraphNode, set: KfuncSet::Generic },
    KfuncProto { name: "bpf_rbtree_root", flags: kf::RET_NULL | kf::SPINLOCK_SAFE, args: &[KfArg::RbRoot], ret: KfRet::GraphNode, set: KfuncSet::Generic },
    KfuncProto {
        name: "bpf_rbtree_left",
        flags: kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::RbRoot, KfArg::RbNode],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_rbtree_right",
        flags: kf::RET_NULL | kf::SPINLOCK_SAFE,
        args: &[KfArg::RbRoot, KfArg::RbNode],
        ret: KfRet::GraphNode,
        set: KfuncSet::Generic,
    },
    // exceptions (helpers.c, generic_btf_ids): `void bpf_throw(u64 cookie)`
    KfuncProto { name: "bpf_throw", flags: 0, args: &[KfArg::Scalar], ret: KfRet::Void, set: KfuncSet::Generic },
    // The prototypes below are those of the 7.3 images' BTF, their flags
    // those of the images' `.BTF_ids` sets.
    //
    // common_btf_ids (helpers.c): `int bpf_dynptr_copy(const struct
    // bpf_dynptr *dst_ptr, u64 dst_off, const struct bpf_dynptr *src_ptr, u64
    // src_off, u64 size)`, `int bpf_dynptr_memset(const struct bpf_dynptr *p,
    // u64 offset, u64 size, u8 val)`, `int bpf_timer_cancel_async(struct
    // bpf_timer *timer)`
    KfuncProto {
        name: "bpf_dynptr_copy",
        flags: 0,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_dynptr_memset",
        flags: 0,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto { name: "bpf_timer_cancel_async", flags: 0, args: &[KfArg::Timer], ret: KfRet::Scalar, set: KfuncSet::Common },
    // common_btf_ids (CONFIG_NET): `int bpf_modify_return_test_tp(int
    // nonce)`
    KfuncProto { name: "bpf_modify_return_test_tp", flags: 0, args: &[KfArg::Scalar], ret: KfRet::Scalar, set: KfuncSet::Common },
    // common_btf_ids, CONFIG_BPF_EVENTS (all KF_PERFMON, the user-memory
    // ones KF_SLEEPABLE): `int bpf_{probe_read_user,probe_read_user_str,
    // probe_read_kernel_str,copy_from_user,copy_from_user_str}_dynptr(const
    // struct bpf_dynptr *dptr, u64 off, u64 size, const void
    // *unsafe_ptr__ign)`, and the `_task` twins taking a `struct task_struct
    // *tsk` after it; `int bpf_copy_from_user_task_str(void *dst, u32
    // dst__sz, const void *unsafe_ptr__ign, struct task_struct *tsk, u64
    // flags)`
    KfuncProto {
        name: "bpf_probe_read_user_dynptr",
        flags: kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_probe_read_user_str_dynptr",
        flags: kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_probe_read_kernel_str_dynptr",
        flags: kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_copy_from_user_dynptr",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_copy_from_user_str_dynptr",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_copy_from_user_task_dynptr",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore, KfArg::BtfId("task_struct")],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_copy_from_user_task_str_dynptr",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Dynptr, KfArg::Scalar, KfArg::Scalar, KfArg::Ignore, KfArg::BtfId("task_struct")],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    KfuncProto {
        name: "bpf_copy_from_user_task_str",
        flags: kf::SLEEPABLE | kf::PERFMON,
        args: &[KfArg::Mem { nullable: false }, KfArg::MemSize, KfArg::Ignore, KfArg::BtfId("task_struct"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Common,
    },
    // bpf_map_iter_kfunc_ids (map_iter.c), registered for
    // BPF_PROG_TYPE_UNSPEC (every program type, as common_btf_ids): `s64
    // bpf_map_sum_elem_count(const struct bpf_map *map)`
    KfuncProto { name: "bpf_map_sum_elem_count", flags: 0, args: &[KfArg::BtfId("bpf_map")], ret: KfRet::Scalar, set: KfuncSet::Common },
    // generic_btf_ids: `long bpf_task_under_cgroup(struct task_struct *task,
    // struct cgroup *ancestor)`, `struct cgroup *bpf_task_get_cgroup1(struct
    // task_struct *task, int hierarchy_id)`, `int bpf_send_signal_task(struct
    // task_struct *task, int sig, enum pid_type type, u64 value)`
    KfuncProto {
        name: "bpf_task_under_cgroup",
        flags: kf::RCU,
        args: &[KfArg::BtfId("task_struct"), KfArg::BtfId("cgroup")],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_task_get_cgroup1",
        flags: kf::ACQUIRE | kf::RCU | kf::RET_NULL,
        args: &[KfArg::BtfId("task_struct"), KfArg::Scalar],
        ret: KfRet::BtfId("cgroup"),
        set: KfuncSet::Generic,
    },
    KfuncProto {
        name: "bpf_send_signal_task",
        flags: 0,
        args: &[KfArg::BtfId("task_struct"), KfArg::Scalar, KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Generic,
    },
    // crypt_init_kfunc_btf_ids (crypto.c): `struct bpf_crypto_ctx
    // *bpf_crypto_ctx_create(const struct bpf_crypto_params *params, u32
    // params__sz, int *err)`, `void bpf_crypto_ctx_release(struct
    // bpf_crypto_ctx *ctx)`, `struct bpf_crypto_ctx
    // *bpf_crypto_ctx_acquire(struct bpf_crypto_ctx *ctx)`
    KfuncProto {
        name: "bpf_crypto_ctx_create",
        flags: kf::ACQUIRE | kf::RET_NULL | kf::SLEEPABLE,
        args: &[KfArg::Mem { nullable: false }, KfArg::MemSize, KfArg::FixedMem(4)],
        ret: KfRet::BtfId("bpf_crypto_ctx"),
        set: KfuncSet::CryptoInit,
    },
    KfuncProto { name: "bpf_crypto_ctx_release", flags: kf::RELEASE, args: &[KfArg::BtfId("bpf_crypto_ctx")], ret: KfRet::Void, set: KfuncSet::CryptoInit },
    KfuncProto {
        name: "bpf_crypto_ctx_acquire",
        flags: kf::ACQUIRE | kf::RCU | kf::RET_NULL,
        args: &[KfArg::BtfId("bpf_crypto_ctx")],
        ret: KfRet::BtfId("bpf_crypto_ctx"),
        set: KfuncSet::CryptoInit,
    },
    // crypt_kfunc_btf_ids (crypto.c): `int bpf_crypto_{decrypt,encrypt}(struct
    // bpf_crypto_ctx *ctx, const struct bpf_dynptr *src, const struct
    // bpf_dynptr *dst, const struct bpf_dynptr *siv__nullable)`
    KfuncProto {
        name: "bpf_crypto_decrypt",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_crypto_ctx"), KfArg::Dynptr, KfArg::Dynptr, KfArg::NullableDynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Crypto,
    },
    KfuncProto {
        name: "bpf_crypto_encrypt",
        flags: kf::RCU,
        args: &[KfArg::BtfId("bpf_crypto_ctx"), KfArg::Dynptr, KfArg::Dynptr, KfArg::NullableDynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Crypto,
    },
    // bpf_fs_kfunc_set_ids (all KF_SLEEPABLE): `int bpf_get_file_xattr(struct
    // file *file, const char *name__str, struct bpf_dynptr *value_p)`, `int
    // bpf_get_dentry_xattr(struct dentry *dentry, const char *name__str,
    // struct bpf_dynptr *value_p)`, `int bpf_set_dentry_xattr(struct dentry
    // *dentry, const char *name__str, const struct bpf_dynptr *value_p, int
    // flags)`, `int bpf_remove_dentry_xattr(struct dentry *dentry, const char
    // *name__str)`
    KfuncProto {
        name: "bpf_get_file_xattr",
        flags: kf::SLEEPABLE,
        args: &[KfArg::BtfId("file"), KfArg::ConstStr, KfArg::Dynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    KfuncProto {
        name: "bpf_get_dentry_xattr",
        flags: kf::SLEEPABLE,
        args: &[KfArg::BtfId("dentry"), KfArg::ConstStr, KfArg::Dynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    KfuncProto {
        name: "bpf_set_dentry_xattr",
        flags: kf::SLEEPABLE,
        args: &[KfArg::BtfId("dentry"), KfArg::ConstStr, KfArg::Dynptr, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    KfuncProto {
        name: "bpf_remove_dentry_xattr",
        flags: kf::SLEEPABLE,
        args: &[KfArg::BtfId("dentry"), KfArg::ConstStr],
        ret: KfRet::Scalar,
        set: KfuncSet::Fs,
    },
    // sets of files the model does not read, each with the program types
    // 7.3's selftests call its kfuncs from:
    // fsverity_set_ids (fs/verity): `int bpf_get_fsverity_digest(struct file
    // *file, const struct bpf_dynptr *digest_p)`
    KfuncProto {
        name: "bpf_get_fsverity_digest",
        flags: 0,
        args: &[KfArg::BtfId("file"), KfArg::Dynptr],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "fsverity_set_ids", prog_types: &[super::helpers::prog::LSM] },
    },
    // wakeup_source_kfunc_ids (drivers/base/power): `struct bpf_ws_lock
    // *bpf_wakeup_sources_read_lock(void)`, `void
    // bpf_wakeup_sources_read_unlock(struct bpf_ws_lock *lock)`, `void
    // *bpf_wakeup_sources_get_head(void)` (a `void *` return is a scalar)
    KfuncProto {
        name: "bpf_wakeup_sources_read_lock",
        flags: kf::ACQUIRE,
        args: &[],
        ret: KfRet::BtfId("bpf_ws_lock"),
        set: KfuncSet::Unread { set: "wakeup_source_kfunc_ids", prog_types: &[super::helpers::prog::SYSCALL] },
    },
    KfuncProto {
        name: "bpf_wakeup_sources_read_unlock",
        flags: kf::RELEASE,
        args: &[KfArg::BtfId("bpf_ws_lock")],
        ret: KfRet::Void,
        set: KfuncSet::Unread { set: "wakeup_source_kfunc_ids", prog_types: &[super::helpers::prog::SYSCALL] },
    },
    KfuncProto {
        name: "bpf_wakeup_sources_get_head",
        flags: 0,
        args: &[],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "wakeup_source_kfunc_ids", prog_types: &[super::helpers::prog::SYSCALL] },
    },
    // bpf_rstat_kfunc_ids (kernel/cgroup/rstat.c): `void
    // css_rstat_flush(struct cgroup_subsys_state *css)`
    KfuncProto {
        name: "css_rstat_flush",
        flags: kf::SLEEPABLE,
        args: &[KfArg::BtfId("cgroup_subsys_state")],
        ret: KfRet::Void,
        set: KfuncSet::Unread { set: "bpf_rstat_kfunc_ids", prog_types: &[super::helpers::prog::TRACING] },
    },
    // net/core/filter.c: `int bpf_sock_addr_set_sun_path(struct
    // bpf_sock_addr_kern *sa_kern, const u8 *sun_path, u32 sun_path__sz)`
    KfuncProto {
        name: "bpf_sock_addr_set_sun_path",
        flags: 0,
        args: &[KfArg::BtfId("bpf_sock_addr_kern"), KfArg::Mem { nullable: false }, KfArg::MemSize],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "bpf_kfunc_check_set_sock_addr", prog_types: &[super::helpers::prog::CGROUP_SOCK_ADDR] },
    },
    // `int bpf_sock_ops_enable_tx_tstamp(struct bpf_sock_ops_kern *skops,
    // u64 flags)`
    KfuncProto {
        name: "bpf_sock_ops_enable_tx_tstamp",
        flags: 0,
        args: &[KfArg::BtfId("bpf_sock_ops_kern"), KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "bpf_kfunc_check_set_sock_ops", prog_types: &[super::helpers::prog::SOCK_OPS] },
    },
    // `int bpf_icmp_send(struct __sk_buff *skb_ctx, int type, int code)`
    KfuncProto {
        name: "bpf_icmp_send",
        flags: 0,
        args: &[KfArg::CtxProjection("__sk_buff"), KfArg::Scalar, KfArg::Scalar],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "bpf_kfunc_check_set_icmp_send", prog_types: &[super::helpers::prog::CGROUP_SKB] },
    },
    // `int bpf_sk_assign_tcp_reqsk(struct __sk_buff *s, struct sock *sk,
    // struct bpf_tcp_req_attrs *attrs, int attrs__sz)`
    KfuncProto {
        name: "bpf_sk_assign_tcp_reqsk",
        flags: 0,
        args: &[KfArg::CtxProjection("__sk_buff"), KfArg::BtfId("sock"), KfArg::Mem { nullable: false }, KfArg::MemSize],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "bpf_kfunc_check_set_tcp_reqsk", prog_types: &[super::helpers::prog::SCHED_CLS] },
    },
    // bpf_sk_iter_kfunc_ids: `int bpf_sock_destroy(struct sock_common
    // *sock)`, behind the set's filter (kfunc_set_filter_refuses)
    KfuncProto {
        name: "bpf_sock_destroy",
        flags: 0,
        args: &[KfArg::BtfId("sock_common")],
        ret: KfRet::Scalar,
        set: KfuncSet::Unread { set: "bpf_sk_iter_kfunc_ids", prog_types: &[super::helpers::prog::TRACING] },
    },
];

/// The resilient spin lock kfuncs that take the lock (`KF_bpf_res_spin_lock`,
/// `KF_bpf_res_spin_lock_irqsave`), which may fail.
fn is_res_spin_lock_acquire(name: &str) -> bool {
    matches!(name, "bpf_res_spin_lock" | "bpf_res_spin_lock_irqsave")
}

/// `MAX_ERRNO`.
const MAX_ERRNO: i32 = 4095;

/// `bpf_is_kfunc_pkt_changing`.
pub fn bpf_is_kfunc_pkt_changing(name: &str) -> bool {
    name == "bpf_xdp_pull_data"
}

/// The dynptr type a `__uninit` dynptr argument of the kfunc gets
/// (`check_kfunc_args`).
fn kfunc_uninit_dynptr_type(name: &str) -> Option<ArgType> {
    match name {
        "bpf_dynptr_from_skb" => Some(DYNPTR_TYPE_SKB),
        "bpf_dynptr_from_xdp" => Some(DYNPTR_TYPE_XDP),
        "bpf_dynptr_from_skb_meta" => Some(DYNPTR_TYPE_SKB_META),
        "bpf_dynptr_from_file" => Some(DYNPTR_TYPE_FILE),
        _ => None,
    }
}

/// The name of the kfunc with BTF id `imm` in the target.
pub(crate) fn kfunc_name(env: &Env<'_, '_>, imm: i32) -> Option<&'static str> {
    env.input.kfuncs.iter().find(|(_, id)| *id as i64 == imm as i64).map(|(n, _)| *n)
}

fn kfunc_proto(env: &Env<'_, '_>, imm: i32) -> Option<&'static KfuncProto> {
    let name = kfunc_name(env, imm)?;
    KFUNCS.iter().find(|k| k.name == name)
}

/// `is_sync_callback_calling_kfunc` (`bpf_rbtree_add` and its `_impl`).
pub(crate) fn is_sync_callback_calling_kfunc(env: &Env<'_, '_>, imm: i32) -> bool {
    kfunc_name(env, imm).is_some_and(super::graph::is_bpf_rbtree_add_kfunc)
}

/// `is_async_callback_calling_kfunc`: the kfuncs whose callback runs
/// later, in a context of its own (`is_bpf_wq_set_callback_kfunc`,
/// `is_task_work_add_kfunc`).
pub fn is_async_callback_calling_kfunc(name: &str) -> bool {
    matches!(name, "bpf_wq_set_callback" | "bpf_task_work_schedule_signal" | "bpf_task_work_schedule_resume")
}

/// `kfunc_spin_allowed`: what may be called holding a `bpf_spin_lock`.
pub(crate) fn kfunc_spin_allowed(env: &Env<'_, '_>, imm: i32, off: i16) -> bool {
    if off != 0 {
        return false;
    }
    let Some(name) = kfunc_name(env, imm) else { return false };
    KFUNCS.iter().any(|k| k.name == name && k.flags & kf::SPINLOCK_SAFE != 0)
}

/// `__mark_dynptr_reg` for a callback's `const struct bpf_dynptr *`.
pub(crate) fn dynptr_cb_reg(typ: u32, id: u32) -> RegState {
    let mut r = RegState::ptr(CONST_PTR_TO_DYNPTR, typ as i64);
    r.aux2 = 1;
    r.id = id;
    r
}

/// `dynptr_type_str`.
pub fn dynptr_type_str(t: u32) -> &'static str {
    match t {
        dynptr::LOCAL => "local",
        dynptr::RINGBUF => "ringbuf",
        dynptr::SKB => "skb",
        dynptr::XDP => "xdp",
        dynptr::SKB_META => "skb_meta",
        dynptr::FILE => "file",
        dynptr::INVALID => "<invalid>",
        _ => "<unknown>",
    }
}

/// `arg_to_dynptr_type`.
fn arg_to_dynptr_type(arg_type: ArgType) -> u32 {
    match arg_type & DYNPTR_TYPE_FLAG_MASK {
        DYNPTR_TYPE_LOCAL => dynptr::LOCAL,
        DYNPTR_TYPE_RINGBUF => dynptr::RINGBUF,
        DYNPTR_TYPE_SKB => dynptr::SKB,
        DYNPTR_TYPE_XDP => dynptr::XDP,
        DYNPTR_TYPE_SKB_META => dynptr::SKB_META,
        DYNPTR_TYPE_FILE => dynptr::FILE,
        _ => dynptr::INVALID,
    }
}

/// `get_dynptr_type_flag`.
fn get_dynptr_type_flag(t: u32) -> u32 {
    match t {
        dynptr::LOCAL => DYNPTR_TYPE_LOCAL,
        dynptr::RINGBUF => DYNPTR_TYPE_RINGBUF,
        dynptr::SKB => DYNPTR_TYPE_SKB,
        dynptr::XDP => DYNPTR_TYPE_XDP,
        dynptr::SKB_META => DYNPTR_TYPE_SKB_META,
        dynptr::FILE => DYNPTR_TYPE_FILE,
        _ => 0,
    }
}

/// `dynptr_type_referenced`.
fn dynptr_type_referenced(t: u32) -> bool {
    t == dynptr::RINGBUF || t == dynptr::FILE
}

impl Env<'_, '_> {
    /// `stack_slot_obj_get_spi`: the first slot of an `nr_slots`-slot
    /// stack object; `Err(None)` is `-ERANGE` (not allocated yet).
    fn stack_slot_obj_get_spi(&mut self, reg: &RegState, obj_kind: &str, nr_slots: usize) -> Result<usize, Option<DoCheckError>> {
        if !tnum_is_const(reg.s.var_off) {
            self.verbose(&format!("{obj_kind} has to be at a constant offset\n"));
            return Err(Some(DoCheckError::Errno(EINVAL)));
        }
        let off = reg.s.var_off.value as i64;
        if off >= 0 || off % BPF_REG_SIZE as i64 != 0 {
            self.verbose(&format!("cannot pass in {obj_kind} at an offset={off}\n"));
            return Err(Some(DoCheckError::Errno(EINVAL)));
        }
        let spi = get_spi(off) as usize;
        if spi + 1 < nr_slots {
            self.verbose(&format!("cannot pass in {obj_kind} at an offset={off}\n"));
            return Err(Some(DoCheckError::Errno(EINVAL)));
        }
        let frame = reg.frameno().min(self.cur.curframe());
        if spi >= self.cur.frame[frame].stack.len() {
            return Err(None);
        }
        Ok(spi)
    }

    /// `check_kfunc_call`.
    pub(crate) fn check_kfunc_call(&mut self, insn: &Insn) -> VResult<Next> {
        if insn.imm == 0 {
            return Ok(Next::Fallthrough);
        }
        if insn.imm < 0 {
            self.verbose(&format!("invalid kernel function btf_id {}\n", insn.imm));
            return errno(EINVAL);
        }
        let insn_idx = self.insn_idx;
        let Some(proto) = kfunc_proto(self, insn.imm).filter(|_| insn.off == 0) else {
            let what = kfunc_name(self, insn.imm).unwrap_or("unknown kfunc");
            return Err(DoCheckError::Unsupported(format!("kfunc {what} is not modelled yet")));
        };
        let name = proto.name;
        if proto.set != KfuncSet::Common && self.input.prog_type == super::helpers::prog::EXT {
            return Err(DoCheckError::Unsupported("resolve_prog_type of an extension program's kfunc calls is not modelled".into()));
        }
        if let Some(what) = kfunc_hook_unknown(proto, self.input.prog_type) {
            return Err(DoCheckError::Unsupported(what));
        }
        if !btf_kfunc_is_allowed(proto, self.input.prog_type) || kfunc_set_filter_refuses(proto, self.input.prog_type, self.input.expected_attach_type) {
            self.verbose(&format!("calling kernel function {name} is not allowed\n"));
            super::diag::bpf_diag_policy(
                self,
                insn_idx,
                &format!("kfunc {name}"),
                "this program cannot call the kfunc",
                "Use a kfunc allowed for this program type and attach point, or change the program context.",
            );
            return errno(EACCES);
        }
        let mut meta = CallArgMeta::default();
        if proto.flags & kf::RELEASE != 0 {
            meta.release_regno = 1;
        }
        if let Some(a) = self.aux.get_mut(insn_idx) {
            a.is_iter_next = proto.flags & kf::ITER_NEXT != 0;
        }
        if is_res_spin_lock_acquire(name) {
            // the other outcome: the lock was not taken (a deadlock or a
            // timeout), an error in R0 and no lock held
            let qi = self.push_stack(insn_idx + 1, insn_idx, false)?;
            let mut r0 = self.unknown_reg();
            super::scalar::mark_reg_s32_range(&mut r0.s, -MAX_ERRNO, -1);
            let regs = &mut self.stack[qi].st.cur_mut().regs;
            for r in regs.iter_mut().take(super::calls::CALLER_SAVED_REGS) {
                *r = RegState::not_init();
            }
            regs[0] = r0;
        }
        if proto.flags & kf::PERFMON != 0 && !self.allow_ptr_leaks() {
            self.verbose(&format!("{name} is allowed only to CAP_PERFMON and CAP_SYS_ADMIN\n"));
            return errno(EPERM);
        }
        let sleepable = proto.flags & kf::SLEEPABLE != 0;
        if sleepable && !self.in_sleepable() {
            self.verbose(&format!("program must be sleepable to call sleepable kfunc {name}\n"));
            self.bpf_diag_ctx_forbidden(
                insn_idx,
                &format!("sleepable kfunc {name}"),
                "Mark the program sleepable if the program type allows it, or use a non-sleepable kfunc.",
            );
            return errno(EACCES);
        }
        if !self.in_sleepable_context()
            && let Some(a) = self.aux.get_mut(insn_idx)
        {
            a.non_sleepable = true;
        }
        let mut ret_btf: Option<u32> = None;
        self.check_kfunc_args(proto, &mut meta, &mut ret_btf)?;
        let obj_drop = matches!(name, "bpf_obj_drop" | "bpf_obj_drop_impl" | "bpf_percpu_obj_drop" | "bpf_percpu_obj_drop_impl");
        if obj_drop {
            let has_meta = self.local_type_has_struct_meta(meta.arg_btf_id)?;
            let pt = self.input.prog_type;
            let tracing = matches!(
                pt,
                super::helpers::prog::KPROBE
                    | super::helpers::prog::TRACEPOINT
                    | super::helpers::prog::PERF_EVENT
                    | super::helpers::prog::RAW_TRACEPOINT
                    | super::helpers::prog::RAW_TRACEPOINT_WRITABLE
            ) || (pt == super::helpers::prog::TRACING
                && self.input.expected_attach_type != crate::prog_type::bpf_attach_type::TRACE_ITER
                && !self.input.sleepable);
            if has_meta && tracing {
                return Err(DoCheckError::Unsupported(
                    "which fields btf_record_has_nmi_unsafe_fields counts (bpf_obj_drop of a type with a btf_struct_meta from a tracing program) is not in the source the model reads".into(),
                ));
            }
            if let Some(a) = self.aux.get_mut(insn_idx) {
                a.kptr_struct_meta = has_meta;
            }
        }
        if name == "__bpf_trap" {
            // what clang emits for a read of an uninitialized variable
            self.verbose("unexpected __bpf_trap() due to uninitialized variable?\n");
            return errno(EFAULT);
        }
        let cb_kind = match name {
            "bpf_wq_set_callback" => Some(super::calls::CallbackKind::Timer),
            "bpf_task_work_schedule_signal" | "bpf_task_work_schedule_resume" => Some(super::calls::CallbackKind::TaskWork),
            n if super::graph::is_bpf_rbtree_add_kfunc(n) => Some(super::calls::CallbackKind::RbtreeAdd),
            _ => None,
        };
        if let Some(kind) = cb_kind
            && let Err(e) = self.push_callback_call(insn, insn_idx, meta.subprogno, kind)
        {
            if matches!(e, DoCheckError::Errno(_)) {
                self.verbose(&format!("kfunc {name}#{} failed callback verification\n", insn.imm));
            }
            return Err(e);
        }
        match name {
            "bpf_rcu_read_lock" => {
                self.cur.active_rcu_locks += 1;
                let d = self.cur.active_rcu_locks;
                self.diag_record_context(insn_idx, CtxKind::Rcu, true, d);
            }
            "bpf_rcu_read_unlock" => {
                if self.cur.active_rcu_locks == 0 {
                    self.verbose(&format!("unmatched rcu read unlock (kernel function {name})\n"));
                    self.bpf_diag_ctx_underflow(
                        insn_idx,
                        name,
                        CtxKind::Rcu,
                        "Remove the extra bpf_rcu_read_unlock() call, or ensure this path first enters an RCU read lock region.",
                    );
                    return errno(EINVAL);
                }
                self.cur.active_rcu_locks -= 1;
                let d = self.cur.active_rcu_locks;
                self.diag_record_context(insn_idx, CtxKind::Rcu, false, d);
                if !self.in_rcu_cs() {
                    self.invalidate_rcu_protected_refs();
                }
            }
            "bpf_preempt_disable" => {
                self.cur.active_preempt_locks += 1;
                let d = self.cur.active_preempt_locks;
                self.diag_record_context(insn_idx, CtxKind::Preempt, true, d);
            }
            "bpf_preempt_enable" => {
                if self.cur.active_preempt_locks == 0 {
                    self.verbose(&format!("unmatched attempt to enable preemption (kernel function {name})\n"));
                    self.bpf_diag_ctx_underflow(
                        insn_idx,
                        name,
                        CtxKind::Preempt,
                        "Remove the extra bpf_preempt_enable() call, or ensure this path first disables preemption.",
                    );
                    return errno(EINVAL);
                }
                self.cur.active_preempt_locks -= 1;
                let d = self.cur.active_preempt_locks;
                self.diag_record_context(insn_idx, CtxKind::Preempt, false, d);
                if !self.in_rcu_cs() {
                    self.invalidate_rcu_protected_refs();
                }
            }
            _ => {}
        }
        if sleepable && !self.in_sleepable_context() {
            let s = format!("kernel func {name} is sleepable within {}\n", self.non_sleepable_context_description());
            self.verbose(&s);
            self.bpf_diag_ctx_forbidden(
                insn_idx,
                &format!("sleepable kfunc {name}"),
                "Move the kfunc call outside the critical section, or use a non-sleepable kfunc.",
            );
            return errno(EACCES);
        }
        if self.in_rbtree_lock_required_cb() && matches!(name, "bpf_rcu_read_lock" | "bpf_rcu_read_unlock") {
            self.verbose("Calling bpf_rcu_read_{lock,unlock} in unnecessary rbtree callback\n");
            return errno(EACCES);
        }
        if proto.flags & kf::RCU_PROTECTED != 0 && !self.in_rcu_cs() {
            self.verbose(&format!("kernel func {name} requires RCU critical section protection\n"));
            self.bpf_diag_ctx_required(
                insn_idx,
                name,
                CtxKind::Rcu,
                "Call this kfunc between bpf_rcu_read_lock() and bpf_rcu_read_unlock(), keeping all exit paths balanced.",
            );
            return errno(EACCES);
        }
        if meta.release_regno != 0 {
            let reg = self.regs()[meta.release_regno];
            self.release_reg(&reg, false, meta.dynptr_id != 0)?;
        }
        if super::graph::is_bpf_list_push_kfunc(name) || super::graph::is_bpf_rbtree_add_kfunc(name) {
            let r2 = self.regs()[2];
            let has_meta = self.local_type_has_struct_meta(meta.arg_btf_id)?;
            if let Some(a) = self.aux.get_mut(insn_idx) {
                a.insert_off = r2.s.var_off.value;
                a.kptr_struct_meta = has_meta;
            }
            self.ref_convert_owning_non_owning(r2.id)?;
        }
        if name == "bpf_throw" {
            // both JITs the model has support exceptions (bpf_do_misc_fixups
            // finds `seen_exception` from the verified calls); with the
            // default callback the cookie is the program's return value
            if self.exception_callback_subprog == 0 {
                self.check_return_code_of(1, "R1")?;
            }
        }
        self.bpf_diag_record_caller_saved();
        let t0 = self.diag_reg_target(self.cur.curframe(), 0);
        self.diag_mod_begin(t0, None, super::diag::ModReason::Write);
        for i in 0..super::calls::CALLER_SAVED_REGS {
            self.regs_mut()[i] = RegState::not_init();
        }
        let cap = self.bpf_capable();
        match proto.ret {
            KfRet::Void => {}
            // a lock taken: 0
            KfRet::Scalar if is_res_spin_lock_acquire(name) => self.regs_mut()[0] = self.const_zero_reg(),
            KfRet::Scalar => self.regs_mut()[0] = RegState::unknown(cap),
            KfRet::Special => {
                let r0 = match name {
                    "bpf_cast_to_kern_ctx" => RegState::ptr(PTR_TO_BTF_ID | PTR_TRUSTED, ret_btf.unwrap_or(0) as i64),
                    "bpf_rdonly_cast" => {
                        let id = meta.arg_constant.unwrap_or(0);
                        if id == 0 {
                            // void: untrusted read-only memory of size 0
                            RegState::ptr(PTR_TO_MEM | MEM_RDONLY | PTR_UNTRUSTED, 0)
                        } else if id as usize > BTF_TYPES.len() {
                            // a vmlinux type id (btf_type_by_id of the kernel's BTF)
                            let kind = u32::try_from(id).ok().and_then(|i| self.input.vmlinux_btf?.type_by_id(i)).map(|t| (t.name.clone(), t.kind.clone()));
                            match kind {
                                Some((tname, crate::vmlinux_btf::Kind::Struct { .. })) => {
                                    RegState::ptr(PTR_TO_BTF_ID | PTR_UNTRUSTED, btf_type_id_interned(&tname))
                                }
                                Some(_) => {
                                    self.verbose("kfunc bpf_rdonly_cast type ID argument must be of a struct or void\n");
                                    return errno(EINVAL);
                                }
                                None => return Err(DoCheckError::Unsupported(format!("type id {id} of bpf_rdonly_cast is not in the recorded vmlinux BTF"))),
                            }
                        } else {
                            RegState::ptr(PTR_TO_BTF_ID | PTR_UNTRUSTED, id as i64)
                        }
                    }
                    "bpf_dynptr_slice" | "bpf_dynptr_slice_rdwr" => {
                        let Some(size) = meta.arg_constant else {
                            self.verbose("verifier bug: bpf_dynptr_slice(_rdwr) no constant size\n");
                            return errno(EFAULT);
                        };
                        let mut typ = PTR_TO_MEM | get_dynptr_type_flag(meta.dynptr_type);
                        if name == "bpf_dynptr_slice" {
                            typ |= MEM_RDONLY;
                        } else if !super::ctx::may_access_direct_pkt_data(self.input.prog_type, true) {
                            self.verbose("the prog does not allow writes to packet data\n");
                            return errno(EINVAL);
                        }
                        if meta.dynptr_id == 0 {
                            self.verbose("verifier bug: no dynptr id\n");
                            return errno(EFAULT);
                        }
                        let mut r0 = RegState::ptr(typ, size as i64);
                        r0.parent_id = meta.dynptr_id;
                        r0
                    }
                    "bpf_obj_new" | "bpf_obj_new_impl" | "bpf_percpu_obj_new" | "bpf_percpu_obj_new_impl" => {
                        self.check_obj_new(name, meta.arg_constant.unwrap_or(0), insn_idx)?
                    }
                    "bpf_refcount_acquire" | "bpf_refcount_acquire_impl" => {
                        let has_meta = self.local_type_has_struct_meta(meta.arg_btf_id)?;
                        if let Some(a) = self.aux.get_mut(insn_idx) {
                            a.kptr_struct_meta = has_meta;
                        }
                        RegState::ptr(PTR_TO_BTF_ID | MEM_ALLOC, meta.arg_btf_id)
                    }
                    _ => return errno(EFAULT),
                };
                self.regs_mut()[0] = r0;
            }
            KfRet::BtfId(t) => {
                let id = btf_type_id_interned(t);
                // an iterator its _new made inside an RCU read-side section
                // hands out RCU pointers (get_iter_from_state)
                let iter_rcu = proto.flags & kf::ITER_NEXT != 0
                    && self
                        .cur
                        .frame
                        .get(meta.iter_frameno.min(self.cur.curframe()))
                        .and_then(|f| f.stack.get(meta.iter_spi))
                        .is_some_and(|s| s.spilled_ptr.typ & MEM_RCU != 0);
                let typ = if name == "bpf_get_kmem_cache" {
                    PTR_TO_BTF_ID | PTR_UNTRUSTED
                } else if proto.flags & kf::RCU_PROTECTED != 0 || iter_rcu {
                    PTR_TO_BTF_ID | MEM_RCU
                } else {
                    PTR_TO_BTF_ID | PTR_TRUSTED
                };
                self.regs_mut()[0] = RegState::ptr(typ, id);
            }
            KfRet::GraphNode => {
                let Some(field) = meta.graph_root.clone() else { return errno(EFAULT) };
                self.regs_mut()[0] = self.graph_node_reg(&field);
            }
            KfRet::Mem(size) => {
                let mut r0 = RegState::ptr(PTR_TO_MEM | MEM_RDONLY, size as i64);
                if meta.ref_obj_id != 0 {
                    self.validate_ref_obj(&meta)?;
                    r0.parent_id = meta.ref_obj_id;
                }
                self.regs_mut()[0] = r0;
            }
        }
        if matches!(proto.ret, KfRet::Mem(_) | KfRet::Special | KfRet::BtfId(_) | KfRet::GraphNode) {
            // is_kfunc_ret_null: acquiring a reference to an owned object
            // cannot fail
            let refcount_of_owned = name.starts_with("bpf_refcount_acquire") && meta.arg_owning_ref;
            if proto.flags & kf::RET_NULL != 0 && !refcount_of_owned {
                self.id_gen += 1;
                let id = self.id_gen;
                let r0 = &mut self.regs_mut()[0];
                r0.typ |= PTR_MAYBE_NULL;
                r0.id = id;
            }
            if proto.flags & kf::ACQUIRE != 0 {
                let id = self.acquire_reference(insn_idx, 0);
                self.regs_mut()[0].id = id;
            } else if proto.ret == KfRet::GraphNode {
                let mut r0 = self.regs()[0];
                self.ref_set_non_owning(&mut r0)?;
                self.regs_mut()[0] = r0;
            }
        }
        if bpf_is_kfunc_pkt_changing(name) {
            self.clear_all_pkt_pointers();
        }
        for i in 0..super::calls::CALLER_SAVED_REGS {
            self.mark_reg_scratched(i);
        }
        // R0 is recorded before the iterator's other path is queued
        self.diag_mod_end();
        if proto.flags & kf::ITER_NEXT != 0 {
            self.process_iter_next_call(insn_idx, &meta)?;
        }
        if name == "bpf_throw" {
            return self.process_bpf_exit_full(true);
        }
        Ok(Next::Fallthrough)
    }

    /// `check_kfunc_args`.
    fn check_kfunc_args(&mut self, proto: &KfuncProto, meta: &mut CallArgMeta, ret_btf: &mut Option<u32>) -> VResult<()> {
        for (i, &param) in proto.args.iter().enumerate() {
            let regno = i + 1;
            // is_kfunc_arg_implicit
            if matches!(param, KfArg::Implicit(_)) {
                continue;
            }
            self.check_reg_src(regno)?;
            let reg = self.regs()[regno];
            // get_kfunc_arg_type: a uapi ctx struct is the ctx or the kernel
            // struct it projects
            let kind = match param {
                KfArg::CtxProjection(uapi) if uapi_ctx_type(self.input.prog_type) == Some(uapi) => KfArg::Ctx,
                KfArg::CtxProjection(uapi) => match kern_struct_of_projection(uapi) {
                    Some(kern) => KfArg::BtfId(kern),
                    None => return errno(EFAULT),
                },
                KfArg::NullableBtfId(t) => KfArg::BtfId(t),
                KfArg::NullableDynptr => KfArg::Dynptr,
                k => k,
            };
            // is_kfunc_arg_ignore: neither checked nor counted as a
            // reference
            if matches!(kind, KfArg::Ignore | KfArg::IgnoreSized(_)) {
                continue;
            }
            let is_ptr_arg = matches!(
                param,
                KfArg::Ctx
                    | KfArg::Iter(_)
                    | KfArg::IrqFlag
                    | KfArg::Map
                    | KfArg::BtfId(_)
                    | KfArg::NullableBtfId(_)
                    | KfArg::Dynptr
                    | KfArg::NullableDynptr
                    | KfArg::Timer
                    | KfArg::FixedMem(_)
                    | KfArg::CtxProjection(_)
                    | KfArg::DynptrUninit
                    | KfArg::Mem { .. }
                    | KfArg::ConstStr
                    | KfArg::ConstMap
                    | KfArg::Wq
                    | KfArg::TaskWork
                    | KfArg::Callback
                    | KfArg::ResSpinLock
                    | KfArg::AllocBtfId
                    | KfArg::RefcountedKptr
                    | KfArg::ListHead
                    | KfArg::ListNode { .. }
                    | KfArg::RbRoot
                    | KfArg::RbNode
            );
            let nullable = matches!(param, KfArg::Mem { nullable: true } | KfArg::NullableBtfId(_) | KfArg::NullableDynptr);
            let insn_idx = self.insn_idx;
            // bpf_diag_fmt_btf_type of the parameter: btf_show_name's
            // spelling, qualifiers dropped, the int's BTF name
            let btf_type = match param {
                KfArg::Iter(t) | KfArg::BtfId(t) | KfArg::NullableBtfId(t) | KfArg::CtxProjection(t) => format!("(struct {t} *)"),
                KfArg::IrqFlag => "(long unsigned int *)".to_string(),
                KfArg::Dynptr | KfArg::DynptrUninit | KfArg::NullableDynptr => "(struct bpf_dynptr *)".to_string(),
                KfArg::Timer => "(struct bpf_timer *)".to_string(),
                KfArg::ConstStr => "(char *)".to_string(),
                KfArg::Wq => "(struct bpf_wq *)".to_string(),
                KfArg::TaskWork => "(struct bpf_task_work *)".to_string(),
                KfArg::ResSpinLock => "(struct bpf_res_spin_lock *)".to_string(),
                KfArg::ListHead => "(struct bpf_list_head *)".to_string(),
                KfArg::ListNode { .. } => "(struct bpf_list_node *)".to_string(),
                KfArg::RbRoot => "(struct bpf_rb_root *)".to_string(),
                KfArg::RbNode => "(struct bpf_rb_node *)".to_string(),
                _ => "(void *)".to_string(),
            };
            if is_ptr_arg && !nullable && (reg.is_null() || type_may_be_null(reg.typ)) {
                self.verbose(&format!("Possibly NULL pointer passed to trusted R{regno}\n"));
                let reason = format!("the pointer may be NULL, but this kfunc requires a non-NULL value of type {btf_type}");
                self.bpf_diag_call_arg(insn_idx, regno, proto.name, &reason, "Add a NULL check and call the kfunc only on the non-NULL path.");
                return errno(EACCES);
            }
            if regno == meta.release_regno && param != KfArg::Dynptr && !self.reg_is_referenced(&reg) && !reg.is_null() {
                let s = format!("release kfunc {} expects referenced PTR_TO_BTF_ID passed to R{regno}\n", proto.name);
                self.verbose(&s);
                // the struct pointed to: "(struct file)"
                let target = btf_type.replace(" *)", ")");
                let reason = format!("release kfuncs require a resource-owning value of type {target} returned by a matching acquire kfunc");
                self.bpf_diag_call_arg(
                    insn_idx,
                    regno,
                    proto.name,
                    &reason,
                    "Pass the resource-owning pointer returned by the matching acquire kfunc, and avoid calling the release kfunc after ownership has already been transferred or released.",
                );
                return errno(EINVAL);
            }
            if self.reg_is_referenced(&reg) {
                meta.ref_obj_id = reg.id;
                meta.ref_obj_parent = reg.parent_id;
                meta.ref_obj_cnt += 1;
            }
            if nullable && reg.is_null() {
                self.mark_chain_precision(regno)?;
                continue;
            }
            let mut arg_type = match kind {
                KfArg::Ctx => ARG_PTR_TO_CTX,
                KfArg::Dynptr | KfArg::DynptrUninit => ARG_PTR_TO_DYNPTR,
                _ => ARG_DONTCARE,
            };
            if regno == meta.release_regno {
                arg_type |= super::helper_protos::OBJ_RELEASE;
            }
            self.check_func_arg_reg_off_ext(&reg, regno, arg_type, kind != KfArg::RefcountedKptr)?;
            match kind {
                KfArg::Scalar | KfArg::Const if reg.typ != SCALAR_VALUE => {
                    self.verbose(&format!("R{regno} is not a scalar\n"));
                    let reason = format!("the kfunc expects an integer scalar, but R{regno} is {}", super::diag::bpf_diag_reg_type_plain(reg.typ));
                    self.bpf_diag_call_arg(
                        insn_idx,
                        regno,
                        proto.name,
                        &reason,
                        "Pass an integer scalar value for this argument, not a pointer or resource object.",
                    );
                    return errno(EINVAL);
                }
                KfArg::Scalar => {}
                KfArg::Const | KfArg::ConstMemSize => {
                    if meta.arg_constant.is_some() {
                        self.verbose("verifier bug: only one constant argument permitted\n");
                        return errno(EFAULT);
                    }
                    if !tnum_is_const(reg.s.var_off) {
                        self.verbose(&format!("R{regno} must be a known constant\n"));
                        let what = if kind == KfArg::ConstMemSize { "memory size" } else { "scalar argument" };
                        let reason = format!("the kfunc requires this {what} to be a verifier-known constant, but R{regno} is variable on this path");
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass a compile-time constant or a value the verifier can prove is constant at this call.",
                        );
                        return errno(EINVAL);
                    }
                    self.mark_chain_precision(regno)?;
                    meta.arg_constant = Some(reg.s.var_off.value);
                    if kind == KfArg::ConstMemSize {
                        self.check_kfunc_mem_size_arg(proto, &reg, regno, meta)?;
                    }
                }
                KfArg::MemSize => self.check_kfunc_mem_size_arg(proto, &reg, regno, meta)?,
                // the size argument after it checks the memory
                KfArg::Mem { .. } => {}
                KfArg::ConstStr => {
                    if reg.typ != PTR_TO_MAP_VALUE {
                        self.verbose(&format!("{} doesn't point to a const string\n", reg_arg_name(regno)));
                        let reason = format!(
                            "the kfunc expects a pointer to a constant string stored in verifier-known memory, but {} is {}",
                            reg_arg_name(regno),
                            super::diag::bpf_diag_reg_type_plain(reg.typ)
                        );
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass a constant string pointer that the verifier recognizes, such as a string stored in a read-only map value.",
                        );
                        return errno(EINVAL);
                    }
                    self.check_arg_const_str(&reg, regno)?;
                }
                // bpf_dynptr_clone: the clone has its parent's type
                KfArg::DynptrUninit if proto.name == "bpf_dynptr_clone" => {
                    if meta.dynptr_type == dynptr::INVALID {
                        self.verbose("verifier bug: no dynptr type for parent of clone\n");
                        return errno(EFAULT);
                    }
                    let t = get_dynptr_type_flag(meta.dynptr_type);
                    self.process_dynptr_func(&reg, regno, proto.name, ARG_PTR_TO_DYNPTR | MEM_UNINIT | t, meta, true)?
                }
                KfArg::DynptrUninit => {
                    let Some(t) = kfunc_uninit_dynptr_type(proto.name) else {
                        return Err(DoCheckError::Unsupported(format!("the dynptr type {} constructs is not modelled", proto.name)));
                    };
                    self.process_dynptr_func(&reg, regno, proto.name, ARG_PTR_TO_DYNPTR | MEM_UNINIT | t, meta, true)?
                }
                KfArg::CtxProjection(_) => return errno(EFAULT),
                KfArg::Ctx => {
                    if reg.typ != PTR_TO_CTX {
                        let s = format!("R{regno} expected pointer to ctx, but got {}\n", reg_type_str(reg.typ));
                        self.verbose(&s);
                        let reason = format!("the kfunc expects a context pointer, but R{regno} is {}", super::diag::bpf_diag_reg_type_plain(reg.typ));
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass the original program context pointer or preserve it before modifying registers.",
                        );
                        return errno(EINVAL);
                    }
                    if proto.name == "bpf_cast_to_kern_ctx" {
                        let Some(t) = kern_ctx_type(self.input.prog_type).and_then(btf_type_by_name) else {
                            return Err(DoCheckError::Unsupported("the kernel ctx type of this program type is not modelled".into()));
                        };
                        *ret_btf = Some(t);
                    }
                }
                KfArg::Iter(iter_type) => {
                    if proto.name == "bpf_iter_css_task_new" && !self.check_css_task_iter_allowlist() {
                        self.verbose("css_task_iter is only allowed in bpf_lsm, bpf_iter and sleepable progs\n");
                        return errno(EINVAL);
                    }
                    self.process_iter_arg(&reg, regno, proto, iter_type, meta)?
                }
                KfArg::IrqFlag => {
                    if reg.typ != PTR_TO_STACK {
                        self.verbose(&format!("{} doesn't point to an irq flag on stack\n", reg_arg_name(regno)));
                        let reason = format!(
                            "the kfunc expects a stack pointer to an IRQ flag slot, but {} is {}",
                            reg_arg_name(regno),
                            super::diag::bpf_diag_reg_type_plain(reg.typ)
                        );
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass the same stack slot used by bpf_local_irq_save() or bpf_res_spin_lock_irqsave().",
                        );
                        return errno(EINVAL);
                    }
                    self.process_irq_flag(&reg, regno, proto.name)?;
                }
                // is_kfunc_arg_map: a KF_ARG_PTR_TO_BTF_ID to struct bpf_map
                // (reg2btf_ids[CONST_PTR_TO_MAP])
                KfArg::Map if base_type(reg.typ) == PTR_TO_BTF_ID => self.process_kf_arg_btf_id(&reg, regno, proto, "bpf_map", meta)?,
                KfArg::Map => {
                    if reg.typ != CONST_PTR_TO_MAP {
                        return Err(DoCheckError::Unsupported(format!("a {} passed as a kfunc's map pointer", reg_type_str(reg.typ))));
                    }
                }
                KfArg::BtfId(want) => self.process_kf_arg_btf_id(&reg, regno, proto, want, meta)?,
                KfArg::Dynptr => {
                    // the dynptr a release kfunc of the special list takes
                    let t = if proto.name == "bpf_dynptr_file_discard" { DYNPTR_TYPE_FILE | super::helper_protos::OBJ_RELEASE } else { 0 };
                    self.process_dynptr_func(&reg, regno, proto.name, ARG_PTR_TO_DYNPTR | t, meta, true)?
                }
                KfArg::ConstMap => {
                    if base_type(reg.typ) != CONST_PTR_TO_MAP || type_may_be_null(reg.typ) {
                        self.verbose(&format!("pointer in {} isn't map pointer\n", reg_arg_name(regno)));
                        return errno(EINVAL);
                    }
                    self.process_map_ptr_arg(&reg, regno, meta)?;
                }
                KfArg::Timer => {
                    if reg.typ != PTR_TO_MAP_VALUE {
                        self.verbose(&format!("{} doesn't point to a map value\n", reg_arg_name(regno)));
                        return errno(EINVAL);
                    }
                    // process_timer_func (the images are not PREEMPT_RT)
                    self.check_map_field_pointer(&reg, regno, MapField::Timer, meta)?;
                }
                KfArg::FixedMem(size) => self.check_kfunc_fixed_mem_arg(proto, &reg, regno, size, meta)?,
                KfArg::Wq | KfArg::TaskWork => {
                    if reg.typ != PTR_TO_MAP_VALUE {
                        self.verbose(&format!("{} doesn't point to a map value\n", reg_arg_name(regno)));
                        return errno(EINVAL);
                    }
                    let field = if kind == KfArg::Wq { MapField::Workqueue } else { MapField::TaskWork };
                    self.check_map_field_pointer(&reg, regno, field, meta)?;
                }
                KfArg::Callback => {
                    if reg.typ != PTR_TO_FUNC {
                        self.verbose(&format!("{} expected pointer to func\n", reg_arg_name(regno)));
                        return errno(EINVAL);
                    }
                    meta.subprogno = reg.subprogno();
                }
                KfArg::ResSpinLock => {
                    if self.in_rbtree_lock_required_cb() {
                        self.verbose("can't res_spin_{lock,unlock} in rbtree cb\n");
                        return errno(EACCES);
                    }
                    if reg.typ != PTR_TO_MAP_VALUE && reg.typ != PTR_TO_BTF_ID | MEM_ALLOC {
                        self.verbose(&format!("{} doesn't point to map value or allocated object\n", reg_arg_name(regno)));
                        return errno(EINVAL);
                    }
                    use super::helper_call::{PROCESS_LOCK_IRQ, PROCESS_RES_LOCK, PROCESS_SPIN_LOCK};
                    let mut flags = PROCESS_RES_LOCK;
                    if matches!(proto.name, "bpf_res_spin_lock" | "bpf_res_spin_lock_irqsave") {
                        flags |= PROCESS_SPIN_LOCK;
                    }
                    if matches!(proto.name, "bpf_res_spin_lock_irqsave" | "bpf_res_spin_unlock_irqrestore") {
                        flags |= PROCESS_LOCK_IRQ;
                    }
                    self.process_spin_lock(&reg, regno, flags)?;
                }
                KfArg::AllocBtfId => self.check_kfunc_alloc_obj_arg(proto, &reg, regno, meta)?,
                KfArg::RefcountedKptr => self.check_kfunc_refcounted_kptr_arg(proto, &reg, regno, meta)?,
                KfArg::ListHead => self.check_kfunc_graph_root_arg(&reg, regno, crate::btf::BPF_LIST_HEAD, meta)?,
                KfArg::RbRoot => self.check_kfunc_graph_root_arg(&reg, regno, crate::btf::BPF_RB_ROOT, meta)?,
                KfArg::ListNode { nonown_allowed } => self.check_kfunc_list_node_arg(&reg, regno, nonown_allowed, meta)?,
                KfArg::RbNode => self.check_kfunc_rb_node_arg(&reg, regno, proto.name, meta)?,
                KfArg::Ignore | KfArg::IgnoreSized(_) | KfArg::NullableBtfId(_) | KfArg::NullableDynptr | KfArg::Implicit(_) => {}
            }
        }
        Ok(())
    }

    /// The `bpf_obj_new`/`bpf_percpu_obj_new` case of
    /// `check_special_kfunc`: R0 points to an object of struct
    /// `local_type_id` of the program's BTF; the fixups get its size.
    fn check_obj_new(&mut self, name: &str, local_type_id: u64, insn_idx: usize) -> VResult<RegState> {
        let percpu = name.starts_with("bpf_percpu_obj_new");
        if local_type_id as u32 as u64 != local_type_id {
            self.verbose("local type ID argument must be in range [0, U32_MAX]\n");
            return errno(EINVAL);
        }
        let Some(btf) = self.input.prog_btf else {
            self.verbose("bpf_obj_new/bpf_percpu_obj_new requires prog BTF\n");
            return errno(EINVAL);
        };
        let id = local_type_id as u32;
        let Some(t) = btf.type_by_id(id).filter(|t| t.kind == crate::btf::BTF_KIND_STRUCT).copied() else {
            self.verbose("bpf_obj_new/bpf_percpu_obj_new type ID argument must be of a struct\n");
            return errno(EINVAL);
        };
        if percpu && t.size_or_type > BPF_GLOBAL_PERCPU_MA_MAX_SIZE {
            self.verbose(&format!("bpf_percpu_obj_new type size ({}) is greater than {BPF_GLOBAL_PERCPU_MA_MAX_SIZE}\n", t.size_or_type as i32));
            return errno(EINVAL);
        }
        let struct_meta = match btf.btf_find_struct_meta(id) {
            Ok(m) => m,
            // btf_parse_struct_metas fails the program BTF's load
            Err(_) => return Err(DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())),
        };
        if percpu {
            match local_btf_type_is_scalar_struct(btf, id, 0) {
                Ok(true) => {}
                Ok(false) => {
                    self.verbose("bpf_percpu_obj_new type ID argument must be of a struct of scalars\n");
                    return errno(EINVAL);
                }
                Err(()) => {
                    self.verbose("max struct nesting depth exceeded\n");
                    self.verbose("bpf_percpu_obj_new type ID argument must be of a struct of scalars\n");
                    return errno(EINVAL);
                }
            }
            if struct_meta.is_some() {
                self.verbose("bpf_percpu_obj_new type ID argument must not contain special fields\n");
                return errno(EINVAL);
            }
        }
        if let Some(a) = self.aux.get_mut(insn_idx) {
            a.obj_new_size = t.size_or_type;
            a.kptr_struct_meta = struct_meta.is_some();
        }
        let mut typ = PTR_TO_BTF_ID | MEM_ALLOC;
        if percpu {
            typ |= MEM_PERCPU;
        }
        Ok(RegState::ptr(typ, btf_local_type_id(id, btf.type_name(id))))
    }

    /// The `KF_ARG_PTR_TO_ALLOC_BTF_ID` case of `check_kfunc_args`: an
    /// object of the program's own type, handed to the drop of its kind
    /// while still owned.
    fn check_kfunc_alloc_obj_arg(&mut self, proto: &KfuncProto, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        let insn_idx = self.insn_idx;
        let percpu_drop = proto.name.starts_with("bpf_percpu_obj_drop");
        if reg.typ == PTR_TO_BTF_ID | MEM_ALLOC {
            if percpu_drop {
                self.verbose(&format!("{} expected for bpf_obj_drop()\n", reg_arg_name(regno)));
                return errno(EINVAL);
            }
        } else if reg.typ == PTR_TO_BTF_ID | MEM_ALLOC | MEM_PERCPU {
            if !percpu_drop {
                self.verbose(&format!("{} expected for bpf_percpu_obj_drop()\n", reg_arg_name(regno)));
                return errno(EINVAL);
            }
        } else {
            self.verbose(&format!("{} expected pointer to allocated object\n", reg_arg_name(regno)));
            let reason =
                format!("the kfunc expects an allocated object pointer, but {} is {}", reg_arg_name(regno), super::diag::bpf_diag_reg_type_plain(reg.typ));
            self.bpf_diag_call_arg(insn_idx, regno, proto.name, &reason, "Pass a pointer returned by the matching BPF object allocation path.");
            return errno(EINVAL);
        }
        if !self.reg_is_referenced(reg) {
            self.verbose("allocated object must be referenced\n");
            let reason = format!(
                "the allocated object pointer in {} must still carry verifier-tracked ownership, but this pointer no longer owns a live resource",
                reg_arg_name(regno)
            );
            self.bpf_diag_call_arg(insn_idx, regno, proto.name, &reason, "Pass the owned object pointer before it is released or transferred.");
            return errno(EINVAL);
        }
        meta.arg_btf_id = reg.aux;
        Ok(())
    }

    /// The `KF_ARG_PTR_TO_REFCOUNTED_KPTR` case of `check_kfunc_args`.
    fn check_kfunc_refcounted_kptr_arg(&mut self, proto: &KfuncProto, reg: &RegState, regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        if !super::graph::type_is_ptr_alloc_obj(reg.typ) {
            self.verbose(&format!("{} is neither owning or non-owning ref\n", reg_arg_name(regno)));
            let reason = format!(
                "the kfunc expects a pointer to a BPF-managed refcounted object, but {} is {}",
                reg_arg_name(regno),
                super::diag::bpf_diag_reg_type_plain(reg.typ)
            );
            let insn_idx = self.insn_idx;
            self.bpf_diag_call_arg(
                insn_idx,
                regno,
                proto.name,
                &reason,
                "Pass an owning or non-owning pointer to a BPF-managed object containing a bpf_refcount field.",
            );
            return errno(EINVAL);
        }
        if reg.typ & NON_OWN_REF == 0 && self.reg_is_referenced(reg) {
            meta.arg_owning_ref = true;
        }
        // reg_btf_record of an allocated object: its type's meta
        let rec = match (btf_local_type(reg.aux), self.input.prog_btf) {
            (Some(id), Some(btf)) => match btf.btf_find_struct_meta(id) {
                Ok(r) => r,
                Err(_) => return Err(DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())),
            },
            _ => None,
        };
        let Some(rec) = rec else {
            self.verbose("verifier bug: Couldn't find btf_record\n");
            return errno(EFAULT);
        };
        if rec.refcount_off.is_none() {
            self.verbose(&format!("{} doesn't point to a type with bpf_refcount field\n", reg_arg_name(regno)));
            return errno(EINVAL);
        }
        meta.arg_btf_id = reg.aux;
        Ok(())
    }

    /// `btf_find_struct_meta` of the local type behind a model id: whether
    /// the type has a meta.
    fn local_type_has_struct_meta(&self, id: i64) -> VResult<bool> {
        let (Some(id), Some(btf)) = (btf_local_type(id), self.input.prog_btf) else { return Ok(false) };
        match btf.btf_find_struct_meta(id) {
            Ok(m) => Ok(m.is_some()),
            Err(_) => Err(DoCheckError::Unsupported("a program BTF whose struct metas do not parse (refused at BTF load)".into())),
        }
    }

    /// `check_css_task_iter_allowlist`: LSM and iterator programs, and any
    /// sleepable program, may walk a css's tasks (others could deadlock on
    /// `css_set_lock`).
    fn check_css_task_iter_allowlist(&self) -> bool {
        use super::helpers::prog::{LSM, TRACING};
        match self.input.prog_type {
            LSM => true,
            TRACING if self.input.expected_attach_type == crate::prog_type::bpf_attach_type::TRACE_ITER => true,
            _ => self.in_sleepable(),
        }
    }

    /// The `KF_ARG_PTR_TO_MEM | MEM_FIXED_SIZE` case of `check_kfunc_args`:
    /// `size` bytes the kfunc reads and writes (`check_mem_reg`); NULL is
    /// not checked.
    fn check_kfunc_fixed_mem_arg(&mut self, proto: &KfuncProto, reg: &RegState, regno: usize, size: u32, meta: &mut CallArgMeta) -> VResult<()> {
        let size = size as i64;
        let checked = self.check_mem_reg(reg, regno, size, false, Some(&mut *meta)).and_then(|_| self.check_mem_reg(reg, regno, size, true, Some(&mut *meta)));
        if let Err(e) = checked {
            let plain = super::diag::bpf_diag_reg_type_plain(reg.typ);
            let insn_idx = self.insn_idx;
            if reg.typ == SCALAR_VALUE {
                let reason = format!("the kfunc expects {size} bytes of memory for (int), but it is {plain} and not verifier-known memory");
                self.bpf_diag_call_arg(
                    insn_idx,
                    regno,
                    proto.name,
                    &reason,
                    "Pass stack, map, context, or other verifier-known memory of the expected type and size, not an integer cast to a pointer.",
                );
            } else {
                let reason = format!(
                    "the kfunc expects {size} bytes of memory for (int), but the verifier cannot prove that {plain} provides a readable and writable range of that size"
                );
                self.bpf_diag_call_arg(
                    insn_idx,
                    regno,
                    proto.name,
                    &reason,
                    "Pass memory with at least the required number of accessible bytes and suitable read and write access.",
                );
            }
            return Err(e);
        }
        Ok(())
    }

    /// The `KF_ARG_MEM_SIZE` case of `check_kfunc_args`: the memory
    /// argument before a size argument, read and written
    /// (`check_mem_size_reg` with `BPF_READ | BPF_WRITE`, zero sizes
    /// allowed); a NULL buffer is not checked.
    fn check_kfunc_mem_size_arg(&mut self, proto: &KfuncProto, size: &RegState, size_regno: usize, meta: &mut CallArgMeta) -> VResult<()> {
        if size.typ != SCALAR_VALUE {
            self.verbose(&format!("{} is not a scalar\n", reg_arg_name(size_regno)));
            let reason =
                format!("the kfunc expects a scalar memory size, but {} is {}", reg_arg_name(size_regno), super::diag::bpf_diag_reg_type_plain(size.typ));
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(idx, size_regno, proto.name, &reason, "Pass an integer scalar length for this memory argument.");
            return errno(EINVAL);
        }
        let buf_regno = size_regno - 1;
        let buf = self.regs()[buf_regno];
        if buf.is_null() {
            return Ok(());
        }
        meta.msize_max_value = size.s.umax();
        // check_mem_size_reg, with its `enum bpf_mem_size_failure`: whether
        // the size or the memory was wrong
        let (checked, size_failed) = if size.s.smin() < 0 {
            self.verbose(&format!("{} min value is negative, either use unsigned or 'var &= const'\n", reg_arg_name(size_regno)));
            (errno(EACCES), true)
        } else if size.s.umax() >= BPF_MAX_VAR_SIZ {
            self.verbose(&format!("{} unbounded memory access, use 'var &= const' or 'if (var < const)'\n", reg_arg_name(size_regno)));
            (errno(EACCES), true)
        } else {
            let umax = size.s.umax() as i64;
            let mem = self
                .check_helper_mem_access(&buf, buf_regno, umax, false, true, None)
                .and_then(|_| self.check_helper_mem_access(&buf, buf_regno, umax, true, true, None));
            (mem.and_then(|_| self.mark_chain_precision(size_regno)), false)
        };
        if let Err(e) = checked {
            if matches!(e, DoCheckError::Errno(_)) {
                let (buf_arg, size_arg) = (reg_arg_name(buf_regno), reg_arg_name(size_regno));
                self.verbose(&format!("{buf_arg} and "));
                self.verbose(&format!("{size_arg} memory, len pair leads to invalid memory access\n"));
                let idx = self.insn_idx;
                if !size_failed {
                    let reason = format!(
                        "it is the memory pointer in a memory/length pair with {size_arg}, but {buf_arg} does not describe verifier-readable memory for the requested length"
                    );
                    self.bpf_diag_call_arg(
                        idx,
                        buf_regno,
                        proto.name,
                        &reason,
                        "Pass a stack, map, context, or other verifier-known memory pointer, and keep the paired length within that object.",
                    );
                } else {
                    let reason = if size.s.smin() < 0 {
                        format!("the memory size in {size_arg} may be negative because its signed minimum is {}", size.s.smin())
                    } else {
                        format!(
                            "the memory size in {size_arg} may reach {} bytes, but variable memory accesses must stay below {BPF_MAX_VAR_SIZ} bytes",
                            size.s.umax()
                        )
                    };
                    self.bpf_diag_call_arg(
                        idx,
                        size_regno,
                        proto.name,
                        &reason,
                        "Constrain the memory size to a non-negative value smaller than BPF_MAX_VAR_SIZ before this call.",
                    );
                }
            }
            return Err(e);
        }
        Ok(())
    }

    /// The `KF_ARG_PTR_TO_BTF_ID` case of `check_kfunc_args` with
    /// `process_kf_arg_ptr_to_btf_id`: a trusted (or, for `KF_RCU`, an RCU)
    /// pointer to the wanted struct, or to one leading with it.
    fn process_kf_arg_btf_id(&mut self, reg: &RegState, regno: usize, proto: &KfuncProto, want: &'static str, meta: &mut CallArgMeta) -> VResult<()> {
        let insn_idx = self.insn_idx;
        let arg = reg_arg_name(regno);
        if base_type(reg.typ) != PTR_TO_BTF_ID {
            // reg2btf_ids types are not modelled
            let reg2btf = matches!(base_type(reg.typ), PTR_TO_SOCKET | PTR_TO_SOCK_COMMON | PTR_TO_TCP_SOCK | CONST_PTR_TO_MAP);
            let scalar_struct = self
                .input
                .vmlinux_btf
                .and_then(|btf| Some((btf, btf.struct_by_name(want)?)))
                .and_then(|(btf, id)| Some((btf_type_is_scalar_struct(btf, id, 0)?, btf.type_size(id)?)));
            let Some((scalar_struct, size)) = scalar_struct.filter(|_| !reg2btf) else {
                return Err(DoCheckError::Unsupported(format!("a {} passed as a kfunc's struct {want} pointer", reg_type_str(reg.typ))));
            };
            if scalar_struct {
                // a struct of scalars is checked as memory of its size the
                // kfunc reads and writes (KF_ARG_PTR_TO_MEM | MEM_FIXED_SIZE)
                let checked = self
                    .check_mem_reg(reg, regno, size as i64, false, Some(&mut *meta))
                    .and_then(|_| self.check_mem_reg(reg, regno, size as i64, true, Some(&mut *meta)));
                if let Err(e) = checked {
                    let plain = super::diag::bpf_diag_reg_type_plain(reg.typ);
                    if reg.typ == SCALAR_VALUE {
                        let reason = format!("the kfunc expects {size} bytes of memory for (struct {want}), but it is {plain} and not verifier-known memory");
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass stack, map, context, or other verifier-known memory of the expected type and size, not an integer cast to a pointer.",
                        );
                    } else {
                        let reason = format!(
                            "the kfunc expects {size} bytes of memory for (struct {want}), but the verifier cannot prove that {plain} provides a readable and writable range of that size"
                        );
                        self.bpf_diag_call_arg(
                            insn_idx,
                            regno,
                            proto.name,
                            &reason,
                            "Pass memory with at least the required number of accessible bytes and suitable read and write access.",
                        );
                    }
                    return Err(e);
                }
                return Ok(());
            }
            // lookup_reg2btf_ids of the wanted struct adds " or <type>"
            if matches!(want, "sock" | "sock_common" | "tcp_sock" | "bpf_map") {
                return Err(DoCheckError::Unsupported(format!("a {} passed as a kfunc's struct {want} pointer", reg_type_str(reg.typ))));
            }
            self.verbose(&format!("{arg} is {} expected STRUCT {want}\n", reg_type_str(reg.typ)));
            let reason = format!(
                "the kfunc expects a pointer to (struct {want}), but this argument is {} and cannot be used as that kernel object pointer",
                super::diag::bpf_diag_reg_type_plain(reg.typ)
            );
            self.bpf_diag_call_arg(
                insn_idx,
                regno,
                proto.name,
                &reason,
                "Pass a verifier-tracked pointer to the expected kernel object type, not a pointer to stack storage or another memory buffer.",
            );
            return errno(EINVAL);
        }
        let flags = reg.typ & !PTR_TO_BTF_ID;
        let referenced = self.reg_is_referenced(reg);
        // is_trusted_reg and bpf_type_has_unsafe_modifiers
        let trusted_mods = MEM_ALLOC | PTR_TRUSTED | NON_OWN_REF;
        let unsafe_mods = flags & !trusted_mods != 0;
        let trusted = referenced || (flags & trusted_mods != 0 && !unsafe_mods);
        if !trusted || unsafe_mods {
            if proto.flags & kf::RCU == 0 {
                self.verbose(&format!("{arg} must be referenced or trusted\n"));
                let reason = format!(
                    "the kfunc requires a trusted or resource-owning pointer to (struct {want}), but {arg} is {}",
                    super::diag::bpf_diag_reg_type_plain(reg.typ)
                );
                self.bpf_diag_call_arg(
                    insn_idx,
                    regno,
                    proto.name,
                    &reason,
                    "Pass a pointer acquired from a verifier-tracked source, or call this kfunc only inside the required protection if it accepts RCU pointers.",
                );
                return errno(EINVAL);
            }
            if reg.typ & MEM_RCU == 0 {
                self.verbose(&format!("{arg} must be a rcu pointer\n"));
                let reason =
                    format!("the kfunc requires an RCU-protected pointer to (struct {want}), but {arg} is {}", super::diag::bpf_diag_reg_type_plain(reg.typ));
                self.bpf_diag_call_arg(insn_idx, regno, proto.name, &reason, "Use this kfunc with a pointer that is valid in an RCU read lock region.");
                return errno(EINVAL);
            }
        }
        let strict = proto.flags & kf::RELEASE != 0 && referenced;
        let off = reg.s.var_off.value;
        let same = self.btf_struct_ids_match(reg, off, want, strict)?;
        if !same {
            // btf_type_str of a struct: its kind, as btf_kind_str spells it
            let have = btf_type_name(reg.aux);
            self.verbose(&format!("kernel function {} {arg} expected pointer to STRUCT {want} but {arg} has a pointer to STRUCT {have}\n", proto.name));
            return errno(EINVAL);
        }
        Ok(())
    }

    /// `btf_struct_ids_match`: `reg`'s struct at `off` is `want`, or (not
    /// `strict`) a struct nested there is, found by walking the recorded
    /// vmlinux BTF from `off` into the struct starting there, then into the
    /// struct leading each nested one (a `tcp_sock` leads with an
    /// `inet_connection_sock`, ..., a `sock_common`; a `bpf_cpumask` with a
    /// `cpumask`). What the walk stops on is logged as `btf_struct_walk`
    /// logs it.
    pub(crate) fn btf_struct_ids_match(&mut self, reg: &RegState, off: u64, want: &str, strict: bool) -> VResult<bool> {
        use super::btf_access::{Walk, WalkErr, btf_struct_walk};
        let name = btf_type_name(reg.aux);
        if off == 0 && name == want {
            return Ok(true);
        }
        // the program's own allocated objects are types of its BTF, not
        // vmlinux's: walking them is not modelled
        if strict || reg.typ & MEM_ALLOC != 0 {
            return Ok(false);
        }
        let Some(btf) = self.input.vmlinux_btf else {
            return Err(DoCheckError::Unsupported("btf_struct_ids_match: no vmlinux BTF is recorded for this arch".into()));
        };
        let Some(mut id) = btf.struct_by_name(name) else {
            return Err(DoCheckError::Unsupported(format!("btf_struct_ids_match: struct {name} is not in the recorded vmlinux BTF")));
        };
        // `int off`: a negative offset matches nothing
        let Ok(mut off) = u32::try_from(off as i64) else { return Ok(false) };
        // each round enters a nested struct: bounded by the nesting depth
        for _ in 0..64 {
            let mut flag = 0;
            match btf_struct_walk(btf, id, off, 1, &mut flag, true) {
                Ok(Walk::Struct(mid)) => {
                    id = btf.skip_modifiers(mid);
                    if btf.name_of(id) == want {
                        return Ok(true);
                    }
                    off = 0;
                }
                Ok(_) => return Ok(false),
                Err(WalkErr::Log(msg, _)) => {
                    self.verbose(&msg);
                    return Ok(false);
                }
                Err(WalkErr::Unsupported(what)) => return Err(DoCheckError::Unsupported(format!("btf_struct_ids_match: {what}"))),
            }
        }
        Err(DoCheckError::Unsupported("btf_struct_ids_match: a BTF struct nested too deep".into()))
    }

    /// `process_irq_flag`: a save takes an uninitialised slot and makes it
    /// an IRQ flag holding a new IRQ state (the innermost one); a restore
    /// takes the flag of the innermost state and frees the slot.
    fn process_irq_flag(&mut self, reg: &RegState, regno: usize, name: &str) -> VResult<()> {
        let (irq_save, kfunc_class) = match name {
            "bpf_local_irq_save" => (true, IRQ_NATIVE_KFUNC),
            "bpf_res_spin_lock_irqsave" => (true, IRQ_LOCK_KFUNC),
            "bpf_local_irq_restore" => (false, IRQ_NATIVE_KFUNC),
            "bpf_res_spin_unlock_irqrestore" => (false, IRQ_LOCK_KFUNC),
            _ => {
                self.verbose("verifier bug: unknown irq flags kfunc\n");
                return errno(EFAULT);
            }
        };
        let idx = self.insn_idx;
        let frame = reg.frameno().min(self.cur.curframe());
        if irq_save {
            // is_irq_flag_reg_valid_uninit: a slot not allocated yet is
            // fine, check_mem_access grows the stack
            let uninit = match self.stack_slot_obj_get_spi(reg, "irq_flag", 1) {
                Err(None) => true,
                Err(Some(_)) => false,
                Ok(spi) => self.cur.frame[frame].stack[spi].slot_type.iter().all(|&t| t != STACK_IRQ_FLAG),
            };
            if !uninit {
                self.verbose(&format!("expected uninitialized irq flag as {}\n", reg_arg_name(regno)));
                self.bpf_diag_res(
                    idx,
                    "IRQ flag is already initialized",
                    "Saving IRQ state requires an uninitialized stack slot for the IRQ flag, but this slot already contains tracked IRQ flag state.",
                    "Use a fresh stack slot for this save operation, or restore the existing IRQ flag before reusing the slot.",
                );
                return errno(EINVAL);
            }
            self.check_mem_access_insn(regno, 0, bpf_isa::insn::op::BPF_DW, true, None, false)?;
            self.mark_stack_slot_irq_flag(reg, kfunc_class)
        } else {
            // is_irq_flag_reg_valid_init
            let spi = self.stack_slot_obj_get_spi(reg, "irq_flag", 1).ok();
            let valid = spi.is_some_and(|spi| {
                let slot = &self.cur.frame[frame].stack[spi];
                slot.spilled_ptr.id != 0 && slot.slot_type.iter().all(|&t| t == STACK_IRQ_FLAG)
            });
            if !valid {
                self.verbose(&format!("expected an initialized irq flag as {}\n", reg_arg_name(regno)));
                self.bpf_diag_res(
                    idx,
                    "uninitialized IRQ flag restore",
                    "Restoring IRQ state requires a stack slot that was initialized by a matching IRQ save operation on this path.",
                    "Pass the same stack slot that was previously initialized by the matching IRQ save kfunc.",
                );
                return errno(EINVAL);
            }
            self.unmark_stack_slot_irq_flag(reg, kfunc_class)?;
            if !self.in_rcu_cs() {
                self.invalidate_rcu_protected_refs();
            }
            Ok(())
        }
    }

    /// `mark_stack_slot_irq_flag` with `acquire_irq_state`.
    fn mark_stack_slot_irq_flag(&mut self, reg: &RegState, kfunc_class: i64) -> VResult<()> {
        let spi = match self.stack_slot_obj_get_spi(reg, "irq_flag", 1) {
            Ok(s) => s,
            Err(Some(e)) => return Err(e),
            Err(None) => return errno(ERANGE),
        };
        let idx = self.insn_idx;
        self.id_gen += 1;
        let id = self.id_gen;
        self.cur.refs.push(RefState { typ: REF_TYPE_IRQ, id, insn_idx: idx, parent_or_ptr: 0 });
        self.cur.active_irq_id = id;
        let depth = self.irq_depth();
        self.diag_record_context(idx, CtxKind::Irq, true, depth);
        let frame = reg.frameno().min(self.cur.curframe());
        let slot = &mut self.cur.frame[frame].stack[spi];
        // no register type of its own: a known-zero stack pointer
        let mut st = RegState::known(0);
        st.typ = PTR_TO_STACK;
        st.id = id;
        st.aux = kfunc_class;
        slot.spilled_ptr = st;
        slot.slot_type = [STACK_IRQ_FLAG; BPF_REG_SIZE];
        self.scratch.mark_slot(spi);
        Ok(())
    }

    /// `bpf_diag_irq_depth`: how many IRQ states are held.
    fn irq_depth(&self) -> u32 {
        self.cur.refs.iter().filter(|r| r.typ == REF_TYPE_IRQ).count() as u32
    }

    /// `unmark_stack_slot_irq_flag` with `release_irq_state`: only the
    /// innermost IRQ state may be restored, by the family that saved it.
    fn unmark_stack_slot_irq_flag(&mut self, reg: &RegState, kfunc_class: i64) -> VResult<()> {
        let spi = match self.stack_slot_obj_get_spi(reg, "irq_flag", 1) {
            Ok(s) => s,
            Err(Some(e)) => return Err(e),
            Err(None) => return errno(ERANGE),
        };
        let idx = self.insn_idx;
        let frame = reg.frameno().min(self.cur.curframe());
        // process_irq_flag scratches the slot before the checks
        self.scratch.mark_slot(spi);
        let st = self.cur.frame[frame].stack[spi].spilled_ptr;
        let family = |c: i64| if c == IRQ_NATIVE_KFUNC { "native" } else { "lock" };
        if st.aux != kfunc_class {
            let (flag_kfunc, used_kfunc) = (family(st.aux), family(kfunc_class));
            self.verbose(&format!("irq flag acquired by {flag_kfunc} kfuncs cannot be restored with {used_kfunc} kfuncs\n"));
            let reason = format!(
                "This IRQ flag was saved by {flag_kfunc} IRQ kfuncs, but the restore call belongs to the {used_kfunc} IRQ kfunc family. Save and restore operations must use the same family."
            );
            let depth = self.irq_depth();
            self.bpf_diag_irq(
                idx,
                "IRQ flag restore mismatch",
                &reason,
                "Restore the flag with the matching IRQ restore kfunc for the save operation that created it.",
                depth,
            );
            return errno(EINVAL);
        }
        // release_irq_state: -EACCES unless it is the innermost state
        let mut err = if st.id != self.cur.active_irq_id { EACCES } else { EINVAL };
        if err == EINVAL {
            let mut prev_id = 0;
            for i in 0..self.cur.refs.len() {
                let r = self.cur.refs[i];
                if r.typ != REF_TYPE_IRQ {
                    continue;
                }
                if r.id == st.id {
                    // the order of the rest stays: it is the IRQ states' stack
                    self.cur.refs.remove(i);
                    self.cur.active_irq_id = prev_id;
                    let depth = self.irq_depth();
                    self.diag_record_context(idx, CtxKind::Irq, false, depth);
                    err = 0;
                    break;
                }
                prev_id = r.id;
            }
        }
        if err != 0 {
            let active = self.cur.active_irq_id;
            let at = self.cur.refs.iter().find(|r| r.id == active).map_or(0, |r| r.insn_idx);
            self.verbose(&format!("cannot restore irq state out of order, expected id={active} acquired at insn_idx={at}\n"));
            let depth = self.irq_depth();
            self.bpf_diag_irq(
                idx,
                "IRQ flag restore out of order",
                "IRQ-disabled regions must be restored in last-in, first-out order, but this restore does not match the currently active IRQ flag.",
                "Restore nested IRQ flags in the reverse order they were saved.",
                depth,
            );
            return errno(err);
        }
        let slot = &mut self.cur.frame[frame].stack[spi];
        slot.spilled_ptr = RegState::not_init();
        slot.slot_type = [STACK_INVALID; BPF_REG_SIZE];
        self.scratch.mark_slot(spi);
        Ok(())
    }

    /// `process_iter_arg`: `_new` gets an uninitialised iterator slot and
    /// initialises it, `_next`/`_destroy` an initialised one.
    fn process_iter_arg(&mut self, reg: &RegState, regno: usize, proto: &KfuncProto, iter_type: &str, meta: &mut CallArgMeta) -> VResult<()> {
        if reg.typ != PTR_TO_STACK {
            self.verbose(&format!("{} expected pointer to an iterator on stack\n", reg_arg_name(regno)));
            let reason = format!(
                "iterator state must live in verifier-tracked stack memory, but {} is {}",
                reg_arg_name(regno),
                super::diag::bpf_diag_reg_type_plain(reg.typ)
            );
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(idx, regno, proto.name, &reason, "Pass the address of a stack iterator object for iterator new, next, and destroy calls.");
            return errno(EINVAL);
        }
        let Some(size) = kernel_struct_size(self.input.vmlinux_btf, iter_type) else {
            return Err(DoCheckError::Unsupported(format!("struct {iter_type} is not in the recorded vmlinux BTF")));
        };
        let btf_id = btf_type_id_interned(iter_type);
        let nr_slots = (size as usize / BPF_REG_SIZE).max(1);
        let short = iter_type.strip_prefix("bpf_iter_").unwrap_or(iter_type);
        let frame = reg.frameno().min(self.cur.curframe());
        if proto.flags & kf::ITER_NEW != 0 {
            let uninit = match self.stack_slot_obj_get_spi(reg, "iter", nr_slots) {
                Err(None) => true,
                Err(Some(_)) => false,
                Ok(spi) => (0..nr_slots).all(|i| self.cur.frame[frame].stack[spi - i].slot_type.iter().all(|&t| t != STACK_ITER)),
            };
            if !uninit {
                self.verbose(&format!("expected uninitialized iter_{short} as R{regno}\n"));
                let idx = self.insn_idx;
                self.bpf_diag_res(
                    idx,
                    "iterator is already initialized",
                    "Iterator creation requires an uninitialized iterator stack object, but this stack range already contains iterator state.",
                    "Use a fresh iterator stack slot, or destroy the existing iterator before reusing the slot.",
                );
                return errno(EINVAL);
            }
            for i in 0..nr_slots {
                self.check_mem_access_insn(regno, (i * BPF_REG_SIZE) as i64, bpf_isa::insn::op::BPF_DW, true, None, false)?;
            }
            let spi = match self.stack_slot_obj_get_spi(reg, "iter", nr_slots) {
                Ok(s) => s,
                Err(Some(e)) => return Err(e),
                Err(None) => return errno(EFAULT),
            };
            let id = self.acquire_reference(self.insn_idx, 0);
            let rcu = proto.flags & kf::RCU_PROTECTED != 0;
            let in_rcu = self.in_rcu_cs();
            for i in 0..nr_slots {
                let slot = &mut self.cur.frame[frame].stack[spi - i];
                let mut st = RegState::ptr(PTR_TO_STACK, btf_id);
                if rcu {
                    st.typ |= if in_rcu { MEM_RCU } else { PTR_UNTRUSTED };
                }
                st.id = if i == 0 { id } else { 0 };
                st.set_iter(BPF_ITER_STATE_ACTIVE, 0);
                slot.spilled_ptr = st;
                slot.slot_type = [STACK_ITER; BPF_REG_SIZE];
                self.scratch.mark_slot(spi - i);
            }
            return Ok(());
        }
        // is_iter_reg_valid_init
        let spi = self.stack_slot_obj_get_spi(reg, "iter", nr_slots).ok();
        let valid = spi.is_some_and(|spi| {
            (0..nr_slots).all(|i| {
                let slot = &self.cur.frame[frame].stack[spi - i];
                let st = &slot.spilled_ptr;
                (if i == 0 { st.id != 0 } else { st.id == 0 }) && st.aux == btf_id && slot.slot_type.iter().all(|&t| t == STACK_ITER)
            })
        });
        let untrusted = spi.is_some_and(|spi| (0..nr_slots).any(|i| self.cur.frame[frame].stack[spi - i].spilled_ptr.typ & PTR_UNTRUSTED != 0));
        if untrusted {
            self.verbose(&format!("expected an RCU CS when using {}\n", proto.name));
            let idx = self.insn_idx;
            self.bpf_diag_ctx_required(
                idx,
                proto.name,
                CtxKind::Rcu,
                "Wrap iterator use in bpf_rcu_read_lock() and bpf_rcu_read_unlock(), keeping all exit paths balanced.",
            );
            return errno(EPROTO);
        }
        let Some(spi) = spi.filter(|_| valid) else {
            self.verbose(&format!("expected an initialized iter_{short} as R{regno}\n"));
            let idx = self.insn_idx;
            self.bpf_diag_res(
                idx,
                "uninitialized iterator use",
                "This iterator operation requires an initialized iterator state object, but the stack range does not contain a live iterator on this path.",
                "Call the matching iterator new kfunc on every path before calling next or destroy, and do not destroy the iterator before this use.",
            );
            return errno(EINVAL);
        };
        for i in 0..nr_slots {
            self.scratch.mark_slot(spi - i);
        }
        meta.iter_spi = spi;
        meta.iter_frameno = reg.frameno();
        let st = self.cur.frame[frame].stack[spi].spilled_ptr;
        meta.ref_obj_id = st.id;
        meta.ref_obj_parent = st.parent_id;
        meta.ref_obj_cnt += 1;
        if proto.flags & kf::ITER_DESTROY != 0 {
            for i in 0..nr_slots {
                let sid = self.cur.frame[frame].stack[spi - i].spilled_ptr.id;
                if i == 0 {
                    self.release_reference(sid)?;
                }
                let slot = &mut self.cur.frame[frame].stack[spi - i];
                slot.spilled_ptr = RegState::not_init();
                slot.slot_type = [STACK_INVALID; BPF_REG_SIZE];
                self.scratch.mark_slot(spi - i);
            }
        }
        Ok(())
    }

    /// `process_iter_next_call`: the current path sees the iterator
    /// drained (R0 = NULL); an active copy with a deeper `depth` is
    /// queued to go around the loop once more.
    fn process_iter_next_call(&mut self, insn_idx: usize, meta: &CallArgMeta) -> VResult<()> {
        let (fr, spi) = (meta.iter_frameno.min(self.cur.curframe()), meta.iter_spi);
        let Some(cur_iter) = self.cur.frame.get(fr).and_then(|f| f.stack.get(spi)).map(|s| s.spilled_ptr) else { return errno(EFAULT) };
        let state = cur_iter.iter_state();
        if state != BPF_ITER_STATE_ACTIVE && state != BPF_ITER_STATE_DRAINED {
            self.verbose(&format!("verifier bug: unexpected iterator state {state}\n"));
            return errno(EFAULT);
        }
        if state == BPF_ITER_STATE_ACTIVE {
            let parent_ok = self.cur.parent.is_some_and(|p| {
                let ps = &self.checkpoints[p].state;
                ps.insn_idx == insn_idx && super::states::same_callsites(ps, &self.cur)
            });
            if !parent_ok {
                self.verbose("verifier bug: bad parent state for iter next call\n");
                return errno(EFAULT);
            }
            let prev = self.cur.parent.and_then(|p| self.find_prev_entry(&self.checkpoints[p].state, insn_idx));
            let qi = self.push_stack(insn_idx + 1, insn_idx, false)?;
            {
                let q = &mut self.stack[qi].st;
                let it = &mut q.frame[fr].stack[spi].spilled_ptr;
                let depth = it.iter_depth();
                it.set_iter(BPF_ITER_STATE_ACTIVE, depth + 1);
            }
            if let Some(p) = prev {
                let cap = self.bpf_capable();
                super::states::widen_imprecise_scalars(&self.checkpoints[p].state, &mut self.stack[qi].st, cap);
            }
            let q = &mut self.stack[qi].st;
            let r0 = &mut q.cur_mut().regs[0];
            r0.typ &= !PTR_MAYBE_NULL;
        }
        let depth = cur_iter.iter_depth();
        self.cur.frame[fr].stack[spi].spilled_ptr.set_iter(BPF_ITER_STATE_DRAINED, depth);
        let z = self.const_zero_reg();
        self.regs_mut()[0] = z;
        Ok(())
    }

    /// `process_dynptr_func`: a dynptr argument of a helper or kfunc.
    pub(crate) fn process_dynptr_func(
        &mut self,
        reg: &RegState,
        regno: usize,
        call_name: &str,
        arg_type: ArgType,
        meta: &mut CallArgMeta,
        record: bool,
    ) -> VResult<()> {
        if reg.typ != PTR_TO_STACK && reg.typ != CONST_PTR_TO_DYNPTR {
            self.verbose(&format!("R{regno} expected pointer to stack or const struct bpf_dynptr\n"));
            let reason = format!(
                "a dynptr argument must be a pointer to a dynptr stack slot or a verifier-provided const struct bpf_dynptr, but R{regno} is {}",
                super::diag::bpf_diag_reg_type_plain(reg.typ)
            );
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(
                idx,
                regno,
                call_name,
                &reason,
                "Pass the address of a stack dynptr object, or use a const dynptr pointer returned by the verifier-supported path.",
            );
            return errno(EINVAL);
        }
        let frame = reg.frameno().min(self.cur.curframe());
        if arg_type & MEM_UNINIT != 0 {
            // is_dynptr_reg_valid_uninit
            let ok = reg.typ != CONST_PTR_TO_DYNPTR
                && match self.stack_slot_obj_get_spi(reg, "dynptr", BPF_DYNPTR_NR_SLOTS) {
                    Ok(_) | Err(None) => true,
                    Err(Some(_)) => false,
                };
            if !ok {
                self.verbose("Dynptr has to be an uninitialized dynptr\n");
                let idx = self.insn_idx;
                self.bpf_diag_res(
                    idx,
                    "dynptr is already initialized",
                    "This kfunc constructs a dynptr and requires an uninitialized dynptr stack slot, but the selected slot already holds dynptr state.",
                    "Use a fresh stack dynptr slot, or release/destroy the existing dynptr before reusing the slot.",
                );
                return errno(EINVAL);
            }
            for i in 0..BPF_DYNPTR_NR_SLOTS {
                self.check_mem_access_insn(regno, (i * BPF_REG_SIZE) as i64, bpf_isa::insn::op::BPF_DW, true, None, false)?;
            }
            return self.mark_stack_slots_dynptr(reg, arg_type, meta);
        }
        if reg.typ == CONST_PTR_TO_DYNPTR && arg_type & OBJ_RELEASE != 0 {
            self.verbose("CONST_PTR_TO_DYNPTR cannot be released\n");
            let idx = self.insn_idx;
            self.bpf_diag_res(
                idx,
                "const dynptr release",
                "This release operation was given a const dynptr. Const dynptr values are verifier-provided views and cannot be released by the program.",
                "Release only mutable dynptrs that the program initialized or reserved.",
            );
            return errno(EINVAL);
        }
        // is_dynptr_reg_valid_init
        let spi = if reg.typ == CONST_PTR_TO_DYNPTR { None } else { self.stack_slot_obj_get_spi(reg, "dynptr", BPF_DYNPTR_NR_SLOTS).ok() };
        let valid = reg.typ == CONST_PTR_TO_DYNPTR
            || spi.is_some_and(|spi| {
                let f = &self.cur.frame[frame];
                f.stack[spi].spilled_ptr.aux2 != 0
                    && f.stack[spi].slot_type.iter().all(|&t| t == STACK_DYNPTR)
                    && f.stack[spi - 1].slot_type.iter().all(|&t| t == STACK_DYNPTR)
            });
        if !valid {
            self.verbose(&format!("Expected an initialized dynptr as R{regno}\n"));
            let idx = self.insn_idx;
            self.bpf_diag_res(
                idx,
                "uninitialized dynptr use",
                "This operation requires an initialized dynptr, but the stack slot does not currently hold a valid dynptr on this path.",
                "Initialize the dynptr on every path before this call, and avoid overwriting or releasing it before this use.",
            );
            return errno(EINVAL);
        }
        let src = match spi {
            Some(spi) => self.cur.frame[frame].stack[spi].spilled_ptr,
            None => *reg,
        };
        let want = arg_type & !OBJ_RELEASE;
        if want != ARG_PTR_TO_DYNPTR && src.aux as u32 != arg_to_dynptr_type(want) {
            let s = format!("Expected a dynptr of type {} as R{regno}\n", dynptr_type_str(arg_to_dynptr_type(want)));
            self.verbose(&s);
            let reason = format!(
                "the dynptr is initialized with backing object type {}, but this operation expects dynptr type {}",
                dynptr_type_str(src.aux as u32),
                dynptr_type_str(arg_to_dynptr_type(want))
            );
            let idx = self.insn_idx;
            self.bpf_diag_call_arg(
                idx,
                regno,
                call_name,
                &reason,
                "Use a dynptr constructor that matches this operation, or call an operation that accepts the dynptr's current type.",
            );
            return errno(EINVAL);
        }
        if let Some(spi) = spi {
            self.scratch.mark_slot(spi);
            self.scratch.mark_slot(spi - 1);
        }
        if record {
            meta.dynptr_type = src.aux as u32;
            meta.dynptr_id = src.id;
            meta.dynptr_parent = src.parent_id;
        }
        Ok(())
    }

    /// `mark_stack_slots_dynptr`.
    fn mark_stack_slots_dynptr(&mut self, reg: &RegState, arg_type: ArgType, meta: &mut CallArgMeta) -> VResult<()> {
        let frame = reg.frameno().min(self.cur.curframe());
        let spi = match self.stack_slot_obj_get_spi(reg, "dynptr", BPF_DYNPTR_NR_SLOTS) {
            Ok(s) => s,
            Err(Some(e)) => return Err(e),
            Err(None) => return errno(EFAULT),
        };
        self.destroy_if_dynptr_stack_slot(frame, spi)?;
        self.destroy_if_dynptr_stack_slot(frame, spi - 1)?;
        for s in [spi, spi - 1] {
            self.cur.frame[frame].stack[s].slot_type = [STACK_DYNPTR; BPF_REG_SIZE];
        }
        let t = arg_to_dynptr_type(arg_type);
        if t == dynptr::INVALID {
            return errno(EINVAL);
        }
        let mut parent_id;
        if meta.dynptr_type == dynptr::INVALID {
            self.validate_ref_obj(meta)?;
            parent_id = meta.ref_obj_id;
            if dynptr_type_referenced(t) {
                parent_id = self.acquire_reference(self.insn_idx, parent_id);
            }
        } else {
            parent_id = meta.dynptr_parent;
        }
        self.id_gen += 1;
        let id = self.id_gen;
        for (s, first) in [(spi, true), (spi - 1, false)] {
            let mut r = RegState::ptr(CONST_PTR_TO_DYNPTR, t as i64);
            r.id = id;
            r.parent_id = parent_id;
            r.aux2 = first as u64;
            self.cur.frame[frame].stack[s].spilled_ptr = r;
        }
        Ok(())
    }

    /// `destroy_if_dynptr_stack_slot`: overwriting a dynptr invalidates it
    /// (refused for the last dynptr of a referenced object).
    pub(crate) fn destroy_if_dynptr_stack_slot(&mut self, frame: usize, spi: usize) -> VResult<()> {
        let Some(slot) = self.cur.frame.get(frame).and_then(|f| f.stack.get(spi)) else { return Ok(()) };
        if slot.slot_type[0] != STACK_DYNPTR {
            return Ok(());
        }
        let spi = if slot.spilled_ptr.aux2 == 0 { spi + 1 } else { spi };
        let Some(first) = self.cur.frame[frame].stack.get(spi).map(|s| s.spilled_ptr) else { return Ok(()) };
        if dynptr_type_referenced(first.aux as u32) {
            let cnt = self
                .cur
                .frame
                .iter()
                .flat_map(|f| f.stack.iter())
                .filter(|s| s.slot_type[0] == STACK_DYNPTR && s.spilled_ptr.aux2 != 0 && s.spilled_ptr.parent_id == first.parent_id)
                .count();
            if cnt <= 1 {
                self.verbose("cannot overwrite referenced dynptr\n");
                let idx = self.insn_idx;
                self.bpf_diag_res(
                    idx,
                    "referenced dynptr overwrite",
                    "This stack slot contains a dynptr that owns or protects a referenced resource. Overwriting the last dynptr for that resource would lose the verifier-tracked release path.",
                    "Release or clone the dynptr so another live dynptr still tracks the referenced resource before overwriting this stack slot.",
                );
                return errno(EINVAL);
            }
        }
        self.release_reference(first.id)?;
        self.scratch.mark_slot(spi);
        self.scratch.mark_slot(spi.wrapping_sub(1));
        Ok(())
    }

    /// `unmark_stack_slots_dynptr`: release a dynptr (its reference, for a
    /// referenced one).
    pub(crate) fn unmark_stack_slots_dynptr(&mut self, reg: &RegState) -> VResult<()> {
        let frame = reg.frameno().min(self.cur.curframe());
        let spi = match self.stack_slot_obj_get_spi(reg, "dynptr", BPF_DYNPTR_NR_SLOTS) {
            Ok(s) => s,
            Err(Some(e)) => return Err(e),
            Err(None) => return errno(ERANGE),
        };
        let r = self.cur.frame[frame].stack[spi].spilled_ptr;
        let id = if dynptr_type_referenced(r.aux as u32) { r.parent_id } else { r.id };
        self.release_reference(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Arch;
    use crate::vmlinux_btf::{Kind, VmlinuxBtf};

    /// The struct a pointer type points to, by name.
    fn pointee_struct(btf: &VmlinuxBtf, id: u32) -> Option<String> {
        let Kind::Ptr(to) = btf.type_by_id(btf.skip_modifiers(id))?.kind else { return None };
        let to = btf.skip_modifiers(to);
        matches!(btf.type_by_id(to)?.kind, Kind::Struct { .. }).then(|| btf.name_of(to).to_string())
    }

    fn is_int(btf: &VmlinuxBtf, id: u32) -> bool {
        btf.type_by_id(btf.skip_modifiers(id)).is_some_and(|t| matches!(t.kind, Kind::Int { .. }))
    }

    fn kfunc(name: &str) -> &'static KfuncProto {
        KFUNCS.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("{name} in KFUNCS"))
    }

    /// crypto_kfunc_init registers the encrypt/decrypt set for tc (cls and
    /// act) and XDP programs, the context set for syscall programs.
    #[test]
    fn crypto_sets_are_registered_as_crypto_kfunc_init_does() {
        use super::super::helpers::prog::*;
        for name in ["bpf_crypto_encrypt", "bpf_crypto_decrypt"] {
            for (pt, allowed) in [(SCHED_CLS, true), (SCHED_ACT, true), (XDP, true), (SYSCALL, false), (TRACING, false), (CGROUP_SKB, false)] {
                assert_eq!(btf_kfunc_is_allowed(kfunc(name), pt), allowed, "{name} for program type {pt}");
            }
        }
        for name in ["bpf_crypto_ctx_create", "bpf_crypto_ctx_acquire", "bpf_crypto_ctx_release"] {
            for (pt, allowed) in [(SYSCALL, true), (SCHED_CLS, false), (XDP, false), (TRACING, false)] {
                assert_eq!(btf_kfunc_is_allowed(kfunc(name), pt), allowed, "{name} for program type {pt}");
            }
        }
    }

    /// A set of a file the model does not read is allowed where 7.3's
    /// selftests call its kfuncs and unknown elsewhere; the socket
    /// iterator set's filter refuses a `tp_btf` program
    /// (sock_destroy_prog_fail.c) and lets an iterator through.
    #[test]
    fn unread_sets_are_known_only_where_selftests_call_them() {
        use super::super::helpers::prog::*;
        use crate::prog_type::bpf_attach_type::{TRACE_ITER, TRACE_RAW_TP};
        let sun_path = kfunc("bpf_sock_addr_set_sun_path");
        assert!(btf_kfunc_is_allowed(sun_path, CGROUP_SOCK_ADDR));
        assert_eq!(kfunc_hook_unknown(sun_path, CGROUP_SOCK_ADDR), None);
        assert!(!btf_kfunc_is_allowed(sun_path, CGROUP_SKB));
        assert!(kfunc_hook_unknown(sun_path, CGROUP_SKB).is_some());
        let destroy = kfunc("bpf_sock_destroy");
        assert!(btf_kfunc_is_allowed(destroy, TRACING));
        assert!(!kfunc_set_filter_refuses(destroy, TRACING, TRACE_ITER));
        assert!(kfunc_set_filter_refuses(destroy, TRACING, TRACE_RAW_TP));
    }

    /// The object iterators' prototypes in [`KFUNCS`] are those of the
    /// kfuncs in the 7.3 images' BTF: iterator and object arguments point
    /// to the named structs, `__nullable` parameters are the nullable ones,
    /// scalars are ints, and `_next` returns a pointer to the named struct.
    #[test]
    fn object_iterator_prototypes_match_the_recorded_btf() {
        for arch in [Arch::X86_64, Arch::Arm64] {
            let btf = VmlinuxBtf::for_arch(arch).expect("recorded vmlinux BTF");
            for obj in ["task", "css", "css_task", "task_vma", "kmem_cache", "dmabuf"] {
                for op in ["new", "next", "destroy"] {
                    let name = format!("bpf_iter_{obj}_{op}");
                    let k = KFUNCS.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("{name} in KFUNCS"));
                    let func = btf.func_by_name(&name).unwrap_or_else(|| panic!("{arch:?}: {name} recorded"));
                    let Some(Kind::Func(proto)) = btf.type_by_id(func).map(|t| t.kind.clone()) else { panic!("{name}: not a func") };
                    let Some(Kind::FuncProto { ret, params: Some(params) }) = btf.type_by_id(proto).map(|t| t.kind.clone()) else {
                        panic!("{name}: no prototype")
                    };
                    assert_eq!(params.len(), k.args.len(), "{arch:?} {name}: argument count");
                    for ((pname, pty), arg) in params.iter().zip(k.args) {
                        match *arg {
                            KfArg::Iter(t) | KfArg::BtfId(t) | KfArg::NullableBtfId(t) => {
                                assert_eq!(pointee_struct(btf, *pty).as_deref(), Some(t), "{arch:?} {name}: {pname}");
                                assert_eq!(pname.ends_with("__nullable"), matches!(arg, KfArg::NullableBtfId(_)), "{arch:?} {name}: {pname}");
                            }
                            KfArg::Scalar => assert!(is_int(btf, *pty), "{arch:?} {name}: {pname} is not an int"),
                            other => panic!("{name}: unexpected {other:?}"),
                        }
                    }
                    match k.ret {
                        KfRet::BtfId(t) => assert_eq!(pointee_struct(btf, ret).as_deref(), Some(t), "{arch:?} {name}: return"),
                        KfRet::Scalar => assert!(is_int(btf, ret), "{arch:?} {name}: return"),
                        KfRet::Void => assert_eq!(ret, 0, "{arch:?} {name}: return"),
                        other => panic!("{name}: unexpected return {other:?}"),
                    }
                    assert!(kernel_struct_size(Some(btf), &format!("bpf_iter_{obj}")).is_some(), "{arch:?}: struct bpf_iter_{obj} recorded");
                }
            }
        }
    }
}
