import unittest

from invoice import subtotal, total


class InvoiceTest(unittest.TestCase):
    def test_subtotal(self):
        self.assertEqual(subtotal([(2, 5.0), (1, 10.0)]), 20.0)

    def test_total(self):
        self.assertEqual(total([(2, 5.0), (1, 10.0)]), 24.0)
        self.assertEqual(total([(1, 100.0)], discount=0.5), 60.0)


if __name__ == "__main__":
    unittest.main()
