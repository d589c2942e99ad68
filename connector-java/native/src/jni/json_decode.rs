//! Shims for the JSON decoder (format `json-native`).

use jni::objects::{JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{decode_calls, guard, jni_error};
use crate::handles::{drop_handle, into_handle};
use crate::json::{JsonDecodeSession, ValueDecoder};

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

/// `int jsonDecodeOneDirect(long handle, long messageAddress, int messageLength, long
/// outAddress, int outCapacity)`: see [`decode_calls::decode_one_direct`].
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_jsonDecodeOneDirect<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    message_address: jlong,
    message_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> jint {
    guard(&mut env, 0, |_| {
        decode_calls::decode_one_direct::<ValueDecoder>(
            decode_calls::OneValueOutput::RowList,
            handle,
            message_address,
            message_length,
            out_address,
            out_capacity,
        )
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
        decode_calls::decode_batch::<ValueDecoder>(
            env,
            handle,
            data_address,
            lengths_address,
            count,
            &value_row_ends,
        )
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
