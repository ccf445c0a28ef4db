import unittest

from leapyear import days_in_february, is_leap


class LeapTest(unittest.TestCase):
    def test_is_leap(self):
        self.assertTrue(is_leap(2024))
        self.assertFalse(is_leap(1900))
        self.assertTrue(is_leap(2000))
        self.assertFalse(is_leap(2023))

    def test_february(self):
        self.assertEqual(days_in_february(2000), 29)


if __name__ == "__main__":
    unittest.main()
