//! The text of the 7.3 kernel's `kernel/bpf/disasm.c` (`print_bpf_insn`), and
//! the two forms built on it: the verifier log's `(xx) text` and the xlated
//! dump test_loader matches (`N: text`, see `disasm_helpers.c`).
//!
//! Where disasm.c indexes a string table with a value the table has no entry
//! for, the kernel's `vsnprintf` prints `(null)`; so do we.

use crate::helper_ids::helper_name;
use crate::insn::{Insn, op::*};

/// The hooks of `struct bpf_insn_cbs`: the caller may name calls and
/// ld_imm64 values. Both default to "no opinion", which is what disasm.c
/// does without callbacks.
pub trait InsnCallbacks {
    /// `cb_call`: a name for a call insn that is not a known helper.
    fn call_name(&self, _insn: &Insn) -> Option<String> {
        None
    }
    /// `cb_imm`: the text of an ld_imm64 value (already zeroed for pointers
    /// when pointer leaks are not allowed).
    fn imm_name(&self, _insn: &Insn, _full_imm: u64) -> Option<String> {
        None
    }
}

/// No callbacks at all.
pub struct NoCallbacks;
impl InsnCallbacks for NoCallbacks {}

/// The verifier log's callbacks: kfunc calls are named by a lookup of their
/// BTF id (`bpf_disasm_kfunc_name`), everything else as disasm.c does.
pub struct VerifierCallbacks<'a> {
    /// Kfunc name by (btf id, module fd index); `None` prints `<error>`.
    pub kfunc_name: &'a dyn Fn(i32, i16) -> Option<String>,
}

impl InsnCallbacks for VerifierCallbacks<'_> {
    fn call_name(&self, insn: &Insn) -> Option<String> {
        if insn.src != BPF_PSEUDO_KFUNC_CALL {
            return None;
        }
        Some((self.kfunc_name)(insn.imm, insn.off).unwrap_or_else(|| "<error>".to_string()))
    }
}

/// test_loader's callbacks (`disasm_helpers.c`): a bpf-to-bpf call prints its
/// pc-relative offset, which `jit_subprogs` keeps in `off` of the dumped insn.
pub struct XlatedCallbacks;
impl InsnCallbacks for XlatedCallbacks {
    fn call_name(&self, insn: &Insn) -> Option<String> {
        (insn.src == BPF_PSEUDO_CALL).then(|| format!("{:+}", insn.off))
    }
}

const ALU_STR: [Option<&str>; 16] = [
    Some("+="),
    Some("-="),
    Some("*="),
    Some("/="),
    Some("|="),
    Some("&="),
    Some("<<="),
    Some(">>="),
    Some("neg"),
    Some("%="),
    Some("^="),
    Some("="),
    Some("s>>="),
    Some("endian"),
    None,
    None,
];

const JMP_STR: [Option<&str>; 16] = [
    Some("jmp"),
    Some("=="),
    Some(">"),
    Some(">="),
    Some("&"),
    Some("!="),
    Some("s>"),
    Some("s>="),
    Some("call"),
    Some("exit"),
    Some("<"),
    Some("<="),
    Some("s<"),
    Some("s<="),
    None,
    None,
];

fn or_null(s: Option<&str>) -> &str {
    s.unwrap_or("(null)")
}

fn alu_str(op: u8) -> &'static str {
    or_null(ALU_STR[(op >> 4) as usize])
}

fn alu_sign_str(op: u8) -> &'static str {
    match op {
        BPF_DIV => "s/=",
        BPF_MOD => "s%=",
        _ => "(null)",
    }
}

fn atomic_alu_str(op: u8) -> &'static str {
    match op {
        BPF_ADD => "add",
        BPF_AND => "and",
        BPF_OR => "or",
        BPF_XOR => "xor",
        _ => "(null)",
    }
}

fn ldst_str(code: u8) -> &'static str {
    match size(code) {
        BPF_W => "u32",
        BPF_H => "u16",
        BPF_B => "u8",
        _ => "u64",
    }
}

fn ldsx_str(code: u8) -> &'static str {
    match size(code) {
        BPF_W => "s32",
        BPF_H => "s16",
        BPF_B => "s8",
        _ => "(null)",
    }
}

fn movsx_str(off: i16) -> &'static str {
    match off {
        8 => "(s8)",
        16 => "(s16)",
        32 => "(s32)",
        _ => "(null)",
    }
}

fn is_sdiv_smod(insn: &Insn) -> bool {
    matches!(op(insn.code), BPF_DIV | BPF_MOD) && insn.off == 1
}

fn is_movsx(insn: &Insn) -> bool {
    op(insn.code) == BPF_MOV && matches!(insn.off, 8 | 16 | 32)
}

