#!/usr/bin/env bash
# Short fuzz run for CI: parse + command view over the committed corpus and new inputs.
# Usage: crates/shell-syntax/fuzz/smoke.sh [seconds]   (default 60)
# Needs: a nightly toolchain and cargo-fuzz (`cargo +nightly install cargo-fuzz --locked`).
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
# Fuzz new inputs into a scratch dir so the committed corpus stays small; crashes land in
# artifacts/ and fail the run.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cargo +nightly fuzz run parse_and_view "$scratch" corpus/parse_and_view -- \
  -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -dict=shell.dict
