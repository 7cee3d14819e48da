"""8-ball pyramid, fast called (001 2.11): the fast game with compulsory calls and "с падающим"."""

from __future__ import annotations

from rules.games.eight_fast import EightFast


class EightFastCalled(EightFast):
    name = "eight-fast-called"
    title = "Пирамида 8 шаров - быстрая заказная"
    clause = "001 2.11"
    calls = "ball"  # 2.11.6
    call_any = True  # 2.11.6
