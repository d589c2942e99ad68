//! `.proto` text of a `FileDescriptorProto`: what the dev registry answers for a schema
//! registered in descriptor form (Confluent's serializers register base64 descriptors), and
//! what [`super::proto_text`] writes for the schema derived from a row type. Compiling the
//! text gives the descriptor back (`text -> descriptor -> text -> descriptor` is stable).
//!
//! Printed: syntax (proto2, proto3), package, imports (public, weak), the standard file,
//! message, field, enum, enum value, service and method options, messages with their fields
//! (labels, proto3 `optional`, `map<K, V>`, proto2 groups, oneofs, defaults, `json_name` when
//! it differs from the default), nested messages and enums, extensions and extension ranges,
//! reserved ranges and names, services and methods (streaming). Type names are written as
//! short as protobuf's scoping rules allow when every imported file is given, else fully
//! qualified with a leading dot. Custom (extension) options are not in a
//! `FileDescriptorProto` decoded without their definitions and are not printed; editions
//! files are refused.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use prost::Message as _;
use prost_reflect::prost_types::field_descriptor_proto::{Label, Type};
use prost_reflect::prost_types::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
    ServiceDescriptorProto,
};

use crate::error::CodecError;

/// The `.proto` text of a serialized `FileDescriptorProto`; see [`print_file`].
pub fn print_serialized(
    file: &[u8],
    dependencies: &[FileDescriptorProto],
) -> Result<String, CodecError> {
    let file = FileDescriptorProto::decode(file).map_err(|e| {
        CodecError::InvalidProtobufSchema(format!("not a serialized FileDescriptorProto: {e}"))
    })?;
    print_file(&file, dependencies)
}

/// The `.proto` text of `file`. `dependencies` are the files it imports (transitively); when
/// one is missing, every type name is written fully qualified.
pub fn print_file(
    file: &FileDescriptorProto,
    dependencies: &[FileDescriptorProto],
) -> Result<String, CodecError> {
    let syntax = match file.syntax.as_deref() {
        None | Some("") | Some("proto2") => Syntax::Proto2,
        Some("proto3") => Syntax::Proto3,
        Some(other) => {
            return Err(CodecError::InvalidProtobufSchema(format!(
                "cannot print '{}' as .proto text: syntax '{other}' (only proto2 and proto3)",
                file.name()
            )))
        }
    };
    // The text must say what the descriptor says: names that are not identifiers (a
    // descriptor may hold any string) would be read back as other syntax.
    check_file(file)?;
    let given: HashSet<&str> = dependencies.iter().map(|d| d.name()).collect();
    let complete = file.dependency.iter().all(|d| given.contains(d.as_str()));
    let mut symbols = Symbols::default();
    symbols.add_file(file);
    for d in dependencies {
        symbols.add_file(d);
    }
    let printer = Printer {
        syntax,
        symbols: complete.then_some(symbols),
    };
    let mut out = String::new();
    printer.file(file, &mut out);
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Proto2,
    Proto3,
}

/// What a full name denotes, as protobuf's name lookup distinguishes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SymbolKind {
    Package,
    Message,
    Enum,
    Service,
    Other,
}

impl SymbolKind {
    fn is_aggregate(self) -> bool {
        !matches!(self, SymbolKind::Other)
    }

    fn is_type(self) -> bool {
        matches!(self, SymbolKind::Message | SymbolKind::Enum)
    }
}

/// Every full name (no leading dot) of the file and its dependencies.
#[derive(Debug, Default)]
struct Symbols {
    kinds: HashMap<String, SymbolKind>,
}

fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

impl Symbols {
    fn add(&mut self, name: String, kind: SymbolKind) {
        self.kinds.entry(name).or_insert(kind);
    }

    fn add_file(&mut self, file: &FileDescriptorProto) {
        let package = file.package();
        let mut prefix = String::new();
        for part in package.split('.').filter(|p| !p.is_empty()) {
            prefix = join(&prefix, part);
            self.add(prefix.clone(), SymbolKind::Package);
        }
        for m in &file.message_type {
            self.add_message(package, m);
        }
        for e in &file.enum_type {
            self.add_enum(package, e);
        }
        for x in &file.extension {
            self.add(join(package, x.name()), SymbolKind::Other);
        }
        for s in &file.service {
            let name = join(package, s.name());
            for m in &s.method {
                self.add(join(&name, m.name()), SymbolKind::Other);
            }
            self.add(name, SymbolKind::Service);
        }
    }

