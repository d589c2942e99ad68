//! Shims for the Protobuf decoder (format `protobuf-native`).

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{decode_calls, guard, jni_error};
use crate::handles::{drop_handle, into_handle};
use crate::protobuf::{ProtobufDecodeSession, ProtobufValueDecoder};

/// `long protobufDecoderOpen(String configJson, byte[] descriptorSet)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufDecoderOpen<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
    descriptor_set: JByteArray<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        let descriptors = env.convert_byte_array(&descriptor_set).map_err(jni_error)?;
        Ok(into_handle(ProtobufDecodeSession::open(
            &text,
            &descriptors,
        )?))
    })
}

/// `int protobufDecodeOneDirect(long handle, long messageAddress, int messageLength, long
/// outAddress, int outCapacity)`: the message's row image alone, see
/// [`decode_calls::decode_one_direct`].
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufDecodeOneDirect<
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
        decode_calls::decode_one_direct::<ProtobufValueDecoder>(
            decode_calls::OneValueOutput::SingleImage,
            handle,
            message_address,
            message_length,
            out_address,
            out_capacity,
        )
    })
}

/// `byte[] protobufDecodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufDecodeBatch<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    value_row_ends: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        decode_calls::decode_batch::<ProtobufValueDecoder>(
            env,
            handle,
            data_address,
            lengths_address,
            count,
            &value_row_ends,
        )
    })
}

/// `void protobufDecoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufDecoderClose<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<ProtobufDecodeSession>(handle) }
    })
}
