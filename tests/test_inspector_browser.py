"""The web memory inspector in a real headless Chromium (Debian ``chromium`` driven by Playwright
for Python; never a downloaded browser) against the real service under uvicorn."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from jiyi import Memory
from live_server import ThreadServer

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
T0 = datetime.now(UTC) - timedelta(days=2)


def seed(db: str) -> None:
    turns = [
        ("s-shop", "u-zhang", "我叫张伟，订单号是 ABC12345，还没有发货。", 0),
        ("s-shop", "u-zhang", "我的手机号是 13812345678", 1),
        ("s-shop", "u-zhang", "我换号了，新号是 13987654321", 2),
        ("s-travel", "u-zhang", "我下个月去杭州出差，住在西湖区。", 3),
        ("s-en", "u-alice", "My name is Alice and my locker code is QX7781.", 4),
        ("s-en", "u-alice", "I prefer window seats on flights.", 5),
        ("s-tw", "u-lin", "我的電話號碼是 13712345678，請記住。", 6),
    ]
    with Memory.open(db, embedder="fake") as mem:
        for n, (session, user, text, minutes) in enumerate(turns):
            mem.ingest(text, session_id=session, user_id=user, turn_id=f"T{n + 1}",
                       at=T0 + timedelta(minutes=minutes))


@pytest.fixture
def service(db_path: str) -> Iterator[str]:
    from jiyi.service.app import create_app

    seed(db_path)
    app = create_app(db=db_path, embedder="fake")
    with ThreadServer(app) as server:
        yield server.url


def test_inspector_api_answers_json(service: str) -> None:
    users = httpx.get(service + "/inspector/api/users").json()["users"]
    assert {"u-zhang", "u-alice", "u-lin"} <= set(users)
    units = httpx.get(service + "/inspector/api/units", params={"user_id": "u-zhang"}).json()
    old = [u for u in units["units"] if "13812345678" in u["content"]]
    assert old and not old[0]["valid_now"] and "13987654321" in old[0]["superseded_by_content"]
    r = httpx.get(service + "/inspector/api/recall",
                  params={"q": "订单 ABC12345", "session_id": "s-shop", "user_id": "u-zhang"}).json()
    assert r["stages"]["rule"] and "ABC12345" in r["stages"]["rule"][0]["content"]
    assert "ABC12345" in r["hits"][0]["content"]
    bad = httpx.get(service + "/inspector/api/units/m_nope")
    assert bad.status_code == 404 and bad.json()["error"]["code"] == "not_found"
    assert httpx.get(service + "/inspector/static/../app.py").status_code == 404
    page = httpx.get(service + "/")
    assert page.status_code == 200 and "<script src=\"/inspector/static/inspector.js\">" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN


def test_inspector_in_headless_chromium(service: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            outside: list[str] = []
            page.on("request", lambda req: outside.append(req.url)
                    if not req.url.startswith(service) else None)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(service + "/")
            page.wait_for_function("document.querySelectorAll('#user option').length > 1")

            page.select_option("#user", "u-zhang")
            page.wait_for_selector("#units tbody tr")
            rows = page.locator("#units tbody tr")
            assert rows.count() >= 3
            invalid = page.locator("#units tbody tr.invalid")
            assert invalid.count() >= 1
            assert "13987654321" in invalid.first.inner_text()  # what superseded it
            assert page.locator("#health-chart rect").count() >= 4
            assert "%" in page.locator("#health-figures").inner_text()

            with page.expect_response(lambda r: "session_id=s-shop" in r.url) as units_resp:
                page.select_option("#session", "s-shop")
            assert units_resp.value.ok
            page.fill("#query", "我的订单号 ABC12345")
            page.click("#recall-form button")
            page.wait_for_selector("#recall-result .final li")
            result = page.locator("#recall-result").inner_text()
            assert "ABC12345" in result and "rules" in result and "confidence" in result

            page.locator("#units tbody tr", has_text="ABC12345").first.click()
            page.wait_for_selector("#detail .turn")
            detail = page.locator("#detail").inner_text()
            assert "我叫张伟，订单号是 ABC12345，还没有发货。" in detail  # the provenance turn
            assert "T1" in detail
            page.screenshot(path=str(ARTIFACTS / "inspector.png"), full_page=True)
            assert not errors, errors
            assert not outside, outside
        finally:
            browser.close()
    assert (ARTIFACTS / "inspector.png").stat().st_size > 10_000


def test_inspector_page_is_open_but_its_data_needs_the_token(db_path: str) -> None:
    from jiyi.service.app import create_app

    seed(db_path)
    app = create_app(db=db_path, embedder="fake", token="s3cret-token")
    with ThreadServer(app) as server:
        assert httpx.get(server.url + "/").status_code == 200
        assert httpx.get(server.url + "/inspector/static/inspector.js").status_code == 200
        denied = httpx.get(server.url + "/inspector/api/users")
        assert denied.status_code == 401 and denied.json()["error"]["code"] == "unauthorized"
        ok = httpx.get(server.url + "/inspector/api/users",
                       headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 200 and "u-zhang" in ok.json()["users"]
