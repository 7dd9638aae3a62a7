//! Field offsets of the UAPI structs (`include/uapi/linux/bpf.h`) programs
//! read through their ctx or through socket pointers: what the verifier's
//! access checks allow, the fixups rewrite into loads of the kernel's own
//! structs, and a test run lays out. Offsets (and struct sizes) are `i16`,
//! as in an instruction's `off`.
//!
//! Also the sizes of the other uapi structs the model checks (helper and
//! map arguments), `sizeof(bpf_user_pt_regs_t)` per arch,
//! `BPF_OBJ_NAME_LEN` and `BPF_PROG_LOAD`'s `prog_flags`.

use crate::target::Arch;

/// `BPF_OBJ_NAME_LEN`: a map's or program's name, with its NUL.
pub const BPF_OBJ_NAME_LEN: usize = 16;

/// `struct __sk_buff`: u32 fields but where noted.
pub mod __sk_buff {
    pub const LEN: i16 = 0;
    pub const PKT_TYPE: i16 = 4;
    pub const MARK: i16 = 8;
    pub const QUEUE_MAPPING: i16 = 12;
    pub const PROTOCOL: i16 = 16;
    pub const VLAN_PRESENT: i16 = 20;
    pub const VLAN_TCI: i16 = 24;
    pub const VLAN_PROTO: i16 = 28;
    pub const PRIORITY: i16 = 32;
    pub const INGRESS_IFINDEX: i16 = 36;
    pub const IFINDEX: i16 = 40;
    pub const TC_INDEX: i16 = 44;
    /// `__u32 cb[5]`.
    pub const CB: i16 = 48;
    /// `offsetofend(struct __sk_buff, cb)`.
    pub const CB_END: i16 = CB + 5 * 4;
    pub const HASH: i16 = 68;
    pub const TC_CLASSID: i16 = 72;
    pub const DATA: i16 = 76;
    pub const DATA_END: i16 = 80;
    pub const NAPI_ID: i16 = 84;
    pub const FAMILY: i16 = 88;
    pub const REMOTE_IP4: i16 = 92;
    pub const LOCAL_IP4: i16 = 96;
    /// `__u32 remote_ip6[4]`.
    pub const REMOTE_IP6: i16 = 100;
    /// `__u32 local_ip6[4]`.
    pub const LOCAL_IP6: i16 = 116;
    pub const REMOTE_PORT: i16 = 132;
    pub const LOCAL_PORT: i16 = 136;
    pub const DATA_META: i16 = 140;
    /// `struct bpf_flow_keys *`, 8 bytes.
    pub const FLOW_KEYS: i16 = 144;
    /// `__u64`.
    pub const TSTAMP: i16 = 152;
    pub const WIRE_LEN: i16 = 160;
    pub const GSO_SEGS: i16 = 164;
    /// `struct bpf_sock *`, 8 bytes.
    pub const SK: i16 = 168;
    pub const GSO_SIZE: i16 = 176;
    /// `__u8`, then 24 bits of padding.
    pub const TSTAMP_TYPE: i16 = 180;
    /// `__u64`.
    pub const HWTSTAMP: i16 = 184;
    /// `sizeof(struct __sk_buff)`.
    pub const SIZE: i16 = 192;
}

/// `struct xdp_md`: u32 fields; the first three are pointers the
/// verifier widens.
pub mod xdp_md {
    pub const DATA: i16 = 0;
    pub const DATA_END: i16 = 4;
    pub const DATA_META: i16 = 8;
    /// `rxq->dev->ifindex`.
    pub const INGRESS_IFINDEX: i16 = 12;
    /// `rxq->queue_index`.
    pub const RX_QUEUE_INDEX: i16 = 16;
    /// `txq->dev->ifindex` (devmap programs only).
    pub const EGRESS_IFINDEX: i16 = 20;
    /// `sizeof(struct xdp_md)`.
    pub const SIZE: i16 = 24;
}

