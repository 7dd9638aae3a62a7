//! arm64: yaxpeax-arm decodes; the text is LLVM MC's A64 syntax as the C API
//! prints it with `PrintImmHex` and all features (`+all`).
//!
//! yaxpeax's own `Display` already applies most of the aliases LLVM prefers
//! (`mov`, `cmp`, `mul`, `cset`, ...), so it is the base. The forms where
//! LLVM's printer decides differently are printed here from the instruction
//! word, following LLVM's `AArch64InstPrinter` rules (learned from
//! llvm-objdump-19 on the corpus):
//! * pc-relative operands: branches and non-X literal loads are "branches"
//!   for the symbol callback (label or absolute hex); `ldr xN, #off` and
//!   `adr xN, #off` stay relative;
//! * move-wide and `orr ..., zr, #imm` `mov` aliases, and signed `mov` values;
//! * bitfield aliases with decimal immediates;
//! * extended-register add/sub and register-offset addressing extends;
//! * hint, barrier, exception and system-register names (`+all`).

use super::Insn;
use yaxpeax_arch::{Decoder, U8Reader};
use yaxpeax_arm::armv8::a64::{InstDecoder, Instruction, Opcode, Operand};

pub(super) fn disasm(code: &[u8], pc: u64, label: &dyn Fn(u64) -> Option<String>) -> Option<Insn> {
    let word = u32::from_le_bytes(code.get(..4)?.try_into().ok()?);
    if soft_fail(word) {
        return None;
    }
    if let Some(text) = own(word) {
        return Some(Insn { len: 4, text: format!("\t{}", text?), branch_target: None });
    }
    let ins = decode(word)?;
    if ins.opcode == Opcode::Invalid {
        return None;
    }
    let mut text = yaxpeax_text(&ins);
    if word & 0x3b20_0c00 == 0x3820_0800 {
        text = register_offset(word, text)?;
    }
    // The decoder's own comment (the C API prints decoder comments after one space).
    if acquire_dropped(word) {
        text.push_str(" // acquire semantics dropped since destination is zero");
    }
    let Some(off) = ins.operands.iter().find_map(|o| if let Operand::PCOffset(x) = o { Some(*x) } else { None }) else {
        return Some(Insn { len: 4, text: format!("\t{text}"), branch_target: None });
    };
    // yaxpeax prints a pc-relative operand as `$+0x..` / `$-0x..`.
    let at = text.find('$')?;
    let head = &text[..at];
    let target = pc.wrapping_add(off as u64);
    let (operand, branch_target) = match ins.opcode {
        // The symbolizer is not told these are branches: relative immediate.
        Opcode::LDR if word & 0xff00_0000 == 0x5800_0000 => (imm_hex_hash(off), None),
        Opcode::ADR => (format!("#{off}"), None),
        // ADRP: the symbolizer turns the page count into a plain decimal
        // operand and comments the page address.
        Opcode::ADRP => (format!("{} // 0x{:x}", off >> 12, (pc & !0xfff).wrapping_add(off as u64)), None),
        // Branches, and literal loads other than `ldr xN` (LLVM only exempts
        // LDRXl from the branch symbolizer).
        _ => (label(target).unwrap_or_else(|| format!("0x{target:x}")), Some(target)),
    };
    Some(Insn { len: 4, text: format!("\t{head}{operand}"), branch_target })
}

