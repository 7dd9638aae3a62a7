//! The JITs: the xlated program, split into its functions as
//! `jit_subprogs` splits it, turned into the machine code 7.3's
//! `arch/<arch>/net/bpf_jit_comp.c` emits for it.
//!
//! A JIT sees what the kernel's `bpf_int_jit_compile` sees: per function,
//! its instructions after every fixup and the facts the verifier left in
//! `prog->aux` (stack depth, tail calls, exception boundaries...). Kernel
//! addresses (helpers, kfuncs, maps, other functions' images) are the
//! model's own fixed ones: whoever compares images masks them.

pub use crate::verifier::SubprogFacts;
pub use crate::verifier::arena::ArenaJit;

pub mod arm64;
pub mod trampoline;
pub mod x86_64;

/// One function as `jit_subprogs` hands it to the arch JIT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitFunc {
    /// The function's instructions (8-byte slots; `ld_imm64` takes two).
    pub insns: Vec<bpf_isa::Insn>,
    /// Where the function starts in the whole xlated program.
    pub start: usize,
    /// `prog->aux->stack_depth` (the verifier's `subprog_info[i].stack_depth`).
    pub stack_depth: u32,
    /// `prog->aux->jits_use_priv_stack` (`PRIV_STACK_ADAPTIVE`): the frame
    /// lives in a per-CPU private stack instead of the kernel stack.
    pub jits_use_priv_stack: bool,
    /// `prog->aux->exception_boundary` (the main program of one that calls
    /// `bpf_throw`) and `exception_cb` (its exception callback).
    pub exception_boundary: bool,
    pub exception_cb: bool,
    /// `prog->aux->tail_call_reachable` (`subprog_info[i].tail_call_reachable`):
    /// the x86 JIT keeps a tail call counter pointer in the frame.
    pub tail_call_reachable: bool,
    /// `bpf_out_stack_arg_cnt`: stack arguments this function passes to its
    /// callees (the 6th goes in a register, the x86 JIT reserves room for
    /// the rest below its frame).
    pub out_stack_arg_cnt: u16,
    /// Targets of indirect jumps (`gotox`), as indexes into the whole
    /// xlated program (`insn_aux_data[i].indirect_target`): an IBT kernel
    /// marks them with `endbr64`.
    pub indirect_targets: Vec<usize>,
}

/// A whole program for the JIT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JitProgram {
    pub funcs: Vec<JitFunc>,
    /// `bpf_prog_type` (some JIT decisions depend on it).
    pub prog_type: u32,
    /// The arena's `kern_vm_start` and `user_vm_start` (0: no arena).
    pub arena_vm_start: u64,
    pub user_vm_start: u64,
    /// `btf_func_model.arg_flags` of the kfuncs the program calls, for
    /// those with `__arena` arguments (`bpf_jit_find_kfunc_model`).
    pub kfunc_models: Vec<KfuncModel>,
    /// Direct tail calls (poke numbers, the xlated `imm`) whose prog array
    /// slot holds this program itself, put there after the load (libbpf's
    /// `.values = { [k] = &prog }`): their poke site jumps.
    pub self_pokes: Vec<u32>,
}

/// A called kfunc's argument flags, found by its call's `imm` and `off`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KfuncModel {
    pub imm: i32,
    pub off: i16,
    /// Per argument: `BTF_FMODEL_*` bits.
    pub arg_flags: Vec<u8>,
}

/// `BTF_FMODEL_ARENA_ARG`: an `__arena` pointer the JIT rebases.
pub const BTF_FMODEL_ARENA_ARG: u8 = 1 << 2;
/// `BTF_FMODEL_NULLABLE_ARG`: ... that may be NULL.
pub const BTF_FMODEL_NULLABLE_ARG: u8 = 1 << 3;

