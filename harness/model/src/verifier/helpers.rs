//! Which helper prototype a program gets: the `get_func_proto` callback of
//! each program type's `bpf_verifier_ops` (`sk_filter_func_proto`,
//! `tc_cls_act_func_proto`, `kprobe_prog_func_proto`, ...), down to
//! `bpf_base_func_proto` with its capability tiers (unprivileged, CAP_BPF,
//! CAP_PERFMON), as Linux 7.3 wires them. `None` is the kernel's NULL:
//! "program of this type cannot use helper".
//!
//! Also the small per-helper predicates `check_helper_call` and the front
//! end use (`bpf_helper_changes_pkt_data`, callback-calling helpers).

use super::helper_protos::*;
use crate::map::types::*;

pub use bpf_isa::helper_ids::{BPF_FUNC_MAX_ID, helper_name};

/// `enum bpf_func_id`.
pub use bpf_isa::helper_ids::bpf_func_id as func;

/// `BPF_PROG_TYPE_*`.
pub use crate::prog_type::bpf_prog_type as prog;

/// `enum bpf_attach_type`.
use crate::prog_type::bpf_attach_type as attach;

/// What the prototype choice depends on: the `struct bpf_prog` fields and
/// the loader's capabilities (`bpf_token_capable`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProtoCtx {
    pub prog_type: u32,
    pub expected_attach_type: u32,
    pub sleepable: bool,
    /// CAP_BPF (or CAP_SYS_ADMIN).
    pub cap_bpf: bool,
    /// CAP_PERFMON (or CAP_SYS_ADMIN).
    pub cap_perfmon: bool,
    pub cap_sys_admin: bool,
    /// The name of the attach target (`prog->aux->attach_btf_id`'s
    /// function) in the recorded vmlinux BTF; empty when none.
    pub attach_func: &'static str,
}

type P = Option<&'static FuncProto>;

/// `bpf_get_helper_proto` without the range check: the prototype program
/// type `p.prog_type` gets for `func_id`, or `None`.
pub fn get_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use prog::*;
    match p.prog_type {
        SOCKET_FILTER => sk_filter_func_proto(func_id, p),
        KPROBE => kprobe_prog_func_proto(func_id, p),
        SCHED_CLS | SCHED_ACT => tc_cls_act_func_proto(func_id, p),
        TRACEPOINT => tp_prog_func_proto(func_id, p),
        XDP => xdp_func_proto(func_id, p),
        PERF_EVENT => pe_prog_func_proto(func_id, p),
        CGROUP_SKB => cg_skb_func_proto(func_id, p),
        CGROUP_SOCK => sock_filter_func_proto(func_id, p),
        LWT_IN => lwt_in_func_proto(func_id, p),
        LWT_OUT => lwt_out_func_proto(func_id, p),
        LWT_XMIT => lwt_xmit_func_proto(func_id, p),
        SOCK_OPS => sock_ops_func_proto(func_id, p),
        SK_SKB => sk_skb_func_proto(func_id, p),
        CGROUP_DEVICE => cgroup_dev_func_proto(func_id, p),
        SK_MSG => sk_msg_func_proto(func_id, p),
        RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE => raw_tp_prog_func_proto(func_id, p),
        CGROUP_SOCK_ADDR => sock_addr_func_proto(func_id, p),
        LWT_SEG6LOCAL => lwt_seg6local_func_proto(func_id, p),
        SK_REUSEPORT => sk_reuseport_func_proto(func_id, p),
        FLOW_DISSECTOR => flow_dissector_func_proto(func_id, p),
        CGROUP_SYSCTL => sysctl_func_proto(func_id, p),
        CGROUP_SOCKOPT => cg_sockopt_func_proto(func_id, p),
        TRACING => tracing_prog_func_proto(func_id, p),
        LSM => bpf_lsm_func_proto(func_id, p),
        SK_LOOKUP => sk_lookup_func_proto(func_id, p),
        SYSCALL => syscall_prog_func_proto(func_id, p),
        // bpf_nf_func_proto (net/netfilter/nf_bpf_link.c): the base set only
        NETFILTER => bpf_base_func_proto(func_id, p),
        _ => None,
    }
}

