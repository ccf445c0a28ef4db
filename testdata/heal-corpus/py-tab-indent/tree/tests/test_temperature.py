import unittest

from temperature import convert


class ConvertTest(unittest.TestCase):
    def test_round_trips(self):
        self.assertAlmostEqual(convert(100, "C", "F"), 212)
        self.assertAlmostEqual(convert(32, "F", "C"), 0)
        self.assertAlmostEqual(convert(0, "K", "C"), -273.15)

    def test_unknown(self):
        with self.assertRaises(ValueError):
            convert(1, "X", "C")


if __name__ == "__main__":
    unittest.main()
