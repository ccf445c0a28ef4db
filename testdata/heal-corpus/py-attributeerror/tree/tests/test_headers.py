import unittest

from headers import parse


class ParseTest(unittest.TestCase):
    def test_parse(self):
        h = parse("Content-Type: text/html\r\nX-Id: 7\r\n\r\nbody")
        self.assertEqual(h, {"content-type": "text/html", "x-id": "7"})

    def test_bad(self):
        with self.assertRaises(ValueError):
            parse("no colon here")


if __name__ == "__main__":
    unittest.main()
