//! The per-metric arithmetic of `pkg/controller/podautoscaler/replica_calculator.go` and
//! `metrics/utilization.go`: usage ratio, tolerance, ceil, and the recount of missing and unready
//! pods. Milli-values are int64 with Go's wrapping arithmetic, ratios float64 in Go's order.

use crate::calc::pods::{
    GroupSettings, Groups, PodMap, PodMetricsInfo, RequestSettings, calculate_requests, group_pods,
    ready_pods_count, remove_metrics_for_pods,
};
use crate::scenario::Pod;

/// The tolerance band and the rule of the version that applies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerances {
    pub scale_down: f64,
    pub scale_up: f64,
    /// Up to 1.32 the controller tested `|1 - ratio| <= tolerance` (symmetric, one value).
    pub symmetric: bool,
}

impl Tolerances {
    // Port of Tolerances.isWithin (replica_calculator.go, 1.33+); before 1.33 `math.Abs(1.0-usageRatio) <= c.tolerance`.
    pub fn is_within(&self, usage_ratio: f64) -> bool {
        if self.symmetric {
            (1.0 - usage_ratio).abs() <= self.scale_up
        } else {
            (1.0 - self.scale_down) <= usage_ratio && usage_ratio <= (1.0 + self.scale_up)
        }
    }
}

/// Go's `int32(math.Ceil(x))`. Beyond int32 Go's result is platform-defined (amd64 wraps, arm64
/// saturates); we saturate everywhere, as `ceilToInt32` does from kubernetes/kubernetes#141397.
pub fn ceil_to_i32(x: f64) -> i32 {
    let c = x.ceil();
    if c.is_nan() {
        0
    } else if c >= f64::from(i32::MAX) {
        i32::MAX
    } else if c <= f64::from(i32::MIN) {
        i32::MIN
    } else {
        // In range by the checks above.
        #[allow(clippy::cast_possible_truncation)]
        let v = c as i32;
        v
    }
}

/// Go's `int32(x)` of a float: truncation toward zero (saturating where Go is platform-defined).
pub fn truncate_to_i32(x: f64) -> i32 {
    ceil_to_i32(x.trunc())
}

fn to_f64(n: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let f = n as f64;
    f
}

fn i64_to_f64(n: i64) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let f = n as f64;
    f
}

/// Which int64 sum of the controller wrapped (Go wraps silently; the value kept is the wrapped one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    UsageSum,
    RequestSum,
    UsageTimes100,
    ValueSum,
}

impl Overflow {
    pub fn describe(self) -> &'static str {
        match self {
            Overflow::UsageSum => "the sum of the pods' usage",
            Overflow::RequestSum => "the sum of the pods' requests",
            Overflow::UsageTimes100 => "the pods' usage × 100 (metricsTotal * 100)",
            Overflow::ValueSum => "the sum of the pods' values",
        }
    }
}

/// What the recount substituted and found.
#[derive(Debug, Clone, PartialEq)]
pub struct RecountTrace {
    pub missing_value: Option<i64>,
    pub unready_at_zero: bool,
    pub metrics_count: usize,
    pub new_ratio: f64,
    pub new_utilization: Option<i32>,
    /// The sum of the recount that overflowed int64 (the value kept is Go's wrapped one).
    pub overflow: Option<Overflow>,
}

/// The branch of the replica calculator (`replica_calculator.go`) that made a metric's
/// proposal. Explanations and diagnostics ask this, never the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The ratio is inside the tolerance band: the current count.
    WithinTolerance,
    /// `ceil(ratio × ready pods)`.
    ReadyPods,
    /// The recount's ratio is inside the tolerance band: the current count.
    RecountWithinTolerance,
    /// The recount's ratio is on the other side of 1 from the first pass's: the current count.
    RecountReverses,
    /// The recount's count would move the other way: the current count.
    RecountCountReverses,
    /// `ceil(recount ratio × samples)`.
    RecountSamples,
    /// From zero replicas: `ceil(ratio)`, no tolerance.
    FromZero,
    /// An Object or External AverageValue ratio inside the band: the scale's status replicas.
    WithinToleranceStatus,
    /// `ceil(total ÷ target average)`.
    TotalPerAverage,
}

