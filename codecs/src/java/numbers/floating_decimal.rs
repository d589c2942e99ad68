//! The digits of `Double.toString` / `Float.toString` before JDK 19: the digit generation of
//! `jdk.internal.math.FloatingDecimal` (`BinaryToASCIIBuffer.dtoa`), which JDK 8 to 18 share.
//!
//! The algorithm (Steele & White's, as FloatingDecimal carries it):
//! - an integer value below 2^63 (no bits right of the binary point) is printed from its
//!   integer digits, rounded (half up) to drop the digits below the value's precision
//!   (`insignificantDigitsForPow2`), trailing zeros dropped;
//! - any other value is written as `B / S × 10^decExp` with `M` half an ulp scaled as `B`
//!   (half as much for an exact power of two), the decimal exponent estimated from a linear
//!   approximation of log10 in double arithmetic; digits are produced while the remainder
//!   is neither below `M` ("low") nor above `S - M` ("high"), and the last digit is rounded
//!   from the stopping condition (up when only "high", by the doubled remainder when both,
//!   a tie going to an even digit). The stopping test is symmetric even at powers of two,
//!   and in scientific layout (below 1e-3 or from 1e7) the first digit never stops the
//!   loop, which is why this algorithm prints more digits than needed for some values
//!   (`2.0E23` as `1.9999999999999998E23`) and, at the same length, sometimes a digit that
//!   is not the closest (JDK-4511638);
//! - when `B`, `10·S` and `M` fit in 32 or 64 bits Java runs the loop in `int` or `long`
//!   arithmetic (with strict `b + m > 10·s` for "high", and overflowing `m` taken as both
//!   "low" and "high"); otherwise in big integers (with `b + m >= 10·s`). Both are
//!   reproduced here, the narrow ones with Java's wrapping arithmetic;
//! - a FLOAT goes through the same routine as a double whose significand is the float's,
//!   with the float's significant-bit count deciding the half ulp.
//!
//! The layout (plain from 1e-3 to below 1e7, else `d.dddE[-]n`) is the same in every JDK and is
//! written by the caller.

/// 5^n for n < 27 (all that fit in a signed long), as `FDBigInteger.LONG_5_POW`.
const LONG_5_POW: [i64; 27] = {
    let mut table = [1i64; 27];
    let mut i = 1;
    while i < 27 {
        table[i] = table[i - 1] * 5;
        i += 1;
    }
    table
};

/// 5^n for n < 14 (all that fit in a signed int), as `FDBigInteger.SMALL_5_POW`.
const SMALL_5_POW: [i32; 14] = {
    let mut table = [1i32; 14];
    let mut i = 1;
    while i < 14 {
        table[i] = table[i - 1] * 5;
        i += 1;
    }
    table
};

/// Approximately ceil(log2(5^n)), FloatingDecimal's `N_5_BITS`.
const N_5_BITS: [i32; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
    59, 61,
];

/// `insignificantDigitsNumber`: decimal digits of 2^n below the first, minus one.
const INSIGNIFICANT_DIGITS: [i32; 64] = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9,
    9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16,
    16, 17, 17, 17, 18, 18, 18, 19,
];

/// Bits of the double significand field (`EXP_SHIFT`).
const EXP_SHIFT: i32 = 52;
/// The hidden bit of a normal double (`FRACT_HOB`).
const FRACT_HOB: i64 = 1 << EXP_SHIFT;

/// The decimal digits FloatingDecimal produces: `0.d1d2... × 10^exponent`.
pub(super) struct LegacyDigits {
    /// ASCII digits; `len` of them are meaningful.
    pub(super) digits: [u8; 32],
    /// Number of digits.
    pub(super) len: usize,
    /// FloatingDecimal's `decExponent` (the value is `0.digits × 10^exponent`).
    pub(super) exponent: i32,
}

