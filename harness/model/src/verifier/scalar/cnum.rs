//! Circular numbers (`kernel/bpf/cnum.c`, `cnum_defs.h`, `include/linux/cnum.h`).
//!
//! 7.3 keeps a register's range as one arc on the circle of `2^N` values
//! instead of separate signed and unsigned min/max: `base` is the first value,
//! `size` the number of further values (so the whole circle fits in `size =
//! MAX`). An arc that crosses `MAX -> 0` reads as the unsigned range
//! `[0, MAX]`; one that crosses `S_MAX -> S_MIN` as the signed range
//! `[S_MIN, S_MAX]`. `{MAX, MAX}` is the empty set, the state of a dead
//! branch.
//!
//! [`Cnum32`] and [`Cnum64`] are the kernel's `cnum32`/`cnum64`, one macro
//! body for both widths as `cnum_defs.h` is one header for both.

macro_rules! cnum_impl {
    ($name:ident, $ut:ty, $st:ty, $bits:literal) => {
        #[doc = concat!("`struct cnum", $bits, "`: the arc `[base, base + size]`, wrapping.")]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name {
            pub base: $ut,
            pub size: $ut,
        }

        impl $name {
            #[doc = concat!("`CNUM", $bits, "_UNBOUNDED`: every value.")]
            pub const UNBOUNDED: $name = $name { base: 0, size: <$ut>::MAX };
            #[doc = concat!("`CNUM", $bits, "_EMPTY`: no value.")]
            pub const EMPTY: $name = $name { base: <$ut>::MAX, size: <$ut>::MAX };

            pub const fn new(base: $ut, size: $ut) -> $name {
                $name { base, size }
            }

            #[doc = concat!("`cnum", $bits, "_from_urange`. With `min > max` the arc wraps; nothing checks the order.")]
            pub fn from_urange(min: $ut, max: $ut) -> $name {
                $name { base: min, size: max.wrapping_sub(min) }
            }

            #[doc = concat!("`cnum", $bits, "_from_srange`; the full circle is normalised to base 0.")]
            pub fn from_srange(min: $st, max: $st) -> $name {
                let size = (max as $ut).wrapping_sub(min as $ut);
                let base = if size == <$ut>::MAX { 0 } else { min as $ut };
                $name { base, size }
            }

            /// `urange_overflow`: the arc crosses `MAX -> 0`.
            pub fn urange_overflow(self) -> bool {
                self.size > <$ut>::MAX - self.base
            }

            #[doc = concat!("`cnum", $bits, "_umin`.")]
            pub fn umin(self) -> $ut {
                if self.urange_overflow() { 0 } else { self.base }
            }

            #[doc = concat!("`cnum", $bits, "_umax`.")]
            pub fn umax(self) -> $ut {
                if self.urange_overflow() { <$ut>::MAX } else { self.base.wrapping_add(self.size) }
            }

            /// `srange_overflow`: the arc crosses `S_MAX -> S_MIN`.
            pub fn srange_overflow(self) -> bool {
                self.contains(<$st>::MAX as $ut) && self.contains(<$st>::MIN as $ut)
            }

            #[doc = concat!("`cnum", $bits, "_smin`.")]
            pub fn smin(self) -> $st {
                if self.srange_overflow() { <$st>::MIN } else { (self.base as $st).min(self.base.wrapping_add(self.size) as $st) }
            }

            #[doc = concat!("`cnum", $bits, "_smax`.")]
            pub fn smax(self) -> $st {
                if self.srange_overflow() { <$st>::MAX } else { (self.base as $st).max(self.base.wrapping_add(self.size) as $st) }
            }

            #[doc = concat!("`cnum", $bits, "_intersect`. When the arcs meet in two pieces the")]
            /// result over-approximates: the smaller of the two inputs.
            pub fn intersect(self, other: $name) -> $name {
                if self.is_empty() || other.is_empty() {
                    return $name::EMPTY;
                }
                let (a, b) = if self.base > other.base { (other, self) } else { (self, other) };
                // Rotate so that `a` starts at 0; `b1` is `b` in that frame.
                let dbase = b.base.wrapping_sub(a.base);
                let b1 = $name { base: dbase, size: b.size };
                if b1.urange_overflow() {
                    if b1.base <= a.size {
                        // Two disjoint pieces.
                        if a.size <= b.size { a } else { b }
                    } else {
                        // Only the wrapped tail of `b` meets `a`.
                        $name { base: a.base, size: a.size.min(b1.base.wrapping_add(b1.size)) }
                    }
                } else if a.size >= b1.base {
                    $name { base: b.base, size: (a.size - dbase).min(b.size) }
                } else {
                    $name::EMPTY
                }
            }

            #[doc = concat!("`cnum", $bits, "_intersect_with`.")]
            pub fn intersect_with(&mut self, src: $name) {
                *self = self.intersect(src);
            }

            #[doc = concat!("`cnum", $bits, "_intersect_with_urange`.")]
            pub fn intersect_with_urange(&mut self, min: $ut, max: $ut) {
                self.intersect_with($name::from_urange(min, max));
            }

            #[doc = concat!("`cnum", $bits, "_intersect_with_srange`.")]
            pub fn intersect_with_srange(&mut self, min: $st, max: $st) {
                self.intersect_with($name::from_srange(min, max));
            }

            /// `normalize`: the full circle gets base 0, except a base of
            /// `S_MAX`, which the kernel keeps.
            fn normalize(mut self) -> $name {
                if self.size == <$ut>::MAX && self.base != 0 && self.base != <$st>::MAX as $ut {
                    self.base = 0;
                }
                self
            }

            #[doc = concat!("`cnum", $bits, "_add`: the arc of all sums; the full circle when the sizes add past it.")]
            #[allow(clippy::should_implement_trait)] // the kernel's name; not `+` on numbers
            pub fn add(self, b: $name) -> $name {
                if self.is_empty() || b.is_empty() {
                    return $name::EMPTY;
                }
                if self.size > <$ut>::MAX - b.size {
                    $name::UNBOUNDED
                } else {
                    $name { base: self.base.wrapping_add(b.base), size: self.size + b.size }.normalize()
                }
            }

            #[doc = concat!("`cnum", $bits, "_negate`.")]
            pub fn negate(self) -> $name {
                if self.is_empty() {
                    return $name::EMPTY;
                }
                $name { base: self.base.wrapping_add(self.size).wrapping_neg(), size: self.size }.normalize()
            }

            #[doc = concat!("`cnum", $bits, "_is_empty`.")]
            pub fn is_empty(self) -> bool {
                self.base == <$ut>::MAX && self.size == <$ut>::MAX
            }

            #[doc = concat!("`cnum", $bits, "_contains`.")]
            pub fn contains(self, v: $ut) -> bool {
                if self.is_empty() {
                    return false;
                }
                let end = self.base.wrapping_add(self.size);
                if self.urange_overflow() { v >= self.base || v <= end } else { v >= self.base && v <= end }
            }

            #[doc = concat!("`cnum", $bits, "_is_const`.")]
            pub fn is_const(self) -> bool {
                self.size == 0
            }

            #[doc = concat!("`cnum", $bits, "_is_subset`: `smaller` lies within `self`.")]
            pub fn is_subset(self, mut smaller: $name) -> bool {
                if smaller.is_empty() {
                    return true;
                }
                if self.is_empty() {
                    return false;
                }
                // Rotate both so that `self` starts at 0 and cannot wrap.
                smaller.base = smaller.base.wrapping_sub(self.base);
                if smaller.urange_overflow() && self.size < <$ut>::MAX {
                    return false;
                }
                smaller.base.wrapping_add(smaller.size) <= self.size
            }
        }
    };
}

