//! The bodies of the per-record and batch encode entry points, shared by every format's
//! shims (`avro_encode.rs`, `json_encode.rs`): a format's encode session implements
//! [`EncodeSession`], its shims only name the session type.

use jni::objects::JIntArray;
use jni::sys::{jbyteArray, jint, jlong};
use jni::JNIEnv;

use super::{check_int_array, direct_slice, direct_values, jni_error, write_direct};
use crate::error::NativeError;
use crate::handles::{borrow_handle, HandleType};

/// What the shared encode calls need from a format's encode session.
pub(crate) trait EncodeSession: HandleType {
    /// Encodes one row image into one Kafka value.
    fn encode_image(&mut self, image: &[u8]) -> Result<&[u8], NativeError>;
    /// Encodes row images into values laid out back to back, with `count + 1` offsets.
    fn encode_images(&mut self, images: Vec<&[u8]>) -> Result<(&[u8], &[i32]), NativeError>;
}

/// `int *EncodeOneDirect(long handle, long imageAddress, int imageLength, long outAddress,
/// int outCapacity)`: encodes the row image in direct memory into one Kafka value, written
/// to the direct output buffer when it fits; returns the value's length (nothing was
/// written when that exceeds `outCapacity`: the caller grows the buffer and calls again).
pub(crate) fn encode_one_direct<S: EncodeSession>(
    handle: jlong,
    image_address: jlong,
    image_length: jint,
    out_address: jlong,
    out_capacity: jint,
) -> Result<jint, NativeError> {
    // SAFETY: the handle comes from the format's `*EncoderOpen` and is owned by one Java
    // object that calls it from one thread at a time (see `handles`).
    let session = unsafe { borrow_handle::<S>(handle)? };
    // SAFETY: Java passes a direct buffer holding the row image, alive and unmodified for
    // the duration of this call.
    let image = unsafe { direct_slice(image_address, image_length)? };
    let message = session.encode_image(image)?;
    // SAFETY: Java passes a direct buffer of `out_capacity` bytes that nothing else reads
    // or writes during this call.
    unsafe { write_direct(&[message], out_address, out_capacity) }
}

/// `byte[] *EncodeBatch(long handle, long dataAddress, long lengthsAddress, int count, int[] messageOffsets)`.
pub(crate) fn encode_batch<S: EncodeSession>(
    env: &mut JNIEnv<'_>,
    handle: jlong,
    data_address: jlong,
    lengths_address: jlong,
    count: jint,
    message_offsets: &JIntArray<'_>,
) -> Result<jbyteArray, NativeError> {
    // SAFETY: as in `encode_one_direct`.
    let session = unsafe { borrow_handle::<S>(handle)? };
    check_int_array(env, message_offsets, count.max(0) as usize + 1)?;
    // SAFETY: Java passes direct buffers in the documented layout, alive and unmodified
    // for the duration of this call.
    let images = unsafe { direct_values(data_address, lengths_address, count)? };
    let images = images
        .into_iter()
        .map(|i| i.ok_or_else(|| NativeError::InvalidCall("a row image is null".into())))
        .collect::<Result<Vec<_>, _>>()?;
    let (messages, offsets) = session.encode_images(images)?;
    env.set_int_array_region(message_offsets, 0, offsets)
        .map_err(jni_error)?;
    Ok(env
        .byte_array_from_slice(messages)
        .map_err(jni_error)?
        .into_raw())
}