/// The digits of a positive finite non-zero double.
pub(super) fn double_digits(value: f64) -> LegacyDigits {
    let bits = value.to_bits();
    let mut fract_bits = i64::try_from(bits & ((1u64 << 52) - 1)).unwrap_or(0);
    let mut bin_exp = i32::try_from((bits >> 52) & 0x7FF).unwrap_or(0);
    let significant_bits;
    if bin_exp == 0 {
        let leading_zeros = i32::try_from(fract_bits.leading_zeros()).unwrap_or(0);
        let shift = leading_zeros - (63 - EXP_SHIFT);
        fract_bits = fract_bits.wrapping_shl(shift.unsigned_abs());
        bin_exp = 1 - shift;
        significant_bits = 64 - leading_zeros;
    } else {
        fract_bits |= FRACT_HOB;
        significant_bits = EXP_SHIFT + 1;
    }
    dtoa(bin_exp - 1023, fract_bits, significant_bits)
}

/// The digits of a positive finite non-zero float (through the double routine).
pub(super) fn float_digits(value: f32) -> LegacyDigits {
    let bits = value.to_bits();
    let mut fract_bits = i32::try_from(bits & ((1u32 << 23) - 1)).unwrap_or(0);
    let mut bin_exp = i32::try_from((bits >> 23) & 0xFF).unwrap_or(0);
    let significant_bits;
    if bin_exp == 0 {
        let leading_zeros = i32::try_from(fract_bits.leading_zeros()).unwrap_or(0);
        let shift = leading_zeros - (31 - 23);
        fract_bits = fract_bits.wrapping_shl(shift.unsigned_abs());
        bin_exp = 1 - shift;
        significant_bits = 32 - leading_zeros;
    } else {
        fract_bits |= 1 << 23;
        significant_bits = 24;
    }
    dtoa(
        bin_exp - 127,
        i64::from(fract_bits) << (EXP_SHIFT - 23),
        significant_bits,
    )
}

/// `estimateDecExp`: floor of a linear estimate of log10 of the value, in double arithmetic.
// Java's literal 0.301029995663981 is not `LOG10_2` (0.30102999566398120); the estimate must be
// computed with Java's constants to land on the same exponent.
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract_bits: i64, bin_exp: i32) -> i32 {
    let significand = u64::try_from(fract_bits & (FRACT_HOB - 1)).unwrap_or(0);
    let d2 = f64::from_bits((1023u64 << 52) | significand);
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + f64::from(bin_exp) * 0.301029995663981;
    // FloatingDecimal's bit manipulation computes floor(d) (d is far inside int range).
    d.floor() as i32
}

/// `BinaryToASCIIBuffer.dtoa` for `isCompatibleFormat == true` (what `toString` uses).
fn dtoa(bin_exp: i32, fract_bits: i64, significant_bits: i32) -> LegacyDigits {
    let mut out = LegacyDigits {
        digits: [b'0'; 32],
        len: 0,
        exponent: 0,
    };
    let tail_zeros = i32::try_from(fract_bits.trailing_zeros()).unwrap_or(0);
    let fract_bit_count = EXP_SHIFT + 1 - tail_zeros;
    let tiny_bits = (fract_bit_count - bin_exp - 1).max(0);
    if (-21..=62).contains(&bin_exp)
        && tiny_bits < 27
        && fract_bit_count + N_5_BITS[index(tiny_bits)] < 64
        && tiny_bits == 0
    {
        // An integer below 2^63.
        let insignificant = if bin_exp > significant_bits {
            insignificant_digits_for_pow2(bin_exp - significant_bits - 1)
        } else {
            0
        };
        let value = if bin_exp >= EXP_SHIFT {
            fract_bits.wrapping_shl((bin_exp - EXP_SHIFT).unsigned_abs())
        } else {
            fract_bits >> (EXP_SHIFT - bin_exp)
        };
        develop_long_digits(value, insignificant, &mut out);
        return out;
    }

    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - significant_bits;

    let fract = fract_bits >> tail_zeros;
    b2 -= fract_bit_count - 1;
    let common2 = b2.min(s2);
    b2 -= common2;
    s2 -= common2;
    m2 -= common2;
    if fract_bit_count == 1 {
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }

    let b_bits = fract_bit_count + b2 + n5_bits(b5);
    let ten_s_bits = s2 + 1 + n5_bits(s5 + 1);
    let (high, low, low_digit_difference) = if b_bits < 64 && ten_s_bits < 64 {
        if b_bits < 32 && ten_s_bits < 32 {
            int_loop(fract, [b5, b2, s5, s2, m5, m2], &mut dec_exp, &mut out)
        } else {
            long_loop(fract, [b5, b2, s5, s2, m5, m2], &mut dec_exp, &mut out)
        }
    } else {
        big_loop(fract, [b5, b2, s5, s2, m5, m2], &mut dec_exp, &mut out)
    };
    out.exponent = dec_exp + 1;
    if high {
        let round_up = if low {
            match low_digit_difference {
                0 => out.len > 0 && (out.digits[out.len - 1] & 1) != 0,
                d => d > 0,
            }
        } else {
            true
        };
        if round_up {
            roundup(&mut out);
        }
    }
    out
}

