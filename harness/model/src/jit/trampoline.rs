//! A BPF trampoline as `bpf_trampoline_update` (kernel/bpf/trampoline.c)
//! hands it to the arch JITs' `arch_prepare_bpf_trampoline`: the traced
//! function's `struct btf_func_model`, the attached programs per kind
//! (`struct bpf_tramp_nodes`, `tnodes[BPF_TRAMP_MAX]`), the
//! `BPF_TRAMP_F_*` flags and the kernel addresses the image embeds (the
//! traced function, the programs, the enter/exit helpers, the image
//! itself). Arch-neutral: each JIT's `arch_prepare_bpf_trampoline` takes
//! a [`BpfTrampoline`].
//!
//! Kernel addresses are inputs, never guessed: whoever compares an image
//! with one recorded from a kernel gives the addresses that kernel used
//! (or masks them).

use crate::prog_type::{bpf_attach_type as at, bpf_prog_type as pt};

pub use super::{BTF_FMODEL_ARENA_ARG, BTF_FMODEL_NULLABLE_ARG};

/// `MAX_BPF_FUNC_ARGS`
pub const MAX_BPF_FUNC_ARGS: usize = 12;

/// `BTF_FMODEL_STRUCT_ARG`: the argument is a struct passed by value.
pub const BTF_FMODEL_STRUCT_ARG: u8 = 1 << 0;
/// `BTF_FMODEL_SIGNED_ARG`: a signed integer argument.
pub const BTF_FMODEL_SIGNED_ARG: u8 = 1 << 1;

/// `struct btf_func_model`: how the traced function takes its arguments
/// and returns (`btf_distill_func_proto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BtfFuncModel {
    pub ret_size: u8,
    pub ret_flags: u8,
    pub nr_args: u8,
    pub arg_size: [u8; MAX_BPF_FUNC_ARGS],
    pub arg_flags: [u8; MAX_BPF_FUNC_ARGS],
}

impl BtfFuncModel {
    /// A model of `args` (size, `BTF_FMODEL_*` flags) returning `ret_size`
    /// bytes; `None` beyond `MAX_BPF_FUNC_ARGS` arguments.
    pub fn new(ret_size: u8, args: &[(u8, u8)]) -> Option<BtfFuncModel> {
        if args.len() > MAX_BPF_FUNC_ARGS {
            return None;
        }
        let mut m = BtfFuncModel { ret_size, nr_args: args.len() as u8, ..Default::default() };
        for (k, &(size, flags)) in args.iter().enumerate() {
            m.arg_size[k] = size;
            m.arg_flags[k] = flags;
        }
        Some(m)
    }

    /// The sizes of the `nr_args` arguments.
    pub fn args(&self) -> &[u8] {
        &self.arg_size[..(self.nr_args as usize).min(MAX_BPF_FUNC_ARGS)]
    }
}

/// `BPF_TRAMP_F_RESTORE_REGS`: restore the argument registers before
/// returning to the traced function (fentry programs only).
pub const BPF_TRAMP_F_RESTORE_REGS: u32 = 1 << 0;
/// `BPF_TRAMP_F_CALL_ORIG`: call the traced function from the trampoline.
pub const BPF_TRAMP_F_CALL_ORIG: u32 = 1 << 1;
/// `BPF_TRAMP_F_SKIP_FRAME`: return to the traced function's caller.
pub const BPF_TRAMP_F_SKIP_FRAME: u32 = 1 << 2;
/// `BPF_TRAMP_F_IP_ARG`: store the traced function's address for
/// `bpf_get_func_ip`.
pub const BPF_TRAMP_F_IP_ARG: u32 = 1 << 3;
/// `BPF_TRAMP_F_RET_FENTRY_RET`: return what the fentry program returned.
pub const BPF_TRAMP_F_RET_FENTRY_RET: u32 = 1 << 4;
/// `BPF_TRAMP_F_ORIG_STACK`: the traced function's return address is on
/// the stack (ftrace's IPMODIFY sharing).
pub const BPF_TRAMP_F_ORIG_STACK: u32 = 1 << 5;
/// `BPF_TRAMP_F_SHARE_IPMODIFY`
pub const BPF_TRAMP_F_SHARE_IPMODIFY: u32 = 1 << 6;
/// `BPF_TRAMP_F_TAIL_CALL_CTX`
pub const BPF_TRAMP_F_TAIL_CALL_CTX: u32 = 1 << 7;
/// `BPF_TRAMP_F_INDIRECT`: a struct_ops trampoline called through a
/// function pointer.
pub const BPF_TRAMP_F_INDIRECT: u32 = 1 << 8;