impl Rule {
    /// As the report's `branch` says it.
    pub fn text(self) -> &'static str {
        match self {
            Rule::WithinTolerance => "within tolerance: keep current replicas",
            Rule::ReadyPods => "ceil(ratio × ready pods)",
            Rule::RecountWithinTolerance => "recount within tolerance: keep current replicas",
            Rule::RecountReverses => "recount reverses the direction: keep current replicas",
            Rule::RecountCountReverses => {
                "recount count reverses the direction: keep current replicas"
            }
            Rule::RecountSamples => "ceil(recount ratio × samples)",
            Rule::FromZero => "from zero: ceil(ratio)",
            Rule::WithinToleranceStatus => "within tolerance: keep status replicas",
            Rule::TotalPerAverage => "ceil(total ÷ target average)",
        }
    }

    /// The ratio that decided (the first pass's or the recount's) was inside the tolerance band.
    pub fn within_tolerance(self) -> bool {
        matches!(
            self,
            Rule::WithinTolerance | Rule::RecountWithinTolerance | Rule::WithinToleranceStatus
        )
    }

    /// The recount of missing and unready pods decided.
    pub fn recount(self) -> bool {
        matches!(
            self,
            Rule::RecountWithinTolerance
                | Rule::RecountReverses
                | Rule::RecountCountReverses
                | Rule::RecountSamples
        )
    }
}

/// The outcome of one pod-based metric calculation, with its trace.
#[derive(Debug, Clone, PartialEq)]
pub struct PodBasedResult<'a> {
    pub replicas: i32,
    /// Utilization targets: the integer percent; AverageValue/Pods: unused.
    pub utilization: Option<i32>,
    /// Utilization: `rawUtilization` (average usage); AverageValue/Pods: the average usage.
    pub raw_average: i64,
    pub usage_ratio: f64,
    pub usage_total: i64,
    pub request_total: Option<i64>,
    /// `len(metrics)` in the first pass: ready pods plus samples for pods the lister does not know.
    pub samples: usize,
    pub groups: Groups<'a>,
    pub recount: Option<RecountTrace>,
    pub branch: Rule,
    /// The sums behind it, to redo the arithmetic for another usage total.
    pub sums: Box<PodSums>,
    /// The sum of the first pass that overflowed int64 (the value kept is Go's wrapped one).
    pub overflow: Option<Overflow>,
}

/// A failure with the groups computed so far (for the trace).
#[derive(Debug, Clone, PartialEq)]
pub struct CalcError<'a> {
    pub message: String,
    pub groups: Option<Box<Groups<'a>>>,
}

impl<'a> CalcError<'a> {
    fn new(message: impl Into<String>) -> Self {
        CalcError {
            message: message.into(),
            groups: None,
        }
    }
}

/// Everything the calculator reads besides the metric.
#[derive(Debug, Clone, Copy)]
pub struct CalcContext<'a> {
    pub pods: &'a [Pod],
    /// `getReadyPodsCount` of `pods`, when already counted (the hold band's probes count once).
    pub ready_pods: Option<i64>,
    pub group: GroupSettings,
    pub requests: RequestSettings,
    pub tolerances: Tolerances,
}

/// The utilization sums (`GetResourceUtilizationRatio`), kept for the trace.
struct Utilization {
    ratio: f64,
    current: i32,
    raw_average: i64,
    metrics_total: i64,
    requests_total: i64,
    overflow: Option<Overflow>,
}

