
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
