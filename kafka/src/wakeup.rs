//! Waking a blocked poll from another thread (Flink's `SplitReader.wakeUp`, Kafka's
//! `KafkaConsumer.wakeup`).
//!
//! A [`Wakeup`] is shared between the thread that polls and the thread that wakes it. The
//! poll waits for the broker in short slices ([`SLICE`]) and looks at the flag between
//! them; its idle sleeps wait on a condition variable that [`Wakeup::wake`] signals. A
//! wake-up that arrives while no poll runs makes the next poll return at once, as
//! `KafkaConsumer.wakeup` does.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest a blocked read waits before it looks at the wake-up flag again.
pub const SLICE: Duration = Duration::from_millis(20);

/// A wake-up flag that can be set from any thread; cheap to clone (shared).
#[derive(Debug, Clone, Default)]
pub struct Wakeup {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    woken: AtomicBool,
    lock: Mutex<()>,
    signal: Condvar,
}

impl Wakeup {
    /// A flag nobody has set.
    pub fn new() -> Self {
        Wakeup::default()
    }

    /// Wakes the poll that is blocked now, or the next one.
    pub fn wake(&self) {
        let _guard = self
            .shared
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.shared.woken.store(true, Ordering::Release);
        self.shared.signal.notify_all();
    }

    /// Whether a wake-up is pending (it stays pending until [`Self::take`]).
    pub fn is_woken(&self) -> bool {
        self.shared.woken.load(Ordering::Acquire)
    }

    /// Clears a pending wake-up; `true` if there was one.
    pub fn take(&self) -> bool {
        self.shared.woken.swap(false, Ordering::AcqRel)
    }

    /// Sleeps until `deadline` or a wake-up, whichever is first; `true` if woken.
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        let mut guard = self
            .shared
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        loop {
            if self.is_woken() {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            guard = match self.shared.signal.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_up_ends_a_sleep_and_stays_pending_until_taken() {
        let wakeup = Wakeup::new();
        let other = wakeup.clone();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            other.wake();
        });
        assert!(wakeup.sleep_until(Instant::now() + Duration::from_secs(600)));
        waker.join().unwrap();
        assert!(wakeup.is_woken());
        assert!(wakeup.take());
        assert!(!wakeup.take());
        assert!(!wakeup.sleep_until(Instant::now()));
    }
}
