/*
 * The floor of the exec gate's mechanism on this machine, without any of our code: a
 * supervisor that answers every execve notification of a command after a chosen amount of
 * work, so the wall clock a command's execs lose can be set against the supervisor's time.
 *
 *   gcc -O2 -o /tmp/notify_floor crates/second-line/benches/notify_floor.c
 *   SYNC=1 NICE=-20 /tmp/notify_floor MODE ARG bash -c \
 *     'exec >/dev/null 2>&1; for i in $(seq 1000); do /bin/true; done'
 *
 * Time that loop (root: the filter needs no_new_privs in the command only; SYNC=1 sets
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP as the supervisor does; NICE sets the supervisor's nice).
 * MODE: none (no filter), zero (answer at once), spin US (busy for US µs), proc (read the
 * caller's cwd from /proc, as the supervisor does). Prefix with `taskset -c 0` to keep
 * everything on one CPU. Used for BENCHMARKS.md, second-line, session 8.
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: notify_floor none|zero|spin|proc ARG command...\n");
        return 2;
    }
    const char *mode = argv[1];
    long arg = atol(argv[2]);
    if (!strcmp(mode, "none")) {
        execvp(argv[3], argv + 3);
        return 127;
    }
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {4, f};
    int to_parent[2], go[2];
    if (pipe(to_parent) || pipe(go)) return 1;
    pid_t child = fork();
    if (child == 0) {
        /* The command installs the filter; the supervisor takes its listener. */
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        int l = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
        char x;
        if (write(to_parent[1], &l, sizeof l) != sizeof l || read(go[0], &x, 1) != 1) _exit(1);
        close(l);
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int theirs;
    if (read(to_parent[0], &theirs, sizeof theirs) != sizeof theirs || theirs < 0) return 1;
    int pidfd = syscall(SYS_pidfd_open, child, 0);
    int l = syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
    if (l < 0) {
        perror("pidfd_getfd");
        return 1;
    }
    if (getenv("SYNC") && *getenv("SYNC") && ioctl(l, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1))
        perror("sync wake-up");
    if (getenv("NICE")) setpriority(PRIO_PROCESS, 0, atoi(getenv("NICE")));
    if (write(go[1], "x", 1) != 1) return 1;
    long n = 0;
    double busy = 0;
    for (;;) {
        struct pollfd pf = {l, POLLIN, 0};
        if (poll(&pf, 1, -1) < 0) continue;
        if (pf.revents & (POLLHUP | POLLERR)) break;
        struct seccomp_notif req;
        memset(&req, 0, sizeof req);
        if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, &req)) continue;
        double t0 = now_us();
        if (!strcmp(mode, "spin")) {
            while (now_us() - t0 < arg) {
            }
        } else if (!strcmp(mode, "proc")) {
            char path[64], out[4096];
            snprintf(path, sizeof path, "/proc/%d/cwd", req.pid);
            if (readlink(path, out, sizeof out) < 0) perror("readlink");
        }
        busy += now_us() - t0;
        n++;
        struct seccomp_notif_resp r = {req.id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE};
        ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, &r);
    }
    int status;
    waitpid(child, &status, 0);
    fprintf(stderr, "%s %ld: %ld notifications, %.1f µs of work each\n", mode, arg, n, n ? busy / n : 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
