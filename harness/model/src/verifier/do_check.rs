//! The main pass: `do_check_main`, `do_check_common`, `do_check` and
//! `do_check_insn` of `kernel/bpf/verifier.c` (Linux 7.3).
//!
//! The front end (`bpf_check`'s earlier phases) hands over a
//! [`DoCheckInput`]: the program after its rewrites, the per-insn facts it
//! computed ([`InsnInfo`]: prune and jump points, live registers, SCCs, map
//! loads), stack liveness ([`StackLiveness`]) and the loader's privileges.
//! The log goes through [`VLog`], which the front end's log buffer
//! implements (the main pass rewinds it: `bpf_vlog_reset`).
//!
//! The other parts of the pass live in modules named after the kernel's
//! concepts: [`super::calls`] (`check_func_call`), [`super::helper_call`] (`check_helper_call`),
//! [`super::kfuncs`] (`check_kfunc_call`), [`super::alu`] (`check_alu_op`), [`super::mem`]
//! (`check_mem_access`), [`super::stack`], [`super::ctx`], [`super::jmp`]
//! (`check_cond_jmp_op`), [`super::states`] (pruning), [`super::backtrack`]
//! (precision), [`super::retcode`], [`super::print`].

use bpf_isa::Insn;
use bpf_isa::insn::op::{self, *};

use super::diag::ModReason;
use super::helper_protos::{ARG_ANYTHING, ARG_PTR_TO_CTX};
use super::print::{Scratch, print_verifier_state};
use super::reg::*;
use super::scalar::print::{push_i64, push_u64};
use super::state::*;

pub use crate::limits::BPF_COMPLEXITY_LIMIT_INSNS;
/// `BPF_COMPLEXITY_LIMIT_JMP_SEQ`.
pub const BPF_COMPLEXITY_LIMIT_JMP_SEQ: usize = 8192;
/// `BPF_MAX_VAR_OFF`.
pub const BPF_MAX_VAR_OFF: i64 = 1 << 29;

pub use super::log::{BPF_LOG_LEVEL, BPF_LOG_LEVEL1, BPF_LOG_LEVEL2};

// the errnos the main pass returns, from their one home
pub use super::errno::{E2BIG, EACCES, EFAULT, EINVAL, ENOENT, ENOTSUPP, EPERM, EPROTO, ERANGE};

/// The verifier log as the main pass uses it (`struct bpf_verifier_log`).
pub trait VLog {
    fn level(&self) -> u32;
    /// `verbose()`: append formatted text.
    fn vlog(&mut self, s: &str);
    /// `log->end_pos`: bytes written so far (logically).
    fn end_pos(&self) -> u64;
    /// `bpf_vlog_reset`: forget everything after `pos`.
    fn reset(&mut self, pos: u64);
}

/// A log that keeps everything in a string (no size limit): for callers
/// without the front end's buffer.
#[derive(Clone, Debug, Default)]
pub struct StringLog {
    pub level: u32,
    pub text: String,
}

impl VLog for StringLog {
    fn level(&self) -> u32 {
        self.level
    }
    fn vlog(&mut self, s: &str) {
        if self.level != 0 {
            self.text.push_str(s);
        }
    }
    fn end_pos(&self) -> u64 {
        self.text.len() as u64
    }
    fn reset(&mut self, pos: u64) {
        let mut p = (pos as usize).min(self.text.len());
        while !self.text.is_char_boundary(p) {
            p -= 1;
        }
        self.text.truncate(p);
    }
}

/// A map the program uses, as the verifier sees `struct bpf_map`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MapInfo {
    pub name: String,
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    /// `inner_map_meta` of a map-in-map (what a lookup returns).
    pub inner: Option<Box<MapInfo>>,
    /// `map->frozen`: with `BPF_F_RDONLY_PROG`, `bpf_map_is_rdonly`.
    pub frozen: bool,
    /// The value's special fields when the map has BTF (`map->record`);
    /// `None` is a map without BTF.
    pub record: Option<super::maps::MapRecord>,
    /// Contents of a frozen read-only array (`bpf_map_direct_read`, const
    /// strings); empty when unknown.
    pub data: Vec<u8>,
}

/// What the front end knows about one insn (`struct bpf_insn_aux_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InsnInfo {
    pub prune_point: bool,
    pub jmp_point: bool,
    pub force_checkpoint: bool,
    pub live_regs_before: u16,
    pub scc: u32,
    /// `ld_imm64` of a map (`BPF_PSEUDO_MAP_FD`/`_IDX`) or of a map value
    /// (`BPF_PSEUDO_MAP_VALUE`/`_IDX_VALUE`): index into
    /// [`DoCheckInput::maps`] and, for values, the offset.
    pub map_index: Option<usize>,
    pub map_off: u32,
    /// `fastcall_pattern`: a spill or fill of a fastcall pattern.
    pub fastcall_pattern: bool,
    /// `btf_var` of an `ld_imm64` of a kernel variable: register type
    /// and type id or `mem_size`.
    pub btf_var: (RegType, i64),
}

impl InsnInfo {
    /// What the main pass reads of the front end's `aux` of `insn`.
    #[inline]
    pub fn of(a: &super::env::InsnAux, insn: &Insn) -> InsnInfo {
        use bpf_isa::op::{BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_IDX, BPF_PSEUDO_MAP_IDX_VALUE, BPF_PSEUDO_MAP_VALUE};
        let map_ld = insn.is_ld_imm64() && matches!(insn.src, BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX | BPF_PSEUDO_MAP_IDX_VALUE);
        InsnInfo {
            prune_point: a.prune_point,
            jmp_point: a.jmp_point,
            force_checkpoint: a.force_checkpoint,
            live_regs_before: a.live_regs_before,
            scc: a.scc,
            map_index: map_ld.then_some(a.map_index),
            map_off: a.map_off,
            fastcall_pattern: a.fastcall_pattern,
            btf_var: (a.btf_var_type, a.btf_var_aux),
        }
    }
}

/// Where the stack-liveness query stands (`bpf_live_stack_query_init`).
#[derive(Clone, Debug)]
pub struct LiveQuery {
    /// The insn of the innermost frame.
    pub insn_idx: usize,
    /// Call sites of frames 1.. (the call insn that made each).
    pub callsites: Vec<usize>,
    /// The subprogram of each frame, outermost first.
    pub subprogs: Vec<usize>,
}

/// `bpf_stack_slot_alive`: whether 4-byte half slot `half_spi` of frame
/// `frameno` may be read later.
pub trait StackLiveness {
    fn stack_slot_alive(&self, q: &LiveQuery, frameno: usize, half_spi: usize) -> bool;
}

/// Everything alive (no liveness information).
pub struct AllAlive;

impl StackLiveness for AllAlive {
    fn stack_slot_alive(&self, _: &LiveQuery, _: usize, _: usize) -> bool {
        true
    }
}

/// The loader's privileges as `bpf_check` derives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Privs {
    pub bpf_capable: bool,
    pub allow_ptr_leaks: bool,
    pub allow_uninit_stack: bool,
    pub bypass_spec_v1: bool,
    pub bypass_spec_v4: bool,
}

