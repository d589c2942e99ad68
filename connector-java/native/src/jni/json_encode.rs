//! Shims for the JSON encoder (formats `json-native` and `json-confluent-native`).

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{check_int_array, copy_byte_array, direct_values, guard, jni_error};
use crate::error::NativeError;
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

/// `byte[] jsonEncodeOne(long handle, byte[] rowImage)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonEncodeOne<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    row_image: JByteArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: the handle comes from `jsonEncoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<JsonEncodeSession>(handle)? };
        copy_byte_array(env, &row_image, &mut session.image)?;
        let message = session.encode_held_image()?;
        Ok(env
            .byte_array_from_slice(message)
            .map_err(jni_error)?
            .into_raw())
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
        // SAFETY: as in `jsonEncodeOne`.
        let session = unsafe { borrow_handle::<JsonEncodeSession>(handle)? };
        check_int_array(env, &message_offsets, count.max(0) as usize + 1)?;
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let images = unsafe { direct_values(data_address, lengths_address, count)? };
        let images = images
            .into_iter()
            .map(|i| i.ok_or_else(|| NativeError::InvalidCall("a row image is null".into())))
            .collect::<Result<Vec<_>, _>>()?;
        let (messages, offsets) = session.encode_batch(images)?;
        env.set_int_array_region(&message_offsets, 0, offsets)
            .map_err(jni_error)?;
        Ok(env
            .byte_array_from_slice(messages)
            .map_err(jni_error)?
            .into_raw())
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
