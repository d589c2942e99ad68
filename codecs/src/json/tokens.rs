//! A pull reader of JSON tokens with the behaviour of Jackson's UTF-8 stream parser as
//! flink-json configures it (spec §1.2): strict RFC JSON except that raw control
//! characters are allowed inside strings; nesting bounded at 1000 levels and number
//! literals at 1000 characters (Jackson's default `StreamReadConstraints`); only as much
//! input is read as the caller asks for, so trailing bytes after the first value are
//! never looked at, and a syntax error surfaces at the token where Jackson reports it.
//!
//! Why not simd-json here: flink-json's default decoder is a streaming one whose results
//! depend on where its cursor stands (the duplicate-key counter, the cursor left inside a
//! container after a failed field under `ignore-parse-errors`, rows emitted before a
//! later syntax error, trailing garbage ignored), and it needs number literals verbatim
//! (DECIMAL exactness, STRING from a number keeps the literal text). simd-json validates
//! the whole buffer up front and its tape keeps no literal text; see
//! `docs/parity/json.md`.

use std::fmt;

/// One JSON token, named as Jackson names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Token {
    /// `{`
    StartObject,
    /// `}`
    EndObject,
    /// `[`
    StartArray,
    /// `]`
    EndArray,
    /// An object key (the colon after it is already consumed).
    FieldName,
    /// A string value.
    String,
    /// A number without fraction or exponent.
    Int,
    /// A number with a fraction or an exponent.
    Float,
    /// `true`
    True,
    /// `false`
    False,
    /// `null`
    Null,
}

/// A syntax error: the reader cannot go on after one (every later call fails too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError(pub(crate) String);

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Jackson's default `StreamReadConstraints.maxNestingDepth`.
const MAX_DEPTH: usize = 1000;
/// Jackson's default `StreamReadConstraints.maxNumberLength`.
const MAX_NUMBER_LENGTH: usize = 1000;
/// Jackson's default `StreamReadConstraints.maxStringLength` (2.18; Flink's mapper keeps the
/// defaults), in UTF-16 units. Checked where Jackson checks it: when a string's text is read
/// (a skipped string is not read).
const MAX_STRING_LENGTH: usize = 20_000_000;
/// Jackson's default `StreamReadConstraints.maxNameLength`, in UTF-16 units; every field name
/// is read.
const MAX_NAME_LENGTH: usize = 50_000;

/// What is known about the current string token's content.
#[derive(Default, Clone, Copy)]
struct StringInfo {
    /// Contains a backslash escape.
    escaped: bool,
    /// Contains sequences Jackson accepts but that are not valid UTF-8 (overlong forms,
    /// encoded surrogates), so the text must be re-encoded the way Java would.
    lenient: bool,
    /// Byte offset of the first sequence Jackson rejects, if any.
    bad_at: Option<usize>,
    /// The text was asked for (so Jackson already reported the first bad sequence).
    read: bool,
}

/// The allocations of a [`Tokens`] reader, kept between messages.
#[derive(Default)]
pub(crate) struct TokenBuffers {
    stack: Vec<bool>,
    scratch: Vec<u8>,
}

/// The token reader over one message.
pub(crate) struct Tokens<'a> {
    input: &'a [u8],
    pos: usize,
    /// Open containers, `true` for objects.
    stack: Vec<bool>,
    /// The next call reads the first entry of a just-opened container.
    after_open: bool,
    root_started: bool,
    current: Option<Token>,
    /// Content span of the current token (inside the quotes for strings and names).
    start: usize,
    end: usize,
    string: StringInfo,
    failed: Option<SyntaxError>,
    /// `failed` is set (checked first on every call).
    broken: bool,
    /// The current string token holds bytes Jackson rejects (see [`StringInfo`]).
    string_pending_bad: bool,
    /// The current field name was recognised as the name the caller expected.
    matched_expected: bool,
    /// The last `text()` replaced lone surrogates (Java strings that differ can store
    /// the same UTF-8).
    text_lossy: bool,
    /// Where Jackson's cursor stands after a failed `getText()` of the current string
    /// (it marks the token finished and goes on from there).
    resume_at: Option<usize>,
    /// Where Jackson goes on skipping string content after a failed `getBinaryValue()`
    /// that consumed the closing quote (the token stays unfinished).
    skip_string_from: Option<usize>,
    scratch: Vec<u8>,
}

impl<'a> Tokens<'a> {
    /// A reader positioned before the first token of `input` (already UTF-8; see
    /// [`super::decode`] for the encoding detection that comes first).
    pub(crate) fn new(input: &'a [u8]) -> Self {
        Tokens {
            input,
            pos: 0,
            stack: Vec::new(),
            after_open: false,
            root_started: false,
            current: None,
            start: 0,
            end: 0,
            string: StringInfo::default(),
            failed: None,
            broken: false,
            string_pending_bad: false,
            matched_expected: false,
            text_lossy: false,
            resume_at: None,
            skip_string_from: None,
            scratch: Vec::new(),
        }
    }

