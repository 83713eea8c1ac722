#!/usr/bin/env bash
# Installs agent-guards for the current user: builds release binaries, self-tests the staged copies
# (any failure installs nothing), installs them to ~/.local/share/agent-guards/bin and registers the
# hooks in ~/.claude/settings.json (merged, backed up, written atomically).
#
#   ./install.sh [--prefix DIR] [--settings FILE | --project DIR] [--dry-run]
#   ./install.sh --uninstall [same options]     remove exactly what we registered
#   ./install.sh --report [same options] [--json]   read-only installation report
set -euo pipefail
cd "$(dirname "$0")"
cmd=install
args=()
for a in "$@"; do
  case "$a" in
    --uninstall|uninstall) cmd=uninstall ;;
    --report|report) cmd=report ;;
    *) args+=("$a") ;;
  esac
done
if [ "$cmd" = report ] && [ -x target/release/agent-guards ]; then
  exec target/release/agent-guards report "${args[@]}"
fi
cargo build --release --locked --workspace --bins --quiet
if [ "$cmd" = install ]; then
  exec target/release/agent-guards install --from target/release "${args[@]}"
fi
exec target/release/agent-guards "$cmd" "${args[@]}"