impl Privs {
    pub const ROOT: Privs = Privs { bpf_capable: true, allow_ptr_leaks: true, allow_uninit_stack: true, bypass_spec_v1: true, bypass_spec_v4: true };
    pub const UNPRIV: Privs = Privs { bpf_capable: false, allow_ptr_leaks: false, allow_uninit_stack: false, bypass_spec_v1: false, bypass_spec_v4: false };
}

/// One subprogram as the front end describes it (`struct
/// bpf_subprog_info` and the `func_info` facts the main pass reads).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subprog {
    pub start: usize,
    /// `bpf_subprog_name`: the func_info name, "" without BTF.
    pub name: String,
    /// `bpf_subprog_is_global`.
    pub global: bool,
    /// Arguments of the BTF prototype (`int` ones without
    /// [`DoCheckInput::prog_btf`]).
    pub nargs: u32,
    /// `func_info[i].type_id`: the FUNC in [`DoCheckInput::prog_btf`].
    pub type_id: u32,
    /// The BTF prototype returns void.
    pub returns_void: bool,
    pub is_exception_cb: bool,
    /// Marks `check_cfg` puts on subprograms (`mark_subprog_*`).
    pub changes_pkt_data: bool,
    pub might_sleep: bool,
    pub might_throw: bool,
    pub has_tail_call: bool,
    pub has_ld_abs: bool,
    /// `fastcall_stack_off` as `mark_fastcall_patterns` left it.
    pub fastcall_stack_off: i16,
}

/// The main pass's input.
pub struct DoCheckInput<'a> {
    /// The program after the front end's rewrites (const-folded branches).
    pub insns: &'a [Insn],
    /// The front end's per-insn facts, read in place ([`Env::info`]): a
    /// copy would be one more per-insn array to allocate and fill.
    pub aux: &'a [super::env::InsnAux],
    pub prog_type: u32,
    pub expected_attach_type: u32,
    pub privs: Privs,
    pub strict_alignment: bool,
    pub test_state_freq: bool,
    pub test_reg_invariants: bool,
    pub maps: &'a [MapInfo],
    pub liveness: &'a dyn StackLiveness,
    /// `sizeof(struct pt_regs)` of the target arch (kprobe ctx).
    pub pt_regs_size: i64,
    /// `sizeof(bpf_user_pt_regs_t)` of the target arch (the start of the
    /// perf_event ctx).
    pub user_pt_regs_size: i64,
    /// The subprograms by start; empty means the main program alone.
    pub subprogs: &'a [Subprog],
    /// The program came with BTF `func_info` (callbacks and global
    /// functions need it).
    pub has_func_info: bool,
    /// The license is GPL-compatible (`gpl_only` helpers).
    pub gpl: bool,
    /// `BPF_F_SLEEPABLE`.
    pub sleepable: bool,
    /// The program will be JITed (tail calls from subprograms).
    pub jit_requested: bool,
    /// `nr_cpu_ids` of the target kernel (`bpf_get_smp_processor_id`).
    pub nr_cpu_ids: u32,
    /// Kfunc names by BTF id of the target kernel.
    pub kfuncs: &'a [(&'static str, u32)],
    /// `attach_btf_id` of a tracing program (`btf_ctx_access`).
    pub attach_btf_id: u32,
    /// The target kernel's recorded vmlinux BTF (`btf_struct_access`).
    pub vmlinux_btf: Option<&'static crate::vmlinux_btf::VmlinuxBtf>,
    /// `prog->aux->arena`: the program uses an arena map.
    pub has_arena: bool,
    /// `prog->aux->btf`: the program's BTF, which `func_info` points into.
    pub prog_btf: Option<&'a crate::btf::Btf>,
    /// `prog->aux->linfo`: the checked `line_info` records (empty without).
    pub linfo: &'a [super::linfo::BpfLineInfo],
    /// The target arch (`bpf_jit_supports_insn` for arena atomics).
    pub arch: crate::target::Arch,
}

/// Why the pass stopped without accepting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DoCheckError {
    /// The kernel rejects the program with this (positive) errno.
    Errno(i32),
    /// The model cannot decide: something not modelled yet was reached.
    Unsupported(String),
}

pub type VResult<T> = Result<T, DoCheckError>;

pub(crate) fn errno<T>(e: i32) -> VResult<T> {
    Err(DoCheckError::Errno(e))
}

/// `BPF_ALU_*`: how `do_misc_fixups` masks a pointer's ALU offset.
pub const BPF_ALU_SANITIZE_SRC: u8 = 1 << 0;
pub const BPF_ALU_SANITIZE_DST: u8 = 1 << 1;
pub const BPF_ALU_NEG_VALUE: u8 = 1 << 2;
pub const BPF_ALU_NON_POINTER: u8 = 1 << 3;
pub const BPF_ALU_IMMEDIATE: u8 = 1 << 4;

/// What the main pass records per insn for the rewrites after it (its
/// part of `struct bpf_insn_aux_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassAux {
    /// `alu_state`, `alu_limit`: Spectre v1 masking of pointer ALU.
    pub alu_state: u8,
    pub alu_limit: u32,
    /// A speculative path failed here: the fixups put a barrier before it.
    pub nospec: bool,
    /// A store whose result a barrier must follow (Spectre v4).
    pub nospec_result: bool,
    /// Verified on a non-speculative path.
    pub seen: bool,
    /// `ptr_type`: the pointer a load or store goes through.
    pub ptr_type: super::reg::RegType,
    /// `ctx_field_size`: the field a narrow ctx load is widened to.
    pub ctx_field_size: u32,
    /// `map_ptr_state`: the map of a map helper call (index into the
    /// flattened maps), whether different maps reached it (poison),
    /// whether it needs unprivileged hardening.
    /// (u32: every rewrite pass that grows the program moves this
    /// per-insn data)
    pub map_ptr: Option<u32>,
    pub map_ptr_poison: bool,
    pub map_ptr_unpriv: bool,
    /// `map_key_state`: the constant key of a map helper call.
    pub map_key: super::helper_call::MapKeyState,
    /// `loop_inline_state`: whether a `bpf_loop` call can be inlined.
    pub loop_inline: super::helper_call::LoopInlineState,
    pub is_iter_next: bool,
    /// The call is reached in a non-sleepable context.
    pub non_sleepable: bool,
    pub call_with_percpu_alloc_ptr: bool,
    /// `obj_new_size`: the size of the local type a `bpf_obj_new` (or
    /// `bpf_percpu_obj_new`) call allocates.
    pub obj_new_size: u32,
    /// `kptr_struct_meta` is not NULL: the local type of a
    /// `bpf_obj_new`/`bpf_obj_drop` has a `btf_struct_meta`.
    pub kptr_struct_meta: bool,
    /// `insert_off`: where a list push or `bpf_rbtree_add` finds the
    /// node in the object it inserts.
    pub insert_off: u64,
    /// `needs_zext`: 64-bit ALU on an arena pointer, made 32-bit by the
    /// fixups; `prevent_zext`: the insn also ran on other registers.
    pub needs_zext: bool,
    pub prevent_zext: bool,
}

/// The statistics `print_verification_stats` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub insn_processed: u32,
    pub max_states_per_insn: u32,
    pub total_states: u32,
    pub peak_states: u32,
    pub longest_mark_read_walk: u32,
}