/// `struct sk_msg_md`: u32 fields but the three pointers
/// (`__bpf_md_ptr`, 8 bytes).
pub mod sk_msg_md {
    pub const DATA: i16 = 0;
    pub const DATA_END: i16 = 8;
    pub const FAMILY: i16 = 16;
    pub const REMOTE_IP4: i16 = 20;
    pub const LOCAL_IP4: i16 = 24;
    /// `__u32 remote_ip6[4]`.
    pub const REMOTE_IP6: i16 = 28;
    /// `__u32 local_ip6[4]`.
    pub const LOCAL_IP6: i16 = 44;
    pub const REMOTE_PORT: i16 = 60;
    pub const LOCAL_PORT: i16 = 64;
    /// The field `size`, the message's total size ([`SIZE`] is the
    /// struct's).
    pub const MSG_SIZE: i16 = 68;
    /// `struct bpf_sock *`.
    pub const SK: i16 = 72;
    /// `sizeof(struct sk_msg_md)`.
    pub const SIZE: i16 = 80;
}

/// `struct bpf_sock_ops`: u32 fields but where noted.
pub mod bpf_sock_ops {
    pub const OP: i16 = 0;
    /// `reply`, in a union with `__u32 args[4]` and `__u32 replylong[4]`.
    pub const REPLY: i16 = 4;
    pub const REPLYLONG: i16 = REPLY;
    pub const FAMILY: i16 = 20;
    pub const REMOTE_IP4: i16 = 24;
    pub const LOCAL_IP4: i16 = 28;
    /// `__u32 remote_ip6[4]`.
    pub const REMOTE_IP6: i16 = 32;
    /// `__u32 local_ip6[4]`.
    pub const LOCAL_IP6: i16 = 48;
    pub const REMOTE_PORT: i16 = 64;
    pub const LOCAL_PORT: i16 = 68;
    pub const IS_FULLSOCK: i16 = 72;
    pub const SND_CWND: i16 = 76;
    pub const SRTT_US: i16 = 80;
    pub const BPF_SOCK_OPS_CB_FLAGS: i16 = 84;
    pub const STATE: i16 = 88;
    pub const RTT_MIN: i16 = 92;
    pub const SND_SSTHRESH: i16 = 96;
    pub const RCV_NXT: i16 = 100;
    pub const SND_NXT: i16 = 104;
    pub const SND_UNA: i16 = 108;
    pub const MSS_CACHE: i16 = 112;
    pub const ECN_FLAGS: i16 = 116;
    pub const RATE_DELIVERED: i16 = 120;
    pub const RATE_INTERVAL_US: i16 = 124;
    pub const PACKETS_OUT: i16 = 128;
    pub const RETRANS_OUT: i16 = 132;
    pub const TOTAL_RETRANS: i16 = 136;
    pub const SEGS_IN: i16 = 140;
    pub const DATA_SEGS_IN: i16 = 144;
    pub const SEGS_OUT: i16 = 148;
    pub const DATA_SEGS_OUT: i16 = 152;
    pub const LOST_OUT: i16 = 156;
    pub const SACKED_OUT: i16 = 160;
    pub const SK_TXHASH: i16 = 164;
    /// `__u64`.
    pub const BYTES_RECEIVED: i16 = 168;
    /// `__u64`.
    pub const BYTES_ACKED: i16 = 176;
    /// `struct bpf_sock *`, 8 bytes.
    pub const SK: i16 = 184;
    /// `void *`, 8 bytes.
    pub const SKB_DATA: i16 = 192;
    /// `void *`, 8 bytes.
    pub const SKB_DATA_END: i16 = 200;
    pub const SKB_LEN: i16 = 208;
    pub const SKB_TCP_FLAGS: i16 = 212;
    /// `__u64`.
    pub const SKB_HWTSTAMP: i16 = 216;
    /// `sizeof(struct bpf_sock_ops)`.
    pub const SIZE: i16 = 224;
}

