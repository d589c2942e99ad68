//! Shims for the JSON encoder (formats `json-native` and `json-confluent-native`).

use jni::objects::{JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{encode_calls, guard, jni_error};
use crate::handles::{borrow_handle, drop_handle, into_handle};
use crate::json::JsonEncodeSession;

/// `long jsonEncoderOpen(String configJson)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncoderOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        Ok(into_handle(JsonEncodeSession::open(&text)?))
    })
}

/// `int jsonEncoderSchemaId(long handle)`: the registered writer schema id, `-1` for an
/// encoder without Confluent framing.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncoderSchemaId<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    guard(&mut env, -1, |_| {
        // SAFETY: the handle comes from `jsonEncoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<JsonEncodeSession>(handle)? };
        Ok(session.schema_id().unwrap_or(-1))
    })
}

/// `int jsonEncodeOneDirect(long handle, long imageAddress, int imageLength, long outAddress,
/// int outCapacity)`: see [`encode_calls::encode_one_direct`].
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncodeOneDirect<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    image_address: jlong,
    image_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> jint {
    guard(&mut env, 0, |_| {
        encode_calls::encode_one_direct::<JsonEncodeSession>(
            handle,
            image_address,
            image_length,
            out_address,
            out_capacity,
        )
    })
}

/// `byte[] jsonEncodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    message_offsets: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        encode_calls::encode_batch::<JsonEncodeSession>(
            env,
            handle,
            data_address,
            lengths_address,
            count,
            &message_offsets,
        )
    })
}

/// `void jsonEncoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncoderClose<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<JsonEncodeSession>(handle) }
    })
}
