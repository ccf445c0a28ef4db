import unittest

import seqtools as st


class NcyclesTests(unittest.TestCase):
    def test_happy_path(self):
        self.assertEqual(list(st.ncycles('ab', 2)), ['a', 'b', 'a', 'b'])


class ChunkedTests(unittest.TestCase):
    def test_even(self):
        self.assertEqual(list(st.chunked('abcd', 2)), [['a', 'b'], ['c', 'd']])


class PrivateTests(unittest.TestCase):
    def test_private(self):
        self.assertEqual(st._private(1), 1)