/// Encodings the C API rejects although yaxpeax decodes them: SoftFail ones
/// (architecturally unpredictable; llvm-objdump still prints them) and
/// should-be-one fields LLVM insists on.
fn soft_fail(w: u32) -> bool {
    let (rt, rn, rt2) = (bits(w, 0, 5), bits(w, 5, 5), bits(w, 10, 5));
    // Load (immediate, pre/post-indexed or unprivileged) writing back to its
    // transfer register; LLVM tests opc<0>, so ldrsw and 64-bit ldrs[bh] pass.
    let fp = bits(w, 26, 1) == 1;
    if w & 0x3b20_0000 == 0x3800_0000 && !fp && bits(w, 22, 1) == 1 && bits(w, 10, 2) != 0 && rn != 31 && rt == rn {
        return true;
    }
    // Load/store pair: a load into one register twice, or writeback to a transfer register.
    if w & 0x3a00_0000 == 0x2800_0000 {
        let load = bits(w, 22, 1) == 1;
        let writeback = matches!(bits(w, 23, 2), 1 | 3);
        return (load && rt == rt2) || (writeback && !fp && rn != 31 && (rt == rn || rt2 == rn));
    }
    // Exclusive and ordered single-register forms: LLVM requires the unused
    // Rt2 (and for loads and ldar/stlr the unused Rs) to be all ones.
    if w & 0x3f20_0000 == 0x0800_0000 {
        let (o2, l, rs) = (bits(w, 23, 1), bits(w, 22, 1), bits(w, 16, 5));
        if rt2 != 31 || ((l == 1 || o2 == 1) && rs != 31) {
            return true;
        }
    }
    // ldxp/ldaxp into one register twice.
    if w & 0xbfe0_0000 == 0x8860_0000 && rt == rt2 {
        return true;
    }
    false
}

/// LSE ld<op>a[l]/swpa[l] with the zero register as destination.
fn acquire_dropped(w: u32) -> bool {
    let lse = w & 0x3f20_0c00 == 0x3820_0000;
    let op = bits(w, 12, 4);
    lse && bits(w, 23, 1) == 1 && bits(w, 0, 5) == 31 && op <= 8
}

fn decode(word: u32) -> Option<Instruction> {
    let bytes = word.to_le_bytes();
    let mut r = U8Reader::new(&bytes);
    InstDecoder::default().decode(&mut r).ok()
}

/// yaxpeax's text in LLVM's spelling: tab after the mnemonic, `{ v0.8b }`
/// register lists, prefetch operation names, upper-case generic system
/// registers, and an explicit `#0` on a zero non-lsl shift.
fn yaxpeax_text(ins: &Instruction) -> String {
    let t = ins.to_string();
    let mut t = match t.split_once(' ') {
        Some((m, o)) => format!("{m}\t{o}"),
        None => t,
    };
    if t.contains('{') {
        t = t.replace("{v", "{ v").replace('}', " }");
        // Structure load/store post-index amounts print in decimal.
        if let Some(at) = t.rfind("], #0x")
            && let Ok(n) = u64::from_str_radix(&t[at + 6..], 16)
        {
            t.truncate(at);
            t.push_str(&format!("], #{n}"));
        }
    }
    for op in &ins.operands {
        match *op {
            Operand::PrefetchOp(p) => {
                let (ty, target, policy) = ((p >> 3) & 3, (p >> 1) & 3, p & 1);
                let (theirs, ours) = if ty == 3 || target == 3 {
                    let llvm =
                        if ty == 3 { format!("#0x{p:x}") } else { format!("{}slc{}", ["pld", "pli", "pst"][ty as usize], ["keep", "strm"][policy as usize]) };
                    (format!("{p:#02x}"), llvm)
                } else {
                    (String::new(), String::new())
                };
                if !theirs.is_empty()
                    && let Some(at) = t.find(&theirs)
                {
                    t.replace_range(at..at + theirs.len(), &ours);
                }
            }
            Operand::SystemReg(_) => {
                if let Some(at) = t.find(", s").map(|i| i + 2).or_else(|| t.find("\ts").map(|i| i + 1)) {
                    let end = t[at..].find(',').map_or(t.len(), |e| at + e);
                    if t[at..end].starts_with('s') && t[at..end].contains("_c") {
                        let up = t[at..end].to_uppercase();
                        t.replace_range(at..end, &up);
                    }
                }
            }
            Operand::RegShift(style, 0, ..) if !matches!(format!("{style:?}").as_str(), "LSL") => {
                let name = format!("{style:?}").to_lowercase();
                if t.ends_with(&format!(", {name}")) {
                    t.push_str(" #0");
                }
            }
            _ => {}
        }
    }
    t
}

/// LLVM's `formatImm` with `PrintImmHex`, behind `#`.
fn imm_hex_hash(v: i64) -> String {
    if v < 0 { format!("#-0x{:x}", v.unsigned_abs()) } else { format!("#0x{v:x}") }
}

