//! Ownership of the native sessions handed to Java as opaque `long` handles: the one place
//! where sessions are created, reached and freed.
//!
//! A handle names a slot of one process-wide table. Its low 32 bits are the slot's index,
//! its high 32 bits the slot's generation when the session was opened (never 0, so a
//! handle is never 0). The table's memory is allocated in chunks that are never freed or
//! moved, so checking a handle reads only memory that is always valid: the index is
//! bounds-checked, the slot's state word must say "live, this generation", and only then
//! is a reference to the session formed. Closing moves the slot to the next generation, so
//! a closed (stale) handle, the handle of a slot since reused by another session, and a
//! forged value are all errors: never a use or a free of another session.
//!
//! Rules for the Java owner (`NativeHandle`):
//! - [`open`] moves a session into the table; the Java object that receives the handle is
//!   its single owner and closes it exactly once ([`close`]; a second close is an error,
//!   not a double free).
//! - [`with_session`] lends the session for the duration of one native call. Calls on one
//!   handle come from one thread at a time, and the owner does not close a handle while a
//!   call on it runs (one decoder per parallel reader); other handles are independent, so
//!   the hot path takes no lock: two atomic loads and a compare.
//!
//! - [`wake`] is the one call that may run while another call on the same handle runs (that
//!   is its purpose: Flink's `SplitReader.wakeUp` comes from another thread while the fetch
//!   blocks); it touches only the session's [`Waker`], which is `Sync`, never the session.
//!   The owner does not close a handle while a wake on it runs (`NativeFetchSession` holds
//!   one lock around its wakes and its close).
//!
//! The table also counts what is live, per session kind ([`stats`]): the soak and fault
//! tests assert that every handle and the buffers behind it were released.

use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::NativeError;
use crate::session::{Session, SessionKind, Waker};

/// Slots per chunk of the table.
const CHUNK_SLOTS: usize = 1024;
/// Chunks the table may grow to: 4,194,304 live handles at most.
const MAX_CHUNKS: usize = 4096;

/// The `state` bit set while a session lives in the slot.
const LIVE: u64 = 1;

/// One entry of the table. `state` is `generation << 32 | LIVE` while a session of that
/// generation lives here, `next_generation << 32` when the slot is free.
struct Slot {
    state: AtomicU64,
    /// The session (a thin pointer to the box holding the trait object), null when free.
    session: AtomicPtr<Box<dyn Session>>,
    /// The session's kind code, for the per-kind counts.
    kind: AtomicU8,
    /// Bytes of buffers the session retains, as it reported after its last call.
    retained: AtomicUsize,
    /// The session's waker (a thin pointer to the box holding it), null when it has none.
    waker: AtomicPtr<Waker>,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            state: AtomicU64::new(0),
            session: AtomicPtr::new(std::ptr::null_mut()),
            kind: AtomicU8::new(0),
            retained: AtomicUsize::new(0),
            waker: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

/// The chunks of the table, allocated on demand and never freed (each points to
/// `CHUNK_SLOTS` slots).
static CHUNKS: [AtomicPtr<Slot>; MAX_CHUNKS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_CHUNKS];

/// Live sessions per kind code.
static LIVE_PER_KIND: [AtomicU64; SessionKind::CODES] =
    [const { AtomicU64::new(0) }; SessionKind::CODES];

/// Slots free for reuse and the next never-used index; taken only to open and close.
struct FreeSlots {
    free: Vec<u32>,
    next: u32,
}

static FREE: Mutex<FreeSlots> = Mutex::new(FreeSlots {
    free: Vec::new(),
    next: 0,
});

/// The slot at `index`, if its chunk exists.
#[inline]
fn slot(index: usize) -> Option<&'static Slot> {
    let chunk = CHUNKS.get(index / CHUNK_SLOTS)?.load(Ordering::Acquire);
    if chunk.is_null() {
        return None;
    }
    // SAFETY: a non-null chunk pointer points to `CHUNK_SLOTS` initialized slots that are
    // never freed or moved (see `allocate_chunk`), and `index % CHUNK_SLOTS` is in bounds.
    // Slots are only accessed through atomics, so a shared `'static` reference is sound.
    Some(unsafe { &*chunk.add(index % CHUNK_SLOTS) })
}

