//! `check_return_code` for the main program's `exit`: R0 must be readable,
//! must not leak a pointer, and must be in the range the program type
//! allows (`return_retval_range`).

use super::ctx::pt;
use super::do_check::*;
use super::reg::*;
use super::tnum::*;

/// `BPF_CGROUP_INET_EGRESS`.
const BPF_CGROUP_INET_EGRESS: u32 = 1;

impl Env<'_, '_> {
    /// The `[min, max]` a program type must return, `None` when any value is fine.
    fn return_retval_range(&self) -> Option<(i32, i32)> {
        match self.input.prog_type {
            pt::CGROUP_SKB => Some(if self.input.expected_attach_type == BPF_CGROUP_INET_EGRESS { (0, 3) } else { (0, 1) }),
            pt::CGROUP_SOCK => Some((0, 1)),
            // sock_ops, cgroup_device, cgroup_sysctl, cgroup_sockopt
            13 | 15 | 23 | 25 => Some((0, 1)),
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