// Port of GetResourceUtilizationRatio (metrics/utilization.go).
fn resource_utilization_ratio(
    metrics: &PodMetricsInfo<'_>,
    requests: &PodMap<'_, i64>,
    target_utilization: i32,
) -> Result<Utilization, String> {
    let mut metrics_total = 0i64;
    let mut requests_total = 0i64;
    let mut entries = 0i64;
    // Go's int64 sums wrap; the wrapped value is kept, and the overflow is said.
    let mut overflow = None;
    for (pod, metric) in metrics {
        // Samples for pods the lister does not know have no request and are skipped here.
        let Some(request) = requests.get(pod) else {
            continue;
        };
        if metrics_total.checked_add(metric.value).is_none() {
            overflow.get_or_insert(Overflow::UsageSum);
        }
        if requests_total.checked_add(*request).is_none() {
            overflow.get_or_insert(Overflow::RequestSum);
        }
        metrics_total = metrics_total.wrapping_add(metric.value);
        requests_total = requests_total.wrapping_add(*request);
        entries += 1;
    }
    if metrics_total.checked_mul(100).is_none() {
        overflow.get_or_insert(Overflow::UsageTimes100);
    }
    if requests_total == 0 {
        return Err("no metrics returned matched known pods".into());
    }
    // int32(...) keeps the low 32 bits, like Go's conversion.
    #[allow(clippy::cast_possible_truncation)]
    let current = (metrics_total.wrapping_mul(100) / requests_total) as i32;
    Ok(Utilization {
        ratio: f64::from(current) / f64::from(target_utilization),
        current,
        raw_average: metrics_total / entries.max(1),
        metrics_total,
        requests_total,
        overflow,
    })
}

// Port of GetMetricUsageRatio (metrics/utilization.go): every entry, no request filter.
fn metric_usage_ratio(
    metrics: &PodMetricsInfo<'_>,
    target_usage: i64,
) -> (f64, i64, i64, Option<Overflow>) {
    let mut overflow = None;
    let total = metrics.values().fold(0i64, |acc, m| {
        if acc.checked_add(m.value).is_none() {
            overflow = Some(Overflow::ValueSum);
        }
        acc.wrapping_add(m.value)
    });
    let len = i64::try_from(metrics.len()).unwrap_or(i64::MAX).max(1);
    let current = total / len;
    (
        i64_to_f64(current) / i64_to_f64(target_usage),
        current,
        total,
        overflow,
    )
}

/// Which usage function a pod-based metric uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PodTarget {
    /// `GetResourceReplicas`: average utilization in percent of request.
    Utilization(i32),
    /// `calcPlainMetricReplicas`: average value in milli-units.
    AverageValue(i64),
}

struct Ratio {
    ratio: f64,
    utilization: Option<i32>,
    raw_average: i64,
    usage_total: i64,
    request_total: Option<i64>,
    overflow: Option<Overflow>,
}

fn usage_ratio(
    metrics: &PodMetricsInfo<'_>,
    requests: Option<&PodMap<'_, i64>>,
    target: PodTarget,
) -> Result<Ratio, String> {
    match (target, requests) {
        (PodTarget::Utilization(t), Some(requests)) => {
            let u = resource_utilization_ratio(metrics, requests, t)?;
            Ok(Ratio {
                ratio: u.ratio,
                utilization: Some(u.current),
                raw_average: u.raw_average,
                usage_total: u.metrics_total,
                request_total: Some(u.requests_total),
                overflow: u.overflow,
            })
        }
        (PodTarget::Utilization(_), None) => Err("missing requests".into()),
        (PodTarget::AverageValue(t), _) => {
            let (ratio, current, total, overflow) = metric_usage_ratio(metrics, t);
            Ok(Ratio {
                ratio,
                utilization: None,
                raw_average: current,
                usage_total: total,
                request_total: None,
                overflow,
            })
        }
    }
}

