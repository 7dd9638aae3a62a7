//! x86-64: iced-x86 decodes; the text is LLVM MC's AT&T syntax as the C API
//! prints it with `PrintImmHex`.
//!
//! iced's GAS formatter (size suffixes on, hex, `, ` separators) is already
//! close to LLVM. What differs, learned from llvm-objdump-19 on the corpus
//! and the kernel's own images, is layered on top here:
//! * prefix handling of LLVM's decoder (a leading `lock` is an instruction of
//!   its own; `xacquire`/`xrelease`; `lock`/`rep` inline as `\tlock\t\t...`);
//! * immediates: LLVM sign-extends only imm8, imm64 and the imm32 of 64-bit
//!   operations; a 16/32-bit immediate of a 16/32-bit operation prints
//!   unsigned;
//! * branch targets: label or bare hex address (no size, no `*`);
//! * a handful of mnemonic spellings and operand orders.

use super::Insn;
use iced_x86::{
    Code, Decoder, DecoderOptions, FormatMnemonicOptions, Formatter, FormatterOperandOptions, FormatterOptionsProvider, GasFormatter, Instruction, Mnemonic,
    NumberFormattingOptions, OpKind, Register,
};
use std::cell::RefCell;

/// Per-operand number style: which immediates LLVM prints signed.
struct LlvmNumbers;

impl FormatterOptionsProvider for LlvmNumbers {
    fn operand_options(
        &mut self,
        ins: &Instruction,
        _operand: u32,
        ins_operand: Option<u32>,
        _options: &mut FormatterOperandOptions,
        num: &mut NumberFormattingOptions<'_>,
    ) {
        let Some(op) = ins_operand else { return };
        num.signed_number = match ins.op_kind(op) {
            // `ret`/`enter` take a sign-extended imm16 (ENCODING_IW); a 16-bit
            // operation's own imm16 is unsigned like any Iv immediate.
            OpKind::Immediate16 => matches!(ins.mnemonic(), Mnemonic::Ret | Mnemonic::Retf | Mnemonic::Enter),
            OpKind::Immediate32 => false,
            OpKind::Immediate8 => !unsigned_imm8(ins),
            OpKind::Memory => true,
            _ => true,
        };
    }
}

/// Instructions whose imm8 operand LLVM declares `u8imm` (printed unsigned).
fn unsigned_imm8(ins: &Instruction) -> bool {
    matches!(
        ins.mnemonic(),
        Mnemonic::Shl
            | Mnemonic::Shr
            | Mnemonic::Sar
            | Mnemonic::Sal
            | Mnemonic::Rol
            | Mnemonic::Ror
            | Mnemonic::Rcl
            | Mnemonic::Rcr
            | Mnemonic::Int
            | Mnemonic::Bt
            | Mnemonic::Bts
            | Mnemonic::Btr
            | Mnemonic::Btc
            | Mnemonic::Shld
            | Mnemonic::Shrd
            | Mnemonic::Rorx
            | Mnemonic::In
            | Mnemonic::Out
    )
}

fn formatter() -> GasFormatter {
    let mut f = GasFormatter::with_options(None, Some(Box::new(LlvmNumbers)));
    let o = f.options_mut();
    o.set_gas_show_mnemonic_size_suffix(true);
    o.set_uppercase_hex(false);
    o.set_hex_prefix("0x");
    o.set_hex_suffix("");
    o.set_space_after_operand_separator(true);
    o.set_gas_space_after_memory_operand_comma(false);
    o.set_signed_immediate_operands(true);
    o.set_signed_memory_displacements(true);
    o.set_branch_leading_zeros(false);
    o.set_displacement_leading_zeros(false);
    o.set_leading_zeros(false);
    o.set_small_hex_numbers_in_decimal(false);
    o.set_add_leading_zero_to_hex_numbers(false);
    o.set_rip_relative_addresses(true);
    f
}

thread_local! {
    static FMT: RefCell<GasFormatter> = RefCell::new(formatter());
}