/// `BPF_TRAMP_COOKIE_INDEX_SHIFT`: where the function metadata word keeps
/// an fsession program's cookie slot (in 8-byte slots below the args).
pub const BPF_TRAMP_COOKIE_INDEX_SHIFT: u32 = 8;
/// `BPF_TRAMP_IS_RETURN_SHIFT`: the metadata bit fexit-side session
/// programs see set.
pub const BPF_TRAMP_IS_RETURN_SHIFT: u32 = 63;

/// `BPF_MAX_TRAMP_LINKS` per arch.
pub fn bpf_max_tramp_links(arch: crate::target::Arch) -> usize {
    use crate::target::Arch;
    match arch {
        Arch::X86_64 => 36,
        Arch::Arm64 => 37,
        _ => 38,
    }
}

/// `sizeof(struct bpf_tramp_run_ctx)`: the empty `bpf_run_ctx`, the cookie
/// and the saved run ctx pointer.
pub const SIZEOF_BPF_TRAMP_RUN_CTX: u32 = 16;
/// `offsetof(struct bpf_tramp_run_ctx, bpf_cookie)`
pub const OFFSETOF_BPF_TRAMP_RUN_CTX_BPF_COOKIE: u32 = 0;

/// One attached program (`struct bpf_tramp_node` and what the JITs read of
/// its link and program).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BpfTrampNode {
    /// The `struct bpf_prog *` (a kernel address).
    pub prog: u64,
    /// `prog->bpf_func`: its image.
    pub bpf_func: u64,
    /// `prog->insnsi` of a program the interpreter runs (`!prog->jited`):
    /// the trampoline passes it as the second argument.
    pub insnsi: Option<u64>,
    /// `node->cookie` (the link's `bpf_cookie`).
    pub cookie: u64,
    /// `resolve_prog_type(prog)`, `prog->expected_attach_type`,
    /// `prog->sleepable`, `prog->aux->jits_use_priv_stack`: they choose the
    /// enter/exit helpers ([`bpf_trampoline_enter`]).
    pub prog_type: u32,
    pub expected_attach_type: u32,
    pub sleepable: bool,
    pub jits_use_priv_stack: bool,
    /// `prog->call_session_cookie`: an fsession program that calls
    /// `bpf_session_cookie` gets a stack slot.
    pub call_session_cookie: bool,
    /// `link->type == BPF_LINK_TYPE_STRUCT_OPS` (`is_struct_ops_tramp`).
    pub struct_ops_link: bool,
    /// `prog->call_get_func_ip`: the trampoline gets `BPF_TRAMP_F_IP_ARG`.
    pub call_get_func_ip: bool,
    /// `kern_vm_start` of the program's arena (0: none); only a struct_ops
    /// trampoline converts `__arena` arguments against it.
    pub arena_kern_vm_start: u64,
}

/// `enum bpf_tramp_prog_type`: the lists of [`BpfTrampNodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BpfTrampProgType {
    Fentry,
    Fexit,
    ModifyReturn,
}

/// `tnodes[BPF_TRAMP_FENTRY]`, `[BPF_TRAMP_FEXIT]` and
/// `[BPF_TRAMP_MODIFY_RETURN]`, each in the order the trampoline holds
/// them (`tr->progs_hlist[kind]`: the most recently linked first). An
/// fsession program is in `fentry` and again, as its link's fexit node,
/// in `fexit`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BpfTrampNodes {
    pub fentry: Vec<BpfTrampNode>,
    pub fexit: Vec<BpfTrampNode>,
    pub fmod_ret: Vec<BpfTrampNode>,
}