/// `bpf_base_func_proto`: map, ringbuf and time helpers for everyone; more
/// with CAP_BPF; the tracing ones with CAP_PERFMON.
pub fn bpf_base_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let unpriv = match func_id {
        MAP_LOOKUP_ELEM => Some(&BPF_MAP_LOOKUP_ELEM_PROTO),
        MAP_UPDATE_ELEM => Some(&BPF_MAP_UPDATE_ELEM_PROTO),
        MAP_DELETE_ELEM => Some(&BPF_MAP_DELETE_ELEM_PROTO),
        MAP_PUSH_ELEM => Some(&BPF_MAP_PUSH_ELEM_PROTO),
        MAP_POP_ELEM => Some(&BPF_MAP_POP_ELEM_PROTO),
        MAP_PEEK_ELEM => Some(&BPF_MAP_PEEK_ELEM_PROTO),
        MAP_LOOKUP_PERCPU_ELEM => Some(&BPF_MAP_LOOKUP_PERCPU_ELEM_PROTO),
        GET_PRANDOM_U32 => Some(&BPF_GET_PRANDOM_U32_PROTO),
        GET_SMP_PROCESSOR_ID => Some(&BPF_GET_RAW_SMP_PROCESSOR_ID_PROTO),
        GET_NUMA_NODE_ID => Some(&BPF_GET_NUMA_NODE_ID_PROTO),
        TAIL_CALL => Some(&BPF_TAIL_CALL_PROTO),
        KTIME_GET_NS => Some(&BPF_KTIME_GET_NS_PROTO),
        KTIME_GET_BOOT_NS => Some(&BPF_KTIME_GET_BOOT_NS_PROTO),
        KTIME_GET_TAI_NS => Some(&BPF_KTIME_GET_TAI_NS_PROTO),
        RINGBUF_OUTPUT => Some(&BPF_RINGBUF_OUTPUT_PROTO),
        RINGBUF_RESERVE => Some(&BPF_RINGBUF_RESERVE_PROTO),
        RINGBUF_SUBMIT => Some(&BPF_RINGBUF_SUBMIT_PROTO),
        RINGBUF_DISCARD => Some(&BPF_RINGBUF_DISCARD_PROTO),
        RINGBUF_QUERY => Some(&BPF_RINGBUF_QUERY_PROTO),
        STRNCMP => Some(&BPF_STRNCMP_PROTO),
        STRTOL => Some(&BPF_STRTOL_PROTO),
        STRTOUL => Some(&BPF_STRTOUL_PROTO),
        GET_CURRENT_PID_TGID => Some(&BPF_GET_CURRENT_PID_TGID_PROTO),
        GET_NS_CURRENT_PID_TGID => Some(&BPF_GET_NS_CURRENT_PID_TGID_PROTO),
        GET_CURRENT_UID_GID => Some(&BPF_GET_CURRENT_UID_GID_PROTO),
        _ => None,
    };
    if unpriv.is_some() {
        return unpriv;
    }
    if !p.cap_bpf {
        return None;
    }
    let bpf = match func_id {
        SPIN_LOCK => Some(&BPF_SPIN_LOCK_PROTO),
        SPIN_UNLOCK => Some(&BPF_SPIN_UNLOCK_PROTO),
        JIFFIES64 => Some(&BPF_JIFFIES64_PROTO),
        PER_CPU_PTR => Some(&BPF_PER_CPU_PTR_PROTO),
        THIS_CPU_PTR => Some(&BPF_THIS_CPU_PTR_PROTO),
        TIMER_INIT => Some(&BPF_TIMER_INIT_PROTO),
        TIMER_SET_CALLBACK => Some(&BPF_TIMER_SET_CALLBACK_PROTO),
        TIMER_START => Some(&BPF_TIMER_START_PROTO),
        TIMER_CANCEL => Some(&BPF_TIMER_CANCEL_PROTO),
        KPTR_XCHG => Some(&BPF_KPTR_XCHG_PROTO),
        FOR_EACH_MAP_ELEM => Some(&BPF_FOR_EACH_MAP_ELEM_PROTO),
        LOOP => Some(&BPF_LOOP_PROTO),
        USER_RINGBUF_DRAIN => Some(&BPF_USER_RINGBUF_DRAIN_PROTO),
        RINGBUF_RESERVE_DYNPTR => Some(&BPF_RINGBUF_RESERVE_DYNPTR_PROTO),
        RINGBUF_SUBMIT_DYNPTR => Some(&BPF_RINGBUF_SUBMIT_DYNPTR_PROTO),
        RINGBUF_DISCARD_DYNPTR => Some(&BPF_RINGBUF_DISCARD_DYNPTR_PROTO),
        DYNPTR_FROM_MEM => Some(&BPF_DYNPTR_FROM_MEM_PROTO),
        DYNPTR_READ => Some(&BPF_DYNPTR_READ_PROTO),
        DYNPTR_WRITE => Some(&BPF_DYNPTR_WRITE_PROTO),
        DYNPTR_DATA => Some(&BPF_DYNPTR_DATA_PROTO),
        CGRP_STORAGE_GET => Some(&BPF_CGRP_STORAGE_GET_PROTO),
        CGRP_STORAGE_DELETE => Some(&BPF_CGRP_STORAGE_DELETE_PROTO),
        GET_CURRENT_CGROUP_ID => Some(&BPF_GET_CURRENT_CGROUP_ID_PROTO),
        GET_CURRENT_ANCESTOR_CGROUP_ID => Some(&BPF_GET_CURRENT_ANCESTOR_CGROUP_ID_PROTO),
        CURRENT_TASK_UNDER_CGROUP => Some(&BPF_CURRENT_TASK_UNDER_CGROUP_PROTO),
        GET_CGROUP_CLASSID => Some(&BPF_GET_CGROUP_CLASSID_CURR_PROTO),
        TASK_STORAGE_GET => Some(&BPF_TASK_STORAGE_GET_PROTO),
        TASK_STORAGE_DELETE => Some(&BPF_TASK_STORAGE_DELETE_PROTO),
        _ => None,
    };
    if bpf.is_some() {
        return bpf;
    }
    if !p.cap_perfmon {
        return None;
    }
    match func_id {
        TRACE_PRINTK => Some(&BPF_TRACE_PRINTK_PROTO),
        GET_CURRENT_TASK => Some(&BPF_GET_CURRENT_TASK_PROTO),
        GET_CURRENT_TASK_BTF => Some(&BPF_GET_CURRENT_TASK_BTF_PROTO),
        GET_CURRENT_COMM => Some(&BPF_GET_CURRENT_COMM_PROTO),
        PROBE_READ_USER => Some(&BPF_PROBE_READ_USER_PROTO),
        // the Debian kernels are not locked down
        PROBE_READ_KERNEL => Some(&BPF_PROBE_READ_KERNEL_PROTO),
        PROBE_READ_USER_STR => Some(&BPF_PROBE_READ_USER_STR_PROTO),
        PROBE_READ_KERNEL_STR => Some(&BPF_PROBE_READ_KERNEL_STR_PROTO),
        COPY_FROM_USER => Some(&BPF_COPY_FROM_USER_PROTO),
        COPY_FROM_USER_TASK => Some(&BPF_COPY_FROM_USER_TASK_PROTO),
        SNPRINTF_BTF => Some(&BPF_SNPRINTF_BTF_PROTO),
        SNPRINTF => Some(&BPF_SNPRINTF_PROTO),
        TASK_PT_REGS => Some(&BPF_TASK_PT_REGS_PROTO),
        TRACE_VPRINTK => Some(&BPF_TRACE_VPRINTK_PROTO),
        PERF_EVENT_READ_VALUE => Some(&BPF_PERF_EVENT_READ_VALUE_PROTO),
        PERF_EVENT_READ => Some(&BPF_PERF_EVENT_READ_PROTO),
        SEND_SIGNAL => Some(&BPF_SEND_SIGNAL_PROTO),
        SEND_SIGNAL_THREAD => Some(&BPF_SEND_SIGNAL_THREAD_PROTO),
        GET_TASK_STACK => Some(if p.sleepable { &BPF_GET_TASK_STACK_SLEEPABLE_PROTO } else { &BPF_GET_TASK_STACK_PROTO }),
        GET_BRANCH_SNAPSHOT => Some(&BPF_GET_BRANCH_SNAPSHOT_PROTO),
        FIND_VMA => Some(&BPF_FIND_VMA_PROTO),
        _ => None,
    }
}

/// `bpf_sk_base_func_proto`: the socket casts need CAP_PERFMON.
fn bpf_sk_base_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f = match func_id {
        SKC_TO_TCP6_SOCK => &BPF_SKC_TO_TCP6_SOCK_PROTO,
        SKC_TO_TCP_SOCK => &BPF_SKC_TO_TCP_SOCK_PROTO,
        SKC_TO_TCP_TIMEWAIT_SOCK => &BPF_SKC_TO_TCP_TIMEWAIT_SOCK_PROTO,
        SKC_TO_TCP_REQUEST_SOCK => &BPF_SKC_TO_TCP_REQUEST_SOCK_PROTO,
        SKC_TO_UDP6_SOCK => &BPF_SKC_TO_UDP6_SOCK_PROTO,
        SKC_TO_UNIX_SOCK => &BPF_SKC_TO_UNIX_SOCK_PROTO,
        SKC_TO_MPTCP_SOCK => &BPF_SKC_TO_MPTCP_SOCK_PROTO,
        KTIME_GET_COARSE_NS => return Some(&BPF_KTIME_GET_COARSE_NS_PROTO),
        _ => return bpf_base_func_proto(func_id, p),
    };
    p.cap_perfmon.then_some(f)
}

