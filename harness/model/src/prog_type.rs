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
pub const PROG_FLAGS: &[(&str, &str, u32)] = &[
    ("BPF_F_STRICT_ALIGNMENT", "strict_alignment", 1 << 0),
    ("BPF_F_ANY_ALIGNMENT", "any_alignment", 1 << 1),
    ("BPF_F_TEST_RND_HI32", "rnd_hi32", 1 << 2),
    ("BPF_F_TEST_STATE_FREQ", "state_freq", 1 << 3),
    ("BPF_F_SLEEPABLE", "sleepable", 1 << 4),
    ("BPF_F_XDP_HAS_FRAGS", "xdp_has_frags", 1 << 5),
    ("BPF_F_XDP_DEV_BOUND_ONLY", "xdp_dev_bound_only", 1 << 6),
    ("BPF_F_TEST_REG_INVARIANTS", "reg_invariants", 1 << 7),
];

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
    ("skb", 8, u32::MAX),
    ("sock_create", 9, 2),
    ("sock_release", 9, 34),
    ("sock", 9, 2),
    ("post_bind4", 9, 12),
    ("post_bind6", 9, 13),
    ("bind4", 18, 8),
    ("bind6", 18, 9),
    ("connect4", 18, 10),
    ("connect6", 18, 11),
    ("connect_unix", 18, 49),
    ("sendmsg4", 18, 14),
    ("sendmsg6", 18, 15),
    ("sendmsg_unix", 18, 50),
    ("recvmsg4", 18, 19),
    ("recvmsg6", 18, 20),
    ("recvmsg_unix", 18, 51),
    ("getpeername4", 18, 29),
    ("getpeername6", 18, 30),
    ("getpeername_unix", 18, 52),
    ("getsockname4", 18, 31),
    ("getsockname6", 18, 32),
    ("getsockname_unix", 18, 53),
    ("sysctl", 23, 18),
    ("getsockopt", 25, 21),
    ("setsockopt", 25, 22),
    ("dev", 15, 6),
];

fn cgroup_sec(sec: &str) -> Option<SecDef> {
    let rest = sec.strip_prefix("cgroup/")?;
    let (_, t, a) = CGROUP_SECS.iter().find(|(n, _, _)| *n == rest)?;
    Some(SecDef { prog_type: ProgType(*t), attach_type: (*a != u32::MAX).then_some(*a), flags: 0 })
}

/// The kernel function a tracing section attaches to (`fentry/<func>`):
/// libbpf loads the program with `attach_btf_id` = its vmlinux BTF id.
pub fn sec_attach_target(sec: &str) -> Option<&str> {
    let sec = sec.strip_prefix('?').unwrap_or(sec);
    let (head, func) = sec.split_once('/')?;
    matches!(head, "fentry" | "fexit" | "fmod_ret" | "fentry.s" | "fexit.s").then_some(func).filter(|f| !f.is_empty())
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
    const SLEEPABLE: u32 = 1 << 4;
    match (head, has_tail) {
        ("socket", _) => d(SOCKET_FILTER),
        ("tc" | "classifier", false) => d(SCHED_CLS),
        ("tc" | "tcx", true) => match sec.rsplit('/').next() {
            Some("ingress") => with(SCHED_CLS, 46, 0),
            Some("egress") => with(SCHED_CLS, 47, 0),
            _ => None,
        },
        ("action", _) => d(SCHED_ACT),
        ("xdp", false) => with(XDP, 37, 0),
        ("xdp.frags", false) => with(XDP, 37, 1 << 5),
        ("raw_tp" | "raw_tracepoint", _) => d(RAW_TRACEPOINT),
        ("raw_tp.w" | "raw_tracepoint.w", _) => d(ProgType(24)),
        ("raw_tp.s" | "raw_tracepoint.s", _) => Some(SecDef { prog_type: RAW_TRACEPOINT, attach_type: None, flags: SLEEPABLE }),
        ("tracepoint" | "tp", _) => d(TRACEPOINT),
        ("kprobe" | "kretprobe" | "uprobe" | "uretprobe", _) => d(KPROBE),
        ("uprobe.s" | "uretprobe.s", _) => Some(SecDef { prog_type: KPROBE, attach_type: None, flags: SLEEPABLE }),
        ("perf_event", _) => d(ProgType(7)),
        ("cgroup", true) => cgroup_sec(sec),
        ("cgroup_skb", true) => match sec.rsplit('/').next() {
            Some("ingress") => with(CGROUP_SKB, 0, 0),
            Some("egress") => with(CGROUP_SKB, 1, 0),
            _ => None,
        },
        ("sk_lookup", _) => with(SK_LOOKUP, 36, 0),
        ("syscall", false) => Some(SecDef { prog_type: SYSCALL, attach_type: None, flags: SLEEPABLE }),
        ("sk_skb", _) => d(ProgType(14)),
        ("sk_msg", _) => with(ProgType(16), 7, 0),
        ("sockops", _) => with(ProgType(13), 3, 0),
        ("flow_dissector", _) => with(ProgType(22), 17, 0),
        ("lwt_in", _) => d(ProgType(10)),
        ("lwt_out", _) => d(ProgType(11)),
        ("lwt_xmit", _) => d(ProgType(12)),
        ("lwt_seg6local", _) => d(ProgType(19)),
        ("sk_reuseport", _) => d(ProgType(21)),
        ("netfilter", _) => with(ProgType(32), 45, 0),
        // BPF_TRACE_FENTRY / FEXIT / BPF_MODIFY_RETURN, attached to the
        // kernel function the section names (sec_attach_target)
        ("fentry", true) => with(TRACING, 24, 0),
        ("fexit", true) => with(TRACING, 25, 0),
        ("fmod_ret", true) => with(TRACING, 26, 0),
        ("fentry.s", true) => with(TRACING, 24, SLEEPABLE),
        ("fexit.s", true) => with(TRACING, 25, SLEEPABLE),
        _ => PROG_TYPES.iter().find(|(_, n)| *n == sec).map(|(n, _)| SecDef { prog_type: ProgType(*n), attach_type: None, flags: 0 }),
    }
}
