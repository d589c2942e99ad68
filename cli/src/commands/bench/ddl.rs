//! Flink row types written as a DDL column list (`auction BIGINT, price DECIMAL(10, 2),
//! tags ARRAY<STRING>`), parsed into [`FlinkType`], and a [`FlinkType`] printed the way
//! Flink's `LogicalType#asSerializableString` writes it (what the JVM harness parses back
//! with `LogicalTypeParser`).

use karrow_codecs::types::{FlinkField, FlinkKind, FlinkType};

use super::error::BenchError;

const MAX_LENGTH: u32 = i32::MAX as u32;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Number(u64),
    Punct(char),
}

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, BenchError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].1.is_ascii_alphanumeric() || chars[i].1 == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().map(|(_, c)| c).collect();
            out.push((at, Token::Word(word)));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].1.is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().map(|(_, c)| c).collect();
            let n = digits
                .parse()
                .map_err(|_| err(at, &format!("number {digits} is too large")))?;
            out.push((at, Token::Number(n)));
        } else if c == '`' {
            let mut name = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(err(at, "unterminated `quoted` name")),
                    Some((_, '`')) if chars.get(i + 1).map(|p| p.1) == Some('`') => {
                        name.push('`');
                        i += 2;
                    }
                    Some((_, '`')) => {
                        i += 1;
                        break;
                    }
                    Some((_, c)) => {
                        name.push(*c);
                        i += 1;
                    }
                }
            }
            out.push((at, Token::Quoted(name)));
        } else if "<>(),".contains(c) {
            out.push((at, Token::Punct(c)));
            i += 1;
        } else {
            return Err(err(at, &format!("unexpected character '{c}'")));
        }
    }
    Ok(out)
}

fn err(at: usize, what: &str) -> BenchError {
    BenchError::Schema(format!("column list at offset {at}: {what}"))
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    end: usize,
}

