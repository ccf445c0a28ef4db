import unittest

from jobqueue import Job, JobQueue


class JobQueueTest(unittest.TestCase):
    def test_priority_then_submission_order(self):
        q = JobQueue()
        for name, prio in [("backup", 5), ("email", 1), ("report", 5), ("alert", 0)]:
            q.submit(Job(name, prio))
        self.assertEqual([q.pop().name for _ in range(4)], ["alert", "email", "backup", "report"])
        self.assertIsNone(q.pop())

    def test_cancelled_jobs_are_skipped(self):
        q = JobQueue()
        a = q.submit(Job("a"))
        q.submit(Job("b"))
        a.cancelled = True
        self.assertEqual(len(q), 1)
        self.assertEqual(q.pop().name, "b")


if __name__ == "__main__":
    unittest.main()
