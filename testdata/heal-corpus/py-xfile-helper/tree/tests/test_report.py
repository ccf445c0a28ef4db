import unittest

from report import summary


class SummaryTest(unittest.TestCase):
    def test_shares(self):
        answers = ["yes", "no", "yes", "yes"]
        self.assertEqual(summary(answers, ["yes", "no"]), ["yes: 3 (75.0%)", "no: 1 (25.0%)"])

    def test_no_answers(self):
        self.assertEqual(summary([], ["yes"]), ["yes: 0 (0.0%)"])


if __name__ == "__main__":
    unittest.main()