/// `cgroup_common_func_proto`: local storage and retval for cgroup hooks.
fn cgroup_common_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use attach::*;
    let no_retval = matches!(
        p.expected_attach_type,
        CGROUP_INET_INGRESS
            | CGROUP_INET_EGRESS
            | CGROUP_SOCK_OPS
            | CGROUP_UDP4_RECVMSG
            | CGROUP_UDP6_RECVMSG
            | CGROUP_UNIX_RECVMSG
            | CGROUP_INET4_GETPEERNAME
            | CGROUP_INET6_GETPEERNAME
            | CGROUP_UNIX_GETPEERNAME
            | CGROUP_INET4_GETSOCKNAME
            | CGROUP_INET6_GETSOCKNAME
            | CGROUP_UNIX_GETSOCKNAME
    );
    match func_id {
        func::GET_LOCAL_STORAGE => Some(&BPF_GET_LOCAL_STORAGE_PROTO),
        func::GET_RETVAL => (!no_retval).then_some(&BPF_GET_RETVAL_PROTO),
        func::SET_RETVAL => (!no_retval).then_some(&BPF_SET_RETVAL_PROTO),
        _ => None,
    }
}

/// `sock_filter_func_proto` (cgroup/sock).
fn sock_filter_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    let create = p.expected_attach_type == attach::CGROUP_INET_SOCK_CREATE;
    match func_id {
        GET_SOCKET_COOKIE => Some(&BPF_GET_SOCKET_COOKIE_SOCK_PROTO),
        GET_NETNS_COOKIE => Some(&BPF_GET_NETNS_COOKIE_SOCK_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_CG_SOCK_PROTO),
        KTIME_GET_COARSE_NS => Some(&BPF_KTIME_GET_COARSE_NS_PROTO),
        SETSOCKOPT => create.then_some(&BPF_SOCK_CREATE_SETSOCKOPT_PROTO),
        GETSOCKOPT => create.then_some(&BPF_SOCK_CREATE_GETSOCKOPT_PROTO),
        _ => bpf_base_func_proto(func_id, p),
    }
}

/// `sock_addr_func_proto` (cgroup/sock_addr).
fn sock_addr_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use attach::*;
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    let sockopt_hook = matches!(
        p.expected_attach_type,
        CGROUP_INET4_BIND
            | CGROUP_INET6_BIND
            | CGROUP_INET4_CONNECT
            | CGROUP_INET6_CONNECT
            | CGROUP_UNIX_CONNECT
            | CGROUP_UDP4_RECVMSG
            | CGROUP_UDP6_RECVMSG
            | CGROUP_UNIX_RECVMSG
            | CGROUP_UDP4_SENDMSG
            | CGROUP_UDP6_SENDMSG
            | CGROUP_UNIX_SENDMSG
            | CGROUP_INET4_GETPEERNAME
            | CGROUP_INET6_GETPEERNAME
            | CGROUP_INET4_GETSOCKNAME
            | CGROUP_INET6_GETSOCKNAME
    );
    match func_id {
        BIND => matches!(p.expected_attach_type, CGROUP_INET4_CONNECT | CGROUP_INET6_CONNECT).then_some(&BPF_BIND_PROTO),
        GET_SOCKET_COOKIE => Some(&BPF_GET_SOCKET_COOKIE_SOCK_ADDR_PROTO),
        GET_NETNS_COOKIE => Some(&BPF_GET_NETNS_COOKIE_SOCK_ADDR_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        SK_LOOKUP_TCP => Some(&BPF_SOCK_ADDR_SK_LOOKUP_TCP_PROTO),
        SK_LOOKUP_UDP => Some(&BPF_SOCK_ADDR_SK_LOOKUP_UDP_PROTO),
        SK_RELEASE => Some(&BPF_SK_RELEASE_PROTO),
        SKC_LOOKUP_TCP => Some(&BPF_SOCK_ADDR_SKC_LOOKUP_TCP_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_PROTO),
        SK_STORAGE_DELETE => Some(&BPF_SK_STORAGE_DELETE_PROTO),
        SETSOCKOPT => sockopt_hook.then_some(&BPF_SOCK_ADDR_SETSOCKOPT_PROTO),
        GETSOCKOPT => sockopt_hook.then_some(&BPF_SOCK_ADDR_GETSOCKOPT_PROTO),
        _ => bpf_sk_base_func_proto(func_id, p),
    }
}

/// `sk_filter_func_proto` (socket filters).
fn sk_filter_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        SKB_LOAD_BYTES => Some(&BPF_SKB_LOAD_BYTES_PROTO),
        SKB_LOAD_BYTES_RELATIVE => Some(&BPF_SKB_LOAD_BYTES_RELATIVE_PROTO),
        GET_SOCKET_COOKIE => Some(&BPF_GET_SOCKET_COOKIE_PROTO),
        GET_NETNS_COOKIE => Some(&BPF_GET_NETNS_COOKIE_PROTO),
        GET_SOCKET_UID => Some(&BPF_GET_SOCKET_UID_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_SKB_EVENT_OUTPUT_PROTO),
        _ => bpf_sk_base_func_proto(func_id, p),
    }
}

/// `cg_skb_func_proto`.
fn cg_skb_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    match func_id {
        SK_FULLSOCK => Some(&BPF_SK_FULLSOCK_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_PROTO),
        SK_STORAGE_DELETE => Some(&BPF_SK_STORAGE_DELETE_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_SKB_EVENT_OUTPUT_PROTO),
        SKB_CGROUP_ID => Some(&BPF_SKB_CGROUP_ID_PROTO),
        SKB_ANCESTOR_CGROUP_ID => Some(&BPF_SKB_ANCESTOR_CGROUP_ID_PROTO),
        SK_CGROUP_ID => Some(&BPF_SK_CGROUP_ID_PROTO),
        SK_ANCESTOR_CGROUP_ID => Some(&BPF_SK_ANCESTOR_CGROUP_ID_PROTO),
        SK_LOOKUP_TCP => Some(&BPF_SK_LOOKUP_TCP_PROTO),
        SK_LOOKUP_UDP => Some(&BPF_SK_LOOKUP_UDP_PROTO),
        SK_RELEASE => Some(&BPF_SK_RELEASE_PROTO),
        SKC_LOOKUP_TCP => Some(&BPF_SKC_LOOKUP_TCP_PROTO),
        TCP_SOCK => Some(&BPF_TCP_SOCK_PROTO),
        GET_LISTENER_SOCK => Some(&BPF_GET_LISTENER_SOCK_PROTO),
        SKB_ECN_SET_CE => Some(&BPF_SKB_ECN_SET_CE_PROTO),
        _ => sk_filter_func_proto(func_id, p),
    }
}

