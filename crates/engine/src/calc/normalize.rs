//! From the metrics' proposal to the replica count the controller sets: stabilization windows,
//! rate limits and min/max clamping, on the legacy path (no `spec.behavior`) and the behavior path.
//! Mirrors the normalization half of `pkg/controller/podautoscaler/horizontal.go`, including the
//! controller's in-memory recommendations and scale events.

use crate::scenario::{
    Behavior, ControllerMemory, PolicyType, Recommendation, ScaleEvent, ScalingPolicy,
    ScalingRules, SelectPolicy,
};
use crate::time::{Duration, Timestamp};

/// A value the normalization produced, with the condition reason and message it implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    pub replicas: i32,
    pub reason: &'static str,
    pub message: &'static str,
}

pub const DESIRED_WITHIN_RANGE: (&str, &str) = (
    "DesiredWithinRange",
    "the desired count is within the acceptable range",
);
const TOO_MANY: (&str, &str) = (
    "TooManyReplicas",
    "the desired replica count is more than the maximum replica count",
);
const TOO_FEW: (&str, &str) = (
    "TooFewReplicas",
    "the desired replica count is less than the minimum replica count",
);
const SCALE_UP_LIMIT: (&str, &str) = (
    "ScaleUpLimit",
    "the desired replica count is increasing faster than the maximum scale rate",
);
const SCALE_DOWN_LIMIT: (&str, &str) = (
    "ScaleDownLimit",
    "the desired replica count is decreasing faster than the maximum scale rate",
);
pub const SCALE_UP_STABILIZED: (&str, &str) = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
);
pub const SCALE_DOWN_STABILIZED: (&str, &str) = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
);
pub const READY_FOR_NEW_SCALE: (&str, &str) =
    ("ReadyForNewScale", "recommended size matches current size");

fn limited(replicas: i32, (reason, message): (&'static str, &'static str)) -> Limited {
    Limited {
        replicas,
        reason,
        message,
    }
}

// Port of stabilizeRecommendation (horizontal.go): the legacy downscale window, inclusive.
pub fn stabilize_recommendation(
    memory: &mut ControllerMemory,
    now: Timestamp,
    window: Duration,
    prenormalized: i32,
) -> i32 {
    let mut max_recommendation = prenormalized;
    let mut old_sample = None;
    for (i, rec) in memory.recommendations.iter().enumerate() {
        if !counts_in_window(rec.timestamp, now, window, true) {
            old_sample = Some(i);
        } else if rec.replicas > max_recommendation {
            max_recommendation = rec.replicas;
        }
    }
    store_recommendation(memory, old_sample, prenormalized, now);
    max_recommendation
}

/// Whether a recommendation stored at `at` counts at `now` in a window of `window`: the legacy
/// path keeps one exactly `window` old (`!rec.timestamp.Before(cutoff)`,
/// stabilizeRecommendation), the behavior path does not (`rec.timestamp.After(cutoff)`,
/// stabilizeRecommendationWithBehaviors).
pub fn counts_in_window(at: Timestamp, now: Timestamp, window: Duration, legacy: bool) -> bool {
    let cutoff = now.sub(window);
    if legacy {
        !at.before(cutoff)
    } else {
        at.after(cutoff)
    }
}

fn store_recommendation(
    memory: &mut ControllerMemory,
    old_sample: Option<usize>,
    replicas: i32,
    now: Timestamp,
) {
    let rec = Recommendation {
        replicas,
        timestamp: now,
    };
    match old_sample.and_then(|i| memory.recommendations.get_mut(i)) {
        Some(slot) => *slot = rec,
        None => memory.recommendations.push(rec),
    }
}

/// Legacy scale-up limit factors (`scaleUpLimitFactor`, `scaleUpLimitMinimum`).
#[derive(Debug, Clone, Copy)]
pub struct LegacyLimits {
    pub factor: f64,
    pub minimum: f64,
}

