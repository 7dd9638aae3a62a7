//! `struct bpf_sock_ops` -> `struct bpf_sock_ops_kern`
//! (`sock_ops_convert_ctx_access`): the op and reply words in place, the
//! socket's addresses through `sk`, the tcp_sock counters only when the
//! socket is a locked full TCP socket (0 otherwise), the header's skb
//! fields only when there is an skb.

use bpf_isa::Insn;
use bpf_isa::insn::BPF_REG_AX;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};
use crate::uapi::{bpf_sock_ops, bpf_tcp_sock};

/// The `bpf_sock_ops` fields that are `tcp_sock` members, by the
/// `bpf_tcp_sock` offset of the same member (whose layout entry gives the
/// kernel offset and size): `(bpf_sock_ops off, bpf_tcp_sock off)`.
const TCP_SOCK_FIELDS: &[(i16, i16)] = {
    use bpf_sock_ops as ops;
    use bpf_tcp_sock as tcp;
    &[
        (ops::SND_CWND, tcp::SND_CWND),
        (ops::SRTT_US, tcp::SRTT_US),
        (ops::RTT_MIN, tcp::RTT_MIN), // rtt_min.s[0].v
        (ops::SND_SSTHRESH, tcp::SND_SSTHRESH),
        (ops::RCV_NXT, tcp::RCV_NXT),
        (ops::SND_NXT, tcp::SND_NXT),
        (ops::SND_UNA, tcp::SND_UNA),
        (ops::MSS_CACHE, tcp::MSS_CACHE),
        (ops::ECN_FLAGS, tcp::ECN_FLAGS),
        (ops::RATE_DELIVERED, tcp::RATE_DELIVERED),
        (ops::RATE_INTERVAL_US, tcp::RATE_INTERVAL_US),
        (ops::PACKETS_OUT, tcp::PACKETS_OUT),
        (ops::RETRANS_OUT, tcp::RETRANS_OUT),
        (ops::TOTAL_RETRANS, tcp::TOTAL_RETRANS),
        (ops::SEGS_IN, tcp::SEGS_IN),
        (ops::DATA_SEGS_IN, tcp::DATA_SEGS_IN),
        (ops::SEGS_OUT, tcp::SEGS_OUT),
        (ops::DATA_SEGS_OUT, tcp::DATA_SEGS_OUT),
        (ops::LOST_OUT, tcp::LOST_OUT),
        (ops::SACKED_OUT, tcp::SACKED_OUT),
        (ops::BYTES_RECEIVED, tcp::BYTES_RECEIVED),
        (ops::BYTES_ACKED, tcp::BYTES_ACKED),
    ]
};

/// The register the conversions borrow: r9, or the next one down that
/// neither operand uses.
fn borrowed_reg(si: &Insn) -> u8 {
    let mut r = 9;
    for _ in 0..2 {
        if si.dst == r || si.src == r {
            r -= 1;
        }
    }
    r
}

/// `SOCK_OPS_GET_FIELD` (`field` = `Some((size, off))` of a socket member)
/// and `SOCK_OPS_GET_SK` (`None`, gated on `is_fullsock`): the load only
/// when the socket may be read, 0 otherwise. When dst is the ctx register
/// the gate is tested in a borrowed register saved to `temp`.
fn sock_ops_get(cx: &Conv<'_>, si: &Insn, field: Option<(u8, i16)>) -> Vec<Insn> {
    let k = &cx.layout.sock_ops;
    let (d, s) = (si.dst, si.src);
    let same = d == s;
    let reg = borrowed_reg(si);
    let (gate, mut jmp) = match field {
        Some(_) => (k.is_locked_tcp_sock, 2),
        None => (k.is_fullsock, 1),
    };
    let mut out = Vec::new();
    let mut gate_reg = d;
    if same {
        out.push(Insn::new(BPF_STX | BPF_DW | BPF_MEM, s, reg, k.temp, 0));
        gate_reg = reg;
        jmp += 2;
    }
    out.push(ldx(BPF_B, gate_reg, s, gate));
    out.push(jmp_imm(BPF_JEQ, gate_reg, 0, jmp));
    if same {
        out.push(ldx(BPF_DW, reg, s, k.temp));
    }
    out.push(ldx(BPF_DW, d, s, k.sk));
    if let Some((size, off)) = field {
        out.push(ldx(size, d, d, off));
    }
    if same {
        out.push(jmp_a(2));
        out.push(ldx(BPF_DW, reg, s, k.temp));
        out.push(mov64_imm(d, 0));
    }
    out
}

