from export import to_csv

ROWS = [{"name": "Ada", "year": 1815}, {"name": "Grace", "year": 1906}]


def test_default_delimiter():
    assert to_csv(ROWS, ["name", "year"]) == "name;year\r\nAda;1815\r\nGrace;1906\r\n"


def test_other_delimiter():
    assert to_csv(ROWS, ["name"], delimiter="\t") == "name\r\nAda\r\nGrace\r\n"


def test_values_with_the_delimiter_are_quoted():
    assert to_csv([{"name": "Hopper, Grace"}], ["name"], delimiter=",") == 'name\r\n"Hopper, Grace"\r\n'


def test_missing_values_are_empty():
    assert to_csv([{"name": "Ada"}], ["name", "year"], delimiter=",") == "name,year\r\nAda,\r\n"
