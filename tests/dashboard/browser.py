"""A headless chromium driven over the DevTools protocol on a pipe: no driver library, no port.

``--remote-debugging-pipe`` makes chromium read commands (JSON, each ended by a NUL byte) on its
file descriptor 3 and answer on 4. ``Browser`` opens a page, types into it with real key events,
clicks with real mouse events, and evaluates JavaScript to read what the page shows.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

#: Debian's package names its binary chromium; other systems chromium-browser or google-chrome
NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((p for p in map(shutil.which, NAMES) if p), None)


class BrowserError(RuntimeError):
    pass


def _high(fd: int) -> int:
    """``fd`` moved to 10 or above, out of the way of the 3 and 4 the child is given."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    def __init__(self, binary: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="torchparity-chromium-")
        cmd_r, self._cmd_w = map(_high, os.pipe())
        self._ans_r, ans_w = map(_high, os.pipe())
        argv = [
            binary,
            "--headless",
            "--no-sandbox",  # CI runs as root, where chromium's sandbox refuses to start
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-pipe",
            f"--user-data-dir={self.profile}",
            "about:blank",
        ]
        # bash gives chromium the pipes as its fds 3 and 4 (Python's own pass_fds keeps numbers)
        script = f'exec "$@" 3<&{cmd_r} 4>&{ans_w} {cmd_r}<&- {ans_w}>&-'
        self.proc = subprocess.Popen(
            ["bash", "-c", script, "bash", *argv],
            pass_fds=(cmd_r, ans_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        os.close(cmd_r)
        os.close(ans_w)
        self._buf = b""
        self._last_error = ""
        self._next = 0
        self.session = ""

    # -- the protocol -------------------------------------------------------------------------
    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = True) -> Any:
        """Send one command (to the open page's session unless ``page`` is False); its result."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if page and self.session:
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") != self._next:
                continue  # an event, or the answer to another command
            if "error" in answer:
                raise BrowserError(f"{method}: {answer['error']}")
            return answer.get("result", {})

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._ans_r], [], [], left)[0]:
                raise BrowserError(f"chromium did not answer within {self.timeout} s")
            chunk = os.read(self._ans_r, 1 << 16)
            if not chunk:
                raise BrowserError(f"chromium closed its pipe (exit {self.proc.poll()})")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        answer: dict[str, Any] = json.loads(raw)
        return answer

    # -- what a test does ---------------------------------------------------------------------
    def open(self, url: str) -> None:
        """Open ``url`` in a new page and wait until it has loaded."""
        target = self.send("Target.createTarget", {"url": url}, page=False)["targetId"]
        attached = self.send(
            "Target.attachToTarget", {"targetId": target, "flatten": True}, page=False
        )
        self.session = attached["sessionId"]
        # a headless page has no window focus: without this, a focused input takes no key
        self.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        deadline = time.monotonic() + self.timeout
        # a new target holds about:blank, complete, until the page's navigation commits (a loaded
        # machine shows that race): wait for the page's own document
        loaded = "location.href !== 'about:blank' && document.readyState === 'complete'"
        self._last_error = ""
        while not self._settled(loaded):
            if time.monotonic() > deadline:
                last = f" (last: {self._last_error})" if self._last_error else ""
                raise BrowserError(f"{url} did not load within {self.timeout} s{last}")
            time.sleep(0.05)

    def _settled(self, expression: str) -> bool:
        """Whether ``expression`` holds; False while the page's context is replaced by the
        navigation (an evaluation then ends with the old context's error, kept for the timeout's)."""
        try:
            return self.evaluate(expression) is True
        except BrowserError as exc:
            self._last_error = str(exc)
            return False

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def type(self, selector: str, text: str) -> None:
        """Focus the element and type ``text`` into it, a key press per character."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        for ch in text:
            self.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch})
            self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})

    def select(self, selector: str, value: str) -> None:
        """Choose ``value`` in a <select> as a user's choice does (the change event fires)."""
        self.evaluate(
            f"(function(s){{s.value={json.dumps(value)};"
            "s.dispatchEvent(new Event('change', {bubbles: true}));})"
            f"(document.querySelector({json.dumps(selector)}))"
        )

    def click(self, selector: str) -> None:
        """A left click with the mouse at the middle of the element."""
        box = self.evaluate(
            f"(function(e){{e.scrollIntoView({{block: 'center'}}); var r = e.getBoundingClientRect();"
            f"return [r.x + r.width / 2, r.y + r.height / 2];}})"
            f"(document.querySelector({json.dumps(selector)}))"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def close(self) -> None:
        try:
            self.send("Browser.close", page=False)
            self.proc.wait(10)
        except (BrowserError, OSError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        finally:
            os.close(self._cmd_w)
            os.close(self._ans_r)
            shutil.rmtree(self.profile, ignore_errors=True)


def screenshot(binary: str, page: Path, png: Path, size: str = "1400,900") -> None:
    """``chromium --headless --screenshot`` of ``page`` (a file) at the window ``size``."""
    subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={png}",
            f"--window-size={size}",
            page.absolute().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
