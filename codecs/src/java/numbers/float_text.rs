//! The texts of `Double.toString` / `Float.toString`, with the digits of either JDK family
//! ([`JavaFloatText`]): JDK 19+'s shortest digits (here) or the older `FloatingDecimal`
//! digits (`floating_decimal.rs`). The layout is the same in both.

use super::floating_decimal;
use super::*;

/// Which JDK's `Double.toString` / `Float.toString` digits to write. They differ for some
/// values (JDK-4511638, fixed in JDK 19): FLOAT 123456789 is `1.23456792E8` on Java 17 and
/// `1.2345679E8` on Java 19+. Chosen from the JVM the job runs on (its
/// `Runtime.version().feature()`, sent by the Java factories), so the bytes are the ones the
/// stock format writes on that JVM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum JavaFloatText {
    /// JDK 19 and later: the shortest decimal that rounds back, the closest on ties (Raffaello
    /// Giulietti's algorithm).
    #[default]
    Shortest,
    /// JDK 18 and earlier: `jdk.internal.math.FloatingDecimal`'s digits (sometimes longer than
    /// needed, sometimes not the closest).
    FloatingDecimal,
}

impl JavaFloatText {
    /// The algorithm of the JVM whose `Runtime.version().feature()` is `feature`.
    pub fn for_java_feature(feature: u32) -> Self {
        if feature >= 19 {
            JavaFloatText::Shortest
        } else {
            JavaFloatText::FloatingDecimal
        }
    }
}

/// A small stack buffer for `core::fmt` output (float and integer texts fit easily).
pub(super) struct StackText {
    buffer: [u8; 48],
    len: usize,
}

impl StackText {
    pub(super) fn new() -> Self {
        StackText {
            buffer: [0; 48],
            len: 0,
        }
    }

