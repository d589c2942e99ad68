//! The one validation pass: a parsed plan becomes a [`RunnablePlan`] whose every node the
//! core runs exactly as Flink 2.2 does, or the plan is declined with the reason (which
//! expression, type or option). Nothing else in the crate or in Java decides support.
//!
//! Each node's type is the one Flink inferred; validation checks it is consistent with the
//! operator and its operands (a mismatch means the serializer and this crate disagree, and
//! declines), and never infers a different one.

use karrow_codecs::types::{summary_string, FlinkKind};
use karrow_codecs::FlinkType;
use serde_json::Value;

use super::literal::Literal;
use super::{ExprSpec, PlanSpec, RunnablePlan};
use crate::error::Decline;
use crate::expr::arith::ArithOp;
use crate::expr::compare::{domain, CmpOp};
use crate::expr::logic::Test;
use crate::expr::regex::JavaRegex;
use crate::expr::strings::{LikePattern, StrFunc, TrimSide};
use crate::expr::temporal::{compile_format, TimeFunc, Unit};
use crate::expr::{cast, Expr, Node};
use crate::session::Session;

/// Validates a parsed plan.
pub fn validate(spec: &PlanSpec) -> Result<RunnablePlan, Decline> {
    check_type(&spec.input).map_err(|d| Decline::new(format!("input: {}", d.0)))?;
    check_type(&spec.output).map_err(|d| Decline::new(format!("output: {}", d.0)))?;
    let input = spec
        .input
        .row_fields()
        .map_err(|_| Decline::new("the input type is not a ROW"))?;
    let output = spec
        .output
        .row_fields()
        .map_err(|_| Decline::new("the output type is not a ROW"))?;
    let v = Validator {
        input: input.iter().map(|f| f.ty.clone()).collect(),
        session: &spec.session,
    };
    let filter = match &spec.filter {
        None => None,
        Some(f) => {
            let e = v
                .expr(f)
                .map_err(|d| Decline::new(format!("filter: {}", d.0)))?;
            if e.ty.kind != FlinkKind::Boolean {
                return Err(Decline::new(format!(
                    "filter: the condition is {}, not BOOLEAN",
                    summary_string(&e.ty)
                )));
            }
            Some(e)
        }
    };
    if spec.projections.len() != output.len() {
        return Err(Decline::new(format!(
            "{} projections for an output row of {} fields",
            spec.projections.len(),
            output.len()
        )));
    }
    let mut projections = Vec::with_capacity(output.len());
    for (i, (p, field)) in spec.projections.iter().zip(output).enumerate() {
        let e = v
            .expr(p)
            .map_err(|d| Decline::new(format!("projection {i} ({}): {}", field.name, d.0)))?;
        if e.ty.kind != field.ty.kind {
            return Err(Decline::new(format!(
                "projection {i} ({}) is {} but the output field is {}",
                field.name,
                summary_string(&e.ty),
                summary_string(&field.ty)
            )));
        }
        check_output_type(&field.ty)
            .map_err(|d| Decline::new(format!("output field {}: {}", field.name, d.0)))?;
        projections.push(e);
    }
    let watermark_columns = watermark_columns(spec, output.len())?;
    Ok(RunnablePlan {
        input: spec.input.clone(),
        filter,
        projections,
        output: spec.output.clone(),
        session: spec.session.clone(),
        encode: spec.encode.clone(),
        watermark_columns,
    })
}

/// Longest CHAR(n) a CAST pads to: the padding is allocated per row.
const MAX_CHAR_PAD: u32 = 1 << 16;

/// Type parameters within Flink's ranges (the JSON form allows any integer): precisions of
/// TIME/TIMESTAMP/TIMESTAMP_LTZ up to 9.
fn check_type(ty: &FlinkType) -> Result<(), Decline> {
    match &ty.kind {
        FlinkKind::Time(p) | FlinkKind::Timestamp(p) | FlinkKind::TimestampLtz(p) if *p > 9 => Err(
            Decline::new(format!("{} has a precision above 9", show(ty))),
        ),
        FlinkKind::Array(e) | FlinkKind::Multiset(e) => check_type(e),
        FlinkKind::Map(k, v) => {
            check_type(k)?;
            check_type(v)
        }
        FlinkKind::Row(fields) => fields.iter().try_for_each(|f| check_type(&f.ty)),
        _ => Ok(()),
    }
}

