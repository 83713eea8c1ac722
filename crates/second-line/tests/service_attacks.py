# An agent command's attempts on the exec-gate service's processes (issue 40 item 2), shared by
# crates/second-line/tests/service.rs and tests/system_service.rs: every process of the service
# is found by its command line (inside the command's user namespace another user's uid reads as
# the overflow uid), then signalled, read, traced and its descriptors taken; then the gate's
# judgement is tried with a refused and an allowed launch. One line per attempt: DONE or refused.
import ctypes, os, signal, subprocess
def serving(p):
    try:
        return open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")[1] == b"--exec-gate-service"
    except (OSError, IndexError):
        return False
service = [int(p) for p in os.listdir("/proc") if p.isdigit() and serving(p)]
print("service processes:", len(service))
libc = ctypes.CDLL(None, use_errno=True)
for pid in service:
    for what, act in [
        ("stop", lambda: os.kill(pid, signal.SIGSTOP)),
        ("kill", lambda: os.kill(pid, signal.SIGKILL)),
        ("mem", lambda: open(f"/proc/{pid}/mem", "rb").read(1)),
        ("environ", lambda: open(f"/proc/{pid}/environ", "rb").read()),
    ]:
        try:
            act()
            print(f"{what} {pid}: DONE")
        except OSError as e:
            print(f"{what} {pid}: refused")
    pidfd = libc.syscall(434, pid, 0)
    took = [fd for fd in range(0, 16) if pidfd >= 0 and libc.syscall(438, pidfd, fd, 0) >= 0]
    print(f"getfd {pid}: {'DONE ' + str(took) if took else 'refused'}")
    print(f"ptrace {pid}: {'DONE' if libc.ptrace(16, pid, 0, 0) == 0 else 'refused'}")
for model in ["fable", "sonnet"]:
    try:
        r = subprocess.run(["claude", "--model", model, "-p", "hi"], capture_output=True, text=True)
        print(f"claude {model}: ran {r.stdout.strip()}")
    except PermissionError:
        print(f"claude {model}: refused")
