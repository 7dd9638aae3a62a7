//! `bpf_convert_ctx_accesses` (kernel/bpf/fixups.c): loads and stores
//! through ctx (and the other pointer types the kernel converts) rewritten
//! to the real kernel structures, narrow ctx loads widened and masked,
//! Spectre v4 barriers around insns the main pass marked, probing loads
//! for pointers that may fault, and the prologue of the prog type.
//!
//! The pass reads the program as the main pass left it and queues one
//! patch per rewritten insn on the patch engine: the kernel patches the
//! same insn up to three times (barrier before, conversion, barrier after)
//! and a single patch of their concatenation lands identically. The
//! prologue joins insn 0's patch; `adjust_jmp_off` then sends back-edges
//! to insn 0 past it, as the kernel does.
//!
//! Modelled: `__sk_buff` (socket filter, cgroup skb, tc, lwt, sk_skb,
//! flow dissector), `xdp_md` (without devmap's `egress_ifindex`),
//! `bpf_sock` (sockets and cgroup_sock ctx), `bpf_tcp_sock`, `sk_msg_md`,
//! `bpf_sk_lookup`, `bpf_perf_event_data`, `bpf_sock_ops`,
//! `bpf_sock_addr`, `bpf_sockopt`, `sk_reuseport_md`, `bpf_xdp_sock`; the
//! unclone prologue of tc, lwt_xmit and sk_skb; arena and fault-prone
//! pointers. The structure offsets are the Debian 7.3 kernels'
//! ([`crate::kernel_layout`]). Anything else (sysctl, struct_ops
//! epilogues, other arches' layouts) is `Fail::Unsupported`.

mod cgroup;
mod emit;
mod skb;
mod sock;
mod sock_ops;
mod tracing;
mod xdp;

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::patch::{self, Patches};
use crate::kernel_layout::{self, KernelLayout};
use crate::verifier::Fail;
use crate::verifier::ctx::pt;
use crate::verifier::env::VerifierEnv;
use crate::verifier::reg::*;

use crate::verifier::sock::bpf_sock_ctx_field_size;

/// `enum bpf_access_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// What a conversion callback sees besides the insn: the kernel's
/// structure layout and the program's properties it depends on.
pub struct Conv<'a> {
    pub layout: &'a KernelLayout,
    /// The arch the uapi views are laid out for (`bpf_user_pt_regs_t`).
    pub arch: crate::target::Arch,
    pub prog_type: u32,
    /// `prog->tstamp_type_access`: the program reads `__sk_buff->tstamp_type`.
    pub tstamp_type_access: bool,
}

impl Conv<'_> {
    fn unsupported(&self, what: &str) -> Fail {
        Fail::unsupported("bpf_convert_ctx_accesses", &format!("{} (prog type {}) is not modelled yet", what, prog_type_name(self.prog_type)))
    }
}

/// A conversion: the insns, and `target_size` (the size of the kernel
/// field read, 0 where the callback does not say).
pub type Converted = Result<(Vec<Insn>, u32), Fail>;

