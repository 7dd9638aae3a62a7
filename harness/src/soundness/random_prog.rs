//! A structured random program generator: programs shaped like the ones
//! the verifier has to reason about (scalar bounds games with ALU and
//! JMP/JMP32, stack spills and fills, map values read after null checks
//! and indexed by computed offsets, bounded loops, helper and subprogram
//! calls, `bpf_for` iterators), valid and invalid mixed: the generator
//! mostly uses registers it initialised, sometimes not, and never checks
//! that offsets are in bounds, so the verifier's verdict is the question.

use std::fmt::Write as _;

/// Where the generator's decisions come from: [`Rng`] for seeded runs,
/// [`ByteTape`] when a fuzzer's bytes drive it (so that mutating the bytes
/// mutates the program's structure).
pub trait Entropy {
    fn next(&mut self) -> u64;
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// splitmix64: small, seedable, the same sequence everywhere.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    // a source of random words, not an iterator
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        Entropy::below(self, n)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        Entropy::chance(self, percent)
    }
}

impl Entropy for Rng {
    fn next(&mut self) -> u64 {
        Rng::next(self)
    }
}

/// Decisions read from a byte string, 8 bytes (little endian) each; zeros
/// once it runs out, which picks the first choice everywhere and so ends
/// the program soon.
#[derive(Clone, Debug)]
pub struct ByteTape<'a>(pub &'a [u8]);

impl Entropy for ByteTape<'_> {
    fn next(&mut self) -> u64 {
        let n = self.0.len().min(8);
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        u64::from_le_bytes(b)
    }
}

/// The value size of the map the programs index into.
pub const VALUE_SIZE: u32 = 48;

/// One generated program.
#[derive(Clone, Debug)]
pub struct GenProg {
    pub asm: String,
    /// Loaded as test_loader's `@unpriv` run.
    pub unpriv: bool,
}

/// Scalar registers the body plays with (r7 holds the map value, r9 ctx).
const SCALARS: [u8; 7] = [0, 1, 2, 3, 4, 5, 6];
const EDGE: [i64; 16] = [0, 1, -1, 2, 7, 8, 15, 16, 31, 32, 47, 48, 63, 255, 0x7fff_ffff, -0x8000_0000];

struct Gen<'r, R: Entropy> {
    r: &'r mut R,
    s: String,
    /// Registers written so far on every path (roughly: jumps only skip
    /// forward over ALU items, which keeps this an over-approximation the
    /// generator uses to pick mostly-initialised operands).
    init: u16,
    label: usize,
    uses_sub: bool,
    /// 8-byte stack slots (fp-8 is bit 0) written whole.
    slots: u8,
}

