import unittest

from geo.distance import TOLERANCE_KM, haversine


class HaversineTest(unittest.TestCase):
    def test_same_point(self):
        self.assertEqual(haversine(48.85, 2.35, 48.85, 2.35), 0)

    def test_paris_london(self):
        self.assertAlmostEqual(haversine(48.8566, 2.3522, 51.5072, -0.1276), 343.9, delta=TOLERANCE_KM)
