import unittest

import settings


class DefaultsTest(unittest.TestCase):
    def test_ports(self):
        self.assertEqual(settings.SMTP_PORT, 25)
        self.assertEqual(settings.SUBMISSION_PORT, 587)

    def test_recipients(self):
        self.assertEqual(settings.MAX_RECIPIENTS, 100)
