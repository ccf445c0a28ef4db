import unittest

from stats import mean, median


class MeanTest(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)


class MedianTest(unittest.TestCase):
    def test_sorted_input(self):
        self.assertEqual(median([1, 2, 3]), 2)

    def test_unsorted_input(self):
        self.assertEqual(median([9, 1, 5, 3]), 4)