impl BpfTrampNodes {
    /// `is_struct_ops_tramp`
    pub fn is_struct_ops_tramp(&self) -> bool {
        self.fentry.len() == 1 && self.fentry[0].struct_ops_link
    }

    /// `bpf_fsession_cnt`
    pub fn bpf_fsession_cnt(&self) -> usize {
        self.fentry.iter().filter(|n| matches!(n.expected_attach_type, at::TRACE_FSESSION | at::TRACE_FSESSION_MULTI)).count()
    }

    /// `bpf_fsession_cookie_cnt`
    pub fn bpf_fsession_cookie_cnt(&self) -> usize {
        self.fentry.iter().filter(|n| n.call_session_cookie).count()
    }

    /// The list of a kind.
    pub fn kind(&self, kind: BpfTrampProgType) -> &[BpfTrampNode] {
        match kind {
            BpfTrampProgType::Fentry => &self.fentry,
            BpfTrampProgType::Fexit => &self.fexit,
            BpfTrampProgType::ModifyReturn => &self.fmod_ret,
        }
    }

    /// The programs of every kind (`total` of `bpf_trampoline_get_progs`).
    pub fn total(&self) -> usize {
        self.fentry.len() + self.fexit.len() + self.fmod_ret.len()
    }
}

/// The enter/exit helper pair a program runs between
/// (`bpf_trampoline_enter`/`bpf_trampoline_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BpfProgEnter {
    /// `__bpf_prog_enter_recur` / `__bpf_prog_exit_recur`
    Recur,
    /// `__bpf_prog_enter_sleepable_recur` / `__bpf_prog_exit_sleepable_recur`
    SleepableRecur,
    /// `__bpf_prog_enter_lsm_cgroup` / `__bpf_prog_exit_lsm_cgroup`
    LsmCgroup,
    /// `__bpf_prog_enter` / `__bpf_prog_exit`
    Plain,
    /// `__bpf_prog_enter_sleepable` / `__bpf_prog_exit_sleepable`
    Sleepable,
}

impl BpfProgEnter {
    /// The kernel symbols of the pair.
    pub fn symbols(self) -> (&'static str, &'static str) {
        match self {
            BpfProgEnter::Recur => ("__bpf_prog_enter_recur", "__bpf_prog_exit_recur"),
            BpfProgEnter::SleepableRecur => ("__bpf_prog_enter_sleepable_recur", "__bpf_prog_exit_sleepable_recur"),
            BpfProgEnter::LsmCgroup => ("__bpf_prog_enter_lsm_cgroup", "__bpf_prog_exit_lsm_cgroup"),
            BpfProgEnter::Plain => ("__bpf_prog_enter", "__bpf_prog_exit"),
            BpfProgEnter::Sleepable => ("__bpf_prog_enter_sleepable", "__bpf_prog_exit_sleepable"),
        }
    }
}

/// `bpf_prog_check_recur` (bpf_verifier.h): programs that must not recurse
/// run under the recursion-checking helpers.
pub fn bpf_prog_check_recur(node: &BpfTrampNode) -> bool {
    match node.prog_type {
        pt::TRACING => node.expected_attach_type != at::TRACE_ITER,
        pt::STRUCT_OPS => node.jits_use_priv_stack,
        pt::LSM | pt::SYSCALL => false,
        _ => true,
    }
}

/// `bpf_trampoline_enter` and `bpf_trampoline_exit`: which helper pair the
/// trampoline calls around `node`'s program.
pub fn bpf_trampoline_enter(node: &BpfTrampNode) -> BpfProgEnter {
    if bpf_prog_check_recur(node) {
        return if node.sleepable { BpfProgEnter::SleepableRecur } else { BpfProgEnter::Recur };
    }
    if node.prog_type == pt::LSM && node.expected_attach_type == at::LSM_CGROUP {
        return BpfProgEnter::LsmCgroup;
    }
    if node.sleepable { BpfProgEnter::Sleepable } else { BpfProgEnter::Plain }
}