// Port of calculateScaleUpLimit (horizontal.go).
pub fn calculate_scale_up_limit(current_replicas: i32, limits: LegacyLimits) -> i32 {
    crate::calc::replicas::truncate_to_i32(
        (limits.factor * f64::from(current_replicas)).max(limits.minimum),
    )
}

// Port of convertDesiredReplicasWithRules (horizontal.go).
pub fn convert_desired_replicas_with_rules(
    current_replicas: i32,
    desired_replicas: i32,
    min_replicas: i32,
    max_replicas: i32,
    limits: LegacyLimits,
) -> Limited {
    let scale_up_limit = calculate_scale_up_limit(current_replicas, limits);
    let (maximum_allowed, condition) = if max_replicas > scale_up_limit {
        (scale_up_limit, SCALE_UP_LIMIT)
    } else {
        (max_replicas, TOO_MANY)
    };
    if desired_replicas < min_replicas {
        limited(min_replicas, TOO_FEW)
    } else if desired_replicas > maximum_allowed {
        limited(maximum_allowed, condition)
    } else {
        limited(desired_replicas, DESIRED_WITHIN_RANGE)
    }
}

/// The inputs of `normalizeDesiredReplicasWithBehaviors` (`NormalizationArg`).
#[derive(Debug, Clone, Copy)]
pub struct NormalizationArg<'a> {
    pub scale_up: &'a ScalingRules,
    pub scale_down: &'a ScalingRules,
    pub min_replicas: i32,
    pub max_replicas: i32,
    pub current_replicas: i32,
    pub desired_replicas: i32,
}

/// The scale-down window the controller uses: the rule's, else the flag (`maybeInitScaleDownStabilizationWindow`).
pub fn scale_down_window(behavior: &Behavior, flag: Duration) -> i32 {
    behavior
        .scale_down
        .stabilization_window_seconds
        .unwrap_or_else(|| i32::try_from(flag.millis() / 1000).unwrap_or(i32::MAX))
}

// Port of stabilizeRecommendationWithBehaviors (horizontal.go): both windows exclusive.
pub fn stabilize_recommendation_with_behaviors(
    memory: &mut ControllerMemory,
    now: Timestamp,
    arg: &NormalizationArg<'_>,
    up_window_seconds: i32,
    down_window_seconds: i32,
) -> Limited {
    let mut up_recommendation = arg.desired_replicas;
    let up_window = Duration::from_secs(i64::from(up_window_seconds));
    let up_cutoff = now.sub(up_window);
    let mut down_recommendation = arg.desired_replicas;
    let down_window = Duration::from_secs(i64::from(down_window_seconds));
    let down_cutoff = now.sub(down_window);
    let mut old_sample = None;
    for (i, rec) in memory.recommendations.iter().enumerate() {
        if counts_in_window(rec.timestamp, now, up_window, false) {
            up_recommendation = up_recommendation.min(rec.replicas);
        }
        if counts_in_window(rec.timestamp, now, down_window, false) {
            down_recommendation = down_recommendation.max(rec.replicas);
        }
        if rec.timestamp.before(up_cutoff) && rec.timestamp.before(down_cutoff) {
            old_sample = Some(i);
        }
    }
    let mut recommendation = arg.current_replicas;
    if recommendation < up_recommendation {
        recommendation = up_recommendation;
    }
    if recommendation > down_recommendation {
        recommendation = down_recommendation;
    }
    store_recommendation(memory, old_sample, arg.desired_replicas, now);
    if arg.desired_replicas >= arg.current_replicas {
        limited(recommendation, SCALE_UP_STABILIZED)
    } else {
        limited(recommendation, SCALE_DOWN_STABILIZED)
    }
}

