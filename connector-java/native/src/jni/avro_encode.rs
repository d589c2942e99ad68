//! Shims for the Confluent Avro encoder.

use jni::objects::{JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{encode_calls, guard, jni_error};
use crate::avro::AvroEncodeSession;
use crate::handles::{borrow_handle, drop_handle, into_handle};

/// `long avroEncoderOpen(String configJson)`: registers the writer schema.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroEncoderOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        Ok(into_handle(AvroEncodeSession::open(&text)?))
    })
}

/// `int avroEncoderSchemaId(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroEncoderSchemaId<
    'local,
>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    guard(&mut env, -1, |_| {
        // SAFETY: the handle comes from `avroEncoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<AvroEncodeSession>(handle)? };
        Ok(session.schema_id())
    })
}

/// `int avroEncodeOneDirect(long handle, long imageAddress, int imageLength, long outAddress,
/// int outCapacity)`: see [`encode_calls::encode_one_direct`].
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroEncodeOneDirect<
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
        encode_calls::encode_one_direct::<AvroEncodeSession>(
            handle,
            image_address,
            image_length,
            out_address,
            out_capacity,
        )
    })
}

/// `byte[] avroEncodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroEncodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    message_offsets: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        encode_calls::encode_batch::<AvroEncodeSession>(
            env,
            handle,
            data_address,
            lengths_address,
            count,
            &message_offsets,
        )
    })
}

/// `void avroEncoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroEncoderClose<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<AvroEncodeSession>(handle) }
    })
}
