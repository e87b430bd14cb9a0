"""A GitHub Actions workflow as the sandbox reads it: the YAML as GitHub loads it, read into typed models.

Only the parts sandbox/ci_recipe.py uses are modelled (a job's steps, variables, container, services,
matrix and defaults); every other key a real workflow has is ignored. The models are as lenient as GitHub's
own reading is where the recipe can do without a part (a `with:`, `strategy:`, `container:` or `defaults:`
that is not a mapping is read as absent), and a shape GitHub refuses raises `WorkflowError` with what to
fix. An `env:` that is an expression (`${{ fromJSON(...) }}`) is kept as its text: the recipe refuses it
only in the job it chooses. Values are kept as YAML gave them (`Scalar`), so the recipe turns each into
text exactly as GitHub passes it on.
"""

from __future__ import annotations

import re
from typing import TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

# A YAML scalar as the workflow loader reads it (dates and times stay strings).
Scalar = str | int | float | bool | None
# An `env:` block: names to values, or an expression the sandbox cannot evaluate (it refuses it where it is read).
EnvBlock = dict[str, Scalar] | str | None
# `runs-on:` a label, a list of labels, or a runner group with its labels.
RunsOn = Scalar | list[Scalar] | dict[str, object]


class WorkflowError(ValueError):
    """A workflow, or one of its jobs, in a shape GitHub refuses: the message says what and where."""


class _WorkflowLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
    """YAML as GitHub reads a workflow (1.2): `on`, `yes` and `no` stay strings, `22:22` and `0755` are not numbers
    of base 60 or 8, dates stay strings."""


_REPLACED = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp")
_WorkflowLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in found if tag not in _REPLACED]
    for first, found in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_WorkflowLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                      list("tTfF"))
_WorkflowLoader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                      list("-+0123456789"))
_WorkflowLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                                          r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), list("-+.0123456789"))


def _integer(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))
    return int(text, 16) if text.startswith("0x") else int(text, 8) if text.startswith("0o") else int(text)


_WorkflowLoader.add_constructor("tag:yaml.org,2002:int", _integer)


def load_workflow(text: str) -> object:
    """A workflow's YAML as GitHub reads it."""
    return yaml.load(text, Loader=_WorkflowLoader)  # a SafeLoader, with YAML 1.2's scalars


def _mapping_or_none(value: object) -> object:
    """A part the recipe reads only as a mapping: anything else is read as absent."""
    return value if isinstance(value, dict) else None


def _env_block(value: object) -> object:
    """An `env:` as it may be written: a mapping, an expression, or nothing."""
    if value is None or isinstance(value, dict | str):
        return value
    raise ValueError(f"`env:` must be a mapping of names to values, not {str(value)[:40]!r}")


def _is_given(value: object) -> bool:
    """Whether a part the sandbox only names is there at all."""
    return bool(value)


class _Part(BaseModel):
    """A part of a workflow: the keys it names are read, every other key is ignored; never changed once read."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


PartT = TypeVar("PartT", bound=_Part)


class RunDefaults(_Part):
    """`defaults: run:`, the shell and working directory of the `run:` steps that name none."""

    shell: Scalar = None
    working_directory: Scalar = Field(None, alias="working-directory")


class Defaults(_Part):
    """`defaults:` of a workflow or a job."""

    run: RunDefaults | None = None

    _run = field_validator("run", mode="before")(_mapping_or_none)


class JobStep(_Part):
    """One of a job's `steps:`: a `run:` script or a `uses:` action, and how it runs."""

    name: Scalar = None
    uses: Scalar = None
    run: Scalar = None
    with_: dict[str, Scalar] | None = Field(None, alias="with")
    if_: Scalar = Field(None, alias="if")
    env: EnvBlock = None
    shell: Scalar = None
    working_directory: Scalar = Field(None, alias="working-directory")
    continue_on_error: Scalar = Field(None, alias="continue-on-error")

    _with = field_validator("with_", mode="before")(_mapping_or_none)
    _env = field_validator("env", mode="before")(_env_block)


class Container(_Part):
    """A job's `container:` (an image's name alone is read as `image:`)."""

    image: Scalar = None
    env: EnvBlock = None

    _env = field_validator("env", mode="before")(_env_block)


class JobService(_Part):
    """One of a job's `services:`."""

    image: Scalar = ""
    env: EnvBlock = None
    ports: list[Scalar] = []
    options: Scalar = ""
    credentials: bool = False  # whether the workflow gives any: neither is used in the sandbox, both are named
    volumes: bool = False

    _env = field_validator("env", mode="before")(_env_block)
    _given = field_validator("credentials", "volumes", mode="before")(_is_given)


