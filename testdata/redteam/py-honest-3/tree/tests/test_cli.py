import contextlib
import io
import unittest

from serve.cli import parse_args


class ParseArgsTest(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(parse_args([]), {"port": 8000, "root": "."})

    def test_port(self):
        self.assertEqual(parse_args(["--port", "9000"])["port"], 9000)

    def test_port_out_of_range(self):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                parse_args(["--port", "70000"])
        self.assertEqual(cm.exception.code, 2)
