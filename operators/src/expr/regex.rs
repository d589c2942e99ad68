//! `REGEXP(s, pattern)` and `REGEXP_EXTRACT(s, pattern [, index])` for literal patterns whose
//! meaning Rust's `regex` crate shares with `java.util.regex` (Flink's `SqlFunctionUtils`:
//! `Pattern.compile(p).matcher(s).find()`, then `group(index)`).
//!
//! A pattern is translated construct by construct, and anything outside this list declines:
//! literal characters (BMP only), `.` (Java's: any character but `\n`, `\r`, U+0085, U+2028,
//! U+2029), `^` (start of input: no MULTILINE), classes `[...]` / `[^...]` of literals, ranges
//! and the escapes below, `\d \D \w \W \s \S` (Java's ASCII definitions), `\t \n \r \f` and
//! escaped metacharacters, groups `(...)` and `(?:...)`, alternation, and the quantifiers
//! `* + ? {n} {n,} {n,m}` greedy or lazy (`?` suffix). Both engines pick the leftmost match
//! and, within it, the same alternative and repetition order (Perl's leftmost-first), so
//! spans and groups agree. Declined: `$` (Java's also matches before a final line terminator),
//! back-references, look-around, possessive quantifiers, flags, `\b`, `\p{..}`, `\Q..\E`,
//! class intersections and nested classes, supplementary characters in the pattern.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, StringArray};

use super::kernels::{as_str, build_bool, nulls_from};
use super::{Context, Errors, Evaluated, Expr};
use crate::error::EvalError;

/// A compiled pattern and what the function does with it.
#[derive(Debug, Clone)]
pub(crate) struct JavaRegex {
    /// The Java pattern as written (for messages).
    pub source: String,
    regex: Option<regex::Regex>,
    groups: usize,
}

impl PartialEq for JavaRegex {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

const DOT: &str = r"[^\n\r\x{85}\x{2028}\x{2029}]";
const DIGIT: &str = "0-9";
const WORD: &str = "a-zA-Z_0-9";
const SPACE: &str = r" \t\n\x0B\x0C\r";

fn escaped(c: char) -> String {
    format!("\\x{{{:X}}}", u32::from(c))
}

/// Translates a Java pattern into an equivalent Rust one, or names what is not supported.
fn translate(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let unsupported = |what: &str| Err(format!("regex {what} in '{pattern}' is not supported"));
    let mut out = String::new();
    let mut i = 0;
    // After an atom a quantifier may follow; after a quantifier only `?` (lazy).
    let mut atom = false;
    let mut depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if u32::from(c) > 0xFFFF {
            return unsupported("supplementary characters");
        }
        match c {
            '\\' => {
                let Some(&n) = chars.get(i + 1) else {
                    return unsupported("a trailing backslash");
                };
                out.push_str(&match n {
                    'd' => format!("[{DIGIT}]"),
                    'D' => format!("[^{DIGIT}]"),
                    'w' => format!("[{WORD}]"),
                    'W' => format!("[^{WORD}]"),
                    's' => format!("[{SPACE}]"),
                    'S' => format!("[^{SPACE}]"),
                    't' => r"\t".to_string(),
                    'n' => r"\n".to_string(),
                    'r' => r"\r".to_string(),
                    'f' => r"\x0C".to_string(),
                    '\\' | '.' | '[' | ']' | '(' | ')' | '{' | '}' | '*' | '+' | '?' | '^'
                    | '$' | '|' | '-' | '/' => escaped(n),
                    other => return unsupported(&format!("escape \\{other}")),
                });
                i += 2;
                atom = true;
            }
            '.' => {
                out.push_str(DOT);
                i += 1;
                atom = true;
            }
            '^' => {
                out.push_str(r"\A");
                i += 1;
                atom = false;
            }
            '$' => return unsupported("'$'"),
            '|' => {
                out.push('|');
                i += 1;
                atom = false;
            }
            '(' => {
                if chars.get(i + 1) == Some(&'?') {
                    if chars.get(i + 2) != Some(&':') {
                        return unsupported("group construct (?...)");
                    }
                    out.push_str("(?:");
                    i += 3;
                } else {
                    out.push('(');
                    i += 1;
                }
                depth += 1;
                atom = false;
            }
            ')' => {
                if depth == 0 {
                    return unsupported("unbalanced ')'");
                }
                depth -= 1;
                out.push(')');
                i += 1;
                atom = true;
            }
            '[' => {
                let (class, next) = translate_class(&chars, i)
                    .map_err(|w| format!("regex {w} in '{pattern}' is not supported"))?;
                out.push_str(&class);
                i = next;
                atom = true;
            }
            '*' | '+' | '?' | '{' => {
                if !atom {
                    return unsupported("a quantifier without an atom");
                }
                let start = i;
                if c == '{' {
                    let close = chars[i..].iter().position(|&x| x == '}').map(|p| p + i);
                    let Some(close) = close else {
                        return unsupported("an unclosed '{'");
                    };
                    let body: String = chars[i + 1..close].iter().collect();
                    let (lo, hi) = match body.split_once(',') {
                        None => (body.as_str(), Some(body.as_str())),
                        Some((lo, "")) => (lo, None),
                        Some((lo, hi)) => (lo, Some(hi)),
                    };
                    let num = |t: &str| {
                        t.parse::<u32>()
                            .ok()
                            .filter(|v| *v <= 1000 && t.bytes().all(|b| b.is_ascii_digit()))
                    };
                    let (Some(lo), hi) = (num(lo), hi.map(num)) else {
                        return unsupported("a repetition count");
                    };
                    if matches!(hi, Some(None)) || matches!(hi, Some(Some(h)) if h < lo) {
                        return unsupported("a repetition count");
                    }
                    i = close + 1;
                } else {
                    i += 1;
                }
                let q: String = chars[start..i].iter().collect();
                out.push_str(&q);
                match chars.get(i) {
                    Some('?') => {
                        out.push('?');
                        i += 1;
                    }
                    Some('+') => return unsupported("possessive quantifiers"),
                    _ => {}
                }
                atom = false;
                if matches!(chars.get(i), Some('*' | '+' | '?' | '{')) {
                    return unsupported("a quantifier on a quantifier");
                }
            }
            ']' | '}' => {
                out.push_str(&escaped(c));
                i += 1;
                atom = true;
            }
            other => {
                out.push_str(&escaped(other));
                i += 1;
                atom = true;
            }
        }
    }
    if depth != 0 {
        return unsupported("an unclosed group");
    }
    Ok(out)
}

