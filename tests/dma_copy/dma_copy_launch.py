#!/usr/bin/env python3
"""Two-process tests of doca_dma_copy and of the doca_dma_copy_host /
doca_dma_copy_dpu sample pair.

The Arm side is the dpu flavor's binary (from the peer build), the host side
this (host) build's. Every scenario runs in a private fabric directory and a
private work directory; every process started is killed and both directories
are removed whatever happens.

usage: dma_copy_launch.py <scenario> <host doca_dma_copy> <dpu doca_dma_copy>
                          <doca_dma_copy_host> <doca_dma_copy_dpu>
"""
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

ARM_PF = "03:00.0"
HOST_FN = "3b:00.0"
WAIT_S = 40
MAX_FILE = 1024 * 1024 * 1024
MIB = 1024 * 1024

procs = []
LOGDIR = [None]


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Proc:
    def __init__(self, name, argv, env, cwd, stdin=subprocess.DEVNULL):
        self.name = name
        self.log_path = os.path.join(LOGDIR[0], "%s.%d.log" % (name, len(procs)))
        self.log = open(self.log_path, "w")
        self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=stdin, stdout=self.log,
                                  stderr=subprocess.STDOUT)
        self.rc = None
        procs.append(self)

    def text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait_line(self, needle, timeout=WAIT_S):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if needle in self.text():
                return
            if self.p.poll() is not None:
                if needle in self.text():
                    return
                raise Fail("%s exited (rc %s) before printing %r" % (self.name, self.p.returncode, needle))
            time.sleep(0.002)
        raise Fail("%s did not print %r within %ss" % (self.name, needle, timeout))

    def wait(self, timeout=WAIT_S):
        try:
            self.rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Fail("%s did not exit within %ss" % (self.name, timeout))
        self.log.close()
        return self.rc

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            self.p.send_signal(sig)


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def make_file(path, size):
    with open(path, "wb") as f:
        left = size
        seed = hashlib.sha256(str(size).encode()).digest()
        block = (seed * ((1 << 20) // len(seed) + 1))[: 1 << 20]
        n = 0
        while left > 0:
            chunk = block[: min(left, len(block))]
            # vary every block so a misplaced chunk shows up in the checksum
            chunk = n.to_bytes(8, "little") + chunk[8:] if len(chunk) >= 8 else chunk
            f.write(chunk)
            left -= len(chunk)
            n += 1
    return sha(path)


def sparse_file(path, size):
    with open(path, "wb") as f:
        f.truncate(size)


class Env:
    def __init__(self, host_app, dpu_app, host_sample, dpu_sample):
        self.host_app, self.dpu_app = host_app, dpu_app
        self.host_sample, self.dpu_sample = host_sample, dpu_sample
        base = os.environ.get("TMPDIR", "/tmp")
        self.fab = tempfile.mkdtemp(prefix="dc-fabric.", dir=base)
        self.work = tempfile.mkdtemp(prefix="dc-work.", dir=base)
        self.logs = tempfile.mkdtemp(prefix="dc-logs.", dir=base)
        LOGDIR[0] = self.logs
        os.chmod(self.fab, 0o700)
        self.hdir = os.path.join(self.work, "host")
        self.ddir = os.path.join(self.work, "dpu")
        os.mkdir(self.hdir)
        os.mkdir(self.ddir)
        self.env = dict(os.environ)
        # each binary must load its own flavor's libraries (through its rpath)
        self.env.pop("LD_LIBRARY_PATH", None)
        self.env["SOFTDOCA_FABRIC"] = self.fab
        self.env["SOFTDOCA_COMCH_WAIT_WARN_MS"] = "500"
        self.env.pop("SOFTDOCA_TOPOLOGY", None)

    def chunk_topology(self, max_buf_size):
        path = os.path.join(self.work, "topology.json")
        topo = {
            "caps": {"dma_max_buf_size": max_buf_size},
            "cards": [{
                "dpu": {"pfs": [{"pci": "0000:03:00.0", "reps": ["0000:3b:00.0"]}]},
                "host": {"functions": [{"pci": "0000:3b:00.0"}]},
            }],
        }
        with open(path, "w") as f:
            json.dump(topo, f)
        self.env["SOFTDOCA_TOPOLOGY"] = path

    def cleanup(self):
        shutil.rmtree(self.fab, ignore_errors=True)
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.rmtree(self.logs, ignore_errors=True)

    # ---- the application ----
    def start_dpu(self, path, extra=None):
        argv = [self.dpu_app, "-p", ARM_PF, "-r", HOST_FN, "-f", path] + (extra or [])
        d = Proc("dpu", argv, self.env, self.work)
        d.wait_line("is waiting for a client connection")
        return d

    def start_host(self, path, extra=None):
        argv = [self.host_app, "-p", HOST_FN, "-f", path] + (extra or [])
        return Proc("host", argv, self.env, self.work)

    def pair(self, host_path, dpu_path):
        d = self.start_dpu(dpu_path)
        h = self.start_host(host_path)
        return h.wait(), h, d.wait(), d

    def only_files(self, d, names):
        got = sorted(os.listdir(d))
        check(got == sorted(names), "directory %s holds %s, expected exactly %s" % (d, got, sorted(names)))


def dump(e):
    for p in procs:
        try:
            print("---- %s (rc %s) ----" % (p.name, p.p.returncode))
            print(p.text()[-6000:])
        except OSError:
            pass


# ---- application scenarios ----------------------------------------------------

def app_h2d(e, size, chunk=None, overwrite=False):
    if chunk:
        e.chunk_topology(chunk)
    src = os.path.join(e.hdir, "src.bin")
    dst = os.path.join(e.ddir, "dst.bin")
    digest = make_file(src, size)
    if overwrite:
        make_file(dst, size + 12345)
    rh, h, rd, d = e.pair(src, dst)
    check(rh == 0 and rd == 0, "host rc %s, dpu rc %s, expected 0 and 0" % (rh, rd))
    check(sha(dst) == digest and os.path.getsize(dst) == size, "Arm-side copy differs from the host file")
    check("File exists: copying it from the host to the DPU" in h.text(), "host did not announce host -> DPU")
    check("Received %d bytes from the host into %s" % (size, dst) in d.text(), "dpu did not report the bytes")
    check("DMA copy finished successfully" in h.text(), "host did not report success")
    if chunk and size:
        n = (size + chunk - 1) // chunk
        check("in %d chunks of at most %d bytes" % (n, min(chunk, size)) in d.text(),
              "dpu did not copy in %d chunks of %d bytes" % (n, chunk))
    e.only_files(e.ddir, ["dst.bin"])
    e.only_files(e.hdir, ["src.bin"])


def app_d2h(e, size, chunk=None):
    if chunk:
        e.chunk_topology(chunk)
    src = os.path.join(e.ddir, "src.bin")
    dst = os.path.join(e.hdir, "dst.bin")
    digest = make_file(src, size)
    rh, h, rd, d = e.pair(dst, src)
    check(rh == 0 and rd == 0, "host rc %s, dpu rc %s, expected 0 and 0" % (rh, rd))
    check(os.path.exists(dst) and sha(dst) == digest and os.path.getsize(dst) == size,
          "host copy differs from the Arm-side file")
    check("File not found: copying it from the DPU to the host" in h.text(), "host did not announce DPU -> host")
    check("Received %d bytes from the DPU into %s" % (size, dst) in h.text(), "host did not report the bytes")
    if chunk and size:
        n = (size + chunk - 1) // chunk
        check("in %d chunks of at most %d bytes" % (n, min(chunk, size)) in d.text(),
              "dpu did not copy in %d chunks" % n)
    e.only_files(e.ddir, ["src.bin"])
    e.only_files(e.hdir, ["dst.bin"])


def app_dpu_file_missing(e):
    rh, h, rd, d = e.pair(os.path.join(e.hdir, "dst.bin"), os.path.join(e.ddir, "nothing.bin"))
    check(rh != 0 and rd != 0, "host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("No such file or directory" in d.text(), "dpu did not name the missing file")
    check("The DPU refused the copy" in h.text(), "host did not report the refusal")
    e.only_files(e.hdir, [])
    e.only_files(e.ddir, [])


def app_host_too_big(e):
    src = os.path.join(e.hdir, "big.bin")
    sparse_file(src, MAX_FILE + 1)
    rh, h, rd, d = e.pair(src, os.path.join(e.ddir, "dst.bin"))
    check(rh != 0 and rd != 0, "host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("larger than the maximum of %d bytes" % MAX_FILE in h.text(), "host did not report the size limit")
    check("The host side failed" in d.text(), "dpu did not report the host's failure")
    e.only_files(e.ddir, [])


def app_dpu_too_big(e):
    sparse_file(os.path.join(e.ddir, "big.bin"), MAX_FILE + 1)
    dst = os.path.join(e.hdir, "dst.bin")
    rh, h, rd, d = e.pair(dst, os.path.join(e.ddir, "big.bin"))
    check(rh != 0 and rd != 0, "host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("larger than the maximum of %d bytes" % MAX_FILE in d.text(), "dpu did not report the size limit")
    check("The DPU refused the copy" in h.text(), "host did not report the refusal")
    e.only_files(e.hdir, [])


def app_dpu_dir_missing(e):
    src = os.path.join(e.hdir, "src.bin")
    make_file(src, 1000)
    rh, h, rd, d = e.pair(src, os.path.join(e.ddir, "no", "such", "dir", "dst.bin"))
    check(rh != 0 and rd != 0, "host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("Failed to create a file in" in d.text(), "dpu did not report the missing directory")
    check("The DPU refused the copy" in h.text(), "host did not report the refusal")
    e.only_files(e.ddir, [])


def app_host_dir_missing(e):
    make_file(os.path.join(e.ddir, "src.bin"), 1000)
    rh, h, rd, d = e.pair(os.path.join(e.hdir, "no", "dir", "dst.bin"), os.path.join(e.ddir, "src.bin"))
    check(rh != 0 and rd != 0, "host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("Failed to create a file in" in h.text(), "host did not report the missing directory")
    check("The host side failed" in d.text(), "dpu did not report the host's failure")
    e.only_files(e.hdir, [])


def kill_mid_copy(e, victim, direction):
    """Stop the Arm side as soon as it starts the DMA loop (65536 chunks of
    512 bytes, seconds of work), kill the victim, let the Arm side go on if it survives."""
    e.chunk_topology(4096)
    size = 48 * MIB
    if direction == "h2d":
        src, dst = os.path.join(e.hdir, "src.bin"), os.path.join(e.ddir, "dst.bin")
        host_path, dpu_path = src, dst
    else:
        src, dst = os.path.join(e.ddir, "src.bin"), os.path.join(e.hdir, "dst.bin")
        host_path, dpu_path = dst, src
    digest = make_file(src, size)
    d = e.start_dpu(dpu_path)
    h = e.start_host(host_path)
    d.wait_line("Copying %d bytes" % size)
    d.kill(signal.SIGSTOP)
    if victim == "host":
        h.kill()
        h.wait()
        d.kill(signal.SIGCONT)
        rd = d.wait()
        check(rd != 0, "dpu rc %s after the host died mid-copy, expected a failure" % rd)
        check("DMA copy failed at byte" in d.text(), "dpu did not report where the copy failed")
    else:
        d.kill(signal.SIGKILL)
        d.wait()
        rh = h.wait()
        check(rh != 0, "host rc %s after the DPU died mid-copy, expected a failure" % rh)
        check("Connection to the DPU was lost" in h.text(), "host did not report the lost connection")
    if os.path.exists(dst):
        check(sha(dst) == digest, "a partial destination file was left under the final name")
        raise Fail("the destination exists although the copy was interrupted")
    e.only_files(os.path.dirname(dst), [])


def fabric_empty(e):
    left = sorted(os.listdir(e.fab))
    check(left == [], "the fabric directory still holds %s after both sides exited" % left)


def special_files_refused(e):
    """A FIFO, a directory or a device named by -f is refused at once with a
    message naming the path and what it is; nothing blocks on it, nothing
    replaces it."""
    fifo = os.path.join(e.work, "fifo")
    os.mkfifo(fifo)
    # host source: a FIFO (stat finds it, so the host would send it)
    rh, h, rd, d = e.pair(fifo, os.path.join(e.ddir, "dst.bin"))
    check(rh != 0 and rd != 0, "host FIFO: host rc %s, dpu rc %s, expected both to fail" % (rh, rd))
    check("The file %s is not a regular file (it is a FIFO)" % fifo in h.text(), "host did not name the FIFO")
    check("The host side failed" in d.text(), "dpu did not report the host's failure")
    e.only_files(e.ddir, [])
    # Arm-side source (DPU -> host): a FIFO, a device
    for src, kind in ((fifo, "a FIFO"), ("/dev/zero", "a character device")):
        rh, h, rd, d = e.pair(os.path.join(e.hdir, "dst.bin"), src)
        check(rh != 0 and rd != 0, "dpu source %s: host rc %s, dpu rc %s, expected both to fail" % (src, rh, rd))
        check("The file %s is not a regular file (it is %s)" % (src, kind) in d.text(), "dpu did not name %s" % src)
        check("The DPU refused the copy" in h.text(), "host did not report the refusal")
        e.only_files(e.hdir, [])
    # Arm-side destination (host -> DPU): refused before anything is transferred
    src = os.path.join(e.hdir, "src.bin")
    make_file(src, 5000)
    sub = os.path.join(e.ddir, "sub")
    os.mkdir(sub)
    for dst, kind in ((fifo, "a FIFO"), (sub, "a directory"), ("/dev/null", "a character device")):
        rh, h, rd, d = e.pair(src, dst)
        check(rh != 0 and rd != 0, "dpu destination %s: host rc %s, dpu rc %s, expected both to fail" % (dst, rh, rd))
        check("Destination %s exists and is not a regular file (it is %s)" % (dst, kind) in d.text(),
              "dpu did not refuse the destination %s" % dst)
        check("The DPU refused the copy" in h.text(), "host did not report the refusal")
        check("Copying" not in d.text(), "dpu started a copy into %s" % dst)
    check(os.path.exists(fifo) and not os.path.isfile(fifo), "the FIFO was replaced")
    e.only_files(e.ddir, ["sub"])
    e.only_files(sub, [])
    fabric_empty(e)


def interrupt_mid_copy(e, victim, direction, sig):
    """SIGINT/SIGTERM one side in the middle of the DMA loop (49152 chunks of
    1 KiB, most of a second of work even unsanitized): both sides stop within
    2 s, fail, say why, and leave no destination file, no temporary file and
    nothing in the fabric."""
    e.chunk_topology(1024)
    size = 48 * MIB
    if direction == "h2d":
        src, dst = os.path.join(e.hdir, "src.bin"), os.path.join(e.ddir, "dst.bin")
        host_path, dpu_path = src, dst
    else:
        src, dst = os.path.join(e.ddir, "src.bin"), os.path.join(e.hdir, "dst.bin")
        host_path, dpu_path = dst, src
    digest = make_file(src, size)
    d = e.start_dpu(dpu_path)
    h = e.start_host(host_path)
    d.wait_line("Copying %d bytes" % size)
    time.sleep(0.02)
    check(d.p.poll() is None and h.p.poll() is None, "the copy ended before the signal could be sent")
    v, peer = (h, d) if victim == "host" else (d, h)
    t0 = time.monotonic()
    v.kill(sig)
    rv = v.wait(10)
    tv = time.monotonic() - t0
    rp = peer.wait(10)
    tp = time.monotonic() - t0
    check(rv != 0 and rp != 0, "%s (signalled) rc %s, peer rc %s, expected both to fail" % (victim, rv, rp))
    check(tv < 2.0 and tp < 2.0, "%s took %.2fs and its peer %.2fs to stop, expected under 2s" % (victim, tv, tp))
    check("Interrupted during the DMA copy" in v.text() or "Interrupted while waiting for the" in v.text(),
          "%s did not say where it was interrupted" % victim)
    check("DMA copy interrupted" in v.text(), "%s did not say it was interrupted" % victim)
    check("connection to the peer is gone" not in v.text(), "%s blamed its peer for its own interruption" % victim)
    who = "host" if victim == "host" else "DPU"
    check("The %s side was interrupted" % who in peer.text(), "the peer did not say the %s was interrupted" % who)
    check("DMA copy failed: the %s side was interrupted" % who in peer.text(), "the peer's final line lacks the reason")
    check(not os.path.exists(dst), "the destination %s exists after an interrupted copy" % dst)
    e.only_files(os.path.dirname(dst), [])
    check(sha(src) == digest, "the source file changed")
    fabric_empty(e)


def app_host_first(e):
    """The host started before the Arm side waits for the server, then copies."""
    src = os.path.join(e.hdir, "src.bin")
    dst = os.path.join(e.ddir, "dst.bin")
    digest = make_file(src, 200000)
    h = e.start_host(src)
    h.wait_line("The server must run on the BlueField Arm side and be started before the host client")
    d = e.start_dpu(dst)
    rh, rd = h.wait(), d.wait()
    check(rh == 0 and rd == 0, "host rc %s, dpu rc %s, expected 0 and 0" % (rh, rd))
    check(sha(dst) == digest, "Arm-side copy differs from the host file")


def app_args(e):
    def run(binary, args, needle):
        p = Proc("args", [binary] + args, e.env, e.work)
        rc = p.wait()
        check(rc != 0, "%s %s: rc 0, expected a failure" % (os.path.basename(binary), " ".join(args)))
        check(needle in p.text(), "%s %s: no %r in its output" % (os.path.basename(binary), " ".join(args), needle))
        procs.remove(p)

    run(e.host_app, ["-p", HOST_FN], "Missing mandatory flag -f/--file")
    run(e.host_app, ["-f", "x"], "Missing mandatory flag -p/--pci-addr")
    run(e.host_app, ["-p", HOST_FN, "-f", ""], "Entered file path is empty")
    run(e.host_app, ["-p", HOST_FN, "-f", "x", "-r", HOST_FN], "Unknown flag -r")
    run(e.host_app, ["-p", "0000:3b:00.0:00000", "-f", "x"], "is not valid")
    run(e.dpu_app, ["-p", ARM_PF, "-f", "x"], "Missing mandatory flag -r/--rep-pci")
    run(e.dpu_app, ["-p", ARM_PF, "-r", "77:00.0", "-f", "x"], "Failed to open Comm Channel DOCA device representor")
    run(e.dpu_app, ["-p", "77:00.0", "-r", HOST_FN, "-f", "x"], "Failed to initialize a comch")
    e.only_files(e.work, ["host", "dpu"])


# ---- sample scenarios ----------------------------------------------------------

def sample_pair(e, text, dpu_extra=None):
    desc = os.path.join(e.work, "export_desc.txt")
    info = os.path.join(e.work, "buffer_info.txt")
    h = Proc("host", [e.host_sample, "-p", HOST_FN, "-t", text, "-d", desc, "-b", info], e.env, e.work,
             stdin=subprocess.PIPE)
    h.wait_line("Wait till the DPU has finished and press enter")
    d = Proc("dpu", [e.dpu_sample, "-p", ARM_PF, "-d", desc, "-b", info] + (dpu_extra or []), e.env, e.work)
    rd = d.wait()
    h.p.stdin.write(b"\n")
    h.p.stdin.close()
    rh = h.wait()
    return rh, h, rd, d, desc, info


def sample_text(e, text, dpu_extra=None):
    rh, h, rd, d, desc, info = sample_pair(e, text, dpu_extra)
    check(rh == 0 and rd == 0, "host rc %s, dpu rc %s, expected 0 and 0" % (rh, rd))
    check("Memory content: %s\n" % text in d.text(), "dpu did not log the host's text")
    check("Remote DMA copy was done successfully" in d.text(), "dpu did not report the copy")
    check("Sample finished successfully" in h.text(), "host did not finish")
    check(not os.path.exists(desc) and not os.path.exists(info), "host left its files behind")


def sample_missing_files(e):
    d = Proc("dpu", [e.dpu_sample, "-d", os.path.join(e.work, "none.txt"), "-b", os.path.join(e.work, "none2")],
             e.env, e.work)
    check(d.wait() != 0, "dpu sample succeeded without its files")
    check("Failed to read the export descriptor file" in d.text(), "no clear error for the missing descriptor file")


def sample_special_files(e):
    # A FIFO (or a directory) where a file path belongs: refused at once,
    # not a read or a write that blocks forever waiting for a peer.
    fifo = os.path.join(e.work, "fifo")
    os.mkfifo(fifo)
    d = Proc("dpu", [e.dpu_sample, "-p", ARM_PF, "-d", fifo, "-b", fifo], e.env, e.work)
    check(d.wait() != 0, "dpu sample accepted a FIFO as its descriptor file")
    check("is a FIFO: a regular file is needed" in d.text(), "no clear error for the FIFO descriptor file")
    procs.remove(d)
    for target in [fifo, e.work]:
        h = Proc("host", [e.host_sample, "-p", HOST_FN, "-t", "x", "-d", target, "-b",
                          os.path.join(e.work, "info.txt")], e.env, e.work, stdin=subprocess.DEVNULL)
        check(h.wait() != 0, "host sample wrote its descriptor into %s" % target)
        check("a regular file is needed" in h.text() or "Failed to open" in h.text(),
              "no clear error for the descriptor path %s" % target)
        procs.remove(h)
    check(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced")


def sample_bad_info(e):
    desc = os.path.join(e.work, "d.bin")
    with open(desc, "wb") as f:
        f.write(b"\x01" * 96)
    for content in ["", "12\n", "abc\n12\n", "12\n0\n", "12\n34\n56\n", "-5\n12\n"]:
        info = os.path.join(e.work, "b.txt")
        with open(info, "w") as f:
            f.write(content)
        d = Proc("dpu", [e.dpu_sample, "-d", desc, "-b", info], e.env, e.work)
        check(d.wait() != 0, "dpu sample accepted the buffer information %r" % content)
        check("Failed to read the buffer information file" in d.text(), "no clear error for %r" % content)
        procs.remove(d)


def sample_corrupt_desc(e):
    rh = None
    desc = os.path.join(e.work, "export_desc.txt")
    info = os.path.join(e.work, "buffer_info.txt")
    h = Proc("host", [e.host_sample, "-p", HOST_FN, "-d", desc, "-b", info], e.env, e.work, stdin=subprocess.PIPE)
    h.wait_line("Wait till the DPU has finished and press enter")
    with open(desc, "r+b") as f:
        data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        f.seek(0)
        f.write(data)
    d = Proc("dpu", [e.dpu_sample, "-d", desc, "-b", info], e.env, e.work)
    rd = d.wait()
    h.p.stdin.close()
    rh = h.wait()
    check(rd != 0, "dpu sample accepted a corrupted descriptor")
    check("Failed to create mmap from export" in d.text(), "no clear error for the corrupted descriptor")
    check(rh == 0, "host sample failed (rc %s)" % rh)


def sample_host_gone(e):
    desc = os.path.join(e.work, "export_desc.txt")
    info = os.path.join(e.work, "buffer_info.txt")
    h = Proc("host", [e.host_sample, "-p", HOST_FN, "-d", desc, "-b", info], e.env, e.work, stdin=subprocess.PIPE)
    h.wait_line("Wait till the DPU has finished and press enter")
    shutil.copy(desc, desc + ".saved")
    shutil.copy(info, info + ".saved")
    h.p.stdin.close()
    check(h.wait() == 0, "host sample failed")
    check(not os.path.exists(desc), "host left its descriptor behind")
    d = Proc("dpu", [e.dpu_sample, "-d", desc + ".saved", "-b", info + ".saved"], e.env, e.work)
    check(d.wait() != 0, "dpu sample copied from a host that is gone")
    check("Failed to create mmap from export" in d.text(), "no clear error for the vanished host")


def sample_args(e):
    def run(binary, args, needle):
        p = Proc("args", [binary] + args, e.env, e.work)
        rc = p.wait()
        check(rc != 0, "%s %s: rc 0, expected a failure" % (os.path.basename(binary), " ".join(args)))
        check(needle in p.text(), "%s %s: no %r in its output" % (os.path.basename(binary), " ".join(args), needle))
        procs.remove(p)

    run(e.host_sample, ["-t", ""], "Entered text is empty")
    run(e.host_sample, ["-t", "x" * 4097], "exceeds the maximum size")
    run(e.host_sample, ["-d", ""], "Entered export descriptor file path is empty")
    run(e.host_sample, ["-b", "y" * 300], "exceeds the maximum size")
    run(e.host_sample, ["-ns", "2"], "Unknown flag -ns")
    run(e.host_sample, ["-p", "99:00.0", "-d", "a", "-b", "b"], "Failed to open DOCA device")
    run(e.host_sample, ["-d", "same", "-b", "same"], "must differ")
    run(e.dpu_sample, ["-ns", "0"], "must be at least 1")
    run(e.dpu_sample, ["-nd", "-3"], "must be at least 1")
    run(e.dpu_sample, ["-b", ""], "Entered buffer information file path is empty")
    e.only_files(e.work, ["host", "dpu"])


SCENARIOS = {
    "app-h2d-empty": lambda e: app_h2d(e, 0),
    "app-h2d-1": lambda e: app_h2d(e, 1),
    "app-h2d-4097": lambda e: app_h2d(e, 4097),
    "app-h2d-32m": lambda e: app_h2d(e, 32 * MIB + 7),
    "app-h2d-chunked": lambda e: app_h2d(e, 3 * MIB + 5, chunk=65536),
    "app-h2d-overwrite": lambda e: app_h2d(e, 100000, overwrite=True),
    "app-d2h-empty": lambda e: app_d2h(e, 0),
    "app-d2h-1": lambda e: app_d2h(e, 1),
    "app-d2h-4097": lambda e: app_d2h(e, 4097),
    "app-d2h-32m": lambda e: app_d2h(e, 32 * MIB + 7),
    "app-d2h-chunked": lambda e: app_d2h(e, 3 * MIB + 5, chunk=65536),
    "app-dpu-file-missing": app_dpu_file_missing,
    "app-host-too-big": app_host_too_big,
    "app-dpu-too-big": app_dpu_too_big,
    "app-dpu-dir-missing": app_dpu_dir_missing,
    "app-host-dir-missing": app_host_dir_missing,
    "app-kill-host-h2d": lambda e: kill_mid_copy(e, "host", "h2d"),
    "app-kill-host-d2h": lambda e: kill_mid_copy(e, "host", "d2h"),
    "app-kill-dpu-h2d": lambda e: kill_mid_copy(e, "dpu", "h2d"),
    "app-kill-dpu-d2h": lambda e: kill_mid_copy(e, "dpu", "d2h"),
    "app-special-files": special_files_refused,
    "app-int-host-h2d": lambda e: interrupt_mid_copy(e, "host", "h2d", signal.SIGINT),
    "app-int-dpu-h2d": lambda e: interrupt_mid_copy(e, "dpu", "h2d", signal.SIGTERM),
    "app-int-host-d2h": lambda e: interrupt_mid_copy(e, "host", "d2h", signal.SIGTERM),
    "app-int-dpu-d2h": lambda e: interrupt_mid_copy(e, "dpu", "d2h", signal.SIGINT),
    "app-host-first": app_host_first,
    "app-args": app_args,
    "sample-text": lambda e: sample_text(e, "hello from the host"),
    "sample-chained": lambda e: sample_text(e, "a chained copy of some text", ["-ns", "3", "-nd", "5"]),
    "sample-max-text": lambda e: sample_text(e, "m" * 4096, ["-ns", "4", "-nd", "2"]),
    "sample-missing-files": sample_missing_files,
    "sample-bad-buffer-info": sample_bad_info,
    "sample-special-files": sample_special_files,
    "sample-corrupt-desc": sample_corrupt_desc,
    "sample-host-gone": sample_host_gone,
    "sample-args": sample_args,
}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in SCENARIOS:
        print("usage: %s <scenario> <host app> <dpu app> <host sample> <dpu sample>" % sys.argv[0])
        print("scenarios: " + " ".join(SCENARIOS))
        return 2
    for b in sys.argv[2:]:
        if not os.access(b, os.X_OK):
            print("FAIL: no program %s (build both flavors: the dpu one is the peer build)" % b)
            return 1
    e = Env(*[os.path.abspath(b) for b in sys.argv[2:]])
    status = 0
    try:
        SCENARIOS[sys.argv[1]](e)
        print("PASS: %s" % sys.argv[1])
        if os.environ.get("DC_DUMP"):
            dump(e)
    except Fail as err:
        print("FAIL: %s: %s" % (sys.argv[1], err))
        dump(e)
        status = 1
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.send_signal(signal.SIGCONT)
                p.p.kill()
                p.p.wait()
        e.cleanup()
    return status


if __name__ == "__main__":
    sys.exit(main())