/// Types the pipelines can carry through (a projection of such a column is a plain copy).
fn check_output_type(ty: &FlinkType) -> Result<(), Decline> {
    match &ty.kind {
        FlinkKind::Null => Err(Decline::new("the NULL type is not carried")),
        FlinkKind::Multiset(_) => Err(Decline::new("MULTISET is not carried")),
        _ => Ok(()),
    }
}

struct Validator<'a> {
    input: Vec<FlinkType>,
    session: &'a Session,
}

fn show(ty: &FlinkType) -> String {
    summary_string(ty)
}

fn is_integer(k: &FlinkKind) -> bool {
    matches!(
        k,
        FlinkKind::TinyInt | FlinkKind::SmallInt | FlinkKind::Int | FlinkKind::BigInt
    )
}

fn is_numeric(k: &FlinkKind) -> bool {
    is_integer(k)
        || matches!(
            k,
            FlinkKind::Float | FlinkKind::Double | FlinkKind::Decimal { .. }
        )
}

fn is_text(k: &FlinkKind) -> bool {
    matches!(k, FlinkKind::Char(_) | FlinkKind::VarChar(_))
}

/// The rank of a numeric result type for the operand-widening check.
fn width(k: &FlinkKind) -> u8 {
    match k {
        FlinkKind::TinyInt => 1,
        FlinkKind::SmallInt => 2,
        FlinkKind::Int => 3,
        FlinkKind::BigInt => 4,
        FlinkKind::Decimal { .. } => 5,
        FlinkKind::Float => 6,
        FlinkKind::Double => 7,
        _ => 0,
    }
}

fn boolean() -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::Boolean,
    }
}