/// `SOCK_OPS_SET_FIELD`: the store into a socket member only when the
/// socket is a locked TCP socket, through a borrowed register.
fn sock_ops_set(cx: &Conv<'_>, si: &Insn, size: u8, off: i16) -> Vec<Insn> {
    let k = &cx.layout.sock_ops;
    let d = si.dst;
    let reg = borrowed_reg(si);
    vec![
        Insn::new(BPF_STX | BPF_DW | BPF_MEM, d, reg, k.temp, 0),
        ldx(BPF_B, reg, d, k.is_locked_tcp_sock),
        jmp_imm(BPF_JEQ, reg, 0, 2),
        ldx(BPF_DW, reg, d, k.sk),
        Insn::new(size | BPF_MEM | (si.code & 0x07), reg, si.src, off, si.imm),
        ldx(BPF_DW, reg, d, k.temp),
    ]
}

/// `sock_ops_convert_ctx_access`.
pub fn sock_ops_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    use bpf_sock_ops::*;
    let (l, k, sc) = (cx.layout, &cx.layout.sock_ops, &cx.layout.sock_common);
    let (d, s) = (si.dst, si.src);
    // a field of the socket: sk, then the member
    let via_sk = |size: u8, off: i16| vec![ldx(BPF_DW, d, s, k.sk), ldx(size, d, d, off)];
    // a field of the skb, if there is one
    let via_skb = |size: u8, off: i16| vec![ldx(BPF_DW, d, s, k.skb), jmp_imm(BPF_JEQ, d, 0, 1), ldx(size, d, d, off)];
    let mut target_size = 0;
    let out = match si.off {
        OP => vec![ldx(BPF_B, d, s, k.op)],
        REPLYLONG..FAMILY => {
            let off = si.off - REPLYLONG + k.replylong;
            vec![if ty == Access::Write { emit_store(si, BPF_W, off) } else { ldx(BPF_W, d, s, off) }]
        }
        FAMILY => via_sk(BPF_H, sc.skc_family),
        REMOTE_IP4 => via_sk(BPF_W, sc.skc_daddr),
        LOCAL_IP4 => via_sk(BPF_W, sc.skc_rcv_saddr),
        REMOTE_IP6..LOCAL_IP6 => via_sk(BPF_W, sc.skc_v6_daddr + (si.off - REMOTE_IP6)),
        LOCAL_IP6..REMOTE_PORT => via_sk(BPF_W, sc.skc_v6_rcv_saddr + (si.off - LOCAL_IP6)),
        REMOTE_PORT => {
            let mut v = via_sk(BPF_H, sc.skc_dport);
            // little endian: the port in network order goes to the upper half
            v.push(alu32_imm(BPF_LSH, d, 16));
            v
        }
        LOCAL_PORT => via_sk(BPF_H, sc.skc_num),
        IS_FULLSOCK => vec![ldx(BPF_B, d, s, k.is_fullsock)],
        STATE => via_sk(BPF_B, sc.skc_state),
        BPF_SOCK_OPS_CB_FLAGS => sock_ops_get(cx, si, Some((BPF_B, k.tcp_bpf_sock_ops_cb_flags))),
        SK_TXHASH if ty == Access::Write => sock_ops_set(cx, si, BPF_W, k.sk_txhash),
        SK_TXHASH => sock_ops_get(cx, si, Some((BPF_W, k.sk_txhash))),
        SK => sock_ops_get(cx, si, None),
        SKB_DATA_END => vec![ldx(BPF_DW, d, s, k.skb_data_end)],
        SKB_DATA => via_skb(BPF_DW, l.sk_buff.data),
        SKB_LEN => via_skb(BPF_W, l.sk_buff.len),
        SKB_TCP_FLAGS => {
            target_size = 2;
            via_skb(BPF_H, l.sk_buff.cb + k.tcp_skb_cb_tcp_flags)
        }
        SKB_HWTSTAMP => {
            target_size = 8;
            let skb = &l.sk_buff;
            vec![
                ldx(BPF_DW, d, s, k.skb),
                // skb == NULL: skip skb_shinfo(skb)->hwtstamps
                jmp_imm(BPF_JEQ, d, 0, 4),
                ldx(BPF_W, BPF_REG_AX, d, skb.end),
                ldx(BPF_DW, d, d, skb.head),
                alu64_reg(BPF_ADD, d, BPF_REG_AX),
                ldx(BPF_DW, d, d, l.shinfo.hwtstamps),
            ]
        }
        off => match TCP_SOCK_FIELDS.iter().find(|(o, _)| *o == off) {
            Some(&(_, tcp_off)) => {
                let Some(&(_, size, kern_off)) = l.tcp_sock.iter().find(|(u, _, _)| *u == tcp_off) else {
                    return Err(cx.unsupported(&format!("tcp_sock member behind bpf_sock_ops offset {off}")));
                };
                sock_ops_get(cx, si, Some((size, kern_off)))
            }
            None => return Err(cx.unsupported(&format!("bpf_sock_ops field at offset {off}"))),
        },
    };
    Ok((out, target_size))
}
