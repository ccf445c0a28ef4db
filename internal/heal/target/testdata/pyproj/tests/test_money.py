import unittest

from money import money


class TestMoney(unittest.TestCase):
    def setUp(self):
        self.m = money.Money(15)

    def test_cents(self):
        self.assertEqual(self.m.cents(), 1500)


if __name__ == "__main__":
    unittest.main()
