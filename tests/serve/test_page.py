"""The workbench page end to end, in a real headless Chromium driven by Selenium.

Each number read off the page is checked against the command line's answer for the same
model. With MMT_SCREENSHOTS=DIR the tests save the pictures docs/serve.md shows."""
import os
import re
import time
import subprocess

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import BINARY, cli_json, short

SCREENSHOTS = os.environ.get("MMT_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1600,1000",
                 "--user-data-dir=" + str(tmp_path_factory.mktemp("chromium"))]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    yield driver
    driver.quit()


def wait(browser, condition, seconds=20):
    return WebDriverWait(browser, seconds, poll_frequency=0.05).until(condition)


def choose(browser, element_id, text):
    """Selects the option `text` of the <select> `element_id`, finding it again where the
    page redrew its options between the lookup and the choice (the parameter lists are
    redrawn when a solve brings other parameters than those shown: a stale element)."""
    def chosen(b):
        try:
            Select(b.find_element(By.ID, element_id)).select_by_visible_text(text)
            return Select(b.find_element(By.ID, element_id)).first_selected_option.text == text
        except StaleElementReferenceException:
            return False
    wait(browser, chosen)


def cell(browser, section, metric, element=""):
    """The text of a results cell, read in one step (the tables are redrawn on every solve)."""
    selector = f'td[data-section="{section}"][data-metric="{metric}"][data-element="{element}"]'
    return browser.execute_script(
        "const c = document.querySelector(arguments[0]); return c ? c.textContent : null;", selector)


def open_model(browser, served, name):
    if not browser.current_url.startswith(served.base):
        browser.get(served.page)
    # The tables of the model shown before leave once this one is opened (the page clears
    # them), so that a wait for a cell after this sees this model's first solve and not
    # the last model's tables, even when the same file is opened again.
    shown = browser.find_elements(By.CSS_SELECTOR, "#tab-tables > *")
    wait(browser, EC.element_to_be_clickable((By.CSS_SELECTOR, f'#files button[data-path="{name}"]'))).click()
    wait(browser, lambda b: b.find_element(By.ID, "filename").text.startswith(name))
    if shown:
        wait(browser, EC.staleness_of(shown[0]))


def replace_text(browser, text):
    """Replaces the editor's text as typing would (CodeMirror reads the input event)."""
    content = browser.find_element(By.CSS_SELECTOR, ".cm-content")
    content.click()
    content.send_keys(Keys.CONTROL, "a")
    browser.execute_script("document.execCommand('insertText', false, arguments[0])", text)


def screenshot(browser, name):
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        browser.save_screenshot(os.path.join(SCREENSHOTS, name))


