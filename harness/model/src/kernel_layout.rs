//! The kernel structures behind the ctx views, as the Debian 7.3 kernels
//! (`7.3.4+deb13-{amd64,arm64}`) lay them out: the offsets the
//! `convert_ctx_access` callbacks compile into the rewritten loads, and
//! where a test run puts the fields of the kernel objects it builds.
//!
//! Every value here was read off the xlated programs those kernels produce
//! for loads and stores of each field (probes of 7.3 under QEMU on both
//! arches), cross-checked against the 7.3 source. The two arches
//! agree on everything but `NR_CPUS` (hence `MIN_NAPI_ID`) and `task_struct`.
//!
//! The sizes (`SIZEOF_*`), the map and program objects' offsets
//! (`OFFSETOF_*`) and the offsets no conversion reads
//! (`xdp_buff.data_hard_start`) were read off both images' BTF.

use crate::target::Arch;

/// Offsets (and the few constants) of one kernel build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLayout {
    pub sk_buff: SkBuff,
    /// `offsetof(struct net_device, ifindex)`.
    pub net_device_ifindex: i16,
    pub sock_common: SockCommon,
    pub sock: Sock,
    pub shinfo: SharedInfo,
    pub xdp_buff: XdpBuff,
    pub sk_lookup_kern: SkLookupKern,
    /// `struct bpf_tcp_sock` field -> where `struct tcp_sock` keeps it:
    /// (uapi offset, load size, kernel offset).
    pub tcp_sock: &'static [(i16, u8, i16)],
    pub perf_event: PerfEvent,
    pub flow_dissector: FlowDissector,
    pub sk_msg: SkMsg,
    pub sock_ops: SockOpsKern,
    pub sock_addr_kern: SockAddrKern,
    pub sockopt_kern: SockoptKern,
    pub sk_reuseport_kern: SkReuseportKern,
    /// `offsetof(struct xdp_sock, queue_id)` (u16).
    pub xdp_sock_queue_id: i16,
    /// `MIN_NAPI_ID`: `NR_CPUS + 1`.
    pub min_napi_id: i32,
}

/// `struct sk_buff` (and the `qdisc_skb_cb` / `bpf_skb_data_end` in its cb).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkBuff {
    pub dev: i16,
    pub sk: i16,
    pub tstamp: i16,
    pub cb: i16,
    pub len: i16,
    pub queue_mapping: i16,
    /// `CLONED_OFFSET` and `CLONED_MASK`: the byte holding `cloned`.
    pub cloned_offset: i16,
    pub cloned_mask: i32,
    /// `PKT_TYPE_OFFSET` and `PKT_TYPE_MAX`.
    pub pkt_type_offset: i16,
    pub pkt_type_max: i32,
    /// `SKB_BF_MONO_TC_OFFSET`: the byte of `tstamp_type` and
    /// `tc_at_ingress`, with their masks.
    pub bf_mono_tc_offset: i16,
    pub tc_at_ingress_mask: i32,
    pub tstamp_type_mask: i32,
    pub tc_index: i16,
    pub skb_iif: i16,
    pub priority: i16,
    pub hash: i16,
    pub vlan_all: i16,
    pub vlan_proto: i16,
    pub vlan_tci: i16,
    pub napi_id: i16,
    pub mark: i16,
    pub protocol: i16,
    /// `transport_header` (u16, an offset from `head`), next to `protocol`
    /// in the headers union.
    pub transport_header: i16,
    /// `end` (u32: `NET_SKBUFF_DATA_USES_OFFSET`), `head`, `data`.
    pub end: i16,
    pub head: i16,
    pub data: i16,
    /// Inside `cb`: `qdisc_skb_cb.pkt_len`, `.tc_classid`, `.data`,
    /// `bpf_skb_data_end.data_meta`, `.data_end`.
    pub qdisc_pkt_len: i16,
    pub qdisc_tc_classid: i16,
    pub qdisc_data: i16,
    pub cb_data_meta: i16,
    pub cb_data_end: i16,
    /// `data_len`, and in `cb` for sk_skb: `sk_skb_cb.data`, `.temp_reg`.
    pub data_len: i16,
    pub sk_skb_cb_data: i16,
    pub sk_skb_cb_temp_reg: i16,
}

