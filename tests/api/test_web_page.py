"""The web page in real headless Chromium (Debian ``chromium`` + ``chromedriver`` through Selenium): type a query,
click the first hit, and check that the highlight lies over the span's box and that the words under it are the
span's words (Tesseract reads the screenshot). The screenshot is kept in ``build/artifacts/``."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytesseract
import pytest
import uvicorn
from fastapi import FastAPI
from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from kruschnexus.api.app import create_app
from kruschnexus.hub import Hub
from tests.conftest import ROOT

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
ARTIFACTS = ROOT / "build" / "artifacts"
QUERY = "commercial office space Section 8.22"

if not (CHROMIUM and CHROMEDRIVER) and os.environ.get("NEXUS_REQUIRE_BROWSER") != "1":
    pytest.skip(
        "Chromium and chromedriver are not installed (apt install chromium chromium-driver; .ci/run does)",
        allow_module_level=True,
    )


@contextmanager
def _served(app: FastAPI) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def base_url(app: FastAPI) -> Iterator[str]:
    with _served(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    assert CHROMIUM and CHROMEDRIVER, "NEXUS_REQUIRE_BROWSER=1 but Chromium or chromedriver is missing"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1500,1100"):
        options.add_argument(flag)
    options.add_argument("--force-device-scale-factor=1")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def _search(browser: WebDriver, base_url: str, workspace: str, query: str, token: str = "") -> None:
    browser.get(f"{base_url}/?workspace={workspace}")
    wait = WebDriverWait(browser, 30)
    if token:
        field = browser.find_element(By.ID, "token")
        field.send_keys(token)
        browser.find_element(By.ID, "query").click()  # leaving the field stores it and reloads the workspaces
    wait.until(lambda d: d.find_element(By.ID, "workspace").get_attribute("value") == workspace)
    box = browser.find_element(By.ID, "query")
    box.clear()
    box.send_keys(query)
    browser.find_element(By.ID, "go").click()


def test_click_first_hit_highlights_the_span_on_the_page(
    browser: WebDriver, base_url: str, hub: Hub, fixtures_workspace: str
) -> None:
    with hub.corpus(fixtures_workspace) as corpus:
        hit = corpus.search(QUERY)[0]
        page = corpus.page(hit.doc_id, hit.page_number or 0)
    assert hit.bbox is not None and hit.boxes
    _search(browser, base_url, fixtures_workspace, QUERY)
    wait = WebDriverWait(browser, 60)
    first = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#hits .hit")))
    assert first.find_element(By.CLASS_NAME, "citation").text == hit.citation
    first.click()
    wait.until(lambda d: d.find_element(By.ID, "overlay").get_attribute("data-ready") == "1")

    image = browser.find_element(By.ID, "page-image")
    rect: dict[str, Any] = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height};", image
    )
    scale = rect["w"] / page.width
    assert abs(rect["h"] / page.height - scale) < 0.01, "the page image is distorted"
    marks = browser.find_elements(By.CSS_SELECTOR, "#overlay .box.hl")
    assert len(marks) == len(hit.boxes)
    for mark, (x, y, w, h) in zip(marks, hit.boxes, strict=True):
        r = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.x, r.y, r.width, r.height];", mark
        )
        expected = [rect["x"] + x * scale, rect["y"] + y * scale, w * scale, h * scale]
        assert all(abs(a - b) <= 1.5 for a, b in zip(r, expected, strict=True)), (r, expected)
    assert browser.find_elements(By.CSS_SELECTOR, "#overlay .box.nb"), "neighbouring spans are not shown"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "web-highlight.png"
    assert browser.save_screenshot(str(shot))
    words = _words_under(shot, [rect["x"] + hit.bbox[0] * scale, rect["y"] + hit.bbox[1] * scale], hit.bbox, scale)
    expected_words = set(_norm(hit.text))
    assert len(words & expected_words) >= 0.6 * len(expected_words), (sorted(words), hit.text)


def _words_under(shot: Path, origin: list[float], bbox: list[float], scale: float) -> set[str]:
    left, top = origin
    crop = Image.open(shot).crop((int(left), int(top), int(left + bbox[2] * scale) + 1, int(top + bbox[3] * scale) + 1))
    crop = crop.resize((crop.width * 3, crop.height * 3)).convert("L")
    return set(_norm(pytesseract.image_to_string(crop)))


def _norm(text: str) -> list[str]:
    return [w for w in ("".join(c for c in t.lower() if c.isalnum()) for t in text.split()) if len(w) > 2]


def test_nothing_found_shows_why(browser: WebDriver, base_url: str, fixtures_workspace: str) -> None:
    _search(browser, base_url, fixtures_workspace, "recipe for banana bread with walnuts")
    wait = WebDriverWait(browser, 60)
    wait.until(lambda d: d.find_element(By.ID, "status").get_attribute("data-abstain") == "1")
    status = browser.find_element(By.ID, "status").text
    assert status.startswith("No answer (") and "floor" in status
    assert not browser.find_elements(By.CSS_SELECTOR, "#hits .hit")


def test_a_malformed_query_shows_the_error(browser: WebDriver, base_url: str, fixtures_workspace: str) -> None:
    _search(browser, base_url, fixtures_workspace, '"office space')
    wait = WebDriverWait(browser, 60)
    wait.until(lambda d: "quote" in d.find_element(By.ID, "status").text)
    assert browser.find_element(By.ID, "status").get_attribute("class") == "error"


def test_the_page_works_on_a_server_that_requires_tokens(browser: WebDriver, hub: Hub, fixtures_workspace: str) -> None:
    token, _ = hub.create_token(fixtures_workspace, "read")
    with _served(create_app(hub, require_token=True)) as url:
        _search(browser, url, fixtures_workspace, QUERY, token=token)
        wait = WebDriverWait(browser, 60)
        wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#hits .hit"))).click()
        wait.until(lambda d: d.find_element(By.ID, "overlay").get_attribute("data-ready") == "1")
        assert browser.find_elements(By.CSS_SELECTOR, "#overlay .box.hl")
        browser.execute_script("sessionStorage.clear()")
