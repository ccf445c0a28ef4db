"""Running statistics over a stream of job durations."""


class Stats:
    """Count, mean and maximum of the values added."""

    def __init__(self):
        self.count = 0
        self.total = 0.0
        self.max = None

    def add(self, value):
        self.count += 1
        self.total += value
        if self.max is None or value > self.max:
            self.max = value

    def mean(self):
        if self.count == 0:
            return 0.0
        return self.total / self.count
