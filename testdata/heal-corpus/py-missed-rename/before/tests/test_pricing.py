import unittest

from shop.cart import Cart
from shop.pricing import apply_discount, with_vat


class PricingTest(unittest.TestCase):
    def test_discount(self):
        self.assertEqual(apply_discount(1000, 15), 850)
        self.assertEqual(apply_discount(999, 10), 899)
        with self.assertRaises(ValueError):
            apply_discount(100, 120)

    def test_vat(self):
        self.assertEqual(with_vat(1000), 1200)
        self.assertEqual(with_vat(3), 4)

    def test_cart(self):
        c = Cart()
        c.add("pen", 150, 2)
        c.add("pen", 150)
        c.add("ink", 1000)
        self.assertEqual(c.subtotal(), 1450)
        self.assertEqual(c.subtotal(discount=10), 1305)


if __name__ == "__main__":
    unittest.main()
