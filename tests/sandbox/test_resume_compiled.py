"""Go and Rust suites killed by the memory limit are resumed, and both runners list their tests as their
results name them. Real Docker, with the toolchain images `scripts/setup.sh --dev` builds (skipped without).

go test runs each package's tests in order and says which one started (`run` events); it is resumed with
`GOFLAGS=-run=` naming the listed tests that are left. libtest runs tests at once and names none, so the
suite is resumed one test at a time (which names the killer), then without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import DockerSandbox
from sandbox.suite import list_tests, run_suite
from sandbox.toolchains import TOOLCHAINS, find_toolchain_image
from tests.sandbox.conftest import prepare_suite

pytestmark = [pytest.mark.docker, pytest.mark.slow, pytest.mark.usefixtures("no_leftovers")]

GO_SUITE = '''package k

import "testing"

func TestA(t *testing.T) {}

func TestB(t *testing.T) {
	block := make([]byte, 1<<30)
	for i := range block {
		block[i] = 1
	}
	t.Log(len(block))
}

func TestC(t *testing.T) {
	t.Run("sub", func(t *testing.T) { t.Errorf("broken") })
}
'''
RUST_SUITE = '''pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    #[test]
    fn a_passes() { assert_eq!(super::add(1, 1), 2); }

    #[test]
    fn b_hits_the_limit() {
        let block = vec![1u8; 1 << 30];
        assert!(block.iter().map(|b| *b as u64).sum::<u64>() > 0);
    }

    #[test]
    fn c_later_fails() { assert_eq!(super::add(1, 1), 3); }
}
'''


@pytest.fixture
def sandbox(docker_client: object) -> DockerSandbox:
    return DockerSandbox(docker_client, env={})


def toolchain(docker_client: object, name: str) -> str:
    image = find_toolchain_image(docker_client, TOOLCHAINS[name])  # type: ignore[arg-type]
    if image is None:
        pytest.skip(f"no {name} toolchain image; build it with `python -m sandbox toolchains {name}`")
    return str(image.tags[0])


def test_a_killed_go_suite_is_resumed_and_listed_by_file(sandbox: DockerSandbox, docker_client: object,
                                                         tmp_path: Path) -> None:
    env = prepare_suite(sandbox, tmp_path, {"go.mod": "module example.com/k\n\ngo 1.19\n", "k/k_test.go": GO_SUITE},
                  image=toolchain(docker_client, "go"), timeout_s=60)
    listed = list_tests(sandbox, env, env.test_command)
    assert listed == ("k/k_test.go::TestA", "k/k_test.go::TestB", "k/k_test.go::TestC")
    result = run_suite(sandbox, env, env.test_command, listed=listed)
    assert {t.name: t.outcome for t in result.tests} == {"k/k_test.go::TestA": "pass", "k/k_test.go::TestB": "error",
                                                         "k/k_test.go::TestC": "fail", "k/k_test.go::TestC/sub": "fail"}
    assert "killed by the memory limit (sandbox.memory: 256m)" in next(
        t.message for t in result.tests if t.name.endswith("TestB"))
    assert result.complete and result.findings == ()  # the resumed run, an honest one, agrees with go test


def test_a_killed_cargo_suite_is_resumed_one_test_at_a_time_and_listed(sandbox: DockerSandbox, docker_client: object,
                                                                       tmp_path: Path) -> None:
    cargo = '[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n'
    env = prepare_suite(sandbox, tmp_path, {"Cargo.toml": cargo, "src/lib.rs": RUST_SUITE},
                  image=toolchain(docker_client, "rust"), timeout_s=120)
    honest = sandbox.run(env, "cargo test --no-fail-fast -- --skip tests::b_hits_the_limit --exact 2>&1")
    assert honest.exit_code == 101 and honest.findings == () and len(honest.tests) == 2
    listed = list_tests(sandbox, env, env.test_command)
    names = ("src/lib.rs::tests::a_passes", "src/lib.rs::tests::b_hits_the_limit", "src/lib.rs::tests::c_later_fails")
    assert listed == names
    result = run_suite(sandbox, env, env.test_command, listed=listed)
    assert {t.name: t.outcome for t in result.tests} == dict(zip(names, ("pass", "error", "fail"), strict=True))
    assert result.complete and result.findings == ()


def test_each_go_run_starts_from_the_build_cache_setup_warmed_and_keeps_its_writes_to_itself(
        sandbox: DockerSandbox, docker_client: object, tmp_path: Path) -> None:
    env = prepare_suite(sandbox, tmp_path, {"go.mod": "module example.com/k\n\ngo 1.19\n",
                                            "k/k.go": "package k\n\nfunc Add(a, b int) int { return a + b }\n",
                                            "k/k_test.go": 'package k\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) '
                                                           '{\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("no")\n\t}\n}\n'},
                        image=toolchain(docker_client, "go"), timeout_s=60, setup=None)
    look = 'find "$GOCACHE" -type f | wc -l; ls "$GOCACHE/planted" 2>&1; touch "$GOCACHE/planted"'
    first, second = (sandbox.run(env, look) for _ in range(2))
    assert first.exit_code == 0 and second.exit_code == 0, (first.stderr, second.stderr)
    entries = int(first.stdout.split()[0])
    assert entries > 10, first.stdout  # what compiling the tests at setup left: the run need not compile it again
    assert "No such file" in second.stdout, second.stdout  # the first run's write stayed in the first run
    assert sandbox.run(env, env.test_command).exit_code == 0
