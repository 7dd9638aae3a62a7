//! Context access per program type: the `is_valid_access` callbacks of
//! `net/core/filter.c` and `kernel/trace/bpf_trace.c`, and whether the type
//! rewrites ctx accesses (`convert_ctx_access`), which decides if a ctx
//! pointer may be dereferenced at a fixed offset.

use super::reg::*;

/// `enum bpf_prog_type`.
pub use crate::prog_type::bpf_prog_type as pt;

/// What an allowed ctx load gives (`struct bpf_insn_access_aux`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CtxAccess {
    pub reg_type: RegType,
    /// `ctx_field_size` for narrow loads the fixups widen.
    pub ctx_field_size: u32,
    /// The struct of a `PTR_TO_BTF_ID` result (the model's id,
    /// [`super::kfuncs::btf_type_id_interned`]); 0 otherwise.
    pub btf_id: i64,
}

/// Result of an `is_valid_access` callback: `None` is "invalid",
/// `Err(what)` a program type this model does not know yet.
pub type Valid = Result<Option<CtxAccess>, String>;

use crate::uapi::__sk_buff;

fn in_field(off: i16, start: i16, size: i16) -> bool {
    off >= start && off < start + size
}

/// `bpf_ctx_narrow_access_ok`.
fn narrow_access_ok(off: i64, size: i64, size_default: i64) -> bool {
    size <= size_default && (size & (size - 1)) == 0 && off % size == 0
}

/// `bpf_skb_is_valid_access`.
fn bpf_skb_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool, reg_type: RegType) -> Option<CtxAccess> {
    use __sk_buff::*;
    if !(0..SIZE).contains(&off) || off % size != 0 {
        return None;
    }
    let mut field_size = 0;
    if in_field(off, CB, CB_END - CB) {
        if size > CB_END - off {
            return None;
        }
    } else if in_field(off, DATA, 4) || in_field(off, DATA_META, 4) || in_field(off, DATA_END, 4) {
        if is_ldsx || size != 4 {
            return None;
        }
    } else if in_field(off, REMOTE_IP6, REMOTE_PORT - REMOTE_IP6) || in_field(off, REMOTE_IP4, 4) || in_field(off, LOCAL_IP4, 4) {
        if size != 4 {
            return None;
        }
    } else if in_field(off, FLOW_KEYS, 8) {
        return None;
    } else if in_field(off, HWTSTAMP, 8) {
        if write || size != 8 {
            return None;
        }
    } else if in_field(off, TSTAMP, 8) {
        if size != 8 {
            return None;
        }
    } else if in_field(off, SK, 8) {
        if write || size != 8 {
            return None;
        }
        return Some(CtxAccess { reg_type: PTR_TO_SOCK_COMMON | PTR_MAYBE_NULL, ctx_field_size: 0, btf_id: 0 });
    } else if off == TSTAMP_TYPE || (TSTAMP_TYPE + 1..HWTSTAMP).contains(&off) {
        return None;
    } else if write {
        if size != 4 {
            return None;
        }
    } else {
        field_size = 4;
        if !narrow_access_ok(off.into(), size.into(), 4) {
            return None;
        }
    }
    Some(CtxAccess { reg_type, ctx_field_size: field_size, btf_id: 0 })
}

/// `sk_filter_is_valid_access`.
fn sk_filter_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if in_field(off, TC_CLASSID, 4)
        || in_field(off, DATA, 4)
        || in_field(off, DATA_META, 4)
        || in_field(off, DATA_END, 4)
        || in_field(off, FAMILY, DATA_META - FAMILY)
        || in_field(off, TSTAMP, 8)
        || in_field(off, WIRE_LEN, 4)
        || in_field(off, HWTSTAMP, 8)
    {
        return None;
    }
    if write && !in_field(off, CB, CB_END - CB) {
        return None;
    }
    bpf_skb_is_valid_access(off, size, write, is_ldsx, SCALAR_VALUE)
}