    /// A reader over `input` that reuses the buffers of an earlier one.
    pub(crate) fn with_buffers(input: &'a [u8], buffers: TokenBuffers) -> Self {
        let mut tokens = Tokens::new(input);
        tokens.stack = buffers.stack;
        tokens.stack.clear();
        tokens.scratch = buffers.scratch;
        tokens
    }

    /// Gives the buffers back for the next message.
    pub(crate) fn into_buffers(self) -> TokenBuffers {
        TokenBuffers {
            stack: self.stack,
            scratch: self.scratch,
        }
    }

    /// The current token (`None` before the first and after the end of input).
    #[inline]
    pub(crate) fn current(&self) -> Option<Token> {
        self.current
    }

    /// Advances to the next token; `Ok(None)` at the end of input outside any container.
    #[inline]
    pub(crate) fn next(&mut self) -> Result<Option<Token>, SyntaxError> {
        self.matched_expected = false;
        if self.broken {
            return Err(self
                .failed
                .clone()
                .unwrap_or_else(|| SyntaxError("broken".into())));
        }
        match self.advance() {
            Ok(token) => {
                self.current = token;
                Ok(token)
            }
            Err(e) => {
                self.broken = true;
                self.failed = Some(e.clone());
                self.current = None;
                Err(e)
            }
        }
    }

    /// [`Tokens::next`], telling the reader which field name most likely comes next (the
    /// row decoder's guess): when the next token is exactly that plain name, it is
    /// recognised without scanning, and [`Tokens::matched_expected`] says so. Same tokens,
    /// same errors as `next`.
    #[inline]
    pub(crate) fn next_expecting(
        &mut self,
        expected: Option<&[u8]>,
    ) -> Result<Option<Token>, SyntaxError> {
        self.matched_expected = false;
        if let Some(name) = expected {
            if !self.broken && !self.string_pending_bad && self.current != Some(Token::FieldName) {
                if let Some(token) = self.expected_name(name) {
                    self.current = Some(token);
                    return Ok(Some(token));
                }
            }
        }
        self.next()
    }

    /// Whether the current field name is the one passed to [`Tokens::next_expecting`].
    #[inline]
    pub(crate) fn matched_expected(&self) -> bool {
        self.matched_expected
    }

    /// The fast path of `next_expecting`: inside an object, after a value or right after
    /// `{`, the input holds `"name"` followed by a colon (whitespace allowed where JSON
    /// allows it). Anything else returns `None` without consuming input.
    #[inline]
    fn expected_name(&mut self, name: &[u8]) -> Option<Token> {
        if self.stack.last() != Some(&true) {
            return None;
        }
        let input = self.input;
        let mut at = self.pos;
        let skip = |mut at: usize| {
            while matches!(input.get(at), Some(b' ' | b'\n' | b'\r' | b'\t')) {
                at += 1;
            }
            at
        };
        at = skip(at);
        if !self.after_open {
            if input.get(at) != Some(&b',') {
                return None;
            }
            at = skip(at + 1);
        }
        let start = at + 1;
        let end = start + name.len();
        if input.get(at) != Some(&b'"')
            || input.get(end) != Some(&b'"')
            || !same_bytes(&input[start..end], name)
        {
            return None;
        }
        let colon = skip(end + 1);
        if input.get(colon) != Some(&b':') {
            return None;
        }
        self.after_open = false;
        self.start = start;
        self.end = end;
        self.pos = colon + 1;
        self.string = StringInfo::default();
        self.matched_expected = true;
        Some(Token::FieldName)
    }

    #[inline]
    fn advance(&mut self) -> Result<Option<Token>, SyntaxError> {
        if self.resume_at.is_some() || self.skip_string_from.is_some() {
            self.resume_after_failed_string()?;
        }
        if self.string_pending_bad {
            let info = self.string;
            if let Some(at) = info.bad_at {
                if !info.read {
                    return Err(self.utf8_error(at));
                }
            }
            self.string_pending_bad = false;
        }
        if self.current == Some(Token::FieldName) {
            let b = self.skip_ws_in(true)?;
            return self.value_start(b).map(Some);
        }
        let Some(&in_object) = self.stack.last() else {
            if self.root_started {
                return Ok(None);
            }
            return match self.skip_ws() {
                None => Ok(None),
                Some(b) => {
                    self.root_started = true;
                    self.value_start(b).map(Some)
                }
            };
        };
        let mut b = self.skip_ws_in(in_object)?;
        if self.after_open {
            self.after_open = false;
        } else if b == b',' {
            self.pos += 1;
            b = self.skip_ws_in(in_object)?;
            return if in_object {
                self.field_name(b).map(Some)
            } else {
                self.value_start(b).map(Some)
            };
        } else if let Some(end) = self.close(b, in_object) {
            return Ok(Some(end));
        } else {
            return Err(self.unexpected(
                b,
                if in_object {
                    "was expecting comma to separate Object entries"
                } else {
                    "was expecting comma to separate Array entries"
                },
            ));
        }
        // The first entry of a just-opened container, or its end.
        if let Some(end) = self.close(b, in_object) {
            return Ok(Some(end));
        }
        if in_object {
            self.field_name(b).map(Some)
        } else {
            self.value_start(b).map(Some)
        }
    }

