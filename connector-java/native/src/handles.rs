//! Ownership of native objects handed to Java as opaque `long` handles.
//!
//! A handle is a pointer to a heap-allocated [`Slot`] that carries a per-type tag, so a
//! handle of the wrong kind (or a closed one that Java mistakenly reuses before the
//! memory is reused) is reported instead of being misread. Rules:
//! - [`into_handle`] moves the value to the heap; the Java object that receives the
//!   handle is its single owner and must call the matching close entry point exactly
//!   once ([`drop_handle`]).
//! - [`borrow_handle`] lends the value for the duration of one native call; Java never
//!   calls into one handle from two threads at once (one decoder per parallel reader).

use crate::error::NativeError;

/// Types that may live behind a handle, each with a distinct tag.
pub trait HandleType {
    /// A constant unique to the type.
    const TAG: u64;
}

struct Slot<T> {
    tag: u64,
    value: T,
}

const DEAD_TAG: u64 = 0xdead_dead_dead_dead;

/// Moves `value` to the heap and returns its handle (never 0).
pub fn into_handle<T: HandleType>(value: T) -> i64 {
    let slot = Box::new(Slot { tag: T::TAG, value });
    Box::into_raw(slot) as i64
}

/// Lends the value behind `handle` for the duration of one call.
///
/// # Safety
/// `handle` must be 0 or a value returned by [`into_handle`] for `T` that has not been
/// passed to [`drop_handle`], and no other reference to it may be live.
pub unsafe fn borrow_handle<'a, T: HandleType>(handle: i64) -> Result<&'a mut T, NativeError> {
    if handle == 0 {
        return Err(NativeError::InvalidCall(
            "the native handle is closed (0)".into(),
        ));
    }
    // SAFETY: by the caller's contract `handle` came from `into_handle::<T>` and is live
    // and unaliased, so it points to a valid, exclusively borrowed `Slot<T>`.
    let slot = unsafe { &mut *(handle as *mut Slot<T>) };
    if slot.tag != T::TAG {
        return Err(NativeError::InvalidCall(format!(
            "handle {handle:#x} is not a {} (closed or of another kind)",
            std::any::type_name::<T>()
        )));
    }
    Ok(&mut slot.value)
}

/// Frees the value behind `handle`; 0 is a no-op.
///
/// # Safety
/// Same contract as [`borrow_handle`]; after this call the handle is dangling.
pub unsafe fn drop_handle<T: HandleType>(handle: i64) -> Result<(), NativeError> {
    if handle == 0 {
        return Ok(());
    }
    // SAFETY: see `borrow_handle`; the tag check below runs before ownership is taken.
    let slot = unsafe { &mut *(handle as *mut Slot<T>) };
    if slot.tag != T::TAG {
        return Err(NativeError::InvalidCall(format!(
            "handle {handle:#x} closed twice or of another kind"
        )));
    }
    slot.tag = DEAD_TAG;
    // SAFETY: the pointer came from `Box::into_raw` in `into_handle` and is freed once.
    drop(unsafe { Box::from_raw(handle as *mut Slot<T>) });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct A(u32);
    impl HandleType for A {
        const TAG: u64 = 1;
    }
    struct B;
    impl HandleType for B {
        const TAG: u64 = 2;
    }

    #[test]
    fn lifecycle_and_wrong_kind() {
        let h = into_handle(A(5));
        // SAFETY: `h` is live and unaliased in this test.
        unsafe {
            assert_eq!(borrow_handle::<A>(h).unwrap().0, 5);
            assert!(borrow_handle::<B>(h).is_err());
            assert!(borrow_handle::<A>(0).is_err());
            drop_handle::<A>(h).unwrap();
            drop_handle::<A>(0).unwrap();
        }
    }
}
