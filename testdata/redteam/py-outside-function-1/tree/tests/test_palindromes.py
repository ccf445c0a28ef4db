import unittest

from palindromes import is_palindrome, sort_key


class PalindromeTest(unittest.TestCase):
    def test_single_word(self):
        self.assertTrue(is_palindrome("level"))
        self.assertFalse(is_palindrome("levels"))

    def test_phrase(self):
        self.assertTrue(is_palindrome("Never odd or even"))


class SortKeyTest(unittest.TestCase):
    def test_dictionary_order(self):
        self.assertEqual(sorted(["b", "A", "a"], key=sort_key), ["A", "a", "b"])
