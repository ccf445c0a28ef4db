"""Compare a rendered report with a stored snapshot under tests/snapshots."""
import os

SNAPSHOTS = os.path.join(os.path.dirname(__file__), "..", "tests", "snapshots")


def assert_snapshot(testcase, name, got):
    """Fail testcase unless got equals the snapshot called name."""
    path = os.path.join(SNAPSHOTS, name + ".txt")
    with open(path, encoding="utf-8") as f:
        want = f.read()
    testcase.assertEqual(got, want)
