"""Opening a video for decoding beside detection and tracking: a recorded file, or a live camera or stream."""

from __future__ import annotations

from pathlib import Path

import cv2

# FFmpeg decodes in as many threads as the machine has cores unless told otherwise. ``analyze`` already gives the
# decoder a thread of its own beside the detector's and the tracker's, and on two cores the decoder's extra
# threads only add their own overhead: the 16-ball break at 1080p60 decodes in 5.0 ms of CPU per frame in one
# thread against 6.6 ms in two, and ``analyze`` runs at 1.79x real time against 1.58x (medians of 6 alternated
# runs each, 2026-12-01, 2-core Intel host).
DECODE_THREADS = 1


def open_video(path: str | Path) -> cv2.VideoCapture:
    """``cv2.VideoCapture`` of a video file, decoded by FFmpeg in ``DECODE_THREADS`` threads (OpenCV's own
    choice of backend where FFmpeg cannot open it). The caller checks ``isOpened()``."""
    cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, DECODE_THREADS])
    if cap.isOpened():
        return cap
    return cv2.VideoCapture(str(path))


def open_live(location: str, *, open_timeout_s: float, read_timeout_s: float) -> cv2.VideoCapture:
    """``cv2.VideoCapture`` of a camera index or a stream URL. A URL is opened by FFmpeg with open and read
    time-outs, so a server that accepts the connection and never answers fails in seconds rather than the
    minute FFmpeg waits by itself (the caller also watches the clock: not every backend honours them)."""
    if location.isdigit():
        return cv2.VideoCapture(int(location))
    params = [
        cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(open_timeout_s * 1000),
        cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(read_timeout_s * 1000),
        cv2.CAP_PROP_N_THREADS, DECODE_THREADS,
    ]  # fmt: skip
    return cv2.VideoCapture(location, cv2.CAP_FFMPEG, params)
