"""A checkpoint as a file on disk: opened only if it is a regular file, read no further than its header says,
replaced atomically on save, and cleaned up after saves that were killed. (serialization.py is the format.)

Reading. A path must name a regular file once symlinks are followed. `/dev/zero` never ends, and opening a FIFO
waits for a writer, so a device, a FIFO or a socket is refused before a byte is read (the check is `fstat` of the
file we opened, opened without blocking, so the name cannot be swapped in between). Whatever the file, the reader
asks for exactly the bytes the header declares, in chunks for the header (memory grows only as bytes arrive)
and with `readinto` for the storages (straight into their final buffers); it never reads "to the end".

Writing. PyTorch's `torch.save(obj, path)` opens `path` and writes into it, so a crash mid-save leaves a
truncated checkpoint where the good one was. teachtorch writes a temporary file in the target's directory,
flushes it to the disk (fsync) and renames it over the target (`os.replace`, atomic on POSIX and Windows):
readers see the old file or the new one, never half of one.

Symlinks. `open(path, "wb")` writes *through* a symlink: the link stays a link and its target gets the bytes.
Renaming over the link would replace the link itself, so the path is resolved first (`os.path.realpath`) and the
temporary file is made, and renamed, beside the resolved target. A target that exists but is not a regular file
(`/dev/null`, a FIFO) is written in place, as PyTorch does: there is no old content to keep, and renaming a
regular file over a device node would destroy it.

Saves that died. A save killed mid-write (SIGKILL, the OOM killer, a power cut) cannot remove its temporary file,
which may be as big as the model. So each save first removes the temporary files that dead saves of the same
target left behind. Our temporary files are recognised by their name,

    .<target name>.<host>-<pid>-<token>.<random>.tmp

(`host`: a hash of this machine's name; `pid`: the saving process; `token`: random, drawn once per process run,
so that a later process that happens to get the same pid, as a restarted container often does, is not taken for
it). A temporary file is stale, and removed, when

* it was made on this machine, by another run of our pid or by a pid that is not running now, or
* nothing has written to it for `STALE_AFTER` seconds (a day), whichever machine made it.

A live save is never removed: its process is running, and it writes its temporary file from start to end
without pausing (the bytes are all computed before the file is made). Files made on another machine that shares
the directory are judged by age alone, since their pids mean nothing here. On Windows `os.kill(pid, 0)` would
terminate the process instead of probing it, so there only the token and the age rule apply.
"""


import errno
import os
import re
import socket
import stat
import tempfile
import time
import zlib

STALE_AFTER = 24 * 3600          # seconds without a write after which a temporary file is abandoned

_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"
_TOKEN = os.urandom(4).hex()     # this run of this process (pids are reused)
_CHUNK = 1 << 20                 # the header is read a MiB at a time: a header size that lies costs no memory


class CheckpointError(RuntimeError):
    """A file that `teachtorch.load` cannot read: empty, truncated, corrupted, foreign, from a newer format, or
    not a regular file."""


# ---- reading ------------------------------------------------------------------------------------------------


