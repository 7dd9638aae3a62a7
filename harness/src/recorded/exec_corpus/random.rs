//! A seeded generator of random programs the verifier accepts: registers
//! and 64 bytes of stack set to "interesting" constants, then straight-line
//! ALU (every op, 32- and 64-bit, register and immediate, signed
//! division, sign-extending moves, byte swaps), stack loads and stores of
//! every size, atomics and forward conditional jumps, and at the end every
//! register and stack slot folded into the 32-bit return value, so that any
//! wrong bit anywhere shows in the retval.

// splitmix64, the soundness generator's: the same sequence as before
use crate::soundness::random_prog::{Entropy, Rng};

/// Values that hit edge cases: zero, ±1, the sign boundaries of every width.
const SPECIAL: &[i64] = &[
    0,
    1,
    -1,
    2,
    -2,
    0x7f,
    0x80,
    -0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    -0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    i64::MAX,
    i64::MIN,
    63,
    64,
    31,
    32,
];

fn constant(r: &mut Rng) -> i64 {
    match r.below(4) {
        0 => r.pick(SPECIAL),
        1 => r.below(200) as i64 - 100,
        2 => r.next() as i32 as i64,
        _ => r.next() as i64,
    }
}

fn imm32(r: &mut Rng) -> i32 {
    match r.below(3) {
        0 => r.pick(SPECIAL) as i32,
        1 => r.below(200) as i32 - 100,
        _ => r.next() as i32,
    }
}

fn reg(r: &mut Rng) -> u64 {
    r.below(10)
}

const SIZES: &[(&str, u64)] = &[("u8", 1), ("u16", 2), ("u32", 4), ("u64", 8)];

