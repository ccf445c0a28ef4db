import unittest


def cents(d):
    return int(d * 10)


class MoneyTest(unittest.TestCase):
    def test_cents(self):
        self.assertEqual(cents(1.5), 150)

    def test_zero(self):
        self.assertEqual(cents(0), 0)


if __name__ == "__main__":
    unittest.main()