impl<R: Entropy> Gen<'_, R> {
    fn line(&mut self, l: &str) {
        self.s.push_str(l);
        self.s.push('\n');
    }

    fn reg(&mut self) -> u8 {
        let inited: Vec<u8> = SCALARS.iter().copied().filter(|&r| self.init & (1 << r) != 0).collect();
        if inited.is_empty() || self.r.chance(1) { self.r.pick(&SCALARS) } else { self.r.pick(&inited) }
    }

    fn imm(&mut self) -> i64 {
        match self.r.below(3) {
            0 => self.r.pick(&EDGE),
            1 => self.r.below(64) as i64,
            _ => (self.r.next() as i32) as i64,
        }
    }

    fn alu(&mut self) {
        let ops = ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "s>>=", "="];
        let op = self.r.pick(&ops);
        let wide = self.r.chance(60);
        let (p, d) = (if wide { "r" } else { "w" }, self.reg());
        let shift = op.contains("<<") || op.contains(">>");
        let src = if self.r.chance(50) {
            let v = self.imm();
            if shift { (v & if wide { 63 } else { 31 }).to_string() } else { v.to_string() }
        } else {
            format!("{p}{}", self.reg())
        };
        if op == "=" && self.r.chance(15) {
            let w = self.r.pick(&["(s8)", "(s16)", "(s32)"]);
            let x = self.reg();
            self.line(&format!("r{d} = {w}r{x}"));
        } else if op == "=" && self.r.chance(10) {
            self.line(&format!("{p}{d} = -{p}{d}"));
        } else {
            self.line(&format!("{p}{d} {op} {src}"));
        }
        self.init |= 1 << d;
    }

    /// `if` over the next few items.
    fn branch(&mut self, depth: u32) {
        let ops = ["==", "!=", ">", ">=", "<", "<=", "s>", "s>=", "s<", "s<=", "&"];
        let op = self.r.pick(&ops);
        let p = if self.r.chance(35) { "w" } else { "r" };
        let a = self.reg();
        let b = if self.r.chance(60) { self.imm().to_string() } else { format!("{p}{}", self.reg()) };
        let l = self.next_label();
        self.line(&format!("if {p}{a} {op} {b} goto l{l}_"));
        let init = self.init;
        for _ in 0..1 + self.r.below(3) {
            self.item(depth + 1);
        }
        // what the skipped items initialised is not initialised after the join
        self.init = init;
        self.line(&format!("l{l}_:"));
    }

    fn next_label(&mut self) -> usize {
        self.label += 1;
        self.label
    }

    fn stack(&mut self) {
        let sizes = [("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8)];
        let (ty, sz) = self.r.pick(&sizes);
        let written: Vec<i64> = (0..8).filter(|k| self.slots & (1 << k) != 0).collect();
        let read = self.r.chance(50);
        let k = if read && !written.is_empty() && self.r.chance(85) { self.r.pick(&written) } else { self.r.below(8) as i64 };
        let off = -8 * (k + 1) + if self.r.chance(80) { 0 } else { self.r.below(8) as i64 } / sz * sz;
        if !read {
            if sz == 8 && off % 8 == 0 {
                self.slots |= 1 << k;
            }
            if self.r.chance(20) {
                let v = self.imm() as i32;
                self.line(&format!("*({ty} *)(r10 {off}) = {v}"));
            } else {
                let v = self.reg();
                self.line(&format!("*({ty} *)(r10 {off}) = r{v}"));
            }
        } else {
            let d = self.reg();
            self.line(&format!("r{d} = *({ty} *)(r10 {off})"));
            self.init |= 1 << d;
        }
    }

    /// A read or write of the map value at a computed offset, mostly
    /// bounded first (by a mask or a branch), sometimes not.
    fn map_value(&mut self) {
        let x = self.reg();
        let sizes = [("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8)];
        let (ty, _) = self.r.pick(&sizes);
        let c = if self.r.chance(80) { self.r.below(VALUE_SIZE as u64 / 2) as i64 } else { self.r.below(VALUE_SIZE as u64 + 8) as i64 - 4 };
        let skip = match self.r.below(10) {
            0..=3 => {
                let m = self.r.pick(&[7, 15, 31, 63]);
                self.line(&format!("r{x} &= {m}"));
                None
            }
            4..=6 => {
                let l = self.next_label();
                let op = self.r.pick(&["> ", ">=", "s>", "s>="]);
                let n = self.r.below(VALUE_SIZE as u64);
                self.line(&format!("if r{x} {op} {n} goto l{l}_"));
                if self.r.chance(60) {
                    self.line(&format!("if r{x} s< 0 goto l{l}_"));
                }
                Some(l)
            }
            _ => None,
        };
        self.line("r8 = r7");
        if self.r.chance(85) {
            self.line(&format!("r8 += r{x}"));
        }
        if self.r.chance(70) {
            let d = self.reg();
            self.line(&format!("r{d} = *({ty} *)(r8 {c:+})"));
            if skip.is_none() {
                self.init |= 1 << d;
            }
        } else {
            let v = self.reg();
            self.line(&format!("*({ty} *)(r8 {c:+}) = r{v}"));
        }
        if let Some(l) = skip {
            self.line(&format!("l{l}_:"));
        }
    }

    fn bounded_loop(&mut self) {
        let n = 1 + self.r.below(20);
        let l = self.next_label();
        let c = self.r.pick(&[3u8, 4, 5]);
        self.line(&format!("r{c} = 0"));
        self.line(&format!("l{l}_:"));
        self.line(&format!("r{c} += 1"));
        if self.r.chance(50) {
            self.alu();
        }
        self.line(&format!("if r{c} < {n} goto l{l}_"));
        self.init |= 1 << c;
    }

    fn helper_call(&mut self) {
        self.line("call bpf_get_prandom_u32");
        // r1-r5 are scratched by the call
        self.init = (self.init & !0b11_1110) | 1;
    }

    fn subprog_call(&mut self) {
        let a = self.reg();
        self.line(&format!("r1 = r{a}"));
        self.line("call sub");
        self.init = (self.init & !0b11_1110) | 1;
        self.uses_sub = true;
    }

    fn iterator(&mut self) {
        let n = self.r.below(10);
        let l = self.next_label();
        self.line("r1 = r10\nr1 += -64\nr2 = 0");
        self.line(&format!("r3 = {n}"));
        self.line("call bpf_iter_num_new");
        self.line(&format!("l{l}_:"));
        self.line("r1 = r10\nr1 += -64\ncall bpf_iter_num_next");
        self.line(&format!("if r0 == 0 goto l{l}e_"));
        self.line("r6 = *(u32 *)(r0 + 0)");
        if self.r.chance(50) {
            self.line("r6 &= 31");
            self.line("r8 = r7\nr8 += r6\nr1 = *(u8 *)(r8 + 0)");
        }
        self.line(&format!("goto l{l}_"));
        self.line(&format!("l{l}e_:"));
        self.line("r1 = r10\nr1 += -64\ncall bpf_iter_num_destroy");
        self.init = (self.init & !0b111_1110) | 1;
    }

    fn item(&mut self, depth: u32) {
        match self.r.below(100) {
            0..=39 => self.alu(),
            40..=54 if depth < 3 => self.branch(depth),
            40..=54 => self.alu(),
            55..=67 => self.stack(),
            68..=84 => self.map_value(),
            85..=88 => self.bounded_loop(),
            89..=92 => self.helper_call(),
            93..=96 => self.subprog_call(),
            _ => self.iterator(),
        }
    }
}

/// A random program: a socket filter with a map `arr` (array, 4-byte key,
/// [`VALUE_SIZE`]-byte value) whose value pointer is in r7.
pub fn generate<R: Entropy>(r: &mut R) -> GenProg {
    let unpriv = r.chance(20);
    let mut g = Gen { r, s: String::new(), init: 0, label: 0, uses_sub: false, slots: 0 };
    g.line("r9 = r1");
    g.line("r1 = 0\n*(u32 *)(r10 - 4) = r1\nr2 = r10\nr2 += -4\nr1 = arr ll\ncall bpf_map_lookup_elem");
    // sometimes no null check: an invalid access later
    if g.r.chance(95) {
        g.line("if r0 != 0 goto l0_\nr0 = 0\nexit\nl0_:");
    }
    g.line("r7 = r0");
    // unknown scalars: from the map value and from the skb
    g.line("r6 = *(u64 *)(r7 + 0)");
    g.line("r5 = *(u32 *)(r7 + 8)");
    g.line("r4 = *(u32 *)(r9 + 0)");
    g.init = 1 << 6 | 1 << 5 | 1 << 4;
    for reg in [0u8, 1, 2, 3] {
        if g.r.chance(70) {
            let v = g.imm();
            g.line(&format!("r{reg} = {v}"));
            g.init |= 1 << reg;
        }
    }
    let items = 3 + g.r.below(14);
    for _ in 0..items {
        g.item(0);
    }
    if g.r.chance(90) {
        let x = g.reg();
        g.line(&format!("r0 = r{x}"));
        if g.r.chance(70) {
            g.line("r0 &= 1");
        }
    } else if g.r.chance(50) {
        g.line("r0 = r7");
    }
    g.line("exit");
    if g.uses_sub {
        g.line("sub:");
        match g.r.below(3) {
            0 => g.line("r0 = r1\nr0 &= 255\nexit"),
            1 => g.line("r0 = r1\nif r0 s> 16 goto ls_\nr0 = 0\nls_:\nexit"),
            _ => g.line("*(u64 *)(r10 - 8) = r1\nr0 = *(u64 *)(r10 - 8)\nexit"),
        }
    }
    let mut asm = String::new();
    let _ = write!(asm, "{}", g.s);
    GenProg { asm, unpriv }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_assemble() {
        let mut r = Rng(1);
        for i in 0..2000 {
            let p = generate(&mut r);
            if let Err(e) = crate::isa::assemble(&p.asm) {
                panic!("program {i}: {e}\n{}", p.asm);
            }
        }
    }

    /// The fuzz target's way in: any bytes are a program that assembles,
    /// and the same bytes the same program.
    #[test]
    fn byte_tape_programs_assemble() {
        let mut r = Rng(2);
        for i in 0..500 {
            let bytes: Vec<u8> = (0..(i % 300)).map(|_| r.next() as u8).collect();
            let p = generate(&mut ByteTape(&bytes));
            if let Err(e) = crate::isa::assemble(&p.asm) {
                panic!("tape {i}: {e}\n{}", p.asm);
            }
            assert_eq!(p.asm, generate(&mut ByteTape(&bytes)).asm);
        }
        // an empty tape: the first choice everywhere
        assert!(crate::isa::assemble(&generate(&mut ByteTape(&[])).asm).is_ok());
    }
}
