//! The JNI shims of `io.karrow.flink.nativebridge.KarrowNative` (`docs/jni-contract.md`).
//!
//! Each shim converts its arguments, calls one plain Rust function returning `Result`,
//! and converts the result back. [`guard`] catches panics and turns every error into a
//! `KarrowNativeException` carrying the record index and schema id, so nothing unwinds
//! into the JVM.

mod exceptions;

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::objects::{JByteArray, JClass, JIntArray, JString};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use crate::avro::AvroSession;
use crate::error::NativeError;
use crate::handles::{borrow_handle, drop_handle, into_handle};

/// Runs `f`, mapping an error or a panic to a pending Java exception and `fallback`.
fn guard<'local, T>(
    env: &mut JNIEnv<'local>,
    fallback: T,
    f: impl FnOnce(&mut JNIEnv<'local>) -> Result<T, NativeError>,
) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(|| f(env)));
    let error = match outcome {
        Ok(Ok(value)) => return value,
        Ok(Err(e)) => e,
        Err(panic) => {
            let text = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            NativeError::Panic(text)
        }
    };
    exceptions::throw(env, &error);
    fallback
}

fn jni_error(e: jni::errors::Error) -> NativeError {
    NativeError::InvalidCall(format!("JNI: {e}"))
}

/// `long avroDecoderOpen(String configJson)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_avroDecoderOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        let session = AvroSession::open(&text)?;
        Ok(into_handle(session))
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
        let session = unsafe { borrow_handle::<AvroSession>(handle)? };
        if message.is_null() {
            return Err(NativeError::InvalidCall("message is null".into()));
        }
        let len = env.get_array_length(&message).map_err(jni_error)? as usize;
        session.message.resize(len, 0);
        // SAFETY: `u8` and `i8` have the same size and alignment; the slice covers exactly
        // the vector's initialised bytes and is not used elsewhere during the call.
        let as_jbytes = unsafe {
            std::slice::from_raw_parts_mut(session.message.as_mut_ptr().cast::<i8>(), len)
        };
        env.get_byte_array_region(&message, 0, as_jbytes)
            .map_err(jni_error)?;
        let image = session.decode_held_message()?;
        let out = env.byte_array_from_slice(image).map_err(jni_error)?;
        Ok(out.into_raw())
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
        let session = unsafe { borrow_handle::<AvroSession>(handle)? };
        let count = usize::try_from(count)
            .map_err(|_| NativeError::InvalidCall(format!("negative count {count}")))?;
        if count > 0 && (data_address == 0 || lengths_address == 0) {
            return Err(NativeError::InvalidCall(
                "null data or lengths address".into(),
            ));
        }
        let offsets_len = env.get_array_length(&row_offsets).map_err(jni_error)? as usize;
        if offsets_len < count + 1 {
            return Err(NativeError::InvalidCall(format!(
                "rowOffsets has {offsets_len} entries, needs {}",
                count + 1
            )));
        }
        let lengths: &[i32] = if count == 0 {
            &[]
        } else {
            // SAFETY: Java passes the address of a direct buffer holding `count` int32
            // lengths, alive and unmodified for the duration of this call.
            unsafe { std::slice::from_raw_parts(lengths_address as *const i32, count) }
        };
        let total: usize = lengths
            .iter()
            .filter(|l| **l > 0)
            .map(|l| *l as usize)
            .sum();
        let data: &[u8] = if total == 0 {
            &[]
        } else {
            // SAFETY: Java passes the address of a direct buffer holding the values back to
            // back, `total` bytes in all, alive and unmodified for the duration of this call.
            unsafe { std::slice::from_raw_parts(data_address as *const u8, total) }
        };
        let mut at = 0usize;
        let values = lengths.iter().map(|&len| {
            if len < 0 {
                None
            } else {
                let v = &data[at..at + len as usize];
                at += len as usize;
                Some(v)
            }
        });
        let (images, starts) = session.decode_batch(values)?;
        env.set_int_array_region(&row_offsets, 0, &starts)
            .map_err(jni_error)?;
        let out = env.byte_array_from_slice(images).map_err(jni_error)?;
        Ok(out.into_raw())
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
        unsafe { drop_handle::<AvroSession>(handle) }
    })
}
