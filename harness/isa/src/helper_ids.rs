//! Helper ids of the 7.3 UAPI (`__BPF_FUNC_MAPPER` in `include/uapi/linux/bpf.h`).

/// `BPF_FUNC_tail_call`: the helper the verifier turns into a tail call.
pub const BPF_FUNC_TAIL_CALL: i32 = bpf_func_id::TAIL_CALL;

/// The helpers of `__BPF_FUNC_MAPPER`, one row each: `CONST = id => "name"`
/// gives `bpf_func_id::CONST` (the kernel's `BPF_FUNC_<name>`) and
/// `HELPER_NAMES[id]`. Checked when compiled: the ids run 0, 1, 2, ... and
/// each constant is its name in capitals.
macro_rules! bpf_func_ids {
    ($($id:ident = $n:literal => $name:literal,)*) => {
        /// `BPF_FUNC_*` names without the `bpf_` prefix, indexed by id; `__BPF_FUNC_MAX_ID` is its length.
        pub const HELPER_NAMES: [&str; [$($n),*].len()] = [$($name),*];

        /// `enum bpf_func_id`: the id of `BPF_FUNC_<name>` as `bpf_func_id::<NAME>`.
        pub mod bpf_func_id {
            $(pub const $id: i32 = $n;)*
        }

        const _: () = {
            let rows: &[(i32, &str, &str)] = &[$(($n, stringify!($id), $name)),*];
            let mut i = 0;
            while i < rows.len() {
                assert!(rows[i].0 == i as i32, "helper ids out of order");
                assert!(upper_of(rows[i].2.as_bytes(), rows[i].1.as_bytes()), "a helper constant is not its name");
                i += 1;
            }
        };
    };
}

/// Whether `upper` is `name` in ASCII capitals.
const fn upper_of(name: &[u8], upper: &[u8]) -> bool {
    if name.len() != upper.len() {
        return false;
    }
    let mut i = 0;
    while i < name.len() {
        if name[i].to_ascii_uppercase() != upper[i] {
            return false;
        }
        i += 1;
    }
    true
}

