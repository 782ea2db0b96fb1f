"""The browser tests' fixtures: a real Kenning server on a fresh SQLite
file, a real OpenID provider (node, oidc-provider) beside it, and a fresh
headless Chromium at phone width for each test.

Settings from the environment: KENNING_BIN (the binary), SCREENSHOTS (the
folder screenshots go to; target/screenshots by default)."""

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BIN = os.environ.get("KENNING_BIN", str(ROOT / "target/debug/kenning"))
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS", ROOT / "target/screenshots"))
AXE = HERE / "node_modules/axe-core/axe.min.js"

KUBERNETES = ("Kubernetes clusters schedule containers across nodes. Our Kubernetes "
              "clusters run the payment services, and Kubernetes operators restart failed "
              "containers and scale the clusters when traffic grows.")
COMPILERS = ("The compiler translates the source language into machine code. We "
             "rewrote the compiler's register allocation and the optimizer's inlining "
             "passes, and the compiler now emits smaller machine code.")
TAX = ("Corporate tax returns are due in March. The finance team prepared the "
       "corporate tax returns and the VAT reconciliation for the German subsidiary.")

PEOPLE = [
    ("ada@example.com", "Ada", "Lovelace", "Platform engineer", [KUBERNETES, KUBERNETES]),
    ("grace@example.com", "Grace", "Hopper", "Compiler lead", [COMPILERS, COMPILERS]),
    ("mallory@example.com", "<img src=x onerror=window.__xss=1>", "Doe", None, [KUBERNETES]),
    ("bob@example.com", "Bob", "Finance", "Tax advisor", [TAX]),
    ("erin@example.com", "Erin", "Keys", None, [TAX]),
    ("frances@example.com", "Frances", "Allen", "Directory administrator", []),
]

#: The externalId of the group whose active members administer Kenning
#: (`--admin-group`), and its one member.
ADMIN_GROUP = "kenning-admins"
ADMIN = "frances@example.com"

#: The chat link cards and person pages offer (`--contact-link`).
CONTACT_LINK = "https://chat.example.com/dm?to={email}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


