//! JIT machine code as test_loader prints it for `__jited` patterns.
//!
//! The kernel's `jit_disasm_helpers.c` disassembles each JITed function with
//! the LLVM C API (`LLVMDisasmInstruction`, option `PrintImmHex`, a symbol
//! callback that names in-function branch targets `L<k>`). `__jited` patterns
//! are written against that exact text, so this module reproduces it without
//! LLVM: the bytes are decoded with `iced-x86` / `yaxpeax-arm` and printed by
//! our own LLVM-MC-style printers (AT&T syntax on x86-64, LLVM's A64 syntax on
//! arm64). Ground truth is llvm-objdump-19 and the text 7.3's test_loader
//! prints.
//!
//! Output details that come from the kernel helper rather than from LLVM:
//! * each function restarts at pc 0 and is printed under `func #i:`, followed
//!   by an empty line;
//! * line = `%x:\t` + bytes as `xx ` padded to 36 columns + `L<k>:` at a
//!   label + the instruction text, which LLVM starts with a tab; the text is
//!   cut at 63 characters (the helper's `char buf[64]`);
//! * labels: the first pass records every branch *reference* whose target is
//!   below the function length (at most 32, not de-duplicated) and sorts them;
//!   entry k is `L<k>`. A branch prints the first entry equal to its target,
//!   the line at a target prints whichever entry glibc's `bsearch` lands on,
//!   so a target referenced twice shows different numbers in the two places;
//! * an instruction LLVM cannot decode aborts the function: the helper
//!   reports a failure and prints no line of it.

mod arm64;
mod x86_64;

use crate::target::Arch;

/// One decoded instruction in LLVM's text form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Encoded length in bytes.
    pub len: usize,
    /// The text as `LLVMDisasmInstruction` returns it, starting with a tab,
    /// with the branch target (if any) printed as `label` or as a hex address.
    pub text: String,
    /// Target of a pc-relative branch, as LLVM reports it to the symbol
    /// callback (`In_Branch`): an absolute address computed from `pc`.
    pub branch_target: Option<u64>,
}

/// Decodes and prints one instruction at `pc`. `label` names branch targets
/// (test_loader's symbol callback); `None` from it prints the hex address.
/// Returns `None` where LLVM fails to decode (the C API returns 0 bytes;
/// llvm-objdump prints `<unknown>`).
pub fn disasm_insn(arch: Arch, code: &[u8], pc: u64, label: &dyn Fn(u64) -> Option<String>) -> Option<Insn> {
    match arch {
        Arch::X86_64 => x86_64::disasm(code, pc, label),
        Arch::Arm64 => arm64::disasm(code, pc, label),
        _ => None,
    }
}

/// Why test_loader could not print a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DisasmError {
    /// The arch has no LLVM disassembly here (the model only JITs x86-64 and arm64).
    Unsupported(Arch),
    /// `Can't disasm instruction at offset N:` followed by up to 16 bytes.
    BadInsn { func: usize, offset: usize, bytes: Vec<u8> },
}