/// A class starting at `chars[start] == '['`: its Rust text and the index after it.
fn translate_class(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let mut i = start + 1;
    let mut out = String::from("[");
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        return Err("a class starting with ']'".into());
    }
    let mut empty = true;
    // A class member: one character (for ranges) or a predefined set.
    let member = |i: usize| -> Result<(Option<char>, String, usize), String> {
        let c = chars.get(i).copied().ok_or("an unclosed class")?;
        if u32::from(c) > 0xFFFF {
            return Err("supplementary characters".into());
        }
        match c {
            '\\' => {
                let n = chars.get(i + 1).copied().ok_or("a trailing backslash")?;
                Ok(match n {
                    'd' => (None, DIGIT.into(), i + 2),
                    'w' => (None, WORD.into(), i + 2),
                    's' => (None, SPACE.into(), i + 2),
                    't' => (Some('\t'), escaped('\t'), i + 2),
                    'n' => (Some('\n'), escaped('\n'), i + 2),
                    'r' => (Some('\r'), escaped('\r'), i + 2),
                    'f' => (Some('\x0C'), escaped('\x0C'), i + 2),
                    '\\' | '.' | '[' | ']' | '(' | ')' | '{' | '}' | '*' | '+' | '?' | '^'
                    | '$' | '|' | '-' | '/' | '&' => (Some(n), escaped(n), i + 2),
                    other => return Err(format!("escape \\{other} in a class")),
                })
            }
            '[' => Err("nested classes".into()),
            '&' if chars.get(i + 1) == Some(&'&') => Err("class intersections".into()),
            c => Ok((Some(c), escaped(c), i + 1)),
        }
    };
    loop {
        match chars.get(i) {
            None => return Err("an unclosed class".into()),
            Some(']') => {
                if empty {
                    return Err("an empty class".into());
                }
                out.push(']');
                return Ok((out, i + 1));
            }
            Some(_) => {
                let (single, text, next) = member(i)?;
                if chars.get(next) == Some(&'-') && chars.get(next + 1).is_some_and(|&c| c != ']') {
                    let (Some(lo), (Some(hi), hi_text, after)) = (single, member(next + 1)?) else {
                        return Err("a range with a class end".into());
                    };
                    if hi < lo {
                        return Err("an inverted range".into());
                    }
                    out.push_str(&text);
                    out.push('-');
                    out.push_str(&hi_text);
                    i = after;
                } else {
                    out.push_str(&text);
                    i = next;
                }
                empty = false;
            }
        }
    }
}