/// `tc_cls_act_func_proto`.
fn tc_cls_act_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        SKB_STORE_BYTES => &BPF_SKB_STORE_BYTES_PROTO,
        SKB_LOAD_BYTES => &BPF_SKB_LOAD_BYTES_PROTO,
        SKB_LOAD_BYTES_RELATIVE => &BPF_SKB_LOAD_BYTES_RELATIVE_PROTO,
        SKB_PULL_DATA => &BPF_SKB_PULL_DATA_PROTO,
        CSUM_DIFF => &BPF_CSUM_DIFF_PROTO,
        CSUM_UPDATE => &BPF_CSUM_UPDATE_PROTO,
        CSUM_LEVEL => &BPF_CSUM_LEVEL_PROTO,
        L3_CSUM_REPLACE => &BPF_L3_CSUM_REPLACE_PROTO,
        L4_CSUM_REPLACE => &BPF_L4_CSUM_REPLACE_PROTO,
        CLONE_REDIRECT => &BPF_CLONE_REDIRECT_PROTO,
        GET_CGROUP_CLASSID => &BPF_GET_CGROUP_CLASSID_PROTO,
        SKB_VLAN_PUSH => &BPF_SKB_VLAN_PUSH_PROTO,
        SKB_VLAN_POP => &BPF_SKB_VLAN_POP_PROTO,
        SKB_CHANGE_PROTO => &BPF_SKB_CHANGE_PROTO_PROTO,
        SKB_CHANGE_TYPE => &BPF_SKB_CHANGE_TYPE_PROTO,
        SKB_ADJUST_ROOM => &BPF_SKB_ADJUST_ROOM_PROTO,
        SKB_CHANGE_TAIL => &BPF_SKB_CHANGE_TAIL_PROTO,
        SKB_CHANGE_HEAD => &BPF_SKB_CHANGE_HEAD_PROTO,
        SKB_GET_TUNNEL_KEY => &BPF_SKB_GET_TUNNEL_KEY_PROTO,
        SKB_SET_TUNNEL_KEY => &BPF_SKB_SET_TUNNEL_KEY_PROTO,
        SKB_GET_TUNNEL_OPT => &BPF_SKB_GET_TUNNEL_OPT_PROTO,
        SKB_SET_TUNNEL_OPT => &BPF_SKB_SET_TUNNEL_OPT_PROTO,
        REDIRECT => &BPF_REDIRECT_PROTO,
        REDIRECT_NEIGH => &BPF_REDIRECT_NEIGH_PROTO,
        REDIRECT_PEER => &BPF_REDIRECT_PEER_PROTO,
        GET_ROUTE_REALM => &BPF_GET_ROUTE_REALM_PROTO,
        GET_HASH_RECALC => &BPF_GET_HASH_RECALC_PROTO,
        SET_HASH_INVALID => &BPF_SET_HASH_INVALID_PROTO,
        SET_HASH => &BPF_SET_HASH_PROTO,
        PERF_EVENT_OUTPUT => &BPF_SKB_EVENT_OUTPUT_PROTO,
        GET_SMP_PROCESSOR_ID => &BPF_GET_SMP_PROCESSOR_ID_PROTO,
        SKB_UNDER_CGROUP => &BPF_SKB_UNDER_CGROUP_PROTO,
        GET_SOCKET_COOKIE => &BPF_GET_SOCKET_COOKIE_PROTO,
        GET_NETNS_COOKIE => &BPF_GET_NETNS_COOKIE_PROTO,
        GET_SOCKET_UID => &BPF_GET_SOCKET_UID_PROTO,
        FIB_LOOKUP => &BPF_SKB_FIB_LOOKUP_PROTO,
        CHECK_MTU => &BPF_SKB_CHECK_MTU_PROTO,
        SK_FULLSOCK => &BPF_SK_FULLSOCK_PROTO,
        SK_STORAGE_GET => &BPF_SK_STORAGE_GET_PROTO,
        SK_STORAGE_DELETE => &BPF_SK_STORAGE_DELETE_PROTO,
        SKB_GET_XFRM_STATE => &BPF_SKB_GET_XFRM_STATE_PROTO,
        SKB_CGROUP_CLASSID => &BPF_SKB_CGROUP_CLASSID_PROTO,
        SKB_CGROUP_ID => &BPF_SKB_CGROUP_ID_PROTO,
        SKB_ANCESTOR_CGROUP_ID => &BPF_SKB_ANCESTOR_CGROUP_ID_PROTO,
        SK_LOOKUP_TCP => &BPF_TC_SK_LOOKUP_TCP_PROTO,
        SK_LOOKUP_UDP => &BPF_TC_SK_LOOKUP_UDP_PROTO,
        SK_RELEASE => &BPF_SK_RELEASE_PROTO,
        TCP_SOCK => &BPF_TCP_SOCK_PROTO,
        GET_LISTENER_SOCK => &BPF_GET_LISTENER_SOCK_PROTO,
        SKC_LOOKUP_TCP => &BPF_TC_SKC_LOOKUP_TCP_PROTO,
        TCP_CHECK_SYNCOOKIE => &BPF_TCP_CHECK_SYNCOOKIE_PROTO,
        SKB_ECN_SET_CE => &BPF_SKB_ECN_SET_CE_PROTO,
        TCP_GEN_SYNCOOKIE => &BPF_TCP_GEN_SYNCOOKIE_PROTO,
        SK_ASSIGN => &BPF_SK_ASSIGN_PROTO,
        SKB_SET_TSTAMP => &BPF_SKB_SET_TSTAMP_PROTO,
        TCP_RAW_GEN_SYNCOOKIE_IPV4 => &BPF_TCP_RAW_GEN_SYNCOOKIE_IPV4_PROTO,
        TCP_RAW_GEN_SYNCOOKIE_IPV6 => &BPF_TCP_RAW_GEN_SYNCOOKIE_IPV6_PROTO,
        TCP_RAW_CHECK_SYNCOOKIE_IPV4 => &BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV4_PROTO,
        TCP_RAW_CHECK_SYNCOOKIE_IPV6 => &BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV6_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `xdp_func_proto`.
