//! Shared by the integration tests: how much native stack a call takes (the limit tests), and
//! Avro test values ([`avro`]).
#![allow(clippy::unwrap_used)] // test code: a failed unwrap fails the test

pub mod avro;

/// Runs `f` on a fresh thread with a large stack and returns its result and the deepest
/// native stack it used below the calling frame, in bytes (measured by painting: a region
/// below the caller is zeroed first, and the lowest byte `f` left non-zero marks its
/// depth). For measuring, with a page or so of noise; the regression tests run the decoders
/// on small stacks instead, which holds in every build profile.
#[allow(dead_code)]
pub fn peak_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> (T, usize) {
    const PAINTED: usize = 4 << 20;
    std::thread::Builder::new()
        .stack_size(PAINTED + (4 << 20))
        .spawn(move || {
            let top = paint();
            let result = f();
            let mut lowest = top;
            for at in (top - PAINTED..top).step_by(8) {
                // SAFETY: `at` lies in the region `paint` zeroed on this thread's stack, which
                // is mapped for the thread's lifetime; the read is volatile so it is not
                // assumed to see the dead frame's zeros.
                let word = unsafe { std::ptr::read_volatile(at as *const u64) };
                if word != 0 {
                    lowest = at;
                    break;
                }
            }
            (result, top - lowest)
        })
        .unwrap()
        .join()
        .unwrap()
}

/// Zeroes a region of the stack below the caller and returns the address just above it.
#[inline(never)]
fn paint() -> usize {
    let mut region = [0u8; 4 << 20];
    std::hint::black_box(&mut region);
    region.as_ptr() as usize + region.len()
}
