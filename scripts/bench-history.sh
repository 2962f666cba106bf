#!/usr/bin/env bash
# Time the search for a three-way base (strategy 3) on a file with 1,000 historical versions
# (a 1,000-line file; every commit edits one line of it), built with git fast-import.
#
# Three searches: a patch that fits no version (the worst case: the search reads versions
# until the depth bound, 50 by default, and must stop there), a patch written for the version
# 40 commits back, and the first again with a depth of 1,000 to show what the bound saves.
# Then the other worst case: a file untouched for 6,000 commits, where the walk stops at its
# commit limit (2,000) however few versions it found.
#
# Usage: scripts/bench-history.sh [runs, default 7] [--debug]
set -euo pipefail

runs=${1:-7}
profile=release
[ "${2:-}" = "--debug" ] && profile=debug
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null LC_ALL=C

if [ "$profile" = release ]; then
    cargo build --quiet --release --example bench_history
else
    cargo build --quiet --example bench_history
fi
bench="$CARGO_TARGET_DIR/$profile/examples/bench_history"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo="$work/repo"
git init -q -b main "$repo"

versions=1000
lines=1000
# Version v is lines "line 1" .. "line 1000" with line (v*7 % 1000)+1 saying which version
# it is: each commit changes the file in two lines, all versions differ.
awk -v versions="$versions" -v lines="$lines" 'BEGIN {
    for (v = 1; v <= versions; v++) {
        edited = (v * 7) % lines + 1
        content = ""
        for (i = 1; i <= lines; i++) {
            if (i == edited) content = content sprintf("line %d, edited in version %d\n", i, v)
            else content = content sprintf("line %d\n", i)
        }
        print "commit refs/heads/main"
        printf "committer Bench <bench@example.com> %d +0000\n", 1700000000 + v
        printf "data %d\nversion %d\n", length(sprintf("version %d", v)) + 1, v
        printf "M 100644 inline f.txt\ndata %d\n%s\n", length(content), content
    }
}' | git -C "$repo" fast-import --quiet
git -C "$repo" reset -q --hard main

# Fits no version: "line 500" is never at line 400.
cat > "$work/nowhere.patch" <<'PATCH'
diff --git a/f.txt b/f.txt
--- a/f.txt
+++ b/f.txt
@@ -400,3 +400,3 @@
 line 499
-line 500
+line 500, patched
PATCH
# Fits only version 960 (40 commits before HEAD): its edited line is the context.
back=960
edited=$(( back * 7 % lines + 1 ))
cat > "$work/back40.patch" <<PATCH
diff --git a/f.txt b/f.txt
--- a/f.txt
+++ b/f.txt
@@ -$((edited - 1)),3 +$((edited - 1)),3 @@
 line $((edited - 1))
-line $edited, edited in version $back
+line $edited, patched
 line $((edited + 1))
PATCH

echo "f.txt: $versions versions of $lines lines ($profile build, $runs runs each)"
printf 'no base, bound 50      '; "$bench" "$repo" f.txt "$work/nowhere.patch" 50 "$runs"
printf 'base 40 commits back   '; "$bench" "$repo" f.txt "$work/back40.patch" 50 "$runs"
printf 'no base, bound 1000    '; "$bench" "$repo" f.txt "$work/nowhere.patch" 1000 "$runs"

# A file committed once, then 6,000 commits that edit another file.
quiet="$work/quiet"
git init -q -b main "$quiet"
awk -v lines="$lines" 'BEGIN {
    content = ""
    for (i = 1; i <= lines; i++) content = content sprintf("line %d\n", i)
    print "commit refs/heads/main"
    print "committer Bench <bench@example.com> 1700000000 +0000"
    print "data 5\nfirst"
    printf "M 100644 inline f.txt\ndata %d\n%s\n", length(content), content
    for (v = 1; v <= 6000; v++) {
        other = sprintf("other %d\n", v)
        print "commit refs/heads/main"
        printf "committer Bench <bench@example.com> %d +0000\n", 1700000000 + v
        print "data 6\nother"
        printf "M 100644 inline d/other.txt\ndata %d\n%s\n", length(other), other
    }
}' | git -C "$quiet" fast-import --quiet
git -C "$quiet" reset -q --hard main
printf 'untouched 6000 commits '; "$bench" "$quiet" f.txt "$work/nowhere.patch" 50 "$runs"