impl Parser {
    fn at(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end, |t| t.0)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|t| &t.1)
    }

    fn peek_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let hit = self.peek_word(word);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(&Token::Punct(c));
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn expect_punct(&mut self, c: char) -> Result<(), BenchError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(err(self.at(), &format!("expected '{c}'")))
        }
    }

    fn expect_word(&mut self, word: &str) -> Result<(), BenchError> {
        if self.eat_word(word) {
            Ok(())
        } else {
            Err(err(self.at(), &format!("expected {word}")))
        }
    }

    fn number(&mut self) -> Result<u64, BenchError> {
        match self.peek() {
            Some(Token::Number(n)) => {
                let n = *n;
                self.pos += 1;
                Ok(n)
            }
            _ => Err(err(self.at(), "expected a number")),
        }
    }

    /// `(n)` if present.
    fn optional_arg(&mut self) -> Result<Option<u64>, BenchError> {
        if self.eat_punct('(') {
            let n = self.number()?;
            self.expect_punct(')')?;
            Ok(Some(n))
        } else {
            Ok(None)
        }
    }

    fn name(&mut self) -> Result<String, BenchError> {
        match self.peek().cloned() {
            Some(Token::Word(w)) | Some(Token::Quoted(w)) => {
                self.pos += 1;
                Ok(w)
            }
            _ => Err(err(self.at(), "expected a column name")),
        }
    }

    fn fields(&mut self, close: char) -> Result<Vec<FlinkField>, BenchError> {
        let mut fields = Vec::new();
        loop {
            let name = self.name()?;
            let ty = self.ty()?;
            if fields.iter().any(|f: &FlinkField| f.name == name) {
                return Err(err(self.at(), &format!("duplicate field name '{name}'")));
            }
            fields.push(FlinkField { name, ty });
            if self.eat_punct(',') {
                continue;
            }
            self.expect_punct(close)?;
            return Ok(fields);
        }
    }

    fn ty(&mut self) -> Result<FlinkType, BenchError> {
        let at = self.at();
        let word = match self.peek().cloned() {
            Some(Token::Word(w)) => {
                self.pos += 1;
                w.to_ascii_uppercase()
            }
            _ => return Err(err(at, "expected a type")),
        };
        let length = |n: Option<u64>, default: u32| -> Result<u32, BenchError> {
            match n {
                None => Ok(default),
                Some(n) if n >= 1 && n <= u64::from(MAX_LENGTH) => Ok(n as u32),
                Some(n) => Err(err(at, &format!("length {n} out of range"))),
            }
        };
        let precision = |n: Option<u64>, default: u8, max: u8| -> Result<u8, BenchError> {
            match n {
                None => Ok(default),
                Some(n) if n <= u64::from(max) => Ok(n as u8),
                Some(n) => Err(err(at, &format!("precision {n} out of range 0..={max}"))),
            }
        };
        let kind = match word.as_str() {
            "BOOLEAN" => FlinkKind::Boolean,
            "TINYINT" => FlinkKind::TinyInt,
            "SMALLINT" => FlinkKind::SmallInt,
            "INT" | "INTEGER" => FlinkKind::Int,
            "BIGINT" => FlinkKind::BigInt,
            "FLOAT" | "REAL" => FlinkKind::Float,
            "DOUBLE" => {
                self.eat_word("PRECISION");
                FlinkKind::Double
            }
            "STRING" => FlinkKind::VarChar(MAX_LENGTH),
            "BYTES" => FlinkKind::VarBinary(MAX_LENGTH),
            "VARCHAR" => FlinkKind::VarChar(length(self.optional_arg()?, 1)?),
            "CHAR" => FlinkKind::Char(length(self.optional_arg()?, 1)?),
            "VARBINARY" => FlinkKind::VarBinary(length(self.optional_arg()?, 1)?),
            "BINARY" => FlinkKind::Binary(length(self.optional_arg()?, 1)?),
            "DECIMAL" | "DEC" | "NUMERIC" => {
                let (p, s) = if self.eat_punct('(') {
                    let p = self.number()?;
                    let s = if self.eat_punct(',') {
                        self.number()?
                    } else {
                        0
                    };
                    self.expect_punct(')')?;
                    (p, s)
                } else {
                    (10, 0)
                };
                if !(1..=38).contains(&p) || s > p {
                    return Err(err(
                        at,
                        &format!("DECIMAL({p}, {s}) is outside 1 <= p <= 38, 0 <= s <= p"),
                    ));
                }
                FlinkKind::Decimal {
                    precision: p as u8,
                    scale: s as i8,
                }
            }
            "DATE" => FlinkKind::Date,
            "TIME" => {
                let p = precision(self.optional_arg()?, 0, 9)?;
                if self.eat_word("WITHOUT") {
                    self.expect_word("TIME")?;
                    self.expect_word("ZONE")?;
                }
                FlinkKind::Time(p)
            }
            "TIMESTAMP" => {
                let p = precision(self.optional_arg()?, 6, 9)?;
                if self.eat_word("WITHOUT") {
                    self.expect_word("TIME")?;
                    self.expect_word("ZONE")?;
                    FlinkKind::Timestamp(p)
                } else if self.eat_word("WITH") {
                    self.expect_word("LOCAL")?;
                    self.expect_word("TIME")?;
                    self.expect_word("ZONE")?;
                    FlinkKind::TimestampLtz(p)
                } else {
                    FlinkKind::Timestamp(p)
                }
            }
            "TIMESTAMP_LTZ" => FlinkKind::TimestampLtz(precision(self.optional_arg()?, 6, 9)?),
            "ARRAY" => {
                self.expect_punct('<')?;
                let element = self.ty()?;
                self.expect_punct('>')?;
                FlinkKind::Array(Box::new(element))
            }
            "MULTISET" => {
                self.expect_punct('<')?;
                let element = self.ty()?;
                self.expect_punct('>')?;
                FlinkKind::Multiset(Box::new(element))
            }
            "MAP" => {
                self.expect_punct('<')?;
                let key = self.ty()?;
                self.expect_punct(',')?;
                let value = self.ty()?;
                self.expect_punct('>')?;
                FlinkKind::Map(Box::new(key), Box::new(value))
            }
            "ROW" => {
                let close = if self.eat_punct('<') {
                    '>'
                } else if self.eat_punct('(') {
                    ')'
                } else {
                    return Err(err(self.at(), "expected '<' or '(' after ROW"));
                };
                FlinkKind::Row(self.fields(close)?)
            }
            other => return Err(err(at, &format!("unknown or unsupported type '{other}'"))),
        };
        let nullable = if self.eat_word("NOT") {
            self.expect_word("NULL")?;
            false
        } else {
            self.eat_word("NULL");
            true
        };
        Ok(FlinkType { nullable, kind })
    }
}

