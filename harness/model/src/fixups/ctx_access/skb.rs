//! `struct __sk_buff` -> `struct sk_buff`: `bpf_convert_ctx_access` (socket
//! filters, cgroup skb, lwt) and `tc_cls_act_convert_ctx_access` (tc),
//! and the direct packet write prologue `bpf_unclone_prologue`.

use bpf_isa::Insn;
use bpf_isa::helper_ids::bpf_func_id::SKB_PULL_DATA as BPF_FUNC_SKB_PULL_DATA;
use bpf_isa::insn::BPF_REG_AX;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};
use crate::kernel_layout::NO_QUEUE_MAPPING;
use crate::uapi::__sk_buff;

pub const SK_DROP: i32 = 0;

/// `tc_cls_act_convert_ctx_access`: `ifindex` without the NULL check (a
/// tc skb always has a device), the rest as [`bpf_convert_ctx_access`].
pub fn tc_cls_act_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    if si.off == __sk_buff::IFINDEX {
        let l = cx.layout;
        let insns = vec![ldx(BPF_DW, si.dst, si.src, l.sk_buff.dev), ldx(BPF_W, si.dst, si.dst, l.net_device_ifindex)];
        return Ok((insns, 4));
    }
    bpf_convert_ctx_access(cx, ty, si)
}

/// `sk_skb_convert_ctx_access`: `data_end` computed from the skb, `cb`
/// in `sk_skb_cb`, the rest as [`bpf_convert_ctx_access`].
pub fn sk_skb_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    let skb = &cx.layout.sk_buff;
    match si.off {
        __sk_buff::DATA_END => Ok((bpf_convert_data_end_access(cx, si), 0)),
        __sk_buff::CB..__sk_buff::CB_END => {
            let off = si.off - __sk_buff::CB + skb.cb + skb.sk_skb_cb_data;
            let size = si.code & 0x18;
            let insn = if ty == Access::Write { emit_store(si, size, off) } else { ldx(size, si.dst, si.src, off) };
            Ok((vec![insn], 0))
        }
        _ => bpf_convert_ctx_access(cx, ty, si),
    }
}

/// `bpf_convert_data_end_access`: `data + len - data_len`, in a scratch
/// register saved to `sk_skb_cb.temp_reg` when dst is the ctx register.
fn bpf_convert_data_end_access(cx: &Conv<'_>, si: &Insn) -> Vec<Insn> {
    let l = &cx.layout.sk_buff;
    let temp_reg_off = l.cb + l.sk_skb_cb_temp_reg;
    let mut out = Vec::new();
    let same = si.src == si.dst;
    let reg = if same {
        // r9, or the next one down that neither operand uses
        let mut r = 9;
        for _ in 0..2 {
            if si.src == r || si.dst == r {
                r -= 1;
            }
        }
        out.push(Insn::new(BPF_STX | BPF_DW | BPF_MEM, si.src, r, temp_reg_off, 0));
        r
    } else {
        si.dst
    };
    out.push(ldx(BPF_DW, reg, si.src, l.data));
    out.push(ldx(BPF_W, BPF_REG_AX, si.src, l.len));
    out.push(alu64_reg(BPF_ADD, reg, BPF_REG_AX));
    out.push(ldx(BPF_W, BPF_REG_AX, si.src, l.data_len));
    out.push(alu64_reg(BPF_SUB, reg, BPF_REG_AX));
    if same {
        out.push(mov64_reg(BPF_REG_AX, si.src));
        out.push(mov64_reg(si.dst, reg));
        out.push(ldx(BPF_DW, reg, BPF_REG_AX, temp_reg_off));
    }
    out
}

/// `flow_dissector_convert_ctx_access`: the packet bounds and the flow
/// keys of `struct bpf_flow_dissector`.
pub fn flow_dissector_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    let fd = &cx.layout.flow_dissector;
    let off = match si.off {
        __sk_buff::DATA => fd.data,
        __sk_buff::DATA_END => fd.data_end,
        __sk_buff::FLOW_KEYS => fd.flow_keys,
        off => return Err(cx.unsupported(&format!("__sk_buff field at offset {off} of a flow dissector"))),
    };
    Ok((vec![ldx(BPF_DW, si.dst, si.src, off)], 0))
}

