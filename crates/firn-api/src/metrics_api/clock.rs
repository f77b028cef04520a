//! The clock page tokens expire on. Injected so tests can move time forward (a virtual clock)
//! instead of waiting 24 hours.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current Unix time in seconds.
pub trait Clock: Send + Sync + Debug {
    /// Now, Unix seconds.
    fn now(&self) -> u64;
}

/// The machine's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> u64 {
        unix_secs()
    }
}

/// The wall clock, Unix seconds (0 before 1970).
pub fn unix_secs() -> u64 {
    unix_ms() / 1000
}

/// The wall clock, Unix milliseconds (0 before 1970).
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A clock that only moves when told to; clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct VirtualClock(Arc<AtomicU64>);

impl VirtualClock {
    /// A clock standing at `now`.
    pub fn at(now: u64) -> Self {
        Self(Arc::new(AtomicU64::new(now)))
    }

    /// Moves the clock forward by `seconds`.
    pub fn advance(&self, seconds: u64) {
        self.0.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}
