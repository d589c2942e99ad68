//! Shims for the Confluent Avro decoder.

use jni::objects::{JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{check_int_array, direct_slice, direct_values, guard, jni_error, write_direct};
use crate::avro::AvroDecodeSession;
use crate::handles::{borrow_handle, drop_handle, into_handle};

/// `long avroDecoderOpen(String configJson)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecoderOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        Ok(into_handle(AvroDecodeSession::open(&text)?))
    })
}

/// `int avroDecodeOneDirect(long handle, long messageAddress, int messageLength, long
/// outAddress, int outCapacity)`: decodes the message in direct memory into one binary row
/// image, written to the direct output buffer when it fits; returns the image's length
/// (nothing was written when that exceeds `outCapacity`: grow and call again).
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecodeOneDirect<
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
        // SAFETY: the handle comes from `avroDecoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<AvroDecodeSession>(handle)? };
        // SAFETY: Java passes a direct buffer holding the message, alive and unmodified for
        // the duration of this call.
        let message = unsafe { direct_slice(message_address, message_length)? };
        let image = session.decode_message(message)?;
        // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else
        // reads or writes during this call.
        unsafe { write_direct(&[image], out_address, out_capacity) }
    })
}

/// `byte[] avroDecodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] rowOffsets)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    row_offsets: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: as in `avroDecodeOneDirect`.
        let session = unsafe { borrow_handle::<AvroDecodeSession>(handle)? };
        check_int_array(env, &row_offsets, count.max(0) as usize + 1)?;
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let values = unsafe { direct_values(data_address, lengths_address, count)? };
        let (images, starts) = session.decode_batch(values)?;
        env.set_int_array_region(&row_offsets, 0, &starts)
            .map_err(jni_error)?;
        Ok(env
            .byte_array_from_slice(images)
            .map_err(jni_error)?
            .into_raw())
    })
}

/// `void avroDecoderClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecoderClose<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the single owner closes the handle exactly once (see `handles`).
        unsafe { drop_handle::<AvroDecodeSession>(handle) }
    })
}
