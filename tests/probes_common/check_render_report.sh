#!/usr/bin/env bash
# ctest driver for tools/render-report on a small merged report: the README example probe runs in two shards,
# tileprobe-report merges them, render-report renders the Markdown.
#   check_render_report.sh html     PROBE MERGER RENDER   HTML is standalone, has the tables, every #link has its target
#   check_render_report.sh png      PROBE MERGER RENDER   a PNG of the first screen is written
#   check_render_report.sh no-tool  PROBE MERGER RENDER   without pandoc on PATH: exit 2 naming the Debian package
# Exit 0 checked, 1 a check failed, 77 the tool the check needs is not installed (ctest SKIP_RETURN_CODE).
set -uo pipefail
mode=$1 probe=$2 merger=$3 render=$4
fail() { echo "FAILED: $*"; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$probe" --shard 1/2 --report json --out "$work/s1.json" >/dev/null || fail "the example probe (shard 1/2) failed"
"$probe" --shard 2/2 --report json --out "$work/s2.json" >/dev/null || fail "the example probe (shard 2/2) failed"
"$merger" --out "$work/report.md" "$work/s1.json" "$work/s2.json" || fail "tileprobe-report could not merge"

case $mode in
  html)
    command -v pandoc >/dev/null || skip "pandoc is not installed (Debian package pandoc: ci/setup --render)"
    "$render" --no-png --html "$work/report.html" "$work/report.md" || fail "render-report exited $?"
    html=$work/report.html
    [ -s "$html" ] || fail "no HTML written"
    grep -q '^<!DOCTYPE html>' "$html" || fail "not a standalone HTML page"
    grep -q '<style>' "$html" || fail "no embedded CSS"
    grep -q '<title>tileprobe report</title>' "$html" || fail "the title is not the report's first heading"
    grep -q '<table' "$html" || fail "no table rendered (GitHub-flavoured tables not recognised?)"
    grep -q '<pre' "$html" || fail "no code block rendered"
    # The headline links each probe to its section: pandoc's gfm anchors must be the ones tileprobe-report computes.
    links=$(grep -o 'href="#[^"]*"' "$html" | sed 's/href="#\(.*\)"/\1/' | sort -u)
    [ -n "$links" ] || fail "the headline table has no links to the probe sections"
    for a in $links; do grep -q "id=\"$a\"" "$html" || fail "link #$a has no target in the HTML"; done
    echo "HTML ok: $(wc -c <"$html") bytes, links: $(echo $links)"
    ;;
  png)
    command -v pandoc >/dev/null || skip "pandoc is not installed (Debian package pandoc: ci/setup --render)"
    command -v chromium >/dev/null || skip "chromium is not installed (Debian package chromium: ci/setup --render)"
    "$render" --html "$work/report.html" --png "$work/report.png" --height 600 "$work/report.md" ||
      fail "render-report exited $?"
    [ "$(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "no PNG written"
    echo "PNG ok: $(wc -c <"$work/report.png") bytes"
    ;;
  no-tool)
    # A PATH with the tools the script needs but not pandoc: it must refuse, name the package, write nothing.
    mkdir "$work/bin"
    for t in bash sed awk mktemp head cat rm basename dirname; do ln -s "$(command -v "$t")" "$work/bin/$t"; done
    out=$(PATH=$work/bin "$render" --no-png --html "$work/none.html" "$work/report.md" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "exit $rc without pandoc, expected 2 ($out)"
    [[ $out == *"Debian package 'pandoc'"* ]] || fail "the message does not name the Debian package: $out"
    [ ! -e "$work/none.html" ] || fail "an HTML file was written without pandoc"
    out=$("$render" "$work/missing.md" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "exit $rc on a missing input, expected 2"
    out=$("$render" --width wide "$work/report.md" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "exit $rc on --width wide, expected 2"
    echo "no-tool ok: $out"
    ;;
  *) echo "usage: $0 html|png|no-tool PROBE MERGER RENDER"; exit 2 ;;
esac
