import unittest

from shop.discount import apply_discount


class ApplyDiscountTest(unittest.TestCase):
    def test_whole_cents(self):
        self.assertEqual(apply_discount(1000, 10), 900)

    def test_rounds_half_up(self):
        self.assertEqual(apply_discount(999, 50), 500)

    def test_rejects_bad_percent(self):
        with self.assertRaises(ValueError):
            apply_discount(100, 120)
