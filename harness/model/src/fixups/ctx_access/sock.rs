//! Socket views: `struct bpf_sock` -> `struct sock`
//! (`bpf_sock_convert_ctx_access`, for PTR_TO_SOCKET and
//! PTR_TO_SOCK_COMMON), `struct bpf_sk_lookup` ->
//! `struct bpf_sk_lookup_kern` (`sk_lookup_convert_ctx_access`) and
//! `struct sk_reuseport_md` -> `struct sk_reuseport_kern`
//! (`sk_reuseport_convert_ctx_access`).

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};
use crate::kernel_layout::NO_QUEUE_MAPPING;
use crate::uapi::{bpf_sk_lookup, bpf_sock, sk_msg_md, sk_reuseport_md};

/// `bpf_sock_convert_ctx_access`.
pub fn bpf_sock_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    use bpf_sock::*;
    let (sc, sk) = (&cx.layout.sock_common, &cx.layout.sock);
    let (d, s) = (si.dst, si.src);
    let write = ty == Access::Write;
    let rw = |size: u8, off: i16| {
        if write { emit_store(si, size, off) } else { ldx(size, d, s, off) }
    };
    let own_size = si.code & 0x18;
    let r = match si.off {
        BOUND_DEV_IF => (vec![rw(BPF_W, sk.sk_bound_dev_if)], 0),
        MARK => (vec![rw(BPF_W, sk.sk_mark)], 0),
        PRIORITY => (vec![rw(BPF_W, sk.sk_priority)], 0),
        FAMILY => (vec![ldx(BPF_H, d, s, sc.skc_family)], 2),
        TYPE => (vec![ldx(BPF_H, d, s, sk.sk_type)], 2),
        PROTOCOL => (vec![ldx(BPF_H, d, s, sk.sk_protocol)], 2),
        SRC_IP4 => (vec![ldx(own_size, d, s, sc.skc_rcv_saddr)], 4),
        DST_IP4 => (vec![ldx(own_size, d, s, sc.skc_daddr)], 4),
        SRC_IP6..SRC_PORT => (vec![ldx(own_size, d, s, sc.skc_v6_rcv_saddr + (si.off - SRC_IP6))], 4),
        DST_IP6..STATE => (vec![ldx(own_size, d, s, sc.skc_v6_daddr + (si.off - DST_IP6))], 4),
        SRC_PORT => (vec![ldx(BPF_H, d, s, sc.skc_num)], 2),
        DST_PORT => (vec![ldx(BPF_H, d, s, sc.skc_dport)], 2),
        STATE => (vec![ldx(BPF_B, d, s, sc.skc_state)], 1),
        RX_QUEUE_MAPPING => {
            // CONFIG_SOCK_RX_QUEUE_MAPPING: no mapping reads as -1
            let v = vec![ldx(BPF_H, d, s, sk.sk_rx_queue_mapping), jmp_imm(BPF_JNE, d, NO_QUEUE_MAPPING, 1), alu32_imm(BPF_MOV, d, -1)];
            (v, 4)
        }
        off => return Err(cx.unsupported(&format!("bpf_sock field at offset {off}"))),
    };
    Ok(r)
}

/// `sk_lookup_convert_ctx_access` (read only).
pub fn sk_lookup_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    use bpf_sk_lookup::*;
    let k = &cx.layout.sk_lookup_kern;
    let (d, s) = (si.dst, si.src);
    // the ip6 addresses hang off pointers that may be NULL (an ip4 lookup)
    let ip6 = |ptr: i16, word: i16| vec![ldx(BPF_DW, d, s, ptr), jmp_imm(BPF_JEQ, d, 0, 1), ldx(BPF_W, d, d, word)];
    let r = match si.off {
        SK => (vec![ldx(BPF_DW, d, s, k.selected_sk)], 0),
        FAMILY => (vec![ldx(BPF_H, d, s, k.family)], 2),
        PROTOCOL => (vec![ldx(BPF_H, d, s, k.protocol)], 2),
        REMOTE_IP4 => (vec![ldx(BPF_W, d, s, k.v4_saddr)], 4),
        LOCAL_IP4 => (vec![ldx(BPF_W, d, s, k.v4_daddr)], 4),
        REMOTE_IP6..REMOTE_PORT => (ip6(k.v6_saddr, si.off - REMOTE_IP6), 4),
        LOCAL_IP6..LOCAL_PORT => (ip6(k.v6_daddr, si.off - LOCAL_IP6), 4),
        REMOTE_PORT => (vec![ldx(BPF_H, d, s, k.sport)], 2),
        REMOTE_PORT_PAD => (vec![alu32_imm(BPF_MOV, d, 0)], 2),
        LOCAL_PORT => (vec![ldx(BPF_H, d, s, k.dport)], 2),
        INGRESS_IFINDEX => (vec![ldx(BPF_W, d, s, k.ingress_ifindex)], 4),
        off => return Err(cx.unsupported(&format!("bpf_sk_lookup field at offset {off}"))),
    };
    Ok(r)
}