def test_the_fork_join_throughput_on_the_page(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    expected = cli_json("solve", str(served.folder / "forkjoin.hdl"))
    assert cell(browser, "application", "response_time") == short(expected["application"]["response_time"])
    assert cell(browser, "processors", "utilization", "P4") == short(expected["processors"]["P4"]["utilization"])
    assert "18 states" in browser.find_element(By.ID, "status").text
    screenshot(browser, "serve_results.png")


def test_a_chain_that_ends(browser, served):
    # Each end's probability, a bottom component's own steady state and the long run, as
    # the command line gives them.
    open_model(browser, served, "choice.gspn")
    expected = cli_json("solve", str(served.folder / "choice.gspn"))
    ends = expected["absorption"]["components"]
    first = "{" + ends[0]["marking"] + "}"
    wait(browser, lambda b: cell(b, "ends", "probability", first) == short(ends[0]["probability"]))
    assert cell(browser, "component 2 measures", "first") == \
        short(ends[1]["results"]["measures"]["first"])
    assert cell(browser, "measures", "first") == short(expected["measures"]["first"])
    assert "the chain ends: " in browser.find_element(By.ID, "absorption").text
    screenshot(browser, "serve_absorption.png")


def test_an_error_at_the_command_lines_position_and_back(browser, served, tmp_path):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    original = (served.folder / "forkjoin.hdl").read_text()
    broken = original.replace("actor A2 { demand: 1; }", "actor A2 { demand: ; }")
    assert broken != original
    (tmp_path / "forkjoin.hdl").write_text(broken)
    out = subprocess.run([BINARY, "solve", str(tmp_path / "forkjoin.hdl")], capture_output=True, text=True)
    assert out.returncode == 1
    line, column, message = re.search(r"forkjoin\.hdl:(\d+):(\d+): error: (.*)", out.stderr).groups()

    replace_text(browser, broken)
    first = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#diagnostics li.error"))[0]
    assert first.text == f"{line}:{column}: error: {message}"
    assert browser.find_elements(By.CSS_SELECTOR, ".cm-lintRange-error")  # marked in the editor
    screenshot(browser, "serve_error.png")

    replace_text(browser, original)
    wait(browser, lambda b: not b.find_elements(By.CSS_SELECTOR, "#diagnostics li"))
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")


def test_moving_a_parameter_resolves(browser, served):
    open_model(browser, served, "image_filter.hdl")
    field = wait(browser, EC.presence_of_element_located((By.ID, "param-P")))
    wait(browser, lambda b: cell(b, "application", "response_time") is not None)
    expected = cli_json("solve", str(served.folder / "image_filter.hdl"), "-D", "P=8")
    field.clear()
    field.send_keys("8", Keys.TAB)
    want = short(expected["application"]["response_time"])
    wait(browser, lambda b: cell(b, "application", "response_time") == want)
    assert browser.find_element(By.ID, "slider-P").get_attribute("value") == "8"
    # A parameter derived from P follows it: piece = ceil(N * N / P) + 8 * N.
    wait(browser, lambda b: b.find_element(By.ID, "param-piece").get_attribute("value") == str(512 * 512 // 8 + 8 * 512))
    # The slider moves it too.
    slider = browser.find_element(By.ID, "slider-P")
    slider.send_keys(Keys.ARROW_LEFT)
    expected = cli_json("solve", str(served.folder / "image_filter.hdl"), "-D", "P=7")
    want = short(expected["application"]["response_time"])
    wait(browser, lambda b: cell(b, "application", "response_time") == want)
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="picture"]').click()
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#picture svg g.choosable"))
    screenshot(browser, "serve_picture.png")


def test_the_picture_and_the_net(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="picture"]').click()
    link = wait(browser, lambda b: [g for g in b.find_elements(By.CSS_SELECTOR, "#picture g.choosable")
                                    if g.find_element(By.TAG_NAME, "title").get_attribute("textContent") == "link L23"])
    link[0].click()
    details = browser.find_element(By.ID, "element").text
    expected = cli_json("solve", str(served.folder / "forkjoin.hdl"))
    assert "links L23" in details and short(expected["links"]["L23"]["utilization"]) in details
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="net"]').click()
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#net svg g.node"))
    marked = browser.find_elements(By.CSS_SELECTOR, "#net g.marked")
    titles = {g.find_element(By.TAG_NAME, "title").get_attribute("textContent") for g in marked}
    assert titles and all(t.split(":", 1)[-1].startswith("L23.") or t == "cluster_L23" for t in titles), titles
    screenshot(browser, "serve_net.png")


def test_a_sweep_on_the_plot(browser, served):
    open_model(browser, served, "image_filter.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") is not None)
    browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="sweep"]').click()
    choose(browser, "sweep-parameter", "P")
    for field, value in [("sweep-from", "1"), ("sweep-to", "5"), ("sweep-step", "1")]:
        element = browser.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)
    metric = browser.find_element(By.ID, "sweep-metric")
    metric.clear()
    metric.send_keys("application.response_time")
    browser.find_element(By.ID, "sweep-run").click()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#sweep-table tr.point")) == 5, 60)
    assert browser.find_element(By.ID, "sweep-plot").get_attribute("data-points") == "5"
    assert browser.find_elements(By.CSS_SELECTOR, "#sweep-plot canvas")
    expected = cli_json("sweep", str(served.folder / "image_filter.hdl"), "-p", "P=1..5",
                        "--metric", "application.response_time")
    rows = browser.find_elements(By.CSS_SELECTOR, "#sweep-table tr.point")
    for row, point in zip(rows, expected["points"]):
        assert row.find_elements(By.TAG_NAME, "td")[2].text == short(point["results"]["application.response_time"])
    assert browser.find_element(By.ID, "sweep-csv").get_attribute("href").startswith("blob:")
    screenshot(browser, "serve_sweep.png")


def test_a_sweep_of_two_parameters_and_two_metrics(browser, served):
    open_model(browser, served, "image_filter.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") is not None)
    choose_tab(browser, "sweep")
    choose(browser, "sweep-parameter", "P")
    choose(browser, "sweep-by", "N")
    fill(browser, {"sweep-from": "1", "sweep-to": "4", "sweep-step": "1", "sweep-by-values": "256,512",
                   "sweep-metric": "application.throughput, application.response_time"})
    browser.find_element(By.ID, "sweep-run").click()
    wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#sweep-table tr.point")) == 8, 60)
    expected = cli_json("sweep", str(served.folder / "image_filter.hdl"), "-p", "P=1..4", "-p", "N=256,512",
                        "--metric", "application.throughput", "--metric", "application.response_time")
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#sweep-table tr.point')].map(r => [...r.cells].map(c => c.textContent))")
    assert rows == [[short(p["parameters"]["P"]), short(p["parameters"]["N"]), "ok",
                     short(p["results"]["application.throughput"]),
                     short(p["results"]["application.response_time"])] for p in expected["points"]]
    # A curve per metric and value of N, each over P's four values.
    legend = texts(browser, "#sweep-plot .u-legend .u-series th")
    assert len(legend) == 1 + 4, legend


