#!/usr/bin/env bash
# bench/ab/prepare.sh BASE_REV [WORKDIR]
#
# Sets up an A/B of the loop, pipeline and MCP figures between BASE_REV and this checkout,
# both measured by BASE_REV's own bench code (so a change to the bench cannot move the
# figures): a worktree of BASE_REV with its own npm ci and build, then four folders in
# WORKDIR (default $TMPDIR/muster-ab), base-src, base-dist, head-src and head-dist, each
# holding BASE_REV's bench files pointed at one tree's sources or built package, plus
# figures.mjs. Then, for example:
#   node bench/ab/run.mjs 8 "$WORKDIR/base-dist" "$WORKDIR/head-dist"
# and `git worktree remove --force "$WORKDIR/base-tree"` when done.
set -euo pipefail
base_rev=${1:?usage: bench/ab/prepare.sh BASE_REV [WORKDIR]}
work=${2:-${TMPDIR:-/tmp}/muster-ab}
head=$(git rev-parse --show-toplevel)
here="$head/bench/ab"

if [ -d "$work/base-tree" ]; then git -C "$head" worktree remove --force "$work/base-tree"; fi
rm -rf "$work"
mkdir -p "$work"
git -C "$head" worktree add --force --detach "$work/base-tree" "$base_rev" >/dev/null
# built as the head is (npm run build bundles each entry point of dist/ since that step exists):
# an unbundled base beside a bundled head would time module layouts, not the change
(cd "$work/base-tree" && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.build.json &&
  if [ -f scripts/bundle-entries.mjs ]; then node scripts/bundle-entries.mjs; fi)
(cd "$head" && npm run build)

for side in base head; do
  if [ "$side" = base ]; then tree="$work/base-tree"; else tree="$head"; fi
  for source in src dist; do
    d="$work/$side-$source"
    mkdir -p "$d"
    ln -s "$tree/node_modules" "$d/node_modules"
    ln -s "$tree/tsconfig.json" "$d/tsconfig.json"
    # ES modules, as in the repository (without it tsx would compile the bench files to CommonJS)
    printf '{ "private": true, "type": "module" }\n' >"$d/package.json"
    cp -R "$work/base-tree/bench/." "$d/"
    for f in "$d"/*.ts; do
      sed -i -e "s#'\.\./src/#'$tree/$source/#g" -e "s#'\.\./test/#'$tree/test/#g" "$f"
      # bench/muster.ts (since the built package is measured) loads by URL: this tree's code
      sed -i -e "s#\`\.\./\${BENCH_SOURCE}/#\`$tree/$source/#g" \
        -e "s#process.env.BENCH_SOURCE === 'src' ? 'src' : 'dist'#'$source'#" "$f"
    done
    # the pipeline left the package root in the reshape: take it from its folder's face
    if ! grep -q "runToolCall" "$tree/src/index.ts"; then
      node "$here/pipeline-import.mjs" "$d/pipeline-overhead.ts" "$tree/$source"
    fi
    sed -e "s#'\.\./test/#'$tree/test/#g" "$here/figures.mjs" >"$d/figures.mjs"
  done
done
echo "prepared $work: base-src base-dist head-src head-dist"
