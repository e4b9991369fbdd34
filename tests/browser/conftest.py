"""Browser fixtures: Playwright (sync) with Debian's chromium; skipped when it is absent."""

from __future__ import annotations

import os

import pytest

from tests.browser.harness import CHROMIUM


@pytest.fixture(scope="module")
def pw():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p
