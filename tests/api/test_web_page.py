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
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

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
    assert status.startswith("No answer: no passage in this workspace matches"), status
    assert "floor" in browser.find_element(By.CSS_SELECTOR, "#status .detail").text
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


def _open_first(browser: WebDriver, base_url: str, workspace: str, query: str, ready: str) -> None:
    _search(browser, base_url, workspace, query)
    wait = WebDriverWait(browser, 60)
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#hits .hit"))).click()
    wait.until(lambda d: d.find_element(By.ID, ready).get_attribute("data-ready") == "1")


def test_an_unpaged_hit_after_a_pdf_hit_shows_its_text_not_the_old_page(
    browser: WebDriver, base_url: str, hub: Hub, fixtures_workspace: str
) -> None:
    row_query = '"Smith, Jones & Partners"'
    with hub.corpus(fixtures_workspace) as corpus:
        row = corpus.search(row_query)[0]
    assert row.page_number is None and row.locator is not None
    _open_first(browser, base_url, fixtures_workspace, QUERY, "overlay")
    assert browser.find_element(By.ID, "page").is_displayed()
    _open_first(browser, base_url, fixtures_workspace, row_query, "unit-text")
    assert not browser.find_element(By.ID, "page").is_displayed(), "the PDF page stays under the row's citation"
    assert not browser.find_element(By.ID, "page-image").is_displayed()
    assert browser.find_element(By.ID, "unit-text").is_displayed()
    assert browser.find_element(By.CSS_SELECTOR, "#unit-text mark").text == row.text
    assert browser.find_element(By.ID, "viewer-title").text == row.citation


def test_hits_are_reached_and_opened_with_the_keyboard(
    browser: WebDriver, base_url: str, hub: Hub, fixtures_workspace: str
) -> None:
    query = "when is the rent due and what happens if it is paid late"
    with hub.corpus(fixtures_workspace) as corpus:
        hits = corpus.search(query)
    assert len(hits) >= 2, [h.citation for h in hits]
    _search(browser, base_url, fixtures_workspace, query)
    wait = WebDriverWait(browser, 60)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hits .hit .open")) == len(hits))
    buttons = browser.find_elements(By.CSS_SELECTOR, "#hits .hit .open")
    assert all(b.tag_name == "button" and b.get_attribute("aria-label") for b in buttons)
    buttons[0].send_keys("")  # focus, as Tab from the search field would
    active = browser.switch_to.active_element
    assert active == buttons[0]
    ActionChains(browser).send_keys(Keys.ARROW_DOWN).perform()
    assert browser.switch_to.active_element == buttons[1], "the down arrow moves to the next hit"
    ActionChains(browser).send_keys(Keys.ARROW_UP, Keys.ARROW_DOWN, Keys.ENTER).perform()
    wait.until(lambda d: d.find_element(By.ID, "overlay").get_attribute("data-ready") == "1")
    wait.until(lambda d: d.switch_to.active_element.get_attribute("id") == "viewer")
    assert browser.find_element(By.ID, "viewer-title").text == hits[1].citation
    assert buttons[1].get_attribute("aria-current") == "true"


def test_a_narrow_window_stacks_and_scrolls_to_the_highlight(
    browser: WebDriver, base_url: str, fixtures_workspace: str
) -> None:
    browser.set_window_size(480, 900)
    try:
        _open_first(browser, base_url, fixtures_workspace, QUERY, "overlay")
        results = browser.find_element(By.ID, "results").rect
        viewer = browser.find_element(By.ID, "viewer").rect
        assert viewer["y"] >= results["y"] + results["height"] - 1, "the viewer is not below the hits"
        assert viewer["x"] + viewer["width"] <= 480, "the viewer overflows the window"
        top, bottom, height = browser.execute_script(
            "const r = document.querySelector('#overlay .box.hl').getBoundingClientRect();"
            " return [r.top, r.bottom, window.innerHeight];"
        )
        assert 0 <= top and bottom <= height, "the highlight is not scrolled into view"
    finally:
        browser.set_window_size(1500, 1100)


