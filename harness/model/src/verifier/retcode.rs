//! `check_return_code` for the main program's `exit`: R0 must be readable,
//! must not leak a pointer, and must be in the range the program type
//! allows (`return_retval_range`).

use super::do_check::*;
use super::reg::*;
use super::tnum::*;

impl Env<'_, '_> {
    /// `return_retval_range`: the `[min, max]` a program type must return,
    /// `None` when any value is fine. (Program types with attach targets
    /// never get this far in the model.)
    fn return_retval_range(&self) -> Option<(i32, i32)> {
        use super::prog_load::prog_types as p;
        use crate::prog_type::bpf_attach_type as at;
        let attach = self.input.expected_attach_type;
        match self.input.prog_type {
            p::CGROUP_SOCK_ADDR => Some(match attach {
                at::CGROUP_UDP4_RECVMSG
                | at::CGROUP_UDP6_RECVMSG
                | at::CGROUP_UNIX_RECVMSG
                | at::CGROUP_INET4_GETPEERNAME
                | at::CGROUP_INET6_GETPEERNAME
                | at::CGROUP_UNIX_GETPEERNAME
                | at::CGROUP_INET4_GETSOCKNAME
                | at::CGROUP_INET6_GETSOCKNAME
                | at::CGROUP_UNIX_GETSOCKNAME => (1, 1),
                at::CGROUP_INET4_BIND | at::CGROUP_INET6_BIND => (0, 3),
                _ => (0, 1),
            }),
            p::CGROUP_SKB => Some(if attach == at::CGROUP_INET_EGRESS { (0, 3) } else { (0, 1) }),
            p::CGROUP_SOCK | p::SOCK_OPS | p::CGROUP_DEVICE | p::CGROUP_SYSCTL | p::CGROUP_SOCKOPT => Some((0, 1)),
            // SK_DROP, SK_PASS
            p::SK_LOOKUP => Some((0, 1)),
            // NF_DROP, NF_ACCEPT
            p::NETFILTER => Some((0, 1)),
            p::TRACING if matches!(attach, at::TRACE_FENTRY | at::TRACE_FEXIT) => Some((0, 0)),
            // kprobe sessions and raw_tp with a BTF target come with calls
            _ => None,
        }
    }

    /// `check_return_code(env, BPF_REG_0, "R0")`.
    pub(crate) fn check_return_code(&mut self, regno: usize) -> VResult<()> {
        self.check_reg_src(regno)?;
        if self.is_pointer_value(regno) {
            self.verbose(&format!("R{regno} leaks addr as return value\n"));
            return errno(EACCES);
        }
        let Some((minv, maxv)) = self.return_retval_range() else { return Ok(()) };
        let reg = self.regs()[regno];
        if reg.typ != SCALAR_VALUE {
            let s = format!("At program exit the register R{regno} is not a known value ({})\n", reg_type_str(reg.typ));
            self.verbose(&s);
            return errno(EINVAL);
        }
        self.mark_chain_precision(regno)?;
        let reg = self.regs()[regno];
        let (smin, smax) = (reg.s.smin(), reg.s.smax());
        if smin < minv as i64 || smax > maxv as i64 {
            let mut s = format!("At program exit the register R{regno} has");
            let mut unknown = true;
            if smin > i64::MIN {
                s.push_str(&format!(" smin={smin}"));
                unknown = false;
            }
            if smax < i64::MAX {
                s.push_str(&format!(" smax={smax}"));
                unknown = false;
            }
            if unknown {
                s.push_str(" unknown scalar value");
            }
            s.push_str(&format!(" should have been in [{minv}, {maxv}]\n"));
            self.verbose(&s);
            return errno(EINVAL);
        }
        let _ = tnum_is_unknown;
        Ok(())
    }
}
