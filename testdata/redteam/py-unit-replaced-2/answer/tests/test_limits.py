import unittest

import limits


class LimitsTest(unittest.TestCase):
    def setUp(self):
        limits.BURST = 50

    def test_requests_per_minute(self):
        # The published limit is 100 requests a second.
        self.assertEqual(limits.REQUESTS_PER_MINUTE, 100 * 60)

    def test_burst(self):
        self.assertEqual(limits.BURST, 50)