class Kenning:
    """A running server and what the tests ask of it."""

    def __init__(self, folder, port, provider_port):
        self.folder = folder
        self.db = folder / "kenning.db"
        self.url = f"http://127.0.0.1:{port}"
        self.db_url = f"sqlite://{self.db}"
        # How a server signs people in with the provider, for a test that
        # starts another one beside it.
        self.env = env = dict(os.environ, RUST_LOG="warn",
                              KENNING_OIDC_ISSUER=f"http://127.0.0.1:{provider_port}",
                              KENNING_OIDC_CLIENT_ID="kenning",
                              KENNING_OIDC_CLIENT_SECRET="kenning-test-secret",
                              KENNING_OIDC_NAME="Test Provider")
        env.pop("DATABASE_URL", None)
        self.process = subprocess.Popen(
            [BIN, "--database-url", self.db_url, "serve", "--bind", f"127.0.0.1:{port}",
             "--meaning", "off", "--admin-group", ADMIN_GROUP,
             "--contact-link", CONTACT_LINK],
            stdout=subprocess.PIPE, stderr=open(folder / "server.log", "w"), env=env, text=True)
        self.token = self.process.stdout.readline().strip()
        wait_for(self.url + "/readyz")
        self.key = self.cli("apikey", "create", "--name", "browser-tests")

    def cli(self, *args):
        out = subprocess.run([BIN, "--database-url", self.db_url, *args],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    def graphql(self, query, variables=None):
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        request = urllib.request.Request(
            self.url + "/accounts/api/v1/graphql", data=body,
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            answer = json.load(response)
        assert "errors" not in answer, answer
        return answer["data"]

    def create(self, email, first, last, position):
        fields = {"email": email, "firstname": first, "lastname": last}
        if position:
            fields["position"] = position
        data = self.graphql("mutation($i: CreateUserInput!) { createUser(createUserInput: $i)"
                            " { globalUserId } }", {"i": fields})
        return data["createUser"]["globalUserId"]

    def upload(self, email, text, n):
        body = json.dumps({"entity_type": "document", "action_type": "create",
                           "action_date": "2026-03-01T08:00:00.000Z", "user_email": email,
                           "text": text, "action_alias": f"browser_{email.split('@')[0]}_{n}"})
        request = urllib.request.Request(
            self.url + "/connectors/api/v1/entities-with-action", data=body.encode(),
            headers={"APIKEY": self.key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            assert response.status == 201

    def create_group(self, name, members, external_id=None):
        body = json.dumps({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
                           "displayName": name, "externalId": external_id,
                           "members": [{"value": m} for m in members]}).encode()
        request = urllib.request.Request(
            self.url + "/accounts/api/v1/scim/v2/Groups", data=body,
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/scim+json"})
        with urllib.request.urlopen(request) as response:
            assert response.status == 201
            return json.load(response)["id"]

    def signin_link(self, email):
        return self.cli("signin-link", "--email", email, "--public-url", self.url)

    def sql(self, statement):
        with sqlite3.connect(self.db, timeout=10) as conn:
            conn.execute(statement)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)


@pytest.fixture(scope="session")
def kenning():
    folder = Path(tempfile.mkdtemp(prefix="kenning-browser-"))
    port, provider_port = free_port(), free_port()
    # A second server's, which a test starts with settings of its own.
    beside_port = free_port()
    accounts = {
        "grace": {"email": "grace@example.com", "email_verified": True, "name": "Grace Hopper"},
        "stranger": {"email": "stranger@example.com", "email_verified": True},
        "unverified": {"email": "erin@example.com", "email_verified": False},
        "partner": {"email": "dana@partner.example", "email_verified": True},
    }
    clients = [{"client_id": "kenning", "client_secret": "kenning-test-secret",
                "redirect_uris": [f"http://127.0.0.1:{p}/auth/callback"
                                  for p in (port, beside_port)]}]
    provider = subprocess.Popen(
        ["node", str(HERE / "provider.js")], cwd=HERE,
        env=dict(os.environ, PROVIDER_PORT=str(provider_port), ACCOUNTS=json.dumps(accounts),
                 CLIENTS=json.dumps(clients), NODE_ENV="development"),
        stdout=subprocess.PIPE, stderr=open(folder / "provider.log", "w"), text=True)
    assert provider.stdout.readline().strip() == "ready"
    server = Kenning(folder, port, provider_port)
    server.beside_port = beside_port
    server.ids = {}
    for email, first, last, position, texts in PEOPLE:
        server.ids[email] = server.create(email, first, last, position)
        for n, text in enumerate(texts):
            server.upload(email, text, n)
    server.create_group("Kenning admins", [server.ids[ADMIN]], external_id=ADMIN_GROUP)
    yield server
    server.stop()
    provider.terminate()
    provider.wait(timeout=20)
    shutil.rmtree(folder, ignore_errors=True)


def _geckodriver():
    return os.environ.get("GECKODRIVER") or shutil.which("geckodriver")


#: The browsers the tests run in: Chromium always, Firefox where it and
#: geckodriver are installed (`make test` installs both).
def _firefox_binary():
    return shutil.which("firefox-esr") or shutil.which("firefox")


BROWSERS = ["chromium"] + (["firefox"] if _firefox_binary() and _geckodriver() else [])


def _firefox(tmp_path):
    options = webdriver.FirefoxOptions()
    options.binary_location = _firefox_binary()
    options.add_argument("-headless")
    # Firefox keeps a window at least 500 px wide: the narrowest it
    # allows; the 390 px of a phone are Chromium's to check.
    for pref, value in [("network.captive-portal-service.enabled", False),
                        ("app.update.auto", False), ("browser.shell.checkDefaultBrowser", False),
                        ("datareporting.policy.dataSubmissionEnabled", False)]:
        options.set_preference(pref, value)
    # Files a page downloads land in the test's own folder, unasked.
    for pref, value in [("browser.download.folderList", 2),
                        ("browser.download.dir", str(_downloads(tmp_path))),
                        ("browser.download.useDownloadDir", True),
                        ("browser.download.manager.showWhenStarting", False),
                        ("browser.helperApps.neverAsk.saveToDisk", "application/json")]:
        options.set_preference(pref, value)
    driver = webdriver.Firefox(options=options, service=webdriver.FirefoxService(
        executable_path=_geckodriver(), log_output=str(tmp_path / "geckodriver.log")))
    driver.set_window_size(390, 844)
    return driver


def _downloads(tmp_path):
    """The folder a test's browser downloads files to."""
    folder = tmp_path / "downloads"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(params=BROWSERS)
def browser(request, tmp_path):
    if request.param == "firefox":
        driver = _firefox(tmp_path)
        driver.name_for_screenshots = "firefox-"
        driver.widest = 500
        driver.downloads = _downloads(tmp_path)
        yield driver
        driver.quit()
        return
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(
        options=options,
        service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    # A phone: 390 CSS pixels wide.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(_downloads(tmp_path))})
    driver.downloads = _downloads(tmp_path)
    driver.implicitly_wait(0)
    driver.name_for_screenshots = ""
    driver.widest = 390
    yield driver
    driver.quit()


def check_page(driver, name):
    """axe-core's checks on the page (no serious or critical violation),
    nothing wider than the phone, and a screenshot named `name`."""
    driver.execute_script(AXE.read_text())
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then(r => done(r.violations.map(v => "
        "({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))))")
    serious = [v for v in result if v["impact"] in ("serious", "critical")]
    assert not serious, f"{name}: {serious}"
    width = driver.execute_script("return document.documentElement.scrollWidth")
    viewport = driver.execute_script("return window.innerWidth")
    assert viewport <= driver.widest and width <= viewport, f"{name} is {width} px wide at {viewport}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{driver.name_for_screenshots}{name}.png"))
