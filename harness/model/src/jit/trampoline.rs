//! What every arch's `arch_prepare_bpf_trampoline` is given (7.3's
//! `kernel/bpf/trampoline.c`): the traced function's `struct
//! btf_func_model`, the programs attached to it by kind
//! (`struct bpf_tramp_nodes[BPF_TRAMP_MAX]`), the `BPF_TRAMP_F_*` flags
//! `bpf_trampoline_update` chose, and the kernel addresses the image
//! embeds. The arch JITs (`x86_64::trampoline`, `arm64`) turn them into
//! the image's bytes.
//!
//! Heap pointers (`struct bpf_prog *`, `struct bpf_tramp_image *`) have
//! no fixed address: an image lists where it embeds them
//! ([`TrampImage::heap_refs`]) so that a comparison with a recorded image
//! can mask or relocate them.

/// `MAX_BPF_FUNC_ARGS`.
pub const MAX_BPF_FUNC_ARGS: usize = 12;

/// `BTF_FMODEL_*` of an argument or the return value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FmodelFlags {
    /// `BTF_FMODEL_SIGNED_ARG`: a signed integer.
    pub signed: bool,
    /// `BTF_FMODEL_ARENA_ARG`: an `__arena` pointer (converted to its
    /// arena offset on its way into the programs' ctx).
    pub arena: bool,
    /// `BTF_FMODEL_NULLABLE_ARG`: `__nullable`.
    pub nullable: bool,
}

/// `struct btf_func_model` (what `btf_distill_func_proto` fills in).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BtfFuncModel {
    /// The return value's size in bytes, 0 for `void`.
    pub ret_size: u8,
    pub ret_flags: FmodelFlags,
    /// `arg_size[i]` in bytes, one per argument (`nr_args` is its length).
    pub arg_size: Vec<u8>,
    /// The flags of each argument (missing ones have none).
    pub arg_flags: Vec<FmodelFlags>,
}

impl BtfFuncModel {
    pub fn nr_args(&self) -> usize {
        self.arg_size.len()
    }

    pub fn arg_flags(&self, i: usize) -> FmodelFlags {
        self.arg_flags.get(i).copied().unwrap_or_default()
    }
}

/// `enum bpf_tramp_prog_type` of the programs a trampoline runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BpfTrampProgType {
    Fentry,
    Fexit,
    ModifyReturn,
}

impl BpfTrampProgType {
    /// The section-style name: `fentry`, `fexit`, `fmod_ret`.
    pub fn name(self) -> &'static str {
        match self {
            BpfTrampProgType::Fentry => "fentry",
            BpfTrampProgType::Fexit => "fexit",
            BpfTrampProgType::ModifyReturn => "fmod_ret",
        }
    }

    pub fn parse(s: &str) -> Option<BpfTrampProgType> {
        [BpfTrampProgType::Fentry, BpfTrampProgType::Fexit, BpfTrampProgType::ModifyReturn].into_iter().find(|k| k.name() == s)
    }

    /// The `enum bpf_attach_type` a program of this kind is loaded and
    /// linked with (`BPF_TRACE_FENTRY`, `BPF_TRACE_FEXIT`, `BPF_MODIFY_RETURN`).
    pub fn attach_type(self) -> u32 {
        match self {
            BpfTrampProgType::Fentry => 24,
            BpfTrampProgType::Fexit => 25,
            BpfTrampProgType::ModifyReturn => 26,
        }
    }
}

/// Which kernel function a program's trampoline calls around it
/// (`bpf_trampoline_enter`/`bpf_trampoline_exit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProgEnter {
    /// `__bpf_prog_enter_recur`/`__bpf_prog_exit_recur`: non-sleepable
    /// tracing programs, which count recursion (`bpf_prog_check_recur`).
    #[default]
    Recur,
    /// `__bpf_prog_enter_sleepable_recur`/`__bpf_prog_exit_sleepable_recur`:
    /// sleepable tracing programs.
    SleepableRecur,
    /// `__bpf_prog_enter`/`__bpf_prog_exit`: no recursion check.
    Plain,
}

/// One attached program (`struct bpf_tramp_node`: its link's program and cookie).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampNode {
    /// `prog->bpf_func`: its JITed image.
    pub bpf_func: u64,
    /// The `struct bpf_prog *` itself (a heap pointer; see [`HeapPtr`]).
    pub prog: u64,
    /// `node->cookie` (`BPF_LINK_CREATE`'s `tracing.cookie`).
    pub cookie: u64,
    pub enter: ProgEnter,
}

/// `struct bpf_tramp_nodes[BPF_TRAMP_MAX]`: the programs by kind, in the
/// order they run: `bpf_trampoline_get_progs` walks each kind's hlist, to
/// which every attach adds at the head, so the last attached runs first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampNodes {
    pub fentry: Vec<TrampNode>,
    pub fexit: Vec<TrampNode>,
    pub fmod_ret: Vec<TrampNode>,
}

impl TrampNodes {
    pub fn kind(&self, k: BpfTrampProgType) -> &[TrampNode] {
        match k {
            BpfTrampProgType::Fentry => &self.fentry,
            BpfTrampProgType::Fexit => &self.fexit,
            BpfTrampProgType::ModifyReturn => &self.fmod_ret,
        }
    }

    pub fn push(&mut self, k: BpfTrampProgType, n: TrampNode) {
        match k {
            BpfTrampProgType::Fentry => self.fentry.push(n),
            BpfTrampProgType::Fexit => self.fexit.push(n),
            BpfTrampProgType::ModifyReturn => self.fmod_ret.push(n),
        }
    }
}