/// Parses a column list into a NOT NULL ROW type (the physical row type of a table).
pub fn parse_columns(text: &str) -> Result<FlinkType, BenchError> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err(BenchError::Schema("the column list is empty".into()));
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        end: text.len(),
    };
    // The list is the inside of ROW<...>: parse it with a virtual closing token.
    parser.tokens.push((text.len(), Token::Punct('\u{0}')));
    let fields = parser.fields('\u{0}').map_err(|e| match e {
        BenchError::Schema(m) if m.ends_with("expected '\u{0}'") => {
            BenchError::Schema(m.replace("expected '\u{0}'", "expected ',' or the end of the list"))
        }
        other => other,
    })?;
    Ok(FlinkType {
        nullable: false,
        kind: FlinkKind::Row(fields),
    })
}

/// Prints a type as Flink's serializable string (`ROW<`a` BIGINT NOT NULL, ...>`).
pub fn flink_type_string(ty: &FlinkType) -> String {
    let mut out = String::new();
    write_type(&mut out, ty);
    out
}

fn write_type(out: &mut String, ty: &FlinkType) {
    match &ty.kind {
        FlinkKind::Null => out.push_str("NULL"),
        FlinkKind::Boolean => out.push_str("BOOLEAN"),
        FlinkKind::TinyInt => out.push_str("TINYINT"),
        FlinkKind::SmallInt => out.push_str("SMALLINT"),
        FlinkKind::Int => out.push_str("INT"),
        FlinkKind::BigInt => out.push_str("BIGINT"),
        FlinkKind::Float => out.push_str("FLOAT"),
        FlinkKind::Double => out.push_str("DOUBLE"),
        FlinkKind::Char(n) => out.push_str(&format!("CHAR({n})")),
        FlinkKind::VarChar(n) => out.push_str(&format!("VARCHAR({n})")),
        FlinkKind::Binary(n) => out.push_str(&format!("BINARY({n})")),
        FlinkKind::VarBinary(n) => out.push_str(&format!("VARBINARY({n})")),
        FlinkKind::Decimal { precision, scale } => {
            out.push_str(&format!("DECIMAL({precision}, {scale})"))
        }
        FlinkKind::Date => out.push_str("DATE"),
        FlinkKind::Time(p) => out.push_str(&format!("TIME({p})")),
        FlinkKind::Timestamp(p) => out.push_str(&format!("TIMESTAMP({p})")),
        FlinkKind::TimestampLtz(p) => out.push_str(&format!("TIMESTAMP({p}) WITH LOCAL TIME ZONE")),
        FlinkKind::IntervalYearMonth => out.push_str("INTERVAL YEAR(2) TO MONTH"),
        FlinkKind::IntervalDayTime => out.push_str("INTERVAL DAY(2) TO SECOND(3)"),
        FlinkKind::Array(e) => {
            out.push_str("ARRAY<");
            write_type(out, e);
            out.push('>');
        }
        FlinkKind::Multiset(e) => {
            out.push_str("MULTISET<");
            write_type(out, e);
            out.push('>');
        }
        FlinkKind::Map(k, v) => {
            out.push_str("MAP<");
            write_type(out, k);
            out.push_str(", ");
            write_type(out, v);
            out.push('>');
        }
        FlinkKind::Row(fields) => {
            out.push_str("ROW<");
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('`');
                out.push_str(&f.name.replace('`', "``"));
                out.push_str("` ");
                write_type(out, &f.ty);
            }
            out.push('>');
        }
    }
    if !ty.nullable && ty.kind != FlinkKind::Null {
        out.push_str(" NOT NULL");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_a_column_list() {
        let ty = parse_columns(
            "auction BIGINT NOT NULL, price DECIMAL(10,2), tags ARRAY<STRING>, \
             `m` MAP<STRING NOT NULL, ROW<a INT, b TIMESTAMP(3)>>, t TIMESTAMP(3) WITH LOCAL TIME ZONE",
        )
        .unwrap();
        assert_eq!(
            flink_type_string(&ty),
            "ROW<`auction` BIGINT NOT NULL, `price` DECIMAL(10, 2), \
             `tags` ARRAY<VARCHAR(2147483647)>, `m` MAP<VARCHAR(2147483647) NOT NULL, \
             ROW<`a` INT, `b` TIMESTAMP(3)>>, `t` TIMESTAMP(3) WITH LOCAL TIME ZONE> NOT NULL"
        );
    }

    #[test]
    fn rejects_bad_lists() {
        for bad in [
            "",
            "a",
            "a FOO",
            "a INT,",
            "a DECIMAL(40, 1)",
            "a INT b INT",
            "a ARRAY<INT",
            "a INT, a BIGINT",
            "a INT NOT",
            "a VARCHAR(0)",
        ] {
            assert!(parse_columns(bad).is_err(), "{bad}");
        }
    }
}