/// `N_5_BITS[n]`, or `3n` beyond the table.
fn n5_bits(n: i32) -> i32 {
    N_5_BITS.get(index(n)).copied().unwrap_or(n.wrapping_mul(3))
}

/// A non-negative exponent as an index.
fn index(n: i32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// `insignificantDigitsForPow2`.
fn insignificant_digits_for_pow2(p2: i32) -> i32 {
    if p2 > 1 {
        INSIGNIFICANT_DIGITS.get(index(p2)).copied().unwrap_or(0)
    } else {
        0
    }
}

/// Appends a digit (0..=9 in practice; Java would write any `'0' + q`).
fn push_digit(out: &mut LegacyDigits, q: i64) {
    if out.len < out.digits.len() {
        out.digits[out.len] = u8::try_from(i64::from(b'0') + q).unwrap_or(b'?');
        out.len += 1;
    }
}

/// Whether the exponent estimate puts the value in scientific layout, where Java never stops
/// after the first digit.
fn scientific(dec_exp: i32) -> bool {
    !(-3..8).contains(&dec_exp)
}

/// The digit loop in `int` arithmetic. Returns (high, low, lowDigitDifference).
fn int_loop(
    fract: i64,
    [b5, b2, s5, s2, m5, m2]: [i32; 6],
    dec_exp: &mut i32,
    out: &mut LegacyDigits,
) -> (bool, bool, i64) {
    let pow5 = |n: i32| SMALL_5_POW.get(index(n)).copied().unwrap_or(0);
    // Java: ((int) fractBits * SMALL_5_POW[B5]) << B2, in wrapping int arithmetic.
    let mut b = (fract as i32)
        .wrapping_mul(pow5(b5))
        .wrapping_shl(b2.unsigned_abs());
    let s = pow5(s5).wrapping_shl(s2.unsigned_abs());
    let mut m = pow5(m5).wrapping_shl(m2.unsigned_abs());
    let tens = s.wrapping_mul(10);
    if s == 0 {
        return (false, false, 0);
    }
    let mut q = b.wrapping_div(s);
    b = b.wrapping_rem(s).wrapping_mul(10);
    m = m.wrapping_mul(10);
    let mut low = b < m;
    let mut high = b.wrapping_add(m) > tens;
    if q == 0 && !high {
        *dec_exp -= 1;
    } else {
        push_digit(out, i64::from(q));
    }
    if scientific(*dec_exp) {
        high = false;
        low = false;
    }
    while !low && !high && out.len < out.digits.len() {
        q = b.wrapping_div(s);
        b = b.wrapping_rem(s).wrapping_mul(10);
        m = m.wrapping_mul(10);
        if m > 0 {
            low = b < m;
            high = b.wrapping_add(m) > tens;
        } else {
            low = true;
            high = true;
        }
        push_digit(out, i64::from(q));
    }
    (high, low, i64::from(b.wrapping_shl(1).wrapping_sub(tens)))
}

/// The digit loop in `long` arithmetic. Returns (high, low, lowDigitDifference).
fn long_loop(
    fract: i64,
    [b5, b2, s5, s2, m5, m2]: [i32; 6],
    dec_exp: &mut i32,
    out: &mut LegacyDigits,
) -> (bool, bool, i64) {
    let pow5 = |n: i32| LONG_5_POW.get(index(n)).copied().unwrap_or(0);
    let mut b = fract.wrapping_mul(pow5(b5)).wrapping_shl(b2.unsigned_abs());
    let s = pow5(s5).wrapping_shl(s2.unsigned_abs());
    let mut m = pow5(m5).wrapping_shl(m2.unsigned_abs());
    let tens = s.wrapping_mul(10);
    if s == 0 {
        return (false, false, 0);
    }
    let mut q = b.wrapping_div(s);
    b = b.wrapping_rem(s).wrapping_mul(10);
    m = m.wrapping_mul(10);
    let mut low = b < m;
    let mut high = b.wrapping_add(m) > tens;
    if q == 0 && !high {
        *dec_exp -= 1;
    } else {
        push_digit(out, q);
    }
    if scientific(*dec_exp) {
        high = false;
        low = false;
    }
    while !low && !high && out.len < out.digits.len() {
        q = b.wrapping_div(s);
        b = b.wrapping_rem(s).wrapping_mul(10);
        m = m.wrapping_mul(10);
        if m > 0 {
            low = b < m;
            high = b.wrapping_add(m) > tens;
        } else {
            low = true;
            high = true;
        }
        push_digit(out, q);
    }
    (high, low, b.wrapping_shl(1).wrapping_sub(tens))
}

/// The digit loop in big-integer arithmetic (`FDBigInteger`; exact, so its normalization
/// shift is left out). Returns (high, low, lowDigitDifference).
fn big_loop(
    fract: i64,
    [b5, b2, s5, s2, m5, m2]: [i32; 6],
    dec_exp: &mut i32,
    out: &mut LegacyDigits,
) -> (bool, bool, i64) {
    let fract = u64::try_from(fract).unwrap_or(0);
    let s = Big::pow52(s5, s2);
    let mut b = Big::from_u64(fract);
    b.mul_pow5(b5);
    b.shl(b2);
    // M and 10·S scaled by ten, as B is after each quotient step.
    let mut m = Big::pow52(m5 + 1, m2 + 1);
    let ten_s = Big::pow52(s5 + 1, s2 + 1);
    let mut q = b.quo_rem_iteration(&s);
    let mut low = b.cmp(&m).is_lt();
    let mut high = ten_s.cmp_sum(&b, &m).is_le();
    if q == 0 && !high {
        *dec_exp -= 1;
    } else {
        push_digit(out, q);
    }
    if scientific(*dec_exp) {
        high = false;
        low = false;
    }
    while !low && !high && out.len < out.digits.len() {
        q = b.quo_rem_iteration(&s);
        m.mul_small(10);
        low = b.cmp(&m).is_lt();
        high = ten_s.cmp_sum(&b, &m).is_le();
        push_digit(out, q);
    }
    let difference = if high && low {
        b.shl(1);
        match b.cmp(&ten_s) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }
    } else {
        0
    };
    (high, low, difference)
}