/// `cg_skb_is_valid_access` (the loader has CAP_BPF or not).
fn cg_skb_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool, bpf_capable: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if in_field(off, TC_CLASSID, 4) || in_field(off, DATA_META, 4) || in_field(off, WIRE_LEN, 4) {
        return None;
    }
    if (in_field(off, DATA, 4) || in_field(off, DATA_END, 4)) && !bpf_capable {
        return None;
    }
    if write {
        let ok = in_field(off, MARK, 4) || in_field(off, PRIORITY, 4) || in_field(off, CB, CB_END - CB) || (in_field(off, TSTAMP, 8) && bpf_capable);
        if !ok {
            return None;
        }
    }
    let t = if in_field(off, DATA, 4) {
        PTR_TO_PACKET
    } else if in_field(off, DATA_END, 4) {
        PTR_TO_PACKET_END
    } else {
        SCALAR_VALUE
    };
    bpf_skb_is_valid_access(off, size, write, is_ldsx, t)
}

/// `tc_cls_act_is_valid_access`.
fn tc_cls_act_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if write {
        let ok = in_field(off, MARK, 4)
            || in_field(off, TC_INDEX, 4)
            || in_field(off, PRIORITY, 4)
            || in_field(off, TC_CLASSID, 4)
            || in_field(off, CB, CB_END - CB)
            || in_field(off, TSTAMP, 8)
            || in_field(off, QUEUE_MAPPING, 4);
        if !ok {
            return None;
        }
    }
    let mut t = SCALAR_VALUE;
    if in_field(off, DATA, 4) {
        t = PTR_TO_PACKET;
    } else if in_field(off, DATA_META, 4) {
        t = PTR_TO_PACKET_META;
    } else if in_field(off, DATA_END, 4) {
        t = PTR_TO_PACKET_END;
    } else if in_field(off, FAMILY, DATA_META - FAMILY) {
        return None;
    } else if off == TSTAMP_TYPE {
        return (size == 1).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 0, btf_id: 0 });
    }
    bpf_skb_is_valid_access(off, size, write, is_ldsx, t)
}

/// `lwt_is_valid_access` (lwt_in, lwt_out, lwt_xmit, lwt_seg6local):
/// no socket addresses, tc fields or timestamps; writes to mark,
/// priority and cb only.
fn lwt_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if in_field(off, TC_CLASSID, 4)
        || in_field(off, FAMILY, DATA_META - FAMILY)
        || in_field(off, DATA_META, 4)
        || in_field(off, TSTAMP, 8)
        || in_field(off, WIRE_LEN, 4)
        || in_field(off, HWTSTAMP, 8)
    {
        return None;
    }
    if write && !(in_field(off, MARK, 4) || in_field(off, PRIORITY, 4) || in_field(off, CB, CB_END - CB)) {
        return None;
    }
    let t = if in_field(off, DATA, 4) {
        PTR_TO_PACKET
    } else if in_field(off, DATA_END, 4) {
        PTR_TO_PACKET_END
    } else {
        SCALAR_VALUE
    };
    bpf_skb_is_valid_access(off, size, write, is_ldsx, t)
}

/// `sk_skb_is_valid_access`: no mark, tc classid, meta data or
/// timestamps; writes to tc_index and priority only.
fn sk_skb_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if in_field(off, TC_CLASSID, 4) || in_field(off, DATA_META, 4) || in_field(off, TSTAMP, 8) || in_field(off, WIRE_LEN, 4) || in_field(off, HWTSTAMP, 8) {
        return None;
    }
    if write && !(in_field(off, TC_INDEX, 4) || in_field(off, PRIORITY, 4)) {
        return None;
    }
    if in_field(off, MARK, 4) {
        return None;
    }
    let t = if in_field(off, DATA, 4) {
        PTR_TO_PACKET
    } else if in_field(off, DATA_END, 4) {
        PTR_TO_PACKET_END
    } else {
        SCALAR_VALUE
    };
    bpf_skb_is_valid_access(off, size, write, is_ldsx, t)
}

/// `flow_dissector_is_valid_access`: read only; the packet bounds and
/// the `flow_keys` pointer, nothing else of `__sk_buff`.
fn flow_dissector_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool) -> Option<CtxAccess> {
    use __sk_buff::*;
    if !(0..SIZE).contains(&off) || off % size != 0 || write {
        return None;
    }
    let t = if in_field(off, DATA, 4) {
        PTR_TO_PACKET
    } else if in_field(off, DATA_END, 4) {
        PTR_TO_PACKET_END
    } else if in_field(off, FLOW_KEYS, 8) {
        return (size == 8).then_some(CtxAccess { reg_type: PTR_TO_FLOW_KEYS, ctx_field_size: 0, btf_id: 0 });
    } else {
        return None;
    };
    (!is_ldsx && size == 4).then_some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 })
}