type ConvertCtxAccess = fn(&Conv<'_>, Access, &Insn) -> Converted;

fn prog_type_name(t: u32) -> String {
    crate::prog_type::PROG_TYPES.iter().find(|(n, _)| *n == t).map_or_else(|| t.to_string(), |(_, name)| name.to_string())
}

/// `ops->convert_ctx_access` of the prog type: `Ok(None)` for types whose
/// ctx is accessed as it is (no callback).
fn ops_convert_ctx_access(prog_type: u32) -> Result<Option<ConvertCtxAccess>, String> {
    Ok(Some(match prog_type {
        pt::SOCKET_FILTER | pt::CGROUP_SKB | pt::LWT_IN | pt::LWT_OUT | pt::LWT_XMIT | pt::LWT_SEG6LOCAL => skb::bpf_convert_ctx_access,
        pt::SCHED_CLS | pt::SCHED_ACT => skb::tc_cls_act_convert_ctx_access,
        pt::XDP => xdp::xdp_convert_ctx_access,
        pt::SK_LOOKUP => sock::sk_lookup_convert_ctx_access,
        pt::CGROUP_SOCK => sock::bpf_sock_convert_ctx_access,
        pt::PERF_EVENT => tracing::pe_prog_convert_ctx_access,
        pt::SK_SKB => skb::sk_skb_convert_ctx_access,
        pt::SK_MSG => sock::sk_msg_convert_ctx_access,
        pt::SOCK_OPS => sock_ops::sock_ops_convert_ctx_access,
        pt::FLOW_DISSECTOR => skb::flow_dissector_convert_ctx_access,
        pt::CGROUP_SOCK_ADDR => cgroup::sock_addr_convert_ctx_access,
        pt::CGROUP_SOCKOPT => cgroup::cg_sockopt_convert_ctx_access,
        pt::SK_REUSEPORT => sock::sk_reuseport_convert_ctx_access,
        pt::KPROBE
        | pt::TRACEPOINT
        | pt::RAW_TRACEPOINT
        | pt::RAW_TRACEPOINT_WRITABLE
        | pt::TRACING
        | pt::LSM
        | pt::CGROUP_DEVICE
        | pt::SYSCALL
        | pt::NETFILTER => {
            return Ok(None);
        }
        // cgroup sysctl, and the types whose ops
        // come from elsewhere (ext, struct_ops)
        _ => return Err(format!("convert_ctx_access of prog type {}", prog_type_name(prog_type))),
    }))
}

/// `bpf_ctx_off_adjust_machine` on a 64-bit machine.
fn bpf_ctx_off_adjust_machine(size: u32) -> u32 {
    if size > 8 && size.is_multiple_of(8) { 8 } else { size }
}

/// `bpf_ctx_narrow_access_offset`, little endian.
fn bpf_ctx_narrow_access_offset(off: u32, size_default: u32) -> u32 {
    off & (size_default - 1)
}

/// `bpf_may_fault_on_deref`.
fn bpf_may_fault_on_deref(t: RegType) -> bool {
    t == PTR_TO_BTF_ID || t & PTR_UNTRUSTED != 0
}

/// `BPF_LDST_BYTES`.
fn ldst_bytes(insn: &Insn) -> u32 {
    match insn.code & 0x18 {
        BPF_B => 1,
        BPF_H => 2,
        BPF_W => 4,
        _ => 8,
    }
}

/// The access an insn makes, as the pass classifies it.
enum Kind {
    Read,
    Write,
    /// An atomic on an arena pointer: becomes `BPF_PROBE_ATOMIC`.
    ArenaAtomic,
    Other,
}

/// The opcodes [`classify`] may find an access in (an atomic one only
/// through an arena pointer): the pass looks no further at the others.
const LOAD_STORE_CODES: [bool; 256] = {
    let mut t = [false; 256];
    let mut code = 0;
    while code < 256 {
        let c = code as u8;
        let (class, mode) = (c & 0x07, c & 0xe0);
        t[code] = match class {
            BPF_LDX => mode == BPF_MEM || (mode == BPF_MEMSX && c & 0x18 != BPF_DW),
            BPF_ST => mode == BPF_MEM,
            BPF_STX => mode == BPF_MEM || mode == BPF_ATOMIC,
            _ => false,
        };
        code += 1;
    }
    t
};

fn classify(insn: &Insn, ptr_type: RegType) -> Kind {
    let (class, mode) = (insn.code & 0x07, insn.code & 0xe0);
    match class {
        BPF_LDX if mode == BPF_MEM || (mode == BPF_MEMSX && insn.code & 0x18 != BPF_DW) => Kind::Read,
        BPF_STX | BPF_ST if mode == BPF_MEM => Kind::Write,
        BPF_STX if mode == BPF_ATOMIC && ptr_type == PTR_TO_ARENA => Kind::ArenaAtomic,
        _ => Kind::Other,
    }
}

/// The pass.
pub fn bpf_convert_ctx_accesses(env: &mut VerifierEnv<'_>) -> Result<(), Fail> {
    let prog_type = env.input.prog_type.0;
    // riscv64, s390x and loongarch64 have no recorded 7.3 layouts: a program
    // none of whose accesses converts to a kernel structure (raw_tp args,
    // stack, maps) is rewritten all the same; x86_64's layout stands in
    // unread
    let layout = match kernel_layout::for_arch(env.input.arch) {
        Some(l) => l,
        None if !reads_kernel_layout(env) => kernel_layout::for_arch(crate::target::Arch::X86_64).expect("x86_64 layout"),
        None => {
            return Err(Fail::unsupported("bpf_convert_ctx_accesses", &format!("the 7.3 structure layout of {} is not known", env.input.arch)));
        }
    };
    if env.pass_aux.len() != env.insns.len() {
        return Err(Fail::unsupported("bpf_convert_ctx_accesses", "the main pass left no per-insn data"));
    }
    let cx = Conv { layout, arch: env.input.arch, prog_type, tstamp_type_access: tstamp_type_access(env) };
    let mut patches = Patches::new();

    // gen_epilogue exists for struct_ops only, which the verifier model
    // does not load; gen_prologue: the unclone prologue of tc, lwt_xmit
    // and sk_skb when the program writes packet data (bpf_noop_prologue
    // elsewhere, or none)
    let unclone = |drop| Some(skb::bpf_unclone_prologue(&cx, env.insns[0], drop));
    let prologue = match prog_type {
        pt::SCHED_CLS | pt::SCHED_ACT | pt::LWT_XMIT if seen_direct_write(env) => unclone(crate::uapi::TC_ACT_SHOT),
        pt::SK_SKB if seen_direct_write(env) => unclone(skb::SK_DROP),
        // cg_sockopt_get_prologue: nothing
        pt::SCHED_CLS | pt::SCHED_ACT | pt::LWT_XMIT | pt::SK_SKB | pt::SK_MSG | pt::XDP | pt::CGROUP_SOCKOPT => None,
        _ if seen_direct_write(env) => {
            return Err(cx.unsupported("the prologue for direct packet writes"));
        }
        _ => None,
    };
    let prologue_len = prologue.as_ref().map_or(0, |p| p.len() - 1);

    // one read-only look per insn, as the kernel's loop `continue`s on
    // what it does not convert: a patch (and its Vec) only for the insns
    // that change
    let mut in_place: Vec<(usize, Insn)> = Vec::new();
    let has_prologue = prologue.is_some();
    let candidates =
        env.insns.iter().zip(&env.pass_aux).enumerate().filter(|&(i, (insn, a))| LOAD_STORE_CODES[insn.code as usize] || a.nospec || (i == 0 && has_prologue));
    for (i, (&insn, a)) in candidates {
        let kind = classify(&insn, a.ptr_type);
        let with_prologue = i == 0 && has_prologue;
        if matches!(kind, Kind::Other) && !a.nospec && !with_prologue {
            continue;
        }
        let converted: Option<Vec<Insn>> = match kind {
            Kind::Other => None,
            Kind::ArenaAtomic => Some(vec![Insn { code: BPF_STX | BPF_PROBE_ATOMIC | (insn.code & 0x18), ..insn }]),
            Kind::Write if a.nospec_result => Some(vec![insn, emit::st_nospec()]),
            kind => {
                let ty = if matches!(kind, Kind::Read) { Access::Read } else { Access::Write };
                convert_one(&cx, env, i, insn, ty)?
            }
        };
        // a load through a fault-prone pointer, and any access through an
        // arena pointer, only changes its mode (BPF_PROBE_MEM(SX),
        // BPF_PROBE_MEM32(SX), BPF_PROBE_ATOMIC): 7.3 rewrites the insn in
        // place, so its zext data (rnd_hi32 after a dead 32-bit def, a
        // cmpxchg's zero extension) stays what liveness gave it
        if let Some([probe]) = converted.as_deref()
            && !a.nospec
            && !with_prologue
            && (Insn { code: insn.code, ..*probe }) == insn
            && match probe.code & 0x07 {
                BPF_LDX => matches!(probe.code & 0xe0, BPF_PROBE_MEM | BPF_PROBE_MEMSX | BPF_PROBE_MEM32 | BPF_PROBE_MEM32SX),
                BPF_ST | BPF_STX => matches!(probe.code & 0xe0, BPF_PROBE_MEM32 | BPF_PROBE_ATOMIC),
                _ => false,
            }
        {
            in_place.push((i, *probe));
            continue;
        }
        if !a.nospec && !with_prologue {
            // the conversion alone (a load or store left as it is queues nothing)
            if let Some(body) = converted {
                patches.replace(i, body);
            }
            continue;
        }
        // barrier before, and the prologue, which ends with insn 0 as it
        // was: insn 0's own rewrite in its place
        let body = converted.unwrap_or_else(|| vec![insn]);
        let before = if with_prologue { prologue_len } else { 0 };
        let mut out = Vec::with_capacity(before + usize::from(a.nospec) + body.len());
        if let Some(p) = prologue.as_ref().filter(|_| with_prologue) {
            out.extend_from_slice(&p[..prologue_len]);
        }
        if a.nospec {
            out.push(emit::st_nospec());
        }
        out.extend(body);
        patches.replace(i, out);
    }
    for (i, probe) in in_place {
        env.insns[i] = probe;
    }
    patch::apply(env, patches)?;
    if prologue_len > 0 {
        super::patch::adjust_jmp_off(&mut env.insns, 0, prologue_len)?;
    }
    Ok(())
}

/// Whether some access converts through a kernel structure's layout (ctx
/// of a prog type with a `convert_ctx_access`, sockets) or the prologue
/// needs one.
fn reads_kernel_layout(env: &VerifierEnv<'_>) -> bool {
    let prog_type = env.input.prog_type.0;
    if seen_direct_write(env) || env.pass_aux.len() != env.insns.len() {
        return true;
    }
    env.insns.iter().zip(&env.pass_aux).any(|(insn, a)| {
        !matches!(classify(insn, a.ptr_type), Kind::Other)
            && match a.ptr_type {
                PTR_TO_CTX => !matches!(ops_convert_ctx_access(prog_type), Ok(None)),
                PTR_TO_SOCKET | PTR_TO_SOCK_COMMON | PTR_TO_TCP_SOCK | PTR_TO_XDP_SOCK => true,
                _ => false,
            }
    })
}

/// The rewrite of one load or store by the pointer type it goes through:
/// `None` when it stays as it is.
fn convert_one(cx: &Conv<'_>, env: &VerifierEnv<'_>, i: usize, insn: Insn, ty: Access) -> Result<Option<Vec<Insn>>, Fail> {
    let a = &env.pass_aux[i];
    let ptr_type = a.ptr_type;
    let (convert, ctx_field_size): (ConvertCtxAccess, u32) = match ptr_type {
        PTR_TO_CTX => match ops_convert_ctx_access(cx.prog_type) {
            Ok(Some(f)) => (f, a.ctx_field_size),
            Ok(None) => return Ok(None),
            Err(what) => return Err(cx.unsupported(&what)),
        },
        PTR_TO_SOCKET | PTR_TO_SOCK_COMMON => (sock::bpf_sock_convert_ctx_access, bpf_sock_ctx_field_size(insn.off, ldst_bytes(&insn))),
        PTR_TO_TCP_SOCK => (sock::bpf_tcp_sock_convert_ctx_access, 0),
        PTR_TO_XDP_SOCK => (xdp::bpf_xdp_sock_convert_ctx_access, 0),
        PTR_TO_ARENA => {
            // (both JITs take sign-extending arena loads:
            // `bpf_jit_supports_insn`)
            let mode = if insn.code & 0xe0 == BPF_MEMSX { BPF_PROBE_MEM32SX } else { BPF_PROBE_MEM32 };
            return Ok(Some(vec![Insn { code: (insn.code & 0x07) | mode | (insn.code & 0x18), ..insn }]));
        }
        t => {
            let mem_or_btf = matches!(base_type(t), PTR_TO_MEM | PTR_TO_BTF_ID);
            if mem_or_btf && bpf_may_fault_on_deref(t) && ty == Access::Read {
                let mode = if insn.code & 0xe0 == BPF_MEM { BPF_PROBE_MEM } else { BPF_PROBE_MEMSX };
                return Ok(Some(vec![Insn { code: BPF_LDX | mode | (insn.code & 0x18), ..insn }]));
            }
            if bpf_may_fault_on_deref(t) {
                return Err(cx.unsupported(&format!("insn {i}: a store through a fault prone pointer (a verifier bug in 7.3)")));
            }
            return Ok(None);
        }
    };

    let size = ldst_bytes(&insn);
    let mode = insn.code & 0xe0;
    let is_narrower_load = size < ctx_field_size;
    let size_default = bpf_ctx_off_adjust_machine(ctx_field_size);
    let off = insn.off as u16 as u32;
    let mut si = insn;
    if is_narrower_load {
        if ty == Access::Write {
            return Err(cx.unsupported(&format!("insn {i}: a narrow ctx store (a verifier bug in 7.3)")));
        }
        let size_code = match ctx_field_size {
            4 => BPF_W,
            8 => BPF_DW,
            _ => BPF_H,
        };
        si.off = (off & !(size_default - 1)) as u16 as i16;
        si.code = BPF_LDX | BPF_MEM | size_code;
    }
    let (mut out, target_size) = convert(cx, ty, &si)?;
    if out.is_empty() || (ctx_field_size != 0 && target_size == 0) {
        // 7.3's verifier_bug "error during ctx access conversion": the
        // model's validation and conversion disagree
        return Err(cx.unsupported(&format!("insn {i}: the conversion of a ctx field of size {ctx_field_size}")));
    }
    if is_narrower_load && size < target_size {
        let shift = (bpf_ctx_narrow_access_offset(off, size_default) * 8) as i32;
        let mask = ((1u64 << (size * 8)) - 1) as u32 as i32;
        if shift != 0 {
            let op = BPF_RSH;
            out.push(if ctx_field_size <= 4 { emit::alu32_imm(op, si.dst, shift) } else { emit::alu64_imm(op, si.dst, shift) });
        }
        out.push(emit::alu32_imm(BPF_AND, si.dst, mask));
    }
    if mode == BPF_MEMSX {
        out.push(Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, si.dst, si.dst, (size * 8) as i16, 0));
    }
    Ok(Some(out))
}

