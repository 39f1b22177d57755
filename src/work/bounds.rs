//! How much one request may ask of the work: the command line waits for any run (the default),
//! while a page of `serve` and an MCP call carry a deadline (`Stop`) that every long loop looks
//! at, and refuse before it starts a run past the request budget
//! (`input::simulation::REQUEST_WORK`).

use anyhow::Result;

use crate::calc;
use crate::calc::simulate::Simulation;
use crate::input::simulation;
use crate::scenario::simulation::Setup;
use crate::stop::Stop;

/// The deadline of one request, and whether its runs must fit the request budget.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    pub stop: Stop,
    pub budget: bool,
}

impl Bounds {
    /// A request's bounds: `stop`, and the budget.
    pub fn request(stop: Stop) -> Bounds {
        Bounds { stop, budget: true }
    }

    /// The run of `setup`: refused before it starts when past the budget (`field` is what the
    /// request would change), ended with `Stopped` at the deadline.
    pub fn run(&self, setup: &Setup, field: &str) -> Result<Simulation> {
        if self.budget {
            simulation::within_request_budget(setup, field)?;
        }
        Ok(calc::simulate::run_until(setup, None, &self.stop)?.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_refuses_a_run_past_the_budget_and_the_command_line_runs_it() {
        let mut setup = crate::input::builtin::builtin_setup("traffic-doubles");
        setup.start_replicas = 5_000;
        setup.scenario.hpa.max_replicas = 5_000;
        setup.duration = crate::time::Duration::from_secs(86_400);
        let refused = Bounds::request(Stop::default())
            .run(&setup, "t")
            .unwrap_err();
        assert!(
            format!("{refused:#}").contains("expected at most 10000000 pod-syncs"),
            "{refused:#}"
        );
        // Past the deadline at once: stopped, not run to its end.
        setup = crate::input::builtin::builtin_setup("traffic-doubles");
        let past = Bounds::request(Stop::at(std::time::Instant::now()));
        let stopped = past.run(&setup, "t").unwrap_err();
        assert!(stopped.downcast_ref::<crate::stop::Stopped>().is_some());
        assert!(Bounds::default().run(&setup, "t").is_ok());
    }
}
