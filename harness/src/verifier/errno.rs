//! The Linux errno values the verifier returns (positive, as `LoadOutcome`
//! carries them), including the kernel-internal `ENOTSUPP`.

pub const EPERM: i32 = 1;
pub const ENOENT: i32 = 2;
pub const E2BIG: i32 = 7;
pub const EBADF: i32 = 9;
pub const ENOMEM: i32 = 12;
pub const EACCES: i32 = 13;
pub const EFAULT: i32 = 14;
pub const EBUSY: i32 = 16;
pub const EINVAL: i32 = 22;
pub const ENOSPC: i32 = 28;
pub const EPROTO: i32 = 71;
pub const EOPNOTSUPP: i32 = 95;
/// Kernel-internal "operation not supported" (`include/linux/errno.h`).
pub const ENOTSUPP: i32 = 524;

/// The symbolic name of an errno, for messages.
pub fn errno_name(e: i32) -> &'static str {
    match e {
        0 => "OK",
        EPERM => "EPERM",
        ENOENT => "ENOENT",
        E2BIG => "E2BIG",
        EBADF => "EBADF",
        ENOMEM => "ENOMEM",
        EACCES => "EACCES",
        EFAULT => "EFAULT",
        EBUSY => "EBUSY",
        EINVAL => "EINVAL",
        ENOSPC => "ENOSPC",
        EPROTO => "EPROTO",
        EOPNOTSUPP => "EOPNOTSUPP",
        ENOTSUPP => "ENOTSUPP",
        _ => "E?",
    }
}