cnum_impl!(Cnum32, u32, i32, "32");
cnum_impl!(Cnum64, u64, i64, "64");

/// `cnum32_from_cnum64`: the low halves of an arc; any arc of `2^32` values
/// or more covers them all.
pub fn cnum32_from_cnum64(c: Cnum64) -> Cnum32 {
    if c.is_empty() {
        return Cnum32::EMPTY;
    }
    if c.size >= u64::from(u32::MAX) { Cnum32::UNBOUNDED } else { Cnum32 { base: c.base as u32, size: c.size as u32 } }
}

/// `cnum64_cnum32_intersect`: trims the ends of the 64-bit arc `a` that hold
/// no value whose low half lies in `b` (`b` repeats every `2^32`).
pub fn cnum64_cnum32_intersect(a: Cnum64, b: Cnum32) -> Cnum64 {
    // Rotate so that `a` starts on a 2^32 boundary; `b1` is `b` in that frame.
    let b1 = Cnum32 { base: b.base.wrapping_sub(a.base as u32), size: b.size };
    let mut t = a;
    if a.is_empty() || b.is_empty() {
        return Cnum64::EMPTY;
    }
    let a_low = u64::from(a.size as u32);
    if b1.urange_overflow() {
        // `b1` wraps within its period: only a trim at the tail of `a` is
        // possible, when `a` ends in the gap of `b1`.
        let b1_max = u64::from(b1.base.wrapping_add(b1.size));
        if a_low > b1_max && (a.size as u32) < b1.base {
            t.size -= a_low - b1_max;
        }
    } else {
        if t.size < u64::from(b1.base) {
            return Cnum64::EMPTY;
        }
        // Start at the first value of `b1`.
        t.base = t.base.wrapping_add(u64::from(b1.base));
        t.size -= u64::from(b1.base);
        let b1_max = u64::from(b1.base) + u64::from(b1.size);
        let d = if (a.size as u32) < b1.base {
            // `a` ends before `b1` starts in its last period.
            a_low + ((1u64 << 32) - b1_max)
        } else {
            // `a` ends after `b1` ends in its last period, or inside it.
            a_low.saturating_sub(b1_max)
        };
        if t.size < d {
            return Cnum64::EMPTY;
        }
        t.size -= d;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members32(c: Cnum32) -> Vec<u32> {
        if c.is_empty() {
            return Vec::new();
        }
        (0..=c.size).map(|i| c.base.wrapping_add(i)).collect()
    }

    #[test]
    fn ranges() {
        let c = Cnum64::from_srange(-1, 0);
        assert_eq!(c, Cnum64::new(u64::MAX, 1));
        assert_eq!((c.umin(), c.umax(), c.smin(), c.smax()), (0, u64::MAX, -1, 0));
        let u = Cnum64::from_urange(5, 10);
        assert_eq!((u.umin(), u.umax(), u.smin(), u.smax()), (5, 10, 5, 10));
        assert_eq!(Cnum64::UNBOUNDED.smin(), i64::MIN);
        assert_eq!(Cnum32::from_srange(i32::MIN, i32::MAX), Cnum32::UNBOUNDED);
    }

    #[test]
    fn intersect_is_sound_small() {
        // Exhaustive over arcs of an 8-value sub-circle embedded at the top
        // and bottom of the u32 circle.
        let bases = [0u32, 1, 3, u32::MAX - 2, u32::MAX, 0x7fff_fffe, 0x8000_0000];
        let sizes = [0u32, 1, 2, 5];
        for &ab in &bases {
            for &asz in &sizes {
                for &bb in &bases {
                    for &bsz in &sizes {
                        let a = Cnum32::new(ab, asz);
                        let b = Cnum32::new(bb, bsz);
                        let r = a.intersect(b);
                        for v in members32(a) {
                            if b.contains(v) {
                                assert!(r.contains(v), "{a:?} {b:?} {r:?} {v}");
                            }
                        }
                        assert!(a.is_subset(r) || b.is_subset(r) || r.is_empty());
                    }
                }
            }
        }
    }

    #[test]
    fn add_negate() {
        let a = Cnum32::from_urange(1, 3);
        assert_eq!(a.add(Cnum32::from_urange(10, 10)), Cnum32::from_urange(11, 13));
        assert_eq!(a.negate(), Cnum32::from_srange(-3, -1));
        assert_eq!(Cnum32::UNBOUNDED.add(a), Cnum32::UNBOUNDED);
    }

    #[test]
    fn from_64_and_back() {
        let a = Cnum64::from_urange(0x1_0000_0005, 0x1_0000_0010);
        assert_eq!(cnum32_from_cnum64(a), Cnum32::from_urange(5, 0x10));
        // Low halves limited to [0, 0xff]: the arc [0, 2^33) shrinks to end at
        // 2^33 - 2^32 + 0xff.
        let b = Cnum64::from_urange(0, (1 << 33) - 1);
        let t = cnum64_cnum32_intersect(b, Cnum32::from_urange(0, 0xff));
        assert_eq!(t, Cnum64::from_urange(0, (1 << 32) + 0xff));
        let t = cnum64_cnum32_intersect(Cnum64::from_urange(0x10, 0x20), Cnum32::from_urange(0x30, 0x40));
        assert!(t.is_empty());
    }
}
