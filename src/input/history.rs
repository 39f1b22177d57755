//! STUB: `--history` CSV → the controller's in-memory recommendations and scale events.

use crate::error::InputError;
use crate::scenario::ControllerMemory;
use crate::time::Timestamp;

pub fn parse(file: &str, text: &str, now: Timestamp) -> Result<ControllerMemory, InputError> {
    let _ = (text, now);
    Err(InputError::new(file, "history parsing is not written yet"))
}