/// `sk_msg_is_valid_access` (`struct sk_msg_md`, read only): the data
/// bounds and the socket as whole pointers, the rest as whole u32s.
fn sk_msg_is_valid_access(off: i16, size: i16, write: bool) -> Option<CtxAccess> {
    use crate::uapi::sk_msg_md::*;
    if write || off % size != 0 {
        return None;
    }
    let (t, want) = match off {
        DATA..DATA_END => (PTR_TO_PACKET, 8),
        DATA_END..FAMILY => (PTR_TO_PACKET_END, 8),
        // family .. size
        FAMILY..SK => (SCALAR_VALUE, 4),
        SK..SIZE => (PTR_TO_SOCKET, 8),
        _ => return None,
    };
    (size == want).then_some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 })
}

/// `sock_ops_is_valid_access`: u32 fields read whole (only
/// `skb_tcp_flags` narrower), the u64 counters, the socket and the
/// header's bounds; `reply` and `sk_txhash` writable.
fn sock_ops_is_valid_access(off: i16, size: i16, write: bool) -> Option<CtxAccess> {
    use crate::uapi::bpf_sock_ops::*;
    if !(0..SIZE).contains(&off) || off % size != 0 {
        return None;
    }
    let of = |t: RegType, ok: bool| ok.then_some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 });
    if write {
        return of(SCALAR_VALUE, matches!(off, REPLY | SK_TXHASH) && size == 4);
    }
    match off {
        BYTES_RECEIVED..SK => of(SCALAR_VALUE, size == 8),
        SK..SKB_DATA => of(PTR_TO_SOCKET | PTR_MAYBE_NULL, size == 8),
        SKB_DATA..SKB_DATA_END => of(PTR_TO_PACKET, size == 8),
        SKB_DATA_END..SKB_LEN => of(PTR_TO_PACKET_END, size == 8),
        SKB_TCP_FLAGS => narrow_access_ok(off.into(), size.into(), 4).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 4, btf_id: 0 }),
        SKB_HWTSTAMP..SIZE => of(SCALAR_VALUE, size == 8),
        _ => of(SCALAR_VALUE, size == 4),
    }
}

/// `pe_prog_is_valid_access` (64-bit): `struct bpf_perf_event_data` is the
/// arch's `bpf_user_pt_regs_t`, then the u64s `sample_period` and `addr`,
/// which may be read narrower; registers are read whole.
fn pe_prog_is_valid_access(off: i64, size: i64, write: bool, pt_regs_size: i64) -> Option<CtxAccess> {
    if !(0..pt_regs_size + 16).contains(&off) || write || off % size != 0 {
        return None;
    }
    if off >= pt_regs_size {
        return narrow_access_ok(off, size, 8).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 8, btf_id: 0 });
    }
    (size == 8).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 0, btf_id: 0 })
}

/// `sock_filter_is_valid_access` (cgroup_sock, `struct bpf_sock`):
/// `bpf_sock_is_valid_access`, then what the attach type may touch
/// (`__sock_filter_check_attach_type`).
fn sock_filter_is_valid_access(off: i64, size: i64, write: bool, attach: u32) -> Option<CtxAccess> {
    use crate::prog_type::bpf_attach_type::{CGROUP_INET_SOCK_CREATE, CGROUP_INET_SOCK_RELEASE, CGROUP_INET4_POST_BIND, CGROUP_INET6_POST_BIND};
    use crate::uapi::bpf_sock::{BOUND_DEV_IF, DST_PORT, MARK, PRIORITY, SRC_IP4, SRC_IP6, SRC_PORT};
    if !super::sock::bpf_sock_is_valid_access(off, size) {
        return None;
    }
    let read_only = |ok: bool| ok && !write;
    let allowed = match i16::try_from(off).ok()? {
        BOUND_DEV_IF | MARK | PRIORITY => matches!(attach, CGROUP_INET_SOCK_CREATE | CGROUP_INET_SOCK_RELEASE),
        SRC_IP4..SRC_IP6 => read_only(attach == CGROUP_INET4_POST_BIND),
        SRC_IP6..SRC_PORT => read_only(attach == CGROUP_INET6_POST_BIND),
        SRC_PORT..DST_PORT => read_only(matches!(attach, CGROUP_INET4_POST_BIND | CGROUP_INET6_POST_BIND)),
        _ => !write,
    };
    let field_size = if write { 0 } else { super::sock::bpf_sock_ctx_field_size(off as i16, size as u32) };
    allowed.then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: field_size, btf_id: 0 })
}