/// `printImmHex` (`#%#llx`): zero prints as `#0`.
fn imm_c_hex(v: u32) -> String {
    if v == 0 { "#0".into() } else { format!("#0x{v:x}") }
}

fn bits(w: u32, lo: u32, n: u32) -> u32 {
    (w >> lo) & ((1 << n) - 1)
}

/// A general register by number: 31 is the zero register or the stack pointer.
fn reg(n: u32, x: bool, sp: bool) -> String {
    match (n, x, sp) {
        (31, true, true) => "sp".into(),
        (31, false, true) => "wsp".into(),
        (31, true, false) => "xzr".into(),
        (31, false, false) => "wzr".into(),
        (n, true, _) => format!("x{n}"),
        (n, false, _) => format!("w{n}"),
    }
}

/// The forms printed from the word rather than from yaxpeax's text:
/// `None` when not one of them, `Some(None)` when LLVM rejects the word.
fn own(w: u32) -> Option<Option<String>> {
    own_class(w).map(|(_, text)| text)
}

/// `(handled, text)`: see [`own`].
fn own_class(w: u32) -> Option<(bool, Option<String>)> {
    let handled = |t: Option<String>| Some((true, t));
    // System: hints, barriers, sysregs.
    if w & 0xffff_f01f == 0xd503_201f {
        return handled(Some(hint(bits(w, 5, 7))));
    }
    if w & 0xffff_f01f == 0xd503_301f {
        return handled(barrier(bits(w, 5, 3), bits(w, 8, 4)));
    }
    if w & 0xfff0_0000 == 0xd530_0000 || w & 0xfff0_0000 == 0xd510_0000 {
        return sysreg_move(w).map(|t| (true, Some(t)));
    }
    // Exception generation: brk/hlt/svc/hvc/smc print `#%#llx`.
    if w & 0xff00_0000 == 0xd400_0000 && bits(w, 2, 3) == 0 {
        let imm = bits(w, 5, 16);
        let m = match (bits(w, 21, 3), bits(w, 0, 2)) {
            (0, 1) => "svc",
            (0, 2) => "hvc",
            (0, 3) => "smc",
            (1, 0) => "brk",
            (2, 0) => "hlt",
            _ => return None,
        };
        return handled(Some(format!("{m}\t{}", imm_c_hex(imm))));
    }
    // udf #imm16.
    if w & 0xffff_0000 == 0 {
        return handled(Some(format!("udf\t#0x{:x}", w & 0xffff)));
    }
    let sf = w >> 31 == 1;
    // Shifted-register logical and add/sub: a 32-bit shift of 32 or more, and
    // ror for add/sub, are unallocated (yaxpeax accepts them).
    let shifted_logical = w & 0x1f00_0000 == 0x0a00_0000;
    let shifted_add_sub = w & 0x1f20_0000 == 0x0b00_0000;
    if (shifted_logical || shifted_add_sub) && !sf && bits(w, 15, 1) == 1 || shifted_add_sub && bits(w, 22, 2) == 3 {
        return handled(None);
    }
    // Move wide immediate.
    if w & 0x1f80_0000 == 0x1280_0000 {
        return handled(move_wide(w, sf));
    }
    // Logical immediate.
    if w & 0x1f80_0000 == 0x1200_0000 {
        return handled(logical_imm(w, sf));
    }
    // Bitfield.
    if w & 0x1f80_0000 == 0x1300_0000 {
        return handled(bitfield(w, sf));
    }
    // Add/sub, extended register.
    if w & 0x1fe0_0000 == 0x0b20_0000 {
        return handled(add_sub_ext(w, sf));
    }
    None
}

