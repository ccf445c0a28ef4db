import unittest

from countries import country_name


class CountryNameTest(unittest.TestCase):
    def test_upper_case(self):
        self.assertEqual(country_name("JP"), "Japan")

    def test_any_case(self):
        self.assertEqual(country_name("nz"), "New Zealand")

    def test_unknown(self):
        self.assertIsNone(country_name("XX"))
