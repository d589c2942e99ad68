//! Shims for the Confluent Avro decoder.

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{check_int_array, copy_byte_array, direct_values, guard, jni_error};
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

/// `byte[] avroDecodeOne(long handle, byte[] message)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecodeOne<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    message: JByteArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        // SAFETY: the handle comes from `avroDecoderOpen` and is owned by one Java object
        // that calls it from one thread at a time (see `handles`).
        let session = unsafe { borrow_handle::<AvroDecodeSession>(handle)? };
        copy_byte_array(env, &message, &mut session.message)?;
        let image = session.decode_held_message()?;
        Ok(env
            .byte_array_from_slice(image)
            .map_err(jni_error)?
            .into_raw())
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
        // SAFETY: as in `avroDecodeOne`.
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
