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

/// The attach target a section names (`fentry/<func>`, `tp_btf/<tp>`,
/// `lsm/<hook>`, `iter/<name>`, ...): libbpf looks it up in vmlinux BTF
/// (`btf_get_kernel_prefix_kind`) and loads the program with
/// `attach_btf_id` = the id found.
/// Whether programs of this type and attach type name their attach
/// target by vmlinux BTF id (`attach_btf_id`): tracing, LSM and iterator
/// programs; raw tracepoints name theirs when attached.
pub fn btf_attach_target_kind(prog_type: ProgType, expected_attach_type: Option<u32>) -> bool {
    matches!(prog_type.0, bpf_prog_type::TRACING | bpf_prog_type::LSM) && expected_attach_type.is_some()
}

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

/// How a section sets a program up (libbpf's `SEC_*` flags that reach
/// `BPF_PROG_LOAD`).
const NONE: u32 = 0;
const SLEEP: u32 = crate::uapi::prog_flags::BPF_F_SLEEPABLE;
const FRAGS: u32 = crate::uapi::prog_flags::BPF_F_XDP_HAS_FRAGS;

/// libbpf's `section_defs`, in its order (the first match wins): the
/// pattern, the program type, the expected attach type (`None`: libbpf
/// passes 0) and the load flags. A pattern ending in `+` matches the name
/// alone or followed by `/...`; any other pattern only itself.
const SECTION_DEFS: &[(&str, u32, Option<u32>, u32)] = &[
    ("socket", pt::SOCKET_FILTER, None, NONE),
    ("sk_reuseport/migrate", pt::SK_REUSEPORT, Some(at::SK_REUSEPORT_SELECT_OR_MIGRATE), NONE),
    ("sk_reuseport", pt::SK_REUSEPORT, Some(at::SK_REUSEPORT_SELECT), NONE),
    ("kprobe+", pt::KPROBE, None, NONE),
    ("uprobe+", pt::KPROBE, None, NONE),
    ("uprobe.s+", pt::KPROBE, None, SLEEP),
    ("kretprobe+", pt::KPROBE, None, NONE),
    ("uretprobe+", pt::KPROBE, None, NONE),
    ("uretprobe.s+", pt::KPROBE, None, SLEEP),
    ("kprobe.multi+", pt::KPROBE, Some(at::TRACE_KPROBE_MULTI), NONE),
    ("kretprobe.multi+", pt::KPROBE, Some(at::TRACE_KPROBE_MULTI), NONE),
    ("kprobe.session+", pt::KPROBE, Some(at::TRACE_KPROBE_SESSION), NONE),
    ("uprobe.multi+", pt::KPROBE, Some(at::TRACE_UPROBE_MULTI), NONE),
    ("uretprobe.multi+", pt::KPROBE, Some(at::TRACE_UPROBE_MULTI), NONE),
    ("uprobe.session+", pt::KPROBE, Some(at::TRACE_UPROBE_SESSION), NONE),
    ("uprobe.multi.s+", pt::KPROBE, Some(at::TRACE_UPROBE_MULTI), SLEEP),
    ("uretprobe.multi.s+", pt::KPROBE, Some(at::TRACE_UPROBE_MULTI), SLEEP),
    ("uprobe.session.s+", pt::KPROBE, Some(at::TRACE_UPROBE_SESSION), SLEEP),
    ("ksyscall+", pt::KPROBE, None, NONE),
    ("kretsyscall+", pt::KPROBE, None, NONE),
    ("usdt+", pt::KPROBE, None, NONE),
    ("usdt.s+", pt::KPROBE, None, SLEEP),
    ("tc/ingress", pt::SCHED_CLS, Some(at::TCX_INGRESS), NONE),
    ("tc/egress", pt::SCHED_CLS, Some(at::TCX_EGRESS), NONE),
    ("tcx/ingress", pt::SCHED_CLS, Some(at::TCX_INGRESS), NONE),
    ("tcx/egress", pt::SCHED_CLS, Some(at::TCX_EGRESS), NONE),
    ("tc", pt::SCHED_CLS, None, NONE),
    ("classifier", pt::SCHED_CLS, None, NONE),
    ("action", pt::SCHED_ACT, None, NONE),
    ("netkit/primary", pt::SCHED_CLS, Some(at::NETKIT_PRIMARY), NONE),
    ("netkit/peer", pt::SCHED_CLS, Some(at::NETKIT_PEER), NONE),
    ("tracepoint+", pt::TRACEPOINT, None, NONE),
    ("tp+", pt::TRACEPOINT, None, NONE),
    ("tracepoint.s+", pt::TRACEPOINT, None, SLEEP),
    ("tp.s+", pt::TRACEPOINT, None, SLEEP),
    ("raw_tracepoint+", pt::RAW_TRACEPOINT, None, NONE),
    ("raw_tp+", pt::RAW_TRACEPOINT, None, NONE),
    ("raw_tracepoint.s+", pt::RAW_TRACEPOINT, None, SLEEP),
    ("raw_tp.s+", pt::RAW_TRACEPOINT, None, SLEEP),
    ("raw_tracepoint.w+", pt::RAW_TRACEPOINT_WRITABLE, None, NONE),
    ("raw_tp.w+", pt::RAW_TRACEPOINT_WRITABLE, None, NONE),
    ("tp_btf+", pt::TRACING, Some(at::TRACE_RAW_TP), NONE),
    ("tp_btf.s+", pt::TRACING, Some(at::TRACE_RAW_TP), SLEEP),
    ("fentry+", pt::TRACING, Some(at::TRACE_FENTRY), NONE),
    ("fmod_ret+", pt::TRACING, Some(at::MODIFY_RETURN), NONE),
    ("fexit+", pt::TRACING, Some(at::TRACE_FEXIT), NONE),
    ("fentry.s+", pt::TRACING, Some(at::TRACE_FENTRY), SLEEP),
    ("fmod_ret.s+", pt::TRACING, Some(at::MODIFY_RETURN), SLEEP),
    ("fexit.s+", pt::TRACING, Some(at::TRACE_FEXIT), SLEEP),
    ("fsession+", pt::TRACING, Some(at::TRACE_FSESSION), NONE),
    ("fsession.s+", pt::TRACING, Some(at::TRACE_FSESSION), SLEEP),
    ("fsession.multi+", pt::TRACING, Some(at::TRACE_FSESSION_MULTI), NONE),
    ("fsession.multi.s+", pt::TRACING, Some(at::TRACE_FSESSION_MULTI), SLEEP),
    ("fentry.multi+", pt::TRACING, Some(at::TRACE_FENTRY_MULTI), NONE),
    ("fexit.multi+", pt::TRACING, Some(at::TRACE_FEXIT_MULTI), NONE),
    ("fentry.multi.s+", pt::TRACING, Some(at::TRACE_FENTRY_MULTI), SLEEP),
    ("fexit.multi.s+", pt::TRACING, Some(at::TRACE_FEXIT_MULTI), SLEEP),
    ("freplace+", pt::EXT, None, NONE),
    ("lsm+", pt::LSM, Some(at::LSM_MAC), NONE),
    ("lsm.s+", pt::LSM, Some(at::LSM_MAC), SLEEP),
    ("lsm_cgroup+", pt::LSM, Some(at::LSM_CGROUP), NONE),
    ("iter+", pt::TRACING, Some(at::TRACE_ITER), NONE),
    ("iter.s+", pt::TRACING, Some(at::TRACE_ITER), SLEEP),
    ("syscall", pt::SYSCALL, None, SLEEP),
    ("xdp.frags/devmap", pt::XDP, Some(at::XDP_DEVMAP), FRAGS),
    ("xdp/devmap", pt::XDP, Some(at::XDP_DEVMAP), NONE),
    ("xdp.frags/cpumap", pt::XDP, Some(at::XDP_CPUMAP), FRAGS),
    ("xdp/cpumap", pt::XDP, Some(at::XDP_CPUMAP), NONE),
    ("xdp.frags", pt::XDP, Some(at::XDP), FRAGS),
    ("xdp", pt::XDP, Some(at::XDP), NONE),
    ("perf_event", pt::PERF_EVENT, None, NONE),
    ("lwt_in", pt::LWT_IN, None, NONE),
    ("lwt_out", pt::LWT_OUT, None, NONE),
    ("lwt_xmit", pt::LWT_XMIT, None, NONE),
    ("lwt_seg6local", pt::LWT_SEG6LOCAL, None, NONE),
    ("sockops", pt::SOCK_OPS, Some(at::CGROUP_SOCK_OPS), NONE),
    ("sk_skb/stream_parser", pt::SK_SKB, Some(at::SK_SKB_STREAM_PARSER), NONE),
    ("sk_skb/stream_verdict", pt::SK_SKB, Some(at::SK_SKB_STREAM_VERDICT), NONE),
    ("sk_skb/verdict", pt::SK_SKB, Some(at::SK_SKB_VERDICT), NONE),
    ("sk_skb", pt::SK_SKB, None, NONE),
    ("sk_msg", pt::SK_MSG, Some(at::SK_MSG_VERDICT), NONE),
    ("lirc_mode2", pt::LIRC_MODE2, Some(at::LIRC_MODE2), NONE),
    ("flow_dissector", pt::FLOW_DISSECTOR, Some(at::FLOW_DISSECTOR), NONE),
    ("cgroup_skb/ingress", pt::CGROUP_SKB, Some(at::CGROUP_INET_INGRESS), NONE),
    ("cgroup_skb/egress", pt::CGROUP_SKB, Some(at::CGROUP_INET_EGRESS), NONE),
    ("cgroup/skb", pt::CGROUP_SKB, None, NONE),
    ("cgroup/sock_create", pt::CGROUP_SOCK, Some(at::CGROUP_INET_SOCK_CREATE), NONE),
    ("cgroup/sock_release", pt::CGROUP_SOCK, Some(at::CGROUP_INET_SOCK_RELEASE), NONE),
    ("cgroup/sock", pt::CGROUP_SOCK, Some(at::CGROUP_INET_SOCK_CREATE), NONE),
    ("cgroup/post_bind4", pt::CGROUP_SOCK, Some(at::CGROUP_INET4_POST_BIND), NONE),
    ("cgroup/post_bind6", pt::CGROUP_SOCK, Some(at::CGROUP_INET6_POST_BIND), NONE),
    ("cgroup/bind4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET4_BIND), NONE),
    ("cgroup/bind6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET6_BIND), NONE),
    ("cgroup/connect4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET4_CONNECT), NONE),
    ("cgroup/connect6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET6_CONNECT), NONE),
    ("cgroup/connect_unix", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UNIX_CONNECT), NONE),
    ("cgroup/sendmsg4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UDP4_SENDMSG), NONE),
    ("cgroup/sendmsg6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UDP6_SENDMSG), NONE),
    ("cgroup/sendmsg_unix", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UNIX_SENDMSG), NONE),
    ("cgroup/recvmsg4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UDP4_RECVMSG), NONE),
    ("cgroup/recvmsg6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UDP6_RECVMSG), NONE),
    ("cgroup/recvmsg_unix", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UNIX_RECVMSG), NONE),
    ("cgroup/getpeername4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET4_GETPEERNAME), NONE),
    ("cgroup/getpeername6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET6_GETPEERNAME), NONE),
    ("cgroup/getpeername_unix", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UNIX_GETPEERNAME), NONE),
    ("cgroup/getsockname4", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET4_GETSOCKNAME), NONE),
    ("cgroup/getsockname6", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_INET6_GETSOCKNAME), NONE),
    ("cgroup/getsockname_unix", pt::CGROUP_SOCK_ADDR, Some(at::CGROUP_UNIX_GETSOCKNAME), NONE),
    ("cgroup/sysctl", pt::CGROUP_SYSCTL, Some(at::CGROUP_SYSCTL), NONE),
    ("cgroup/getsockopt", pt::CGROUP_SOCKOPT, Some(at::CGROUP_GETSOCKOPT), NONE),
    ("cgroup/setsockopt", pt::CGROUP_SOCKOPT, Some(at::CGROUP_SETSOCKOPT), NONE),
    ("cgroup/dev", pt::CGROUP_DEVICE, Some(at::CGROUP_DEVICE), NONE),
    ("struct_ops+", pt::STRUCT_OPS, None, NONE),
    ("struct_ops.s+", pt::STRUCT_OPS, None, SLEEP),
    ("sk_lookup", pt::SK_LOOKUP, Some(at::SK_LOOKUP), NONE),
    ("netfilter", pt::NETFILTER, Some(at::NETFILTER), NONE),
];

/// libbpf's `sec_def_matches`.
fn sec_def_matches(pattern: &str, sec: &str) -> bool {
    match pattern.strip_suffix('+') {
        Some(p) => sec.strip_prefix(p).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')),
        None => pattern == sec,
    }
}

/// libbpf's `find_sec_def` over its section table; a leading `?`
/// (autoload off) is ignored. A kernel program type's own name
/// (`sched_cls`) is taken too, for programs written in asm.
pub fn sec_def(sec: &str) -> Option<SecDef> {
    let sec = sec.strip_prefix('?').unwrap_or(sec);
    if let Some(&(_, t, a, flags)) = SECTION_DEFS.iter().find(|(p, ..)| sec_def_matches(p, sec)) {
        return Some(SecDef { prog_type: ProgType(t), attach_type: a, flags });
    }
    PROG_TYPES.iter().find(|(_, n)| *n == sec).map(|(n, _)| SecDef { prog_type: ProgType(*n), attach_type: None, flags: 0 })
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
        assert_eq!(d("kprobe.multi/f*"), Some((pt::KPROBE, Some(at::TRACE_KPROBE_MULTI), 0)));
        assert_eq!(d("uprobe.session.s"), Some((pt::KPROBE, Some(at::TRACE_UPROBE_SESSION), sleepable)));
        assert_eq!(d("sk_reuseport/migrate"), Some((pt::SK_REUSEPORT, Some(at::SK_REUSEPORT_SELECT_OR_MIGRATE), 0)));
        assert_eq!(d("tp.s/syscalls/sys_enter_nanosleep"), Some((pt::TRACEPOINT, None, sleepable)));
        // `name+` wants the name alone or a `/`; other names only themselves
        assert_eq!(d("kprobe.multix"), None);
        assert_eq!(d("socket/x"), None);
        assert_eq!(d("sched_cls"), Some((pt::SCHED_CLS, None, 0)));
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
