//! Program types (`enum bpf_prog_type`) and libbpf's SEC() names for them.

/// A program type with the kernel's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProgType(pub u32);

/// `enum bpf_prog_type`: the number of each 7.3 program type.
pub mod bpf_prog_type {
    pub const SOCKET_FILTER: u32 = 1;
    pub const KPROBE: u32 = 2;
    pub const SCHED_CLS: u32 = 3;
    pub const SCHED_ACT: u32 = 4;
    pub const TRACEPOINT: u32 = 5;
    pub const XDP: u32 = 6;
    pub const PERF_EVENT: u32 = 7;
    pub const CGROUP_SKB: u32 = 8;
    pub const CGROUP_SOCK: u32 = 9;
    pub const LWT_IN: u32 = 10;
    pub const LWT_OUT: u32 = 11;
    pub const LWT_XMIT: u32 = 12;
    pub const SOCK_OPS: u32 = 13;
    pub const SK_SKB: u32 = 14;
    pub const CGROUP_DEVICE: u32 = 15;
    pub const SK_MSG: u32 = 16;
    pub const RAW_TRACEPOINT: u32 = 17;
    pub const CGROUP_SOCK_ADDR: u32 = 18;
    pub const LWT_SEG6LOCAL: u32 = 19;
    pub const LIRC_MODE2: u32 = 20;
    pub const SK_REUSEPORT: u32 = 21;
    pub const FLOW_DISSECTOR: u32 = 22;
    pub const CGROUP_SYSCTL: u32 = 23;
    pub const RAW_TRACEPOINT_WRITABLE: u32 = 24;
    pub const CGROUP_SOCKOPT: u32 = 25;
    pub const TRACING: u32 = 26;
    pub const STRUCT_OPS: u32 = 27;
    pub const EXT: u32 = 28;
    pub const LSM: u32 = 29;
    pub const SK_LOOKUP: u32 = 30;
    pub const SYSCALL: u32 = 31;
    pub const NETFILTER: u32 = 32;
}

/// `enum bpf_attach_type`: the number of each 7.3 attach type.
pub mod bpf_attach_type {
    pub const CGROUP_INET_INGRESS: u32 = 0;
    pub const CGROUP_INET_EGRESS: u32 = 1;
    pub const CGROUP_INET_SOCK_CREATE: u32 = 2;
    pub const CGROUP_SOCK_OPS: u32 = 3;
    pub const SK_SKB_STREAM_PARSER: u32 = 4;
    pub const SK_SKB_STREAM_VERDICT: u32 = 5;
    pub const CGROUP_DEVICE: u32 = 6;
    pub const SK_MSG_VERDICT: u32 = 7;
    pub const CGROUP_INET4_BIND: u32 = 8;
    pub const CGROUP_INET6_BIND: u32 = 9;
    pub const CGROUP_INET4_CONNECT: u32 = 10;
    pub const CGROUP_INET6_CONNECT: u32 = 11;
    pub const CGROUP_INET4_POST_BIND: u32 = 12;
    pub const CGROUP_INET6_POST_BIND: u32 = 13;
    pub const CGROUP_UDP4_SENDMSG: u32 = 14;
    pub const CGROUP_UDP6_SENDMSG: u32 = 15;
    pub const LIRC_MODE2: u32 = 16;
    pub const FLOW_DISSECTOR: u32 = 17;
    pub const CGROUP_SYSCTL: u32 = 18;
    pub const CGROUP_UDP4_RECVMSG: u32 = 19;
    pub const CGROUP_UDP6_RECVMSG: u32 = 20;
    pub const CGROUP_GETSOCKOPT: u32 = 21;
    pub const CGROUP_SETSOCKOPT: u32 = 22;
    pub const TRACE_RAW_TP: u32 = 23;
    pub const TRACE_FENTRY: u32 = 24;
    pub const TRACE_FEXIT: u32 = 25;
    pub const MODIFY_RETURN: u32 = 26;
    pub const LSM_MAC: u32 = 27;
    pub const TRACE_ITER: u32 = 28;
    pub const CGROUP_INET4_GETPEERNAME: u32 = 29;
    pub const CGROUP_INET6_GETPEERNAME: u32 = 30;
    pub const CGROUP_INET4_GETSOCKNAME: u32 = 31;
    pub const CGROUP_INET6_GETSOCKNAME: u32 = 32;
    pub const XDP_DEVMAP: u32 = 33;
    pub const CGROUP_INET_SOCK_RELEASE: u32 = 34;
    pub const XDP_CPUMAP: u32 = 35;
    pub const SK_LOOKUP: u32 = 36;
    pub const XDP: u32 = 37;
    pub const SK_SKB_VERDICT: u32 = 38;
    pub const SK_REUSEPORT_SELECT: u32 = 39;
    pub const SK_REUSEPORT_SELECT_OR_MIGRATE: u32 = 40;
    pub const PERF_EVENT: u32 = 41;
    pub const TRACE_KPROBE_MULTI: u32 = 42;
    pub const LSM_CGROUP: u32 = 43;
    pub const STRUCT_OPS: u32 = 44;
    pub const NETFILTER: u32 = 45;
    pub const TCX_INGRESS: u32 = 46;
    pub const TCX_EGRESS: u32 = 47;
    pub const TRACE_UPROBE_MULTI: u32 = 48;
    pub const CGROUP_UNIX_CONNECT: u32 = 49;
    pub const CGROUP_UNIX_SENDMSG: u32 = 50;
    pub const CGROUP_UNIX_RECVMSG: u32 = 51;
    pub const CGROUP_UNIX_GETPEERNAME: u32 = 52;
    pub const CGROUP_UNIX_GETSOCKNAME: u32 = 53;
    pub const NETKIT_PRIMARY: u32 = 54;
    pub const NETKIT_PEER: u32 = 55;
    pub const TRACE_KPROBE_SESSION: u32 = 56;
    pub const TRACE_UPROBE_SESSION: u32 = 57;
    pub const TRACE_FSESSION: u32 = 58;
    pub const TRACE_FENTRY_MULTI: u32 = 59;
    pub const TRACE_FEXIT_MULTI: u32 = 60;
    pub const TRACE_FSESSION_MULTI: u32 = 61;
}

