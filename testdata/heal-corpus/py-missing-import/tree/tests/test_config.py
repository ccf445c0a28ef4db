import os
import tempfile
import unittest

import config


class ConfigTest(unittest.TestCase):
    def test_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "settings.json")
            config.save(p, {"host": "0.0.0.0", "port": 8080})
            self.assertEqual(config.load(p)["host"], "0.0.0.0")
            self.assertEqual(config.load(p)["port"], 8080)

    def test_missing_file(self):
        self.assertEqual(config.load("/nonexistent/settings.json"), config.DEFAULTS)


if __name__ == "__main__":
    unittest.main()