fn hint(imm: u32) -> String {
    let name = match imm {
        0 => "nop",
        1 => "yield",
        2 => "wfe",
        3 => "wfi",
        4 => "sev",
        5 => "sevl",
        6 => "dgh",
        7 => "xpaclri",
        8 => "pacia1716",
        0xa => "pacib1716",
        0xc => "autia1716",
        0xe => "autib1716",
        0x10 => "esb",
        0x11 => "psb\tcsync",
        0x12 => "tsb\tcsync",
        0x13 => "gcsb\tdsync",
        0x14 => "csdb",
        0x16 => "clrbhb",
        0x18 => "paciaz",
        0x19 => "paciasp",
        0x1a => "pacibz",
        0x1b => "pacibsp",
        0x1c => "autiaz",
        0x1d => "autiasp",
        0x1e => "autibz",
        0x1f => "autibsp",
        0x20 => "bti",
        0x22 => "bti\tc",
        0x24 => "bti\tj",
        0x26 => "bti\tjc",
        0x27 => "pacm",
        0x28 => "chkfeat\tx16",
        _ => return format!("hint\t#0x{imm:x}"),
    };
    name.into()
}

fn barrier(op2: u32, crm: u32) -> Option<String> {
    let opt = |crm: u32| -> String {
        match crm {
            1 => "oshld".into(),
            2 => "oshst".into(),
            3 => "osh".into(),
            5 => "nshld".into(),
            6 => "nshst".into(),
            7 => "nsh".into(),
            9 => "ishld".into(),
            10 => "ishst".into(),
            11 => "ish".into(),
            13 => "ld".into(),
            14 => "st".into(),
            15 => "sy".into(),
            n => format!("#{n}"),
        }
    };
    Some(match op2 {
        4 => match crm {
            0 => "ssbb".into(),
            4 => "pssbb".into(),
            12 => "dfb".into(),
            _ => format!("dsb\t{}", opt(crm)),
        },
        5 => format!("dmb\t{}", opt(crm)),
        6 if crm == 15 => "isb".into(),
        6 => format!("isb\t#{crm}"),
        7 if crm == 0 => "sb".into(),
        _ => return None,
    })
}

/// `mrs`/`msr` with a register name LLVM knows, else `S<op0>_<op1>_C<n>_C<m>_<op2>`.
fn sysreg_move(w: u32) -> Option<String> {
    let read = bits(w, 21, 1) == 1;
    let enc = (2 + bits(w, 19, 1), bits(w, 16, 3), bits(w, 12, 4), bits(w, 8, 4), bits(w, 5, 3));
    let name = match enc {
        (3, 0, 13, 0, 4) => "TPIDR_EL1".to_string(),
        (3, 4, 13, 0, 2) => "TPIDR_EL2".to_string(),
        (3, 3, 13, 0, 2) => "TPIDR_EL0".to_string(),
        (3, 0, 4, 1, 0) => "SP_EL0".to_string(),
        (3, 3, 4, 2, 0) => "NZCV".to_string(),
        (3, 0, 0, 0, 5) => "MPIDR_EL1".to_string(),
        (3, 3, 14, 0, 2) => "CNTVCT_EL0".to_string(),
        (3, 3, 13, 0, 3) => "TPIDRRO_EL0".to_string(),
        (3, 0, 4, 2, 2) => "CurrentEL".to_string(),
        (3, 3, 4, 2, 1) => "DAIF".to_string(),
        // Anything else: let yaxpeax print it (and likely differ from LLVM).
        _ => return None,
    };
    let rt = reg(bits(w, 0, 5), true, false);
    Some(if read { format!("mrs\t{rt}, {name}") } else { format!("msr\t{name}, {rt}") })
}

/// LLVM's `isAnyMOVZMovAlias`: the value is one 16-bit chunk.
fn any_movz(v: u64, width: u32) -> bool {
    (0..width).step_by(16).any(|s| v & !(0xffffu64 << s) == 0)
}

fn mask(v: u64, width: u32) -> u64 {
    if width == 32 { v & 0xffff_ffff } else { v }
}

fn sext(v: u64, width: u32) -> i64 {
    if width == 32 { v as u32 as i32 as i64 } else { v as i64 }
}

