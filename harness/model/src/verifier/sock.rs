//! Reads through the socket pointers helpers return (`bpf_sk_lookup_tcp`,
//! `bpf_tcp_sock`, `bpf_sk_fullsock`, ...): `check_sock_access` and the
//! uapi views it allows, `bpf_sock_common_is_valid_access`,
//! `bpf_sock_is_valid_access`, `bpf_tcp_sock_is_valid_access` and
//! `bpf_xdp_sock_is_valid_access` of `net/core/filter.c`.

use super::do_check::*;
use super::reg::*;
use crate::uapi::{bpf_sock, bpf_tcp_sock, bpf_xdp_sock};

/// `bpf_ctx_narrow_access_ok`.
fn narrow_access_ok(off: i16, size: i16, size_default: i16) -> bool {
    size <= size_default && size > 0 && (size & (size - 1)) == 0 && off % size == 0
}

/// A read of `size` bytes at `off` of a socket view, as the `i16`s of the
/// uapi offsets: `None` when it starts outside `0..end` or is misaligned.
fn in_view(off: i64, size: i64, end: i16) -> Option<(i16, i16)> {
    let (off, size) = (i16::try_from(off).ok()?, i16::try_from(size).ok()?);
    ((0..end).contains(&off) && size > 0 && off % size == 0).then_some((off, size))
}

/// The field size `bpf_sock_is_valid_access` records for a read of `size`
/// bytes at `off`: 4 for the u32 fields that may be read narrower,
/// `dst_port`'s 2 (4 for a read of it with its padding), 0 for the fields
/// read whole.
fn bpf_sock_field_size(off: i16, size: i16) -> i16 {
    use bpf_sock::*;
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

/// `bpf_sock_is_valid_access`: the 4-byte fields, narrower reads of the
/// addresses, ports and a few scalars.
pub(crate) fn bpf_sock_is_valid_access(off: i64, size: i64) -> bool {
    let Some((off, size)) = in_view(off, size, bpf_sock::SIZE) else {
        return false;
    };
    match bpf_sock_field_size(off, size) {
        0 if (bpf_sock::DST_PORT_PAD..bpf_sock::DST_IP4).contains(&off) => false,
        0 => size == 4,
        field_size => narrow_access_ok(off, size, field_size),
    }
}

/// The `ctx_field_size` `bpf_sock_is_valid_access` records for a read of
/// `size` bytes at `off` (`check_sock_access` stores it for the fixups'
/// `bpf_sock_convert_ctx_access`).
pub fn bpf_sock_ctx_field_size(off: i16, size: u32) -> u32 {
    bpf_sock_field_size(off, i16::try_from(size).unwrap_or(0)) as u32
}

/// `bpf_sock_common_is_valid_access`: `struct sock_common` lacks
/// `type` .. `priority`.
pub(crate) fn bpf_sock_common_is_valid_access(off: i64, size: i64) -> bool {
    if (i64::from(bpf_sock::TYPE)..=i64::from(bpf_sock::PRIORITY)).contains(&off) {
        return false;
    }
    bpf_sock_is_valid_access(off, size)
}

/// `bpf_tcp_sock_is_valid_access`: u32 fields and two u64 counters.
pub(crate) fn bpf_tcp_sock_is_valid_access(off: i64, size: i64) -> bool {
    use bpf_tcp_sock::*;
    match in_view(off, size, SIZE) {
        Some((BYTES_RECEIVED | BYTES_ACKED, size)) => size == 8,
        Some((_, size)) => size == 4,
        None => false,
    }
}

/// `bpf_xdp_sock_is_valid_access`: `queue_id` only.
pub(crate) fn bpf_xdp_sock_is_valid_access(off: i64, size: i64) -> bool {
    in_view(off, size, bpf_xdp_sock::SIZE).is_some_and(|(_, size)| size == 4)
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
