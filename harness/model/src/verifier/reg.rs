//! Registers as the main pass sees them: `enum bpf_reg_type` and
//! `struct bpf_reg_state` (`include/linux/bpf.h`, `bpf_verifier.h`), and the
//! small `mark_reg_*` helpers of `verifier.c`.
//!
//! 7.3 keeps a pointer's whole offset in the scalar part (`var_off`, `r64`,
//! `r32`); `delta` is the constant of a linked scalar (`rX = rY + delta`).
//! The kernel's type-specific union (`range`, `frameno`, `map_ptr`,
//! `mem_size`, ...) is [`RegState::aux`].

use super::scalar::{BPF_ADD_CONST, Scalar};
use super::tnum::{Tnum, tnum_is_const};

/// `enum bpf_reg_type`: a base type in the low 8 bits, flags above.
pub type RegType = u32;

pub const NOT_INIT: RegType = 0;
pub const SCALAR_VALUE: RegType = 1;
pub const PTR_TO_CTX: RegType = 2;
pub const CONST_PTR_TO_MAP: RegType = 3;
pub const PTR_TO_MAP_VALUE: RegType = 4;
pub const PTR_TO_MAP_KEY: RegType = 5;
pub const PTR_TO_STACK: RegType = 6;
pub const PTR_TO_PACKET_META: RegType = 7;
pub const PTR_TO_PACKET: RegType = 8;
pub const PTR_TO_PACKET_END: RegType = 9;
pub const PTR_TO_FLOW_KEYS: RegType = 10;
pub const PTR_TO_SOCKET: RegType = 11;
pub const PTR_TO_SOCK_COMMON: RegType = 12;
pub const PTR_TO_TCP_SOCK: RegType = 13;
pub const PTR_TO_TP_BUFFER: RegType = 14;
pub const PTR_TO_XDP_SOCK: RegType = 15;
pub const PTR_TO_BTF_ID: RegType = 16;
pub const PTR_TO_MEM: RegType = 17;
pub const PTR_TO_ARENA: RegType = 18;
pub const PTR_TO_BUF: RegType = 19;
pub const PTR_TO_FUNC: RegType = 20;
pub const PTR_TO_INSN: RegType = 21;
pub const CONST_PTR_TO_DYNPTR: RegType = 22;

/// `BPF_BASE_TYPE_BITS`: the base type's bits, below the type flags.
pub(crate) const BASE_BITS: u32 = 8;
pub const PTR_MAYBE_NULL: RegType = 1 << BASE_BITS;
pub const MEM_RDONLY: RegType = 1 << (BASE_BITS + 1);
pub const MEM_RINGBUF: RegType = 1 << (BASE_BITS + 2);
pub const MEM_USER: RegType = 1 << (BASE_BITS + 3);
pub const MEM_PERCPU: RegType = 1 << (BASE_BITS + 4);
pub const PTR_UNTRUSTED: RegType = 1 << (BASE_BITS + 6);
pub const MEM_ALLOC: RegType = 1 << (BASE_BITS + 11);
pub const MEM_RCU: RegType = 1 << (BASE_BITS + 13);
pub const PTR_TRUSTED: RegType = 1 << (BASE_BITS + 14);
pub const NON_OWN_REF: RegType = 1 << (BASE_BITS + 15);

pub const PTR_TO_MAP_VALUE_OR_NULL: RegType = PTR_MAYBE_NULL | PTR_TO_MAP_VALUE;

/// `base_type`.
pub fn base_type(t: RegType) -> RegType {
    t & ((1 << BASE_BITS) - 1)
}

/// `type_may_be_null`.
pub fn type_may_be_null(t: RegType) -> bool {
    t & PTR_MAYBE_NULL != 0
}

/// `type_is_pkt_pointer`.
pub fn type_is_pkt_pointer(t: RegType) -> bool {
    let t = base_type(t);
    t == PTR_TO_PACKET || t == PTR_TO_PACKET_META
}

/// `type_is_map_ptr`.
pub fn type_is_map_ptr(t: RegType) -> bool {
    matches!(base_type(t), CONST_PTR_TO_MAP | PTR_TO_MAP_KEY | PTR_TO_MAP_VALUE)
}

