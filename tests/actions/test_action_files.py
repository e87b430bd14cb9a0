"""action.yml and the example workflow: the contract users copy (linting itself is tests/test_workflows.py)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOW_TEXT = (ROOT / ".github" / "workflows" / "ensemble.yml").read_text()
WORKFLOW = yaml.safe_load(WORKFLOW_TEXT)


def test_action_is_composite_with_the_documented_inputs_and_outputs() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"github-token", "openai-api-key", "gemini-api-key", "openai-base-url",
                                     "config-path", "budget-usd", "trigger-label", "bot-login", "torch-install",
                                     "upload-trace", "job-timeout-minutes", "verify-evidence"}
    assert set(ACTION["outputs"]) == {"pr-number", "result"}


def test_action_masks_secrets_installs_its_own_venv_and_keeps_inputs_out_of_scripts() -> None:
    steps = ACTION["runs"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "::add-mask::" in runs and "ensemble-core" in runs and "handle-event" in runs
    assert "${{" not in runs  # inputs reach scripts only through env:


def test_action_answers_light_events_with_the_core_and_installs_the_engine_only_when_needed() -> None:
    steps = {step.get("id") or step["name"]: step for step in ACTION["runs"]["steps"]}
    core_install = steps["Install ensemble-bot (core) into its own virtual environment"]
    engine_install = steps["Install ensemble-bot with its engine extra"]
    assert "torch" not in core_install["run"].lower() and "[engine]" not in core_install["run"]
    assert "$TORCH_INSTALL" in engine_install["run"] and '"$GITHUB_ACTION_PATH[engine]"' in engine_install["run"]
    assert engine_install["run"].index("$TORCH_INSTALL") < engine_install["run"].index("[engine]")
    needed = "steps.handle.outputs.result == 'needs-engine'"
    for name in ("engine-cache", "Install ensemble-bot with its engine extra", "engine"):
        assert needed in steps[name]["if"]
    assert "GITHUB_TOKEN" not in engine_install.get("env", {})  # no secrets while third-party code installs
    assert steps["engine"]["env"] == steps["handle"]["env"]  # the second pass handles the same event the same way
    assert "ensemble-engine/bin/ensemble" in steps["engine"]["run"] and "ensemble-core/bin/ensemble" in steps["handle"]["run"]
    assert ACTION["outputs"]["result"]["value"] == "${{ steps.engine.outputs.result || steps.handle.outputs.result }}"


def test_action_caches_both_environments_by_os_python_and_its_own_version() -> None:
    steps = {step.get("id") or step["name"]: step for step in ACTION["runs"]["steps"]}
    assert steps["core-cache"]["uses"].startswith("actions/cache@")
    assert steps["engine-cache"]["uses"].startswith("actions/cache@")
    assert steps["core-cache"]["with"]["key"] == "${{ steps.venv.outputs.core-key }}"
    assert steps["engine-cache"]["with"]["key"] == "${{ steps.venv.outputs.engine-key }}"
    key_script = steps["venv"]["run"]
    assert all(part in key_script for part in ("RUNNER_OS", "PYTHON_VERSION", "GITHUB_ACTION_REF", "sha256sum"))
    assert steps["venv"]["env"]["PYTHON_VERSION"] == "${{ steps.python.outputs.python-version }}"
    assert "steps.core-cache.outputs.cache-hit != 'true'" in steps[
        "Install ensemble-bot (core) into its own virtual environment"]["if"]


def test_action_uploads_the_folder_its_traces_go_to_unless_told_not_to() -> None:
    steps = ACTION["runs"]["steps"]
    handle = next(step for step in steps if step.get("id") == "handle")
    upload = next(step for step in steps if step.get("name") == "Keep the execution traces")
    assert upload["uses"].startswith("actions/upload-artifact@")
    assert upload["with"]["path"] == handle["env"]["ENSEMBLE_RUNS_DIR"]
    assert "always()" in upload["if"] and "inputs.upload-trace == 'true'" in upload["if"]
    assert steps.index(upload) > steps.index(handle)


def test_action_uploads_the_evidence_a_read_only_job_could_not_post() -> None:
    steps = ACTION["runs"]["steps"]
    handle = next(step for step in steps if step.get("id") == "handle")
    evidence = next(step for step in steps if step.get("name") == "Keep the verification's evidence")
    assert evidence["uses"].startswith("actions/upload-artifact@")
    assert evidence["with"]["name"] == "ensemble-verify-evidence" and "outputs.evidence" in evidence["with"]["path"]
    assert "steps.handle.outputs.evidence != ''" in evidence["if"] and steps.index(evidence) > steps.index(handle)
    assert handle["env"]["ENSEMBLE_VERIFY_EVIDENCE"] == "${{ inputs.verify-evidence }}"


def test_verify_runs_on_pull_request_with_the_bases_action_and_posts_through_workflow_run() -> None:
    triggers = WORKFLOW[True]
    assert "pull_request" in triggers and "pull_request_target" not in triggers
    assert "ensemble" in triggers["workflow_run"]["workflows"]  # its own runs: a fork's evidence to post
    verify, post = WORKFLOW["jobs"]["verify"], WORKFLOW["jobs"]["post-verify"]
    assert verify["if"].startswith("github.event_name == 'pull_request' && ")  # not for the bot's own branches
    assert verify["steps"][0]["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"  # never the head
    assert verify["permissions"] == {"contents": "read", "pull-requests": "write", "issues": "write", "checks": "write"}
    assert "github.event.workflow_run.event == 'pull_request'" in post["if"]
    download = next(s for s in post["steps"] if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}" and download["continue-on-error"]
    assert post["steps"][-1]["with"]["verify-evidence"].endswith("/evidence.json")
    assert "contents" in post["permissions"] and post["permissions"]["contents"] == "read"
    # the bot's own job ignores this workflow's runs: a failed verification is no red branch to heal or report
    assert WORKFLOW["jobs"]["ensemble"]["if"].count("github.event.workflow_run.name != github.workflow") == 2


def test_workflow_triggers_permissions_and_concurrency() -> None:
    triggers = WORKFLOW[True]  # YAML 1.1 reads the key `on` as True
    assert {"issues", "issue_comment", "pull_request_review", "workflow_run", "check_suite",
            "workflow_dispatch"} <= set(triggers)
    assert "pull_request_target" not in triggers
    assert WORKFLOW["permissions"] == {"contents": "write", "pull-requests": "write", "issues": "write",
                                       "actions": "write", "checks": "write", "statuses": "read"}
    job = WORKFLOW["jobs"]["ensemble"]
    assert "concurrency" not in WORKFLOW  # on the job, so events its `if:` skips never join (and evict) the group
    group = job["concurrency"]["group"]
    assert "github.event.issue.number" in group and "workflow_run.head_branch" in group
    assert job["concurrency"]["cancel-in-progress"] is False
    # timed-out checks are healed like failed ones, and only the trigger label starts a job for `issues`
    assert job["if"].count('contains(fromJSON(\'["failure", "timed_out"]\')') == 2
    assert "github.event.label.name == 'ensemble'" in job["if"]


def test_workflow_never_interpolates_event_fields_into_scripts() -> None:
    for job in WORKFLOW["jobs"].values():
        for step in job["steps"]:
            assert not re.search(r"\$\{\{\s*github\.event", step.get("run", ""))