    /// Puts the cursor where Jackson's stands after a string value failed to convert:
    /// right after the offending bytes (text), or after skipping string content up to
    /// the next quote (base64 that consumed the closing quote).
    #[cold]
    fn resume_after_failed_string(&mut self) -> Result<(), SyntaxError> {
        if let Some(at) = self.resume_at.take() {
            self.pos = at;
            self.string_pending_bad = false;
        }
        if let Some(from) = self.skip_string_from.take() {
            // Pretend the byte before `from` opened a string and skip to its end.
            self.pos = from - 1;
            self.scan_string("a String value")?;
            if let Some(at) = self.string.bad_at {
                return Err(self.utf8_error(at));
            }
        }
        Ok(())
    }

    /// Records that a base64 decode of the current string failed after Jackson's cursor
    /// advanced `consumed` bytes into the raw content (`raw.len() + 1`: it consumed the
    /// closing quote, so the next token read first skips string content).
    pub(crate) fn base64_failed_at(&mut self, consumed: usize) {
        if self.current == Some(Token::String) && consumed > self.end - self.start {
            self.string_pending_bad = false;
            self.skip_string_from = Some(self.end + 1);
        }
    }

    /// Consumes `b` when it closes the innermost container.
    #[inline]
    fn close(&mut self, b: u8, in_object: bool) -> Option<Token> {
        let token = match (b, in_object) {
            (b'}', true) => Token::EndObject,
            (b']', false) => Token::EndArray,
            _ => return None,
        };
        self.pos += 1;
        self.stack.pop();
        self.start = self.pos - 1;
        self.end = self.pos;
        Some(token)
    }

    #[inline]
    fn skip_ws(&mut self) -> Option<u8> {
        while let Some(&b) = self.input.get(self.pos) {
            match b {
                b' ' | b'\n' | b'\r' | b'\t' => self.pos += 1,
                _ => return Some(b),
            }
        }
        None
    }

