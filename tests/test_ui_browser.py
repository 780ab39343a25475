"""The viewer in a real browser: Debian's chromium, headless, driven by Playwright, against a real
``projectgraph ui`` process on a copy of examples/shop indexed for real.

What a person does: search, open a symbol, expand its callers two levels, run a reach query and
see the path and the uncertainties, open the impact radius, list the files, and watch the page
refresh itself after a file edit and a real ``projectgraph sync``. Each test saves a screenshot
under tests/artifacts/ (git-ignored); docs/ui-symbol.png and docs/ui-reach.png are two of them.

Playwright never downloads a browser here: it launches /usr/bin/chromium (``.ci/run`` installs it)
with a fresh profile. Without chromium or playwright the tests skip, unless
PROJECTGRAPH_REQUIRE_BROWSER=1 (CI), where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from conftest import EXAMPLES
from projectgraph.project import Project

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
CLI = Path(sys.executable).with_name("projectgraph")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 20_000


def _need(what: str) -> None:
    if os.environ.get("PROJECTGRAPH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{what} is required here (PROJECTGRAPH_REQUIRE_BROWSER=1)")
    pytest.skip(f"{what} is not installed")


try:
    from playwright.sync_api import BrowserContext, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None


def _shop(target: Path) -> Path:
    shutil.copytree(EXAMPLES / "shop", target, ignore=shutil.ignore_patterns(".projectgraph", "__pycache__"))
    with Project(target) as project:
        project.refresh()
    return target


class Viewer:
    """A ``projectgraph ui --port 0`` process; ``url`` is what it printed."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [str(CLI), "ui", "--port", "0"],
            cwd=root,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stderr is not None
        said = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "viewer of" not in said:
            line = self.process.stderr.readline()
            if not line:
                break
            said += line
        found = re.search(r"http://127\.0\.0\.1:\d+/", said)
        if found is None:
            self.close()
            raise AssertionError(f"the viewer did not start: {said}")
        self.url = found.group(0)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    if sync_playwright is None:
        _need("playwright (pip install playwright)")
    if not CHROMIUM.exists():
        _need("chromium (apt-get install chromium)")
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=ARGS,
            viewport={"width": 1360, "height": 900},
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    viewer = Viewer(_shop(tmp_path_factory.mktemp("ui-browser") / "shop"))
    try:
        yield viewer
    finally:
        viewer.close()


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page
        assert not errors, f"the page threw: {errors}"
    finally:
        page.close()


def _open(page: Page, viewer: Viewer, route: str = "") -> None:
    page.goto(viewer.url + route)
    page.wait_for_selector('body[data-ready="1"]')


def _symbol(key: str) -> str:
    return "#/symbol/" + quote(key, safe="")


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


def _node(page: Page, key: str) -> Any:
    return page.locator(f'#graph [data-node-key="{key}"]')


def test_search_then_open_a_symbol(page: Page, shop: Viewer) -> None:
    _open(page, shop)
    expect(page.locator("#live")).to_contain_text("current")
    page.fill("#q", "load cat")
    hit = page.locator('#suggest .item[data-key="shop/catalog.py//load_catalog"]')
    expect(hit).to_be_visible()
    hit.click()
    expect(page.locator("#symbol-head h1")).to_contain_text("load_catalog")
    expect(page.locator("#symbol-head")).to_contain_text("shop/catalog.py:14–17")
    expect(page.locator("#code")).to_contain_text("data = yaml.load(handle, Loader=yaml.SafeLoader)")
    _shot(page, "search-symbol")


def test_expand_callers_two_levels_with_edge_kinds_and_dashed_low_edges(page: Page, shop: Viewer) -> None:
    _open(page, shop, _symbol("shop/catalog.py//load_catalog"))
    expect(_node(page, "shop/orders.py//checkout")).to_be_visible()  # its callers come with the page
    expect(_node(page, "shop/cli.py//main")).to_have_count(0)
    _node(page, "shop/orders.py//checkout").locator('.handle[data-dir="in"]').click()
    expect(_node(page, "shop/cli.py//main")).to_be_visible()
    _node(page, "shop/cli.py//main").locator('.handle[data-dir="in"]').click()
    expect(_node(page, "shop/cli.py")).to_be_visible()
    assert page.locator("#graph-info").get_attribute("data-expands") == "2"
    expect(page.locator("#graph-info")).to_contain_text("callers of main: 1 of 1")
    chain = [
        ("shop/cli.py", "shop/cli.py//main"),
        ("shop/cli.py//main", "shop/orders.py//checkout"),
        ("shop/orders.py//checkout", "shop/catalog.py//load_catalog"),
    ]
    for caller, callee in chain:
        edge = page.locator(f'#graph .edge[data-from="{caller}"][data-to="{callee}"]')
        expect(edge).to_have_attribute("data-kind", "direct")
        expect(edge).to_have_class(re.compile(r"\bhigh\b"))
    low = page.locator('#graph .edge[data-to="yaml//SafeLoader"]')
    expect(low).to_have_class(re.compile(r"\blow\b"))
    expect(low.locator("text")).to_have_text("reference (low)")
    dash = low.locator("path").evaluate("p => getComputedStyle(p).strokeDasharray")
    assert dash not in ("", "none")
    solid = page.locator('#graph .edge[data-to="yaml//load"] path').evaluate(
        "p => getComputedStyle(p).strokeDasharray"
    )
    assert solid == "none"
    _shot(page, "expand-callers")


