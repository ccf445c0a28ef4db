import unittest

from textkit.wrap import wrap


class WrapTest(unittest.TestCase):
    def test_fits(self):
        self.assertEqual(wrap("short text", 20), ["short text"])

    def test_breaks_between_words(self):
        self.assertEqual(wrap("the quick brown fox", 9), ["the quick", "brown fox"])
        self.assertEqual(wrap("the quick brown fox", 8), ["the", "quick", "brown", "fox"])

    def test_long_word(self):
        self.assertEqual(wrap("a extraordinarily b", 5), ["a", "extraordinarily", "b"])