/// The kernel addresses of the functions a trampoline calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrampKsyms {
    pub bpf_prog_enter_recur: u64,
    pub bpf_prog_exit_recur: u64,
    pub bpf_prog_enter_sleepable_recur: u64,
    pub bpf_prog_exit_sleepable_recur: u64,
    pub bpf_prog_enter_lsm_cgroup: u64,
    pub bpf_prog_exit_lsm_cgroup: u64,
    pub bpf_prog_enter: u64,
    pub bpf_prog_exit: u64,
    pub bpf_prog_enter_sleepable: u64,
    pub bpf_prog_exit_sleepable: u64,
    /// `__bpf_tramp_enter` / `__bpf_tramp_exit` (around the call of the
    /// traced function).
    pub bpf_tramp_enter: u64,
    pub bpf_tramp_exit: u64,
}

impl TrampKsyms {
    /// The addresses from a `/proc/kallsyms` text (`ADDR TYPE NAME` lines);
    /// a symbol it lacks stays 0.
    pub fn from_kallsyms(text: &str) -> TrampKsyms {
        let mut k = TrampKsyms::default();
        for line in text.lines() {
            let mut f = line.split_whitespace();
            let (Some(addr), Some(_), Some(name)) = (f.next(), f.next(), f.next()) else { continue };
            let Ok(addr) = u64::from_str_radix(addr, 16) else { continue };
            k.set(name, addr);
        }
        k
    }

    /// Sets the address of the function `name`; false for a name that is
    /// none of them.
    pub fn set(&mut self, name: &str, addr: u64) -> bool {
        match self.slot(name) {
            Some(slot) => {
                *slot = addr;
                true
            }
            None => false,
        }
    }

    fn slot(&mut self, name: &str) -> Option<&mut u64> {
        Some(match name {
            "__bpf_prog_enter_recur" => &mut self.bpf_prog_enter_recur,
            "__bpf_prog_exit_recur" => &mut self.bpf_prog_exit_recur,
            "__bpf_prog_enter_sleepable_recur" => &mut self.bpf_prog_enter_sleepable_recur,
            "__bpf_prog_exit_sleepable_recur" => &mut self.bpf_prog_exit_sleepable_recur,
            "__bpf_prog_enter_lsm_cgroup" => &mut self.bpf_prog_enter_lsm_cgroup,
            "__bpf_prog_exit_lsm_cgroup" => &mut self.bpf_prog_exit_lsm_cgroup,
            "__bpf_prog_enter" => &mut self.bpf_prog_enter,
            "__bpf_prog_exit" => &mut self.bpf_prog_exit,
            "__bpf_prog_enter_sleepable" => &mut self.bpf_prog_enter_sleepable,
            "__bpf_prog_exit_sleepable" => &mut self.bpf_prog_exit_sleepable,
            "__bpf_tramp_enter" => &mut self.bpf_tramp_enter,
            "__bpf_tramp_exit" => &mut self.bpf_tramp_exit,
            _ => return None,
        })
    }

    /// The (enter, exit) addresses of a helper pair.
    pub fn pair(&self, kind: BpfProgEnter) -> (u64, u64) {
        match kind {
            BpfProgEnter::Recur => (self.bpf_prog_enter_recur, self.bpf_prog_exit_recur),
            BpfProgEnter::SleepableRecur => (self.bpf_prog_enter_sleepable_recur, self.bpf_prog_exit_sleepable_recur),
            BpfProgEnter::LsmCgroup => (self.bpf_prog_enter_lsm_cgroup, self.bpf_prog_exit_lsm_cgroup),
            BpfProgEnter::Plain => (self.bpf_prog_enter, self.bpf_prog_exit),
            BpfProgEnter::Sleepable => (self.bpf_prog_enter_sleepable, self.bpf_prog_exit_sleepable),
        }
    }
}

/// Everything `arch_prepare_bpf_trampoline` is called with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BpfTrampoline {
    /// `tr->func.model`
    pub model: BtfFuncModel,
    /// `tr->flags` as `bpf_trampoline_update` leaves them
    /// ([`bpf_trampoline_update_flags`]).
    pub flags: u32,
    pub nodes: BpfTrampNodes,
    /// `tr->func.addr`: the traced function (or, for struct_ops, the
    /// stub whose CFI hash the trampoline carries).
    pub func_addr: u64,
    /// `im->image`: where the image lives.
    pub image: u64,
    /// The `struct bpf_tramp_image *` (`__bpf_tramp_enter`'s argument);
    /// 0 for a struct_ops trampoline, which has none.
    pub im: u64,
    pub ksyms: TrampKsyms,
}

