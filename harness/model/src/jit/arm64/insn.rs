//! The A64 instruction encoder the arm64 JIT uses: our own counterpart of
//! `arch/arm64/lib/insn.c`'s `aarch64_insn_gen_*` generators, limited to
//! the forms `bpf_jit_comp.c` emits. Every generator returns the 32-bit
//! instruction word; the few that can refuse an operand (logical and
//! add/sub immediates, load/store offsets, branch ranges) return `None`
//! where the kernel's generator returns `AARCH64_BREAK_FAULT`.

/// A64 register numbers as the encodings use them (31 is `sp` or `xzr`
/// depending on the field).
pub type Reg = u8;
pub const FP: Reg = 29;
pub const LR: Reg = 30;
pub const ZR: Reg = 31;
pub const SP: Reg = 31;

/// Condition codes (`AARCH64_INSN_COND_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cond {
    Eq = 0,
    Ne = 1,
    Cs = 2,
    Cc = 3,
    Hi = 8,
    Ls = 9,
    Ge = 10,
    Lt = 11,
    Gt = 12,
    Le = 13,
}

fn sf(is64: bool) -> u32 {
    (is64 as u32) << 31
}

fn rd(r: Reg) -> u32 {
    (r & 31) as u32
}
fn rn(r: Reg) -> u32 {
    ((r & 31) as u32) << 5
}
fn rm(r: Reg) -> u32 {
    ((r & 31) as u32) << 16
}

/// `movz`/`movn`/`movk` (`aarch64_insn_gen_movewide`); `shift` is 0, 16,
/// 32 or 48 (32-bit forms: 0 or 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveWide {
    Inverse,
    Zero,
    Keep,
}

pub fn movewide(is64: bool, dst: Reg, imm16: u16, shift: u32, kind: MoveWide) -> u32 {
    let opc = match kind {
        MoveWide::Inverse => 0x1280_0000,
        MoveWide::Zero => 0x5280_0000,
        MoveWide::Keep => 0x7280_0000,
    };
    opc | sf(is64) | ((shift / 16) & 3) << 21 | (imm16 as u32) << 5 | rd(dst)
}

/// Add/sub flavours (`AARCH64_INSN_ADSB_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddSub {
    Add,
    Sub,
    AddS,
    SubS,
}

fn addsub_bits(t: AddSub) -> u32 {
    match t {
        AddSub::Add => 0,
        AddSub::AddS => 1 << 29,
        AddSub::Sub => 1 << 30,
        AddSub::SubS => 3 << 29,
    }
}

/// Add/sub immediate: a 12-bit value, or one shifted left by 12
/// (`aarch64_insn_gen_add_sub_imm`).
pub fn add_sub_imm(is64: bool, dst: Reg, src: Reg, imm: u32, t: AddSub) -> Option<u32> {
    let (imm12, sh) = if imm & !0xfff == 0 {
        (imm, 0)
    } else if imm & !0xff_f000 == 0 {
        (imm >> 12, 1)
    } else {
        return None;
    };
    Some(0x1100_0000 | addsub_bits(t) | sf(is64) | sh << 22 | imm12 << 10 | rn(src) | rd(dst))
}

/// Add/sub shifted register with shift 0.
pub fn add_sub_reg(is64: bool, dst: Reg, a: Reg, b: Reg, t: AddSub) -> u32 {
    0x0b00_0000 | addsub_bits(t) | sf(is64) | rm(b) | rn(a) | rd(dst)
}

/// `add xd, xn, wm, uxtw` (extended register, 64-bit).
pub fn add_uxtw(dst: Reg, a: Reg, b: Reg) -> u32 {
    0x8b20_4000 | rm(b) | rn(a) | rd(dst)
}

/// Logical operations (`AARCH64_INSN_LOGIC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    And,
    Orr,
    Eor,
    AndS,
    /// `orn` (shifted-register form only)
    Orn,
}