/// `bpf_convert_ctx_access`: the load or store of one `__sk_buff` field.
pub fn bpf_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    use __sk_buff::*;
    let skb = &cx.layout.sk_buff;
    let (d, s) = (si.dst, si.src);
    let write = ty == Access::Write;
    // a field of `size` bytes read or written in place
    let rw = |size: u8, off: i16| {
        if write { emit_store(si, size, off) } else { ldx(size, d, s, off) }
    };
    let mut out = Vec::new();
    let target_size = match si.off {
        LEN => {
            out.push(ldx(BPF_W, d, s, skb.len));
            4
        }
        PROTOCOL => {
            out.push(ldx(BPF_H, d, s, skb.protocol));
            2
        }
        VLAN_PROTO => {
            out.push(ldx(BPF_H, d, s, skb.vlan_proto));
            2
        }
        PRIORITY => {
            out.push(rw(BPF_W, skb.priority));
            4
        }
        INGRESS_IFINDEX => {
            out.push(ldx(BPF_W, d, s, skb.skb_iif));
            4
        }
        IFINDEX => {
            out.push(ldx(BPF_DW, d, s, skb.dev));
            out.push(jmp_imm(BPF_JEQ, d, 0, 1));
            out.push(ldx(BPF_W, d, d, cx.layout.net_device_ifindex));
            4
        }
        HASH => {
            out.push(ldx(BPF_W, d, s, skb.hash));
            4
        }
        MARK => {
            out.push(rw(BPF_W, skb.mark));
            4
        }
        PKT_TYPE => {
            out.push(ldx(BPF_B, d, s, skb.pkt_type_offset));
            out.push(alu32_imm(BPF_AND, d, skb.pkt_type_max));
            1
        }
        QUEUE_MAPPING if write => {
            if si.code & 0x07 == BPF_ST && si.imm >= NO_QUEUE_MAPPING {
                // an impossible queue: the store becomes a no-op
                out.push(jmp_a(0));
            } else {
                if si.code & 0x07 == BPF_STX {
                    out.push(jmp_imm(BPF_JGE, s, NO_QUEUE_MAPPING, 1));
                }
                out.push(emit_store(si, BPF_H, skb.queue_mapping));
            }
            2
        }
        QUEUE_MAPPING => {
            out.push(ldx(BPF_H, d, s, skb.queue_mapping));
            2
        }
        VLAN_PRESENT => {
            out.push(ldx(BPF_W, d, s, skb.vlan_all));
            out.push(jmp_imm(BPF_JEQ, d, 0, 1));
            out.push(alu32_imm(BPF_MOV, d, 1));
            4
        }
        VLAN_TCI => {
            out.push(ldx(BPF_H, d, s, skb.vlan_tci));
            2
        }
        CB..CB_END => {
            let off = si.off - CB + skb.cb + skb.qdisc_data;
            out.push(rw(si.code & 0x18, off));
            0
        }
        TC_CLASSID => {
            out.push(rw(BPF_H, skb.cb + skb.qdisc_tc_classid));
            2
        }
        DATA => {
            out.push(ldx(BPF_DW, d, s, skb.data));
            0
        }
        DATA_META => {
            out.push(ldx(BPF_DW, d, s, skb.cb + skb.cb_data_meta));
            0
        }
        DATA_END => {
            out.push(ldx(BPF_DW, d, s, skb.cb + skb.cb_data_end));
            0
        }
        TC_INDEX => {
            // CONFIG_NET_SCHED
            out.push(rw(BPF_H, skb.tc_index));
            2
        }
        NAPI_ID => {
            // CONFIG_NET_RX_BUSY_POLL: ids below MIN_NAPI_ID are not napi ids
            out.push(ldx(BPF_W, d, s, skb.napi_id));
            out.push(jmp_imm(BPF_JGE, d, cx.layout.min_napi_id, 1));
            out.push(mov64_imm(d, 0));
            4
        }
        FAMILY => sk_field(cx, si, &mut out, BPF_H, cx.layout.sock_common.skc_family, 2),
        REMOTE_IP4 => sk_field(cx, si, &mut out, BPF_W, cx.layout.sock_common.skc_daddr, 4),
        LOCAL_IP4 => sk_field(cx, si, &mut out, BPF_W, cx.layout.sock_common.skc_rcv_saddr, 4),
        REMOTE_IP6..LOCAL_IP6 => {
            // no target size: the kernel records none for the ip6 words
            let off = cx.layout.sock_common.skc_v6_daddr + (si.off - REMOTE_IP6);
            sk_field(cx, si, &mut out, BPF_W, off, 0)
        }
        LOCAL_IP6..REMOTE_PORT => {
            let off = cx.layout.sock_common.skc_v6_rcv_saddr + (si.off - LOCAL_IP6);
            sk_field(cx, si, &mut out, BPF_W, off, 0)
        }
        REMOTE_PORT => {
            let t = sk_field(cx, si, &mut out, BPF_H, cx.layout.sock_common.skc_dport, 2);
            // little endian: the port in network order goes to the upper half
            out.push(alu32_imm(BPF_LSH, d, 16));
            t
        }
        LOCAL_PORT => sk_field(cx, si, &mut out, BPF_H, cx.layout.sock_common.skc_num, 2),
        TSTAMP if write => {
            bpf_convert_tstamp_write(cx, si, &mut out);
            0
        }
        TSTAMP => {
            bpf_convert_tstamp_read(cx, si, &mut out);
            0
        }
        TSTAMP_TYPE => {
            out.push(ldx(BPF_B, d, s, skb.bf_mono_tc_offset));
            out.push(alu32_imm(BPF_AND, d, skb.tstamp_type_mask));
            0
        }
        GSO_SEGS => {
            bpf_convert_shinfo_access(cx, d, s, &mut out);
            out.push(ldx(BPF_H, d, d, cx.layout.shinfo.gso_segs));
            2
        }
        GSO_SIZE => {
            bpf_convert_shinfo_access(cx, d, s, &mut out);
            out.push(ldx(BPF_H, d, d, cx.layout.shinfo.gso_size));
            2
        }
        WIRE_LEN => {
            out.push(ldx(BPF_W, d, s, skb.cb + skb.qdisc_pkt_len));
            4
        }
        SK => {
            out.push(ldx(BPF_DW, d, s, skb.sk));
            0
        }
        HWTSTAMP => {
            bpf_convert_shinfo_access(cx, d, s, &mut out);
            out.push(ldx(BPF_DW, d, d, cx.layout.shinfo.hwtstamps));
            8
        }
        off => return Err(cx.unsupported(&format!("__sk_buff field at offset {off}"))),
    };
    Ok((out, target_size))
}

