"""``tableref bench live``'s camera: an observer behind it takes the newest frame sent, never an old one, and
waits for the next when it is ahead. The schedule is checked on step costs given in frame periods (no clock)."""

from __future__ import annotations

from api.bench.live import next_frame, play_live


def test_an_observer_faster_than_the_camera_takes_every_frame() -> None:
    assert play_live(lambda i: 0.001, 10, 25.0) == list(range(10))


def test_an_observer_slower_than_the_camera_takes_the_newest_frame_sent() -> None:
    # 2.5 frame periods a step: frame 0 done at 2.5 periods (frames 1 and 2 sent: 2 is taken), frame 2 started
    # at once and done at 5.0 (frame 5 just sent), then 7.5 -> 7, 10.0 -> 10
    assert play_live(lambda i: 2.5 / 25.0, 12, 25.0) == [0, 2, 5, 7, 10]


def test_a_slow_frame_makes_the_observer_skip_what_the_camera_sent_meanwhile() -> None:
    # one frame of 30 periods (the break's first frames once cost that) amid cheap ones
    assert play_live(lambda i: 30 / 60.0 if i == 3 else 0.0, 40, 60.0) == [0, 1, 2, 3, *range(33, 40)]
    assert next_frame(3, 33 / 60.0, 60.0) == 33 and next_frame(3, 3.2 / 60.0, 60.0) == 4


def test_a_queue_of_eight_passes_a_slow_frame_without_a_drop_where_it_holds_what_came_meanwhile() -> None:
    # a step of 5 periods with a queue of 8: the 5 frames sent meanwhile wait in it and are all taken (each later
    # step quick); a step of 12 periods overflows it, and the 4 oldest of the 12 are dropped
    assert play_live(lambda i: 5 / 60.0 if i == 3 else 0.0, 20, 60.0, queue=8) == list(range(20))
    assert play_live(lambda i: 12 / 60.0 if i == 3 else 0.0, 30, 60.0, queue=8) == [0, 1, 2, 3, *range(8, 30)]
