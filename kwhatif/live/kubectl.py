"""The one place kwhatif starts a process: the user's `kubectl`, with read-only verbs only.

kwhatif promises never to touch a cluster except when asked (`kwhatif snapshot`, `--live`), and
then only to read it. Every process start goes through `Kubectl.run`, which refuses any verb
outside `READ_ONLY_VERBS` before anything runs (tests/live/test_kubectl.py also proves no other
module imports `subprocess`)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from kwhatif.errors import InputError

READ_ONLY_VERBS: dict[str, frozenset[str] | None] = {
    "get": None,
    "api-resources": None,
    "version": None,
    # `kubectl config` also edits kubeconfig files (set-context, use-context...): only its readers.
    "config": frozenset({"current-context", "view", "get-contexts"}),
}
"""Verb → the sub-commands allowed (None: any arguments)."""


class NotReadOnly(Exception):
    """A kubectl command that could change something was asked for: a bug in kwhatif, never run."""


def read_only_argv(executable: str, verb: str, args: Sequence[str], flags: Sequence[str]) -> list[str]:
    """The command line for `kubectl VERB ARGS FLAGS`, or NotReadOnly when the verb (or, for
    `config`, its sub-command) is not one of `READ_ONLY_VERBS`."""
    if verb not in READ_ONLY_VERBS:
        raise NotReadOnly(f"kubectl {verb}: kwhatif runs only {', '.join(sorted(READ_ONLY_VERBS))}")
    subcommands = READ_ONLY_VERBS[verb]
    if subcommands is not None and (not args or args[0] not in subcommands):
        sub = args[0] if args else ""
        raise NotReadOnly(f"kubectl {verb} {sub}: kwhatif runs only {', '.join(sorted(subcommands))}")
    return [executable, verb, *args, *flags]


def find_kubectl() -> str:
    """kubectl on PATH, or the one clear error line (exit 2) saying how to get it."""
    found = shutil.which("kubectl")
    if found is None:
        raise InputError("kubectl not found on PATH: `kwhatif snapshot` and `--live` read the cluster through "
                         "your own kubectl (install it, e.g. `apt-get install kubectl`, or add it to PATH)")
    return found


REQUEST_TIMEOUT = "60s"
"""kubectl's `--request-timeout` for every call: kubectl waits for ever by default, and an API
server that accepts the connection but never answers (an overloaded one, a dead aggregated API)
would hang the snapshot. Each request of a chunked list (500 objects) gets this much."""


@dataclass(frozen=True)
class Kubectl:
    """The user's kubectl with the context and kubeconfig they chose (None: kubectl's defaults)."""

    executable: str
    context: str | None = None
    kubeconfig: str | None = None
    request_timeout: str = REQUEST_TIMEOUT

    def flags(self) -> list[str]:
        chosen = [("--context", self.context), ("--kubeconfig", self.kubeconfig)]
        return [f"{flag}={value}" for flag, value in chosen if value]

    def argv(self, verb: str, args: Sequence[str]) -> list[str]:
        return read_only_argv(self.executable, verb, args, [*self.flags(), f"--request-timeout={self.request_timeout}"])

    def run(self, verb: str, *args: str) -> bytes:
        """kubectl's stdout. A failure is one error line with kubectl's own last word."""
        out, failed = self.run_partial(verb, *args)
        if failed:
            raise InputError(failed)
        return out

    def run_partial(self, verb: str, *args: str) -> tuple[bytes, str]:
        """kubectl's stdout and, when it failed, its error line ("" when it did not): a failure that
        still printed something gives that output too (`api-resources` lists what it could
        discover when an API group's discovery fails); one that printed nothing is an error."""
        argv = self.argv(verb, args)
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False)
        except OSError as err:
            raise InputError(f"cannot run {self.executable}: {(err.strerror or str(err)).lower()}") from None
        if done.returncode == 0:
            return done.stdout, ""
        shown = " ".join(["kubectl", verb, *args, *self.flags()])
        failed = f"`{shown}` failed (exit {done.returncode}): {last_line(done.stderr)}"
        if not done.stdout.strip():
            raise InputError(failed)
        return done.stdout, failed


def last_line(stderr: bytes) -> str:
    """kubectl's verdict is its last stderr line (the ones before are client-go's retries)."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1] if lines else "no error message"