/// `developLongDigits`: the digits of an integer value, `insignificant` low digits rounded
/// away (half up), trailing zeros dropped.
fn develop_long_digits(mut value: i64, insignificant: i32, out: &mut LegacyDigits) {
    let mut dec_exponent = 0;
    if insignificant != 0 {
        let pow10 = LONG_5_POW
            .get(index(insignificant))
            .copied()
            .unwrap_or(1)
            .wrapping_shl(insignificant.unsigned_abs());
        let residue = value.wrapping_rem(pow10);
        value = value.wrapping_div(pow10);
        dec_exponent += insignificant;
        if residue >= (pow10 >> 1) {
            value = value.wrapping_add(1);
        }
    }
    // Digits from the lowest; trailing zeros only raise the exponent.
    let mut reversed = [0u8; 20];
    let mut count = 0;
    let mut digit = value % 10;
    value /= 10;
    while digit == 0 && value != 0 {
        dec_exponent += 1;
        digit = value % 10;
        value /= 10;
    }
    while value != 0 && count < reversed.len() {
        reversed[count] = u8::try_from(digit).unwrap_or(0);
        count += 1;
        dec_exponent += 1;
        digit = value % 10;
        value /= 10;
    }
    if count < reversed.len() {
        reversed[count] = u8::try_from(digit).unwrap_or(0);
        count += 1;
    }
    for (slot, &d) in out.digits.iter_mut().zip(reversed[..count].iter().rev()) {
        *slot = b'0' + d;
    }
    out.len = count;
    out.exponent = dec_exponent + 1;
}

