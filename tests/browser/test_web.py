"""Kenning's web app as a person uses it: in Chromium, at phone width,
signed in by a link or by the organisation's OpenID provider, by
keyboard where it matters; every page checked by axe-core."""

import datetime
import http.server
import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import ADMIN, BIN, COMPILERS, check_page, free_port, wait_for


def wait(driver, seconds=15):
    # A page being replaced can answer a read with any WebDriver error
    # (Chromium: "Node with given id does not belong to the document"):
    # read again until the new page answers, or time out.
    return WebDriverWait(driver, seconds, ignored_exceptions=(WebDriverException,))


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def heading(driver):
    return driver.find_element(By.TAG_NAME, "h1").text


def sign_in(driver, kenning, email):
    """Opens a sign-in link for `email` and presses its button."""
    driver.get(kenning.signin_link(email))
    assert heading(driver) == "Sign in with this link"
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    wait(driver).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Find who knows"))


def tab_to(driver, matches, limit=40):
    """Presses Tab until the focused element is one `matches` accepts."""
    for _ in range(limit):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        focused = driver.switch_to.active_element
        if matches(focused):
            return focused
    raise AssertionError("Tab never reached the element")


def test_a_link_signs_in_once_and_the_search_works_by_keyboard(browser, kenning):
    link = kenning.signin_link("ada@example.com")
    browser.get(kenning.url + "/")
    assert heading(browser) == "Sign in to Kenning"
    check_page(browser, "signin")
    # A link-preview robot fetches the link first: that spends nothing.
    with urllib.request.urlopen(link) as preview:
        assert preview.status == 200
        assert "Sign in with this link" in preview.read().decode()
    browser.get(link)
    assert heading(browser) == "Sign in with this link"
    check_page(browser, "link")
    # By keyboard: to the one button, Enter.
    tab_to(browser, lambda e: e.tag_name == "button" and e.text == "Sign in").send_keys(Keys.ENTER)
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Find who knows"))
    assert "Signed in as Ada Lovelace" in text(browser)
    check_page(browser, "search-empty")

    # By keyboard alone: to the box, a question, Enter, a result, Enter.
    box = tab_to(browser, lambda e: e.get_attribute("id") == "q")
    box.send_keys("kubernetes clusters", Keys.ENTER)
    wait(browser).until(seen.presence_of_element_located((By.ID, "results")))
    page = text(browser)
    assert "Ada Lovelace" in page
    assert "of 100" in page
    assert "create · document · 1 Mar 2026" in page
    assert "How Kenning read the question" in page
    check_page(browser, "search")
    tab_to(browser, lambda e: e.tag_name == "a" and e.text == "Ada Lovelace").send_keys(Keys.ENTER)
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Ada Lovelace"))
    assert "Platform engineer" in text(browser)
    check_page(browser, "person")

    # The link was good once.
    browser.delete_all_cookies()
    browser.get(link)
    submit(browser, "Sign in")
    assert heading(browser) == "This sign-in link no longer works"
    check_page(browser, "link-used")


def left(element):
    """A wait condition: `element`'s page has gone. Chromium may say so,
    mid-navigation, with an error of its inspector ("Node with given id does
    not belong to the document") rather than a stale element, so any refusal
    to read the old element counts."""

    def gone(_driver):
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True

    return gone


def ask(driver, query):
    before = driver.find_element(By.TAG_NAME, "main")
    box = driver.find_element(By.ID, "q")
    box.clear()
    box.send_keys(query, Keys.ENTER)
    # The answer is a new page: wait for the old one to go, so that the
    # last answer's reading is not taken for this one's.
    wait(driver).until(left(before))
    wait(driver).until(seen.text_to_be_present_in_element((By.TAG_NAME, "main"), "How Kenning read"))
    return text(driver)


def test_a_question_is_read_apart_from_its_subject_and_nobody_is_said(browser, kenning):
    sign_in(browser, kenning, "ada@example.com")
    page = ask(browser, "Who can help with kubernetes clusters?")
    assert "Ada Lovelace" in page
    assert "The question:" in page, page
    quoted = [q.text for q in browser.find_elements(By.CSS_SELECTOR, "main q")]
    assert quoted == ["Who can help with", "kubernetes clusters"], quoted
    assert "Nobody has learned" not in page
    check_page(browser, "search-question")

    # The headline counts the people at 50 or more; those under 50 are
    # the nearest, under their own heading.
    headline = browser.find_element(By.ID, "results").text
    answer = browser.find_elements(By.XPATH, "//h2[@id='nearest']/preceding-sibling::article//p[@class='score']/strong")
    assert all(int(s.text) >= 50 for s in answer), headline
    nearest = browser.find_elements(By.XPATH, "//h2[@id='nearest']/following-sibling::article//p[@class='score']/strong")
    assert all(10 <= int(s.text) < 50 for s in nearest), headline

    # A word that became no topic is said to be left out, not lost.
    page = ask(browser, "Who can help with kubernetes clusters in 2024?")
    assert "Words left out as no topic" in page, page
    left_out = browser.find_element(By.XPATH, "//p[starts-with(., 'Words left out')]")
    assert [q.text for q in left_out.find_elements(By.TAG_NAME, "q")] == ["in", "2024"], left_out.text
    browser.execute_script("arguments[0].scrollIntoView()", left_out)
    check_page(browser, "search-dropped")

    page = ask(browser, "Does anyone know about quantum chromodynamics?")
    assert "Nobody has learned what this asks about" in page, page
    headline = browser.find_element(By.ID, "results").text
    assert headline.startswith("Nobody seems to know about"), headline
    # Nobody at 0 of 100 is offered as an answer.
    assert "0 of 100" not in page, page
    check_page(browser, "search-nobody")