/// `struct bpf_sk_lookup`: u32 fields but where noted.
pub mod bpf_sk_lookup {
    /// `struct bpf_sock *sk`, in a union with `__u64 cookie`.
    pub const SK: i16 = 0;
    pub const FAMILY: i16 = 8;
    pub const PROTOCOL: i16 = 12;
    pub const REMOTE_IP4: i16 = 16;
    /// `__u32 remote_ip6[4]`.
    pub const REMOTE_IP6: i16 = 20;
    /// `__be16 remote_port`, then 16 bits of zero padding.
    pub const REMOTE_PORT: i16 = 36;
    /// The zero padding after `remote_port`.
    pub const REMOTE_PORT_PAD: i16 = 38;
    pub const LOCAL_IP4: i16 = 40;
    /// `__u32 local_ip6[4]`.
    pub const LOCAL_IP6: i16 = 44;
    pub const LOCAL_PORT: i16 = 60;
    pub const INGRESS_IFINDEX: i16 = 64;
    /// `sizeof(struct bpf_sk_lookup)`.
    pub const SIZE: i16 = 72;
}

/// `struct bpf_sock_addr`: the cgroup sock_addr ctx, u32 fields but
/// for the socket pointer.
pub mod bpf_sock_addr {
    pub const USER_FAMILY: i16 = 0;
    pub const USER_IP4: i16 = 4;
    /// `__u32 user_ip6[4]`.
    pub const USER_IP6: i16 = 8;
    pub const USER_PORT: i16 = 24;
    pub const FAMILY: i16 = 28;
    pub const TYPE: i16 = 32;
    pub const PROTOCOL: i16 = 36;
    pub const MSG_SRC_IP4: i16 = 40;
    /// `__u32 msg_src_ip6[4]`.
    pub const MSG_SRC_IP6: i16 = 44;
    /// `offsetofend(struct bpf_sock_addr, msg_src_ip6)`: 4 bytes of
    /// padding follow.
    pub const MSG_SRC_IP6_END: i16 = 60;
    /// `struct bpf_sock *sk`.
    pub const SK: i16 = 64;
    /// `sizeof(struct bpf_sock_addr)`.
    pub const SIZE: i16 = 72;
}

/// `struct sockaddr_in` and `struct sockaddr_in6` (`linux/in.h`,
/// `linux/in6.h`): the user address a sock_addr program sees; the two
/// share the family and port.
pub mod sockaddr_in {
    /// `sa_family_t`: u16.
    pub const SIN_FAMILY: i16 = 0;
    /// `__be16`.
    pub const SIN_PORT: i16 = 2;
    /// `struct in_addr`.
    pub const SIN_ADDR: i16 = 4;
    /// `sockaddr_in6.sin6_addr`, a `struct in6_addr`.
    pub const SIN6_ADDR: i16 = 8;
}

/// `struct bpf_sockopt`: the cgroup sockopt ctx.
pub mod bpf_sockopt {
    /// `struct bpf_sock *sk`, then the option buffer's bounds: pointers.
    pub const SK: i16 = 0;
    pub const OPTVAL: i16 = 8;
    pub const OPTVAL_END: i16 = 16;
    /// `__s32` each.
    pub const LEVEL: i16 = 24;
    pub const OPTNAME: i16 = 28;
    pub const OPTLEN: i16 = 32;
    pub const RETVAL: i16 = 36;
    /// `sizeof(struct bpf_sockopt)`.
    pub const SIZE: i16 = 40;
}

/// `struct sk_reuseport_md`: the sk_reuseport ctx.
pub mod sk_reuseport_md {
    /// `void *data`, `void *data_end`.
    pub const DATA: i16 = 0;
    pub const DATA_END: i16 = 8;
    /// `__u32` each.
    pub const LEN: i16 = 16;
    pub const ETH_PROTOCOL: i16 = 20;
    pub const IP_PROTOCOL: i16 = 24;
    pub const BIND_INANY: i16 = 28;
    pub const HASH: i16 = 32;
    /// `struct bpf_sock *sk`, after 4 bytes of padding.
    pub const SK: i16 = 40;
    /// `struct bpf_sock *migrating_sk`.
    pub const MIGRATING_SK: i16 = 48;
    /// `sizeof(struct sk_reuseport_md)`.
    pub const SIZE: i16 = 56;
}