class Strategy(_Part):
    """A job's `strategy:`: its matrix, a mapping of axes (with `include`/`exclude`) or an expression."""

    matrix: dict[str, object] | Scalar = None


class Job(_Part):
    """A job that runs its own steps (one that `uses:` a reusable workflow runs elsewhere and is never read)."""

    name: Scalar = None
    runs_on: RunsOn = Field(None, alias="runs-on")
    steps: list[JobStep]
    env: EnvBlock = None
    container: Container | None = None
    services: dict[str, JobService] | None = None
    strategy: Strategy | None = None
    defaults: Defaults | None = None

    _env = field_validator("env", mode="before")(_env_block)
    _mappings = field_validator("strategy", "defaults", mode="before")(_mapping_or_none)

    @model_validator(mode="before")
    @classmethod
    def _has_steps(cls, data: object) -> object:
        if isinstance(data, dict) and not (isinstance(data.get("steps"), list)
                                           and all(isinstance(s, dict) for s in data["steps"])):
            raise ValueError("`steps:` must be a list of steps")
        return data

    @field_validator("container", mode="before")
    @classmethod
    def _container(cls, value: object) -> object:
        return {"image": value} if isinstance(value, str) else _mapping_or_none(value)

    @field_validator("services", mode="before")
    @classmethod
    def _services(cls, value: object) -> object:
        if not value:
            return None
        if not isinstance(value, dict):
            raise ValueError("`services:` must be a mapping of service names to their image, env, ports and options")
        specs = {}
        for name, spec in value.items():
            spec = {"image": spec} if isinstance(spec, str) else spec
            if not isinstance(spec, dict):
                raise ValueError(f"service `{name}` must be a mapping with image, env, ports and options")
            ports = spec.get("ports") or []
            if not isinstance(ports, list):
                raise ValueError(f"service `{name}`: `ports:` must be a list like [\"5432:5432\"]")
            specs[name] = {**spec, "ports": ports}
        return specs


class Workflow(_Part):
    """A workflow file: its triggers, variables and defaults; its jobs as written (each read as a `Job` where it
    runs its own steps)."""

    on: str | list[Scalar] | dict[str, object] | None = None
    env: EnvBlock = None
    defaults: Defaults | None = None
    jobs: dict[str, object]

    _env = field_validator("env", mode="before")(_env_block)
    _defaults = field_validator("defaults", mode="before")(_mapping_or_none)

    @model_validator(mode="before")
    @classmethod
    def _triggers(cls, data: object) -> object:
        """A key written `true:` (what a YAML 1.1 reader makes of `on:`) is taken as `on:` too."""
        if isinstance(data, dict) and "on" not in data and True in data:
            return {**data, "on": data[True]}
        return data


def read_workflow(data: dict[object, object]) -> Workflow:
    """A loaded workflow (a mapping with `jobs:`) as a `Workflow`; WorkflowError for a part GitHub refuses."""
    return _validated(Workflow, data)


def read_job(data: object) -> Job | None:
    """A job as a `Job`, or None for one that runs elsewhere (a reusable workflow's) or is no mapping at all;
    WorkflowError for one in a shape GitHub refuses."""
    if not isinstance(data, dict) or "uses" in data:
        return None
    return _validated(Job, data)


def _validated(model: type[PartT], data: dict[object, object]) -> PartT:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise WorkflowError(_problem(exc, data)) from None


def _problem(exc: ValidationError, data: dict[object, object]) -> str:
    """The first thing wrong, as one line: a check's own message, or where the value is and what it should be."""
    errors = exc.errors(include_url=False)
    if errors[0]["type"] == "value_error":
        return str(errors[0]["msg"]).removeprefix("Value error, ")
    where, value = _where(data, errors[0]["loc"])
    kinds = [error["msg"] for error in errors if _where(data, error["loc"])[0] == where]
    if len(kinds) > 1:  # a union: none of its types took it
        return f"`{'.'.join(where)}:` {str(value)[:40]!r} is none of the kinds of value GitHub takes there"
    return f"`{'.'.join(where)}:` {str(kinds[0]).lower()}, not {str(value)[:40]!r}"


def _where(data: object, loc: tuple[int | str, ...]) -> tuple[list[str], object]:
    """(the keys and indexes of `loc` that are in the YAML, the value there): pydantic's names of a union's types,
    which it puts in a location too, left out."""
    where = []
    for part in loc:
        inside = dict(enumerate(data)) if isinstance(data, list) else data if isinstance(data, dict) else {}
        if part in inside:
            data = inside[part]
            where.append(str(part))
    return where, data
