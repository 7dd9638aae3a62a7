//! `bpf_remove_fastcall_spills_fills` (kernel/bpf/fixups.c): the spill/fill
//! pairs `mark_fastcall_patterns` ([`crate::verifier::fastcall`]) counted
//! around a call this kernel inlines become nops (removed with the other
//! nops by `opt_remove_nops`), and a subprogram that lost pairs shrinks its
//! stack to what lies above the pattern slots, unless a pattern around a
//! call that is not inlined still uses them.

use bpf_isa::Insn;
use bpf_isa::op::*;

use crate::verifier::Fail;
use crate::verifier::env::VerifierEnv;

/// The fixups' `NOP`: `goto +0`.
const NOP: Insn = Insn::new(BPF_JMP | BPF_JA, 0, 0, 0, 0);

/// The pass. It rewrites insns in place (no length change), so it needs no
/// patch. A subprogram whose contract the main pass broke
/// (`fastcall_stack_off == i16::MIN`) keeps everything: the kernel clears
/// its insns' counts at that point.
pub fn bpf_remove_fastcall_spills_fills(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let n = env.insns.len();
    for s in 0..env.subprog_cnt {
        let start = env.subprog_info[s].start.min(n);
        let end = env.subprog_info.get(s + 1).map_or(n, |x| x.start).min(n);
        if env.subprog_info[s].fastcall_stack_off == i16::MIN {
            continue;
        }
        let mut modified = false;
        for i in start..end {
            let k = env.aux[i].fastcall_spills_num as usize;
            if k == 0 {
                continue;
            }
            // marking kept the pairs inside the program
            if i < k || i + k >= n {
                return Err(Fail::Errno(crate::verifier::errno::EFAULT));
            }
            for j in 1..=k {
                env.insns[i - j] = NOP;
                env.insns[i + j] = NOP;
            }
            modified = true;
        }
        let si = &mut env.subprog_info[s];
        if modified && !si.keep_fastcall_stack {
            si.stack_depth = (-(si.fastcall_stack_off as i32)) as u32;
        }
    }
    Ok(())
}