def test_a_card_and_a_page_say_how_to_reach_the_person(browser, kenning):
    sign_in(browser, kenning, "erin@example.com")
    ask(browser, "kubernetes clusters")
    ada = "/people/" + kenning.ids["ada@example.com"]
    card = browser.find_element(By.XPATH, f"//article[.//a[@href='{ada}']]")
    mail = card.find_element(By.PARTIAL_LINK_TEXT, "E-mail")
    assert mail.get_attribute("href") == "mailto:ada@example.com"
    chat = card.find_element(By.PARTIAL_LINK_TEXT, "Chat with")
    assert chat.get_attribute("href") == "https://chat.example.com/dm?to=ada@example.com"
    # By keyboard: the card's name, then its e-mail link.
    card.find_element(By.TAG_NAME, "h3").find_element(By.TAG_NAME, "a").send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("href") == "mailto:ada@example.com"

    # The administrator's page: her group leads to a search among its
    # members, and her topics say what they stand on.
    browser.get(kenning.url + "/people/" + kenning.ids[ADMIN])
    group = browser.find_element(By.XPATH, "//h2[.='Groups']/following-sibling::ul//a")
    assert group.get_attribute("href").startswith(kenning.url + "/?group="), group.get_attribute("href")
    assert "points" not in text(browser)
    check_page(browser, "person-contact")
    group.send_keys(Keys.ENTER)
    wait(browser).until(seen.presence_of_element_located((By.ID, "group")))
    chosen = browser.find_element(By.CSS_SELECTOR, "#group option:checked").text
    assert chosen == "Kenning admins", chosen


def test_a_person_hides_a_topic_and_shows_it_again(browser, kenning):
    sign_in(browser, kenning, "ada@example.com")
    browser.get(kenning.url + "/me")
    check_page(browser, "me")
    browser.find_element(By.XPATH, "//button[normalize-space()='Hide clusters']").click()
    wait(browser).until(seen.presence_of_element_located(
        (By.XPATH, "//button[normalize-space()='Show clusters']")))
    assert "Hide clusters" not in text(browser)
    # The page says what went with the subject.
    assert "Hidden" in text(browser)
    check_page(browser, "me-hidden")
    browser.get(kenning.url + "/?q=clusters")
    ada = "/people/" + kenning.ids["ada@example.com"]
    assert not browser.find_elements(By.CSS_SELECTOR, f"a[href='{ada}']")
    browser.get(kenning.url + "/me")
    browser.find_element(By.XPATH, "//button[normalize-space()='Show clusters']").click()
    wait(browser).until(seen.presence_of_element_located(
        (By.XPATH, "//button[normalize-space()='Hide clusters']")))


def test_a_person_adds_a_topic_kenning_missed_by_keyboard_and_removes_it(browser, kenning):
    sign_in(browser, kenning, "erin@example.com")
    browser.get(kenning.url + "/me")
    field = tab_to(browser, lambda e: e.get_attribute("id") == "declare-topic", limit=80)
    field.send_keys("COBOL batch jobs")
    field.send_keys(Keys.ENTER)
    wait(browser).until(seen.presence_of_element_located(
        (By.XPATH, "//button[normalize-space()='Remove COBOL batch jobs']")))
    check_page(browser, "me-declared")

    # Others find her by it, and read that she says so.
    browser.delete_all_cookies()
    sign_in(browser, kenning, "ada@example.com")
    ask(browser, "COBOL batch jobs")
    erin = "/people/" + kenning.ids["erin@example.com"]
    card = browser.find_element(By.XPATH, f"//article[.//a[@href='{erin}']]")
    assert "(says they know)" in card.text, card.text
    browser.get(kenning.url + erin)
    assert "Says they know" in text(browser)
    assert "COBOL batch jobs" in text(browser)

    browser.delete_all_cookies()
    sign_in(browser, kenning, "erin@example.com")
    browser.get(kenning.url + "/me")
    remove = browser.find_element(By.XPATH, "//button[normalize-space()='Remove COBOL batch jobs']")
    remove.send_keys(Keys.ENTER)
    wait(browser).until(seen.invisibility_of_element_located(
        (By.XPATH, "//button[normalize-space()='Remove COBOL batch jobs']")))
    browser.get(kenning.url + erin)
    assert "COBOL batch jobs" not in text(browser)


def test_signing_out_ends_the_session(browser, kenning):
    sign_in(browser, kenning, "ada@example.com")
    browser.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "You are signed out"))
    check_page(browser, "signed-out")
    browser.get(kenning.url + "/me")
    assert heading(browser) == "Sign in to Kenning"


def test_an_idle_session_ends_and_says_why(browser, kenning):
    sign_in(browser, kenning, "erin@example.com")
    idle = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=9)
    kenning.sql("UPDATE sessions SET last_seen = '%s' WHERE user_id = '%s'"
                % (idle.strftime("%Y-%m-%d %H:%M:%S"), kenning.ids["erin@example.com"]))
    browser.get(kenning.url + "/me")
    assert heading(browser) == "Sign in to Kenning"
    assert "long pause" in text(browser)
    check_page(browser, "session-ended")


def test_a_deactivated_person_is_signed_out(browser, kenning):
    sign_in(browser, kenning, "bob@example.com")
    bob = {"id": kenning.ids["bob@example.com"]}
    kenning.graphql("mutation($id: UUID!) { deactivateUser(globalUserId: $id) { globalUserId } }", bob)
    try:
        browser.get(kenning.url + "/")
        assert heading(browser) == "Sign in to Kenning"
        assert "deactivated" in text(browser)
        browser.get(kenning.url + "/people/" + bob["id"])
        assert "Sign in" in heading(browser)
        refused = subprocess.run([BIN, "--database-url", kenning.db_url, "signin-link",
                                  "--email", "bob@example.com"], capture_output=True, text=True)
        assert refused.returncode != 0 and "deactivated" in refused.stderr
    finally:
        kenning.graphql(
            "mutation($id: UUID!) { reactivateUser(globalUserId: $id) { globalUserId } }", bob)