/// The main pass's result.
#[derive(Clone, Debug)]
pub struct DoCheckOutcome {
    pub result: VResult<()>,
    pub stats: Stats,
    /// `subprog_info[0].stack_depth`.
    pub stack_depth: u32,
    /// Per insn, for the fixups.
    pub aux: Vec<PassAux>,
    /// `prog->aux->max_ctx_offset`: the end of the furthest ctx access.
    pub max_ctx_offset: u32,
    /// Per subprogram (`subprog_info[i]`): stack depth, processed insns,
    /// callback kinds.
    pub subprogs: Vec<super::calls::SubprogRt>,
}

/// What `do_check_insn` tells the loop.
pub(crate) enum Next {
    /// Go on at the next insn.
    Fallthrough,
    /// `insn_idx` was set.
    Updated,
    /// `insn_idx` was set and the state is printed first (a return from
    /// a subprogram).
    UpdatedPrint,
    /// The path ended (`exit`).
    Exit,
}

/// A pushed branch (`struct bpf_verifier_stack_elem`).
pub(crate) struct StackElem {
    pub st: VerifierState,
    pub insn_idx: usize,
    pub prev_insn_idx: i64,
    pub log_pos: u64,
    /// Where the diagnostics event log stood (`diag_log_pos`).
    pub diag_log_pos: u64,
}

/// A stored checkpoint (`struct bpf_verifier_state_list`). In C layout:
/// the counters a pruning miss updates share a cache line with the head of
/// the state (see [`VerifierState`]).
#[repr(C)]
pub(crate) struct Checkpoint {
    pub miss_cnt: u32,
    pub hit_cnt: u32,
    pub in_free_list: bool,
    /// Still in `explored_states` or the free list (not freed).
    pub listed: bool,
    pub state: VerifierState,
}

/// The checkpoints of a pass, by the index states name their parent with.
/// Stored in fixed-size chunks, not one Vec: a pass that makes ~100k
/// checkpoints (a chain of branches) would otherwise copy them all at each
/// doubling into fresh memory the OS zeroes. A freed checkpoint's slot
/// takes the next one, as the kernel's freed states return their memory:
/// the store is as large as the most checkpoints alive at once
/// (`peak_states`), not as all the pass made (`total_states`).
#[derive(Default)]
pub(crate) struct CheckpointStore {
    chunks: Vec<Vec<Checkpoint>>,
    len: usize,
    /// Slots of freed checkpoints, the most recently freed last.
    free: Vec<usize>,
}

impl CheckpointStore {
    const CHUNK: usize = 32;

    /// Stores a new checkpoint, a copy of `st` made in its slot; its index.
    pub(crate) fn push(&mut self, st: &VerifierState) -> usize {
        if let Some(i) = self.free.pop() {
            let c = &mut self[i];
            c.state.clone_from(st);
            (c.miss_cnt, c.hit_cnt, c.in_free_list, c.listed) = (0, 0, false, true);
            return i;
        }
        let k = self.len / Self::CHUNK;
        if k == self.chunks.len() {
            self.chunks.push(Vec::with_capacity(Self::CHUNK));
        }
        self.chunks[k].push(Checkpoint { state: st.clone(), miss_cnt: 0, hit_cnt: 0, in_free_list: false, listed: true });
        self.len += 1;
        self.len - 1
    }

