//! Comparisons with SQL's three-valued logic (NULL when an operand is NULL), and
//! `IS [NOT] DISTINCT FROM` (never NULL), on the operand domains Flink's generated code
//! compares in:
//! - exact integers, DATE, TIME: Java's `long` comparison;
//! - FLOAT/DOUBLE (with each other or with integers): Java's primitive comparison after
//!   binary numeric promotion (to `float` when no operand is DOUBLE): NaN is unequal to
//!   everything, `-0.0 == 0.0`;
//! - DECIMAL with DECIMAL or an integer: exact (`compareTo`); DECIMAL with FLOAT/DOUBLE:
//!   `Double.compare(decimal.doubleValue(), d)` (NaN greatest, `-0.0 < 0.0`);
//! - BOOLEAN: `false < true`; CHAR/VARCHAR: UTF-8 bytes unsigned (`BinaryStringData.compareTo`);
//! - TIMESTAMP / TIMESTAMP_LTZ of any precision: millis, then nanos of milli.

use std::cmp::Ordering;

use arrow_array::BooleanArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use karrow_codecs::types::FlinkKind;

use super::kernels::{
    as_bool, as_str, build_bool, decimal_values, f32_values, f64_values, i64_values,
    timestamp_values, union_nulls, valid,
};
use super::{decimal, internal, Context, Evaluated, Expr};
use crate::error::EvalError;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CmpOp {
    /// `=`.
    Eq,
    /// `<>`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `IS DISTINCT FROM`.
    Distinct,
    /// `IS NOT DISTINCT FROM`.
    NotDistinct,
}

/// The domain two operands are compared in (decided at validation from their types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    /// Java `long`.
    Integer,
    /// Java `float`.
    Float,
    /// Java `double`.
    Double,
    /// Exact decimal.
    Decimal,
    /// DECIMAL against FLOAT/DOUBLE: `Double.compare`.
    DecimalDouble,
    /// BOOLEAN.
    Boolean,
    /// CHAR/VARCHAR.
    Text,
    /// TIMESTAMP / TIMESTAMP_LTZ.
    Timestamp,
}

fn is_integer(k: &FlinkKind) -> bool {
    matches!(
        k,
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int | FlinkKind::BigInt
    )
}

/// The comparison domain of two operand kinds, or `None` when Flink's comparison of them
/// is not one the core runs.
pub(crate) fn domain(a: &FlinkKind, b: &FlinkKind) -> Option<Domain> {
    use FlinkKind as K;
    let approx = |k: &K| matches!(k, K::Float | K::Double);
    Some(match (a, b) {
        _ if is_integer(a) && is_integer(b) => Domain::Integer,
        (K::Date, K::Date) => Domain::Integer,
        (K::Time(_), K::Time(_)) => Domain::Integer,
        (K::Decimal { .. }, K::Decimal { .. }) => Domain::Decimal,
        (K::Decimal { .. }, k) | (k, K::Decimal { .. }) if is_integer(k) => Domain::Decimal,
        (K::Decimal { .. }, k) | (k, K::Decimal { .. }) if approx(k) => Domain::DecimalDouble,
        (K::Double, k) | (k, K::Double) if approx(k) || is_integer(k) => Domain::Double,
        (K::Float, k) | (k, K::Float) if approx(k) || is_integer(k) => Domain::Float,
        (K::Boolean, K::Boolean) => Domain::Boolean,
        (K::Char(_) | K::VarChar(_), K::Char(_) | K::VarChar(_)) => Domain::Text,
        (K::Timestamp(_), K::Timestamp(_)) | (K::TimestampLtz(_), K::TimestampLtz(_)) => {
            Domain::Timestamp
        }
        _ => return None,
    })
}

/// Evaluates `l op r` in the domain of their types.
pub(crate) fn eval(
    op: CmpOp,
    l: &Expr,
    r: &Expr,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let dom = domain(&l.ty.kind, &r.ty.kind)
        .ok_or_else(|| internal(format!("comparison of {:?} and {:?}", l.ty.kind, r.ty.kind)))?;
    let left = l.eval(ctx)?;
    let right = r.eval(ctx)?;
    let errors = left.errors.merge(right.errors);
    let array = compare_arrays(op, dom, &left.array, &right.array)?;
    Ok(Evaluated { array, errors })
}

