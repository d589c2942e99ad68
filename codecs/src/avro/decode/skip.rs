//! Skipping writer-only values (fields the reader does not have) without decoding them.

use super::cursor::{Cursor, ReadError, ReadResult};
use crate::avro::model::AvroNode;

/// How to step over one value of a writer schema.
#[derive(Debug, Clone)]
pub enum Skip {
    /// `null`: nothing on the wire.
    Nothing,
    /// `boolean`: one byte.
    Byte,
    /// `int`, `long`, `enum`: one varint.
    Varint,
    /// `float`: four bytes.
    Four,
    /// `double`: eight bytes.
    Eight,
    /// `bytes`, `string`: length-prefixed.
    LenPrefixed,
    /// `fixed(n)`.
    Fixed(usize),
    /// `array` of items.
    Array(Box<Skip>),
    /// `map` of values (keys are strings).
    Map(Box<Skip>),
    /// `record`: fields in order.
    Record(Vec<Skip>),
    /// `union`: branch index, then the branch.
    Union(Vec<Skip>),
    /// A shape karrow cannot skip (a recursive writer type).
    Unsupported(String),
}

impl Skip {
    /// The skip plan for a writer schema node.
    pub fn plan(node: &AvroNode) -> Skip {
        match node {
            AvroNode::Null => Skip::Nothing,
            AvroNode::Boolean => Skip::Byte,
            AvroNode::Int | AvroNode::Long | AvroNode::Enum(_) => Skip::Varint,
            AvroNode::Float => Skip::Four,
            AvroNode::Double => Skip::Eight,
            AvroNode::Bytes | AvroNode::String => Skip::LenPrefixed,
            // Values that take no bytes are skipped by doing nothing, which lets an array of
            // them be skipped without a step per item (`skip_blocks`).
            AvroNode::Fixed(f) if f.size == 0 => Skip::Nothing,
            AvroNode::Fixed(f) => Skip::Fixed(f.size),
            AvroNode::Array(items) => Skip::Array(Box::new(Skip::plan(items))),
            AvroNode::Map(values) => Skip::Map(Box::new(Skip::plan(values))),
            AvroNode::Record(r) => {
                let fields: Vec<Skip> = r.fields.iter().map(|f| Skip::plan(&f.schema)).collect();
                if fields.iter().all(Skip::is_zero_width) {
                    Skip::Nothing
                } else {
                    Skip::Record(fields)
                }
            }
            AvroNode::Union(branches) => Skip::Union(branches.iter().map(Skip::plan).collect()),
            AvroNode::Recursive(name) => {
                Skip::Unsupported(format!("recursive writer type '{name}' is not supported"))
            }
        }
    }

    /// Whether the value takes no bytes on the wire (planning folds every such value into
    /// [`Skip::Nothing`]).
    pub fn is_zero_width(&self) -> bool {
        matches!(self, Skip::Nothing)
    }

    /// Steps the cursor over one value.
    pub fn skip(&self, cur: &mut Cursor<'_>) -> ReadResult<()> {
        match self {
            Skip::Nothing => Ok(()),
            Skip::Byte => cur.fixed(1, "a boolean").map(drop),
            Skip::Varint => cur.read_long().map(drop),
            Skip::Four => cur.fixed(4, "a float").map(drop),
            Skip::Eight => cur.fixed(8, "a double").map(drop),
            Skip::LenPrefixed => cur.read_len_prefixed().map(drop),
            Skip::Fixed(n) => cur.fixed(*n, "a fixed").map(drop),
            // Items that take no bytes: nothing to step over, whatever the count claims (Java
            // Avro loops once per claimed item).
            Skip::Array(items) if items.is_zero_width() => skip_blocks(cur, |_| Ok(()), true),
            Skip::Array(items) => skip_blocks(cur, |c| items.skip(c), false),
            Skip::Map(values) => skip_blocks(
                cur,
                |c| {
                    c.read_len_prefixed()?;
                    values.skip(c)
                },
                false,
            ),
            Skip::Record(fields) => fields.iter().try_for_each(|f| f.skip(cur)),
            Skip::Union(branches) => {
                let index = cur.read_int()?;
                let branch = usize::try_from(index)
                    .ok()
                    .and_then(|i| branches.get(i))
                    .ok_or_else(|| {
                        ReadError::new(format!("union branch index {index} out of range"))
                    })?;
                branch.skip(cur)
            }
            Skip::Unsupported(why) => Err(ReadError::new(why.clone())),
        }
    }
}

/// Skips the blocks of an array or map; `zero_width` items are not visited one by one.
fn skip_blocks(
    cur: &mut Cursor<'_>,
    mut item: impl FnMut(&mut Cursor<'_>) -> ReadResult<()>,
    zero_width: bool,
) -> ReadResult<()> {
    loop {
        let (count, byte_size) = cur.read_block_header()?;
        if count == 0 {
            return Ok(());
        }
        match byte_size {
            Some(size) => {
                cur.fixed(size, "a skipped block")?;
            }
            None if zero_width => {}
            None => {
                for _ in 0..count {
                    item(cur)?;
                }
            }
        }
    }
}
