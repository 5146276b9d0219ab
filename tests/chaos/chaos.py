#!/usr/bin/env python3
"""Chaos test of the two-sided programs: keep attacking one side at random.

Programs: doca_secure_channel and doca_dma_copy, the Arm side (Comch server)
from the dpu flavor's stage/bin, the host side (client) from the host flavor's.
(We ship no Comch samples; the doca_dma_copy_host/_dpu sample pair talks
through files, not a connection, and is left to tests/dma_copy.)

A round: start the server, then the client after a short random delay; after
a random delay (measured from the client's start) send one random side one
random attack:
  kill   SIGKILL
  stop   SIGSTOP, a random pause, SIGCONT
  int    SIGINT
  term   SIGTERM
  int2   SIGINT twice, a random 0-100 ms apart (an impatient Ctrl-C Ctrl-C)
then wait for both with a deadline. Checks (a failed one is a finding):
  hang       both sides end within ROUND_TIMEOUT_S of the attack (after a
             "stop", of the SIGCONT). A side still running then is a finding;
             it is killed and the run goes on.
  rescue     by design a server waits for its first client and a client
             waits (warning) for a server to appear. So when one side has ended
             and the other, RESCUE_AFTER_S later, still waits for a peer it never
             had (a server that never logged "Client connected", a client whose
             last line says no server is listening), a fresh peer is started for
             it; both must then complete (status 0). A side that waits on without
             being in that state is a hang.
  survivor   the side not attacked exits 0 only after a complete run (its
             success line printed), else with a non-zero status (not a signal)
             and an error line about the peer / connection. No sanitizer report.
  victim     after SIGKILL it died of SIGKILL (or had ended before). After
             SIGINT/SIGTERM/stop+cont it ends on its own: 0 after a complete
             run or non-zero with an error line, never by the signal's default
             action once it has installed its handlers (SigCgt in
             /proc/<pid>/status, read just before the signal is sent).
  silent     a client whose server is stopped for >= SILENT_MIN_S while the
             client waits on it says so (a [WRN] line during the pause; the
             waiting warnings are set to WARN_MS by SOFTDOCA_COMCH_WAIT_WARN_MS
             and SOFTDOCA_STALL_WARN_MS). Only checked when the client was
             still running at SIGCONT and did not finish during the pause.
  fabric     the fabric directory is empty after the round. The one tolerated
             leftover (the fair rule, from the fabric's design): a server that
             died of SIGKILL cannot remove its listening socket; the client that
             saw it die removes it (src/comch/client.c), and otherwise the next
             server that binds the address reclaims it (src/fabric/link_socket.c
             reclaim_stale). So after a round whose server was SIGKILLed, socket
             files (and only sockets) may remain: counted as "stale", left in
             place, and the NEXT round's server must still start (an "already
             listens" error is a finding). Anything else left is a finding (and
             removed). After the last round a clean round (no attack) must
             succeed and leave the directory empty.
  files      dma_copy only: if the destination path exists after a round it is
             byte-identical to the source (a copy is renamed into place only once
             complete). Other files in the destination's directory after the
             round are a finding unless the writing side died of SIGKILL (it
             cannot remove its temporary file); they are removed either way.

The summary gives per program the rounds, the attacks by kind ("late": both
sides had ended before the attack; "clean": the final round), the rescues, the
findings by check, and the outcomes, each as
"<attack>/<victim> srv:<status> cli:<status> [+rescue-<side>:<status>]" with a
status an exit code, a signal name or HUNG. A finding is printed with the seed,
round, attack and side, and both sides' last lines.

Known defects being fixed elsewhere can be listed in EXPECTED_FAILURES below
(program, check): matching findings are printed as XFAIL and do not fail the
run. The list is printed in the summary; the lead empties it once the fixes
are in.

Environment:
  CHAOS_SEED      the seed (default: random); printed, and the same seed gives
                  the same rounds (attack, side, fraction of the run, sizes);
                  the moments themselves follow the machine's speed.
  CHAOS_ROUNDS    rounds per program (default DEFAULT_ROUNDS, about 1 minute
                  for both programs on 2 cores, 2 under ASan); the long
                  setting is CHAOS_ROUNDS=200.
  CHAOS_BUDGET_S  stop starting rounds after this many seconds (shared out
                  among the programs; default DEFAULT_BUDGET_S when
                  CHAOS_ROUNDS is not set, so that even a run in which every
                  round hangs ends inside meson's timeout; none otherwise).
  CHAOS_PROGRAMS  comma list (default: all of secure_channel,dma_copy).
  CHAOS_VERBOSE=1 a line per round.

usage: chaos.py <host stage/bin> <dpu stage/bin>
"""
import collections
import hashlib
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