impl Validator<'_> {
    fn expr(&self, spec: &ExprSpec) -> Result<Expr, Decline> {
        match spec {
            ExprSpec::Input { ty, .. }
            | ExprSpec::Field { ty, .. }
            | ExprSpec::Literal { ty, .. }
            | ExprSpec::Call { ty, .. }
                if check_type(ty).is_err() =>
            {
                Err(check_type(ty).err().unwrap_or_else(|| Decline::new("type")))
            }
            ExprSpec::Input { index, ty } => {
                let actual = self.input.get(*index).ok_or_else(|| {
                    Decline::new(format!(
                        "column {index} does not exist (the input has {})",
                        self.input.len()
                    ))
                })?;
                if actual.kind != ty.kind {
                    return Err(Decline::new(format!(
                        "column {index} is {} but the reference says {}",
                        show(actual),
                        show(ty)
                    )));
                }
                Ok(Expr {
                    ty: ty.clone(),
                    node: Node::Column(*index),
                })
            }
            ExprSpec::Field { expr, index, ty } => {
                let parent = self.expr(expr)?;
                let FlinkKind::Row(fields) = &parent.ty.kind else {
                    return Err(Decline::new(format!(
                        "field access on {}",
                        show(&parent.ty)
                    )));
                };
                let field = fields.get(*index).ok_or_else(|| {
                    Decline::new(format!(
                        "field {index} of {} does not exist",
                        show(&parent.ty)
                    ))
                })?;
                if field.ty.kind != ty.kind {
                    return Err(Decline::new(format!(
                        "field {index} ({}) is {} but the access says {}",
                        field.name,
                        show(&field.ty),
                        show(ty)
                    )));
                }
                Ok(Expr {
                    ty: ty.clone(),
                    node: Node::Field(Box::new(parent), *index),
                })
            }
            ExprSpec::Literal { value, ty } => Ok(Expr {
                ty: ty.clone(),
                node: Node::Literal(Literal::from_json(value, ty)?),
            }),
            ExprSpec::Symbol(s) => Err(Decline::new(format!("symbol {s} outside a call"))),
            ExprSpec::Call { op, operands, ty } => self
                .call(op, operands, ty)
                .map_err(|d| Decline::new(format!("{op}: {}", d.0))),
        }
    }

    fn operands(&self, operands: &[ExprSpec]) -> Result<Vec<Expr>, Decline> {
        operands.iter().map(|o| self.expr(o)).collect()
    }

    fn call(&self, op: &str, operands: &[ExprSpec], ty: &FlinkType) -> Result<Expr, Decline> {
        let arity = |n: usize| -> Result<(), Decline> {
            if operands.len() == n {
                Ok(())
            } else {
                Err(Decline::new(format!(
                    "expects {n} operands, got {}",
                    operands.len()
                )))
            }
        };
        let node = match op {
            "PLUS" | "MINUS" | "TIMES" | "DIVIDE" | "MOD" => {
                arity(2)?;
                let op = match op {
                    "PLUS" => ArithOp::Plus,
                    "MINUS" => ArithOp::Minus,
                    "TIMES" => ArithOp::Times,
                    "DIVIDE" => ArithOp::Divide,
                    _ => ArithOp::Mod,
                };
                let mut es = self.operands(operands)?;
                check_arith(&es[0].ty, &es[1].ty, ty)?;
                let r = es.pop();
                let l = es.pop();
                match (l, r) {
                    (Some(l), Some(r)) => Node::Arith(op, Box::new(l), Box::new(r)),
                    _ => return Err(Decline::new("missing operands")),
                }
            }
            "NEGATE" => {
                arity(1)?;
                let e = self.expr(&operands[0])?;
                if !is_numeric(&ty.kind) || e.ty.kind != ty.kind {
                    return Err(Decline::new(format!(
                        "unary minus of {} typed {}",
                        show(&e.ty),
                        show(ty)
                    )));
                }
                Node::Negate(Box::new(e))
            }
            "EQUALS"
            | "NOT_EQUALS"
            | "LESS_THAN"
            | "LESS_THAN_OR_EQUAL"
            | "GREATER_THAN"
            | "GREATER_THAN_OR_EQUAL"
            | "IS_DISTINCT_FROM"
            | "IS_NOT_DISTINCT_FROM" => {
                arity(2)?;
                let cmp = match op {
                    "EQUALS" => CmpOp::Eq,
                    "NOT_EQUALS" => CmpOp::Ne,
                    "LESS_THAN" => CmpOp::Lt,
                    "LESS_THAN_OR_EQUAL" => CmpOp::Le,
                    "GREATER_THAN" => CmpOp::Gt,
                    "GREATER_THAN_OR_EQUAL" => CmpOp::Ge,
                    "IS_DISTINCT_FROM" => CmpOp::Distinct,
                    _ => CmpOp::NotDistinct,
                };
                expect_boolean(ty)?;
                let mut es = self.operands(operands)?;
                if domain(&es[0].ty.kind, &es[1].ty.kind).is_none() {
                    return Err(Decline::new(format!(
                        "comparing {} with {} is not supported",
                        show(&es[0].ty),
                        show(&es[1].ty)
                    )));
                }
                let r = es.pop();
                let l = es.pop();
                match (l, r) {
                    (Some(l), Some(r)) => Node::Compare(cmp, Box::new(l), Box::new(r)),
                    _ => return Err(Decline::new("missing operands")),
                }
            }
            "AND" | "OR" => {
                if operands.len() < 2 {
                    return Err(Decline::new("needs at least 2 operands"));
                }
                expect_boolean(ty)?;
                let es = self.operands(operands)?;
                for e in &es {
                    expect_boolean(&e.ty)?;
                }
                if op == "AND" {
                    Node::And(es)
                } else {
                    Node::Or(es)
                }
            }
            "NOT" => {
                arity(1)?;
                expect_boolean(ty)?;
                let e = self.expr(&operands[0])?;
                expect_boolean(&e.ty)?;
                Node::Not(Box::new(e))
            }
            "IS_NULL" | "IS_NOT_NULL" | "IS_TRUE" | "IS_NOT_TRUE" | "IS_FALSE" | "IS_NOT_FALSE" => {
                arity(1)?;
                expect_boolean(ty)?;
                let e = self.expr(&operands[0])?;
                let test = match op {
                    "IS_NULL" => Test::IsNull,
                    "IS_NOT_NULL" => Test::IsNotNull,
                    "IS_TRUE" => Test::IsTrue,
                    "IS_NOT_TRUE" => Test::IsNotTrue,
                    "IS_FALSE" => Test::IsFalse,
                    _ => Test::IsNotFalse,
                };
                if !matches!(test, Test::IsNull | Test::IsNotNull) {
                    expect_boolean(&e.ty)?;
                }
                Node::Test(test, Box::new(e))
            }
            "CASE" => {
                if operands.len() < 3 || operands.len().is_multiple_of(2) {
                    return Err(Decline::new("needs when/then pairs and an else operand"));
                }
                let es = self.operands(operands)?;
                let mut it = es.into_iter();
                let mut branches = Vec::new();
                let count = operands.len() / 2;
                for _ in 0..count {
                    let (Some(c), Some(v)) = (it.next(), it.next()) else {
                        return Err(Decline::new("missing operands"));
                    };
                    expect_boolean(&c.ty)?;
                    branches.push((c, coerce(v, ty)?));
                }
                let otherwise = it.next().ok_or_else(|| Decline::new("missing else"))?;
                Node::Case(branches, Box::new(coerce(otherwise, ty)?))
            }
            "COALESCE" => {
                if operands.is_empty() {
                    return Err(Decline::new("needs operands"));
                }
                let es = self
                    .operands(operands)?
                    .into_iter()
                    .map(|e| coerce(e, ty))
                    .collect::<Result<Vec<_>, _>>()?;
                Node::Coalesce(es)
            }
            "NULLIF" => {
                arity(2)?;
                let es = self.operands(operands)?;
                if domain(&es[0].ty.kind, &es[1].ty.kind).is_none() {
                    return Err(Decline::new(format!(
                        "comparing {} with {} is not supported",
                        show(&es[0].ty),
                        show(&es[1].ty)
                    )));
                }
                let equal = Expr {
                    ty: boolean(),
                    node: Node::Compare(
                        CmpOp::Eq,
                        Box::new(es[0].clone()),
                        Box::new(es[1].clone()),
                    ),
                };
                let null = Expr {
                    ty: ty.clone(),
                    node: Node::Literal(Literal::Null),
                };
                Node::Case(vec![(equal, null)], Box::new(coerce(es[0].clone(), ty)?))
            }
            "IF" => {
                arity(3)?;
                let mut es = self.operands(operands)?.into_iter();
                let (Some(c), Some(a), Some(b)) = (es.next(), es.next(), es.next()) else {
                    return Err(Decline::new("missing operands"));
                };
                expect_boolean(&c.ty)?;
                Node::Case(vec![(c, coerce(a, ty)?)], Box::new(coerce(b, ty)?))
            }
            "CAST" | "TRY_CAST" => {
                arity(1)?;
                let e = self.expr(&operands[0])?;
                if matches!(ty.kind, FlinkKind::Char(n) if n > MAX_CHAR_PAD) {
                    return Err(Decline::new(format!(
                        "CAST to {} pads every row to that length",
                        show(ty)
                    )));
                }
                cast::supported(&e.ty, ty).map_err(Decline::new)?;
                Node::Cast {
                    input: Box::new(e),
                    safe: op == "TRY_CAST",
                }
            }
            "UPPER" | "LOWER" => {
                arity(1)?;
                let e = self.expr(&operands[0])?;
                expect_text(&e.ty)?;
                expect_text(ty)?;
                self.check_case_locale()?;
                Node::Str(
                    if op == "UPPER" {
                        StrFunc::Upper
                    } else {
                        StrFunc::Lower
                    },
                    vec![e],
                )
            }
            "CHAR_LENGTH" => {
                arity(1)?;
                let e = self.expr(&operands[0])?;
                expect_text(&e.ty)?;
                expect_kind(ty, &FlinkKind::Int)?;
                Node::Str(StrFunc::CharLength, vec![e])
            }
            "SUBSTRING" => {
                if !(2..=3).contains(&operands.len()) {
                    return Err(Decline::new("expects 2 or 3 operands"));
                }
                let es = self.operands(operands)?;
                expect_text(&es[0].ty)?;
                for e in &es[1..] {
                    expect_kind(&e.ty, &FlinkKind::Int)?;
                }
                expect_text(ty)?;
                Node::Str(StrFunc::Substring, es)
            }
            "CONCAT" => {
                if operands.is_empty() {
                    return Err(Decline::new("needs operands"));
                }
                let es = self.operands(operands)?;
                for e in &es {
                    expect_text(&e.ty)?;
                }
                expect_text(ty)?;
                Node::Str(StrFunc::Concat, es)
            }
            "TRIM" => {
                arity(3)?;
                let side = match &operands[0] {
                    ExprSpec::Symbol(s) if s == "BOTH" => TrimSide::Both,
                    ExprSpec::Symbol(s) if s == "LEADING" => TrimSide::Leading,
                    ExprSpec::Symbol(s) if s == "TRAILING" => TrimSide::Trailing,
                    other => return Err(Decline::new(format!("unknown TRIM flag {other:?}"))),
                };
                let chars = self.expr(&operands[1])?;
                let s = self.expr(&operands[2])?;
                expect_text(&chars.ty)?;
                expect_text(&s.ty)?;
                expect_text(ty)?;
                Node::Str(StrFunc::Trim(side), vec![chars, s])
            }
            "LIKE" => {
                if operands.len() != 2 {
                    return Err(Decline::new("LIKE with an ESCAPE clause is not supported"));
                }
                expect_boolean(ty)?;
                let s = self.expr(&operands[0])?;
                expect_text(&s.ty)?;
                let pattern = literal_text(&operands[1])
                    .ok_or_else(|| Decline::new("only a literal pattern is supported"))?;
                let compiled = LikePattern::compile(&pattern).map_err(Decline::new)?;
                Node::Str(StrFunc::Like(compiled), vec![s])
            }
            "SPLIT_INDEX" => {
                arity(3)?;
                let es = self.operands(operands)?;
                expect_text(&es[0].ty)?;
                expect_text(&es[1].ty)?;
                expect_kind(&es[2].ty, &FlinkKind::Int)?;
                expect_text(ty)?;
                match literal_text(&operands[1]) {
                    Some(sep) if !sep.is_empty() => {}
                    _ => {
                        return Err(Decline::new(
                            "only a literal, non-empty separator is supported",
                        ))
                    }
                }
                Node::Str(StrFunc::SplitIndex, es)
            }
            "REGEXP" | "REGEXP_EXTRACT" => {
                let extract = op == "REGEXP_EXTRACT";
                let allowed = if extract { 2..=3 } else { 2..=2 };
                if !allowed.contains(&operands.len()) {
                    return Err(Decline::new(format!(
                        "unexpected {} operands",
                        operands.len()
                    )));
                }
                let s = self.expr(&operands[0])?;
                expect_text(&s.ty)?;
                let pattern = literal_text(&operands[1])
                    .ok_or_else(|| Decline::new("only a literal pattern is supported"))?;
                let regex = JavaRegex::compile(&pattern).map_err(Decline::new)?;
                let mut args = vec![s];
                if let Some(index) = operands.get(2) {
                    let index = self.expr(index)?;
                    if !is_integer(&index.ty.kind) {
                        return Err(Decline::new(format!("index of {}", show(&index.ty))));
                    }
                    args.push(index);
                }
                if extract {
                    expect_text(ty)?;
                } else {
                    expect_boolean(ty)?;
                }
                Node::Regex(regex, extract, args)
            }
            "EXTRACT" | "HOUR" | "MINUTE" | "SECOND" => {
                let (unit, value) = match op {
                    "EXTRACT" => {
                        arity(2)?;
                        let ExprSpec::Symbol(name) = &operands[0] else {
                            return Err(Decline::new("the first operand is not a time unit"));
                        };
                        let unit = Unit::from_symbol(name).ok_or_else(|| {
                            Decline::new(format!("time unit {name} is not supported"))
                        })?;
                        (unit, &operands[1])
                    }
                    _ => {
                        arity(1)?;
                        let unit = Unit::from_symbol(op).ok_or_else(|| Decline::new("unit"))?;
                        (unit, &operands[0])
                    }
                };
                let e = self.expr(value)?;
                match &e.ty.kind {
                    FlinkKind::Timestamp(_) | FlinkKind::TimestampLtz(_) => {}
                    FlinkKind::Date if unit.applies_to_date() => {}
                    _ => {
                        return Err(Decline::new(format!(
                            "EXTRACT {unit:?} from {} is not supported",
                            show(&e.ty)
                        )))
                    }
                }
                expect_kind(ty, &FlinkKind::BigInt)?;
                Node::Time(TimeFunc::Extract(unit), vec![e])
            }
            "DATE_FORMAT" => {
                arity(2)?;
                let e = self.expr(&operands[0])?;
                if !matches!(e.ty.kind, FlinkKind::Timestamp(_)) {
                    return Err(Decline::new(format!(
                        "DATE_FORMAT of {} is not supported",
                        show(&e.ty)
                    )));
                }
                let pattern = literal_text(&operands[1])
                    .ok_or_else(|| Decline::new("only a literal pattern is supported"))?;
                let items = compile_format(&pattern).map_err(Decline::new)?;
                expect_text(ty)?;
                Node::Time(TimeFunc::DateFormat(items), vec![e])
            }
            "TO_TIMESTAMP_LTZ" => {
                arity(2)?;
                let e = self.expr(&operands[0])?;
                if !is_integer(&e.ty.kind) {
                    return Err(Decline::new(format!(
                        "TO_TIMESTAMP_LTZ of {} is not supported",
                        show(&e.ty)
                    )));
                }
                let precision = match &operands[1] {
                    ExprSpec::Literal { value, .. } => value.as_i64(),
                    _ => None,
                };
                let precision = match precision {
                    Some(0) => 0,
                    Some(3) => 3,
                    _ => return Err(Decline::new("the precision must be the literal 0 or 3")),
                };
                if !matches!(ty.kind, FlinkKind::TimestampLtz(3)) {
                    return Err(Decline::new(format!("typed {}", show(ty))));
                }
                Node::Time(TimeFunc::ToTimestampLtz(precision), vec![e])
            }
            other => {
                return Err(Decline::new(format!("operator {other} is not supported")));
            }
        };
        Ok(Expr {
            ty: ty.clone(),
            node,
        })
    }

    fn check_case_locale(&self) -> Result<(), Decline> {
        match self.session.locale.as_deref() {
            None => Err(Decline::new(
                "case mapping follows the JVM's default locale, which the plan does not name",
            )),
            Some(tag) => {
                let language = tag
                    .split(['-', '_'])
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                if matches!(language.as_str(), "tr" | "az" | "lt") {
                    Err(Decline::new(format!(
                        "case mapping in locale {tag} has language-specific rules"
                    )))
                } else {
                    Ok(())
                }
            }
        }
    }
}

