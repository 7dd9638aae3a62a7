//! The x86-64 instruction corpus: every form `arch/x86/net/bpf_jit_comp.c`
//! emits (learned from reading it), with register, size, displacement and
//! immediate variants, plus neighbours a JIT change could plausibly reach.
//! Only the bytes come from here; the expected text is llvm-objdump-19's.

/// REX prefix for a reg (ModRM.reg), rm (ModRM.rm / base) and index register.
fn rex(w: bool, reg: u8, rm: u8, index: u8) -> u8 {
    0x40 | (w as u8) << 3 | (reg >> 3) << 2 | (index >> 3) << 1 | (rm >> 3)
}

/// Operand size of an integer instruction: 8, 16, 32 or 64 bits.
#[derive(Clone, Copy, PartialEq)]
enum Sz {
    B,
    W,
    L,
    Q,
}

const SIZES: [Sz; 4] = [Sz::B, Sz::W, Sz::L, Sz::Q];

/// Prefixes (0x66 and/or REX) for a register-register or register-memory form.
/// `force_rex` makes `sil`/`dil`/`spl`/`bpl` reachable for byte operands.
fn prefix(sz: Sz, reg: u8, rm: u8, index: u8, force_rex: bool) -> Vec<u8> {
    let mut v = Vec::new();
    if sz == Sz::W {
        v.push(0x66);
    }
    let r = rex(sz == Sz::Q, reg, rm, index);
    if r != 0x40 || force_rex {
        v.push(r);
    }
    v
}

/// `op reg, rm` with a register rm (ModRM mod = 3).
fn rr(sz: Sz, opc: &[u8], reg: u8, rm: u8) -> Vec<u8> {
    let force = sz == Sz::B && (reg & 7 >= 4 || rm & 7 >= 4) && (reg < 8 || rm < 8);
    let mut v = prefix(sz, reg, rm, 0, force);
    v.extend_from_slice(opc);
    v.push(0xc0 | (reg & 7) << 3 | (rm & 7));
    v
}

/// A memory operand: base (None = no base), index (None or (reg, scale log2)), disp.
#[derive(Clone, Copy)]
struct Mem {
    base: Option<u8>,
    index: Option<(u8, u8)>,
    disp: i32,
    /// Force a 32-bit displacement even when it fits in 8 bits.
    wide: bool,
    rip: bool,
}

fn mem(base: u8, disp: i32) -> Mem {
    Mem { base: Some(base), index: None, disp, wide: false, rip: false }
}

/// ModRM (+SIB, +disp) for `reg` and a memory operand, with the REX bits it needs.
fn modrm_mem(reg: u8, m: Mem) -> (Vec<u8>, u8, u8) {
    let mut v = Vec::new();
    if m.rip {
        v.push((reg & 7) << 3 | 5);
        v.extend_from_slice(&m.disp.to_le_bytes());
        return (v, 0, 0);
    }
    let d8 = !m.wide && (-128..=127).contains(&m.disp);
    match (m.base, m.index) {
        (None, idx) => {
            let (i, s) = idx.unwrap_or((4, 0));
            v.push((reg & 7) << 3 | 4);
            v.push(s << 6 | (i & 7) << 3 | 5);
            v.extend_from_slice(&m.disp.to_le_bytes());
            (v, 0, i)
        }
        (Some(b), idx) => {
            let md = if m.disp == 0 && !m.wide && b & 7 != 5 {
                0
            } else if d8 {
                1
            } else {
                2
            };
            let need_sib = idx.is_some() || b & 7 == 4;
            let (i, s) = idx.unwrap_or((4, 0));
            if need_sib {
                v.push(md << 6 | (reg & 7) << 3 | 4);
                v.push(s << 6 | (i & 7) << 3 | (b & 7));
            } else {
                v.push(md << 6 | (reg & 7) << 3 | (b & 7));
            }
            match md {
                1 => v.push(m.disp as u8),
                2 => v.extend_from_slice(&m.disp.to_le_bytes()),
                _ => {}
            }
            (v, b, i)
        }
    }
}

/// `op reg, mem` (or `op mem, reg`, by opcode direction).
fn rm(sz: Sz, opc: &[u8], reg: u8, m: Mem) -> Vec<u8> {
    let (tail, b, i) = modrm_mem(reg, m);
    let force = sz == Sz::B && reg & 7 >= 4 && reg < 8;
    let mut v = prefix(sz, reg, b, i, force);
    v.extend_from_slice(opc);
    v.extend(tail);
    v
}

