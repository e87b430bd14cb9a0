"""The entry point of the service images built from Debian packages (sandbox/service_images.py), run inside them.

    python3 /usr/local/lib/ensemble/service_entry.py postgresql|redis|mariadb

Each takes the variables the official image of its kind reads, so a workflow's `services:` entry works
unchanged: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, POSTGRES_HOST_AUTH_METHOD; MARIADB_*/MYSQL_*
ROOT_PASSWORD, ALLOW_EMPTY(_ROOT)_PASSWORD, DATABASE, USER, PASSWORD. The data directory was initialised when
the image was built; the users and databases asked for are made before the server listens on TCP, so a
health check that connects sees them. Standard library only: the image has Debian's python3 and nothing more.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import NoReturn

POSTGRES_DATA = "/var/lib/ensemble/postgresql"
MARIADB_DATA = "/var/lib/ensemble/mariadb"


def sql_text(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def sql_name(value: str, quote: str = '"') -> str:
    """A SQL identifier (`"name"` for PostgreSQL, `` `name` `` for MariaDB)."""
    return quote + value.replace(quote, quote * 2) + quote


def postgres_sql(env: Mapping[str, str]) -> list[str]:
    """The statements that make POSTGRES_USER (a superuser), its password and POSTGRES_DB."""
    user = env.get("POSTGRES_USER") or "postgres"
    database = env.get("POSTGRES_DB") or user
    password = env.get("POSTGRES_PASSWORD", "")
    role = sql_name(user)
    secret = f" PASSWORD {sql_text(password)}" if password else ""
    statements = ([f"ALTER ROLE {role}{secret}"] if user == "postgres" and secret else
                  [] if user == "postgres" else [f"CREATE ROLE {role} SUPERUSER LOGIN{secret}"])
    if database != "postgres":
        statements.append(f"CREATE DATABASE {sql_name(database)} OWNER {role}")
    return statements


def postgres_hba(env: Mapping[str, str]) -> str:
    """pg_hba.conf: the socket trusted; TCP by password when one is set, else trusted (as `trust` would)."""
    method = env.get("POSTGRES_HOST_AUTH_METHOD") or ("scram-sha-256" if env.get("POSTGRES_PASSWORD") else "trust")
    return f"local all all trust\nhost all all 0.0.0.0/0 {method}\nhost all all ::/0 {method}\n"


def mariadb_sql(env: Mapping[str, str]) -> list[str]:
    """The statements that set root's password (reachable over TCP too) and make the database and user asked for."""
    def get(name: str) -> str:
        return env.get(f"MARIADB_{name}") or env.get(f"MYSQL_{name}") or ""

    root = sql_text(get("ROOT_PASSWORD"))
    # the data directory's own root accounts for 127.0.0.1, ::1 and the build's host name have no password
    statements = ["DELETE FROM mysql.global_priv WHERE User IN ('root', '') AND Host NOT IN ('localhost', '%')",
                  "FLUSH PRIVILEGES",
                  f"CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY {root}",
                  "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION",
                  f"ALTER USER 'root'@'localhost' IDENTIFIED BY {root}"]
    if database := get("DATABASE"):
        statements.append(f"CREATE DATABASE IF NOT EXISTS {sql_name(database, '`')}")
    if (user := get("USER")) and user != "root":
        statements.append(f"CREATE USER IF NOT EXISTS {sql_text(user)}@'%' IDENTIFIED BY {sql_text(get('PASSWORD'))}")
        if database:
            statements.append(f"GRANT ALL ON {sql_name(database, '`')}.* TO {sql_text(user)}@'%'")
    return [*statements, "FLUSH PRIVILEGES"]


def postgresql(env: Mapping[str, str]) -> NoReturn:
    """Make the role and database in single-user mode (no connection is possible meanwhile), then serve."""
    server = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=_version)[-1]
    with open(f"{POSTGRES_DATA}/pg_hba.conf", "w", encoding="utf-8") as hba:
        hba.write(postgres_hba(env))
    if statements := postgres_sql(env):
        made = subprocess.run([server, "--single", "-j", "-D", POSTGRES_DATA, "-c", "fsync=off", "postgres"],
                              input="".join(f"{s};\n\n" for s in statements), text=True, capture_output=True)
        if made.returncode != 0 or "ERROR:" in made.stdout + made.stderr:
            sys.exit(f"ensemble service: setting up PostgreSQL failed:\n{made.stdout}{made.stderr}")
    os.execv(server, [server, "-D", POSTGRES_DATA, "-c", "listen_addresses=*", "-c", "fsync=off",
                      "-c", "synchronous_commit=off", "-c", "full_page_writes=off"])


def redis(env: Mapping[str, str]) -> NoReturn:
    """Serve on every address without persistence, as the official image's defaults allow."""
    os.execvp("redis-server", ["redis-server", "--bind", "0.0.0.0", "--protected-mode", "no", "--save", "",
                               "--appendonly", "no", "--dir", "/tmp"])


def mariadb(env: Mapping[str, str]) -> NoReturn:
    """Serve with an init file: the server runs it before it accepts any connection."""
    init = "/tmp/ensemble-init.sql"
    with open(init, "w", encoding="utf-8") as file:
        file.write("".join(f"{s};\n" for s in mariadb_sql(env)))
    os.execvp("mariadbd", ["mariadbd", f"--datadir={MARIADB_DATA}", "--bind-address=0.0.0.0", "--port=3306",
                           "--socket=/run/mysqld/mysqld.sock", f"--init-file={init}", "--skip-name-resolve",
                           "--innodb-flush-log-at-trx-commit=0", "--skip-log-bin"])


def _version(path: str) -> tuple[int, ...]:
    return tuple(int(p) for p in path.split("/")[4].split(".") if p.isdigit())


KINDS = {"postgresql": postgresql, "redis": redis, "mariadb": mariadb}

if __name__ == "__main__":
    KINDS[sys.argv[1]](os.environ)
