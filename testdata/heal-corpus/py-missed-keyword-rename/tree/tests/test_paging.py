import unittest

from shop.paging import paginate


class PaginateTest(unittest.TestCase):
    def test_last_page_is_short(self):
        p = paginate(list(range(25)), page=3, per_page=10)
        self.assertEqual(p.items, [20, 21, 22, 23, 24])
        self.assertFalse(p.has_next)

    def test_page_is_clamped(self):
        self.assertEqual(paginate([1, 2], page=9, per_page=10).number, 1)

    def test_bad_size(self):
        with self.assertRaises(ValueError):
            paginate([1], per_page=0)
