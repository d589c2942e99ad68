//! The client against the dev registry over real loopback HTTP: registration, look-ups,
//! caching, compatibility, validation and error texts.

mod common;

use std::sync::Arc;

use common::{client, start, V1, V2_COMPATIBLE, V2_INCOMPATIBLE};
use karrow_registry::{
    CompatibilityLevel, RegistryError, SchemaDefinition, SchemaReference, SchemaType,
};

#[test]
fn register_is_idempotent_and_reuses_global_ids() {
    let reg = start(None);
    let c = client(&reg);
    let id = c
        .register("users-value", &SchemaDefinition::avro(V1))
        .unwrap();
    assert_eq!(id, 1);
    // Same schema again (cached on the client), then the same schema with different
    // formatting from a fresh client (so the server decides): same id, no new version.
    assert_eq!(
        c.register("users-value", &SchemaDefinition::avro(V1))
            .unwrap(),
        id
    );
    let reformatted = V1.replace(',', " , ").replace(':', " : ");
    let fresh = client(&reg);
    assert_eq!(
        fresh
            .register("users-value", &SchemaDefinition::avro(reformatted))
            .unwrap(),
        id
    );
    assert_eq!(c.versions("users-value").unwrap(), vec![1]);
    // Same schema under another subject: same global id, version 1 there.
    assert_eq!(
        c.register("other-value", &SchemaDefinition::avro(V1))
            .unwrap(),
        id
    );
    assert_eq!(c.latest("other-value").unwrap().version, 1);
    // A new schema gets a new id and a new version.
    let id2 = c
        .register("users-value", &SchemaDefinition::avro(V2_COMPATIBLE))
        .unwrap();
    assert_eq!(id2, 2);
    assert_eq!(c.versions("users-value").unwrap(), vec![1, 2]);
}

#[test]
fn schema_by_id_is_cached() {
    let reg = start(None);
    let c = client(&reg);
    let id = c.register("s", &SchemaDefinition::avro(V1)).unwrap();
    let before = reg.request_count();
    let first = c.schema_by_id(id).unwrap();
    assert_eq!(reg.request_count(), before + 1);
    assert_eq!(first.id, id);
    assert_eq!(first.definition, SchemaDefinition::avro(V1));
    for _ in 0..10 {
        let again = c.schema_by_id(id).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
    }
    assert_eq!(
        reg.request_count(),
        before + 1,
        "cache hits must not reach the server"
    );
    assert_eq!(c.cached_schema_count(), 1);
}