fn move_wide(w: u32, sf: bool) -> Option<String> {
    let width = if sf { 64 } else { 32 };
    let opc = bits(w, 29, 2);
    let hw = bits(w, 21, 2);
    if !sf && hw >= 2 || opc == 1 {
        return None;
    }
    let shift = hw * 16;
    let imm = bits(w, 5, 16) as u64;
    let rd = reg(bits(w, 0, 5), sf, false);
    let lsl = if shift != 0 { format!(", lsl #{shift}") } else { String::new() };
    match opc {
        // movz: `mov` unless it is `#0, lsl #n`.
        2 => {
            let v = mask(imm << shift, width);
            if !(v == 0 && shift != 0) {
                return Some(format!("mov\t{rd}, {}", imm_hex_hash(sext(v, width))));
            }
            Some(format!("movz\t{rd}, #0x{imm:x}{lsl}"))
        }
        // movn: `mov` unless a movz could make the value (movz has priority).
        0 => {
            let v = mask(!(imm << shift), width);
            let inv = mask(!v, width);
            if !(any_movz(v, width) || inv == 0 && shift != 0) && inv & !(0xffffu64 << shift) == 0 {
                return Some(format!("mov\t{rd}, {}", imm_hex_hash(sext(v, width))));
            }
            Some(format!("movn\t{rd}, #0x{imm:x}{lsl}"))
        }
        _ => Some(format!("movk\t{rd}, #0x{imm:x}{lsl}")),
    }
}

/// DecodeBitMasks for a logical immediate; `None` when unallocated.
fn decode_bitmask(n: u32, immr: u32, imms: u32, width: u32) -> Option<u64> {
    let combined = (n << 6) | (!imms & 0x3f);
    if combined == 0 {
        return None;
    }
    let len = 31 - combined.leading_zeros();
    if len < 1 {
        return None;
    }
    let size = 1u32 << len;
    if size > width {
        return None;
    }
    let s = imms & (size - 1);
    let r = immr & (size - 1);
    if s == size - 1 {
        return None;
    }
    let ones: u64 = (1u64 << (s + 1)) - 1;
    let emask = if size == 64 { u64::MAX } else { (1u64 << size) - 1 };
    let elem = if r == 0 { ones } else { ((ones >> r) | (ones << (size - r))) & emask };
    let mut v = 0u64;
    let mut i = 0;
    while i < width {
        v |= elem << i;
        i += size;
    }
    Some(mask(v, width))
}

fn logical_imm(w: u32, sf: bool) -> Option<String> {
    let width = if sf { 64 } else { 32 };
    let n = bits(w, 22, 1);
    if !sf && n == 1 {
        return None;
    }
    let v = decode_bitmask(n, bits(w, 16, 6), bits(w, 10, 6), width)?;
    let (rd, rn) = (bits(w, 0, 5), bits(w, 5, 5));
    let opc = bits(w, 29, 2);
    if opc == 1 && rn == 31 && !(any_movz(v, width) || any_movz(mask(!v, width), width)) {
        return Some(format!("mov\t{}, {}", reg(rd, sf, true), imm_hex_hash(sext(v, width))));
    }
    if opc == 3 && rd == 31 {
        return Some(format!("tst\t{}, #0x{v:x}", reg(rn, sf, false)));
    }
    let m = ["and", "orr", "eor", "ands"][opc as usize];
    Some(format!("{m}\t{}, {}, #0x{v:x}", reg(rd, sf, opc != 3), reg(rn, sf, false)))
}