/// `xdp_is_valid_access`: only a devmap program (`BPF_XDP_DEVMAP`) reads
/// `egress_ifindex`; nothing is written (no offloaded programs here).
fn xdp_is_valid_access(off: i16, size: i16, write: bool, is_ldsx: bool, attach: u32) -> Option<CtxAccess> {
    use crate::uapi::xdp_md::*;
    if (off == EGRESS_IFINDEX && attach != crate::prog_type::bpf_attach_type::XDP_DEVMAP) || write {
        return None;
    }
    if matches!(off, DATA | DATA_END | DATA_META) && is_ldsx {
        return None;
    }
    let t = match off {
        DATA => PTR_TO_PACKET,
        DATA_END => PTR_TO_PACKET_END,
        DATA_META => PTR_TO_PACKET_META,
        _ => SCALAR_VALUE,
    };
    // __is_valid_xdp_access
    if !(0..SIZE).contains(&off) || off % size != 0 || size != 4 {
        return None;
    }
    Some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 })
}

/// `sk_lookup_is_valid_access` (`struct bpf_sk_lookup`, read only).
fn sk_lookup_is_valid_access(off: i16, size: i16, write: bool) -> Option<CtxAccess> {
    use crate::uapi::bpf_sk_lookup::*;
    const INGRESS_IFINDEX_END: i16 = INGRESS_IFINDEX + 4;
    if !(0..SIZE).contains(&off) || off % size != 0 || write {
        return None;
    }
    let field = |n: i16| (size <= n && size & (size - 1) == 0).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: n as u32, btf_id: 0 });
    match off {
        // the selected socket
        SK..FAMILY => (size == 8).then_some(CtxAccess { reg_type: PTR_TO_SOCKET | PTR_MAYBE_NULL, ctx_field_size: 0, btf_id: 0 }),
        // family, protocol, remote_ip4, remote_ip6, local_ip4, local_ip6,
        // local_port, ingress_ifindex
        FAMILY..REMOTE_PORT => field(4),
        LOCAL_IP4..INGRESS_IFINDEX_END => field(4),
        // remote_port: a 4-byte load of the 2-byte field is allowed
        REMOTE_PORT..REMOTE_PORT_PAD if size == 4 => Some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 0, btf_id: 0 }),
        REMOTE_PORT..REMOTE_PORT_PAD => field(2),
        // the zero padding after it
        REMOTE_PORT_PAD..LOCAL_IP4 => field(2),
        _ => None,
    }
}

/// `sock_addr_is_valid_access` (`struct bpf_sock_addr`): the addresses
/// of the attach type's family (and, for sendmsg, the source address)
/// and the port are read whole or narrower and written as u32s, the ip6
/// arrays also as aligned u64 pairs; the families, type and protocol are
/// read only u32s, the socket a read only pointer.
fn sock_addr_is_valid_access(off: i16, size: i16, write: bool, attach: u32) -> Option<CtxAccess> {
    use crate::prog_type::bpf_attach_type as at;
    use crate::uapi::bpf_sock_addr::*;
    if !(0..SIZE).contains(&off) || off % size != 0 {
        return None;
    }
    let inet4 = matches!(
        attach,
        at::CGROUP_INET4_BIND
            | at::CGROUP_INET4_CONNECT
            | at::CGROUP_INET4_GETPEERNAME
            | at::CGROUP_INET4_GETSOCKNAME
            | at::CGROUP_UDP4_SENDMSG
            | at::CGROUP_UDP4_RECVMSG
    );
    let inet6 = matches!(
        attach,
        at::CGROUP_INET6_BIND
            | at::CGROUP_INET6_CONNECT
            | at::CGROUP_INET6_GETPEERNAME
            | at::CGROUP_INET6_GETSOCKNAME
            | at::CGROUP_UDP6_SENDMSG
            | at::CGROUP_UDP6_RECVMSG
    );
    let family_ok = match off {
        USER_IP4..USER_IP6 => inet4,
        USER_IP6..USER_PORT => inet6,
        MSG_SRC_IP4..MSG_SRC_IP6 => attach == at::CGROUP_UDP4_SENDMSG,
        MSG_SRC_IP6..MSG_SRC_IP6_END => attach == at::CGROUP_UDP6_SENDMSG,
        _ => true,
    };
    if !family_ok {
        return None;
    }
    // bpf_ctx_wide_access_ok: a u64 at an 8-aligned offset inside the array
    let wide = |start: i16, end: i16| size == 8 && off % 8 == 0 && off >= start && off + 8 <= end;
    let scalar = |field_size: u32| CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: field_size, btf_id: 0 };
    match off {
        USER_IP4..FAMILY | MSG_SRC_IP4..MSG_SRC_IP6_END => {
            let whole = wide(USER_IP6, USER_PORT) || wide(MSG_SRC_IP6, MSG_SRC_IP6_END);
            if write { (whole || size == 4).then_some(scalar(0)) } else { (whole || narrow_access_ok(off.into(), size.into(), 4)).then_some(scalar(4)) }
        }
        USER_FAMILY..USER_IP4 | FAMILY..MSG_SRC_IP4 => (!write && size == 4).then_some(scalar(0)),
        SK => (!write && size == 8).then_some(CtxAccess { reg_type: PTR_TO_SOCKET, ctx_field_size: 0, btf_id: 0 }),
        _ => None,
    }
}