def test_a_name_with_markup_shows_as_text(browser, kenning):
    sign_in(browser, kenning, "ada@example.com")
    browser.get(kenning.url + "/people/" + kenning.ids["mallory@example.com"])
    assert heading(browser) == "<img src=x onerror=window.__xss=1> Doe"
    assert browser.execute_script("return window.__xss === undefined")
    browser.get(kenning.url + "/?q=kubernetes")
    assert "<img src=x onerror=window.__xss=1> Doe" in text(browser)
    assert browser.execute_script("return window.__xss === undefined")
    browser.get(kenning.url + "/people/6f1c3c52-8c1f-4a53-9a43-1d2d51f0b7a1")
    assert heading(browser) == "There is no such person"
    check_page(browser, "no-such-person")


class Evil(http.server.BaseHTTPRequestHandler):
    """Another site's page, with forms aimed at Kenning."""

    target = ""
    victim = ""
    link = ""
    link_token = ""

    def do_GET(self):
        page = f"""<!doctype html><html lang="en"><title>Elsewhere</title><body>
<form method="post" action="{self.link}">
  <input type="hidden" name="csrf" value="{self.link_token}">
  <button id="signin">Claim your prize</button></form>
<form method="post" action="{self.target}/me/data">
  <button id="download">Win a download</button></form>
<form method="post" action="{self.target}/me/topics">
  <input type="hidden" name="topic" value="cluster"><input type="hidden" name="hidden" value="true">
  <button id="hide">Win a prize</button></form>
<form method="post" action="{self.target}/accounts/api/v1/graphql" enctype="text/plain">
  <input type="hidden" name='{{"query":"mutation {{ deactivateUser(globalUserId: \\"{self.victim}\\") {{ globalUserId }} }}","x":"' value='"}}'>
  <button id="graphql">Win another</button></form></body></html>"""
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(page.encode())

    def log_message(self, *args):
        pass


def test_another_site_cannot_change_anything(browser, kenning):
    Evil.target = kenning.url
    Evil.victim = kenning.ids["ada@example.com"]
    # The other site's own link, and the token of its page, fetched by the
    # site itself: its form would sign the visitor in as the site chose.
    Evil.link = kenning.signin_link("mallory@example.com")
    with urllib.request.urlopen(Evil.link) as page:
        Evil.link_token = page.read().decode().split('name="csrf" value="')[1].split('"')[0]
    evil = http.server.HTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        browser.find_element(By.ID, "signin").click()
        wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "This sign-in was refused"))
        check_page(browser, "link-refused")
        browser.get(kenning.url + "/me")
        assert heading(browser) == "Sign in to Kenning"

        sign_in(browser, kenning, "ada@example.com")
        exported = kenning.graphql(
            "query($id: UUID!) { auditTrail(resourceId: $id, kinds: [\"user.exported\"]) "
            "{ events { kind } } }", {"id": Evil.victim})["auditTrail"]["events"]
        browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        browser.find_element(By.ID, "download").click()
        wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "This form was refused"))
        browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        browser.find_element(By.ID, "hide").click()
        wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "This form was refused"))
        check_page(browser, "form-refused")
        browser.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        browser.find_element(By.ID, "graphql").click()
        wait(browser).until(lambda d: "Unauthenticated" in d.page_source or "401" in d.page_source
                            or "credential" in d.page_source)
        browser.get(kenning.url + "/me")
        assert "Hide clusters" in text(browser)
        user = kenning.graphql("query($id: UUID!) { user(globalUserId: $id) { status } }",
                               {"id": kenning.ids["ada@example.com"]})
        assert user["user"]["status"] == "ACTIVE"
        assert kenning.graphql(
            "query($id: UUID!) { auditTrail(resourceId: $id, kinds: [\"user.exported\"]) "
            "{ events { kind } } }", {"id": Evil.victim})["auditTrail"]["events"] == exported
    finally:
        evil.shutdown()


def provider_sign_in(browser, kenning, login, url=None):
    url = url or kenning.url
    browser.get(url + "/signin")
    browser.find_element(By.LINK_TEXT, "Sign in with Test Provider").click()
    wait(browser).until(seen.presence_of_element_located((By.NAME, "login")))
    browser.find_element(By.NAME, "login").send_keys(login)
    browser.find_element(By.NAME, "password").send_keys("any password", Keys.ENTER)
    wait(browser).until(lambda d: d.current_url.startswith(url)
                        or d.find_elements(By.XPATH, "//button[normalize-space()='Continue']"))
    consent = browser.find_elements(By.XPATH, "//button[normalize-space()='Continue']")
    if consent and not browser.current_url.startswith(url):
        consent[0].click()
    wait(browser).until(lambda d: d.current_url.startswith(url))


def test_signing_in_with_the_identity_provider(browser, kenning):
    provider_sign_in(browser, kenning, "grace")
    assert heading(browser) == "Find who knows"
    assert "Signed in as Grace Hopper" in text(browser)
    audit = kenning.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id) { events { kind fields } } }",
        {"id": kenning.ids["grace@example.com"]})
    assert {"kind": "user.signed_in", "fields": ["oidc"]} in audit["auditTrail"]["events"]


@pytest.mark.parametrize("login, said", [
    ("stranger", "Kenning does not know you yet"),
    ("unverified", "The sign-in did not succeed"),
])
def test_the_identity_provider_cannot_sign_in_whom_kenning_refuses(browser, kenning, login, said):
    provider_sign_in(browser, kenning, login)
    assert heading(browser) == said
    check_page(browser, f"refused-{login}")


