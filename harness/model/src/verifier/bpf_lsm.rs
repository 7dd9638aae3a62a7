//! `kernel/bpf/bpf_lsm.c`: which LSM hooks BPF programs may attach to and
//! which of them may sleep (the BTF id sets are kept here by function name).
//!
//! The hook set itself (`bpf_lsm_hooks`, one entry per `LSM_HOOK` of
//! `lsm_hook_defs.h`) is not part of the source subset the model is written
//! from: the hooks the model knows are the `bpf_lsm_<hook>` functions of the
//! recorded vmlinux BTF, which `scripts/record-vmlinux-btf.py` keeps for the
//! hooks the selftests' `lsm/` and `lsm_cgroup/` sections name.

/// `bpf_lsm_disabled_hooks`: hooks whose return value or calling context
/// BPF programs cannot honour. Entries under a kernel config option name
/// hooks that exist (in vmlinux BTF) only with that option.
const BPF_LSM_DISABLED_HOOKS: &[&str] = &[
    "bpf_lsm_vm_enough_memory",
    "bpf_lsm_inode_need_killpriv",
    "bpf_lsm_inode_getsecurity",
    "bpf_lsm_inode_listsecurity",
    "bpf_lsm_inode_copy_up_xattr",
    "bpf_lsm_getselfattr",
    "bpf_lsm_getprocattr",
    "bpf_lsm_setprocattr",
    "bpf_lsm_key_getsecurity",
    "bpf_lsm_audit_rule_match",
    "bpf_lsm_xfrm_decode_session",
    "bpf_lsm_ismaclabel",
    "bpf_lsm_file_alloc_security",
];

/// `sleepable_lsm_hooks` (`bpf_lsm_is_sleepable_hook`).
const SLEEPABLE_LSM_HOOKS: &[&str] = &[
    "bpf_lsm_bpf",
    "bpf_lsm_bpf_map",
    "bpf_lsm_bpf_map_create",
    "bpf_lsm_bpf_map_free",
    "bpf_lsm_bpf_prog",
    "bpf_lsm_bpf_prog_load",
    "bpf_lsm_bpf_token_create",
    "bpf_lsm_bpf_token_free",
    "bpf_lsm_bpf_token_cmd",
    "bpf_lsm_bpf_token_capable",
    "bpf_lsm_bprm_check_security",
    "bpf_lsm_bprm_committed_creds",
    "bpf_lsm_bprm_committing_creds",
    "bpf_lsm_bprm_creds_for_exec",
    "bpf_lsm_bprm_creds_from_file",
    "bpf_lsm_capget",
    "bpf_lsm_capset",
    "bpf_lsm_cred_prepare",
    "bpf_lsm_file_ioctl",
    "bpf_lsm_file_lock",
    "bpf_lsm_file_open",
    "bpf_lsm_file_post_open",
    "bpf_lsm_file_receive",
    "bpf_lsm_inode_create",
    "bpf_lsm_inode_free_security",
    "bpf_lsm_inode_getattr",
    "bpf_lsm_inode_getxattr",
    "bpf_lsm_inode_mknod",
    "bpf_lsm_inode_need_killpriv",
    "bpf_lsm_inode_post_setxattr",
    "bpf_lsm_inode_post_removexattr",
    "bpf_lsm_inode_readlink",
    "bpf_lsm_inode_removexattr",
    "bpf_lsm_inode_rename",
    "bpf_lsm_inode_rmdir",
    "bpf_lsm_inode_setattr",
    "bpf_lsm_inode_setxattr",
    "bpf_lsm_inode_symlink",
    "bpf_lsm_inode_unlink",
    "bpf_lsm_kernel_module_request",
    "bpf_lsm_kernel_read_file",
    "bpf_lsm_kernfs_init_security",
    "bpf_lsm_path_unlink",
    "bpf_lsm_path_mkdir",
    "bpf_lsm_path_rmdir",
    "bpf_lsm_path_truncate",
    "bpf_lsm_path_symlink",
    "bpf_lsm_path_link",
    "bpf_lsm_path_rename",
    "bpf_lsm_path_chmod",
    "bpf_lsm_path_chown",
    "bpf_lsm_mmap_file",
    "bpf_lsm_netlink_send",
    "bpf_lsm_path_notify",
    "bpf_lsm_release_secctx",
    "bpf_lsm_sb_alloc_security",
    "bpf_lsm_sb_eat_lsm_opts",
    "bpf_lsm_sb_kern_mount",
    "bpf_lsm_sb_mount",
    "bpf_lsm_sb_remount",
    "bpf_lsm_sb_set_mnt_opts",
    "bpf_lsm_sb_show_options",
    "bpf_lsm_sb_statfs",
    "bpf_lsm_sb_umount",
    "bpf_lsm_settime",
    "bpf_lsm_socket_accept",
    "bpf_lsm_socket_bind",
    "bpf_lsm_socket_connect",
    "bpf_lsm_socket_create",
    "bpf_lsm_socket_getpeername",
    "bpf_lsm_socket_getpeersec_dgram",
    "bpf_lsm_socket_getsockname",
    "bpf_lsm_socket_getsockopt",
    "bpf_lsm_socket_listen",
    "bpf_lsm_socket_post_create",
    "bpf_lsm_socket_recvmsg",
    "bpf_lsm_socket_sendmsg",
    "bpf_lsm_socket_shutdown",
    "bpf_lsm_socket_socketpair",
    "bpf_lsm_syslog",
    "bpf_lsm_task_alloc",
    "bpf_lsm_task_prctl",
    "bpf_lsm_task_setscheduler",
    "bpf_lsm_userns_create",
    "bpf_lsm_bdev_alloc_security",
    "bpf_lsm_bdev_setintegrity",
];

