//! Shims for the Protobuf encoder (format `protobuf-native`).

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{encode_calls, guard, jni_error};
use crate::handles::{drop_handle, into_handle};
use crate::protobuf::ProtobufEncodeSession;

/// `long protobufEncoderOpen(String configJson, byte[] descriptorSet)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufEncoderOpen<
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
        Ok(into_handle(ProtobufEncodeSession::open(
            &text,
            &descriptors,
        )?))
    })
}

/// `int protobufEncodeOneDirect(long handle, long imageAddress, int imageLength, long outAddress,
/// int outCapacity)`: see [`encode_calls::encode_one_direct`].
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufEncodeOneDirect<
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
        encode_calls::encode_one_direct::<ProtobufEncodeSession>(
            handle,
            image_address,
            image_length,
            out_address,
            out_capacity,
        )
    })
}

/// `byte[] protobufEncodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufEncodeBatch<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    message_offsets: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        encode_calls::encode_batch::<ProtobufEncodeSession>(
            env,
            handle,
            data_address,
            lengths_address,
            count,
            &message_offsets,
        )
    })
}

/// `void protobufEncoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_protobufEncoderClose<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<ProtobufEncodeSession>(handle) }
    })
}
