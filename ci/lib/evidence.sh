# Sourced by ci/gpu and ci/hip, the evidence scripts: how a step runs and is recorded, the Markdown summary's lines,
# and the values of the JSON summary each writes for scripts. The sourcing script sets $cmds (OUT/commands.txt) and
# $summary (the Markdown summary) before the first call.

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
