# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_hpacalc_global_optspecs
    string join \n f/hpa= pods= metrics= custom-metrics= external-metrics= scale= n/namespace= A/all-namespaces l/selector= name= current-replicas= target= status-replicas= metric-value= metric-failures= last-active= history= events= print-hpa now= o/output= brief tolerance= cpu-initialization-period= initial-readiness-delay= downscale-stabilization= sync-period= kube-version= feature-gates= metrics-window= node-allocatable= existing-nodes= daemonset-requests= node-group-max= max-nodes-total= pod-request= nodes= all-pods= node-groups= expander= nodepool= nodeclass= instance-types= scale-down-utilization-threshold= scale-down-unneeded-time= kubeconfig= context= cluster= user= s/server= token= insecure-skip-tls-verify as= as-group= v/v= request-timeout= save= watch nodes-from-cluster watch-count= set-request= set-limit= scale-up-tolerance= scale-down-tolerance= min= max= what-if= h/help V/version
end

function __fish_hpacalc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_hpacalc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_hpacalc_using_subcommand
    set -l cmd (__fish_hpacalc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c hpacalc -n "__fish_hpacalc_needs_command" -s f -l hpa -d 'HPA: a manifest (YAML or JSON, autoscaling/v2, v2beta2, v2beta1 or v1), a KEDA ScaledObject, `kubectl describe hpa` text or the `kubectl get hpa` table; `-` reads stdin' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l pods -d 'The pods: `kubectl get pods -o json|yaml` output, or CSV samples (`-` reads stdin)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l metrics -d 'Resource usage: a PodMetricsList (JSON or YAML) or `kubectl top pods --containers` text' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l custom-metrics -d 'Custom metrics API answer (MetricValueList JSON or YAML) for Pods and Object metrics (repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l external-metrics -d 'External metrics API answer (ExternalMetricValueList JSON or YAML) for External metrics (repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l scale -d 'The target\'s scale subresource (`kubectl get --raw .../scale`): spec.replicas is the current count, status.replicas the target\'s replicas, status.selector the pods\' selector' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s n -l namespace -d 'The HPA\'s namespace, as kubectl\'s -n: pods and metrics of other namespaces are left out' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s l -l selector -d 'The target\'s label selector, kubectl syntax (`app=web,tier in (front)`)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l name -d 'Pick the HPA with this name when the manifest holds several' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l current-replicas -d 'The target\'s current replica count (default: status.currentReplicas, else the pods counted)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l target -d 'The scale target: `kubectl get deploy NAME -o json|yaml` (or sts, rs)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l status-replicas -d 'The target\'s status.replicas, which AverageValue Object and External metrics divide by (default: from --target or --pods, else the current count)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l metric-value -d 'Value of an Object or External metric, NAME=QUANTITY (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l metric-failures -d 'Consecutive failures already recorded for each failing trigger (default: the ScaledObject\'s status.health, else 0)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l last-active -d 'How long ago a trigger was last active, e.g. 4m (default: status.lastActiveTime, else long ago)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l history -d 'Earlier syncs: CSV with age,recommendation[,change]' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l events -d 'HPA events, `kubectl get events -o json|yaml` (or its table), as the controller\'s memory' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l now -d 'Evaluation time, RFC 3339 (default: the newest time in the kubectl inputs, else now)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s o -l output -d 'Output format' -r -f -a "table\t'Step-by-step table'
wide\t'The table plus each pod\'s class and reason'
json\t'One JSON object'
yaml\t'The same object as YAML'
summary\t'The decision line, the first WHY line and one line per other cause (as --brief)'
markdown\t'A report to paste into a ticket: the decision, WHY and the steps as Markdown tables'"
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l tolerance -d '--horizontal-pod-autoscaler-tolerance' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l cpu-initialization-period -d '--horizontal-pod-autoscaler-cpu-initialization-period' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l initial-readiness-delay -d '--horizontal-pod-autoscaler-initial-readiness-delay' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l downscale-stabilization -d '--horizontal-pod-autoscaler-downscale-stabilization' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l kube-version -d 'Apply the controller rules of this Kubernetes release (1.27 to 1.37) [default: 1.37; live mode: the API server\'s]' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l feature-gates -d 'Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources, HPAContainerMetrics)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l metrics-window -d 'The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l node-allocatable -d 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l existing-nodes -d 'Nodes of the group running the workload now (default: just enough for the current pods)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l daemonset-requests -d 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a pod unless pods=N is given)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l node-group-max -d 'The node group\'s maximum size' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l max-nodes-total -d '--max-nodes-total of the Cluster Autoscaler' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l pod-request -d 'The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l nodes -d 'Real nodes: `kubectl get nodes -o json` (Ready, not cordoned nodes take pods)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l all-pods -d 'The cluster\'s pods, `kubectl get pods -A -o json`: what each node already runs' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l node-groups -d 'Several node groups (YAML or JSON list: name, allocatable, capacity, labels, taints, minSize, maxSize, currentSize, pricePerHour, priority): the Cluster Autoscaler\'s loops, one group each' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l expander -d 'The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price, random, comma-separated [default: least-waste]' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l nodepool -d 'Karpenter NodePool (karpenter.sh/v1 YAML; lists and multi-document files; repeatable): the NodeClaims Karpenter\'s scheduler opens for the new pods, instead of a node group' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l nodeclass -d 'EC2NodeClass of --nodepool: its kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard) shapes each instance type\'s allocatable' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l instance-types -d 'Instance types of --nodepool: Karpenter\'s KWOK InstanceTypeOptions JSON (name, offerings with Price and Requirements, architecture, operatingSystems, resources)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l scale-down-utilization-threshold -d '--scale-down-utilization-threshold of the Cluster Autoscaler' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l scale-down-unneeded-time -d '--scale-down-unneeded-time of the Cluster Autoscaler' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l cluster -d 'The kubeconfig cluster to use instead of the context\'s, as kubectl\'s --cluster' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l user -d 'The kubeconfig user to use instead of the context\'s, as kubectl\'s --user' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s s -l server -d 'The API server\'s address, as kubectl\'s --server: over the kubeconfig cluster\'s (no kubeconfig is needed with it)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l token -d 'Bearer token for the API server, as kubectl\'s --token: over the kubeconfig user\'s credentials' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l as -d 'The user to impersonate, as kubectl\'s --as (a user, or system:serviceaccount:NS:NAME)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l as-group -d 'A group to impersonate, as kubectl\'s --as-group (repeatable; needs --as)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s v -l v -d 'kubectl\'s log level: 6 or more logs each API request (method, URL, status, time) on stderr' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l request-timeout -d 'How long to wait for each API request (`0` waits without limit)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l save -d 'Also write what was read as offline files, with command.txt to reproduce the answer' -r -F
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l watch-count -d 'Stop --watch after N evaluations (for tests)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l set-request -d 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l set-limit -d 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l scale-up-tolerance -d 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l scale-down-tolerance -d 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l min -d 'Set spec.minReplicas' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l max -d 'Set spec.maxReplicas' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l what-if -d 'What if KEY were VALUE: the decision before and after, in one report (repeatable; KEY is a what-if flag or a controller flag without its dashes: tolerance=0.05, kube-version=1.32, set-request=app.cpu=250m)' -r
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s A -l all-namespaces -d 'List every HPA of every namespace of the cluster, as `kubectl get hpa -A`, each with hpacalc\'s decision (without an HPA, `-n NAMESPACE` lists one namespace\'s)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l print-hpa -d 'Print only the normalized autoscaling/v2 HPA used (defaults filled), YAML or `-o json`'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l brief -d 'Print only the answer: the decision line, the first WHY line and one line per other cause (the same as `-o summary`)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate, as kubectl\'s flag (the kubeconfig\'s CA is unused)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l watch -d 'Re-evaluate every --sync-period until Ctrl-C, keeping the controller\'s memory'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -l nodes-from-cluster -d 'Also read the nodes and every pod of the cluster for the Nodes section (as --nodes and --all-pods)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -s V -l version -d 'Print version'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "rbac" -d 'Print the minimal read-only ClusterRole live mode needs, as YAML'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "serve" -d 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "rules" -d 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "schema" -d 'Print the JSON Schema of every JSON output (report, simulation, watch line)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "completions" -d 'Print a shell completion script'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "simulate" -d 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "diff" -d 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "audit" -d 'Every HPA of a cluster dump: the controller\'s decision for each, and the problems that need more than one object to see'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "mcp" -d 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout'
complete -c hpacalc -n "__fish_hpacalc_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand rbac" -s h -l help -d 'Print help'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -s n -l namespace -d 'Watch this namespace (repeatable; default: the context\'s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l listen -d 'Where to answer the pages, /metrics, /healthz, /readyz and /api/v1/hpas: HOST:PORT, [IPV6]:PORT, or :PORT for every address' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l page-timeout -d 'The longest a page may take to compute; a slower one is answered 503' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l max-evaluations -d 'How many pages are computed at once; more wait, up to --page-timeout' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l cluster -d 'The kubeconfig cluster to use instead of the context\'s, as kubectl\'s --cluster' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l user -d 'The kubeconfig user to use instead of the context\'s, as kubectl\'s --user' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -s s -l server -d 'The API server\'s address, as kubectl\'s --server: over the kubeconfig cluster\'s (no kubeconfig is needed with it)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l token -d 'Bearer token for the API server, as kubectl\'s --token: over the kubeconfig user\'s credentials' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l as -d 'The user to impersonate, as kubectl\'s --as (a user, or system:serviceaccount:NS:NAME)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l as-group -d 'A group to impersonate, as kubectl\'s --as-group (repeatable; needs --as)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l request-timeout -d 'How long to wait for each API request (`0` waits without limit)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -s v -l v -d 'kubectl\'s log level: 6 or more logs each API request on stderr' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l log-format -d 'How stderr\'s log lines are written: text, or one JSON object a line' -r -f -a "text\t'`warning: ...` lines'
json\t'`{"time", "level", "message"}` a line'"
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l tolerance -d '--horizontal-pod-autoscaler-tolerance' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l kube-version -d 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l feature-gates -d 'Override feature gates: NAME=true|false,...' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -s A -l all-namespaces -d 'Watch every namespace'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l offline -d 'Serve the calculator (/calc) and the simulator (/simulate) alone, with no cluster: no kubeconfig is read'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate, as kubectl\'s flag (the kubeconfig\'s CA is unused)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand rules" -l sync-period -d '--horizontal-pod-autoscaler-sync-period: the status-mismatch rule fires after 3 syncs' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand rules" -l job -d 'The `job` label of hpacalc\'s own scrape, for HpacalcAbsent (the Service\'s name, or the scrape config\'s job_name)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand rules" -l prometheus-rule -d 'Print a prometheus-operator PrometheusRule (monitoring.coreos.com/v1) instead of a plain rules file'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand rules" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand schema" -s h -l help -d 'Print help'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand completions" -s h -l help -d 'Print help'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -s f -l hpa -d 'HPA manifest (YAML or JSON; `-` reads stdin)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l load -d 'Load curve: CSV with a time column and one column per metric (`-` reads stdin)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scenario -d 'Run a built-in scenario (`--scenario list` names them); other flags change its settings' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l name -d 'Pick the HPA with this name when the manifest holds several' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l replicas -d 'Ready pods at the start (default: the actual replicas at time 0 with --actual, else status.currentReplicas, else minReplicas)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l now -d 'When the --hpa file was captured, RFC 3339: the run starts then (a ScaledObject\'s status.lastActiveTime and cooldown count from it; default: the current time, not before lastActiveTime)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l compare -d 'Another HPA manifest to run on the same load, cluster model and replay, side by side with --hpa (repeatable; `--what-if` after it changes that configuration only); a file of NodePools instead runs --hpa with those NodePools in place of --nodepool\'s' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l what-if -d 'What if KEY were VALUE, for the --compare before it only (repeatable; KEY is a what-if flag or a controller flag without its dashes: set-request=app.cpu=250m, tolerance=0.05)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l set-request -d 'Give every container another request, `RESOURCE=QUANTITY` (cpu=250m, as `kubectl set resources --requests` does), or one container, `CONTAINER.RESOURCE=QUANTITY` (app.cpu=250m): the rightsizing or VPA case (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l set-limit -d 'Give every container (`RESOURCE=QUANTITY`) or one (`CONTAINER.RESOURCE=QUANTITY`) another limit (simulate: what a pod can use; repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scale-up-tolerance -d 'Set behavior.scaleUp.tolerance (HPAConfigurableTolerance, 1.33+)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scale-down-tolerance -d 'Set behavior.scaleDown.tolerance (HPAConfigurableTolerance, 1.33+)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l min -d 'Set spec.minReplicas' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l max -d 'Set spec.maxReplicas' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l duration -d 'How long to simulate, e.g. 30m, 7d (default: the last load row + 15m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -s o -l output -d 'Output format' -r -f -a "table\t'One row per sync, then the events and a summary'
json\t'{"timeline": [...], "events": [...], "summary": {...}}'
csv\t'One row per sync, for spreadsheets'"
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l chart -d 'Also write an SVG chart of load, replicas and nodes over time to this file' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l html -d 'Also write a self-contained HTML report to this file: summary, chart, timeline, and each sync\'s full step-by-step report' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l pod-request -d 'Each pod\'s request, e.g. cpu=500m,memory=256Mi (needed by Utilization targets; default: the target\'s pod template, when the --hpa file holds the target)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l pod-startup -d 'From scheduling to Ready (default 15s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l pod-termination -d 'How long a deleted pod keeps its node room (default 0s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l node-startup -d 'From the Cluster Autoscaler\'s request (or Karpenter\'s launch) to a Ready node (default 3m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l ca-scan-interval -d '--scan-interval of the Cluster Autoscaler (default 10s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scale-down-delay-after-add -d '--scale-down-delay-after-add of the Cluster Autoscaler (default 10m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l sync-period -d '--horizontal-pod-autoscaler-sync-period (default 15s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l tolerance -d '--horizontal-pod-autoscaler-tolerance (default 0.1)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l cpu-initialization-period -d '--horizontal-pod-autoscaler-cpu-initialization-period (default 5m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l initial-readiness-delay -d '--horizontal-pod-autoscaler-initial-readiness-delay (default 30s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l downscale-stabilization -d '--horizontal-pod-autoscaler-downscale-stabilization (default 5m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l kube-version -d 'Apply the controller rules of this Kubernetes release, 1.27 to 1.37 (default 1.37)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l feature-gates -d 'Override feature gates: NAME=true|false,...' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l metrics-window -d 'The window of each resource usage sample (CPU readiness rule; default 15s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l node-allocatable -d 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l existing-nodes -d 'Nodes at the start (default: just enough for the start pods)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l daemonset-requests -d 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l node-group-min -d 'The node group\'s minimum size (default 0)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l node-group-max -d 'The node group\'s maximum size' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l max-nodes-total -d '--max-nodes-total of the Cluster Autoscaler' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scale-down-utilization-threshold -d '--scale-down-utilization-threshold of the Cluster Autoscaler (default 0.5)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l scale-down-unneeded-time -d '--scale-down-unneeded-time of the Cluster Autoscaler (default 10m)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l node-groups -d 'Several node groups (the --node-groups file of the single sync): each Cluster Autoscaler loop scales the one group the expander chain picks' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l expander -d 'The expander chain of --node-groups: least-waste, most-pods, least-nodes, priority, price, random, comma-separated [default: least-waste]' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l nodepool -d 'Karpenter provisions the nodes instead of a Cluster Autoscaler node group: a NodePool (karpenter.sh/v1; lists and multi-document files; repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l nodeclass -d 'EC2NodeClass of --nodepool: its amiFamily and kubelet (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard) for the built-in AWS catalog' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l instance-types -d 'Instance types of --nodepool: Karpenter\'s KWOK InstanceTypeOptions JSON (default: the built-in AWS catalog)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l pod-limit -d 'Each pod\'s limits, e.g. cpu=1: a pod uses no more, the rest of its share goes unserved (default: the target\'s pod template, when the --hpa file holds the target)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l rollout -d 'Start a rolling update of the pods at this time from the start, e.g. 5m' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l max-surge -d 'The rollout\'s maxSurge: pods over the replicas, a count or a percent (default 25%)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l max-unavailable -d 'The rollout\'s maxUnavailable: a count or a percent (default 25%)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l min-ready-seconds -d 'The Deployment\'s minReadySeconds: a new pod counts as available this long after Ready (default 0)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l startup-cpu -d 'A new pod\'s CPU burst: FACTORx:DURATION, e.g. 2x:45s (that multiple of its share of the load for that long after it starts)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l load-map -d 'Map a series of a Prometheus answer to a metric: METRIC=INDEX (0-based) or METRIC={LABEL="VALUE",...} (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l actual-file -d 'The replicas the cluster really had: a query_range answer with one series' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l prometheus -d 'Run the range queries on this Prometheus server, e.g. http://127.0.0.1:9090' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l query -d 'METRIC=PROMQL: the total load of one metric of the HPA over time (repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l actual -d 'PromQL for the replicas the cluster really had, e.g. kube_horizontalpodautoscaler_status_desired_replicas{horizontalpodautoscaler="web"}' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l start -d 'Start of the range: RFC 3339, or a time before now such as -12h' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l end -d 'End of the range: RFC 3339, now, or a time before now such as -1h (default now)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l step -d 'Resolution of the range queries (default 15s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l token -d 'Bearer token for the Prometheus server' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l username -d 'Username for basic auth to the Prometheus server' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l password -d 'Password for basic auth to the Prometheus server' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l certificate-authority -d 'A PEM file of the CA that signed the Prometheus server\'s certificate' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l request-timeout -d 'How long to wait for each Prometheus query; `0` waits without limit (default 30s)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l every-sync -d 'Print every sync in the table, not only the first, the last and those where a column changes (-o json and -o csv always have every sync)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -l insecure-skip-tls-verify -d 'Do not verify the Prometheus server\'s TLS certificate (insecure)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand simulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "table\t'What changed per HPA, as tables'
json\t'{"hpas": [...], "worse": [...]}'
markdown\t'A pull-request comment'"
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l fail-on -d 'Exit 3 when a changed HPA gets worse by RULE: unserved-load, flapping, scale-events, pod-hours[>N%], time-above-target[>N%] (alone: any increase; repeatable; needs --load)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l load -d 'Run both sides of each changed HPA on this load: a load CSV or a saved Prometheus answer (as `simulate --load` reads it)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l load-map -d 'The series a metric reads in a Prometheus answer (as simulate\'s; repeatable)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l actual-file -d 'The replicas the cluster had, a saved query_range answer (the run starts there)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l pod-request -d 'Each pod\'s request, as simulate\'s (default: the target\'s pod template beside the HPA)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l replicas -d 'Ready pods at the start, as simulate\'s' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l duration -d 'How long to simulate, as simulate\'s' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l pods -d 'Evaluate one sync of both sides on these pods (`kubectl get pods -o json`, or samples CSV), as `hpacalc --pods` reads them' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l metrics -d 'The pods\' usage for that sync (PodMetricsList or `kubectl top pods --containers`)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l now -d 'The evaluation time of that sync (default: from the capture, else the clock)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l tolerance -d '--horizontal-pod-autoscaler-tolerance' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l kube-version -d 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -l feature-gates -d 'Override feature gates: NAME=true|false,...' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l dump -d 'A cluster dump, `kubectl get hpa,deploy,sts,rs,pods,pdb -A -o json|yaml` (repeatable; a List or single objects; VPAs and KEDA ScaledObjects are used when present)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l cluster -d 'Live (-n, -A): the kubeconfig cluster to use instead of the context\'s, as kubectl\'s --cluster. Without -n or -A there is no kubeconfig to name: the old spelling of --dump' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s n -l namespace -d 'Live: list one namespace of the cluster (kubeconfig) instead of reading files' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l context -d 'The kubeconfig context to use (default: its current-context)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l user -d 'The kubeconfig user to use instead of the context\'s, as kubectl\'s --user' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s s -l server -d 'The API server\'s address, as kubectl\'s --server: over the kubeconfig cluster\'s (no kubeconfig is needed with it)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l token -d 'Bearer token for the API server, as kubectl\'s --token: over the kubeconfig user\'s credentials' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l as -d 'The user to impersonate, as kubectl\'s --as (a user, or system:serviceaccount:NS:NAME)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l as-group -d 'A group to impersonate, as kubectl\'s --as-group (repeatable; needs --as)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s v -l v -d 'kubectl\'s log level: 6 or more logs each API request (method, URL, status, time) on stderr' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l request-timeout -d 'How long to wait for each API request (`0` waits without limit)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s f -l filename -d 'Manifests only (a folder of YAML or JSON, e.g. `helm template` output): static checks, no decision (repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l metrics -d 'The pods\' resource usage: `kubectl get --raw /apis/metrics.k8s.io/v1beta1/pods`' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l custom-metrics -d 'Custom metrics API answer (MetricValueList) for Pods and Object metrics (repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l external-metrics -d 'External metrics API answer (ExternalMetricValueList) for External metrics (repeatable)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l nodes -d 'The nodes, `kubectl get nodes -o json`: checks that each HPA\'s maxReplicas fits' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l node-group-max -d 'The node group\'s maximum size: the nodes it may still add count toward maxReplicas, each like the first schedulable node given with only that node\'s DaemonSet pods' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l events -d 'Events, `kubectl get events -A -o json`: the controller\'s memory of each HPA' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s o -l output -d 'Output format' -r -f -a "table\t'One row per HPA, then the findings'
wide\t'The table plus each HPA\'s metric values'
json\t'{"schemaVersion", "summary", "hpas", "unevaluated", "findings"}'
yaml\t'The same object as YAML'
sarif\t'SARIF 2.1.0, each finding at its HPA\'s file and line (with -f)'
markdown\t'A report to paste into a ticket: the counts, one row per HPA with its decision and first WHY line, the findings'"
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l fail-on -d 'Exit with 3 when a finding of this severity or above exists' -r -f -a "warning\t'Warnings and errors'
error\t'Errors only'"
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l now -d 'Evaluation time, RFC 3339 (default: the newest time in the dump, else now)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l sync-period -d '--horizontal-pod-autoscaler-sync-period' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l tolerance -d '--horizontal-pod-autoscaler-tolerance' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l kube-version -d 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l feature-gates -d 'Override feature gates: NAME=true|false,...' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s A -l all-namespaces -d 'Live: list every namespace of the cluster (kubeconfig) instead of reading files'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate, as kubectl\'s flag (the kubeconfig\'s CA is unused)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand mcp" -l call-timeout -d 'The longest one tool call may take; a call still running then is answered with an error' -r
complete -c hpacalc -n "__fish_hpacalc_using_subcommand mcp" -l kubeconfig -d 'Path to the kubeconfig file of the live tools (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)' -r -F
complete -c hpacalc -n "__fish_hpacalc_using_subcommand mcp" -l allow-live -d 'Also offer the tools that read the cluster through the kubeconfig, as live mode does (explain_live_hpa, audit of a namespace); read-only'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "rbac" -d 'Print the minimal read-only ClusterRole live mode needs, as YAML'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "serve" -d 'Every HPA of the cluster evaluated at every sync, served to Prometheus (/metrics) and as JSON, until stopped'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "rules" -d 'Print Prometheus alerting rules over the series of `hpacalc serve`, as YAML'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "schema" -d 'Print the JSON Schema of every JSON output (report, simulation, watch line)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "completions" -d 'Print a shell completion script'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "simulate" -d 'What the HPA, the scheduler and the Cluster Autoscaler do over time for a load curve'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "diff" -d 'What a change to HPA manifests changes: their behaviour, where the count flips, and with a load their runs side by side (for a pull request)'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "audit" -d 'Every HPA of a cluster dump: the controller\'s decision for each, and the problems that need more than one object to see'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "mcp" -d 'Serve the calculator to AI assistants: the Model Context Protocol over stdin and stdout'
complete -c hpacalc -n "__fish_hpacalc_using_subcommand help; and not __fish_seen_subcommand_from rbac serve rules schema completions simulate diff audit mcp help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
