"""Branches, workflow runs, check suites and commit statuses: what self-healing reads and restarts; the bot's own
check runs (`ensemble/verify`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from actions.github.base import GitHubBase, GitHubError
from actions.github.info import CommitInfo, RunInfo, run_info

if TYPE_CHECKING:
    from github.Branch import Branch

GREEN = ("success", "skipped", "neutral")
ACTIVE = ("queued", "in_progress", "waiting", "pending")  # the `status` filters for runs not finished
MAX_CHECK_TEXT = 65_000  # GitHub takes 65,535 characters of a check run's summary


class CheckCalls(GitHubBase):
    """Refs, GitHub Actions runs and the checks of other CI apps."""

    def branch_head(self, branch: str) -> str | None:
        """The branch's current head SHA on GitHub, or None when it does not exist."""
        answered, head = self._first_head(branch)
        if answered:
            return head
        return self._not_found_is_none(f"read branch {branch}", lambda: self._repo.get_git_ref(f"heads/{branch}").object.sha)

    def history(self, sha: str, count: int) -> list[CommitInfo]:
        """`sha` and the commits before it, newest first, at most `count` (GitHub's order: by date)."""
        def fetch() -> list[CommitInfo]:
            found = []
            for commit in self._repo.get_commits(sha=sha).get_page(0)[:count]:
                parents = commit.parents
                found.append(CommitInfo(commit.sha, parents[0].sha if parents else "",
                                        commit.author.login if commit.author is not None else "",
                                        commit.commit.author.name or "", (commit.commit.message or "").split("\n")[0]))
            return found
        return self.call(f"list the commits up to {sha[:7]}", fetch)

    def run(self, run_id: int) -> RunInfo:
        return self.call(f"read workflow run {run_id}", lambda: run_info(self._repo.get_workflow_run(run_id)))

    def active_runs(self, branch: str) -> list[RunInfo]:
        """The workflow runs on `branch` that are queued or in progress (GitHub's first page of each)."""
        def fetch() -> list[RunInfo]:
            found: dict[int, RunInfo] = {}
            by_name = cast("Branch", branch)  # PyGithub takes a branch's name too, though it annotates a Branch
            for status in ACTIVE:
                for run in self._repo.get_workflow_runs(branch=by_name, status=status).get_page(0):
                    found[run.id] = run_info(run)
            return sorted(found.values(), key=lambda r: r.id)
        return self.call(f"list the active workflow runs on {branch}", fetch)

    def cancel_run(self, run_id: int) -> bool:
        """Cancel a workflow run; False when it had already finished (GitHub answers 409)."""
        try:
            return self.call(f"cancel workflow run {run_id}", lambda: self._repo.get_workflow_run(run_id).cancel())
        except GitHubError as exc:
            if exc.status == 409:
                return False
            raise

    def failed_jobs(self, run_id: int) -> list[str]:
        """Names of the failed (or timed-out) jobs of a run's latest attempt: its failing checks."""
        def fetch() -> list[str]:
            return [j.name for j in self._repo.get_workflow_run(run_id).jobs() if j.conclusion in ("failure", "timed_out")]
        return self.call(f"list failed jobs of run {run_id}", fetch)

    def check_conclusions(self, sha: str) -> dict[str, str]:
        """Each check's latest conclusion on `sha`, by name: check runs of every app (Actions' jobs among them)
        and commit statuses (`error` reads as `failure`); checks still running are left out."""
        def fetch() -> dict[str, str]:
            commit = self._repo.get_commit(sha)
            found = {st.context: "failure" if st.state == "error" else st.state
                     for st in commit.get_combined_status().statuses if st.state != "pending"}
            # newest first, so the first seen of a name is its latest result
            for run in sorted(commit.get_check_runs(), key=lambda c: c.id, reverse=True):
                if run.status == "completed" and run.name not in found:
                    found[run.name] = run.conclusion or ""
            return found
        return self.call(f"read the checks of {sha[:7]}", fetch)

    def failed_job_logs(self, run_id: int) -> list[tuple[str, str]]:
        """(job name, log text) of the failed (or timed-out) jobs of a run's latest attempt."""
        import requests

        def fetch() -> list[tuple[str, str]]:
            jobs = [j for j in self._repo.get_workflow_run(run_id).jobs() if j.conclusion in ("failure", "timed_out")]
            return [(job.name, job.logs_url()) for job in jobs]

        logs = []
        for name, url in self.call(f"list failed jobs of run {run_id}", fetch):
            response = requests.get(url, timeout=60)  # a signed URL: no token goes there
            if response.status_code != 200:
                raise GitHubError(f"could not download the log of job {name!r}: HTTP {response.status_code}")
            logs.append((name, response.text))
        return logs

    def suite_failures(self, suite_id: int) -> list[tuple[str, str]]:
        """(check run name, report) of the failed check runs of another CI app's check suite.

        The report is what the app published: the output's title, summary and text, then its
        annotations (file:line: message), as the closest thing to a log such apps offer.
        """
        def fetch() -> list[tuple[str, str]]:
            found = []
            for run in self._repo.get_check_suite(suite_id).get_check_runs():
                if run.conclusion not in ("failure", "timed_out"):
                    continue
                output = run.output
                parts = [output.title, output.summary, output.text] if output is not None else []
                notes = [f"{a.path}:{a.start_line}: {a.annotation_level}: {a.message}"
                         for a in list(run.get_annotations())[:50]]
                found.append((run.name, "\n".join(p for p in [*parts, *notes] if p)))
            return found
        return self.call(f"read the check runs of check suite {suite_id}", fetch)

    def rerequest_suite(self, suite_id: int) -> bool:
        """Ask the suite's app to run it again (its check_suite `rerequested` event)."""
        return self.call(f"re-request check suite {suite_id}", lambda: self._repo.get_check_suite(suite_id).rerequest())

    def rerun_failed_jobs(self, run_id: int) -> bool:
        return self.call(f"re-run failed jobs of run {run_id}", lambda: self._repo.get_workflow_run(run_id).rerun_failed_jobs())

    def start_check(self, sha: str, name: str, title: str, summary: str) -> int:
        """A check run `name` on `sha`, in progress, with its output; its id."""
        output: dict[str, str | list[dict[str, str | int]]] = {"title": self.outgoing(title)[:250],
                                                               "summary": self.outgoing(summary)[:MAX_CHECK_TEXT]}
        return self.call(f"start the check {name} on {sha[:7]}", lambda: self._repo.create_check_run(
            name, sha, status="in_progress", output=output).id, repeatable=False)

    def finish_check(self, check_id: int, conclusion: str, title: str, summary: str) -> None:
        """Complete check run `check_id` with `conclusion` (success, neutral, failure ...) and its output."""
        output = {"title": self.outgoing(title)[:250], "summary": self.outgoing(summary)[:MAX_CHECK_TEXT]}
        self.call(f"complete check run {check_id}", lambda: self._repo.get_check_run(check_id).edit(
            status="completed", conclusion=conclusion, output=output))

    def dispatch(self, workflow: str, ref: str) -> None:
        """Start `workflow` (file name or id) on `ref` through workflow_dispatch."""
        self.call(f"dispatch {workflow} on {ref}", lambda: self._repo.get_workflow(workflow).create_dispatch(ref, throw=True),
                  repeatable=False)  # a 5xx may come after the run started: no second run

    def checks_green(self, sha: str, ignore_run: str | None = None) -> tuple[bool, str]:
        """Whether every check on `sha` finished green, and a sentence saying why (not).

        Checks are the check runs of every app (GitHub Actions' jobs among them) and the commit
        statuses of older CI services. No checks at all is not green: nothing tested the commit.
        `ignore_run` is the Actions run id of the bot's own job, which is still running.
        """
        def fetch() -> tuple[list[tuple[str, str, str | None]], list[tuple[str, str]]]:
            commit = self._repo.get_commit(sha)
            mine = f"/actions/runs/{ignore_run}/" if ignore_run else None
            runs: list[tuple[str, str, str | None]] = [
                (c.name, c.status, c.conclusion) for c in commit.get_check_runs()
                if not (mine and mine in (c.details_url or ""))]
            statuses = [(st.context, st.state) for st in commit.get_combined_status().statuses]
            return runs, statuses

        runs, statuses = self.call(f"read the checks of {sha[:7]}", fetch)
        short = sha[:7]
        if not runs and not statuses:
            return False, f"no checks have run on {short}, so nothing has tested it"
        failed = [n for n, status, c in runs if status == "completed" and c not in GREEN]
        failed += [context for context, state in statuses if state in ("failure", "error")]
        if failed:
            return False, f"{len(failed)} checks on {short} did not pass ({', '.join(failed[:5])})"
        pending = [n for n, status, _ in runs if status != "completed"]
        pending += [context for context, state in statuses if state == "pending"]
        if pending:
            return False, f"{len(pending)} checks on {short} have not finished ({', '.join(pending[:5])})"
        return True, f"all {len(runs) + len(statuses)} checks on {short} are green"