    fn add_message(&mut self, scope: &str, m: &DescriptorProto) {
        let name = join(scope, m.name());
        for f in m.field.iter().chain(&m.extension) {
            self.add(join(&name, f.name()), SymbolKind::Other);
        }
        for o in &m.oneof_decl {
            self.add(join(&name, o.name()), SymbolKind::Other);
        }
        for n in &m.nested_type {
            self.add_message(&name, n);
        }
        for e in &m.enum_type {
            self.add_enum(&name, e);
        }
        self.add(name, SymbolKind::Message);
    }

    fn add_enum(&mut self, scope: &str, e: &EnumDescriptorProto) {
        // Enum values are siblings of their enum.
        for v in &e.value {
            self.add(join(scope, v.name()), SymbolKind::Other);
        }
        self.add(join(scope, e.name()), SymbolKind::Enum);
    }

    /// What `name` (relative) resolves to from inside `scope`, by protoc's rules: the first
    /// part is looked up from the innermost scope outwards (skipping symbols that cannot
    /// contain the rest, or are not types when it is the whole name), then the rest inside it.
    fn resolve(&self, name: &str, scope: &str) -> Option<String> {
        let (first, rest) = match name.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (name, None),
        };
        let mut scope = Some(scope);
        while let Some(s) = scope {
            let candidate = join(s, first);
            if let Some(kind) = self.kinds.get(&candidate) {
                match rest {
                    Some(rest) if kind.is_aggregate() => {
                        let full = join(&candidate, rest);
                        return self.kinds.contains_key(&full).then_some(full);
                    }
                    None if kind.is_type() => return Some(candidate),
                    _ => {}
                }
            }
            scope = if s.is_empty() {
                None
            } else {
                Some(s.rfind('.').map_or("", |i| &s[..i]))
            };
        }
        None
    }

    /// The shortest suffix of `full` that resolves to it from `scope`.
    fn shortest(&self, full: &str, scope: &str) -> Option<String> {
        let parts: Vec<&str> = full.split('.').collect();
        (1..=parts.len()).rev().find_map(|start| {
            let candidate = parts[start - 1..].join(".");
            (self.resolve(&candidate, scope).as_deref() == Some(full)).then_some(candidate)
        })
    }
}

