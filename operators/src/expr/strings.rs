//! String functions with Flink's `BinaryStringData` / `BinaryStringDataUtil` /
//! `SqlFunctionUtils` semantics. Lengths and positions count code points (UTF-8 characters),
//! as `BinaryStringData.numChars` does. Every function is NULL when an operand is NULL.

use arrow_array::{Array, ArrayRef, StringArray};
use karrow_codecs::FlinkType;

use super::kernels::{as_str, build_integer, i64_values, valid};
use super::{case_mapping, internal, Context, Errors, Evaluated, Expr};
use crate::error::EvalError;

/// Which ends `TRIM` strips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TrimSide {
    /// `BOTH`.
    Both,
    /// `LEADING`.
    Leading,
    /// `TRAILING`.
    Trailing,
}

/// A string function.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StrFunc {
    /// `UPPER(s)`.
    Upper,
    /// `LOWER(s)`.
    Lower,
    /// `CHAR_LENGTH(s)` (INT).
    CharLength,
    /// `SUBSTRING(s, pos [, len])`.
    Substring,
    /// `s1 || s2 || ...` and `CONCAT(...)`.
    Concat,
    /// `TRIM(side chars FROM s)`: operands (chars, s).
    Trim(TrimSide),
    /// `s LIKE pattern` with a literal pattern, compiled at validation.
    Like(LikePattern),
    /// `SPLIT_INDEX(s, sep, index)`.
    SplitIndex,
}

/// A LIKE pattern: a sequence of literal runs, `_` (one character) and `%` (any run).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LikePattern(Vec<LikeToken>);

#[derive(Debug, Clone, PartialEq)]
enum LikeToken {
    Text(String),
    One,
    Any,
}