pub(super) fn disasm(code: &[u8], pc: u64, label: &dyn Fn(u64) -> Option<String>) -> Option<Insn> {
    // LLVM's decoder stops at a LOCK (or an XACQUIRE/XRELEASE-style F2/F3)
    // in the first byte and makes it a one-byte instruction.
    match (code.first()?, code.get(1)) {
        (0xf0, _) => return Some(simple("lock", 1)),
        (&p @ (0xf2 | 0xf3), Some(&n)) if n == 0xf0 || n & 0xfe == 0x86 || (n & 0xf8 == 0x90 && !(p == 0xf3 && n == 0x90)) => {
            return Some(simple(if p == 0xf2 { "xacquire" } else { "xrelease" }, 1));
        }
        (0xf3, Some(0x88 | 0x89 | 0xc6 | 0xc7)) => return Some(simple("xrelease", 1)),
        // A REX prefix must come last: followed by another prefix, LLVM makes
        // the pair a two-byte instruction named after the second one (of the
        // REX values only 0x48 has such a name, `rex64`; others fail).
        (0x40..=0x4f, Some(0x40..=0x47 | 0x49..=0x4f)) => return None,
        (0x40..=0x4f, Some(&n)) if prefix_name(n).is_some() => return Some(simple(prefix_name(n)?, 2)),
        _ => {}
    }
    let mut dec = Decoder::with_ip(64, code, pc, DecoderOptions::NONE);
    let mut ins = Instruction::default();
    dec.decode_out(&mut ins);
    if ins.is_invalid() || llvm_rejects(&ins) {
        return None;
    }
    let len = ins.len();
    let mut text = String::from("\t");
    text.push_str(&prefixes(&ins, &code[..len]));

    let target = branch_target(&ins);
    let mut mnemonic = mnemonic(&ins);
    // 66 on a near ret: LLVM decodes a 16-bit `retw`, iced ignores the prefix.
    if matches!(ins.code(), Code::Retnq | Code::Retnq_imm16) && legacy_prefixes(&code[..len]).contains(&0x66) {
        mnemonic = "retw".into();
    }
    text.push_str(&mnemonic);
    if let Some(t) = target {
        text.push('\t');
        text.push_str(&label(t).unwrap_or_else(|| format!("0x{t:x}")));
        return Some(Insn { len, text, branch_target: Some(t) });
    }
    let ops = if ins.mnemonic() == Mnemonic::Xlatb { String::new() } else { operands(&ins, &code[..len]) };
    if !ops.is_empty() {
        text.push('\t');
        text.push_str(&ops);
    }
    Some(Insn { len, text, branch_target: None })
}

fn prefix_name(b: u8) -> Option<&'static str> {
    Some(match b {
        0x26 => "es",
        0x2e => "cs",
        0x36 => "ss",
        0x3e => "ds",
        0x64 => "fs",
        0x65 => "gs",
        0x66 => "data16",
        0x67 => "addr32",
        0xf0 => "lock",
        0xf2 => "repne",
        0xf3 => "rep",
        0x48 => "rex64",
        _ => return None,
    })
}

fn simple(m: &str, len: usize) -> Insn {
    Insn { len, text: format!("\t{m}"), branch_target: None }
}