use bpf_attach_type as at;
use bpf_prog_type as pt;

/// (kernel number, canonical name) of every 7.3 program type.
pub const PROG_TYPES: &[(u32, &str)] = &[
    (bpf_prog_type::SOCKET_FILTER, "socket_filter"),
    (bpf_prog_type::KPROBE, "kprobe"),
    (bpf_prog_type::SCHED_CLS, "sched_cls"),
    (bpf_prog_type::SCHED_ACT, "sched_act"),
    (bpf_prog_type::TRACEPOINT, "tracepoint"),
    (bpf_prog_type::XDP, "xdp"),
    (bpf_prog_type::PERF_EVENT, "perf_event"),
    (bpf_prog_type::CGROUP_SKB, "cgroup_skb"),
    (bpf_prog_type::CGROUP_SOCK, "cgroup_sock"),
    (bpf_prog_type::LWT_IN, "lwt_in"),
    (bpf_prog_type::LWT_OUT, "lwt_out"),
    (bpf_prog_type::LWT_XMIT, "lwt_xmit"),
    (bpf_prog_type::SOCK_OPS, "sock_ops"),
    (bpf_prog_type::SK_SKB, "sk_skb"),
    (bpf_prog_type::CGROUP_DEVICE, "cgroup_device"),
    (bpf_prog_type::SK_MSG, "sk_msg"),
    (bpf_prog_type::RAW_TRACEPOINT, "raw_tracepoint"),
    (bpf_prog_type::CGROUP_SOCK_ADDR, "cgroup_sock_addr"),
    (bpf_prog_type::LWT_SEG6LOCAL, "lwt_seg6local"),
    (bpf_prog_type::LIRC_MODE2, "lirc_mode2"),
    (bpf_prog_type::SK_REUSEPORT, "sk_reuseport"),
    (bpf_prog_type::FLOW_DISSECTOR, "flow_dissector"),
    (bpf_prog_type::CGROUP_SYSCTL, "cgroup_sysctl"),
    (bpf_prog_type::RAW_TRACEPOINT_WRITABLE, "raw_tracepoint_writable"),
    (bpf_prog_type::CGROUP_SOCKOPT, "cgroup_sockopt"),
    (bpf_prog_type::TRACING, "tracing"),
    (bpf_prog_type::STRUCT_OPS, "struct_ops"),
    (bpf_prog_type::EXT, "ext"),
    (bpf_prog_type::LSM, "lsm"),
    (bpf_prog_type::SK_LOOKUP, "sk_lookup"),
    (bpf_prog_type::SYSCALL, "syscall"),
    (bpf_prog_type::NETFILTER, "netfilter"),
];

