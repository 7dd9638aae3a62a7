//! The 8-byte BPF instruction (`struct bpf_insn`) and the opcode vocabulary of
//! `include/uapi/linux/bpf.h` / `bpf_common.h`, named as the kernel names them.

use std::fmt;

/// Opcode classes, sizes, modes, ops and sources, with the kernel's names.
pub mod op {
    // classes (code & 0x07)
    pub const BPF_LD: u8 = 0x00;
    pub const BPF_LDX: u8 = 0x01;
    pub const BPF_ST: u8 = 0x02;
    pub const BPF_STX: u8 = 0x03;
    pub const BPF_ALU: u8 = 0x04;
    pub const BPF_JMP: u8 = 0x05;
    pub const BPF_JMP32: u8 = 0x06;
    pub const BPF_ALU64: u8 = 0x07;

    // sizes (code & 0x18)
    pub const BPF_W: u8 = 0x00;
    pub const BPF_H: u8 = 0x08;
    pub const BPF_B: u8 = 0x10;
    pub const BPF_DW: u8 = 0x18;

    // modes (code & 0xe0)
    pub const BPF_IMM: u8 = 0x00;
    pub const BPF_ABS: u8 = 0x20;
    pub const BPF_IND: u8 = 0x40;
    pub const BPF_MEM: u8 = 0x60;
    pub const BPF_MEMSX: u8 = 0x80;
    pub const BPF_ATOMIC: u8 = 0xc0;
    /// Kernel-internal ST mode: speculation barrier (`nospec`).
    pub const BPF_NOSPEC: u8 = 0xc0;
    /// Kernel-internal modes the JITs see after fixups.
    pub const BPF_PROBE_MEM: u8 = 0x20;
    pub const BPF_PROBE_MEMSX: u8 = 0x40;
    pub const BPF_PROBE_MEM32: u8 = 0xa0;
    /// A sign-extending load from an arena.
    pub const BPF_PROBE_MEM32SX: u8 = 0xc0;
    pub const BPF_PROBE_ATOMIC: u8 = 0xe0;

    // sources (code & 0x08)
    pub const BPF_K: u8 = 0x00;
    pub const BPF_X: u8 = 0x08;
    /// END: to little endian / to big endian (ALU class).
    pub const BPF_TO_LE: u8 = 0x00;
    pub const BPF_TO_BE: u8 = 0x08;

    // ALU ops (code & 0xf0)
    pub const BPF_ADD: u8 = 0x00;
    pub const BPF_SUB: u8 = 0x10;
    pub const BPF_MUL: u8 = 0x20;
    pub const BPF_DIV: u8 = 0x30;
    pub const BPF_OR: u8 = 0x40;
    pub const BPF_AND: u8 = 0x50;
    pub const BPF_LSH: u8 = 0x60;
    pub const BPF_RSH: u8 = 0x70;
    pub const BPF_NEG: u8 = 0x80;
    pub const BPF_MOD: u8 = 0x90;
    pub const BPF_XOR: u8 = 0xa0;
    pub const BPF_MOV: u8 = 0xb0;
    pub const BPF_ARSH: u8 = 0xc0;
    pub const BPF_END: u8 = 0xd0;

    // JMP ops (code & 0xf0)
    pub const BPF_JA: u8 = 0x00;
    pub const BPF_JEQ: u8 = 0x10;
    pub const BPF_JGT: u8 = 0x20;
    pub const BPF_JGE: u8 = 0x30;
    pub const BPF_JSET: u8 = 0x40;
    pub const BPF_JNE: u8 = 0x50;
    pub const BPF_JSGT: u8 = 0x60;
    pub const BPF_JSGE: u8 = 0x70;
    pub const BPF_CALL: u8 = 0x80;
    pub const BPF_EXIT: u8 = 0x90;
    pub const BPF_JLT: u8 = 0xa0;
    pub const BPF_JLE: u8 = 0xb0;
    pub const BPF_JSLT: u8 = 0xc0;
    pub const BPF_JSLE: u8 = 0xd0;
    pub const BPF_JCOND: u8 = 0xe0;
    /// Kernel-internal: `BPF_JMP | BPF_TAIL_CALL` is a tail call once the
    /// verifier has rewritten `call bpf_tail_call`.
    pub const BPF_TAIL_CALL: u8 = 0xf0;

    // atomic imm values (on top of BPF_ADD/AND/OR/XOR)
    pub const BPF_FETCH: i32 = 0x01;
    pub const BPF_XCHG: i32 = 0xe0 | BPF_FETCH;
    pub const BPF_CMPXCHG: i32 = 0xf0 | BPF_FETCH;
    pub const BPF_LOAD_ACQ: i32 = 0x100;
    pub const BPF_STORE_REL: i32 = 0x110;

    // src_reg of ld_imm64
    pub const BPF_PSEUDO_MAP_FD: u8 = 1;
    pub const BPF_PSEUDO_MAP_VALUE: u8 = 2;
    pub const BPF_PSEUDO_BTF_ID: u8 = 3;
    pub const BPF_PSEUDO_FUNC: u8 = 4;
    pub const BPF_PSEUDO_MAP_IDX: u8 = 5;
    pub const BPF_PSEUDO_MAP_IDX_VALUE: u8 = 6;