/// The flags `bpf_trampoline_update` gives a trampoline with these
/// programs, from the flags it had (`BPF_TRAMP_F_SHARE_IPMODIFY` and
/// `BPF_TRAMP_F_TAIL_CALL_CTX` survive): `ftrace_with_jmp` is
/// `CONFIG_DYNAMIC_FTRACE_WITH_JMP` (the Debian 7.3 x86-64 kernel has it,
/// arm64 does not).
pub fn bpf_trampoline_update_flags(nodes: &BpfTrampNodes, tr_flags: u32, ftrace_with_jmp: bool) -> u32 {
    let mut flags = tr_flags & (BPF_TRAMP_F_SHARE_IPMODIFY | BPF_TRAMP_F_TAIL_CALL_CTX);
    if !nodes.fexit.is_empty() || !nodes.fmod_ret.is_empty() {
        flags |= BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME;
    } else {
        flags |= BPF_TRAMP_F_RESTORE_REGS;
    }
    let all = nodes.fentry.iter().chain(&nodes.fexit).chain(&nodes.fmod_ret);
    if all.clone().any(|n| n.call_get_func_ip) {
        flags |= BPF_TRAMP_F_IP_ARG;
    }
    if flags & BPF_TRAMP_F_CALL_ORIG != 0 {
        if flags & BPF_TRAMP_F_SHARE_IPMODIFY != 0 {
            flags |= BPF_TRAMP_F_ORIG_STACK | BPF_TRAMP_F_SKIP_FRAME;
        } else if ftrace_with_jmp {
            flags &= !BPF_TRAMP_F_SKIP_FRAME;
        }
    }
    flags
}

/// `bpf_tramp_arena_base`: the arena base a struct_ops trampoline converts
/// `__arena` arguments against, 0 when it converts none.
pub fn bpf_tramp_arena_base(m: &BtfFuncModel, nodes: &BpfTrampNodes, flags: u32) -> u64 {
    if flags & BPF_TRAMP_F_INDIRECT == 0 || nodes.fentry.len() != 1 {
        return 0;
    }
    if !m.arg_flags[..m.args().len()].iter().any(|f| f & BTF_FMODEL_ARENA_ARG != 0) {
        return 0;
    }
    nodes.fentry[0].arena_kern_vm_start
}

/// What `arch_prepare_bpf_trampoline` leaves in the image.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrampolineImage {
    /// The whole image, `arch_bpf_trampoline_size` bytes (`im->size`,
    /// what the image's ksym spans): the code, then the fill the arch puts
    /// in the rest (the final pass can emit less than the sizing pass).
    pub image: Vec<u8>,
    /// The bytes of code (`arch_prepare_bpf_trampoline`'s return value).
    pub len: usize,
    /// Per program called, in image order, the nop before its call and
    /// where its skip jumps (`bpf_tramp_image_add_skip`), as offsets into
    /// the image; none without a `struct bpf_tramp_image` (struct_ops).
    pub skips: Vec<BpfTrampSkip>,
    /// Where the code embeds heap pointers, which no recording can name:
    /// a comparison masks or relocates them.
    pub heap_refs: Vec<HeapRef>,
}

/// A heap pointer a trampoline embeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeapPtr {
    /// The `struct bpf_tramp_image *` (`__bpf_tramp_enter`/`_exit`'s argument).
    Im,
    /// The `struct bpf_prog *` of a program: its list and index there.
    Prog(BpfTrampProgType, usize),
}

/// `len` bytes of code at `off` that load a heap pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapRef {
    pub off: usize,
    pub len: usize,
    pub ptr: HeapPtr,
}

/// `struct bpf_tramp_skip`, with image offsets for the addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BpfTrampSkip {
    pub prog: u64,
    pub nop: usize,
    pub target: usize,
}

