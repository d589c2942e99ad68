//! The endpoints Confluent's clients use beyond register and fetch (issue #24): the
//! compatibility endpoint, soft then permanent deletes, config and mode, contexts, paging,
//! and Protobuf schemas in descriptor form with `format=serialized`. (The same is proven
//! through Confluent's own Python client in `tests/confluent-python/`.)

mod common;

use common::http::Conn;
use common::start;

fn body(schema: &str) -> String {
    serde_json::json!({ "schema": schema }).to_string()
}

const V1: &str = r#"{"type":"record","name":"U","fields":[{"name":"a","type":"int"}]}"#;
const V2: &str = r#"{"type":"record","name":"U","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}"#;
const BAD: &str = r#"{"type":"record","name":"U","fields":[{"name":"a","type":"int"},{"name":"c","type":"string"}]}"#;

fn code(c: &mut Conn, method: &str, path: &str, payload: &str) -> (u16, i64) {
    let answer = c.request(method, path, payload);
    (answer.status, answer.error_code())
}

#[test]
fn compatibility_endpoint_answers_before_registering() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    assert_eq!(
        c.request("POST", "/subjects/s/versions", &body(V1)).status,
        200
    );
    let ok = c.request(
        "POST",
        "/compatibility/subjects/s/versions/latest",
        &body(V2),
    );
    assert_eq!(ok.body, r#"{"is_compatible":true}"#);
    let no = c.request(
        "POST",
        "/compatibility/subjects/s/versions/1?verbose=true",
        &body(BAD),
    );
    let json: serde_json::Value = serde_json::from_str(&no.body).unwrap();
    assert_eq!(json["is_compatible"], false);
    assert!(
        json["messages"][0].as_str().unwrap().contains("/c"),
        "{}",
        no.body
    );
    let all = c.request("POST", "/compatibility/subjects/s/versions", &body(BAD));
    assert_eq!(all.body, r#"{"is_compatible":false}"#);
    assert_eq!(
        code(
            &mut c,
            "POST",
            "/compatibility/subjects/s/versions/7",
            &body(V2)
        ),
        (404, 40402)
    );
    assert_eq!(
        code(
            &mut c,
            "POST",
            "/compatibility/subjects/x/versions/1",
            &body(V2)
        ),
        (404, 40401)
    );
    assert_eq!(
        code(
            &mut c,
            "POST",
            "/compatibility/subjects/s/versions/1",
            &body("{")
        ),
        (422, 42201)
    );
    // Nothing was registered by asking.
    assert_eq!(c.request("GET", "/subjects/s/versions", "").body, "[1]");
}

#[test]
fn soft_then_permanent_delete() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    c.request("POST", "/subjects/s/versions", &body(V1));
    c.request("POST", "/subjects/s/versions", &body(V2));
    assert_eq!(
        code(&mut c, "DELETE", "/subjects/s?permanent=true", ""),
        (404, 40405)
    );
    assert_eq!(
        c.request("DELETE", "/subjects/s/versions/latest", "").body,
        "2"
    );
    assert_eq!(
        code(&mut c, "DELETE", "/subjects/s/versions/2", ""),
        (404, 40406)
    );
    assert_eq!(
        c.request("GET", "/subjects/s/versions?deleted=true", "")
            .body,
        "[1,2]"
    );
    assert_eq!(
        c.request("GET", "/subjects/s/versions?deleted_only=true", "")
            .body,
        "[2]"
    );
    assert_eq!(
        c.request("GET", "/subjects/s/versions/2?deleted=true", "")
            .status,
        200
    );
    assert_eq!(
        code(&mut c, "GET", "/subjects/s/versions/2", ""),
        (404, 40402)
    );
    assert_eq!(c.request("DELETE", "/subjects/s", "").body, "[1]");
    assert_eq!(code(&mut c, "DELETE", "/subjects/s", ""), (404, 40404));
    assert_eq!(c.request("GET", "/subjects", "").body, "[]");
    assert_eq!(
        c.request("GET", "/subjects?deleted=true", "").body,
        r#"["s"]"#
    );
    // Soft-deleted: ids still resolve; re-registering makes a new version.
    assert_eq!(c.request("GET", "/schemas/ids/1", "").status, 200);
    assert_eq!(
        c.request("DELETE", "/subjects/s?permanent=true", "").body,
        "[1,2]"
    );
    assert_eq!(code(&mut c, "GET", "/schemas/ids/1", ""), (404, 40403));
    assert_eq!(
        code(&mut c, "DELETE", "/subjects/s?permanent=true", ""),
        (404, 40401)
    );
    let again = c.request("POST", "/subjects/s/versions", &body(V1));
    assert!(
        again.body.starts_with(r#"{"id":3,"guid":""#),
        "ids are never reused: {}",
        again.body
    );
}

#[test]
fn config_mode_contexts_and_paging() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    assert_eq!(
        c.request("GET", "/config", "").body,
        r#"{"compatibilityLevel":"BACKWARD"}"#
    );
    assert_eq!(code(&mut c, "GET", "/config/s", ""), (404, 40408));
    assert_eq!(
        c.request("GET", "/config/s?defaultToGlobal=true", "").body,
        r#"{"compatibilityLevel":"BACKWARD"}"#
    );
    let put = c.request("PUT", "/config/s", r#"{"compatibility":"full"}"#);
    assert_eq!(put.body, r#"{"compatibility":"FULL"}"#);
    assert_eq!(
        c.request("DELETE", "/config/s", "").body,
        r#"{"compatibilityLevel":"FULL"}"#
    );
    assert_eq!(code(&mut c, "DELETE", "/config/s", ""), (404, 40408));

    assert_eq!(
        c.request("GET", "/mode", "").body,
        r#"{"mode":"READWRITE"}"#
    );
    assert_eq!(
        c.request("PUT", "/mode/s", r#"{"mode":"READONLY"}"#).status,
        200
    );
    assert_eq!(
        code(&mut c, "POST", "/subjects/s/versions", &body(V1)),
        (422, 42205)
    );
    assert_eq!(code(&mut c, "DELETE", "/subjects/s", ""), (422, 42205));
    assert_eq!(
        c.request("DELETE", "/mode/s", "").body,
        r#"{"mode":"READONLY"}"#
    );
    assert_eq!(
        c.request("POST", "/subjects/s/versions", &body(V1)).status,
        200
    );
    // IMPORT: refused over existing subjects unless forced; then ids come from the body.
    assert_eq!(
        code(&mut c, "PUT", "/mode", r#"{"mode":"IMPORT"}"#),
        (422, 42205)
    );
    assert_eq!(
        c.request("PUT", "/mode?force=true", r#"{"mode":"IMPORT"}"#)
            .status,
        200
    );
    let imported = serde_json::json!({"schema": V2, "id": 100, "version": 5}).to_string();
    assert!(c
        .request("POST", "/subjects/i/versions", &imported)
        .body
        .starts_with(r#"{"id":100,"guid":"#));
    assert_eq!(c.request("GET", "/subjects/i/versions", "").body, "[5]");
    let clash = serde_json::json!({"schema": V1, "id": 100}).to_string();
    assert_eq!(
        code(&mut c, "POST", "/subjects/j/versions", &clash),
        (422, 42207)
    );
    assert_eq!(
        c.request("PUT", "/mode", r#"{"mode":"READWRITE"}"#).status,
        200
    );
    let with_id = serde_json::json!({"schema": V1, "id": 7}).to_string();
    assert_eq!(
        code(&mut c, "POST", "/subjects/k/versions", &with_id),
        (422, 42205)
    );

    assert_eq!(c.request("GET", "/contexts", "").body, r#"["."]"#);
    for s in ["a", "b", "c"] {
        c.request(
            "POST",
            &format!("/subjects/p-{s}/versions"),
            &body(r#""int""#),
        );
    }
    assert_eq!(
        c.request("GET", "/subjects?subjectPrefix=p-&offset=1&limit=1", "")
            .body,
        r#"["p-b"]"#
    );
    let latest = c.request("GET", "/schemas?subjectPrefix=p-&latestOnly=true", "");
    assert_eq!(
        serde_json::from_str::<Vec<serde_json::Value>>(&latest.body)
            .unwrap()
            .len(),
        3
    );
    assert_eq!(
        code(&mut c, "POST", "/subjects/%01bad/versions", &body(V1)),
        (422, 42208)
    );
}

#[test]
fn protobuf_descriptor_form_and_format_serialized() {
    let reg = start(None);
    let mut c = Conn::open(reg.addr());
    let text = "syntax = \"proto3\";\n\npackage p;\n\nmessage M {\n  int32 a = 1;\n}\n";
    let proto =
        |schema: &str| serde_json::json!({"schema": schema, "schemaType": "PROTOBUF"}).to_string();
    assert!(c
        .request("POST", "/subjects/p/versions", &proto(text))
        .body
        .starts_with(r#"{"id":1,"guid":"#));
    let serialized = c.request("GET", "/schemas/ids/1?format=serialized", "");
    let json: serde_json::Value = serde_json::from_str(&serialized.body).unwrap();
    let b64 = json["schema"].as_str().unwrap().to_string();
    assert!(!b64.contains("syntax"), "{b64}");
    // The descriptor registers as the same schema.
    assert!(c
        .request("POST", "/subjects/p/versions", &proto(&b64))
        .body
        .starts_with(r#"{"id":1,"guid":"#));
    assert!(c
        .request("POST", "/subjects/q/versions", &proto(&b64))
        .body
        .starts_with(r#"{"id":1,"guid":"#));
    let by_version = c.request("GET", "/subjects/q/versions/1?format=serialized", "");
    assert!(by_version.body.contains(&b64), "{}", by_version.body);
    let raw = c.request("GET", "/subjects/q/versions/1/schema", "");
    assert_eq!(raw.body, text);
    let default = c.request("GET", "/schemas/ids/1", "");
    assert!(default.body.contains("message M"), "{}", default.body);
}

/// Data contracts (`metadata`, `ruleSet`): kept with the schema, part of its identity,
/// carried over to a version registered without them, found by `GET /subjects/{s}/metadata`
/// with Confluent's codes, and journaled.
#[test]
fn metadata_is_kept_inherited_found_and_persisted() {
    let path = common::temp_path("contracts").with_extension("journal");
    let with = |schema: &str, version: &str| {
        serde_json::json!({
            "schema": schema,
            "metadata": {"properties": {"owner": "ada", "app.version": version}},
            "ruleSet": {"domainRules": [{"name": "r", "kind": "CONDITION", "mode": "WRITE"}]},
        })
        .to_string()
    };
    let id = |answer: common::http::Answer| -> i64 {
        let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        json["id"].as_i64().unwrap()
    };
    let (id1, id2) = {
        let reg = start(Some(path.clone()));
        let mut c = Conn::open(reg.addr());
        let id1 = id(c.request("POST", "/subjects/s/versions", &with(V1, "1")));
        // Same schema, other metadata: another schema.
        let id2 = id(c.request("POST", "/subjects/s/versions", &with(V1, "2")));
        assert_ne!(id1, id2);
        // Without a contract: the latest's is carried over; again, the same version.
        let id3 = id(c.request("POST", "/subjects/s/versions", &body(V2)));
        assert_eq!(
            id(c.request("POST", "/subjects/s/versions", &body(V2))),
            id3
        );
        let third: serde_json::Value =
            serde_json::from_str(&c.request("GET", "/subjects/s/versions/3", "").body).unwrap();
        assert_eq!(third["metadata"]["properties"]["app.version"], "2");
        assert_eq!(third["ruleSet"]["domainRules"][0]["name"], "r");
        // Look-up without a contract finds the latest version of that schema.
        let found: serde_json::Value =
            serde_json::from_str(&c.request("POST", "/subjects/s", &body(V1)).body).unwrap();
        assert_eq!(found["version"], 2);
        reg.stop();
        (id1, id2)
    };
    let reg = start(Some(path));
    let mut c = Conn::open(reg.addr());
    let latest = |c: &mut Conn, query: &str| -> serde_json::Value {
        serde_json::from_str(
            &c.request("GET", &format!("/subjects/s/metadata?{query}"), "")
                .body,
        )
        .unwrap()
    };
    let one = latest(&mut c, "key=app.version&value=1");
    assert_eq!(
        (one["version"].as_i64(), one["id"].as_i64()),
        (Some(1), Some(id1))
    );
    assert_eq!(one["metadata"]["properties"]["owner"], "ada");
    assert_eq!(latest(&mut c, "key=owner&value=ada")["version"], 3);
    assert_eq!(latest(&mut c, "")["version"], 3);
    let schema: serde_json::Value =
        serde_json::from_str(&c.request("GET", &format!("/schemas/ids/{id2}"), "").body).unwrap();
    assert_eq!(schema["metadata"]["properties"]["app.version"], "2");
    assert_eq!(
        code(
            &mut c,
            "GET",
            "/subjects/s/metadata?key=owner&value=bob",
            ""
        ),
        (404, 40403)
    );
    assert_eq!(
        code(
            &mut c,
            "GET",
            "/subjects/none/metadata?key=owner&value=ada",
            ""
        ),
        (404, 40401)
    );
    assert_eq!(code(&mut c, "POST", "/subjects/s/metadata", ""), (405, 405));
    assert_eq!(
        c.request("DELETE", "/subjects/s/versions/1", "").status,
        200
    );
    assert_eq!(
        code(
            &mut c,
            "GET",
            "/subjects/s/metadata?key=app.version&value=1",
            ""
        ),
        (404, 40403)
    );
    assert_eq!(
        latest(&mut c, "key=app.version&value=1&deleted=true")["version"],
        1
    );
}

/// GUIDs: answered on registration and with every schema, resolvable by
/// `GET /schemas/guids/{guid}` (any case), one per schema (the same under two subjects, another
/// for other metadata), the same after a restart.
#[test]
fn guids_are_answered_resolvable_and_stable() {
    let path = common::temp_path("guids").with_extension("journal");
    let field = |answer: common::http::Answer, name: &str| -> serde_json::Value {
        let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        json[name].clone()
    };
    let (guid, id) = {
        let reg = start(Some(path.clone()));
        let mut c = Conn::open(reg.addr());
        let registered = c.request("POST", "/subjects/a/versions", &body(V1));
        let guid = field(registered, "guid").as_str().unwrap().to_string();
        assert_eq!(guid.len(), 36, "{guid}");
        let again = c.request("POST", "/subjects/b/versions", &body(V1));
        assert_eq!(field(again, "guid"), guid.as_str());
        let with_metadata =
            serde_json::json!({"schema": V1, "metadata": {"properties": {"k": "v"}}});
        let other = c.request("POST", "/subjects/c/versions", &with_metadata.to_string());
        assert_ne!(field(other, "guid"), guid.as_str());
        let version = c.request("GET", "/subjects/a/versions/1", "");
        assert_eq!(field(version, "guid"), guid.as_str());
        let id = field(c.request("GET", "/subjects/a/versions/1", ""), "id");
        reg.stop();
        (guid, id)
    };
    let reg = start(Some(path));
    let mut c = Conn::open(reg.addr());
    let by_guid = c.request(
        "GET",
        &format!("/schemas/guids/{}", guid.to_uppercase()),
        "",
    );
    assert_eq!(by_guid.status, 200, "{}", by_guid.body);
    assert_eq!(field(by_guid, "guid"), guid.as_str());
    let by_id = c.request("GET", &format!("/schemas/ids/{id}"), "");
    assert_eq!(field(by_id, "guid"), guid.as_str());
    assert_eq!(
        code(
            &mut c,
            "GET",
            "/schemas/guids/00000000-0000-8000-8000-000000000000",
            ""
        ),
        (404, 40403)
    );
    assert_eq!(code(&mut c, "GET", "/schemas/guids/nope", ""), (404, 40403));
    assert_eq!(
        code(&mut c, "DELETE", &format!("/schemas/guids/{guid}"), ""),
        (405, 405)
    );
}
