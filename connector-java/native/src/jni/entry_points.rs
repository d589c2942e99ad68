//! Every `extern "system"` entry point of `KarrowNative` (`docs/jni-contract.md`). They are
//! generic: a handle names a session of any kind and the call is dispatched to it through
//! [`Session`]; a kind that does not answer a call fails with a clear error.

use jni::objects::{JByteArray, JClass, JIntArray, JLongArray, JString};
use jni::sys::{jbyteArray, jint, jlong, jlongArray, jstring};
use jni::JNIEnv;

use super::{
    byte_array_from_parts, check_int_array, direct_out, direct_slice, direct_values, guard,
    jni_error, write_direct,
};
use crate::error::NativeError;
use crate::handles::{self, with_session};
use crate::session::{Session, SessionKind};

/// `long open(int kind, String configJson, byte[] bytes)`: opens a session of `kind`;
/// `bytes` (may be null) is the kind's binary argument (a Protobuf descriptor set).
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_open<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    kind: jint,
    config: JString<'local>,
    bytes: JByteArray<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let kind = SessionKind::from_code(kind)?;
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        let bytes = if bytes.is_null() {
            Vec::new()
        } else {
            env.convert_byte_array(&bytes).map_err(jni_error)?
        };
        handles::open(kind.open(&text, &bytes)?)
    })
}

/// `void close(long handle)`: frees the session; 0 is a no-op, a handle closed already (or
/// not a handle) an error.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_close<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| handles::close(handle))
}

/// `long[] stats()`: per kind code `k`, the open handles at `2k` and the bytes their
/// sessions retain at `2k + 1`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_stats<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
) -> jlongArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let stats = handles::stats();
        let values: Vec<i64> = (0..SessionKind::CODES)
            .flat_map(|k| [stats.live_handles[k], stats.retained_bytes[k]])
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
            .collect();
        let array = env.new_long_array(values.len() as i32).map_err(jni_error)?;
        env.set_long_array_region(&array, 0, &values)
            .map_err(jni_error)?;
        Ok(array.into_raw())
    })
}

/// `int schemaId(long handle)`: the schema id the session writes in every header, `-1` when
/// it writes none.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_schemaId<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) -> jint {
    guard(&mut env, -1, |_| {
        with_session(handle, |session| Ok(session.schema_id().unwrap_or(-1)))
    })
}

/// `int decodeOneDirect(long handle, long inAddress, int inLength, long outAddress, int
/// outCapacity)`: decodes the value in direct memory and writes its rows (the row-list
/// layout, or the image alone for kinds whose values give at most one row) to the direct
/// output buffer when they fit; returns their length (more than `outCapacity`: nothing was
/// written, the caller grows the buffer and calls again) or `-1` for no row. Only
/// primitives cross, so a record costs no JNI object calls.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_decodeOneDirect<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    in_address: jlong,
    in_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> jint {
    guard(&mut env, 0, |_| {
        // SAFETY: Java passes a direct buffer holding the value, alive and unmodified for
        // the duration of this call.
        let value = unsafe { direct_slice(in_address, in_length)? };
        with_session(handle, |session| {
            let Some(parts) = session.decode_one(value)? else {
                return Ok(-1);
            };
            // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else
            // reads or writes during this call.
            unsafe { write_direct(&parts, out_address, out_capacity) }
        })
    })
}

/// `byte[] decodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[]
/// valueRowEnds)`: the rows of all values in the row-list layout; `valueRowEnds[i]` receives
/// the number of rows of values `0..=i`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_decodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    value_row_ends: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        check_int_array(env, &value_row_ends, count.max(0) as usize)?;
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let values = unsafe { direct_values(data_address, lengths_address, count)? };
        with_session(handle, |session| {
            let (rows, ends) = session.decode_batch(values)?;
            env.set_int_array_region(&value_row_ends, 0, ends)
                .map_err(jni_error)?;
            byte_array_from_parts(env, &[rows.header, rows.images])
        })
    })
}

/// `int encodeOneDirect(long handle, long inAddress, int inLength, long outAddress, int
/// outCapacity)`: encodes the row image in direct memory into one Kafka value, written to
/// the direct output buffer when it fits; returns the value's length (more than
/// `outCapacity`: nothing was written, grow the buffer and call again).
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_encodeOneDirect<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    in_address: jlong,
    in_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> jint {
    guard(&mut env, 0, |_| {
        // SAFETY: Java passes a direct buffer holding the row image, alive and unmodified
        // for the duration of this call.
        let image = unsafe { direct_slice(in_address, in_length)? };
        with_session(handle, |session| {
            let value = session.encode_one(image)?;
            // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else
            // reads or writes during this call.
            unsafe { write_direct(&[value], out_address, out_capacity) }
        })
    })
}

