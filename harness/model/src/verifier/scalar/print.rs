//! How the 7.3 verifier log prints numbers and scalar registers
//! (`kernel/bpf/log.c`: `verbose_snum`, `verbose_unum`, `tnum_strn`,
//! `print_scalar_ranges`, the scalar part of `print_reg_state`).
//!
//! Small numbers print in decimal, others in hex (`%#llx`, which in the
//! kernel's printf gives `0x0` for zero too). Of the eight bounds only those
//! that say something are printed, and equal ones share one value:
//! `smin=smin32=0,smax=umax=smax32=umax32=255`.

use super::{BPF_ADD_CONST, Scalar};
use crate::verifier::tnum::{Tnum, tnum_is_const, tnum_is_unknown};

/// `is_unum_decimal`: up to `U16_MAX`.
pub fn is_unum_decimal(num: u64) -> bool {
    num <= u64::from(u16::MAX)
}

/// `is_snum_decimal`: within `[S16_MIN, S16_MAX]`.
pub fn is_snum_decimal(num: i64) -> bool {
    (i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&num)
}

/// Appends `num` in decimal (`%llu`), without the `fmt` machinery: the
/// state printers run once per processed insn at log level 1.
pub fn push_u64(out: &mut String, mut num: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (num % 10) as u8;
        num /= 10;
        if num == 0 {
            break;
        }
    }
    push_ascii(out, &digits[i..]);
}

/// Appends ASCII bytes one by one: cheaper for a few digits than
/// validating them as a `str`.
fn push_ascii(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len());
    for &b in bytes {
        out.push(char::from(b));
    }
}

/// Appends `num` in decimal (`%lld`).
pub fn push_i64(out: &mut String, num: i64) {
    if num < 0 {
        out.push('-');
    }
    push_u64(out, num.unsigned_abs());
}

/// Appends `num` as `%#llx` does in the kernel: `0x` and lower-case hex
/// digits, `0x0` for zero.
pub fn push_hex(out: &mut String, num: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut digits = *b"0x0000000000000000";
    let ndigits = ((64 - num.leading_zeros()).div_ceil(4)).max(1) as usize;
    for k in 0..ndigits {
        digits[digits.len() - 1 - k] = HEX[((num >> (4 * k)) & 0xf) as usize];
    }
    let start = digits.len() - ndigits - 2;
    digits[start] = b'0';
    digits[start + 1] = b'x';
    push_ascii(out, &digits[start..]);
}

/// `verbose_unum`.
pub fn verbose_unum(out: &mut String, num: u64) {
    if is_unum_decimal(num) {
        push_u64(out, num);
    } else {
        push_hex(out, num);
    }
}

/// `verbose_snum`: negative hex values print as their u64 pattern.
pub fn verbose_snum(out: &mut String, num: i64) {
    if is_snum_decimal(num) {
        push_i64(out, num);
    } else {
        push_hex(out, num as u64);
    }
}

/// `tnum_strn`: a constant as a number, otherwise `(value; mask)` in hex.
pub fn tnum_strn(a: Tnum) -> String {
    let mut s = String::new();
    print_tnum(&mut s, a);
    s
}

/// [`tnum_strn`] appended to `out`.
pub fn print_tnum(out: &mut String, a: Tnum) {
    if a.mask == 0 {
        if is_unum_decimal(a.value) {
            push_u64(out, a.value);
        } else if is_snum_decimal(a.value as i64) {
            push_i64(out, a.value as i64);
        } else {
            push_hex(out, a.value);
        }
        return;
    }
    out.push('(');
    push_hex(out, a.value);
    out.push_str("; ");
    push_hex(out, a.mask);
    out.push(')');
}

