"""A running `mmt serve` over a copy of examples/, for the security and page tests.

MMT_BINARY is the mmt to run and MMT_SOURCE_DIR the source tree (set by CTest,
tests/CMakeLists.txt)."""
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.request

import pytest

SOURCE = os.environ.get("MMT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("MMT_BINARY", os.path.join(SOURCE, "build", "tools", "mmt"))


class Served:
    """The server: its base address, token, folder and process."""

    def __init__(self, folder, *extra):
        self.folder = folder
        self.process = subprocess.Popen(
            [BINARY, "serve", str(folder), "--port", "0", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in self.process.stdout:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", line)
            if found:
                self.port = int(found.group(1))
                self.token = found.group(2)
                break
        else:
            raise RuntimeError("mmt serve printed no address: " + self.process.stderr.read())
        self.base = f"http://127.0.0.1:{self.port}"
        self.page = f"{self.base}/?token={self.token}"

    def request(self, method, path, body=None, headers=None, token=True, raw=None):
        """(status, answer): the JSON answer, or the text of another type."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        all_headers = {"Content-Type": "application/json"}
        if token:
            all_headers["X-MMT-Token"] = self.token
        all_headers.update(headers or {})
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, kind, text = response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            status, kind, text = error.code, error.headers.get("Content-Type", ""), error.read()
        return status, (json.loads(text) if "json" in kind and "ndjson" not in kind else text.decode())

    def run(self, body):
        """The events of a run (POST /api/run), as a list."""
        status, text = self.request("POST", "/api/run", body)
        if status != 200:
            return status, text
        return status, [json.loads(line) for line in text.splitlines() if line]

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    for name in os.listdir(os.path.join(SOURCE, "examples")):
        if name.endswith(".hdl"):
            shutil.copy(os.path.join(SOURCE, "examples", name), out / name)
    # A raw net whose chain ends in one of two bottom components.
    shutil.copy(os.path.join(SOURCE, "tools", "bench", "models", "choice.gspn"), out / "choice.gspn")
    return out


@pytest.fixture(scope="module")
def served(folder):
    server = Served(folder)
    yield server
    assert server.stop() == 0, server.process.stderr.read()


def cli_json(*args, exit_code=0):
    """`mmt ARGS --format json` as a dict; the command must exit with `exit_code`."""
    out = subprocess.run([BINARY, *args, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == exit_code, out.stderr
    return json.loads(out.stdout)


def short(x):
    """A number as the page and the command line print it (six significant digits)."""
    return "%.6g" % x
