//! Confluent-style error answers of the dev registry: HTTP status plus `error_code`.

use crate::wire::ErrorPayload;

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
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::new(
            500,
            50001,
            format!("Error in the backend data store: {detail}"),
        )
    }

    /// The JSON body of this answer.
    pub fn payload(&self) -> ErrorPayload {
        ErrorPayload {
            error_code: self.error_code,
            message: self.message.clone(),
        }
    }
}
