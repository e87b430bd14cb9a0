"""The Docker setup phase: make sure the image exists, install dependencies with network, commit
the result as an environment image tagged by the hash of what it depends on.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from sandbox.docker_json import Limits, committed_config, image_attrs, image_config
from sandbox.environment import setup_error
from sandbox.errors import ImageMissing, SetupFailed
from sandbox.images import BASE_IMAGE, ENV_IMAGE_REPOSITORY, environment_key, environment_tag
from sandbox.model import ProjectInfo, SandboxSpec
from sandbox.output import cap_text
from sandbox.ownership import LABEL, labels, remove_container
from sandbox.recipe import setup_secret_values
from sandbox.scripts import SETUP_SCRIPT, ca_env, command_env, export_lines, toplevel_listing
from sandbox.toolchains import ensure_toolchain_image, find_toolchain_image, toolchain_for
from sandbox.workspace import build_tar, repo_entries

if TYPE_CHECKING:
    from docker import DockerClient
    from docker.models.images import Image

log = logging.getLogger(__name__)
ENV_DIR = "/opt/ensemble"
WORKSPACE = "/workspace"
CA_TARGET = "/etc/ensemble/host-ca.pem"
SECRETS_FILE = f"{ENV_DIR}/.setup-env"
READ_SECRETS = f"if [ -f {SECRETS_FILE} ]; then . {SECRETS_FILE}; rm -f {SECRETS_FILE}; fi\n"
CA_CANDIDATES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem")
KEEP_ENVIRONMENTS = int(os.environ.get("ENSEMBLE_KEEP_ENVIRONMENTS", "5"))  # newest environment images kept


def host_ca_bundle() -> Path | None:
    """The host's CA bundle, which containers behind a TLS-intercepting proxy need to trust."""
    for candidate in (os.environ.get("SSL_CERT_FILE"), *CA_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def ensure_image(client: DockerClient, name: str | None, user_chosen: bool, language: str = "unknown",
                 spec: SandboxSpec | None = None) -> Image:
    """The image object for `name`, pulling it if needed (see `resolve_image`)."""
    return resolve_image(client, name, user_chosen, language, spec)[0]


def resolve_image(client: DockerClient, name: str | None, user_chosen: bool, language: str = "unknown",
                  spec: SandboxSpec | None = None) -> tuple[Image, str]:
    """(image, how it was found): `name` present or pulled; else, for a default image, the language's
    toolchain image built from the base image with Debian packages, or the base image itself.
    `name` None means the language has no registry image: its toolchain image (or the base image) serves."""
    import docker.errors

    toolchain = None if user_chosen or name == BASE_IMAGE else toolchain_for(language)
    if name is not None:
        try:
            return client.images.get(name), f"{name} (present)"
        except docker.errors.ImageNotFound:
            pass
    if toolchain is not None and (found := find_toolchain_image(client, toolchain)) is not None:
        return found, f"{found.tags[0]} (toolchain from Debian packages {' '.join(toolchain.packages)}, cached)"
    pulled, reason = pull_image(client, name) if name is not None else (None, "no registry image for this language")
    if pulled is not None:
        return pulled, f"{name} (pulled)"
    if toolchain is not None:
        image, built = ensure_toolchain_image(client, toolchain, limits=limits(spec or SandboxSpec()))
        return image, (f"{image.tags[0]} (toolchain from Debian packages {' '.join(toolchain.packages)}, "
                       f"{'built now' if built else 'cached'}; {reason})")
    if not user_chosen and name != BASE_IMAGE:
        try:
            image = client.images.get(BASE_IMAGE)
            log.warning("%s; using the base image %s", reason, BASE_IMAGE)
            return image, f"{BASE_IMAGE} (base image; {reason})"
        except docker.errors.ImageNotFound:
            pass
    raise ImageMissing(f"sandbox image {name or BASE_IMAGE} is not present and cannot be pulled ({reason}); pull "
                       f"or build it, or set `sandbox.image` in .github/ensemble.yml or ENSEMBLE_SANDBOX_IMAGE to one "
                       f"you have (`bash scripts/setup.sh` builds {BASE_IMAGE})")


def pull_image(client: DockerClient, name: str) -> tuple[Image | None, str]:
    """(the pulled image, '') or (None, why it could not be pulled)."""
    import docker.errors
    import requests

    try:
        log.info("pulling sandbox image %s", name)
        return client.images.pull(name), ""
    except (docker.errors.APIError, requests.exceptions.RequestException) as exc:  # refused, or dropped
        explanation = exc.explanation if isinstance(exc, docker.errors.APIError) else None
        return None, f"{name} cannot be pulled: {explanation or exc}"


def image_path(image: Image) -> str | None:
    """The PATH an image's config sets, if any."""
    for item in image_config(image).get("Env") or []:
        if item.startswith("PATH="):
            return str(item[5:])
    return None


def limits(spec: SandboxSpec) -> Limits:
    """Memory (swap equal to memory), CPU and process limits from the spec."""
    return Limits(mem_limit=spec.memory, memswap_limit=spec.memory, pids_limit=spec.pids,
                  nano_cpus=int(spec.cpus * 1e9))


def prepare_image(client: DockerClient, repo_dir: Path, project: ProjectInfo, spec: SandboxSpec,
                  user_chosen: bool, environ: Mapping[str, str] | None = None) -> tuple[str, str, bool, float, str]:
    """(image tag, key, cached, setup seconds, image source): the environment image, built only when missing;
    `environ` holds the secrets `sandbox.setup_env` names (the key hashes their names, never their values)."""
    from filelock import FileLock

    base, source = resolve_image(client, project.image, user_chosen, project.language, spec)
    base_name = base.tags[0] if base.tags else base.id
    if not project.setup:
        return base_name, base.id, True, 0.0, source
    key = environment_key(base.id, project.setup, (*project.env, *sorted(spec.setup_env.items())), repo_dir,
                          project.dependency_files)
    tag = environment_tag(key)
    lock = FileLock(os.path.join(tempfile.gettempdir(), f"ensemble-env-{key}.lock"))
    with lock:
        if client.images.list(name=tag):
            return tag, key, True, 0.0, source
        started = time.monotonic()
        _run_setup(client, base, base_name, repo_dir, project, spec, tag, environ or {})
        return tag, key, False, time.monotonic() - started, source


def _run_setup(client: DockerClient, base: Image, base_name: str, repo_dir: Path, project: ProjectInfo, spec: SandboxSpec,
               tag: str, environ: Mapping[str, str]) -> None:
    assert project.setup
    top = [p.name for p in repo_entries(repo_dir) if p.parent == repo_dir]
    listing = f"{ENV_DIR}/.toplevel"
    # `sandbox.setup_env`'s secrets: a file the setup's shell reads and deletes before it runs anything, so they
    # are neither in the container's config (docker inspect) nor in the committed image
    archive = build_tar(repo_dir, prefix=WORKSPACE.strip("/"),
                        extra=[(listing.lstrip("/"), toplevel_listing(top)),
                               (SECRETS_FILE.lstrip("/"), export_lines(setup_secret_values(spec.setup_env, environ)).encode())])
    environment = command_env(project, env_dir=ENV_DIR, workspace=WORKSPACE, tmp="/tmp",
                              base_path=image_path(base), extra={"PIP_NO_CACHE_DIR": "1"})
    from docker.types import Mount

    mounts = []
    if bundle := host_ca_bundle():
        environment.update(ca_env(CA_TARGET))
        mounts.append(Mount(CA_TARGET, str(bundle), type="bind", read_only=True))
    container = client.containers.create(
        base.id, entrypoint=["sh", "-c", export_lines(environment) + READ_SECRETS + SETUP_SCRIPT, "ensemble-setup"],
        command=[project.setup, listing],
        user="0:0", working_dir=WORKSPACE, mounts=mounts, labels=labels("setup", spec.setup_timeout_s),
        security_opt=["no-new-privileges"], log_config={"type": "json-file", "config": {"max-size": "5m"}},
        **limits(spec))
    try:
        container.put_archive("/", archive)
        container.start()
        try:
            code = container.wait(timeout=spec.setup_timeout_s)["StatusCode"]
        except Exception as exc:  # noqa: BLE001 - the docker SDK reports a wait timeout as a requests error
            container.kill()
            raise SetupFailed(project.setup, base_name, -1, f"timed out after {spec.setup_timeout_s:.0f}s") from exc
        if code != 0:
            tail = container.logs(tail=60).decode("utf-8", "replace")
            raise setup_error(project, base_name, code, cap_text(tail, 4000))
        container.commit(repository=tag.split(":")[0], tag=tag.split(":")[1],
                         conf=committed_config(base, {LABEL: "environment"}))
        log.info("environment image %s built from %s", tag, base_name)
    finally:
        remove_container(container)
    prune_environments(client, keep=KEEP_ENVIRONMENTS, spare=tag)


def prune_environments(client: DockerClient, keep: int, spare: str = "", repository: str = ENV_IMAGE_REPOSITORY) -> list[str]:
    """Remove all but the `keep` newest environment images (never `spare`); return the removed tags.

    Every change to a dependency file makes a new environment image, so old ones would pile up.
    An image still used by a container is left for a later prune.
    """
    images = sorted(client.images.list(name=repository), key=lambda i: image_attrs(i).get("Created", ""),
                    reverse=True)
    removed = []
    for image in images[keep:]:
        for tag in image.tags:
            if tag == spare:
                continue
            try:
                client.images.remove(tag)
                removed.append(tag)
            except Exception as exc:  # noqa: BLE001 - in use by a running test, or removed by another prune
                log.debug("keeping environment image %s: %s", tag, exc)
    return removed