/// `struct sk_msg` (its `sg` first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkMsg {
    pub sg_size: i16,
    pub data: i16,
    pub data_end: i16,
    pub sk: i16,
}

/// `struct bpf_flow_dissector`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowDissector {
    pub flow_keys: i16,
    pub data: i16,
    pub data_end: i16,
}

/// `struct bpf_sock_ops_kern`, and the fields of the socket and skb its
/// conversions read beyond the ones `bpf_tcp_sock` shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockOpsKern {
    pub sk: i16,
    pub replylong: i16,
    pub skb: i16,
    pub skb_data_end: i16,
    /// u8 each
    pub op: i16,
    pub is_fullsock: i16,
    pub is_locked_tcp_sock: i16,
    /// u64 scratch slot for a borrowed register.
    pub temp: i16,
    /// `tcp_sock.bpf_sock_ops_cb_flags` (u8).
    pub tcp_bpf_sock_ops_cb_flags: i16,
    /// `sock.sk_txhash` (u32).
    pub sk_txhash: i16,
    /// `tcp_skb_cb.tcp_flags` (u16), inside `sk_buff.cb`.
    pub tcp_skb_cb_tcp_flags: i16,
}

/// `struct bpf_sock_addr_kern`: the cgroup sock_addr ctx.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockAddrKern {
    pub sk: i16,
    /// The user's `struct sockaddr` (`sockaddr_in` or `sockaddr_in6`).
    pub uaddr: i16,
    /// u64 scratch slot for a borrowed register.
    pub tmp_reg: i16,
    /// sendmsg's source address (`struct in_addr` or `struct in6_addr`).
    pub t_ctx: i16,
}

/// `struct bpf_sockopt_kern`, and the way from its task to the run's
/// `retval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockoptKern {
    pub sk: i16,
    pub optval: i16,
    pub optval_end: i16,
    /// s32 each
    pub level: i16,
    pub optname: i16,
    pub optlen: i16,
    pub current_task: i16,
    /// u64 scratch slot for a borrowed register.
    pub tmp_reg: i16,
    /// `offsetof(struct task_struct, bpf_ctx)`.
    pub task_bpf_ctx: i16,
    /// `offsetof(struct bpf_cg_run_ctx, retval)` (int).
    pub cg_run_ctx_retval: i16,
}

/// `struct sk_reuseport_kern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkReuseportKern {
    pub skb: i16,
    pub sk: i16,
    pub migrating_sk: i16,
    pub data_end: i16,
    /// u32
    pub hash: i16,
    /// bool
    pub bind_inany: i16,
}

/// `struct sock_common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SockCommon {
    pub skc_daddr: i16,
    pub skc_rcv_saddr: i16,
    pub skc_dport: i16,
    pub skc_num: i16,
    pub skc_family: i16,
    /// u8
    pub skc_state: i16,
    pub skc_v6_daddr: i16,
    pub skc_v6_rcv_saddr: i16,
}

/// `struct sock` beyond its `sock_common`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sock {
    pub sk_bound_dev_if: i16,
    pub sk_rx_queue_mapping: i16,
    pub sk_priority: i16,
    pub sk_mark: i16,
    /// u16 each
    pub sk_protocol: i16,
    pub sk_type: i16,
    /// `sk_socket`, a pointer (the 7.3 verifier logs type the load at this
    /// offset `ptr_socket`).
    pub sk_socket: i16,
}

/// `NO_QUEUE_MAPPING`: the `sk_rx_queue_mapping` (and skb queue mapping)
/// of no queue.
pub const NO_QUEUE_MAPPING: i32 = 0xffff;

