//! Compiled expressions and their evaluation on Arrow arrays with Flink 2.2's semantics.
//!
//! Every node evaluates over all rows of a batch at once into an Arrow array of its Flink
//! type's Arrow type ([`FlinkType::arrow_type`]). Flink's generated code evaluates row by row
//! and skips what it does not need: the right side of `AND` when the left is FALSE, of `OR`
//! when it is TRUE, the branches of `CASE` not taken. A vectorised evaluation computes them
//! anyway, so a failure (Java exception) is not raised where it happens: it is recorded for
//! its row in [`Errors`], and the lazy operators drop the errors of rows Flink would not have
//! evaluated. Whatever survives to the filter or a projection fails the batch.

pub(crate) mod arith;
pub(crate) mod case_mapping;
pub(crate) mod cast;
pub(crate) mod compare;
pub(crate) mod conditional;
pub(crate) mod decimal;
pub(crate) mod errors;
pub(crate) mod kernels;
pub(crate) mod logic;
pub(crate) mod regex;
pub(crate) mod strings;
pub(crate) mod temporal;

use arrow_array::{Array, ArrayRef, StructArray};
use karrow_codecs::FlinkType;

pub(crate) use self::errors::Errors;
use crate::error::{EvalError, RowError};
use crate::plan::literal::Literal;
use crate::session::Session;

/// An evaluated expression: its values (NULL where a row failed) and the failures.
#[derive(Debug, Clone)]
pub(crate) struct Evaluated {
    /// One value per row.
    pub array: ArrayRef,
    /// Rows whose evaluation threw.
    pub errors: Errors,
}

impl Evaluated {
    /// Values without failures.
    pub fn ok(array: ArrayRef) -> Self {
        Evaluated {
            array,
            errors: Errors::default(),
        }
    }
}

/// A compiled expression node with the type Flink inferred for it.
#[derive(Debug, Clone)]
pub(crate) struct Expr {
    /// The result type.
    pub ty: FlinkType,
    /// What it computes.
    pub node: Node,
}

/// The operations the core runs (each validated against Flink's semantics).
#[derive(Debug, Clone)]
pub(crate) enum Node {
    /// An input column.
    Column(usize),
    /// A field of a ROW-typed expression.
    Field(Box<Expr>, usize),
    /// A constant.
    Literal(Literal),
    /// `+ - * / %` (and `MOD`).
    Arith(arith::ArithOp, Box<Expr>, Box<Expr>),
    /// Unary minus.
    Negate(Box<Expr>),
    /// `= <> < <= > >=` and `IS [NOT] DISTINCT FROM`.
    Compare(compare::CmpOp, Box<Expr>, Box<Expr>),
    /// `AND` (n-ary, left to right, short-circuit on FALSE).
    And(Vec<Expr>),
    /// `OR` (n-ary, left to right, short-circuit on TRUE).
    Or(Vec<Expr>),
    /// `NOT`.
    Not(Box<Expr>),
    /// `IS [NOT] NULL / TRUE / FALSE`.
    Test(logic::Test, Box<Expr>),
    /// `CASE WHEN c THEN v ... ELSE e END` (NULLIF and IF are lowered to it).
    Case(Vec<(Expr, Expr)>, Box<Expr>),
    /// `COALESCE(a, b, ...)`: every operand is evaluated (Flink's COALESCE is a function,
    /// not a CASE), the first non-NULL value wins.
    Coalesce(Vec<Expr>),
    /// `CAST` (`safe`: TRY_CAST, NULL instead of a failure).
    Cast {
        /// The value cast.
        input: Box<Expr>,
        /// TRY_CAST.
        safe: bool,
    },
    /// A string function.
    Str(strings::StrFunc, Vec<Expr>),
    /// A temporal function.
    Time(temporal::TimeFunc, Vec<Expr>),
    /// `REGEXP` (`false`) or `REGEXP_EXTRACT` (`true`) with a literal pattern.
    Regex(regex::JavaRegex, bool, Vec<Expr>),
}

/// What an expression evaluates against: the batch's columns and the session.
pub(crate) struct Context<'a> {
    /// The input columns.
    pub columns: &'a [ArrayRef],
    /// Rows in the batch.
    pub rows: usize,
    /// Session settings.
    pub session: &'a Session,
}