/// Compares two arrays row by row.
pub(crate) fn compare_arrays(
    op: CmpOp,
    dom: Domain,
    a: &ArrayRef,
    b: &ArrayRef,
) -> Result<ArrayRef, EvalError> {
    let rows = a.len();
    let an = a.logical_nulls();
    let bn = b.logical_nulls();
    // Per row: Some(ordering) when comparable, None when the comparison is false whatever
    // the operator (a NaN in Java's primitive comparisons).
    let ords: Vec<Option<Ordering>> = match dom {
        Domain::Integer => {
            let (x, _) = i64_values(a)?;
            let (y, _) = i64_values(b)?;
            x.iter().zip(&y).map(|(p, q)| Some(p.cmp(q))).collect()
        }
        Domain::Double => {
            let (x, _) = f64_values(a)?;
            let (y, _) = f64_values(b)?;
            x.iter().zip(&y).map(|(p, q)| p.partial_cmp(q)).collect()
        }
        Domain::Float => {
            let (x, _) = f32_values(a)?;
            let (y, _) = f32_values(b)?;
            x.iter().zip(&y).map(|(p, q)| p.partial_cmp(q)).collect()
        }
        Domain::Decimal => {
            let (x, sx, _) = decimal_values(a)?;
            let (y, sy, _) = decimal_values(b)?;
            x.iter()
                .zip(&y)
                .map(|(p, q)| Some(decimal::compare(*p, sx, *q, sy)))
                .collect()
        }
        Domain::DecimalDouble => {
            let (x, _) = f64_values(a)?;
            let (y, _) = f64_values(b)?;
            x.iter()
                .zip(&y)
                .map(|(p, q)| Some(p.total_cmp(q)))
                .collect()
        }
        Domain::Boolean => {
            let x = as_bool(a)?;
            let y = as_bool(b)?;
            (0..rows)
                .map(|i| Some(x.value(i).cmp(&y.value(i))))
                .collect()
        }
        Domain::Text => {
            let x = as_str(a)?;
            let y = as_str(b)?;
            (0..rows)
                .map(|i| Some(x.value(i).as_bytes().cmp(y.value(i).as_bytes())))
                .collect()
        }
        Domain::Timestamp => {
            let (x, _) = timestamp_values(a)?;
            let (y, _) = timestamp_values(b)?;
            x.iter().zip(&y).map(|(p, q)| Some(p.cmp(q))).collect()
        }
    };
    let holds = |o: Option<Ordering>, op: CmpOp| -> bool {
        match o {
            None => matches!(op, CmpOp::Ne | CmpOp::Distinct),
            Some(o) => match op {
                CmpOp::Eq | CmpOp::NotDistinct => o == Ordering::Equal,
                CmpOp::Ne | CmpOp::Distinct => o != Ordering::Equal,
                CmpOp::Lt => o == Ordering::Less,
                CmpOp::Le => o != Ordering::Greater,
                CmpOp::Gt => o == Ordering::Greater,
                CmpOp::Ge => o != Ordering::Less,
            },
        }
    };
    match op {
        CmpOp::Distinct | CmpOp::NotDistinct => {
            let values = (0..rows)
                .map(|i| {
                    let (va, vb) = (valid(an.as_ref(), i), valid(bn.as_ref(), i));
                    match (va, vb) {
                        (true, true) => holds(ords[i], op),
                        (false, false) => op == CmpOp::NotDistinct,
                        _ => op == CmpOp::Distinct,
                    }
                })
                .collect();
            Ok(build_bool(values, None))
        }
        _ => {
            let nulls: Option<NullBuffer> = union_nulls(a.as_ref(), b.as_ref());
            let values = BooleanBuffer::collect_bool(rows, |i| holds(ords[i], op));
            Ok(std::sync::Arc::new(BooleanArray::new(values, nulls)))
        }
    }
}