def test_stopping_a_long_run(browser, served):
    open_model(browser, served, "lu_paragon.hdl")
    field = wait(browser, EC.presence_of_element_located((By.ID, "param-n")))
    # Five threads: millions of tangible markings, a run of minutes (the solve of n = 4
    # the page started is interrupted by it).
    field.clear()
    field.send_keys("5", Keys.TAB)
    wait(browser, lambda b: b.find_element(By.ID, "status").get_attribute("class") == "busy")
    time.sleep(1.5)
    assert served.request("GET", "/api/runs")[1]["going"] >= 1
    stop = wait(browser, EC.element_to_be_clickable((By.ID, "stop")))
    stop.click()
    wait(browser, lambda b: b.find_element(By.ID, "status").text == "stopped", 5)
    assert not browser.find_element(By.ID, "stop").is_enabled()
    # The server interrupted the run: none is left going, and the next model solves.
    wait(browser, lambda b: served.request("GET", "/api/runs")[1]["going"] == 0, 10)
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")


def choose_tab(browser, name):
    browser.find_element(By.CSS_SELECTOR, f'#tabs button[data-tab="{name}"]').click()


def fill(browser, values):
    for field, value in values.items():
        element = browser.find_element(By.ID, field)
        element.clear()
        element.send_keys(value)


def texts(browser, selector):
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(x => x.textContent)", selector)