/// Allocates chunk `chunk` if it does not exist yet (called with `FREE` locked).
fn allocate_chunk(chunk: usize) {
    if !CHUNKS[chunk].load(Ordering::Acquire).is_null() {
        return;
    }
    let slots: Box<[Slot]> = (0..CHUNK_SLOTS).map(|_| Slot::new()).collect();
    // Leaked on purpose: slots stay valid for the life of the process, which is what lets
    // a stale or forged handle be checked without touching freed memory.
    let leaked: &'static mut [Slot] = Box::leak(slots);
    CHUNKS[chunk].store(leaked.as_mut_ptr(), Ordering::Release);
}

fn generation_of(state: u64) -> u32 {
    (state >> 32) as u32
}

/// The generation after `generation`, skipping 0 (no handle has generation 0).
fn next_generation(generation: u32) -> u32 {
    generation.wrapping_add(1).max(1)
}

/// Moves `session` into the table and returns its handle (never 0).
pub fn open(session: Box<dyn Session>) -> Result<i64, NativeError> {
    let kind = session.kind();
    let retained = session.retained_bytes();
    let index = {
        let mut free = FREE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match free.free.pop() {
            Some(index) => index,
            None => {
                let index = free.next;
                if index as usize >= CHUNK_SLOTS * MAX_CHUNKS {
                    return Err(NativeError::InvalidCall(format!(
                        "{index} native sessions are open: close some (is a handle leaking?)"
                    )));
                }
                allocate_chunk(index as usize / CHUNK_SLOTS);
                free.next += 1;
                index
            }
        }
    };
    let slot = slot(index as usize).ok_or_else(|| {
        NativeError::InvalidCall(format!("native session slot {index} is not allocated"))
    })?;
    // The slot is free and ours alone until the state below publishes it; a slot never
    // used before is at generation 0, which no handle has.
    let generation = generation_of(slot.state.load(Ordering::Acquire)).max(1);
    slot.kind.store(kind.code(), Ordering::Relaxed);
    slot.retained.store(retained, Ordering::Relaxed);
    let waker = session
        .waker()
        .map_or(std::ptr::null_mut(), |w| Box::into_raw(Box::new(w)));
    slot.waker.store(waker, Ordering::Relaxed);
    slot.session
        .store(Box::into_raw(Box::new(session)), Ordering::Relaxed);
    slot.state
        .store(u64::from(generation) << 32 | LIVE, Ordering::Release);
    LIVE_PER_KIND[usize::from(kind.code())].fetch_add(1, Ordering::Relaxed);
    Ok(i64::from(generation) << 32 | i64::from(index))
}

/// The live slot `handle` names, or why there is none.
#[inline]
fn live_slot(handle: i64) -> Result<&'static Slot, NativeError> {
    let index = (handle as u64 & 0xffff_ffff) as usize;
    let generation = (handle as u64 >> 32) as u32;
    match slot(index) {
        Some(slot)
            if generation != 0
                && slot.state.load(Ordering::Acquire) == u64::from(generation) << 32 | LIVE =>
        {
            Ok(slot)
        }
        _ => Err(not_live(handle)),
    }
}

#[cold]
fn not_live(handle: i64) -> NativeError {
    if handle == 0 {
        NativeError::InvalidCall("the native handle is closed (0)".into())
    } else {
        NativeError::InvalidCall(format!(
            "handle {handle:#x} names no open native session (closed, or not a handle)"
        ))
    }
}

/// Runs `f` with the session behind `handle`, for the duration of one native call.
///
/// A closed, stale or forged handle is an error and `f` does not run. After `f` the slot
/// records the bytes the session retains, for [`stats`].
#[inline]
pub fn with_session<R>(
    handle: i64,
    f: impl FnOnce(&mut dyn Session) -> Result<R, NativeError>,
) -> Result<R, NativeError> {
    let slot = live_slot(handle)?;
    let pointer = slot.session.load(Ordering::Relaxed);
    // SAFETY: the state word matched this handle's generation with `Acquire`, which
    // happens after `open` stored this non-null pointer (with `Release` on the state) to a
    // box that only `close` frees, after moving the state to the next generation. The
    // owner's contract (one call at a time per handle, no close during a call) makes this
    // the only reference to the session while `f` runs.
    let session: &mut dyn Session = unsafe { &mut **pointer };
    let result = f(session);
    slot.retained
        .store(session.retained_bytes(), Ordering::Relaxed);
    result
}

