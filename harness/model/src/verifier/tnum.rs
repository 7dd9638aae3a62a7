//! Tristate numbers (`kernel/bpf/tnum.c`, `include/linux/tnum.h`).
//!
//! A tnum tracks knowledge of each bit of a 64-bit value: a bit is known 0,
//! known 1 (set in `value`), or unknown (set in `mask`). `value & mask` is
//! always 0. The functions keep the kernel's names and arithmetic exactly,
//! including where the kernel wraps: the verifier's bounds depend on the
//! precise over-approximation each operation produces.
//!
//! Shift amounts that C would leave undefined (`x << 64`) behave as on x86-64
//! (the count is taken modulo 64), which is what the kernel build does; no
//! caller in the verifier reaches them.

/// `struct tnum`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tnum {
    pub value: u64,
    pub mask: u64,
}

impl Tnum {
    pub const fn new(value: u64, mask: u64) -> Tnum {
        Tnum { value, mask }
    }
}

/// `tnum_unknown`: every bit unknown.
pub const TNUM_UNKNOWN: Tnum = Tnum { value: 0, mask: u64::MAX };

/// Index of the most significant set bit, 1-based; 0 for 0 (`fls64`).
pub fn fls64(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// `tnum_const`: a fully known value.
pub const fn tnum_const(value: u64) -> Tnum {
    Tnum { value, mask: 0 }
}

/// `tnum_range`: the smallest tnum holding every value of `[min, max]`
/// (usually more: `tnum_range(0, 2)` also holds 3).
pub fn tnum_range(min: u64, max: u64) -> Tnum {
    let chi = min ^ max;
    let bits = fls64(chi);
    if bits > 63 {
        return TNUM_UNKNOWN;
    }
    let delta = (1u64 << bits) - 1;
    Tnum::new(min & !delta, delta)
}

/// `tnum_lshift`.
pub fn tnum_lshift(a: Tnum, shift: u8) -> Tnum {
    let s = u32::from(shift);
    Tnum::new(a.value.wrapping_shl(s), a.mask.wrapping_shl(s))
}

/// `tnum_rshift`.
pub fn tnum_rshift(a: Tnum, shift: u8) -> Tnum {
    let s = u32::from(shift);
    Tnum::new(a.value.wrapping_shr(s), a.mask.wrapping_shr(s))
}

/// `tnum_arshift`: arithmetic shift right of the low `insn_bitness` bits; a
/// 32-bit result is zero-extended.
pub fn tnum_arshift(a: Tnum, min_shift: u8, insn_bitness: u8) -> Tnum {
    let s = u32::from(min_shift);
    if insn_bitness == 32 {
        Tnum::new(u64::from(((a.value as i32).wrapping_shr(s)) as u32), u64::from(((a.mask as i32).wrapping_shr(s)) as u32))
    } else {
        Tnum::new((a.value as i64).wrapping_shr(s) as u64, (a.mask as i64).wrapping_shr(s) as u64)
    }
}

/// `tnum_add`: carries out of unknown bits make the bits they reach unknown.
pub fn tnum_add(a: Tnum, b: Tnum) -> Tnum {
    let sm = a.mask.wrapping_add(b.mask);
    let sv = a.value.wrapping_add(b.value);
    let sigma = sm.wrapping_add(sv);
    let chi = sigma ^ sv;
    let mu = chi | a.mask | b.mask;
    Tnum::new(sv & !mu, mu)
}

/// `tnum_sub`.
pub fn tnum_sub(a: Tnum, b: Tnum) -> Tnum {
    let dv = a.value.wrapping_sub(b.value);
    let alpha = dv.wrapping_add(a.mask);
    let beta = dv.wrapping_sub(b.mask);
    let chi = alpha ^ beta;
    let mu = chi | a.mask | b.mask;
    Tnum::new(dv & !mu, mu)
}

/// `tnum_neg`: `0 - a`.
pub fn tnum_neg(a: Tnum) -> Tnum {
    tnum_sub(tnum_const(0), a)
}

/// `tnum_and`.
pub fn tnum_and(a: Tnum, b: Tnum) -> Tnum {
    let alpha = a.value | a.mask;
    let beta = b.value | b.mask;
    let v = a.value & b.value;
    Tnum::new(v, alpha & beta & !v)
}

/// `tnum_or`.
pub fn tnum_or(a: Tnum, b: Tnum) -> Tnum {
    let v = a.value | b.value;
    let mu = a.mask | b.mask;
    Tnum::new(v, mu & !v)
}

/// `tnum_xor`.
pub fn tnum_xor(a: Tnum, b: Tnum) -> Tnum {
    let v = a.value ^ b.value;
    let mu = a.mask | b.mask;
    Tnum::new(v & !mu, mu)
}

/// `tnum_mul`: long multiplication over the bits of `a`; an unknown bit of
/// `a` takes the union of adding and not adding the shifted `b`.
pub fn tnum_mul(mut a: Tnum, mut b: Tnum) -> Tnum {
    let mut acc = tnum_const(0);
    while a.value != 0 || a.mask != 0 {
        if a.value & 1 != 0 {
            acc = tnum_add(acc, b);
        } else if a.mask & 1 != 0 {
            acc = tnum_union(acc, tnum_add(acc, b));
        }
        a = tnum_rshift(a, 1);
        b = tnum_lshift(b, 1);
    }
    acc
}

/// `tnum_overlap`: true if the known bits of both agree.
pub fn tnum_overlap(a: Tnum, b: Tnum) -> bool {
    let mu = !a.mask & !b.mask;
    (a.value & mu) == (b.value & mu)
}

/// `tnum_intersect`: values in both. Where the two disagree on a known bit
/// the result says 1, as the kernel's does.
pub fn tnum_intersect(a: Tnum, b: Tnum) -> Tnum {
    let v = a.value | b.value;
    let mu = a.mask & b.mask;
    Tnum::new(v & !mu, mu)
}

/// `tnum_union`: values in either.
pub fn tnum_union(a: Tnum, b: Tnum) -> Tnum {
    let v = a.value & b.value;
    let mu = (a.value ^ b.value) | a.mask | b.mask;
    Tnum::new(v & !mu, mu)
}

/// `tnum_cast`: keep the low `size` bytes. The kernel calls it with
/// `size < 8`; 8 and more keep everything.
pub fn tnum_cast(a: Tnum, size: u8) -> Tnum {
    let m = 1u64.checked_shl(u32::from(size) * 8).map_or(u64::MAX, |b| b - 1);
    Tnum::new(a.value & m, a.mask & m)
}

/// `tnum_is_aligned`: known to be a multiple of `size` (a power of two).
pub fn tnum_is_aligned(a: Tnum, size: u64) -> bool {
    if size == 0 {
        return true;
    }
    (a.value | a.mask) & (size - 1) == 0
}

/// `tnum_in`: true if `b` is a subset of `a`.
pub fn tnum_in(a: Tnum, mut b: Tnum) -> bool {
    if b.mask & !a.mask != 0 {
        return false;
    }
    b.value &= !a.mask;
    a.value == b.value
}

/// `tnum_is_const`.
pub fn tnum_is_const(a: Tnum) -> bool {
    a.mask == 0
}

/// `tnum_equals_const`.
pub fn tnum_equals_const(a: Tnum, b: u64) -> bool {
    tnum_is_const(a) && a.value == b
}

/// `tnum_is_unknown`.
pub fn tnum_is_unknown(a: Tnum) -> bool {
    a.mask == u64::MAX
}

/// `tnum_sbin`: 64 characters, `0`/`1`/`x`, most significant first.
pub fn tnum_sbin(a: Tnum) -> String {
    (0..64)
        .rev()
        .map(|i| {
            if (a.mask >> i) & 1 != 0 {
                'x'
            } else if (a.value >> i) & 1 != 0 {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

/// `tnum_subreg`: the low 32 bits.
pub fn tnum_subreg(a: Tnum) -> Tnum {
    tnum_cast(a, 4)
}

/// `tnum_clear_subreg`: the high 32 bits, low ones known 0.
pub fn tnum_clear_subreg(a: Tnum) -> Tnum {
    tnum_lshift(tnum_rshift(a, 32), 32)
}

/// `tnum_with_subreg`: the high half of `reg` with the low half of `subreg`.
pub fn tnum_with_subreg(reg: Tnum, subreg: Tnum) -> Tnum {
    tnum_or(tnum_clear_subreg(reg), tnum_subreg(subreg))
}

/// `tnum_const_subreg`: the low half set to `value`.
pub fn tnum_const_subreg(a: Tnum, value: u32) -> Tnum {
    tnum_with_subreg(a, tnum_const(u64::from(value)))
}

/// `tnum_subreg_is_const`.
pub fn tnum_subreg_is_const(a: Tnum) -> bool {
    tnum_subreg(a).mask == 0
}

/// `tnum_bswap16`.
pub fn tnum_bswap16(a: Tnum) -> Tnum {
    Tnum::new(u64::from((a.value as u16).swap_bytes()), u64::from((a.mask as u16).swap_bytes()))
}

/// `tnum_bswap32`.
pub fn tnum_bswap32(a: Tnum) -> Tnum {
    Tnum::new(u64::from((a.value as u32).swap_bytes()), u64::from((a.mask as u32).swap_bytes()))
}

/// `tnum_bswap64`.
pub fn tnum_bswap64(a: Tnum) -> Tnum {
    Tnum::new(a.value.swap_bytes(), a.mask.swap_bytes())
}

/// `tnum_step`: the smallest member of `t` greater than `z`, for
/// `t.value <= z < t.value | t.mask`; `tmax` for larger `z`, `t.value` for
/// smaller ones.
///
/// Members are `t.value + s` for submasks `s` of `t.mask`, so this finds the
/// least submask above `z - t.value` by incrementing through the mask's gaps.
pub fn tnum_step(t: Tnum, z: u64) -> u64 {
    let tmax = t.value | t.mask;
    if z >= tmax {
        return tmax;
    }
    if z < t.value {
        return t.value;
    }
    let d = z - t.value;
    let carry_mask = 1u64.wrapping_shl(fls64(d & !t.mask)).wrapping_sub(1);
    let filled = d | carry_mask | !t.mask;
    let inc = filled.wrapping_add(1) & t.mask;
    t.value | inc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(t: Tnum) -> Vec<u64> {
        // Only for small masks.
        let mut out = Vec::new();
        let mut s = 0u64;
        loop {
            out.push(t.value | s);
            if s == t.mask {
                break;
            }
            s = (s.wrapping_sub(t.mask)) & t.mask;
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn range_and_step() {
        assert_eq!(tnum_range(0, 2), Tnum::new(0, 3));
        assert_eq!(tnum_range(5, 5), tnum_const(5));
        assert_eq!(tnum_range(0, u64::MAX), TNUM_UNKNOWN);
        let t = Tnum::new(0b0111_0000, 0b1000_0010);
        let m = members(t);
        for z in 0..=0xffu64 {
            let want = m.iter().copied().find(|&v| v > z).unwrap_or(t.value | t.mask);
            let want = if z < t.value { t.value } else { want };
            assert_eq!(tnum_step(t, z), want, "z={z}");
        }
    }

    #[test]
    fn arith_sound_on_small_values() {
        let ts = [tnum_const(3), Tnum::new(0, 3), Tnum::new(4, 1), Tnum::new(8, 6)];
        for &a in &ts {
            for &b in &ts {
                for x in members(a) {
                    for y in members(b) {
                        assert!(tnum_in(tnum_add(a, b), tnum_const(x.wrapping_add(y))));
                        assert!(tnum_in(tnum_sub(a, b), tnum_const(x.wrapping_sub(y))));
                        assert!(tnum_in(tnum_mul(a, b), tnum_const(x.wrapping_mul(y))));
                        assert!(tnum_in(tnum_and(a, b), tnum_const(x & y)));
                        assert!(tnum_in(tnum_or(a, b), tnum_const(x | y)));
                        assert!(tnum_in(tnum_xor(a, b), tnum_const(x ^ y)));
                    }
                }
            }
        }
    }

    #[test]
    fn subreg_and_bswap() {
        let t = Tnum::new(0x1234_0000_0000_0001, 0xff00_0000_0000_00f0);
        assert_eq!(tnum_subreg(t), Tnum::new(1, 0xf0));
        assert_eq!(tnum_clear_subreg(t), Tnum::new(0x1234_0000_0000_0000, 0xff00_0000_0000_0000));
        assert_eq!(tnum_bswap16(tnum_const(0x1234)), tnum_const(0x3412));
        assert_eq!(tnum_arshift(tnum_const(0x8000_0000), 4, 32), tnum_const(0xf800_0000));
        assert_eq!(tnum_sbin(Tnum::new(1, 2)).get(61..), Some("0x1"));
    }
}
