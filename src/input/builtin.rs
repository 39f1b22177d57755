//! The built-in scenarios of `hpacalc simulate --scenario NAME`: the situations everyone meets,
//! each an HPA manifest, a load curve and the settings of its story, plus a sentence that says
//! what to notice. They are data only: the manifest goes through the same loader as a file, the
//! load through the same CSV parser, and the settings through the same validation, so a
//! scenario is exactly what `hpacalc simulate --hpa ... --load ...` with those flags would do.

use crate::input::inputs::SimSettings;

fn text(value: &str) -> Option<String> {
    Some(value.to_string())
}

/// One built-in scenario.
#[derive(Debug, Clone, Copy)]
pub struct BuiltIn {
    pub name: &'static str,
    /// What to notice.
    pub notice: &'static str,
    /// The HPA manifest (YAML).
    pub hpa: &'static str,
    /// The load CSV.
    pub load: &'static str,
    /// The run's settings; those given on the command line win.
    pub settings: fn() -> SimSettings,
}

/// `web`: CPU utilization 50 %, 2 to 10 replicas, no behavior (legacy path).
const WEB_CPU_50: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
";

/// The reference's worked timeline (cluster-autoscaler.md §8.4): CPU 60 %, 2 to 30 replicas.
const API_CPU_60: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
  namespace: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: api
  minReplicas: 2
  maxReplicas: 30
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 60
";

/// Node group G1 of the reference: 3920m / 14000Mi / 110 pods, three DaemonSets (250m / 392Mi),
/// 6 app pods of 600m / 1152Mi per node; 2 nodes, 2 to 10.
fn g1() -> SimSettings {
    SimSettings {
        replicas: Some(6),
        pod_request: text("cpu=600m,memory=1152Mi"),
        node_allocatable: text("cpu=3920m,memory=14000Mi,pods=110"),
        existing_nodes: Some(2),
        node_group_min: Some(2),
        node_group_max: Some(10),
        node_startup: text("3m"),
        pod_startup: text("15s"),
        daemonset_requests: vec![
            "cpu=100m,memory=128Mi".into(),
            "cpu=50m,memory=64Mi".into(),
            "cpu=100m,memory=200Mi".into(),
        ],
        ..SimSettings::default()
    }
}

/// A KEDA ScaledObject on a Redis list: one worker per 10 jobs, from zero, cooldown 2 minutes.
const KEDA_REDIS_QUEUE: &str = "\
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: jobs
  namespace: batch
spec:
  scaleTargetRef:
    name: worker
  pollingInterval: 30
  cooldownPeriod: 120
  minReplicaCount: 0
  maxReplicaCount: 10
  triggers:
  - type: redis
    name: jobs
    metadata:
      address: redis.batch:6379
      listName: jobs
      listLength: \"10\"
";

/// The reported cluster: 1 core requested and 1 core limit per pod, CPU 50 %, 1 to 24 replicas,
/// and a scale-up policy that allows 24 pods per sync.
const API_CPU_LIMITED: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
  namespace: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: api
  minReplicas: 1
  maxReplicas: 24
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      policies:
      - type: Pods
        value: 24
        periodSeconds: 15
";

/// `web` with room to grow: CPU 50 %, 2 to 20 replicas, no behavior.
const WEB_CPU_50_TO_20: &str = "\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 20
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
";