fn xdp_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        PERF_EVENT_OUTPUT => &BPF_XDP_EVENT_OUTPUT_PROTO,
        GET_SMP_PROCESSOR_ID => &BPF_GET_SMP_PROCESSOR_ID_PROTO,
        CSUM_DIFF => &BPF_CSUM_DIFF_PROTO,
        XDP_ADJUST_HEAD => &BPF_XDP_ADJUST_HEAD_PROTO,
        XDP_ADJUST_META => &BPF_XDP_ADJUST_META_PROTO,
        REDIRECT => &BPF_XDP_REDIRECT_PROTO,
        REDIRECT_MAP => &BPF_XDP_REDIRECT_MAP_PROTO,
        XDP_ADJUST_TAIL => &BPF_XDP_ADJUST_TAIL_PROTO,
        XDP_GET_BUFF_LEN => &BPF_XDP_GET_BUFF_LEN_PROTO,
        XDP_LOAD_BYTES => &BPF_XDP_LOAD_BYTES_PROTO,
        XDP_STORE_BYTES => &BPF_XDP_STORE_BYTES_PROTO,
        FIB_LOOKUP => &BPF_XDP_FIB_LOOKUP_PROTO,
        CHECK_MTU => &BPF_XDP_CHECK_MTU_PROTO,
        SK_LOOKUP_UDP => &BPF_XDP_SK_LOOKUP_UDP_PROTO,
        SK_LOOKUP_TCP => &BPF_XDP_SK_LOOKUP_TCP_PROTO,
        SK_RELEASE => &BPF_SK_RELEASE_PROTO,
        SKC_LOOKUP_TCP => &BPF_XDP_SKC_LOOKUP_TCP_PROTO,
        TCP_CHECK_SYNCOOKIE => &BPF_TCP_CHECK_SYNCOOKIE_PROTO,
        TCP_GEN_SYNCOOKIE => &BPF_TCP_GEN_SYNCOOKIE_PROTO,
        TCP_RAW_GEN_SYNCOOKIE_IPV4 => &BPF_TCP_RAW_GEN_SYNCOOKIE_IPV4_PROTO,
        TCP_RAW_GEN_SYNCOOKIE_IPV6 => &BPF_TCP_RAW_GEN_SYNCOOKIE_IPV6_PROTO,
        TCP_RAW_CHECK_SYNCOOKIE_IPV4 => &BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV4_PROTO,
        TCP_RAW_CHECK_SYNCOOKIE_IPV6 => &BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV6_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `sock_ops_func_proto`.
fn sock_ops_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    let f: &'static FuncProto = match func_id {
        SETSOCKOPT => &BPF_SOCK_OPS_SETSOCKOPT_PROTO,
        GETSOCKOPT => &BPF_SOCK_OPS_GETSOCKOPT_PROTO,
        SOCK_OPS_CB_FLAGS_SET => &BPF_SOCK_OPS_CB_FLAGS_SET_PROTO,
        SOCK_MAP_UPDATE => &BPF_SOCK_MAP_UPDATE_PROTO,
        SOCK_HASH_UPDATE => &BPF_SOCK_HASH_UPDATE_PROTO,
        GET_SOCKET_COOKIE => &BPF_GET_SOCKET_COOKIE_SOCK_OPS_PROTO,
        PERF_EVENT_OUTPUT => &BPF_EVENT_OUTPUT_DATA_PROTO,
        SK_STORAGE_GET => &BPF_SK_STORAGE_GET_PROTO,
        SK_STORAGE_DELETE => &BPF_SK_STORAGE_DELETE_PROTO,
        GET_NETNS_COOKIE => &BPF_GET_NETNS_COOKIE_SOCK_OPS_PROTO,
        LOAD_HDR_OPT => &BPF_SOCK_OPS_LOAD_HDR_OPT_PROTO,
        STORE_HDR_OPT => &BPF_SOCK_OPS_STORE_HDR_OPT_PROTO,
        RESERVE_HDR_OPT => &BPF_SOCK_OPS_RESERVE_HDR_OPT_PROTO,
        TCP_SOCK => &BPF_TCP_SOCK_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `sk_msg_func_proto`.
fn sk_msg_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        MSG_REDIRECT_MAP => &BPF_MSG_REDIRECT_MAP_PROTO,
        MSG_REDIRECT_HASH => &BPF_MSG_REDIRECT_HASH_PROTO,
        MSG_APPLY_BYTES => &BPF_MSG_APPLY_BYTES_PROTO,
        MSG_CORK_BYTES => &BPF_MSG_CORK_BYTES_PROTO,
        MSG_PULL_DATA => &BPF_MSG_PULL_DATA_PROTO,
        MSG_PUSH_DATA => &BPF_MSG_PUSH_DATA_PROTO,
        MSG_POP_DATA => &BPF_MSG_POP_DATA_PROTO,
        PERF_EVENT_OUTPUT => &BPF_EVENT_OUTPUT_DATA_PROTO,
        SK_STORAGE_GET => &BPF_SK_STORAGE_GET_PROTO,
        SK_STORAGE_DELETE => &BPF_SK_STORAGE_DELETE_PROTO,
        GET_NETNS_COOKIE => &BPF_GET_NETNS_COOKIE_SK_MSG_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `sk_skb_func_proto`.
fn sk_skb_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        SKB_STORE_BYTES => &BPF_SKB_STORE_BYTES_PROTO,
        SKB_LOAD_BYTES => &BPF_SKB_LOAD_BYTES_PROTO,
        SKB_PULL_DATA => &SK_SKB_PULL_DATA_PROTO,
        SKB_CHANGE_TAIL => &SK_SKB_CHANGE_TAIL_PROTO,
        SKB_CHANGE_HEAD => &SK_SKB_CHANGE_HEAD_PROTO,
        SKB_ADJUST_ROOM => &SK_SKB_ADJUST_ROOM_PROTO,
        GET_SOCKET_COOKIE => &BPF_GET_SOCKET_COOKIE_PROTO,
        GET_SOCKET_UID => &BPF_GET_SOCKET_UID_PROTO,
        SK_REDIRECT_MAP => &BPF_SK_REDIRECT_MAP_PROTO,
        SK_REDIRECT_HASH => &BPF_SK_REDIRECT_HASH_PROTO,
        PERF_EVENT_OUTPUT => &BPF_SKB_EVENT_OUTPUT_PROTO,
        SK_LOOKUP_TCP => &BPF_SK_LOOKUP_TCP_PROTO,
        SK_LOOKUP_UDP => &BPF_SK_LOOKUP_UDP_PROTO,
        SK_RELEASE => &BPF_SK_RELEASE_PROTO,
        SKC_LOOKUP_TCP => &BPF_SKC_LOOKUP_TCP_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `flow_dissector_func_proto`.
fn flow_dissector_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    match func_id {
        func::SKB_LOAD_BYTES => Some(&BPF_FLOW_DISSECTOR_LOAD_BYTES_PROTO),
        _ => bpf_sk_base_func_proto(func_id, p),
    }
}