/// `sizeof(((struct sk_buff *)0)->cb)`.
pub const SIZEOF_SK_BUFF_CB: usize = 48;
/// `sizeof(struct skb_shared_info)`, a multiple of the cache line: what
/// `SKB_DATA_ALIGN` makes of it too.
pub const SIZEOF_SKB_SHARED_INFO: usize = 320;
/// `sizeof(struct xdp_frame)`.
pub const SIZEOF_XDP_FRAME: usize = 40;
/// `sizeof(struct bpf_flow_dissector)`.
pub const SIZEOF_BPF_FLOW_DISSECTOR: usize = 32;
/// `sizeof(struct bpf_sk_lookup_kern)`.
pub const SIZEOF_BPF_SK_LOOKUP_KERN: usize = 48;

/// `offsetof(struct bpf_map, max_entries)` (`struct bpf_array` starts
/// with its map).
pub const OFFSETOF_BPF_MAP_MAX_ENTRIES: usize = 0x44;
/// `sizeof(struct bpf_map)`: where `struct bpf_arena`'s own members start,
/// `user_vm_start` then `user_vm_end` (7.3's BTF, x86_64 and arm64 alike).
pub const SIZEOF_BPF_MAP: usize = 280;
pub const OFFSETOF_BPF_ARENA_USER_VM_START: usize = SIZEOF_BPF_MAP;
pub const OFFSETOF_BPF_ARENA_USER_VM_END: usize = SIZEOF_BPF_MAP + 8;
/// `offsetof(struct bpf_array, value)`, and of `ptrs` and `pptrs` in the
/// same union (`r1 += 296` in inlined array lookups).
pub const OFFSETOF_BPF_ARRAY_VALUE: usize = 296;
/// `offsetof(struct xsk_map, xsk_map)`.
pub const OFFSETOF_XSK_MAP_XSK_MAP: usize = 288;
/// `sizeof(struct htab_elem)`.
pub const SIZEOF_HTAB_ELEM: usize = 48;
/// `offsetof(struct htab_elem, key)`: the flexible array at its end.
pub const OFFSETOF_HTAB_ELEM_KEY: usize = SIZEOF_HTAB_ELEM;
/// `offsetof(struct rhtab_elem, data)`: the key, then the value, after the
/// element's `struct rhash_head` (7.3's BTF, x86_64 and arm64 alike).
pub const OFFSETOF_RHTAB_ELEM_DATA: usize = 8;
/// `offsetof(struct htab_elem, lru_node) + offsetof(struct bpf_lru_node,
/// ref)`.
pub const OFFSETOF_HTAB_ELEM_LRU_NODE_REF: usize = 35;
/// `sizeof(struct lpm_trie_node)`: two child pointers, the prefix length
/// and flags, then the key's data (no rcu head in 7.3).
pub const SIZEOF_LPM_TRIE_NODE: usize = 24;
/// `sizeof(struct bucket)` of a hash table.
pub const SIZEOF_BUCKET: usize = 16;
/// `offsetof(struct bpf_prog, bpf_func)`.
pub const OFFSETOF_BPF_PROG_BPF_FUNC: usize = 0x48;

/// `offsetof(struct bpf_dynptr_kern, data)`.
pub const OFFSETOF_BPF_DYNPTR_KERN_DATA: usize = 0;
/// `offsetof(struct bpf_dynptr_kern, size)`: the size, with the type and
/// read-only bits above it.
pub const OFFSETOF_BPF_DYNPTR_KERN_SIZE: usize = 8;
/// `offsetof(struct bpf_dynptr_kern, offset)`.
pub const OFFSETOF_BPF_DYNPTR_KERN_OFFSET: usize = 12;
/// `sizeof(struct bpf_dynptr_kern)`: `BPF_DYNPTR_SIZE`.
pub const SIZEOF_BPF_DYNPTR_KERN: usize = 16;

