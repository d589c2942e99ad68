//! Errors to Java exceptions: `io.karrow.flink.nativebridge.KarrowNativeException`
//! constructed with `(String message, int recordIndex, int schemaId)`.

use jni::objects::{JThrowable, JValue};
use jni::JNIEnv;

use crate::error::NativeError;

const EXCEPTION_CLASS: &str = "io/karrow/flink/nativebridge/KarrowNativeException";

/// Makes `error` the pending Java exception (unless one is pending already, e.g. from a
/// failed JNI call, which then wins).
pub(crate) fn throw(env: &mut JNIEnv<'_>, error: &NativeError) {
    if env.exception_check().unwrap_or(false) {
        return;
    }
    let message = error.to_string();
    let record = error
        .record_index()
        .and_then(|i| i32::try_from(i).ok())
        .unwrap_or(-1);
    let schema = error.schema_id().unwrap_or(-1);
    let built = (|| -> jni::errors::Result<JThrowable<'_>> {
        let text = env.new_string(&message)?;
        let obj = env.new_object(
            EXCEPTION_CLASS,
            "(Ljava/lang/String;II)V",
            &[
                JValue::Object(&text),
                JValue::Int(record),
                JValue::Int(schema),
            ],
        )?;
        Ok(JThrowable::from(obj))
    })();
    match built {
        Ok(throwable) => {
            let _ = env.throw(throwable);
        }
        Err(_) => {
            // The exception class is missing or failed to build: fall back to a standard one.
            let _ = env.exception_clear();
            let _ = env.throw_new("java/lang/IllegalStateException", message);
        }
    }
}
