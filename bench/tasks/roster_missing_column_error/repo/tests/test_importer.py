from datetime import date

import pytest

from roster.__main__ import main
from roster.importer import ImportFormatError, load_members
from roster.models import Member


def write(tmp_path, text, name="members.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_reads_members_in_file_order(tmp_path):
    path = write(tmp_path, "name,email,joined\nAda Lovelace, Ada@Example.org ,2021-03-04\nAlan Turing,alan@example.org,2019-11-30\n")
    assert load_members(path) == [Member("Ada Lovelace", "ada@example.org", date(2021, 3, 4)),
                                  Member("Alan Turing", "alan@example.org", date(2019, 11, 30))]


def test_header_case_and_order_and_extra_columns_do_not_matter(tmp_path):
    path = write(tmp_path, "Joined,Phone,EMAIL,Name\n2020-01-02,555,g@example.org,Grace\n")
    assert load_members(path) == [Member("Grace", "g@example.org", date(2020, 1, 2))]


def test_an_empty_file_is_an_import_error(tmp_path):
    with pytest.raises(ImportFormatError, match="members.csv: the file is empty"):
        load_members(write(tmp_path, ""))


def test_the_command_prints_members_since_a_day(tmp_path, capsys):
    path = write(tmp_path, "name,email,joined\nAda,ada@example.org,2021-03-04\nAlan,alan@example.org,2019-11-30\n")
    assert main(["import", str(path), "--since", "2020-01-01"]) == 0
    assert capsys.readouterr().out == "Ada <ada@example.org>, member since 04 March 2021\n"


def test_a_missing_column_is_named(tmp_path):
    path = write(tmp_path, "Name,E-mail,Joined\nAda,ada@example.org,2021-03-04\n", name="members-2024.csv")
    with pytest.raises(ImportFormatError) as info:
        load_members(path)
    message = str(info.value)
    assert message.startswith("members-2024.csv: missing column(s): email;")
    assert message.endswith("the header has: name, e-mail, joined")


def test_every_missing_column_is_named_even_without_rows(tmp_path):
    path = write(tmp_path, "Name,Mail,Since\n")
    with pytest.raises(ImportFormatError, match=r"members.csv: missing column\(s\): email, joined;"):
        load_members(path)


def test_the_command_reports_a_missing_column(tmp_path, capsys):
    path = write(tmp_path, "name,e-mail,joined\nAda,ada@example.org,2021-03-04\n")
    assert main(["import", str(path)]) == 2
    assert capsys.readouterr().err == (
        "error: members.csv: missing column(s): email; the header has: name, e-mail, joined\n")
