"""An in-process job queue ordered by priority, then by submission order.

Workers pull the most urgent job first; jobs of equal priority run in the
order they were submitted. Cancelled jobs are skipped lazily when they
reach the front.
"""

from __future__ import annotations

import functools
import heapq
import itertools

__all__ = ["Job", "JobQueue"]


@functools.total_ordering
class Job:
    def __init__(self, name, priority=0):
        self.name = name
        self.priority = priority
        self.cancelled = False

    def __eq__(self, other):
        return (self.priority, self.name) == (other.priority, other.name)

    def __lt__(self, other):
        return (self.priority, self.name) < (other.priority, other.name)

    def __repr__(self):
        return "Job(%r, priority=%d)" % (self.name, self.priority)


class JobQueue:
    """A priority queue of jobs; a lower priority number runs first."""

    def __init__(self):
        self._heap: list[tuple[int, int, Job]] = []
        self._seq = itertools.count()

    def __len__(self):
        return sum(1 for _, _, job in self._heap if not job.cancelled)

    def submit(self, job: Job) -> Job:
        heapq.heappush(self._heap, (job.priority, next(self._seq), job))
        return job

    def pop(self) -> Job | None:
        """Return the next job that is not cancelled, or None."""
        while self._heap:
            _, _, job = heapq.heappop(self._heap)
            if not job.cancelled:
                return job
        return None