impl Expr {
    /// Adds the input columns this expression reads to `out`.
    pub fn collect_columns(&self, out: &mut Vec<usize>) {
        match &self.node {
            Node::Column(i) => out.push(*i),
            Node::Literal(_) => {}
            Node::Field(e, _) | Node::Negate(e) | Node::Not(e) | Node::Test(_, e) => {
                e.collect_columns(out)
            }
            Node::Cast { input, .. } => input.collect_columns(out),
            Node::Arith(_, l, r) | Node::Compare(_, l, r) => {
                l.collect_columns(out);
                r.collect_columns(out);
            }
            Node::And(es)
            | Node::Or(es)
            | Node::Coalesce(es)
            | Node::Str(_, es)
            | Node::Regex(_, _, es)
            | Node::Time(_, es) => es.iter().for_each(|e| e.collect_columns(out)),
            Node::Case(branches, otherwise) => {
                for (c, v) in branches {
                    c.collect_columns(out);
                    v.collect_columns(out);
                }
                otherwise.collect_columns(out);
            }
        }
    }

    /// Evaluates over every row of `ctx`.
    pub fn eval(&self, ctx: &Context<'_>) -> Result<Evaluated, EvalError> {
        match &self.node {
            Node::Column(i) => {
                let column = ctx
                    .columns
                    .get(*i)
                    .ok_or_else(|| internal(format!("no input column {i}")))?;
                Ok(Evaluated::ok(column.clone()))
            }
            Node::Field(e, i) => {
                let parent = e.eval(ctx)?;
                let rows = parent
                    .array
                    .as_any()
                    .downcast_ref::<StructArray>()
                    .ok_or_else(|| internal("field access on a non-ROW value".into()))?;
                let field = rows
                    .columns()
                    .get(*i)
                    .ok_or_else(|| internal(format!("no field {i}")))?;
                // A NULL row has NULL fields whatever the child array holds.
                let array = match rows.nulls() {
                    None => field.clone(),
                    Some(nulls) => kernels::with_extra_nulls(field, nulls)?,
                };
                Ok(Evaluated {
                    array,
                    errors: parent.errors,
                })
            }
            Node::Literal(lit) => Ok(Evaluated::ok(lit.to_array(&self.ty, ctx.rows)?)),
            Node::Arith(op, l, r) => arith::eval_binary(*op, l, r, &self.ty, ctx),
            Node::Negate(e) => arith::eval_negate(e, &self.ty, ctx),
            Node::Compare(op, l, r) => compare::eval(*op, l, r, ctx),
            Node::And(es) => logic::eval_and(es, ctx),
            Node::Or(es) => logic::eval_or(es, ctx),
            Node::Not(e) => logic::eval_not(e, ctx),
            Node::Test(t, e) => logic::eval_test(*t, e, ctx),
            Node::Case(branches, otherwise) => {
                conditional::eval_case(branches, otherwise, &self.ty, ctx)
            }
            Node::Coalesce(es) => conditional::eval_coalesce(es, &self.ty, ctx),
            Node::Cast { input, safe } => cast::eval(input, &self.ty, *safe, ctx),
            Node::Str(f, args) => strings::eval(f, args, &self.ty, ctx),
            Node::Time(f, args) => temporal::eval(f, args, &self.ty, ctx),
            Node::Regex(r, extract, args) => regex::eval(r, *extract, args, ctx),
        }
    }
}

/// An internal inconsistency as an evaluation error (never expected after validation).
pub(crate) fn internal(message: String) -> EvalError {
    EvalError::Invalid(format!("internal error: {message}"))
}

/// Evaluates `expr` over the rows of `batch` and fails with the first row that threw.
pub(crate) fn eval_strict(
    expr: &Expr,
    columns: &[ArrayRef],
    rows: usize,
    session: &Session,
) -> Result<ArrayRef, RowError> {
    let ctx = Context {
        columns,
        rows,
        session,
    };
    let evaluated = expr
        .eval(&ctx)
        .map_err(|error| RowError { row: 0, error })?;
    if let Some((row, error)) = evaluated.errors.first() {
        return Err(RowError {
            row,
            error: error.clone(),
        });
    }
    Ok(evaluated.array)
}
