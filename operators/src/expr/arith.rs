//! `+ - * / %` and unary minus on exact and approximate numerics and DECIMAL, as Flink's
//! generated code computes them:
//! - exact integers: both operands converted to the result type (Java's narrowing or
//!   widening cast; not the left operand of `%`), Java `int`/`long` arithmetic (wrapping on overflow, `MIN / -1 == MIN`),
//!   the result narrowed to the result type; `/` and `%` by zero throw
//!   `ArithmeticException: / by zero`;
//! - FLOAT/DOUBLE: IEEE arithmetic in the result type (Java's `%` is C's `fmod`, as Rust's);
//! - DECIMAL: `DecimalDataUtils` (see [`super::decimal`]): exact, rounded HALF_UP to the
//!   result scale, NULL on overflow; `/` and `%` by zero throw.

use arrow_array::Array;
use karrow_codecs::types::FlinkKind;
use karrow_codecs::FlinkType;

use super::kernels::{
    build_decimal, build_f32, build_f64, build_integer, decimal_values, f32_values, f64_values,
    i64_values, nulls_from, union_nulls, valid,
};
use super::{decimal, internal, Context, Evaluated, Expr};
use crate::error::EvalError;

/// A binary arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArithOp {
    /// `+`.
    Plus,
    /// `-`.
    Minus,
    /// `*`.
    Times,
    /// `/`.
    Divide,
    /// `%` / `MOD`.
    Mod,
}

fn by_zero() -> EvalError {
    EvalError::Arithmetic("/ by zero".into())
}

/// Narrows an i64 to the Java primitive of `kind` and widens it back.
fn narrow(kind: &FlinkKind, v: i64) -> i64 {
    match kind {
        FlinkKind::TinyInt => i64::from(v as i8),
        FlinkKind::SmallInt => i64::from(v as i16),
        FlinkKind::Int => i64::from(v as i32),
        _ => v,
    }
}

/// Evaluates `l op r` with result type `ty`.
pub(crate) fn eval_binary(
    op: ArithOp,
    l: &Expr,
    r: &Expr,
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let left = l.eval(ctx)?;
    let right = r.eval(ctx)?;
    let mut errors = left.errors.merge(right.errors);
    let nulls = union_nulls(left.array.as_ref(), right.array.as_ref());
    let rows = left.array.len();
    let array = match &ty.kind {
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int | FlinkKind::BigInt => {
            let (a, _) = i64_values(&left.array)?;
            let (b, _) = i64_values(&right.array)?;
            let kind = &ty.kind;
            let mut out = Vec::with_capacity(rows);
            let mut extra = Errors::default();
            for i in 0..rows {
                // Flink casts both operands to the result type, except the left one of `%`
                // (MOD's result type is its right operand's: `MOD(BIGINT, INT)` is INT,
                // computed in long).
                let x = if op == ArithOp::Mod {
                    a[i]
                } else {
                    narrow(kind, a[i])
                };
                let y = narrow(kind, b[i]);
                let v = match op {
                    ArithOp::Plus => x.wrapping_add(y),
                    ArithOp::Minus => x.wrapping_sub(y),
                    ArithOp::Times => x.wrapping_mul(y),
                    ArithOp::Divide | ArithOp::Mod => {
                        if y == 0 {
                            if valid(nulls.as_ref(), i) {
                                extra.push(i, by_zero());
                            }
                            0
                        } else if op == ArithOp::Divide {
                            x.wrapping_div(y)
                        } else {
                            x.wrapping_rem(y)
                        }
                    }
                };
                // Int arithmetic wraps at 32 bits; computing in i64 and narrowing keeps
                // exactly the low bits Java keeps.
                out.push(v);
            }
            errors = errors.merge(extra);
            build_integer(kind, out, nulls)?
        }
        FlinkKind::Double => {
            let (a, _) = f64_values(&left.array)?;
            let (b, _) = f64_values(&right.array)?;
            let out = a
                .iter()
                .zip(&b)
                .map(|(x, y)| float_op(op, *x, *y))
                .collect();
            build_f64(out, nulls)
        }
        FlinkKind::Float => {
            let (a, _) = f32_values(&left.array)?;
            let (b, _) = f32_values(&right.array)?;
            let out = a
                .iter()
                .zip(&b)
                .map(|(x, y)| float_op(op, *x, *y))
                .collect();
            build_f32(out, nulls)
        }
        FlinkKind::Decimal { precision, scale } => {
            let (a, sa, _) = decimal_values(&left.array)?;
            let (b, sb, _) = decimal_values(&right.array)?;
            let (p, s) = (*precision, *scale);
            let mut out = Vec::with_capacity(rows);
            let mut ok = Vec::with_capacity(rows);
            let mut extra = Errors::default();
            for i in 0..rows {
                if !valid(nulls.as_ref(), i) {
                    out.push(0);
                    ok.push(false);
                    continue;
                }
                let v = match op {
                    ArithOp::Plus => Ok(decimal::add(a[i], sa, b[i], sb, false, p, s)),
                    ArithOp::Minus => Ok(decimal::add(a[i], sa, b[i], sb, true, p, s)),
                    ArithOp::Times => Ok(decimal::multiply(a[i], sa, b[i], sb, p, s)),
                    ArithOp::Divide => decimal::divide(a[i], sa, b[i], sb, p, s),
                    ArithOp::Mod => decimal::remainder(a[i], sa, b[i], sb, p, s),
                };
                match v {
                    Ok(Some(v)) => {
                        out.push(v);
                        ok.push(true);
                    }
                    Ok(None) => {
                        out.push(0);
                        ok.push(false);
                    }
                    Err(e) => {
                        extra.push(i, e);
                        out.push(0);
                        ok.push(false);
                    }
                }
            }
            errors = errors.merge(extra);
            build_decimal(out, nulls_from(ok), p, s)?
        }
        other => return Err(internal(format!("arithmetic with result {other:?}"))),
    };
    Ok(Evaluated { array, errors })
}

