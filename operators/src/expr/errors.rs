//! Per-row evaluation failures, recorded instead of raised (see [`super`]).

use crate::error::EvalError;

/// The rows whose evaluation threw, in ascending row order, one failure per row (the
/// first one in Flink's evaluation order).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Errors(Vec<(usize, EvalError)>);

impl Errors {
    /// The first failing row.
    pub fn first(&self) -> Option<(usize, &EvalError)> {
        self.0.first().map(|(r, e)| (*r, e))
    }

    /// Records a failure of `row`; rows must be pushed in ascending order.
    pub fn push(&mut self, row: usize, error: EvalError) {
        match self.0.last() {
            Some((last, _)) if *last >= row => {}
            _ => self.0.push((row, error)),
        }
    }

    /// The failures of `self` and of `later` (evaluated after `self`): where both fail a
    /// row, `self`'s failure is the one Flink throws.
    pub fn merge(self, later: Errors) -> Errors {
        if later.0.is_empty() {
            return self;
        }
        if self.0.is_empty() {
            return later;
        }
        let mut out = Vec::with_capacity(self.0.len() + later.0.len());
        let mut a = self.0.into_iter().peekable();
        let mut b = later.0.into_iter().peekable();
        loop {
            match (a.peek(), b.peek()) {
                (Some((ra, _)), Some((rb, _))) => {
                    if ra <= rb {
                        let ra = *ra;
                        if let Some(x) = a.next() {
                            out.push(x);
                        }
                        if b.peek().is_some_and(|(rb, _)| *rb == ra) {
                            b.next();
                        }
                    } else if let Some(x) = b.next() {
                        out.push(x);
                    }
                }
                (Some(_), None) => out.extend(a.by_ref()),
                (None, Some(_)) => out.extend(b.by_ref()),
                (None, None) => break,
            }
        }
        Errors(out)
    }

    /// Keeps only the failures of rows where `evaluated` is true: the rows for which
    /// Flink's generated code would have evaluated the failing operand at all.
    pub fn retain_where(mut self, evaluated: &[bool]) -> Errors {
        self.0
            .retain(|(r, _)| evaluated.get(*r).copied().unwrap_or(false));
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errs(rows: &[(usize, &str)]) -> Errors {
        let mut e = Errors::default();
        for (r, m) in rows {
            e.push(*r, EvalError::Invalid((*m).into()));
        }
        e
    }

    #[test]
    fn merge_keeps_the_earlier_operand_failure_per_row() {
        let merged = errs(&[(1, "a1"), (4, "a4")]).merge(errs(&[(0, "b0"), (4, "b4"), (5, "b5")]));
        assert_eq!(merged, errs(&[(0, "b0"), (1, "a1"), (4, "a4"), (5, "b5")]));
    }

    #[test]
    fn retain_drops_rows_not_evaluated() {
        let kept = errs(&[(0, "x"), (2, "y")]).retain_where(&[false, true, true]);
        assert_eq!(kept, errs(&[(2, "y")]));
    }
}