pub const ALL: [BuiltIn; 12] = [
    BuiltIn {
        name: "tolerance",
        notice: "At 2:00 the load rises 10 % (55 % against a 50 % target): the ratio 1.1 is \
                 inside the tolerance, nothing changes. At 5:00 it reaches 60 %: ceil(1.2 × 4) \
                 = 5 pods, and with 5 pods utilization is 48 %, inside the band, so it settles.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,1000m\n2m,1100m\n5m,1200m\n",
        settings: || SimSettings {
            replicas: Some(4),
            pod_request: text("cpu=500m"),
            duration: text("10m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "traffic-doubles",
        notice: "The load doubles at 1:00: 100 % against 50 % gives ceil(2 × 4) = 8 pods, just \
                 within the scale-up limit max(2 × 4, 4). The 4 new pods are Ready at 1:15 and \
                 take half of the load: utilization is back at 50 % and the count holds at 8.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,1000m\n1m,2000m\n",
        settings: || SimSettings {
            replicas: Some(4),
            pod_request: text("cpu=500m"),
            duration: text("5m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "pods-pending",
        notice: "The load jumps at 0:01. The HPA doubles to 12 (its scale-up limit) and at 0:30 \
                 goes to the 17 it recommended at 0:15, still in its window; the 2 nodes hold \
                 12, so 5 pods stay Pending. The Cluster Autoscaler sees them at 0:30, waits one \
                 scan because they are under 2 s old, and requests a node at 0:40, Ready at \
                 3:40. Meanwhile the HPA counts the Pending pods as using no CPU (58 %, inside \
                 the tolerance), so it does not ask for more.",
        hpa: API_CPU_60,
        load: "time,cpu\n0s,2160m\n1s,6000m\n",
        settings: || SimSettings {
            duration: text("6m"),
            ..g1()
        },
    },
    BuiltIn {
        name: "short-dip",
        notice: "From 3:00 to 4:00 the load halves: each sync recommends 4 pods, but the \
                 highest recommendation of the last 5 minutes is still 8 (ScaleDownStabilized), \
                 so nothing is removed; at 4:00 the load is back and the 8 pods are just right.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,2000m\n3m,1000m\n4m,2000m\n",
        settings: || SimSettings {
            replicas: Some(8),
            pod_request: text("cpu=500m"),
            duration: text("10m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "real-drop",
        notice: "The load halves at 2:00 and stays low: every sync from 2:00 recommends 4, but \
                 the controller scales down only to the highest recommendation of the last 5 \
                 minutes. The last 8 came at 1:45 and counts up to 6:45 (the window includes its \
                 edge), so the count falls to 4 at 7:00.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,2000m\n2m,1000m\n",
        settings: || SimSettings {
            replicas: Some(8),
            pod_request: text("cpu=500m"),
            duration: text("10m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "capped-pending",
        notice: "6 pods on 2 nodes of 4 slots (2000m, 500m per pod). The load doubles at 1:00: \
                 100 % against 50 % asks for ceil(2 × 6) = 12 pods, and maxReplicas caps it at 10 \
                 (TooManyReplicas). 8 fit, 2 stay Pending; the Cluster Autoscaler waits one scan \
                 because they are under 2 s old, requests node-3 at 1:10, Ready at 2:10, and the \
                 2 pods land there. With 10 pods at 60 % the formula still asks for 12: the count \
                 stays at the cap.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,1500m\n1m,3000m\n",
        settings: || SimSettings {
            replicas: Some(6),
            pod_request: text("cpu=500m"),
            node_allocatable: text("cpu=2000m,pods=110"),
            existing_nodes: Some(2),
            node_group_min: Some(2),
            node_group_max: Some(4),
            node_startup: text("1m"),
            duration: text("4m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "drop-to-three",
        notice: "8 pods at 50 %; just after the 0:00 sync the load falls to 750m for good: every \
                 sync from 0:15 reads 18 % (750m of 4000m requested, truncated) and recommends \
                 ceil(8 × 18 / 50) = 3. The 8 recommended at 0:00 \
                 (and the memory before it) still counts at 5:00, exactly 300 s old, because the \
                 controller keeps a recommendation that is not older than the window; at 5:15 \
                 the window holds only 3s and the count falls 8 → 3.",
        hpa: WEB_CPU_50,
        load: "time,cpu\n0s,2000m\n1s,750m\n",
        settings: || SimSettings {
            replicas: Some(8),
            pod_request: text("cpu=500m"),
            duration: text("7m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "node-scale-down",
        notice: "The reference's worked timeline, to the end: up to 17 pods and 3 nodes, then \
                 the load drops at 10:01. The pods go only when the 5-minute window has passed; \
                 the ReplicaSet deletes from the fullest nodes, which empties two of them; the \
                 Cluster Autoscaler removes an empty node after 10 more minutes unneeded, and \
                 keeps the other one for the group's minimum size of 2.",
        hpa: API_CPU_60,
        load: "time,cpu\n0s,2160m\n1s,6000m\n601s,1800m\n",
        settings: || SimSettings {
            duration: text("26m"),
            ..g1()
        },
    },
    BuiltIn {
        name: "keda-queue",
        notice: "A KEDA ScaledObject at 0 replicas. 40 jobs arrive at 1:00: KEDA's poll sees them \
                 above the activation threshold and scales 0 → 1, and the HPA's sync at the same \
                 instant takes 1 to 4 (ceil(40 / 10)). The list empties at 3:00: the HPA's window \
                 holds 4, and KEDA, last active at its 2:30 poll, waits for the 2-minute \
                 cooldown, which ends at 4:30; its first poll strictly after that, at 5:00, \
                 scales 4 → 0. One job at 8:00 wakes it again through activation (0 → 1).",
        hpa: KEDA_REDIS_QUEUE,
        load: "time,s0-redis-jobs\n0s,0\n1m,40\n3m,0\n8m,1\n9m,0\n",
        settings: || SimSettings {
            duration: text("12m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "cpu-limit-doubling",
        notice: "At 1:00 the demand jumps to 24 cores, but the one pod cannot use more than its \
                 1-core limit: utilization reads 100 %, not 2400 %, so the controller asks for \
                 ceil(2 × 1) = 2, although its policy allows 24 pods at once. A new pod is Ready \
                 15 s later and its first sample counts one 15 s window after that, so the count \
                 doubles every 30 s: 1 → 2 → 4 → 8 → 16 → 24 (maxReplicas). Until 3:15 part of \
                 the demand goes unserved (UNSERVED). Without --pod-limit the same run jumps from \
                 1 to 24 at 1:00.",
        hpa: API_CPU_LIMITED,
        load: "time,cpu\n0s,500m\n1m,24\n",
        settings: || SimSettings {
            replicas: Some(1),
            pod_request: text("cpu=1"),
            pod_limit: text("cpu=1"),
            duration: text("4m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "rollout-surge",
        notice: "A rollout at 1:00 with maxSurge 50 % and maxUnavailable 0: 4 new pods start \
                 beside the 8 old ones. Ready at 1:15, they are available only 30 s later \
                 (minReadySeconds), so no old pod goes yet and the HPA sees 12 ready pods for 8 \
                 replicas. The load spread over 12 pods reads 36 %, and the controller multiplies \
                 that ratio by the 12 ready pods: ceil(0.72 × 12) = 9 at 1:30 (RolloutSurge), \
                 where 8 pods at 55 % were inside the tolerance. The rollout ends at 2:30 with 9 \
                 pods, and 9 stay: at 48 % they are inside the tolerance too.",
        hpa: WEB_CPU_50_TO_20,
        load: "time,cpu\n0s,2200m\n",
        settings: || SimSettings {
            replicas: Some(8),
            pod_request: text("cpu=500m"),
            rollout: text("1m"),
            max_surge: text("50%"),
            max_unavailable: text("0"),
            min_ready_seconds: Some(30),
            duration: text("4m"),
            ..SimSettings::default()
        },
    },
    BuiltIn {
        name: "startup-burst",
        notice: "New pods need 45 s to turn Ready and burn twice their share of CPU meanwhile, and \
                 this run turns the CPU initialization period off (--cpu-initialization-period \
                 0s). The load rises by half at 1:00: 8 → 12. At 1:45 the 4 new pods turn Ready \
                 and their first samples, whose 15 s window lies wholly in the warm-up, read 100 \
                 %: the average 66 % asks for ceil(1.33 × 12) = 16, and the 5-minute window keeps \
                 the 4 extra pods until 7:45. With the default --cpu-initialization-period 5m a \
                 sample of a new pod counts only once a whole window has passed since it turned \
                 Ready, so the burst is not seen and the count stays at 12.",
        hpa: WEB_CPU_50_TO_20,
        load: "time,cpu\n0s,2\n1m,3\n",
        settings: || SimSettings {
            replicas: Some(8),
            pod_request: text("cpu=500m"),
            pod_startup: text("45s"),
            startup_cpu: text("2x:45s"),
            cpu_initialization_period: text("0s"),
            duration: text("8m"),
            ..SimSettings::default()
        },
    },
];

/// The scenario with this name.
pub fn find(name: &str) -> Option<&'static BuiltIn> {
    ALL.iter().find(|s| s.name == name)
}

/// The names, for messages.
pub fn names() -> String {
    ALL.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// The validated setup of a built-in simulation scenario, as `hpacalc simulate --scenario NAME`.
#[cfg(test)]
pub fn builtin_setup(name: &str) -> crate::scenario::simulation::Setup {
    use crate::input::simulation;
    let inputs =
        simulation::Inputs::builtin(name, SimSettings::default(), Default::default()).unwrap();
    simulation::build(&inputs).expect("a valid scenario")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for s in &ALL {
            assert_eq!(find(s.name).map(|f| f.name), Some(s.name));
            assert_eq!(ALL.iter().filter(|o| o.name == s.name).count(), 1);
        }
        assert!(find("list").is_none());
    }
}