use super::Errors;

trait Float:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
{
}
impl Float for f64 {}
impl Float for f32 {}

fn float_op<T: Float>(op: ArithOp, x: T, y: T) -> T {
    match op {
        ArithOp::Plus => x + y,
        ArithOp::Minus => x - y,
        ArithOp::Times => x * y,
        ArithOp::Divide => x / y,
        ArithOp::Mod => x % y,
    }
}

/// Unary minus: Java negation (wrapping for `MIN`), IEEE negation, DECIMAL negation.
pub(crate) fn eval_negate(
    e: &Expr,
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let input = e.eval(ctx)?;
    let nulls = input.array.logical_nulls();
    let array = match &ty.kind {
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int | FlinkKind::BigInt => {
            let (a, _) = i64_values(&input.array)?;
            let out = a
                .into_iter()
                .map(|v| narrow(&ty.kind, v).wrapping_neg())
                .collect();
            build_integer(&ty.kind, out, nulls)?
        }
        FlinkKind::Double => {
            let (a, _) = f64_values(&input.array)?;
            build_f64(a.into_iter().map(|v| -v).collect(), nulls)
        }
        FlinkKind::Float => {
            let (a, _) = f32_values(&input.array)?;
            build_f32(a.into_iter().map(|v| -v).collect(), nulls)
        }
        FlinkKind::Decimal { precision, scale } => {
            let (a, sa, _) = decimal_values(&input.array)?;
            let mut ok = Vec::with_capacity(a.len());
            let out = a
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let r = decimal::rescale(-v, sa, *precision, *scale);
                    ok.push(valid(nulls.as_ref(), i) && r.is_some());
                    r.unwrap_or(0)
                })
                .collect();
            build_decimal(out, nulls_from(ok), *precision, *scale)?
        }
        other => return Err(internal(format!("negation with result {other:?}"))),
    };
    Ok(Evaluated {
        array,
        errors: input.errors,
    })
}