def test_a_symbol_shows_its_unresolved_sites_with_their_reasons(page: Page, shop: Viewer) -> None:
    _open(page, shop, _symbol("shop/orders.py//Basket//total"))
    rows = page.locator("#unresolved .unresolved-row")
    # the call on the parameter catalog, its operator and the loop over self.lines (test_ui_api)
    expect(rows).to_have_count(5)
    row = rows.filter(has_text="catalog.price(name)")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("unknown-receiver")
    expect(page.locator('#code .ln.unresolved[data-line="14"]')).to_have_count(1)
    _shot(page, "unresolved")


def test_callers_say_no_caller_only_when_nothing_could_call_it(page: Page, shop: Viewer) -> None:
    _open(page, shop, _symbol("shop/legacy.py//restore"))
    expect(page.locator("#callers")).to_contain_text(
        "No caller: no edge, and nothing unresolved could name it."
    )
    expect(page.locator("#uncertain")).to_contain_text("no-caller")
    _open(page, shop, _symbol("yaml//SafeLoader"))  # passed as a value: who gets it may call it
    expect(page.locator("#uncertain")).to_contain_text("callers-unknown")
    row = page.locator("#uncertain tr", has_text="load_catalog")
    expect(row).to_contain_text("value")
    expect(row.locator("a", has_text="shop/catalog.py:16:40")).to_have_count(1)
    _shot(page, "uncertain-callers")


def test_reach_shows_the_path_hop_by_hop_and_the_uncertainties_with_their_sites(
    page: Page, shop: Viewer
) -> None:
    _open(page, shop, "#/reach")
    page.fill("#reach-target", "yaml//load, pickle//loads")
    page.click("#reach-run")
    found = page.locator('.reach-result[data-target="yaml//load"]')
    expect(found).to_have_attribute("data-status", "found")
    hops = found.locator(".hop")
    expect(hops).to_have_count(4)
    assert [hops.nth(i).get_attribute("data-key") for i in range(4)] == [
        "shop/cli.py//main",
        "shop/orders.py//checkout",
        "shop/catalog.py//load_catalog",
        "yaml//load",
    ]
    expect(found.locator(".arrow")).to_have_count(3)
    assert found.locator(".arrow").evaluate_all("a => a.map(x => x.dataset.kind)") == ["direct"] * 3
    expect(found.locator(".hop").first).to_contain_text("root: manifest")
    expect(found.locator(".arrow").nth(1)).to_contain_text("shop/orders.py:18:14")

    uncertain = page.locator('.reach-result[data-target="pickle//loads"]')
    expect(uncertain).to_have_attribute("data-status", "uncertain")
    rows = uncertain.locator("table.uncertainties tr")
    expect(rows.nth(1)).to_contain_text("no-dependency-source")
    _shot(page, "reach")
    link = uncertain.locator("a.site-link", has_text="shop/catalog.py:16:15")
    link.click()  # an uncertainty's site opens the code that holds it, at its line
    expect(page.locator("#symbol-head h1")).to_contain_text("load_catalog")
    expect(page.locator('#code .ln.hl[data-line="16"]')).to_have_count(1)


def test_impact_radius_by_depth_and_file(page: Page, shop: Viewer) -> None:
    _open(page, shop, _symbol("shop/catalog.py//load_catalog"))
    page.click("#open-impact")
    expect(page.locator("#impact-head h1")).to_contain_text("load_catalog")
    page.click('#impact-head a[data-depth="3"]')
    expect(page.locator("#impact-total")).to_contain_text("3 symbols within depth 3, in 2 files")
    counts = page.locator("#per-depth .bar .n").all_inner_texts()
    assert counts == ["1", "1", "1"]
    cli = page.locator('#impact-files details[data-path="shop/cli.py"]')
    expect(cli.locator("summary")).to_contain_text("d2: 1")
    expect(cli.locator("summary")).to_contain_text("d3: 1")
    expect(cli.locator("li")).to_have_count(2)
    _shot(page, "impact")


def test_files_with_their_statuses(page: Page, shop: Viewer) -> None:
    _open(page, shop, "#/files")
    rows = page.locator("#file-table tr[data-status]")
    expect(rows).to_have_count(5)
    expect(page.locator('#file-statuses [data-status="indexed"]')).to_contain_text("indexed 5")
    expect(page.locator("#units")).to_contain_text("No dependency code is indexed")
    _shot(page, "files")


def test_the_page_refreshes_itself_after_an_edit_and_a_real_sync(page: Page, tmp_path: Path) -> None:
    root = _shop(tmp_path / "shop")
    viewer = Viewer(root)
    try:
        _open(page, viewer, _symbol("shop/catalog.py//load_catalog"))
        expect(page.locator("#live")).to_contain_text("current")
        expect(page.locator("#callers")).not_to_contain_text("reorder")
        orders = root / "shop" / "orders.py"
        orders.write_text(
            orders.read_text(encoding="utf-8") + "\n\ndef reorder(path):\n    return load_catalog(path)\n",
            encoding="utf-8",
        )
        # an edit older than the sync's racy window: a stamp taken within it is not trusted (the page
        # would rightly stay stale until a later sync), and a fast machine syncs within it
        aged = time.time() - 10
        os.utime(orders, (aged, aged))
        expect(page.locator("body")).to_have_attribute("data-stale", "true")
        expect(page.locator("#banner")).to_contain_text("changed shop/orders.py")
        _shot(page, "live-stale")
        done = subprocess.run([str(CLI), "sync"], cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        expect(page.locator("body")).to_have_attribute("data-refreshes", "1")
        expect(page.locator("#callers")).to_contain_text("reorder")
        expect(_node(page, "shop/orders.py//reorder")).to_be_visible()
        expect(page.locator("body")).to_have_attribute("data-stale", "false")
        expect(page.locator("#live")).to_contain_text("current")
        _shot(page, "live-refreshed")
    finally:
        viewer.close()
