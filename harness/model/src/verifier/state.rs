//! The abstract machine state: `struct bpf_stack_state`,
//! `struct bpf_func_state` and `struct bpf_verifier_state`
//! (`include/linux/bpf_verifier.h`), with the jump history that precision
//! backtracking walks.

use super::reg::*;

/// `enum bpf_stack_slot_type`.
pub const STACK_INVALID: u8 = 0;
pub const STACK_SPILL: u8 = 1;
pub const STACK_MISC: u8 = 2;
pub const STACK_ZERO: u8 = 3;
pub const STACK_DYNPTR: u8 = 4;
pub const STACK_ITER: u8 = 5;
pub const STACK_IRQ_FLAG: u8 = 6;
pub const STACK_POISON: u8 = 7;

/// `BPF_REG_SIZE`.
pub const BPF_REG_SIZE: usize = 8;
/// `MAX_BPF_STACK`, as the verifier compares stack offsets with it.
pub const MAX_BPF_STACK: i64 = bpf_isa::insn::MAX_BPF_STACK as i64;
/// `MAX_BPF_REG` (r0..r10) and `BPF_REG_FP`, as the verifier indexes
/// registers.
pub const MAX_BPF_REG: usize = bpf_isa::insn::MAX_BPF_REG as usize;
pub const BPF_REG_FP: usize = bpf_isa::insn::BPF_REG_FP as usize;

/// `struct bpf_stack_state`: 8 bytes of stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StackSlot {
    pub spilled_ptr: RegState,
    /// `slot_type[0]` is the byte at the lowest address of the slot.
    pub slot_type: [u8; BPF_REG_SIZE],
}

impl StackSlot {
    /// `bpf_is_spilled_reg`: the last byte says whether a register is here.
    pub fn is_spilled_reg(&self) -> bool {
        self.slot_type[BPF_REG_SIZE - 1] == STACK_SPILL
    }

    /// `bpf_is_spilled_scalar_reg`.
    pub fn is_spilled_scalar_reg(&self) -> bool {
        self.is_spilled_reg() && self.spilled_ptr.typ == SCALAR_VALUE
    }

    /// `is_stack_slot_special`: a spilled register, dynptr, iterator or
    /// IRQ flag (a plain write scrubs it to STACK_MISC).
    pub fn is_special(&self) -> bool {
        matches!(self.slot_type[BPF_REG_SIZE - 1], STACK_SPILL | STACK_DYNPTR | STACK_ITER | STACK_IRQ_FLAG)
    }
}

/// `struct bpf_retval_range`: what a callback (or a program) may return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RetvalRange {
    pub minval: i32,
    pub maxval: i32,
    pub return_32bit: bool,
}

impl RetvalRange {
    /// `retval_range`.
    pub fn new(minval: i32, maxval: i32) -> RetvalRange {
        RetvalRange { minval, maxval, return_32bit: false }
    }
}

/// `struct bpf_func_state`. In C layout, the registers first (see
/// [`VerifierState`]).
#[derive(Debug, PartialEq, Eq)]
#[repr(C)]
pub struct FuncState {
    pub regs: [RegState; MAX_BPF_REG],
    /// Index of the call insn that made this frame (-1 for main).
    pub callsite: i64,
    pub frameno: usize,
    pub subprogno: usize,
    /// `diag_frame_id`: which frame instance diagnostics events belong to
    /// (0 when the log level keeps no diagnostics).
    pub diag_frame_id: u32,
    /// `stack[i]` is `[fp-8*(i+1), fp-8*i)`; its length is `allocated_stack / 8`.
    pub stack: Vec<StackSlot>,
    /// Entries into an async callback (`bpf_timer_set_callback`) so far.
    pub async_entry_cnt: u32,
    pub callback_ret_range: RetvalRange,
    pub in_callback_fn: bool,
    pub in_async_callback_fn: bool,
    pub in_exception_callback_fn: bool,
    /// Iterations of the callback this frame's callee simulates
    /// (`bpf_loop`'s bound check).
    pub callback_depth: u32,
    /// Insns processed in this frame and its callees on the current path.
    pub insns_subtotal: u32,
}

