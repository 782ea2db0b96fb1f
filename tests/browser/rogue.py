"""A provider that misbehaves on purpose, for the checks a real one never
fails: it answers OpenID Connect discovery, keys, tokens and UserInfo
correctly but for one thing, an ID token signed with its own key that
names another issuer, or another audience (mode "issuer", "audience";
"honest" names neither, so that a test can show the refusal is the
check's). Its token carries the subject `rogue-1`, the `oid` OID, and the
claims given (an e-mail address, `email_verified`, `hd`, ...); its
UserInfo answer is the one given (none: 404)."""

import base64
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


#: The object id the rogue's token names, as Entra ID's `oid` would.
OID = "0b6f3c2e-1906-4a6e-9f1b-6d2a9e1f1906"


def number(n):
    return b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))


class Rogue:
    def __init__(self, mode, claims, user_info=None):
        self.mode = mode
        self.claims = claims
        self.user_info = user_info
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.nonces = {}
        rogue = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body=None, headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                data = json.dumps(body).encode() if body is not None else b""
                if body is not None:
                    self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urllib.parse.urlparse(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/.well-known/openid-configuration":
                    self.answer(200, rogue.discovery())
                elif url.path == "/jwks":
                    public = rogue.key.public_key().public_numbers()
                    self.answer(200, {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256",
                                                "kid": "k1", "n": number(public.n),
                                                "e": number(public.e)}]})
                elif url.path == "/userinfo" and rogue.user_info is not None:
                    self.answer(200, {"sub": "rogue-1", **rogue.user_info})
                elif url.path == "/authorize":
                    rogue.nonces["code-1"] = query.get("nonce")
                    back = query["redirect_uri"] + "?" + urllib.parse.urlencode(
                        {"code": "code-1", "state": query["state"]})
                    self.answer(302, headers=[("Location", back)])
                else:
                    self.answer(404, {})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                if self.path != "/token":
                    self.answer(404, {})
                    return
                self.answer(200, {"access_token": "at", "token_type": "Bearer", "expires_in": 600,
                                  "id_token": rogue.id_token(rogue.nonces.get(form.get("code")))})

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def discovery(self):
        return {"issuer": self.base, "authorization_endpoint": self.base + "/authorize",
                "token_endpoint": self.base + "/token", "jwks_uri": self.base + "/jwks",
                "userinfo_endpoint": self.base + "/userinfo",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"]}

    def id_token(self, nonce):
        now = int(time.time())
        claims = {"iss": self.base, "aud": "kenning", "sub": "rogue-1", "iat": now,
                  "exp": now + 600, "nonce": nonce, "oid": OID, **self.claims}
        if self.mode == "issuer":
            claims["iss"] = "https://elsewhere.example"
        if self.mode == "audience":
            claims["aud"] = "another-client"
        header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "k1"}).encode())
        payload = b64(json.dumps(claims).encode())
        signed = f"{header}.{payload}".encode()
        signature = self.key.sign(signed, padding.PKCS1v15(), hashes.SHA256())
        return f"{header}.{payload}.{b64(signature)}"

    def stop(self):
        self.server.shutdown()