/// Logical shifted register with shift 0.
pub fn logic_reg(is64: bool, dst: Reg, a: Reg, b: Reg, t: Logic) -> u32 {
    let opc = match t {
        Logic::And => 0x0a00_0000,
        Logic::Orr => 0x2a00_0000,
        Logic::Eor => 0x4a00_0000,
        Logic::AndS => 0x6a00_0000,
        Logic::Orn => 0x2a20_0000,
    };
    opc | sf(is64) | rm(b) | rn(a) | rd(dst)
}

/// `mov` between general registers: `orr rd, zr, rm`
/// (`aarch64_insn_gen_move_reg`).
pub fn move_reg(is64: bool, dst: Reg, src: Reg) -> u32 {
    logic_reg(is64, dst, ZR, src, Logic::Orr)
}

/// The `N:immr:imms` fields of a bitmask immediate, or `None` when `value`
/// is not a replicated rotated run of ones (0 and all-ones never are). A
/// 32-bit operation takes only values below 2^32.
pub fn encode_bitmask_imm(is64: bool, value: u64) -> Option<(u32, u32, u32)> {
    let value = if is64 {
        value
    } else {
        if value >> 32 != 0 {
            return None;
        }
        value | value << 32
    };
    if value == 0 || value == u64::MAX {
        return None;
    }
    // the smallest element size the value repeats with
    let mut esize = 64u32;
    while esize > 2 {
        let half = esize / 2;
        let mask = (1u64 << half) - 1;
        if value & mask != (value >> half) & mask {
            break;
        }
        esize = half;
    }
    let emask = if esize == 64 { u64::MAX } else { (1u64 << esize) - 1 };
    let elem = value & emask;
    let ones = elem.count_ones();
    let run = (1u64 << ones) - 1;
    let ror = |v: u64, r: u32| if r == 0 { v } else { ((v >> r) | (v << (esize - r))) & emask };
    let immr = (0..esize).find(|&r| ror(run, r) == elem)?;
    let n = (esize == 64) as u32;
    let imms = ((!(esize - 1) << 1) | (ones - 1)) & 0x3f;
    Some((n, immr, imms))
}

/// Logical immediate (`aarch64_insn_gen_logical_immediate`); `None` when the
/// value has no bitmask encoding.
pub fn logic_imm(is64: bool, dst: Reg, src: Reg, value: u64, t: Logic) -> Option<u32> {
    let opc = match t {
        Logic::And => 0x1200_0000,
        Logic::Orr => 0x3200_0000,
        Logic::Eor => 0x5200_0000,
        Logic::AndS => 0x7200_0000,
        Logic::Orn => return None,
    };
    let (n, immr, imms) = encode_bitmask_imm(is64, value)?;
    Some(opc | sf(is64) | n << 22 | immr << 16 | imms << 10 | rn(src) | rd(dst))
}

/// `sbfm`/`ubfm` (`aarch64_insn_gen_bitfield`).
pub fn bitfield(is64: bool, dst: Reg, src: Reg, immr: u32, imms: u32, signed: bool) -> u32 {
    let opc = if signed { 0x1300_0000 } else { 0x5300_0000 };
    let n = (is64 as u32) << 22;
    opc | sf(is64) | n | (immr & 0x3f) << 16 | (imms & 0x3f) << 10 | rn(src) | rd(dst)
}

pub fn lsl_imm(is64: bool, dst: Reg, src: Reg, shift: u32) -> u32 {
    let size = if is64 { 64 } else { 32 };
    let shift = shift % size;
    bitfield(is64, dst, src, (size - shift) % size, size - 1 - shift, false)
}

pub fn lsr_imm(is64: bool, dst: Reg, src: Reg, shift: u32) -> u32 {
    bitfield(is64, dst, src, shift, if is64 { 63 } else { 31 }, false)
}

pub fn asr_imm(is64: bool, dst: Reg, src: Reg, shift: u32) -> u32 {
    bitfield(is64, dst, src, shift, if is64 { 63 } else { 31 }, true)
}

