# Sourced by ci/gpu and ci/hip, the evidence scripts: how a step runs and is recorded, the Markdown summary's lines,
# the values of the JSON summary each writes for scripts, and which probes must compute the same D on two backends.
# The sourcing script sets $cmds (OUT/commands.txt) and $summary (the Markdown summary) before the first call.

# Runs a command, recording it in $cmds; its stdout and stderr go to the file given first. Returns its exit status.
step() {
  local log=$1; shift
  printf '%q ' "$@" >> "$cmds"; printf '> %q 2>&1\n' "$log" >> "$cmds"
  "$@" > "$log" 2>&1
}
note() { printf '# %s\n' "$*" >> "$cmds"; }
say() { echo "$*"; echo "$*" >> "$summary"; }

# JSON values, built in the shell: a string (backslash, quote and control characters escaped), an exit status (null
# where there is none), a list of values already in JSON, a boolean, a file's JSON.
js() {
  local s=$1
  s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}; s=${s//$'\t'/\\t}
  printf '"%s"' "$(printf '%s' "$s" | tr -d '\000-\037')"
}
jnum() { if [[ $1 =~ ^-?[0-9]+$ ]]; then printf '%s' "$1"; else printf 'null'; fi; }
jlist() { local IFS=,; printf '[%s]' "$*"; }
jbool() { if [ "$1" = 1 ] || [ "$1" = true ]; then printf 'true'; else printf 'false'; fi; }
# A JSON document a step wrote (a tool's --json), as it is; null where the step wrote none.
jfile() { if [ -s "$1" ]; then cat "$1"; else printf 'null'; fi; }

# The probes whose D must be bit-equal on two backends, as tileprobe-report --compare-reports pairs of their reports
# OUT/<probe>.<A>.json,OUT/<probe>.<B>.json, into the array `pairs`: the ck probes (d_digest per variant). Not the fa
# probes: where a variant keeps a race its results follow the schedule, and a card refuses configs over its LDS that
# the cpu backend runs, so their runs on two backends need not be the same computation.
#   digest_pairs OUT A B PROBE_NAME...
digest_pairs() {
  local out=$1 a=$2 b=$3 name
  shift 3
  pairs=()
  for name in "$@"; do
    case $name in ck-*) pairs+=(--compare-reports "$out/$name.$a.json,$out/$name.$b.json") ;; esac
  done
}
