"""bench/browser_latency.py's measuring parts, without a browser (issue 32, the Firefox run):
the page's detections put on its clock across a step of its audio clock, the clock's
figures, the one calibration snippet both browsers' detectors share, and the private
PulseAudio null sink that gives Firefox a real-time audio clock. No timing asserted (the
figures are the bench's)."""

import importlib.util
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
RATE = 48000
ORIGIN = 1.7e12  # the page's performance.timeOrigin (epoch ms)


def _bench():
    spec = importlib.util.spec_from_file_location("browser_latency", ROOT / "bench" / "browser_latency.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stalled_page(latency_ms: float = 80.0):
    """A page whose audio clock runs 1 s behind its wall clock and stands still for
    200 ms at 9.8 s (a starved audio thread), with a calibration every second and a
    detection `latency_ms` after each mouth time (every 0.5 s, 330 ms into each)."""

    def ctx_ms(p):  # the audio clock (context ms) at page time p (ms)
        return p - 1000.0 - min(max(p - 9800.0, 0.0), 200.0)

    cal = [[t0, ctx_ms(t0) * RATE / 1000] for t0 in (1000.0 * k + 0.3 for k in range(1, 21))]
    mouths_page = [500.0 * i + 330 for i in range(2, 38)]
    remote = [ctx_ms(m + latency_ms) * RATE / 1000 for m in mouths_page]
    lat = {"rate": RATE, "timeOrigin": ORIGIN, "cal": cal, "remote": remote}
    return lat, [(ORIGIN + m) / 1000.0 for m in mouths_page]


def test_issue32_detections_are_placed_on_their_own_side_of_an_audio_clock_step():
    bench = _bench()
    lat, mouths = _stalled_page()
    got, straddling = bench.page_latencies(lat, mouths, skew=0.0)
    # the two bursts heard between the calibrations either side of the stall cannot be
    # placed; every other one reads its true 80 ms, before and after the step alike
    assert straddling == 2
    assert len(got) == len(mouths) - 2
    assert max(abs(1000 * x - 80.0) for x in got) < 0.01, sorted(1000 * x for x in got)


def test_issue32_the_audio_clock_figures_show_the_step_and_no_drift_around_it():
    bench = _bench()
    lat, _ = _stalled_page()
    fig = bench.clock_figures(lat, 0.0, 30_000.0)
    assert fig["steps_ms"] == [200.0]
    assert abs(fig["drift_ms_per_10_s"]) < 0.01 and fig["offset_iqr_ms"] < 0.01
    # a clock running 5 % slow (as Firefox's mock output does) reads ~500 ms per 10 s
    slow = {"rate": RATE, "timeOrigin": ORIGIN, "remote": [],
            "cal": [[t0, 0.95 * t0 * RATE / 1000] for t0 in range(1000, 13000, 1000)]}
    fig = bench.clock_figures(slow, 0.0, 30_000.0)
    assert fig["steps_ms"] == [] and abs(fig["drift_ms_per_10_s"] - 500.0) < 0.1


def test_issue32_both_detectors_share_one_calibration_snippet():
    bench = _bench()
    for install in (bench.INSTALL, bench.INSTALL_SP):
        assert install.count(bench.LAT_COMMON) == 1
        # the oscillator, the band-pass and the start are the shared snippet's only
        assert install.count("createOscillator") == 1
        assert install.count("createBiquadFilter") == 1
        assert install.count("setInterval") == 1


@pytest.mark.skipif(shutil.which("pulseaudio") is None or shutil.which("pactl") is None,
                    reason="pulseaudio not installed (scripts/bench_setup.sh)")
def test_issue32_the_benchs_null_sink_is_a_private_pulseaudio_and_stops_with_it(tmp_path):
    bench = _bench()
    with bench.null_sink(tmp_path) as server:
        assert server == f"unix:{tmp_path / 'pulse' / 'native'}"
        sinks = subprocess.run(["pactl", "--server", server, "list", "short", "sinks"],
                               capture_output=True, text=True, timeout=10, check=True).stdout
        assert bench.NULL_SINK in sinks and "48000Hz" in sinks, sinks
    gone = subprocess.run(["pactl", "--server", server, "info"], capture_output=True, timeout=10)
    assert gone.returncode != 0
