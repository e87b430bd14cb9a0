from datetime import date

from billing.workdays import business_days_between, is_business_day, next_business_day

CHRISTMAS = {date(2024, 12, 25), date(2024, 12, 26)}


def test_weekends_are_not_business_days():
    assert is_business_day(date(2024, 5, 3)) and not is_business_day(date(2024, 5, 4))


def test_a_business_day_stays():
    assert next_business_day(date(2024, 5, 2)) == date(2024, 5, 2)


def test_a_weekend_moves_to_monday():
    assert next_business_day(date(2024, 5, 4)) == date(2024, 5, 6)
    assert next_business_day(date(2024, 5, 5)) == date(2024, 5, 6)


def test_a_holiday_on_a_monday_after_the_weekend():
    assert next_business_day(date(2024, 3, 30), {date(2024, 4, 1)}) == date(2024, 4, 2)


def test_two_holidays_in_a_row():
    assert next_business_day(date(2024, 12, 25), CHRISTMAS) == date(2024, 12, 27)


def test_a_holiday_on_a_friday_moves_past_the_weekend():
    assert next_business_day(date(2025, 4, 18), {date(2025, 4, 18)}) == date(2025, 4, 21)


def test_business_days_between():
    assert business_days_between(date(2024, 12, 20), date(2024, 12, 31), CHRISTMAS) == 5
