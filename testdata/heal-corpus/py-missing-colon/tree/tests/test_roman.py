import unittest

from roman import to_roman


class RomanTest(unittest.TestCase):
    def test_values(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(3888), "MMMDCCCLXXXVIII")

    def test_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)


if __name__ == "__main__":
    unittest.main()