/// Encodings iced accepts that LLVM 19's decoder does not.
fn llvm_rejects(ins: &Instruction) -> bool {
    // `int1` (F1), `sal` (/6 of the shift group) and the F6/F7 /1 aliases of
    // `test` are not in LLVM's tables.
    if ins.mnemonic() == Mnemonic::Sal {
        return true; // the /6 alias of shl
    }
    // x87 alternate encodings (fxch/fstp/fcom/fcomp aliases) LLVM lacks.
    if matches!(
        ins.code(),
        Code::Fxch_st0_sti_DDC8
            | Code::Fxch_st0_sti_DFC8
            | Code::Fstp_sti_DFD0
            | Code::Fstp_sti_DFD8
            | Code::Fstpnce_sti
            | Code::Fcom_st0_sti_DCD0
            | Code::Fcomp_st0_sti_DCD8
            | Code::Fcomp_st0_sti_DED0
    ) {
        return true;
    }
    if matches!(ins.code(), Code::Int1 | Code::Test_rm8_imm8_F6r1 | Code::Test_rm16_imm16_F7r1 | Code::Test_rm32_imm32_F7r1 | Code::Test_rm64_imm32_F7r1) {
        return true;
    }
    // The 0F 1E / 0F 19 hint space outside endbr/rdssp, e.g. the JIT's `ibhf`
    // (F3 REX.W 0F 1E F8), is newer than LLVM 19; iced calls it a reserved NOP.
    matches!(
        ins.code(),
        Code::Reservednop_rm16_r16_0F1E
            | Code::Reservednop_rm32_r32_0F1E
            | Code::Reservednop_rm64_r64_0F1E
            | Code::Reservednop_rm16_r16_0F19
            | Code::Reservednop_rm32_r32_0F19
            | Code::Reservednop_rm64_r64_0F19
    )
}

/// The prefixes LLVM prints before the mnemonic (`printInstFlags`).
fn prefixes(ins: &Instruction, bytes: &[u8]) -> String {
    let mut s = String::new();
    if ins.has_lock_prefix() {
        s.push_str("lock\t\t");
    }
    if ins.has_repne_prefix() && !mandatory_prefix(bytes) {
        s.push_str("repne\t\t");
    } else if ins.has_rep_prefix() && !mandatory_prefix(bytes) && ins.mnemonic() != Mnemonic::Pause {
        s.push_str("rep\t\t");
    }
    // An address-size prefix with no memory operand to apply to.
    let has_mem = (0..ins.op_count()).any(|i| {
        !matches!(
            ins.op_kind(i),
            OpKind::Register
                | OpKind::Immediate8
                | OpKind::Immediate16
                | OpKind::Immediate32
                | OpKind::Immediate64
                | OpKind::Immediate8to16
                | OpKind::Immediate8to32
                | OpKind::Immediate8to64
                | OpKind::Immediate32to64
                | OpKind::Immediate8_2nd
                | OpKind::NearBranch16
                | OpKind::NearBranch32
                | OpKind::NearBranch64
        )
    });
    // (jecxz and the ecx loops consume it as their counter size.)
    let counter_sized = matches!(ins.code(), Code::Jecxz_rel8_64 | Code::Loop_rel8_64_ECX | Code::Loope_rel8_64_ECX | Code::Loopne_rel8_64_ECX);
    if !has_mem && !counter_sized && legacy_prefixes(bytes).contains(&0x67) && ins.mnemonic() != Mnemonic::Xlatb {
        s.push_str("addr32\t\t");
    }
    s
}

/// The legacy prefix bytes in front of the instruction.
fn legacy_prefixes(bytes: &[u8]) -> &[u8] {
    let n = bytes.iter().take_while(|&&b| matches!(b, 0xf0 | 0xf2 | 0xf3 | 0x66 | 0x67 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65)).count();
    &bytes[..n]
}

/// LLVM applies the last segment override prefix.
fn last_segment(bytes: &[u8]) -> Option<Register> {
    legacy_prefixes(bytes).iter().rev().find_map(|b| match b {
        0x26 => Some(Register::ES),
        0x2e => Some(Register::CS),
        0x36 => Some(Register::SS),
        0x3e => Some(Register::DS),
        0x64 => Some(Register::FS),
        0x65 => Some(Register::GS),
        _ => None,
    })
}

/// F2/F3 before a 0F-map opcode selects the instruction (a mandatory
/// prefix) and LLVM does not print it as `rep`/`repne`; before a one-byte
/// opcode it does.
fn mandatory_prefix(bytes: &[u8]) -> bool {
    let opcode = bytes.iter().find(|&&b| !matches!(b, 0xf0 | 0xf2 | 0xf3 | 0x66 | 0x67 | 0x2e | 0x36 | 0x3e | 0x26 | 0x64 | 0x65 | 0x40..=0x4f));
    opcode == Some(&0x0f)
}

