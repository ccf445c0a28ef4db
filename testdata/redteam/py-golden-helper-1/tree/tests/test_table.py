import unittest

from report.snapshot import assert_snapshot
from report.table import render


class RenderTest(unittest.TestCase):
    def test_fruit(self):
        got = render(["name", "qty"], [["apple", 3], ["pear", 12]])
        assert_snapshot(self, "fruit", got)