/// Why a trampoline cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrampolineError {
    /// More programs than `BPF_MAX_TRAMP_LINKS` (`-E2BIG`).
    TooManyLinks(usize),
    /// More than `MAX_BPF_FUNC_ARGS` arguments, or an argument the arch
    /// cannot pass (`-ENOTSUPP` / `-EINVAL`).
    Args(&'static str),
    /// The image is larger than `PAGE_SIZE` (`-E2BIG`).
    TooBig(usize),
    /// An operand no instruction encodes (`validate_code`, `-EINVAL`).
    Unencodable,
}

impl std::fmt::Display for TrampolineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrampolineError::TooManyLinks(n) => write!(f, "{n} programs exceed BPF_MAX_TRAMP_LINKS"),
            TrampolineError::Args(why) => write!(f, "arguments: {why}"),
            TrampolineError::TooBig(n) => write!(f, "a {n}-byte trampoline exceeds PAGE_SIZE"),
            TrampolineError::Unencodable => write!(f, "an operand cannot be encoded (AARCH64_BREAK_FAULT)"),
        }
    }
}

impl std::error::Error for TrampolineError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(prog_type: u32, eat: u32) -> BpfTrampNode {
        BpfTrampNode { prog_type, expected_attach_type: eat, ..Default::default() }
    }

    #[test]
    fn enter_helpers_follow_bpf_prog_check_recur() {
        assert_eq!(bpf_trampoline_enter(&node(pt::TRACING, at::TRACE_FENTRY)), BpfProgEnter::Recur);
        assert_eq!(bpf_trampoline_enter(&BpfTrampNode { sleepable: true, ..node(pt::TRACING, at::TRACE_FEXIT) }), BpfProgEnter::SleepableRecur);
        assert_eq!(bpf_trampoline_enter(&node(pt::TRACING, at::TRACE_ITER)), BpfProgEnter::Plain);
        assert_eq!(bpf_trampoline_enter(&node(pt::LSM, at::LSM_CGROUP)), BpfProgEnter::LsmCgroup);
        assert_eq!(bpf_trampoline_enter(&node(pt::LSM, at::LSM_MAC)), BpfProgEnter::Plain);
        assert_eq!(bpf_trampoline_enter(&node(pt::STRUCT_OPS, 0)), BpfProgEnter::Plain);
        assert_eq!(bpf_trampoline_enter(&BpfTrampNode { jits_use_priv_stack: true, ..node(pt::STRUCT_OPS, 0) }), BpfProgEnter::Recur);
        assert_eq!(bpf_trampoline_enter(&node(pt::EXT, 0)), BpfProgEnter::Recur);
    }

    #[test]
    fn update_flags() {
        let fentry = BpfTrampNodes { fentry: vec![node(pt::TRACING, at::TRACE_FENTRY)], ..Default::default() };
        assert_eq!(bpf_trampoline_update_flags(&fentry, 0, false), BPF_TRAMP_F_RESTORE_REGS);
        let fexit = BpfTrampNodes { fexit: vec![BpfTrampNode { call_get_func_ip: true, ..node(pt::TRACING, at::TRACE_FEXIT) }], ..Default::default() };
        assert_eq!(bpf_trampoline_update_flags(&fexit, 0, false), BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME | BPF_TRAMP_F_IP_ARG);
        assert_eq!(bpf_trampoline_update_flags(&fexit, 0, true), BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_IP_ARG);
        assert_eq!(
            bpf_trampoline_update_flags(&fexit, BPF_TRAMP_F_SHARE_IPMODIFY | BPF_TRAMP_F_RET_FENTRY_RET, true),
            BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_IP_ARG | BPF_TRAMP_F_SHARE_IPMODIFY | BPF_TRAMP_F_ORIG_STACK | BPF_TRAMP_F_SKIP_FRAME
        );
    }

    #[test]
    fn ksyms_from_kallsyms_text() {
        let k = TrampKsyms::from_kallsyms("ffff8000803b69a0 t __bpf_prog_enter_recur\nffff8000803b79c0 T __bpf_tramp_enter\nbad line\n");
        assert_eq!(k.pair(BpfProgEnter::Recur), (0xffff8000803b69a0, 0));
        assert_eq!(k.bpf_tramp_enter, 0xffff8000803b79c0);
    }
}