/// `bpf_tcp_sock_convert_ctx_access`: every field is one load of the
/// `tcp_sock` member (read only, no narrow loads).
pub fn bpf_tcp_sock_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    match cx.layout.tcp_sock.iter().find(|(uapi, _, _)| *uapi == si.off) {
        Some(&(_, size, off)) => Ok((vec![ldx(size, si.dst, si.src, off)], 0)),
        None => Err(cx.unsupported(&format!("bpf_tcp_sock field at offset {}", si.off))),
    }
}

/// `sk_msg_convert_ctx_access`: the message bounds and size in `sk_msg`,
/// the socket's addresses and ports through `msg->sk` (read only).
pub fn sk_msg_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    use sk_msg_md::*;
    let (m, sc) = (&cx.layout.sk_msg, &cx.layout.sock_common);
    let (d, s) = (si.dst, si.src);
    let via_sk = |size: u8, off: i16| vec![ldx(BPF_DW, d, s, m.sk), ldx(size, d, d, off)];
    let insns = match si.off {
        DATA => vec![ldx(BPF_DW, d, s, m.data)],
        DATA_END => vec![ldx(BPF_DW, d, s, m.data_end)],
        FAMILY => via_sk(BPF_H, sc.skc_family),
        REMOTE_IP4 => via_sk(BPF_W, sc.skc_daddr),
        LOCAL_IP4 => via_sk(BPF_W, sc.skc_rcv_saddr),
        REMOTE_IP6..LOCAL_IP6 => via_sk(BPF_W, sc.skc_v6_daddr + (si.off - REMOTE_IP6)),
        LOCAL_IP6..REMOTE_PORT => via_sk(BPF_W, sc.skc_v6_rcv_saddr + (si.off - LOCAL_IP6)),
        REMOTE_PORT => {
            let mut v = via_sk(BPF_H, sc.skc_dport);
            v.push(alu32_imm(BPF_LSH, d, 16));
            v
        }
        LOCAL_PORT => via_sk(BPF_H, sc.skc_num),
        MSG_SIZE => vec![ldx(BPF_W, d, s, m.sg_size)],
        SK => vec![ldx(BPF_DW, d, s, m.sk)],
        off => return Err(cx.unsupported(&format!("sk_msg_md field at offset {off}"))),
    };
    Ok((insns, 0))
}

/// `sk_reuseport_convert_ctx_access` (read only): the packet's data and
/// length and protocol are the skb's, `ip_protocol` the socket's.
pub fn sk_reuseport_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    use sk_reuseport_md::*;
    let (k, skb, sk) = (&cx.layout.sk_reuseport_kern, &cx.layout.sk_buff, &cx.layout.sock);
    let (d, s) = (si.dst, si.src);
    let via = |ptr: i16, size: u8, off: i16| vec![ldx(BPF_DW, d, s, ptr), ldx(size, d, d, off)];
    let r = match si.off {
        DATA => (via(k.skb, BPF_DW, skb.data), 0),
        LEN => (via(k.skb, BPF_W, skb.len), 4),
        ETH_PROTOCOL => (via(k.skb, BPF_H, skb.protocol), 2),
        IP_PROTOCOL => (via(k.sk, BPF_H, sk.sk_protocol), 2),
        DATA_END => (vec![ldx(BPF_DW, d, s, k.data_end)], 0),
        HASH => (vec![ldx(BPF_W, d, s, k.hash)], 4),
        BIND_INANY => (vec![ldx(BPF_B, d, s, k.bind_inany)], 1),
        SK => (vec![ldx(BPF_DW, d, s, k.sk)], 0),
        MIGRATING_SK => (vec![ldx(BPF_DW, d, s, k.migrating_sk)], 0),
        off => return Err(cx.unsupported(&format!("sk_reuseport_md field at offset {off}"))),
    };
    Ok(r)
}
