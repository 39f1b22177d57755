
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
            cand -f 'HPA manifest (YAML or JSON, autoscaling/v2, v2beta2 or v1; `-` reads stdin)'
            cand --hpa 'HPA manifest (YAML or JSON, autoscaling/v2, v2beta2 or v1; `-` reads stdin)'
            cand --pods 'Per-pod samples, CSV with a header (`-` reads stdin)'
            cand --name 'Pick the HPA with this name when the manifest holds several'
            cand --current-replicas 'The target''s current replica count (default: status.currentReplicas, else the pods counted)'
            cand --metric-value 'Value of an Object or External metric, NAME=QUANTITY (repeatable)'
            cand --history 'Earlier syncs: CSV with age,recommendation[,change]'
            cand --now 'Evaluation time, RFC 3339 (default: now)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --tolerance '--horizontal-pod-autoscaler-tolerance'
            cand --cpu-initialization-period '--horizontal-pod-autoscaler-cpu-initialization-period'
            cand --initial-readiness-delay '--horizontal-pod-autoscaler-initial-readiness-delay'
            cand --downscale-stabilization '--horizontal-pod-autoscaler-downscale-stabilization'
            cand --sync-period '--horizontal-pod-autoscaler-sync-period'
            cand --kube-version 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)'
            cand --feature-gates 'Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources, HPAContainerMetrics)'
            cand --metrics-window 'The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)'
            cand --node-allocatable 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)'
            cand --existing-nodes 'Nodes of the group running the workload now (default: just enough for the current pods)'
            cand --daemonset-requests 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a pod unless pods=N is given)'
            cand --node-group-max 'The node group''s maximum size'
            cand --max-nodes-total '--max-nodes-total of the Cluster Autoscaler'
            cand --pod-request 'The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)'
            cand --scale-down-utilization-threshold '--scale-down-utilization-threshold of the Cluster Autoscaler'
            cand --scale-down-unneeded-time '--scale-down-unneeded-time of the Cluster Autoscaler'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'hpacalc;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'hpacalc;help'= {
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'hpacalc;help;completions'= {
        }
        &'hpacalc;help;help'= {
        }
    ]
    $completions[$command]
}