/// Target of a relative branch: LLVM hands it to the symbol callback as a
/// branch reference and prints the label or the address.
fn branch_target(ins: &Instruction) -> Option<u64> {
    if ins.op_count() == 1 && matches!(ins.op0_kind(), OpKind::NearBranch16 | OpKind::NearBranch32 | OpKind::NearBranch64) {
        return Some(ins.near_branch_target());
    }
    None
}

fn mnemonic(ins: &Instruction) -> String {
    match ins.code() {
        Code::Call_rel32_64 => return "callq".into(),
        Code::Movsxd_r32_rm32 | Code::Movsxd_r64_rm32 => return "movslq".into(),
        Code::Leaveq => return "leave".into(),
        Code::Enterq_imm16_imm8 => return "enter".into(),
        Code::Wait => return "wait".into(),
        Code::Retnw | Code::Retnw_imm16 => return "retw".into(),
        Code::Fucomip_st0_sti => return "fucompi".into(),
        Code::Fcomip_st0_sti => return "fcompi".into(),
        Code::Loop_rel8_64_RCX | Code::Loop_rel8_64_ECX => return "loop".into(),
        Code::Loope_rel8_64_RCX | Code::Loope_rel8_64_ECX => return "loope".into(),
        Code::Loopne_rel8_64_RCX | Code::Loopne_rel8_64_ECX => return "loopne".into(),
        _ if is_nop_xchg(ins) => return "nop".into(),
        _ => {}
    }
    let mut m = String::new();
    FMT.with(|f| f.borrow_mut().format_mnemonic_options(ins, &mut m, FormatMnemonicOptions::NO_PREFIXES));
    let mut m = m.trim().to_string();
    // x87 control/environment instructions have no size suffix in LLVM.
    if matches!(
        ins.mnemonic(),
        Mnemonic::Fnstcw
            | Mnemonic::Fstcw
            | Mnemonic::Fldcw
            | Mnemonic::Fnstsw
            | Mnemonic::Fstsw
            | Mnemonic::Fnstenv
            | Mnemonic::Fstenv
            | Mnemonic::Fldenv
            | Mnemonic::Fnsave
            | Mnemonic::Fsave
            | Mnemonic::Frstor
    ) && (m.ends_with('w') || m.ends_with('l'))
        && !matches!(ins.op0_kind(), OpKind::Register)
    {
        m.pop();
    }
    // setcc has no size suffix in LLVM.
    if m.starts_with("set") && m.ends_with('b') && format!("{:?}", ins.code()).starts_with("Set") {
        m.pop();
    }
    m
}

/// `90` with only REX.W or 66 (xchg of the accumulator with itself): LLVM's `nop`.
fn is_nop_xchg(ins: &Instruction) -> bool {
    (matches!(ins.code(), Code::Xchg_r16_AX | Code::Xchg_r64_RAX) && matches!(ins.op0_register(), Register::AX | Register::RAX))
        || matches!(ins.code(), Code::Nopw | Code::Nopd | Code::Nopq)
}