    // src_reg of call
    pub const BPF_PSEUDO_CALL: u8 = 1;
    pub const BPF_PSEUDO_KFUNC_CALL: u8 = 2;

    // src_reg of JCOND
    pub const BPF_MAY_GOTO: u8 = 0;

    // off of ALU64 MOV X
    pub const BPF_ADDR_SPACE_CAST: i16 = 1;
    /// Kernel-internal: `dst = src + this CPU's per-CPU offset`.
    pub const BPF_ADDR_PERCPU: i16 = -1;

    pub const fn class(code: u8) -> u8 {
        code & 0x07
    }
    pub const fn size(code: u8) -> u8 {
        code & 0x18
    }
    pub const fn mode(code: u8) -> u8 {
        code & 0xe0
    }
    pub const fn op(code: u8) -> u8 {
        code & 0xf0
    }
    pub const fn src(code: u8) -> u8 {
        code & 0x08
    }
}

/// Registers r0..r10; r10 is the read-only frame pointer.
pub const BPF_REG_FP: u8 = 10;
/// The verifier's hidden scratch register (`BPF_REG_AX`) is r12 in 7.3:
/// r11 became `BPF_REG_PARAMS`.
pub const BPF_REG_AX: u8 = 12;
/// `BPF_REG_PARAMS` (r11): the base of the stack arguments of 7.3's calls
/// with more than five arguments.
pub const BPF_REG_PARAMS: u8 = 11;
pub const MAX_BPF_REG: u8 = 11;
/// The stack a frame may use: r10 - 512 .. r10.
pub const MAX_BPF_STACK: u32 = 512;

/// One instruction slot, as `struct bpf_insn` lays it out:
/// `code:8, dst_reg:4, src_reg:4, off:16, imm:32`, little endian.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

impl Insn {
    pub const fn new(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
        Insn { code, dst: dst & 0xf, src: src & 0xf, off, imm }
    }

    /// The 8 bytes in memory order (little endian, dst in the low nibble).
    pub fn to_bytes(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = (self.dst & 0xf) | (self.src << 4);
        b[2..4].copy_from_slice(&self.off.to_le_bytes());
        b[4..8].copy_from_slice(&self.imm.to_le_bytes());
        b
    }

    pub fn from_bytes(b: [u8; 8]) -> Insn {
        Insn { code: b[0], dst: b[1] & 0xf, src: b[1] >> 4, off: i16::from_le_bytes([b[2], b[3]]), imm: i32::from_le_bytes([b[4], b[5], b[6], b[7]]) }
    }

    /// The slot as the u64 a `__imm_insn()` operand carries (`*(long *)&insn`).
    pub fn to_u64(self) -> u64 {
        u64::from_le_bytes(self.to_bytes())
    }

    pub fn from_u64(v: u64) -> Insn {
        Insn::from_bytes(v.to_le_bytes())
    }

    pub fn class(self) -> u8 {
        op::class(self.code)
    }

    /// First slot of a 16-byte `ld_imm64` (`BPF_LD | BPF_IMM | BPF_DW`).
    pub fn is_ld_imm64(self) -> bool {
        self.code == op::BPF_LD | op::BPF_IMM | op::BPF_DW
    }

    pub fn is_call(self) -> bool {
        self.code == op::BPF_JMP | op::BPF_CALL
    }

    pub fn is_exit(self) -> bool {
        self.code == op::BPF_JMP | op::BPF_EXIT
    }

    pub fn is_pseudo_call(self) -> bool {
        self.is_call() && self.src == op::BPF_PSEUDO_CALL
    }

    pub fn is_kfunc_call(self) -> bool {
        self.is_call() && self.src == op::BPF_PSEUDO_KFUNC_CALL
    }

    pub fn is_helper_call(self) -> bool {
        self.is_call() && self.src == 0
    }
}

impl fmt::Debug for Insn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Insn {{ code: {:#04x}, dst: {}, src: {}, off: {}, imm: {} }}", self.code, self.dst, self.src, self.off, self.imm)
    }
}

/// Splits raw bytes into instruction slots; `None` when the length is not a
/// multiple of 8 (the kernel's `EINVAL` for `insn_cnt`).
pub fn decode_all(bytes: &[u8]) -> Option<Vec<Insn>> {
    if !bytes.len().is_multiple_of(8) {
        return None;
    }
    Some(bytes.chunks_exact(8).map(|c| Insn::from_bytes(c.try_into().expect("chunk of 8"))).collect())
}

pub fn encode_all(insns: &[Insn]) -> Vec<u8> {
    insns.iter().flat_map(|i| i.to_bytes()).collect()
}

/// The 16 hex digits of one slot in memory order, as `bpf-selftest asm` prints it.
pub fn to_hex(insn: Insn) -> String {
    insn.to_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses one 16-hex-digit slot (memory order).
pub fn from_hex(s: &str) -> Option<Insn> {
    let s = s.trim();
    if s.len() != 16 || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut b = [0u8; 8];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(Insn::from_bytes(b))
}