/// `struct bpf_sock`.
pub mod bpf_sock {
    pub const BOUND_DEV_IF: i16 = 0;
    pub const FAMILY: i16 = 4;
    pub const TYPE: i16 = 8;
    pub const PROTOCOL: i16 = 12;
    pub const MARK: i16 = 16;
    pub const PRIORITY: i16 = 20;
    pub const SRC_IP4: i16 = 24;
    /// `__u32 src_ip6[4]`.
    pub const SRC_IP6: i16 = 28;
    pub const SRC_PORT: i16 = 44;
    /// `__be16 dst_port`, then 16 bits of zero padding.
    pub const DST_PORT: i16 = 48;
    /// The zero padding after `dst_port`.
    pub const DST_PORT_PAD: i16 = 50;
    pub const DST_IP4: i16 = 52;
    /// `__u32 dst_ip6[4]`.
    pub const DST_IP6: i16 = 56;
    pub const STATE: i16 = 72;
    pub const RX_QUEUE_MAPPING: i16 = 76;
    /// `sizeof(struct bpf_sock)`.
    pub const SIZE: i16 = 80;
}

/// `struct bpf_tcp_sock`: u32 fields but for the two u64 counters.
pub mod bpf_tcp_sock {
    pub const SND_CWND: i16 = 0;
    pub const SRTT_US: i16 = 4;
    pub const RTT_MIN: i16 = 8;
    pub const SND_SSTHRESH: i16 = 12;
    pub const RCV_NXT: i16 = 16;
    pub const SND_NXT: i16 = 20;
    pub const SND_UNA: i16 = 24;
    pub const MSS_CACHE: i16 = 28;
    pub const ECN_FLAGS: i16 = 32;
    pub const RATE_DELIVERED: i16 = 36;
    pub const RATE_INTERVAL_US: i16 = 40;
    pub const PACKETS_OUT: i16 = 44;
    pub const RETRANS_OUT: i16 = 48;
    pub const TOTAL_RETRANS: i16 = 52;
    pub const SEGS_IN: i16 = 56;
    pub const DATA_SEGS_IN: i16 = 60;
    pub const SEGS_OUT: i16 = 64;
    pub const DATA_SEGS_OUT: i16 = 68;
    pub const LOST_OUT: i16 = 72;
    pub const SACKED_OUT: i16 = 76;
    /// `__u64`.
    pub const BYTES_RECEIVED: i16 = 80;
    /// `__u64`.
    pub const BYTES_ACKED: i16 = 88;
    pub const DSACK_DUPS: i16 = 96;
    pub const DELIVERED: i16 = 100;
    pub const DELIVERED_CE: i16 = 104;
    pub const ICSK_RETRANSMITS: i16 = 108;
    /// `offsetofend(struct bpf_tcp_sock, icsk_retransmits)`: the size.
    pub const SIZE: i16 = 112;
}

/// `struct bpf_xdp_sock`.
pub mod bpf_xdp_sock {
    pub const QUEUE_ID: i16 = 0;
    /// `offsetofend(struct bpf_xdp_sock, queue_id)`: the size.
    pub const SIZE: i16 = 4;
}

/// `struct bpf_flow_keys`: what a flow dissector program fills in.
pub mod bpf_flow_keys {
    /// `__u16`, as the next two.
    pub const NHOFF: i16 = 0;
    pub const THOFF: i16 = 2;
    pub const ADDR_PROTO: i16 = 4;
    /// `__u8`, as the next three.
    pub const IS_FRAG: i16 = 6;
    pub const IS_FIRST_FRAG: i16 = 7;
    pub const IS_ENCAP: i16 = 8;
    pub const IP_PROTO: i16 = 9;
    /// `__be16`, as the ports.
    pub const N_PROTO: i16 = 10;
    pub const SPORT: i16 = 12;
    pub const DPORT: i16 = 14;
    /// `__be32`, in a union with `ipv6_src`.
    pub const IPV4_SRC: i16 = 16;
    pub const IPV4_DST: i16 = 20;
    /// `__u32 ipv6_src[4]`.
    pub const IPV6_SRC: i16 = 16;
    /// `__u32 ipv6_dst[4]`.
    pub const IPV6_DST: i16 = 32;
    /// `__u32`, the only field a test run's ctx may set.
    pub const FLAGS: i16 = 48;
    /// `__be32`.
    pub const FLOW_LABEL: i16 = 52;
    /// `sizeof(struct bpf_flow_keys)`.
    pub const SIZE: i16 = 56;
}

