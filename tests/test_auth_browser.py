"""The API tokens page in Chromium: no WCAG problems, revoking a token, logging out."""
from __future__ import annotations

import pytest
import requests

from browser import FACILITATOR_PASSWORD, browser, server  # noqa: F401  (fixtures)
from test_accessibility import violations

pytestmark = pytest.mark.browser


def test_the_tokens_page_revokes_a_token_and_logging_out_ends_the_session(server, browser):  # noqa: F811
    tokens = [requests.post(server.url + "/api/login", json={"name": "teacher", "password": FACILITATOR_PASSWORD},
                            timeout=10).json()["token"] for _ in range(2)]
    context = browser.new_context(bypass_csp=True, reduced_motion="reduce", viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.goto(server.url + "/facilitator/login")
    page.get_by_label("Name").fill("teacher")
    page.get_by_label("Password").fill(FACILITATOR_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="API tokens").click()
    page.get_by_role("heading", name="Tokens that still work").wait_for()
    assert violations(page) == []
    assert page.locator("tr.token-row").count() >= 2
    page.locator("tr.token-row").first.get_by_role("button", name="Revoke").click()
    page.get_by_text("revoked: anything still using it must log in again").wait_for()
    status = [requests.get(server.url + "/api/tokens", headers={"Authorization": f"Bearer {t}"}, timeout=10)
              .status_code for t in tokens]
    assert status == [200, 401]  # the newest (listed first) was revoked

    cookies = context.cookies()
    page.get_by_role("link", name="Dashboard").click()
    page.get_by_role("button", name="Log out").click()
    page.get_by_role("heading", name="Facilitator login").wait_for()
    replay = browser.new_context()
    replay.add_cookies(cookies)  # a copy of the cookie taken before logging out
    copied = replay.new_page()
    copied.goto(server.url + "/facilitator/tokens")
    copied.get_by_role("heading", name="Facilitator login").wait_for()
    replay.close()
    context.close()
