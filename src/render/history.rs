//! What `hpacalc serve` keeps of each HPA for its page (`/hpa/NS/NAME`): the last hour, one point
//! a sync, read from each sync's report by the same function as the series
//! (`series::metric_values`), so the page's line and the scrape's gauge are one number.

use std::collections::{HashMap, VecDeque};

use crate::render::series::metric_values;
use crate::report::Report;

/// How long a point is kept, seconds.
pub const KEPT_SECONDS: f64 = 3600.0;

/// One sync of one HPA.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// When the sync ended, Unix seconds.
    pub at: f64,
    /// The first metric's value, its target, and where the count would go up and down.
    pub value: Option<f64>,
    pub target: Option<f64>,
    pub up_at: Option<f64>,
    pub down_at: Option<f64>,
    /// The replicas the controller wrote (`status.currentReplicas`, `status.desiredReplicas`).
    pub current: i32,
    pub status_desired: Option<i32>,
    /// hpacalc's desired count at this sync.
    pub desired: i32,
}

impl Point {
    pub fn of(report: &Report, at: f64) -> Point {
        let [value, target, up_at, down_at] =
            report.metrics.first().map_or([None; 4], metric_values);
        Point {
            at,
            value,
            target,
            up_at,
            down_at,
            current: report.current_replicas,
            status_desired: report
                .status_comparison
                .as_ref()
                .and_then(|c| c.desired_replicas)
                .map(|d| d.status),
            desired: report.desired_replicas,
        }
    }
}

/// Every HPA's last hour, by `namespace/name`.
#[derive(Debug, Default)]
pub struct History {
    by_hpa: HashMap<String, VecDeque<Point>>,
}

impl History {
    /// A sync's points; what is older than an hour, and the HPAs that are gone, are dropped.
    pub fn record(&mut self, reports: &[Report], at: f64) {
        let mut seen = std::collections::HashSet::with_capacity(reports.len());
        for report in reports {
            seen.insert(report.hpa.as_str());
            let points = self.by_hpa.entry(report.hpa.clone()).or_default();
            points.push_back(Point::of(report, at));
            while points.front().is_some_and(|p| p.at < at - KEPT_SECONDS) {
                points.pop_front();
            }
        }
        self.by_hpa.retain(|key, _| seen.contains(key.as_str()));
    }

    pub fn of(&self, hpa: &str) -> Vec<Point> {
        self.by_hpa
            .get(hpa)
            .map(|p| p.iter().copied().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_hour_is_kept_and_a_gone_hpa_forgotten() {
        let report = |name: &str| {
            let mut r = crate::calc::evaluate(&crate::calc::testing::scenario(
                vec![crate::calc::testing::cpu_utilization(50)],
                4,
                600,
            ));
            r.hpa = name.to_string();
            r
        };
        let audit = |names: &[&str]| names.iter().map(|n| report(n)).collect::<Vec<_>>();
        let mut history = History::default();
        for i in 0..250 {
            history.record(&audit(&["a/web", "a/api"]), f64::from(i) * 15.0);
        }
        let points = history.of("a/web");
        // 241 points: from 3735 s back to 135 s, an hour inclusive.
        assert_eq!(points.len(), 241);
        assert_eq!(points.first().map(|p| p.at), Some(135.0));
        // 600m of 1000m requests: 60 % against 50 %.
        assert_eq!(points[0].value, Some(60.0));
        assert_eq!(points[0].target, Some(50.0));
        history.record(&audit(&["a/api"]), 3750.0);
        assert!(history.of("a/web").is_empty());
        assert_eq!(history.of("a/api").len(), 241);
    }
}