fn imm(sz: Sz, val: i64) -> Vec<u8> {
    match sz {
        Sz::B => vec![val as u8],
        Sz::W => (val as u16).to_le_bytes().to_vec(),
        Sz::L | Sz::Q => (val as u32).to_le_bytes().to_vec(),
    }
}

/// Register pairs: every register against a spread of partners, so each
/// register shows up in both operand slots without a 16x16 product per opcode.
fn pairs() -> Vec<(u8, u8)> {
    let mut v = Vec::new();
    for a in 0..16u8 {
        for k in [0u8, 3, 7, 8, 13] {
            v.push((a, (a + k) % 16));
        }
    }
    v
}

const IMM8S: [i64; 6] = [0, 1, 0x20, 0x7f, -1, -0x80];
const IMM32S: [i64; 7] = [0x80, 0x1234, 0x7fffffff, -0x81, -0x80000000, 0x7ffff000, -0x12345678];

pub fn corpus() -> Vec<Vec<u8>> {
    let mut c: Vec<Vec<u8>> = Vec::new();
    let regs = 0..16u8;

    // Register-register ALU, mov, test, xchg, cmp: both directions, all sizes.
    for &(opc8, opc) in &[
        (0x00u8, 0x01u8),
        (0x08, 0x09),
        (0x20, 0x21),
        (0x28, 0x29),
        (0x30, 0x31),
        (0x38, 0x39),
        (0x84, 0x85),
        (0x88, 0x89),
        (0x86, 0x87),
        (0x02, 0x03),
        (0x0a, 0x0b),
        (0x22, 0x23),
        (0x2a, 0x2b),
        (0x32, 0x33),
        (0x3a, 0x3b),
        (0x8a, 0x8b),
        (0x10, 0x11),
        (0x18, 0x19),
    ] {
        for &(a, b) in &pairs() {
            for sz in SIZES {
                let o = if sz == Sz::B { opc8 } else { opc };
                c.push(rr(sz, &[o], a, b));
            }
        }
    }
    // mov: the full 16x16 register product at 64 and 32 bits.
    for a in regs.clone() {
        for b in regs.clone() {
            c.push(rr(Sz::Q, &[0x89], a, b));
            c.push(rr(Sz::L, &[0x89], a, b));
        }
    }
    // Two-byte reg-reg forms: imul, movzx/movsx, movsxd, cmov, xadd, cmpxchg, bsf/bsr.
    for &(a, b) in &pairs() {
        for sz in [Sz::W, Sz::L, Sz::Q] {
            c.push(rr(sz, &[0x0f, 0xaf], a, b));
            c.push(rr(sz, &[0x0f, 0xb6], a, b));
            c.push(rr(sz, &[0x0f, 0xbe], a, b));
            c.push(rr(sz, &[0x0f, 0xc1], a, b));
            c.push(rr(sz, &[0x0f, 0xb1], a, b));
            c.push(rr(sz, &[0x0f, 0xbc], a, b));
            if sz != Sz::W {
                c.push(rr(sz, &[0x0f, 0xb7], a, b));
                c.push(rr(sz, &[0x0f, 0xbf], a, b));
            }
        }
        c.push(rr(Sz::Q, &[0x63], a, b));
        c.push(rr(Sz::L, &[0x63], a, b));
        c.push(rr(Sz::B, &[0x0f, 0xc0], a, b));
        c.push(rr(Sz::B, &[0x0f, 0xb0], a, b));
    }
    for cc in 0..16u8 {
        for &(a, b) in &[(3u8, 11u8), (0, 0), (11, 3), (7, 15)] {
            c.push(rr(Sz::Q, &[0x0f, 0x40 | cc], a, b));
            c.push(rr(Sz::L, &[0x0f, 0x40 | cc], a, b));
            c.push(rr(Sz::B, &[0x0f, 0x90 | cc], 0, a));
        }
    }
    // imul reg, rm, imm8 / imm32.
    for &(a, b) in &pairs() {
        for sz in [Sz::W, Sz::L, Sz::Q] {
            for v in [3i64, -1, 0x7f] {
                let mut x = rr(sz, &[0x6b], a, b);
                x.push(v as u8);
                c.push(x);
            }
            for v in [0x1234i64, -0x80000000] {
                let mut x = rr(sz, &[0x69], a, b);
                x.extend(imm(sz, v));
                c.push(x);
            }
        }
    }
    // Group 1 with immediates: 80/81/83 /0..7 on every register and size.
    for r in regs.clone() {
        for ext in 0..8u8 {
            for sz in SIZES {
                if sz == Sz::B {
                    for v in [1i64, 0x7f, -1] {
                        let mut x = rr(sz, &[0x80], ext, r);
                        x.push(v as u8);
                        c.push(x);
                    }
                    continue;
                }
                for v in IMM8S {
                    let mut x = rr(sz, &[0x83], ext, r);
                    x.push(v as u8);
                    c.push(x);
                }
                for v in IMM32S {
                    let mut x = rr(sz, &[0x81], ext, r);
                    x.extend(imm(sz, v));
                    c.push(x);
                }
            }
        }
    }
    // Accumulator short forms: add/or/adc/sbb/and/sub/xor/cmp/test eax/rax, imm.
    for op in [0x04u8, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0xa8] {
        for sz in SIZES {
            for v in [1i64, -1, 0x7fffffff, 0x12345678] {
                let mut x = prefix(sz, 0, 0, 0, false);
                x.push(if sz == Sz::B { op } else { op + 1 });
                x.extend(imm(sz, v));
                c.push(x);
            }
        }
    }
    // Shifts and rotates: by 1, by imm8, by %cl; all sizes.
    for r in regs.clone() {
        for ext in [0u8, 1, 4, 5, 7] {
            for sz in SIZES {
                let (o1, oi, ocl) = if sz == Sz::B { (0xd0, 0xc0, 0xd2) } else { (0xd1, 0xc1, 0xd3) };
                c.push(rr(sz, &[o1], ext, r));
                c.push(rr(sz, &[ocl], ext, r));
                for v in [1u8, 8, 0x1f, 0x20, 0x3f] {
                    let mut x = rr(sz, &[oi], ext, r);
                    x.push(v);
                    c.push(x);
                }
            }
        }
    }
    // Group 3 (test imm, not, neg, mul, imul, div, idiv) and group 5 (inc, dec, call, jmp, push).
    for r in regs.clone() {
        for sz in SIZES {
            let (o3, o5) = if sz == Sz::B { (0xf6, 0xfe) } else { (0xf7, 0xff) };
            for ext in 2..8u8 {
                c.push(rr(sz, &[o3], ext, r));
            }
            let mut x = rr(sz, &[o3], 0, r);
            x.extend(imm(sz, -2));
            c.push(x);
            c.push(rr(sz, &[o5], 0, r));
            c.push(rr(sz, &[o5], 1, r));
        }
        // call/jmp/push through a register (64-bit default operand size).
        for ext in [2u8, 4, 6] {
            let mut x = Vec::new();
            if r >= 8 {
                x.push(0x41);
            }
            x.extend([0xff, 0xc0 | ext << 3 | (r & 7)]);
            c.push(x);
        }
    }
    // push/pop/bswap/xchg-with-accumulator/mov imm to register.
    for r in regs.clone() {
        let b = if r >= 8 { vec![0x41] } else { vec![] };
        for op in [0x50u8, 0x58] {
            let mut x = b.clone();
            x.push(op | (r & 7));
            c.push(x);
        }
        for w in [false, true] {
            let mut x = vec![];
            if w || r >= 8 {
                x.push(rex(w, 0, r, 0));
            }
            x.extend([0x0f, 0xc8 | (r & 7)]);
            c.push(x);
            let mut x = vec![];
            if w || r >= 8 {
                x.push(rex(w, 0, r, 0));
            }
            x.push(0x90 | (r & 7));
            c.push(x);
        }
        for v in [0u32, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678] {
            let mut x = b.clone();
            x.push(0xb8 | (r & 7));
            x.extend(v.to_le_bytes());
            c.push(x);
        }
        for v in [0u64, 1, 0x80000000, 0xffffffff_ffffffff, 0x8000000000000000, 0x7fffffff_ffffffff, 0xffff8880_12345678, 0x100000000] {
            let mut x = vec![rex(true, 0, r, 0), 0xb8 | (r & 7)];
            x.extend(v.to_le_bytes());
            c.push(x);
        }
        for v in [0i64, 1, -1, 0x7fffffff, -0x80000000, -0x688a8f44] {
            for sz in [Sz::L, Sz::Q] {
                let mut x = rr(sz, &[0xc7], 0, r);
                x.extend(imm(sz, v));
                c.push(x);
            }
        }
        let mut x = rr(Sz::B, &[0xc6], 0, r);
        x.push(0x80);
        c.push(x);
        let mut x = b.clone();
        x.extend([0xb0 | (r & 7), 0x7f]);
        c.push(x);
        // 16-bit rotate used by the JIT's be16.
        let mut x = rr(Sz::W, &[0xc1], 1, r);
        x.push(8);
        c.push(x);
    }

    // Memory operands: the addressing-mode matrix on mov loads and stores.
    let mut mems = Vec::new();
    for base in 0..16u8 {
        for disp in [0i32, 8, -8, 0x7f, -0x80, 0x80, -0x81, 0x1000, -0x200, 0x7fffffff, -0x80000000] {
            mems.push(mem(base, disp));
        }
        mems.push(Mem { wide: true, ..mem(base, 0) });
        mems.push(Mem { wide: true, ..mem(base, 0x10) });
        for (idx, s) in [(12u8, 0u8), (0, 3), (2, 1), (15, 2), (5, 0)] {
            for disp in [0i32, -0x10, 0x100] {
                mems.push(Mem { index: Some((idx, s)), ..mem(base, disp) });
            }
        }
    }
    for disp in [0i32, 0x10, -0x10, 0x12345678] {
        mems.push(Mem { base: None, index: None, disp, wide: true, rip: true });
        mems.push(Mem { base: None, index: None, disp, wide: true, rip: false });
        mems.push(Mem { base: None, index: Some((3, 2)), disp, wide: true, rip: false });
    }
    for (k, &m) in mems.iter().enumerate() {
        let reg = (k % 16) as u8;
        c.push(rm(Sz::Q, &[0x8b], reg, m));
        if k % 3 == 0 {
            c.push(rm(Sz::Q, &[0x89], reg, m));
            c.push(rm(Sz::Q, &[0x8d], reg, m));
        }
    }
    // Every load/store/atomic width on a smaller set of operands.
    let some_mems: Vec<Mem> = [
        mem(5, -8),
        mem(7, 0),
        mem(13, 0x10),
        mem(4, 0x200),
        mem(0, -0x80000000),
        Mem { index: Some((12, 0)), ..mem(6, 0x18) },
        Mem { index: Some((12, 0)), ..mem(13, -0x200) },
    ]
    .to_vec();
    for (k, &m) in some_mems.iter().enumerate() {
        for reg in [0u8, 3, 6, 7, 8, 10, 15, 4 + (k as u8 % 2)] {
            for sz in SIZES {
                let b = sz == Sz::B;
                c.push(rm(sz, &[if b { 0x88 } else { 0x89 }], reg, m));
                c.push(rm(sz, &[if b { 0x8a } else { 0x8b }], reg, m));
                for op in [0x01u8, 0x09, 0x21, 0x29, 0x31, 0x39, 0x85, 0x87, 0x03, 0x3b] {
                    c.push(rm(sz, &[if b { op - 1 } else { op }], reg, m));
                }
                let mut l = vec![0xf0];
                l.extend(rm(sz, &[if b { 0x00 } else { 0x01 }], reg, m));
                c.push(l);
                for op in [0x09u8, 0x21, 0x31] {
                    let mut l = vec![0xf0];
                    l.extend(rm(sz, &[if b { op - 1 } else { op }], reg, m));
                    c.push(l);
                }
                for op in [0xc1u8, 0xb1] {
                    let mut l = vec![0xf0];
                    l.extend(rm(sz, &[0x0f, if b { op - 1 } else { op }], reg, m));
                    c.push(l);
                }
                if !b {
                    c.push(rm(sz, &[0x0f, 0xb6], reg, m));
                    c.push(rm(sz, &[0x0f, 0xbe], reg, m));
                    c.push(rm(sz, &[0x0f, 0xaf], reg, m));
                    if sz != Sz::W {
                        c.push(rm(sz, &[0x0f, 0xb7], reg, m));
                        c.push(rm(sz, &[0x0f, 0xbf], reg, m));
                        c.push(rm(sz, &[0x63], reg, m));
                    }
                }
            }
        }
        // Immediates to memory, group ops on memory.
        for sz in SIZES {
            let b = sz == Sz::B;
            let mut x = rm(sz, &[if b { 0xc6 } else { 0xc7 }], 0, m);
            x.extend(imm(sz, 0x7f));
            c.push(x);
            let mut x = rm(sz, &[if b { 0xc6 } else { 0xc7 }], 0, m);
            x.extend(imm(sz, -2));
            c.push(x);
            for ext in [0u8, 5, 7] {
                if !b {
                    let mut x = rm(sz, &[0x83], ext, m);
                    x.push(0x21);
                    c.push(x);
                    let mut x = rm(sz, &[0x81], ext, m);
                    x.extend(imm(sz, 0x1234));
                    c.push(x);
                }
                let mut x = rm(sz, &[if b { 0xf6 } else { 0xf7 }], 0, m);
                x.extend(imm(sz, 1));
                c.push(x);
            }
            for ext in [2u8, 3, 4, 6, 7] {
                c.push(rm(sz, &[if b { 0xf6 } else { 0xf7 }], ext, m));
            }
            for ext in [0u8, 1] {
                c.push(rm(sz, &[if b { 0xfe } else { 0xff }], ext, m));
            }
            for ext in [4u8, 5, 7] {
                c.push(rm(sz, &[if b { 0xd0 } else { 0xd1 }], ext, m));
                c.push(rm(sz, &[if b { 0xd2 } else { 0xd3 }], ext, m));
                let mut x = rm(sz, &[if b { 0xc0 } else { 0xc1 }], ext, m);
                x.push(3);
                c.push(x);
            }
        }
        for ext in [2u8, 4, 6] {
            c.push(rm(Sz::L, &[0xff], ext, m));
        }
        c.push(rm(Sz::L, &[0x8f], 0, m));
        // nopl/nopw with this operand.
        c.push(rm(Sz::L, &[0x0f, 0x1f], 0, m));
        c.push(rm(Sz::W, &[0x0f, 0x1f], 0, m));
    }
    // %gs-relative per-CPU accesses (the JIT's this_cpu_off adds and inlined helpers).
    for reg in [0u8, 1, 7, 9, 10] {
        for disp in [0x1234i32, 0x2c8a0, -0x10] {
            let m = Mem { base: None, index: None, disp, wide: true, rip: false };
            for op in [0x03u8, 0x8b, 0x89] {
                let mut x = vec![0x65];
                x.extend(rm(Sz::Q, &[op], reg, m));
                c.push(x);
            }
            let mut x = vec![0x65];
            x.extend(rm(Sz::L, &[0x8b], reg, m));
            c.push(x);
            let mut x = vec![0x65];
            x.extend(rm(Sz::Q, &[0x8b], reg, mem(reg, 0)));
            c.push(x);
        }
    }

    // Branches, with targets before, at and after the instruction.
    for cc in 0..16u8 {
        for d in [0i8, 2, 5, 0x7b, 0x7f, -2, -0x80, -0x10] {
            c.push(vec![0x70 | cc, d as u8]);
        }
        for d in [0i32, 6, 0x80, 0x1234, -6, -0x81, -0x80000000, 0x7fffffff] {
            let mut x = vec![0x0f, 0x80 | cc];
            x.extend(d.to_le_bytes());
            c.push(x);
        }
    }
    for d in [0i32, 1, 0x80, -5, -0x100, 0x7fffffff, -0x80000000, 0x3fff0000] {
        for op in [0xe8u8, 0xe9] {
            let mut x = vec![op];
            x.extend(d.to_le_bytes());
            c.push(x);
        }
    }
    for d in [0i8, 1, 0x7b, -2, -0x80] {
        c.push(vec![0xeb, d as u8]);
        c.push(vec![0xe3, d as u8]);
        c.push(vec![0xe2, d as u8]);
    }
    // The FineIBT preamble's hinted jne and the cs-prefixed call.
    c.push(vec![0x2e, 0x0f, 0x85, 3, 0, 0, 0]);
    c.push(vec![0x2e, 0x2e, 0xe8, 0x10, 0, 0, 0]);
    c.push(vec![0x3e, 0x0f, 0x84, 3, 0, 0, 0]);

    // Single instructions with no operands or fixed operands.
    for x in [
        &[0xc3][..],
        &[0xcc],
        &[0xc9],
        &[0x90],
        &[0x99],
        &[0x48, 0x99],
        &[0x98],
        &[0x48, 0x98],
        &[0x66, 0x98],
        &[0x66, 0x99],
        &[0x0f, 0xae, 0xe8],
        &[0x0f, 0xae, 0xf0],
        &[0x0f, 0xae, 0xf8],
        &[0xf3, 0x0f, 0x1e, 0xfa],
        &[0xf3, 0x0f, 0x1e, 0xfb],
        &[0xf3, 0x48, 0x0f, 0x1e, 0xf8],
        &[0x0f, 0x1f, 0x40, 0xd6],
        &[0x0f, 0x0b],
        &[0xf4],
        &[0x0f, 0x05],
        &[0x0f, 0x01, 0xd6],
        &[0xfc],
        &[0xfd],
        &[0xf3, 0x90],
        &[0x66, 0x90],
        &[0x66, 0x66, 0x90],
        &[0x0f, 0x1f, 0x00],
        &[0x0f, 0x1f, 0x40, 0x00],
        &[0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x0f, 0x1f, 0x80, 0, 0, 0, 0],
        &[0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
        &[0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
        &[0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0],
        &[0xc2, 0x08, 0x00],
        &[0xcd, 0x03],
        &[0x6a, 0x01],
        &[0x68, 0x78, 0x56, 0x34, 0x12],
        &[0x9c],
        &[0x9d],
        &[0xf3, 0xa4],
        &[0xf3, 0x48, 0xab],
        &[0xf3, 0xc3],
        &[0x0f, 0x31],
        &[0x0f, 0xa2],
        // How 8-bit immediates print: signed for arithmetic, unsigned for shift counts.
        &[0xc1, 0xe0, 0x80],
        &[0x48, 0xc1, 0xc0, 0xff],
        &[0xc0, 0xe0, 0xff],
        &[0xcd, 0x80],
        &[0x6a, 0xff],
        &[0xc2, 0xff, 0xff],
        &[0x0f, 0xba, 0xe0, 0xff],
        &[0xf6, 0xc0, 0xff],
        &[0xa8, 0xff],
        &[0x3c, 0x80],
        &[0xb0, 0xff],
        &[0xc6, 0xc0, 0xff],
        &[0x80, 0xc0, 0x80],
        &[0xc8, 0x10, 0x00, 0xff],
        // Invalid in 64-bit mode: the C API refuses them.
        &[0x06],
        &[0x27],
        &[0x60],
        &[0xd4, 0x0a],
        &[0x0f, 0x1e, 0xf8],
        &[0x0f, 0x19, 0xc0],
        // Prefix spellings: inline lock/rep, xacquire/xrelease, segment overrides.
        &[0x66, 0xf0, 0x48, 0x0f, 0xb1, 0x4d, 0xf8],
        &[0x2e, 0xf0, 0x01, 0x4d, 0xf8],
        &[0xf3, 0xf0, 0x01, 0x4d, 0xf8],
        &[0xf2, 0x87, 0x45, 0xf8],
        &[0xf3, 0x89, 0x45, 0xf8],
        &[0xf3, 0x01, 0x4d, 0xf8],
        &[0xf2, 0xc3],
        &[0x3e, 0x8b, 0x00],
        &[0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0],
        &[0x67, 0x8b, 0x00],
    ] {
        c.push(x.to_vec());
    }
    // BMI2 shifts (shlx/sarx/shrx) and friends, every register triple pattern.
    for &(a, b) in &pairs() {
        for pp in [1u8, 2, 3] {
            for w in [false, true] {
                let vvvv = (b + 5) % 16;
                let b1 = (!(a >> 3) & 1) << 7 | 1 << 6 | (!(b >> 3) & 1) << 5 | 2;
                let b2 = (w as u8) << 7 | (!vvvv & 0xf) << 3 | pp;
                c.push(vec![0xc4, b1, b2, 0xf7, 0xc0 | (a & 7) << 3 | (b & 7)]);
            }
        }
    }
    // rorx, andn: other VEX integer ops a future JIT might use.
    c.push(vec![0xc4, 0xe3, 0xfb, 0xf0, 0xc1, 0x20]);
    c.push(vec![0xc4, 0xe2, 0xf0, 0xf2, 0xc2]);
    // Byte registers without REX (ah/ch/dh/bh) and with REX (spl/bpl/sil/dil).
    for a in 0..8u8 {
        for b in 0..8u8 {
            c.push(vec![0x88, 0xc0 | a << 3 | b]);
            c.push(vec![0x40, 0x88, 0xc0 | a << 3 | b]);
        }
    }
    // movzx/movsx from ah-style and REX byte registers.
    for a in [0u8, 6, 7, 9] {
        for b in 4..8u8 {
            c.push(vec![0x0f, 0xb6, 0xc0 | (a & 7) << 3 | b]);
            c.push(vec![rex(false, a, b, 0), 0x0f, 0xb6, 0xc0 | (a & 7) << 3 | b]);
            c.push(vec![rex(true, a, b, 0), 0x0f, 0xbe, 0xc0 | (a & 7) << 3 | b]);
        }
    }
    c
}