fn bitfield(w: u32, sf: bool) -> Option<String> {
    let opc = bits(w, 29, 2);
    let n = bits(w, 22, 1);
    let (immr, imms) = (bits(w, 16, 6), bits(w, 10, 6));
    let width = if sf { 64 } else { 32 };
    if opc == 3 || n != sf as u32 || (!sf && (immr >= 32 || imms >= 32)) {
        return None;
    }
    let (rd, rn) = (reg(bits(w, 0, 5), sf, false), reg(bits(w, 5, 5), sf, false));
    let top = width - 1;
    if opc == 1 {
        // BFM: bfi or bfxil (LLVM 19 prints no bfc when disassembling).
        let (lsb, wid) = ((width - immr) % width, imms + 1);
        if imms < immr {
            return Some(format!("bfi\t{rd}, {rn}, #{lsb}, #{wid}"));
        }
        return Some(format!("bfxil\t{rd}, {rn}, #{immr}, #{}", imms - immr + 1));
    }
    let signed = opc == 0;
    if immr == 0 {
        let ext = match (imms, signed, sf) {
            (7, true, _) => Some("sxtb"),
            (7, false, false) => Some("uxtb"),
            (15, true, _) => Some("sxth"),
            (15, false, false) => Some("uxth"),
            (31, true, true) => Some("sxtw"),
            _ => None,
        };
        if let Some(m) = ext {
            return Some(format!("{m}\t{rd}, {}", reg(bits(w, 5, 5), false, false)));
        }
    }
    if !signed && imms != top && imms + 1 == immr {
        return Some(format!("lsl\t{rd}, {rn}, #{}", top - imms));
    }
    if imms == top {
        return Some(format!("{}\t{rd}, {rn}, #{immr}", if signed { "asr" } else { "lsr" }));
    }
    let p = if signed { "s" } else { "u" };
    if immr > imms {
        return Some(format!("{p}bfiz\t{rd}, {rn}, #{}, #{}", width - immr, imms + 1));
    }
    Some(format!("{p}bfx\t{rd}, {rn}, #{immr}, #{}", imms - immr + 1))
}

const EXTENDS: [&str; 8] = ["uxtb", "uxth", "uxtw", "uxtx", "sxtb", "sxth", "sxtw", "sxtx"];

fn add_sub_ext(w: u32, sf: bool) -> Option<String> {
    let (op, s) = (bits(w, 30, 1), bits(w, 29, 1));
    let (option, imm3) = (bits(w, 13, 3), bits(w, 10, 3));
    if imm3 > 4 || bits(w, 22, 2) != 0 {
        return None;
    }
    let (rd_n, rn_n, rm_n) = (bits(w, 0, 5), bits(w, 5, 5), bits(w, 16, 5));
    let rd = reg(rd_n, sf, s == 0);
    let rn = reg(rn_n, sf, true);
    let rm = reg(rm_n, sf && option & 3 == 3, false);
    // With [w]sp as Rd or Rn, uxtw (32-bit) / uxtx (64-bit) prints as lsl, or nothing.
    let sp_involved = (rd_n == 31 && s == 0) || rn_n == 31;
    let ext = if sp_involved && option == if sf { 3 } else { 2 } {
        if imm3 != 0 { format!(", lsl #{imm3}") } else { String::new() }
    } else if imm3 != 0 {
        format!(", {} #{imm3}", EXTENDS[option as usize])
    } else {
        format!(", {}", EXTENDS[option as usize])
    };
    let m = ["add", "adds", "sub", "subs"][(op * 2 + s) as usize];
    if s == 1 && rd_n == 31 {
        return Some(format!("{}\t{rn}, {rm}{ext}", if op == 0 { "cmn" } else { "cmp" }));
    }
    Some(format!("{m}\t{rd}, {rn}, {rm}{ext}"))
}

/// Register-offset loads/stores: LLVM prints `lsl #0` for a shifted byte
/// access, and an extend without `#0` when unshifted.
fn register_offset(w: u32, text: String) -> Option<String> {
    let at = text.find('[')?;
    let (size, v, opc) = (bits(w, 30, 2), bits(w, 26, 1), bits(w, 22, 2));
    let amount = if v == 1 && size == 0 && opc & 2 != 0 { 4 } else { size };
    let option = bits(w, 13, 3);
    let rn = reg(bits(w, 5, 5), true, true);
    let rm = reg(bits(w, 16, 5), option & 1 == 1, false);
    let shifted = bits(w, 12, 1) == 1;
    let ext = match (option, shifted) {
        (3, false) => String::new(),
        (3, true) => format!(", lsl #{amount}"),
        (2 | 6 | 7, _) => {
            let name = EXTENDS[option as usize];
            if shifted { format!(", {name} #{amount}") } else { format!(", {name}") }
        }
        _ => return None,
    };
    Some(format!("{}[{rn}, {rm}{ext}]", &text[..at]))
}
