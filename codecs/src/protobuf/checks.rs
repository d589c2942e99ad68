//! What protobuf-java's `parseFrom` checks in bytes the row type does not read.
//!
//! flink-protobuf parses every value with the generated class, which reads the whole
//! message eagerly: sub-messages the table never selects are still parsed (and fail when
//! malformed), proto3 strings are UTF-8 checked, and proto2 `required` fields must be
//! present in every message reached. The decoder reads only the columns it needs, so
//! this module describes, for every message type reachable from the root, how to check
//! the rest: a table built once per decoder (recursive message types point back into
//! it by index).

use std::collections::HashMap;

use prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor};

use super::features;

use super::wire::{WireError, WireReader, WireType, RECURSION_LIMIT};

/// Checks for every message type reachable from a root message.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    messages: Vec<MessageCheck>,
    by_name: HashMap<String, usize>,
}

/// Checks of one message type.
#[derive(Debug, Default)]
pub(crate) struct MessageCheck {
    /// Known fields that need more than a structural skip, by field number.
    fields: HashMap<u32, FieldCheck>,
    /// `required` fields in declaration order: number, the wire type that sets them,
    /// and name.
    pub(crate) required: Vec<(u32, WireType, String)>,
}

/// How the value of one known field is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldCheck {
    /// A proto3 string: valid UTF-8.
    Utf8,
    /// A sub-message (or map entry): checked with the message check of that index.
    Message(usize),
    /// A group: checked with the message check of that index.
    Group(usize),
    /// A repeated number, bool or enum with this element wire type: a packed record must
    /// hold whole values (protobuf-java reads them all).
    Packed(WireType),
}

impl FieldCheck {
    /// Whether a value arriving with `wire` is this field (others make it unknown).
    pub(crate) fn accepts(self, wire: WireType) -> bool {
        match self {
            FieldCheck::Group(_) => wire == WireType::StartGroup,
            FieldCheck::Packed(element) => wire == WireType::Len || wire == element,
            _ => wire == WireType::Len,
        }
    }
}

/// Why a message fails protobuf-java's parse beyond its wire structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CheckError {
    /// Malformed wire bytes.
    Wire(WireError),
    /// A `required` field is missing (protobuf-java's `UninitializedMessageException`).
    MissingRequired(String),
}

impl From<WireError> for CheckError {
    fn from(e: WireError) -> Self {
        CheckError::Wire(e)
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Wire(e) => e.fmt(f),
            CheckError::MissingRequired(name) => {
                write!(f, "Message missing required fields: {name}")
            }
        }
    }
}

impl Checks {
    /// Builds the checks of `root` and every message type it reaches; returns them with
    /// the index of `root`'s check.
    pub(crate) fn build(root: &MessageDescriptor) -> (Self, usize) {
        let mut checks = Checks::default();
        let mut index = HashMap::new();
        let root_index = checks.add(root, &mut index);
        checks.by_name = index;
        (checks, root_index)
    }

    /// The index of the check of the message type named `full_name`, if reachable from
    /// the root.
    pub(crate) fn index_of(&self, full_name: &str) -> Option<usize> {
        self.by_name.get(full_name).copied()
    }

    fn add(&mut self, message: &MessageDescriptor, index: &mut HashMap<String, usize>) -> usize {
        if let Some(&i) = index.get(message.full_name()) {
            return i;
        }
        let at = self.messages.len();
        self.messages.push(MessageCheck::default());
        index.insert(message.full_name().to_string(), at);
        let mut check = MessageCheck::default();
        for fd in message.fields() {
            if fd.cardinality() == Cardinality::Required {
                check
                    .required
                    .push((fd.number(), wire_type_of(&fd), fd.name().to_string()));
            }
            if let Some(field_check) = self.field_check(&fd, index) {
                check.fields.insert(fd.number(), field_check);
            }
        }
        self.messages[at] = check;
        at
    }

    fn field_check(
        &mut self,
        fd: &FieldDescriptor,
        index: &mut HashMap<String, usize>,
    ) -> Option<FieldCheck> {
        let packable = !matches!(fd.kind(), Kind::String | Kind::Bytes | Kind::Message(_));
        if fd.is_list() && packable {
            return Some(FieldCheck::Packed(wire_type_of(fd)));
        }
        match fd.kind() {
            Kind::String if features::validates_utf8(fd) => Some(FieldCheck::Utf8),
            Kind::Message(m) => {
                let i = self.add(&m, index);
                Some(if fd.is_group() {
                    FieldCheck::Group(i)
                } else {
                    FieldCheck::Message(i)
                })
            }
            _ => None,
        }
    }