/// `prog->tstamp_type_access`: tc's `is_valid_access` sets it when the
/// program reads `__sk_buff->tstamp_type`.
fn tstamp_type_access(env: &VerifierEnv<'_>) -> bool {
    use crate::uapi::__sk_buff::TSTAMP_TYPE;
    matches!(env.input.prog_type.0, pt::SCHED_CLS | pt::SCHED_ACT)
        && env.insns.iter().zip(&env.pass_aux).any(|(insn, a)| a.ptr_type == PTR_TO_CTX && insn.code & 0x07 == BPF_LDX && insn.off == TSTAMP_TYPE)
}

/// `env->seen_direct_write`: the main pass accepted a store into packet
/// data (`may_access_direct_pkt_data` sets it), or a call of
/// `bpf_dynptr_slice_rdwr`, whose slice may be written.
fn seen_direct_write(env: &VerifierEnv<'_>) -> bool {
    env.insns.iter().zip(&env.pass_aux).any(|(insn, a)| {
        let pkt_store = matches!(insn.code & 0x07, BPF_ST | BPF_STX) && matches!(base_type(a.ptr_type), PTR_TO_PACKET | PTR_TO_PACKET_META);
        let rdwr_slice = insn.is_kfunc_call() && a.seen && env.kfunc_name(insn.imm) == Some("bpf_dynptr_slice_rdwr");
        pkt_store || rdwr_slice
    })
}
