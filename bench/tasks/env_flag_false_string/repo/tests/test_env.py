import pytest

from workerkit import WorkerSettings, env_flag, env_int, load_settings


def test_defaults():
    assert load_settings({}) == WorkerSettings()


def test_int_settings():
    assert env_int({"N": " 12 "}, "N", 4) == 12
    assert env_int({"N": ""}, "N", 4) == 4
    with pytest.raises(ValueError, match="N must be a whole number, got 'many'"):
        env_int({"N": "many"}, "N", 4)


def test_flags_that_are_on():
    for raw in ("1", "true", "True", "yes", "ON"):
        assert env_flag({"F": raw}, "F") is True, raw


def test_flags_that_are_off():
    for raw in ("0", "false", "FALSE", "no", "off", " Off "):
        assert env_flag({"F": raw}, "F", default=True) is False, raw


def test_an_unset_or_empty_flag_is_its_default():
    assert env_flag({}, "F") is False
    assert env_flag({"F": "  "}, "F", default=True) is True


def test_a_flag_that_is_not_on_or_off_is_an_error():
    with pytest.raises(ValueError, match="WORKER_DRY_RUN"):
        load_settings({"WORKER_DRY_RUN": "maybe"})


def test_settings_from_the_environment():
    settings = load_settings({"WORKER_CONCURRENCY": "8", "WORKER_QUEUE": "mail", "WORKER_VERBOSE": "1",
                              "WORKER_DRY_RUN": "false", "WORKER_RETRY_FAILED": "0"})
    assert settings == WorkerSettings(concurrency=8, queue="mail", dry_run=False, verbose=True, retry_failed=False)