/// `lwt_out_func_proto`.
fn lwt_out_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        SKB_LOAD_BYTES => &BPF_SKB_LOAD_BYTES_PROTO,
        SKB_PULL_DATA => &BPF_SKB_PULL_DATA_PROTO,
        CSUM_DIFF => &BPF_CSUM_DIFF_PROTO,
        GET_CGROUP_CLASSID => &BPF_GET_CGROUP_CLASSID_PROTO,
        GET_ROUTE_REALM => &BPF_GET_ROUTE_REALM_PROTO,
        GET_HASH_RECALC => &BPF_GET_HASH_RECALC_PROTO,
        PERF_EVENT_OUTPUT => &BPF_SKB_EVENT_OUTPUT_PROTO,
        GET_SMP_PROCESSOR_ID => &BPF_GET_SMP_PROCESSOR_ID_PROTO,
        SKB_UNDER_CGROUP => &BPF_SKB_UNDER_CGROUP_PROTO,
        _ => return bpf_sk_base_func_proto(func_id, p),
    };
    Some(f)
}

/// `lwt_in_func_proto`.
fn lwt_in_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    match func_id {
        func::LWT_PUSH_ENCAP => Some(&BPF_LWT_IN_PUSH_ENCAP_PROTO),
        _ => lwt_out_func_proto(func_id, p),
    }
}

/// `lwt_xmit_func_proto`.
fn lwt_xmit_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let f: &'static FuncProto = match func_id {
        SKB_GET_TUNNEL_KEY => &BPF_SKB_GET_TUNNEL_KEY_PROTO,
        SKB_SET_TUNNEL_KEY => &BPF_SKB_SET_TUNNEL_KEY_PROTO,
        SKB_GET_TUNNEL_OPT => &BPF_SKB_GET_TUNNEL_OPT_PROTO,
        SKB_SET_TUNNEL_OPT => &BPF_SKB_SET_TUNNEL_OPT_PROTO,
        REDIRECT => &BPF_REDIRECT_PROTO,
        CLONE_REDIRECT => &BPF_CLONE_REDIRECT_PROTO,
        SKB_CHANGE_TAIL => &BPF_SKB_CHANGE_TAIL_PROTO,
        SKB_CHANGE_HEAD => &BPF_SKB_CHANGE_HEAD_PROTO,
        SKB_STORE_BYTES => &BPF_SKB_STORE_BYTES_PROTO,
        CSUM_UPDATE => &BPF_CSUM_UPDATE_PROTO,
        CSUM_LEVEL => &BPF_CSUM_LEVEL_PROTO,
        L3_CSUM_REPLACE => &BPF_L3_CSUM_REPLACE_PROTO,
        L4_CSUM_REPLACE => &BPF_L4_CSUM_REPLACE_PROTO,
        SET_HASH_INVALID => &BPF_SET_HASH_INVALID_PROTO,
        LWT_PUSH_ENCAP => &BPF_LWT_XMIT_PUSH_ENCAP_PROTO,
        _ => return lwt_out_func_proto(func_id, p),
    };
    Some(f)
}

/// `lwt_seg6local_func_proto`.
fn lwt_seg6local_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        SKB_PULL_DATA => None,
        LWT_SEG6_STORE_BYTES => Some(&BPF_LWT_SEG6_STORE_BYTES_PROTO),
        LWT_SEG6_ACTION => Some(&BPF_LWT_SEG6_ACTION_PROTO),
        LWT_SEG6_ADJUST_SRH => Some(&BPF_LWT_SEG6_ADJUST_SRH_PROTO),
        _ => lwt_out_func_proto(func_id, p),
    }
}

/// `sk_reuseport_func_proto`.
fn sk_reuseport_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        SK_SELECT_REUSEPORT => Some(&SK_SELECT_REUSEPORT_PROTO),
        SKB_LOAD_BYTES => Some(&SK_REUSEPORT_LOAD_BYTES_PROTO),
        SKB_LOAD_BYTES_RELATIVE => Some(&SK_REUSEPORT_LOAD_BYTES_RELATIVE_PROTO),
        GET_SOCKET_COOKIE => Some(&BPF_GET_SOCKET_PTR_COOKIE_PROTO),
        KTIME_GET_COARSE_NS => Some(&BPF_KTIME_GET_COARSE_NS_PROTO),
        _ => bpf_base_func_proto(func_id, p),
    }
}

/// `sk_lookup_func_proto`.
fn sk_lookup_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        SK_ASSIGN => Some(&BPF_SK_LOOKUP_ASSIGN_PROTO),
        SK_RELEASE => Some(&BPF_SK_RELEASE_PROTO),
        _ => bpf_sk_base_func_proto(func_id, p),
    }
}

/// `cgroup_dev_func_proto`.
fn cgroup_dev_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    match func_id {
        func::PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        _ => bpf_base_func_proto(func_id, p),
    }
}

/// `sysctl_func_proto`.
fn sysctl_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    match func_id {
        SYSCTL_GET_NAME => Some(&BPF_SYSCTL_GET_NAME_PROTO),
        SYSCTL_GET_CURRENT_VALUE => Some(&BPF_SYSCTL_GET_CURRENT_VALUE_PROTO),
        SYSCTL_GET_NEW_VALUE => Some(&BPF_SYSCTL_GET_NEW_VALUE_PROTO),
        SYSCTL_SET_NEW_VALUE => Some(&BPF_SYSCTL_SET_NEW_VALUE_PROTO),
        KTIME_GET_COARSE_NS => Some(&BPF_KTIME_GET_COARSE_NS_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        _ => bpf_base_func_proto(func_id, p),
    }
}

/// `cg_sockopt_func_proto`.
fn cg_sockopt_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if let Some(f) = cgroup_common_func_proto(func_id, p) {
        return Some(f);
    }
    let set = p.expected_attach_type == attach::CGROUP_SETSOCKOPT;
    match func_id {
        GET_NETNS_COOKIE => Some(&BPF_GET_NETNS_COOKIE_SOCKOPT_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_PROTO),
        SK_STORAGE_DELETE => Some(&BPF_SK_STORAGE_DELETE_PROTO),
        SETSOCKOPT => set.then_some(&BPF_SK_SETSOCKOPT_PROTO),
        GETSOCKOPT => set.then_some(&BPF_SK_GETSOCKOPT_PROTO),
        TCP_SOCK => Some(&BPF_TCP_SOCK_PROTO),
        PERF_EVENT_OUTPUT => Some(&BPF_EVENT_OUTPUT_DATA_PROTO),
        _ => bpf_base_func_proto(func_id, p),
    }
}