/// `cg_sockopt_is_valid_access` (kernel/bpf/cgroup.c, `struct
/// bpf_sockopt`): whole fields only; `retval` is getsockopt's, `level`
/// and `optname` are writable by setsockopt, `optlen` by both.
fn cg_sockopt_is_valid_access(off: i16, size: i16, write: bool, attach: u32) -> Option<CtxAccess> {
    use crate::prog_type::bpf_attach_type::{CGROUP_GETSOCKOPT, CGROUP_SETSOCKOPT};
    use crate::uapi::bpf_sockopt::*;
    if !(0..SIZE).contains(&off) || off % size != 0 {
        return None;
    }
    let of = |t: RegType, ok: bool| ok.then_some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 });
    if write {
        return match off {
            RETVAL => of(SCALAR_VALUE, size == 4 && attach == CGROUP_GETSOCKOPT),
            LEVEL | OPTNAME => of(SCALAR_VALUE, size == 4 && attach == CGROUP_SETSOCKOPT),
            OPTLEN => of(SCALAR_VALUE, size == 4),
            _ => None,
        };
    }
    match off {
        SK..OPTVAL => of(PTR_TO_SOCKET, size == 8),
        OPTVAL..OPTVAL_END => of(PTR_TO_PACKET, size == 8),
        OPTVAL_END..LEVEL => of(PTR_TO_PACKET_END, size == 8),
        RETVAL..SIZE => of(SCALAR_VALUE, size == 4 && attach == CGROUP_GETSOCKOPT),
        _ => of(SCALAR_VALUE, size == 4),
    }
}

/// `sk_reuseport_is_valid_access` (`struct sk_reuseport_md`, read only):
/// the packet bounds and the sockets as whole pointers, `hash` as a whole
/// u32, the other u32s also narrower (`eth_protocol` no narrower than the
/// skb's u16 protocol).
fn sk_reuseport_is_valid_access(off: i16, size: i16, write: bool) -> Option<CtxAccess> {
    use crate::uapi::sk_reuseport_md::*;
    if !(0..SIZE).contains(&off) || off % size != 0 || write {
        return None;
    }
    let of = |t: RegType, ok: bool| ok.then_some(CtxAccess { reg_type: t, ctx_field_size: 0, btf_id: 0 });
    let narrow = || narrow_access_ok(off.into(), size.into(), 4).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 4, btf_id: 0 });
    match off {
        DATA => of(PTR_TO_PACKET, size == 8),
        DATA_END => of(PTR_TO_PACKET_END, size == 8),
        HASH => of(SCALAR_VALUE, size == 4),
        SK => of(PTR_TO_SOCKET, size == 8),
        MIGRATING_SK => of(PTR_TO_SOCK_COMMON | PTR_MAYBE_NULL, size == 8),
        ETH_PROTOCOL..IP_PROTOCOL if size < 2 => None,
        LEN..HASH => narrow(),
        _ => None,
    }
}