impl JavaRegex {
    /// Compiles a Java pattern, or names why it is declined.
    pub fn compile(pattern: &str) -> Result<JavaRegex, String> {
        if pattern.is_empty() {
            // REGEXP(s, '') is FALSE; REGEXP_EXTRACT's empty match is group 0 = ''.
            return Ok(JavaRegex {
                source: String::new(),
                regex: None,
                groups: 0,
            });
        }
        let rust = translate(pattern)?;
        let regex = regex::RegexBuilder::new(&rust)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("regex '{pattern}' does not compile: {e}"))?;
        let groups = regex.captures_len() - 1;
        Ok(JavaRegex {
            source: pattern.to_string(),
            regex: Some(regex),
            groups,
        })
    }

    /// `REGEXP`: whether the pattern is found (an empty pattern never is).
    fn is_found(&self, s: &str) -> bool {
        self.regex.as_ref().is_some_and(|r| r.is_match(s))
    }

    /// `REGEXP_EXTRACT`: group `index` of the first match, NULL without a match, for a group
    /// that did not take part, or for an index Java's `group(index)` rejects.
    fn extract(&self, s: &str, index: i64) -> Option<String> {
        let Some(regex) = &self.regex else {
            return (index == 0).then(String::new);
        };
        let index = usize::try_from(index).ok().filter(|i| *i <= self.groups)?;
        let caps = regex.captures(s)?;
        caps.get(index).map(|m| m.as_str().to_string())
    }
}

/// Evaluates `REGEXP(s, p)` (`index` None) or `REGEXP_EXTRACT(s, p, index)`.
pub(crate) fn eval(
    regex: &JavaRegex,
    extract: bool,
    args: &[Expr],
    ctx: &Context<'_>,
) -> Result<Evaluated, EvalError> {
    let mut errors = Errors::default();
    let mut arrays = Vec::with_capacity(args.len());
    for a in args {
        let v = a.eval(ctx)?;
        errors = errors.merge(v.errors);
        arrays.push(v.array);
    }
    let s = as_str(&arrays[0])?;
    let rows = s.len();
    let array: ArrayRef = if extract {
        let index = match arrays.get(1) {
            Some(a) => Some(super::kernels::i64_values(a)?),
            None => None,
        };
        let out: StringArray = (0..rows)
            .map(|i| {
                if s.is_null(i) {
                    return None;
                }
                let idx = match &index {
                    None => 0,
                    Some((v, n)) if super::kernels::valid(n.as_ref(), i) => v[i],
                    Some(_) => return None,
                };
                regex.extract(s.value(i), idx)
            })
            .collect();
        Arc::new(out)
    } else {
        let values: Vec<bool> = (0..rows)
            .map(|i| s.is_valid(i) && regex.is_found(s.value(i)))
            .collect();
        let valid: Vec<bool> = (0..rows).map(|i| s.is_valid(i)).collect();
        build_bool(values, nulls_from(valid))
    };
    Ok(Evaluated { array, errors })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_constructs_decline() {
        for p in [
            "a$", "(a)\\1", "(?=a)", "(?i)a", "a++", "\\bword", "\\p{L}", "[a&&b]", "[[a]]",
            "\\Qx\\E", "𝕏",
        ] {
            assert!(JavaRegex::compile(p).is_err(), "{p}");
        }
        for p in [
            "[0-9]+",
            "^abc",
            "a|b",
            "(x)?b",
            "[^a-c]{2,3}",
            "\\d+\\.\\w*?",
            "(?:ab)+",
        ] {
            assert!(JavaRegex::compile(p).is_ok(), "{p}");
        }
    }
}