/// `type_is_sk_pointer`.
pub fn type_is_sk_pointer(t: RegType) -> bool {
    // the exact types: a maybe-null socket is not one yet
    matches!(t, PTR_TO_SOCKET | PTR_TO_SOCK_COMMON | PTR_TO_TCP_SOCK | PTR_TO_XDP_SOCK)
}

/// `is_pointer_regtype`: anything but NOT_INIT and SCALAR_VALUE.
pub fn is_pointer_regtype(t: RegType) -> bool {
    t != NOT_INIT && t != SCALAR_VALUE
}

/// `reg_type_str`.
pub fn reg_type_str(t: RegType) -> String {
    let mut s = String::new();
    print_reg_type(&mut s, t);
    s
}

/// [`reg_type_str`] appended to `out`.
pub fn print_reg_type(out: &mut String, t: RegType) {
    let base = match base_type(t) {
        NOT_INIT => "?",
        SCALAR_VALUE => "scalar",
        PTR_TO_CTX => "ctx",
        CONST_PTR_TO_MAP => "map_ptr",
        PTR_TO_MAP_VALUE => "map_value",
        PTR_TO_STACK => "fp",
        PTR_TO_PACKET => "pkt",
        PTR_TO_PACKET_META => "pkt_meta",
        PTR_TO_PACKET_END => "pkt_end",
        PTR_TO_FLOW_KEYS => "flow_keys",
        PTR_TO_SOCKET => "sock",
        PTR_TO_SOCK_COMMON => "sock_common",
        PTR_TO_TCP_SOCK => "tcp_sock",
        PTR_TO_TP_BUFFER => "tp_buffer",
        PTR_TO_XDP_SOCK => "xdp_sock",
        PTR_TO_BTF_ID => "ptr_",
        PTR_TO_MEM => "mem",
        PTR_TO_ARENA => "arena",
        PTR_TO_BUF => "buf",
        PTR_TO_FUNC => "func",
        PTR_TO_INSN => "insn",
        PTR_TO_MAP_KEY => "map_key",
        CONST_PTR_TO_DYNPTR => "dynptr_ptr",
        _ => "",
    };
    let postfix = if t & PTR_MAYBE_NULL != 0 { if base_type(t) == PTR_TO_BTF_ID { "or_null_" } else { "_or_null" } } else { "" };
    for (flag, s) in [
        (MEM_RDONLY, "rdonly_"),
        (MEM_RINGBUF, "ringbuf_"),
        (MEM_USER, "user_"),
        (MEM_PERCPU, "percpu_"),
        (MEM_RCU, "rcu_"),
        (PTR_UNTRUSTED, "untrusted_"),
        (PTR_TRUSTED, "trusted_"),
    ] {
        if t & flag != 0 {
            out.push_str(s);
        }
    }
    out.push_str(base);
    out.push_str(postfix);
}

/// `struct bpf_reg_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegState {
    pub typ: RegType,
    /// Constant of a linked scalar (`id & BPF_ADD_CONST`).
    pub delta: i32,
    /// The kernel's union: `range` of packet pointers (negative: the
    /// `AT_PKT_END`/`BEYOND_PKT_END` marks), `frameno` of stack pointers,
    /// the map (index into [`super::do_check::DoCheckInput::maps`]) of map
    /// pointers (into the flattened map list of the pass), `mem_size` of
    /// `PTR_TO_MEM`, the subprogram of `PTR_TO_FUNC`, the type
    /// ([`super::kfuncs::BTF_TYPES`] id) of `PTR_TO_BTF_ID` and of an
    /// iterator slot, the type of a dynptr.
    pub aux: i64,
    /// The rest of the union: an iterator slot's state and depth
    /// ([`RegState::iter_state`]), a dynptr's `first_slot`.
    pub aux2: u64,
    /// `var_off`, `r64`, `r32`: a scalar's value or a pointer's offset.
    pub s: Scalar,
    pub id: u32,
    pub parent_id: u32,
    pub map_uid: u32,
    pub precise: bool,
}

/// `BEYOND_PKT_END`: `range` of a packet pointer known to be past `data_end`.
pub const BEYOND_PKT_END: i64 = -2;
/// `AT_PKT_END`: `range` of a packet pointer known to equal `data_end`.
pub const AT_PKT_END: i64 = -1;

