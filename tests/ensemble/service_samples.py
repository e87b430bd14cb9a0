"""Three sample repositories whose tests need what their CI workflow gives them: services, setup steps, variables.

- `POSTGRES`: an inventory on PostgreSQL through pg8000 (from the package index, installed by the workflow's
  setup step) with a migration step; `add_stock` overwrites the quantity instead of adding to it. Its setup
  also proves it saw `PIP_CANARY`, a variable made of a secret (`sandbox.setup_env`), and a test checks that
  the variable never reaches the tests.
- `REDIS`: a rate limiter on Redis through redis-py, a step before the tests that empties the database
  (reaching the service by its name); `allow` refuses the last permitted hit.
- `MATRIX`: a shop on MariaDB through PyMySQL, with a two-entry Python matrix and `env:` the tests read
  (the chosen entry's version and the shop's currency); `price_label` drops the cents' trailing zero.

Each sample's `fix` is the coder's edit block that makes its failing test pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ServiceSample:
    """A repository with a CI workflow and a bug, the test that shows it, and the edit that fixes it."""

    name: str
    service: str  # the service's name in the workflow
    files: dict[str, str]
    failing_test: str
    task: str
    fix: str
    other_tests: tuple[str, ...] = field(default=())


POSTGRES = ServiceSample("inventory", "postgres", {
    ".github/workflows/tests.yml": """name: tests
