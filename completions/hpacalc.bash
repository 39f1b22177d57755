_hpacalc() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="hpacalc"
                ;;
            hpacalc,audit)
                cmd="hpacalc__subcmd__audit"
                ;;
            hpacalc,completions)
                cmd="hpacalc__subcmd__completions"
                ;;
            hpacalc,diff)
                cmd="hpacalc__subcmd__diff"
                ;;
            hpacalc,help)
                cmd="hpacalc__subcmd__help"
                ;;
            hpacalc,mcp)
                cmd="hpacalc__subcmd__mcp"
                ;;
            hpacalc,rbac)
                cmd="hpacalc__subcmd__rbac"
                ;;
            hpacalc,rules)
                cmd="hpacalc__subcmd__rules"
                ;;
            hpacalc,schema)
                cmd="hpacalc__subcmd__schema"
                ;;
            hpacalc,serve)
                cmd="hpacalc__subcmd__serve"
                ;;
            hpacalc,simulate)
                cmd="hpacalc__subcmd__simulate"
                ;;
            hpacalc__subcmd__help,audit)
                cmd="hpacalc__subcmd__help__subcmd__audit"
                ;;
            hpacalc__subcmd__help,completions)
                cmd="hpacalc__subcmd__help__subcmd__completions"
                ;;
            hpacalc__subcmd__help,diff)
                cmd="hpacalc__subcmd__help__subcmd__diff"
                ;;
            hpacalc__subcmd__help,help)
                cmd="hpacalc__subcmd__help__subcmd__help"
                ;;
            hpacalc__subcmd__help,mcp)
                cmd="hpacalc__subcmd__help__subcmd__mcp"
                ;;
            hpacalc__subcmd__help,rbac)
                cmd="hpacalc__subcmd__help__subcmd__rbac"
                ;;
            hpacalc__subcmd__help,rules)
                cmd="hpacalc__subcmd__help__subcmd__rules"
                ;;
            hpacalc__subcmd__help,schema)
                cmd="hpacalc__subcmd__help__subcmd__schema"
                ;;
            hpacalc__subcmd__help,serve)
                cmd="hpacalc__subcmd__help__subcmd__serve"
                ;;
            hpacalc__subcmd__help,simulate)
                cmd="hpacalc__subcmd__help__subcmd__simulate"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        hpacalc)
            opts="-f -n -A -l -o -s -v -h -V --hpa --pods --metrics --custom-metrics --external-metrics --scale --namespace --all-namespaces --selector --name --current-replicas --target --status-replicas --metric-value --metric-failures --last-active --history --events --print-hpa --now --output --brief --tolerance --cpu-initialization-period --initial-readiness-delay --downscale-stabilization --sync-period --kube-version --feature-gates --metrics-window --node-allocatable --existing-nodes --daemonset-requests --node-group-max --max-nodes-total --pod-request --nodes --all-pods --node-groups --expander --nodepool --nodeclass --instance-types --scale-down-utilization-threshold --scale-down-unneeded-time --kubeconfig --context --cluster --user --server --token --insecure-skip-tls-verify --as --as-group --v --request-timeout --save --watch --nodes-from-cluster --watch-count --set-request --set-limit --scale-up-tolerance --scale-down-tolerance --min --max --what-if --help --version rbac serve rules schema completions simulate diff audit mcp help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --hpa)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pods)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --custom-metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --external-metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -l)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --current-replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --target)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --status-replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metric-value)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metric-failures)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-active)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --history)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --events)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml summary markdown" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml summary markdown" -- "${cur}"))
                    return 0
                    ;;
                --tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-initialization-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-readiness-delay)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --downscale-stabilization)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feature-gates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-allocatable)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --existing-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --daemonset-requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-group-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-nodes-total)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --all-pods)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-groups)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expander)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodepool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodeclass)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instance-types)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-utilization-threshold)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-unneeded-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --server)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as-group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --save)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --watch-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-up-tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --what-if)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__audit)
            opts="-A -n -s -v -f -o -h --dump --cluster --all-namespaces --namespace --kubeconfig --context --user --server --token --insecure-skip-tls-verify --as --as-group --v --request-timeout --filename --metrics --custom-metrics --external-metrics --nodes --node-group-max --events --output --fail-on --now --sync-period --tolerance --kube-version --feature-gates --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dump)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --server)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as-group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --custom-metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --external-metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-group-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --events)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table wide json yaml sarif markdown" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table wide json yaml sarif markdown" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -W "warning error" -- "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feature-gates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__completions)
            opts="-h --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__diff)
            opts="-o -h --output --fail-on --load --load-map --actual-file --pod-request --replicas --duration --pods --metrics --now --sync-period --tolerance --kube-version --feature-gates --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json markdown" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json markdown" -- "${cur}"))
                    return 0
                    ;;
                --fail-on)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --load)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --load-map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --actual-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pods)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feature-gates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help)
            opts="rbac serve rules schema completions simulate diff audit mcp help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__audit)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__mcp)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__rbac)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__rules)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__help__subcmd__simulate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__mcp)
            opts="-h --allow-live --call-timeout --kubeconfig --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --call-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__rbac)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__rules)
            opts="-h --prometheus-rule --sync-period --job --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__schema)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__serve)
            opts="-A -n -s -v -h --all-namespaces --namespace --listen --offline --page-timeout --max-evaluations --kubeconfig --context --cluster --user --server --token --insecure-skip-tls-verify --as --as-group --request-timeout --v --log-format --sync-period --tolerance --kube-version --feature-gates --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-evaluations)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kubeconfig)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --server)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --as-group)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -v)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feature-gates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        hpacalc__subcmd__simulate)
            opts="-f -o -h --hpa --load --scenario --name --replicas --now --compare --what-if --set-request --set-limit --scale-up-tolerance --scale-down-tolerance --min --max --duration --output --every-sync --chart --html --pod-request --pod-startup --pod-termination --node-startup --ca-scan-interval --scale-down-delay-after-add --sync-period --tolerance --cpu-initialization-period --initial-readiness-delay --downscale-stabilization --kube-version --feature-gates --metrics-window --node-allocatable --existing-nodes --daemonset-requests --node-group-min --node-group-max --max-nodes-total --scale-down-utilization-threshold --scale-down-unneeded-time --node-groups --expander --nodepool --nodeclass --instance-types --pod-limit --rollout --max-surge --max-unavailable --min-ready-seconds --startup-cpu --load-map --actual-file --prometheus --query --actual --start --end --step --token --username --password --certificate-authority --insecure-skip-tls-verify --request-timeout --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --hpa)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --load)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scenario)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --replicas)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --now)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --compare)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --what-if)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-up-tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --chart)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-request)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-startup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-termination)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-startup)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-scan-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-delay-after-add)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sync-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tolerance)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-initialization-period)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-readiness-delay)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --downscale-stabilization)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --feature-gates)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-allocatable)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --existing-nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --daemonset-requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-group-min)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-group-max)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-nodes-total)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-utilization-threshold)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --scale-down-unneeded-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node-groups)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expander)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodepool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nodeclass)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instance-types)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rollout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-surge)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-unavailable)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-ready-seconds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --startup-cpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --load-map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --actual-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prometheus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --query)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --actual)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --username)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --certificate-authority)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _hpacalc -o nosort -o bashdefault -o default hpacalc
else
    complete -F _hpacalc -o bashdefault -o default hpacalc
fi