impl FuncState {
    /// `init_func_state`: r10 is the frame pointer, the rest uninitialised.
    pub fn new(callsite: i64, frameno: usize, subprogno: usize) -> FuncState {
        let mut regs = [RegState::not_init(); MAX_BPF_REG];
        regs[BPF_REG_FP] = RegState::ptr(PTR_TO_STACK, frameno as i64);
        FuncState {
            regs,
            callsite,
            frameno,
            subprogno,
            diag_frame_id: 0,
            stack: Vec::new(),
            async_entry_cnt: 0,
            callback_ret_range: RetvalRange::new(0, 0),
            in_callback_fn: false,
            in_async_callback_fn: false,
            in_exception_callback_fn: false,
            callback_depth: 0,
            insns_subtotal: 0,
        }
    }

    pub fn allocated_stack(&self) -> usize {
        self.stack.len() * BPF_REG_SIZE
    }

    /// `grow_stack_state`: room for `size` bytes (rounded up to a slot).
    pub fn grow_stack(&mut self, size: usize) {
        let n = size.div_ceil(BPF_REG_SIZE);
        if n > self.stack.len() {
            self.stack.resize(n, StackSlot::default());
        }
    }
}

/// `INSN_F_*` flags of a jump history entry.
pub const INSN_F_STACK_ACCESS: u32 = 1 << 0;
pub const INSN_F_DST_REG_STACK: u32 = 1 << 1;
pub const INSN_F_SRC_REG_STACK: u32 = 1 << 2;

/// `struct bpf_jmp_history_entry`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct JmpHistEntry {
    pub idx: u32,
    pub prev_idx: u32,
    pub flags: u32,
    pub spi: u8,
    pub frame: u8,
    /// `linked_regs_pack`ed registers that share a scalar id at a jump.
    pub linked_regs: u64,
}

/// `enum ref_state_type`.
pub const REF_TYPE_PTR: u32 = 1 << 1;
pub const REF_TYPE_IRQ: u32 = 1 << 2;
pub const REF_TYPE_LOCK: u32 = 1 << 3;
pub const REF_TYPE_RES_LOCK: u32 = 1 << 4;
pub const REF_TYPE_RES_LOCK_IRQ: u32 = 1 << 5;
pub const REF_TYPE_LOCK_MASK: u32 = REF_TYPE_LOCK | REF_TYPE_RES_LOCK | REF_TYPE_RES_LOCK_IRQ;

/// `struct bpf_reference_state`: an acquired reference, lock or IRQ state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RefState {
    pub typ: u32,
    pub id: u32,
    /// Where it was acquired (for the leak message).
    pub insn_idx: usize,
    /// `parent_id` of a pointer reference, or the lock's object (`ptr`:
    /// map index and value id packed by [`lock_ptr`]).
    pub parent_or_ptr: u64,
}

/// The `void *ptr` of a lock: which map (or allocated object) the lock
/// lives in, as a comparable value.
pub fn lock_ptr(map_index: i64, uid: u32) -> u64 {
    ((map_index as u64) << 32) | uid as u64
}

/// The frames of a state, `frame[0..=curframe]`: the innermost one (the
/// one nearly every insn works on) in place, its callers in a Vec. A
/// stored checkpoint's registers are so part of it rather than a heap
/// block of their own, and the current frame is found without a lookup.
#[derive(Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Frames {
    /// Frames `0..curframe`.
    callers: Vec<FuncState>,
    /// Frame `curframe`.
    innermost: FuncState,
}

impl Frames {
    pub fn new(main: FuncState) -> Frames {
        Frames { callers: Vec::new(), innermost: main }
    }

    /// Never 0: there is always the innermost frame.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.callers.len() + 1
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<&FuncState> {
        if i == self.callers.len() { Some(&self.innermost) } else { self.callers.get(i) }
    }

    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut FuncState> {
        if i == self.callers.len() { Some(&mut self.innermost) } else { self.callers.get_mut(i) }
    }

    #[inline]
    pub fn last(&self) -> &FuncState {
        &self.innermost
    }