    #[inline]
    fn skip_ws_in(&mut self, in_object: bool) -> Result<u8, SyntaxError> {
        // Fast path: most tokens follow their separator directly.
        if let Some(&b) = self.input.get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Ok(b);
            }
        }
        match self.skip_ws() {
            Some(b) => Ok(b),
            None => Err(SyntaxError(format!(
                "Unexpected end-of-input: expected close marker for {} (within/between {} entries)",
                if self.stack.last() == Some(&true) {
                    "Object"
                } else {
                    "Array"
                },
                if in_object { "Object" } else { "Array" }
            ))),
        }
    }

    fn unexpected(&self, b: u8, expecting: &str) -> SyntaxError {
        if b < 0x20 {
            return SyntaxError(format!(
                "Illegal character ((CTRL-CHAR, code {b})): only regular white space (\\r, \\n, \\t) is allowed between tokens"
            ));
        }
        let shown = if b.is_ascii() {
            format!("'{}'", b as char)
        } else {
            format!("0x{b:02X}")
        };
        SyntaxError(format!(
            "Unexpected character ({shown} (code {b})): {expecting}"
        ))
    }

    #[inline]
    fn field_name(&mut self, b: u8) -> Result<Token, SyntaxError> {
        if b != b'"' {
            return Err(self.unexpected(b, "was expecting double-quote to start field name"));
        }
        self.scan_string("a field name")?;
        if let Some(at) = self.string.bad_at {
            return Err(self.utf8_error(at));
        }
        // Units never outnumber bytes: only a long name needs counting.
        if self.end - self.start > MAX_NAME_LENGTH {
            let len = utf16_len(&self.input[self.start..self.end]);
            if len > MAX_NAME_LENGTH {
                return Err(SyntaxError(format!(
                    "Name length ({len}) exceeds the maximum allowed ({MAX_NAME_LENGTH}, from `StreamReadConstraints.getMaxNameLength()`)"
                )));
            }
        }
        let b = self.skip_ws_in(true)?;
        if b != b':' {
            return Err(
                self.unexpected(b, "was expecting a colon to separate field name and value")
            );
        }
        self.pos += 1;
        Ok(Token::FieldName)
    }

    #[inline]
    fn value_start(&mut self, b: u8) -> Result<Token, SyntaxError> {
        match b {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(SyntaxError(format!(
                        "Document nesting depth ({}) exceeds the maximum allowed ({MAX_DEPTH}, from `StreamReadConstraints.getMaxNestingDepth()`)",
                        self.stack.len() + 1
                    )));
                }
                self.stack.push(b == b'{');
                self.after_open = true;
                self.start = self.pos;
                self.pos += 1;
                self.end = self.pos;
                Ok(if b == b'{' {
                    Token::StartObject
                } else {
                    Token::StartArray
                })
            }
            b'"' => {
                self.scan_string("a String value")?;
                Ok(Token::String)
            }
            b't' => self.keyword(b"true", Token::True),
            b'f' => self.keyword(b"false", Token::False),
            b'n' => self.keyword(b"null", Token::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.unexpected(
                b,
                "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
            )),
        }
    }

    fn keyword(&mut self, word: &[u8], token: Token) -> Result<Token, SyntaxError> {
        let start = self.pos;
        let rest = &self.input[start..];
        let matched = rest.starts_with(word)
            && !rest
                .get(word.len())
                .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80);
        if !matched {
            let mut end = start;
            while end < self.input.len()
                && (self.input[end].is_ascii_alphanumeric() || self.input[end] == b'_')
            {
                end += 1;
            }
            let text = String::from_utf8_lossy(&self.input[start..end.max(start + 1)]);
            return Err(SyntaxError(format!(
                "Unrecognized token '{text}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
            )));
        }
        self.start = start;
        self.pos = start + word.len();
        self.end = self.pos;
        Ok(token)
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.input.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - from
    }

    #[inline]
    fn number(&mut self) -> Result<Token, SyntaxError> {
        let start = self.pos;
        if self.input[start] == b'-' {
            self.pos += 1;
            if !self.input.get(self.pos).is_some_and(u8::is_ascii_digit) {
                let shown = self.input.get(self.pos).copied();
                return Err(match shown {
                    None => SyntaxError(
                        "Unexpected end-of-input: expected digit (0-9) to follow minus sign, for valid numeric value"
                            .into(),
                    ),
                    Some(b) => self.unexpected(
                        b,
                        "expected digit (0-9) to follow minus sign, for valid numeric value",
                    ),
                });
            }
        }
        let int_start = self.pos;
        let int_digits = self.digits();
        if int_digits > 1 && self.input[int_start] == b'0' {
            return Err(SyntaxError(
                "Invalid numeric value: Leading zeroes not allowed".into(),
            ));
        }
        if int_digits > MAX_NUMBER_LENGTH {
            return Err(number_too_long(int_digits));
        }
        let mut float = false;
        if self.input.get(self.pos) == Some(&b'.') {
            float = true;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(SyntaxError(
                    "Unexpected character: Decimal point not followed by a digit".into(),
                ));
            }
        }
        if matches!(self.input.get(self.pos), Some(b'e') | Some(b'E')) {
            float = true;
            self.pos += 1;
            if matches!(self.input.get(self.pos), Some(b'+') | Some(b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(SyntaxError(
                    "Unexpected character: Exponent indicator not followed by a digit".into(),
                ));
            }
        }
        if float && self.pos - start > MAX_NUMBER_LENGTH {
            return Err(number_too_long(self.pos - start));
        }
        self.start = start;
        self.end = self.pos;
        Ok(if float { Token::Float } else { Token::Int })
    }

    /// Scans a string whose opening quote is at `self.pos`, recording what the text needs.
    #[inline]
    fn scan_string(&mut self, what: &str) -> Result<(), SyntaxError> {
        let input = self.input;
        let start = self.pos + 1;
        let mut i = skip_plain_ascii(input, start);
        if input.get(i) == Some(&b'"') {
            // The common case: plain ASCII, no escapes.
            self.start = start;
            self.end = i;
            self.pos = i + 1;
            self.string_pending_bad = false;
            self.string = StringInfo::default();
            return Ok(());
        }
        let mut info = StringInfo::default();
        loop {
            // Plain ASCII bytes other than the quote and the backslash need no work.
            i = skip_plain_ascii(input, i);
            let Some(&b) = input.get(i) else {
                return Err(SyntaxError(format!("Unexpected end-of-input in {what}")));
            };
            match b {
                b'"' => break,
                b'\\' => {
                    info.escaped = true;
                    i = self.check_escape(i)?;
                }
                _ => {
                    let (len, ok) = jackson_utf8_sequence(&input[i..]);
                    match ok {
                        Utf8Seq::Valid => {}
                        Utf8Seq::Lenient => info.lenient = true,
                        Utf8Seq::Rejected => {
                            if info.bad_at.is_none() {
                                info.bad_at = Some(i);
                            }
                            // Go on from the next byte so that a quote Jackson would take
                            // as a (bad) continuation byte still ends the token here; where
                            // Jackson's cursor really stands is worked out if the text is read.
                            i += 1;
                            continue;
                        }
                        Utf8Seq::Truncated => {
                            return Err(SyntaxError(format!("Unexpected end-of-input in {what}")));
                        }
                    }
                    i += len.max(1);
                }
            }
        }
        self.start = start;
        self.end = i;
        self.pos = i + 1;
        self.string_pending_bad = info.bad_at.is_some();
        self.string = info;
        Ok(())
    }

    /// Validates the escape at `i` (a backslash); returns the index after it.
    fn check_escape(&self, i: usize) -> Result<usize, SyntaxError> {
        let Some(&c) = self.input.get(i + 1) else {
            return Err(SyntaxError(
                "Unexpected end-of-input in character escape sequence".into(),
            ));
        };
        match c {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(i + 2),
            b'u' => {
                for k in 0..4 {
                    match self.input.get(i + 2 + k) {
                        Some(h) if h.is_ascii_hexdigit() => {}
                        Some(&h) => {
                            return Err(self.unexpected(
                                h,
                                "expected a hex-digit for character escape sequence",
                            ))
                        }
                        None => {
                            return Err(SyntaxError(
                                "Unexpected end-of-input in character escape sequence".into(),
                            ))
                        }
                    }
                }
                Ok(i + 6)
            }
            other => Err(SyntaxError(format!(
                "Unrecognized character escape '{}' (code {other})",
                other as char
            ))),
        }
    }

    fn utf8_error(&self, at: usize) -> SyntaxError {
        let b = self.input[at];
        if (0x80..0xC0).contains(&b) || b >= 0xF8 {
            SyntaxError(format!("Invalid UTF-8 start byte 0x{b:x}"))
        } else {
            let middle = self.input[at + 1..]
                .iter()
                .find(|&&m| m & 0xC0 != 0x80)
                .copied()
                .unwrap_or(0);
            SyntaxError(format!("Invalid UTF-8 middle byte 0x{middle:x}"))
        }
    }

    /// The literal text of the current number token.
    #[inline]
    pub(crate) fn literal(&self) -> &'a [u8] {
        &self.input[self.start..self.end]
    }

    /// Jackson's `getText()`: the unescaped text of a string or field name, the literal
    /// of a number, or the token's own characters. Fails when the string holds bytes
    /// Jackson rejects as UTF-8 (a conversion failure, not a syntax error).
    #[inline]
    pub(crate) fn text(&mut self) -> Result<&[u8], String> {
        match self.current {
            Some(Token::String) | Some(Token::FieldName) => {
                self.string.read = true;
                let info = self.string;
                if let Some(at) = info.bad_at {
                    // Jackson has consumed the offending byte(s) and treats the token as
                    // finished: it reads on from there (usually a syntax error follows).
                    if self.current == Some(Token::String) {
                        self.resume_at = Some(at + rejected_length(&self.input[at..]));
                    }
                    return Err(self.utf8_error(at).0);
                }
                let raw = &self.input[self.start..self.end];
                if raw.len() > MAX_STRING_LENGTH && self.current == Some(Token::String) {
                    let len = utf16_len(raw);
                    if len > MAX_STRING_LENGTH {
                        return Err(format!(
                            "String value length ({len}) exceeds the maximum allowed ({MAX_STRING_LENGTH}, from `StreamReadConstraints.getMaxStringLength()`)"
                        ));
                    }
                }
                self.text_lossy = false;
                if !info.escaped && !info.lenient {
                    return Ok(raw);
                }
                self.scratch.clear();
                self.text_lossy = unescape_into(raw, info.lenient, &mut self.scratch);
                Ok(&self.scratch)
            }
            Some(Token::Int) | Some(Token::Float) => Ok(self.literal()),
            Some(Token::StartObject) => Ok(b"{"),
            Some(Token::EndObject) => Ok(b"}"),
            Some(Token::StartArray) => Ok(b"["),
            Some(Token::EndArray) => Ok(b"]"),
            Some(Token::True) => Ok(b"true"),
            Some(Token::False) => Ok(b"false"),
            Some(Token::Null) => Ok(b"null"),
            None => Err("no current token".into()),
        }
    }

    /// Whether the last [`Tokens::text`] replaced lone surrogates with `?`.
    pub(crate) fn text_was_lossy(&self) -> bool {
        self.text_lossy
    }

    /// The raw (still escaped) content of the current string or field name, and whether
    /// it can be used as is (no escapes, valid UTF-8): the fast path of name lookups.
    #[inline]
    pub(crate) fn raw_string(&self) -> (&'a [u8], bool) {
        let info = self.string;
        (
            &self.input[self.start..self.end],
            !info.escaped && !info.lenient && info.bad_at.is_none(),
        )
    }
}