struct Printer {
    syntax: Syntax,
    /// `None`: not every import is known, so names are printed fully qualified.
    symbols: Option<Symbols>,
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// A string literal with protobuf's escapes (bytes outside printable ASCII in octal).
fn quote(text: &str) -> String {
    quote_bytes(text.as_bytes())
}

fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            other => {
                let _ = write!(out, "\\{other:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// protoc's default JSON name: `_` removed, the letter after it upper-cased.
fn default_json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn scalar_name(t: Type) -> Option<&'static str> {
    Some(match t {
        Type::Double => "double",
        Type::Float => "float",
        Type::Int64 => "int64",
        Type::Uint64 => "uint64",
        Type::Int32 => "int32",
        Type::Fixed64 => "fixed64",
        Type::Fixed32 => "fixed32",
        Type::Bool => "bool",
        Type::String => "string",
        Type::Bytes => "bytes",
        Type::Uint32 => "uint32",
        Type::Sfixed32 => "sfixed32",
        Type::Sfixed64 => "sfixed64",
        Type::Sint32 => "sint32",
        Type::Sint64 => "sint64",
        Type::Group | Type::Message | Type::Enum => return None,
    })
}

/// Options as `name = value` pairs.
type Opts = Vec<(String, String)>;

fn push_bool(opts: &mut Opts, name: &str, value: Option<bool>) {
    if let Some(v) = value {
        opts.push((name.to_string(), v.to_string()));
    }
}

fn push_str(opts: &mut Opts, name: &str, value: Option<&str>) {
    if let Some(v) = value {
        opts.push((name.to_string(), quote(v)));
    }
}

impl Printer {
    /// A type name as written from inside `scope`.
    fn type_name(&self, full: &str, scope: &str) -> String {
        let bare = full.strip_prefix('.').unwrap_or(full);
        match self.symbols.as_ref().and_then(|s| s.shortest(bare, scope)) {
            Some(short) => short,
            None => format!(".{bare}"),
        }
    }

    fn file(&self, file: &FileDescriptorProto, out: &mut String) {
        let syntax = match self.syntax {
            Syntax::Proto2 => "proto2",
            Syntax::Proto3 => "proto3",
        };
        let _ = writeln!(out, "syntax = \"{syntax}\";");
        let mut sections: Vec<String> = Vec::new();
        let package = file.package();
        if !package.is_empty() {
            sections.push(format!("package {package};\n"));
        }
        let mut imports = String::new();
        for (i, dep) in file.dependency.iter().enumerate() {
            let i = i32::try_from(i).unwrap_or(i32::MAX);
            let kind = if file.public_dependency.contains(&i) {
                "public "
            } else if file.weak_dependency.contains(&i) {
                "weak "
            } else {
                ""
            };
            let _ = writeln!(imports, "import {kind}{};", quote(dep));
        }
        if !imports.is_empty() {
            sections.push(imports);
        }
        let options = self.file_options(file);
        if !options.is_empty() {
            let mut text = String::new();
            for (name, value) in options {
                let _ = writeln!(text, "option {name} = {value};");
            }
            sections.push(text);
        }
        for m in &file.message_type {
            let mut text = String::new();
            self.message(m, package, 0, &mut text);
            sections.push(text);
        }
        for e in &file.enum_type {
            let mut text = String::new();
            self.enumeration(e, 0, &mut text);
            sections.push(text);
        }
        if !file.extension.is_empty() {
            let mut text = String::new();
            self.extensions(&file.extension, package, 0, &mut text);
            sections.push(text);
        }
        for s in &file.service {
            let mut text = String::new();
            self.service(s, package, &mut text);
            sections.push(text);
        }
        for section in sections {
            out.push('\n');
            out.push_str(&section);
        }
    }

    fn file_options(&self, file: &FileDescriptorProto) -> Opts {
        let mut opts = Opts::new();
        let Some(o) = &file.options else {
            return opts;
        };
        push_str(&mut opts, "java_package", o.java_package.as_deref());
        push_str(
            &mut opts,
            "java_outer_classname",
            o.java_outer_classname.as_deref(),
        );
        push_bool(&mut opts, "java_multiple_files", o.java_multiple_files);
        // Deprecated in descriptor.proto, still a valid option that files carry.
        #[allow(deprecated)]
        push_bool(
            &mut opts,
            "java_generate_equals_and_hash",
            o.java_generate_equals_and_hash,
        );
        push_bool(
            &mut opts,
            "java_string_check_utf8",
            o.java_string_check_utf8,
        );
        if o.optimize_for.is_some() {
            let mode = o.optimize_for().as_str_name().to_string();
            opts.push(("optimize_for".into(), mode));
        }
        push_str(&mut opts, "go_package", o.go_package.as_deref());
        push_bool(&mut opts, "cc_generic_services", o.cc_generic_services);
        push_bool(&mut opts, "java_generic_services", o.java_generic_services);
        push_bool(&mut opts, "py_generic_services", o.py_generic_services);
        push_bool(&mut opts, "deprecated", o.deprecated);
        push_bool(&mut opts, "cc_enable_arenas", o.cc_enable_arenas);
        push_str(
            &mut opts,
            "objc_class_prefix",
            o.objc_class_prefix.as_deref(),
        );
        push_str(&mut opts, "csharp_namespace", o.csharp_namespace.as_deref());
        push_str(&mut opts, "swift_prefix", o.swift_prefix.as_deref());
        push_str(&mut opts, "php_class_prefix", o.php_class_prefix.as_deref());
        push_str(&mut opts, "php_namespace", o.php_namespace.as_deref());
        push_str(
            &mut opts,
            "php_metadata_namespace",
            o.php_metadata_namespace.as_deref(),
        );
        push_str(&mut opts, "ruby_package", o.ruby_package.as_deref());
        opts
    }

    fn message(&self, m: &DescriptorProto, scope: &str, depth: usize, out: &mut String) {
        let pad = indent(depth);
        let _ = writeln!(out, "{pad}message {} {{", m.name());
        self.message_body(m, scope, depth, out);
        let _ = writeln!(out, "{pad}}}");
    }

    fn message_body(&self, m: &DescriptorProto, scope: &str, depth: usize, out: &mut String) {
        let inner = indent(depth + 1);
        let name = join(scope, m.name());
        if let Some(o) = &m.options {
            let mut opts = Opts::new();
            push_bool(
                &mut opts,
                "message_set_wire_format",
                o.message_set_wire_format,
            );
            push_bool(
                &mut opts,
                "no_standard_descriptor_accessor",
                o.no_standard_descriptor_accessor,
            );
            push_bool(&mut opts, "deprecated", o.deprecated);
            for (n, v) in opts {
                let _ = writeln!(out, "{inner}option {n} = {v};");
            }
        }
        let nested: HashMap<&str, &DescriptorProto> =
            m.nested_type.iter().map(|n| (n.name(), n)).collect();
        let map_entries: HashSet<&str> = m
            .nested_type
            .iter()
            .filter(|n| n.options.as_ref().and_then(|o| o.map_entry) == Some(true))
            .map(|n| n.name())
            .collect();
        let groups: HashSet<&str> = m
            .field
            .iter()
            .filter(|f| f.r#type() == Type::Group)
            .filter_map(|f| f.type_name.as_deref())
            .map(|t| t.rsplit('.').next().unwrap_or(t))
            .collect();
        // Nested types that a field declares (map entries, groups) keep their place among
        // the declared nested messages: the ones before them are printed first.
        let declared_by_field =
            |n: &DescriptorProto| map_entries.contains(n.name()) || groups.contains(n.name());
        let mut next_nested = 0;
        let mut printed_oneofs: HashSet<i32> = HashSet::new();
        for f in &m.field {
            let own = f
                .type_name
                .as_deref()
                .map(|t| t.rsplit('.').next().unwrap_or(t));
            let position = own.and_then(|t| {
                m.nested_type
                    .iter()
                    .position(|n| n.name() == t && declared_by_field(n))
            });
            if let Some(position) = position {
                while next_nested < position {
                    let n = &m.nested_type[next_nested];
                    if !declared_by_field(n) {
                        self.message(n, &name, depth + 1, out);
                    }
                    next_nested += 1;
                }
                next_nested = next_nested.max(position + 1);
            }
            match f.oneof_index {
                Some(i) if !f.proto3_optional() => {
                    if printed_oneofs.insert(i) {
                        self.oneof(m, i, &name, &nested, depth + 1, out);
                    }
                }
                _ => self.field(f, &name, &nested, depth + 1, false, out),
            }
        }
        for e in &m.enum_type {
            self.enumeration(e, depth + 1, out);
        }
        for n in m.nested_type.iter().skip(next_nested) {
            if !declared_by_field(n) {
                self.message(n, &name, depth + 1, out);
            }
        }
        if !m.extension.is_empty() {
            self.extensions(&m.extension, &name, depth + 1, out);
        }
        if !m.extension_range.is_empty() {
            let ranges: Vec<String> = m
                .extension_range
                .iter()
                .map(|r| range(r.start(), r.end() - 1))
                .collect();
            let _ = writeln!(out, "{inner}extensions {};", ranges.join(", "));
        }
        if !m.reserved_range.is_empty() {
            let ranges: Vec<String> = m
                .reserved_range
                .iter()
                .map(|r| range(r.start(), r.end() - 1))
                .collect();
            let _ = writeln!(out, "{inner}reserved {};", ranges.join(", "));
        }
        if !m.reserved_name.is_empty() {
            let names: Vec<String> = m.reserved_name.iter().map(|n| quote(n)).collect();
            let _ = writeln!(out, "{inner}reserved {};", names.join(", "));
        }
    }

    fn oneof(
        &self,
        m: &DescriptorProto,
        index: i32,
        scope: &str,
        nested: &HashMap<&str, &DescriptorProto>,
        depth: usize,
        out: &mut String,
    ) {
        let pad = indent(depth);
        let name = usize::try_from(index)
            .ok()
            .and_then(|i| m.oneof_decl.get(i))
            .map_or("", |o| o.name());
        let _ = writeln!(out, "{pad}oneof {name} {{");
        for f in m.field.iter().filter(|f| f.oneof_index == Some(index)) {
            self.field(f, scope, nested, depth + 1, true, out);
        }
        let _ = writeln!(out, "{pad}}}");
    }

    /// A field (or extension) declaration; `scope` is the enclosing message's full name.
    fn field(
        &self,
        f: &FieldDescriptorProto,
        scope: &str,
        nested: &HashMap<&str, &DescriptorProto>,
        depth: usize,
        in_oneof: bool,
        out: &mut String,
    ) {
        let pad = indent(depth);
        let type_name = f.type_name.as_deref().unwrap_or("");
        let entry = nested
            .get(type_name.rsplit('.').next().unwrap_or(""))
            .filter(|n| {
                n.options.as_ref().and_then(|o| o.map_entry) == Some(true)
                    && f.label() == Label::Repeated
            });
        let declared = if let Some(entry) = entry {
            let part = |number: i32| {
                entry
                    .field
                    .iter()
                    .find(|e| e.number() == number)
                    .map(|e| self.field_type(e, scope))
                    .unwrap_or_default()
            };
            format!("map<{}, {}>", part(1), part(2))
        } else {
            let label = match (f.label(), self.syntax) {
                _ if in_oneof => "",
                (Label::Repeated, _) => "repeated ",
                (Label::Required, _) => "required ",
                (Label::Optional, Syntax::Proto2) => "optional ",
                (Label::Optional, Syntax::Proto3) if f.proto3_optional() => "optional ",
                (Label::Optional, Syntax::Proto3) => "",
            };
            if f.r#type() == Type::Group {
                let group = nested.get(type_name.rsplit('.').next().unwrap_or(""));
                let _ = writeln!(
                    out,
                    "{pad}{label}group {} = {}{} {{",
                    type_name.rsplit('.').next().unwrap_or(""),
                    f.number(),
                    self.field_options(f)
                );
                if let Some(group) = group {
                    self.message_body(group, scope, depth, out);
                }
                let _ = writeln!(out, "{pad}}}");
                return;
            }
            format!("{label}{}", self.field_type(f, scope))
        };
        let _ = writeln!(
            out,
            "{pad}{declared} {} = {}{};",
            f.name(),
            f.number(),
            self.field_options(f)
        );
    }

    fn field_type(&self, f: &FieldDescriptorProto, scope: &str) -> String {
        match scalar_name(f.r#type()) {
            Some(s) => s.to_string(),
            None => self.type_name(f.type_name(), scope),
        }
    }

    fn field_options(&self, f: &FieldDescriptorProto) -> String {
        let mut opts = Opts::new();
        if let Some(d) = &f.default_value {
            let value = match f.r#type() {
                Type::String => quote(d),
                // C-escaped in the descriptor: unescaped (checked) and escaped again.
                Type::Bytes => quote_bytes(&unescape_c(d).unwrap_or_default()),
                _ => d.clone(),
            };
            opts.push(("default".into(), value));
        }
        if let Some(j) = &f.json_name {
            if *j != default_json_name(f.name()) {
                opts.push(("json_name".into(), quote(j)));
            }
        }
        if let Some(o) = &f.options {
            if o.ctype.is_some() {
                opts.push(("ctype".into(), o.ctype().as_str_name().to_string()));
            }
            push_bool(&mut opts, "packed", o.packed);
            if o.jstype.is_some() {
                opts.push(("jstype".into(), o.jstype().as_str_name().to_string()));
            }
            push_bool(&mut opts, "lazy", o.lazy);
            push_bool(&mut opts, "deprecated", o.deprecated);
            push_bool(&mut opts, "weak", o.weak);
        }
        bracketed(&opts)
    }

    fn enumeration(&self, e: &EnumDescriptorProto, depth: usize, out: &mut String) {
        let pad = indent(depth);
        let inner = indent(depth + 1);
        let _ = writeln!(out, "{pad}enum {} {{", e.name());
        if let Some(o) = &e.options {
            let mut opts = Opts::new();
            push_bool(&mut opts, "allow_alias", o.allow_alias);
            push_bool(&mut opts, "deprecated", o.deprecated);
            for (n, v) in opts {
                let _ = writeln!(out, "{inner}option {n} = {v};");
            }
        }
        for v in &e.value {
            let mut opts = Opts::new();
            if let Some(o) = &v.options {
                push_bool(&mut opts, "deprecated", o.deprecated);
            }
            let _ = writeln!(
                out,
                "{inner}{} = {}{};",
                v.name(),
                v.number(),
                bracketed(&opts)
            );
        }
        if !e.reserved_range.is_empty() {
            // Enum reserved ranges are inclusive.
            let ranges: Vec<String> = e
                .reserved_range
                .iter()
                .map(|r| range(r.start(), r.end()))
                .collect();
            let _ = writeln!(out, "{inner}reserved {};", ranges.join(", "));
        }
        if !e.reserved_name.is_empty() {
            let names: Vec<String> = e.reserved_name.iter().map(|n| quote(n)).collect();
            let _ = writeln!(out, "{inner}reserved {};", names.join(", "));
        }
        let _ = writeln!(out, "{pad}}}");
    }

    /// `extend` blocks, one per extendee in order of first appearance.
    fn extensions(
        &self,
        fields: &[FieldDescriptorProto],
        scope: &str,
        depth: usize,
        out: &mut String,
    ) {
        let pad = indent(depth);
        let mut extendees: Vec<&str> = Vec::new();
        for f in fields {
            if !extendees.contains(&f.extendee()) {
                extendees.push(f.extendee());
            }
        }
        let none = HashMap::new();
        for extendee in extendees {
            let _ = writeln!(out, "{pad}extend {} {{", self.type_name(extendee, scope));
            for f in fields.iter().filter(|f| f.extendee() == extendee) {
                self.field(f, scope, &none, depth + 1, false, out);
            }
            let _ = writeln!(out, "{pad}}}");
        }
    }

    fn service(&self, s: &ServiceDescriptorProto, scope: &str, out: &mut String) {
        let inner = indent(1);
        let _ = writeln!(out, "service {} {{", s.name());
        if let Some(true) = s.options.as_ref().and_then(|o| o.deprecated) {
            let _ = writeln!(out, "{inner}option deprecated = true;");
        }
        for m in &s.method {
            let stream = |on: bool| if on { "stream " } else { "" };
            let mut opts = Opts::new();
            if let Some(o) = &m.options {
                push_bool(&mut opts, "deprecated", o.deprecated);
                if o.idempotency_level.is_some() {
                    opts.push((
                        "idempotency_level".into(),
                        o.idempotency_level().as_str_name().to_string(),
                    ));
                }
            }
            let head = format!(
                "{inner}rpc {} ({}{}) returns ({}{})",
                m.name(),
                stream(m.client_streaming()),
                self.type_name(m.input_type(), scope),
                stream(m.server_streaming()),
                self.type_name(m.output_type(), scope)
            );
            if opts.is_empty() {
                let _ = writeln!(out, "{head};");
            } else {
                let _ = writeln!(out, "{head} {{");
                for (n, v) in opts {
                    let _ = writeln!(out, "{inner}  option {n} = {v};");
                }
                let _ = writeln!(out, "{inner}}}");
            }
        }
        let _ = writeln!(out, "}}");
    }
}

fn invalid(what: &str, value: &str) -> CodecError {
    CodecError::InvalidProtobufSchema(format!(
        "the descriptor's {what} '{}' cannot be written as .proto text",
        value.escape_debug()
    ))
}

fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_ident(what: &str, name: &str) -> Result<(), CodecError> {
    if is_ident(name) {
        Ok(())
    } else {
        Err(invalid(what, name))
    }
}

/// A dotted name, optionally with a leading dot (type names).
fn check_dotted(what: &str, name: &str) -> Result<(), CodecError> {
    let bare = name.strip_prefix('.').unwrap_or(name);
    if !bare.is_empty() && bare.split('.').all(is_ident) {
        Ok(())
    } else {
        Err(invalid(what, name))
    }
}

/// Every name and default of `file` can be printed as what it is.
fn check_file(file: &FileDescriptorProto) -> Result<(), CodecError> {
    if !file.package().is_empty() {
        check_dotted("package", file.package())?;
    }
    for m in &file.message_type {
        check_message(m)?;
    }
    for e in &file.enum_type {
        check_enum(e)?;
    }
    for f in &file.extension {
        check_field(f)?;
    }
    for s in &file.service {
        check_ident("service name", s.name())?;
        for m in &s.method {
            check_ident("method name", m.name())?;
            check_dotted("input type", m.input_type())?;
            check_dotted("output type", m.output_type())?;
        }
    }
    Ok(())
}

fn check_message(m: &DescriptorProto) -> Result<(), CodecError> {
    check_ident("message name", m.name())?;
    for f in m.field.iter().chain(&m.extension) {
        check_field(f)?;
    }
    for o in &m.oneof_decl {
        check_ident("oneof name", o.name())?;
    }
    for n in &m.nested_type {
        check_message(n)?;
    }
    for e in &m.enum_type {
        check_enum(e)?;
    }
    for n in &m.reserved_name {
        check_ident("reserved name", n)?;
    }
    Ok(())
}

fn check_enum(e: &EnumDescriptorProto) -> Result<(), CodecError> {
    check_ident("enum name", e.name())?;
    for v in &e.value {
        check_ident("enum value name", v.name())?;
    }
    for n in &e.reserved_name {
        check_ident("reserved name", n)?;
    }
    Ok(())
}

fn check_field(f: &FieldDescriptorProto) -> Result<(), CodecError> {
    check_ident("field name", f.name())?;
    if let Some(t) = &f.type_name {
        check_dotted("type name", t)?;
    }
    if let Some(t) = &f.extendee {
        check_dotted("extendee", t)?;
    }
    let Some(d) = &f.default_value else {
        return Ok(());
    };
    let number = |d: &str| {
        let digits = d.strip_prefix('-').unwrap_or(d);
        !digits.is_empty()
            && (digits.bytes().all(|b| b.is_ascii_digit())
                || digits
                    .strip_prefix("0x")
                    .or_else(|| digits.strip_prefix("0X"))
                    .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())))
    };
    let float = |d: &str| {
        matches!(d, "inf" | "-inf" | "nan" | "-nan")
            || (!d.is_empty()
                && d.bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                && d.parse::<f64>().is_ok())
    };
    let fits = match f.r#type() {
        Type::String => true,
        Type::Bytes => unescape_c(d).is_some(),
        Type::Bool => d == "true" || d == "false",
        Type::Enum => is_ident(d),
        Type::Float | Type::Double => float(d),
        Type::Group | Type::Message => false,
        _ => number(d),
    };
    if fits {
        Ok(())
    } else {
        Err(invalid("default value", d))
    }
}