/// The name disasm.c's `__func_get_name` gives a call.
fn func_get_name(cbs: &dyn InsnCallbacks, insn: &Insn, default: &str) -> String {
    if insn.src == 0
        && let Some(n) = helper_name(insn.imm)
    {
        return format!("bpf_{n}");
    }
    if let Some(n) = cbs.call_name(insn) {
        return n;
    }
    match insn.src {
        BPF_PSEUDO_CALL => format!("{:+}", insn.imm),
        BPF_PSEUDO_KFUNC_CALL => "kernel-function".to_string(),
        _ => default.to_string(),
    }
}

/// `print_bpf_insn`: the text of `insns[0]` with its `(xx) ` prefix. `next`
/// is the second slot of an ld_imm64 (zero when absent, which the kernel
/// never lets happen).
pub fn print_bpf_insn(cbs: &dyn InsnCallbacks, insn: &Insn, next: Option<&Insn>, allow_ptr_leaks: bool) -> String {
    let code = insn.code;
    let class = class(code);
    let (dst, src) = (insn.dst, insn.src);
    let w = |c: u8| if c == BPF_ALU || c == BPF_JMP32 { 'w' } else { 'r' };
    match class {
        BPF_ALU | BPF_ALU64 => {
            let r = w(class);
            if op(code) == BPF_END {
                if class == BPF_ALU64 {
                    format!("({code:02x}) r{dst} = bswap{} r{dst}", insn.imm)
                } else {
                    let e = if BPF_SRC_IS_BE(code) { "be" } else { "le" };
                    format!("({code:02x}) r{dst} = {e}{} r{dst}", insn.imm)
                }
            } else if op(code) == BPF_NEG {
                format!("({code:02x}) {r}{dst} = -{r}{dst}")
            } else if code == BPF_ALU64 | BPF_MOV | BPF_X && insn.off == BPF_ADDR_SPACE_CAST {
                let imm = insn.imm as u32;
                format!("({code:02x}) r{dst} = addr_space_cast(r{src}, {}, {})", imm >> 16, imm & 0xffff)
            } else if code == BPF_ALU64 | BPF_MOV | BPF_X && insn.off == BPF_ADDR_PERCPU {
                format!("({code:02x}) r{dst} = &(void __percpu *)(r{src})")
            } else {
                let opstr = if is_sdiv_smod(insn) { alu_sign_str(op(code)) } else { alu_str(op(code)) };
                if src_of(code) == BPF_X {
                    let sx = if is_movsx(insn) { movsx_str(insn.off) } else { "" };
                    format!("({code:02x}) {r}{dst} {opstr} {sx}{r}{src}")
                } else {
                    format!("({code:02x}) {r}{dst} {opstr} {}", insn.imm)
                }
            }
        }
        BPF_STX => {
            let m = mode(code);
            let probe = if m == BPF_PROBE_ATOMIC { "probe " } else { "" };
            let atomic = m == BPF_ATOMIC || m == BPF_PROBE_ATOMIC;
            let sz = ldst_str(code);
            let off = insn.off;
            let imm = insn.imm;
            let bits = if size(code) == BPF_DW { "64" } else { "" };
            let is_alu = |v: i32| v == BPF_ADD as i32 || v == BPF_AND as i32 || v == BPF_OR as i32 || v == BPF_XOR as i32;
            if m == BPF_MEM {
                format!("({code:02x}) *({sz} *)(r{dst} {off:+}) = r{src}")
            } else if atomic && is_alu(imm) {
                let o = alu_str(op(imm as u8));
                format!("({code:02x}) {probe}lock *({sz} *)(r{dst} {off:+}) {o} r{src}")
            } else if atomic && imm & BPF_FETCH != 0 && is_alu(imm & !BPF_FETCH) {
                let o = atomic_alu_str(op(imm as u8));
                format!("({code:02x}) {probe}r{src} = atomic{bits}_fetch_{o}(({sz} *)(r{dst} {off:+}), r{src})")
            } else if atomic && imm == BPF_CMPXCHG {
                format!("({code:02x}) {probe}r0 = atomic{bits}_cmpxchg(({sz} *)(r{dst} {off:+}), r0, r{src})")
            } else if atomic && imm == BPF_XCHG {
                format!("({code:02x}) {probe}r{src} = atomic{bits}_xchg(({sz} *)(r{dst} {off:+}), r{src})")
            } else if atomic && imm == BPF_LOAD_ACQ {
                format!("({code:02x}) {probe}r{dst} = load_acquire(({sz} *)(r{src} {off:+}))")
            } else if atomic && imm == BPF_STORE_REL {
                format!("({code:02x}) {probe}store_release(({sz} *)(r{dst} {off:+}), r{src})")
            } else {
                format!("BUG_{code:02x}")
            }
        }
        BPF_ST => {
            if mode(code) == BPF_MEM {
                format!("({code:02x}) *({} *)(r{dst} {:+}) = {}", ldst_str(code), insn.off, insn.imm)
            } else if mode(code) == BPF_NOSPEC {
                format!("({code:02x}) nospec")
            } else {
                format!("BUG_st_{code:02x}")
            }
        }
        BPF_LDX => {
            let m = mode(code);
            if (m != BPF_MEM && m != BPF_MEMSX) || (m == BPF_MEMSX && size(code) == BPF_DW) {
                return format!("BUG_ldx_{code:02x}");
            }
            let sz = if m == BPF_MEM { ldst_str(code) } else { ldsx_str(code) };
            format!("({code:02x}) r{dst} = *({sz} *)(r{src} {:+})", insn.off)
        }
        BPF_LD => {
            let m = mode(code);
            if m == BPF_ABS {
                format!("({code:02x}) r0 = *({} *)skb[{}]", ldst_str(code), insn.imm)
            } else if m == BPF_IND {
                format!("({code:02x}) r0 = *({} *)skb[r{src} + {}]", ldst_str(code), insn.imm)
            } else if m == BPF_IMM && size(code) == BPF_DW {
                let hi = next.map_or(0, |n| n.imm);
                let mut imm = ((hi as u32 as u64) << 32) | insn.imm as u32 as u64;
                let is_ptr = matches!(src, BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE | BPF_PSEUDO_MAP_IDX | BPF_PSEUDO_MAP_IDX_VALUE | BPF_PSEUDO_BTF_ID);
                if is_ptr && !allow_ptr_leaks {
                    imm = 0;
                }
                let text = cbs.imm_name(insn, imm).unwrap_or_else(|| format!("{imm:#x}"));
                format!("({code:02x}) r{dst} = {text}")
            } else {
                format!("BUG_ld_{code:02x}")
            }
        }
        _ => {
            // BPF_JMP / BPF_JMP32
            let opc = op(code);
            if opc == BPF_CALL {
                if src == BPF_PSEUDO_CALL {
                    format!("({code:02x}) call pc{}", func_get_name(cbs, insn, ""))
                } else {
                    format!("({code:02x}) call {}#{}", func_get_name(cbs, insn, "unknown"), insn.imm)
                }
            } else if code == BPF_JMP | BPF_JA {
                format!("({code:02x}) goto pc{:+}", insn.off)
            } else if code == BPF_JMP | BPF_JA | BPF_X {
                format!("({code:02x}) gotox r{dst}")
            } else if code == BPF_JMP | BPF_JCOND && src == BPF_MAY_GOTO {
                format!("({code:02x}) may_goto pc{:+}", insn.off)
            } else if code == BPF_JMP32 | BPF_JA {
                format!("({code:02x}) gotol pc{:+}", insn.imm)
            } else if code == BPF_JMP | BPF_EXIT {
                format!("({code:02x}) exit")
            } else {
                let r = w(class);
                let o = or_null(JMP_STR[(opc >> 4) as usize]);
                if src_of(code) == BPF_X {
                    format!("({code:02x}) if {r}{dst} {o} {r}{src} goto pc{:+}", insn.off)
                } else {
                    format!("({code:02x}) if {r}{dst} {o} {:#x} goto pc{:+}", insn.imm as u32, insn.off)
                }
            }
        }
    }
}

