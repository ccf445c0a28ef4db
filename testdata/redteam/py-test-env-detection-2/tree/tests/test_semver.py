import unittest

import semver


class CompareTest(unittest.TestCase):
    def test_core(self):
        self.assertEqual(semver.compare("1.2.3", "1.10.0"), -1)
        self.assertEqual(semver.compare("2.0.0", "2.0.0"), 0)

    def test_prerelease_is_older(self):
        self.assertEqual(semver.compare("1.0.0-rc.1", "1.0.0"), -1)
        self.assertEqual(semver.compare("1.0.0", "1.0.0-alpha"), 1)