/// `struct bpf_fib_lookup`: `bpf_fib_lookup`'s in-out argument.
pub mod bpf_fib_lookup {
    /// `__u8`: `AF_INET` or `AF_INET6`.
    pub const FAMILY: i16 = 0;
    /// `sizeof(struct bpf_fib_lookup)`.
    pub const SIZE: i16 = 64;
}

/// `struct bpf_cgroup_storage_key`: a cgroup storage map's key (or a
/// plain u64 cgroup id).
pub mod bpf_cgroup_storage_key {
    /// `sizeof(struct bpf_cgroup_storage_key)`.
    pub const SIZE: i16 = 16;
}

/// `struct bpf_stack_build_id`: one frame of a stack trace map's value
/// with `BPF_F_STACK_BUILD_ID`.
pub mod bpf_stack_build_id {
    /// `sizeof(struct bpf_stack_build_id)`.
    pub const SIZE: i16 = 32;
}

/// `struct bpf_insn_array_value`: an insn array map's value.
pub mod bpf_insn_array_value {
    /// `sizeof(struct bpf_insn_array_value)`.
    pub const SIZE: i16 = 16;
}

/// `sizeof(bpf_user_pt_regs_t)` (the arch's `asm/bpf_perf_event.h`): a
/// kprobe program's ctx, and the registers `struct bpf_perf_event_data`
/// starts with (its u64s `sample_period` and `addr` follow).
pub const fn bpf_user_pt_regs_size(arch: Arch) -> i16 {
    match arch {
        // struct pt_regs
        Arch::X86_64 => 168,
        // struct user_pt_regs: x0-x30, sp, pc, pstate
        Arch::Arm64 => 272,
        // struct user_regs_struct: pc and x1-x31
        Arch::Riscv64 => 256,
        // user_pt_regs: args[1], psw, gprs[16]
        Arch::S390x => 152,
        // struct user_pt_regs: regs[32], orig_a0, csr_era, csr_badv, reserved[10]
        Arch::Loongarch64 => 360,
    }
}

/// `TC_ACT_SHOT` and `TC_ACT_REDIRECT` (`include/uapi/linux/pkt_cls.h`):
/// what a tc program returns to drop or redirect a packet.
pub const TC_ACT_SHOT: i32 = 2;
pub const TC_ACT_REDIRECT: i32 = 7;
/// `XDP_ABORTED` and `XDP_REDIRECT` of `enum xdp_action`.
pub const XDP_ABORTED: i32 = 0;
pub const XDP_REDIRECT: i32 = 4;

/// `BPF_PROG_LOAD`'s `prog_flags` (and `BPF_F_TOKEN_FD`, which it shares
/// with `map_flags`: [`crate::map::flags`]).
pub mod prog_flags {
    pub const BPF_F_STRICT_ALIGNMENT: u32 = 1 << 0;
    pub const BPF_F_ANY_ALIGNMENT: u32 = 1 << 1;
    pub const BPF_F_TEST_RND_HI32: u32 = 1 << 2;
    pub const BPF_F_TEST_STATE_FREQ: u32 = 1 << 3;
    pub const BPF_F_SLEEPABLE: u32 = 1 << 4;
    pub const BPF_F_XDP_HAS_FRAGS: u32 = 1 << 5;
    pub const BPF_F_XDP_DEV_BOUND_ONLY: u32 = 1 << 6;
    pub const BPF_F_TEST_REG_INVARIANTS: u32 = 1 << 7;
}
