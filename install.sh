#!/usr/bin/env bash
# Installs agent-guards for the current user: builds release binaries, self-tests the staged copies
# (any failure installs nothing), installs them and the admin binary `agent-guards` to
# ~/.local/share/agent-guards/bin and registers the hooks in ~/.claude/settings.json (merged as
# text, backed up, written atomically). `sudo ./install.sh --system` installs for every user, out of
# the agent's reach: root's binaries in /usr/local/lib/agent-guards/bin, config
# /etc/agent-guards/config.toml, hooks in Claude Code's managed settings (the build runs as the
# user who called sudo, never as root in the clone). Help, report and uninstall never build when an
# installed or already built `agent-guards` can answer.
set -euo pipefail
# The clone; relative paths in the options stay relative to where the user ran the script.
here="$(cd "$(dirname "$0")" && pwd)"

usage() {
  cat <<'EOF'
usage: ./install.sh [--prefix DIR] [--settings FILE | --project DIR] [--dry-run] [--from DIR]
       sudo ./install.sh --system [--allow-managed-hooks-only] [--prefix DIR] [--dry-run] [--from DIR]
       ./install.sh uninstall [--system] [--prefix DIR] [--settings FILE | --project DIR] [--dry-run]
       ./install.sh report [--system] [--prefix DIR] [--settings FILE | --project DIR] [--json]
       ./install.sh --help

  install (default)  build release binaries (cargo build --release --locked; the first build takes
                     several minutes), self-test them, install them with the admin binary
                     agent-guards into DIR/bin, register the hooks, report config problems
  uninstall          remove exactly the hooks we registered (binaries, config and logs stay; the
                     output says where they are and how to remove them)
  report             read-only installation report: binaries, registrations, config problems,
                     containment backend, GitHub token, state dir size

  --prefix DIR     install prefix (default ~/.local/share/agent-guards; binaries in DIR/bin)
  --settings FILE  the Claude Code settings file (default ~/.claude/settings.json)
  --project DIR    use DIR/.claude/settings.json
  --dry-run        print what would change, write nothing
  --system         (as root) install for every user, out of the agent's reach: binaries root's
                   in /usr/local/lib/agent-guards/bin (or --prefix), config
                   /etc/agent-guards/config.toml (a per-user config may only tighten it), hooks
                   in Claude Code's managed settings /etc/claude-code/managed-settings.json,
                   which no user or project setting can remove; uninstall --system gives every
                   file back as it was
  --allow-managed-hooks-only
                   (with --system) only managed hooks run: the agent cannot add hooks of its own
                   (they would run as you, outside containment), but yours, your projects' and
                   your plugins' stop running too
  --from DIR       take already built binaries from DIR instead of building
  --json           (report) the report as JSON

Prerequisites: rustup (it fetches the pinned toolchain), a C compiler (cc), git; on macOS the
Xcode command-line tools (xcode-select --install) bring cc and git. On macOS four guards do their
whole job; tool-containment and stray-process-sweep install but say they cannot contain or see
processes there (cgroups and /proc are Linux's), and the shell prefix is not registered.
Paths (Linux and macOS alike): binaries in ~/.local/share/agent-guards/bin, config in
${XDG_CONFIG_HOME:-~/.config}/agent-guards/config.toml, state in ${XDG_STATE_HOME:-~/.local/state}/agent-guards.
After install, the same commands work from anywhere: agent-guards report | uninstall | explain '<cmd>'.
EOF
}

cmd=install
from=""
prefix="${HOME:-}/.local/share/agent-guards"
system=""
args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    -h|--help|help) usage; exit 0 ;;
    --uninstall|uninstall) cmd=uninstall ;;
    --report|report) cmd=report ;;
    --from) from="${2:?--from needs a folder}"; shift ;;
    --from=*) from="${1#--from=}" ;;
    --prefix) prefix="${2:?--prefix needs a folder}"; prefix_given=1; args+=("$1" "$2"); shift ;;
    --system) system=1; args+=("$1") ;;
    *) args+=("$1") ;;
  esac
  shift
done

if [ -n "$system" ] && [ -z "${prefix_given:-}" ]; then
  prefix=/usr/local/lib/agent-guards
fi
if [ -n "$system" ] && [ "$cmd" != report ] && [ "$(id -u)" != 0 ] && ! printf '%s\n' ${args[@]+"${args[@]}"} | grep -qx -- --dry-run; then
  echo "install.sh: --system installs root's files the agent's user cannot change: run it with sudo (sudo ./install.sh --system)" >&2
  exit 1
fi

# Under sudo the build runs as the user who called it: a root build would leave root's files in
# the clone's target/ and needs root's own toolchain.
as_builder() {
  if [ "$(id -u)" = 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    local home
    home="$(getent passwd "$SUDO_USER" | cut -d: -f6)"
    sudo -u "$SUDO_USER" -H env PATH="$home/.cargo/bin:$PATH" "$@"
  else
    "$@"
  fi
}

build() {
  if ! as_builder sh -c 'command -v cargo' >/dev/null 2>&1; then
    echo "install.sh: cargo is not on PATH. Install rustup (https://rustup.rs), a C compiler and git (macOS: xcode-select --install), then run ./install.sh again." >&2
    exit 1
  fi
  if [ "$(uname -s)" = Darwin ] && ! xcode-select -p >/dev/null 2>&1; then
    echo "install.sh: the Xcode command-line tools are missing (they bring cc and git): run xcode-select --install, then ./install.sh again." >&2
    exit 1
  fi
  echo "install.sh: building the release binaries: 6 hooks and the admin tool, about 140 crates, optimised and link-time optimised."
  echo "install.sh: a first build takes several minutes (far more on a busy machine; the measured figure is in spec/installer.md); later builds reuse target/."
  if [ "$(uname -s)" != Linux ]; then
    echo "install.sh: on $(uname -s), tool-containment and stray-process-sweep cannot contain or see processes (cgroups and /proc are Linux's): they install and say so; the other four guards do their whole job."
  fi
  (cd "$here" && as_builder cargo build --release --locked --workspace --bins)
  from="$here/target/release"
}

if [ -z "$from" ]; then
  if [ "$cmd" != install ] && [ -x "$prefix/bin/agent-guards" ]; then
    # Report and uninstall need no build: the installed admin binary answers.
    from="$prefix/bin"
  elif [ "$cmd" != install ] && [ -x "$here/target/release/agent-guards" ]; then
    from="$here/target/release"
  else
    build
  fi
fi
admin="$from/agent-guards"
[ -x "$admin" ] || { echo "install.sh: $admin is missing (build the workspace first, or drop --from)" >&2; exit 1; }
if [ "$cmd" = install ]; then
  exec "$admin" install --from "$from" ${args[@]+"${args[@]}"}
fi
exec "$admin" "$cmd" ${args[@]+"${args[@]}"}