pub const SOCKET_FILTER: ProgType = ProgType(bpf_prog_type::SOCKET_FILTER);
pub const KPROBE: ProgType = ProgType(bpf_prog_type::KPROBE);
pub const SCHED_CLS: ProgType = ProgType(bpf_prog_type::SCHED_CLS);
pub const SCHED_ACT: ProgType = ProgType(bpf_prog_type::SCHED_ACT);
pub const TRACEPOINT: ProgType = ProgType(bpf_prog_type::TRACEPOINT);
pub const XDP: ProgType = ProgType(bpf_prog_type::XDP);
pub const CGROUP_SKB: ProgType = ProgType(bpf_prog_type::CGROUP_SKB);
pub const RAW_TRACEPOINT: ProgType = ProgType(bpf_prog_type::RAW_TRACEPOINT);
pub const TRACING: ProgType = ProgType(bpf_prog_type::TRACING);
pub const SK_LOOKUP: ProgType = ProgType(bpf_prog_type::SK_LOOKUP);
pub const SYSCALL: ProgType = ProgType(bpf_prog_type::SYSCALL);

/// Load flags (`prog_flags`) by the names test_loader's `__flag()` accepts.
pub const PROG_FLAGS: &[(&str, &str, u32)] = {
    use crate::uapi::prog_flags::*;
    &[
        ("BPF_F_STRICT_ALIGNMENT", "strict_alignment", BPF_F_STRICT_ALIGNMENT),
        ("BPF_F_ANY_ALIGNMENT", "any_alignment", BPF_F_ANY_ALIGNMENT),
        ("BPF_F_TEST_RND_HI32", "rnd_hi32", BPF_F_TEST_RND_HI32),
        ("BPF_F_TEST_STATE_FREQ", "state_freq", BPF_F_TEST_STATE_FREQ),
        ("BPF_F_SLEEPABLE", "sleepable", BPF_F_SLEEPABLE),
        ("BPF_F_XDP_HAS_FRAGS", "xdp_has_frags", BPF_F_XDP_HAS_FRAGS),
        ("BPF_F_XDP_DEV_BOUND_ONLY", "xdp_dev_bound_only", BPF_F_XDP_DEV_BOUND_ONLY),
        ("BPF_F_TEST_REG_INVARIANTS", "reg_invariants", BPF_F_TEST_REG_INVARIANTS),
    ]
};

/// A flag by its kernel name (`BPF_F_TEST_STATE_FREQ`) or short name (`state_freq`).
pub fn prog_flag(name: &str) -> Option<u32> {
    PROG_FLAGS.iter().find(|(k, s, _)| *k == name || *s == name).map(|f| f.2)
}

impl ProgType {
    pub fn name(self) -> &'static str {
        PROG_TYPES.iter().find(|(n, _)| *n == self.0).map_or("unspec", |t| t.1)
    }

    /// By canonical name (`sched_cls`) or a SEC() name libbpf maps to it.
    pub fn from_name(s: &str) -> Option<ProgType> {
        if let Some((n, _)) = PROG_TYPES.iter().find(|(_, name)| *name == s) {
            return Some(ProgType(*n));
        }
        sec_def(s).map(|d| d.prog_type)
    }
}

/// What libbpf derives from a SEC() name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecDef {
    pub prog_type: ProgType,
    /// `expected_attach_type`, when the section implies one.
    pub attach_type: Option<u32>,
    /// prog_flags libbpf adds (`BPF_F_SLEEPABLE` for `syscall` and `.s`, ...).
    pub flags: u32,
}

