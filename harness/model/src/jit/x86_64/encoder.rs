//! The x86-64 encodings the BPF JIT uses, byte for byte as
//! `arch/x86/net/bpf_jit_comp.c` spells them: which REX prefix, which
//! opcode form (imm8 vs imm32, short forms for rax), which ModRM mode (a
//! memory operand always carries a displacement, disp8 when it fits,
//! because r13 as a base would need one anyway).

/// An x86-64 general purpose register by its hardware number
/// (rax 0 ... rdi 7, r8 8 ... r15 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(u8);

impl Reg {
    pub const RAX: Reg = Reg(0);
    pub const RCX: Reg = Reg(1);
    pub const RDX: Reg = Reg(2);
    pub const RBX: Reg = Reg(3);
    pub const RSP: Reg = Reg(4);
    pub const RBP: Reg = Reg(5);
    pub const RSI: Reg = Reg(6);
    pub const RDI: Reg = Reg(7);
    pub const R8: Reg = Reg(8);
    pub const R9: Reg = Reg(9);
    pub const R10: Reg = Reg(10);
    pub const R11: Reg = Reg(11);
    pub const R12: Reg = Reg(12);
    pub const R13: Reg = Reg(13);
    pub const R14: Reg = Reg(14);
    pub const R15: Reg = Reg(15);

    /// `n` in 0..16.
    pub fn from_num(n: u8) -> Option<Reg> {
        (n < 16).then_some(Reg(n))
    }
    pub fn num(self) -> u8 {
        self.0
    }
    /// The 3 bits that go into ModRM/SIB/opcode.
    pub fn low(self) -> u8 {
        self.0 & 7
    }
    /// r8..r15: needs a REX bit.
    pub fn is_ext(self) -> bool {
        self.0 >= 8
    }
    /// Its low byte needs a REX prefix to be addressed (spl, bpl, sil, dil
    /// and r8b..r15b; without REX those encodings mean ah..bh).
    pub fn byte_needs_rex(self) -> bool {
        self.0 >= 4
    }
}

/// When a REX prefix is emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rex {
    /// REX.W, always (64-bit operand size).
    W,
    /// Only when some register is r8..r15 (32-bit operand size).
    IfExt,
    /// Always, even as a bare 0x40 (byte registers spl..dil, or where the
    /// kernel's encoding happens to always carry one).
    Always,
}

impl Rex {
    pub fn w(is64: bool) -> Rex {
        if is64 { Rex::W } else { Rex::IfExt }
    }
}

/// Condition codes of `jcc` (the low nibble of `0x7X` / `0x0f 0x8X`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    B = 0x2,
    Ae = 0x3,
    E = 0x4,
    Ne = 0x5,
    Be = 0x6,
    A = 0x7,
    L = 0xc,
    Ge = 0xd,
    Le = 0xe,
    G = 0xf,
}

/// Two-operand ALU ops of the `0x01`-style (`op r/m, reg`) family and the
/// `/digit` of their `0x81`/`0x83` immediate forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    Add,
    Or,
    And,
    Sub,
    Xor,
    Cmp,
}

impl AluOp {
    /// `op r/m, reg`
    fn rm_reg_opcode(self) -> u8 {
        match self {
            AluOp::Add => 0x01,
            AluOp::Or => 0x09,
            AluOp::And => 0x21,
            AluOp::Sub => 0x29,
            AluOp::Xor => 0x31,
            AluOp::Cmp => 0x39,
        }
    }
    /// The ModRM reg field of the immediate forms.
    fn digit(self) -> u8 {
        match self {
            AluOp::Add => 0,
            AluOp::Or => 1,
            AluOp::And => 4,
            AluOp::Sub => 5,
            AluOp::Xor => 6,
            AluOp::Cmp => 7,
        }
    }
}

/// Shifts: the `/digit` of `0xc1`/`0xd1`/`0xd3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftOp {
    Rol = 0,
    Ror = 1,
    Shl = 4,
    Shr = 5,
    Sar = 7,
}

/// Operand width of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    B,
    H,
    W,
    Dw,
}