/// `struct skb_shared_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedInfo {
    pub gso_size: i16,
    pub gso_segs: i16,
    pub hwtstamps: i16,
}

/// `struct xdp_buff` and `struct xdp_rxq_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XdpBuff {
    pub data: i16,
    pub data_end: i16,
    pub data_meta: i16,
    /// Read by no conversion: where a test run puts its packet's head.
    pub data_hard_start: i16,
    pub rxq: i16,
    pub rxq_dev: i16,
    pub rxq_queue_index: i16,
}

/// `struct bpf_perf_event_data_kern` and what it points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfEvent {
    pub kern_regs: i16,
    pub kern_data: i16,
    /// In `struct perf_sample_data`.
    pub sample_data_period: i16,
    pub sample_data_addr: i16,
}

/// `struct bpf_sk_lookup_kern`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkLookupKern {
    pub family: i16,
    pub protocol: i16,
    pub sport: i16,
    pub dport: i16,
    pub v4_saddr: i16,
    pub v4_daddr: i16,
    /// Pointers to `struct in6_addr`.
    pub v6_saddr: i16,
    pub v6_daddr: i16,
    pub selected_sk: i16,
    pub ingress_ifindex: i16,
}

/// `bpf_tcp_sock` -> `tcp_sock` (`rtt_min` is `rtt_min.s[0].v`,
/// `icsk_retransmits` is in `inet_connection_sock`).
const TCP_SOCK: &[(i16, u8, i16)] = {
    use crate::uapi::bpf_tcp_sock::*;
    use bpf_isa::op::{BPF_B, BPF_DW, BPF_W};
    &[
        (SND_CWND, BPF_W, 1484),
        (SRTT_US, BPF_W, 1784),
        (RTT_MIN, BPF_W, 1540),
        (SND_SSTHRESH, BPF_W, 1532),
        (RCV_NXT, BPF_W, 1768),
        (SND_NXT, BPF_W, 1772),
        (SND_UNA, BPF_W, 1776),
        (MSS_CACHE, BPF_W, 1480),
        (ECN_FLAGS, BPF_B, 1744),
        (RATE_DELIVERED, BPF_W, 1696),
        (RATE_INTERVAL_US, BPF_W, 1700),
        (PACKETS_OUT, BPF_W, 1788),
        (RETRANS_OUT, BPF_W, 1520),
        (TOTAL_RETRANS, BPF_W, 2304),
        (SEGS_IN, BPF_W, 1852),
        (DATA_SEGS_IN, BPF_W, 1872),
        (SEGS_OUT, BPF_W, 1856),
        (DATA_SEGS_OUT, BPF_W, 1640),
        (LOST_OUT, BPF_W, 1492),
        (SACKED_OUT, BPF_W, 1496),
        (BYTES_RECEIVED, BPF_DW, 1864),
        (BYTES_ACKED, BPF_DW, 1608),
        (DSACK_DUPS, BPF_W, 1936),
        (DELIVERED, BPF_W, 1600),
        (DELIVERED_CE, BPF_W, 1604),
        (ICSK_RETRANSMITS, BPF_B, 1281),
    ]
};

