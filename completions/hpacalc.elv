
use builtin;
use str;

set edit:completion:arg-completer[hpacalc] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'hpacalc'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'hpacalc'= {
            cand -f 'HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin'
            cand --hpa 'HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin'
            cand --pods 'The pods: `kubectl get pods -o json|yaml` output, or CSV samples (`-` reads stdin)'
            cand --metrics 'Resource usage: a PodMetricsList (JSON or YAML) or `kubectl top pods --containers` text'
            cand --custom-metrics 'Custom metrics API answer (MetricValueList JSON or YAML) for Pods and Object metrics (repeatable)'
            cand --external-metrics 'External metrics API answer (ExternalMetricValueList JSON or YAML) for External metrics (repeatable)'
            cand --scale 'The target''s scale subresource (`kubectl get --raw .../scale`): spec.replicas is the current count, status.replicas the target''s replicas, status.selector the pods'' selector'
            cand -n 'The HPA''s namespace, as kubectl''s -n: pods and metrics of other namespaces are left out'
            cand --namespace 'The HPA''s namespace, as kubectl''s -n: pods and metrics of other namespaces are left out'
            cand -l 'The target''s label selector, kubectl syntax (`app=web,tier in (front)`)'
            cand --selector 'The target''s label selector, kubectl syntax (`app=web,tier in (front)`)'
            cand --name 'Pick the HPA with this name when the manifest holds several'
            cand --current-replicas 'The target''s current replica count (default: status.currentReplicas, else the pods counted)'
            cand --target 'The scale target: `kubectl get deploy NAME -o json|yaml` (or sts, rs)'
            cand --status-replicas 'The target''s status.replicas, which AverageValue Object and External metrics divide by (default: from --target or --pods, else the current count)'
            cand --metric-value 'Value of an Object or External metric, NAME=QUANTITY (repeatable)'
            cand --metric-failures 'Consecutive failures already recorded for each failing trigger (default: the ScaledObject''s status.health, else 0)'
            cand --last-active 'How long ago a trigger was last active, e.g. 4m (default: status.lastActiveTime, else long ago)'
            cand --history 'Earlier syncs: CSV with age,recommendation[,change]'
            cand --events 'HPA events, `kubectl get events -o json|yaml` (or its table), as the controller''s memory'
            cand --now 'Evaluation time, RFC 3339 (default: the newest time in the kubectl inputs, else now)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance'
            cand --cpu-initialization-period '--horizontal-pod-autoscaler-cpu-initialization-period'
            cand --initial-readiness-delay '--horizontal-pod-autoscaler-initial-readiness-delay'
            cand --downscale-stabilization '--horizontal-pod-autoscaler-downscale-stabilization'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period'
            cand --kube-version 'Apply the controller rules of this Kubernetes release (1.27 to 1.37) [default: 1.37; live mode: the API server''s]'
            cand --feature-gates 'Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources, HPAContainerMetrics)'
            cand --metrics-window 'The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)'
            cand --node-allocatable 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)'
            cand --existing-nodes 'Nodes of the group running the workload now (default: just enough for the current pods)'
            cand --daemonset-requests 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a pod unless pods=N is given)'
            cand --node-group-max 'The node group''s maximum size'
            cand --max-nodes-total '--max-nodes-total of the Cluster Autoscaler'
            cand --pod-request 'The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)'
            cand --nodes 'Real nodes: `kubectl get nodes -o json` (Ready, not cordoned nodes take pods)'
            cand --all-pods 'The cluster''s pods, `kubectl get pods -A -o json`: what each node already runs'
            cand --node-groups 'Several node groups (YAML or JSON list: name, allocatable, capacity, labels, taints, minSize, maxSize, currentSize, pricePerHour, priority): the Cluster Autoscaler''s loops, one group each'
            cand --expander 'The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price, random, comma-separated [default: least-waste]'
            cand --nodepool 'Karpenter NodePool (karpenter.sh/v1 YAML; lists and multi-document files; repeatable): the NodeClaims Karpenter''s scheduler opens for the new pods, instead of a node group'
            cand --nodeclass 'EC2NodeClass of --nodepool: its kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard) shapes each instance type''s allocatable'
            cand --instance-types 'Instance types of --nodepool: Karpenter''s KWOK InstanceTypeOptions JSON (name, offerings with Price and Requirements, architecture, operatingSystems, resources)'
            cand --scale-down-utilization-threshold '--scale-down-utilization-threshold of the Cluster Autoscaler'
            cand --scale-down-unneeded-time '--scale-down-unneeded-time of the Cluster Autoscaler'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)'
            cand --context 'The kubeconfig context to use (default: its current-context)'
            cand --cluster 'The kubeconfig cluster to use instead of the context''s, as kubectl''s --cluster'
            cand --user 'The kubeconfig user to use instead of the context''s, as kubectl''s --user'
            cand -v 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr'
            cand --v 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr'
            cand --request-timeout 'How long to wait for each API request (`0` waits without limit)'
            cand --save 'Also write what was read as offline files, with command.txt to reproduce the answer'
            cand --watch-count 'Stop --watch after N evaluations (for tests)'
            cand --set-request 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)'
            cand --set-limit 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)'
            cand --scale-up-tolerance 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)'
            cand --scale-down-tolerance 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)'
            cand --min 'Set spec.minReplicas'
            cand --max 'Set spec.maxReplicas'
            cand --what-if 'What if KEY were VALUE: the decision before and after, in one report (repeatable; KEY is a what-if flag or a controller flag without its dashes: tolerance=0.05, kube-version=1.32, set-request=app.cpu=250m)'
            cand --print-hpa 'Print only the normalized autoscaling/v2 HPA used (defaults filled), YAML or `-o json`'
            cand --watch 'Re-evaluate every --sync-period until Ctrl-C, keeping the controller''s memory'
            cand --nodes-from-cluster 'Also read the nodes and every pod of the cluster for the Nodes section (as --nodes and --all-pods)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand rbac 'Print the minimal read-only ClusterRole live mode needs, as YAML'
            cand serve 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped'
            cand rules 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML'
            cand schema 'Print the JSON Schema of every JSON output (report, simulation, watch line)'
            cand completions 'Print a shell completion script'
            cand simulate 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve'
            cand diff 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)'
            cand audit 'Every HPA of a cluster dump: the controller''s decision for each, and the problems that need more than one object to see'
            cand mcp 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'hpacalc;rbac'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'hpacalc;serve'= {
            cand -n 'Watch this namespace (repeatable; default: the context''s)'
            cand --namespace 'Watch this namespace (repeatable; default: the context''s)'
            cand --listen 'Where to answer the pages, /metrics, /healthz, /readyz and /api/v1/hpas'
            cand --page-timeout 'The longest a page may take to compute; a slower one is answered 503'
            cand --max-evaluations 'How many pages are computed at once; more wait, up to --page-timeout'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)'
            cand --context 'The kubeconfig context to use (default: its current-context)'
            cand --cluster 'The kubeconfig cluster to use instead of the context''s, as kubectl''s --cluster'
            cand --user 'The kubeconfig user to use instead of the context''s, as kubectl''s --user'
            cand --request-timeout 'How long to wait for each API request (`0` waits without limit)'
            cand -v 'kubectl''s log level: 6 or more logs each API request on stderr'
            cand --v 'kubectl''s log level: 6 or more logs each API request on stderr'
            cand --log-format 'How stderr''s log lines are written: text, or one JSON object a line'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance'
            cand --kube-version 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)'
            cand --feature-gates 'Override feature gates: NAME=true|false,...'
            cand -A 'Watch every namespace'
            cand --all-namespaces 'Watch every namespace'
            cand --offline 'Serve the calculator (/calc) and the simulator (/simulate) alone, with no cluster: no kubeconfig is read'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;rules'= {
            cand --sync-period '--horizontal-pod-autoscaler-sync-period: the status-mismatch rule fires after 3 syncs'
            cand --prometheus-rule 'Print a prometheus-operator PrometheusRule (monitoring.coreos.com/v1) instead of a plain rules file'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;schema'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'hpacalc;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'hpacalc;simulate'= {
            cand -f 'HPA manifest (YAML or JSON; `-` reads stdin)'
            cand --hpa 'HPA manifest (YAML or JSON; `-` reads stdin)'
            cand --load 'Load curve: CSV with a time column and one column per metric (`-` reads stdin)'
            cand --scenario 'Run a built-in scenario (`--scenario list` names them); other flags change its settings'
            cand --name 'Pick the HPA with this name when the manifest holds several'
            cand --replicas 'Ready pods at the start (default: the actual replicas at time 0 with --actual, else status.currentReplicas, else minReplicas)'
            cand --compare 'Another HPA manifest to run on the same load, cluster model and replay, side by side with --hpa (repeatable; `--what-if` after it changes that configuration only)'
            cand --what-if 'What if KEY were VALUE, for the --compare before it only (repeatable; KEY is a what-if flag or a controller flag without its dashes: set-request=app.cpu=250m, tolerance=0.05)'
            cand --set-request 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)'
            cand --set-limit 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)'
            cand --scale-up-tolerance 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)'
            cand --scale-down-tolerance 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)'
            cand --min 'Set spec.minReplicas'
            cand --max 'Set spec.maxReplicas'
            cand --duration 'How long to simulate, e.g. 30m, 7d (default: the last load row + 15m)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --chart 'Also write an SVG chart of load, replicas and nodes over time to this file'
            cand --html 'Also write a self-contained HTML report to this file: summary, chart, timeline, and each sync''s full step-by-step report'
            cand --pod-request 'Each pod''s request, e.g. cpu=500m,memory=256Mi (needed by Utilization targets; default: the target''s pod template, when the --hpa file holds the target)'
            cand --pod-startup 'From scheduling to Ready (default 15s)'
            cand --pod-termination 'How long a deleted pod keeps its node room (default 0s)'
            cand --node-startup 'From the Cluster Autoscaler''s request to a Ready node (default 3m)'
            cand --ca-scan-interval '--scan-interval of the Cluster Autoscaler (default 10s)'
            cand --scale-down-delay-after-add '--scale-down-delay-after-add of the Cluster Autoscaler (default 10m)'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period (default 15s)'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance (default 0.1)'
            cand --cpu-initialization-period '--horizontal-pod-autoscaler-cpu-initialization-period (default 5m)'
            cand --initial-readiness-delay '--horizontal-pod-autoscaler-initial-readiness-delay (default 30s)'
            cand --downscale-stabilization '--horizontal-pod-autoscaler-downscale-stabilization (default 5m)'
            cand --kube-version 'Apply the controller rules of this Kubernetes release, 1.27 to 1.37 (default 1.37)'
            cand --feature-gates 'Override feature gates: NAME=true|false,...'
            cand --metrics-window 'The window of each resource usage sample (CPU readiness rule; default 15s)'
            cand --node-allocatable 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)'
            cand --existing-nodes 'Nodes at the start (default: just enough for the start pods)'
            cand --daemonset-requests 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable)'
            cand --node-group-min 'The node group''s minimum size (default 0)'
            cand --node-group-max 'The node group''s maximum size'
            cand --max-nodes-total '--max-nodes-total of the Cluster Autoscaler'
            cand --scale-down-utilization-threshold '--scale-down-utilization-threshold of the Cluster Autoscaler (default 0.5)'
            cand --scale-down-unneeded-time '--scale-down-unneeded-time of the Cluster Autoscaler (default 10m)'
            cand --pod-limit 'Each pod''s limits, e.g. cpu=1: a pod uses no more, the rest of its share goes unserved (default: the target''s pod template, when the --hpa file holds the target)'
            cand --rollout 'Start a rolling update of the pods at this time from the start, e.g. 5m'
            cand --max-surge 'The rollout''s maxSurge: pods over the replicas, a count or a percent (default 25%)'
            cand --max-unavailable 'The rollout''s maxUnavailable: a count or a percent (default 25%)'
            cand --min-ready-seconds 'The Deployment''s minReadySeconds: a new pod counts as available this long after Ready (default 0)'
            cand --startup-cpu 'A new pod''s CPU burst: FACTORx:DURATION, e.g. 2x:45s (that multiple of its share of the load for that long after it starts)'
            cand --load-map 'Map a series of a Prometheus answer to a metric: METRIC=INDEX (0-based) or METRIC={LABEL="VALUE",...} (repeatable)'
            cand --actual-file 'The replicas the cluster really had: a query_range answer with one series'
            cand --prometheus 'Run the range queries on this Prometheus server, e.g. http://127.0.0.1:9090'
            cand --query 'METRIC=PROMQL: the total load of one metric of the HPA over time (repeatable)'
            cand --actual 'PromQL for the replicas the cluster really had, e.g. kube_horizontalpodautoscaler_status_desired_replicas{horizontalpodautoscaler="web"}'
            cand --start 'Start of the range: RFC 3339, or a time before now such as -12h'
            cand --end 'End of the range: RFC 3339, now, or a time before now such as -1h (default now)'
            cand --step 'Resolution of the range queries (default 15s)'
            cand --token 'Bearer token for the Prometheus server'
            cand --username 'Username for basic auth to the Prometheus server'
            cand --password 'Password for basic auth to the Prometheus server'
            cand --certificate-authority 'A PEM file of the CA that signed the Prometheus server''s certificate'
            cand --request-timeout 'How long to wait for each Prometheus query; `0` waits without limit (default 30s)'
            cand --every-sync 'Print every sync in the table, not only the first, the last and those where a column changes (-o json and -o csv always have every sync)'
            cand --insecure-skip-tls-verify 'Do not verify the Prometheus server''s TLS certificate (insecure)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;diff'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --fail-on 'Exit 3 when a changed HPA gets worse by RULE: unserved-load, flapping, scale-events, pod-hours[>N%], time-above-target[>N%] (alone: any increase; repeatable; needs --load)'
            cand --load 'Run both sides of each changed HPA on this load: a load CSV or a saved Prometheus answer (as `simulate --load` reads it)'
            cand --load-map 'The series a metric reads in a Prometheus answer (as simulate''s; repeatable)'
            cand --actual-file 'The replicas the cluster had, a saved query_range answer (the run starts there)'
            cand --pod-request 'Each pod''s request, as simulate''s (default: the target''s pod template beside the HPA)'
            cand --replicas 'Ready pods at the start, as simulate''s'
            cand --duration 'How long to simulate, as simulate''s'
            cand --pods 'Evaluate one sync of both sides on these pods (`kubectl get pods -o json`, or samples CSV), as `hpacalc --pods` reads them'
            cand --metrics 'The pods'' usage for that sync (PodMetricsList or `kubectl top pods --containers`)'
            cand --now 'The evaluation time of that sync (default: from the capture, else the clock)'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance'
            cand --kube-version 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)'
            cand --feature-gates 'Override feature gates: NAME=true|false,...'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;audit'= {
            cand --cluster 'A cluster dump, `kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json|yaml` (repeatable; a List or single objects; VPAs and KEDA ScaledObjects are used when present)'
            cand -n 'Live: list one namespace of the cluster (kubeconfig) instead of reading files'
            cand --namespace 'Live: list one namespace of the cluster (kubeconfig) instead of reading files'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)'
            cand --context 'The kubeconfig context to use (default: its current-context)'
            cand --user 'The kubeconfig user to use instead of the context''s, as kubectl''s --user (the cluster is the context''s: --cluster names the dump here)'
            cand -v 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr'
            cand --v 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr'
            cand --request-timeout 'How long to wait for each API request (`0` waits without limit)'
            cand -f 'Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks, no decision (repeatable)'
            cand --filename 'Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks, no decision (repeatable)'
            cand --metrics 'The pods'' resource usage: `kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`'
            cand --custom-metrics 'Custom metrics API answer (MetricValueList) for Pods and Object metrics (repeatable)'
            cand --external-metrics 'External metrics API answer (ExternalMetricValueList) for External metrics (repeatable)'
            cand --nodes 'The nodes, `kubectl get nodes -o json`: checks that each HPA''s maxReplicas fits'
            cand --node-group-max 'The node group''s maximum size: the nodes it may still add count toward maxReplicas, each like the first schedulable node given with only that node''s DaemonSet pods'
            cand --events 'Events, `kubectl get events -A -o json`: the controller''s memory of each HPA'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --fail-on 'Exit with 3 when a finding of this severity or above exists'
            cand --now 'Evaluation time, RFC 3339 (default: the newest time in the dump, else now)'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance'
            cand --kube-version 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)'
            cand --feature-gates 'Override feature gates: NAME=true|false,...'
            cand -A 'Live: list every namespace of the cluster (kubeconfig) instead of reading files'
            cand --all-namespaces 'Live: list every namespace of the cluster (kubeconfig) instead of reading files'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;mcp'= {
            cand --call-timeout 'The longest one tool call may take; a call still running then is answered with an error'
            cand --kubeconfig 'Path to the kubeconfig file of the live tools (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)'
            cand --allow-live 'Also offer the tools that read the cluster through the kubeconfig, as live mode does (explain_live_hpa, audit of a namespace); read-only'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'hpacalc;help'= {
            cand rbac 'Print the minimal read-only ClusterRole live mode needs, as YAML'
            cand serve 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped'
            cand rules 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML'
            cand schema 'Print the JSON Schema of every JSON output (report, simulation, watch line)'
            cand completions 'Print a shell completion script'
            cand simulate 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve'
            cand diff 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)'
            cand audit 'Every HPA of a cluster dump: the controller''s decision for each, and the problems that need more than one object to see'
            cand mcp 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'hpacalc;help;rbac'= {
        }
        &'hpacalc;help;serve'= {
        }
        &'hpacalc;help;rules'= {
        }
        &'hpacalc;help;schema'= {
        }
        &'hpacalc;help;completions'= {
        }
        &'hpacalc;help;simulate'= {
        }
        &'hpacalc;help;diff'= {
        }
        &'hpacalc;help;audit'= {
        }
        &'hpacalc;help;mcp'= {
        }
        &'hpacalc;help;help'= {
        }
    ]
    $completions[$command]
}