// Port of GetResourceReplicas and calcPlainMetricReplicas (replica_calculator.go): the two share
// every step but the usage function and the value a missing pod gets on a scale-down.
pub fn pod_based_replicas<'a>(
    ctx: &CalcContext<'a>,
    current_replicas: i32,
    mut metrics: PodMetricsInfo<'a>,
    resource: &str,
    container: Option<&str>,
    target: PodTarget,
) -> Result<PodBasedResult<'a>, CalcError<'a>> {
    if ctx.pods.is_empty() {
        return Err(CalcError::new(
            "no pods returned by selector while calculating replica count",
        ));
    }
    let groups = group_pods(ctx.pods, &metrics, resource, &ctx.group);
    remove_metrics_for_pods(&mut metrics, &groups.ignored);
    remove_metrics_for_pods(&mut metrics, &groups.unready);
    if metrics.is_empty() {
        return Err(CalcError {
            message: "did not receive metrics for targeted pods (pods might be unready)".into(),
            groups: Some(Box::new(groups)),
        });
    }
    let requests = match target {
        PodTarget::Utilization(_) => Some(
            calculate_requests(ctx.pods, container, resource, ctx.requests).map_err(|message| {
                CalcError {
                    message,
                    groups: Some(Box::new(groups.clone())),
                }
            })?,
        ),
        PodTarget::AverageValue(_) => None,
    };
    let first = usage_ratio(&metrics, requests.as_ref(), target).map_err(|message| CalcError {
        message,
        groups: Some(Box::new(groups.clone())),
    })?;
    let sums = PodSums::gather(
        &metrics,
        requests.as_ref(),
        &groups,
        target,
        first.usage_total,
    );
    let decided = decide_pod_based(&sums, ctx.tolerances, current_replicas, sums.usage_total);
    Ok(PodBasedResult {
        replicas: decided.replicas,
        utilization: first.utilization,
        raw_average: first.raw_average,
        usage_ratio: first.ratio,
        usage_total: first.usage_total,
        request_total: first.request_total,
        samples: sums.samples,
        groups,
        recount: decided.recount,
        branch: decided.branch,
        sums: Box::new(sums),
        overflow: first.overflow,
    })
}

/// What the recount adds in one direction: the pods it inserts into the metrics and their sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inserted {
    /// Distinct pods inserted (`len(metrics)` grows by this much).
    pub count: usize,
    /// The values they are counted at, summed (milli-units, wrapping as Go's int64).
    pub value_total: i64,
    /// Their requests, summed (Utilization only).
    pub request_total: i64,
    /// The value each missing pod got (the trace's `missingPodsValueMilli`), when any was added.
    pub missing_value: Option<i64>,
}

/// The first pass of a pod-based metric reduced to the sums the controller's arithmetic reads,
/// and what the recount would insert in each direction. Only sums enter `GetResourceReplicas` and
/// `calcPlainMetricReplicas` after grouping, so `decide_pod_based` can redo the arithmetic for any
/// other usage total: the hold band searches on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PodSums {
    pub target: PodTarget,
    /// Usage summed over the first pass's entries.
    pub usage_total: i64,
    /// Utilization: requests summed over the entries of known pods.
    pub request_total: Option<i64>,
    /// Utilization: entries of known pods (`rawUtilization`'s divisor).
    pub known_entries: i64,
    /// `len(metrics)` in the first pass.
    pub samples: usize,
    pub ready_pods: usize,
    pub has_unready: bool,
    pub has_missing: bool,
    /// Usage ratio above 1: missing and unready pods at 0.
    pub up: Inserted,
    /// Usage ratio below 1: missing pods at the target (at least 100 % of request).
    pub down: Inserted,
}

impl PodSums {
    fn gather(
        metrics: &PodMetricsInfo<'_>,
        requests: Option<&PodMap<'_, i64>>,
        groups: &Groups<'_>,
        target: PodTarget,
        usage_total: i64,
    ) -> PodSums {
        let request_of = |pod: &str| {
            requests
                .and_then(|r| r.get(pod))
                .copied()
                .unwrap_or_default()
        };
        let (request_total, known_entries) = match requests {
            Some(r) => metrics
                .keys()
                .filter_map(|pod| r.get(pod))
                .fold((0i64, 0i64), |(sum, n), req| {
                    (sum.wrapping_add(*req), n + 1)
                }),
            None => (0, 0),
        };
        // A map insert: a pod named twice is inserted once.
        let mut seen = foldhash::HashSet::default();
        let mut up = Inserted::default();
        for pod in groups.missing.iter().chain(&groups.unready) {
            if seen.insert(*pod) {
                up.count += 1;
                up.request_total = up.request_total.wrapping_add(request_of(pod));
            }
        }
        if !groups.missing.is_empty() {
            up.missing_value = Some(0);
        }
        seen.clear();
        let mut down = Inserted::default();
        for pod in &groups.missing {
            let value = match target {
                PodTarget::Utilization(t) => {
                    request_of(pod).wrapping_mul(i64::from(t.max(100))) / 100
                }
                PodTarget::AverageValue(t) => t,
            };
            down.missing_value = Some(value);
            if seen.insert(*pod) {
                down.count += 1;
                down.value_total = down.value_total.wrapping_add(value);
                down.request_total = down.request_total.wrapping_add(request_of(pod));
            }
        }
        PodSums {
            target,
            usage_total,
            request_total: requests.map(|_| request_total),
            known_entries,
            samples: metrics.len(),
            ready_pods: groups.ready_pod_count,
            has_unready: !groups.unready.is_empty(),
            has_missing: !groups.missing.is_empty(),
            up,
            down,
        }
    }