/// The `BPF_TRAMP_F_*` flags, one field each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrampFlags {
    pub restore_regs: bool,
    pub call_orig: bool,
    pub skip_frame: bool,
    pub ip_arg: bool,
    pub ret_fentry_ret: bool,
    pub orig_stack: bool,
    pub share_ipmodify: bool,
    pub tail_call_ctx: bool,
    pub indirect: bool,
}

impl TrampFlags {
    /// The flags `bpf_trampoline_update` gives a function's trampoline:
    /// with fexit or fmod_ret programs it calls the function
    /// (`CALL_ORIG | SKIP_FRAME`), else it restores the argument registers
    /// (`RESTORE_REGS`); `IP_ARG` when a program wants the address
    /// (`bpf_get_func_ip`). With `CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS`
    /// a function shared with another ftrace user that modifies its ip
    /// (`SHARE_IPMODIFY`) is called from its original stack
    /// (`ORIG_STACK | SKIP_FRAME`); otherwise, with
    /// `CONFIG_DYNAMIC_FTRACE_WITH_JMP`, the function jumps to the
    /// trampoline, which then has no frame of its own to skip.
    pub fn bpf_trampoline_update(nodes: &TrampNodes, ip_arg: bool, share_ipmodify: bool, tail_call_ctx: bool, ftrace_with_jmp: bool) -> TrampFlags {
        let mut f = TrampFlags { share_ipmodify, tail_call_ctx, ..TrampFlags::default() };
        if !nodes.fexit.is_empty() || !nodes.fmod_ret.is_empty() {
            f.call_orig = true;
            f.skip_frame = true;
        } else {
            f.restore_regs = true;
        }
        f.ip_arg = ip_arg;
        if f.call_orig {
            if f.share_ipmodify {
                f.orig_stack = true;
                f.skip_frame = true;
            } else if ftrace_with_jmp {
                f.skip_frame = false;
            }
        }
        f
    }

    /// `bpf_trampoline_use_jmp`: the traced function jumps to the
    /// trampoline instead of calling it (no return address of its own).
    pub fn use_jmp(&self) -> bool {
        self.call_orig && !self.skip_frame
    }
}

/// The kernel addresses a trampoline embeds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampAddrs {
    /// Where the image lives (`im->image`): pc-relative calls depend on it.
    pub image: u64,
    /// The traced function (`func_addr`).
    pub func: u64,
    /// x86-64 `is_endbr(func_addr)` (`x86_64::trampoline::is_endbr` of its
    /// first bytes): the function starts with `endbr64` or its sealed
    /// poison (IBT), which the call of the original function skips too.
    pub func_endbr: bool,
    /// The `struct bpf_tramp_image *` (a heap pointer).
    pub im: u64,
    pub bpf_prog_enter_recur: u64,
    pub bpf_prog_exit_recur: u64,
    pub bpf_prog_enter: u64,
    pub bpf_prog_exit: u64,
    pub bpf_prog_enter_sleepable_recur: u64,
    pub bpf_prog_exit_sleepable_recur: u64,
    pub bpf_tramp_enter: u64,
    pub bpf_tramp_exit: u64,
}

/// A heap pointer the image embeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeapPtr {
    /// The `struct bpf_tramp_image *` (`__bpf_tramp_enter`/`exit`'s argument).
    Im,
    /// The `struct bpf_prog *` of a program: its kind and index there.
    Prog(BpfTrampProgType, usize),
}

/// Where an image holds a heap pointer: `len` bytes at `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapRef {
    pub off: usize,
    pub len: usize,
    pub ptr: HeapPtr,
}

/// A trampoline as the arch JIT emits it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampImage {
    /// The code, without the allocation's tail.
    pub code: Vec<u8>,
    pub heap_refs: Vec<HeapRef>,
}

/// Why a trampoline could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrampError {
    /// `-ENOTSUPP`: more argument registers than `MAX_BPF_FUNC_ARGS`.
    TooManyArgs(usize),
    /// `-EINVAL`: a call target beyond a rel32.
    OutOfRange(u64),
    /// Something 7.3 emits that the model does not.
    Unsupported(&'static str),
}

impl std::fmt::Display for TrampError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrampError::TooManyArgs(n) => write!(f, "{n} argument registers, more than MAX_BPF_FUNC_ARGS"),
            TrampError::OutOfRange(a) => write!(f, "call target {a:#x} is out of range"),
            TrampError::Unsupported(w) => write!(f, "not modelled: {w}"),
        }
    }
}

impl std::error::Error for TrampError {}

/// `struct bpf_tramp_run_ctx` as the image's BTF lays it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunCtxLayout {
    /// `sizeof(struct bpf_tramp_run_ctx)`.
    pub size: u32,
    /// `offsetof(struct bpf_tramp_run_ctx, bpf_cookie)`.
    pub bpf_cookie: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_flags() {
        let node = TrampNode::default();
        let fentry = TrampNodes { fentry: vec![node.clone()], ..TrampNodes::default() };
        let f = TrampFlags::bpf_trampoline_update(&fentry, false, false, false, true);
        assert!(f.restore_regs && !f.call_orig && !f.use_jmp());
        let fexit = TrampNodes { fexit: vec![node], ..TrampNodes::default() };
        let f = TrampFlags::bpf_trampoline_update(&fexit, false, false, false, true);
        assert!(f.call_orig && !f.skip_frame && f.use_jmp());
        let f = TrampFlags::bpf_trampoline_update(&fexit, false, false, false, false);
        assert!(f.call_orig && f.skip_frame && !f.use_jmp());
    }
}
