//! The JNI shims of `io.karrow.flink.nativebridge.KarrowNative` (`docs/jni-contract.md`).
//!
//! The entry points (`entry_points.rs`) are generic over the session kind: each converts
//! its arguments, finds the session by handle and calls one [`crate::session::Session`]
//! method, and converts the result back. [`guard`] catches panics and turns every error
//! into a `KarrowNativeException` carrying the record index and schema id, so nothing
//! unwinds into the JVM. Helpers shared by the shims (direct memory in and out, byte
//! arrays out) live here.

mod entry_points;
mod exceptions;

use std::panic::{catch_unwind, AssertUnwindSafe};

use jni::objects::JIntArray;
use jni::sys::jbyteArray;
use jni::JNIEnv;

use crate::error::NativeError;
use crate::value_batch::ValueBatch;

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

/// A new Java `byte[]` holding `parts` back to back (one allocation, one copy per part).
fn byte_array_from_parts(env: &mut JNIEnv<'_>, parts: &[&[u8]]) -> Result<jbyteArray, NativeError> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let length = i32::try_from(total)
        .map_err(|_| NativeError::InvalidCall(format!("{total} bytes do not fit a Java byte[]")))?;
    let array = env.new_byte_array(length).map_err(jni_error)?;
    let mut at = 0i32;
    for part in parts.iter().filter(|p| !p.is_empty()) {
        // SAFETY: `u8` and `i8` have the same size and alignment; the slice covers exactly
        // the part's bytes, which are only read.
        let as_jbytes =
            unsafe { std::slice::from_raw_parts(part.as_ptr().cast::<i8>(), part.len()) };
        env.set_byte_array_region(&array, at, as_jbytes)
            .map_err(jni_error)?;
        // Cannot overflow: the parts sum to `length`.
        at += part.len() as i32;
    }
    Ok(array.into_raw())
}

/// Checks that a Java `int[]` can take `needed` entries.
fn check_int_array(
    env: &mut JNIEnv<'_>,
    array: &JIntArray<'_>,
    needed: usize,
) -> Result<(), NativeError> {
    let len = env.get_array_length(array).map_err(jni_error)? as usize;
    if len < needed {
        return Err(NativeError::InvalidCall(format!(
            "int[] has {len} entries, needs {needed}"
        )));
    }
    Ok(())
}

/// `length` bytes of direct memory at `address`, read-only.
///
/// # Safety
/// `address` must point to at least `length` readable bytes that stay alive and unmodified
/// for the lifetime `'a` (the duration of the native call).
unsafe fn direct_slice<'a>(address: i64, length: i32) -> Result<&'a [u8], NativeError> {
    let length = usize::try_from(length)
        .map_err(|_| NativeError::InvalidCall(format!("negative length {length}")))?;
    if length == 0 {
        return Ok(&[]);
    }
    if address == 0 {
        return Err(NativeError::InvalidCall("null message address".into()));
    }
    // SAFETY: the caller guarantees `length` readable bytes at this address.
    Ok(unsafe { std::slice::from_raw_parts(address as *const u8, length) })
}

/// `capacity` bytes of direct memory at `address`, writable.
///
/// # Safety
/// `address` must point to at least `capacity` writable bytes that nothing else reads or
/// writes for the lifetime `'a` (the duration of the native call).
unsafe fn direct_out<'a>(address: i64, capacity: i32) -> Result<&'a mut [u8], NativeError> {
    let capacity = usize::try_from(capacity)
        .map_err(|_| NativeError::InvalidCall(format!("negative capacity {capacity}")))?;
    if address == 0 {
        return Err(NativeError::InvalidCall("null output address".into()));
    }
    // SAFETY: the caller guarantees `capacity` writable bytes at this address, used by
    // nothing else during the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(address as *mut u8, capacity) })
}

/// Writes `parts` back to back to the direct output buffer of `capacity` bytes at
/// `address` when they fit; returns their total length either way (a length above
/// `capacity` tells Java to grow the buffer and call again).
///
/// # Safety
/// As [`direct_out`].
unsafe fn write_direct(parts: &[&[u8]], address: i64, capacity: i32) -> Result<i32, NativeError> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let length = i32::try_from(total)
        .map_err(|_| NativeError::InvalidCall(format!("{total} bytes do not fit a Java byte[]")))?;
    if length <= capacity {
        // SAFETY: guaranteed by the caller.
        let out = unsafe { direct_out(address, capacity)? };
        let mut at = 0;
        for part in parts {
            out[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
    }
    Ok(length)
}

/// The values of a batch in direct memory: `count` int32 lengths at `lengths_address`
/// (`-1` = null), the values back to back at `data_address`.
///
/// # Safety
/// Both addresses must point to direct buffers holding that layout, alive and unmodified
/// for the lifetime `'a` (the duration of the native call).
unsafe fn direct_values<'a>(
    data_address: i64,
    lengths_address: i64,
    count: i32,
) -> Result<ValueBatch<'a>, NativeError> {
    let count = usize::try_from(count)
        .map_err(|_| NativeError::InvalidCall(format!("negative count {count}")))?;
    if count > 0 && (data_address == 0 || lengths_address == 0) {
        return Err(NativeError::InvalidCall(
            "null data or lengths address".into(),
        ));
    }
    if !(lengths_address as *const i32).is_aligned() {
        return Err(NativeError::InvalidCall(format!(
            "lengths address {lengths_address:#x} is not int32-aligned"
        )));
    }
    let lengths: &[i32] = if count == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `count` int32 lengths at this address, which is
        // non-null and int32-aligned (both checked above).
        unsafe { std::slice::from_raw_parts(lengths_address as *const i32, count) }
    };
    let total = ValueBatch::data_len(lengths);
    let data: &[u8] = if total == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees the values, `total` bytes in all, at this address.
        unsafe { std::slice::from_raw_parts(data_address as *const u8, total) }
    };
    ValueBatch::new(data, lengths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misaligned_lengths_buffer_is_an_invalid_call_not_a_read() {
        let lengths = [3i32, -1, 0, 0];
        let data = *b"abc";
        let aligned = lengths.as_ptr() as i64;
        // SAFETY: both addresses point to live buffers holding the layout (3 lengths, 3 bytes).
        let batch = unsafe { direct_values(data.as_ptr() as i64, aligned, 3) }.unwrap();
        assert_eq!(
            batch.collect::<Vec<_>>(),
            [Some(&b"abc"[..]), None, Some(&b""[..])]
        );
        // SAFETY: the address is one byte into a live buffer; the check refuses it before
        // anything is read.
        let error = unsafe { direct_values(data.as_ptr() as i64, aligned + 1, 3) };
        assert!(
            matches!(&error, Err(NativeError::InvalidCall(m)) if m.contains("not int32-aligned")),
            "{:?}",
            error.err()
        );
    }
}
