//! When long work must end early: a request's deadline, a flag another thread raises (a server
//! shutting down), or both. The loops that can run long (the simulation's events, a dump's
//! evaluations, a diff's HPAs) ask `due` every so often and end with `Stopped`, so the place they
//! hold frees soon after the answer that gave up on them. No I/O: the clock is `Instant::now`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A deadline and a flag, either optional; the default never stops.
#[derive(Debug, Clone, Default)]
pub struct Stop {
    deadline: Option<Instant>,
    flag: Option<Arc<AtomicBool>>,
}

impl Stop {
    /// Stops at `deadline`.
    pub fn at(deadline: Instant) -> Stop {
        Stop {
            deadline: Some(deadline),
            flag: None,
        }
    }

    /// Also stops once `flag` is raised.
    #[must_use]
    pub fn or_when(mut self, flag: Arc<AtomicBool>) -> Stop {
        self.flag = Some(flag);
        self
    }

    /// Whether the work must end now.
    pub fn due(&self) -> bool {
        self.flag
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// `Err(Stopped)` once due.
    pub fn check(&self) -> Result<(), Stopped> {
        if self.due() { Err(Stopped) } else { Ok(()) }
    }
}

/// The work ended at its deadline or when its server stopped, with no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the work was stopped: it reached its time limit or the server is stopping")
    }
}

impl std::error::Error for Stopped {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_never_stops_a_past_deadline_or_a_raised_flag_does() {
        assert!(!Stop::default().due());
        assert_eq!(Stop::at(Instant::now()).check(), Err(Stopped));
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Stop::at(later).or_when(Arc::clone(&flag));
        assert!(!stop.due());
        flag.store(true, Ordering::Relaxed);
        assert!(stop.due());
    }
}
