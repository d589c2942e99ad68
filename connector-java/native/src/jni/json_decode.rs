//! Shims for the JSON decoder (format `json-native`).

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{
    byte_array_from_parts, check_int_array, copy_byte_array, direct_values, guard, jni_error,
};
use crate::handles::{borrow_handle, drop_handle, into_handle};
use crate::json::JsonDecodeSession;

/// `long jsonDecoderOpen(String configJson)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonDecoderOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        Ok(into_handle(JsonDecodeSession::open(&text)?))
    })
}

/// `byte[] jsonDecodeOne(long handle, byte[] message)`: the row list, or null for no row.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonDecodeOne<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    message: JByteArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: the handle comes from `jsonDecoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<JsonDecodeSession>(handle)? };
        copy_byte_array(env, &message, &mut session.message)?;
        match session.decode_held_message()? {
            None => Ok(std::ptr::null_mut()),
            Some(rows) => byte_array_from_parts(env, &[rows.header, rows.images]),
        }
    })
}

/// `byte[] jsonDecodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonDecodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    value_row_ends: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: as in `jsonDecodeOne`.
        let session = unsafe { borrow_handle::<JsonDecodeSession>(handle)? };
        check_int_array(env, &value_row_ends, count.max(0) as usize)?;
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let values = unsafe { direct_values(data_address, lengths_address, count)? };
        let (rows, ends) = session.decode_batch(values)?;
        env.set_int_array_region(&value_row_ends, 0, ends)
            .map_err(jni_error)?;
        byte_array_from_parts(env, &[rows.header, rows.images])
    })
}

/// `void jsonDecoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonDecoderClose<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<JsonDecodeSession>(handle) }
    })
}