/// `untrusted_lsm_hooks`: hooks whose pointer arguments may be freed or
/// not yet set up, so `btf_ctx_access` does not mark them trusted. Entries
/// under a kernel config option exist (in vmlinux BTF) only with it.
const UNTRUSTED_LSM_HOOKS: &[&str] = &[
    "bpf_lsm_bpf_map_free",
    "bpf_lsm_bpf_prog_free",
    "bpf_lsm_file_alloc_security",
    "bpf_lsm_file_free_security",
    "bpf_lsm_sk_alloc_security",
    "bpf_lsm_sk_free_security",
    "bpf_lsm_task_free",
    "bpf_lsm_bdev_alloc_security",
    "bpf_lsm_bdev_free_security",
];

/// `bool_lsm_hooks`: hooks returning a boolean rather than 0 or `-errno`.
const BOOL_LSM_HOOKS: &[&str] = &["bpf_lsm_xfrm_state_pol_flow_match", "bpf_lsm_audit_rule_known", "bpf_lsm_inode_xattr_skipcap"];

/// `bpf_lsm_locked_sockopt_hooks`: hooks called with the socket locked,
/// whose `lsm_cgroup` programs get `bpf_{g,s}etsockopt`.
const BPF_LSM_LOCKED_SOCKOPT_HOOKS: &[&str] = &["bpf_lsm_sock_graft", "bpf_lsm_inet_csk_clone", "bpf_lsm_inet_conn_established"];

/// `bpf_lsm_unlocked_sockopt_hooks`: hooks called with the socket not
/// locked but still in its early init, whose `lsm_cgroup` programs get the
/// unlocked `bpf_{g,s}etsockopt`.
const BPF_LSM_UNLOCKED_SOCKOPT_HOOKS: &[&str] = &["bpf_lsm_socket_post_create", "bpf_lsm_socket_socketpair"];

/// Which of the sockopt hook sets the hook function `func` is in:
/// `Some(true)` locked, `Some(false)` unlocked, `None` neither.
pub(crate) fn bpf_lsm_sockopt_hook_locked(func: &str) -> Option<bool> {
    if BPF_LSM_LOCKED_SOCKOPT_HOOKS.contains(&func) {
        Some(true)
    } else if BPF_LSM_UNLOCKED_SOCKOPT_HOOKS.contains(&func) {
        Some(false)
    } else {
        None
    }
}

/// `MAX_ERRNO`.
const MAX_ERRNO: i32 = 4095;

/// `bpf_lsm_is_trusted`, by the hook function's name.
pub(crate) fn bpf_lsm_is_trusted(func: &str) -> bool {
    !UNTRUSTED_LSM_HOOKS.contains(&func)
}

/// `bpf_lsm_get_retval_range` for a hook returning a value (`returns_void`
/// false): `[0, 1]` for the boolean hooks, `[-MAX_ERRNO, 0]` for the rest.
/// `None` for a void hook.
pub(crate) fn bpf_lsm_get_retval_range(func: &str, returns_void: bool) -> Option<(i32, i32)> {
    if returns_void {
        None
    } else if BOOL_LSM_HOOKS.contains(&func) {
        Some((0, 1))
    } else {
        Some((-MAX_ERRNO, 0))
    }
}

/// `bpf_lsm_is_sleepable_hook`, by the hook function's name.
pub(crate) fn bpf_lsm_is_sleepable_hook(func: &str) -> bool {
    SLEEPABLE_LSM_HOOKS.contains(&func)
}

/// Membership in `bpf_lsm_disabled_hooks`, by the hook function's name.
pub(crate) fn bpf_lsm_is_disabled_hook(func: &str) -> bool {
    BPF_LSM_DISABLED_HOOKS.contains(&func)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_sets() {
        assert!(bpf_lsm_is_sleepable_hook("bpf_lsm_file_open"));
        assert!(!bpf_lsm_is_sleepable_hook("bpf_lsm_file_permission"));
        assert!(bpf_lsm_is_disabled_hook("bpf_lsm_getprocattr"));
        assert!(!bpf_lsm_is_disabled_hook("bpf_lsm_file_open"));
    }
}