/// Runs `f` with the two sessions behind `first` and `second` (a call between two sessions:
/// an encoded batch handed to a producer). The handles must name different slots: the same
/// session twice is an error and `f` does not run (two `&mut` to one session would alias).
/// The owner's contract holds for both handles.
pub fn with_two_sessions<R>(
    first: i64,
    second: i64,
    f: impl FnOnce(&mut dyn Session, &mut dyn Session) -> Result<R, NativeError>,
) -> Result<R, NativeError> {
    if first as u64 & 0xffff_ffff == second as u64 & 0xffff_ffff {
        return Err(NativeError::InvalidCall(
            "a call between two sessions names the same session twice".into(),
        ));
    }
    with_session(first, |a| with_session(second, |b| f(a, b)))
}

/// Wakes the blocking call of the session behind `handle`, from any thread, even while
/// another call on the handle runs; a no-op for a session that has no [`Waker`]. A closed,
/// stale or forged handle is an error.
pub fn wake(handle: i64) -> Result<(), NativeError> {
    let slot = live_slot(handle)?;
    let waker = slot.waker.load(Ordering::Acquire);
    if waker.is_null() {
        return Ok(());
    }
    // SAFETY: the state word matched this handle's generation, so the waker stored by
    // `open` before publishing the state is live; only `close` frees it, and the owner does
    // not close during a wake. A `Waker` is `Sync`: a shared reference from this thread is
    // sound while the session's own call runs on another.
    let waker: &Waker = unsafe { &*waker };
    waker();
    Ok(())
}

/// Frees the session behind `handle`; 0 is a no-op. A stale or forged handle, or one
/// closed already, is an error and frees nothing.
pub fn close(handle: i64) -> Result<(), NativeError> {
    if handle == 0 {
        return Ok(());
    }
    let slot = live_slot(handle)?;
    let generation = (handle as u64 >> 32) as u32;
    let live = u64::from(generation) << 32 | LIVE;
    let freed = u64::from(next_generation(generation)) << 32;
    // Only one close of this generation wins; a racing second close sees the new state.
    slot.state
        .compare_exchange(live, freed, Ordering::AcqRel, Ordering::Acquire)
        .map_err(|_| not_live(handle))?;
    let pointer = slot.session.swap(std::ptr::null_mut(), Ordering::AcqRel);
    let waker = slot.waker.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !waker.is_null() {
        // SAFETY: the pointer came from `Box::into_raw` in `open` and was swapped out above,
        // once, by the close that won the state exchange; the owner runs no wake during a
        // close (module docs), so nothing else uses it.
        drop(unsafe { Box::from_raw(waker) });
    }
    let kind = slot.kind.load(Ordering::Relaxed);
    slot.retained.store(0, Ordering::Relaxed);
    LIVE_PER_KIND[usize::from(kind)].fetch_sub(1, Ordering::Relaxed);
    // SAFETY: the pointer came from `Box::into_raw` in `open`; winning the state exchange
    // above makes this the one close of that generation, so it is freed exactly once.
    drop(unsafe { Box::from_raw(pointer) });
    let index = (handle as u64 & 0xffff_ffff) as u32;
    FREE.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .free
        .push(index);
    Ok(())
}

/// What is live right now, per session kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stats {
    /// Open handles per kind code.
    pub live_handles: [u64; SessionKind::CODES],
    /// Bytes of buffers the open sessions retain, per kind code (as each reported after its
    /// last call).
    pub retained_bytes: [u64; SessionKind::CODES],
}

/// Counts the open handles and the bytes their sessions retain, per kind.
pub fn stats() -> Stats {
    let mut stats = Stats {
        live_handles: std::array::from_fn(|k| LIVE_PER_KIND[k].load(Ordering::Relaxed)),
        ..Stats::default()
    };
    let used = FREE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .next as usize;
    for slot in (0..used).filter_map(slot) {
        if slot.state.load(Ordering::Acquire) & LIVE != 0 {
            let kind = usize::from(slot.kind.load(Ordering::Relaxed));
            stats.retained_bytes[kind] += slot.retained.load(Ordering::Relaxed) as u64;
        }
    }
    stats
}

#[cfg(test)]
mod tests;
