# A system install in a private mount namespace, shared by tests/system_service.rs and
# tests/e2e_system_install.rs (run with `unshare -m`, as root): a copy of /etc bound over /etc,
# empty /run, /var/lib and /opt, the real installer into the real paths, the exec-gate service
# started by hand (this host has no systemd). Needs $ADMIN (the admin binary), $FROM (the built
# binaries) and $WORK (a folder for the copy and the logs); leaves $ETC_BEFORE (the password
# database's sums before the install), $P (the installed prefix) and $SERVICE (its pid).
set -e
mount --make-rprivate /
cp -a /etc "$WORK/etc"
mount --bind "$WORK/etc" /etc
for d in /run /var/lib /opt; do mount -t tmpfs -o mode=0755 none "$d"; done
ETC_BEFORE=$(cd /etc && sha256sum passwd group shadow gshadow 2>/dev/null)
"$ADMIN" install --system --from "$FROM" --prefix /opt/agent-guards >"$WORK/install.log" 2>&1
P=/opt/agent-guards/bin/tool-containment
"$P" --exec-gate-service 2>"$WORK/service.err" &
SERVICE=$!
for i in $(seq 1 200); do [ -S /run/agent-guards/exec-gate.sock ] && break; sleep 0.02; done
set +e