def open_regular_file(name):
    """`name` opened for reading, if it is a regular file once symlinks are followed."""
    # O_NONBLOCK: opening a FIFO would wait for a writer; for a regular file it changes nothing
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(fd).st_mode             # the file we opened, not whatever the name points at by now
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        if not stat.S_ISREG(mode):
            real = os.path.realpath(name)
            via = f" (which resolves to '{real}')" if real != os.path.abspath(name) else ""
            raise CheckpointError(
                f"teachtorch.load: cannot load '{name}'{via}: it is {_file_kind(mode)}, not a regular file (a "
                f"checkpoint is a regular file; reading a device or a pipe may never end)")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _file_kind(mode):
    for test, kind in [(stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket")]:
        if test(mode):
            return kind
    return "not a regular file"


def bytes_left(file):
    """How many bytes a file object has from its position to its end; None for a stream (a pipe, a socket)."""
    try:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None                          # a device or a pipe: /dev/zero "seeks" to 0 and never ends
    except (AttributeError, OSError, ValueError):
        pass                                     # no file descriptor: io.BytesIO, ...
    try:                                         # (not fstat's size: a gzip.GzipFile has the compressed file's)
        if file.seekable():
            here = file.tell()
            end = file.seek(0, os.SEEK_END)
            file.seek(here)
            return max(end - here, 0)
    except (AttributeError, OSError, ValueError):
        pass
    return None


def read_up_to(file, n, name):
    """Up to `n` bytes (fewer only where the file ends), a chunk at a time: memory grows only as bytes arrive."""
    chunks = []
    while n > 0:
        chunk = file.read(min(n, _CHUNK))
        if isinstance(chunk, str):
            raise TypeError(f"teachtorch.load: '{name}' is open in text mode; open it in binary mode ('rb')")
        if not chunk:
            break
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_into(file, buffer):
    """Fill the uint8 array `buffer` from `file`; how many bytes there were (fewer where the file ends)."""
    view = memoryview(buffer)
    readinto = getattr(file, "readinto", None)
    got = 0
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:]) or 0                  # straight into the buffer
        else:                                              # a file object with only read(): a chunk at a time
            chunk = file.read(min(len(view) - got, _CHUNK))
            n = len(chunk)
            view[got:got + n] = chunk
        if n == 0:
            break
        got += n
    return got


# ---- writing ------------------------------------------------------------------------------------------------


def write_atomically(path, write):
    """Call `write(file)` on a temporary file beside `path`'s target, fsync it, and rename it over the target."""
    target = os.path.realpath(path)          # through a symlink: write its target, the link stays a link
    if os.path.islink(target):               # realpath gives up on a symlink loop
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as file:     # /dev/null, a FIFO: write into it, never rename over it
            write(file)
        return
    directory, name = os.path.split(target)
    remove_stale_temp_files(directory, name)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.{_HOST}-{os.getpid()}-{_TOKEN}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())           # the bytes are on the disk before the name points at them
        # mkstemp makes the file private (0600); give it the old file's mode, or an ordinary file's
        os.chmod(tmp, mode & 0o777 if mode is not None else 0o644)
        os.replace(tmp, target)
    except BaseException:                     # also Ctrl-C: never leave the temporary file behind
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def remove_stale_temp_files(directory, name):
    """Remove the temporary files that dead saves of `name` left in `directory` (the module docstring says which)."""
    ours = re.compile(rf"\.{re.escape(name)}\.([0-9a-f]{{8}})-([0-9]{{1,10}})-([0-9a-f]{{8}})\.[a-z0-9_]{{8}}\.tmp")
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        match = ours.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if _is_stale(*match.groups(), entry.stat(follow_symlinks=False)):
                os.unlink(entry.path)
        except OSError:                       # gone already, or not ours to remove: leave it
            pass


def _is_stale(host, pid, token, st):
    if not stat.S_ISREG(st.st_mode):          # we only ever make regular files
        return False
    if time.time() - st.st_mtime > STALE_AFTER:
        return True
    if host != _HOST:                         # another machine's save: its pid means nothing here
        return False
    if int(pid) == os.getpid():               # our pid: ours (maybe another thread's live save), or a past run's
        return token != _TOKEN
    return not _pid_running(int(pid))


def _pid_running(pid):
    if os.name == "nt":                       # os.kill(pid, 0) terminates a process on Windows
        return True
    try:
        os.kill(pid, 0)                       # signal 0: only asks whether the process exists
    except (ProcessLookupError, OverflowError):
        return False
    except OSError:                           # PermissionError: it runs, as another user
        return True
    return True


def _fsync_directory(directory):
    # On POSIX a rename is durable only once the directory is flushed too; Windows cannot open directories.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