/// The operands in AT&T order, each as LLVM prints it.
fn operands(ins: &Instruction, bytes: &[u8]) -> String {
    if is_nop_xchg(ins) {
        return String::new();
    }
    let mut ops: Vec<String> = Vec::new();
    FMT.with(|f| {
        let mut f = f.borrow_mut();
        for i in 0..f.operand_count(ins) {
            let mut s = String::new();
            let _ = f.format_operand(ins, &mut s, i);
            if let Ok(Some(k)) = f.get_instruction_operand(ins, i) {
                fix_operand(ins, k, &mut s, last_segment(bytes));
            }
            ops.push(s);
        }
    });
    let code = format!("{:?}", ins.code());
    // Shift/rotate by one: LLVM prints no `$1`.
    if code.ends_with("_1") && ops.len() == 2 && ops[0] == "$0x1" {
        ops.remove(0);
    }
    match ins.code() {
        // LLVM prints xchg as `xchg %reg_field, %rm` / `xchg %r, %accumulator`.
        Code::Xchg_rm8_r8 | Code::Xchg_rm16_r16 | Code::Xchg_rm32_r32 | Code::Xchg_rm64_r64 if ins.op0_kind() == OpKind::Register => ops.swap(0, 1),
        Code::Xchg_r16_AX | Code::Xchg_r32_EAX | Code::Xchg_r64_RAX => ops.swap(0, 1),
        // iced leaves out an implicit %st(1) that LLVM prints.
        Code::Fcom_st0_sti | Code::Fcomp_st0_sti | Code::Fucom_st0_sti | Code::Fucomp_st0_sti if ops.is_empty() => ops.push("%st(1)".into()),
        // imul with imm: LLVM always prints the three operands.
        Code::Imul_r16_rm16_imm8
        | Code::Imul_r32_rm32_imm8
        | Code::Imul_r64_rm64_imm8
        | Code::Imul_r16_rm16_imm16
        | Code::Imul_r32_rm32_imm32
        | Code::Imul_r64_rm64_imm32
            if ops.len() == 2 =>
        {
            let last = ops[1].clone();
            ops.push(last)
        }
        _ => {}
    }
    ops.join(", ")
}

/// LLVM's rendering of one operand where iced's GAS style differs.
fn fix_operand(ins: &Instruction, k: u32, s: &mut String, seg_prefix: Option<Register>) {
    match ins.op_kind(k) {
        OpKind::Memory => {
            let seg = seg_prefix.unwrap_or(Register::None);
            // Drop iced's segment if LLVM picks another one.
            if seg != Register::None
                && s.starts_with('%')
                && !s.starts_with(&format!("%{}:", reg_name(seg)))
                && let Some(c) = s.find(':')
            {
                s.replace_range(..=c, "");
            }
            // A SIB byte with no index but a scale: LLVM shows the pseudo index %riz.
            if ins.memory_index() == Register::None && ins.memory_index_scale() > 1 && s.ends_with(",)") {
                s.truncate(s.len() - 1);
                s.push_str(&format!("%riz,{})", ins.memory_index_scale()));
            }
            if ins.memory_base() == Register::None && ins.memory_index() == Register::None {
                // An absolute address is a sign-extended disp32: LLVM prints it signed.
                let d = ins.memory_displacement64();
                let iced = format!("0x{d:x}");
                if let Some(p) = s.rfind(&iced) {
                    s.replace_range(p..p + iced.len(), &imm_hex(d as i64));
                }
            }
            // LLVM prints every segment override, even those 64-bit mode ignores.
            if seg != Register::None && !s.starts_with('%') {
                s.insert_str(0, &format!("%{}:", reg_name(seg)));
            }
        }
        OpKind::MemoryESRDI | OpKind::MemoryESEDI if !s.starts_with("%es:") => s.insert_str(0, "%es:"),
        OpKind::MemorySegRSI | OpKind::MemorySegESI => {
            // An override on a string source (iced drops the ignored ones).
            if let Some(seg) = seg_prefix
                && !s.starts_with(&format!("%{}:", reg_name(seg)))
                && (s.starts_with('(') || !s.contains(':'))
            {
                s.insert_str(0, &format!("%{}:", reg_name(seg)));
            }
        }
        _ => {}
    }
}

fn reg_name(r: Register) -> String {
    format!("{r:?}").to_lowercase()
}

/// LLVM's `formatImm` with `PrintImmHex`: signed hex.
fn imm_hex(v: i64) -> String {
    if v < 0 { format!("-0x{:x}", v.unsigned_abs()) } else { format!("0x{v:x}") }
}
