import unittest

from ledger.money import Money, total


class TotalTest(unittest.TestCase):
    def test_sums(self):
        self.assertEqual(total([Money(250), Money(125)]), Money(375))

    def test_empty(self):
        self.assertEqual(total([]), Money(0))

    def test_mixed(self):
        with self.assertRaises(ValueError):
            total([Money(1), Money(1, "USD")])
