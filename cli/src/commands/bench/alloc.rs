//! A counting global allocator: the system allocator plus two counters that only move
//! while counting is switched on (one relaxed load per allocation otherwise). `karrow
//! bench` switches it on for one untimed pass per operation, never while timing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

static ENABLED: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting allocations (and reallocations) while enabled.
#[derive(Debug)]
pub struct CountingAllocator;

#[inline]
fn record(size: usize) {
    if ENABLED.load(Relaxed) {
        COUNT.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the contract.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

/// Runs `f` with counting on; returns its result, the allocations and the bytes allocated
/// (by every thread of the process while `f` ran).
pub fn counted<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    COUNT.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    ENABLED.store(true, Relaxed);
    let r = f();
    ENABLED.store(false, Relaxed);
    (r, COUNT.load(Relaxed), BYTES.load(Relaxed))
}
