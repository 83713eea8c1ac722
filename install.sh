#!/usr/bin/env bash
# Installs agent-guards for the current user: builds release binaries, self-tests them, installs
# them to ~/.local/share/agent-guards/bin and registers the hooks in ~/.claude/settings.json.
# Options are passed to `agent-guards install` (see `--help`): --prefix, --settings, --project,
# --dry-run. `./install.sh uninstall [...]` removes our registrations.
set -euo pipefail
cd "$(dirname "$0")"
cmd=install
if [ "${1:-}" = "uninstall" ]; then cmd=uninstall; shift; fi
cargo build --release --locked --workspace --bins --quiet
exec target/release/agent-guards "$cmd" --from target/release "$@"
