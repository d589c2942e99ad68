//! `CASE WHEN c1 THEN v1 ... ELSE e END`, which `NULLIF` and `IF` are lowered to at
//! validation. Flink's generated code evaluates the conditions in order and only the branch
//! taken: a condition's failures count for rows no earlier condition took, a branch value's
//! failures only for the rows that take it. `COALESCE` is different: Flink evaluates every
//! operand (`COALESCE(i, 10 / j)` fails for `j = 0` even where `i` is not NULL).

use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_select::zip::zip;
use karrow_codecs::FlinkType;

use super::kernels::as_bool;
use super::{internal, Context, Evaluated, Expr};
use crate::error::EvalError;

/// Evaluates a CASE whose branch values all have the result type `ty`.
pub(crate) fn eval_case(
    branches: &[(Expr, Expr)],
    otherwise: &Expr,
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let rows = ctx.rows;
    let mut remaining = vec![true; rows];
    let mut errors = super::Errors::default();
    let mut taken: Vec<(Vec<bool>, ArrayRef)> = Vec::with_capacity(branches.len());
    for (cond, value) in branches {
        let c = cond.eval(ctx)?;
        errors = errors.merge(c.errors.retain_where(&remaining));
        let mask = as_bool(&c.array)?;
        let take: Vec<bool> = (0..rows)
            .map(|i| remaining[i] && mask.is_valid(i) && mask.value(i))
            .collect();
        let v = value.eval(ctx)?;
        errors = errors.merge(v.errors.retain_where(&take));
        for i in 0..rows {
            if take[i] {
                remaining[i] = false;
            }
        }
        taken.push((take, v.array));
    }
    let e = otherwise.eval(ctx)?;
    errors = errors.merge(e.errors.retain_where(&remaining));
    let expected = ty.arrow_type();
    let mut result = e.array;
    for (take, value) in taken.into_iter().rev() {
        if value.data_type() != &expected || result.data_type() != &expected {
            return Err(internal(format!(
                "CASE branch of {} where {expected} is expected",
                value.data_type()
            )));
        }
        let mask = BooleanArray::from(take);
        result = zip(&mask, &value, &result).map_err(|e| internal(e.to_string()))?;
    }
    Ok(Evaluated {
        array: result,
        errors,
    })
}

/// Evaluates `COALESCE(operands...)` (all of the result type `ty`).
pub(crate) fn eval_coalesce(
    operands: &[Expr],
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let mut errors = super::Errors::default();
    let mut values = Vec::with_capacity(operands.len());
    for o in operands {
        let v = o.eval(ctx)?;
        errors = errors.merge(v.errors);
        values.push(v.array);
    }
    let expected = ty.arrow_type();
    let mut result = values
        .pop()
        .ok_or_else(|| internal("COALESCE without operands".into()))?;
    for value in values.into_iter().rev() {
        if value.data_type() != &expected || result.data_type() != &expected {
            return Err(internal(format!(
                "COALESCE operand of {}",
                value.data_type()
            )));
        }
        let nulls = value.logical_nulls();
        let mask = BooleanArray::from(
            (0..ctx.rows)
                .map(|i| nulls.as_ref().is_none_or(|n| n.is_valid(i)))
                .collect::<Vec<bool>>(),
        );
        result = zip(&mask, &value, &result).map_err(|e| internal(e.to_string()))?;
    }
    Ok(Evaluated {
        array: result,
        errors,
    })
}