/// Undoes C escapes (`\n`, `\\`, `\"`, octal, hex), as a descriptor stores bytes defaults.
fn unescape_c(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let next = *bytes.get(i + 1)?;
        i += 2;
        match next {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'\\' | b'\'' | b'"' | b'?' => out.push(next),
            b'0'..=b'7' => {
                let mut value = u32::from(next - b'0');
                for _ in 0..2 {
                    match bytes.get(i) {
                        Some(d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(u8::try_from(value).ok()?);
            }
            b'x' | b'X' => {
                let mut value = 0u32;
                let start = i;
                while i < bytes.len() && i < start + 2 && bytes[i].is_ascii_hexdigit() {
                    value = value * 16 + char::from(bytes[i]).to_digit(16)?;
                    i += 1;
                }
                if i == start {
                    return None;
                }
                out.push(u8::try_from(value).ok()?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `a`, or `a to b`, or `a to max`.
fn range(start: i32, end_inclusive: i32) -> String {
    if start == end_inclusive {
        start.to_string()
    } else if end_inclusive >= 536_870_911 {
        format!("{start} to max")
    } else {
        format!("{start} to {end_inclusive}")
    }
}

fn bracketed(opts: &Opts) -> String {
    if opts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = opts.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    format!(" [{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protobuf::test_support::pool;

    /// The root file of `text` compiled, and its dependencies.
    fn compiled(files: &[(&str, &str)]) -> (FileDescriptorProto, Vec<FileDescriptorProto>) {
        let pool = pool(files);
        let root = files[0].0;
        let mut deps = Vec::new();
        let mut file = None;
        for f in pool.files() {
            let proto = f.file_descriptor_proto().clone();
            if f.name() == root {
                file = Some(proto);
            } else {
                deps.push(proto);
            }
        }
        (file.expect("root compiled"), deps)
    }

    /// text -> descriptor -> text -> descriptor: equal descriptors, stable text.
    fn round_trip(files: &[(&str, &str)]) -> String {
        let (first, deps) = compiled(files);
        let text = print_file(&first, &deps).unwrap();
        let mut again: Vec<(&str, &str)> = files.to_vec();
        again[0].1 = &text;
        let (second, deps2) = compiled(&again);
        assert_eq!(
            first, second,
            "descriptor changed through the text:\n{text}"
        );
        assert_eq!(print_file(&second, &deps2).unwrap(), text);
        text
    }

    #[test]
    fn proto3_round_trips() {
        let text = round_trip(&[(
            "a.proto",
            r#"syntax = "proto3";
            package acme.orders;
            option java_package = "com.acme";
            option java_multiple_files = true;
            import "google/protobuf/timestamp.proto";
            message Order {
              int64 id = 1;
              optional string note = 2;
              repeated Item items = 3;
              map<string, Item> by_sku = 4;
              google.protobuf.Timestamp at = 5;
              Status status = 6;
              oneof payment { string card = 7; bytes token = 8; }
              repeated int32 codes = 9 [packed = false];
              string weird_name = 10 [json_name = "WEIRD"];
              reserved 20, 22 to 25;
              reserved "old";
              message Item { string sku = 1; Nested n = 2; message Nested { double x = 1; } }
              enum Status { UNKNOWN = 0; OK = 1 [deprecated = true]; reserved 5 to 7; }
            }
            message Other { Order.Item item = 1; acme.orders.Order.Status s = 2; }
            service Shop { rpc Put (Order) returns (stream Other); }
            "#,
        )]);
        assert!(text.contains("  optional string note = 2;"), "{text}");
        assert!(text.contains("  map<string, Item> by_sku = 4;"), "{text}");
        assert!(
            text.contains("  google.protobuf.Timestamp at = 5;"),
            "{text}"
        );
        assert!(
            text.contains("  oneof payment {\n    string card = 7;"),
            "{text}"
        );
        assert!(text.contains("  Order.Item item = 1;"), "{text}");
        assert!(
            text.contains("rpc Put (Order) returns (stream Other);"),
            "{text}"
        );
        assert!(text.contains("json_name = \"WEIRD\""), "{text}");
        assert!(!text.contains("json_name = \"id\""), "{text}");
    }

    #[test]
    fn proto2_groups_defaults_extensions_round_trip() {
        let text = round_trip(&[(
            "b.proto",
            r#"syntax = "proto2";
            package p;
            message M {
              required int32 a = 1 [default = -5];
              optional string s = 2 [default = "q\"uo\ne\001"];
              optional bytes b = 3 [default = "\000\377x"];
              optional double d = 4 [default = inf];
              optional E e = 5 [default = TWO];
              optional group G = 6 { optional int32 x = 1; }
              extensions 100 to 199, 1000 to max;
              enum E { ONE = 1; TWO = 2; }
            }
            extend M { optional int32 ext = 100; }
            "#,
        )]);
        assert!(text.contains("optional group G = 6 {"), "{text}");
        assert!(
            text.contains("extensions 100 to 199, 1000 to max;"),
            "{text}"
        );
        assert!(text.contains("extend M {"), "{text}");
    }

    #[test]
    fn nested_messages_keep_their_place_around_map_entries() {
        // Declared before the map field: nested_type is [Before, MEntry, After].
        let text = round_trip(&[(
            "e.proto",
            "syntax = \"proto3\"; message O { message Before { int32 a = 1; } \
             int32 x = 1; map<string, Before> m = 2; message After { int32 b = 1; } \
             optional group_like g = 3; message group_like { int32 c = 1; } }",
        )]);
        let before = text.find("message Before").unwrap();
        let map = text.find("map<string, Before> m = 2;").unwrap();
        assert!(before < map, "{text}");
    }

    #[test]
    fn shadowed_names_are_qualified_enough() {
        // Inside `p.A`, "B" would find the nested `p.A.B`, so the top-level one needs more.
        let text = round_trip(&[(
            "c.proto",
            "syntax = \"proto3\"; package p; message B { int32 x = 1; } \
             message A { message B { int32 y = 1; } B inner = 1; p.B outer = 2; }",
        )]);
        assert!(text.contains("  B inner = 1;"), "{text}");
        assert!(text.contains("  p.B outer = 2;"), "{text}");
    }

    #[test]
    fn imports_of_registered_files_and_missing_dependencies() {
        let files = [
            (
                "main.proto",
                "syntax = \"proto3\"; import \"common.proto\"; message M { common.Name n = 1; }",
            ),
            (
                "common.proto",
                "syntax = \"proto3\"; package common; message Name { string t = 1; }",
            ),
        ];
        let text = round_trip(&files);
        assert!(text.contains("import \"common.proto\";"), "{text}");
        assert!(text.contains("  common.Name n = 1;"), "{text}");
        // Without the imported file, names are fully qualified (still correct).
        let (file, _) = compiled(&files);
        let text = print_file(&file, &[]).unwrap();
        assert!(text.contains("  .common.Name n = 1;"), "{text}");
    }

    #[test]
    fn serialized_descriptors_print_and_editions_are_refused() {
        let (file, deps) =
            compiled(&[("d.proto", "syntax = \"proto3\"; message M { int32 a = 1; }")]);
        let text = print_serialized(&file.encode_to_vec(), &deps).unwrap();
        assert_eq!(
            text,
            "syntax = \"proto3\";\n\nmessage M {\n  int32 a = 1;\n}\n"
        );
        assert!(print_serialized(b"\xff\xff", &[]).is_err());
        let editions = FileDescriptorProto {
            syntax: Some("editions".into()),
            ..FileDescriptorProto::default()
        };
        assert!(print_file(&editions, &[]).is_err());
        // A name that would read back as other syntax is refused.
        let mut evil = file.clone();
        evil.message_type[0].name = Some("M { } message Evil".into());
        let err = print_file(&evil, &[]).unwrap_err().to_string();
        assert!(err.contains("message name"), "{err}");
        let mut evil = file.clone();
        evil.message_type[0].field[0].default_value = Some("1]; message X {".into());
        assert!(print_file(&evil, &[]).is_err());
    }
}
