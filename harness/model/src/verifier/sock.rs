//! Reads through the socket pointers helpers return (`bpf_sk_lookup_tcp`,
//! `bpf_tcp_sock`, `bpf_sk_fullsock`, ...): `check_sock_access` and the
//! uapi views it allows, `bpf_sock_common_is_valid_access`,
//! `bpf_sock_is_valid_access`, `bpf_tcp_sock_is_valid_access` and
//! `bpf_xdp_sock_is_valid_access` of `net/core/filter.c`.

use super::do_check::*;
use super::reg::*;

/// `struct bpf_sock` (uapi) offsets.
mod bpf_sock {
    pub const FAMILY: i64 = 4;
    pub const TYPE: i64 = 8;
    pub const PROTOCOL: i64 = 12;
    /// `priority` ends here: `sock_common` has nothing in `[type, priority]`.
    pub const PRIORITY_END: i64 = 24;
    pub const SRC_IP4: i64 = 24;
    pub const SRC_IP6: i64 = 28;
    pub const SRC_PORT: i64 = 44;
    pub const DST_PORT: i64 = 48;
    /// The 16 zero bits after `dst_port`.
    pub const PAD: i64 = 50;
    pub const DST_IP4: i64 = 52;
    pub const DST_IP6: i64 = 56;
    pub const STATE: i64 = 72;
    pub const RX_QUEUE_MAPPING: i64 = 76;
    pub const SIZE: i64 = 80;
}

/// `struct bpf_tcp_sock`: the two u64 counters and the end.
mod bpf_tcp_sock {
    pub const BYTES_RECEIVED: i64 = 80;
    pub const BYTES_ACKED: i64 = 88;
    /// `offsetofend(struct bpf_tcp_sock, icsk_retransmits)`.
    pub const END: i64 = 112;
}

/// `offsetofend(struct bpf_xdp_sock, queue_id)`.
const BPF_XDP_SOCK_END: i64 = 4;

/// `bpf_ctx_narrow_access_ok`.
fn narrow_access_ok(off: i64, size: i64, size_default: i64) -> bool {
    size <= size_default && size > 0 && (size & (size - 1)) == 0 && off % size == 0
}

/// `bpf_sock_is_valid_access`: the 4-byte fields, narrower reads of the
/// addresses, ports and a few scalars.
pub(crate) fn bpf_sock_is_valid_access(off: i64, size: i64) -> bool {
    use bpf_sock::*;
    if !(0..SIZE).contains(&off) || size <= 0 || off % size != 0 {
        return false;
    }
    let narrow_4 = matches!(off, FAMILY | TYPE | PROTOCOL | SRC_PORT | RX_QUEUE_MAPPING | STATE)
        || (SRC_IP4..SRC_IP4 + 4).contains(&off)
        || (SRC_IP6..SRC_IP6 + 16).contains(&off)
        || (DST_IP4..DST_IP4 + 4).contains(&off)
        || (DST_IP6..DST_IP6 + 16).contains(&off);
    if narrow_4 {
        return narrow_access_ok(off, size, 4);
    }
    if (DST_PORT..DST_PORT + 2).contains(&off) {
        let field_size = if size == 4 { 4 } else { 2 };
        return narrow_access_ok(off, size, field_size);
    }
    if (PAD..DST_IP4).contains(&off) {
        return false;
    }
    size == 4
}

/// The `ctx_field_size` `bpf_sock_is_valid_access` records for a read of
/// `size` bytes at `off` (`check_sock_access` stores it for the fixups'
/// `bpf_sock_convert_ctx_access`).
pub fn bpf_sock_ctx_field_size(off: i16, size: u32) -> u32 {
    use bpf_sock::*;
    let off = i64::from(off);
    let narrow4 = matches!(off, STATE | FAMILY | TYPE | PROTOCOL | SRC_PORT | RX_QUEUE_MAPPING)
        || (SRC_IP4..SRC_IP4 + 4).contains(&off)
        || (SRC_IP6..SRC_IP6 + 16).contains(&off)
        || (DST_IP4..DST_IP4 + 4).contains(&off)
        || (DST_IP6..DST_IP6 + 16).contains(&off);
    if narrow4 {
        4
    } else if (DST_PORT..DST_PORT + 2).contains(&off) {
        if size == 4 { 4 } else { 2 }
    } else {
        0
    }
}

/// `bpf_sock_common_is_valid_access`: `struct sock_common` lacks
/// `type` .. `priority`.
pub(crate) fn bpf_sock_common_is_valid_access(off: i64, size: i64) -> bool {
    if (bpf_sock::TYPE..bpf_sock::PRIORITY_END).contains(&off) {
        return false;
    }
    bpf_sock_is_valid_access(off, size)
}

/// `bpf_tcp_sock_is_valid_access`: u32 fields and two u64 counters.
pub(crate) fn bpf_tcp_sock_is_valid_access(off: i64, size: i64) -> bool {
    use bpf_tcp_sock::*;
    if !(0..END).contains(&off) || size <= 0 || off % size != 0 {
        return false;
    }
    match off {
        BYTES_RECEIVED | BYTES_ACKED => size == 8,
        _ => size == 4,
    }
}

/// `bpf_xdp_sock_is_valid_access`: `queue_id` only.
pub(crate) fn bpf_xdp_sock_is_valid_access(off: i64, size: i64) -> bool {
    (0..BPF_XDP_SOCK_END).contains(&off) && size > 0 && off % size == 0 && size == 4
}

impl Env<'_, '_> {
    /// `check_sock_access`: a read of `size` bytes at `off` through the
    /// socket pointer in `regno`.
    pub(crate) fn check_sock_access(&mut self, regno: usize, reg: &RegState, off: i64, size: i64) -> VResult<()> {
        if reg.s.smin() < 0 {
            self.verbose(&format!("R{regno} min value is negative, either use unsigned index or do a if (index >=0) check.\n"));
            return errno(EACCES);
        }
        let valid = match reg.typ {
            PTR_TO_SOCK_COMMON => bpf_sock_common_is_valid_access(off, size),
            PTR_TO_SOCKET => bpf_sock_is_valid_access(off, size),
            PTR_TO_TCP_SOCK => bpf_tcp_sock_is_valid_access(off, size),
            PTR_TO_XDP_SOCK => bpf_xdp_sock_is_valid_access(off, size),
            _ => false,
        };
        if valid {
            return Ok(());
        }
        self.verbose(&format!("R{regno} invalid {} access off={off} size={size}\n", reg_type_str(reg.typ)));
        errno(EACCES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uapi_views() {
        assert!(bpf_sock_is_valid_access(0, 4));
        assert!(!bpf_sock_is_valid_access(0, 2));
        assert!(bpf_sock_is_valid_access(4, 1));
        assert!(bpf_sock_is_valid_access(48, 2));
        assert!(bpf_sock_is_valid_access(48, 4));
        assert!(!bpf_sock_is_valid_access(50, 2));
        assert!(!bpf_sock_is_valid_access(80, 4));
        assert!(!bpf_sock_common_is_valid_access(16, 4));
        assert!(bpf_tcp_sock_is_valid_access(80, 8));
        assert!(!bpf_tcp_sock_is_valid_access(80, 4));
        assert!(!bpf_tcp_sock_is_valid_access(112, 4));
        assert!(bpf_xdp_sock_is_valid_access(0, 4));
    }
}