/// `roundup`: adds one to the last digit, carrying; a carry out of the first digit makes it
/// `1` with a larger exponent (the other digits stay as they are, all zeros).
fn roundup(out: &mut LegacyDigits) {
    if out.len == 0 {
        return;
    }
    let mut i = out.len - 1;
    let mut q = out.digits[i];
    if q == b'9' {
        while q == b'9' && i > 0 {
            out.digits[i] = b'0';
            i -= 1;
            q = out.digits[i];
        }
        if q == b'9' {
            out.exponent += 1;
            out.digits[0] = b'1';
            return;
        }
    }
    out.digits[i] = q + 1;
}

/// Limbs of [`Big`]: 3,072 bits, above the ~1,900 the largest scaled values take.
const LIMBS: usize = 96;

/// An unsigned big integer of fixed capacity (little-endian 32-bit limbs). Values here are
/// bounded by the double range; anything beyond the capacity would be dropped, never panic.
#[derive(Clone)]
struct Big {
    limbs: [u32; LIMBS],
    len: usize,
}

impl Big {
    fn from_u64(value: u64) -> Self {
        let mut big = Big {
            limbs: [0; LIMBS],
            len: 2,
        };
        big.limbs[0] = value as u32;
        big.limbs[1] = (value >> 32) as u32;
        big.trim();
        big
    }

    /// 5^p5 × 2^p2.
    fn pow52(p5: i32, p2: i32) -> Self {
        let mut big = Big::from_u64(1);
        big.mul_pow5(p5);
        big.shl(p2);
        big
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs[..self.len] {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry != 0 && self.len < LIMBS {
            self.limbs[self.len] = carry as u32;
            self.len += 1;
        }
    }

    fn mul_pow5(&mut self, mut p5: i32) {
        // 5^13 is the largest power of five in 32 bits.
        while p5 >= 13 {
            self.mul_small(1_220_703_125);
            p5 -= 13;
        }
        if p5 > 0 {
            self.mul_small(5u32.pow(p5.unsigned_abs()));
        }
    }

    fn shl(&mut self, bits: i32) {
        let Ok(bits) = usize::try_from(bits) else {
            return;
        };
        if self.len == 0 || bits == 0 {
            return;
        }
        let words = bits / 32;
        let shift = bits % 32;
        let new_len = (self.len + words + 1).min(LIMBS);
        let mut limbs = [0u32; LIMBS];
        for i in (0..self.len).rev() {
            let target = i + words;
            let wide = u64::from(self.limbs[i]) << shift;
            if let Some(slot) = limbs.get_mut(target) {
                *slot |= wide as u32;
            }
            if let Some(slot) = limbs.get_mut(target + 1) {
                *slot |= (wide >> 32) as u32;
            }
        }
        self.limbs = limbs;
        self.len = new_len;
        self.trim();
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.len.cmp(&other.len).then_with(|| {
            self.limbs[..self.len]
                .iter()
                .rev()
                .cmp(other.limbs[..other.len].iter().rev())
        })
    }

    /// Compares `self` with `x + y` (`FDBigInteger.addAndCmp`).
    fn cmp_sum(&self, x: &Big, y: &Big) -> std::cmp::Ordering {
        let mut sum = x.clone();
        let len = x.len.max(y.len);
        let mut carry = 0u64;
        for i in 0..len {
            let total = u64::from(x.limbs[i]) + u64::from(y.limbs[i]) + carry;
            sum.limbs[i] = total as u32;
            carry = total >> 32;
        }
        sum.len = len;
        if carry != 0 && len < LIMBS {
            sum.limbs[len] = 1;
            sum.len = len + 1;
        }
        self.cmp(&sum)
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.len {
            let difference = i64::from(self.limbs[i]) - i64::from(other.limbs[i]) - borrow;
            if difference < 0 {
                self.limbs[i] = (difference + (1 << 32)) as u32;
                borrow = 1;
            } else {
                self.limbs[i] = difference as u32;
                borrow = 0;
            }
        }
        self.trim();
    }

    /// `quoRemIteration`: returns `self / s` and leaves `10 × (self mod s)`.
    fn quo_rem_iteration(&mut self, s: &Big) -> i64 {
        let mut q = 0;
        while s.len > 0 && self.cmp(s).is_ge() {
            self.sub_assign(s);
            q += 1;
        }
        self.mul_small(10);
        q
    }
}