// Port of getReplicasChangePerPeriod (horizontal.go): events strictly inside the period.
pub fn replicas_change_per_period(
    period_seconds: i32,
    events: &[ScaleEvent],
    now: Timestamp,
) -> i32 {
    let cutoff = now.sub(Duration::from_secs(i64::from(period_seconds)));
    events
        .iter()
        .filter(|e| e.timestamp.after(cutoff))
        .fold(0i32, |sum, e| sum.wrapping_add(e.replica_change))
}

// Port of calculateScaleUpLimitWithScalingRules (horizontal.go).
pub fn calculate_scale_up_limit_with_scaling_rules(
    current_replicas: i32,
    memory: &ControllerMemory,
    rules: &ScalingRules,
    now: Timestamp,
) -> i32 {
    policy_limit(current_replicas, memory, rules, now, Direction::Up)
}

// Port of calculateScaleDownLimitWithBehaviors (horizontal.go): Percent truncates, not ceil.
pub fn calculate_scale_down_limit_with_behaviors(
    current_replicas: i32,
    memory: &ControllerMemory,
    rules: &ScalingRules,
    now: Timestamp,
) -> i32 {
    policy_limit(current_replicas, memory, rules, now, Direction::Down)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// What one policy allows: the replica count at the start of its period (the current count less
/// what the scale events inside the period added, plus what they removed) and the bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyBound {
    pub policy: ScalingPolicy,
    pub added: i32,
    pub deleted: i32,
    pub period_start: i32,
    pub bound: i32,
}

/// Each policy's bound, in the rules' order: the trace behind `policy_limit`.
pub fn policy_bounds(
    current_replicas: i32,
    memory: &ControllerMemory,
    rules: &ScalingRules,
    now: Timestamp,
    up: bool,
) -> Vec<PolicyBound> {
    rules
        .policies
        .iter()
        .map(|policy| {
            let added =
                replicas_change_per_period(policy.period_seconds, &memory.scale_up_events, now);
            let deleted =
                replicas_change_per_period(policy.period_seconds, &memory.scale_down_events, now);
            let period_start = current_replicas.wrapping_sub(added).wrapping_add(deleted);
            let value = f64::from(policy.value);
            let bound = match (policy.policy_type, up) {
                (PolicyType::Pods, true) => period_start.wrapping_add(policy.value),
                (PolicyType::Pods, false) => period_start.wrapping_sub(policy.value),
                (PolicyType::Percent, true) => crate::calc::replicas::ceil_to_i32(
                    f64::from(period_start) * (1.0 + value / 100.0),
                ),
                (PolicyType::Percent, false) => crate::calc::replicas::truncate_to_i32(
                    f64::from(period_start) * (1.0 - value / 100.0),
                ),
            };
            PolicyBound {
                policy: *policy,
                added,
                deleted,
                period_start,
                bound,
            }
        })
        .collect()
}

/// The skeleton the two Go functions share: each policy proposes a bound from the replica count at
/// the start of its period, and `selectPolicy` picks the loosest (Max) or the tightest (Min).
fn policy_limit(
    current_replicas: i32,
    memory: &ControllerMemory,
    rules: &ScalingRules,
    now: Timestamp,
    direction: Direction,
) -> i32 {
    // Max allows the largest change: the highest ceiling going up, the lowest floor going down.
    let loosest = matches!(
        (rules.select_policy, direction),
        (SelectPolicy::Max, Direction::Up) | (SelectPolicy::Min, Direction::Down)
    );
    let (init, pick): (i32, fn(i32, i32) -> i32) = match rules.select_policy {
        SelectPolicy::Disabled => return current_replicas,
        _ if loosest => (i32::MIN, i32::max),
        _ => (i32::MAX, i32::min),
    };
    policy_bounds(
        current_replicas,
        memory,
        rules,
        now,
        direction == Direction::Up,
    )
    .iter()
    .fold(init, |result, b| pick(result, b.bound))
}

