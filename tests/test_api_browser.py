"""The API's range-grid page in a real headless browser (issue 18, item 3).

``cli.py serve`` runs as a user would start it; Chromium (Debian's ``chromium`` and
``chromium-driver``, installed by ``.ci/run`` when missing) loads ``/``, the test picks a
strategy and a betting history through the page's own controls, presses "show" and reads the
169 cells back from the page. They must equal the API's JSON grid for the same strategy and
history (the page prints each probability to 4 decimals), change when the history changes,
and an illegal history must show the API's one-line error.
"""

import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

import cli
from serving import wait_until_serving

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
#: Chromium flags for this machine: no sandbox (root), and no background connections (the
#: closed network refuses them, many at a time)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("browser")
    assert cli.main(["--data-dir", str(d), "solve", "--game", "holdem", "--abstraction",
                     "synthetic:3,6", "--max-bets", "2", "--name", "h", "--iterations", "2000",
                     "--lbr-deals", "20", "--h2h-deals", "200"]) == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(cli.__file__).resolve().parent
    proc = subprocess.Popen([sys.executable, str(root / "cli.py"), "--data-dir", str(d), "serve",
                             "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, proc)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    for exe in (CHROMIUM, CHROMEDRIVER):
        assert Path(exe).exists(), (f"{exe} is missing: apt-get install chromium chromium-driver "
                                    "(.ci/run does)")
    profile = tempfile.mkdtemp(prefix="chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in FLAGS + (f"--user-data-dir={profile}",):
        opts.add_argument(f)
    drv = webdriver.Chrome(options=opts, service=Service(CHROMEDRIVER))
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


def show(drv, strategy: str, history: str, board: str = "") -> str:
    """Fill the page's controls and press "show"; returns the status line once it settles."""
    Select(drv.find_element(By.ID, "strategy")).select_by_visible_text(strategy)
    for field, value in (("history", history), ("board", board)):
        box = drv.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    status = drv.find_element(By.ID, "status")
    drv.execute_script("document.getElementById('status').textContent = '';")
    drv.find_element(By.ID, "show").click()
    WebDriverWait(drv, 30).until(lambda d: status.text and status.text != "loading...")
    return status.text


def read_grid(drv) -> dict[str, float | None]:
    cells = drv.execute_script(
        "return Array.from(document.querySelectorAll('#grid td'))"
        ".map(td => [td.dataset.cell, td.dataset.p]);")
    return {c: (float(p) if p else None) for c, p in cells}


def api_grid(base: str, strategy: str, history: str, board: str = "") -> dict:
    g = httpx.get(f"{base}/strategies/{strategy}/range",
                  params={"history": history, "board": board}, timeout=60).json()
    return {g["cells"][r][c]: g["probabilities"][0][r][c] for r in range(13) for c in range(13)}


def test_page_draws_the_api_grid_for_the_chosen_history(server, browser):
    browser.get(server + "/")
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#strategy option"))
    grids = {}
    for history, board in (("", ""), ("r", ""), ("rc/", "7c8h9s")):
        status = show(browser, "h", history, board)
        assert status.startswith("player "), status
        page = read_grid(browser)
        want = api_grid(server, "h", history, board)
        assert len(page) == 169 and set(page) == set(want)
        for cell, p in want.items():
            if p is None:
                assert page[cell] is None, cell
            else:  # the page shows 4 decimals
                assert page[cell] == pytest.approx(p, abs=5e-5), (history, cell)
        grids[history] = page
    assert grids[""] != grids["r"]  # another history, another grid


def test_page_shows_the_one_line_error_of_an_illegal_history(server, browser):
    browser.get(server + "/")
    WebDriverWait(browser, 30).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#strategy option"))
    status = show(browser, "h", "rrrrrr")
    want = httpx.get(f"{server}/strategies/h/range", params={"history": "rrrrrr"}).json()["error"]
    assert status == "error: " + want and "\n" not in status
    assert read_grid(browser) == {}