/// `bpf_tracing_func_proto`: what every tracing flavour shares.
fn bpf_tracing_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        GET_SMP_PROCESSOR_ID => return Some(&BPF_GET_SMP_PROCESSOR_ID_PROTO),
        // CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE is set on both arches
        PROBE_READ => return Some(&BPF_PROBE_READ_COMPAT_PROTO),
        PROBE_READ_STR => return Some(&BPF_PROBE_READ_COMPAT_STR_PROTO),
        GET_FUNC_IP => return Some(&BPF_GET_FUNC_IP_PROTO_TRACING),
        _ => {}
    }
    if let Some(f) = bpf_base_func_proto(func_id, p) {
        return Some(f);
    }
    if !p.cap_sys_admin {
        return None;
    }
    match func_id {
        PROBE_WRITE_USER => Some(&BPF_PROBE_WRITE_USER_PROTO),
        _ => None,
    }
}

/// `kprobe_prog_func_proto` (CONFIG_BPF_KPROBE_OVERRIDE is off in Debian).
fn kprobe_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use attach::*;
    use func::*;
    let kmulti = matches!(p.expected_attach_type, TRACE_KPROBE_MULTI | TRACE_KPROBE_SESSION);
    let umulti = matches!(p.expected_attach_type, TRACE_UPROBE_MULTI | TRACE_UPROBE_SESSION);
    match func_id {
        PERF_EVENT_OUTPUT => Some(&BPF_PERF_EVENT_OUTPUT_PROTO),
        GET_STACKID => Some(&BPF_GET_STACKID_PROTO),
        GET_STACK => Some(if p.sleepable { &BPF_GET_STACK_SLEEPABLE_PROTO } else { &BPF_GET_STACK_PROTO }),
        GET_FUNC_IP => Some(if kmulti {
            &BPF_GET_FUNC_IP_PROTO_KPROBE_MULTI
        } else if umulti {
            &BPF_GET_FUNC_IP_PROTO_UPROBE_MULTI
        } else {
            &BPF_GET_FUNC_IP_PROTO_KPROBE
        }),
        GET_ATTACH_COOKIE => Some(if kmulti {
            &BPF_GET_ATTACH_COOKIE_PROTO_KMULTI
        } else if umulti {
            &BPF_GET_ATTACH_COOKIE_PROTO_UMULTI
        } else {
            &BPF_GET_ATTACH_COOKIE_PROTO_TRACE
        }),
        _ => bpf_tracing_func_proto(func_id, p),
    }
}

/// `tp_prog_func_proto`.
fn tp_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        PERF_EVENT_OUTPUT => Some(&BPF_PERF_EVENT_OUTPUT_PROTO_TP),
        GET_STACKID => Some(&BPF_GET_STACKID_PROTO_TP),
        GET_STACK => Some(&BPF_GET_STACK_PROTO_TP),
        GET_ATTACH_COOKIE => Some(&BPF_GET_ATTACH_COOKIE_PROTO_TRACE),
        _ => bpf_tracing_func_proto(func_id, p),
    }
}

/// `pe_prog_func_proto`.
fn pe_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        PERF_EVENT_OUTPUT => Some(&BPF_PERF_EVENT_OUTPUT_PROTO_TP),
        GET_STACKID => Some(&BPF_GET_STACKID_PROTO_PE),
        GET_STACK => Some(&BPF_GET_STACK_PROTO_PE),
        PERF_PROG_READ_VALUE => Some(&BPF_PERF_PROG_READ_VALUE_PROTO),
        READ_BRANCH_RECORDS => Some(&BPF_READ_BRANCH_RECORDS_PROTO),
        GET_ATTACH_COOKIE => Some(&BPF_GET_ATTACH_COOKIE_PROTO_PE),
        _ => bpf_tracing_func_proto(func_id, p),
    }
}

/// `raw_tp_prog_func_proto`.
fn raw_tp_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        PERF_EVENT_OUTPUT => Some(&BPF_PERF_EVENT_OUTPUT_PROTO_RAW_TP),
        GET_STACKID => Some(&BPF_GET_STACKID_PROTO_RAW_TP),
        GET_STACK => Some(&BPF_GET_STACK_PROTO_RAW_TP),
        GET_ATTACH_COOKIE => Some(&BPF_GET_ATTACH_COOKIE_PROTO_TRACING),
        _ => bpf_tracing_func_proto(func_id, p),
    }
}

/// `bpf_prog_has_trampoline`.
fn has_trampoline(p: &ProtoCtx) -> bool {
    use attach::*;
    p.prog_type == prog::TRACING
        && matches!(
            p.expected_attach_type,
            TRACE_FENTRY | TRACE_FEXIT | MODIFY_RETURN | TRACE_FSESSION | TRACE_FENTRY_MULTI | TRACE_FEXIT_MULTI | TRACE_FSESSION_MULTI
        )
        || p.prog_type == prog::LSM && p.expected_attach_type == LSM_MAC
}

/// `tracing_prog_func_proto` (fentry/fexit/iter/tp_btf).
fn tracing_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    let iter = p.expected_attach_type == attach::TRACE_ITER;
    let raw_tp = p.expected_attach_type == attach::TRACE_RAW_TP;
    match func_id {
        SKB_OUTPUT => Some(&BPF_SKB_OUTPUT_PROTO),
        XDP_OUTPUT => Some(&BPF_XDP_OUTPUT_PROTO),
        SKC_TO_TCP6_SOCK => Some(&BPF_SKC_TO_TCP6_SOCK_PROTO),
        SKC_TO_TCP_SOCK => Some(&BPF_SKC_TO_TCP_SOCK_PROTO),
        SKC_TO_TCP_TIMEWAIT_SOCK => Some(&BPF_SKC_TO_TCP_TIMEWAIT_SOCK_PROTO),
        SKC_TO_TCP_REQUEST_SOCK => Some(&BPF_SKC_TO_TCP_REQUEST_SOCK_PROTO),
        SKC_TO_UDP6_SOCK => Some(&BPF_SKC_TO_UDP6_SOCK_PROTO),
        SKC_TO_UNIX_SOCK => Some(&BPF_SKC_TO_UNIX_SOCK_PROTO),
        SKC_TO_MPTCP_SOCK => Some(&BPF_SKC_TO_MPTCP_SOCK_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_TRACING_PROTO),
        SK_STORAGE_DELETE => Some(&BPF_SK_STORAGE_DELETE_TRACING_PROTO),
        SOCK_FROM_FILE => Some(&BPF_SOCK_FROM_FILE_PROTO),
        GET_SOCKET_COOKIE => Some(&BPF_GET_SOCKET_PTR_COOKIE_PROTO),
        XDP_GET_BUFF_LEN => Some(&BPF_XDP_GET_BUFF_LEN_TRACE_PROTO),
        SEQ_PRINTF => iter.then_some(&BPF_SEQ_PRINTF_PROTO),
        SEQ_WRITE => iter.then_some(&BPF_SEQ_WRITE_PROTO),
        SEQ_PRINTF_BTF => iter.then_some(&BPF_SEQ_PRINTF_BTF_PROTO),
        D_PATH => Some(&BPF_D_PATH_PROTO),
        GET_FUNC_ARG => (has_trampoline(p) || raw_tp).then_some(&BPF_GET_FUNC_ARG_PROTO),
        GET_FUNC_RET => has_trampoline(p).then_some(&BPF_GET_FUNC_RET_PROTO),
        GET_FUNC_ARG_CNT => (has_trampoline(p) || raw_tp).then_some(&BPF_GET_FUNC_ARG_CNT_PROTO),
        GET_ATTACH_COOKIE => (p.prog_type == prog::TRACING && raw_tp || has_trampoline(p)).then_some(&BPF_GET_ATTACH_COOKIE_PROTO_TRACING),
        // bpf_iter_get_func_proto depends on the iterator target: not modelled
        _ => raw_tp_prog_func_proto(func_id, p),
    }
}