    /// `bpf_free_verifier_state` of checkpoint `i`: nothing names it any
    /// more (no state continues from it, it is in no list), so its slot
    /// is free for the next checkpoint.
    pub(crate) fn release(&mut self, i: usize) {
        debug_assert!(!self[i].listed && self[i].state.branches == 0, "checkpoint {i} released while in use");
        self.free.push(i);
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Checkpoint> {
        self.chunks.get_mut(i / Self::CHUNK)?.get_mut(i % Self::CHUNK)
    }

    /// Drops every checkpoint; the chunks stay for the next pass.
    pub(crate) fn clear(&mut self) {
        self.chunks.iter_mut().for_each(Vec::clear);
        self.len = 0;
        self.free.clear();
    }
}

impl std::ops::Index<usize> for CheckpointStore {
    type Output = Checkpoint;
    #[inline]
    fn index(&self, i: usize) -> &Checkpoint {
        &self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

impl std::ops::IndexMut<usize> for CheckpointStore {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Checkpoint {
        &mut self.chunks[i / Self::CHUNK][i % Self::CHUNK]
    }
}

/// `env->explored_states`: `state_htab_size` (the program's length) hash
/// buckets of checkpoint indexes. Most buckets of a large program stay
/// empty (checkpoints are only made at prune points), so only the used
/// ones get a list: the per-bucket part is a zero-initialised index,
/// whose untouched pages cost nothing, not a list header to write for
/// every insn.
#[derive(Debug, Default)]
pub(crate) struct ExploredStates {
    /// Per bucket: 0 while empty, else 1 + the index of its list.
    heads: Vec<u32>,
    lists: Vec<Vec<usize>>,
}

static NO_STATES: Vec<usize> = Vec::new();

impl ExploredStates {
    pub(crate) fn new(buckets: usize) -> ExploredStates {
        ExploredStates { heads: vec![0; buckets], lists: Vec::new() }
    }

    /// The number of buckets (`state_htab_size`).
    pub(crate) fn len(&self) -> usize {
        self.heads.len()
    }

    /// Bucket `b`'s list.
    pub(crate) fn get(&self, b: usize) -> Option<&Vec<usize>> {
        match *self.heads.get(b)? {
            0 => Some(&NO_STATES),
            h => self.lists.get(h as usize - 1),
        }
    }

    /// Bucket `b`'s list, to change.
    pub(crate) fn get_mut(&mut self, b: usize) -> Option<&mut Vec<usize>> {
        let h = self.heads.get_mut(b)?;
        if *h == 0 {
            self.lists.push(Vec::new());
            *h = self.lists.len() as u32;
        }
        self.lists.get_mut(*h as usize - 1)
    }

    /// Empties every bucket.
    pub(crate) fn clear(&mut self) {
        self.lists.iter_mut().for_each(Vec::clear);
    }
}

/// `struct bpf_verifier_env`: the main pass's part.
pub struct Env<'a, 'l> {
    pub(crate) input: &'a DoCheckInput<'a>,
    pub(crate) log: &'l mut dyn VLog,
    pub(crate) cur: VerifierState,
    pub(crate) stack: Vec<StackElem>,
    pub(crate) checkpoints: CheckpointStore,
    /// Buffers of states done with, for the next copies.
    pub(crate) state_pool: StatePool,
    /// `explored_states`: hash buckets of insn and call site, newest first.
    pub(crate) explored: ExploredStates,
    pub(crate) free_list_size: u32,
    pub(crate) explored_states_size: u32,
    pub(crate) num_backedges: u32,
    pub(crate) scc: super::states::SccState,
    pub(crate) id_gen: u32,
    /// `prog->aux->max_rdonly_access`, `max_rdwr_access`: the end of the
    /// furthest `PTR_TO_BUF` access (an iterator's attach checks them
    /// against the map's key and value sizes).
    pub(crate) max_rdonly_access: u32,
    pub(crate) max_rdwr_access: u32,
    pub(crate) insn_idx: usize,
    pub(crate) prev_insn_idx: i64,
    pub(crate) jmps_processed: u32,
    pub(crate) prev_jmps_processed: u32,
    pub(crate) prev_insn_processed: u32,
    pub(crate) stats: Stats,
    pub(crate) scratch: Scratch,
    /// The text of the next `verbose()` message, formatted in place (the
    /// kernel's `log->kbuf`); kept empty between messages so its capacity
    /// is reused: see [`Env::kbuf`] and [`Env::verbose_kbuf`].
    pub(crate) kbuf: String,
    /// `bpf_verbose_insn`'s text of each insn, rendered on first use: it
    /// depends only on the program, the kfunc names and `allow_ptr_leaks`,
    /// all fixed for the pass, and a loop prints the same insns many times.
    pub(crate) insn_text_cache: Vec<Option<Box<str>>>,
    pub(crate) prev_log_pos: u64,
    pub(crate) prev_insn_print_pos: u64,
    /// `env->prev_linfo`, reset by each `do_check_common`.
    pub(crate) prev_linfo: Option<usize>,
    /// `env->cur_hist_ent`: the history entry of the current insn.
    pub(crate) cur_hist_ent: Option<usize>,
    pub(crate) bt: super::backtrack::BacktrackState,
    /// The maps, then the inner-map metas of maps-in-maps (`reg.aux` of a
    /// map pointer indexes this).
    pub(crate) maps: Vec<MapInfo>,
    /// `subprog_info` as the pass updates it.
    pub(crate) subprogs: Vec<super::calls::SubprogRt>,
    /// `env->exception_callback_subprog`.
    pub(crate) exception_callback_subprog: usize,
    /// `env->diag`: the causal-path event log, at log levels 1 and 2.
    pub(crate) diag: Option<super::diag::BpfDiag>,
    pub(crate) aux: Vec<PassAux>,
    /// `env->explore_alu_limits`: a masked pointer ALU with an unknown
    /// offset was met; scalars are then compared exactly when pruning.
    pub(crate) explore_alu_limits: bool,
    pub(crate) max_ctx_offset: u32,
}

/// `do_check_main`: verifies the main program from insn 0 with `R1 = ctx`,
/// then (`do_check_subprogs`) every global function it calls;
/// `check_max_stack_depth` follows in `bpf_check` on what
/// [`DoCheckOutcome::subprogs`] reports.
pub fn do_check_main(input: &DoCheckInput<'_>, log: &mut dyn VLog) -> DoCheckOutcome {
    let n = input.insns.len();
    let maps = super::maps::flatten_maps(input.maps);
    let subprogs = super::calls::SubprogRt::from_input(input);
    let exception_callback_subprog = input.subprogs.iter().position(|s| s.is_exception_cb).unwrap_or(0);
    let mut env = Env {
        input,
        log,
        cur: VerifierState::new(),
        stack: Vec::new(),
        checkpoints: CheckpointStore::default(),
        state_pool: StatePool::default(),
        explored: ExploredStates::new(n),
        free_list_size: 0,
        explored_states_size: 0,
        num_backedges: 0,
        scc: Default::default(),
        id_gen: 0,
        max_rdonly_access: 0,
        max_rdwr_access: 0,
        insn_idx: 0,
        prev_insn_idx: -1,
        jmps_processed: 0,
        prev_jmps_processed: 0,
        prev_insn_processed: 0,
        stats: Stats::default(),
        scratch: Scratch::default(),
        kbuf: String::new(),
        insn_text_cache: Vec::new(),
        prev_log_pos: 0,
        prev_linfo: None,
        prev_insn_print_pos: 0,
        cur_hist_ent: None,
        bt: Default::default(),
        maps,
        subprogs,
        exception_callback_subprog,
        diag: None,
        aux: vec![PassAux::default(); n],
        explore_alu_limits: false,
        max_ctx_offset: 0,
    };
    if env.level() & BPF_LOG_LEVEL != 0 {
        env.diag = Some(Default::default());
    }
    let mut result = env.do_check_common(0, input.sleepable);
    if result.is_ok() {
        result = env.do_check_subprogs();
    }
    let stack_depth = env.subprogs.first().map_or(0, |s| s.stack_depth);
    DoCheckOutcome { result, stats: env.stats, stack_depth, aux: env.aux, max_ctx_offset: env.max_ctx_offset, subprogs: env.subprogs }
}

impl<'a, 'l> Env<'a, 'l> {
    pub(crate) fn verbose(&mut self, s: &str) {
        self.log.vlog(s);
    }

    /// The (empty) scratch buffer to format a message in, handed back by
    /// [`Env::verbose_kbuf`].
    pub(crate) fn kbuf(&mut self) -> String {
        std::mem::take(&mut self.kbuf)
    }

    /// `verbose()` of a message formatted in the buffer [`Env::kbuf`] gave,
    /// which is then kept, emptied, for the next one.
    pub(crate) fn verbose_kbuf(&mut self, mut s: String) {
        self.log.vlog(&s);
        s.clear();
        self.kbuf = s;
    }

    pub(crate) fn level(&self) -> u32 {
        self.log.level()
    }

    pub(crate) fn insn(&self, idx: usize) -> Insn {
        self.input.insns.get(idx).copied().unwrap_or_default()
    }

    pub(crate) fn info(&self, idx: usize) -> InsnInfo {
        match (self.input.aux.get(idx), self.input.insns.get(idx)) {
            (Some(a), Some(insn)) => InsnInfo::of(a, insn),
            _ => InsnInfo::default(),
        }
    }

    pub(crate) fn bpf_capable(&self) -> bool {
        self.input.privs.bpf_capable
    }

    pub(crate) fn allow_ptr_leaks(&self) -> bool {
        self.input.privs.allow_ptr_leaks
    }

    /// `bpf_verbose_insn`: the disasm.c text of an insn.
    pub(crate) fn insn_text(&self, idx: usize) -> String {
        let kfuncs = self.input.kfuncs;
        let kf = |imm: i32, off: i16| -> Option<String> {
            if off != 0 {
                return None;
            }
            kfuncs.iter().find(|(_, id)| *id as i64 == imm as i64).map(|(n, _)| n.to_string())
        };
        let cbs = bpf_isa::disasm::VerifierCallbacks { kfunc_name: &kf };
        let insn = self.insn(idx);
        bpf_isa::disasm::print_bpf_insn(&cbs, &insn, self.input.insns.get(idx + 1), self.allow_ptr_leaks())
    }

    /// [`Env::insn_text`] from the pass's cache.
    pub(crate) fn cached_insn_text(&mut self, idx: usize) -> &str {
        if self.insn_text_cache.len() <= idx {
            self.insn_text_cache.resize(self.input.insns.len().max(idx + 1), None);
        }
        if self.insn_text_cache[idx].is_none() {
            self.insn_text_cache[idx] = Some(self.insn_text(idx).into_boxed_str());
        }
        self.insn_text_cache[idx].as_deref().unwrap_or_default()
    }

    /// `verbose_insn`'s line in the log: `N: (xx) text`.
    pub(crate) fn print_insn_line(&mut self, idx: usize) {
        let mut s = self.kbuf();
        push_u64(&mut s, idx as u64);
        s.push_str(": ");
        s.push_str(self.cached_insn_text(idx));
        s.push('\n');
        self.verbose_kbuf(s);
    }

    pub(crate) fn regs(&self) -> &[RegState; MAX_BPF_REG] {
        &self.cur.cur().regs
    }

    pub(crate) fn regs_mut(&mut self) -> &mut [RegState; MAX_BPF_REG] {
        &mut self.cur.cur_mut().regs
    }

    /// `mark_reg_unknown` on a register of the current frame.
    pub(crate) fn mark_reg_unknown(&mut self, regno: usize) {
        let cap = self.bpf_capable();
        if let Some(r) = self.regs_mut().get_mut(regno) {
            *r = RegState::unknown(cap);
        }
    }

    /// `__mark_reg_unknown` on any register state.
    pub(crate) fn unknown_reg(&self) -> RegState {
        RegState::unknown(self.bpf_capable())
    }

    /// `__mark_reg_const_zero`: a precise-if-unprivileged zero scalar.
    pub(crate) fn const_zero_reg(&self) -> RegState {
        let mut r = RegState::known(0);
        r.precise = !self.bpf_capable();
        r
    }

    pub(crate) fn mark_reg_scratched(&mut self, regno: usize) {
        self.scratch.mark_reg(regno);
    }

    pub(crate) fn mark_stack_slot_scratched(&mut self, spi: usize) {
        self.scratch.mark_slot(spi);
    }

    /// `print_verifier_state` of the current state.
    pub(crate) fn print_cur_state(&mut self, print_all: bool) {
        let s = self.kbuf();
        self.print_cur_state_after(s, print_all);
    }

    /// [`Env::print_cur_state`] after the text already in `s` (a buffer
    /// from [`Env::kbuf`]), as one message.
    fn print_cur_state_after(&mut self, mut s: String, print_all: bool) {
        let f = self.cur.curframe();
        print_verifier_state(&mut s, &self.cur, f, print_all, &self.scratch, &self.maps);
        self.verbose_kbuf(s);
        if !print_all {
            self.scratch.clear();
        }
    }

    /// `verbose_linfo`: `prefix` and the source line of `insn_off`, unless
    /// it is the line printed last.
    pub(crate) fn verbose_linfo(&mut self, insn_off: usize, prefix: &str) {
        if self.log.level() == 0 || self.input.linfo.is_empty() {
            return;
        }
        let input = self.input;
        if let Some(text) = super::linfo::verbose_linfo_text(input.linfo, input.prog_btf, input.insns.len(), &mut self.prev_linfo, insn_off) {
            self.log.vlog(prefix);
            self.log.vlog(&text);
        }
    }

    /// `print_insn_state`: the registers an insn changed, as a `;` comment
    /// on its line when nothing was printed after it, else on a line of
    /// their own.
    pub(crate) fn print_insn_state(&mut self) {
        let mut s = self.kbuf();
        if self.prev_log_pos != 0 && self.prev_log_pos == self.log.end_pos() {
            self.log.reset(self.prev_log_pos - 1);
            let pad = super::print::vlog_alignment(self.prev_insn_print_pos);
            push_spaces(&mut s, pad.max(1));
            s.push(';');
        } else {
            push_u64(&mut s, self.insn_idx as u64);
            s.push(':');
        }
        self.print_cur_state_after(s, false);
    }

    /// `check_reg_arg(..., SRC_OP)`.
    pub(crate) fn check_reg_src(&mut self, regno: usize) -> VResult<()> {
        self.mark_reg_scratched(regno);
        if regno >= MAX_BPF_REG {
            return errno(EINVAL);
        }
        if self.regs()[regno].typ == NOT_INIT {
            self.verbose(&format!("R{regno} !read_ok\n"));
            self.bpf_diag_unreadable_reg(regno);
            return errno(EACCES);
        }
        Ok(())
    }

    /// `check_reg_arg(..., DST_OP / DST_OP_NO_MARK)`.
    pub(crate) fn check_reg_dst(&mut self, regno: usize, mark: bool) -> VResult<()> {
        self.mark_reg_scratched(regno);
        if regno >= MAX_BPF_REG {
            return errno(EINVAL);
        }
        if regno == BPF_REG_FP {
            self.verbose("frame pointer is read only\n");
            return errno(EACCES);
        }
        if mark {
            self.mark_reg_unknown(regno);
        }
        Ok(())
    }

    /// `is_pointer_value`: a pointer the loader may not see.
    pub(crate) fn is_pointer_value(&self, regno: usize) -> bool {
        !self.allow_ptr_leaks() && self.regs().get(regno).is_some_and(|r| r.is_pointer())
    }

    /// `push_stack`: queue the current state to continue at `insn_idx`.
    pub(crate) fn push_stack(&mut self, insn_idx: usize, prev_insn_idx: usize, speculative: bool) -> VResult<usize> {
        let mut st = self.state_pool.copy_of(&self.cur);
        st.speculative |= speculative;
        let log_pos = self.log.end_pos();
        let diag_log_pos = self.diag_log_save();
        if let Some(p) = st.parent
            && let Some(c) = self.checkpoints.get_mut(p)
        {
            c.state.branches += 1;
        }
        self.stack.push(StackElem { st, insn_idx, prev_insn_idx: prev_insn_idx as i64, log_pos, diag_log_pos });
        if self.stack.len() > BPF_COMPLEXITY_LIMIT_JMP_SEQ {
            let s = format!("The sequence of {} jumps is too complex.\n", self.stack.len());
            self.verbose(&s);
            return errno(E2BIG);
        }
        Ok(self.stack.len() - 1)
    }

    /// `pop_stack`: continue with the newest queued branch.
    fn pop_stack(&mut self, prev_insn_idx: &mut i64, pop_log: bool) -> bool {
        let Some(head) = self.stack.pop() else { return false };
        let done = std::mem::replace(&mut self.cur, head.st);
        self.state_pool.recycle(done);
        self.diag_log_restore(head.diag_log_pos);
        if pop_log {
            self.log.reset(head.log_pos);
        }
        self.insn_idx = head.insn_idx;
        *prev_insn_idx = head.prev_insn_idx;
        true
    }

    /// `bpf_push_jmp_history`.
    pub(crate) fn push_jmp_history(&mut self, flags: u32, spi: usize, frame: usize, linked_regs: u64) {
        if let Some(i) = self.cur_hist_ent
            && let Some(e) = self.cur.jmp_history.get_mut(i)
        {
            e.flags |= flags;
            e.spi = spi as u8;
            e.frame = frame as u8;
            e.linked_regs = linked_regs;
            return;
        }
        self.cur.jmp_history.push(JmpHistEntry {
            idx: self.insn_idx as u32,
            prev_idx: self.prev_insn_idx as u32,
            flags,
            spi: spi as u8,
            frame: frame as u8,
            linked_regs,
        });
        self.cur_hist_ent = Some(self.cur.jmp_history.len() - 1);
    }

    /// `init_func_state`: a frame for `subprogno`, with its diagnostics
    /// identity.
    pub(crate) fn init_func_state(&mut self, callsite: i64, frameno: usize, subprogno: usize) -> FuncState {
        let mut f = FuncState::new(callsite, frameno, subprogno);
        if let Some(d) = self.diag.as_mut() {
            f.diag_frame_id = d.new_frame_id();
        }
        f
    }

    /// `do_check_common`: verify `subprog` from its first insn, the main
    /// program with `R1 = ctx`, a global function with the arguments its
    /// BTF prototype declares ([`super::btf_args`]).
    pub(crate) fn do_check_common(&mut self, subprog: usize, sleepable: bool) -> VResult<()> {
        self.prev_linfo = None;
        let pop_log = self.level() & BPF_LOG_LEVEL2 == 0;
        let old_insns_total = self.subprogs.get(subprog).map_or(0, |s| s.insns_total);
        let insn_processed = self.stats.insn_processed;
        let start = self.subprogs.get(subprog).map_or(0, |s| s.start);
        let mut st = VerifierState::new();
        st.frame[0] = self.init_func_state(-1, 0, subprog);
        st.in_sleepable = sleepable;
        st.first_insn_idx = start;
        st.last_insn_idx = -1;
        let mut ret = Ok(());
        if subprog != 0 {
            let desc = self.input.subprogs.get(subprog).cloned().unwrap_or_default();
            if self.level() & BPF_LOG_LEVEL != 0 {
                let s = format!("Validating {}() func#{subprog}...\n", desc.name);
                self.verbose(&s);
            }
            let prepared = self.prepare_func_args(subprog);
            if let Err(e) = prepared {
                ret = Err(e);
            } else {
                let args = self.subprogs.get(subprog).and_then(|s| s.args.clone()).unwrap_or_default();
                if desc.is_exception_cb {
                    st.frame[0].in_exception_callback_fn = true;
                    if desc.returns_void {
                        self.verbose("exception cb cannot return void\n");
                        ret = errno(EINVAL);
                    } else if args.len() != 1 || args[0].arg_type != ARG_ANYTHING {
                        self.verbose("exception cb only supports single integer argument\n");
                        ret = errno(EINVAL);
                    }
                }
                if ret.is_ok() {
                    for (i, arg) in args.iter().enumerate().take(5) {
                        st.frame[0].regs[i + 1] = self.global_arg_reg(arg);
                    }
                }
            }
        } else {
            // a main program whose BTF does not take one ctx argument has
            // unreliable BTF
            if self.input.has_func_info {
                let ok = self.prepare_func_args(0).is_ok()
                    && self.subprogs.first().and_then(|s| s.args.as_ref()).is_some_and(|a| a.len() == 1 && a[0].arg_type == ARG_PTR_TO_CTX);
                if !ok && let Some(sp) = self.subprogs.first_mut() {
                    sp.unreliable = true;
                }
            }
            st.frame[0].regs[1] = RegState::ptr(PTR_TO_CTX, 0);
        }
        self.cur = st;
        self.insn_idx = start;
        // init_func_state scratches everything: the first insn prints the whole state
        self.scratch.mark_all();
        if ret.is_ok() {
            ret = self.do_check();
        }
        self.account_current_path();
        if ret.is_ok() {
            if pop_log {
                self.log.reset(0);
            }
            self.diag_log_restore(0);
        }
        self.free_states();
        if let Some(sp) = self.subprogs.get_mut(subprog) {
            sp.insns_total = old_insns_total + (self.stats.insn_processed - insn_processed);
        }
        ret
    }

    /// `do_check_subprogs`: verify each global function reached so far,
    /// once per context (sleepable or not) it was called in, until no new
    /// one shows up.
    fn do_check_subprogs(&mut self) -> VResult<()> {
        if !self.input.has_func_info {
            return Ok(());
        }
        let exc = self.exception_callback_subprog;
        if exc != 0
            && let Some(sp) = self.subprogs.get_mut(exc)
        {
            sp.called[self.input.sleepable as usize] = true;
        }
        loop {
            let mut new_cnt = 0;
            for i in 1..self.subprogs.len() {
                if !self.input.subprogs.get(i).is_some_and(|s| s.global) {
                    continue;
                }
                for context in 0..2 {
                    let sp = &self.subprogs[i];
                    if !sp.called[context] || sp.verified[context] {
                        continue;
                    }
                    self.do_check_common(i, context == 1)?;
                    if self.level() & BPF_LOG_LEVEL != 0 {
                        let name = self.input.subprogs.get(i).map(|s| s.name.clone()).unwrap_or_default();
                        let s = format!("Func#{i} ('{name}') is safe for any args that match its prototype\n");
                        self.verbose(&s);
                    }
                    self.subprogs[i].verified[context] = true;
                    new_cnt += 1;
                }
            }
            if new_cnt == 0 {
                return Ok(());
            }
        }
    }

    /// `free_states`: a new `do_check_common` starts without checkpoints.
    fn free_states(&mut self) {
        self.stack.clear();
        self.checkpoints.clear();
        self.explored.clear();
        self.free_list_size = 0;
        self.explored_states_size = 0;
        self.num_backedges = 0;
        self.scc = Default::default();
    }

    /// `do_check`: the loop over insns and queued branches.
    fn do_check(&mut self) -> VResult<()> {
        // the log level is fixed for the whole load
        let level = self.level();
        let pop_log = level & BPF_LOG_LEVEL2 == 0;
        let insn_cnt = self.input.insns.len();
        let mut do_print_state = false;
        let mut prev_insn_idx: i64 = -1;
        loop {
            self.cur_hist_ent = None;
            self.prev_insn_idx = prev_insn_idx;
            if self.insn_idx >= insn_cnt {
                let s = format!("invalid insn idx {} insn_cnt {}\n", self.insn_idx, insn_cnt);
                self.verbose(&s);
                return errno(EFAULT);
            }
            self.account_processed_insn();
            if self.stats.insn_processed > BPF_COMPLEXITY_LIMIT_INSNS {
                let s = format!("BPF program is too large. Processed {} insn\n", self.stats.insn_processed);
                self.verbose(&s);
                return errno(E2BIG);
            }
            self.cur.last_insn_idx = self.prev_insn_idx;
            self.cur.insn_idx = self.insn_idx;
            // the edge that led here, for the causal path of a report (a
            // conditional whose two successors coincide says nothing)
            if self.diag.is_some() && !self.cur.speculative && prev_insn_idx >= 0 && (prev_insn_idx as usize) < insn_cnt {
                let p = prev_insn_idx as usize;
                let prev = self.insn(p);
                let opc = prev.opcode();
                if matches!(prev.class(), BPF_JMP | BPF_JMP32) && opc != BPF_JA && opc != BPF_CALL && opc != BPF_EXIT && opc <= BPF_JCOND {
                    let fallthrough = p + 1;
                    let branch = super::env::jmp_target(p, super::env::bpf_jmp_offset(&prev)) as i64;
                    if branch != fallthrough as i64 {
                        if self.insn_idx as i64 == branch {
                            self.diag_record_branch(p, true);
                        } else if self.insn_idx == fallthrough {
                            self.diag_record_branch(p, false);
                        }
                    }
                }
            }

            let mut exit_path = false;
            let info = self.info(self.insn_idx);
            if info.prune_point && self.is_state_visited(self.insn_idx)? {
                if level & BPF_LOG_LEVEL != 0 {
                    let spec = if self.cur.speculative { " (speculative execution)" } else { "" };
                    let s = if do_print_state {
                        format!("\nfrom {} to {}{}: safe\n", self.prev_insn_idx, self.insn_idx, spec)
                    } else {
                        format!("{}: safe\n", self.insn_idx)
                    };
                    self.verbose(&s);
                }
                exit_path = true;
            }
            if !exit_path {
                if info.jmp_point {
                    self.push_jmp_history(0, 0, 0, 0);
                }
                if level & BPF_LOG_LEVEL2 != 0 && do_print_state {
                    let spec = if self.cur.speculative { " (speculative execution)" } else { "" };
                    let s = format!("\nfrom {} to {}{}:", self.prev_insn_idx, self.insn_idx, spec);
                    self.verbose(&s);
                    self.print_cur_state(true);
                    do_print_state = false;
                }
                if level & BPF_LOG_LEVEL != 0 {
                    if self.scratch.any() {
                        self.print_insn_state();
                    }
                    self.verbose_linfo(self.insn_idx, "; ");
                    self.prev_log_pos = self.log.end_pos();
                    self.print_insn_line(self.insn_idx);
                    self.prev_insn_print_pos = self.log.end_pos() - self.prev_log_pos;
                    self.prev_log_pos = self.log.end_pos();
                }
                let idx = self.insn_idx;
                if !self.cur.speculative {
                    // sanitize_mark_insn_seen
                    self.aux[idx].seen = true;
                }
                prev_insn_idx = idx as i64;
                if self.cur.speculative && self.aux[idx].nospec {
                    // a barrier stops speculation here
                    exit_path = true;
                } else {
                    match self.do_check_insn() {
                        Err(DoCheckError::Errno(e)) if self.cur.speculative && matches!(e, EPERM | EACCES | EINVAL) => {
                            // error_recoverable_with_nospec: keep
                            // speculation from reaching the unsafe insn
                            self.aux[idx].nospec = true;
                            self.aux[idx].alu_state = 0;
                            exit_path = true;
                        }
                        Err(e) => return Err(e),
                        Ok(Next::Fallthrough) => self.insn_idx += 1,
                        Ok(Next::Updated) => {}
                        Ok(Next::UpdatedPrint) => do_print_state = true,
                        Ok(Next::Exit) => exit_path = true,
                    }
                    if !exit_path && self.cur.speculative && self.aux[idx].nospec_result {
                        exit_path = true;
                    }
                }
            }
            if exit_path {
                self.account_current_path();
                self.scratch.mark_all();
                self.update_branch_counts()?;
                if !self.pop_stack(&mut prev_insn_idx, pop_log) {
                    break;
                }
                do_print_state = true;
            }
        }
        Ok(())
    }

    /// `do_check_insn`.
    fn do_check_insn(&mut self) -> VResult<Next> {
        let insn = self.insn(self.insn_idx);
        if super::env::is_stack_arg_ldx(&insn) || super::env::is_stack_arg_stx(&insn) || super::env::is_stack_arg_st(&insn) {
            return Err(DoCheckError::Unsupported("stack arguments (r11) of calls are not modelled yet".into()));
        }
        match insn.class() {
            BPF_ALU | BPF_ALU64 => {
                self.check_alu_op(&insn)?;
                Ok(Next::Fallthrough)
            }
            BPF_LDX => {
                self.check_load_mem(&insn, insn.mode() == BPF_MEMSX)?;
                Ok(Next::Fallthrough)
            }
            BPF_STX => {
                if insn.mode() == BPF_ATOMIC {
                    self.check_atomic(&insn)?;
                } else {
                    self.check_store_reg(&insn)?;
                }
                Ok(Next::Fallthrough)
            }
            BPF_ST => {
                self.check_st_mem(&insn)?;
                Ok(Next::Fallthrough)
            }
            BPF_JMP | BPF_JMP32 => {
                let opcode = insn.opcode();
                self.jmps_processed += 1;
                if opcode == BPF_CALL {
                    return self.do_check_call(&insn);
                }
                if opcode == BPF_JA {
                    if insn.is_src_x() {
                        return Err(DoCheckError::Unsupported("gotox is not modelled yet".into()));
                    }
                    let off = if insn.class() == BPF_JMP { insn.off as i64 } else { insn.imm as i64 };
                    let t = self.insn_idx as i64 + off + 1;
                    if t < 0 {
                        return errno(EFAULT);
                    }
                    self.insn_idx = t as usize;
                    return Ok(Next::Updated);
                }
                if opcode == BPF_EXIT {
                    return self.process_bpf_exit_full(false);
                }
                self.check_cond_jmp_op(&insn)
            }
            _ => {
                // BPF_LD
                let mode = insn.mode();
                if mode == BPF_ABS || mode == BPF_IND {
                    self.check_ld_abs(&insn)?;
                    return Ok(Next::Fallthrough);
                }
                if mode == BPF_IMM {
                    self.check_ld_imm(&insn)?;
                    self.insn_idx += 1;
                    // sanitize_mark_insn_seen: the second slot too
                    if !self.cur.speculative {
                        self.aux[self.insn_idx].seen = true;
                    }
                    return Ok(Next::Fallthrough);
                }
                errno(EINVAL)
            }
        }
    }

    /// `check_ld_abs`: a legacy packet load through the skb in R6; like a
    /// call it clobbers R1-R5 and leaves R0 unknown.
    fn check_ld_abs(&mut self, insn: &Insn) -> VResult<()> {
        use super::ctx::pt;
        if !matches!(self.input.prog_type, pt::SOCKET_FILTER | pt::SCHED_CLS | pt::SCHED_ACT) {
            self.verbose("BPF_LD_[ABS|IND] instructions not allowed for this program type\n");
            return errno(EINVAL);
        }
        if self.cur.frame.iter().skip(1).any(|f| f.in_callback_fn) {
            self.verbose("cannot use BPF_LD_[ABS|IND] within callback\n");
            return errno(EINVAL);
        }
        const CTX_REG: usize = 6;
        self.check_reg_src(CTX_REG)?;
        // it may end the program at run time: no reference may be held
        self.check_resource_leak(false, true, "BPF_LD_[ABS|IND]")?;
        let r6 = self.regs()[CTX_REG];
        if r6.typ != PTR_TO_CTX {
            self.verbose("at the time of BPF_LD_ABS|IND R6 != pointer to skb\n");
            return errno(EINVAL);
        }
        if insn.mode() == BPF_IND {
            self.check_reg_src(insn.src as usize)?;
        }
        // check_ptr_off_reg: the skb pointer as the program got it
        if !super::tnum::tnum_is_const(r6.s.var_off) {
            let s = format!("variable ctx access var_off={} disallowed\n", super::scalar::print::tnum_strn(r6.s.var_off));
            self.verbose(&s);
            return errno(EACCES);
        }
        if r6.s.smin() < 0 {
            self.verbose(&format!("negative offset ctx ptr R6 off={} disallowed\n", r6.s.var_off.value as i64));
            return errno(EACCES);
        }
        if r6.s.var_off.value != 0 {
            self.verbose(&format!("dereference of modified ctx ptr R6 off={} disallowed\n", r6.s.var_off.value as i64));
            self.bpf_diag_invalid_deref(CTX_REG, &r6, super::diag::DerefKind::ModifiedPtr, r6.s.var_off.value as i64);
            return errno(EACCES);
        }
        self.bpf_diag_record_caller_saved();
        let target = self.diag_reg_target(self.cur.curframe(), 0);
        self.diag_mod_begin(target, None, ModReason::Write);
        for r in 0..=5 {
            self.regs_mut()[r] = RegState::not_init();
            self.mark_reg_scratched(r);
        }
        self.mark_reg_unknown(0);
        self.diag_mod_end();
        // bpf_gen_ld_abs's hidden exit with r0 = 0, explored in a subprogram
        if self.cur.curframe() != 0 {
            self.mark_reg_scratched(0);
            let idx = self.insn_idx;
            let qi = self.push_stack(idx + 1, idx, false)?;
            let _ = qi;
            let precise = self.regs()[0].precise;
            let mut z = RegState::known(0);
            z.precise = precise;
            self.regs_mut()[0] = z;
            self.prepare_func_exit()?;
            // the fall-through below steps back onto the insn after the call
            self.insn_idx = self.insn_idx.wrapping_sub(1);
        }
        Ok(())
    }

    /// `check_ld_imm`.
    fn check_ld_imm(&mut self, insn: &Insn) -> VResult<()> {
        let dst = insn.dst as usize;
        if insn.size() != BPF_DW {
            self.verbose("invalid BPF_LD_IMM insn\n");
            return errno(EINVAL);
        }
        self.check_reg_dst(dst, true)?;
        let f = self.cur.curframe();
        let target = self.diag_reg_target(f, dst);
        self.diag_mod_begin(target, None, ModReason::Write);
        let next = self.insn(self.insn_idx + 1);
        if insn.src == 0 {
            let imm = (insn.imm as u32 as u64) | ((next.imm as u32 as u64) << 32);
            let mut r = RegState::known(imm);
            r.precise = !self.bpf_capable();
            self.regs_mut()[dst] = r;
            self.diag_mod_end();
            return Ok(());
        }
        let info = self.info(self.insn_idx);
        match (insn.src, info.map_index) {
            (BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_IDX, Some(m)) => {
                self.regs_mut()[dst] = RegState::ptr(CONST_PTR_TO_MAP, m as i64);
            }
            (BPF_PSEUDO_FUNC, _) => self.check_ld_imm_func(insn, dst)?,
            // a kernel variable, typed by check_pseudo_btf_id
            (BPF_PSEUDO_BTF_ID, _) => {
                let (t, aux) = info.btf_var;
                if base_type(t) != PTR_TO_MEM && base_type(t) != PTR_TO_BTF_ID {
                    self.verbose(&format!("verifier bug: unexpected ksym type {t}\n"));
                    return errno(EFAULT);
                }
                self.regs_mut()[dst] = RegState::ptr(t, aux);
            }
            // arena global data: an address the program may not trust
            (BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE, Some(m))
                if self.maps.get(m).is_some_and(|x| x.map_type == crate::map::types::BPF_MAP_TYPE_ARENA) =>
            {
                self.regs_mut()[dst] = self.unknown_reg();
            }
            (BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX_VALUE, Some(m)) => {
                let mut r = RegState::ptr(PTR_TO_MAP_VALUE, m as i64);
                r.s = super::scalar::Scalar::known(info.map_off as u64);
                self.regs_mut()[dst] = r;
            }
            _ => return Err(DoCheckError::Unsupported(format!("ld_imm64 with src_reg {} is not modelled yet", insn.src))),
        }
        self.diag_mod_end();
        Ok(())
    }
}

/// Appends `n` spaces (`%*c`'s padding).
fn push_spaces(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let k = left.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        left -= k;
    }
}

/// Printing helpers used across the pass: `fmt_reg_mask`, a register
/// mask as `r1,r6`.
pub(crate) fn fmt_reg_mask(mask: u32) -> String {
    let mut s = String::new();
    print_reg_mask(&mut s, mask);
    s
}

/// [`fmt_reg_mask`] appended to `out`.
pub(crate) fn print_reg_mask(out: &mut String, mask: u32) {
    print_mask_bits(out, u64::from(mask), |out, i| {
        out.push('r');
        push_u64(out, u64::from(i));
    });
}

/// The set bits of `mask`, lowest first, each printed by `bit` and
/// separated by commas.
fn print_mask_bits(out: &mut String, mask: u64, mut bit: impl FnMut(&mut String, u32)) {
    let mut rest = mask;
    let mut first = true;
    while rest != 0 {
        let i = rest.trailing_zeros();
        rest &= rest - 1;
        if !first {
            out.push(',');
        }
        first = false;
        bit(out, i);
    }
}

/// `fmt_stack_mask`: a stack slot mask as `-8,-24`.
pub(crate) fn fmt_stack_mask(mask: u64) -> String {
    let mut s = String::new();
    print_stack_mask(&mut s, mask);
    s
}

/// [`fmt_stack_mask`] appended to `out`.
pub(crate) fn print_stack_mask(out: &mut String, mask: u64) {
    print_mask_bits(out, mask, |out, i| push_i64(out, -(i64::from(i) + 1) * 8));
}

/// Field accessors of [`Insn`] the pass uses.
pub(crate) trait InsnExt {
    fn mode(&self) -> u8;
    fn size(&self) -> u8;
    fn opcode(&self) -> u8;
    fn is_src_x(&self) -> bool;
}

impl InsnExt for Insn {
    fn mode(&self) -> u8 {
        op::mode(self.code)
    }
    fn size(&self) -> u8 {
        op::size(self.code)
    }
    fn opcode(&self) -> u8 {
        op::op(self.code)
    }
    fn is_src_x(&self) -> bool {
        op::src(self.code) == BPF_X
    }
}

/// `bpf_size_to_bytes`.
pub(crate) fn size_to_bytes(size: u8) -> i64 {
    match size {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    }
}

#[cfg(test)]
mod checkpoint_store_tests {
    use super::*;