/// libbpf's `cgroup/...` sections: (name, program type, expected attach type).
const CGROUP_SECS: &[(&str, u32, u32)] = &[
    ("skb", pt::CGROUP_SKB, u32::MAX),
    ("sock_create", pt::CGROUP_SOCK, at::CGROUP_INET_SOCK_CREATE),
    ("sock_release", pt::CGROUP_SOCK, at::CGROUP_INET_SOCK_RELEASE),
    ("sock", pt::CGROUP_SOCK, at::CGROUP_INET_SOCK_CREATE),
    ("post_bind4", pt::CGROUP_SOCK, at::CGROUP_INET4_POST_BIND),
    ("post_bind6", pt::CGROUP_SOCK, at::CGROUP_INET6_POST_BIND),
    ("bind4", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_BIND),
    ("bind6", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_BIND),
    ("connect4", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_CONNECT),
    ("connect6", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_CONNECT),
    ("connect_unix", pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_CONNECT),
    ("sendmsg4", pt::CGROUP_SOCK_ADDR, at::CGROUP_UDP4_SENDMSG),
    ("sendmsg6", pt::CGROUP_SOCK_ADDR, at::CGROUP_UDP6_SENDMSG),
    ("sendmsg_unix", pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_SENDMSG),
    ("recvmsg4", pt::CGROUP_SOCK_ADDR, at::CGROUP_UDP4_RECVMSG),
    ("recvmsg6", pt::CGROUP_SOCK_ADDR, at::CGROUP_UDP6_RECVMSG),
    ("recvmsg_unix", pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_RECVMSG),
    ("getpeername4", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_GETPEERNAME),
    ("getpeername6", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_GETPEERNAME),
    ("getpeername_unix", pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_GETPEERNAME),
    ("getsockname4", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET4_GETSOCKNAME),
    ("getsockname6", pt::CGROUP_SOCK_ADDR, at::CGROUP_INET6_GETSOCKNAME),
    ("getsockname_unix", pt::CGROUP_SOCK_ADDR, at::CGROUP_UNIX_GETSOCKNAME),
    ("sysctl", pt::CGROUP_SYSCTL, at::CGROUP_SYSCTL),
    ("getsockopt", pt::CGROUP_SOCKOPT, at::CGROUP_GETSOCKOPT),
    ("setsockopt", pt::CGROUP_SOCKOPT, at::CGROUP_SETSOCKOPT),
    ("dev", pt::CGROUP_DEVICE, at::CGROUP_DEVICE),
];

fn cgroup_sec(sec: &str) -> Option<SecDef> {
    let rest = sec.strip_prefix("cgroup/")?;
    let (_, t, a) = CGROUP_SECS.iter().find(|(n, _, _)| *n == rest)?;
    Some(SecDef { prog_type: ProgType(*t), attach_type: (*a != u32::MAX).then_some(*a), flags: 0 })
}

/// The attach target a section names (`fentry/<func>`, `tp_btf/<tp>`,
/// `lsm/<hook>`, `iter/<name>`, ...): libbpf looks it up in vmlinux BTF
/// (`btf_get_kernel_prefix_kind`) and loads the program with
/// `attach_btf_id` = the id found.
pub fn sec_attach_target(sec: &str) -> Option<&str> {
    let sec = sec.strip_prefix('?').unwrap_or(sec);
    let (head, func) = sec.split_once('/')?;
    matches!(
        head,
        "fentry"
            | "fexit"
            | "fmod_ret"
            | "fentry.s"
            | "fexit.s"
            | "fmod_ret.s"
            | "fsession"
            | "fsession.s"
            | "tp_btf"
            | "tp_btf.s"
            | "lsm"
            | "lsm.s"
            | "lsm_cgroup"
            | "iter"
            | "iter.s"
    )
    .then_some(func)
    .filter(|f| !f.is_empty())
}

