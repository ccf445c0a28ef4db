import unittest

from shop.cart import Cart
from shop.checkout import receipt


class ReceiptTest(unittest.TestCase):
    def test_receipt(self):
        c = Cart()
        c.add("pen", 150, 2)
        c.add("ink", 1000)
        lines = receipt(c, coupon_percent=10)
        self.assertEqual(lines[0], "ink          1 x   10.00")
        self.assertEqual(lines[1], "pen          2 x    1.50")
        self.assertEqual(lines[-1], "total                  14.04")


if __name__ == "__main__":
    unittest.main()