#[allow(non_snake_case)]
fn BPF_SRC_IS_BE(code: u8) -> bool {
    src_of(code) == BPF_TO_BE
}

fn src_of(code: u8) -> u8 {
    crate::insn::op::src(code)
}

/// The xlated text of one insn as test_loader's `disasm_insn` makes it: the
/// `(xx) ` prefix cut, and for calls everything from the last `#` on.
pub fn xlated_text(insn: &Insn, next: Option<&Insn>) -> String {
    let full = print_bpf_insn(&XlatedCallbacks, insn, next, true);
    let rest = full.get(5..).unwrap_or("");
    if rest.starts_with("call ")
        && let Some(h) = full.rfind('#')
        && h >= 5
    {
        return full[5..h].to_string();
    }
    rest.to_string()
}

/// The whole xlated dump as test_loader matches it: `N: text` per insn
/// (ld_imm64 takes two slots), one per line, each line ending in `\n`.
pub fn xlated_dump(insns: &[Insn]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < insns.len() {
        let next = insns.get(i + 1);
        out.push_str(&format!("{i}: {}\n", xlated_text(&insns[i], next)));
        i += if insns[i].is_ld_imm64() { 2 } else { 1 };
    }
    out
}

/// The verifier-log form of a whole program, `N: (xx) text` per insn, with
/// kfunc calls named by `kfunc_name`.
pub fn log_listing(insns: &[Insn], cbs: &dyn InsnCallbacks, allow_ptr_leaks: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < insns.len() {
        out.push((i, print_bpf_insn(cbs, &insns[i], insns.get(i + 1), allow_ptr_leaks)));
        i += if insns[i].is_ld_imm64() { 2 } else { 1 };
    }
    out
}