/// The kernel's optimal nops (`x86_nops[]`), 1 to `ASM_NOP_MAX` (11 on
/// x86-64: the 9 to 11 byte ones prefix the 8-byte nop with `cs` and
/// operand size prefixes).
const NOPS: [&[u8]; 12] = [
    &[],
    &[0x90],
    &[0x66, 0x90],
    &[0x0f, 0x1f, 0x00],
    &[0x0f, 0x1f, 0x40, 0x00],
    &[0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
    &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
    &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    &[0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
];

pub fn is_imm8(v: i64) -> bool {
    (-128..=127).contains(&v)
}

pub fn is_simm32(v: i64) -> bool {
    v == v as i32 as i64
}

/// A growing piece of machine code.
#[derive(Clone, Debug, Default)]
pub struct Emitter {
    pub buf: Vec<u8>,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter::default()
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    pub fn imm16(&mut self, v: i32) {
        self.bytes(&(v as u16).to_le_bytes());
    }
    pub fn imm32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }
    /// An immediate of a memory store: 1, 2 or 4 bytes (a 64-bit store
    /// takes a sign-extended imm32).
    pub fn imm_of(&mut self, w: Width, v: i32) {
        match w {
            Width::B => self.byte(v as u8),
            Width::H => self.imm16(v),
            Width::W | Width::Dw => self.imm32(v),
        }
    }

    /// REX for `reg` (ModRM.reg), `index` (SIB.index), `rm` (ModRM.rm,
    /// SIB.base or the opcode's register).
    pub fn rex(&mut self, rex: Rex, reg: Option<Reg>, index: Option<Reg>, rm: Option<Reg>) {
        let bit = |r: Option<Reg>, b: u8| if r.is_some_and(Reg::is_ext) { b } else { 0 };
        let bits = bit(reg, 4) | bit(index, 2) | bit(rm, 1);
        match rex {
            Rex::W => self.byte(0x48 | bits),
            Rex::Always => self.byte(0x40 | bits),
            Rex::IfExt if bits != 0 => self.byte(0x40 | bits),
            Rex::IfExt => {}
        }
    }

    /// ModRM with mod 3 (register direct).
    pub fn modrm_reg(&mut self, reg: u8, rm: Reg) {
        self.byte(0xc0 | (reg & 7) << 3 | rm.low());
    }

    /// ModRM (+SIB) + displacement of `[base + disp]`: always a displacement,
    /// disp8 when it fits.
    pub fn modrm_mem(&mut self, reg: u8, base: Reg, disp: i32) {
        let md = if is_imm8(disp as i64) { 0x40 } else { 0x80 };
        self.byte(md | (reg & 7) << 3 | base.low());
        if base.low() == 4 {
            // rsp/r12 as a base: SIB without index
            self.byte(0x24);
        }
        self.disp(disp);
    }

    /// ModRM + SIB + displacement of `[base + index*1 + disp]`.
    pub fn modrm_sib(&mut self, reg: u8, base: Reg, index: Reg, disp: i32) {
        let md = if is_imm8(disp as i64) { 0x44 } else { 0x84 };
        self.byte(md | (reg & 7) << 3);
        self.byte(index.low() << 3 | base.low());
        self.disp(disp);
    }

    fn disp(&mut self, disp: i32) {
        if is_imm8(disp as i64) {
            self.byte(disp as u8);
        } else {
            self.imm32(disp);
        }
    }

    pub fn nops(&mut self, mut len: usize) {
        while len > 0 {
            let n = len.min(NOPS.len() - 1);
            self.bytes(NOPS[n]);
            len -= n;
        }
    }

    pub fn endbr64(&mut self) {
        self.bytes(&[0xf3, 0x0f, 0x1e, 0xfa]);
    }

    pub fn push(&mut self, r: Reg) {
        self.rex(Rex::IfExt, None, None, Some(r));
        self.byte(0x50 + r.low());
    }

    pub fn pop(&mut self, r: Reg) {
        self.rex(Rex::IfExt, None, None, Some(r));
        self.byte(0x58 + r.low());
    }

    /// `op dst, src` (register to register, the `0x01` family).
    pub fn alu_rr(&mut self, op: AluOp, is64: bool, dst: Reg, src: Reg) {
        self.rex(Rex::w(is64), Some(src), None, Some(dst));
        self.byte(op.rm_reg_opcode());
        self.modrm_reg(src.low(), dst);
    }

    /// `op dst, imm`: imm8 form when it fits, else the short rax form, else
    /// `0x81 /digit imm32`.
    pub fn alu_ri(&mut self, op: AluOp, is64: bool, dst: Reg, imm: i32) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        if is_imm8(imm as i64) {
            self.byte(0x83);
            self.modrm_reg(op.digit(), dst);
            self.byte(imm as u8);
        } else if dst == Reg::RAX {
            self.byte(op.rm_reg_opcode() + 4);
            self.imm32(imm);
        } else {
            self.byte(0x81);
            self.modrm_reg(op.digit(), dst);
            self.imm32(imm);
        }
    }

    /// `op dst, imm32` always in the `0x81 /digit` form (no imm8, no rax
    /// short form).
    pub fn alu_ri32(&mut self, op: AluOp, is64: bool, dst: Reg, imm: i32) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        self.byte(0x81);
        self.modrm_reg(op.digit(), dst);
        self.imm32(imm);
    }

    /// `op qword/dword [base + disp], imm8` (`0x83 /digit`).
    pub fn alu_mi8(&mut self, op: AluOp, is64: bool, base: Reg, disp: i32, imm: i8) {
        self.rex(Rex::w(is64), None, None, Some(base));
        self.byte(0x83);
        self.modrm_mem(op.digit(), base, disp);
        self.byte(imm as u8);
    }

    /// `op [base + disp], reg` (`cmp dword [rsi + 16], edx` of tail calls).
    pub fn alu_mr(&mut self, op: AluOp, is64: bool, base: Reg, disp: i32, reg: Reg) {
        self.rex(Rex::w(is64), Some(reg), None, Some(base));
        self.byte(op.rm_reg_opcode());
        self.modrm_mem(reg.low(), base, disp);
    }

    /// `test dst, src`
    pub fn test_rr(&mut self, is64: bool, dst: Reg, src: Reg) {
        self.rex(Rex::w(is64), Some(src), None, Some(dst));
        self.byte(0x85);
        self.modrm_reg(src.low(), dst);
    }

    /// `test dst, imm32`
    pub fn test_ri(&mut self, is64: bool, dst: Reg, imm: i32) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        self.byte(0xf7);
        self.modrm_reg(0, dst);
        self.imm32(imm);
    }

    /// `mov dst, src` (`0x89`); the 64-bit form of a register onto itself is
    /// left out, as the kernel's `EMIT_mov` does.
    pub fn mov_rr(&mut self, is64: bool, dst: Reg, src: Reg) {
        if is64 && dst == src {
            return;
        }
        self.rex(Rex::w(is64), Some(src), None, Some(dst));
        self.byte(0x89);
        self.modrm_reg(src.low(), dst);
    }

    /// `mov dst, imm32` zero-extending (`0xb8+r`).
    pub fn mov_ri32(&mut self, dst: Reg, imm: u32) {
        self.rex(Rex::IfExt, None, None, Some(dst));
        self.byte(0xb8 + dst.low());
        self.imm32(imm as i32);
    }

    /// `mov dst, imm32` sign-extended to 64 bits (`REX.W 0xc7 /0`).
    pub fn mov_ri_sx(&mut self, dst: Reg, imm: i32) {
        self.rex(Rex::W, None, None, Some(dst));
        self.byte(0xc7);
        self.modrm_reg(0, dst);
        self.imm32(imm);
    }

    /// `movabs dst, imm64`
    pub fn movabs(&mut self, dst: Reg, imm: u64) {
        self.rex(Rex::W, None, None, Some(dst));
        self.byte(0xb8 + dst.low());
        self.bytes(&imm.to_le_bytes());
    }

    /// `xor dst32, dst32` (zeroes the whole register).
    pub fn zero(&mut self, dst: Reg) {
        self.rex(Rex::IfExt, Some(dst), None, Some(dst));
        self.byte(0x31);
        self.modrm_reg(dst.low(), dst);
    }

    /// `movsx`/`movsxd` register forms (8/16/32 bits into 32/64 bits). A byte
    /// source always gets a REX (sil/dil), as the kernel always emits one.
    pub fn movsx_rr(&mut self, bits: u8, is64: bool, dst: Reg, src: Reg) {
        let rex = match (bits, is64) {
            (_, true) => Rex::W,
            (8, false) => Rex::Always,
            _ => Rex::IfExt,
        };
        self.rex(rex, Some(dst), None, Some(src));
        match bits {
            8 => self.bytes(&[0x0f, 0xbe]),
            16 => self.bytes(&[0x0f, 0xbf]),
            _ => self.byte(0x63),
        }
        self.modrm_reg(dst.low(), src);
    }

    /// `movzx dst32, src16` (`0x0f 0xb7`).
    pub fn movzx16_rr(&mut self, dst: Reg, src: Reg) {
        self.rex(Rex::IfExt, Some(dst), None, Some(src));
        self.bytes(&[0x0f, 0xb7]);
        self.modrm_reg(dst.low(), src);
    }

    /// `ror dst16, imm8` (`0x66 0xc1 /1`).
    pub fn ror16_ri(&mut self, dst: Reg, imm: u8) {
        self.byte(0x66);
        self.rex(Rex::IfExt, None, None, Some(dst));
        self.byte(0xc1);
        self.modrm_reg(ShiftOp::Ror as u8, dst);
        self.byte(imm);
    }

    /// `bswap dst` (32 or 64 bits).
    pub fn bswap(&mut self, is64: bool, dst: Reg) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        self.bytes(&[0x0f, 0xc8 + dst.low()]);
    }

    /// `neg dst`
    pub fn neg(&mut self, is64: bool, dst: Reg) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        self.byte(0xf7);
        self.modrm_reg(3, dst);
    }

    /// `imul dst, src`
    pub fn imul_rr(&mut self, is64: bool, dst: Reg, src: Reg) {
        self.rex(Rex::w(is64), Some(dst), None, Some(src));
        self.bytes(&[0x0f, 0xaf]);
        self.modrm_reg(dst.low(), src);
    }

    /// `imul dst, src, imm` (imm8 form when it fits).
    pub fn imul_rri(&mut self, is64: bool, dst: Reg, src: Reg, imm: i32) {
        self.rex(Rex::w(is64), Some(dst), None, Some(src));
        if is_imm8(imm as i64) {
            self.byte(0x6b);
            self.modrm_reg(dst.low(), src);
            self.byte(imm as u8);
        } else {
            self.byte(0x69);
            self.modrm_reg(dst.low(), src);
            self.imm32(imm);
        }
    }

    /// `div`/`idiv src` (`0xf7 /6`, `/7`).
    pub fn div(&mut self, signed: bool, is64: bool, src: Reg) {
        self.rex(Rex::w(is64), None, None, Some(src));
        self.byte(0xf7);
        self.modrm_reg(if signed { 7 } else { 6 }, src);
    }

    /// `shl/shr/sar/rol dst, imm` (`0xd1` for 1, else `0xc1`).
    pub fn shift_ri(&mut self, op: ShiftOp, is64: bool, dst: Reg, imm: u8) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        if imm == 1 {
            self.byte(0xd1);
            self.modrm_reg(op as u8, dst);
        } else {
            self.byte(0xc1);
            self.modrm_reg(op as u8, dst);
            self.byte(imm);
        }
    }

    /// `shl/shr/sar dst, cl`
    pub fn shift_cl(&mut self, op: ShiftOp, is64: bool, dst: Reg) {
        self.rex(Rex::w(is64), None, None, Some(dst));
        self.byte(0xd3);
        self.modrm_reg(op as u8, dst);
    }

    /// BMI2 `shlx/shrx/sarx dst, src, count` (VEX.0F38 0xf7; pp selects the
    /// op: 1 shlx (66), 2 sarx (f3), 3 shrx (f2)).
    pub fn shiftx(&mut self, op: ShiftOp, is64: bool, dst: Reg, src: Reg, count: Reg) {
        let pp = match op {
            ShiftOp::Shl => 1,
            ShiftOp::Sar => 2,
            _ => 3,
        };
        let b1 = (u8::from(!dst.is_ext()) << 7) | (1 << 6) | (u8::from(!src.is_ext()) << 5) | 2;
        let b2 = (u8::from(is64) << 7) | ((!count.num() & 0xf) << 3) | pp;
        self.bytes(&[0xc4, b1, b2, 0xf7]);
        self.modrm_reg(dst.low(), src);
    }

    /// `cdq` / `cqo`
    pub fn sign_extend_rax(&mut self, is64: bool) {
        if is64 {
            self.byte(0x48);
        }
        self.byte(0x99);
    }

    /// `movzx`/`mov` load `dst = [base + disp]`: byte and word loads are
    /// `movzx` with REX.W, dword `mov r32`, qword `mov r64`.
    pub fn load(&mut self, w: Width, dst: Reg, base: Reg, disp: i32) {
        match w {
            Width::B | Width::H => {
                self.rex(Rex::W, Some(dst), None, Some(base));
                self.bytes(&[0x0f, if w == Width::B { 0xb6 } else { 0xb7 }]);
            }
            Width::W | Width::Dw => {
                self.rex(Rex::w(w == Width::Dw), Some(dst), None, Some(base));
                self.byte(0x8b);
            }
        }
        self.modrm_mem(dst.low(), base, disp);
    }

    /// Sign-extending load into 64 bits (`movsx`/`movsxd` with REX.W).
    pub fn load_sx(&mut self, w: Width, dst: Reg, base: Reg, disp: i32) {
        self.rex(Rex::W, Some(dst), None, Some(base));
        match w {
            Width::B => self.bytes(&[0x0f, 0xbe]),
            Width::H => self.bytes(&[0x0f, 0xbf]),
            _ => self.byte(0x63),
        }
        self.modrm_mem(dst.low(), base, disp);
    }

    /// `[base + index + disp]` loads (arena accesses); every form carries a
    /// REX (REX.W only for qwords and sign extension).
    pub fn load_index(&mut self, w: Width, sx: bool, dst: Reg, base: Reg, index: Reg, disp: i32) {
        let rex = if sx || w == Width::Dw { Rex::W } else { Rex::Always };
        self.rex(rex, Some(dst), Some(index), Some(base));
        match (w, sx) {
            (Width::B, false) => self.bytes(&[0x0f, 0xb6]),
            (Width::H, false) => self.bytes(&[0x0f, 0xb7]),
            (Width::B, true) => self.bytes(&[0x0f, 0xbe]),
            (Width::H, true) => self.bytes(&[0x0f, 0xbf]),
            (_, true) => self.byte(0x63),
            _ => self.byte(0x8b),
        }
        self.modrm_sib(dst.low(), base, index, disp);
    }

    /// Store `[base + disp] = src`.
    pub fn store(&mut self, w: Width, base: Reg, src: Reg, disp: i32) {
        match w {
            Width::B => {
                let rex = if src.byte_needs_rex() { Rex::Always } else { Rex::IfExt };
                self.rex(rex, Some(src), None, Some(base));
                self.byte(0x88);
            }
            Width::H => {
                self.byte(0x66);
                self.rex(Rex::IfExt, Some(src), None, Some(base));
                self.byte(0x89);
            }
            Width::W | Width::Dw => {
                self.rex(Rex::w(w == Width::Dw), Some(src), None, Some(base));
                self.byte(0x89);
            }
        }
        self.modrm_mem(src.low(), base, disp);
    }

    /// Store `[base + index + disp] = src` (always a REX).
    pub fn store_index(&mut self, w: Width, base: Reg, src: Reg, index: Reg, disp: i32) {
        if w == Width::H {
            self.byte(0x66);
        }
        self.rex(if w == Width::Dw { Rex::W } else { Rex::Always }, Some(src), Some(index), Some(base));
        self.byte(if w == Width::B { 0x88 } else { 0x89 });
        self.modrm_sib(src.low(), base, index, disp);
    }

    /// Store `[base + disp] = imm` (`0xc6`/`0xc7 /0`).
    pub fn store_imm(&mut self, w: Width, base: Reg, disp: i32, imm: i32) {
        if w == Width::H {
            self.byte(0x66);
        }
        self.rex(if w == Width::Dw { Rex::W } else { Rex::IfExt }, None, None, Some(base));
        self.byte(if w == Width::B { 0xc6 } else { 0xc7 });
        self.modrm_mem(0, base, disp);
        self.imm_of(w, imm);
    }

    /// Store `[base + index + disp] = imm` (always a REX).
    pub fn store_imm_index(&mut self, w: Width, base: Reg, index: Reg, disp: i32, imm: i32) {
        if w == Width::H {
            self.byte(0x66);
        }
        self.rex(if w == Width::Dw { Rex::W } else { Rex::Always }, None, Some(index), Some(base));
        self.byte(if w == Width::B { 0xc6 } else { 0xc7 });
        self.modrm_sib(0, base, index, disp);
        self.imm_of(w, imm);
    }

    /// `jcc rel8`
    pub fn jcc8(&mut self, c: Cond, rel: i8) {
        self.bytes(&[0x70 | c as u8, rel as u8]);
    }

    /// `jcc rel32`
    pub fn jcc32(&mut self, c: Cond, rel: i32) {
        self.bytes(&[0x0f, 0x80 | c as u8]);
        self.imm32(rel);
    }

    /// `jmp rel8`
    pub fn jmp8(&mut self, rel: i8) {
        self.bytes(&[0xeb, rel as u8]);
    }

    /// `jmp rel32`
    pub fn jmp32(&mut self, rel: i32) {
        self.byte(0xe9);
        self.imm32(rel);
    }

    /// `call rel32`
    pub fn call32(&mut self, rel: i32) {
        self.byte(0xe8);
        self.imm32(rel);
    }

    /// `jmp reg`
    pub fn jmp_reg(&mut self, r: Reg) {
        self.rex(Rex::IfExt, None, None, Some(r));
        self.byte(0xff);
        self.modrm_reg(4, r);
    }

    /// `lfence`
    pub fn lfence(&mut self) {
        self.bytes(&[0x0f, 0xae, 0xe8]);
    }
}