/// One-source data processing (`AARCH64_INSN_DATA1_REVERSE_*`).
pub fn rev16(is64: bool, dst: Reg, src: Reg) -> u32 {
    0x5ac0_0400 | sf(is64) | rn(src) | rd(dst)
}
/// `rev32` on 64 bits, `rev` on 32.
pub fn rev32(is64: bool, dst: Reg, src: Reg) -> u32 {
    0x5ac0_0800 | sf(is64) | rn(src) | rd(dst)
}
pub fn rev64(dst: Reg, src: Reg) -> u32 {
    0xdac0_0c00 | rn(src) | rd(dst)
}

/// Two-source data processing (`AARCH64_INSN_DATA2_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data2 {
    Udiv,
    Sdiv,
    Lslv,
    Lsrv,
    Asrv,
}

pub fn data2(is64: bool, dst: Reg, a: Reg, b: Reg, t: Data2) -> u32 {
    let op = match t {
        Data2::Udiv => 0x0800,
        Data2::Sdiv => 0x0c00,
        Data2::Lslv => 0x2000,
        Data2::Lsrv => 0x2400,
        Data2::Asrv => 0x2800,
    };
    0x1ac0_0000 | op | sf(is64) | rm(b) | rn(a) | rd(dst)
}

/// `madd`/`msub` (`aarch64_insn_gen_data3`): dst = acc +/- a * b.
pub fn data3(is64: bool, dst: Reg, acc: Reg, a: Reg, b: Reg, sub: bool) -> u32 {
    0x1b00_0000 | (sub as u32) << 15 | sf(is64) | rm(b) | ((acc & 31) as u32) << 10 | rn(a) | rd(dst)
}

/// Load/store access sizes in bytes as log2 (0: byte .. 3: doubleword).
pub type SizeLog2 = u32;

/// Load/store kinds (`AARCH64_INSN_LDST_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LdSt {
    Store,
    Load,
    /// sign-extending load into an X register
    SignedLoad,
}

fn ldst_opc(t: LdSt) -> u32 {
    match t {
        LdSt::Store => 0,
        LdSt::Load => 1 << 22,
        LdSt::SignedLoad => 2 << 22,
    }
}

/// Load/store with an unsigned, size-scaled 12-bit offset
/// (`aarch64_insn_gen_load_store_imm`, `*_IMM_OFFSET`).
pub fn load_store_imm(rt: Reg, base: Reg, offset: i32, size: SizeLog2, t: LdSt) -> Option<u32> {
    if offset < 0 || offset & ((1 << size) - 1) != 0 || (offset >> size) > 0xfff {
        return None;
    }
    let imm12 = (offset >> size) as u32;
    Some(0x3900_0000 | size << 30 | ldst_opc(t) | imm12 << 10 | rn(base) | rd(rt))
}

/// Load/store with a register offset (`*_REG_OFFSET`): `lsl #0`, except
/// that the kernel's sign-extending form (`signed_ldr_reg`) extends the
/// offset with `sxtx`.
pub fn load_store_reg(rt: Reg, base: Reg, offset: Reg, size: SizeLog2, t: LdSt) -> u32 {
    let option = if t == LdSt::SignedLoad { 0b111 } else { 0b011 };
    0x3820_0800 | option << 13 | size << 30 | ldst_opc(t) | rm(offset) | rn(base) | rd(rt)
}

/// `ldr xt, #offset` (PC-relative literal; `offset` in bytes, multiple of 4).
pub fn load_literal64(rt: Reg, offset: i32) -> u32 {
    0x5800_0000 | (((offset >> 2) as u32) & 0x7_ffff) << 5 | rd(rt)
}