/// `print_scalar_ranges`: the bounds that differ from "unbounded", each
/// followed by the later ones of the same kind (signed/unsigned) that equal
/// it (`smax=umax=smax32=umax32=255`). Negative and non-negative values are
/// never merged, and 32-bit signed bounds printed in hex are not sign
/// extended. `sep` is `""` before the first item and `","` after.
pub fn print_scalar_ranges(out: &mut String, reg: &Scalar, sep: &mut &'static str) {
    let s32 = |v: i32| -> u64 { if is_snum_decimal(i64::from(v)) { i64::from(v) as u64 } else { u64::from(v as u32) } };
    let mut minmaxs: [(&str, u64, bool); 8] = [
        ("smin", reg.smin() as u64, reg.smin() == i64::MIN),
        ("smax", reg.smax() as u64, reg.smax() == i64::MAX),
        ("umin", reg.umin(), reg.umin() == 0),
        ("umax", reg.umax(), reg.umax() == u64::MAX),
        ("smin32", s32(reg.s32_min()), reg.s32_min() == i32::MIN),
        ("smax32", s32(reg.s32_max()), reg.s32_max() == i32::MAX),
        ("umin32", u64::from(reg.u32_min()), reg.u32_min() == 0),
        ("umax32", u64::from(reg.u32_max()), reg.u32_max() == u32::MAX),
    ];
    let is_neg = |name: &str, val: u64| name.starts_with('s') && (val as i64) < 0;
    for i in 0..minmaxs.len() {
        let (name1, val1, omit1) = minmaxs[i];
        if omit1 {
            continue;
        }
        let neg1 = is_neg(name1, val1);
        out.push_str(sep);
        out.push_str(name1);
        out.push('=');
        *sep = ",";
        let mut j = i + 2;
        while j < minmaxs.len() {
            let (name2, val2, omit2) = minmaxs[j];
            if !omit2 && val2 == val1 && is_neg(name2, val2) == neg1 {
                minmaxs[j].2 = true;
                out.push_str(name2);
                out.push('=');
            }
            j += 2;
        }
        if name1.starts_with('s') {
            verbose_snum(out, val1 as i64);
        } else {
            verbose_unum(out, val1);
        }
    }
}

/// What `print_reg_state` prints for a `SCALAR_VALUE` register after `R<n>=`:
/// `P` if precise, then the constant, or `scalar(` id (`id=N`, `+delta` for
/// a linked `rX += const`), ranges and `var_off` `)`.
pub fn print_scalar(out: &mut String, reg: &Scalar, id: u32, delta: i32, precise: bool) {
    if precise {
        out.push('P');
    }
    if tnum_is_const(reg.var_off) {
        verbose_snum(out, reg.var_off.value as i64);
        return;
    }
    out.push_str("scalar(");
    let mut sep: &'static str = "";
    if id != 0 {
        out.push_str("id=");
        push_u64(out, u64::from(id & !BPF_ADD_CONST));
        sep = ",";
    }
    if id & BPF_ADD_CONST != 0 {
        // `%+d`
        if delta >= 0 {
            out.push('+');
        }
        push_i64(out, i64::from(delta));
    }
    print_scalar_ranges(out, reg, &mut sep);
    if !tnum_is_unknown(reg.var_off) {
        out.push_str(sep);
        out.push_str("var_off=");
        print_tnum(out, reg.var_off);
    }
    out.push(')');
}

/// [`print_scalar`] into a new string.
pub fn scalar_to_string(reg: &Scalar, id: u32, delta: i32, precise: bool) -> String {
    let mut s = String::new();
    print_scalar(&mut s, reg, id, delta, precise);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verifier::tnum::Tnum;

    #[test]
    fn formats() {
        let mut m = Scalar::unknown();
        m.var_off = Tnum::new(0, 0xff);
        super::super::reg_bounds_sync(&mut m);
        assert_eq!(scalar_to_string(&m, 0, 0, false), "scalar(smin=smin32=0,smax=umax=smax32=umax32=255,var_off=(0x0; 0xff))");
        assert_eq!(scalar_to_string(&Scalar::known(u64::MAX), 0, 0, false), "-1");
        assert_eq!(scalar_to_string(&Scalar::known(0x8000_0000), 0, 0, false), "0x80000000");
        assert_eq!(scalar_to_string(&Scalar::unknown(), 1 | super::super::BPF_ADD_CONST64, 1, false), "scalar(id=1+1)");
        assert_eq!(tnum_strn(Tnum::new(0xffff_ffff_ffff_fff0, 0)), "-16");
    }

    #[test]
    fn numbers_as_fmt_prints_them() {
        for v in [0u64, 1, 9, 10, 0xf, 0x10, 0xffff, 0x1_0000, 0x8000_0000, u64::MAX - 1, u64::MAX, 1 << 63, 12345678901234567890] {
            let (mut d, mut h, mut i) = (String::new(), String::new(), String::new());
            push_u64(&mut d, v);
            push_hex(&mut h, v);
            push_i64(&mut i, v as i64);
            assert_eq!(d, format!("{v}"));
            assert_eq!(h, format!("{v:#x}"));
            assert_eq!(i, format!("{}", v as i64));
        }
    }
}