/// `byte[] encodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[]
/// offsets)`: all values concatenated; `offsets` (`count + 1` entries) receives their starts
/// and the end.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_encodeBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    offsets: JIntArray<'local>,
) -> jbyteArray {
    guard(&mut env, std::ptr::null_mut(), |env| {
        check_int_array(env, &offsets, count.max(0) as usize + 1)?;
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let images = unsafe { direct_values(data_address, lengths_address, count)? }
            .map(|i| i.ok_or_else(|| NativeError::InvalidCall("a row image is null".into())))
            .collect::<Result<Vec<_>, _>>()?;
        with_session(handle, |session| {
            let (values, ends) = session.encode_batch(&images)?;
            env.set_int_array_region(&offsets, 0, ends)
                .map_err(jni_error)?;
            Ok(env
                .byte_array_from_slice(values)
                .map_err(jni_error)?
                .into_raw())
        })
    })
}

/// `String control(long handle, String request)`: a request off the per-record and
/// per-batch paths (JSON with an `"op"`, e.g. a fetch assignment change); returns the reply
/// (JSON).
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_control<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    request: JString<'local>,
) -> jstring {
    guard(&mut env, std::ptr::null_mut(), |env| {
        let request: String = env.get_string(&request).map_err(jni_error)?.into();
        let reply = with_session(handle, |session| session.control(&request))?;
        Ok(env.new_string(reply).map_err(jni_error)?.into_raw())
    })
}

/// `void poll(long handle, long summaryAddress, int summaryLongs)`: one round of the
/// session's work (fetch: one Fetch request per leader); writes its summary, exactly
/// `summaryLongs` little-endian `int64`, to the direct buffer at `summaryAddress`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_poll<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    summary_address: jlong,
    summary_longs: jint,
) {
    guard(&mut env, (), |_| {
        with_session(handle, |session| {
            let summary = session.poll()?;
            if usize::try_from(summary_longs).ok() != Some(summary.len()) {
                return Err(NativeError::InvalidCall(format!(
                    "the summary has {} longs, the buffer {summary_longs}",
                    summary.len()
                )));
            }
            // SAFETY: Java passes a direct buffer of `summary_longs` longs that nothing else
            // uses during this call.
            let out = unsafe { direct_out(summary_address, summary_longs.saturating_mul(8))? };
            for (to, value) in out.chunks_exact_mut(8).zip(summary) {
                to.copy_from_slice(&value.to_le_bytes());
            }
            Ok(())
        })
    })
}

/// `void copyOut(long handle, long[] addresses)`: copies the parts of the last poll into
/// the direct buffers at `addresses` (one per part, in the kind's order), which Java sized
/// from the poll's summary.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_copyOut<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    addresses: JLongArray<'local>,
) {
    guard(&mut env, (), |env| {
        let count = env.get_array_length(&addresses).map_err(jni_error)?;
        let mut targets = vec![0i64; usize::try_from(count).unwrap_or(0)];
        env.get_long_array_region(&addresses, 0, &mut targets)
            .map_err(jni_error)?;
        with_session(handle, |session| copy_out(session, &targets))
    })
}

/// `void copyIn(long handle, long[] addresses, int[] lengths, int count)`: hands the session
/// `count` items laid out in the direct buffers at `addresses` (`lengths[i]` bytes each; one
/// per part, in the kind's order): the mirror of `copyOut`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_copyIn<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    addresses: JLongArray<'local>,
    lengths: JIntArray<'local>,
    count: jint,
) {
    guard(&mut env, (), |env| {
        let parts = env.get_array_length(&addresses).map_err(jni_error)?;
        if env.get_array_length(&lengths).map_err(jni_error)? != parts {
            return Err(NativeError::InvalidCall(
                "copyIn: as many lengths as addresses are needed".into(),
            ));
        }
        let parts = usize::try_from(parts).unwrap_or(0);
        let mut at = vec![0i64; parts];
        let mut len = vec![0i32; parts];
        env.get_long_array_region(&addresses, 0, &mut at)
            .map_err(jni_error)?;
        env.get_int_array_region(&lengths, 0, &mut len)
            .map_err(jni_error)?;
        let count = usize::try_from(count)
            .map_err(|_| NativeError::InvalidCall(format!("negative count {count}")))?;
        let slices = at
            .iter()
            .zip(&len)
            // SAFETY: Java passes, per part, a direct buffer holding `length` readable bytes
            // at `address`, alive and unmodified for the duration of this call.
            .map(|(&address, &length)| unsafe { direct_slice(address, length) })
            .collect::<Result<Vec<&[u8]>, _>>()?;
        with_session(handle, |session| session.copy_in(&slices, count))
    })
}

fn copy_out(session: &mut dyn Session, targets: &[i64]) -> Result<(), NativeError> {
    let parts = session.polled_parts()?;
    if parts.len() != targets.len() {
        return Err(NativeError::InvalidCall(format!(
            "the poll has {} parts, Java passed {} addresses",
            parts.len(),
            targets.len()
        )));
    }
    for (part, &address) in parts.iter().zip(targets) {
        if part.is_empty() {
            continue;
        }
        let length = i32::try_from(part.len())
            .map_err(|_| NativeError::InvalidCall(format!("a {}-byte part", part.len())))?;
        // SAFETY: Java sized each buffer from the summary of this poll (at least the part's
        // length) and nothing else uses it during this call.
        let out = unsafe { direct_out(address, length)? };
        out.copy_from_slice(part);
    }
    Ok(())
}
