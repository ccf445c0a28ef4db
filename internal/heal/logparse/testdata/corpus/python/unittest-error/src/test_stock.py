import unittest

from inv.stock import restock


class StockTest(unittest.TestCase):
    def test_restock_new(self):
        self.assertEqual(restock({}, "nut")["nut"], 10)


if __name__ == "__main__":
    unittest.main()