impl LikePattern {
    /// Compiles `pattern` with an optional escape character; `Err` as Flink rejects it.
    pub fn compile(pattern: &str, escape: Option<char>) -> Result<LikePattern, String> {
        let mut tokens = Vec::new();
        let mut text = String::new();
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            if Some(c) == escape {
                match chars.next() {
                    Some(n) if n == '_' || n == '%' || Some(n) == escape => text.push(n),
                    _ => {
                        return Err(format!(
                            "invalid escape sequence in LIKE pattern '{pattern}'"
                        ))
                    }
                }
                continue;
            }
            match c {
                '_' | '%' => {
                    if !text.is_empty() {
                        tokens.push(LikeToken::Text(std::mem::take(&mut text)));
                    }
                    tokens.push(if c == '_' {
                        LikeToken::One
                    } else {
                        LikeToken::Any
                    });
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            tokens.push(LikeToken::Text(text));
        }
        Ok(LikePattern(tokens))
    }

    /// Whether `s` matches (every character, line terminators included, is a character).
    pub fn matches(&self, s: &str) -> bool {
        fn go(tokens: &[LikeToken], s: &str) -> bool {
            match tokens.split_first() {
                None => s.is_empty(),
                Some((LikeToken::Text(t), rest)) => {
                    s.strip_prefix(t.as_str()).is_some_and(|r| go(rest, r))
                }
                Some((LikeToken::One, rest)) => {
                    let mut it = s.chars();
                    it.next().is_some() && go(rest, it.as_str())
                }
                Some((LikeToken::Any, rest)) => {
                    if rest.is_empty() {
                        return true;
                    }
                    // Try every split point (patterns are small; inputs bounded by rows).
                    let mut tail = s;
                    loop {
                        if go(rest, tail) {
                            return true;
                        }
                        let mut it = tail.chars();
                        if it.next().is_none() {
                            return false;
                        }
                        tail = it.as_str();
                    }
                }
            }
        }
        go(&self.0, s)
    }
}

/// `BinaryStringDataUtil.substringSQL(s, pos, len)`: 1-based `pos`, negative from the end,
/// 0 as 1; NULL for a negative length.
fn substring_sql(s: &str, pos: i64, len: i64) -> Option<String> {
    // Java works in int; operands are INT typed.
    let (pos, len) = (pos as i32, len as i32);
    if len < 0 {
        return None;
    }
    if s.is_empty() {
        return Some(String::new());
    }
    let chars: Vec<char> = s.chars().collect();
    let n = i32::try_from(chars.len()).unwrap_or(i32::MAX);
    let start = if pos > 0 {
        let start = pos - 1;
        if start >= n {
            return Some(String::new());
        }
        start
    } else if pos < 0 {
        let start = n + pos;
        if start < 0 {
            return Some(String::new());
        }
        start
    } else {
        0
    };
    let end = if n - start < len { n } else { start + len };
    Some(chars[start as usize..end as usize].iter().collect())
}

/// `BinaryStringDataUtil.trim(s, leading, trailing, chars)`: strips code points in `chars`.
fn trim(s: &str, chars: &str, side: TrimSide) -> String {
    let set = |c: char| chars.contains(c);
    match side {
        TrimSide::Both => s.trim_matches(set),
        TrimSide::Leading => s.trim_start_matches(set),
        TrimSide::Trailing => s.trim_end_matches(set),
    }
    .to_string()
}

/// `SqlFunctionUtils.splitIndex`: commons-lang `splitByWholeSeparatorPreserveAllTokens`
/// with a non-empty separator, then the `index`-th token (NULL when negative or absent).
fn split_index(s: &str, sep: &str, index: i64) -> Option<String> {
    if index < 0 || sep.is_empty() {
        return None;
    }
    if s.is_empty() {
        return None;
    }
    s.split(sep)
        .nth(usize::try_from(index).ok()?)
        .map(str::to_string)
}

fn strings(args: &[ArrayRef], i: usize) -> Result<Vec<&str>, EvalError> {
    args.iter().map(|a| Ok(as_str(a)?.value(i))).collect()
}

/// Evaluates a string function.
pub(crate) fn eval(
    f: &StrFunc,
    args: &[Expr],
    ty: &FlinkType,
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let mut errors = Errors::default();
    let mut arrays = Vec::with_capacity(args.len());
    for a in args {
        let v = a.eval(ctx)?;
        errors = errors.merge(v.errors);
        arrays.push(v.array);
    }
    let rows = ctx.rows;
    let all_valid = |i: usize| arrays.iter().all(|a| valid(a.logical_nulls().as_ref(), i));
    let valid_rows: Vec<bool> = (0..rows).map(all_valid).collect();
    let array: ArrayRef = match f {
        StrFunc::CharLength => {
            let s = as_str(&arrays[0])?;
            let out = (0..rows)
                .map(|i| s.value(i).chars().count() as i64)
                .collect();
            build_integer(&ty.kind, out, s.logical_nulls())?
        }
        StrFunc::Upper | StrFunc::Lower => {
            let s = as_str(&arrays[0])?;
            let upper = *f == StrFunc::Upper;
            let out: StringArray = (0..rows)
                .map(|i| {
                    valid_rows[i].then(|| {
                        if upper {
                            case_mapping::to_upper(s.value(i))
                        } else {
                            case_mapping::to_lower(s.value(i))
                        }
                    })
                })
                .collect();
            std::sync::Arc::new(out)
        }
        StrFunc::Substring => {
            let s = as_str(&arrays[0])?;
            let (pos, _) = i64_values(&arrays[1])?;
            let len = match arrays.get(2) {
                Some(a) => Some(i64_values(a)?.0),
                None => None,
            };
            let out: StringArray = (0..rows)
                .map(|i| {
                    if !valid_rows[i] {
                        return None;
                    }
                    let l = len.as_ref().map_or(i64::from(i32::MAX), |l| l[i]);
                    substring_sql(s.value(i), pos[i], l)
                })
                .collect();
            std::sync::Arc::new(out)
        }
        StrFunc::Concat => {
            let out: StringArray = (0..rows)
                .map(|i| {
                    if !valid_rows[i] {
                        return Ok(None);
                    }
                    Ok(Some(strings(&arrays, i)?.concat()))
                })
                .collect::<Result<_, EvalError>>()?;
            std::sync::Arc::new(out)
        }
        StrFunc::Trim(side) => {
            let chars = as_str(&arrays[0])?;
            let s = as_str(&arrays[1])?;
            let out: StringArray = (0..rows)
                .map(|i| valid_rows[i].then(|| trim(s.value(i), chars.value(i), *side)))
                .collect();
            std::sync::Arc::new(out)
        }
        StrFunc::Like(pattern) => {
            let s = as_str(&arrays[0])?;
            let values = (0..rows)
                .map(|i| valid_rows[i] && pattern.matches(s.value(i)))
                .collect();
            super::kernels::build_bool(values, super::kernels::nulls_from(valid_rows))
        }
        StrFunc::SplitIndex => {
            let s = as_str(&arrays[0])?;
            let sep = as_str(&arrays[1])?;
            let (index, _) = i64_values(&arrays[2])?;
            let out: StringArray = (0..rows)
                .map(|i| {
                    if !valid_rows[i] {
                        return None;
                    }
                    split_index(s.value(i), sep.value(i), index[i])
                })
                .collect();
            std::sync::Arc::new(out)
        }
    };
    if array.len() != rows {
        return Err(internal(
            "string function produced the wrong row count".into(),
        ));
    }
    Ok(Evaluated { array, errors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substring_follows_substring_sql() {
        assert_eq!(substring_sql("hello", 2, 3).as_deref(), Some("ell"));
        assert_eq!(substring_sql("hello", 0, 2).as_deref(), Some("he"));
        assert_eq!(substring_sql("hello", -3, 2).as_deref(), Some("ll"));
        assert_eq!(substring_sql("hello", 9, 2).as_deref(), Some(""));
        assert_eq!(substring_sql("hello", -9, 2).as_deref(), Some(""));
        assert_eq!(substring_sql("hello", 2, -1), None);
        assert_eq!(substring_sql("héllo", 2, 2).as_deref(), Some("él"));
    }

    #[test]
    fn like_patterns() {
        let p = LikePattern::compile("a%b_", None).unwrap();
        assert!(p.matches("axxbc"));
        assert!(p.matches("abc"));
        assert!(!p.matches("abcc"));
        let e = LikePattern::compile("100!%", Some('!')).unwrap();
        assert!(e.matches("100%"));
        assert!(!e.matches("1000"));
    }
}