/// `stp rt, rt2, [rn, #off]!` and `ldp rt, rt2, [rn], #off` of X registers
/// (the JIT's `A64_PUSH`/`A64_POP`).
pub fn push(rt: Reg, rt2: Reg, base: Reg) -> u32 {
    pair(rt, rt2, base, -16, 0xa980_0000)
}
pub fn pop(rt: Reg, rt2: Reg, base: Reg) -> u32 {
    pair(rt, rt2, base, 16, 0xa8c0_0000)
}
fn pair(rt: Reg, rt2: Reg, base: Reg, offset: i32, opc: u32) -> u32 {
    let imm7 = ((offset >> 3) as u32) & 0x7f;
    opc | imm7 << 15 | ((rt2 & 31) as u32) << 10 | rn(base) | rd(rt)
}

/// `ldxr` / `stxr` / `stlxr` (`aarch64_insn_gen_load_store_ex`); `status`
/// is `ws` of the stores.
pub fn ldxr(is64: bool, rt: Reg, base: Reg) -> u32 {
    0x885f_7c00 | (is64 as u32) << 30 | rn(base) | rd(rt)
}
pub fn stxr(is64: bool, rt: Reg, base: Reg, status: Reg, release: bool) -> u32 {
    0x8800_7c00 | (release as u32) << 15 | (is64 as u32) << 30 | rm(status) | rn(base) | rd(rt)
}

/// `ldar*` / `stlr*` (`aarch64_insn_gen_load_acq_store_rel`).
pub fn load_acquire(rt: Reg, base: Reg, size: SizeLog2) -> u32 {
    0x08df_fc00 | size << 30 | rn(base) | rd(rt)
}
pub fn store_release(rt: Reg, base: Reg, size: SizeLog2) -> u32 {
    0x089f_fc00 | size << 30 | rn(base) | rd(rt)
}

/// LSE atomic memory operations (`AARCH64_INSN_MEM_ATOMIC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Clr,
    Eor,
    Set,
    Swp,
}

/// `ld<op>[al] rs, rt, [rn]` / `swp[al]` (`aarch64_insn_gen_atomic_ld_op`);
/// `rt` = `xzr` without ordering is the `st<op>` alias.
pub fn atomic_ld_op(is64: bool, rt: Reg, base: Reg, rs: Reg, op: AtomicOp, acq_rel: bool) -> u32 {
    let opc = match op {
        AtomicOp::Add => 0x0000,
        AtomicOp::Clr => 0x1000,
        AtomicOp::Eor => 0x2000,
        AtomicOp::Set => 0x3000,
        AtomicOp::Swp => 0x8000,
    };
    let size = if is64 { 3 } else { 2 };
    let order = if acq_rel { 3 << 22 } else { 0 };
    0x3820_0000 | opc | size << 30 | order | rm(rs) | rn(base) | rd(rt)
}

/// `casal rs, rt, [rn]` (`aarch64_insn_gen_cas` with acquire-release).
pub fn casal(is64: bool, rt: Reg, base: Reg, rs: Reg) -> u32 {
    let size = if is64 { 3 } else { 2 };
    0x08e0_fc00 | size << 30 | rm(rs) | rn(base) | rd(rt)
}

fn fits(value: i64, bits: u32) -> bool {
    let lim = 1i64 << (bits - 1);
    (-lim..lim).contains(&value)
}

/// `b`/`bl` by `insns` instructions.
pub fn branch_imm(insns: i64, link: bool) -> Option<u32> {
    let op = if link { 0x9400_0000 } else { 0x1400_0000 };
    fits(insns, 26).then_some(op | (insns as u32 & 0x03ff_ffff))
}

/// `b.<cond>` by `insns` instructions.
pub fn cond_branch(cond: Cond, insns: i64) -> Option<u32> {
    fits(insns, 19).then_some(0x5400_0000 | (insns as u32 & 0x7_ffff) << 5 | cond as u32)
}

/// `cbz`/`cbnz` by `insns` instructions.
pub fn comp_branch(is64: bool, rt: Reg, insns: i64, nonzero: bool) -> Option<u32> {
    fits(insns, 19).then_some(0x3400_0000 | (nonzero as u32) << 24 | sf(is64) | (insns as u32 & 0x7_ffff) << 5 | rd(rt))
}