    /// The check of message `index`.
    pub(crate) fn message(&self, index: usize) -> &MessageCheck {
        &self.messages[index]
    }

    /// Checks a whole message (or group content) of check `index` in `buf`, at nesting
    /// `depth`, as protobuf-java's parse would.
    pub(crate) fn check_message(
        &self,
        index: usize,
        buf: &[u8],
        depth: usize,
    ) -> Result<(), CheckError> {
        if depth > RECURSION_LIMIT {
            return Err(WireError::TooDeep.into());
        }
        let check = &self.messages[index];
        let mut seen_required = 0u64;
        let mut reader = WireReader::new(buf);
        while !reader.at_end() {
            let (number, wire) = reader.read_tag()?;
            self.check_field(check, number, wire, &mut reader, buf, depth)?;
            mark_required(check, number, wire, &mut seen_required);
        }
        check_required(check, seen_required)
    }

    /// Checks (and skips) the value of field `number` that follows a tag.
    pub(crate) fn check_field(
        &self,
        check: &MessageCheck,
        number: u32,
        wire: WireType,
        reader: &mut WireReader<'_>,
        buf: &[u8],
        depth: usize,
    ) -> Result<(), CheckError> {
        match check.fields.get(&number) {
            Some(&FieldCheck::Packed(element)) if wire == WireType::Len => {
                let (start, end) = reader.read_len_span()?;
                let mut packed = WireReader::new(&buf[start..end]);
                while !packed.at_end() {
                    packed.skip(number, element, depth)?;
                }
                Ok(())
            }
            Some(&field) if field.accepts(wire) && !matches!(field, FieldCheck::Packed(_)) => {
                self.check_value(field, number, reader, buf, depth)
            }
            _ => Ok(reader.skip(number, wire, depth)?),
        }
    }

    /// Checks one value of a field with check `field`, reading it from `reader`.
    pub(crate) fn check_value(
        &self,
        field: FieldCheck,
        number: u32,
        reader: &mut WireReader<'_>,
        buf: &[u8],
        depth: usize,
    ) -> Result<(), CheckError> {
        match field {
            FieldCheck::Utf8 => {
                let (start, end) = reader.read_len_span()?;
                if std::str::from_utf8(&buf[start..end]).is_err() {
                    return Err(WireError::InvalidUtf8.into());
                }
                Ok(())
            }
            FieldCheck::Message(i) => {
                let (start, end) = reader.read_len_span()?;
                self.check_message(i, &buf[start..end], depth + 1)
            }
            FieldCheck::Group(i) => {
                let (start, end) = reader.group_span(number, depth + 1)?;
                self.check_message(i, &buf[start..end], depth + 1)
            }
            FieldCheck::Packed(element) => Ok(reader.skip(number, element, depth)?),
        }
    }
}

/// The wire type a singular value of `fd` arrives with; any other makes it unknown.
pub(crate) fn wire_type_of(fd: &FieldDescriptor) -> WireType {
    match fd.kind() {
        Kind::Double | Kind::Fixed64 | Kind::Sfixed64 => WireType::Fixed64,
        Kind::Float | Kind::Fixed32 | Kind::Sfixed32 => WireType::Fixed32,
        Kind::String | Kind::Bytes => WireType::Len,
        Kind::Message(_) if fd.is_group() => WireType::StartGroup,
        Kind::Message(_) => WireType::Len,
        _ => WireType::Varint,
    }
}

/// Notes that required field `number` was seen, if it arrived with its own wire type.
pub(crate) fn mark_required(check: &MessageCheck, number: u32, wire: WireType, seen: &mut u64) {
    if check.required.is_empty() {
        return;
    }
    if let Some(i) = check
        .required
        .iter()
        .position(|(n, w, _)| *n == number && *w == wire)
    {
        if i < 64 {
            *seen |= 1 << i;
        }
    }
}

/// Fails when a required field of `check` was not seen.
pub(crate) fn check_required(check: &MessageCheck, seen: u64) -> Result<(), CheckError> {
    for (i, (_, _, name)) in check.required.iter().enumerate().take(64) {
        if seen & (1 << i) == 0 {
            return Err(CheckError::MissingRequired(name.clone()));
        }
    }
    Ok(())
}
