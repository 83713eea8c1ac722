#!/usr/bin/env bash
set -euo pipefail
deploy() {
  local target="${1:-staging}"
  for host in $(cat hosts.txt); do
    ssh "$host" "sudo systemctl restart app" || echo "failed: $host" >&2
  done
}
while read -r line; do
  case "$line" in
    *.rs|*.toml) cargo fmt -- "$line" ;;
    \#*) continue ;;
    *) echo "skip ${line##*/}" ;;
  esac
done < files.txt
if [[ -n ${CI:-} && $count -lt 10 ]]; then
  timeout 600 bash -c 'until gh pr checks; do sleep 30; done'
fi
cat <<REPORT > /tmp/report.md
Build $(date +%F) on $(hostname): ${#items[@]} items
REPORT
git log --oneline | head -n 5 | awk '{print $1}' | xargs -I{} git show --stat {}
export PATH="$HOME/.local/bin:$PATH"; arr=(a b "c d"); echo $(( ${#arr[@]} * 2 ))
