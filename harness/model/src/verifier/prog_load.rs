//! What `bpf_prog_load` (`kernel/bpf/syscall.c`) refuses before the
//! verifier runs: unknown flags, program size, capabilities per program
//! type, attach types. These fail without a log.

use super::env::*;
use super::errno::*;
use crate::limits::BPF_COMPLEXITY_LIMIT_INSNS;
use crate::map::flags::BPF_F_TOKEN_FD;
use crate::prog_type::ProgType;
use crate::uapi::prog_flags::*;

/// `enum bpf_prog_type`.
pub use crate::prog_type::bpf_prog_type as prog_types;

use crate::prog_type::bpf_attach_type as at;
use prog_types as pt;

/// `bpf_prog_load_fixup_attach_type`: the attach type some program types
/// get when none is given.
pub fn bpf_prog_load_fixup_attach_type(prog_type: ProgType, attach: u32) -> u32 {
    match prog_type.0 {
        pt::CGROUP_SOCK if attach == 0 => at::CGROUP_INET_SOCK_CREATE,
        pt::SK_REUSEPORT if attach == 0 => at::SK_REUSEPORT_SELECT,
        _ => attach,
    }
}

/// `bpf_prog_load_check_attach` for loads without an attach target.
fn bpf_prog_load_check_attach(prog_type: u32, attach: u32) -> bool {
    match prog_type {
        pt::CGROUP_SOCK => {
            matches!(attach, at::CGROUP_INET_SOCK_CREATE | at::CGROUP_INET_SOCK_RELEASE | at::CGROUP_INET4_POST_BIND | at::CGROUP_INET6_POST_BIND)
        }
        pt::CGROUP_SOCK_ADDR => matches!(
            attach,
            at::CGROUP_INET4_BIND
                | at::CGROUP_INET6_BIND
                | at::CGROUP_INET4_CONNECT
                | at::CGROUP_INET6_CONNECT
                | at::CGROUP_UNIX_CONNECT
                | at::CGROUP_INET4_GETPEERNAME
                | at::CGROUP_INET6_GETPEERNAME
                | at::CGROUP_UNIX_GETPEERNAME
                | at::CGROUP_INET4_GETSOCKNAME
                | at::CGROUP_INET6_GETSOCKNAME
                | at::CGROUP_UNIX_GETSOCKNAME
                | at::CGROUP_UDP4_SENDMSG
                | at::CGROUP_UDP6_SENDMSG
                | at::CGROUP_UNIX_SENDMSG
                | at::CGROUP_UDP4_RECVMSG
                | at::CGROUP_UDP6_RECVMSG
                | at::CGROUP_UNIX_RECVMSG
        ),
        pt::CGROUP_SKB => matches!(attach, at::CGROUP_INET_INGRESS | at::CGROUP_INET_EGRESS),
        pt::CGROUP_SOCKOPT => matches!(attach, at::CGROUP_SETSOCKOPT | at::CGROUP_GETSOCKOPT),
        pt::SK_LOOKUP => attach == at::SK_LOOKUP,
        pt::SK_REUSEPORT => matches!(attach, at::SK_REUSEPORT_SELECT | at::SK_REUSEPORT_SELECT_OR_MIGRATE),
        pt::NETFILTER => attach == at::NETFILTER,
        pt::SYSCALL | pt::EXT => attach == 0,
        _ => true,
    }
}

/// `is_net_admin_prog_type`.
fn is_net_admin_prog_type(t: u32) -> bool {
    matches!(
        t,
        pt::SCHED_CLS
            | pt::SCHED_ACT
            | pt::XDP
            | pt::LWT_IN
            | pt::LWT_OUT
            | pt::LWT_XMIT
            | pt::LWT_SEG6LOCAL
            | pt::SK_SKB
            | pt::SK_MSG
            | pt::FLOW_DISSECTOR
            | pt::CGROUP_DEVICE
            | pt::CGROUP_SOCK
            | pt::CGROUP_SOCK_ADDR
            | pt::CGROUP_SOCKOPT
            | pt::CGROUP_SYSCTL
            | pt::SOCK_OPS
            | pt::EXT
            | pt::NETFILTER
    )
}

/// `is_perfmon_prog_type`.
fn is_perfmon_prog_type(t: u32) -> bool {
    matches!(
        t,
        pt::KPROBE | pt::TRACEPOINT | pt::PERF_EVENT | pt::RAW_TRACEPOINT | pt::RAW_TRACEPOINT_WRITABLE | pt::TRACING | pt::LSM | pt::STRUCT_OPS | pt::EXT
    )
}

/// `bpf_prog_load` up to the call of `bpf_check`: `Err(errno)` for the
/// loads it refuses (with an empty log), else the attach type the
/// verifier sees.
pub fn bpf_prog_load(input: &VerifierInput) -> Result<u32, i32> {
    let known = BPF_F_STRICT_ALIGNMENT
        | BPF_F_ANY_ALIGNMENT
        | BPF_F_TEST_STATE_FREQ
        | BPF_F_SLEEPABLE
        | BPF_F_TEST_RND_HI32
        | BPF_F_XDP_HAS_FRAGS
        | BPF_F_XDP_DEV_BOUND_ONLY
        | BPF_F_TEST_REG_INVARIANTS
        | BPF_F_TOKEN_FD;
    if input.prog_flags & !known != 0 {
        return Err(EINVAL);
    }
    if input.prog_flags & BPF_F_TOKEN_FD != 0 {
        // prog_token_fd is 0 here, an open file that is not a BPF token
        return Err(EINVAL);
    }
    let attach = bpf_prog_load_fixup_attach_type(input.prog_type, input.expected_attach_type);
    let caps = input.caps;
    let bpf_cap = caps.bpf_capable();
    if !input.arch.efficient_unaligned_access() && input.prog_flags & BPF_F_ANY_ALIGNMENT != 0 && !bpf_cap {
        return Err(EPERM);
    }
    // sysctl unprivileged_bpf_disabled is 0 where test_loader runs unpriv tests
    let limit = if bpf_cap { BPF_COMPLEXITY_LIMIT_INSNS as usize } else { BPF_MAXINSNS };
    if input.insns.is_empty() || input.insns.len() > limit {
        return Err(E2BIG);
    }
    let t = input.prog_type.0;
    if t != pt::SOCKET_FILTER && t != pt::CGROUP_SKB && !bpf_cap {
        return Err(EPERM);
    }
    if is_net_admin_prog_type(t) && !caps.net_admin() {
        return Err(EPERM);
    }
    if is_perfmon_prog_type(t) && !caps.perfmon_capable() {
        return Err(EPERM);
    }
    if is_tracing_multi(attach) && t != pt::TRACING {
        return Err(EINVAL);
    }
    if !bpf_prog_load_check_attach(t, attach) {
        return Err(EINVAL);
    }
    // find_prog_type: every type 1..=32 exists in the Debian 7.3 configs
    if !(1..=pt::NETFILTER).contains(&t) {
        return Err(EINVAL);
    }
    Ok(attach)
}

/// `is_tracing_multi`.
fn is_tracing_multi(attach: u32) -> bool {
    matches!(attach, at::TRACE_FENTRY_MULTI | at::TRACE_FEXIT_MULTI | at::TRACE_FSESSION_MULTI)
}