// Port of convertDesiredReplicasWithBehaviorRate (horizontal.go): clamps only in the direction of travel.
pub fn convert_desired_replicas_with_behavior_rate(
    memory: &ControllerMemory,
    now: Timestamp,
    arg: &NormalizationArg<'_>,
) -> Limited {
    if arg.desired_replicas > arg.current_replicas {
        let mut scale_up_limit = calculate_scale_up_limit_with_scaling_rules(
            arg.current_replicas,
            memory,
            arg.scale_up,
            now,
        );
        if scale_up_limit < arg.current_replicas {
            // Scale-up limit can't be below current (after a recent scale-down, say).
            scale_up_limit = arg.current_replicas;
        }
        let (maximum_allowed, condition) = if arg.max_replicas > scale_up_limit {
            (scale_up_limit, SCALE_UP_LIMIT)
        } else {
            (arg.max_replicas, TOO_MANY)
        };
        if arg.desired_replicas > maximum_allowed {
            return limited(maximum_allowed, condition);
        }
    } else if arg.desired_replicas < arg.current_replicas {
        let mut scale_down_limit = calculate_scale_down_limit_with_behaviors(
            arg.current_replicas,
            memory,
            arg.scale_down,
            now,
        );
        if scale_down_limit > arg.current_replicas {
            scale_down_limit = arg.current_replicas;
        }
        let (minimum_allowed, condition) = if arg.min_replicas < scale_down_limit {
            (scale_down_limit, SCALE_DOWN_LIMIT)
        } else {
            (arg.min_replicas, TOO_FEW)
        };
        if arg.desired_replicas < minimum_allowed {
            return limited(minimum_allowed, condition);
        }
    }
    limited(arg.desired_replicas, DESIRED_WITHIN_RANGE)
}

// Port of getLongestPolicyPeriod (horizontal.go).
pub fn longest_policy_period(rules: &ScalingRules) -> i32 {
    rules
        .policies
        .iter()
        .map(|p| p.period_seconds)
        .max()
        .unwrap_or(0)
}

// Port of markScaleEventsOutdated (horizontal.go).
fn mark_scale_events_outdated(events: &mut [ScaleEvent], longest_period: i32, now: Timestamp) {
    let cutoff = now.sub(Duration::from_secs(i64::from(longest_period)));
    for event in events {
        if event.timestamp.before(cutoff) {
            event.outdated = true;
        }
    }
}