def test_api_docs_render_without_internet(browser: WebDriver, base_url: str) -> None:
    wait = WebDriverWait(browser, 60)
    browser.get(f"{base_url}/docs")
    wait.until(lambda d: "KruschNexus" in d.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text)
    assert browser.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock"), "no operation is listed"
    browser.get(f"{base_url}/redoc")
    wait.until(
        lambda d: (
            d.find_elements(By.CSS_SELECTOR, "redoc h1")
            and "KruschNexus" in d.find_element(By.CSS_SELECTOR, "redoc h1").text
        )
    )


def test_filters_are_controls_and_the_documents_are_listed(
    browser: WebDriver, base_url: str, hub: Hub, fixtures_workspace: str
) -> None:
    with hub.corpus(fixtures_workspace) as corpus:
        stored = sorted(d.source for d in corpus.documents())
    browser.get(f"{base_url}/?workspace={fixtures_workspace}")
    wait = WebDriverWait(browser, 30)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#documents li")) == len(stored))
    browser.find_element(By.CSS_SELECTOR, "#doc-list summary").click()
    listed = sorted(b.text for b in browser.find_elements(By.CSS_SELECTOR, "#documents li button"))
    assert listed == stored
    assert browser.find_element(By.CSS_SELECTOR, "#doc-list summary").text == f"Documents ({len(stored)})"
    Select(browser.find_element(By.ID, "filter-doc")).select_by_value("office_rent_roll.csv")
    box = browser.find_element(By.ID, "query")
    box.clear()
    box.send_keys("monthly rent")
    browser.find_element(By.ID, "go").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#hits .hit"))
    citations = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#hits .hit .citation")]
    assert citations and all(c.startswith("office_rent_roll.csv ") for c in citations), citations
    assert "doc:office_rent_roll.csv" in browser.find_element(By.ID, "status").text
    browser.find_element(By.ID, "filter-pages").send_keys("two")
    browser.find_element(By.ID, "go").click()
    wait.until(lambda d: "Pages: a page number or a range" in d.find_element(By.ID, "status").text)


def test_the_viewer_turns_pages_copies_the_citation_and_offers_the_original(
    browser: WebDriver, base_url: str, hub: Hub, fixtures_workspace: str
) -> None:
    with hub.corpus(fixtures_workspace) as corpus:
        hit = corpus.search(QUERY)[0]
        pages = corpus.document(hit.doc_id).page_count
    assert hit.page_number == 1 and pages >= 2
    browser.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": base_url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    _open_first(browser, base_url, fixtures_workspace, QUERY, "overlay")
    wait = WebDriverWait(browser, 60)
    assert not browser.find_element(By.ID, "prev-page").is_enabled()
    browser.find_element(By.ID, "next-page").click()
    wait.until(lambda d: d.find_element(By.ID, "viewer-title").text == f"{hit.source} p.2")
    wait.until(lambda d: d.find_element(By.ID, "overlay").get_attribute("data-ready") == "1")
    assert not browser.find_elements(By.CSS_SELECTOR, "#overlay .box.hl"), "the cited span is not on page 2"
    assert browser.find_elements(By.CSS_SELECTOR, "#overlay .box.nb")
    browser.find_element(By.ID, "prev-page").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#overlay .box.hl"))

    browser.find_element(By.ID, "copy-citation").click()
    wait.until(lambda d: d.find_element(By.ID, "toolbar-note").text == "Citation copied.")
    copied = browser.execute_async_script("navigator.clipboard.readText().then(arguments[0])")
    assert copied.startswith(hit.citation + "\n") and hit.text.split("\n")[0] in copied

    browser.find_element(By.ID, "original").click()
    wait.until(lambda d: d.find_element(By.ID, "original").get_attribute("data-ready") == "1")
    link = browser.find_element(By.ID, "original")
    href = link.get_attribute("href")
    assert href is not None and href.startswith("blob:") and link.get_attribute("download") == hit.source
    size = browser.execute_async_script(
        "fetch(arguments[0].href).then(r => r.arrayBuffer()).then(b => arguments[1](b.byteLength))", link
    )
    with hub.corpus(fixtures_workspace) as corpus:
        assert size == corpus.document(hit.doc_id).byte_size
