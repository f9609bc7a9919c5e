# Sourced by the stress scripts: sets the array `limit` to `--iterations N`
# (N the first argument) unless the remaining arguments already bound the run
# with --iterations or --duration, in which case `limit` is empty.
stress_default_limit() {
    local iterations=$1
    shift
    local argument
    limit=(--iterations "$iterations")
    for argument in "$@"; do
        case "$argument" in
            --iterations|--iterations=*|--duration|--duration=*) limit=() ;;
        esac
    done
}