    /// Which of the recount's int64 sums overflows, as Go's would (the wrapped value is kept).
    fn recount_overflow(&self, usage_total: i64, extra: &Inserted) -> Option<Overflow> {
        let total = usage_total.checked_add(extra.value_total);
        match (self.target, self.request_total) {
            (PodTarget::Utilization(_), Some(requests)) => {
                let Some(total) = total else {
                    return Some(Overflow::UsageSum);
                };
                if requests.checked_add(extra.request_total).is_none() {
                    Some(Overflow::RequestSum)
                } else if total.checked_mul(100).is_none() {
                    Some(Overflow::UsageTimes100)
                } else {
                    None
                }
            }
            _ => total.is_none().then_some(Overflow::ValueSum),
        }
    }

    /// The usage ratio and, for Utilization, the truncated percent, of a usage total over the
    /// first pass's entries plus `extra` (the same arithmetic as `usage_ratio`).
    fn ratio(&self, usage_total: i64, extra: &Inserted) -> (f64, Option<i32>) {
        match (self.target, self.request_total) {
            (PodTarget::Utilization(t), Some(requests)) => {
                let requests = requests.wrapping_add(extra.request_total);
                if requests == 0 {
                    return (f64::NAN, Some(0));
                }
                // int32(...) keeps the low 32 bits, like Go's conversion.
                #[allow(clippy::cast_possible_truncation)]
                let current = (usage_total.wrapping_mul(100) / requests) as i32;
                (f64::from(current) / f64::from(t), Some(current))
            }
            (PodTarget::AverageValue(t), _) => {
                let len = i64::try_from(self.samples + extra.count)
                    .unwrap_or(i64::MAX)
                    .max(1);
                (i64_to_f64(usage_total / len) / i64_to_f64(t), None)
            }
            // Utilization without requests fails before any ratio (`usage_ratio`).
            (PodTarget::Utilization(_), None) => (f64::NAN, None),
        }
    }
}

/// The part of `GetResourceReplicas` / `calcPlainMetricReplicas` after the first pass.
pub struct PodDecision {
    pub replicas: i32,
    pub usage_ratio: f64,
    pub recount: Option<RecountTrace>,
    pub branch: Rule,
}