impl std::fmt::Display for DisasmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DisasmError::Unsupported(a) => write!(f, "no jited disassembly for {a}"),
            DisasmError::BadInsn { func, offset, bytes } => {
                write!(f, "func #{func}: Can't disasm instruction at offset {offset}:")?;
                for b in bytes {
                    write!(f, " {b:02x}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for DisasmError {}

const MAX_LOCAL_LABELS: usize = 32;

/// glibc's `bsearch` over sorted `pcs`: which index it returns for `key`
/// matters when `key` occurs more than once.
fn glibc_bsearch(pcs: &[u64], key: u64) -> Option<usize> {
    let (mut l, mut u) = (0usize, pcs.len());
    while l < u {
        let idx = (l + u) / 2;
        match key.cmp(&pcs[idx]) {
            std::cmp::Ordering::Less => u = idx,
            std::cmp::Ordering::Greater => l = idx + 1,
            std::cmp::Ordering::Equal => return Some(idx),
        }
    }
    None
}

/// One function's lines (without the `func #i:` header), or the offset of
/// the first instruction LLVM cannot decode.
pub fn disasm_function(arch: Arch, code: &[u8]) -> Result<Vec<String>, usize> {
    let len = code.len() as u64;
    // Pass 1: branch references below the function length, in program order.
    let mut pcs: Vec<u64> = Vec::new();
    let mut pc = 0usize;
    while pc < code.len() {
        let insn = disasm_insn(arch, &code[pc..], pc as u64, &|_| None).ok_or(pc)?;
        if let Some(t) = insn.branch_target
            && pcs.len() < MAX_LOCAL_LABELS
            && t < len
        {
            pcs.push(t);
        }
        pc += insn.len;
    }
    pcs.sort_unstable();
    let name_of = |t: u64| pcs.iter().position(|&p| p == t).map(|i| format!("L{i}"));
    // Pass 2: print.
    let mut out = Vec::new();
    let mut pc = 0usize;
    while pc < code.len() {
        let insn = disasm_insn(arch, &code[pc..], pc as u64, &name_of).ok_or(pc)?;
        let mut line = format!("{pc:x}:\t");
        for b in &code[pc..pc + insn.len] {
            line.push_str(&format!("{b:02x} "));
        }
        for _ in insn.len * 3..36 {
            line.push(' ');
        }
        if let Some(k) = glibc_bsearch(&pcs, pc as u64) {
            line.push_str(&format!("L{k}:"));
        }
        line.push_str(cut(&insn.text, 63));
        out.push(line);
        pc += insn.len;
    }
    Ok(out)
}

/// The first `n` bytes of `s` (LLVM text is ASCII; a cut never splits a char).
fn cut(s: &str, n: usize) -> &str {
    let mut end = s.len().min(n);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The jited text of a program, one element per line, exactly as test_loader
/// builds it: `func #i:`, the function's lines, an empty line; for each
/// function in `funcs` (the image split by `jited_func_lens`). Joining the
/// lines with `\n` and appending one `\n` gives the kernel's buffer. A
/// function LLVM cannot decode contributes only its header and empty line,
/// like the kernel helper; [`test_loader_text_checked`] reports it.
pub fn test_loader_text(arch: Arch, funcs: &[Vec<u8>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        out.push(format!("func #{i}:"));
        if let Ok(lines) = disasm_function(arch, f) {
            out.extend(lines);
        }
        out.push(String::new());
    }
    out
}

/// [`test_loader_text`], failing where the kernel helper fails the test.
pub fn test_loader_text_checked(arch: Arch, funcs: &[Vec<u8>]) -> Result<Vec<String>, DisasmError> {
    if !arch.has_jit() {
        return Err(DisasmError::Unsupported(arch));
    }
    let mut out = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        out.push(format!("func #{i}:"));
        match disasm_function(arch, f) {
            Ok(lines) => out.extend(lines),
            Err(offset) => {
                let bytes = f[offset..].iter().take(16).copied().collect();
                return Err(DisasmError::BadInsn { func: i, offset, bytes });
            }
        }
        out.push(String::new());
    }
    Ok(out)
}

/// Splits a JIT image into its functions by `jited_func_lens` (as
/// `bpf_prog_info` reports them), ignoring lengths past the image end.
pub fn split_funcs(image: &[u8], func_lens: &[u32]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut off = 0usize;
    for &n in func_lens {
        let end = off.saturating_add(n as usize).min(image.len());
        out.push(image[off..end].to_vec());
        off = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64, for reproducible garbage.
    fn next(st: &mut u64) -> u64 {
        *st ^= *st << 13;
        *st ^= *st >> 7;
        *st ^= *st << 17;
        *st
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut st = 0x1234_5678_9abc_def1;
        for arch in [Arch::X86_64, Arch::Arm64] {
            for len in [0usize, 1, 2, 3, 5, 15, 64, 4096] {
                let code: Vec<u8> = (0..len).map(|_| next(&mut st) as u8).collect();
                for pc in 0..code.len().min(64) {
                    if let Some(i) = disasm_insn(arch, &code[pc..], pc as u64, &|t| Some(format!("L{t}"))) {
                        assert!(i.len >= 1 && i.len <= code.len() - pc && i.len <= 15);
                    }
                }
                let lines = test_loader_text(arch, &[code.clone(), Vec::new()]);
                assert_eq!(lines.first().map(String::as_str), Some("func #0:"));
                let _ = test_loader_text_checked(arch, &[code]);
            }
        }
        for arch in [Arch::Riscv64, Arch::S390x, Arch::Loongarch64] {
            assert_eq!(test_loader_text_checked(arch, &[vec![0x90]]), Err(DisasmError::Unsupported(arch)));
        }
    }

    #[test]
    fn truncated_instruction_fails_the_function() {
        // `movl $0x1, %edi` cut after two bytes: the kernel helper stops with
        // "Can't disasm instruction at offset 1" and prints nothing of it.
        let f = vec![0x90, 0xbf, 0x01];
        assert_eq!(test_loader_text(Arch::X86_64, std::slice::from_ref(&f)), ["func #0:", ""]);
        let err = test_loader_text_checked(Arch::X86_64, &[f]).unwrap_err();
        assert_eq!(err, DisasmError::BadInsn { func: 0, offset: 1, bytes: vec![0xbf, 0x01] });
        assert_eq!(err.to_string(), "func #0: Can't disasm instruction at offset 1: bf 01");
    }

    #[test]
    fn long_text_is_cut_at_63_characters() {
        // ldadda w0, wzr, [x1]: libLLVM-19's C API prints "\tldadda\tw0, wzr,
        // [x1] // acquire semantics dropped since destination is zero"
        // (recorded from it); the kernel helper's `char buf[64]`
        // keeps 63 characters of it.
        let lines = test_loader_text(Arch::Arm64, &[vec![0x3f, 0x00, 0xa0, 0xb8]]);
        let line = &lines[1];
        let text = line.split_once("            ").map(|(_, t)| t).unwrap().trim_start_matches(' ');
        assert_eq!(text, "\tldadda\tw0, wzr, [x1] // acquire semantics dropped since destin");
        assert_eq!(text.len(), 63);
    }

    #[test]
    fn split_by_func_lens() {
        assert_eq!(split_funcs(&[1, 2, 3, 4, 5], &[2, 3]), vec![vec![1, 2], vec![3, 4, 5]]);
        assert_eq!(split_funcs(&[1, 2], &[3, 1]), vec![vec![1, 2], vec![]]);
    }

    #[test]
    fn bsearch_picks_middle_duplicate() {
        // The arm64 iter_num image: three references to 0x90 (entries 2..4).
        let pcs = [0x74, 0x84, 0x90, 0x90, 0x90, 0xb4, 0xc0, 0xd0];
        assert_eq!(glibc_bsearch(&pcs, 0x90), Some(4));
        assert_eq!(glibc_bsearch(&pcs, 0x74), Some(0));
        assert_eq!(glibc_bsearch(&pcs, 0x75), None);
    }
}
