//! Confluent-style error answers of the dev registry: HTTP status plus Confluent's
//! `error_code`, with Confluent's wording where clients match on it.

use super::super::http::Response;

/// An error answer: HTTP status, Confluent error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiError {
    pub status: u16,
    pub error_code: i32,
    pub message: String,
}

impl ApiError {
    fn new(status: u16, error_code: i32, message: impl Into<String>) -> Self {
        ApiError {
            status,
            error_code,
            message: message.into(),
        }
    }

    /// The answer carrying this error.
    pub fn response(&self) -> Response {
        Response::error(self.status, self.error_code, self.message.clone())
    }

    /// 404 / 40401.
    pub fn subject_not_found(subject: &str) -> Self {
        Self::new(404, 40401, format!("Subject '{subject}' not found."))
    }

    /// 404 / 40402.
    pub fn version_not_found(version: &str) -> Self {
        Self::new(404, 40402, format!("Version {version} not found."))
    }

    /// 404 / 40403.
    pub fn schema_not_found() -> Self {
        Self::new(404, 40403, "Schema not found")
    }

    /// 404 / 40404: deleting a subject that is soft-deleted already.
    pub fn subject_soft_deleted(subject: &str) -> Self {
        Self::new(
            404,
            40404,
            format!(
                "Subject '{subject}' was soft deleted.Set permanent=true to delete permanently"
            ),
        )
    }

    /// 404 / 40405: a permanent delete of a subject that was not soft-deleted first.
    pub fn subject_not_soft_deleted(subject: &str) -> Self {
        Self::new(
            404,
            40405,
            format!("Subject '{subject}' was not deleted first before being permanently deleted"),
        )
    }

    /// 404 / 40406: deleting a version that is soft-deleted already.
    pub fn version_soft_deleted(subject: &str, version: i32) -> Self {
        Self::new(
            404,
            40406,
            format!(
                "Subject '{subject}' Version {version} was soft deleted.Set permanent=true to delete permanently"
            ),
        )
    }

    /// 404 / 40407: a permanent delete of a version that was not soft-deleted first.
    pub fn version_not_soft_deleted(subject: &str, version: i32) -> Self {
        Self::new(
            404,
            40407,
            format!(
                "Subject '{subject}' Version {version} was not deleted first before being permanently deleted"
            ),
        )
    }

    /// 404 / 40408.
    pub fn subject_compatibility_not_configured(subject: &str) -> Self {
        Self::new(
            404,
            40408,
            format!("Subject '{subject}' does not have subject-level compatibility configured"),
        )
    }

    /// 404 / 40409.
    pub fn subject_mode_not_configured(subject: &str) -> Self {
        Self::new(
            404,
            40409,
            format!("Subject '{subject}' does not have subject-level mode configured"),
        )
    }

    /// 409 / 409.
    pub fn incompatible(subject: &str, details: &[String]) -> Self {
        Self::new(
            409,
            409,
            format!(
                "Schema being registered is incompatible with an earlier schema for subject \"{subject}\", details: [{}]",
                details.join("; ")
            ),
        )
    }

    /// 422 / 42201.
    pub fn invalid_schema(detail: impl std::fmt::Display) -> Self {
        Self::new(422, 42201, format!("Invalid schema: {detail}"))
    }

    /// 422 / 42202.
    pub fn invalid_version(version: &str) -> Self {
        Self::new(
            422,
            42202,
            format!(
                "The specified version '{version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\""
            ),
        )
    }

    /// 422 / 42203.
    pub fn invalid_compatibility(level: &str) -> Self {
        Self::new(
            422,
            42203,
            format!(
                "Invalid compatibility level '{level}'. Valid values are none, backward, backward_transitive, forward, forward_transitive, full and full_transitive"
            ),
        )
    }

    /// 422 / 42204.
    pub fn invalid_mode(mode: &str) -> Self {
        Self::new(
            422,
            42204,
            format!(
                "Invalid mode '{mode}'. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and IMPORT"
            ),
        )
    }

    /// 422 / 42205.
    pub fn not_permitted(detail: impl std::fmt::Display) -> Self {
        Self::new(422, 42205, format!("Operation not permitted: {detail}"))
    }

    /// 422 / 42206: deleting a schema that other schemas refer to.
    pub fn reference_exists(subject: &str, version: i32, by: &[i32]) -> Self {
        Self::new(
            422,
            42206,
            format!(
                "One or more references exist to the schema {{subject={subject},version={version}}}: schema ids {by:?}"
            ),
        )
    }

    /// 422 / 42207: an IMPORT registration whose id holds another schema.
    pub fn id_does_not_match(detail: impl std::fmt::Display) -> Self {
        Self::new(422, 42207, detail.to_string())
    }

    /// 422 / 42208.
    pub fn invalid_subject(subject: &str) -> Self {
        Self::new(
            422,
            42208,
            format!(
                "The specified subject '{}' is not valid.",
                subject.escape_debug()
            ),
        )
    }

    /// 400 / 400: the request body is not the expected JSON.
    pub fn bad_request(detail: impl std::fmt::Display) -> Self {
        Self::new(400, 400, format!("Malformed request: {detail}"))
    }

    /// 404 / 404: no such endpoint.
    pub fn no_route(method: &str, path: &str) -> Self {
        Self::new(404, 404, format!("HTTP 404 Not Found: {method} {path}"))
    }

    /// 405 / 405: endpoint exists, method does not.
    pub fn method_not_allowed(method: &str, path: &str) -> Self {
        Self::new(
            405,
            405,
            format!("HTTP 405 Method Not Allowed: {method} {path}"),
        )
    }

    /// 500 / 50001.
    pub fn store(detail: impl std::fmt::Display) -> Self {
        Self::new(
            500,
            50001,
            format!("Error in the backend data store: {detail}"),
        )
    }

    /// 500 / 50002: the operation did not settle (concurrent changes kept invalidating it).
    pub fn timeout(detail: impl std::fmt::Display) -> Self {
        Self::new(500, 50002, format!("Operation timed out: {detail}"))
    }
}
