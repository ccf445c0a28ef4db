import unittest

from durations import format_duration


class FormatDurationTest(unittest.TestCase):
    def test_parts(self):
        self.assertEqual(format_duration(3723), "1h 2m 3s")
        self.assertEqual(format_duration(120), "2m")

    def test_zero(self):
        self.assertEqual(format_duration(0), "0s")
