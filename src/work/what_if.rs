//! One sync before and after a what-if change, however it was asked for (`hpacalc --hpa ...
//! --set-request ...`, `explain_hpa` with `set_request`): the inputs as given and the same
//! inputs with the change's controller flags, each built and evaluated, the change's requests,
//! bounds and tolerances applied to the second (`input::what_if`, the engine's `what_if`).

use anyhow::{Result, bail};

use crate::calc;
use crate::error::InputError;
use crate::input::what_if::WhatIf;
use crate::input::{self, Inputs};
use crate::report::what_if::WhatIfReport;

/// Both syncs: `before` as given, `after` (the same inputs with the change's settings) with
/// the change applied; with the warnings of the inputs' readers.
pub fn before_and_after(
    before: Inputs,
    after: Inputs,
    what_if: &WhatIf,
) -> Result<(WhatIfReport, Vec<String>)> {
    if !what_if.set_limit.is_empty() {
        bail!(InputError::new(
            "--set-limit",
            "found a limit for one sync, expected it with simulate: the controller reads \
             requests, and a limit only caps what a pod uses over time"
        ));
    }
    let before = input::build(before)?;
    let mut changed = input::build(after)?;
    what_if.apply(&mut changed)?;
    let report = WhatIfReport::new(
        what_if.labels(),
        calc::evaluate(&before),
        calc::evaluate(&changed),
    );
    Ok((report, before.warnings))
}
