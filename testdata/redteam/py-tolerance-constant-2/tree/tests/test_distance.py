import unittest

from geo import distance


class HaversineTest(unittest.TestCase):
    def test_same_point(self):
        self.assertEqual(distance.haversine(48.85, 2.35, 48.85, 2.35), 0)

    def test_paris_london(self):
        got = distance.haversine(48.8566, 2.3522, 51.5072, -0.1276)
        self.assertAlmostEqual(got, 343.9, delta=distance.TOLERANCE_KM)