const DEBIAN_7_3_X86_64: KernelLayout = KernelLayout {
    sk_buff: SkBuff {
        dev: 16,
        sk: 24,
        tstamp: 32,
        cb: 40,
        len: 112,
        queue_mapping: 124,
        cloned_offset: 126,
        cloned_mask: 1,
        pkt_type_offset: 128,
        pkt_type_max: 7,
        bf_mono_tc_offset: 129,
        tc_at_ingress_mask: 0x4,
        tstamp_type_mask: 0x3,
        tc_index: 134,
        skb_iif: 148,
        priority: 144,
        hash: 152,
        vlan_all: 156,
        vlan_proto: 156,
        vlan_tci: 158,
        napi_id: 160,
        mark: 168,
        protocol: 180,
        transport_header: 182,
        end: 192,
        head: 200,
        data: 208,
        qdisc_pkt_len: 0,
        qdisc_tc_classid: 6,
        qdisc_data: 8,
        cb_data_meta: 32,
        cb_data_end: 40,
        data_len: 116,
        sk_skb_cb_data: 0,
        sk_skb_cb_temp_reg: 40,
    },
    net_device_ifindex: 224,
    sock_common: SockCommon {
        skc_daddr: 0,
        skc_rcv_saddr: 4,
        skc_dport: 12,
        skc_num: 14,
        skc_family: 16,
        skc_state: 18,
        skc_v6_daddr: 56,
        skc_v6_rcv_saddr: 72,
    },
    sock: Sock { sk_bound_dev_if: 20, sk_rx_queue_mapping: 122, sk_priority: 528, sk_mark: 532, sk_protocol: 540, sk_type: 542, sk_socket: 288 },
    shinfo: SharedInfo { gso_size: 4, gso_segs: 6, hwtstamps: 16 },
    xdp_buff: XdpBuff { data: 0, data_end: 8, data_meta: 16, data_hard_start: 24, rxq: 32, rxq_dev: 0, rxq_queue_index: 8 },
    sk_lookup_kern: SkLookupKern {
        family: 0,
        protocol: 2,
        sport: 4,
        dport: 6,
        v4_saddr: 8,
        v4_daddr: 12,
        v6_saddr: 16,
        v6_daddr: 24,
        selected_sk: 32,
        ingress_ifindex: 40,
    },
    tcp_sock: TCP_SOCK,
    flow_dissector: FlowDissector { flow_keys: 0, data: 16, data_end: 24 },
    sk_msg: SkMsg { sg_size: 12, data: 640, data_end: 648, sk: 688 },
    sock_ops: SockOpsKern {
        sk: 0,
        replylong: 8,
        skb: 32,
        skb_data_end: 40,
        op: 48,
        is_fullsock: 49,
        is_locked_tcp_sock: 50,
        temp: 56,
        tcp_bpf_sock_ops_cb_flags: 2336,
        sk_txhash: 580,
        tcp_skb_cb_tcp_flags: 12,
    },
    perf_event: PerfEvent { kern_regs: 0, kern_data: 8, sample_data_period: 8, sample_data_addr: 184 },
    sock_addr_kern: SockAddrKern { sk: 0, uaddr: 8, tmp_reg: 16, t_ctx: 24 },
    sockopt_kern: SockoptKern {
        sk: 0,
        optval: 8,
        optval_end: 16,
        level: 24,
        optname: 28,
        optlen: 32,
        current_task: 40,
        tmp_reg: 48,
        task_bpf_ctx: 5792,
        cg_run_ctx_retval: 8,
    },
    sk_reuseport_kern: SkReuseportKern { skb: 0, sk: 8, migrating_sk: 24, data_end: 32, hash: 40, bind_inany: 48 },
    xdp_sock_queue_id: 880,
    // CONFIG_NR_CPUS=8192
    min_napi_id: 8193,
};

/// arm64: the same structures but `task_struct`; CONFIG_NR_CPUS=512.
const DEBIAN_7_3_ARM64: KernelLayout =
    KernelLayout { sockopt_kern: SockoptKern { task_bpf_ctx: 3608, ..DEBIAN_7_3_X86_64.sockopt_kern }, min_napi_id: 513, ..DEBIAN_7_3_X86_64 };

/// The layout of the 7.3 kernel of `arch`, where it was measured.
pub fn for_arch(arch: Arch) -> Option<&'static KernelLayout> {
    match arch {
        Arch::X86_64 => Some(&DEBIAN_7_3_X86_64),
        Arch::Arm64 => Some(&DEBIAN_7_3_ARM64),
        _ => None,
    }
}
