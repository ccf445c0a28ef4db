import unittest

from shop.catalog import list_products
from shop.search import search


class SearchTest(unittest.TestCase):
    def test_catalog_pages(self):
        first = list_products()
        self.assertEqual(len(first.items), 20)
        self.assertEqual(first.pages, 3)

    def test_search_pages_by_five(self):
        r = search("item 1")
        self.assertEqual(r.total, 11)
        self.assertEqual(len(r.items), 5)
        self.assertTrue(r.has_next)