impl JitProgram {
    /// The functions of an xlated program in the form `BPF_OBJ_GET_INFO_BY_FD`
    /// dumps it: a pseudo call there has the callee's subprogram index in
    /// `imm` and the relative offset in `off` (`prepare_dump_pseudo_call`),
    /// turned back into the layout the JIT gets ([`JitProgram::from_xlated_as_run`]).
    /// `stack_depths` are the verifier's, by subprogram; a missing one is 0.
    pub fn from_xlated_dump(insns: &[bpf_isa::Insn], stack_depths: &[u32], prog_type: u32) -> JitProgram {
        JitProgram::from_xlated_as_run(&normalize_dumped_calls(insns), stack_depths, prog_type)
    }

    /// The functions of an xlated program as it runs
    /// ([`crate::verifier::Decision::xlated_as_run`]): a pseudo call has
    /// the relative offset in `imm` and the callee's index in `off`, an
    /// `ld_imm64` of a pseudo func the relative `imm` in its first slot
    /// and the index in its second. Functions start at 0 and at every
    /// callee. The dump's helper call of `bpf_tail_call` is the tail call
    /// again.
    pub fn from_xlated_as_run(insns: &[bpf_isa::Insn], stack_depths: &[u32], prog_type: u32) -> JitProgram {
        use bpf_isa::op::*;
        let insns = &restore_tail_calls(insns);
        let mut starts = vec![0usize];
        let mut k = 0;
        while k < insns.len() {
            let i = insns[k];
            let call = i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL;
            let func = i.is_ld_imm64() && i.src == BPF_PSEUDO_FUNC;
            if call || func {
                let target = k as i64 + i.imm as i64 + 1;
                if target >= 0 && (target as usize) < insns.len() {
                    starts.push(target as usize);
                }
            }
            k += if i.is_ld_imm64() { 2 } else { 1 };
        }
        starts.sort_unstable();
        starts.dedup();
        let funcs = starts
            .iter()
            .enumerate()
            .map(|(n, &start)| {
                let end = starts.get(n + 1).copied().unwrap_or(insns.len());
                JitFunc { insns: insns[start..end].to_vec(), start, stack_depth: stack_depths.get(n).copied().unwrap_or(0), ..Default::default() }
            })
            .collect();
        JitProgram { funcs, prog_type, ..Default::default() }
    }
}

/// 7.3's `prepare_dump_pseudo_call` (syscall.c) dumps a bpf2bpf call with
/// the callee's subprogram index in `imm` and the relative offset in `off`,
/// the other way round from what `jit_subprogs` leaves for the JIT: swapped
/// back here (`call pc+8` of subprogram 1 is dumped `off = 8, imm = 1`).
/// An offset beyond 16 bits is dumped as 0: only
/// [`crate::verifier::Decision::xlated_as_run`], which knows where each
/// subprogram starts, gets it back.
fn normalize_dumped_calls(insns: &[bpf_isa::Insn]) -> Vec<bpf_isa::Insn> {
    use bpf_isa::op::*;
    let mut out = insns.to_vec();
    let mut k = 0;
    while k < out.len() {
        let i = out[k];
        if i.code == BPF_JMP | BPF_CALL && i.src == BPF_PSEUDO_CALL {
            out[k].imm = i.off as i32;
            out[k].off = i.imm.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        }
        k += if i.is_ld_imm64() { 2 } else { 1 };
    }
    out
}

/// The dump shows the internal `BPF_JMP | BPF_TAIL_CALL` as a helper call
/// of `bpf_tail_call` (imm 12), which no helper call still is after the
/// fixups: turned back into the tail call.
fn restore_tail_calls(insns: &[bpf_isa::Insn]) -> Vec<bpf_isa::Insn> {
    use bpf_isa::op::*;
    let mut out = insns.to_vec();
    let mut k = 0;
    while k < out.len() {
        let i = out[k];
        if i.code == BPF_JMP | BPF_CALL && i.src == 0 && i.imm == bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL {
            out[k] = bpf_isa::Insn::new(BPF_JMP | BPF_TAIL_CALL, 0, 0, 0, 0);
        }
        k += if i.is_ld_imm64() { 2 } else { 1 };
    }
    out
}