/// `is_valid_access` of `prog_type` for `size` bytes at `off`.
#[allow(clippy::too_many_arguments)]
pub fn is_valid_access(
    prog_type: u32,
    attach: u32,
    off: i64,
    size: i64,
    write: bool,
    is_ldsx: bool,
    bpf_capable: bool,
    pt_regs_size: i64,
    user_pt_regs_size: i64,
) -> Valid {
    if size <= 0 {
        return Ok(None);
    }
    let scalar = |ok: bool| ok.then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 0, btf_id: 0 });
    // the uapi structs' offsets are i16s: what does not fit is in none of them
    let uapi = i16::try_from(off).ok().zip(i16::try_from(size).ok());
    Ok(match prog_type {
        pt::SOCKET_FILTER => uapi.and_then(|(off, size)| sk_filter_is_valid_access(off, size, write, is_ldsx)),
        pt::SCHED_CLS | pt::SCHED_ACT => uapi.and_then(|(off, size)| tc_cls_act_is_valid_access(off, size, write, is_ldsx)),
        pt::XDP => uapi.and_then(|(off, size)| xdp_is_valid_access(off, size, write, is_ldsx, attach)),
        pt::CGROUP_SKB => uapi.and_then(|(off, size)| cg_skb_is_valid_access(off, size, write, is_ldsx, bpf_capable)),
        pt::LWT_IN | pt::LWT_OUT | pt::LWT_XMIT | pt::LWT_SEG6LOCAL => uapi.and_then(|(off, size)| lwt_is_valid_access(off, size, write, is_ldsx)),
        pt::SK_SKB => uapi.and_then(|(off, size)| sk_skb_is_valid_access(off, size, write, is_ldsx)),
        pt::FLOW_DISSECTOR => uapi.and_then(|(off, size)| flow_dissector_is_valid_access(off, size, write, is_ldsx)),
        pt::SOCK_OPS => uapi.and_then(|(off, size)| sock_ops_is_valid_access(off, size, write)),
        pt::SK_MSG => uapi.and_then(|(off, size)| sk_msg_is_valid_access(off, size, write)),
        pt::CGROUP_SOCK => sock_filter_is_valid_access(off, size, write, attach),
        pt::PERF_EVENT => pe_prog_is_valid_access(off, size, write, user_pt_regs_size),
        // kprobe_prog_is_valid_access
        pt::KPROBE => scalar(off >= 0 && off < pt_regs_size && off % size == 0 && off + size <= pt_regs_size),
        // tp_prog_is_valid_access (PERF_MAX_TRACE_SIZE 8192)
        pt::TRACEPOINT => scalar((8..8192).contains(&off) && !write && off % size == 0),
        // bpf_tracing_ctx_access
        pt::RAW_TRACEPOINT => scalar((0..96).contains(&off) && !write && off % size == 0),
        // raw_tp_writable_prog_is_valid_access: the first argument is the
        // tracepoint's writable buffer
        pt::RAW_TRACEPOINT_WRITABLE if off == 0 => (size == 8 && !write).then_some(CtxAccess { reg_type: PTR_TO_TP_BUFFER, ctx_field_size: 0, btf_id: 0 }),
        pt::RAW_TRACEPOINT_WRITABLE => scalar((0..96).contains(&off) && !write && off % size == 0),
        pt::SK_LOOKUP => uapi.and_then(|(off, size)| sk_lookup_is_valid_access(off, size, write)),
        pt::CGROUP_SOCK_ADDR => uapi.and_then(|(off, size)| sock_addr_is_valid_access(off, size, write, attach)),
        pt::CGROUP_SOCKOPT => uapi.and_then(|(off, size)| cg_sockopt_is_valid_access(off, size, write, attach)),
        pt::SK_REUSEPORT => uapi.and_then(|(off, size)| sk_reuseport_is_valid_access(off, size, write)),
        // syscall_prog_is_valid_access: user memory, any alignment
        pt::SYSCALL => scalar((0..u16::MAX as i64).contains(&off)),
        // cgroup_dev_is_valid_access: struct bpf_cgroup_dev_ctx (access_type,
        // major, minor) read only; narrow loads of access_type alone
        pt::CGROUP_DEVICE => {
            let aligned = !write && off >= 0 && off + size <= 12 && off % size == 0;
            match off {
                _ if !aligned => None,
                0..4 => (size <= 4 && size & (size - 1) == 0).then_some(CtxAccess { reg_type: SCALAR_VALUE, ctx_field_size: 4, btf_id: 0 }),
                _ => scalar(size == 4),
            }
        }
        // nf_is_valid_access: struct bpf_nf_ctx's two pointers, read whole,
        // trusted pointers to the vmlinux structs they point to
        pt::NETFILTER => {
            let btf_ptr =
                |name: &str| CtxAccess { reg_type: PTR_TO_BTF_ID | PTR_TRUSTED, ctx_field_size: 0, btf_id: super::kfuncs::btf_type_id_interned(name) };
            match (off, size, write) {
                (0, 8, false) => Some(btf_ptr("nf_hook_state")),
                (8, 8, false) => Some(btf_ptr("sk_buff")),
                _ => None,
            }
        }
        _ => return Err(format!("ctx access of program type {prog_type}")),
    })
}

