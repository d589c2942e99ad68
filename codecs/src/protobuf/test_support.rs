//! Test support: descriptors compiled from `.proto` text, row types, and row rendering.

use std::collections::HashMap;

use prost_reflect::{DescriptorPool, MessageDescriptor};
use protox::file::{File, FileResolver, GoogleFileResolver};

use crate::flink_binary::render::render_row;
use crate::types::{FlinkKind, FlinkType};

struct Sources {
    files: HashMap<String, String>,
    google: GoogleFileResolver,
}

impl FileResolver for Sources {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        match self.files.get(name) {
            Some(source) => File::from_source(name, source),
            None => self.google.open_file(name),
        }
    }
}

/// Compiles `.proto` files given as (name, source); the first one is the root file.
pub(crate) fn pool(files: &[(&str, &str)]) -> DescriptorPool {
    let resolver = Sources {
        files: files
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect(),
        google: GoogleFileResolver::new(),
    };
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true);
    compiler
        .open_files(files.iter().map(|(n, _)| *n))
        .unwrap_or_else(|e| panic!("test proto does not compile: {e}"));
    // Through the serialized set, as production gets it (protox's own pool does not report
    // `[packed = ...]` in `is_packed()`).
    DescriptorPool::decode(compiler.encode_file_descriptor_set().as_slice())
        .expect("compiled descriptors decode")
}

/// The message `name` of a single-file schema.
pub(crate) fn message(source: &str, name: &str) -> MessageDescriptor {
    pool(&[("test.proto", source)])
        .get_message_by_name(name)
        .unwrap_or_else(|| panic!("no message {name}"))
}

/// A ROW type from the contract's JSON field list, e.g. `a INT, b STRING` written as
/// `[("a", "INT"), ("b", "STRING")]` with the shorthand types of [`ty`].
pub(crate) fn row(fields: &[(&str, FlinkType)]) -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::Row(
            fields
                .iter()
                .map(|(n, t)| crate::types::FlinkField {
                    name: n.to_string(),
                    ty: t.clone(),
                })
                .collect(),
        ),
    }
}

/// Shorthand Flink types: `INT`, `BIGINT`, `BOOLEAN`, `FLOAT`, `DOUBLE`, `STRING`,
/// `BYTES`, `TINYINT`, `SMALLINT`.
pub(crate) fn ty(name: &str) -> FlinkType {
    let kind = match name {
        "INT" => FlinkKind::Int,
        "BIGINT" => FlinkKind::BigInt,
        "BOOLEAN" => FlinkKind::Boolean,
        "FLOAT" => FlinkKind::Float,
        "DOUBLE" => FlinkKind::Double,
        "STRING" => FlinkKind::VarChar(i32::MAX as u32),
        "BYTES" => FlinkKind::VarBinary(i32::MAX as u32),
        "TINYINT" => FlinkKind::TinyInt,
        "SMALLINT" => FlinkKind::SmallInt,
        other => panic!("no shorthand for {other}"),
    };
    FlinkType {
        nullable: true,
        kind,
    }
}

/// `ARRAY<element>`.
pub(crate) fn array(element: FlinkType) -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::Array(Box::new(element)),
    }
}

/// `MAP<key, value>`.
pub(crate) fn map(key: FlinkType, value: FlinkType) -> FlinkType {
    FlinkType {
        nullable: true,
        kind: FlinkKind::Map(Box::new(key), Box::new(value)),
    }
}

/// Renders one row image of `row_type`.
pub(crate) fn render(image: &[u8], row_type: &FlinkType) -> String {
    let FlinkKind::Row(fields) = &row_type.kind else {
        panic!("not a row type");
    };
    let types: Vec<FlinkType> = fields.iter().map(|f| f.ty.clone()).collect();
    render_row(image, &types)
}
