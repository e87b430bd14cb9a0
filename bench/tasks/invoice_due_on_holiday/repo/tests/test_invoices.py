from datetime import date

from billing.invoices import Invoice, invoice_number


def test_invoice_number():
    assert invoice_number(2024, 42) == "2024-0042"


def test_due_after_net_days():
    assert Invoice("2024-0001", date(2024, 5, 2)).due == date(2024, 6, 3)  # 1 June is a Saturday


def test_due_date_skips_christmas():
    invoice = Invoice("2024-1187", date(2024, 11, 25))
    assert invoice.due == date(2024, 12, 27)
    assert invoice.reminder == date(2025, 1, 3)


def test_due_date_skips_good_friday_and_easter_monday():
    assert Invoice("2025-0312", date(2025, 3, 19)).due == date(2025, 4, 22)