#[test]
fn unknown_id_has_the_flink_wording() {
    let reg = start(None);
    let c = client(&reg);
    let err = c.schema_by_id(7).unwrap_err();
    assert!(
        matches!(err, RegistryError::SchemaNotFound { id: 7, .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "Could not find schema with id 7 in registry (GET {}/schemas/ids/7: 404 40403 Schema not found)",
            reg.url()
        )
    );
    assert_eq!(err.error_code(), Some(40403));
}

#[test]
fn subjects_versions_latest_and_lookup() {
    let reg = start(None);
    let c = client(&reg);
    assert!(c.subjects().unwrap().is_empty());
    c.register("b-value", &SchemaDefinition::avro(V1)).unwrap();
    let id2 = c
        .register("b-value", &SchemaDefinition::avro(V2_COMPATIBLE))
        .unwrap();
    c.register("a value/with:odd chars", &SchemaDefinition::avro(V1))
        .unwrap();
    assert_eq!(
        c.subjects().unwrap(),
        vec!["a value/with:odd chars", "b-value"]
    );

    let latest = c.latest("b-value").unwrap();
    assert_eq!(
        (latest.subject.as_str(), latest.version, latest.id),
        ("b-value", 2, id2)
    );
    assert_eq!(latest.definition.schema, V2_COMPATIBLE);
    assert_eq!(c.version("b-value", 1).unwrap().definition.schema, V1);

    let found = c.lookup("b-value", &SchemaDefinition::avro(V1)).unwrap();
    assert_eq!((found.version, found.id), (1, 1));
    let odd = c
        .lookup("a value/with:odd chars", &SchemaDefinition::avro(V1))
        .unwrap();
    assert_eq!(odd.subject, "a value/with:odd chars");

    let err = c
        .lookup("b-value", &SchemaDefinition::avro(r#""string""#))
        .unwrap_err();
    assert!(
        matches!(err, RegistryError::SchemaNotRegistered { .. }),
        "{err:?}"
    );
    assert_eq!(err.error_code(), Some(40403));
    let err = c.latest("nope").unwrap_err();
    assert!(
        matches!(err, RegistryError::SubjectNotFound { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("'nope'") && err.to_string().contains(&reg.url()),
        "{err}"
    );
    let err = c.version("b-value", 9).unwrap_err();
    assert!(
        matches!(err, RegistryError::VersionNotFound { .. }),
        "{err:?}"
    );
    assert_eq!(err.error_code(), Some(40402));
    let err = c.lookup("nope", &SchemaDefinition::avro(V1)).unwrap_err();
    assert!(
        matches!(err, RegistryError::SubjectNotFound { .. }),
        "{err:?}"
    );

    assert_eq!(c.delete_subject("b-value").unwrap(), vec![1, 2]);
    assert_eq!(c.subjects().unwrap(), vec!["a value/with:odd chars"]);
    // Ids stay resolvable after the subject is gone.
    assert_eq!(
        c.schema_by_id(id2).unwrap().definition.schema,
        V2_COMPATIBLE
    );
}

#[test]
fn backward_rejects_incompatible_avro_and_none_accepts() {
    let reg = start(None);
    let c = client(&reg);
    assert_eq!(c.compatibility(None).unwrap(), CompatibilityLevel::Backward);
    c.register("s", &SchemaDefinition::avro(V1)).unwrap();
    let err = c
        .register("s", &SchemaDefinition::avro(V2_INCOMPATIBLE))
        .unwrap_err();
    assert!(matches!(err, RegistryError::Incompatible { .. }), "{err:?}");
    let ctx = err.http_failure().unwrap();
    assert_eq!((ctx.status, ctx.error_code), (409, 409));
    assert!(
        err.to_string().contains("'s'") && ctx.message.contains("/c"),
        "{err}"
    );
    // A compatible change passes under BACKWARD.
    c.register("s", &SchemaDefinition::avro(V2_COMPATIBLE))
        .unwrap();

    c.set_compatibility(Some("s"), CompatibilityLevel::None)
        .unwrap();
    assert_eq!(
        c.compatibility(Some("s")).unwrap(),
        CompatibilityLevel::None
    );
    assert_eq!(c.compatibility(None).unwrap(), CompatibilityLevel::Backward);
    let id = c
        .register("s", &SchemaDefinition::avro(V2_INCOMPATIBLE))
        .unwrap();
    assert_eq!(c.latest("s").unwrap().id, id);

    // The global level applies to subjects without their own.
    c.set_compatibility(None, CompatibilityLevel::None).unwrap();
    c.register("t", &SchemaDefinition::avro(V1)).unwrap();
    c.register("t", &SchemaDefinition::avro(V2_INCOMPATIBLE))
        .unwrap();
}

#[test]
fn invalid_schemas_are_42201() {
    let reg = start(None);
    let c = client(&reg);
    for def in [
        SchemaDefinition::avro(
            r#"{"type":"record","name":"R","fields":[{"name":"a","type":"nosuch"}]}"#,
        ),
        SchemaDefinition::avro("not json"),
        SchemaDefinition::json("{not json"),
        SchemaDefinition::protobuf("   "),
    ] {
        let err = c.register("s", &def).unwrap_err();
        assert!(
            matches!(err, RegistryError::InvalidSchema { .. }),
            "{err:?}"
        );
        assert_eq!(err.error_code(), Some(42201));
        assert_eq!(err.http_failure().unwrap().status, 422);
    }
    assert!(c.subjects().unwrap().is_empty());
}

#[test]
fn schema_types_and_references_round_trip() {
    let reg = start(None);
    let c = client(&reg);
    let json = SchemaDefinition::json(r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#);
    let proto = SchemaDefinition::protobuf("syntax = \"proto3\";\nmessage M { int32 a = 1; }\n");
    let json_id = c.register("j", &json).unwrap();
    let proto_id = c.register("p", &proto).unwrap();
    assert_eq!(c.schema_by_id(json_id).unwrap().definition, json);
    assert_eq!(
        c.schema_by_id(proto_id).unwrap().definition.schema_type,
        SchemaType::Protobuf
    );
    assert_eq!(c.latest("p").unwrap().definition, proto);

    let inner = r#"{"type":"record","name":"Address","namespace":"t","fields":[{"name":"city","type":"string"}]}"#;
    c.register("address", &SchemaDefinition::avro(inner))
        .unwrap();
    let outer = SchemaDefinition::avro(
        r#"{"type":"record","name":"Person","namespace":"t","fields":[{"name":"home","type":"t.Address"}]}"#,
    )
    .with_references(vec![SchemaReference {
        name: "t.Address".into(),
        subject: "address".into(),
        version: 1,
    }]);
    let id = c.register("person", &outer).unwrap();
    let fetched = c.schema_by_id(id).unwrap();
    assert_eq!(fetched.definition, outer);
    assert_eq!(
        c.lookup("person", &outer).unwrap().definition.references,
        outer.references
    );
}

#[test]
fn concurrent_clients() {
    let reg = start(None);
    let shared = Arc::new(client(&reg));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let c = Arc::clone(&shared);
            let own = client(&reg);
            std::thread::spawn(move || {
                for i in 0..10 {
                    let schema = format!(
                        r#"{{"type":"record","name":"R{t}_{i}","fields":[{{"name":"a","type":"int"}}]}}"#
                    );
                    let subject = format!("s{t}-{i}");
                    let id = own.register(&subject, &SchemaDefinition::avro(&schema)).unwrap();
                    assert_eq!(c.schema_by_id(id).unwrap().definition.schema, schema);
                    assert_eq!(c.lookup(&subject, &SchemaDefinition::avro(&schema)).unwrap().id, id);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(shared.subjects().unwrap().len(), 40);
}
