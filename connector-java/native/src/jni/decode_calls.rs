//! The bodies of the per-record and batch decode entry points of formats whose values
//! decode into a row list (JSON, Protobuf): each format's shims only name its session.

use jni::objects::{JByteArray, JIntArray};
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{byte_array_from_parts, check_int_array, copy_byte_array, direct_values, jni_error};
use crate::error::NativeError;
use crate::handles::{borrow_handle, HandleType};
use crate::row_list::{MessageRows, RowListSession};

/// `byte[] *DecodeOne(long handle, byte[] message)`: the row list, or null for no row.
pub(crate) fn decode_one<D: MessageRows>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    message: &JByteArray<'_>,
) -> Result<jbyteArray, NativeError>
where
    RowListSession<D>: HandleType,
{
    // SAFETY: the handle comes from the format's `*DecoderOpen` and is owned by one Java
    // object that calls it from one thread at a time (see `handles`).
    let session = unsafe { borrow_handle::<RowListSession<D>>(handle)? };
    copy_byte_array(env, message, &mut session.message)?;
    match session.decode_held_message()? {
        None => Ok(std::ptr::null_mut()),
        Some(rows) => byte_array_from_parts(env, &[rows.header, rows.images]),
    }
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
    // SAFETY: as in `decode_one`.
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
