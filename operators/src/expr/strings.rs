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

/// A literal LIKE pattern, compiled the way Flink's `LikeCallGen` dispatches on its shape
/// (without an ESCAPE clause):
/// - no `_`: a pattern without `%` is `equals`, `abc%` `startsWith`, `%abc` `endsWith`,
///   `%abc%` `contains`, anything else `SqlLikeChainChecker` (its `%`-separated parts found
///   in order; an empty pattern or one of only `%` matches every string). `%` then matches
///   any characters, line terminators included;
/// - with `_`: `Pattern.matches` of the regex `SqlLikeUtils.sqlToRegexLike` builds, where `_`
///   is `.` and `%` is `.*`, and neither matches a line terminator (`\n`, `\r`, U+0085,
///   U+2028, U+2029: Java's `.` without DOTALL).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LikePattern {
    /// `s.equals(p)`.
    Equals(String),
    /// `s.startsWith(p)`.
    StartsWith(String),
    /// `s.endsWith(p)`.
    EndsWith(String),
    /// `s.contains(p)`.
    Contains(String),
    /// `SqlLikeChainChecker`.
    Chain {
        /// The part before the first `%` when the pattern does not start with one.
        begin: Option<String>,
        /// The parts between.
        middle: Vec<String>,
        /// The part after the last `%` when the pattern does not end with one.
        end: Option<String>,
    },
    /// The regex path.
    Regex(Vec<LikeToken>),
}

/// A token of the regex path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LikeToken {
    /// Literal characters.
    Text(String),
    /// `_`: one character that is not a line terminator.
    One,
    /// `%`: any run of characters that are not line terminators.
    Any,
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

impl LikePattern {
    /// Compiles a literal pattern (no ESCAPE clause); `Err` for what is declined.
    pub fn compile(pattern: &str) -> Result<LikePattern, String> {
        if pattern.contains('\\') {
            return Err("a LIKE pattern with a backslash is not supported".into());
        }
        if pattern.contains('_') {
            let mut tokens = Vec::new();
            let mut text = String::new();
            for c in pattern.chars() {
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
            return Ok(LikePattern::Regex(tokens));
        }
        let inner = |p: &str| !p.is_empty() && !p.contains('%');
        if inner(pattern) {
            return Ok(LikePattern::Equals(pattern.into()));
        }
        if let Some(p) = pattern.strip_suffix('%').filter(|p| inner(p)) {
            return Ok(LikePattern::StartsWith(p.into()));
        }
        if let Some(p) = pattern.strip_prefix('%').filter(|p| inner(p)) {
            return Ok(LikePattern::EndsWith(p.into()));
        }
        if let Some(p) = pattern
            .strip_prefix('%')
            .and_then(|p| p.strip_suffix('%'))
            .filter(|p| inner(p))
        {
            return Ok(LikePattern::Contains(p.into()));
        }
        let mut parts: Vec<String> = pattern
            .split('%')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        let begin = (!pattern.starts_with('%') && !parts.is_empty()).then(|| parts.remove(0));
        let end = (!pattern.ends_with('%') && !parts.is_empty())
            .then(|| parts.pop())
            .flatten();
        Ok(LikePattern::Chain {
            begin,
            middle: parts,
            end,
        })
    }

    /// Whether `s` matches.
    pub fn matches(&self, s: &str) -> bool {
        match self {
            LikePattern::Equals(p) => s == p,
            LikePattern::StartsWith(p) => s.starts_with(p.as_str()),
            LikePattern::EndsWith(p) => s.ends_with(p.as_str()),
            LikePattern::Contains(p) => s.contains(p.as_str()),
            LikePattern::Chain { begin, middle, end } => {
                let b = s.as_bytes();
                let min: usize = begin.iter().chain(middle).chain(end).map(String::len).sum();
                if b.len() < min {
                    return false;
                }
                let mut from = 0;
                let mut to = b.len();
                if let Some(p) = begin {
                    if !b.starts_with(p.as_bytes()) {
                        return false;
                    }
                    from = p.len();
                }
                if let Some(p) = end {
                    if !b.ends_with(p.as_bytes()) {
                        return false;
                    }
                    to -= p.len();
                }
                for p in middle {
                    let hay = &b[from.min(to)..to];
                    match hay.windows(p.len()).position(|w| w == p.as_bytes()) {
                        Some(at) => from += at + p.len(),
                        None => return false,
                    }
                }
                true
            }
            LikePattern::Regex(tokens) => regex_matches(tokens, s),
        }
    }
}

fn regex_matches(tokens: &[LikeToken], s: &str) -> bool {
    match tokens.split_first() {
        None => s.is_empty(),
        Some((LikeToken::Text(t), rest)) => s
            .strip_prefix(t.as_str())
            .is_some_and(|r| regex_matches(rest, r)),
        Some((LikeToken::One, rest)) => {
            let mut it = s.chars();
            matches!(it.next(), Some(c) if !is_line_terminator(c))
                && regex_matches(rest, it.as_str())
        }
        Some((LikeToken::Any, rest)) => {
            let mut tail = s;
            loop {
                if regex_matches(rest, tail) {
                    return true;
                }
                let mut it = tail.chars();
                match it.next() {
                    Some(c) if !is_line_terminator(c) => tail = it.as_str(),
                    _ => return false,
                }
            }
        }
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
    fn like_dispatch_follows_flink() {
        let m = |p: &str, s: &str| LikePattern::compile(p).unwrap().matches(s);
        assert!(m("a%b_", "axxbc"));
        assert!(m("a%b_", "abc"));
        assert!(!m("a%b_", "abcc"));
        assert!(m("", "anything"));
        assert!(m("line%2", "line1\nline2"));
        assert!(!m("line1_line2", "line1\nline2"));
        assert!(!m("x%ab%b", "xcab"));
        assert!(m("%", ""));
        assert!(LikePattern::compile("a\\%").is_err());
    }
}