/// The watermark rows' columns: each an output column that projects an input column
/// unchanged (what the watermark generator reads of a dropped row is then the input's own
/// value), distinct; only for a source-fusion plan (encoded batches carry no rows for a
/// watermark generator).
fn watermark_columns(spec: &PlanSpec, outputs: usize) -> Result<Vec<(usize, usize)>, Decline> {
    if spec.watermark_columns.is_empty() {
        return Ok(Vec::new());
    }
    if spec.encode.is_some() {
        return Err(Decline::new(
            "watermark rows with an encode stage: a fully fused source emits no rows",
        ));
    }
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spec.watermark_columns.len());
    for &column in &spec.watermark_columns {
        if column >= outputs {
            return Err(Decline::new(format!(
                "watermark column {column} is not an output column"
            )));
        }
        if out.iter().any(|&(c, _)| c == column) {
            return Err(Decline::new(format!(
                "watermark column {column} is named twice"
            )));
        }
        match &spec.projections[column] {
            ExprSpec::Input { index, .. } => out.push((column, *index)),
            _ => {
                return Err(Decline::new(format!(
                    "watermark column {column} is not an input column projected unchanged"
                )))
            }
        }
    }
    Ok(out)
}

fn literal_text(spec: &ExprSpec) -> Option<String> {
    match spec {
        ExprSpec::Literal {
            value: Value::String(s),
            ty,
        } if is_text(&ty.kind) => Some(s.clone()),
        _ => None,
    }
}

