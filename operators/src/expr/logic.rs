//! `AND`, `OR`, `NOT` and the `IS [NOT] NULL / TRUE / FALSE` tests, with SQL's
//! three-valued logic. `AND` and `OR` are evaluated left to right as Flink's generated code
//! does (`((a AND b) AND c)`), which skips an operand once the result is decided: the
//! failures of an operand count only for rows where the operands before it left the result
//! open (not FALSE for `AND`, not TRUE for `OR`).

use arrow_array::{Array, ArrayRef, BooleanArray};

use super::kernels::{as_bool, build_bool, nulls_from, valid};
use super::{Context, Evaluated, Expr};
use crate::error::EvalError;

/// A one-operand test.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// `IS NULL`.
    IsNull,
    /// `IS NOT NULL`.
    IsNotNull,
    /// `IS TRUE`.
    IsTrue,
    /// `IS NOT TRUE`.
    IsNotTrue,
    /// `IS FALSE`.
    IsFalse,
    /// `IS NOT FALSE`.
    IsNotFalse,
}

/// Per row: Some(value) or None for NULL.
fn tri(a: &BooleanArray, i: usize) -> Option<bool> {
    a.is_valid(i).then(|| a.value(i))
}

fn from_tri(values: impl Iterator<Item = Option<bool>>) -> ArrayRef {
    let (v, ok): (Vec<bool>, Vec<bool>) = values.map(|t| (t.unwrap_or(false), t.is_some())).unzip();
    build_bool(v, nulls_from(ok))
}

fn fold(operands: &[Expr], ctx: &Context<'_>, decided: bool) -> Result<Evaluated, EvalError> {
    let mut acc: Option<Evaluated> = None;
    for operand in operands {
        let next = operand.eval(ctx)?;
        acc = Some(match acc {
            None => next,
            Some(prev) => {
                let p = as_bool(&prev.array)?;
                let n = as_bool(&next.array)?;
                // Rows where `prev` already decided the result skip `next`.
                let open: Vec<bool> = (0..p.len()).map(|i| tri(p, i) != Some(decided)).collect();
                let errors = prev.errors.merge(next.errors.retain_where(&open));
                let array = from_tri((0..p.len()).map(|i| {
                    let (x, y) = (tri(p, i), tri(n, i));
                    if x == Some(decided) || y == Some(decided) {
                        Some(decided)
                    } else if x.is_none() || y.is_none() {
                        None
                    } else {
                        Some(!decided)
                    }
                }));
                Evaluated { array, errors }
            }
        });
    }
    acc.ok_or_else(|| super::internal("AND/OR without operands".into()))
}

/// `a AND b AND ...`.
pub(crate) fn eval_and(operands: &[Expr], ctx: &Context<'_>) -> Result<Evaluated, EvalError> {
    fold(operands, ctx, false)
}

/// `a OR b OR ...`.
pub(crate) fn eval_or(operands: &[Expr], ctx: &Context<'_>) -> Result<Evaluated, EvalError> {
    fold(operands, ctx, true)
}

/// `NOT a`.
pub(crate) fn eval_not(e: &Expr, ctx: &Context<'_>) -> Result<Evaluated, EvalError> {
    let input = e.eval(ctx)?;
    let a = as_bool(&input.array)?;
    let array = from_tri((0..a.len()).map(|i| tri(a, i).map(|v| !v)));
    Ok(Evaluated {
        array,
        errors: input.errors,
    })
}

/// `a IS ...`: never NULL.
pub(crate) fn eval_test(test: Test, e: &Expr, ctx: &Context<'_>) -> Result<Evaluated, EvalError> {
    let input = e.eval(ctx)?;
    let rows = input.array.len();
    // Logical nulls: a NULL-typed array has no null buffer but is NULL everywhere.
    let nulls = input.array.logical_nulls();
    let values: Vec<bool> = match test {
        Test::IsNull => (0..rows).map(|i| !valid(nulls.as_ref(), i)).collect(),
        Test::IsNotNull => (0..rows).map(|i| valid(nulls.as_ref(), i)).collect(),
        _ => {
            let a = as_bool(&input.array)?;
            (0..rows)
                .map(|i| {
                    let t = tri(a, i);
                    match test {
                        Test::IsTrue => t == Some(true),
                        Test::IsNotTrue => t != Some(true),
                        Test::IsFalse => t == Some(false),
                        _ => t != Some(false),
                    }
                })
                .collect()
        }
    };
    Ok(Evaluated {
        array: build_bool(values, None),
        errors: input.errors,
    })
}
