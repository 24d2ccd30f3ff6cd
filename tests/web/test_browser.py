"""The console in a real browser: Debian's headless Chromium driven by Selenium, against the
console served on 127.0.0.1 and the real servers. Screenshots go to test-output/.

Chromium and chromedriver come from deploy/setup-browser.sh (run by deploy/run-tests.sh); without
them these tests fail with that hint, they are not skipped.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.web.conftest import ADMIN, PASSWORD, TAG, unique, web_config

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROME_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--lang=zh-CN")


@pytest.fixture(scope="module")
def browser():
    if not (Path(CHROMIUM).exists() and (shutil.which("chromedriver") or Path(CHROMEDRIVER).exists())):
        pytest.fail("Chromium/chromedriver are not installed: run `bash deploy/setup-browser.sh`")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROME_FLAGS:
        options.add_argument(flag)
    # an explicit driver path: Selenium Manager never tries to download a browser or driver
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    SHOTS.mkdir(exist_ok=True)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def console(settings, indexed, queues, store):
    from crawler.web.app import serve_in_thread, stop_server

    url = serve_in_thread(settings, "127.0.0.1", 0, web_config())
    yield url.rstrip("/")
    stop_server(url)


def wait_for(driver, css: str, timeout: float = 10.0):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def no_alert(driver) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert
    except NoAlertPresentException:
        return True
    return False


def log_in(driver, console):
    from selenium.webdriver.common.by import By

    driver.get(console + "/login")
    driver.find_element(By.NAME, "user").send_keys(ADMIN)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
    wait_for(driver, "#add-channel")


def test_search_a_chinese_word_and_see_it_highlighted(browser, console):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(console + "/")
    box = browser.find_element(By.NAME, "q")
    box.send_keys("古镇", Keys.ENTER)
    wait_for(browser, "#result-count")
    marks = browser.find_elements(By.CSS_SELECTOR, ".snippet em")
    assert marks and {m.text for m in marks} == {"古镇"}
    background = marks[0].value_of_css_property("background-color")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")  # visibly highlighted
    titles = [a.text for a in browser.find_elements(By.CSS_SELECTOR, ".hit .title")]
    assert "乌镇古镇迎来旅游高峰" in titles
    browser.save_screenshot(str(SHOTS / "web-search-zh.png"))

    browser.find_element(By.LINK_TEXT, "乌镇古镇迎来旅游高峰").click()
    wait_for(browser, "#content")
    assert "江南水乡" in browser.find_element(By.ID, "content").text
    assert browser.find_element(By.ID, "method").text == "cevc"
    browser.save_screenshot(str(SHOTS / "web-article.png"))


def test_xss_in_the_search_box_is_shown_as_text(browser, console):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    attack = "<img src=x onerror=alert(1)><script>alert(2)</script>"
    browser.get(console + "/")
    browser.find_element(By.NAME, "q").send_keys(attack, Keys.ENTER)
    wait_for(browser, "#result-count")
    assert no_alert(browser)
    assert attack in browser.find_element(By.ID, "result-count").text
    assert not browser.find_elements(By.CSS_SELECTOR, "main img")


def test_add_a_channel_through_the_form(browser, console, store):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    log_in(browser, console)
    browser.find_element(By.ID, "add-channel").click()
    wait_for(browser, "#channel-form")
    name = f"<b>浏览器</b> channel {TAG}"
    browser.find_element(By.NAME, "name").send_keys(name)
    Select(browser.find_element(By.NAME, "kind")).select_by_value("listpage")
    browser.find_element(By.NAME, "entry_url").send_keys("http://127.0.0.1:9/list.html")
    browser.find_element(By.NAME, "detail_url_regex").send_keys(r"/news/\d+")
    interval = browser.find_element(By.NAME, "interval_s")
    interval.clear()
    interval.send_keys("1800")
    browser.find_element(By.ID, "save-channel").click()
    wait_for(browser, "#channels")
    assert no_alert(browser)
    row = store.get_channel_by_name(name)
    assert row is not None and row.kind == "listpage" and row.interval_s == 1800
    assert row.detail_url_regex == r"/news/\d+"
    shown = browser.find_element(By.CSS_SELECTOR, f"#channel-{row.id} .name")
    assert shown.text == name  # the tags show as text, not as bold markup
    browser.save_screenshot(str(SHOTS / "web-channels.png"))

    # a bad regex: the form comes back with the reason, nothing is saved
    browser.find_element(By.ID, "add-channel").click()
    wait_for(browser, "#channel-form")
    browser.find_element(By.NAME, "name").send_keys(unique("broken regex"))
    Select(browser.find_element(By.NAME, "kind")).select_by_value("listpage")
    browser.find_element(By.NAME, "entry_url").send_keys("http://127.0.0.1:9/list.html")
    browser.find_element(By.NAME, "detail_url_regex").send_keys("news/(")
    browser.find_element(By.ID, "save-channel").click()
    problems = wait_for(browser, "#problems")
    assert "does not compile" in problems.text
    assert store.get_channel_by_name(unique("broken regex")) is None
    browser.save_screenshot(str(SHOTS / "web-channel-invalid.png"))


def test_status_chart_renders(browser, console):
    log_in(browser, console)
    browser.get(console + "/status/")
    canvas = wait_for(browser, "#hourly-chart[data-rendered]")
    assert canvas.get_attribute("data-rendered") == "48"
    # count the canvas pixels drawn in the bar colour: the bars for the test articles are there
    bar_pixels = browser.execute_script("""
        const c = document.getElementById('hourly-chart');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) { if (d[i] === 31 && d[i+1] === 95 && d[i+2] === 191) n++; }
        return n;""")
    assert bar_pixels > 50
    browser.save_screenshot(str(SHOTS / "web-status.png"))