/// `adr rd, #offset` (`aarch64_insn_gen_adr` of `AARCH64_INSN_ADR_TYPE_ADR`,
/// `offset` in bytes from the instruction, within +-1M).
pub fn adr(dst: Reg, offset: i64) -> Option<u32> {
    fits(offset, 21).then_some(0x1000_0000 | ((offset as u32) & 3) << 29 | ((offset as u32 >> 2) & 0x7_ffff) << 5 | rd(dst))
}

/// `br`/`blr`/`ret` (`aarch64_insn_gen_branch_reg`).
pub fn br(r: Reg) -> u32 {
    0xd61f_0000 | rn(r)
}
pub fn blr(r: Reg) -> u32 {
    0xd63f_0000 | rn(r)
}
pub fn ret(r: Reg) -> u32 {
    0xd65f_0000 | rn(r)
}

/// Hints and barriers.
pub const NOP: u32 = 0xd503_201f;
pub const PACIASP: u32 = 0xd503_233f;
pub const AUTIASP: u32 = 0xd503_23bf;
pub const BTI_C: u32 = 0xd503_245f;
pub const BTI_J: u32 = 0xd503_249f;
pub const BTI_JC: u32 = 0xd503_24df;
pub const DMB_ISH: u32 = 0xd503_3bbf;
pub const DSB_NSH: u32 = 0xd503_379f;
pub const ISB: u32 = 0xd503_3fdf;
pub const SB: u32 = 0xd503_30ff;

/// System registers the JIT reads (`AARCH64_INSN_SYSREG_*`, as the
/// `op0:op1:CRn:CRm:op2` field of `mrs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SysReg {
    SpEl0,
    TpidrEl1,
    TpidrEl2,
}

pub fn mrs(rt: Reg, reg: SysReg) -> u32 {
    let field = match reg {
        SysReg::SpEl0 => 0x8_4100,
        SysReg::TpidrEl1 => 0x8_d080,
        SysReg::TpidrEl2 => 0xc_d040,
    };
    0xd530_0000 | field | rd(rt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_words_from_7_3_images() {
        assert_eq!(move_reg(true, 9, LR), 0xaa1e_03e9);
        assert_eq!(push(FP, LR, SP), 0xa9bf_7bfd);
        assert_eq!(pop(FP, LR, SP), 0xa8c1_7bfd);
        assert_eq!(add_sub_imm(true, FP, SP, 0, AddSub::Add), Some(0x9100_03fd));
        assert_eq!(load_literal64(10, 8), 0x5800_004a);
        assert_eq!(br(10), 0xd61f_0140);
        assert_eq!(lsl_imm(true, 8, 8, 3), 0xd37d_f108);
        assert_eq!(cond_branch(Cond::Cs, 4), Some(0x5400_0082));
        assert_eq!(adr(LR, 8), Some(0x1000_005e));
        assert_eq!(adr(0, -4), Some(0x10ff_ffe0));
        assert_eq!(adr(0, -1), Some(0x70ff_ffe0));
        assert_eq!(adr(0, 1 << 20), None);
    }

    #[test]
    fn bitmask_immediates() {
        assert_eq!(encode_bitmask_imm(true, 0xffff), Some((1, 0, 15)));
        assert_eq!(encode_bitmask_imm(false, 0xffff), Some((0, 0, 15)));
        assert_eq!(encode_bitmask_imm(true, 0x5555_5555_5555_5555), Some((0, 0, 0x3c)));
        assert_eq!(encode_bitmask_imm(true, 0), None);
        assert_eq!(encode_bitmask_imm(false, u32::MAX as u64), None);
        assert_eq!(encode_bitmask_imm(true, 0x1234), None);
        assert_eq!(encode_bitmask_imm(false, 0x1_0000_0000), None);
    }
}
