"""A window over a series that only slides forward, kept sorted: its median and MAD at every step.

The change-point scan (`context.anomaly.change_point`) asks for the median and
MAD of a baseline, and the median of an "after" stretch, at every candidate
onset. At one sample a minute those windows hold a few dozen values; at one
sample a second, hundreds of candidates over baselines of up to 1,800 values,
and sorting every window again took seconds per incident. Both ends of each
window only move right, so a step inserts and removes a few values in a sorted
list; the MAD is a selection in the two sorted runs of deviations on either
side of the median, without building them. The values returned are exactly
those of sorting the window each time (the same order statistics of the same
numbers), so scores do not change.
"""

from __future__ import annotations

from bisect import bisect_left, insort


class SortedWindow:
    """values[lo:hi] of a fixed list, sorted, for windows whose ends never move back."""

    def __init__(self, values: list[float]) -> None:
        self._values = values
        self._lo = 0
        self._hi = 0
        self._sorted: list[float] = []
        self.ordered = self._sorted  # the sorted values, for a scan that slides them itself (`anomaly._scan`)
        self._taken = 0  # the last `median_deviation`'s count from the left run: where the next search starts

    def slide(self, lo: int, hi: int) -> None:
        """Make the window values[lo:hi]; `lo` and `hi` are at least those of the previous call."""
        values, ordered = self._values, self._sorted
        if lo >= self._hi:  # no overlap: start afresh
            ordered.clear()
            self._lo = self._hi = lo
        for i in range(self._lo, lo):
            del ordered[bisect_left(ordered, values[i])]
        for i in range(self._hi, hi):
            insort(ordered, values[i])
        self._lo, self._hi = lo, hi

    def __len__(self) -> int:
        return len(self._sorted)

    def spread(self, center: float) -> float:
        """The largest |v - center| over the window: a bound on any median deviation, at no cost."""
        ordered = self._sorted
        return max(center - ordered[0], ordered[-1] - center)

    def median(self) -> float:
        ordered = self._sorted
        mid = len(ordered) // 2
        return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2

    def median_deviation(self, center: float) -> float:
        """The median of |v - center| over the window (the MAD when `center` is its median).

        Below the first value >= center the deviations are center - v, growing
        leftwards; from it on, v - center, growing rightwards: two sorted runs.
        The k+1 smallest deviations take `a` of the left run and the rest of
        the right one, `a` being the first count for which the left run's next
        deviation is not smaller than the right run's (found by bisection). The
        k-th smallest is then the larger of the two last ones taken, and the
        (k-1)-th, which an even count also needs, the next one down.
        """
        ordered = self._sorted
        n = len(ordered)
        split = bisect_left(ordered, center)
        k = n // 2
        right = n - split
        lo = k + 1 - right if k + 1 > right else 0  # plain comparisons: this runs once per scan candidate
        hi = split if split < k + 1 else k + 1
        lo, hi = self._near_last(center, split, k, lo, hi)
        while lo < hi:
            a = (lo + hi) // 2
            if center - ordered[split - 1 - a] < ordered[split + k - a] - center:
                lo = a + 1
            else:
                hi = a
        self._taken = lo
        taken_left, taken_right = lo, k + 1 - lo  # how many of each run are among the k+1 smallest
        last_left = center - ordered[split - taken_left] if taken_left else None
        last_right = ordered[split + taken_right - 1] - center if taken_right else None
        if last_right is None or (last_left is not None and last_left >= last_right):
            kth, below = last_left, last_right
            if taken_left > 1:
                previous = center - ordered[split - taken_left + 1]
                below = previous if below is None or previous > below else below  # max(below, previous)
        else:
            kth, below = last_right, last_left
            if taken_right > 1:
                previous = ordered[split + taken_right - 2] - center
                below = previous if below is None or previous > below else below
        assert kth is not None
        if n % 2:
            return kth
        assert below is not None
        return (below + kth) / 2

    def _near_last(self, center: float, split: int, k: int, lo: int, hi: int) -> tuple[int, int]:
        """[lo, hi) narrowed around the previous answer by galloping from it.

        The test "the left run's a-th deviation is below the right run's" holds
        for every a below the answer and for none from it on, so any bracket
        that keeps that boundary inside gives the bisection the same answer.
        Consecutive windows of the scan share all but a few values and have
        nearly the same median, so the answer moves by a few places: a couple
        of probes instead of a bisection over half the window.
        """
        ordered = self._sorted
        guess = self._taken
        guess = lo if guess < lo else hi if guess > hi else guess
        step = 1
        if guess < hi and center - ordered[split - 1 - guess] < ordered[split + k - guess] - center:
            lo = guess + 1  # the answer is above the guess
            while lo < hi:
                probe = guess + step
                if probe >= hi:
                    break
                if center - ordered[split - 1 - probe] < ordered[split + k - probe] - center:
                    lo = probe + 1
                    step *= 2
                else:
                    hi = probe
                    break
        else:
            hi = guess  # the answer is at or below the guess
            while lo < hi:
                probe = guess - step
                if probe < lo:
                    break
                if center - ordered[split - 1 - probe] < ordered[split + k - probe] - center:
                    lo = probe + 1
                    break
                hi = probe
                step *= 2
        return lo, hi