/// libbpf's `btf_get_kernel_prefix_kind`: the prefix put before an attach
/// name and the BTF kind looked up in vmlinux BTF, by expected attach type
/// (`tp_btf/sys_enter` is the typedef `btf_trace_sys_enter`, `lsm/bpf` the
/// function `bpf_lsm_bpf`, `iter/task` the function `bpf_iter_task`, the
/// others the function itself).
pub fn btf_get_kernel_prefix_kind(attach_type: u32) -> (&'static str, u32) {
    use crate::btf::{BTF_KIND_FUNC, BTF_KIND_TYPEDEF};
    match attach_type {
        at::TRACE_RAW_TP => ("btf_trace_", BTF_KIND_TYPEDEF),
        at::LSM_MAC | at::LSM_CGROUP => ("bpf_lsm_", BTF_KIND_FUNC),
        at::TRACE_ITER => ("bpf_iter_", BTF_KIND_FUNC),
        _ => ("", BTF_KIND_FUNC),
    }
}

/// libbpf's section table for the sections test_loader suites use. A
/// leading `?` (autoload off) is ignored; `name+` entries match `name` and
/// `name/...`.
pub fn sec_def(sec: &str) -> Option<SecDef> {
    let sec = sec.strip_prefix('?').unwrap_or(sec);
    let (head, has_tail) = match sec.split_once('/') {
        Some((h, _)) => (h, true),
        None => (sec, false),
    };
    let d = |t: ProgType| Some(SecDef { prog_type: t, attach_type: None, flags: 0 });
    let with = |t: ProgType, a: u32, f: u32| Some(SecDef { prog_type: t, attach_type: Some(a), flags: f });
    use crate::uapi::prog_flags::{BPF_F_SLEEPABLE as SLEEPABLE, BPF_F_XDP_HAS_FRAGS};
    match (head, has_tail) {
        ("socket", _) => d(SOCKET_FILTER),
        ("tc" | "classifier", false) => d(SCHED_CLS),
        ("tc" | "tcx", true) => match sec.rsplit('/').next() {
            Some("ingress") => with(SCHED_CLS, at::TCX_INGRESS, 0),
            Some("egress") => with(SCHED_CLS, at::TCX_EGRESS, 0),
            _ => None,
        },
        ("action", _) => d(SCHED_ACT),
        ("xdp", false) => with(XDP, at::XDP, 0),
        ("xdp.frags", false) => with(XDP, at::XDP, BPF_F_XDP_HAS_FRAGS),
        ("raw_tp" | "raw_tracepoint", _) => d(RAW_TRACEPOINT),
        ("raw_tp.w" | "raw_tracepoint.w", _) => d(ProgType(pt::RAW_TRACEPOINT_WRITABLE)),
        ("raw_tp.s" | "raw_tracepoint.s", _) => Some(SecDef { prog_type: RAW_TRACEPOINT, attach_type: None, flags: SLEEPABLE }),
        ("tracepoint" | "tp", _) => d(TRACEPOINT),
        ("kprobe" | "kretprobe" | "uprobe" | "uretprobe", _) => d(KPROBE),
        ("uprobe.s" | "uretprobe.s", _) => Some(SecDef { prog_type: KPROBE, attach_type: None, flags: SLEEPABLE }),
        ("perf_event", _) => d(ProgType(pt::PERF_EVENT)),
        ("cgroup", true) => cgroup_sec(sec),
        ("cgroup_skb", true) => match sec.rsplit('/').next() {
            Some("ingress") => with(CGROUP_SKB, at::CGROUP_INET_INGRESS, 0),
            Some("egress") => with(CGROUP_SKB, at::CGROUP_INET_EGRESS, 0),
            _ => None,
        },
        ("sk_lookup", _) => with(SK_LOOKUP, at::SK_LOOKUP, 0),
        ("syscall", false) => Some(SecDef { prog_type: SYSCALL, attach_type: None, flags: SLEEPABLE }),
        ("sk_skb", _) => d(ProgType(pt::SK_SKB)),
        ("sk_msg", _) => with(ProgType(pt::SK_MSG), at::SK_MSG_VERDICT, 0),
        ("sockops", _) => with(ProgType(pt::SOCK_OPS), at::CGROUP_SOCK_OPS, 0),
        ("flow_dissector", _) => with(ProgType(pt::FLOW_DISSECTOR), at::FLOW_DISSECTOR, 0),
        ("lwt_in", _) => d(ProgType(pt::LWT_IN)),
        ("lwt_out", _) => d(ProgType(pt::LWT_OUT)),
        ("lwt_xmit", _) => d(ProgType(pt::LWT_XMIT)),
        ("lwt_seg6local", _) => d(ProgType(pt::LWT_SEG6LOCAL)),
        ("sk_reuseport", _) => d(ProgType(pt::SK_REUSEPORT)),
        ("netfilter", _) => with(ProgType(pt::NETFILTER), at::NETFILTER, 0),
        // tracing and LSM programs, attached to what the section names
        // (sec_attach_target)
        ("fentry", true) => with(TRACING, at::TRACE_FENTRY, 0),
        ("fexit", true) => with(TRACING, at::TRACE_FEXIT, 0),
        ("fmod_ret", true) => with(TRACING, at::MODIFY_RETURN, 0),
        ("fentry.s", true) => with(TRACING, at::TRACE_FENTRY, SLEEPABLE),
        ("fexit.s", true) => with(TRACING, at::TRACE_FEXIT, SLEEPABLE),
        ("fmod_ret.s", true) => with(TRACING, at::MODIFY_RETURN, SLEEPABLE),
        ("fsession", true) => with(TRACING, at::TRACE_FSESSION, 0),
        ("fsession.s", true) => with(TRACING, at::TRACE_FSESSION, SLEEPABLE),
        ("tp_btf", true) => with(TRACING, at::TRACE_RAW_TP, 0),
        ("tp_btf.s", true) => with(TRACING, at::TRACE_RAW_TP, SLEEPABLE),
        ("lsm", true) => with(ProgType(pt::LSM), at::LSM_MAC, 0),
        ("lsm.s", true) => with(ProgType(pt::LSM), at::LSM_MAC, SLEEPABLE),
        ("lsm_cgroup", true) => with(ProgType(pt::LSM), at::LSM_CGROUP, 0),
        ("iter", true) => with(TRACING, at::TRACE_ITER, 0),
        ("iter.s", true) => with(TRACING, at::TRACE_ITER, SLEEPABLE),
        _ => PROG_TYPES.iter().find(|(_, n)| *n == sec).map(|(n, _)| SecDef { prog_type: ProgType(*n), attach_type: None, flags: 0 }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attach_btf_sections() {
        let d = |s: &str| sec_def(s).map(|d| (d.prog_type.0, d.attach_type, d.flags));
        let sleepable = crate::uapi::prog_flags::BPF_F_SLEEPABLE;
        assert_eq!(d("tp_btf/sys_enter"), Some((pt::TRACING, Some(at::TRACE_RAW_TP), 0)));
        assert_eq!(d("lsm.s/file_open"), Some((pt::LSM, Some(at::LSM_MAC), sleepable)));
        assert_eq!(d("lsm_cgroup/socket_create"), Some((pt::LSM, Some(at::LSM_CGROUP), 0)));
        assert_eq!(d("iter.s/bpf_map"), Some((pt::TRACING, Some(at::TRACE_ITER), sleepable)));
        assert_eq!(d("fmod_ret.s/f"), Some((pt::TRACING, Some(at::MODIFY_RETURN), sleepable)));
        assert_eq!(sec_attach_target("?lsm/bpf"), Some("bpf"));
        assert_eq!(sec_attach_target("iter/task"), Some("task"));
        assert_eq!(sec_attach_target("lsm/"), None);
        assert_eq!(sec_attach_target("raw_tp/sys_enter"), None);
        use crate::btf::{BTF_KIND_FUNC, BTF_KIND_TYPEDEF};
        assert_eq!(btf_get_kernel_prefix_kind(at::TRACE_RAW_TP), ("btf_trace_", BTF_KIND_TYPEDEF));
        assert_eq!(btf_get_kernel_prefix_kind(at::LSM_CGROUP), ("bpf_lsm_", BTF_KIND_FUNC));
        assert_eq!(btf_get_kernel_prefix_kind(at::TRACE_ITER), ("bpf_iter_", BTF_KIND_FUNC));
        assert_eq!(btf_get_kernel_prefix_kind(at::MODIFY_RETURN), ("", BTF_KIND_FUNC));
    }
}
