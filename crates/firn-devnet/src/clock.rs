//! The devnet's virtual clock: it follows wall time when live, can be pushed forward at will,
//! and never goes back. One [`Clock`] is shared (it is cheap to clone) between the VM and callers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A monotonic clock in Unix seconds, shared by every clone.
///
/// Its time is `max(wall time, floor)` when live and `floor` when frozen, where `floor` only
/// ever grows: [`Clock::advance`] and [`Clock::set`] raise it.
#[derive(Debug, Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    live: AtomicBool,
    floor: AtomicU64,
}

fn wall_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Clock {
    /// A clock that follows wall time, never earlier than `start`.
    pub fn live(start: u64) -> Self {
        Self {
            inner: Arc::new(Inner {
                live: AtomicBool::new(true),
                floor: AtomicU64::new(start),
            }),
        }
    }

    /// A frozen clock at `start`: it moves only through [`advance`](Self::advance) and
    /// [`set`](Self::set). Tests and the history generator use it.
    pub fn frozen(start: u64) -> Self {
        Self {
            inner: Arc::new(Inner {
                live: AtomicBool::new(false),
                floor: AtomicU64::new(start),
            }),
        }
    }

    /// True if the clock follows wall time.
    pub fn is_live(&self) -> bool {
        self.inner.live.load(Ordering::SeqCst)
    }

    /// Switches a frozen clock to following wall time (never going back): what `firn up`
    /// does once generated history has caught up with the present.
    pub fn go_live(&self) {
        self.inner.live.store(true, Ordering::SeqCst);
    }

    /// The current time in Unix seconds.
    pub fn now(&self) -> u64 {
        let floor = self.inner.floor.load(Ordering::SeqCst);
        if self.is_live() {
            floor.max(wall_now())
        } else {
            floor
        }
    }

    /// Moves the clock forward by `seconds` from its current time; returns the new time.
    pub fn advance(&self, seconds: u64) -> u64 {
        let target = self.now().saturating_add(seconds);
        self.set(target)
    }

    /// Moves the clock to `time` if that is later than now; earlier times are ignored, so the
    /// clock stays monotonic. Returns the (possibly unchanged) current time.
    pub fn set(&self, time: u64) -> u64 {
        self.inner.floor.fetch_max(time, Ordering::SeqCst);
        self.now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_clock_moves_only_forward() {
        let clock = Clock::frozen(1_000);
        assert_eq!(clock.now(), 1_000);
        assert_eq!(clock.advance(60), 1_060);
        assert_eq!(clock.set(500), 1_060);
        assert_eq!(clock.set(2_000), 2_000);
        let shared = clock.clone();
        shared.advance(1);
        assert_eq!(clock.now(), 2_001);
    }

    #[test]
    fn live_clock_follows_wall_time_and_can_jump_ahead() {
        let clock = Clock::live(0);
        let wall = wall_now();
        assert!(clock.now() >= wall);
        let ahead = clock.advance(86_400);
        assert!(ahead >= wall + 86_400);
        assert!(clock.now() >= ahead);
    }
}