def test_an_account_of_another_organisation_is_refused(browser, kenning):
    """With `--oidc-allowed-domain`, the provider's account of another
    domain does not sign in, although Kenning knows its address."""
    person(kenning, "dana", "dana@partner.example", "Dana", "Partner")
    port = kenning.beside_port
    server = subprocess.Popen(
        [BIN, "--database-url", kenning.db_url, "serve", "--bind", f"127.0.0.1:{port}",
         "--meaning", "off", "--oidc-allowed-domain", "example.com"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=kenning.env)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(url + "/readyz")
        provider_sign_in(browser, kenning, "partner", url)
        assert heading(browser) == "This account is outside the organisation"
        assert "account of partner.example" in text(browser)
        check_page(browser, "refused-domain")
        browser.get(url + "/me")
        assert heading(browser) == "Sign in to Kenning"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_a_forged_state_signs_nobody_in(browser, kenning):
    browser.get(kenning.url + "/auth/oidc")
    wait(browser).until(seen.presence_of_element_located((By.NAME, "login")))
    browser.get(kenning.url + "/auth/callback?code=stolen&state=forged")
    assert heading(browser) == "This sign-in answer is not the one expected"
    browser.get(kenning.url + "/me")
    assert heading(browser) == "Sign in to Kenning"


def test_a_provider_that_does_not_answer_is_said_to(kenning, tmp_path):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = free_port()
    server = None
    try:
        server = subprocess.Popen(
            [BIN, "--database-url", f"sqlite://{tmp_path / 'k.db'}", "serve", "--bind",
             f"127.0.0.1:{port}", "--meaning", "off", "--oidc-issuer",
             f"http://127.0.0.1:{silent.getsockname()[1]}", "--oidc-client-id", "kenning",
             "--oidc-timeout-secs", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        server.stdout.readline()

        wait_for(f"http://127.0.0.1:{port}/readyz")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/auth/oidc", timeout=30)
        assert refused.value.code == 503
        assert "did not answer" in refused.value.read().decode()
    finally:
        if server:
            server.terminate()
            server.wait(timeout=20)
        silent.close()


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def rogue_sign_in(kenning, rogue, settings, public_url=None, env=None, planted=False):
    """One sign-in with `rogue` at a Kenning server of its own (on the main
    one's database, so the people exist) started with `settings`: the
    callback's status, headers and page, and, when a session began, the
    page /me shows with it. Behind a `public_url` of https, the browser's
    requests still reach the server over http, as a proxy's would. With
    `planted`, the sign-in cookie comes back without its `__Host-` prefix,
    as another subdomain would have set it."""
    port = free_port()
    server = None
    opener = urllib.request.build_opener(NoRedirects)
    own = f"http://127.0.0.1:{port}"

    def get(url, cookie=None):
        url = url.replace(public_url, own) if public_url else url
        request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
        try:
            response = opener.open(request, timeout=30)
        except urllib.error.HTTPError as answer:
            response = answer
        return response.status, response.headers, response.read().decode()

    public = ["--public-url", public_url] if public_url else []
    try:
        server = subprocess.Popen(
            [BIN, "--database-url", kenning.db_url, "serve", "--bind", f"127.0.0.1:{port}",
             "--meaning", "off", "--oidc-issuer", rogue.base, "--oidc-client-id", "kenning",
             "--oidc-client-secret", "s", *public, *settings],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env=dict(os.environ, **(env or {})))
        wait_for(f"{own}/readyz")
        status, headers, _ = get(f"{own}/auth/oidc")
        assert status == 303
        pending = headers["Set-Cookie"].split(";")[0]
        if planted:
            pending = pending.removeprefix("__Host-")
        status, headers, _ = get(headers["Location"])
        assert status == 302
        status, headers, body = get(headers["Location"], pending)
        sessions = [v.split(";")[0] for v in headers.get_all("Set-Cookie") or []
                    if "kenning_session=" in v]
        me = get(f"{own}/me", sessions[0])[2] if status == 303 and sessions else None
        return status, headers, body, me
    finally:
        if server:
            server.terminate()
            server.wait(timeout=20)
        rogue.stop()


def person(kenning, key, email, first, last, external_id=None):
    """The id of a person the tests below sign in as, created once."""
    if key not in kenning.ids:
        fields = {"email": email, "firstname": first, "lastname": last}
        if external_id:
            fields["externalId"] = external_id
        kenning.ids[key] = kenning.graphql(
            "mutation($i: CreateUserInput!) { createUser(createUserInput: $i) { globalUserId } }",
            {"i": fields})["createUser"]["globalUserId"]
    return kenning.ids[key]


ADA = {"email": "ada@example.com", "email_verified": True}


@pytest.mark.parametrize("mode, claims, settings, signed_in", [
    ("honest", ADA, [], True),
    ("issuer", ADA, [], False),
    ("audience", ADA, [], False),
    ("honest", {}, ["--oidc-external-id-claim", "oid"], True),
])
def test_an_id_token_is_checked_and_matched(kenning, mode, claims, settings, signed_in):
    """A token naming another issuer or audience is refused; one the checks
    accept signs in the person its verified e-mail address names, or the
    person whose externalId the configured claim names."""
    from rogue import OID, Rogue
    person(kenning, "grace-external", "hopper@example.com", "Grace", "B", OID)
    status, _, body, me = rogue_sign_in(kenning, Rogue(mode, claims), settings)
    if not signed_in:
        assert status == 403, body
        assert "failed a check" in body, body
        return
    assert status == 303, body
    expected = "Grace B" if settings else "Ada Lovelace"
    assert f"Signed in as {expected}" in me, me


@pytest.mark.parametrize("claims, user_info, said", [
    # The ID token names Ada without saying the address is verified; the
    # UserInfo answer verifies the address it names, another one.
    ({"email": "ada@example.com"},
     {"email": "nobody@elsewhere.example", "email_verified": True},
     "Kenning does not know you yet"),
    ({"email_verified": True}, {"email": "ada@example.com"}, "The sign-in did not succeed"),
    ({}, {"email": "ada@example.com", "email_verified": True}, None),
])
def test_an_address_and_its_verification_come_from_one_source(
        kenning, claims, user_info, said):
    from rogue import Rogue
    status, _, body, me = rogue_sign_in(kenning, Rogue("honest", claims, user_info), [])
    if said:
        assert status == 403, body
        assert said in body, body
        assert me is None
    else:
        assert status == 303, body
        assert "Signed in as Ada Lovelace" in me, me


OUTSIDE = "This account is outside the organisation"


@pytest.mark.parametrize("claims, settings, env, expected", [
    # An account of another organisation, whose address Kenning knows.
    ({"email": "dana@partner.example", "email_verified": True},
     ["--oidc-allowed-domain", "example.com"], {}, OUTSIDE),
    ({"email": "dana@partner.example", "email_verified": True},
     [], {"KENNING_OIDC_ALLOWED_DOMAIN": "example.com, Partner.Example"}, "Dana Partner"),
    # Google's hosted domain decides over the address's.
    ({**ADA, "hd": "partner.example"}, ["--oidc-allowed-domain", "example.com"], {}, OUTSIDE),
    ({**ADA, "hd": "Example.COM"}, ["--oidc-allowed-domain", "example.com"], {}, "Ada Lovelace"),
    ({"email": "dana@partner.example", "email_verified": True},
     ["--oidc-external-id-claim", "oid", "--oidc-allowed-domain", "example.com"], {}, OUTSIDE),
    ({"email": "dana@example.com", "email_verified": False},
     ["--oidc-external-id-claim", "oid", "--oidc-allowed-domain", "example.com"], {},
     "The sign-in did not succeed"),
])
def test_only_accounts_of_the_allowed_domains_sign_in(kenning, claims, settings, env,
                                                      expected):
    from rogue import OID, Rogue
    person(kenning, "dana", "dana@partner.example", "Dana", "Partner")
    person(kenning, "grace-external", "hopper@example.com", "Grace", "B", OID)
    status, _, body, me = rogue_sign_in(kenning, Rogue("honest", claims), settings,
                                        env=env)
    if expected in (OUTSIDE, "The sign-in did not succeed"):
        assert status == 403, body
        assert expected in body, body
        assert me is None
    else:
        assert status == 303, body
        assert f"Signed in as {expected}" in me, me


@pytest.mark.parametrize("planted", [False, True])
def test_over_https_the_sign_in_cookie_is_the_hosts_alone(kenning, planted):
    """Behind https, the sign-in under way waits in `__Host-kenning_oidc`
    (Secure, Path=/, no Domain) and the session in `__Host-kenning_session`;
    the same value under the plain name, as a neighbouring subdomain could
    plant it, is not read."""
    from rogue import Rogue
    status, headers, body, me = rogue_sign_in(kenning, Rogue("honest", ADA), [],
                                              public_url="https://kenning.example.com",
                                              planted=planted)
    if planted:
        assert status == 400, body
        assert "This sign-in was not started here" in body, body
        assert me is None
        return
    assert status == 303, body
    cookies = headers.get_all("Set-Cookie")
    assert any(c.startswith("__Host-kenning_session=") and c.endswith("; Secure")
               for c in cookies), cookies
    assert any(c.startswith("__Host-kenning_oidc=; Path=/;") for c in cookies), cookies
    assert "Signed in as Ada Lovelace" in me, me


def unique(name):
    """An e-mail address no other test (nor the other browser) uses."""
    return f"{name}-{time.time_ns()}@example.com"


def submit(driver, button_text):
    """Clicks the button and waits for the page it leads to."""
    before = driver.find_element(By.TAG_NAME, "main")
    driver.find_element(By.XPATH, f"//button[normalize-space()='{button_text}']").click()
    wait(driver).until(left(before))


def test_an_administrator_creates_a_user_once_the_invalid_field_is_fixed(browser, kenning):
    sign_in(browser, kenning, ADMIN)
    # The header links administrators to the console, by keyboard too.
    tab_to(browser, lambda e: e.tag_name == "a" and e.text == "Admin").send_keys(Keys.ENTER)
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Users"))
    assert browser.find_element(By.CSS_SELECTOR, "nav[aria-label=Admin]")
    assert "Grace Hopper" in text(browser)
    check_page(browser, "admin-users")

    browser.find_element(By.LINK_TEXT, "New user").click()
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "New user"))
    email = unique("hedy")
    browser.find_element(By.ID, "email").send_keys(email.replace("@", " at "))
    browser.find_element(By.ID, "firstname").send_keys("Hedy")
    browser.find_element(By.ID, "lastname").send_keys("Lamarr")
    browser.find_element(By.ID, "position").send_keys("Inventor")
    submit(browser, "Create the user")
    assert heading(browser) == "New user"
    problem = browser.find_element(By.ID, "email-problem")
    assert problem.text == "E-mail address must be a valid e-mail address"
    box = browser.find_element(By.ID, "email")
    assert box.get_attribute("aria-invalid") == "true"
    assert box.get_attribute("value") == email.replace("@", " at ")
    assert browser.find_element(By.ID, "position").get_attribute("value") == "Inventor"
    assert not browser.find_elements(By.ID, "firstname-problem")
    check_page(browser, "admin-new-user-invalid")

    box.clear()
    box.send_keys(email)
    submit(browser, "Create the user")
    assert heading(browser) == "Hedy Lamarr"
    assert "Status: ACTIVE" in text(browser)
    assert browser.find_element(By.ID, "position").get_attribute("value") == "Inventor"
    assert browser.find_element(By.ID, "email").get_attribute("value") == email
    check_page(browser, "admin-user")


def test_an_administrator_deactivates_reactivates_deletes_and_cancels_the_deletion(
        browser, kenning):
    email = unique("ida")
    user = kenning.create(email, "Ida", "Rhodes", None)
    sign_in(browser, kenning, ADMIN)
    browser.get(f"{kenning.url}/admin/users/{user}")
    assert heading(browser) == "Ida Rhodes"
    for button, status in [("Deactivate", "DEACTIVATED"), ("Reactivate", "ACTIVE"),
                           ("Delete", "PENDING_DELETION")]:
        submit(browser, button)
        assert f"Status: {status}." in text(browser), text(browser)
    assert "erased for good on" in text(browser)
    assert not browser.find_elements(By.XPATH, "//button[normalize-space()='Reactivate']")
    check_page(browser, "admin-user-deleted")
    submit(browser, "Cancel the deletion")
    assert "Status: DEACTIVATED." in text(browser)

    # The audit trail tells every change as the administrator's.
    browser.find_element(By.LINK_TEXT, "Changes of this user in the audit trail").click()
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Audit trail"))
    kinds = [k.text for k in browser.find_elements(By.CSS_SELECTOR, ".entries strong")]
    assert kinds == ["user.deletion_cancelled", "user.deleted", "user.reactivated",
                     "user.deactivated", "user.created"], kinds
    admin = kenning.ids[ADMIN]
    assert len(browser.find_elements(By.CSS_SELECTOR, f".entries a[href='/admin/users/{admin}']")) == 4
    check_page(browser, "admin-audit")


def test_an_administrator_manages_groups_and_credentials(browser, kenning):
    sign_in(browser, kenning, ADMIN)
    browser.get(kenning.url + "/admin/groups")
    name = f"Compilers {time.time_ns()}"
    browser.find_element(By.ID, "displayName").send_keys(name)
    submit(browser, "Create the group")
    assert heading(browser) == name
    browser.find_element(By.ID, "email").send_keys("nobody@example.com")
    submit(browser, "Add to the group")
    assert "is the address of no user" in browser.find_element(By.ID, "email-problem").text
    box = browser.find_element(By.ID, "email")
    box.clear()
    box.send_keys("grace@example.com")
    submit(browser, "Add to the group")
    assert "Grace Hopper" in text(browser)
    check_page(browser, "admin-group")
    browser.get(kenning.url + "/admin/groups")
    check_page(browser, "admin-groups")

    browser.get(kenning.url + "/admin/credentials")
    browser.find_element(By.CSS_SELECTOR, "input[value=apikey]").click()
    browser.find_element(By.ID, "name").send_keys("wiki connector")
    submit(browser, "Issue")
    secret = browser.find_element(By.ID, "secret").get_attribute("value")
    assert secret.startswith("kn_key_")
    check_page(browser, "admin-issued")
    browser.get(kenning.url + "/admin/credentials")
    assert secret not in browser.page_source
    check_page(browser, "admin-credentials")
    submit(browser, "Revoke wiki connector")
    assert "revoked" in text(browser)


def test_a_person_who_is_no_administrator_gets_403_on_the_console(browser, kenning):
    sign_in(browser, kenning, "grace@example.com")
    assert not browser.find_elements(By.LINK_TEXT, "Admin")
    browser.get(kenning.url + "/admin")
    assert heading(browser) == "Only for administrators"
    assert "kenning-admins" in text(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, "nav[aria-label=Admin]")
    check_page(browser, "admin-forbidden")

    cookie = "kenning_session=" + browser.get_cookie("kenning_session")["value"]
    for method, path in [("GET", "/admin"), ("POST", "/admin"),
                         ("GET", "/admin/users/" + kenning.ids["ada@example.com"]),
                         ("POST", "/admin/users/" + kenning.ids["ada@example.com"] + "/delete"),
                         ("POST", "/admin/credentials")]:
        request = urllib.request.Request(kenning.url + path, method=method,
                                         data=b"csrf=x" if method == "POST" else None,
                                         headers={"Cookie": cookie})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == 403, (method, path)
        assert "Only for administrators" in refused.value.read().decode(), (method, path)


SOLAR = ("Photovoltaic inverters convert the panels' direct current. We replaced the "
         "photovoltaic inverters on the warehouse roof and tuned the photovoltaic "
         "inverters' tracking.")
BEES = ("Beekeeping hives need inspection every spring. We inspected the beekeeping "
        "hives, treated the varroa mites and moved the beekeeping hives to the orchard.")
BREAD = ("Sourdough starters ferment the dough overnight. The bakery fed the sourdough "
         "starters, and sourdough fermentation gave the loaves their sour crumb.")


def upload(kenning, email, text, alias, entity_type="document"):
    """One upload through the connector API, as a connector sends it; its
    answer (the action's id and the topics it taught)."""
    body = json.dumps({"entity_type": entity_type, "action_type": "create",
                       "action_date": "2026-03-02T08:00:00.000Z", "user_email": email,
                       "text": text, "action_alias": alias})
    request = urllib.request.Request(
        kenning.url + "/connectors/api/v1/entities-with-action", data=body.encode(),
        headers={"APIKEY": kenning.key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
        return json.load(response)


def found(driver, kenning, query, person):
    """Whether a search for `query` lists `person` (their id)."""
    driver.get(kenning.url + "/?" + urllib.parse.urlencode({"q": query}))
    wait(driver).until(seen.text_to_be_present_in_element((By.TAG_NAME, "main"), "How Kenning read"))
    return bool(driver.find_elements(By.CSS_SELECTOR, f"a[href='/people/{person}']"))


def set_rule(driver, field, value, button):
    """Writes `value` in the rule form's `field` and sends it."""
    box = driver.find_element(By.ID, field)
    box.clear()
    box.send_keys(value)
    submit(driver, button)


def downloaded(driver, click, name, seconds=20):
    """The JSON file `click` makes the browser download as `name`."""
    target = driver.downloads / name
    if target.exists():
        target.unlink()
    click()
    deadline = time.time() + seconds
    while time.time() < deadline:
        if target.exists() and target.stat().st_size > 0:
            try:
                return json.loads(target.read_text())
            except ValueError:
                pass  # still being written
        time.sleep(0.2)
    raise AssertionError(f"{name} was not downloaded: {list(driver.downloads.iterdir())}")


def test_an_administrator_excludes_chat_and_a_chat_upload_teaches_nothing(browser, kenning):
    email = unique("sol")
    person = kenning.create(email, "Sol", "Watt", "Facilities engineer")
    sign_in(browser, kenning, ADMIN)
    browser.get(kenning.url + "/admin")
    browser.find_element(By.LINK_TEXT, "Rules on learning").click()
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Rules on learning"))

    # An invalid value is refused beside its field, as written.
    set_rule(browser, "entity-type", "Chat", "Exclude the entity type")
    assert heading(browser) == "Rules on learning"
    problem = browser.find_element(By.ID, "entity-type-problem").text
    assert problem == "Entity type must be lower-case letters, digits and underscores", problem
    box = browser.find_element(By.ID, "entity-type")
    assert box.get_attribute("value") == "Chat"
    assert box.get_attribute("aria-invalid") == "true"
    check_page(browser, "admin-rules-invalid")
    set_rule(browser, "retention-days", "0", "Set the retention")
    assert browser.find_element(By.ID, "retention-days-problem").text == "Days must be at least 1"
    assert browser.find_element(By.ID, "retention-days").get_attribute("value") == "0"
    assert not browser.find_elements(By.ID, "entity-type-problem")

    set_rule(browser, "entity-type", "chat", "Exclude the entity type")
    assert "Uploads of the entity type chat teach nothing." in text(browser)
    assert "Set by Frances Allen through web" in text(browser)
    check_page(browser, "admin-rules")
    try:
        answer = upload(kenning, email, SOLAR, f"chat_{person}_1", "chat")
        assert answer["topics"] == [], answer
        assert not found(browser, kenning, "photovoltaic inverters", person)
    finally:
        browser.get(kenning.url + "/admin/rules")
        submit(browser, "Lift the exclusion of the entity type chat")
    assert "entity type chat" not in text(browser)
    # Lifted, the next chat teaches.
    answer = upload(kenning, email, SOLAR, f"chat_{person}_2", "chat")
    assert answer["topics"], answer
    assert found(browser, kenning, "photovoltaic inverters", person)


def test_an_administrator_turns_learning_off_and_on_for_a_group(browser, kenning):
    email = unique("bea")
    person = kenning.create(email, "Bea", "Keeper", "Orchard manager")
    for n in range(2):
        upload(kenning, email, BEES, f"bees_{person}_{n}")
    group = f"Orchard {time.time_ns()}"
    kenning.create_group(group, [person])
    sign_in(browser, kenning, ADMIN)
    assert found(browser, kenning, "beekeeping hives", person)

    browser.get(kenning.url + "/admin/rules")
    Select(browser.find_element(By.ID, "group")).select_by_visible_text(group)
    submit(browser, "Turn learning off for the group")
    try:
        assert f"Kenning does not learn about the members of {group}." in text(browser)
        assert not found(browser, kenning, "beekeeping hives", person)
        browser.get(kenning.url + "/people/" + person)
        assert "Kenning does not learn about Bea Keeper" in text(browser)
    finally:
        browser.get(kenning.url + "/admin/rules")
        submit(browser, f"Turn learning on for {group}")
    assert f"members of {group}" not in text(browser)
    assert found(browser, kenning, "beekeeping hives", person)


def test_a_person_opts_out_forgets_and_downloads_their_data(browser, kenning):
    email = unique("bert")
    person = kenning.create(email, "Bert", "Baker", "Head baker")
    aliases = [f"bread_{person}_{n}" for n in range(2)]
    for alias in aliases:
        assert upload(kenning, email, BREAD, alias)["topics"]
    sign_in(browser, kenning, email)
    browser.get(kenning.url + "/me")
    assert browser.find_elements(By.XPATH, "//button[starts-with(normalize-space(), 'Hide ')]")

    # By keyboard: to the button, Enter.
    tab_to(browser, lambda e: e.tag_name == "button"
           and e.text == "Stop learning from my activity", limit=80).send_keys(Keys.ENTER)
    wait(browser).until(seen.presence_of_element_located(
        (By.XPATH, "//button[normalize-space()='Start learning from my activity']")))
    assert "Kenning is not learning about you, as you chose" in text(browser)
    check_page(browser, "me-opted-out")
    answer = upload(kenning, email, BREAD, f"bread_{person}_optedout")
    assert answer["topics"] == [], answer
    aliases.append(f"bread_{person}_optedout")

    browser.find_element(By.LINK_TEXT, "Forget what Kenning learned about me").click()
    wait(browser).until(seen.text_to_be_present_in_element(
        (By.TAG_NAME, "h1"), "Forget what Kenning learned about you"))
    check_page(browser, "forget")
    # The page offers the download first: it holds every action of theirs.
    data = downloaded(browser, browser.find_element(
        By.XPATH, "//button[normalize-space()='Download what Kenning keeps about you']").click,
        "kenning-my-data.json")
    assert data["user"]["globalUserId"] == person, data["user"]
    assert data["learning"] == {"choice": False, "learns": False}, data["learning"]
    assert sorted(a["alias"] for a in data["actions"]) == sorted(aliases), data["actions"]
    assert data["topics"], data

    submit(browser, "Forget what Kenning learned about me")
    # Learning again, nothing learned before comes back.
    submit(browser, "Start learning from my activity")
    assert not browser.find_elements(By.XPATH, "//button[starts-with(normalize-space(), 'Hide ')]")
    browser.get(kenning.url + "/people/" + person)
    assert heading(browser) == "Bert Baker"
    assert not browser.find_elements(By.CSS_SELECTOR, ".topics li"), text(browser)
    browser.get(kenning.url + "/me")
    data = downloaded(browser, browser.find_element(
        By.XPATH, "//button[normalize-space()='Download what Kenning keeps about you']").click,
        "kenning-my-data.json")
    assert data["actions"] == [] and data["topics"] == [], data
    assert data["learning"] == {"choice": True, "learns": True}, data["learning"]

    # Its address alone (a link from anywhere) shows the button and hands
    # nothing out; the button does, by keyboard too.
    exports = len(kenning.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id, kinds: [\"user.exported\"]) "
        "{ events { kind } } }", {"id": person})["auditTrail"]["events"])
    browser.get(kenning.url + "/me/data")
    assert heading(browser) == "Download what Kenning keeps about you"
    check_page(browser, "data")
    assert len(kenning.graphql(
        "query($id: UUID!) { auditTrail(resourceId: $id, kinds: [\"user.exported\"]) "
        "{ events { kind } } }", {"id": person})["auditTrail"]["events"]) == exports
    button = tab_to(browser, lambda e: e.tag_name == "button"
                    and e.text == "Download what Kenning keeps about you")
    data = downloaded(browser, lambda: button.send_keys(Keys.ENTER), "kenning-my-data.json")
    assert data["user"]["globalUserId"] == person, data["user"]


def test_what_people_ask_that_nobody_knows(browser, kenning):
    sign_in(browser, kenning, "ada@example.com")
    ask(browser, "Who knows about heliospheric magnetometers?")
    ask(browser, "compiler register allocation")
    sign_in(browser, kenning, ADMIN)
    browser.get(kenning.url + "/admin/gaps")
    assert heading(browser) == "What people ask that nobody knows"
    nobody = browser.find_element(By.XPATH, "//section[h2='Nobody knows']").text.lower()
    assert "magnetometer" in nobody, nobody
    assert "asked" in nobody and "last on" in nobody
    alone = browser.find_element(By.XPATH, "//section[h2='One person alone knows']").text.lower()
    assert "register allocation" in alone, alone
    assert "never who asked" in text(browser)
    check_page(browser, "admin-gaps")
    browser.find_element(By.LINK_TEXT, "Last 90 days").click()
    wait(browser).until(lambda d: "days=90" in d.current_url)
    assert "magnetometer" in text(browser).lower()


def test_an_administrator_handles_a_persons_data_on_their_request(browser, kenning):
    email = unique("ida")
    person = kenning.create(email, "Ida", "Baker", None)
    upload(kenning, email, COMPILERS, f"compilers_{person}")
    sign_in(browser, kenning, ADMIN)
    browser.get(f"{kenning.url}/admin/users/{person}")
    privacy = browser.find_element(By.XPATH, "//section[h2='Privacy']")
    assert "Kenning learns from their activity." in privacy.text
    submit(browser, "Stop learning from their activity")
    privacy = browser.find_element(By.XPATH, "//section[h2='Privacy']")
    assert "Kenning does not learn from their activity" in privacy.text
    assert "Their own choice: do not learn about me." in privacy.text
    check_page(browser, "admin-user-privacy")
    name = f"kenning-data-{person}.json"
    data = downloaded(browser, browser.find_element(
        By.XPATH, "//button[normalize-space()='Download what Kenning keeps about them']").click,
        name)
    assert [a["alias"] for a in data["actions"]] == [f"compilers_{person}"], data["actions"]
    browser.get(f"{kenning.url}/admin/users/{person}/data")
    assert heading(browser) == "Download what Kenning keeps about Ida Baker"
    check_page(browser, "admin-data")
    browser.get(f"{kenning.url}/admin/users/{person}")
    browser.find_element(By.LINK_TEXT, "Forget what Kenning learned about them").click()
    wait(browser).until(seen.text_to_be_present_in_element((By.TAG_NAME, "h1"), "Forget what"))
    check_page(browser, "admin-forget")
    submit(browser, "Forget what Kenning learned about Ida Baker")
    assert heading(browser) == "Ida Baker"
    submit(browser, "Start learning from their activity")
    data = downloaded(browser, browser.find_element(
        By.XPATH, "//button[normalize-space()='Download what Kenning keeps about them']").click,
        name)
    assert data["actions"] == [], data["actions"]
    assert data["learning"]["learns"] is True


def report_run(kenning, run):
    """One run's report through the connector API, as `kenning connect`
    sends it at the end of a run; the recorded run's id."""
    request = urllib.request.Request(
        kenning.url + "/connectors/api/v1/runs", data=json.dumps(run).encode(),
        headers={"APIKEY": kenning.key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201
        return json.load(response)["id"]


def test_an_administrator_sees_the_sources_and_what_needs_a_look(browser, kenning):
    sign_in(browser, kenning, ADMIN)
    browser.get(kenning.url + "/admin/users")
    # Sources is in the console's navigation, reached by keyboard.
    tab_to(browser, lambda e: e.text == "Sources").send_keys(Keys.ENTER)
    wait(browser).until(lambda d: d.current_url.endswith("/admin/sources"))
    assert heading(browser) == "Sources"
    # The server is shared by both browsers: only the first sees no source.
    if not getattr(kenning, "runs_reported", False):
        assert "kenning connect git REPO --url " + kenning.url in text(browser)
        check_page(browser, "admin-sources-empty")
    kenning.runs_reported = True

    finished = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    at = lambda moment: moment.isoformat().replace("+00:00", "Z")
    report_run(kenning, {
        "source": "git", "name": "/srv/git/platform.git",
        "started": at(finished - datetime.timedelta(minutes=3, seconds=12)),
        "finished": at(finished - datetime.timedelta(minutes=1)),
        "read": 1412, "sent": 1380, "known": 20, "not_found": 12, "refused": {},
        "failed": 0, "dry_run": False, "error": None})
    report_run(kenning, {
        "source": "mail", "name": "imaps://mail.example.com/Sent",
        "started": at(finished - datetime.timedelta(seconds=40)), "finished": at(finished),
        "read": 230, "sent": 180, "known": 0, "not_found": 41,
        "refused": {"UnknownUser": 7, "ValidationError": 2},
        "failed": 0, "dry_run": False,
        "error": "the server answered 503 four times; stopped after message 226"})
    browser.get(kenning.url + "/admin/sources")
    sources = browser.find_elements(By.CSS_SELECTOR, "ul.rows > li")
    assert [s.find_element(By.TAG_NAME, "h2").text for s in sources] == [
        "mail: imaps://mail.example.com/Sent", "git: /srv/git/platform.git"]
    mail, git = (s.text for s in sources)
    # The troubled source says so in words, not by colour alone.
    assert "Needs a look: it stopped on an error, and 9 uploads were refused." in mail, mail
    assert "UnknownUser 7, ValidationError 2" in mail
    assert "stopped after message 226" in mail
    assert "Needs a look" not in git, git
    assert "took 2 min 12 s" in git and "1,380" in git, git
    check_page(browser, "admin-sources")

    browser.find_element(By.PARTIAL_LINK_TEXT, "Recent runs of mail").click()
    wait(browser).until(seen.text_to_be_present_in_element(
        (By.TAG_NAME, "h1"), "Runs of mail: imaps://mail.example.com/Sent"))
    assert "Needs a look" in text(browser)
    check_page(browser, "admin-source-runs")