ARM_PF = "03:00.0"
HOST_FN = "3b:00.0"
DEFAULT_ROUNDS = 60
DEFAULT_BUDGET_S = 420
ROUND_TIMEOUT_S = 20.0
WARN_MS = 300
SILENT_MIN_S = 1.5
RESCUE_AFTER_S = 1.0
MIB = 1024 * 1024

# (program, check) pairs of known defects being fixed by other helpers right
# now, e.g. ("dma_copy", "files"); the lead empties this list after integration.
EXPECTED_FAILURES = [
]

ERR_RE = re.compile(r"\[ERR\]")
PEER_RE = re.compile(r"\[ERR\].*(peer|connect|lost|host|DPU|server|client|interrupt|abandon|went away|gone)",
                     re.IGNORECASE)
SAN_RE = re.compile(r"ERROR: (Address|Leak|Thread)Sanitizer|runtime error:|Sanitizer:DEADLYSIGNAL")
WRN_RE = re.compile(r"\[WRN\]")

ATTACKS = ["kill", "stop", "int", "term", "int2"]
SIGS = {"kill": signal.SIGKILL, "int": signal.SIGINT, "term": signal.SIGTERM, "stop": signal.SIGSTOP,
        "int2": signal.SIGINT}

live = []


class Side:
    """One program run in its own process group, output to a log file."""

    def __init__(self, name, argv, env, cwd, logdir):
        self.name = name
        self.log_path = os.path.join(logdir, name + ".log")
        with open(self.log_path, "wb") as log:
            self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        self.t0 = time.monotonic()
        self.rc = None
        self.hung = False
        self.ended = None
        self.caught = False  # a handler was installed when we sent SIGINT/SIGTERM
        live.append(self)

    def text(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def alive(self):
        if self.p.poll() is None:
            return True
        if self.ended is None:
            self.ended = time.monotonic()
        return False

    def catches(self, sig):
        """Whether the program has a handler for sig now (SigCgt in /proc)."""
        try:
            with open("/proc/%d/status" % self.p.pid) as f:
                for line in f:
                    if line.startswith("SigCgt:"):
                        return bool(int(line.split()[1], 16) & (1 << (sig - 1)))
        except (OSError, ValueError):
            pass
        return False

    def signal(self, sig):
        if self.alive():
            if sig in (signal.SIGINT, signal.SIGTERM) and self.catches(sig):
                self.caught = True
            try:
                os.kill(self.p.pid, sig)
                return True
            except ProcessLookupError:
                pass
        return False

    def reap(self, deadline):
        left = deadline - time.monotonic()
        try:
            self.rc = self.p.wait(max(left, 0.01))
            self.alive()
        except subprocess.TimeoutExpired:
            self.hung = True
            self.destroy()
            self.rc = self.p.returncode
        return self.rc

    def destroy(self):
        """Kill the whole group (the program and anything it started)."""
        try:
            os.killpg(self.p.pid, signal.SIGCONT)
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.p.wait(5)
        except subprocess.TimeoutExpired:
            pass
        if self in live:
            live.remove(self)

    def done(self):
        # a reaped leader's group id may since be someone else's: leave it
        if self.p.poll() is None:
            self.destroy()
        elif self in live:
            live.remove(self)


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_file(path, size, rng):
    with open(path, "wb") as f:
        left = size
        n = 0
        while left > 0:
            k = min(left, 1 << 20)
            f.write(rng.randbytes(k) if n == 0 else (n.to_bytes(8, "little") * (k // 8 + 1))[:k])
            left -= k
            n += 1


# ---- the programs -------------------------------------------------------------------

class SecureChannel:
    name = "secure_channel"
    binary = "doca_secure_channel"

    def __init__(self, rng):
        self.rng = rng

    def setup(self, work):
        self.n = self.rng.choice([1000, 50000, 150000, 250000])
        self.size = self.rng.choice([64, 256, 1024])
        # the class of the run (for the learnt length) and a first guess of its length
        return self.n, 0.08 + self.n / 180000

    def server_argv(self, b):
        return [b, "-s", str(self.size), "-n", str(self.n), "-p", ARM_PF, "-r", HOST_FN]

    def client_argv(self, b):
        return [b, "-s", str(self.size), "-n", str(self.n), "-p", HOST_FN]

    def complete(self, side, text):
        return ("Producer sent %d messages" % self.n in text and
                "Consumer received %d messages" % self.n in text)

    def writer(self):
        return None

    def check_files(self, killed, both_ok, finding):
        pass


class DmaCopy:
    name = "dma_copy"
    binary = "doca_dma_copy"

    def __init__(self, rng):
        self.rng = rng

    def setup(self, work):
        self.work = work
        self.hdir = os.path.join(work, "host")
        self.ddir = os.path.join(work, "dpu")
        for d in (self.hdir, self.ddir):
            shutil.rmtree(d, ignore_errors=True)
            os.mkdir(d)
        self.h2d = self.rng.random() < 0.5
        size = self.rng.choice([0, 1, 4097, 300000, 3 * MIB + 5, 24 * MIB + 3])
        if self.h2d:
            self.src, self.dst = os.path.join(self.hdir, "src.bin"), os.path.join(self.ddir, "dst.bin")
            self.host_path, self.dpu_path = self.src, self.dst
        else:
            self.src, self.dst = os.path.join(self.ddir, "src.bin"), os.path.join(self.hdir, "dst.bin")
            self.host_path, self.dpu_path = self.dst, self.src
        write_file(self.src, size, self.rng)
        self.digest = sha(self.src)
        self.size = size
        # sometimes an old file under the destination name, which must stay intact or be replaced whole
        # (Arm side only: on the host an existing file means "copy it to the DPU")
        self.old = None
        if self.rng.random() < 0.2 and self.h2d:
            write_file(self.dst, 777, self.rng)
            self.old = sha(self.dst)
        return size, 0.08 + size / 2.5e7

    def server_argv(self, b):
        return [b, "-p", ARM_PF, "-r", HOST_FN, "-f", self.dpu_path]

    def client_argv(self, b):
        return [b, "-p", HOST_FN, "-f", self.host_path]

    def complete(self, side, text):
        return "DMA copy finished successfully" in text

    def writer(self):
        return "server" if self.h2d else "client"

    def check_files(self, killed, both_ok, finding):
        if both_ok and (not os.path.exists(self.dst) or sha(self.dst) != self.digest):
            finding("files", "both sides succeeded but %s is not a copy of the source" % self.dst)
        elif os.path.exists(self.dst):
            d = sha(self.dst)
            if d != self.digest and d != self.old:
                finding("files", "destination %s exists but differs from the source (%d bytes vs %d)" %
                        (self.dst, os.path.getsize(self.dst), self.size))
        ddir = os.path.dirname(self.dst)
        extra = sorted(set(os.listdir(ddir)) - {"src.bin", "dst.bin"})
        if extra:
            if self.writer() not in killed:
                finding("files", "stray files next to the destination: %s" % extra)
            for x in extra:
                p = os.path.join(ddir, x)
                shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.unlink(p)


PROGRAMS = {"secure_channel": SecureChannel, "dma_copy": DmaCopy}


# ---- a run ----------------------------------------------------------------------

class Runner:
    def __init__(self, host_bin, dpu_bin, seed, rounds, verbose):
        self.host_bin, self.dpu_bin = host_bin, dpu_bin
        self.seed, self.rounds, self.verbose = seed, rounds, verbose
        base = os.environ.get("TMPDIR", "/tmp")
        self.top = tempfile.mkdtemp(prefix="chaos.", dir=base)
        self.fab = os.path.join(self.top, "fabric")
        os.mkdir(self.fab, 0o700)
        os.chmod(self.fab, 0o700)
        self.work = os.path.join(self.top, "work")
        os.mkdir(self.work)
        self.logs = os.path.join(self.top, "logs")
        os.mkdir(self.logs)
        self.env = dict(os.environ)
        self.env.pop("LD_LIBRARY_PATH", None)
        self.env.pop("SOFTDOCA_TOPOLOGY", None)
        self.env["SOFTDOCA_FABRIC"] = self.fab
        self.env["SOFTDOCA_COMCH_WAIT_WARN_MS"] = str(WARN_MS)
        self.env["SOFTDOCA_STALL_WARN_MS"] = str(WARN_MS)
        self.failed = 0
        self.lengths = {}
        self.budget = 0
        self.xfailed = 0

    def cleanup(self):
        for s in list(live):
            s.destroy()
        shutil.rmtree(self.top, ignore_errors=True)

    def run_program(self, cls):
        rng = random.Random("%d/%s" % (self.seed, cls.name))
        prog = cls(rng)
        st = collections.Counter()
        outcomes = collections.Counter()
        stale_prev = False
        t_start = time.monotonic()
        r = 0
        while r < self.rounds:
            if self.budget and time.monotonic() - t_start > self.budget:
                print("chaos: %s: time budget of %.0fs reached, %d of %d rounds run" %
                      (cls.name, self.budget, r, self.rounds))
                break
            r += 1
            stale_prev = self.round(prog, rng, r, False, stale_prev, st, outcomes)
        self.round(prog, rng, r + 1, True, stale_prev, st, outcomes)  # the clean round
        st["seconds"] = int(time.monotonic() - t_start)
        return st, outcomes

    def round(self, prog, rng, r, final, stale_prev, st, outcomes):
        findings = []
        sb = os.path.join(self.dpu_bin, prog.binary)
        cb = os.path.join(self.host_bin, prog.binary)
        key, guess = prog.setup(self.work)
        # the attack lands at a random fraction of the run's length, learnt from
        # runs of the same class that ended before their attack
        length = self.lengths.setdefault((prog.name, key), guess)
        victim = rng.choice(["server", "client"])
        attack = rng.choice(ATTACKS)
        frac = rng.uniform(0.0, 1.1)
        delay = frac * length
        pause = rng.choice([rng.uniform(0.05, 0.5), rng.uniform(SILENT_MIN_S, 3.5)])
        gap = rng.uniform(0.0, 0.15)
        second = rng.uniform(0.0, 0.1)
        if final:
            attack, victim = "none", "-"
        what = "round %d: %s %s after %.3fs (%.2f of the run)%s" % (r, attack, victim, delay, frac,
                                                     " (pause %.2fs)" % pause if attack == "stop" else
                                                     " (again after %.3fs)" % second if attack == "int2" else "")

        def finding(check, msg):
            findings.append((check, msg))

        rdir = os.path.join(self.logs, "r")
        shutil.rmtree(rdir, ignore_errors=True)
        os.mkdir(rdir)
        server = Side("server", prog.server_argv(sb), self.env, self.work, rdir)
        time.sleep(gap)
        client = Side("client", prog.client_argv(cb), self.env, self.work, rdir)
        sides = {"server": server, "client": client}
        killed = set()
        sent = False
        silent_window = None
        if not final:
            v = sides[victim]
            end = client.t0 + delay
            while time.monotonic() < end and (server.alive() or client.alive()):
                time.sleep(min(0.005, max(0.0, end - time.monotonic())))
            if v.signal(SIGS[attack]):
                sent = True
                if attack == "kill":
                    killed.add(victim)
                elif attack == "int2":
                    time.sleep(second)
                    v.signal(signal.SIGINT)
                elif attack == "stop":
                    t_stop = time.monotonic()
                    other = sides["client" if victim == "server" else "server"]
                    len0 = len(other.text())
                    time.sleep(pause)
                    other_alive = other.alive()
                    now_text = other.text()
                    v.signal(signal.SIGCONT)
                    silent_window = (other_alive, now_text[len0:], time.monotonic() - t_stop,
                                     prog.complete(other.name, now_text))
        # A side whose peer ended before ever connecting waits for a new peer, by
        # design (a server for its first client, a client for a server, warning
        # as it waits): give it one, a "rescue" peer, which must then complete.
        deadline = time.monotonic() + ROUND_TIMEOUT_S
        rescue = None
        gone_at = None
        while time.monotonic() < deadline and (server.alive() or client.alive() or
                                               (rescue is not None and rescue.alive())):
            if rescue is None and server.alive() != client.alive():
                gone_at = gone_at or time.monotonic()
                waiting = server if server.alive() else client
                if time.monotonic() - gone_at > RESCUE_AFTER_S and waits_for_peer(waiting):
                    b = sb if waiting is client else cb
                    argv = prog.server_argv(b) if waiting is client else prog.client_argv(b)
                    rescue = Side("rescue-" + ("server" if waiting is client else "client"), argv, self.env,
                                  self.work, rdir)
                    deadline = time.monotonic() + ROUND_TIMEOUT_S
            time.sleep(0.01)
        for s in (server, client) + ((rescue,) if rescue else ()):
            s.reap(deadline)
        if rescue is not None:
            st["rescued"] += 1
            if rescue.hung or rescue.rc != 0:
                finding("rescue", "the %s started for the waiting %s ended with status %s" %
                        (rescue.name, "client" if rescue.name.endswith("server") else "server", rc_word(rescue)))
        for s in (server, client):
            if s.hung:
                finding("hang", "%s still running %.0fs after the attack (killed)" % (s.name, ROUND_TIMEOUT_S))
        for s in (server, client):
            if s.rc == -signal.SIGKILL:
                killed.add(s.name)  # by the attack, or by us after it hung
        texts = {n: s.text() for n, s in sides.items()}
        if rescue is not None:
            texts[rescue.name] = rescue.text()
        for n in texts:
            if SAN_RE.search(texts[n]):
                finding("sanitizer", "%s: sanitizer report" % n)
        if "already listens" in texts["server"]:
            finding("fabric", "the server could not listen%s" %
                    (": it did not reclaim the stale socket of the previous round's SIGKILLed server"
                     if stale_prev else ""))

        # what each side did
        for n in ("server", "client"):
            s = sides[n]
            if s.hung:
                continue
            victim_here = sent and n == victim
            if victim_here and attack == "kill":
                if s.rc != -signal.SIGKILL and s.rc != 0 and not (s.rc > 0 and ERR_RE.search(texts[n])):
                    finding("victim", "%s: status %s after SIGKILL" % (n, s.rc))
                continue
            if s.rc == 0:
                if not prog.complete(n, texts[n]):
                    finding("message", "%s exited 0 without its success line" % n)
            elif s.rc < 0:
                sig = -s.rc
                if victim_here and sig == SIGS[attack] and not s.caught:
                    pass  # the signal came before the program installed its handlers
                else:
                    finding("victim" if victim_here else "survivor",
                            "%s died of signal %s" % (n, signal.Signals(sig).name))
            elif not (PEER_RE.search(texts[n]) if not victim_here else ERR_RE.search(texts[n])):
                finding("message", "%s exited %d without an error line about the %s" %
                        (n, s.rc, "interruption" if victim_here else "peer/connection"))
            if final and s.rc != 0:
                finding("clean", "%s failed (status %s) in the clean round" % (n, s.rc))
        if silent_window is not None and victim == "server":
            other_alive, grew, dur, done = silent_window
            if other_alive and dur >= SILENT_MIN_S and not done:
                st["silent-checked"] += 1
                if not WRN_RE.search(grew) and not ERR_RE.search(grew):
                    finding("silent", "the client said nothing in %.1fs while its server was stopped" % dur)

        for s in (server, client) + ((rescue,) if rescue else ()):
            s.done()

        # the fabric directory
        stale = False
        left = sorted(os.listdir(self.fab))
        if left:
            kinds = [stat.S_ISSOCK(os.lstat(os.path.join(self.fab, x)).st_mode) for x in left]
            if "server" in killed and all(kinds) and not final:
                stale = True
            else:
                finding("fabric", "left in the fabric directory: %s" % left)
                for x in left:
                    p = os.path.join(self.fab, x)
                    shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.unlink(p)
        prog.check_files(killed, server.rc == 0 and client.rc == 0, finding)

        if not sent and not final and not findings and server.rc == 0 and client.rc == 0 and rescue is None:
            ran = max(server.ended, client.ended) - client.t0
            self.lengths[(prog.name, key)] = ran
        # the books
        st["rounds"] += 1
        if final:
            st["clean"] += 1
        elif sent:
            st[attack] += 1
        else:
            st["late"] += 1  # both had ended before the attack
        if stale:
            st["stale"] += 1
        outcome = "%s/%s %s:%s %s:%s%s" % (attack if sent or final else "late", victim,
                                           "srv", rc_word(server), "cli", rc_word(client),
                                           " +rescue-%s:%s" % (rescue.name[7:], rc_word(rescue)) if rescue else "")
        outcomes[outcome] += 1
        for check, msg in findings:
            xf = (prog.name, check) in EXPECTED_FAILURES
            st["xfail" if xf else "fail"] += 1
            st["check:" + check] += 1
            if xf:
                self.xfailed += 1
            else:
                self.failed += 1
            print("%s %s seed %d %s: %s: %s" % ("XFAIL" if xf else "FINDING", prog.name, self.seed, what, check, msg))
        if findings:
            for n in ("server", "client"):
                print("  ---- %s (status %s), last lines:" % (n, sides[n].rc))
                for line in texts[n].splitlines()[-8:]:
                    print("    " + line[:200])
        elif self.verbose:
            print("ok %s %s -> %s" % (prog.name, what, outcome))
        sys.stdout.flush()
        return stale


def waits_for_peer(s):
    """s waits for a peer it never had: a server with no client yet, a client warning that no server listens."""
    t = s.text()
    if s.name == "server":
        return "is waiting for a client connection" in t and "Client connected" not in t
    lines = t.strip().splitlines()
    return bool(lines) and "no server is listening" in lines[-1]


def rc_word(s):
    if s.hung:
        return "HUNG"
    if s.rc is None:
        return "?"
    if s.rc < 0:
        return signal.Signals(-s.rc).name
    return str(s.rc)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    host_bin, dpu_bin = (os.path.abspath(x) for x in sys.argv[1:3])
    names = os.environ.get("CHAOS_PROGRAMS", ",".join(PROGRAMS)).split(",")
    for n in names:
        if n not in PROGRAMS:
            print("FAIL: unknown program %r (known: %s)" % (n, ", ".join(PROGRAMS)))
            return 1
        for d in (host_bin, dpu_bin):
            b = os.path.join(d, PROGRAMS[n].binary)
            if not os.access(b, os.X_OK):
                print("FAIL: no program %s (install both flavors' stages first)" % b)
                return 1
    seed_s = os.environ.get("CHAOS_SEED", "")
    seed = int(seed_s) if seed_s else random.SystemRandom().randrange(1, 1 << 31)
    rounds = int(os.environ.get("CHAOS_ROUNDS", str(DEFAULT_ROUNDS)))
    print("chaos: seed %d (CHAOS_SEED=%d reproduces), %d rounds per program, programs %s" %
          (seed, seed, rounds, ",".join(names)))
    print("chaos: expected failures (known defects): %s" %
          (", ".join("%s/%s" % x for x in EXPECTED_FAILURES) or "none"))
    run = Runner(host_bin, dpu_bin, seed, rounds, os.environ.get("CHAOS_VERBOSE") == "1")
    budget = int(os.environ.get("CHAOS_BUDGET_S", "0" if "CHAOS_ROUNDS" in os.environ else str(DEFAULT_BUDGET_S)))
    run.budget = budget / len(names)  # shared out among the programs

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    summaries = []
    try:
        for n in names:
            st, outcomes = run.run_program(PROGRAMS[n])
            summaries.append((n, st, outcomes))
    except KeyboardInterrupt:
        print("chaos: interrupted")
        run.cleanup()
        return 1
    finally:
        run.cleanup()
    print("==== chaos summary (seed %d) ====" % seed)
    for n, st, outcomes in summaries:
        print("%s: %d rounds in %ds" % (n, st["rounds"], st["seconds"]))
        print("  attacks: " + ", ".join("%s %d" % (k, st[k]) for k in ATTACKS + ["late", "clean"]))
        print("  rescued %d, silent-wait checks %d, stale sockets %d (reclaimed)" %
              (st["rescued"], st["silent-checked"], st["stale"]))
        print("  hangs %d, leftovers %d, bad files %d; findings %d, expected failures %d" %
              (st["check:hang"], st["check:fabric"], st["check:files"], st["fail"], st["xfail"]))
        other = ["%s %d" % (k[6:], v) for k, v in sorted(st.items()) if k.startswith("check:")]
        if other:
            print("  findings by check: " + ", ".join(other))
        for o, c in sorted(outcomes.items()):
            print("  %5d  %s" % (c, o))
    if EXPECTED_FAILURES:
        print("expected failures still listed (empty the list once fixed): %s" %
              ", ".join("%s/%s" % x for x in EXPECTED_FAILURES))
    if run.failed:
        print("FAIL: %d findings (seed %d)" % (run.failed, seed))
        return 1
    print("PASS (seed %d%s)" % (seed, ", %d expected failures" % run.xfailed if run.xfailed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
