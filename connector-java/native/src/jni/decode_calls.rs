//! The bodies of the per-record and batch decode entry points of formats whose values
//! decode into a row list (JSON, Protobuf): each format's shims only name its session.

use jni::objects::JIntArray;
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{
    byte_array_from_parts, check_int_array, direct_slice, direct_values, jni_error, write_direct,
};
use crate::error::NativeError;
use crate::handles::{borrow_handle, HandleType};
use crate::row_list::{MessageRows, RowListSession};

/// What a per-record decode call writes for the rows of one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OneValueOutput {
    /// The row-list layout (formats whose values give 0..n rows: JSON).
    RowList,
    /// The row's image alone (formats whose values give at most one row: Protobuf).
    SingleImage,
}

/// `int *DecodeOneDirect(long handle, long messageAddress, int messageLength, long outAddress,
/// int outCapacity)`: decodes the message in direct memory and writes its rows (as `output`
/// says) to the direct output buffer when they fit; returns their length (the buffer was
/// too small when that exceeds `outCapacity`: nothing was written, the caller grows it and
/// calls again) or `-1` for no row. Only primitives cross, so a record costs no JNI object
/// calls.
pub(crate) fn decode_one_direct<D: MessageRows>(
    output: OneValueOutput,
    handle: jlong,
    message_address: jlong,
    message_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> Result<jint, NativeError>
where
    RowListSession<D>: HandleType,
{
    // SAFETY: the handle comes from the format's `*DecoderOpen` and is owned by one Java
    // object that calls it from one thread at a time (see `handles`).
    let session = unsafe { borrow_handle::<RowListSession<D>>(handle)? };
    // SAFETY: Java passes a direct buffer holding the message, alive and unmodified for
    // the duration of this call.
    let message = unsafe { direct_slice(message_address, message_length)? };
    let written = match output {
        OneValueOutput::RowList => session
            .decode_message(message)?
            .map(|rows| [rows.header, rows.images]),
        OneValueOutput::SingleImage => session.decode_single(message)?.map(|image| [image, &[]]),
    };
    let Some(parts) = written else {
        return Ok(-1);
    };
    // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else reads
    // or writes during this call.
    unsafe { write_direct(&parts, out_address, out_capacity) }
}

/// `byte[] *DecodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] valueRowEnds)`.
pub(crate) fn decode_batch<D: MessageRows>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    value_row_ends: &JIntArray<'_>,
) -> Result<jbyteArray, NativeError>
where
    RowListSession<D>: HandleType,
{
    // SAFETY: as in `decode_one_direct`.
    let session = unsafe { borrow_handle::<RowListSession<D>>(handle)? };
    check_int_array(env, value_row_ends, count.max(0) as usize)?;
    // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
    // for the duration of this call.
    let values = unsafe { direct_values(data_address, lengths_address, count)? };
    let (rows, ends) = session.decode_batch(values)?;
    env.set_int_array_region(value_row_ends, 0, ends)
        .map_err(jni_error)?;
    byte_array_from_parts(env, &[rows.header, rows.images])
}
