#!/usr/bin/env python3
"""A small HTTP(S) server on 127.0.0.1 for imgprep's URL tests and `make bench`.

Serves the files of --root under routes that each behave one way, logs every request as one line
"METHOD PATH STATUS" (appended to --log, flushed at once; " Authorization" added when the request
carried that header), and prints its port on standard output when
it is ready. With --tls CERT KEY it speaks HTTPS with that certificate.

Routes (NAME is a file in --root):
  /etag/NAME      ETag + Cache-Control: no-cache; If-None-Match that matches -> 304
  /lastmod/NAME   Last-Modified only; If-Modified-Since equal to it -> 304
  /maxage/NAME    Cache-Control: max-age=3600 and an ETag
  /nostore/NAME   Cache-Control: no-store and an ETag
  /plain/NAME     no validators
  /agent/NAME     /plain/NAME when the User-Agent starts with imgprep/, else 403
  /wrongtype/NAME served as text/html
  /redirect/N/NAME  302 to /redirect/N-1/NAME, /redirect/0/NAME to /plain/NAME (N+1 redirects)
  /tofile         302 to file:///etc/passwd
  /goto?to=URL    302 to URL (percent-decoded), whatever it is
  /status/CODE    that status with a small HTML body
  /slow           headers (Content-Length 1000), then nothing until the client goes away
  /forever        no Content-Length, bytes until the client goes away
  /huge           Content-Length: 1000000000000
  /short/NAME     Content-Length 1000 more than the file, then the connection closes
"""
import argparse
import hashlib
import http.server
import os
import ssl
import sys
import threading
import urllib.parse

LAST_MODIFIED = "Tue, 01 Dec 2026 12:00:00 GMT"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = parser.parse_args()
    log_lock = threading.Lock()
    log = open(args.log, "a", buffering=1)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection, bodies may end at close

        def log_message(self, *_):
            pass

        def record(self, status):
            with log_lock:
                auth = " Authorization" if self.headers.get("Authorization") is not None else ""
                log.write(f"{self.command} {self.path} {status}{auth}\n")
                log.flush()

        def reply(self, status, body=b"", headers=()):
            self.record(status)
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            if not any(name == "Content-Length" for name, _ in headers):
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

        def file(self, name):
            path = os.path.join(args.root, os.path.basename(urllib.parse.unquote(name)))
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError:
                return None

        def do_GET(self):
            parts = self.path.split("?")[0].split("/")[1:]
            route = parts[0] if parts else ""
            name = "/".join(parts[1:])
            try:
                self.route(route, name, parts)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def route(self, route, name, parts):
            if route == "redirect" and len(parts) >= 3:
                n = int(parts[1])
                target = f"/plain/{parts[2]}" if n == 0 else f"/redirect/{n - 1}/{parts[2]}"
                return self.reply(302, headers=[("Location", target)])
            if route == "goto":
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                return self.reply(302, headers=[("Location", query.get("to", ["/"])[0])])
            if route == "tofile":
                return self.reply(302, headers=[("Location", "file:///etc/passwd")])
            if route == "status":
                return self.reply(int(name), b"<html>no</html>", [("Content-Type", "text/html")])
            if route == "slow":
                self.record(200)
                self.send_response(200)
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.flush()
                # Until the client hangs up (or a minute: the test has failed by then).
                self.connection.settimeout(60)
                try:
                    self.connection.recv(1)
                except OSError:
                    pass
                return
            if route == "forever":
                self.record(200)
                self.send_response(200)
                self.end_headers()
                chunk = b"\0" * 65536
                while True:
                    self.wfile.write(chunk)
            if route == "huge":
                self.record(200)
                self.send_response(200)
                self.send_header("Content-Length", "1000000000000")
                self.end_headers()
                self.wfile.write(b"\0" * 65536)
                return
            body = self.file(name)
            if body is None:
                return self.reply(404, b"missing")
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            kind = [("Content-Type", "image/png" if name.endswith(".png") else "application/octet-stream")]
            if route == "etag":
                headers = [("ETag", etag), ("Cache-Control", "no-cache")]
                if self.headers.get("If-None-Match") == etag:
                    return self.reply(304, headers=headers)
                return self.reply(200, body, kind + headers)
            if route == "lastmod":
                headers = [("Last-Modified", LAST_MODIFIED)]
                if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                    return self.reply(304, headers=headers)
                return self.reply(200, body, kind + headers)
            if route == "maxage":
                return self.reply(200, body, kind + [("ETag", etag), ("Cache-Control", "max-age=3600")])
            if route == "nostore":
                if self.headers.get("If-None-Match") == etag:
                    return self.reply(304)
                return self.reply(200, body, kind + [("ETag", etag), ("Cache-Control", "no-store")])
            if route == "plain":
                return self.reply(200, body, kind)
            if route == "agent":
                if not (self.headers.get("User-Agent") or "").startswith("imgprep/"):
                    return self.reply(403, b"who are you")
                return self.reply(200, body, kind)
            if route == "wrongtype":
                return self.reply(200, body, [("Content-Type", "text/html; charset=utf-8")])
            if route == "short":
                self.record(200)
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) + 1000))
                self.end_headers()
                self.wfile.write(body)
                return
            return self.reply(404, b"no such route")

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    # Ends with its parent: standard input closing (the test or script that started it went away).
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
