import unittest

from units import parse_duration


class ParseDurationTest(unittest.TestCase):
    def test_parts(self):
        cases = [("45s", 45), ("2m", 120), ("1h30m", 5400), (" 1H ", 3600)]
        checked = 0
        for text, want in cases:
            with self.subTest(text=text):
                self.assertEqual(parse_duration(text), want)

    def test_rejects(self):
        for text in ["", "10", "5x", "1h 30m"]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    parse_duration(text)


if __name__ == "__main__":
    unittest.main()