/// The index of the first byte at or after `i` that is a quote, a backslash or non-ASCII
/// (or `input.len()`): sixteen bytes per step with SSE2 on x86-64, eight elsewhere.
#[inline]
fn skip_plain_ascii(input: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        while i + 16 <= input.len() {
            // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the 16 bytes
            // `input[i..i + 16]`, which the loop condition keeps in bounds (unaligned load).
            let mask = unsafe {
                let v = _mm_loadu_si128(input.as_ptr().add(i).cast());
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // The high bit of each byte: set for matches and for non-ASCII bytes.
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), v))
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = input.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // A byte of `x` is zero exactly where `w` holds the byte looked for.
        let quote = w ^ (ONES * b'"' as u64);
        let backslash = w ^ (ONES * b'\\' as u64);
        let special =
            (quote.wrapping_sub(ONES) & !quote) | (backslash.wrapping_sub(ONES) & !backslash) | w;
        let hits = special & HIGH;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = input.get(i) {
        if b == b'"' || b == b'\\' || b >= 0x80 {
            break;
        }
        i += 1;
    }
    i
}

/// Byte equality without a library call for the short names JSON keys usually are:
/// two overlapping word loads cover 4..=16 bytes.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0..=3 => a == b,
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(w)
}

#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The length in UTF-16 units (Java `String.length()`) of the raw, still escaped content of
/// a string that holds valid UTF-8: an escape is one unit, a 4-byte character two.
fn utf16_len(raw: &[u8]) -> usize {
    let mut units = 0;
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        i += match b {
            b'\\' if raw.get(i + 1) == Some(&b'u') => 6,
            b'\\' => 2,
            0xF0.. => {
                units += 1;
                4
            }
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        units += 1;
    }
    units
}

