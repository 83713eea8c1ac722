#!/usr/bin/env bash
# Installs agent-guards for the current user: builds release binaries, self-tests the staged copies
# (any failure installs nothing), installs them to ~/.local/share/agent-guards/bin and registers the
# hooks in ~/.claude/settings.json (merged, backed up, written atomically).
#
#   ./install.sh [--prefix DIR] [--settings FILE | --project DIR] [--dry-run]
#   ./install.sh --uninstall [same options]         remove exactly what we registered
#   ./install.sh --report [same options] [--json]   read-only installation report
#   --from DIR   use binaries already built in DIR instead of building release binaries
set -euo pipefail
cd "$(dirname "$0")"
cmd=install
from=""
args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --uninstall|uninstall) cmd=uninstall ;;
    --report|report) cmd=report ;;
    --from) from="${2:?--from needs a folder}"; shift ;;
    --from=*) from="${1#--from=}" ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ -z "$from" ]; then
  if [ "$cmd" = report ] && [ -x target/release/agent-guards ]; then
    from=target/release
  else
    cargo build --release --locked --workspace --bins --quiet
    from=target/release
  fi
fi
admin="$from/agent-guards"
[ -x "$admin" ] || { echo "install.sh: $admin is missing (build the workspace first)" >&2; exit 1; }
if [ "$cmd" = install ]; then
  exec "$admin" install --from "$from" ${args[@]+"${args[@]}"}
fi
exec "$admin" "$cmd" ${args[@]+"${args[@]}"}
