//! `check_return_code` for the main program's `exit`: R0 must be readable,
//! must not leak a pointer, and must be in the range the program type
//! allows (`return_retval_range`).

use super::calls::retval_range_within;
use super::do_check::*;
use super::reg::*;
use super::state::RetvalRange;

impl Env<'_, '_> {
    /// `return_retval_range`: the range a program type must return, `None`
    /// when any value is fine. (Program types whose attach targets the
    /// model does not know never get this far.)
    fn return_retval_range(&self) -> Option<RetvalRange> {
        use super::prog_load::prog_types as p;
        use crate::prog_type::bpf_attach_type as at;
        let attach = self.input.expected_attach_type;
        let r = |minval, maxval| Some(RetvalRange::new(minval, maxval));
        match self.input.prog_type {
            p::CGROUP_SOCK_ADDR => match attach {
                at::CGROUP_UDP4_RECVMSG
                | at::CGROUP_UDP6_RECVMSG
                | at::CGROUP_UNIX_RECVMSG
                | at::CGROUP_INET4_GETPEERNAME
                | at::CGROUP_INET6_GETPEERNAME
                | at::CGROUP_UNIX_GETPEERNAME
                | at::CGROUP_INET4_GETSOCKNAME
                | at::CGROUP_INET6_GETSOCKNAME
                | at::CGROUP_UNIX_GETSOCKNAME => r(1, 1),
                at::CGROUP_INET4_BIND | at::CGROUP_INET6_BIND => r(0, 3),
                _ => r(0, 1),
            },
            p::CGROUP_SKB => {
                if attach == at::CGROUP_INET_EGRESS {
                    r(0, 3)
                } else {
                    r(0, 1)
                }
            }
            p::CGROUP_SOCK | p::SOCK_OPS | p::CGROUP_DEVICE | p::CGROUP_SYSCTL | p::CGROUP_SOCKOPT => r(0, 1),
            // SK_DROP, SK_PASS
            p::SK_LOOKUP => r(0, 1),
            // NF_DROP, NF_ACCEPT
            p::NETFILTER => r(0, 1),
            p::TRACING => match attach {
                at::TRACE_FENTRY | at::TRACE_FEXIT | at::TRACE_FSESSION | at::TRACE_FENTRY_MULTI | at::TRACE_FEXIT_MULTI | at::TRACE_FSESSION_MULTI => r(0, 0),
                at::TRACE_RAW_TP | at::MODIFY_RETURN => None,
                _ => r(0, 1),
            },
            // a session program's return says whether its exit runs
            p::KPROBE if matches!(attach, at::TRACE_KPROBE_SESSION | at::TRACE_UPROBE_SESSION) => r(0, 1),
            p::LSM if attach != at::LSM_CGROUP => {
                // get_func_retval_range: BPF_LSM_MAC's hook range, 32-bit
                let (minval, maxval) = self.lsm_retval_range()?;
                Some(RetvalRange { minval, maxval, return_32bit: true })
            }
            // BPF_LSM_CGROUP on a void hook must return 1
            p::LSM if self.attach_func_returns_void() => r(1, 1),
            p::LSM => r(0, 1),
            // raw_tp with a BTF target comes with calls
            _ => None,
        }
    }

    /// `program_returns_void`: an LSM program (not `BPF_LSM_CGROUP`) on a
    /// void hook.
    fn program_returns_void(&self) -> bool {
        use crate::prog_type::bpf_attach_type as at;
        self.input.prog_type == super::prog_load::prog_types::LSM && self.input.expected_attach_type != at::LSM_CGROUP && self.attach_func_returns_void()
    }

    /// `check_return_code(env, BPF_REG_0, "R0")`.
    pub(crate) fn check_return_code(&mut self, regno: usize) -> VResult<()> {
        self.check_return_code_of(regno, &format!("R{regno}"))
    }

    /// `check_return_code`: the value in `regno` as what the program (or
    /// the async callback of frame 0) returns; `bpf_throw` checks its
    /// cookie, R1, so with the default exception callback.
    pub(crate) fn check_return_code_of(&mut self, regno: usize, reg_name: &str) -> VResult<()> {
        let in_async_callback_fn = self.cur.frame[0].in_async_callback_fn;
        if !in_async_callback_fn && self.program_returns_void() {
            return Ok(());
        }
        self.check_reg_src(regno)?;
        if self.is_pointer_value(regno) {
            self.verbose(&format!("R{regno} leaks addr as return value\n"));
            return errno(EACCES);
        }
        let (range, exit_ctx) = if in_async_callback_fn {
            (self.cur.frame[0].callback_ret_range, "At async callback return")
        } else {
            let Some(range) = self.return_retval_range() else { return Ok(()) };
            (range, "At program exit")
        };
        let reg = self.regs()[regno];
        if reg.typ != SCALAR_VALUE {
            let s = format!("{exit_ctx} the register R{regno} is not a known value ({})\n", reg_type_str(reg.typ));
            self.verbose(&s);
            return errno(EINVAL);
        }
        self.mark_chain_precision(regno)?;
        let reg = self.regs()[regno];
        if !retval_range_within(range, &reg) {
            self.verbose_invalid_scalar(&reg, range, exit_ctx, reg_name);
            if self.input.prog_type == super::prog_load::prog_types::LSM
                && self.input.expected_attach_type == crate::prog_type::bpf_attach_type::LSM_CGROUP
                && self.attach_func_returns_void()
            {
                self.verbose("Note, BPF_LSM_CGROUP that attach to void LSM hooks can't modify return value!\n");
            }
            return errno(EINVAL);
        }
        Ok(())
    }
}