fn expect_boolean(ty: &FlinkType) -> Result<(), Decline> {
    expect_kind(ty, &FlinkKind::Boolean)
}

fn expect_kind(ty: &FlinkType, kind: &FlinkKind) -> Result<(), Decline> {
    if &ty.kind == kind {
        Ok(())
    } else {
        Err(Decline::new(format!(
            "expected {} but got {}",
            show(&FlinkType {
                nullable: true,
                kind: kind.clone()
            }),
            show(ty)
        )))
    }
}

fn expect_text(ty: &FlinkType) -> Result<(), Decline> {
    if is_text(&ty.kind) {
        Ok(())
    } else {
        Err(Decline::new(format!(
            "expected a string but got {}",
            show(ty)
        )))
    }
}

/// Checks the operands and result type of an arithmetic node against Flink's rules: numeric
/// operands; an integer result only from integer operands no wider than it... (the result
/// type is what the generated code converts both operands to).
fn check_arith(l: &FlinkType, r: &FlinkType, ty: &FlinkType) -> Result<(), Decline> {
    let (a, b, t) = (&l.kind, &r.kind, &ty.kind);
    let bad = || {
        Decline::new(format!(
            "arithmetic of {} and {} typed {} is not supported",
            show(l),
            show(r),
            show(ty)
        ))
    };
    if !is_numeric(a) || !is_numeric(b) || !is_numeric(t) {
        return Err(bad());
    }
    let ok = match t {
        _ if is_integer(t) => is_integer(a) && is_integer(b),
        FlinkKind::Decimal { .. } => {
            !matches!(a, FlinkKind::Float | FlinkKind::Double)
                && !matches!(b, FlinkKind::Float | FlinkKind::Double)
        }
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(bad())
    }
}

/// A CASE branch value converted to the CASE's type: unchanged when the kinds agree, else an
/// explicit CAST (numeric widening or a string of another length), or a decline.
fn coerce(e: Expr, ty: &FlinkType) -> Result<Expr, Decline> {
    if e.ty.kind == ty.kind {
        return Ok(e);
    }
    if matches!(e.node, Node::Literal(Literal::Null)) {
        return Ok(Expr {
            ty: ty.clone(),
            node: Node::Literal(Literal::Null),
        });
    }
    let widening =
        is_numeric(&e.ty.kind) && is_numeric(&ty.kind) && width(&e.ty.kind) <= width(&ty.kind);
    let text = is_text(&e.ty.kind) && is_text(&ty.kind);
    if (widening || text) && cast::supported(&e.ty, ty).is_ok() {
        return Ok(Expr {
            ty: ty.clone(),
            node: Node::Cast {
                input: Box::new(e),
                safe: false,
            },
        });
    }
    Err(Decline::new(format!(
        "a branch of {} in a result of {}",
        show(&e.ty),
        show(ty)
    )))
}