// Port of GetResourceReplicas and calcPlainMetricReplicas (replica_calculator.go), from the usage
// ratio on, on sums: `usage_total` is the first pass's usage (another value for the hold band).
pub fn decide_pod_based(
    sums: &PodSums,
    tolerances: Tolerances,
    current_replicas: i32,
    usage_total: i64,
) -> PodDecision {
    let (usage_ratio_value, _) = sums.ratio(usage_total, &Inserted::default());
    let done = |replicas, recount, branch| PodDecision {
        replicas,
        usage_ratio: usage_ratio_value,
        recount,
        branch,
    };
    let scale_up_with_unready = sums.has_unready && usage_ratio_value > 1.0;
    if !scale_up_with_unready && !sums.has_missing {
        if tolerances.is_within(usage_ratio_value) {
            return done(current_replicas, None, Rule::WithinTolerance);
        }
        return done(
            ceil_to_i32(usage_ratio_value * to_f64(sums.ready_pods)),
            None,
            Rule::ReadyPods,
        );
    }

    // On a scale-down, missing pods count as using the target (at least 100 % of request); on a
    // scale-up, missing and unready pods count as using nothing; at exactly 1 nothing is added.
    let inserted = if usage_ratio_value < 1.0 {
        sums.down
    } else if usage_ratio_value > 1.0 {
        sums.up
    } else {
        Inserted::default()
    };
    let (new_ratio, new_utilization) =
        sums.ratio(usage_total.wrapping_add(inserted.value_total), &inserted);
    let metrics_count = sums.samples + inserted.count;
    let trace = RecountTrace {
        missing_value: inserted.missing_value,
        unready_at_zero: scale_up_with_unready,
        metrics_count,
        new_ratio,
        new_utilization,
        overflow: sums.recount_overflow(usage_total, &inserted),
    };
    if tolerances.is_within(new_ratio) {
        return done(current_replicas, Some(trace), Rule::RecountWithinTolerance);
    }
    if (usage_ratio_value < 1.0 && new_ratio > 1.0) || (usage_ratio_value > 1.0 && new_ratio < 1.0)
    {
        return done(current_replicas, Some(trace), Rule::RecountReverses);
    }
    let new_replicas = ceil_to_i32(new_ratio * to_f64(metrics_count));
    if (new_ratio < 1.0 && new_replicas > current_replicas)
        || (new_ratio > 1.0 && new_replicas < current_replicas)
    {
        return done(current_replicas, Some(trace), Rule::RecountCountReverses);
    }
    done(new_replicas, Some(trace), Rule::RecountSamples)
}

/// The result of a metric that does not look at pods' samples.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueResult {
    pub replicas: i32,
    /// What the controller reports as the current value (total, or per-pod average).
    pub usage: i64,
    /// The total the calculator divided (equal to `usage` for `Value` targets).
    pub total: i64,
    pub usage_ratio: f64,
    /// `getReadyPodsCount`, when it was consulted.
    pub ready_pods: Option<i64>,
    pub branch: Rule,
}

// Port of getUsageRatioReplicaCount (replica_calculator.go).
pub fn usage_ratio_replica_count(
    ctx: &CalcContext<'_>,
    current_replicas: i32,
    usage_ratio: f64,
    clamp_to_max_int32: bool,
) -> Result<(i32, Option<i64>, Rule), String> {
    if current_replicas != 0 {
        if ctx.tolerances.is_within(usage_ratio) {
            return Ok((current_replicas, None, Rule::WithinTolerance));
        }
        let ready = ctx
            .ready_pods
            .map_or_else(|| ready_pods_count(ctx.pods), Ok)
            .map_err(|e| format!("unable to calculate ready pods: {e}"))?;
        let replicas_float = usage_ratio * i64_to_f64(ready);
        let replicas = if clamp_to_max_int32 && replicas_float > f64::from(i32::MAX) {
            i32::MAX
        } else {
            ceil_to_i32(replicas_float)
        };
        Ok((replicas, Some(ready), Rule::ReadyPods))
    } else {
        // Scale from zero: no tolerance, no pods.
        Ok((ceil_to_i32(usage_ratio), None, Rule::FromZero))
    }
}

// Port of GetObjectMetricReplicas (replica_calculator.go).
pub fn object_metric_replicas(
    ctx: &CalcContext<'_>,
    current_replicas: i32,
    target_usage: i64,
    usage: i64,
    clamp_to_max_int32: bool,
) -> Result<ValueResult, String> {
    let usage_ratio = i64_to_f64(usage) / i64_to_f64(target_usage);
    let (replicas, ready_pods, branch) =
        usage_ratio_replica_count(ctx, current_replicas, usage_ratio, clamp_to_max_int32)?;
    Ok(ValueResult {
        replicas,
        usage,
        total: usage,
        usage_ratio,
        ready_pods,
        branch,
    })
}