/// `bpf_lsm_func_proto`.
fn bpf_lsm_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    if p.expected_attach_type == attach::LSM_CGROUP
        && let Some(f) = cgroup_common_func_proto(func_id, p)
    {
        return Some(f);
    }
    match func_id {
        INODE_STORAGE_GET => Some(&BPF_INODE_STORAGE_GET_PROTO),
        INODE_STORAGE_DELETE => Some(&BPF_INODE_STORAGE_DELETE_PROTO),
        SK_STORAGE_GET => Some(&BPF_SK_STORAGE_GET_PROTO),
        SK_STORAGE_DELETE => Some(&BPF_SK_STORAGE_DELETE_PROTO),
        SPIN_LOCK => Some(&BPF_SPIN_LOCK_PROTO),
        SPIN_UNLOCK => Some(&BPF_SPIN_UNLOCK_PROTO),
        BPRM_OPTS_SET => Some(&BPF_BPRM_OPTS_SET_PROTO),
        IMA_INODE_HASH => Some(&BPF_IMA_INODE_HASH_PROTO),
        IMA_FILE_HASH => Some(&BPF_IMA_FILE_HASH_PROTO),
        GET_ATTACH_COOKIE => has_trampoline(p).then_some(&BPF_GET_ATTACH_COOKIE_PROTO),
        SETSOCKOPT | GETSOCKOPT if p.expected_attach_type == attach::LSM_CGROUP => {
            let set = func_id == SETSOCKOPT;
            match super::bpf_lsm::bpf_lsm_sockopt_hook_locked(p.attach_func) {
                Some(true) => Some(if set { &BPF_SK_SETSOCKOPT_PROTO } else { &BPF_SK_GETSOCKOPT_PROTO }),
                Some(false) => Some(if set { &BPF_UNLOCKED_SK_SETSOCKOPT_PROTO } else { &BPF_UNLOCKED_SK_GETSOCKOPT_PROTO }),
                None => None,
            }
        }
        SETSOCKOPT | GETSOCKOPT => None,
        _ => tracing_prog_func_proto(func_id, p),
    }
}

/// `syscall_prog_func_proto`.
fn syscall_prog_func_proto(func_id: i32, p: &ProtoCtx) -> P {
    use func::*;
    match func_id {
        SYS_BPF => p.cap_perfmon.then_some(&BPF_SYS_BPF_PROTO),
        BTF_FIND_BY_NAME_KIND => Some(&BPF_BTF_FIND_BY_NAME_KIND_PROTO),
        SYS_CLOSE => Some(&BPF_SYS_CLOSE_PROTO),
        KALLSYMS_LOOKUP_NAME => Some(&BPF_KALLSYMS_LOOKUP_NAME_PROTO),
        _ => tracing_prog_func_proto(func_id, p),
    }
}

/// `bpf_helper_changes_pkt_data`.
pub fn bpf_helper_changes_pkt_data(func_id: i32) -> bool {
    use func::*;
    matches!(
        func_id,
        CLONE_REDIRECT
            | L3_CSUM_REPLACE
            | L4_CSUM_REPLACE
            | LWT_PUSH_ENCAP
            | LWT_SEG6_ACTION
            | LWT_SEG6_ADJUST_SRH
            | LWT_SEG6_STORE_BYTES
            | MSG_POP_DATA
            | MSG_PULL_DATA
            | MSG_PUSH_DATA
            | SKB_ADJUST_ROOM
            | SKB_CHANGE_HEAD
            | SKB_CHANGE_PROTO
            | SKB_CHANGE_TAIL
            | SKB_PULL_DATA
            | SKB_STORE_BYTES
            | SKB_VLAN_POP
            | SKB_VLAN_PUSH
            | STORE_HDR_OPT
            | XDP_ADJUST_HEAD
            | XDP_ADJUST_META
            | XDP_ADJUST_TAIL
            | TAIL_CALL
    )
}

/// `is_sync_callback_calling_function`.
pub fn is_sync_callback_calling_function(func_id: i32) -> bool {
    use func::*;
    matches!(func_id, FOR_EACH_MAP_ELEM | FIND_VMA | LOOP | USER_RINGBUF_DRAIN)
}

/// `is_async_callback_calling_function`.
pub fn is_async_callback_calling_function(func_id: i32) -> bool {
    func_id == func::TIMER_SET_CALLBACK
}

/// `is_callback_calling_function`.
pub fn is_callback_calling_function(func_id: i32) -> bool {
    is_sync_callback_calling_function(func_id) || is_async_callback_calling_function(func_id)
}

/// `is_acquire_function` for helpers (`map_type` of the map argument).
pub fn is_acquire_function(func_id: i32, map_type: Option<u32>) -> bool {
    use func::*;
    match func_id {
        SK_LOOKUP_TCP | SK_LOOKUP_UDP | SKC_LOOKUP_TCP | RINGBUF_RESERVE | KPTR_XCHG => true,
        MAP_LOOKUP_ELEM => map_type == Some(BPF_MAP_TYPE_SOCKMAP) || map_type == Some(BPF_MAP_TYPE_SOCKHASH),
        _ => false,
    }
}

/// `is_ptr_cast_function`.
pub fn is_ptr_cast_function(func_id: i32) -> bool {
    use func::*;
    matches!(
        func_id,
        TCP_SOCK | SK_FULLSOCK | SKC_TO_TCP_SOCK | SKC_TO_TCP6_SOCK | SKC_TO_UDP6_SOCK | SKC_TO_MPTCP_SOCK | SKC_TO_TCP_TIMEWAIT_SOCK | SKC_TO_TCP_REQUEST_SOCK
    )
}

/// `func_id_name`: `bpf_<name>` for the log, "unknown" out of range.
pub fn func_id_name(func_id: i32) -> String {
    match helper_name(func_id) {
        Some(n) => format!("bpf_{n}"),
        None => "unknown".to_string(),
    }
}
