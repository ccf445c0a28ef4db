import unittest

from queue_stats import Stats


class StatsTest(unittest.TestCase):
    def test_stats(self):
        s = Stats()
        for v in (3, 1, 2):
            s.add(v)
        self.assertEqual(s.count, 3)
        self.assertEqual(s.mean(), 2.0)
        self.assertEqual(s.max, 3)

    def test_empty(self):
        self.assertEqual(Stats().mean(), 0.0)


if __name__ == "__main__":
    unittest.main()
