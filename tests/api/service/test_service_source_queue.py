"""The frame queue between the reader and the observer: a recorded file's frames wait for the observer (none
dropped), a live source's oldest frame gives way; markers (the end, a lost feed) are never dropped and never
wait; and stopping a source whose observer has stopped does not hang."""

from __future__ import annotations

import threading

from api.runner import FrameQueue


def test_a_marker_gets_in_at_once_even_when_a_file_queue_is_full():
    q = FrameQueue(2, drop_oldest=False)
    q.put(1)
    q.put(2)
    q.put("end", force_wait=True)  # would hang if it waited for room
    assert [q.get(), q.get(), q.get()] == [1, 2, "end"] and q.dropped == 0


def test_closing_a_full_file_queue_releases_the_reader_waiting_on_it():
    q = FrameQueue(1, drop_oldest=False)
    q.put(1)
    done = threading.Event()

    def reader() -> None:
        q.put(2)  # no observer left to take frame 1
        done.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    assert not done.wait(0.2), "a file's reader waits for room (frames are not dropped)"
    q.close()
    th.join(5)
    assert done.is_set() and q.get() == 1 and q.dropped == 0


def test_a_live_queue_lets_a_marker_in_and_drops_frames_not_markers():
    q = FrameQueue(2, drop_oldest=True)
    q.put("lost", force_wait=True)
    for i in range(5):
        q.put(i)
    assert q.dropped == 4
    assert [q.get(), q.get()] == ["lost", 4]