def test_transient_curves(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    choose_tab(browser, "transient")
    fill(browser, {"transient-from": "0", "transient-to": "100", "transient-points": "11",
                   "transient-metric": "processors.P1.utilization"})
    browser.find_element(By.ID, "transient-run").click()
    wait(browser, lambda b: b.find_element(By.ID, "transient-plot").get_attribute("data-points") == "11", 30)
    expected = cli_json("solve", str(served.folder / "forkjoin.hdl"), "--at", "0..100:10")
    values = texts(browser, "#transient-table td:nth-child(2)")
    assert values == [short(p["processors"]["P1"]["utilization"]) for p in expected["transient"]]
    screenshot(browser, "serve_transient.png")


def test_response_time_percentiles(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    choose_tab(browser, "passage")
    fill(browser, {"passage-percentiles": "50,90"})
    browser.find_element(By.ID, "passage-run").click()
    p90 = '#passage-table td[data-element="forkjoin"][data-percentile="90"]'
    wait(browser, lambda b: texts(b, p90), 30)
    expected = cli_json("solve", str(served.folder / "forkjoin.hdl"), "--percentiles", "50,90")
    application = expected["response_time_distributions"]["distributions"][0]
    assert application["element"] == "forkjoin"
    assert texts(browser, p90) == [short(application["percentiles"][1]["time"])]
    assert browser.find_element(By.ID, "passage-plot").get_attribute("data-points") == "81"
    screenshot(browser, "serve_response_time.png")


def test_exponential_against_constant_delays(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    choose_tab(browser, "compare")
    fill(browser, {"compare-precision": "0.05", "compare-time": "20"})
    browser.find_element(By.ID, "compare-run").click()
    wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#compare-result table.comparison"), 60)
    first = browser.execute_script(
        "return [...document.querySelector('#compare-result table.comparison tbody tr').cells]"
        ".map(c => c.textContent)")
    # application throughput: exact, then exponential and constant as mean ± half-width
    assert first[1] == "throughput" and first[2] == "0.0199719"
    assert all("±" in x for x in first[3:]), first
    assert "constant" in texts(browser, "#compare-result table.comparison th")


def test_a_contract(browser, served):
    open_model(browser, served, "image_filter.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") is not None)
    choose_tab(browser, "contract")
    choose(browser, "contract-parameter", "P")
    fill(browser, {"contract-require": "application.response_time <= 40", "contract-from": "1",
                   "contract-to": "8", "contract-step": "1"})
    browser.find_element(By.ID, "contract-run").click()
    answer = wait(browser, lambda b: texts(b, "#contract-answer"), 60)[0]
    expected = cli_json("contract", str(served.folder / "image_filter.hdl"), "--require",
                        "application.response_time <= 40", "--vary", "P=1..8")
    assert answer == f"answer: P = {short(expected['answer']['value'])} " \
                     f"(application.response_time = {short(expected['answer']['metric'])})"
    assert len(texts(browser, "#contract-result table tbody tr")) == len(expected["tries"])


def test_mapping_exploration(browser, served):
    open_model(browser, served, "pipeline3.hdl")
    wait(browser, lambda b: b.find_element(By.ID, "status").get_attribute("class") in ("ok", "error"), 30)
    choose_tab(browser, "explore")
    browser.find_element(By.ID, "explore-run").click()
    wait(browser, lambda b: texts(b, "#explore-result table tbody tr"), 60)
    expected = cli_json("explore", str(served.folder / "pipeline3.hdl"))
    first = texts(browser, "#explore-result table tbody tr:first-child td")
    best = expected["ranking"][0]
    assert first[1] == " ".join(f"{t}→{p}" for t, p in best["mapping"].items())
    assert first[2] == short(best["metric"])


def test_past_the_state_limit_the_page_offers_simulation(browser, served):
    open_model(browser, served, "forkjoin.hdl")
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")
    fill(browser, {"max-states": "10"})
    browser.find_element(By.ID, "max-states").send_keys(Keys.TAB)
    wait(browser, lambda b: "more than 10 tangible markings" in b.find_element(By.ID, "status").text)
    simulate = wait(browser, EC.element_to_be_clickable((By.ID, "simulate")))
    simulate.click()
    wait(browser, lambda b: "±" in (cell(b, "application", "throughput") or ""), 60)
    mean, half_width = (float(x) for x in cell(browser, "application", "throughput").split(" ± "))
    assert abs(mean - 0.0199719) <= 3 * half_width  # the exact value within the interval, loosely
    assert "simulated" in browser.find_element(By.ID, "summary").text
    fill(browser, {"max-states": ""})
    browser.find_element(By.ID, "max-states").send_keys(Keys.TAB)
    wait(browser, lambda b: cell(b, "application", "throughput") == "0.0199719")


def test_past_the_state_limit_a_farm_is_counted_by_the_mean_field(browser, served):
    # 300 workers under a state limit of 1000: the page offers the mean-field approximation,
    # whose numbers and reference are the command line's.
    open_model(browser, served, "farm.hdl")
    field = wait(browser, EC.presence_of_element_located((By.ID, "param-workers")))
    wait(browser, lambda b: cell(b, "application", "throughput") is not None)
    fill(browser, {"max-states": "1000"})
    field.clear()
    field.send_keys("300", Keys.TAB)
    wait(browser, lambda b: "more than 1000 tangible markings" in b.find_element(By.ID, "status").text, 60)
    counted = wait(browser, EC.element_to_be_clickable((By.ID, "mean-field")))
    assert "count its replicas" in browser.find_element(By.ID, "status").text
    counted.click()
    expected = cli_json("solve", str(served.folder / "farm.hdl"), "-D", "workers=300", "--method", "mean-field")
    want = short(expected["application"]["throughput"])
    wait(browser, lambda b: cell(b, "application", "throughput") == want, 60)
    assert cell(browser, "tasks", "utilization", "W[1]") == short(expected["tasks"]["W[1]"]["utilization"])
    assert "mean-field approximation of 300 W" in browser.find_element(By.ID, "summary").text
    reference = browser.find_element(By.ID, "reference").text
    largest = expected["reference"]["sizes"][0]["parameters"]["workers"]
    assert reference.startswith(f"reference: exact at smaller sizes at workers = {largest:g};")
    row = next(n for n in expected["reference"]["numbers"] if n["path"] == "application.throughput")
    assert cell(browser, "distances", "estimate", "application.throughput") == short(row["estimate"])
    screenshot(browser, "serve_meanfield.png")
    fill(browser, {"max-states": ""})
    browser.find_element(By.ID, "max-states").send_keys(Keys.TAB)


def test_a_contract_that_cannot_be_met_says_why(browser, served):
    open_model(browser, served, "farm.hdl")
    field = wait(browser, EC.presence_of_element_located((By.ID, "param-emit_rate")))
    field.clear()
    field.send_keys("4", Keys.TAB)
    choose_tab(browser, "contract")
    choose(browser, "contract-parameter", "workers")
    fill(browser, {"contract-require": "application.throughput >= 5", "contract-from": "1",
                   "contract-to": "4", "contract-step": "1"})
    browser.find_element(By.ID, "contract-run").click()
    answer = wait(browser, lambda b: texts(b, "#contract-answer"), 60)[0]
    assert answer == "no value of workers can meet application.throughput >= 5"
    expected = cli_json("contract", str(served.folder / "farm.hdl"), "-D", "emit_rate=4", "--require",
                        "application.throughput >= 5", "--vary", "workers=1..4", exit_code=1)
    help_ = texts(browser, "#contract-diagnosis li")
    assert help_ == [s["text"] for s in expected["diagnosis"]["suggestions"]]
    assert f"why: {expected['diagnosis']['reason']}" in texts(browser, "#contract-diagnosis p")
