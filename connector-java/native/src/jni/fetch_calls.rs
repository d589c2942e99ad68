//! Shims for the native fetch of the `kafka-native` source (`crate::fetch`).

use jni::objects::{JClass, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::JNIEnv;

use super::{guard, jni_error};
use crate::error::NativeError;
use crate::fetch::{NativeFetch, SUMMARY_LONGS};
use crate::handles::{borrow_handle, drop_handle, into_handle};

/// `long fetchOpen(String configJson)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchOpen<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    config: JString<'local>,
) -> jlong {
    guard(&mut env, 0, |env| {
        let text: String = env.get_string(&config).map_err(jni_error)?.into();
        Ok(into_handle(NativeFetch::open(&text)?))
    })
}

/// `void fetchClose(long handle)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchClose<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: the handle comes from `fetchOpen`; its one Java owner closes it once.
        unsafe { drop_handle::<NativeFetch>(handle) }
    })
}

/// `void fetchAssign(long handle, int slot, String topic, int partition, String leader,
/// long offset, long stopOffset)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // one JNI argument per Java parameter
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchAssign<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    slot: jint,
    topic: JString<'local>,
    partition: jint,
    leader: JString<'local>,
    offset: jlong,
    stop_offset: jlong,
) {
    guard(&mut env, (), |env| {
        let topic: String = env.get_string(&topic).map_err(jni_error)?.into();
        let leader: String = env.get_string(&leader).map_err(jni_error)?.into();
        // SAFETY: the handle comes from `fetchOpen` and is used by one thread at a time.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        fetch
            .session()
            .assign(slot, &topic, partition, &leader, offset, stop_offset);
        Ok(())
    })
}

/// `void fetchUnassign(long handle, int slot)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchUnassign<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    slot: jint,
) {
    guard(&mut env, (), |_| {
        // SAFETY: as in `fetchAssign`.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        fetch.session().unassign(slot);
        Ok(())
    })
}

/// `void fetchSetLeader(long handle, int slot, String leader)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchSetLeader<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    slot: jint,
    leader: JString<'local>,
) {
    guard(&mut env, (), |env| {
        let leader: String = env.get_string(&leader).map_err(jni_error)?.into();
        // SAFETY: as in `fetchAssign`.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        fetch
            .session()
            .set_leader(slot, &leader)
            .map_err(|e| NativeError::Fetch(e.to_string()))
    })
}

/// `void fetchSetPaused(long handle, int slot, boolean paused)`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchSetPaused<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    slot: jint,
    paused: jboolean,
) {
    guard(&mut env, (), |_| {
        // SAFETY: as in `fetchAssign`.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        fetch
            .session()
            .set_paused(slot, paused != 0)
            .map_err(|e| NativeError::Fetch(e.to_string()))
    })
}

/// `void fetchPoll(long handle, long summaryAddress)`: fetches once and writes the summary
/// (records, value bytes, key bytes, header bytes, finished slots, leader-changed slots,
/// out-of-range slots, pending records; little-endian longs) to the direct buffer at
/// `summaryAddress`.
#[no_mangle]
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchPoll<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    summary_address: jlong,
) {
    guard(&mut env, (), |_| {
        if summary_address == 0 {
            return Err(NativeError::InvalidCall("null summary address".into()));
        }
        // SAFETY: as in `fetchAssign`.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        let summary = fetch.poll()?;
        let bytes: Vec<u8> = summary.iter().flat_map(|v| v.to_le_bytes()).collect();
        // SAFETY: Java passes a direct buffer of at least `SUMMARY_LONGS` longs that nothing
        // else uses during this call.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                summary_address as *mut u8,
                SUMMARY_LONGS * 8,
            )
        };
        Ok(())
    })
}

/// `void fetchCopyOut(long handle, long metaAddress, long dataAddress, long
/// lengthsAddress, long keysAddress, long headersAddress, long slotsAddress)`: copies the
/// last poll's parts into direct buffers Java sized from the summary.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // one JNI argument per Java parameter
pub extern "system" fn Java_io_karrow_flink_nativebridge_KarrowNative_fetchCopyOut<'local>(
    mut env: JNIEnv<'local>,
    _class: JClass<'local>,
    handle: jlong,
    meta_address: jlong,
    data_address: jlong,
    lengths_address: jlong,
    keys_address: jlong,
    headers_address: jlong,
    slots_address: jlong,
) {
    guard(&mut env, (), |_| {
        // SAFETY: as in `fetchAssign`.
        let fetch = unsafe { borrow_handle::<NativeFetch>(handle)? };
        let slots = fetch.slots();
        let targets = [
            meta_address,
            data_address,
            lengths_address,
            keys_address,
            headers_address,
        ];
        for (part, address) in fetch.output().iter().zip(targets) {
            // SAFETY: Java sized each buffer from the summary of this poll.
            unsafe { copy_to(part, address)? };
        }
        // SAFETY: as above.
        unsafe { copy_to(&slots, slots_address) }
    })
}

/// Copies `part` to `address` (nothing for an empty part).
///
/// # Safety
/// `address` must point to at least `part.len()` writable bytes nothing else uses.
unsafe fn copy_to(part: &[u8], address: jlong) -> Result<(), NativeError> {
    if part.is_empty() {
        return Ok(());
    }
    if address == 0 {
        return Err(NativeError::InvalidCall("null output address".into()));
    }
    // SAFETY: by the caller's contract.
    unsafe { std::ptr::copy_nonoverlapping(part.as_ptr(), address as *mut u8, part.len()) };
    Ok(())
}
