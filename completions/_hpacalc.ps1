
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'hpacalc' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'hpacalc'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'hpacalc' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin')
            [CompletionResult]::new('--hpa', '--hpa', [CompletionResultType]::ParameterName, 'HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin')
            [CompletionResult]::new('--pods', '--pods', [CompletionResultType]::ParameterName, 'The pods: `kubectl get pods -o json|yaml` output, or CSV samples (`-` reads stdin)')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'Resource usage: a PodMetricsList (JSON or YAML) or `kubectl top pods --containers` text')
            [CompletionResult]::new('--custom-metrics', '--custom-metrics', [CompletionResultType]::ParameterName, 'Custom metrics API answer (MetricValueList JSON or YAML) for Pods and Object metrics (repeatable)')
            [CompletionResult]::new('--external-metrics', '--external-metrics', [CompletionResultType]::ParameterName, 'External metrics API answer (ExternalMetricValueList JSON or YAML) for External metrics (repeatable)')
            [CompletionResult]::new('--scale', '--scale', [CompletionResultType]::ParameterName, 'The target''s scale subresource (`kubectl get --raw .../scale`): spec.replicas is the current count, status.replicas the target''s replicas, status.selector the pods'' selector')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The HPA''s namespace, as kubectl''s -n: pods and metrics of other namespaces are left out')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The HPA''s namespace, as kubectl''s -n: pods and metrics of other namespaces are left out')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'The target''s label selector, kubectl syntax (`app=web,tier in (front)`)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'The target''s label selector, kubectl syntax (`app=web,tier in (front)`)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Pick the HPA with this name when the manifest holds several')
            [CompletionResult]::new('--current-replicas', '--current-replicas', [CompletionResultType]::ParameterName, 'The target''s current replica count (default: status.currentReplicas, else the pods counted)')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'The scale target: `kubectl get deploy NAME -o json|yaml` (or sts, rs)')
            [CompletionResult]::new('--status-replicas', '--status-replicas', [CompletionResultType]::ParameterName, 'The target''s status.replicas, which AverageValue Object and External metrics divide by (default: from --target or --pods, else the current count)')
            [CompletionResult]::new('--metric-value', '--metric-value', [CompletionResultType]::ParameterName, 'Value of an Object or External metric, NAME=QUANTITY (repeatable)')
            [CompletionResult]::new('--metric-failures', '--metric-failures', [CompletionResultType]::ParameterName, 'Consecutive failures already recorded for each failing trigger (default: the ScaledObject''s status.health, else 0)')
            [CompletionResult]::new('--last-active', '--last-active', [CompletionResultType]::ParameterName, 'How long ago a trigger was last active, e.g. 4m (default: status.lastActiveTime, else long ago)')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'Earlier syncs: CSV with age,recommendation[,change]')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'HPA events, `kubectl get events -o json|yaml` (or its table), as the controller''s memory')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Evaluation time, RFC 3339 (default: the newest time in the kubectl inputs, else now)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance')
            [CompletionResult]::new('--cpu-initialization-period', '--cpu-initialization-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-cpu-initialization-period')
            [CompletionResult]::new('--initial-readiness-delay', '--initial-readiness-delay', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-initial-readiness-delay')
            [CompletionResult]::new('--downscale-stabilization', '--downscale-stabilization', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-downscale-stabilization')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release (1.27 to 1.37) [default: 1.37; live mode: the API server''s]')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources, HPAContainerMetrics)')
            [CompletionResult]::new('--metrics-window', '--metrics-window', [CompletionResultType]::ParameterName, 'The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)')
            [CompletionResult]::new('--node-allocatable', '--node-allocatable', [CompletionResultType]::ParameterName, 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)')
            [CompletionResult]::new('--existing-nodes', '--existing-nodes', [CompletionResultType]::ParameterName, 'Nodes of the group running the workload now (default: just enough for the current pods)')
            [CompletionResult]::new('--daemonset-requests', '--daemonset-requests', [CompletionResultType]::ParameterName, 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a pod unless pods=N is given)')
            [CompletionResult]::new('--node-group-max', '--node-group-max', [CompletionResultType]::ParameterName, 'The node group''s maximum size')
            [CompletionResult]::new('--max-nodes-total', '--max-nodes-total', [CompletionResultType]::ParameterName, '--max-nodes-total of the Cluster Autoscaler')
            [CompletionResult]::new('--pod-request', '--pod-request', [CompletionResultType]::ParameterName, 'The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Real nodes: `kubectl get nodes -o json` (Ready, not cordoned nodes take pods)')
            [CompletionResult]::new('--all-pods', '--all-pods', [CompletionResultType]::ParameterName, 'The cluster''s pods, `kubectl get pods -A -o json`: what each node already runs')
            [CompletionResult]::new('--node-groups', '--node-groups', [CompletionResultType]::ParameterName, 'Several node groups (YAML or JSON list: name, allocatable, capacity, labels, taints, minSize, maxSize, currentSize, pricePerHour, priority): the Cluster Autoscaler''s loops, one group each')
            [CompletionResult]::new('--expander', '--expander', [CompletionResultType]::ParameterName, 'The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price, random, comma-separated [default: least-waste]')
            [CompletionResult]::new('--nodepool', '--nodepool', [CompletionResultType]::ParameterName, 'Karpenter NodePool (karpenter.sh/v1 YAML; lists and multi-document files; repeatable): the NodeClaims Karpenter''s scheduler opens for the new pods, instead of a node group')
            [CompletionResult]::new('--nodeclass', '--nodeclass', [CompletionResultType]::ParameterName, 'EC2NodeClass of --nodepool: its kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard) shapes each instance type''s allocatable')
            [CompletionResult]::new('--instance-types', '--instance-types', [CompletionResultType]::ParameterName, 'Instance types of --nodepool: Karpenter''s KWOK InstanceTypeOptions JSON (name, offerings with Price and Requirements, architecture, operatingSystems, resources)')
            [CompletionResult]::new('--scale-down-utilization-threshold', '--scale-down-utilization-threshold', [CompletionResultType]::ParameterName, '--scale-down-utilization-threshold of the Cluster Autoscaler')
            [CompletionResult]::new('--scale-down-unneeded-time', '--scale-down-unneeded-time', [CompletionResultType]::ParameterName, '--scale-down-unneeded-time of the Cluster Autoscaler')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use instead of the context''s, as kubectl''s --cluster')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use instead of the context''s, as kubectl''s --user')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server, as kubectl''s --token: over the kubeconfig user''s credentials')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate, as kubectl''s --as (a user, or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate, as kubectl''s --as-group (repeatable; needs --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request (`0` waits without limit)')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Also write what was read as offline files, with command.txt to reproduce the answer')
            [CompletionResult]::new('--watch-count', '--watch-count', [CompletionResultType]::ParameterName, 'Stop --watch after N evaluations (for tests)')
            [CompletionResult]::new('--set-request', '--set-request', [CompletionResultType]::ParameterName, 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)')
            [CompletionResult]::new('--set-limit', '--set-limit', [CompletionResultType]::ParameterName, 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)')
            [CompletionResult]::new('--scale-up-tolerance', '--scale-up-tolerance', [CompletionResultType]::ParameterName, 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)')
            [CompletionResult]::new('--scale-down-tolerance', '--scale-down-tolerance', [CompletionResultType]::ParameterName, 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)')
            [CompletionResult]::new('--min', '--min', [CompletionResultType]::ParameterName, 'Set spec.minReplicas')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'Set spec.maxReplicas')
            [CompletionResult]::new('--what-if', '--what-if', [CompletionResultType]::ParameterName, 'What if KEY were VALUE: the decision before and after, in one report (repeatable; KEY is a what-if flag or a controller flag without its dashes: tolerance=0.05, kube-version=1.32, set-request=app.cpu=250m)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List every HPA of every namespace of the cluster, as `kubectl get hpa -A`, each with hpacalc''s decision (without an HPA, `-n NAMESPACE` lists one namespace''s)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List every HPA of every namespace of the cluster, as `kubectl get hpa -A`, each with hpacalc''s decision (without an HPA, `-n NAMESPACE` lists one namespace''s)')
            [CompletionResult]::new('--print-hpa', '--print-hpa', [CompletionResultType]::ParameterName, 'Print only the normalized autoscaling/v2 HPA used (defaults filled), YAML or `-o json`')
            [CompletionResult]::new('--brief', '--brief', [CompletionResultType]::ParameterName, 'Print only the answer: the decision line, the first WHY line and one line per other cause (the same as `-o summary`)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate, as kubectl''s flag (the kubeconfig''s CA is unused)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Re-evaluate every --sync-period until Ctrl-C, keeping the controller''s memory')
            [CompletionResult]::new('--nodes-from-cluster', '--nodes-from-cluster', [CompletionResultType]::ParameterName, 'Also read the nodes and every pod of the cluster for the Nodes section (as --nodes and --all-pods)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('rbac', 'rbac', [CompletionResultType]::ParameterValue, 'Print the minimal read-only ClusterRole live mode needs, as YAML')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of every JSON output (report, simulation, watch line)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Every HPA of a cluster dump: the controller''s decision for each, and the problems that need more than one object to see')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'hpacalc;rbac' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'hpacalc;serve' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Watch this namespace (repeatable; default: the context''s)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Watch this namespace (repeatable; default: the context''s)')
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Where to answer the pages, /metrics, /healthz, /readyz and /api/v1/hpas: HOST:PORT, [IPV6]:PORT, or :PORT for every address')
            [CompletionResult]::new('--page-timeout', '--page-timeout', [CompletionResultType]::ParameterName, 'The longest a page may take to compute; a slower one is answered 503')
            [CompletionResult]::new('--max-evaluations', '--max-evaluations', [CompletionResultType]::ParameterName, 'How many pages are computed at once; more wait, up to --page-timeout')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use instead of the context''s, as kubectl''s --cluster')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use instead of the context''s, as kubectl''s --user')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server, as kubectl''s --token: over the kubeconfig user''s credentials')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate, as kubectl''s --as (a user, or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate, as kubectl''s --as-group (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request (`0` waits without limit)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request on stderr')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request on stderr')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'How stderr''s log lines are written: text, or one JSON object a line')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,...')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch every namespace')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch every namespace')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Serve the calculator (/calc) and the simulator (/simulate) alone, with no cluster: no kubeconfig is read')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate, as kubectl''s flag (the kubeconfig''s CA is unused)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;rules' {
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period: the status-mismatch rule fires after 3 syncs')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'The `job` label of hpacalc''s own scrape, for HpacalcAbsent (the Service''s name, or the scrape config''s job_name)')
            [CompletionResult]::new('--prometheus-rule', '--prometheus-rule', [CompletionResultType]::ParameterName, 'Print a prometheus-operator PrometheusRule (monitoring.coreos.com/v1) instead of a plain rules file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;schema' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'hpacalc;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'hpacalc;simulate' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'HPA manifest (YAML or JSON; `-` reads stdin)')
            [CompletionResult]::new('--hpa', '--hpa', [CompletionResultType]::ParameterName, 'HPA manifest (YAML or JSON; `-` reads stdin)')
            [CompletionResult]::new('--load', '--load', [CompletionResultType]::ParameterName, 'Load curve: CSV with a time column and one column per metric (`-` reads stdin)')
            [CompletionResult]::new('--scenario', '--scenario', [CompletionResultType]::ParameterName, 'Run a built-in scenario (`--scenario list` names them); other flags change its settings')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Pick the HPA with this name when the manifest holds several')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'Ready pods at the start (default: the actual replicas at time 0 with --actual, else status.currentReplicas, else minReplicas)')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'When the --hpa file was captured, RFC 3339: the run starts then (a ScaledObject''s status.lastActiveTime and cooldown count from it; default: the current time, not before lastActiveTime)')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Another HPA manifest to run on the same load, cluster model and replay, side by side with --hpa (repeatable; `--what-if` after it changes that configuration only); a file of NodePools instead runs --hpa with those NodePools in place of --nodepool''s')
            [CompletionResult]::new('--what-if', '--what-if', [CompletionResultType]::ParameterName, 'What if KEY were VALUE, for the --compare before it only (repeatable; KEY is a what-if flag or a controller flag without its dashes: set-request=app.cpu=250m, tolerance=0.05)')
            [CompletionResult]::new('--set-request', '--set-request', [CompletionResultType]::ParameterName, 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)')
            [CompletionResult]::new('--set-limit', '--set-limit', [CompletionResultType]::ParameterName, 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)')
            [CompletionResult]::new('--scale-up-tolerance', '--scale-up-tolerance', [CompletionResultType]::ParameterName, 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)')
            [CompletionResult]::new('--scale-down-tolerance', '--scale-down-tolerance', [CompletionResultType]::ParameterName, 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)')
            [CompletionResult]::new('--min', '--min', [CompletionResultType]::ParameterName, 'Set spec.minReplicas')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'Set spec.maxReplicas')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long to simulate, e.g. 30m, 7d (default: the last load row + 15m)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--chart', '--chart', [CompletionResultType]::ParameterName, 'Also write an SVG chart of load, replicas and nodes over time to this file')
            [CompletionResult]::new('--html', '--html', [CompletionResultType]::ParameterName, 'Also write a self-contained HTML report to this file: summary, chart, timeline, and each sync''s full step-by-step report')
            [CompletionResult]::new('--pod-request', '--pod-request', [CompletionResultType]::ParameterName, 'Each pod''s request, e.g. cpu=500m,memory=256Mi (needed by Utilization targets; default: the target''s pod template, when the --hpa file holds the target)')
            [CompletionResult]::new('--pod-startup', '--pod-startup', [CompletionResultType]::ParameterName, 'From scheduling to Ready (default 15s)')
            [CompletionResult]::new('--pod-termination', '--pod-termination', [CompletionResultType]::ParameterName, 'How long a deleted pod keeps its node room (default 0s)')
            [CompletionResult]::new('--node-startup', '--node-startup', [CompletionResultType]::ParameterName, 'From the Cluster Autoscaler''s request (or Karpenter''s launch) to a Ready node (default 3m)')
            [CompletionResult]::new('--ca-scan-interval', '--ca-scan-interval', [CompletionResultType]::ParameterName, '--scan-interval of the Cluster Autoscaler (default 10s)')
            [CompletionResult]::new('--scale-down-delay-after-add', '--scale-down-delay-after-add', [CompletionResultType]::ParameterName, '--scale-down-delay-after-add of the Cluster Autoscaler (default 10m)')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period (default 15s)')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance (default 0.1)')
            [CompletionResult]::new('--cpu-initialization-period', '--cpu-initialization-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-cpu-initialization-period (default 5m)')
            [CompletionResult]::new('--initial-readiness-delay', '--initial-readiness-delay', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-initial-readiness-delay (default 30s)')
            [CompletionResult]::new('--downscale-stabilization', '--downscale-stabilization', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-downscale-stabilization (default 5m)')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release, 1.27 to 1.37 (default 1.37)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,...')
            [CompletionResult]::new('--metrics-window', '--metrics-window', [CompletionResultType]::ParameterName, 'The window of each resource usage sample (CPU readiness rule; default 15s)')
            [CompletionResult]::new('--node-allocatable', '--node-allocatable', [CompletionResultType]::ParameterName, 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)')
            [CompletionResult]::new('--existing-nodes', '--existing-nodes', [CompletionResultType]::ParameterName, 'Nodes at the start (default: just enough for the start pods)')
            [CompletionResult]::new('--daemonset-requests', '--daemonset-requests', [CompletionResultType]::ParameterName, 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable)')
            [CompletionResult]::new('--node-group-min', '--node-group-min', [CompletionResultType]::ParameterName, 'The node group''s minimum size (default 0)')
            [CompletionResult]::new('--node-group-max', '--node-group-max', [CompletionResultType]::ParameterName, 'The node group''s maximum size')
            [CompletionResult]::new('--max-nodes-total', '--max-nodes-total', [CompletionResultType]::ParameterName, '--max-nodes-total of the Cluster Autoscaler')
            [CompletionResult]::new('--scale-down-utilization-threshold', '--scale-down-utilization-threshold', [CompletionResultType]::ParameterName, '--scale-down-utilization-threshold of the Cluster Autoscaler (default 0.5)')
            [CompletionResult]::new('--scale-down-unneeded-time', '--scale-down-unneeded-time', [CompletionResultType]::ParameterName, '--scale-down-unneeded-time of the Cluster Autoscaler (default 10m)')
            [CompletionResult]::new('--node-groups', '--node-groups', [CompletionResultType]::ParameterName, 'Several node groups (the --node-groups file of the single sync): each Cluster Autoscaler loop scales the one group the expander chain picks')
            [CompletionResult]::new('--expander', '--expander', [CompletionResultType]::ParameterName, 'The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price, random, comma-separated [default: least-waste]')
            [CompletionResult]::new('--nodepool', '--nodepool', [CompletionResultType]::ParameterName, 'Karpenter provisions the nodes instead of a Cluster Autoscaler node group: a NodePool (karpenter.sh/v1; lists and multi-document files; repeatable)')
            [CompletionResult]::new('--nodeclass', '--nodeclass', [CompletionResultType]::ParameterName, 'EC2NodeClass of --nodepool: its amiFamily and kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard) for the built-in AWS catalog')
            [CompletionResult]::new('--instance-types', '--instance-types', [CompletionResultType]::ParameterName, 'Instance types of --nodepool: Karpenter''s KWOK InstanceTypeOptions JSON (default: the built-in AWS catalog)')
            [CompletionResult]::new('--pod-limit', '--pod-limit', [CompletionResultType]::ParameterName, 'Each pod''s limits, e.g. cpu=1: a pod uses no more, the rest of its share goes unserved (default: the target''s pod template, when the --hpa file holds the target)')
            [CompletionResult]::new('--rollout', '--rollout', [CompletionResultType]::ParameterName, 'Start a rolling update of the pods at this time from the start, e.g. 5m')
            [CompletionResult]::new('--max-surge', '--max-surge', [CompletionResultType]::ParameterName, 'The rollout''s maxSurge: pods over the replicas, a count or a percent (default 25%)')
            [CompletionResult]::new('--max-unavailable', '--max-unavailable', [CompletionResultType]::ParameterName, 'The rollout''s maxUnavailable: a count or a percent (default 25%)')
            [CompletionResult]::new('--min-ready-seconds', '--min-ready-seconds', [CompletionResultType]::ParameterName, 'The Deployment''s minReadySeconds: a new pod counts as available this long after Ready (default 0)')
            [CompletionResult]::new('--startup-cpu', '--startup-cpu', [CompletionResultType]::ParameterName, 'A new pod''s CPU burst: FACTORx:DURATION, e.g. 2x:45s (that multiple of its share of the load for that long after it starts)')
            [CompletionResult]::new('--load-map', '--load-map', [CompletionResultType]::ParameterName, 'Map a series of a Prometheus answer to a metric: METRIC=INDEX (0-based) or METRIC={LABEL="VALUE",...} (repeatable)')
            [CompletionResult]::new('--actual-file', '--actual-file', [CompletionResultType]::ParameterName, 'The replicas the cluster really had: a query_range answer with one series')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'Run the range queries on this Prometheus server, e.g. http://127.0.0.1:9090')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'METRIC=PROMQL: the total load of one metric of the HPA over time (repeatable)')
            [CompletionResult]::new('--actual', '--actual', [CompletionResultType]::ParameterName, 'PromQL for the replicas the cluster really had, e.g. kube_horizontalpodautoscaler_status_desired_replicas{horizontalpodautoscaler="web"}')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'Start of the range: RFC 3339, or a time before now such as -12h')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'End of the range: RFC 3339, now, or a time before now such as -1h (default now)')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Resolution of the range queries (default 15s)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the Prometheus server')
            [CompletionResult]::new('--username', '--username', [CompletionResultType]::ParameterName, 'Username for basic auth to the Prometheus server')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for basic auth to the Prometheus server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A PEM file of the CA that signed the Prometheus server''s certificate')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each Prometheus query; `0` waits without limit (default 30s)')
            [CompletionResult]::new('--every-sync', '--every-sync', [CompletionResultType]::ParameterName, 'Print every sync in the table, not only the first, the last and those where a column changes (-o json and -o csv always have every sync)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the Prometheus server''s TLS certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;diff' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 3 when a changed HPA gets worse by RULE: unserved-load, flapping, scale-events, pod-hours[>N%], time-above-target[>N%] (alone: any increase; repeatable; needs --load)')
            [CompletionResult]::new('--load', '--load', [CompletionResultType]::ParameterName, 'Run both sides of each changed HPA on this load: a load CSV or a saved Prometheus answer (as `simulate --load` reads it)')
            [CompletionResult]::new('--load-map', '--load-map', [CompletionResultType]::ParameterName, 'The series a metric reads in a Prometheus answer (as simulate''s; repeatable)')
            [CompletionResult]::new('--actual-file', '--actual-file', [CompletionResultType]::ParameterName, 'The replicas the cluster had, a saved query_range answer (the run starts there)')
            [CompletionResult]::new('--pod-request', '--pod-request', [CompletionResultType]::ParameterName, 'Each pod''s request, as simulate''s (default: the target''s pod template beside the HPA)')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'Ready pods at the start, as simulate''s')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long to simulate, as simulate''s')
            [CompletionResult]::new('--pods', '--pods', [CompletionResultType]::ParameterName, 'Evaluate one sync of both sides on these pods (`kubectl get pods -o json`, or samples CSV), as `hpacalc --pods` reads them')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'The pods'' usage for that sync (PodMetricsList or `kubectl top pods --containers`)')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'The evaluation time of that sync (default: from the capture, else the clock)')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,...')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;audit' {
            [CompletionResult]::new('--dump', '--dump', [CompletionResultType]::ParameterName, 'A cluster dump, `kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json|yaml` (repeatable; a List or single objects; VPAs and KEDA ScaledObjects are used when present)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'Live (-n, -A): the kubeconfig cluster to use instead of the context''s, as kubectl''s --cluster. Without -n or -A there is no kubeconfig to name: the old spelling of --dump')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Live: list one namespace of the cluster (kubeconfig) instead of reading files')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Live: list one namespace of the cluster (kubeconfig) instead of reading files')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use (default: its current-context)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use instead of the context''s, as kubectl''s --user')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The API server''s address, as kubectl''s --server: over the kubeconfig cluster''s (no kubeconfig is needed with it)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for the API server, as kubectl''s --token: over the kubeconfig user''s credentials')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The user to impersonate, as kubectl''s --as (a user, or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'A group to impersonate, as kubectl''s --as-group (repeatable; needs --as)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'kubectl''s log level: 6 or more logs each API request (method, URL, status, time) on stderr')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request (`0` waits without limit)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks, no decision (repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks, no decision (repeatable)')
            [CompletionResult]::new('--metrics', '--metrics', [CompletionResultType]::ParameterName, 'The pods'' resource usage: `kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`')
            [CompletionResult]::new('--custom-metrics', '--custom-metrics', [CompletionResultType]::ParameterName, 'Custom metrics API answer (MetricValueList) for Pods and Object metrics (repeatable)')
            [CompletionResult]::new('--external-metrics', '--external-metrics', [CompletionResultType]::ParameterName, 'External metrics API answer (ExternalMetricValueList) for External metrics (repeatable)')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'The nodes, `kubectl get nodes -o json`: checks that each HPA''s maxReplicas fits')
            [CompletionResult]::new('--node-group-max', '--node-group-max', [CompletionResultType]::ParameterName, 'The node group''s maximum size: the nodes it may still add count toward maxReplicas, each like the first schedulable node given with only that node''s DaemonSet pods')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Events, `kubectl get events -A -o json`: the controller''s memory of each HPA')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with 3 when a finding of this severity or above exists')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Evaluation time, RFC 3339 (default: the newest time in the dump, else now)')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,...')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Live: list every namespace of the cluster (kubeconfig) instead of reading files')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Live: list every namespace of the cluster (kubeconfig) instead of reading files')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate, as kubectl''s flag (the kubeconfig''s CA is unused)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;mcp' {
            [CompletionResult]::new('--call-timeout', '--call-timeout', [CompletionResultType]::ParameterName, 'The longest one tool call may take; a call still running then is answered with an error')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file of the live tools (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)')
            [CompletionResult]::new('--allow-live', '--allow-live', [CompletionResultType]::ParameterName, 'Also offer the tools that read the cluster through the kubeconfig, as live mode does (explain_live_hpa, audit of a namespace); read-only')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'hpacalc;help' {
            [CompletionResult]::new('rbac', 'rbac', [CompletionResultType]::ParameterValue, 'Print the minimal read-only ClusterRole live mode needs, as YAML')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of every JSON output (report, simulation, watch line)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('simulate', 'simulate', [CompletionResultType]::ParameterValue, 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Every HPA of a cluster dump: the controller''s decision for each, and the problems that need more than one object to see')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'hpacalc;help;rbac' {
            break
        }
        'hpacalc;help;serve' {
            break
        }
        'hpacalc;help;rules' {
            break
        }
        'hpacalc;help;schema' {
            break
        }
        'hpacalc;help;completions' {
            break
        }
        'hpacalc;help;simulate' {
            break
        }
        'hpacalc;help;diff' {
            break
        }
        'hpacalc;help;audit' {
            break
        }
        'hpacalc;help;mcp' {
            break
        }
        'hpacalc;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