impl Default for RegState {
    fn default() -> RegState {
        RegState::not_init()
    }
}

impl RegState {
    /// `__mark_reg_not_init`: an unknown scalar's bounds, type NOT_INIT.
    pub fn not_init() -> RegState {
        RegState { typ: NOT_INIT, delta: 0, aux: 0, aux2: 0, s: Scalar::unknown(), id: 0, parent_id: 0, map_uid: 0, precise: false }
    }

    /// `__mark_reg_unknown_imprecise`.
    pub fn unknown_imprecise() -> RegState {
        RegState { typ: SCALAR_VALUE, ..RegState::not_init() }
    }

    /// `__mark_reg_unknown`: imprecise unless precision tracking is off
    /// (unprivileged), where every scalar is precise.
    pub fn unknown(bpf_capable: bool) -> RegState {
        RegState { precise: !bpf_capable, ..RegState::unknown_imprecise() }
    }

    /// A scalar with value `v` (`__mark_reg_known` on a fresh register).
    pub fn known(v: u64) -> RegState {
        RegState { s: Scalar::known(v), ..RegState::unknown_imprecise() }
    }

    /// A pointer of type `t` at offset zero (`mark_reg_known_zero` + type).
    pub fn ptr(t: RegType, aux: i64) -> RegState {
        RegState { typ: t, aux, s: Scalar::known(0), ..RegState::not_init() }
    }

    /// `__mark_reg_known`: keeps type and the union, resets the rest.
    pub fn mark_known(&mut self, v: u64) {
        self.s = Scalar::known(v);
        self.id = 0;
        self.delta = 0;
        self.parent_id = 0;
    }

    pub fn is_scalar(&self) -> bool {
        self.typ == SCALAR_VALUE
    }

    pub fn is_pointer(&self) -> bool {
        is_pointer_regtype(self.typ)
    }

    pub fn var_off(&self) -> Tnum {
        self.s.var_off
    }

    /// `tnum_is_const(reg->var_off)`.
    pub fn is_const_off(&self) -> bool {
        tnum_is_const(self.s.var_off)
    }

    /// `bpf_register_is_null`: a scalar known to be zero.
    pub fn is_null(&self) -> bool {
        self.typ == SCALAR_VALUE && tnum_is_const(self.s.var_off) && self.s.var_off.value == 0
    }

    /// `reg_is_pkt_pointer`.
    pub fn is_pkt_pointer(&self) -> bool {
        type_is_pkt_pointer(self.typ)
    }

    /// `reg_is_pkt_pointer_any`.
    pub fn is_pkt_pointer_any(&self) -> bool {
        self.is_pkt_pointer() || self.typ == PTR_TO_PACKET_END
    }

    /// Packet pointer `range`.
    pub fn range(&self) -> i64 {
        self.aux
    }

    /// Stack pointer `frameno`.
    pub fn frameno(&self) -> usize {
        self.aux.clamp(0, 255) as usize
    }

    /// `clear_scalar_id`.
    pub fn clear_scalar_id(&mut self) {
        self.id = 0;
        self.delta = 0;
    }

    /// `subprogno` of a `PTR_TO_FUNC`.
    pub fn subprogno(&self) -> usize {
        self.aux.clamp(0, u32::MAX as i64) as usize
    }

    /// `mem_size` of a `PTR_TO_MEM`.
    pub fn mem_size(&self) -> i64 {
        self.aux.clamp(0, u32::MAX as i64)
    }

    /// `iter.state` of an iterator slot.
    pub fn iter_state(&self) -> u32 {
        (self.aux2 & 3) as u32
    }

    /// `iter.depth` of an iterator slot.
    pub fn iter_depth(&self) -> u32 {
        (self.aux2 >> 2) as u32
    }

    pub fn set_iter(&mut self, state: u32, depth: u32) {
        self.aux2 = (state as u64 & 3) | ((depth as u64) << 2);
    }

    /// `id & ~BPF_ADD_CONST`.
    pub fn base_id(&self) -> u32 {
        self.id & !BPF_ADD_CONST
    }
}
