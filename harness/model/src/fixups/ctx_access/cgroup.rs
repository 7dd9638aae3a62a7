//! The cgroup hooks' socket ctx: `struct bpf_sock_addr` ->
//! `struct bpf_sock_addr_kern` (`sock_addr_convert_ctx_access`) and
//! `struct bpf_sockopt` -> `struct bpf_sockopt_kern`
//! (`cg_sockopt_convert_ctx_access`).

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::emit::*;
use super::{Access, Conv, Converted};
use crate::uapi::{bpf_sock_addr, bpf_sockopt, sockaddr_in};

/// The register a store through a nested pointer borrows: r9, or the next
/// one down that is neither the store's base nor its source.
fn borrowed_reg(si: &Insn) -> u8 {
    let mut treg = 9;
    for _ in 0..2 {
        if si.src == treg || si.dst == treg {
            treg -= 1;
        }
    }
    treg
}

/// A store of `si` at `off` of the struct the ctx points to at `ptr`:
/// a borrowed register saved in the ctx's scratch slot `tmp_reg` holds
/// the pointer for the store (`size` wide, of `si`'s class), then gets
/// its value back.
fn store_nested(si: &Insn, ptr: i16, tmp_reg: i16, size: u8, off: i16) -> Vec<Insn> {
    let treg = borrowed_reg(si);
    vec![
        Insn::new(BPF_STX | BPF_MEM | BPF_DW, si.dst, treg, tmp_reg, 0),
        ldx(BPF_DW, treg, si.dst, ptr),
        Insn::new((si.code & 0x07) | BPF_MEM | size, treg, si.src, off, si.imm),
        ldx(BPF_DW, treg, si.dst, tmp_reg),
    ]
}

/// `sock_addr_convert_ctx_access`: the addresses and port live in the
/// user's sockaddr (sendmsg's source address behind `t_ctx`), read and
/// written as wide as the insn (the port as its u16); the family, type
/// and protocol are the socket's.
pub fn sock_addr_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    use bpf_sock_addr::*;
    let (k, sc, sk) = (&cx.layout.sock_addr_kern, &cx.layout.sock_common, &cx.layout.sock);
    let (d, s) = (si.dst, si.src);
    let own_size = si.code & 0x18;
    // a field of the struct behind the ctx's pointer at `ptr`
    let nested = |ptr: i16, size: u8, off: i16| match ty {
        Access::Read => vec![ldx(BPF_DW, d, s, ptr), ldx(size, d, d, off)],
        Access::Write => store_nested(si, ptr, k.tmp_reg, size, off),
    };
    let r = match si.off {
        USER_FAMILY => (nested(k.uaddr, BPF_H, sockaddr_in::SIN_FAMILY), 2),
        USER_IP4 => (nested(k.uaddr, own_size, sockaddr_in::SIN_ADDR), 4),
        USER_IP6..USER_PORT => (nested(k.uaddr, own_size, sockaddr_in::SIN6_ADDR + (si.off - USER_IP6)), 4),
        // sin_port and sin6_port are at the same offset
        USER_PORT => (nested(k.uaddr, BPF_H, sockaddr_in::SIN_PORT), 2),
        FAMILY => (nested(k.sk, BPF_H, sc.skc_family), 2),
        TYPE => (nested(k.sk, BPF_H, sk.sk_type), 2),
        PROTOCOL => (nested(k.sk, BPF_H, sk.sk_protocol), 2),
        MSG_SRC_IP4 => (nested(k.t_ctx, own_size, 0), 4),
        MSG_SRC_IP6..MSG_SRC_IP6_END => (nested(k.t_ctx, own_size, si.off - MSG_SRC_IP6), 4),
        SK => (vec![ldx(BPF_DW, d, s, k.sk)], 0),
        off => return Err(cx.unsupported(&format!("bpf_sock_addr field at offset {off}"))),
    };
    Ok(r)
}

/// `cg_sockopt_convert_ctx_access`: fields of `bpf_sockopt_kern` but
/// `retval`, the run's (`bpf_cg_run_ctx` of the current task).
pub fn cg_sockopt_convert_ctx_access(cx: &Conv<'_>, ty: Access, si: &Insn) -> Converted {
    use bpf_sockopt::*;
    let k = &cx.layout.sockopt_kern;
    let (d, s) = (si.dst, si.src);
    let rw = |size: u8, off: i16| match ty {
        Access::Read => ldx(size, d, s, off),
        Access::Write => emit_store(si, size, off),
    };
    let insns = match si.off {
        SK => vec![ldx(BPF_DW, d, s, k.sk)],
        OPTVAL => vec![ldx(BPF_DW, d, s, k.optval)],
        OPTVAL_END => vec![ldx(BPF_DW, d, s, k.optval_end)],
        LEVEL => vec![rw(BPF_W, k.level)],
        OPTNAME => vec![rw(BPF_W, k.optname)],
        OPTLEN => vec![rw(BPF_W, k.optlen)],
        RETVAL => match ty {
            Access::Read => vec![ldx(BPF_DW, d, s, k.current_task), ldx(BPF_DW, d, d, k.task_bpf_ctx), ldx(BPF_W, d, d, k.cg_run_ctx_retval)],
            Access::Write => {
                let treg = borrowed_reg(si);
                vec![
                    Insn::new(BPF_STX | BPF_MEM | BPF_DW, d, treg, k.tmp_reg, 0),
                    ldx(BPF_DW, treg, d, k.current_task),
                    ldx(BPF_DW, treg, treg, k.task_bpf_ctx),
                    Insn::new((si.code & 0x07) | BPF_MEM | BPF_W, treg, s, k.cg_run_ctx_retval, si.imm),
                    ldx(BPF_DW, treg, d, k.tmp_reg),
                ]
            }
        },
        off => return Err(cx.unsupported(&format!("bpf_sockopt field at offset {off}"))),
    };
    Ok((insns, 0))
}