// Port of storeScaleEvent (horizontal.go): nothing is stored without a behavior.
pub fn store_scale_event(
    memory: &mut ControllerMemory,
    behavior: Option<&Behavior>,
    prev_replicas: i32,
    new_replicas: i32,
    now: Timestamp,
) {
    let Some(behavior) = behavior else {
        return;
    };
    let (events, rules) = if new_replicas > prev_replicas {
        (&mut memory.scale_up_events, &behavior.scale_up)
    } else {
        (&mut memory.scale_down_events, &behavior.scale_down)
    };
    mark_scale_events_outdated(events, longest_policy_period(rules), now);
    let event = ScaleEvent {
        replica_change: new_replicas.wrapping_sub(prev_replicas).wrapping_abs(),
        timestamp: now,
        outdated: false,
    };
    match events.iter_mut().rev().find(|e| e.outdated) {
        Some(slot) => *slot = event,
        None => events.push(event),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ScalingPolicy;

    const NOW: Timestamp = Timestamp(10_000_000);
    const PROD: LegacyLimits = LegacyLimits {
        factor: 2.0,
        minimum: 4.0,
    };

    fn ago(secs: i64) -> Timestamp {
        NOW.sub(Duration::from_secs(secs))
    }

    fn rules(select: SelectPolicy, policies: &[(PolicyType, i32, i32)]) -> ScalingRules {
        ScalingRules {
            stabilization_window_seconds: Some(0),
            select_policy: select,
            policies: policies
                .iter()
                .map(|&(policy_type, value, period_seconds)| ScalingPolicy {
                    policy_type,
                    value,
                    period_seconds,
                })
                .collect(),
            tolerance: None,
        }
    }

    fn event(age: i64, change: i32) -> ScaleEvent {
        ScaleEvent {
            replica_change: change,
            timestamp: ago(age),
            outdated: false,
        }
    }

    #[test]
    fn legacy_scale_up_limit_is_twice_current_or_four() {
        assert_eq!(calculate_scale_up_limit(1, PROD), 4);
        assert_eq!(calculate_scale_up_limit(5, PROD), 10);
        let r = convert_desired_replicas_with_rules(3, 20, 1, 100, PROD);
        assert_eq!((r.replicas, r.reason), (6, "ScaleUpLimit"));
        let r = convert_desired_replicas_with_rules(3, 20, 1, 5, PROD);
        assert_eq!((r.replicas, r.reason), (5, "TooManyReplicas"));
        let r = convert_desired_replicas_with_rules(3, 1, 2, 5, PROD);
        assert_eq!((r.replicas, r.reason), (2, "TooFewReplicas"));
    }

    #[test]
    fn legacy_window_includes_a_sample_exactly_window_old() {
        let mut memory = ControllerMemory {
            recommendations: vec![
                Recommendation {
                    replicas: 9,
                    timestamp: ago(300),
                },
                Recommendation {
                    replicas: 8,
                    timestamp: ago(301),
                },
            ],
            ..ControllerMemory::default()
        };
        assert_eq!(
            stabilize_recommendation(&mut memory, NOW, Duration::from_secs(300), 4),
            9
        );
        // The old sample was overwritten in place, not appended.
        assert_eq!(memory.recommendations.len(), 2);
        assert_eq!(memory.recommendations[1].replicas, 4);
    }

    #[test]
    fn a_sample_exactly_window_old_counts_only_on_the_legacy_path() {
        let window = Duration::from_secs(300);
        assert!(counts_in_window(ago(300), NOW, window, true));
        assert!(!counts_in_window(ago(300), NOW, window, false));
        assert!(counts_in_window(ago(299), NOW, window, false));
        assert!(!counts_in_window(ago(301), NOW, window, true));
    }

    #[test]
    fn behavior_windows_exclude_a_sample_exactly_window_old() {
        let up = rules(SelectPolicy::Max, &[(PolicyType::Pods, 4, 15)]);
        let down = rules(SelectPolicy::Max, &[(PolicyType::Percent, 100, 15)]);
        let arg = NormalizationArg {
            scale_up: &up,
            scale_down: &down,
            min_replicas: 1,
            max_replicas: 100,
            current_replicas: 10,
            desired_replicas: 4,
        };
        let mut memory = ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 9,
                timestamp: ago(300),
            }],
            ..ControllerMemory::default()
        };
        let r = stabilize_recommendation_with_behaviors(&mut memory, NOW, &arg, 0, 300);
        assert_eq!(r.replicas, 4);
        let mut memory = ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 9,
                timestamp: ago(299),
            }],
            ..ControllerMemory::default()
        };
        let r = stabilize_recommendation_with_behaviors(&mut memory, NOW, &arg, 0, 300);
        assert_eq!((r.replicas, r.reason), (9, "ScaleDownStabilized"));
    }

    #[test]
    fn scale_up_window_keeps_the_lowest_recent_recommendation() {
        let up = rules(SelectPolicy::Max, &[(PolicyType::Pods, 4, 15)]);
        let arg = NormalizationArg {
            scale_up: &up,
            scale_down: &up,
            min_replicas: 1,
            max_replicas: 100,
            current_replicas: 4,
            desired_replicas: 10,
        };
        let mut memory = ControllerMemory {
            recommendations: vec![Recommendation {
                replicas: 6,
                timestamp: ago(30),
            }],
            ..ControllerMemory::default()
        };
        let r = stabilize_recommendation_with_behaviors(&mut memory, NOW, &arg, 60, 0);
        assert_eq!((r.replicas, r.reason), (6, "ScaleUpStabilized"));
    }

    #[test]
    fn events_exactly_one_period_old_no_longer_count() {
        let events = [event(60, 3), event(59, 2)];
        assert_eq!(replicas_change_per_period(60, &events, NOW), 2);
    }

    #[test]
    fn select_policy_picks_max_min_or_disables() {
        let memory = ControllerMemory::default();
        let policies = [(PolicyType::Pods, 2, 60), (PolicyType::Percent, 50, 60)];
        let min = rules(SelectPolicy::Min, &policies);
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(1, &memory, &min, NOW),
            2
        );
        assert_eq!(
            calculate_scale_down_limit_with_behaviors(5, &memory, &min, NOW),
            3
        );
        let max = rules(SelectPolicy::Max, &policies);
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(1, &memory, &max, NOW),
            3
        );
        assert_eq!(
            calculate_scale_down_limit_with_behaviors(5, &memory, &max, NOW),
            2
        );
        let off = rules(SelectPolicy::Disabled, &policies);
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(7, &memory, &off, NOW),
            7
        );
    }

    #[test]
    fn percent_scale_down_truncates_float_artifacts() {
        let memory = ControllerMemory::default();
        let r = rules(SelectPolicy::Max, &[(PolicyType::Percent, 80, 60)]);
        assert_eq!(
            calculate_scale_down_limit_with_behaviors(5, &memory, &r, NOW),
            0
        );
        assert_eq!(
            calculate_scale_down_limit_with_behaviors(20, &memory, &r, NOW),
            3
        );
    }

    #[test]
    fn period_start_accounts_for_recent_events() {
        let memory = ControllerMemory {
            scale_up_events: vec![event(10, 4)],
            ..ControllerMemory::default()
        };
        let r = rules(SelectPolicy::Max, &[(PolicyType::Pods, 4, 60)]);
        // 8 now, 4 added in the last minute: the period started at 4, so the limit is 8.
        assert_eq!(
            calculate_scale_up_limit_with_scaling_rules(8, &memory, &r, NOW),
            8
        );
    }

    #[test]
    fn behavior_rate_clamps_only_in_the_direction_of_travel() {
        let up = rules(SelectPolicy::Max, &[(PolicyType::Pods, 4, 15)]);
        let memory = ControllerMemory::default();
        let arg = NormalizationArg {
            scale_up: &up,
            scale_down: &up,
            min_replicas: 5,
            max_replicas: 10,
            current_replicas: 3,
            desired_replicas: 3,
        };
        assert_eq!(
            convert_desired_replicas_with_behavior_rate(&memory, NOW, &arg).replicas,
            3
        );
        let arg = NormalizationArg {
            desired_replicas: 20,
            ..arg
        };
        let r = convert_desired_replicas_with_behavior_rate(&memory, NOW, &arg);
        assert_eq!((r.replicas, r.reason), (7, "ScaleUpLimit"));
    }

    #[test]
    fn store_scale_event_overwrites_the_last_outdated_event() {
        let up = rules(SelectPolicy::Max, &[(PolicyType::Pods, 4, 60)]);
        let behavior = Behavior {
            scale_up: up.clone(),
            scale_down: up,
        };
        let mut memory = ControllerMemory {
            scale_up_events: vec![event(120, 1), event(90, 2), event(10, 3)],
            ..ControllerMemory::default()
        };
        store_scale_event(&mut memory, Some(&behavior), 5, 9, NOW);
        let changes: Vec<_> = memory
            .scale_up_events
            .iter()
            .map(|e| (e.replica_change, e.outdated))
            .collect();
        assert_eq!(changes, [(1, true), (4, false), (3, false)]);
        store_scale_event(&mut memory, None, 5, 9, NOW);
        assert_eq!(memory.scale_up_events.len(), 3);
    }
}