bpf_func_ids! {
    UNSPEC = 0 => "unspec",
    MAP_LOOKUP_ELEM = 1 => "map_lookup_elem",
    MAP_UPDATE_ELEM = 2 => "map_update_elem",
    MAP_DELETE_ELEM = 3 => "map_delete_elem",
    PROBE_READ = 4 => "probe_read",
    KTIME_GET_NS = 5 => "ktime_get_ns",
    TRACE_PRINTK = 6 => "trace_printk",
    GET_PRANDOM_U32 = 7 => "get_prandom_u32",
    GET_SMP_PROCESSOR_ID = 8 => "get_smp_processor_id",
    SKB_STORE_BYTES = 9 => "skb_store_bytes",
    L3_CSUM_REPLACE = 10 => "l3_csum_replace",
    L4_CSUM_REPLACE = 11 => "l4_csum_replace",
    TAIL_CALL = 12 => "tail_call",
    CLONE_REDIRECT = 13 => "clone_redirect",
    GET_CURRENT_PID_TGID = 14 => "get_current_pid_tgid",
    GET_CURRENT_UID_GID = 15 => "get_current_uid_gid",
    GET_CURRENT_COMM = 16 => "get_current_comm",
    GET_CGROUP_CLASSID = 17 => "get_cgroup_classid",
    SKB_VLAN_PUSH = 18 => "skb_vlan_push",
    SKB_VLAN_POP = 19 => "skb_vlan_pop",
    SKB_GET_TUNNEL_KEY = 20 => "skb_get_tunnel_key",
    SKB_SET_TUNNEL_KEY = 21 => "skb_set_tunnel_key",
    PERF_EVENT_READ = 22 => "perf_event_read",
    REDIRECT = 23 => "redirect",
    GET_ROUTE_REALM = 24 => "get_route_realm",
    PERF_EVENT_OUTPUT = 25 => "perf_event_output",
    SKB_LOAD_BYTES = 26 => "skb_load_bytes",
    GET_STACKID = 27 => "get_stackid",
    CSUM_DIFF = 28 => "csum_diff",
    SKB_GET_TUNNEL_OPT = 29 => "skb_get_tunnel_opt",
    SKB_SET_TUNNEL_OPT = 30 => "skb_set_tunnel_opt",
    SKB_CHANGE_PROTO = 31 => "skb_change_proto",
    SKB_CHANGE_TYPE = 32 => "skb_change_type",
    SKB_UNDER_CGROUP = 33 => "skb_under_cgroup",
    GET_HASH_RECALC = 34 => "get_hash_recalc",
    GET_CURRENT_TASK = 35 => "get_current_task",
    PROBE_WRITE_USER = 36 => "probe_write_user",
    CURRENT_TASK_UNDER_CGROUP = 37 => "current_task_under_cgroup",
    SKB_CHANGE_TAIL = 38 => "skb_change_tail",
    SKB_PULL_DATA = 39 => "skb_pull_data",
    CSUM_UPDATE = 40 => "csum_update",
    SET_HASH_INVALID = 41 => "set_hash_invalid",
    GET_NUMA_NODE_ID = 42 => "get_numa_node_id",
    SKB_CHANGE_HEAD = 43 => "skb_change_head",
    XDP_ADJUST_HEAD = 44 => "xdp_adjust_head",
    PROBE_READ_STR = 45 => "probe_read_str",
    GET_SOCKET_COOKIE = 46 => "get_socket_cookie",
    GET_SOCKET_UID = 47 => "get_socket_uid",
    SET_HASH = 48 => "set_hash",
    SETSOCKOPT = 49 => "setsockopt",
    SKB_ADJUST_ROOM = 50 => "skb_adjust_room",
    REDIRECT_MAP = 51 => "redirect_map",
    SK_REDIRECT_MAP = 52 => "sk_redirect_map",
    SOCK_MAP_UPDATE = 53 => "sock_map_update",
    XDP_ADJUST_META = 54 => "xdp_adjust_meta",
    PERF_EVENT_READ_VALUE = 55 => "perf_event_read_value",
    PERF_PROG_READ_VALUE = 56 => "perf_prog_read_value",
    GETSOCKOPT = 57 => "getsockopt",
    OVERRIDE_RETURN = 58 => "override_return",
    SOCK_OPS_CB_FLAGS_SET = 59 => "sock_ops_cb_flags_set",
    MSG_REDIRECT_MAP = 60 => "msg_redirect_map",
    MSG_APPLY_BYTES = 61 => "msg_apply_bytes",
    MSG_CORK_BYTES = 62 => "msg_cork_bytes",
    MSG_PULL_DATA = 63 => "msg_pull_data",
    BIND = 64 => "bind",
    XDP_ADJUST_TAIL = 65 => "xdp_adjust_tail",
    SKB_GET_XFRM_STATE = 66 => "skb_get_xfrm_state",
    GET_STACK = 67 => "get_stack",
    SKB_LOAD_BYTES_RELATIVE = 68 => "skb_load_bytes_relative",
    FIB_LOOKUP = 69 => "fib_lookup",
    SOCK_HASH_UPDATE = 70 => "sock_hash_update",
    MSG_REDIRECT_HASH = 71 => "msg_redirect_hash",
    SK_REDIRECT_HASH = 72 => "sk_redirect_hash",
    LWT_PUSH_ENCAP = 73 => "lwt_push_encap",
    LWT_SEG6_STORE_BYTES = 74 => "lwt_seg6_store_bytes",
    LWT_SEG6_ADJUST_SRH = 75 => "lwt_seg6_adjust_srh",
    LWT_SEG6_ACTION = 76 => "lwt_seg6_action",
    RC_REPEAT = 77 => "rc_repeat",
    RC_KEYDOWN = 78 => "rc_keydown",
    SKB_CGROUP_ID = 79 => "skb_cgroup_id",
    GET_CURRENT_CGROUP_ID = 80 => "get_current_cgroup_id",
    GET_LOCAL_STORAGE = 81 => "get_local_storage",
    SK_SELECT_REUSEPORT = 82 => "sk_select_reuseport",
    SKB_ANCESTOR_CGROUP_ID = 83 => "skb_ancestor_cgroup_id",
    SK_LOOKUP_TCP = 84 => "sk_lookup_tcp",
    SK_LOOKUP_UDP = 85 => "sk_lookup_udp",
    SK_RELEASE = 86 => "sk_release",
    MAP_PUSH_ELEM = 87 => "map_push_elem",
    MAP_POP_ELEM = 88 => "map_pop_elem",
    MAP_PEEK_ELEM = 89 => "map_peek_elem",
    MSG_PUSH_DATA = 90 => "msg_push_data",
    MSG_POP_DATA = 91 => "msg_pop_data",
    RC_POINTER_REL = 92 => "rc_pointer_rel",
    SPIN_LOCK = 93 => "spin_lock",
    SPIN_UNLOCK = 94 => "spin_unlock",
    SK_FULLSOCK = 95 => "sk_fullsock",
    TCP_SOCK = 96 => "tcp_sock",
    SKB_ECN_SET_CE = 97 => "skb_ecn_set_ce",
    GET_LISTENER_SOCK = 98 => "get_listener_sock",
    SKC_LOOKUP_TCP = 99 => "skc_lookup_tcp",
    TCP_CHECK_SYNCOOKIE = 100 => "tcp_check_syncookie",
    SYSCTL_GET_NAME = 101 => "sysctl_get_name",
    SYSCTL_GET_CURRENT_VALUE = 102 => "sysctl_get_current_value",
    SYSCTL_GET_NEW_VALUE = 103 => "sysctl_get_new_value",
    SYSCTL_SET_NEW_VALUE = 104 => "sysctl_set_new_value",
    STRTOL = 105 => "strtol",
    STRTOUL = 106 => "strtoul",
    SK_STORAGE_GET = 107 => "sk_storage_get",
    SK_STORAGE_DELETE = 108 => "sk_storage_delete",
    SEND_SIGNAL = 109 => "send_signal",
    TCP_GEN_SYNCOOKIE = 110 => "tcp_gen_syncookie",
    SKB_OUTPUT = 111 => "skb_output",
    PROBE_READ_USER = 112 => "probe_read_user",
    PROBE_READ_KERNEL = 113 => "probe_read_kernel",
    PROBE_READ_USER_STR = 114 => "probe_read_user_str",
    PROBE_READ_KERNEL_STR = 115 => "probe_read_kernel_str",
    TCP_SEND_ACK = 116 => "tcp_send_ack",
    SEND_SIGNAL_THREAD = 117 => "send_signal_thread",
    JIFFIES64 = 118 => "jiffies64",
    READ_BRANCH_RECORDS = 119 => "read_branch_records",
    GET_NS_CURRENT_PID_TGID = 120 => "get_ns_current_pid_tgid",
    XDP_OUTPUT = 121 => "xdp_output",
    GET_NETNS_COOKIE = 122 => "get_netns_cookie",
    GET_CURRENT_ANCESTOR_CGROUP_ID = 123 => "get_current_ancestor_cgroup_id",
    SK_ASSIGN = 124 => "sk_assign",
    KTIME_GET_BOOT_NS = 125 => "ktime_get_boot_ns",
    SEQ_PRINTF = 126 => "seq_printf",
    SEQ_WRITE = 127 => "seq_write",
    SK_CGROUP_ID = 128 => "sk_cgroup_id",
    SK_ANCESTOR_CGROUP_ID = 129 => "sk_ancestor_cgroup_id",
    RINGBUF_OUTPUT = 130 => "ringbuf_output",
    RINGBUF_RESERVE = 131 => "ringbuf_reserve",
    RINGBUF_SUBMIT = 132 => "ringbuf_submit",
    RINGBUF_DISCARD = 133 => "ringbuf_discard",
    RINGBUF_QUERY = 134 => "ringbuf_query",
    CSUM_LEVEL = 135 => "csum_level",
    SKC_TO_TCP6_SOCK = 136 => "skc_to_tcp6_sock",
    SKC_TO_TCP_SOCK = 137 => "skc_to_tcp_sock",
    SKC_TO_TCP_TIMEWAIT_SOCK = 138 => "skc_to_tcp_timewait_sock",
    SKC_TO_TCP_REQUEST_SOCK = 139 => "skc_to_tcp_request_sock",
    SKC_TO_UDP6_SOCK = 140 => "skc_to_udp6_sock",
    GET_TASK_STACK = 141 => "get_task_stack",
    LOAD_HDR_OPT = 142 => "load_hdr_opt",
    STORE_HDR_OPT = 143 => "store_hdr_opt",
    RESERVE_HDR_OPT = 144 => "reserve_hdr_opt",
    INODE_STORAGE_GET = 145 => "inode_storage_get",
    INODE_STORAGE_DELETE = 146 => "inode_storage_delete",
    D_PATH = 147 => "d_path",
    COPY_FROM_USER = 148 => "copy_from_user",
    SNPRINTF_BTF = 149 => "snprintf_btf",
    SEQ_PRINTF_BTF = 150 => "seq_printf_btf",
    SKB_CGROUP_CLASSID = 151 => "skb_cgroup_classid",
    REDIRECT_NEIGH = 152 => "redirect_neigh",
    PER_CPU_PTR = 153 => "per_cpu_ptr",
    THIS_CPU_PTR = 154 => "this_cpu_ptr",
    REDIRECT_PEER = 155 => "redirect_peer",
    TASK_STORAGE_GET = 156 => "task_storage_get",
    TASK_STORAGE_DELETE = 157 => "task_storage_delete",
    GET_CURRENT_TASK_BTF = 158 => "get_current_task_btf",
    BPRM_OPTS_SET = 159 => "bprm_opts_set",
    KTIME_GET_COARSE_NS = 160 => "ktime_get_coarse_ns",
    IMA_INODE_HASH = 161 => "ima_inode_hash",
    SOCK_FROM_FILE = 162 => "sock_from_file",
    CHECK_MTU = 163 => "check_mtu",
    FOR_EACH_MAP_ELEM = 164 => "for_each_map_elem",
    SNPRINTF = 165 => "snprintf",
    SYS_BPF = 166 => "sys_bpf",
    BTF_FIND_BY_NAME_KIND = 167 => "btf_find_by_name_kind",
    SYS_CLOSE = 168 => "sys_close",
    TIMER_INIT = 169 => "timer_init",
    TIMER_SET_CALLBACK = 170 => "timer_set_callback",
    TIMER_START = 171 => "timer_start",
    TIMER_CANCEL = 172 => "timer_cancel",
    GET_FUNC_IP = 173 => "get_func_ip",
    GET_ATTACH_COOKIE = 174 => "get_attach_cookie",
    TASK_PT_REGS = 175 => "task_pt_regs",
    GET_BRANCH_SNAPSHOT = 176 => "get_branch_snapshot",
    TRACE_VPRINTK = 177 => "trace_vprintk",
    SKC_TO_UNIX_SOCK = 178 => "skc_to_unix_sock",
    KALLSYMS_LOOKUP_NAME = 179 => "kallsyms_lookup_name",
    FIND_VMA = 180 => "find_vma",
    LOOP = 181 => "loop",
    STRNCMP = 182 => "strncmp",
    GET_FUNC_ARG = 183 => "get_func_arg",
    GET_FUNC_RET = 184 => "get_func_ret",
    GET_FUNC_ARG_CNT = 185 => "get_func_arg_cnt",
    GET_RETVAL = 186 => "get_retval",
    SET_RETVAL = 187 => "set_retval",
    XDP_GET_BUFF_LEN = 188 => "xdp_get_buff_len",
    XDP_LOAD_BYTES = 189 => "xdp_load_bytes",
    XDP_STORE_BYTES = 190 => "xdp_store_bytes",
    COPY_FROM_USER_TASK = 191 => "copy_from_user_task",
    SKB_SET_TSTAMP = 192 => "skb_set_tstamp",
    IMA_FILE_HASH = 193 => "ima_file_hash",
    KPTR_XCHG = 194 => "kptr_xchg",
    MAP_LOOKUP_PERCPU_ELEM = 195 => "map_lookup_percpu_elem",
    SKC_TO_MPTCP_SOCK = 196 => "skc_to_mptcp_sock",
    DYNPTR_FROM_MEM = 197 => "dynptr_from_mem",
    RINGBUF_RESERVE_DYNPTR = 198 => "ringbuf_reserve_dynptr",
    RINGBUF_SUBMIT_DYNPTR = 199 => "ringbuf_submit_dynptr",
    RINGBUF_DISCARD_DYNPTR = 200 => "ringbuf_discard_dynptr",
    DYNPTR_READ = 201 => "dynptr_read",
    DYNPTR_WRITE = 202 => "dynptr_write",
    DYNPTR_DATA = 203 => "dynptr_data",
    TCP_RAW_GEN_SYNCOOKIE_IPV4 = 204 => "tcp_raw_gen_syncookie_ipv4",
    TCP_RAW_GEN_SYNCOOKIE_IPV6 = 205 => "tcp_raw_gen_syncookie_ipv6",
    TCP_RAW_CHECK_SYNCOOKIE_IPV4 = 206 => "tcp_raw_check_syncookie_ipv4",
    TCP_RAW_CHECK_SYNCOOKIE_IPV6 = 207 => "tcp_raw_check_syncookie_ipv6",
    KTIME_GET_TAI_NS = 208 => "ktime_get_tai_ns",
    USER_RINGBUF_DRAIN = 209 => "user_ringbuf_drain",
    CGRP_STORAGE_GET = 210 => "cgrp_storage_get",
    CGRP_STORAGE_DELETE = 211 => "cgrp_storage_delete",
}

pub const BPF_FUNC_MAX_ID: i32 = HELPER_NAMES.len() as i32;

/// `bpf_<name>` of a helper id, as disasm.c's `func_id_str` gives it.
pub fn helper_name(id: i32) -> Option<&'static str> {
    usize::try_from(id).ok().and_then(|i| HELPER_NAMES.get(i)).copied()
}

/// The id of `bpf_<name>` (the prefix is required, as in `call bpf_map_lookup_elem`).
pub fn helper_id(name: &str) -> Option<i32> {
    let bare = name.strip_prefix("bpf_")?;
    if bare == "unspec" {
        return None;
    }
    HELPER_NAMES.iter().position(|n| *n == bare).map(|i| i as i32)
}

#[cfg(test)]
mod tests {
    #[test]
    fn tail_call_id_names_tail_call() {
        assert_eq!(super::HELPER_NAMES[super::BPF_FUNC_TAIL_CALL as usize], "tail_call");
    }
}