// Port of GetObjectPerPodMetricReplicas (replica_calculator.go).
pub fn object_per_pod_metric_replicas(
    tolerances: Tolerances,
    status_replicas: i32,
    target_average_usage: i64,
    usage: i64,
) -> ValueResult {
    let mut replicas = status_replicas;
    let usage_ratio =
        i64_to_f64(usage) / (i64_to_f64(target_average_usage) * f64::from(status_replicas));
    let mut branch = Rule::WithinToleranceStatus;
    if !tolerances.is_within(usage_ratio) {
        replicas = ceil_to_i32(i64_to_f64(usage) / i64_to_f64(target_average_usage));
        branch = Rule::TotalPerAverage;
    }
    ValueResult {
        replicas,
        usage: per_pod_usage(usage, status_replicas),
        total: usage,
        usage_ratio,
        ready_pods: None,
        branch,
    }
}

/// `int64(math.Ceil(float64(usage) / float64(statusReplicas)))`, with the guards of
/// `getPerPodUsage` for the cases where Go's conversion is platform-defined (0 replicas, overflow).
fn per_pod_usage(usage: i64, status_replicas: i32) -> i64 {
    if status_replicas == 0 {
        return 0;
    }
    let v = (i64_to_f64(usage) / f64::from(status_replicas)).ceil();
    if v >= i64_to_f64(i64::MAX) {
        i64::MAX
    } else {
        #[allow(clippy::cast_possible_truncation)]
        let r = v as i64;
        r
    }
}

/// Which overflow guards of the External metric paths the version has.
#[derive(Debug, Clone, Copy)]
pub struct ExternalGuards {
    /// AverageValue: a negative running sum means overflow → MaxInt64; proposal clamped (1.34+).
    pub per_pod_overflow: bool,
    /// Value: the sum saturates at MaxInt64 (newest).
    pub value_sum_saturates: bool,
    /// Value: `usageRatio * readyPods > MaxInt32 → MaxInt32` (1.35+).
    pub value_clamp: bool,
}

// Port of GetExternalMetricReplicas (replica_calculator.go).
pub fn external_metric_replicas(
    ctx: &CalcContext<'_>,
    current_replicas: i32,
    target_usage: i64,
    values: &[i64],
    guards: ExternalGuards,
) -> Result<ValueResult, String> {
    let mut usage = 0i64;
    for &val in values {
        if guards.value_sum_saturates && val > 0 && usage > i64::MAX - val {
            usage = i64::MAX;
            break;
        }
        usage = usage.wrapping_add(val);
    }
    let usage_ratio = i64_to_f64(usage) / i64_to_f64(target_usage);
    let (replicas, ready_pods, branch) =
        usage_ratio_replica_count(ctx, current_replicas, usage_ratio, guards.value_clamp)?;
    Ok(ValueResult {
        replicas,
        usage,
        total: usage,
        usage_ratio,
        ready_pods,
        branch,
    })
}

// Port of GetExternalPerPodMetricReplicas (replica_calculator.go).
pub fn external_per_pod_metric_replicas(
    tolerances: Tolerances,
    status_replicas: i32,
    target_usage_per_pod: i64,
    values: &[i64],
    guards: ExternalGuards,
) -> ValueResult {
    let mut usage = 0i64;
    for &val in values {
        usage = usage.wrapping_add(val);
        if guards.per_pod_overflow && usage < 0 {
            usage = i64::MAX;
            break;
        }
    }
    let mut replicas = status_replicas;
    let usage_ratio =
        i64_to_f64(usage) / (i64_to_f64(target_usage_per_pod) * f64::from(status_replicas));
    let mut branch = Rule::WithinToleranceStatus;
    if !tolerances.is_within(usage_ratio) {
        let result = (i64_to_f64(usage) / i64_to_f64(target_usage_per_pod)).ceil();
        replicas = if guards.per_pod_overflow && result > f64::from(i32::MAX) {
            i32::MAX
        } else {
            ceil_to_i32(result)
        };
        branch = Rule::TotalPerAverage;
    }
    let reported = if i64_to_f64(usage) >= i64_to_f64(i64::MAX) {
        i64::MAX
    } else {
        per_pod_usage(usage, status_replicas)
    };
    ValueResult {
        replicas,
        usage: reported,
        total: usage,
        usage_ratio,
        ready_pods: None,
        branch,
    }
}
