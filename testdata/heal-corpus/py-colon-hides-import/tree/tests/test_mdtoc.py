import unittest

import mdtoc

DOC = """# Guide

## Install

```sh
# not a heading
pip install mdtoc
```

## Usage: the CLI

### Options

## Install
"""


class MdtocTest(unittest.TestCase):
    def test_anchor(self):
        self.assertEqual(mdtoc.anchor("Usage: the CLI"), "usage-the-cli")

    def test_headings_skip_code_and_number_repeats(self):
        got = [(h.level, h.anchor) for h in mdtoc.headings(DOC)]
        self.assertEqual(got, [(1, "guide"), (2, "install"), (2, "usage-the-cli"), (3, "options"), (2, "install-1")])

    def test_render(self):
        self.assertEqual(mdtoc.render("## A\n### B\n"), "- [A](#a)\n  - [B](#b)\n")


if __name__ == "__main__":
    unittest.main()
