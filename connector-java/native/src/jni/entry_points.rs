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
use crate::handles::{self, with_session, with_two_sessions};
use crate::session::{OneValueRows, Session, SessionKind};
use crate::value_batch::ValueBatch;

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
        // The configuration may hold secrets (a password, a token, a key): zeroed once used.
        let text =
            zeroize::Zeroizing::new(String::from(env.get_string(&config).map_err(jni_error)?));
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

/// `void wake(long handle)`: wakes the session's blocking call (a fetch poll) from another
/// thread; the one call that may overlap another call on the same handle.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_wake<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| handles::wake(handle))
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
    let direct = Direct {
        in_address,
        in_length,
        out_address,
        out_capacity,
    };
    guard(&mut env, 0, |_| one_direct(handle, direct, decode_one))
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
    let values = Batch {
        data_address,
        lengths_address,
        count,
    };
    guard(&mut env, std::ptr::null_mut(), |env| {
        batch(env, handle, values, &value_row_ends, 0, decode_batch)
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
    let direct = Direct {
        in_address,
        in_length,
        out_address,
        out_capacity,
    };
    guard(&mut env, 0, |_| one_direct(handle, direct, encode_one))
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
    let images = Batch {
        data_address,
        lengths_address,
        count,
    };
    guard(&mut env, std::ptr::null_mut(), |env| {
        batch(env, handle, images, &offsets, 1, encode_batch)
    })
}

/// The direct memory of a per-record call: the input and the output buffer.
#[derive(Clone, Copy)]
struct Direct {
    in_address: jlong,
    in_length: jint,
    out_address: jlong,
    out_capacity: jint,
}

/// The direct memory of a batch call: values back to back and their lengths.
#[derive(Clone, Copy)]
struct Batch {
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
}

/// The body of the per-record calls: `call` turns the input (`None` when `inLength` is
/// -1: a null value) into parts written back to back to the output buffer (`None`: no
/// result, `-1`).
#[inline]
fn one_direct<F>(handle: jlong, direct: Direct, call: F) -> Result<jint, NativeError>
where
    F: for<'s> FnOnce(
        &'s mut dyn Session,
        Option<&[u8]>,
    ) -> Result<Option<OneValueRows<'s>>, NativeError>,
{
    let input = if direct.in_length == -1 {
        None
    } else {
        // SAFETY: Java passes a direct buffer holding the input, alive and unmodified for
        // the duration of this call.
        Some(unsafe { direct_slice(direct.in_address, direct.in_length)? })
    };
    with_session(handle, |session| {
        let Some(parts) = call(session, input)? else {
            return Ok(-1);
        };
        // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else
        // reads or writes during this call.
        unsafe { write_direct(&parts, direct.out_address, direct.out_capacity) }
    })
}

/// The body of the batch calls: `call` turns the values into parts returned in one new
/// `byte[]` and ints written to `ints` (which must hold `count + extra_ints`).
fn batch<F>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    values: Batch,
    ints: &JIntArray<'_>,
    extra_ints: usize,
    call: F,
) -> Result<jbyteArray, NativeError>
where
    F: for<'s> FnOnce(&'s mut dyn Session, ValueBatch<'_>) -> Result<BatchOutput<'s>, NativeError>,
{
    check_int_array(env, ints, values.count.max(0) as usize + extra_ints)?;
    // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified for
    // the duration of this call.
    let values =
        unsafe { direct_values(values.data_address, values.lengths_address, values.count)? };
    with_session(handle, |session| {
        let (parts, written) = call(session, values)?;
        env.set_int_array_region(ints, 0, written)
            .map_err(jni_error)?;
        byte_array_from_parts(env, &parts)
    })
}

/// What a batch call returns: the bytes of its `byte[]` in parts, and its ints.
type BatchOutput<'s> = ([&'s [u8]; 2], &'s [i32]);

fn decode_one<'s>(
    session: &'s mut dyn Session,
    value: Option<&[u8]>,
) -> Result<Option<OneValueRows<'s>>, NativeError> {
    session.decode_one(value)
}

fn encode_one<'s>(
    session: &'s mut dyn Session,
    image: Option<&[u8]>,
) -> Result<Option<OneValueRows<'s>>, NativeError> {
    let image = image.ok_or_else(|| NativeError::InvalidCall("a row image is null".into()))?;
    Ok(Some([session.encode_one(image)?, &[]]))
}

fn decode_batch<'s>(
    session: &'s mut dyn Session,
    values: ValueBatch<'_>,
) -> Result<BatchOutput<'s>, NativeError> {
    let (rows, ends) = session.decode_batch(values)?;
    Ok(([rows.header, rows.images], ends))
}

fn encode_batch<'s>(
    session: &'s mut dyn Session,
    images: ValueBatch<'_>,
) -> Result<BatchOutput<'s>, NativeError> {
    let images = images
        .map(|i| i.ok_or_else(|| NativeError::InvalidCall("a row image is null".into())))
        .collect::<Result<Vec<_>, _>>()?;
    let (values, offsets) = session.encode_batch(&images)?;
    Ok(([values, &[]], offsets))
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
        // A request may carry a token (`set_token`): zeroed once used.
        let request =
            zeroize::Zeroizing::new(String::from(env.get_string(&request).map_err(jni_error)?));
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

/// `long runBatch(long handle, long dataAddress, long lengthsAddress, int count)`: a fully
/// fused session (kind 8 with an encode stage) decodes the values (laid out as for
/// `decodeBatch`), runs its Calc and encodes the kept rows with the sink's formats; returns
/// the handle of a new encoded batch (kind 10) holding the records, owned by the caller.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_runBatch<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
) -> jlong {
    guard(&mut env, 0, |_| {
        // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
        // for the duration of this call.
        let values = unsafe { direct_values(data_address, lengths_address, count)? };
        let batch = with_session(handle, |session| session.run_batch(values))?;
        handles::open(batch)
    })
}

/// `int handOver(long batch, long producer)`: appends the records of an encoded batch to a
/// native producer (kind 9) in order; returns the records appended. A batch is handed over
/// once. When its fetched batch failed, the records before the failing value are appended
/// and the call then fails with that value's error (its index as the record index).
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_handOver<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    batch: jlong,
    producer: jlong,
) -> jint {
    guard(&mut env, 0, |_| {
        with_two_sessions(batch, producer, crate::encoded_batch::hand_over)
    })
}