impl JitProgram {
    /// [`JitProgram::from_xlated_as_run`] with what the verifier knows of
    /// each subprogram (one per function of the program).
    pub fn from_xlated_with_facts(insns: &[bpf_isa::Insn], subprogs: &[SubprogFacts], prog_type: u32) -> Result<JitProgram, String> {
        let depths: Vec<u32> = subprogs.iter().map(|s| s.stack_depth).collect();
        let mut prog = JitProgram::from_xlated_as_run(insns, &depths, prog_type);
        // exception callbacks (a tagged one, or the default one
        // add_hidden_subprog appended): functions nothing calls
        if prog.funcs.len() < subprogs.len() {
            for s in subprogs.iter().filter(|s| s.is_exception_cb && s.start > 0) {
                prog.split_hidden(s.start);
            }
        }
        if prog.funcs.len() != subprogs.len() {
            return Err(format!("the xlated program has {} functions, the verifier {} subprograms", prog.funcs.len(), subprogs.len()));
        }
        for (f, s) in prog.funcs.iter_mut().zip(subprogs) {
            f.tail_call_reachable = s.tail_call_reachable;
            f.exception_cb = s.is_exception_cb;
            f.exception_boundary = s.exception_boundary;
            f.stack_depth = s.stack_depth;
            f.jits_use_priv_stack = s.priv_stack;
        }
        Ok(prog)
    }

    /// Splits a function off at `start`: a hidden subprogram the verifier
    /// appended (the default exception callback), which nothing in the dump
    /// calls but `jit_subprogs` JITs as a function of its own (the dump's
    /// images leave it out: `func_cnt` excludes hidden subprograms).
    pub fn split_hidden(&mut self, start: usize) -> Option<&mut JitFunc> {
        let k = self.funcs.iter().rposition(|f| f.start < start && start < f.start + f.insns.len())?;
        let at = start - self.funcs[k].start;
        let tail = self.funcs[k].insns.split_off(at);
        self.funcs.insert(k + 1, JitFunc { insns: tail, start, ..JitFunc::default() });
        self.funcs.get_mut(k + 1)
    }
}

/// The target arch's JIT with its default profile (the Debian 7.3.4
/// kernel under QEMU's `-cpu max`) on an xlated program as it runs
/// ([`crate::verifier::Decision::xlated_as_run`]): the image of each
/// function, or why there is none.
pub fn jit_xlated(arch: crate::target::Arch, insns: &[bpf_isa::Insn], subprogs: &[SubprogFacts], prog_type: u32) -> Result<Vec<Vec<u8>>, String> {
    jit_xlated_arena(arch, insns, subprogs, prog_type, &[], &[], None)
}