    fn state_at(insn_idx: usize) -> VerifierState {
        VerifierState { insn_idx, ..VerifierState::new() }
    }

    #[test]
    fn a_freed_slot_takes_the_next_checkpoint_afresh() {
        let mut cs = CheckpointStore::default();
        let (a, b) = (cs.push(&state_at(1)), cs.push(&state_at(2)));
        assert_eq!((a, b), (0, 1));
        let c = &mut cs[a];
        (c.miss_cnt, c.hit_cnt, c.in_free_list, c.listed, c.state.branches) = (5, 2, true, false, 0);
        cs.release(a);
        let c = cs.push(&state_at(3));
        assert_eq!(c, a);
        let k = &cs[c];
        assert_eq!((k.miss_cnt, k.hit_cnt, k.in_free_list, k.listed, k.state.insn_idx, k.state.branches), (0, 0, false, true, 3, 1));
        assert_eq!(cs[b].state.insn_idx, 2);
        // no slot free: a new one, across chunk boundaries
        for i in 0..600 {
            assert_eq!(cs.push(&state_at(100 + i)), 2 + i);
        }
        assert_eq!((cs[2].state.insn_idx, cs[601].state.insn_idx), (100, 699));
        cs.clear();
        assert_eq!(cs.push(&state_at(7)), 0);
    }
}
