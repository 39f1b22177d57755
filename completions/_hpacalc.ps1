
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
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'HPA manifest (YAML or JSON, autoscaling/v2, v2beta2 or v1; `-` reads stdin)')
            [CompletionResult]::new('--hpa', '--hpa', [CompletionResultType]::ParameterName, 'HPA manifest (YAML or JSON, autoscaling/v2, v2beta2 or v1; `-` reads stdin)')
            [CompletionResult]::new('--pods', '--pods', [CompletionResultType]::ParameterName, 'Per-pod samples, CSV with a header (`-` reads stdin)')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Pick the HPA with this name when the manifest holds several')
            [CompletionResult]::new('--current-replicas', '--current-replicas', [CompletionResultType]::ParameterName, 'The target''s current replica count (default: status.currentReplicas, else the pods counted)')
            [CompletionResult]::new('--metric-value', '--metric-value', [CompletionResultType]::ParameterName, 'Value of an Object or External metric, NAME=QUANTITY (repeatable)')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'Earlier syncs: CSV with age,recommendation[,change]')
            [CompletionResult]::new('--now', '--now', [CompletionResultType]::ParameterName, 'Evaluation time, RFC 3339 (default: now)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-tolerance')
            [CompletionResult]::new('--cpu-initialization-period', '--cpu-initialization-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-cpu-initialization-period')
            [CompletionResult]::new('--initial-readiness-delay', '--initial-readiness-delay', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-initial-readiness-delay')
            [CompletionResult]::new('--downscale-stabilization', '--downscale-stabilization', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-downscale-stabilization')
            [CompletionResult]::new('--sync-period', '--sync-period', [CompletionResultType]::ParameterName, '--horizontal-pod-autoscaler-sync-period')
            [CompletionResult]::new('--kube-version', '--kube-version', [CompletionResultType]::ParameterName, 'Apply the controller rules of this Kubernetes release (1.27 to 1.37)')
            [CompletionResult]::new('--feature-gates', '--feature-gates', [CompletionResultType]::ParameterName, 'Override feature gates: NAME=true|false,... (HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources, HPAContainerMetrics)')
            [CompletionResult]::new('--metrics-window', '--metrics-window', [CompletionResultType]::ParameterName, 'The window of each CSV usage sample, as metrics-server reports it (CPU readiness rule)')
            [CompletionResult]::new('--node-allocatable', '--node-allocatable', [CompletionResultType]::ParameterName, 'Allocatable of one node of the group: cpu=2,memory=8Gi,pods=110 (pods defaults to 110)')
            [CompletionResult]::new('--existing-nodes', '--existing-nodes', [CompletionResultType]::ParameterName, 'Nodes of the group running the workload now (default: just enough for the current pods)')
            [CompletionResult]::new('--daemonset-requests', '--daemonset-requests', [CompletionResultType]::ParameterName, 'Requests of one DaemonSet on every node, e.g. cpu=100m,memory=128Mi (repeatable; each adds a pod unless pods=N is given)')
            [CompletionResult]::new('--node-group-max', '--node-group-max', [CompletionResultType]::ParameterName, 'The node group''s maximum size')
            [CompletionResult]::new('--max-nodes-total', '--max-nodes-total', [CompletionResultType]::ParameterName, '--max-nodes-total of the Cluster Autoscaler')
            [CompletionResult]::new('--pod-request', '--pod-request', [CompletionResultType]::ParameterName, 'The effective request of one pod, e.g. cpu=500m,memory=256Mi (default: from the samples)')
            [CompletionResult]::new('--scale-down-utilization-threshold', '--scale-down-utilization-threshold', [CompletionResultType]::ParameterName, '--scale-down-utilization-threshold of the Cluster Autoscaler')
            [CompletionResult]::new('--scale-down-unneeded-time', '--scale-down-unneeded-time', [CompletionResultType]::ParameterName, '--scale-down-unneeded-time of the Cluster Autoscaler')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'hpacalc;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'hpacalc;help' {
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'hpacalc;help;completions' {
            break
        }
        'hpacalc;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
