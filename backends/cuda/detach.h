// detach.h: the visible process of a CUDA program, which waits for the
// program's exit status but not for the CUDA driver's teardown. Pasted
// after gpuc_runtime.h into the hybrid, driver API and runtime API
// programs, never into a host build; a world program pastes it only for
// the one-device program it may carry (Note [A world of one runs the
// one-device program] in one.go), whose parent supervises no world.
//
// Note [Detached exit]
//
// A process that used the CUDA driver does not end when it calls exit or
// _exit: the kernel finishes the driver's uninterruptible work first, a
// context being created (a hybrid program that ended on the CPU while
// its context thread was still starting) and the teardown of the
// context on closing /dev/nvidia*. Measured on one H100
// (docs/BENCHMARKS.md, "The exit of a hybrid program"): _exit at 300 ms,
// inside the context's creation, ended the process 100-160 ms later; a
// hybrid factorial9 that never used the GPU took 180-210 ms against
// 40-60 ms with HYBRID=cpu. Joining the context thread costs the whole
// context (530-620 ms); starting the context only when the GPU is needed
// would lose the overlap that parallel runs gain from (it starts once
// parallel work shows or after 50 ms, Note [Context on demand] in
// hybrid_cuda.h, so a longer run still pays); and the context
// cannot be handed over, since it belongs to the process that launches.
// What remains is that the process the user waits for is not the one
// that holds the driver.
//
// So gpuc_detach, the first thing main does, forks. The parent is the
// process that the shell, a pipe or a test harness sees: it reads one
// byte, the exit status, from a pipe, and exits with it at once. The
// child runs the program. gpuc_exit_notify (gpuc_runtime.h), which
// gpuc_fail, --help, the release of the device once the last report is
// printed, the end of main and gpuc_hy_exit call, and an on_exit handler
// for any other exit, flushes every stream, points stdout and stderr at
// /dev/null, so that pipes and the caller's readers see their end, and
// writes the byte. The child then frees its memory (3 ms of munmap for
// factorial9's fitted store on the 2-core machine) and exits as it would
// have, unseen, the driver's teardown included; an error after the byte
// (a failed cuMemFree) is not reported.
//
//   - A child that dies without writing the byte (a signal, SIGPIPE of
//     `prog | head -c1` included) closes the pipe: the parent reaps it and
//     exits the same way, re-raising the signal (no core dump of its
//     own), or with its status.
//   - SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the parent alone are
//     passed on to the child; a terminal's reach both, which is the same.
//     The child dies with the parent (PR_SET_PDEATHSIG, SIGKILL), so
//     that a parent killed with SIGKILL leaves nothing running; a child
//     that has reported dies so too, its teardown left to the kernel's
//     closing of the driver's files, as after ^C.
//   - The child reads stdin; the parent never reads it.
//   - GPUC_DETACH=0 runs the program in the process itself, for tools
//     that follow one process (compute-sanitizer, ncu, nsys, gdb);
//     GPUC_DETACH=1 detaches a program that does not by default. The
//     hybrid program detaches by default, but with HYBRID=cpu, which
//     never loads the driver; driver and runtime API programs detach by
//     default too: the teardown of the context they used cost their
//     exit 35 to 90 ms on an H100 (scripts/bench-exit.sh, 2026-11-26).
//   - A failed pipe or fork runs the program in the process itself.
// The fork comes first: before any thread (a fork copies only its
// caller), before the driver (a child cannot use its parent's context)
// and before the big allocations (their page tables would be copied). It
// costs about 0.1 ms (mergesort50, docs/BENCHMARKS.md).

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

// gpuc_detach_fd is the child's end of the status pipe, -1 where the
// program runs in the visible process or has reported.
inline int gpuc_detach_fd = -1;
// gpuc_detach_child is the parent's child, for passing signals on, and
// gpuc_detach_got the last signal passed on.
inline volatile pid_t gpuc_detach_child = 0;
inline volatile sig_atomic_t gpuc_detach_got = 0;

// gpuc_detach_report is the child's exit hook: the output flushed and
// closed, then the status byte.
inline void gpuc_detach_report(int status) {
  if (gpuc_detach_fd < 0) return;
  gpuc_close_output();
  signal(SIGPIPE, SIG_IGN);  // a parent killed already: nobody to tell
  const unsigned char b = (unsigned char)status;
  while (write(gpuc_detach_fd, &b, 1) < 0 && errno == EINTR) {
  }
  close(gpuc_detach_fd);
  gpuc_detach_fd = -1;
}

// gpuc_detach_on_exit reports an exit that passed by gpuc_exit_notify.
inline void gpuc_detach_on_exit(int status, void *) { gpuc_exit_notify(status); }

// gpuc_detach_forward passes a signal that reached the parent on to the
// child.
inline void gpuc_detach_forward(int sig) {
  gpuc_detach_got = sig;
  if (gpuc_detach_child > 0) kill(gpuc_detach_child, sig);
}

// gpuc_detach_die ends the parent by sig, as the child ended, with no
// core dump of its own.
[[noreturn]] inline void gpuc_detach_die(int sig) {
  const struct rlimit none = {0, 0};
  setrlimit(RLIMIT_CORE, &none);
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// gpuc_detach_wait is the parent: it exits as the child reports, or as
// it ended. A signal that reached the parent before the child's report
// was read ends the parent by that signal, as it would have ended the
// program undetached: the child may report first where the parent is
// slow to run its handler (a loaded machine, and the child's output
// drained meanwhile), and the parent then passed on the signal too late.
[[noreturn]] inline void gpuc_detach_wait(int fd, pid_t child) {
  gpuc_detach_child = child;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = gpuc_detach_forward;
  sigemptyset(&sa.sa_mask);
  static const int passed[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (int sig : passed) sigaction(sig, &sa, nullptr);
  unsigned char b = 0;
  ssize_t n;
  while ((n = read(fd, &b, 1)) < 0 && errno == EINTR) {
  }
  if (n == 1) {
    if (gpuc_detach_got != 0) gpuc_detach_die(gpuc_detach_got);
    _exit(b);
  }
  int ws = 0;
  while (waitpid(child, &ws, 0) < 0) {
    if (errno != EINTR) _exit(1);
  }
  if (WIFEXITED(ws)) {
    if (gpuc_detach_got != 0) gpuc_detach_die(gpuc_detach_got);
    _exit(WEXITSTATUS(ws));
  }
  gpuc_detach_die(WIFSIGNALED(ws) ? WTERMSIG(ws) : SIGKILL);
}

// gpuc_detach forks the program off its visible process, where
// GPUC_DETACH, or else on, the device's default, asks for it; it returns in the child,
// or in the process itself where it does not detach.
inline void gpuc_detach(bool on) {
  const char *s = getenv("GPUC_DETACH");
  if (s != nullptr && strcmp(s, "0") != 0 && strcmp(s, "1") != 0) gpuc_fail("GPUC_DETACH=%s: want 0 or 1", s);
  if (s != nullptr) on = s[0] == '1';
  int fds[2];
  if (!on || pipe2(fds, O_CLOEXEC) != 0) return;
  // The parent reaps the child even where its caller ignored SIGCHLD;
  // the child keeps the caller's setting.
  struct sigaction dfl, chld;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &chld);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child > 0) {
    close(fds[1]);
    gpuc_detach_wait(fds[0], child);
  }
  sigaction(SIGCHLD, &chld, nullptr);
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return;
  }
  close(fds[0]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the parent died before prctl
  gpuc_detach_fd = fds[1];
  gpuc_exit_hook = gpuc_detach_report;
  on_exit(gpuc_detach_on_exit, nullptr);
}
