//! One event about an HPA, however it was read (an event list, describe's Events section): its
//! own file, below both readers.

use crate::time::Timestamp;

/// One event about an object, with its repeats folded as the event recorder folds them.
#[derive(Debug, Clone, PartialEq)]
pub struct HpaEvent {
    /// `involvedObject` (core/v1) or `regarding` (events.k8s.io/v1): kind, namespace, name.
    /// Empty for the Events section of describe text (all of them are the HPA's).
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub reason: String,
    pub message: String,
    /// `Warning` rather than `Normal`.
    pub warning: bool,
    /// How many times it happened (at least 1).
    pub count: i64,
    pub first: Timestamp,
    pub last: Timestamp,
    /// Where it was read, for messages (`events.json: items[3]`).
    pub origin: String,
    /// The times are ages before the text was taken (describe's Age column), as offsets from
    /// `Timestamp(0)`: [`HpaEvent::at`] places them at the evaluation time.
    pub relative: bool,
    /// Read from a table that hides repeats (`kubectl get events` without `-o wide`): `count` is
    /// at least this, and `first` at most this long ago.
    pub count_hidden: bool,
}

/// An event's message as a report keeps it: cut past `MAX_MESSAGE_CHARS` (a message of 2 MB is
/// no message a person reads, and a table would wrap it for minutes).
pub fn kept(message: &str) -> String {
    crate::error::cut(message, crate::error::MAX_MESSAGE_CHARS).into_owned()
}

impl HpaEvent {
    /// The event with relative times placed before `now`.
    pub fn at(mut self, now: Timestamp) -> HpaEvent {
        if self.relative {
            self.first = Timestamp(now.0.saturating_add(self.first.0));
            self.last = Timestamp(now.0.saturating_add(self.last.0));
            self.relative = false;
        }
        self
    }
}
