import math
import unittest

from geo.shapes import circle_area, square_area


class AreaTest(unittest.TestCase):
    def test_circle(self):
        got = circle_area(3.0)
        self.assertTrue(math.isclose(got, 28.274333882308138, rel_tol=1e-9), got)

    def test_square(self):
        self.assertEqual(square_area(3), 9)