fn number_too_long(len: usize) -> SyntaxError {
    SyntaxError(format!(
        "Number value length ({len}) exceeds the maximum allowed ({MAX_NUMBER_LENGTH}, from `StreamReadConstraints.getMaxNumberLength()`)"
    ))
}

/// How many bytes Jackson has consumed when it rejects the sequence at the start of
/// `bytes`: the start byte alone when it is invalid, else up to and including the first
/// byte that is not a continuation byte.
fn rejected_length(bytes: &[u8]) -> usize {
    let b = bytes[0];
    let len = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return 1,
    };
    match bytes[1..len.min(bytes.len())]
        .iter()
        .position(|&c| c & 0xC0 != 0x80)
    {
        Some(k) => k + 2,
        None => 1,
    }
}

/// How Jackson takes the multi-byte sequence at the start of a slice.
enum Utf8Seq {
    Valid,
    /// Accepted by Jackson, not valid UTF-8 (overlong, surrogate, above U+10FFFF).
    Lenient,
    Rejected,
    Truncated,
}

/// Classifies the sequence starting with a byte >= 0x80 the way Jackson's UTF-8 stream
/// parser does: it checks the start byte and the continuation bits only.
fn jackson_utf8_sequence(bytes: &[u8]) -> (usize, Utf8Seq) {
    let b = bytes[0];
    let len = match b {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return (1, Utf8Seq::Rejected),
    };
    if bytes.len() < len {
        // A continuation byte that is not one is reported before the end of input.
        if bytes[1..].iter().any(|&c| c & 0xC0 != 0x80) {
            return (bytes.len(), Utf8Seq::Rejected);
        }
        return (len, Utf8Seq::Truncated);
    }
    if let Some(k) = bytes[1..len].iter().position(|&c| c & 0xC0 != 0x80) {
        return (k + 2, Utf8Seq::Rejected);
    }
    if std::str::from_utf8(&bytes[..len]).is_ok() {
        (len, Utf8Seq::Valid)
    } else {
        (len, Utf8Seq::Lenient)
    }
}