    #[inline]
    pub fn last_mut(&mut self) -> &mut FuncState {
        &mut self.innermost
    }

    /// A call: `callee` is the new innermost frame.
    pub fn push(&mut self, callee: FuncState) {
        let caller = std::mem::replace(&mut self.innermost, callee);
        self.callers.push(caller);
    }

    /// A return: the innermost frame goes, its caller is innermost again
    /// (`None`, and nothing changes, in the outermost frame).
    pub fn pop(&mut self) -> Option<FuncState> {
        let caller = self.callers.pop()?;
        Some(std::mem::replace(&mut self.innermost, caller))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &FuncState> {
        self.callers.iter().chain(std::iter::once(&self.innermost))
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut FuncState> {
        self.callers.iter_mut().chain(std::iter::once(&mut self.innermost))
    }
}

impl std::ops::Index<usize> for Frames {
    type Output = FuncState;
    #[inline]
    fn index(&self, i: usize) -> &FuncState {
        if i == self.callers.len() { &self.innermost } else { &self.callers[i] }
    }
}

impl std::ops::IndexMut<usize> for Frames {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut FuncState {
        if i == self.callers.len() { &mut self.innermost } else { &mut self.callers[i] }
    }
}

impl<'a> IntoIterator for &'a Frames {
    type Item = &'a FuncState;
    type IntoIter = std::iter::Chain<std::slice::Iter<'a, FuncState>, std::iter::Once<&'a FuncState>>;
    fn into_iter(self) -> Self::IntoIter {
        self.callers.iter().chain(std::iter::once(&self.innermost))
    }
}

/// `clone_from` keeps the callers' and the stacks' allocations.
impl Clone for Frames {
    fn clone(&self) -> Frames {
        // exactly the room needed (a growing Vec would reserve 4 frames)
        let mut callers = Vec::with_capacity(self.callers.len());
        callers.extend(self.callers.iter().cloned());
        Frames { callers, innermost: self.innermost.clone() }
    }

    fn clone_from(&mut self, src: &Frames) {
        self.callers.clone_from(&src.callers);
        self.innermost.clone_from(&src.innermost);
    }
}

/// `struct bpf_verifier_state`. In C layout: what the pruning walk reads
/// of every stored checkpoint it passes (where it is, whether it is still
/// open, its frames) comes first, and the innermost frame's registers,
/// which it compares, follow right after.
#[derive(Debug)]
#[repr(C)]
pub struct VerifierState {
    pub insn_idx: usize,
    /// Paths from this state not fully explored yet.
    pub branches: u32,
    pub speculative: bool,
    pub in_sleepable: bool,
    pub may_goto_depth: u32,
    pub callback_unroll_depth: u32,
    /// `frame[0..=curframe]`. The innermost frame is part of the state,
    /// not a heap block of its own: comparing a path to the checkpoints
    /// of an insn finds each in one place (and copying a state allocates
    /// nothing for it).
    pub frame: Frames,
    /// `refs[0..acquired_refs]`.
    pub refs: Vec<RefState>,
    pub active_locks: u32,
    pub active_preempt_locks: u32,
    pub active_irq_id: u32,
    pub active_lock_id: u32,
    pub active_lock_ptr: u64,
    pub active_rcu_locks: u32,
    pub dfs_depth: u32,
    /// The checkpoint this state continues from (index into the checkpoint
    /// store of [`super::do_check::Env`]).
    pub parent: Option<usize>,
    pub first_insn_idx: usize,
    pub last_insn_idx: i64,
    pub jmp_history: Vec<JmpHistEntry>,
    /// A loop back-edge state: the checkpoint it was found equal to.
    pub equal_state: Option<usize>,
}

impl VerifierState {
    pub fn new() -> VerifierState {
        VerifierState::new_with_frames(Frames::new(FuncState::new(-1, 0, 0)))
    }

    fn new_with_frames(frame: Frames) -> VerifierState {
        VerifierState {
            frame,
            refs: Vec::new(),
            active_locks: 0,
            active_preempt_locks: 0,
            active_irq_id: 0,
            active_lock_id: 0,
            active_lock_ptr: 0,
            active_rcu_locks: 0,
            parent: None,
            branches: 1,
            insn_idx: 0,
            first_insn_idx: 0,
            last_insn_idx: -1,
            speculative: false,
            in_sleepable: false,
            dfs_depth: 0,
            callback_unroll_depth: 0,
            may_goto_depth: 0,
            jmp_history: Vec::new(),
            equal_state: None,
        }
    }

    #[inline]
    pub fn curframe(&self) -> usize {
        self.frame.len() - 1
    }

    #[inline]
    pub fn cur(&self) -> &FuncState {
        self.frame.last()
    }

    #[inline]
    pub fn cur_mut(&mut self) -> &mut FuncState {
        self.frame.last_mut()
    }

    /// `bpf_frame_insn_idx`: where frame `i` is (its callee's callsite, or
    /// the current insn for the innermost frame).
    pub fn frame_insn_idx(&self, i: usize) -> usize {
        if i == self.curframe() { self.insn_idx } else { self.frame[i + 1].callsite.max(0) as usize }
    }
}

/// `copy_func_state`: `clone_from` keeps the stack's allocation, as the
/// kernel copies into a state it already has.
impl Clone for FuncState {
    fn clone(&self) -> FuncState {
        // exactly the room needed (a growing Vec would reserve 4 slots)
        let mut stack = Vec::with_capacity(self.stack.len());
        stack.extend_from_slice(&self.stack);
        FuncState { stack, ..*self }
    }

    fn clone_from(&mut self, src: &FuncState) {
        // destructured so that a new field cannot be left out of the copy
        let FuncState {
            regs,
            callsite,
            frameno,
            subprogno,
            diag_frame_id,
            stack,
            async_entry_cnt,
            callback_ret_range,
            in_callback_fn,
            in_async_callback_fn,
            in_exception_callback_fn,
            callback_depth,
            insns_subtotal,
        } = src;
        self.regs = *regs;
        self.callsite = *callsite;
        self.frameno = *frameno;
        self.subprogno = *subprogno;
        self.diag_frame_id = *diag_frame_id;
        self.stack.clone_from(stack);
        self.async_entry_cnt = *async_entry_cnt;
        self.callback_ret_range = *callback_ret_range;
        self.in_callback_fn = *in_callback_fn;
        self.in_async_callback_fn = *in_async_callback_fn;
        self.in_exception_callback_fn = *in_exception_callback_fn;
        self.callback_depth = *callback_depth;
        self.insns_subtotal = *insns_subtotal;
    }
}

/// `bpf_copy_verifier_state`: `clone_from` reuses the frames, references
/// and history the destination already holds.
impl Clone for VerifierState {
    fn clone(&self) -> VerifierState {
        // exactly the room needed: a Vec grown from empty reserves room for
        // 4 elements
        let mut refs = Vec::with_capacity(self.refs.len());
        refs.extend_from_slice(&self.refs);
        let mut jmp_history = Vec::with_capacity(self.jmp_history.len());
        jmp_history.extend_from_slice(&self.jmp_history);
        VerifierState { frame: self.frame.clone(), refs, jmp_history, ..*self }
    }

    fn clone_from(&mut self, src: &VerifierState) {
        let VerifierState {
            frame,
            refs,
            active_locks,
            active_preempt_locks,
            active_irq_id,
            active_lock_id,
            active_lock_ptr,
            active_rcu_locks,
            parent,
            branches,
            insn_idx,
            first_insn_idx,
            last_insn_idx,
            speculative,
            in_sleepable,
            dfs_depth,
            callback_unroll_depth,
            may_goto_depth,
            jmp_history,
            equal_state,
        } = src;
        self.frame.clone_from(frame);
        self.refs.clone_from(refs);
        self.active_locks = *active_locks;
        self.active_preempt_locks = *active_preempt_locks;
        self.active_irq_id = *active_irq_id;
        self.active_lock_id = *active_lock_id;
        self.active_lock_ptr = *active_lock_ptr;
        self.active_rcu_locks = *active_rcu_locks;
        self.parent = *parent;
        self.branches = *branches;
        self.insn_idx = *insn_idx;
        self.first_insn_idx = *first_insn_idx;
        self.last_insn_idx = *last_insn_idx;
        self.speculative = *speculative;
        self.in_sleepable = *in_sleepable;
        self.dfs_depth = *dfs_depth;
        self.callback_unroll_depth = *callback_unroll_depth;
        self.may_goto_depth = *may_goto_depth;
        self.jmp_history.clone_from(jmp_history);
        self.equal_state = *equal_state;
    }
}

/// Spare state buffers (callers' frames, stacks, references, jump
/// histories) of states the pass is done with (popped branches, settled
/// back-edges): a state pushed on the branch stack is copied into them
/// instead of into fresh heap memory, as the kernel copies into states it
/// already has. A new checkpoint is copied into a freed one's slot.
#[derive(Debug, Default)]
pub struct StatePool {
    spare: Vec<VerifierState>,
}

/// Spare states kept at most: past this, a recycled state is freed.
const STATE_POOL_MAX: usize = 64;

impl StatePool {
    /// A copy of `src` in spare buffers when there are any.
    pub fn copy_of(&mut self, src: &VerifierState) -> VerifierState {
        match self.spare.pop() {
            Some(mut st) => {
                st.clone_from(src);
                st
            }
            None => src.clone(),
        }
    }

    /// Keeps `st`'s buffers for a later copy.
    pub fn recycle(&mut self, st: VerifierState) {
        if self.spare.len() < STATE_POOL_MAX {
            self.spare.push(st);
        }
    }
}

impl Default for VerifierState {
    fn default() -> VerifierState {
        VerifierState::new()
    }
}

/// `bpf_get_spi`: the slot holding stack offset `off` (negative).
pub fn get_spi(off: i64) -> i64 {
    (-off - 1) / BPF_REG_SIZE as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(callsite: i64, frameno: usize) -> FuncState {
        FuncState::new(callsite, frameno, frameno)
    }

    #[test]
    fn frames_count_from_the_outermost_and_the_innermost_is_last() {
        let mut f = Frames::new(func(-1, 0));
        f.push(func(5, 1));
        f.push(func(9, 2));
        assert_eq!(f.len(), 3);
        assert_eq!((0..3).map(|i| f[i].frameno).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(f.iter().map(|x| x.callsite).collect::<Vec<_>>(), [-1, 5, 9]);
        assert_eq!(f.iter().rev().map(|x| x.callsite).collect::<Vec<_>>(), [9, 5, -1]);
        assert_eq!((f.last().frameno, f.get(1).map(|x| x.frameno), f.get(3).is_none()), (2, Some(1), true));
        f[1].callback_depth = 7;
        assert_eq!(f.get_mut(1).map(|x| x.callback_depth), Some(7));
        assert_eq!(f.pop().map(|x| x.frameno), Some(2));
        assert_eq!((f.len(), f.last().frameno, f.last().callback_depth), (2, 1, 7));
        assert_eq!(f.pop().map(|x| x.frameno), Some(1));
        // the outermost frame stays
        assert!(f.pop().is_none());
        assert_eq!((f.len(), f.last().frameno), (1, 0));
    }

    #[test]
    fn frames_copies_are_equal_whatever_the_destination_held() {
        let mut a = Frames::new(func(-1, 0));
        a.push(func(3, 1));
        a[0].regs[6] = RegState::ptr(PTR_TO_STACK, 0);
        a.last_mut().grow_stack(16);
        a.last_mut().stack[1].slot_type = [STACK_MISC; BPF_REG_SIZE];
        for mut b in [Frames::new(func(-1, 0)), {
            let mut b = Frames::new(func(-1, 0));
            b.push(func(1, 1));
            b.push(func(2, 2));
            b.last_mut().grow_stack(64);
            b
        }] {
            b.clone_from(&a);
            assert_eq!(b, a);
        }
        assert_eq!(a.clone(), a);
        let st = VerifierState { frame: a, ..VerifierState::new() };
        let mut other = VerifierState::new();
        other.clone_from(&st);
        assert_eq!((other.frame == st.frame, other.clone().frame == st.frame), (true, true));
    }
}
