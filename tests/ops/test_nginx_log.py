"""The shipped nginx configuration's access log, for real (Debian's nginx in front of one `serve` on SQLite):
however a client spells a path with a token in it (percent-escapes, an escaped slash, doubled slashes, a link in
a query under an escaped name), the log shows the path as nginx routed it with the token redacted."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest

from companion.web.core.app import create_app
from companion.web.cryptid.tokens import host_token, seat_token
from tests.helpers import GOLDEN, REPO
from tests.helpers.serving import SERVE, free_port, running_server

DEPLOY = REPO / "deploy"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
SPELLINGS = ["/%73/{seat}", "/s%2F{seat}", "/api/%73eats/{seat}/play", "/%68/{host}", "//api//seats/{seat}/play",
             "/help/refereed?%62ack=/s/{seat}", "/help/refereed?back=%2Fs%2F{seat}", "/s/{seat}/%6Cive",
             "/decrypto/p%2F{seat}", "/h/{host}?x={host}", "/games/{code}/live?wait=3"]


def raw_get(port: int, target: str) -> int:
    """A request sent exactly as written (no client library re-encodes it); its status."""
    with socket.create_connection(("127.0.0.1", port), timeout=40) as connection:
        connection.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])


@pytest.mark.slow
@pytest.mark.skipif(NGINX is None, reason="needs Debian's nginx")
def test_the_access_log_redacts_tokens_however_the_path_is_spelled(tmp_path):
    code = GOLDEN[2]["code"]
    with create_app({"TESTING": True, "SECRET_KEY": "n" * 64}).test_request_context():
        host, seat = host_token(code), seat_token(code, 1)
    back_end, front = free_port(), free_port()
    command = [*SERVE, "--host", "127.0.0.1", "--port", str(back_end),
               "--server", "waitress", "--threads", "4"]
    environment = dict(os.environ, COMPANION_INSTANCE_PATH=str(tmp_path / "instance"), COMPANION_SECRET_KEY="n" * 64,
                       COMPANION_TRUST_PROXY="1")
    log = tmp_path / "access.log"
    site = ((DEPLOY / "nginx.conf").read_text()
            .replace("server 127.0.0.1:5001;", f"server 127.0.0.1:{back_end};").replace("server 127.0.0.1:5002;", "")
            .replace("listen 80;", f"listen 127.0.0.1:{front};")
            .replace("/var/log/nginx/cryptid-companion.log", str(log))
            .replace("/var/log/nginx/cryptid-companion.error.log", str(tmp_path / "site-error.log")))
    assert str(back_end) in site and str(log) in site, "the shipped configuration changed shape"
    (tmp_path / "nginx.conf").write_text(
        f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log; worker_processes 1;\n"
        "events { worker_connections 64; }\n"
        f"http {{ client_body_temp_path {tmp_path}/body; proxy_temp_path {tmp_path}/proxy;"
        f" fastcgi_temp_path {tmp_path}/fcgi; uwsgi_temp_path {tmp_path}/uwsgi; scgi_temp_path {tmp_path}/scgi;\n"
        f"{site}\n}}\n")
    with running_server(command, back_end, cwd=REPO, env=environment):
        proxy = subprocess.Popen([NGINX, "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            hang = time.monotonic() + 30  # bounds a hang only
            while True:
                try:
                    socket.create_connection(("127.0.0.1", front), timeout=1).close()
                    break
                except OSError:
                    assert proxy.poll() is None and time.monotonic() < hang, "nginx did not start"
                    time.sleep(0.1)
            statuses = {spelling: raw_get(front, spelling.format(seat=seat, host=host, code=code))
                        for spelling in SPELLINGS}
        finally:
            proxy.terminate()
            proxy.wait(timeout=30)
    assert statuses["/%73/{seat}"] == 200 and statuses["/%68/{host}"] == 200  # the app served them: real tokens
    logged = log.read_text()
    assert seat not in logged and host not in logged, logged
    lines = [line.split('"')[1] for line in logged.splitlines()]
    assert lines[:6] == ["GET /s/<token>", "GET /s/<token>", "GET /api/seats/<token>/play", "GET /h/<token>",
                         "GET /api/seats/<token>/play", "GET /help/refereed?<query>"], lines
    assert f"GET /games/{code}/live?wait=3" in lines and "GET /s/<token>/live" in lines
