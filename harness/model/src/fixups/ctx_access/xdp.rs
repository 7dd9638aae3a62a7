//! `struct xdp_md` -> `struct xdp_buff`: `xdp_convert_ctx_access`; and
//! `struct bpf_xdp_sock` -> `struct xdp_sock`:
//! `bpf_xdp_sock_convert_ctx_access`.

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};
use crate::uapi::{bpf_xdp_sock, xdp_md};

/// `xdp_convert_ctx_access`: every field is read only.
pub fn xdp_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    use xdp_md::*;
    let x = &cx.layout.xdp_buff;
    let (d, s) = (si.dst, si.src);
    let insns = match si.off {
        DATA => vec![ldx(BPF_DW, d, s, x.data)],
        DATA_END => vec![ldx(BPF_DW, d, s, x.data_end)],
        DATA_META => vec![ldx(BPF_DW, d, s, x.data_meta)],
        INGRESS_IFINDEX => vec![ldx(BPF_DW, d, s, x.rxq), ldx(BPF_DW, d, d, x.rxq_dev), ldx(BPF_W, d, d, cx.layout.net_device_ifindex)],
        RX_QUEUE_INDEX => vec![ldx(BPF_DW, d, s, x.rxq), ldx(BPF_W, d, d, x.rxq_queue_index)],
        // egress_ifindex (devmap programs) goes through xdp_buff.txq, not measured yet
        off => return Err(cx.unsupported(&format!("xdp_md field at offset {off}"))),
    };
    Ok((insns, 0))
}

/// `bpf_xdp_sock_convert_ctx_access`: `queue_id`, the socket's u16 (read
/// only, whole).
pub fn bpf_xdp_sock_convert_ctx_access(cx: &Conv<'_>, _ty: Access, si: &Insn) -> Converted {
    match si.off {
        bpf_xdp_sock::QUEUE_ID => Ok((vec![ldx(BPF_H, si.dst, si.src, cx.layout.xdp_sock_queue_id)], 0)),
        off => Err(cx.unsupported(&format!("bpf_xdp_sock field at offset {off}"))),
    }
}