/// A field of `skb->sk`'s `sock_common`.
fn sk_field(cx: &Conv<'_>, si: &Insn, out: &mut Vec<Insn>, size: u8, off: i16, target_size: u32) -> u32 {
    out.push(ldx(BPF_DW, si.dst, si.src, cx.layout.sk_buff.sk));
    out.push(ldx(size, si.dst, si.dst, off));
    target_size
}

/// `bpf_convert_shinfo_access`: `skb_shinfo(skb)` is `head + end`
/// (`NET_SKBUFF_DATA_USES_OFFSET` on 64-bit).
fn bpf_convert_shinfo_access(cx: &Conv<'_>, dst: u8, skb: u8, out: &mut Vec<Insn>) {
    let l = &cx.layout.sk_buff;
    out.push(ldx(BPF_W, BPF_REG_AX, skb, l.end));
    out.push(ldx(BPF_DW, dst, skb, l.head));
    out.push(alu64_reg(BPF_ADD, dst, BPF_REG_AX));
}

/// `bpf_convert_tstamp_read`: unless the program reads `tstamp_type`, a
/// delivery time seen at ingress reads as 0.
fn bpf_convert_tstamp_read(cx: &Conv<'_>, si: &Insn, out: &mut Vec<Insn>) {
    let l = &cx.layout.sk_buff;
    let (value, skb) = (si.dst, si.src);
    if !cx.tstamp_type_access {
        let tmp = BPF_REG_AX;
        out.push(ldx(BPF_B, tmp, skb, l.bf_mono_tc_offset));
        out.push(jmp32_imm(BPF_JSET, tmp, l.tc_at_ingress_mask, 1));
        out.push(jmp_a(4));
        out.push(jmp32_imm(BPF_JSET, tmp, l.tstamp_type_mask, 1));
        out.push(jmp_a(2));
        out.push(mov64_imm(value, 0));
        out.push(jmp_a(1));
    }
    out.push(ldx(BPF_DW, value, skb, l.tstamp));
}

/// `bpf_convert_tstamp_write`: unless the program reads `tstamp_type`, a
/// write at ingress also clears `tstamp_type`.
fn bpf_convert_tstamp_write(cx: &Conv<'_>, si: &Insn, out: &mut Vec<Insn>) {
    let l = &cx.layout.sk_buff;
    let skb = si.dst;
    if !cx.tstamp_type_access {
        let tmp = BPF_REG_AX;
        out.push(ldx(BPF_B, tmp, skb, l.bf_mono_tc_offset));
        out.push(jmp32_imm(BPF_JSET, tmp, l.tc_at_ingress_mask, 1));
        out.push(jmp_a(2));
        out.push(alu32_imm(BPF_AND, tmp, !l.tstamp_type_mask));
        out.push(Insn::new(BPF_STX | BPF_B | BPF_MEM, skb, tmp, l.bf_mono_tc_offset, 0));
    }
    out.push(emit_store(si, BPF_DW, l.tstamp));
}

/// `bpf_unclone_prologue` (tc's `gen_prologue`) for a program that writes
/// packet data: a cloned skb is unshared first (`bpf_skb_pull_data(skb,
/// 0)`), dropping the packet if that fails. Ends with the first insn.
pub fn bpf_unclone_prologue(cx: &Conv<'_>, first: Insn, drop_verdict: i32) -> Vec<Insn> {
    let l = &cx.layout.sk_buff;
    vec![
        ldx(BPF_B, 6, 1, l.cloned_offset),
        alu32_imm(BPF_AND, 6, l.cloned_mask),
        jmp_imm(BPF_JEQ, 6, 0, 7),
        mov64_reg(6, 1),
        alu64_reg(BPF_XOR, 2, 2),
        Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_SKB_PULL_DATA),
        jmp_imm(BPF_JEQ, 0, 0, 2),
        alu32_imm(BPF_MOV, 0, drop_verdict),
        Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        mov64_reg(1, 6),
        first,
    ]
}