/// [`jit_xlated`] with what the dump loses: where the direct tail
/// calls are and their poke numbers (`direct`: (insn, poke)), which pokes'
/// slots hold the program itself (`self_pokes`), and the arena's addresses
/// and access modes of a program that uses one.
pub fn jit_xlated_arena(
    arch: crate::target::Arch,
    insns: &[bpf_isa::Insn],
    subprogs: &[SubprogFacts],
    prog_type: u32,
    direct: &[(usize, u32)],
    self_pokes: &[u32],
    arena: Option<&ArenaJit>,
) -> Result<Vec<Vec<u8>>, String> {
    use crate::target::Arch;
    let mut insns = insns.to_vec();
    if let Some(a) = arena {
        for &(k, code) in &a.codes {
            match insns.get_mut(k) {
                Some(i) => i.code = code,
                None => return Err(format!("arena access {k} is outside the program")),
            }
        }
    }
    for &(k, poke) in direct {
        match insns.get_mut(k) {
            Some(i) if i.code == bpf_isa::op::BPF_JMP | bpf_isa::op::BPF_CALL && i.imm == bpf_isa::helper_ids::BPF_FUNC_TAIL_CALL => {
                *i = bpf_isa::Insn::new(bpf_isa::op::BPF_JMP | bpf_isa::op::BPF_TAIL_CALL, 0, 0, 0, poke as i32);
            }
            _ => return Err(format!("insn {k} is not the direct tail call the verifier said")),
        }
    }
    let mut prog = JitProgram::from_xlated_with_facts(&insns, subprogs, prog_type)?;
    prog.self_pokes = self_pokes.to_vec();
    if let Some(a) = arena {
        prog.arena_vm_start = a.kern_vm_start;
        prog.user_vm_start = a.user_vm_start;
    }
    match arch {
        Arch::X86_64 => x86_64::bpf_int_jit_compile(&prog, &x86_64::X86Profile::default()).map_err(|e| format!("x86_64 JIT: {e}")),
        Arch::Arm64 => arm64::bpf_int_jit_compile(&prog, &arm64::Arm64Profile::default()).map_err(|e| format!("arm64 JIT: {e}")),
        other => Err(format!("no JIT for {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bpf_isa::Insn;
    use bpf_isa::op::*;

    #[test]
    fn splits_at_callees() {
        // 0: call pc+2 (subprog 1); 1: exit; 2: ld_imm64 pseudo func -> 5 (subprog 2); 4: exit; 5: exit
        let insns = [
            Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 1, 1),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            Insn::new(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_FUNC, 0, 2),
            Insn::new(0, 0, 0, 0, 2),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let p = JitProgram::from_xlated_dump(&insns, &[8, 16], 1);
        let shape: Vec<(usize, usize, u32)> = p.funcs.iter().map(|f| (f.start, f.insns.len(), f.stack_depth)).collect();
        assert_eq!(shape, [(0, 2, 8), (2, 3, 16), (5, 1, 0)]);
    }

    #[test]
    fn dumped_calls_carry_the_index_in_imm() {
        // 0: call pc+2 dumped as off = 2, imm = 1 (subprog 1); 1: exit; 2: exit; 3: exit
        let insns = [
            Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 2, 1),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let p = JitProgram::from_xlated_dump(&insns, &[], 1);
        let starts: Vec<usize> = p.funcs.iter().map(|f| f.start).collect();
        assert_eq!(starts, [0, 3]);
        assert_eq!((p.funcs[0].insns[0].imm, p.funcs[0].insns[0].off), (2, 1));
    }

    #[test]
    fn calls_beyond_16_bits_get_their_offset_from_the_callee_start() {
        // 0: call pc+40000, dumped with off 0 (it does not fit) and imm 1;
        // 1..40000: r0 = 0; 40001: exit (subprog 1)
        let far = 40_000usize;
        let mut xlated = vec![Insn::new(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1)];
        xlated.extend(std::iter::repeat_n(Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), far));
        xlated.push(Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
        let subprogs = [SubprogFacts::default(), SubprogFacts { start: far + 1, ..SubprogFacts::default() }];
        let d = crate::verifier::Decision { accepted: true, xlated, subprogs: subprogs.to_vec(), ..Default::default() };
        let as_run = d.xlated_as_run();
        assert_eq!((as_run[0].imm, as_run[0].off), (far as i32, 1));
        let p = JitProgram::from_xlated_with_facts(&as_run, &subprogs, 1).unwrap();
        assert_eq!(p.funcs.iter().map(|f| f.start).collect::<Vec<_>>(), [0, far + 1]);
    }

    #[test]
    fn hidden_subprograms_split_off() {
        // 0: call bpf_tail_call (as the dump shows it); 1: exit; 2: r0 = r1 (hidden); 3: exit
        let insns = [
            Insn::new(BPF_JMP | BPF_CALL, 0, 0, 0, 12),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
            Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 0, 1, 0, 0),
            Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
        ];
        let mut p = JitProgram::from_xlated_dump(&insns, &[], 1);
        assert_eq!(p.funcs[0].insns[0].code, BPF_JMP | BPF_TAIL_CALL);
        assert!(p.split_hidden(2).is_some());
        assert_eq!(p.funcs.iter().map(|f| (f.start, f.insns.len())).collect::<Vec<_>>(), [(0, 2), (2, 2)]);
        assert!(p.split_hidden(9).is_none() && p.split_hidden(0).is_none());
    }
}