/// Whether the type's ctx loads are rewritten (`ops->convert_ctx_access`):
/// such a ctx pointer must be dereferenced unmodified.
pub fn has_convert_ctx_access(prog_type: u32) -> bool {
    !matches!(prog_type, pt::KPROBE | pt::TRACEPOINT | pt::RAW_TRACEPOINT | pt::RAW_TRACEPOINT_WRITABLE | pt::SYSCALL | pt::NETFILTER | pt::CGROUP_DEVICE)
}

/// `may_access_direct_pkt_data` for this model's prog types.
pub fn may_access_direct_pkt_data(prog_type: u32, write: bool) -> bool {
    match prog_type {
        pt::SCHED_CLS | pt::SCHED_ACT | pt::XDP | pt::LWT_XMIT | pt::SK_SKB | pt::SK_MSG | pt::CGROUP_SOCKOPT => true,
        pt::LWT_IN | pt::LWT_OUT | pt::LWT_SEG6LOCAL | pt::SK_REUSEPORT | pt::FLOW_DISSECTOR | pt::CGROUP_SKB => !write,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prog_type::bpf_attach_type as at;

    fn valid(prog_type: u32, attach: u32, off: i64, size: i64, write: bool) -> Option<CtxAccess> {
        is_valid_access(prog_type, attach, off, size, write, false, true, 168, 168).expect("modelled")
    }

    #[test]
    fn sock_addr_fields_follow_the_attach_type() {
        // user_ip4 of an inet4 hook, narrow reads and u32 writes
        assert_eq!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND, 7, 1, false).map(|a| a.ctx_field_size), Some(4));
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND, 4, 2, true).is_none());
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_BIND, 4, 4, false).is_none());
        // user_ip6 as u64 pairs, msg_src_ip6 of sendmsg6 only
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_CONNECT, 16, 8, true).is_some());
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_UDP6_SENDMSG, 48, 8, false).is_some());
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_CONNECT, 48, 4, false).is_none());
        // read only fields, the padding, the socket
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_CONNECT, 0, 4, true).is_none());
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND, 60, 4, false).is_none());
        assert_eq!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND, 64, 8, false).map(|a| a.reg_type), Some(PTR_TO_SOCKET));
        assert!(valid(pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND, 68, 4, false).is_none());
    }

    #[test]
    fn sockopt_and_sk_reuseport_fields() {
        assert!(valid(pt::CGROUP_SOCKOPT, at::CGROUP_GETSOCKOPT, 36, 4, true).is_some());
        assert!(valid(pt::CGROUP_SOCKOPT, at::CGROUP_SETSOCKOPT, 36, 4, false).is_none());
        assert!(valid(pt::CGROUP_SOCKOPT, at::CGROUP_SETSOCKOPT, 24, 4, true).is_some());
        assert!(valid(pt::CGROUP_SOCKOPT, at::CGROUP_GETSOCKOPT, 4, 4, false).is_none());
        let reuse = |off, size| valid(pt::SK_REUSEPORT, at::SK_REUSEPORT_SELECT, off, size, false);
        assert!(reuse(20, 1).is_none());
        assert_eq!(reuse(22, 2).map(|a| a.ctx_field_size), Some(4));
        assert!(reuse(32, 2).is_none());
        assert!(reuse(36, 4).is_none());
        assert_eq!(reuse(48, 8).map(|a| a.reg_type), Some(PTR_TO_SOCK_COMMON | PTR_MAYBE_NULL));
    }
}