/// One random instruction (asm text); `w` picks 32-bit forms.
fn insn(r: &mut Rng) -> String {
    let (d, s) = (reg(r), reg(r));
    let wide = r.chance(50);
    let p = if wide { "r" } else { "w" };
    let imm = imm32(r);
    match r.below(20) {
        0..=8 => {
            let ops = ["+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "s/=", "s%=", "="];
            let o = r.pick(&ops);
            if r.chance(50) {
                format!("{p}{d} {o} {p}{s}")
            } else {
                let imm = if o.contains('/') || o.contains('%') {
                    // a constant divisor of zero is rejected by the verifier
                    if imm == 0 { 3 } else { imm }
                } else {
                    imm
                };
                format!("{p}{d} {o} {imm}")
            }
        }
        9..=10 => {
            let ops = ["<<=", ">>=", "s>>="];
            let o = r.pick(&ops);
            if r.chance(50) { format!("{p}{d} {o} {p}{s}") } else { format!("{p}{d} {o} {}", r.below(if wide { 64 } else { 32 })) }
        }
        11 => format!("{p}{d} = -{p}{d}"),
        12 => {
            if wide {
                format!("r{d} = (s{}){p}{s}", r.pick(&[8, 16, 32]))
            } else {
                format!("w{d} = (s{})w{s}", r.pick(&[8, 16]))
            }
        }
        13 => {
            let f = r.pick(&["be", "le", "bswap"]);
            format!("r{d} = {f}{} r{d}", r.pick(&[16, 32, 64]))
        }
        14 => {
            let (sz, n) = r.pick(SIZES);
            let off = 8 * (1 + r.below(8)) - n * r.below(8 / n);
            if r.chance(50) { format!("*({sz} *)(r10 - {off}) = r{s}") } else { format!("*({sz} *)(r10 - {off}) = {imm}") }
        }
        15 => {
            let (sz, n) = r.pick(SIZES);
            let off = 8 * (1 + r.below(8)) - n * r.below(8 / n);
            if n < 8 && r.chance(40) { format!("r{d} = *(s{} *)(r10 - {off})", n * 8) } else { format!("r{d} = *({sz} *)(r10 - {off})") }
        }
        16..=17 => {
            let (sz, n, q) = if r.chance(50) { ("u64", 8, "r") } else { ("u32", 4, "w") };
            let off = 8 * (1 + r.below(8)) - if n == 4 { 4 * r.below(2) } else { 0 };
            let x = if n == 8 { "_64" } else { "32_32" };
            match r.below(5) {
                0 => format!("lock *({sz} *)(r10 - {off}) {} {q}{s}", r.pick(&["+=", "&=", "|=", "^="])),
                1 => format!("{q}{s} = atomic_fetch_{}(({sz} *)(r10 - {off}), {q}{s})", r.pick(&["add", "and", "or", "xor"])),
                2 => format!("{q}{s} = xchg{x}(r10 - {off}, {q}{s})"),
                3 => format!("{q}0 = cmpxchg{x}(r10 - {off}, {q}0, {q}{s})"),
                _ => {
                    if r.chance(50) {
                        format!("r{d} = load_acquire(({sz} *)(r10 - {off}))")
                    } else {
                        format!("store_release(({sz} *)(r10 - {off}), r{s})")
                    }
                }
            }
        }
        _ => format!("{p}{d} = {p}{s}"),
    }
}

/// The asm of program `k` of the stream seeded with `seed`.
pub fn program(seed: u64, k: u64) -> String {
    let mut r = Rng(seed ^ k.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let mut body: Vec<String> = Vec::new();
    for i in 0..10 {
        body.push(format!("r{i} = {} ll", constant(&mut r)));
    }
    for k in 1..=8 {
        body.push(format!("*(u64 *)(r10 - {}) = r{}", 8 * k, (k + 1) % 10));
    }
    let n = 20 + r.below(20) as usize;
    let mut insns: Vec<String> = (0..n).map(|_| insn(&mut r)).collect();
    // forward jumps to labels before later instructions (or the epilogue)
    let mut labels: Vec<usize> = Vec::new();
    for _ in 0..r.below(5) {
        let at = r.below(n as u64) as usize;
        let to = at + 1 + r.below((n - at) as u64) as usize;
        let (d, s) = (reg(&mut r), reg(&mut r));
        let op = r.pick(&["==", "!=", ">", ">=", "<", "<=", "&", "s>", "s>=", "s<", "s<="]);
        let p = if r.chance(50) { "r" } else { "w" };
        let rhs = if r.chance(50) { format!("{p}{s}") } else { imm32(&mut r).to_string() };
        insns[at] = format!("{}\nif {p}{d} {op} {rhs} goto L{to}", insns[at]);
        labels.push(to);
    }
    for (i, ins) in insns.into_iter().enumerate() {
        if labels.contains(&i) {
            body.push(format!("L{i}:"));
        }
        body.push(ins);
    }
    if labels.contains(&n) {
        body.push(format!("L{n}:"));
    }
    // fold everything into w0
    for i in 1..10 {
        body.push("r0 *= 31".into());
        body.push(format!("r0 += r{i}"));
    }
    for k in 1..=8 {
        body.push(format!("r1 = *(u64 *)(r10 - {})", 8 * k));
        body.push("r0 *= 31".into());
        body.push("r0 += r1".into());
    }
    body.push("r1 = r0".into());
    body.push("r1 >>= 32".into());
    body.push("r0 ^= r1".into());
    body.push("exit".into());
    body.join("\n") + "\n"
}

/// `n` programs of the stream seeded with `seed`.
pub fn programs(seed: u64, n: usize) -> Vec<String> {
    (0..n as u64).map(|k| program(seed, k)).collect()
}

/// Map kinds the random map programs use: (`--map` spec, has a spare
/// pointer semantics worth probing).
const MAP_SPECS: &[&str] = &[
    "m:hash:4:8:6",
    "m:hash:4:8:6:0x1",
    "m:percpu_hash:4:8:6",
    "m:lru_hash:4:8:4",
    "m:lru_hash:4:8:8",
    "m:lru_hash:4:8:8:0x2",
    "m:lru_percpu_hash:4:8:4",
    "m:lru_percpu_hash:4:8:8:0x2",
    "m:array:4:8:8",
    "m:percpu_array:4:8:8",
];

/// A random sequence of updates (every flag), lookups and deletes on one
/// map, with keys from a small range, folding every return value and every
/// value read into the retval; one lookup's pointer is kept and read at
/// the end, after the updates that may have reused its element.
pub fn map_program(seed: u64, k: u64) -> (String, String) {
    let mut r = Rng(seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x6d61_7073);
    let spec = MAP_SPECS[r.below(MAP_SPECS.len() as u64) as usize].to_string();
    let keys = 3 + r.below(10);
    let mut b: Vec<String> = vec!["r6 = 0".into(), "*(u64 *)(r10 - 24) = 0".into(), "r9 = r10".into(), "r9 += -24".into()];
    let n = 10 + r.below(30);
    let keep = r.below(n);
    for i in 0..n {
        let key = r.below(keys);
        b.push(format!("*(u32 *)(r10 - 4) = {key}"));
        b.push("r1 = m ll".into());
        b.push("r2 = r10".into());
        b.push("r2 += -4".into());
        match r.below(10) {
            0..=4 => {
                b.push(format!("*(u64 *)(r10 - 16) = {}", 100 + i));
                b.push("r3 = r10".into());
                b.push("r3 += -16".into());
                b.push(format!("r4 = {}", r.pick(&[0, 0, 0, 1, 2, 3])));
                b.push("call bpf_map_update_elem".into());
                b.push("r6 *= 31".into());
                b.push("r6 += r0".into());
            }
            5..=7 => {
                b.push("call bpf_map_lookup_elem".into());
                b.push(format!("if r0 == 0 goto l_miss_{i}"));
                if i == keep {
                    b.push("r9 = r0".into());
                }
                b.push("r1 = *(u64 *)(r0 + 0)".into());
                b.push("r6 *= 31".into());
                b.push("r6 += r1".into());
                b.push(format!("goto l_next_{i}"));
                b.push(format!("l_miss_{i}:"));
                b.push("r6 *= 31".into());
                b.push("r6 += 7".into());
                b.push(format!("l_next_{i}:"));
            }
            _ => {
                b.push("call bpf_map_delete_elem".into());
                b.push("r6 *= 31".into());
                b.push("r6 += r0".into());
            }
        }
    }
    b.push("r1 = *(u64 *)(r9 + 0)".into());
    b.push("r6 *= 31".into());
    b.push("r6 += r1".into());
    // which keys are present at the end
    for key in 0..keys {
        b.push(format!("*(u32 *)(r10 - 4) = {key}"));
        b.push("r1 = m ll".into());
        b.push("r2 = r10".into());
        b.push("r2 += -4".into());
        b.push("call bpf_map_lookup_elem".into());
        b.push("r6 <<= 1".into());
        b.push(format!("if r0 == 0 goto l_end_{key}"));
        b.push("r6 |= 1".into());
        b.push(format!("l_end_{key}:"));
    }
    b.push("r0 = r6".into());
    b.push("r1 = r6".into());
    b.push("r1 >>= 32".into());
    b.push("r0 ^= r1".into());
    b.push("exit".into());
    (spec, b.join("\n") + "\n")
}