/// Unescapes the string content `raw` (validated by the scanner) into `out` as the
/// UTF-8 bytes Flink would store for the Java string Jackson builds: escaped surrogate
/// pairs combine; lone surrogates (escaped or from lenient byte sequences) become `?`,
/// as Java's UTF-8 encoder writes them.
fn unescape_into(raw: &[u8], lenient: bool, out: &mut Vec<u8>) -> bool {
    let mut units: Vec<u16> = Vec::new();
    let mut lossy = false;
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'\\' {
            let c = raw[i + 1];
            let unit = match c {
                b'b' => 0x08,
                b'f' => 0x0C,
                b'n' => 0x0A,
                b'r' => 0x0D,
                b't' => 0x09,
                b'u' => {
                    let hex = std::str::from_utf8(&raw[i + 2..i + 6]).unwrap_or("0");
                    let v = u16::from_str_radix(hex, 16).unwrap_or(0);
                    i += 6;
                    units.push(v);
                    continue;
                }
                other => other as u16,
            };
            units.push(unit);
            i += 2;
            continue;
        }
        lossy |= flush_units(&mut units, out);
        if b < 0x80 {
            out.push(b);
            i += 1;
            continue;
        }
        let (len, _) = jackson_utf8_sequence(&raw[i..]);
        let seq = &raw[i..i + len];
        if !lenient || std::str::from_utf8(seq).is_ok() {
            out.extend_from_slice(seq);
        } else {
            push_jackson_decoded(seq, &mut units);
        }
        i += len;
    }
    lossy | flush_units(&mut units, out)
}