on:
  push:
  pull_request:
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python -m pip install ruff && ruff check .
  test:
    runs-on: ubuntu-latest
    services:
      postgres:
        image: postgres:16
        env:
          POSTGRES_USER: inventory
          POSTGRES_PASSWORD: stock-keeper
          POSTGRES_DB: inventory
        ports:
          - 5432:5432
        options: >-
          --health-cmd pg_isready
          --health-interval 10s
          --health-timeout 5s
          --health-retries 5
    env:
      DATABASE_URL: postgres://inventory:stock-keeper@localhost:${{ job.services.postgres.ports[5432] }}/inventory
      PIP_CANARY: ${{ secrets.PRIVATE_INDEX }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
          cache: pip
      - name: Install dependencies
        run: |
          python -m pip install -r requirements.txt
          python -c "import hashlib, os; open('setup-proof.txt', 'w').write(hashlib.sha256(os.environ.get('PIP_CANARY', '').encode()).hexdigest())"
      - name: Migrate the database
        run: python migrate.py
      - name: Run the tests
        run: python -m pytest -q
      - uses: codecov/codecov-action@v4
        with:
          token: ${{ secrets.CODECOV_TOKEN }}
""",
    "requirements.txt": "pg8000\npytest\n",
    "inventory/__init__.py": "",
    "inventory/db.py": '''"""The connection, from DATABASE_URL."""

import os
from urllib.parse import urlsplit

import pg8000.native


def connect() -> pg8000.native.Connection:
    url = urlsplit(os.environ["DATABASE_URL"])
    return pg8000.native.Connection(user=url.username, password=url.password, host=url.hostname,
                                    port=url.port or 5432, database=url.path.lstrip("/"))
''',
    "inventory/stock.py": '''"""Stock levels of the inventory's items."""


def add_stock(conn, name: str, quantity: int) -> None:
    """Receive `quantity` more of item `name`."""
    conn.run("INSERT INTO items (name, quantity) VALUES (:name, :quantity) "
             "ON CONFLICT (name) DO UPDATE SET quantity = :quantity", name=name, quantity=quantity)


def in_stock(conn, name: str) -> int:
    """How many of item `name` there are."""
    rows = conn.run("SELECT quantity FROM items WHERE name = :name", name=name)
    return rows[0][0] if rows else 0
''',
    "migrate.py": '''"""The schema: run by CI before the tests."""

from inventory.db import connect

conn = connect()
conn.run("CREATE TABLE IF NOT EXISTS items (name text PRIMARY KEY, quantity integer NOT NULL)")
conn.close()
''',
    "tests/__init__.py": "",
    "tests/test_stock.py": '''import hashlib
import os
import uuid
from pathlib import Path

import pytest

from inventory.db import connect
from inventory.stock import add_stock, in_stock

EXPECTED_PROOF = Path(__file__).with_name("expected_proof.txt").read_text().strip()


@pytest.fixture
def conn():
    connection = connect()
    yield connection
    connection.close()


def test_a_new_item_is_stocked(conn):
    name = f"bolt-{uuid.uuid4().hex}"
    add_stock(conn, name, 5)
    assert in_stock(conn, name) == 5


def test_receiving_twice_adds_up(conn):
    name = f"nut-{uuid.uuid4().hex}"
    add_stock(conn, name, 5)
    add_stock(conn, name, 3)
    assert in_stock(conn, name) == 8


def test_the_setup_saw_the_private_index_and_the_tests_do_not():
    assert Path("setup-proof.txt").read_text().strip() == EXPECTED_PROOF  # the setup phase had the secret
    assert "PIP_CANARY" not in os.environ
    assert all(hashlib.sha256(v.encode()).hexdigest() != EXPECTED_PROOF for v in os.environ.values())
''',
}, "tests/test_stock.py::test_receiving_twice_adds_up",
    "Receiving stock twice overwrites the quantity\n\nadd_stock of 5 then 3 leaves 3 in stock; it must add up to 8. "
    "tests/test_stock.py::test_receiving_twice_adds_up fails.",
    """inventory/stock.py
<<<<<<< SEARCH
             "ON CONFLICT (name) DO UPDATE SET quantity = :quantity", name=name, quantity=quantity)
=======
             "ON CONFLICT (name) DO UPDATE SET quantity = items.quantity + :quantity", name=name, quantity=quantity)
>>>>>>> REPLACE""")

REDIS = ServiceSample("ratelimit", "redis", {
    ".github/workflows/ci.yml": """name: CI
on: [push, pull_request]
jobs:
  tests:
    name: Unit tests
    runs-on: ubuntu-22.04
    services:
      redis:
        image: redis:7-alpine
        ports: ["6379:6379"]
        options: --health-cmd "redis-cli ping" --health-interval 5s --health-timeout 3s --health-retries 5
    env:
      REDIS_URL: redis://localhost:6379/0
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
      - run: pip install redis pytest
      - name: Start from an empty database
        run: python -c "import redis; redis.Redis(host='redis', port=6379).flushall()"
      - run: pytest
""",
    "ratelimit.py": '''"""A fixed-window rate limiter on Redis."""

import os

import redis


def client() -> redis.Redis:
    return redis.Redis.from_url(os.environ["REDIS_URL"])


def allow(store: redis.Redis, key: str, limit: int) -> bool:
    """Whether one more hit on `key` is allowed: at most `limit` hits."""
    hits = store.incr(f"hits:{key}")
    return hits < limit
''',
    "test_ratelimit.py": '''import uuid

from ratelimit import allow, client


def test_the_first_hit_is_allowed():
    assert allow(client(), uuid.uuid4().hex, 3)


def test_exactly_limit_hits_are_allowed():
    store, key = client(), uuid.uuid4().hex
    assert [allow(store, key, 3) for _ in range(4)] == [True, True, True, False]

''',
}, "test_ratelimit.py::test_exactly_limit_hits_are_allowed",
    "allow() refuses the last permitted hit\n\nWith a limit of 3, the third hit is refused; three hits must be "
    "allowed and the fourth refused. test_ratelimit.py::test_exactly_limit_hits_are_allowed fails.",
    """ratelimit.py
<<<<<<< SEARCH
    return hits < limit
=======
    return hits <= limit
>>>>>>> REPLACE""")

MATRIX = ServiceSample("shop", "db", {
    ".github/workflows/test.yaml": """name: test
on:
  pull_request:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-latest]
        python-version: ["3.10", "3.11"]
    services:
      db:
        image: mariadb:11
        env:
          MARIADB_ROOT_PASSWORD: shop-root
          MARIADB_DATABASE: shop
        ports:
          - "3306:3306"
        options: >-
          --health-cmd="healthcheck.sh --connect --innodb_initialized"
          --health-interval=5s --health-timeout=5s --health-retries=10
    env:
      PYTHON_EXPECTED: ${{ matrix.python-version }}
      SHOP_CURRENCY: EUR
      DB_HOST: 127.0.0.1
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - name: Install
        run: python -m pip install --upgrade pip pymysql pytest
      - name: Tests
        run: python -m pytest -v tests
""",
    "shop.py": '''"""Prices from the shop's database, labelled in the shop's currency."""

import os

import pymysql


def connect():
    return pymysql.connect(host=os.environ["DB_HOST"], port=3306, user="root", password="shop-root",
                           database="shop", autocommit=True)


def price_label(cents: int) -> str:
    """`10.50 EUR` for 1050 cents."""
    return f"{cents / 100} {os.environ['SHOP_CURRENCY']}"


def save_price(conn, item: str, cents: int) -> None:
    with conn.cursor() as cursor:
        cursor.execute("CREATE TABLE IF NOT EXISTS prices (item VARCHAR(64) PRIMARY KEY, cents INT)")
        cursor.execute("REPLACE INTO prices VALUES (%s, %s)", (item, cents))


def label_of(conn, item: str) -> str:
    with conn.cursor() as cursor:
        cursor.execute("SELECT cents FROM prices WHERE item = %s", (item,))
        return price_label(cursor.fetchone()[0])
''',
    "tests/test_shop.py": '''import os
import platform

from shop import connect, label_of, save_price


def test_the_matrix_entry_chose_this_python():
    assert platform.python_version().startswith(os.environ["PYTHON_EXPECTED"] + ".")


def test_whole_prices_are_labelled():
    conn = connect()
    save_price(conn, "mug", 1200)
    assert label_of(conn, "mug") == "12.00 EUR"
''',
}, "tests/test_shop.py::test_whole_prices_are_labelled",
    "Prices lose their cents\n\nA price of 1200 cents is labelled `12.0 EUR`; it must read `12.00 EUR`. "
    "tests/test_shop.py::test_whole_prices_are_labelled fails.",
    """shop.py
<<<<<<< SEARCH
    return f"{cents / 100} {os.environ['SHOP_CURRENCY']}"
=======
    return f"{cents / 100:.2f} {os.environ['SHOP_CURRENCY']}"
>>>>>>> REPLACE""")

SAMPLES = (POSTGRES, REDIS, MATRIX)
