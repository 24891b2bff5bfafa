"""Who may talk to `mmt serve` and which files it touches (docs/serve.md, "Security")."""
import http.client
import os
import threading

from conftest import Served


def test_the_token_is_needed(served):
    assert served.request("GET", "/api/files", token=False)[0] == 401
    assert served.request("GET", "/api/files", headers={"X-MMT-Token": "0" * 32}, token=False)[0] == 401
    assert served.request("GET", "/", token=False)[0] == 401
    status, answer = served.request("GET", "/api/files")
    assert status == 200 and "forkjoin.hdl" in answer["files"]
    # The page's address carries it in the query.
    assert served.request("GET", f"/?token={served.token}", token=False)[0] == 200


def test_a_foreign_host_or_origin_is_refused(served):
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    connection.request("GET", "/api/files", headers={"Host": f"attacker.example:{served.port}",
                                                      "X-MMT-Token": served.token})
    assert connection.getresponse().status == 403
    connection.close()
    status, _ = served.request("POST", "/api/check", {"path": "forkjoin.hdl"},
                               headers={"Origin": "http://attacker.example"})
    assert status == 403
    status, answer = served.request("POST", "/api/check", {"path": "forkjoin.hdl"},
                                    headers={"Origin": served.base})
    assert status == 200 and answer["ok"]
    assert served.request("GET", "/api/files", headers={"Host": f"localhost:{served.port}"})[0] == 200


def test_only_model_files_under_the_folder(served, folder, tmp_path):
    outside = tmp_path / "secret.hdl"
    outside.write_text("system secret {}")
    os.symlink(outside, folder / "escape.hdl")
    os.symlink(tmp_path, folder / "elsewhere")
    for path in ["../secret.hdl", "/etc/passwd", str(outside), "escape.hdl", "elsewhere/secret.hdl",
                 "nested/../../secret.hdl"]:
        status, answer = served.request("GET", "/api/file?path=" + path)
        assert status in (400, 403), (path, status, answer)
        status, _ = served.request("PUT", "/api/file", {"path": path, "text": "x", "version": ""})
        assert status in (400, 403), (path, status)
    assert served.request("GET", "/api/file?path=conftest.py")[0] == 403
    assert outside.read_text() == "system secret {}"
    assert "escape.hdl" not in served.request("GET", "/api/files")[1]["files"]


def test_save_is_atomic_and_refuses_a_file_changed_on_disk(served, folder):
    status, opened = served.request("GET", "/api/file?path=replication.hdl")
    assert status == 200
    text = opened["text"] + "\n// edited in the page\n"
    status, saved = served.request("PUT", "/api/file", {"path": "replication.hdl", "text": text,
                                                         "version": opened["version"]})
    assert status == 200 and (folder / "replication.hdl").read_text() == text
    # Another program writes the file: the page's version is stale.
    (folder / "replication.hdl").write_text(text + "// from the terminal\n")
    status, answer = served.request("PUT", "/api/file", {"path": "replication.hdl", "text": "lost",
                                                          "version": saved["version"]})
    assert status == 409 and "changed on disk" in answer["error"]
    assert (folder / "replication.hdl").read_text().endswith("// from the terminal\n")
    assert not [name for name in os.listdir(folder) if name.startswith(".mmt-save")]
    # A new file is created only when none is there.
    assert served.request("PUT", "/api/file", {"path": "new.gspn", "text": "net n {}"})[0] == 200
    assert served.request("PUT", "/api/file", {"path": "new.gspn", "text": "again"})[0] == 409


def test_bodies_are_limited(served):
    status, _ = served.request("POST", "/api/check", raw=b"{" + b" " * (9 << 20) + b"}")
    assert status == 413
    status, answer = served.request("POST", "/api/check", raw=b"{not json")
    assert status == 400 and "malformed" in answer["error"]


def test_twenty_concurrent_solves(served):
    expected = None
    answers = [None] * 20

    def solve(i):
        answers[i] = served.run({"channel": f"load{i}", "kind": "solve", "path": "image_filter.hdl",
                                 "parameters": {"P": 2 + i % 4}})

    threads = [threading.Thread(target=solve, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    done = 0
    for i, (status, events) in enumerate(answers):
        if status == 503:
            assert "runs are going already" in events["error"]
            continue
        assert status == 200 and "result" in events[-1], events[-1]
        done += 1
    assert done >= 4  # at least the runs allowed at once
    # The server is intact: a solve afterwards gives the command line's numbers.
    status, events = served.run({"channel": "after", "kind": "solve", "path": "forkjoin.hdl"})
    assert status == 200
    assert abs(events[-1]["result"]["application"]["throughput"] - 0.01997194024923661) < 1e-12


def test_a_failing_run_does_not_take_the_server_down(served):
    status, events = served.run({"channel": "bad", "kind": "solve", "path": "forkjoin.hdl",
                                 "text": "system broken { hardware { processor P1 { speed: ; } } }"})
    assert status == 200 and events[-1]["failure"]["kind"] == "ModelError"
    status, events = served.run({"channel": "big", "kind": "solve", "path": "lu_paragon.hdl",
                                 "options": {"max_states": 10}})
    assert events[-1]["failure"]["kind"] == "StateLimitError" and events[-1]["failure"]["simulate"]
    assert served.request("GET", "/api/files")[0] == 200


def test_a_port_taken_is_a_clear_error(served, folder):
    import subprocess
    from conftest import BINARY
    out = subprocess.run([BINARY, "serve", str(folder), "--port", str(served.port)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "cannot listen" in out.stderr


def test_ctrl_c_interrupts_the_runs_going(folder):
    import signal
    import time
    server = Served(folder)
    def long_run():
        try:
            server.run({"channel": "long", "kind": "solve", "path": "lu_paragon.hdl",
                        "parameters": {"n": 5}})
        except Exception:  # the stream ends with the server
            pass

    thread = threading.Thread(target=long_run)
    thread.start()
    time.sleep(1.0)
    start = time.monotonic()
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=20) == 0
    assert time.monotonic() - start < 10
    thread.join(timeout=20)
    assert "stopped" in server.process.stderr.read()