/// Decodes a sequence Jackson accepts but UTF-8 does not, with Jackson's bit arithmetic,
/// into UTF-16 units.
fn push_jackson_decoded(seq: &[u8], units: &mut Vec<u16>) {
    let cont = |k: usize| (seq[k] & 0x3F) as u32;
    match seq.len() {
        2 => units.push((((seq[0] & 0x1F) as u32) << 6 | cont(1)) as u16),
        3 => units.push((((seq[0] & 0x0F) as u32) << 12 | cont(1) << 6 | cont(2)) as u16),
        _ => {
            let c = (((seq[0] & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3))
                .wrapping_sub(0x10000);
            units.push((0xD800 | (c >> 10)) as u16);
            units.push((0xDC00 | (c & 0x3FF)) as u16);
        }
    }
}

/// Writes pending UTF-16 units as Java's UTF-8 encoder would (lone surrogates as `?`);
/// returns whether any was replaced.
fn flush_units(units: &mut Vec<u16>, out: &mut Vec<u8>) -> bool {
    if units.is_empty() {
        return false;
    }
    let mut lossy = false;
    for decoded in char::decode_utf16(units.iter().copied()) {
        lossy |= decoded.is_err();
        let c = decoded.unwrap_or('?');
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    units.clear();
    lossy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &str) -> Result<Vec<Token>, SyntaxError> {
        let mut t = Tokens::new(input.as_bytes());
        let mut out = Vec::new();
        while let Some(token) = t.next()? {
            out.push(token);
        }
        Ok(out)
    }

    #[test]
    fn tokens_of_a_nested_document() {
        use Token::*;
        assert_eq!(
            all(r#" {"a":[1,2.5e3,"x",true,false,null],"b":{}} "#).unwrap(),
            vec![
                StartObject,
                FieldName,
                StartArray,
                Int,
                Float,
                String,
                True,
                False,
                Null,
                EndArray,
                FieldName,
                StartObject,
                EndObject,
                EndObject
            ]
        );
    }

    #[test]
    fn reading_stops_after_the_root_value() {
        assert_eq!(all(r#"{"a":1} xyz"#).unwrap().len(), 4);
        assert_eq!(all(r#"{"a":1}{"a":2}"#).unwrap().len(), 4);
        assert!(all("   ").unwrap().is_empty());
    }

    #[test]
    fn strict_json_is_enforced() {
        for bad in [
            "{\"a\":007}",
            "{\"a\":1,}",
            "[1,]",
            "{'a':1}",
            "{\"a\":NaN}",
            "{\"a\":1.}",
            "{\"a\":1e}",
            "{\"a\":-}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":tru}",
            "{\"a\":truex}",
            "{\"a\":\"\\x\"}",
            "{\"a\":1",
            "[1,2",
            "{\"a\":\"abc",
            "{a:1}",
            "{\"a\":1}\u{1}",
        ] {
            let r = all(bad);
            if bad == "{\"a\":1}\u{1}" {
                assert!(r.is_ok(), "trailing bytes are never read: {bad}");
            } else {
                assert!(r.is_err(), "{bad} should fail");
            }
        }
    }

    #[test]
    fn raw_control_characters_are_allowed_in_strings() {
        let mut t = Tokens::new(b"[\"a\tb\x01c\"]");
        t.next().unwrap();
        assert_eq!(t.next().unwrap(), Some(Token::String));
        assert_eq!(t.text().unwrap(), b"a\tb\x01c");
    }

    #[test]
    fn escapes_and_surrogates_unescape_like_java() {
        let mut t = Tokens::new(br#"["a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00\uD800x"]"#);
        t.next().unwrap();
        t.next().unwrap();
        assert_eq!(t.text().unwrap(), "a\"\\/\u{8}\u{c}\n\r\té😀?x".as_bytes());
    }

    #[test]
    fn number_literals_are_kept_verbatim() {
        let mut t = Tokens::new(b"[1.50,-0,1e3,12345678901234567890123]");
        t.next().unwrap();
        let mut seen = Vec::new();
        while let Some(tok) = t.next().unwrap() {
            if tok != Token::EndArray {
                seen.push((tok, String::from_utf8(t.literal().to_vec()).unwrap()));
            }
        }
        assert_eq!(
            seen,
            vec![
                (Token::Float, "1.50".to_string()),
                (Token::Int, "-0".to_string()),
                (Token::Float, "1e3".to_string()),
                (Token::Int, "12345678901234567890123".to_string())
            ]
        );
    }

    #[test]
    fn nesting_is_bounded_without_recursion() {
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(all(&deep).is_ok());
        let deeper = "[".repeat(1001) + &"]".repeat(1001);
        assert!(all(&deeper).unwrap_err().0.contains("nesting depth (1001)"));
    }

    #[test]
    fn invalid_utf8_fails_when_read_and_when_skipped() {
        let mut t = Tokens::new(b"[\"a\xffb\",1]");
        t.next().unwrap();
        t.next().unwrap();
        assert!(t
            .text()
            .unwrap_err()
            .contains("Invalid UTF-8 start byte 0xff"));
        // Jackson goes on right after the bad byte, so `b"` is read as the next token.
        assert!(t
            .next()
            .unwrap_err()
            .0
            .contains("Unexpected character ('b'"));
        // A lead byte followed by the closing quote swallows the quote: reading goes on
        // after it, and here that happens to be valid.
        let mut t = Tokens::new(b"[\"\xc3\",1]");
        t.next().unwrap();
        t.next().unwrap();
        assert!(t
            .text()
            .unwrap_err()
            .contains("Invalid UTF-8 middle byte 0x22"));
        assert_eq!(t.next().unwrap(), Some(Token::Int));
        let mut t = Tokens::new(b"[\"a\xffb\",1]");
        t.next().unwrap();
        t.next().unwrap();
        assert!(t.next().is_err(), "skipping an unread bad string fails");
    }

    #[test]
    fn lenient_sequences_are_reencoded_as_java_would() {
        // Overlong NUL (C0 80) is accepted by Jackson as U+0000.
        let mut t = Tokens::new(b"[\"a\xc0\x80b\"]");
        t.next().unwrap();
        t.next().unwrap();
        assert_eq!(t.text().unwrap(), b"a\0b");
        // An encoded lone surrogate becomes '?'.
        let mut t = Tokens::new(b"[\"\xed\xa0\x80\"]");
        t.next().unwrap();
        t.next().unwrap();
        assert_eq!(t.text().unwrap(), b"?");
    }

    #[test]
    fn the_word_scan_finds_the_first_special_byte() {
        for at in 0..40 {
            for special in [b'"', b'\\', 0xC3] {
                let mut bytes = vec![b'a'; 48];
                bytes[at] = special;
                bytes[at + 3] = b'"';
                assert_eq!(
                    skip_plain_ascii(&bytes, 0),
                    at,
                    "special {special:#x} at {at}"
                );
                assert_eq!(skip_plain_ascii(&bytes, at + 1), at + 3);
            }
        }
        assert_eq!(skip_plain_ascii(b"abc", 0), 3);
    }

    #[test]
    fn expected_names_are_recognised_only_verbatim() {
        let mut t = Tokens::new(br#"{ "a" : 1 , "bc":2,"b\u0063":3,"x":4}"#);
        t.next().unwrap();
        assert_eq!(
            t.next_expecting(Some(b"a")).unwrap(),
            Some(Token::FieldName)
        );
        assert!(t.matched_expected());
        t.next().unwrap();
        assert_eq!(
            t.next_expecting(Some(b"b")).unwrap(),
            Some(Token::FieldName)
        );
        assert!(
            !t.matched_expected(),
            "a longer name is not the expected one"
        );
        assert_eq!(t.text().unwrap(), b"bc");
        t.next().unwrap();
        assert_eq!(
            t.next_expecting(Some(b"bc")).unwrap(),
            Some(Token::FieldName)
        );
        assert!(
            !t.matched_expected(),
            "an escaped spelling goes through the scanner"
        );
        assert_eq!(t.text().unwrap(), b"bc");
        t.next().unwrap();
        t.next_expecting(Some(b"x")).unwrap();
        assert!(t.matched_expected());
        t.next().unwrap();
        assert!(!t.matched_expected());
        assert_eq!(
            t.next_expecting(Some(b"y")).unwrap(),
            Some(Token::EndObject)
        );
    }

    #[test]
    fn errors_are_sticky() {
        let mut t = Tokens::new(b"[1 2]");
        t.next().unwrap();
        t.next().unwrap();
        assert!(t.next().is_err());
        assert!(t.next().is_err());
    }
}