    pub(super) fn as_bytes(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let slot = self.buffer.get_mut(self.len..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Significant decimal digits and the decimal exponent of the first one
/// (`d.ddd × 10^exponent`).
struct DecimalDigits {
    digits: [u8; 24],
    len: usize,
    exponent: i32,
}

impl DecimalDigits {
    /// Reads Rust's `{:e}` text (`1.2345e-7`, `5e-324`) of a positive finite float.
    fn from_lower_exp(text: &[u8]) -> Self {
        let mut result = DecimalDigits {
            digits: [b'0'; 24],
            len: 0,
            exponent: 0,
        };
        let split = text.iter().position(|&b| b == b'e').unwrap_or(text.len());
        for &b in text[..split].iter().filter(|b| b.is_ascii_digit()) {
            if result.len < result.digits.len() {
                result.digits[result.len] = b;
                result.len += 1;
            }
        }
        let exponent_text = std::str::from_utf8(text.get(split + 1..).unwrap_or(b"0"));
        result.exponent = exponent_text.ok().and_then(|t| t.parse().ok()).unwrap_or(0);
        result
    }

    /// Digits and exponent of `significand × 10^exponent` (trailing zeros dropped).
    fn from_integer(significand: u64, exponent: i32) -> Self {
        let mut text = StackText::new();
        let _ = write!(text, "{significand}");
        // Plain integer text reads as its digits with exponent 0; then shift.
        let mut result = Self::from_lower_exp(text.as_bytes());
        result.exponent = exponent + i32::try_from(result.len).unwrap_or(0) - 1;
        while result.len > 1 && result.digits[result.len - 1] == b'0' {
            result.len -= 1;
        }
        result
    }

    /// FloatingDecimal's digits (`0.ddd × 10^exponent`), as they are (trailing zeros kept:
    /// Java prints the zeros a carry out of the first digit leaves).
    fn from_legacy(legacy: &floating_decimal::LegacyDigits) -> Self {
        let mut result = DecimalDigits {
            digits: [b'0'; 24],
            len: legacy.len.min(24),
            exponent: legacy.exponent - 1,
        };
        result.digits[..result.len].copy_from_slice(&legacy.digits[..result.len]);
        result
    }

    /// The digits as an integer (at most 17 of them).
    fn significand(&self) -> Option<u64> {
        self.digits().iter().try_fold(0u64, |acc, &d| {
            acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        })
    }

    fn digits(&self) -> &[u8] {
        &self.digits[..self.len.max(1)]
    }
}

/// The floats printed here: f64 and f32.
trait JavaFloat: Copy + fmt::LowerExp + FromStr + PartialEq {
    /// Whether the value is subnormal (only then can Java's two-digit rule apply).
    fn is_subnormal_value(self) -> bool;
    /// `(m, e)` with `self == m × 2^e` exactly (for a positive finite value).
    fn binary_parts(self) -> (u64, i32);
}

impl JavaFloat for f64 {
    fn is_subnormal_value(self) -> bool {
        self.is_subnormal()
    }

    fn binary_parts(self) -> (u64, i32) {
        let bits = self.to_bits();
        let fraction = bits & ((1 << 52) - 1);
        match ((bits >> 52) & 0x7FF) as i32 {
            0 => (fraction, -1074),
            biased => (fraction | (1 << 52), biased - 1075),
        }
    }
}

impl JavaFloat for f32 {
    fn is_subnormal_value(self) -> bool {
        self.is_subnormal()
    }

    fn binary_parts(self) -> (u64, i32) {
        let bits = self.to_bits();
        let fraction = u64::from(bits & ((1 << 23) - 1));
        match ((bits >> 23) & 0xFF) as i32 {
            0 => (fraction, -149),
            biased => (fraction | (1 << 23), biased - 150),
        }
    }
}

/// Java `Double.toString(v)` (JDK 19+ shortest digits) appended to `out`.
#[cfg(test)]
pub(crate) fn write_java_double(v: f64, out: &mut Vec<u8>) {
    write_java_double_as(JavaFloatText::Shortest, v, out);
}

/// Java `Float.toString(v)` (JDK 19+ shortest digits) appended to `out`.
#[cfg(test)]
pub(crate) fn write_java_float(v: f32, out: &mut Vec<u8>) {
    write_java_float_as(JavaFloatText::Shortest, v, out);
}

/// Java `Double.toString(v)` of the given JDK family appended to `out`.
pub(crate) fn write_java_double_as(algorithm: JavaFloatText, v: f64, out: &mut Vec<u8>) {
    if !write_special(
        v.is_nan(),
        v.is_infinite(),
        v == 0.0,
        v.is_sign_negative(),
        out,
    ) {
        let digits = match algorithm {
            JavaFloatText::Shortest => java_digits(v.abs()),
            JavaFloatText::FloatingDecimal => {
                DecimalDigits::from_legacy(&floating_decimal::double_digits(v.abs()))
            }
        };
        write_finite(&digits, v.is_sign_negative(), out);
    }
}

/// Java `Float.toString(v)` of the given JDK family appended to `out`.
pub(crate) fn write_java_float_as(algorithm: JavaFloatText, v: f32, out: &mut Vec<u8>) {
    if !write_special(
        v.is_nan(),
        v.is_infinite(),
        v == 0.0,
        v.is_sign_negative(),
        out,
    ) {
        let digits = match algorithm {
            JavaFloatText::Shortest => java_digits(v.abs()),
            JavaFloatText::FloatingDecimal => {
                DecimalDigits::from_legacy(&floating_decimal::float_digits(v.abs()))
            }
        };
        write_finite(&digits, v.is_sign_negative(), out);
    }
}

/// Writes `NaN`, `[-]Infinity` or `[-]0.0`; false for any other value.
fn write_special(nan: bool, infinite: bool, zero: bool, negative: bool, out: &mut Vec<u8>) -> bool {
    let text: &[u8] = match (nan, infinite, zero, negative) {
        (true, ..) => b"NaN",
        (_, true, _, false) => b"Infinity",
        (_, true, _, true) => b"-Infinity",
        (_, _, true, false) => b"0.0",
        (_, _, true, true) => b"-0.0",
        _ => return false,
    };
    out.extend_from_slice(text);
    true
}

/// The digits of a positive finite non-zero value in Java's layout.
fn write_finite(digits: &DecimalDigits, negative: bool, out: &mut Vec<u8>) {
    if negative {
        out.push(b'-');
    }
    if (-3..7).contains(&digits.exponent) {
        write_plain_layout(digits, out);
    } else {
        write_scientific_layout(digits, out);
    }
}

/// The decimal Java 19+ picks: the shortest that rounds back to `abs`, the one with
/// the even significand when two are equally close (Rust picks either), and when one
/// digit suffices the closest among one- and two-digit decimals (this only changes
/// subnormals such as `4.9E-324`).
fn java_digits<T: JavaFloat>(abs: T) -> DecimalDigits {
    let mut text = StackText::new();
    let _ = write!(text, "{abs:e}");
    let shortest = DecimalDigits::from_lower_exp(text.as_bytes());
    if shortest.len == 1 && abs.is_subnormal_value() {
        return closest_two_digits(abs).unwrap_or(shortest);
    }
    even_of_tie(abs, &shortest).unwrap_or(shortest)
}

/// When `abs` lies exactly halfway between `shortest` and its neighbour of the same
/// length, the neighbour if its significand is the even one (and it rounds back).
fn even_of_tie<T: JavaFloat>(abs: T, shortest: &DecimalDigits) -> Option<DecimalDigits> {
    let significand = shortest.significand()?;
    let exponent = shortest.exponent - i32::try_from(shortest.len).ok()? + 1;
    let (mantissa, binary_exponent) = abs.binary_parts();
    let halfway = |odd_twice: u64| is_midpoint(mantissa, binary_exponent, odd_twice, exponent);
    let neighbour = if halfway(2 * significand + 1) {
        significand + 1
    } else if halfway((2 * significand).checked_sub(1)?) {
        significand - 1
    } else {
        return None;
    };
    if neighbour % 2 != 0 {
        return None;
    }
    let mut text = StackText::new();
    write!(text, "{neighbour}e{exponent}").ok()?;
    let back = std::str::from_utf8(text.as_bytes())
        .ok()?
        .parse::<T>()
        .ok()?;
    (back == abs).then(|| DecimalDigits::from_integer(neighbour, exponent))
}

/// Whether `mantissa × 2^binary_exponent == odd_twice × 10^exponent / 2` exactly, for an
/// odd `odd_twice`: both sides must have the same power of two and the same odd part.
fn is_midpoint(mantissa: u64, binary_exponent: i32, odd_twice: u64, exponent: i32) -> bool {
    let twos = mantissa.trailing_zeros();
    let odd_part = u128::from(mantissa >> twos);
    if i64::from(binary_exponent) + 1 + i64::from(twos) != i64::from(exponent) {
        return false;
    }
    let fives = |n: i32| 5u128.checked_pow(n.unsigned_abs());
    if exponent >= 0 {
        fives(exponent)
            .and_then(|p| p.checked_mul(u128::from(odd_twice)))
            .is_some_and(|rhs| rhs == odd_part)
    } else {
        fives(exponent)
            .and_then(|p| p.checked_mul(odd_part))
            .is_some_and(|lhs| lhs == u128::from(odd_twice))
    }
}

/// The two-digit decimal nearest to `abs`, if it rounds back to `abs`.
fn closest_two_digits<T: JavaFloat>(abs: T) -> Option<DecimalDigits> {
    let mut text = StackText::new();
    write!(text, "{abs:.1e}").ok()?;
    let round_trips = std::str::from_utf8(text.as_bytes())
        .ok()?
        .parse::<T>()
        .is_ok_and(|back| back == abs);
    round_trips.then(|| DecimalDigits::from_lower_exp(text.as_bytes()))
}

/// `ddd.ddd` for 1e-3 <= v < 1e7, with at least one digit after the point.
fn write_plain_layout(decimal: &DecimalDigits, out: &mut Vec<u8>) {
    let digits = decimal.digits();
    if decimal.exponent < 0 {
        out.extend_from_slice(b"0.");
        push_zeros(u64::from((-decimal.exponent - 1).unsigned_abs()), out);
        out.extend_from_slice(digits);
        return;
    }
    let int_len = usize::try_from(decimal.exponent).unwrap_or(0) + 1;
    let (int_part, frac_part) = digits.split_at(int_len.min(digits.len()));
    out.extend_from_slice(int_part);
    push_zeros(to_u64(int_len - int_part.len()), out);
    out.push(b'.');
    if frac_part.is_empty() {
        out.push(b'0');
    } else {
        out.extend_from_slice(frac_part);
    }
}

/// `d.dddE[-]n`, at least one digit after the point, no `+`.
fn write_scientific_layout(decimal: &DecimalDigits, out: &mut Vec<u8>) {
    let digits = decimal.digits();
    out.push(digits[0]);
    out.push(b'.');
    if digits.len() > 1 {
        out.extend_from_slice(&digits[1..]);
    } else {
        out.push(b'0');
    }
    out.push(b'E');
    push_display(i64::from(decimal.exponent), out);
}

/// A length as u64.
fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The text Jackson's tree model gives a float literal when re-serialised (`DoubleNode`):
/// `Double.toString(Double.parseDouble(literal))`. (Inside `toString()` of a container,
/// Jackson writes a non-finite `DoubleNode` as a quoted string: `"Infinity"`.)
#[cfg(test)]
pub(crate) fn jackson_float_text(literal: &str) -> Result<String, NumberError> {
    let value = parse_java_double(literal)?;
    let mut out = Vec::with_capacity(24);
    write_java_double_as(JavaFloatText::Shortest, value, &mut out);
    Ok(String::from_utf8_lossy(&out).into_owned())
}
